"""Region loops with control flow between regions (passes/regions.py, targets/cpu/regions.py):
warp collectives end regions, branches around them and loops across them run each thread
along its own path. Every kernel runs as region loops, as phases and as fibers, and is
checked against numpy."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest
from ptx.harness import build

from pyshim.ptx import ir
from pyshim.ptx.frontend.parser import parse
from pyshim.ptx.passes import run as run_passes
from pyshim.ptx.translate import translate

TARGETS = ["cpu-wave64", "cpu-wave32", "cpu-wave64+phases", "cpu-wave64+fibers"]

KERNELS_CU = r"""
#define B 256
// block inclusive scan: warp scans by shuffles, then warp 0 alone scans the warp totals
extern "C" __global__ void scan(int n, const int *in, int *out)
{
    __shared__ int sums[B / 32];
    int t = threadIdx.x, lane = t & 31, warp = t >> 5;
    int i = blockIdx.x * B + t;
    int v = i < n ? in[i] : 0;
    for (int d = 1; d < 32; d <<= 1) {
        int u = __shfl_up_sync(0xffffffffu, v, d);
        if (lane >= d) v += u;
    }
    if (lane == 31) sums[warp] = v;
    __syncthreads();
    if (warp == 0) {
        int s = lane < B / 32 ? sums[lane] : 0;
        for (int d = 1; d < B / 32; d <<= 1) {
            int u = __shfl_up_sync(0xffffffffu, s, d);
            if (lane >= d) s += u;
        }
        if (lane < B / 32) sums[lane] = s;
    }
    __syncthreads();
    if (warp > 0) v += sums[warp - 1];
    if (i < n) out[i] = v;
}

// a warp sum by shuffles down (offsets 16..1 over the whole warp: completed from shifted
// loads in region loops); launched with a partial last warp
extern "C" __global__ void warp_sum(const int *in, int *out)
{
    int t = threadIdx.x, v = in[t];
    for (int d = 16; d > 0; d >>= 1)
        v += __shfl_down_sync(0xffffffffu, v, d);
    out[t] = v;
}

// shfl.up by 3: lanes 0..2 of each warp keep their own value (PTX: source out of range)
extern "C" __global__ void shift_up(const int *in, int *out)
{
    int t = threadIdx.x;
    out[t] = __shfl_up_sync(0xffffffffu, in[t] * 2, 3);
}

// a loop around a shuffle whose trip count differs between warps (warp w runs w + 1
// rounds): the branch back goes to a region start, per thread
extern "C" __global__ void rounds(const int *in, int *out)
{
    int t = threadIdx.x, warp = t >> 5;
    int v = in[blockIdx.x * blockDim.x + t];
    for (int r = 0; r <= warp; r++)
        v += __shfl_xor_sync(0xffffffffu, v, 1 << (r % 5));
    out[blockIdx.x * blockDim.x + t] = v;
}

// a barrier inside a loop with a block-uniform trip count, a vote inside, and threads that
// leave before the loop
extern "C" __global__ void vote_loop(const int *in, int *out, int iters, int live)
{
    __shared__ int s[B];
    int t = threadIdx.x;
    if (t >= live) return;
    int v = in[t];
    for (int k = 0; k < iters; k++) {
        s[t] = v;
        __syncthreads();
        unsigned m = __ballot_sync(__activemask(), v & 1);
        v = s[(t + 1) % live] + __popc(m);
        __syncthreads();
    }
    out[t] = v;
}

// a warp-number guard (%tid.x >> 5) around shuffles, branching to the barrier that joins:
// the regions in between loop over warp 1's threads only; `total` is set by warp 1 lane 0
extern "C" __global__ void warp_one(const int *in, int *out)
{
    __shared__ int total;
    int t = threadIdx.x, v = in[blockIdx.x * blockDim.x + t];
    if (t == 0) total = -1;
    __syncthreads();
    if ((t >> 5) == 1) {
        for (int d = 16; d > 0; d >>= 1)
            v += __shfl_down_sync(0xffffffffu, v, d);
        if ((t & 31) == 0) total = v;
    }
    __syncthreads();
    out[blockIdx.x * blockDim.x + t] = v * 3 + total;
}

// a spin-wait on the clock, no memory in the loop: region loops run its iterations in
// lockstep, so a block waits once rather than once per thread in turn
extern "C" __global__ void spin(long long cycles, int *out)
{
    long long start = clock64();
    int n = 0;
    while (clock64() - start < cycles)
        n++;
    out[blockIdx.x * blockDim.x + threadIdx.x] = n;
}

// cuda-samples' reduction kernel 7: each warp sums by shuffles, then the first B/32 lanes
// sum the warp totals under a ballot's mask; their shuffles read lanes outside the mask
extern "C" __global__ void masked_tail(const int *in, int *out)
{
    __shared__ int sums[B / 32];
    unsigned t = threadIdx.x;
    int v = in[blockIdx.x * B + t];
    for (int d = 16; d > 0; d >>= 1)
        v += __shfl_down_sync(0xffffffffu, v, d);
    if (t % 32 == 0) sums[t / 32] = v;
    __syncthreads();
    unsigned m = __ballot_sync(0xffffffffu, t < B / 32);
    if (t < B / 32) {
        v = sums[t];
        for (int d = 16; d > 0; d >>= 1)
            v += __shfl_down_sync(m, v, d);
    }
    if (t == 0) out[blockIdx.x] = v;
}

// lanes 0..7 of each warp shuffle among themselves: by a constant (down 4), by the lane
// (idx 3 * lane) and by a parameter (xor k); a source lane outside them reads 0
extern "C" __global__ void outside(const int *in, int *out, int k)
{
    int t = threadIdx.x, lane = t & 31, v = in[t] * 3;
    out[t] = out[64 + t] = out[128 + t] = -1;
    if (lane < 8) {
        out[t] = __shfl_down_sync(0xffu, v, 4);
        out[64 + t] = __shfl_sync(0xffu, v, lane * 3 % 32);
        out[128 + t] = __shfl_xor_sync(0xffu, v, k);
    }
}

// a lane tail: only threads with %tid.x & 31 == 7 store, at the end of a region (in a
// 2-D block whose rows are not a multiple of 32 wide)
extern "C" __global__ void lane_tail(const int *in, int *out)
{
    __shared__ int s[64];
    int x = threadIdx.x, y = threadIdx.y, w = blockDim.x;
    int v = in[(blockIdx.x * blockDim.y + y) * w + x];
    for (int i = y * w + x; i < 64; i += w * blockDim.y)
        s[i] = -1;
    __syncthreads();
    v = v * 3 + y;
    if ((x & 31) == 7)
        s[(y * 2 + (x >> 5)) & 63] = v;
    __syncthreads();
    out[(blockIdx.x * blockDim.y + y) * w + x] = s[(y * 2 + (x >> 5)) & 63] + s[(y + 1) & 63];
}

// a guard on %tid.x that ends inside a warp: lanes 36..39 shuffle down from lanes 40..43,
// which skip the shuffle (they read 0); in a 2-D block the guard applies row by row
extern "C" __global__ void ranged(const int *in, int *out)
{
    __shared__ int s[128], r[128];
    int t = threadIdx.y * blockDim.x + threadIdx.x;
    s[t] = in[t] * 3;
    r[t] = -1;
    __syncthreads();
    if (threadIdx.x < 40)
        r[t] = __shfl_down_sync(0xffffffffu, s[t], 4);
    __syncthreads();
    out[t] = r[t];
}

// `i < n` on the load and again on the store, around a barrier: a block whose threads all
// pass both runs the regions without them
extern "C" __global__ void guarded(int n, const int *in, int *out)
{
    __shared__ int s[256];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    s[threadIdx.x] = i < n ? in[i] : 1000;
    __syncthreads();
    if (i < n)
        out[i] = s[threadIdx.x] + 2 * s[blockDim.x - 1 - threadIdx.x];
}

// shuffles up and down between 32-bit arithmetic, shifts, comparisons and selects: in a
// 1-D block of whole warps, one chain of warp vectors (cpu_warpvec.py)
extern "C" __global__ void mix(const int *in, int *out)
{
    int t = threadIdx.x, lane = t & 31;
    int i = blockIdx.x * blockDim.x + t;
    int v = in[i];
    int u = __shfl_up_sync(0xffffffffu, v, 3);
    int w = lane >= 3 ? u - (v ^ lane) : (v << 2);
    w = __shfl_down_sync(0xffffffffu, w, 5) + (w >> 3);
    unsigned z = (unsigned)w >> 4;
    int q = w < -3 ? (int)(z * 3u) : w - lane;
    __syncthreads();
    out[i] = q;
}

// a row-wise tree in a 2-D block: the guards test %tid.x only, so with one row a region
// loops over the threads that pass them, with several rows over all
extern "C" __global__ void rows(const float *in, float *out)
{
    __shared__ float s[8][32];
    int tx = threadIdx.x, ty = threadIdx.y;
    s[ty][tx] = in[(blockIdx.x * blockDim.y + ty) * 32 + tx];
    __syncthreads();
    for (int st = 16; st > 0; st >>= 1) {
        if (tx < st) s[ty][tx] += s[ty][tx + st];
        __syncthreads();
    }
    if (tx == 0) out[blockIdx.x * blockDim.y + ty] = s[ty][0];
}
"""


@pytest.fixture(scope="module")
def ptx(tmp_path_factory: pytest.TempPathFactory) -> str:
    if shutil.which("nvcc") is None:
        pytest.skip("needs nvcc")
    tmp = tmp_path_factory.mktemp("paths")
    (tmp / "k.cu").write_text(KERNELS_CU)
    subprocess.run(["nvcc", "-arch=sm_75", "-ptx", "-o", str(tmp / "k.ptx"),
                    str(tmp / "k.cu")], check=True)
    return (tmp / "k.ptx").read_text()


def test_plans(ptx: str) -> None:
    plans = {k.name: k.info.get("regions") for k in run_passes(parse(ptx)).kernels}
    assert plans["scan"].labels and not plans["scan"].backward  # the branch around warp 0's
    assert len(plans["scan"].syncs) == 10                       # 8 shuffles, 2 barriers
    assert plans["rounds"].backward
    assert plans["vote_loop"].backward
    # the tree's guards narrow its regions; the block index and parameters are one scalar
    # per block, the thread's own index is recomputed in each region
    assert [r for _, r in plans["rows"].ranges] == [(0, 16), (0, 8), (0, 4), (0, 2), (0, 1)]
    assert plans["rows"].uniform and plans["rows"].remat
    # `if (warp == 0)` in scan and `if (warp == 1)` in warp_one: every region from the
    # guard to the join loops over that warp's threads
    assert {r for _, r in plans["scan"].ranges} == {(0, 32)}
    assert len(plans["scan"].ranges) == 4  # the guard's region and 3 shuffles
    assert {r for _, r in plans["warp_one"].ranges} == {(32, 64)}
    assert len(plans["warp_one"].ranges) == 6
    # `if (lane == 31) sums[warp] = v` ends a SIMD region: a lane tail
    assert [lane for _, (_, lane, _) in plans["scan"].tails] == [31]
    assert [lane for _, (_, lane, _) in plans["lane_tail"].tails] == [7]
    src = translate(ptx, "cpu-wave64")
    for name in plans:
        assert f"/* kernel {name}: " in src and "region loops" in src.split(
            f"/* kernel {name}: ")[1].splitlines()[0]
    # each kernel's loops twice: once for 1-D blocks of whole warps (every test here runs
    # both copies: 1-D blocks of 64 or 256 threads, and 2-D or partial-warp ones)
    assert src.count("(nx & 31u) == 0) {  /* 1-D, whole warps */") == len(plans)
    # shuffle chains as warp vectors: scan's warp scan, masked_tail's warp sums, mix
    chains = {name: src.split(f"/* kernel {name}: ")[1].split("/* kernel ")[0].count(
        "warp vectors (cpu_warpvec.py)") for name in plans}
    assert {name for name, n in chains.items() if n} == {"scan", "masked_tail", "mix"}


@pytest.mark.parametrize("target", TARGETS)
def test_scan(tmp_path: Path, ptx: str, target: str) -> None:
    mod = build(ptx, target, tmp_path)
    n, grid = 1000, 4
    x = np.random.default_rng(1).integers(-100, 100, grid * 256).astype(np.int32)
    out = np.zeros_like(x)
    mod.launch("scan", (grid,), (256,), [n, x, out])
    xs = np.where(np.arange(grid * 256) < n, x, 0).reshape(grid, 256)
    want = np.cumsum(xs, axis=1).reshape(-1)
    np.testing.assert_array_equal(out[:n], want[:n])


@pytest.mark.parametrize("target", TARGETS)
def test_loop_with_per_warp_trip_count(tmp_path: Path, ptx: str, target: str) -> None:
    mod = build(ptx, target, tmp_path)
    x = np.random.default_rng(2).integers(-1000, 1000, 2 * 128).astype(np.int32)
    out = np.zeros_like(x)
    mod.launch("rounds", (2,), (128,), [x, out])
    v = x.reshape(2, 4, 32).astype(np.int64)
    for w in range(4):
        for r in range(w + 1):
            lanes = np.arange(32) ^ (1 << (r % 5))
            v[:, w] = v[:, w] + v[:, w][:, lanes]
    np.testing.assert_array_equal(out, v.reshape(-1).astype(np.int32))


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("block", [64, 96])
def test_warp_number_guard_around_shuffles(tmp_path: Path, ptx: str, target: str,
                                           block: int) -> None:
    mod = build(ptx, target, tmp_path)
    grid = 3
    x = np.random.default_rng(6).integers(-1000, 1000, grid * block).astype(np.int32)
    out = np.zeros_like(x)
    mod.launch("warp_one", (grid,), (block,), [x, out])
    v = x.reshape(grid, block).astype(np.int64)
    w = v[:, 32:64].copy()
    lanes = np.arange(32)
    for d in (16, 8, 4, 2, 1):  # a source lane past 31 is out of range: the lane's own value
        w = w + np.where(lanes + d < 32, w[:, np.minimum(lanes + d, 31)], w)
    v[:, 32:64] = w
    want = v * 3 + w[:, :1]
    np.testing.assert_array_equal(out, want.reshape(-1).astype(np.int32))


@pytest.mark.parametrize("target", TARGETS)
def test_spin_wait_on_the_clock(tmp_path: Path, ptx: str, target: str) -> None:
    k = next(k for k in run_passes(parse(ptx)).kernels if k.name == "spin")
    assert k.info["mode"] == "phase" and k.info["regions"].labels  # lockstep, not a loop
    mod = build(ptx, target, tmp_path)
    out = np.zeros(3 * 64, np.int32)
    mod.launch("spin", (3,), (64,), [20000, out])
    assert (out > 0).all()  # every thread waited (and counted its own turns)


@pytest.mark.parametrize("target", TARGETS)
def test_vote_in_a_barrier_loop_after_early_exits(tmp_path: Path, ptx: str,
                                                  target: str) -> None:
    mod = build(ptx, target, tmp_path)
    live, iters = 45, 3
    x = np.random.default_rng(3).integers(0, 1000, 64).astype(np.int32)
    out = np.full(64, -7, np.int32)
    mod.launch("vote_loop", (1,), (64,), [x, out, iters, live])
    wave = 32  # CUDA's warps, whatever the device's wave size
    v = x[:live].astype(np.int64)
    for _ in range(iters):
        odd = (v & 1).astype(bool)
        pop = np.array([odd[(t // wave) * wave:(t // wave + 1) * wave].sum()
                        for t in range(live)])
        v = np.roll(v, -1) + pop
    np.testing.assert_array_equal(out[:live], v.astype(np.int32))
    assert (out[live:] == -7).all()


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("ny", [1, 4])
def test_guarded_tree_in_1d_and_2d_blocks(tmp_path: Path, ptx: str, target: str,
                                          ny: int) -> None:
    mod = build(ptx, target, tmp_path)
    grid = 3
    x = np.random.default_rng(4).integers(-64, 64, grid * ny * 32).astype(np.float32)
    out = np.zeros(grid * ny, np.float32)
    mod.launch("rows", (grid,), (32, ny), [x, out])
    np.testing.assert_array_equal(out, x.reshape(-1, 32).sum(axis=1))


def test_kernels_with_very_many_regions_keep_phases(tmp_path: Path) -> None:
    """Past MAX_REGIONS regions one C function of that many loops compiles for minutes:
    such a kernel keeps phases, and still computes the right thing."""
    from pyshim.ptx.passes.regions import MAX_REGIONS

    n = MAX_REGIONS + 6
    shuffles = "\n".join("  shfl.sync.bfly.b32 %r2, %r1, 1, 31, -1;\n  add.s32 %r1, %r1, %r2;"
                         for _ in range(n))
    ptx = (".version 8.0\n.target sm_80\n.address_size 64\n"
           ".visible .entry k(.param .u64 out)\n{\n  .reg .b32 %r<4>; .reg .b64 %rd<4>;\n"
           "  mov.u32 %r1, %tid.x;\n" + shuffles + "\n"
           "  ld.param.u64 %rd1, [out];\n  mov.u32 %r3, %tid.x;\n"
           "  mul.wide.u32 %rd2, %r3, 4;\n  add.s64 %rd1, %rd1, %rd2;\n"
           "  st.global.u32 [%rd1], %r1;\n  ret;\n}\n")
    assert run_passes(parse(ptx)).kernels[0].info["regions"] is None
    assert "phases" in translate(ptx, "cpu-wave64")
    mod = build(ptx, "cpu-wave64", tmp_path)
    out = np.zeros(32, np.uint32)
    mod.launch("k", (1,), (32,), [out])
    v = np.arange(32, dtype=np.uint64)
    for _ in range(n):  # each lane adds its partner's value: lane pairs double each step
        v = (v + v[np.arange(32) ^ 1]) % (1 << 32)
    assert out.tolist() == v.astype(np.uint32).tolist()


def test_a_module_past_its_region_budget_keeps_phases_for_its_largest_kernels() -> None:
    """Region loops cost the C compiler much more than phases: past MODULE_REGIONS regions
    in a module, the kernels with the most regions keep phases."""
    from pyshim.ptx.passes.classify_sync import MODULE_REGIONS

    def kernel(name: str, barriers: int) -> str:
        body = "\n".join("  bar.sync 0;\n  add.u32 %r1, %r1, 1;" for _ in range(barriers))
        return (f".visible .entry {name}(.param .u64 out)\n{{\n  .reg .b32 %r<3>; "
                f".reg .b64 %rd<3>;\n  mov.u32 %r1, %tid.x;\n{body}\n"
                "  ld.param.u64 %rd1, [out];\n  st.global.u32 [%rd1], %r1;\n  ret;\n}\n")

    small, large = 9, 40  # regions: barriers + 1
    n_small = MODULE_REGIONS // (small + 1)
    ptx = (".version 8.0\n.target sm_80\n.address_size 64\n"
           + "".join(kernel(f"s{i}", small) for i in range(n_small)) + kernel("big", large))
    info = {k.name: k.info.get("regions") for k in run_passes(parse(ptx)).kernels}
    assert info["big"] is None
    assert all(info[f"s{i}"] is not None for i in range(n_small))


def _shuffled(v: np.ndarray, src: np.ndarray, inrange: np.ndarray,
              took: np.ndarray) -> np.ndarray:
    """NVIDIA's shuffle, as an H200 answered it (compute_75 PTX JIT-compiled, and sm_90
    code alike): out of range, the lane's own value; in range, the source lane's if that
    lane took part in the shuffle, else 0 (a lane outside the mask, or past a partial
    warp's end)."""
    safe = np.clip(src, 0, len(v) - 1)
    return np.where(inrange, np.where(took[safe] & (src < len(v)), v[safe], 0), v)


def test_shuffle_down_with_a_partial_warp(tmp_path: Path, ptx: str) -> None:
    """Full warps give CUDA's sums in lane 0 (lane l holds the sum of lanes l.. in the tree
    order); a partial warp's missing lanes read as 0, the same in region loops, phases and
    fibers."""
    x = np.random.default_rng(6).integers(-1000, 1000, 48).astype(np.int32)
    want = x.astype(np.int64)
    t = np.arange(48)
    for d in (16, 8, 4, 2, 1):
        want = want + _shuffled(want, t + d, (t % 32) + d < 32, np.ones(48, bool))
    for target in TARGETS:
        (tmp_path / target).mkdir()
        mod = build(ptx, target, tmp_path / target)
        out = np.zeros(48, np.int32)
        mod.launch("warp_sum", (1,), (48,), [x, out])
        np.testing.assert_array_equal(out, want.astype(np.int32), err_msg=target)


@pytest.mark.parametrize("target", TARGETS)
def test_a_lane_outside_the_shuffle_reads_zero(tmp_path: Path, ptx: str, target: str) -> None:
    """What cuda-samples' reduction kernel 7 depends on: wrong sums when such a lane read
    the thread's own value instead."""
    mod = build(ptx, target, tmp_path)
    x = np.random.default_rng(9).integers(-1000, 1000, 64).astype(np.int32)
    out = np.zeros(192, np.int32)
    mod.launch("outside", (1,), (64,), [x, out, 5])
    v, t = 3 * x.astype(np.int64), np.arange(64)
    lane, took = t % 32, t % 32 < 8
    base = t - lane
    wants = [_shuffled(v, t + 4, lane + 4 < 32, took),
             _shuffled(v, base + lane * 3 % 32, np.ones(64, bool), took),
             _shuffled(v, base + (lane ^ 5), np.ones(64, bool), took)]
    for k, want in enumerate(wants):
        np.testing.assert_array_equal(out[64 * k:64 * (k + 1)],
                                      np.where(took, want, -1).astype(np.int32), err_msg=k)
    assert (out[:64][took] == 0).any() and (out[:64][took] != 0).any()
    blocks = 3
    x = np.random.default_rng(10).integers(-1000, 1000, blocks * 256).astype(np.int32)
    sums = np.zeros(blocks, np.int32)
    mod.launch("masked_tail", (blocks,), (256,), [x, sums])
    np.testing.assert_array_equal(sums, x.reshape(blocks, 256).sum(axis=1))


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("block", [(64, 1), (48, 2)])
def test_a_guard_range_ending_inside_a_warp(tmp_path: Path, ptx: str, target: str,
                                            block: tuple[int, int]) -> None:
    """A region loop runs only the guard's range in a 1-D block; the lanes of its last
    warp past the range never run the loop, yet a lane in range shuffling from them reads
    0 (and in a 2-D block, with the guard row by row, the same)."""
    plans = {k.name: k.info.get("regions") for k in run_passes(parse(ptx)).kernels}
    assert (0, 40) in {r for _, r in plans["ranged"].ranges}
    mod = build(ptx, target, tmp_path)
    w, h = block
    x = np.random.default_rng(12).integers(-1000, 1000, w * h).astype(np.int32)
    out = np.zeros_like(x)
    mod.launch("ranged", (1,), block, [x, out])
    t = np.arange(w * h)
    took = t % w < 40
    want = _shuffled(3 * x.astype(np.int64), t + 4, t % 32 + 4 < 32, took)
    np.testing.assert_array_equal(out, np.where(took, want, -1).astype(np.int32))
    assert (want[took & (t % 32 + 4 < 32)] == 0).any()


@pytest.mark.parametrize("target", TARGETS)
def test_blocks_inside_the_guard_run_without_it(tmp_path: Path, ptx: str, target: str) -> None:
    """Region loops decide once per block that no thread takes `i >= n` (cpu/guards.py):
    inner blocks run unguarded copies of both regions, the last block the guarded ones,
    which neither read past n nor write there."""
    if target == "cpu-wave64":
        src = translate(ptx, target).split("/* kernel guarded: ")[1].split("/* kernel ")[0]
        assert "region loops" in src.splitlines()[0] and "if (ps_gk0) {" in src
    mod = build(ptx, target, tmp_path)
    n, grid = 600, 3
    x = np.random.default_rng(13).integers(-1000, 1000, grid * 256).astype(np.int32)
    out = np.full(grid * 256, -7, np.int32)
    mod.launch("guarded", (grid,), (256,), [n, x, out])
    s = np.where(np.arange(grid * 256) < n, x, 1000).reshape(grid, 256)
    want = (s + 2 * s[:, ::-1]).reshape(-1)
    np.testing.assert_array_equal(out[:n], want[:n])
    assert (out[n:] == -7).all()


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("block", [64, 48])
def test_warp_vectors_compute_what_region_loops_do(tmp_path: Path, ptx: str, target: str,
                                                   block: int) -> None:
    """mix's chain, as warp vectors in 1-D blocks of whole warps (64) and as region loops
    otherwise (48), against numpy: wrapping 32-bit arithmetic, arithmetic and logical
    shifts, signed and unsigned comparisons, a lane past a partial warp's end reading 0."""
    mod = build(ptx, target, tmp_path)
    grid = 2
    x = np.random.default_rng(14).integers(-2**31, 2**31, grid * block).astype(np.int32)
    out = np.zeros_like(x)
    mod.launch("mix", (grid,), (block,), [x, out])
    t = np.arange(grid * block)
    lane = (t % block) % 32
    v = x.astype(np.int64)

    def wrap(a: np.ndarray) -> np.ndarray:
        return ((a + 2**31) % 2**32) - 2**31

    def shuffled(a: np.ndarray, off: int, inrange: np.ndarray) -> np.ndarray:
        src = t + off
        same_block = (src // block == t // block) & (src >= 0)
        return np.where(inrange, np.where(same_block, a[np.clip(src, 0, len(a) - 1)], 0), a)

    u = shuffled(v, -3, lane >= 3)
    w = np.where(lane >= 3, wrap(u - (v ^ lane)), wrap(v << 2))
    w = wrap(shuffled(w, 5, lane + 5 < 32) + (w >> 3))
    z = (w % 2**32) >> 4
    q = np.where(w < -3, wrap((z * 3) % 2**32), wrap(w - lane))
    np.testing.assert_array_equal(out, q.astype(np.int32))


@pytest.mark.parametrize("target", TARGETS)
def test_shuffle_up_keeps_the_value_of_the_first_lanes(tmp_path: Path, ptx: str,
                                                        target: str) -> None:
    mod = build(ptx, target, tmp_path)
    x = np.random.default_rng(8).integers(-1000, 1000, 96).astype(np.int32)
    out = np.zeros(96, np.int32)
    mod.launch("shift_up", (1,), (96,), [x, out])
    lane = np.arange(96) % 32
    want = np.where(lane >= 3, 2 * np.roll(x, 3), 2 * x)
    np.testing.assert_array_equal(out, want)


def test_prefetch_of_the_block_after_next(ptx: str) -> None:
    """The CPU device prefetches, for the block two along %ctaid.x, the footprint of each
    global access whose address is affine in %tid and %ctaid (cpu/prefetch.py): scan reads
    4 bytes per thread from `in` (a read) and writes as many to `out` (a write); a 2-D
    block's footprint goes row by row. The other kernels' blocks keep working (every test
    above runs with the hints, also past the grid's end)."""
    from pyshim.ptx.targets.cpu import prefetch as cpu_prefetch

    kernels = {k.name: k for k in run_passes(parse(ptx)).kernels}
    lines = cpu_prefetch.lines(kernels["scan"])
    calls = [x.strip() for x in lines if "ps_prefetch_box(" in x]
    assert len(calls) == 2
    assert calls[0].endswith(", 0);") and calls[1].endswith(", 1);")  # in: read, out: write
    assert all(", (int64_t)4, (int64_t)0, (int64_t)0, ps_box, 4, " in x for x in calls)
    # rows: in[(blockIdx.x * blockDim.y + ty) * 32 + tx], 4 bytes along x and 128 along y;
    # out[blockIdx.x * blockDim.y + ty], 4 along y only
    rows = [x.strip() for x in cpu_prefetch.lines(kernels["rows"]) if "ps_prefetch_box(" in x]
    assert len(rows) == 2
    assert ", (int64_t)4, (int64_t)128, (int64_t)0, ps_box, 4, 0);" in rows[0]
    assert ", (int64_t)0, (int64_t)4, (int64_t)0, ps_box, 4, 1);" in rows[1]
    setup = [x for x in lines if "const int64_t ps_g" in x]
    assert setup and all("((int64_t)c.ctaid_x + 2)" in x for x in setup)
    an = cpu_prefetch._Addresses(kernels["scan"])
    addrs = []
    for s in kernels["scan"].body:
        if type(s) is ir.Instruction:
            if s.opcode in ("ld", "st") and "global" in s.mods:
                a = s.operands[1 if s.opcode == "ld" else 0]
                addrs.append(an.value(a.base))
            an.step(s)
    # a parameter pointer + (ctaid * 256 + tid) * 4: 4 bytes per thread along x, 1 KB per block
    assert [sorted(a) for a in addrs] == [["1", "x"], ["1", "x"]]
    assert [a["x"] for a in addrs] == [4, 4]
    assert "ps_pb + 8)" in addrs[0]["1"] and "ps_pb + 16)" in addrs[1]["1"]
    assert all("c.ctaid_x" in a["1"] and "256" in a["1"] for a in addrs)


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("block", [(48, 2), (64, 1), (7, 3)])
def test_lane_tail_runs_for_its_lane_only(tmp_path: Path, ptx: str, target: str,
                                          block: tuple[int, int]) -> None:
    """The tail runs after the region's loop, for threads with %tid.x & 31 == 7 alone
    (whatever the block's shape): every other shared slot keeps its -1."""
    mod = build(ptx, target, tmp_path)
    w, h = block
    grid = 2
    x = np.random.default_rng(11).integers(-1000, 1000, grid * w * h).astype(np.int32)
    out = np.zeros_like(x)
    mod.launch("lane_tail", (grid,), (w, h), [x, out])
    v = x.reshape(grid, h, w).astype(np.int64) * 3 + np.arange(h)[None, :, None]
    want = np.empty_like(v)
    for b in range(grid):
        s = np.full(64, -1, np.int64)
        for yy in range(h):
            for xx in range(w):
                if xx & 31 == 7:
                    s[(yy * 2 + (xx >> 5)) & 63] = v[b, yy, xx]
        for yy in range(h):
            for xx in range(w):
                want[b, yy, xx] = s[(yy * 2 + (xx >> 5)) & 63] + s[(yy + 1) & 63]
    np.testing.assert_array_equal(out, want.reshape(-1).astype(np.int32))
