"""The CPU target's fast paths (pyshim/ptx/targets/cpu/target.py, preludes/cpu.h): the thread loop
with parameters and launch geometry set up once per block, and atomics on a block's own
shared memory done as plain read-modify-writes while global atomics stay atomic. Real nvcc
PTX, run with blocks on several OS threads at once (ctypes releases the GIL)."""

from __future__ import annotations

import shutil
import subprocess
import threading
from pathlib import Path

import numpy as np
import pytest
from ptx.harness import build

from pyshim.ptx.translate import translate

HEAD = ".version 8.0\n.target sm_80\n.address_size 64\n"

needs_nvcc = pytest.mark.skipif(shutil.which("nvcc") is None, reason="needs nvcc")

ATOMICS_CU = r"""
// per block: shared bins filled with shared atomics (int add, float add, max, or, exch,
// cas), then merged into global bins with global atomics; every block hammers the same
// few global counters too, so a lost update anywhere shows in the totals
extern "C" __global__ void hammer(int n, const unsigned char *in, unsigned int *bins,
                                  unsigned long long *counter, float *fsum,
                                  unsigned int *maxv, unsigned int *orv)
{
    __shared__ unsigned int local[16];
    __shared__ float flocal;
    __shared__ unsigned int smax, sor, sx, scas;
    int t = threadIdx.x;
    if (t < 16) local[t] = 0;
    if (t == 0) { flocal = 0.0f; smax = 0; sor = 0; sx = 0; scas = 0; }
    __syncthreads();
    for (int i = blockIdx.x * blockDim.x + t; i < n; i += gridDim.x * blockDim.x) {
        unsigned v = in[i];
        atomicAdd(&local[v & 15], 1u);
        atomicAdd(&flocal, 1.0f);
        atomicMax(&smax, v);
        atomicOr(&sor, 1u << (v & 31));
        atomicExch(&sx, v);
        unsigned old = scas, seen;
        do { seen = old; old = atomicCAS(&scas, seen, seen + 1); } while (old != seen);
        atomicAdd(counter, 1ull);
    }
    __syncthreads();
    if (t < 16) atomicAdd(&bins[t], local[t]);
    if (t == 16) atomicAdd(fsum, flocal);
    if (t == 17) atomicMax(maxv, smax);
    if (t == 18) atomicOr(orv, sor);
    if (t == 19) atomicAdd(&bins[16], scas);
}

// no barrier: the plain thread loop; a 3-D block, parameters of several sizes
extern "C" __global__ void affine3d(int nx, int ny, double scale, short bias,
                                    const float *in, float *out)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    int z = threadIdx.z;
    if (x >= nx || y >= ny) return;
    int i = (z * ny + y) * nx + x;
    out[i] = (float)(in[i] * scale) + bias + (float)(blockDim.x * gridDim.y);
}
"""


@pytest.fixture(scope="module")
def ptx(tmp_path_factory: pytest.TempPathFactory) -> str:
    tmp = tmp_path_factory.mktemp("perf")
    src = tmp / "k.cu"
    src.write_text(ATOMICS_CU)
    out = tmp / "k.ptx"
    subprocess.run(["nvcc", "-arch=sm_80", "-ptx", "-o", str(out), str(src)], check=True)
    return out.read_text()


def launch_threaded(mod, name: str, grid: int, block: int, args: list, workers: int = 4,
                    repeat: int = 1) -> None:
    """Runs the grid's blocks on `workers` OS threads at once, as the CPU device does."""
    from ptx import harness

    errors: list[BaseException] = []

    def work(w: int) -> None:
        try:
            for _ in range(repeat):
                for b in range(w, grid, workers):
                    # one block per call: harness.launch walks a 1-block grid at offset b
                    launch_one(harness, mod, name, b, grid, block, args)
        except BaseException as e:  # noqa: BLE001 - reported below
            errors.append(e)

    threads = [threading.Thread(target=work, args=(w,)) for w in range(workers)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    if errors:
        raise errors[0]


def launch_one(harness, mod, name, b, grid, block, args) -> None:
    import ctypes
    import struct

    k = mod.kernels[name]
    keep, ptrs = [], (ctypes.c_void_p * len(args))()
    for i, a in enumerate(args):
        size = k.params[i].size
        raw = struct.pack("<Q", a.ctypes.data) if isinstance(a, np.ndarray) else \
            int(a).to_bytes(size, "little")
        buf = ctypes.create_string_buffer(raw, 16)
        keep.append(buf)
        ptrs[i] = ctypes.addressof(buf)
    launch = harness.Launch(harness.Dim3(grid, 1, 1), harness.Dim3(block, 1, 1), 64, 0, 4, 0,
                            mod._vprintf, None, 0)
    blk = harness.Block(harness.Dim3(b, 1, 1), 0, None)
    rc = k.run_block(ctypes.byref(launch), ctypes.byref(blk), ptrs)
    if rc:
        raise RuntimeError(f"{name}: block {b} returned {rc}")


@needs_nvcc
@pytest.mark.parametrize("target", ["cpu-wave64", "cpu-wave32", "cpu-wave64+fibers"])
def test_shared_and_global_atomics_with_blocks_in_parallel(tmp_path: Path, ptx: str,
                                                           target: str) -> None:
    mod = build(ptx, target, tmp_path)
    rng = np.random.default_rng(7)
    n, grid, block, repeat = 1 << 16, 32, 256, 3
    data = rng.integers(0, 256, n, dtype=np.uint8)
    bins = np.zeros(17, np.uint32)
    counter = np.zeros(1, np.uint64)
    fsum = np.zeros(1, np.float32)
    maxv = np.zeros(1, np.uint32)
    orv = np.zeros(1, np.uint32)
    launch_threaded(mod, "hammer", grid, block, [n, data, bins, counter, fsum, maxv, orv],
                    repeat=repeat)
    want = np.bincount(data & 15, minlength=16).astype(np.uint32) * repeat
    assert bins[:16].tolist() == want.tolist()
    assert int(bins[16]) == n * repeat           # the CAS-loop counters, per block
    assert int(counter[0]) == n * repeat         # one global counter, every thread
    assert float(fsum[0]) == float(n * repeat)   # exact: per-block sums are small integers
    assert int(maxv[0]) == int(data.max())
    assert int(orv[0]) == int(np.bitwise_or.reduce(1 << (data.astype(np.uint32) & 31)))


def test_shared_atomics_are_plain_and_global_ones_atomic() -> None:
    """The prelude's address test decides: the shared window -> a plain read-modify-write."""
    src = translate(HEAD + """
.visible .entry k(.param .u64 g)
{
  .reg .b32 %r<4>; .reg .b64 %rd<3>;
  .shared .align 4 .u32 s;
  ld.param.u64 %rd1, [g];
  atom.shared.add.u32 %r1, [s], 1;
  atom.global.add.u32 %r2, [%rd1], 1;
  ret;
}
""", "cpu-wave64")
    assert "PS_IN_SHARED" in src and "__atomic_fetch_add" in src


def test_thread_loop_sets_up_parameters_once_per_block() -> None:
    src = translate(HEAD + """
.visible .entry k(.param .u32 n, .param .u64 out)
{
  .reg .pred %p<2>; .reg .b32 %r<4>; .reg .b64 %rd<4>;
  ld.param.u32 %r1, [n];
  ld.param.u64 %rd1, [out];
  mov.u32 %r2, %tid.x;
  setp.ge.u32 %p1, %r2, %r1;
  @%p1 bra $END;
  mul.wide.u32 %rd2, %r2, 4;
  add.s64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r1;
$END:
  ret;
}
""", "cpu-wave64")
    body = src[src.index("/* kernel k: thread loop */"):]
    assert "ctx->params" not in body      # parameters come from the per-block copy
    assert "memcpy(ps_pb + 8, params[1], 8);" in body


@needs_nvcc
@pytest.mark.parametrize("target", ["cpu-wave64", "cpu-wave32"])
def test_thread_loop_3d_block_and_mixed_parameters(tmp_path: Path, ptx: str,
                                                   target: str) -> None:
    mod = build(ptx, target, tmp_path)
    nx, ny, nz = 37, 11, 3
    x = np.arange(nx * ny * nz, dtype=np.float32)
    out = np.zeros_like(x)
    grid, block = (3, 2, 1), (16, 8, nz)
    mod.launch("affine3d", grid, block, [nx, ny, 0.5, -3, x, out])
    want = (x * 0.5).astype(np.float32) - 3 + np.float32(block[0] * grid[1])
    np.testing.assert_array_equal(out, want)


def test_thread_loop_trap_is_reported(tmp_path: Path) -> None:
    mod = build(HEAD + """
.visible .entry k(.param .u64 out)
{
  .reg .pred %p<2>; .reg .b32 %r<4>; .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  setp.eq.u32 %p1, %r1, 5;
  @%p1 trap;
  mul.wide.u32 %rd2, %r1, 4;
  add.s64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r1;
  ret;
}
""", "cpu-wave64", tmp_path)
    out = np.zeros(32, np.uint32)
    with pytest.raises(RuntimeError, match="returned"):
        mod.launch("k", (1,), (32,), [out])
    assert out[4] == 4 and out[5] == 0       # the trapping thread stopped at the trap
