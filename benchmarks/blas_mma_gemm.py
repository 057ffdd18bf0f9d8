"""An mma.sync f16 GEMM kernel (f32 accumulate) on the CPU device vs OpenBLAS sgemm called
directly (DESIGN.md: an mma.sync GEMM kernel >= 0.3x OpenBLAS sgemm), side by side.

    python3 benchmarks/blas_mma_gemm.py [--quick] [--repeats N]

The kernel is hand-written PTX (generated below): each warp computes a 16 x 32 tile of
C = A B (A row-major, B given as B^T row-major, f16; C f32) with four
mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 per k step of 16, its fragments loaded
straight from global memory; four warps per block. It is translated by pyshim
(cpu-wave32), loaded with the CPU device's hipModuleLoad and launched with
hipModuleLaunchKernel on the CPU device's workers, in this process; OpenBLAS runs sgemm on
the same matrices (as f32). Both results are checked against each other before timing.
Prints a JSON list of items; value and baseline in GFLOP/s, ratio = kernel / OpenBLAS.
"""

from __future__ import annotations

import argparse
import ctypes
import json
import os
import sys
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from benchmarks.blas_gemm import load_openblas, measure  # noqa: E402
from pyshim.paths import build_dir  # noqa: E402

BUDGET = 0.3
WARPS = 4  # per block, side by side along n: a block computes 16 x 128


def kernel_ptx() -> str:
    """gemm(A, Bt, C, n): n x n, n a multiple of 128"""
    mma = "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32"
    body = []
    for j in range(4):  # the warp's four n8 tiles
        c = [f"%c{4 * j + i}" for i in range(4)]
        body += [f"  mad.wide.u32 %rd21, %r40, {8 * j}, %rd20;",
                 "  ld.global.b32 %b0, [%rd21];", "  ld.global.b32 %b1, [%rd21+16];",
                 f"  {mma} {{{', '.join(c)}}}, {{%a0, %a1, %a2, %a3}}, {{%b0, %b1}}, "
                 f"{{{', '.join(c)}}};"]
    stores = []
    for j in range(4):
        for i in range(4):
            row_off = "%rd31" if i < 2 else "%rd32"
            stores.append(f"  st.global.f32 [{row_off}+{(8 * j + (i & 1)) * 4}], %c{4 * j + i};")
    return """.version 8.0
.target sm_80
.address_size 64
.visible .entry gemm(.param .u64 pa, .param .u64 pb, .param .u64 pc, .param .u32 pn)
{
  .reg .b32 %r<60>; .reg .b32 %a<4>; .reg .b32 %b<2>; .reg .f32 %c<16>;
  .reg .b64 %rd<40>; .reg .pred %p<2>;
  ld.param.u64 %rd1, [pa]; ld.param.u64 %rd2, [pb]; ld.param.u64 %rd3, [pc];
  ld.param.u32 %r1, [pn];
  mov.u32 %r2, %tid.x; and.b32 %r3, %r2, 31; shr.u32 %r4, %r2, 5;   // lane, warp
  shr.u32 %r5, %r3, 2; and.b32 %r6, %r3, 3;                         // g, t
  mov.u32 %r7, %ctaid.y; shl.b32 %r8, %r7, 4;                       // row0 = 16 ctaid.y
  mov.u32 %r9, %ctaid.x; shl.b32 %r10, %r9, 7; shl.b32 %r11, %r4, 5;
  add.u32 %r12, %r10, %r11;                                         // col0 = 128 cx + 32 w
""" + "\n".join(f"  mov.f32 %c{i}, 0f00000000;" for i in range(16)) + """
  // A rows g and g + 8 at k = 2t; Bt row (col0 + g) at k = 2t; 2-byte elements
  add.u32 %r13, %r8, %r5; mul.lo.u32 %r14, %r13, %r1; shl.b32 %r15, %r6, 1;
  add.u32 %r14, %r14, %r15; mul.wide.u32 %rd4, %r14, 2; add.s64 %rd5, %rd1, %rd4;
  shl.b32 %r16, %r1, 3; mul.wide.u32 %rd6, %r16, 2; add.s64 %rd7, %rd5, %rd6;  // + 8 rows
  add.u32 %r17, %r12, %r5; mul.lo.u32 %r18, %r17, %r1; add.u32 %r18, %r18, %r15;
  mul.wide.u32 %rd8, %r18, 2; add.s64 %rd9, %rd2, %rd8;
  shl.b32 %r40, %r1, 1;                                             // bytes per Bt row
  mov.u32 %r20, 0;
LOOP:
  mul.wide.u32 %rd10, %r20, 2;
  add.s64 %rd11, %rd5, %rd10; add.s64 %rd12, %rd7, %rd10;
  ld.global.b32 %a0, [%rd11]; ld.global.b32 %a1, [%rd12];
  ld.global.b32 %a2, [%rd11+16]; ld.global.b32 %a3, [%rd12+16];
  add.s64 %rd20, %rd9, %rd10;
""" + "\n".join(body) + """
  add.u32 %r20, %r20, 16;
  setp.lt.u32 %p1, %r20, %r1;
  @%p1 bra LOOP;
  // C rows g, g + 8; cols col0 + 2t (+ 8 j)
  mul.lo.u32 %r21, %r13, %r1; add.u32 %r22, %r12, %r15; add.u32 %r21, %r21, %r22;
  mul.wide.u32 %rd30, %r21, 4; add.s64 %rd31, %rd3, %rd30;
  mul.wide.u32 %rd33, %r16, 4; add.s64 %rd32, %rd31, %rd33;
""" + "\n".join(stores) + """
  ret;
}
"""


def load_kernel(hip: ctypes.CDLL):
    from pyshim.kernels.loader import load_module

    loaded = load_module(kernel_ptx().encode() + b"\0", "cpu-wave32")
    mod, fn = ctypes.c_void_p(), ctypes.c_void_p()
    assert hip.hipModuleLoad(ctypes.byref(mod), str(loaded.path).encode()) == 0
    assert hip.hipModuleGetFunction(ctypes.byref(fn), mod, b"gemm") == 0
    return fn


def variants(hip: ctypes.CDLL, ob: ctypes.CDLL, fn, n: int):
    rng = np.random.default_rng(n)
    a16 = rng.standard_normal((n, n)).astype(np.float16)
    b16 = rng.standard_normal((n, n)).astype(np.float16)
    bt16 = np.ascontiguousarray(b16.T)
    a32, b32 = a16.astype(np.float32), b16.astype(np.float32)
    c_k, c_ob = np.zeros((n, n), np.float32), np.zeros((n, n), np.float32)
    ni = ctypes.c_uint32(n)
    ptrs = [ctypes.c_uint64(x.ctypes.data) for x in (a16, bt16, c_k)]
    args = (ctypes.c_void_p * 4)(*[ctypes.addressof(x) for x in (*ptrs, ni)])
    p = ctypes.c_void_p
    hip.hipModuleLaunchKernel.argtypes = [p, ctypes.c_uint, ctypes.c_uint, ctypes.c_uint,
                                          ctypes.c_uint, ctypes.c_uint, ctypes.c_uint,
                                          ctypes.c_uint, p, p, p]
    keep = (a16, bt16, c_k, a32, b32, c_ob, ptrs, ni, args)

    def kernel() -> None:
        assert keep
        rc = hip.hipModuleLaunchKernel(fn, n // (32 * WARPS), n // 16, 1, 32 * WARPS, 1, 1,
                                       0, None, args, None)
        if rc != 0 or hip.hipDeviceSynchronize() != 0:
            raise RuntimeError(f"mma gemm launch failed ({rc})")

    direct = ob.scipy_sgemm_
    direct.argtypes = [p] * 13
    one, zero = np.ones(1, np.float32), np.zeros(1, np.float32)
    trans = ctypes.c_char(b"N")
    nn = ctypes.c_int(n)

    def openblas() -> None:
        r = ctypes.byref
        # row-major C = A B is column-major C^T = B^T A^T
        direct(r(trans), r(trans), r(nn), r(nn), r(nn), p(one.ctypes.data), p(b32.ctypes.data),
               r(nn), p(a32.ctypes.data), r(nn), p(zero.ctypes.data), p(c_ob.ctypes.data), r(nn))

    kernel()
    openblas()
    want = a32.astype(np.float64) @ b32.astype(np.float64)
    bound = (n + 1) * 2.0 ** -24 * (np.abs(a32) @ np.abs(b32))
    if np.any(np.abs(c_k - want) > bound) or np.any(np.abs(c_ob - want) > bound):
        raise RuntimeError(f"mma gemm n={n}: a result is outside f32 accumulation bounds")
    return kernel, openblas


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="n=512 only, 3 repeats")
    ap.add_argument("--repeats", type=int, default=None)
    args = ap.parse_args(argv)
    sizes = [512] if args.quick else [512, 2048]
    os.environ.setdefault("PYSHIM_CPU_WAVE", "32")
    ob = load_openblas()
    hip = ctypes.CDLL(str(build_dir() / "cpu" / "libamdhip64.so.7"), mode=ctypes.RTLD_GLOBAL)
    fn = load_kernel(hip)
    items = []
    for n in sizes:
        repeats = args.repeats or 3
        kernel, openblas = variants(hip, ob, fn, n)
        t = measure({"kernel": kernel, "openblas": openblas}, repeats)
        flops = 2.0 * n ** 3 / 1e9
        value, baseline = flops / t["kernel"], flops / t["openblas"]
        items.append({"name": f"mma.sync f16 GEMM kernel n={n}", "value": value,
                      "unit": "GFLOP/s", "baseline": baseline, "ratio": value / baseline,
                      "baseline_name": "OpenBLAS sgemm direct", "budget": f">= {BUDGET}x",
                      "ok": value / baseline >= BUDGET, "verified": True, "repeats": repeats,
                      "note": "median; interleaved; kernel on the CPU device (cpu-wave32, "
                              "region loops), OpenBLAS on the same matrices as f32"})
    json.dump(items, sys.stdout, indent=1)
    print()
    return 0


if __name__ == "__main__":
    sys.exit(main())
