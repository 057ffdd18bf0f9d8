"""Region loops (passes/regions.py, CpuTarget region_kernel): barrier kernels whose barriers
every thread reaches in order run as one thread loop per barrier-delimited region; the rest
(conditional barriers, barriers in loops) keep phases. Each kernel is checked against the
fiber scheduler (`+fibers`, every thread its own stack) and an independent numpy result."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest
from ptx.harness import build

from pyshim.ptx.frontend.parser import parse
from pyshim.ptx.passes import run as run_passes
from pyshim.ptx.translate import translate

HEAD = ".version 8.0\n.target sm_80\n.address_size 64\n"
TARGETS = ["cpu-wave64", "cpu-wave32", "cpu-wave64+phases", "cpu-wave64+fibers"]
needs_nvcc = pytest.mark.skipif(shutil.which("nvcc") is None, reason="needs nvcc")

KERNELS_CU = r"""
#define B 128
// straight-line barriers; t and the loaded value live across barriers, temporaries not
extern "C" __global__ void tree(const float *in, float *out, int n)
{
    __shared__ float s[B];
    int t = threadIdx.x, i = blockIdx.x * B + t;
    float v = i < n ? in[i] : 0.0f;
    s[t] = v;
    __syncthreads();
    for (int st = B / 2; st > 0; st >>= 1) {   // nvcc unrolls: barriers at top level
        if (t < st) s[t] += s[t + st];
        __syncthreads();
    }
    out[i] = s[0] - v + (float)t;
}

// a barrier inside a loop whose trip count is block-uniform (a parameter): the loop head
// starts a region, the branch back goes there per thread
extern "C" __global__ void uniform_loop(const int *in, int *out, int rounds)
{
    __shared__ int s[B];
    int t = threadIdx.x;
    int v = in[blockIdx.x * B + t];
    for (int r = 0; r < rounds; r++) {
        s[t] = v;
        __syncthreads();
        v += s[(t + 1 + r) % B];
        __syncthreads();
    }
    out[blockIdx.x * B + t] = v;
}

// a barrier under a condition inside a loop (uniform per block, decided by a parameter)
extern "C" __global__ void cond_in_loop(const int *in, int *out, int rounds, int every)
{
    __shared__ int s[B];
    int t = threadIdx.x;
    int v = in[blockIdx.x * B + t];
    for (int r = 0; r < rounds; r++) {
        if (r % every == 0) {
            s[t] = v;
            __syncthreads();
            v = s[B - 1 - t] + r;
            __syncthreads();
        } else {
            v = v * 3 + 1;
        }
    }
    out[blockIdx.x * B + t] = v;
}

// a 2-D block: a histogram with shared atomics between two barriers, a loop inside a region
extern "C" __global__ void hist2d(const unsigned char *in, unsigned *bins, int n)
{
    __shared__ unsigned h[64];
    int t = threadIdx.y * blockDim.x + threadIdx.x, nt = blockDim.x * blockDim.y;
    if (t < 64) h[t] = 0;
    __syncthreads();
    for (int i = blockIdx.x * nt + t; i < n; i += gridDim.x * nt)
        atomicAdd(&h[in[i] & 63], 1u);
    __syncthreads();
    if (t < 64) atomicAdd(&bins[t], h[t]);
}
"""

# threads >= %r2 (a parameter) exit before the first barrier; the others exchange through
# shared memory across two barriers (PTX 9.7.13.1: exited threads do not take part)
EARLY_EXIT = HEAD + """
.visible .entry k(.param .u64 out, .param .u32 live)
{
  .reg .pred %p<3>; .reg .b32 %r<12>; .reg .b64 %rd<4>;
  .shared .align 4 .b8 s[512];
  mov.u32 %r1, %tid.x;
  ld.param.u32 %r2, [live];
  setp.ge.u32 %p1, %r1, %r2;
  @%p1 bra $DONE;
  mov.u32 %r4, s;
  shl.b32 %r3, %r1, 2;
  add.s32 %r5, %r4, %r3;
  mul.lo.u32 %r6, %r1, 10;
  st.shared.u32 [%r5], %r6;
  bar.sync 0;
  add.s32 %r7, %r1, 1;
  rem.u32 %r7, %r7, %r2;
  shl.b32 %r7, %r7, 2;
  add.s32 %r7, %r4, %r7;
  ld.shared.u32 %r8, [%r7];
  bar.sync 0;
  st.shared.u32 [%r5], %r8;
  bar.sync 0;
  ld.shared.u32 %r9, [%r4];
  add.u32 %r10, %r8, %r9;
  ld.param.u64 %rd1, [out];
  mul.wide.u32 %rd2, %r1, 4;
  add.s64 %rd1, %rd1, %rd2;
  st.global.u32 [%rd1], %r10;
$DONE:
  ret;
}
"""


def kernel_comment(src: str, name: str) -> str:
    line = next(ln for ln in src.splitlines() if ln.startswith(f"/* kernel {name}:"))
    return line


@pytest.fixture(scope="module")
def ptx(tmp_path_factory: pytest.TempPathFactory) -> str:
    if shutil.which("nvcc") is None:
        pytest.skip("needs nvcc")
    tmp = tmp_path_factory.mktemp("regions")
    (tmp / "k.cu").write_text(KERNELS_CU)
    subprocess.run(["nvcc", "-arch=sm_80", "-ptx", "-o", str(tmp / "k.ptx"),
                    str(tmp / "k.cu")], check=True)
    return (tmp / "k.ptx").read_text()


@needs_nvcc
def test_which_kernels_become_region_loops(ptx: str) -> None:
    mod = run_passes(parse(ptx))
    info = {k.name: k.info.get("regions") for k in mod.kernels}
    assert len(info["tree"].syncs) == 8 and not info["tree"].labels
    assert len(info["hist2d"].syncs) == 2
    assert not info["tree"].backward
    # hist2d's grid-stride loop reads global memory: its iterations run in lockstep, each a
    # region; the region with the shared atomics must not run its threads in SIMD lockstep
    assert info["hist2d"].backward and info["hist2d"].labels
    assert len(info["hist2d"].simd) < info["hist2d"].count
    # SIMD lockstep in every region of the tree: plain loads and stores, shared ones too
    assert info["tree"].simd == set(range(info["tree"].count)) and info["uniform_loop"].simd
    # loops around barriers: their heads start regions, the branch back is per thread
    assert info["uniform_loop"].backward and info["uniform_loop"].labels
    assert info["cond_in_loop"].backward
    src = translate(ptx, "cpu-wave64")
    for name in ("tree", "hist2d", "uniform_loop", "cond_in_loop"):
        assert "region loops" in kernel_comment(src, name)


@needs_nvcc
@pytest.mark.parametrize("target", TARGETS)
def test_straight_line_barriers(tmp_path: Path, ptx: str, target: str) -> None:
    mod = build(ptx, target, tmp_path)
    n, grid = 1000, 8
    x = np.random.default_rng(3).integers(-50, 50, grid * 128).astype(np.float32)
    out = np.zeros(grid * 128, np.float32)
    mod.launch("tree", (grid,), (128,), [x, out, n])
    xs = np.where(np.arange(grid * 128) < n, x, 0).reshape(grid, 128)
    want = xs.sum(axis=1)[:, None] - xs + np.arange(128, dtype=np.float32)
    np.testing.assert_array_equal(out, want.reshape(-1).astype(np.float32))


@needs_nvcc
@pytest.mark.parametrize("target", TARGETS)
def test_barrier_in_uniform_loop_and_conditional_barrier_in_loop(tmp_path: Path, ptx: str,
                                                                  target: str) -> None:
    mod = build(ptx, target, tmp_path)
    grid = 3
    x = np.arange(grid * 128, dtype=np.int32) * 7 - 100
    out = np.zeros_like(x)
    mod.launch("uniform_loop", (grid,), (128,), [x, out, 4])
    v = x.reshape(grid, 128).astype(np.int64)
    for r in range(4):
        v = v + np.roll(v, -(1 + r), axis=1)
    np.testing.assert_array_equal(out, v.astype(np.int32).reshape(-1))
    mod.launch("cond_in_loop", (grid,), (128,), [x, out, 5, 2])
    v = x.reshape(grid, 128).astype(np.int64)
    for r in range(5):
        v = v[:, ::-1] + r if r % 2 == 0 else v * 3 + 1
    np.testing.assert_array_equal(out, v.astype(np.int32).reshape(-1))


@needs_nvcc
@pytest.mark.parametrize("target", TARGETS)
def test_loop_inside_a_region_2d_block(tmp_path: Path, ptx: str, target: str) -> None:
    mod = build(ptx, target, tmp_path)
    data = np.random.default_rng(5).integers(0, 256, 5000, dtype=np.uint8)
    bins = np.zeros(64, np.uint32)
    mod.launch("hist2d", (4,), (16, 8), [data, bins, data.size])
    assert bins.tolist() == np.bincount(data & 63, minlength=64).tolist()


@pytest.mark.parametrize("target", TARGETS)
def test_threads_exit_before_a_barrier(tmp_path: Path, target: str) -> None:
    assert len(run_passes(parse(EARLY_EXIT)).kernels[0].info["regions"].syncs) == 3
    assert "region loops" in kernel_comment(translate(EARLY_EXIT, "cpu-wave64"), "k")
    mod = build(EARLY_EXIT, target, tmp_path)
    live = 37
    out = np.full(128, 12345, np.uint32)
    mod.launch("k", (1,), (128,), [out, live])
    t = np.arange(live)
    got = (t + 1) % live * 10
    want = got + got[0]
    assert out[:live].tolist() == want.tolist()
    assert (out[live:] == 12345).all()       # the exited threads wrote nothing
