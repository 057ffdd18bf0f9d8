"""cuSPARSE SpMV through pyshim's libcusparse.so.12 on the CPU device vs scipy.sparse's own
CSR kernel called directly (DESIGN.md: every library other than cuBLAS >= 0.9x its CPU
baseline called directly).

    python3 benchmarks/blas_sparse_spmv.py [--quick]

The same CSR matrix (float64, 32-bit indices) and vectors: cusparseSpMV (descriptors made
once, as a solver loop does) against scipy's csr_matvec on the same arrays, alternating,
median of the repeats. The results are compared first. Prints a JSON list of items.
"""

from __future__ import annotations

import argparse
import ctypes
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from pyshim.paths import build_dir  # noqa: E402

BUDGET = 0.9


def _device(hip, a: np.ndarray) -> np.ndarray:
    """`a` copied into device memory (host memory on the CPU device)."""
    ptr = ctypes.c_void_p()
    assert hip.hipMalloc(ctypes.byref(ptr), ctypes.c_size_t(max(1, a.nbytes))) == 0
    buf = (ctypes.c_uint8 * max(1, a.nbytes)).from_address(ptr.value)
    out = np.frombuffer(buf, dtype=a.dtype, count=a.size)
    out[...] = a
    return out


def measure(n: int, per_row: int, repeats: int) -> dict:
    import scipy.sparse as ssp
    from scipy.sparse._sparsetools import csr_matvec

    rng = np.random.default_rng(0)
    a = ssp.random(n, n, density=per_row / n, format="csr", random_state=rng, dtype=np.float64)
    a.sort_indices()
    x = rng.standard_normal(n)
    hip = ctypes.CDLL("libamdhip64.so.7")
    sp = ctypes.CDLL(str(build_dir() / "lib" / "libcusparse.so.12"))
    vp, i64 = ctypes.c_void_p, ctypes.c_int64
    sp.cusparseCreateCsr.argtypes = [vp, i64, i64, i64, vp, vp, vp, ctypes.c_int, ctypes.c_int,
                                     ctypes.c_int, ctypes.c_int]
    sp.cusparseCreateDnVec.argtypes = [vp, i64, vp, ctypes.c_int]
    sp.cusparseSpMV.argtypes = [vp, ctypes.c_int, vp, vp, vp, vp, vp, ctypes.c_int,
                                ctypes.c_int, vp]
    ptr, ind, val = (_device(hip, v) for v in (a.indptr.astype(np.int32),
                                                a.indices.astype(np.int32), a.data))
    dx, dy = _device(hip, x), _device(hip, np.zeros(n))
    h, ma, vx, vy = vp(), vp(), vp(), vp()
    assert sp.cusparseCreate(ctypes.byref(h)) == 0
    assert sp.cusparseCreateCsr(ctypes.byref(ma), n, n, a.nnz, ptr.ctypes.data,
                                ind.ctypes.data, val.ctypes.data, 2, 2, 0, 1) == 0
    assert sp.cusparseCreateDnVec(ctypes.byref(vx), n, dx.ctypes.data, 1) == 0
    assert sp.cusparseCreateDnVec(ctypes.byref(vy), n, dy.ctypes.data, 1) == 0
    one, zero = np.ones(1), np.zeros(1)

    def shim() -> None:
        assert sp.cusparseSpMV(h, 0, one.ctypes.data, ma, vx, zero.ctypes.data, vy, 1, 0,
                               None) == 0
        hip.hipDeviceSynchronize()

    y = np.zeros(n)
    indptr, indices, data = a.indptr, a.indices, a.data

    def direct() -> None:
        y[:] = 0  # csr_matvec accumulates: y = 0 + A x, as SpMV with beta = 0
        csr_matvec(n, n, indptr, indices, data, x, y)

    shim()
    direct()
    verified = bool(np.allclose(dy, y, rtol=1e-12, atol=1e-12))
    ts, tb = [], []
    for _ in range(repeats):
        t0 = time.perf_counter()
        shim()
        t1 = time.perf_counter()
        direct()
        t2 = time.perf_counter()
        ts.append(t1 - t0)
        tb.append(t2 - t1)
    s, b = statistics.median(ts), statistics.median(tb)
    gflops = 2 * a.nnz / 1e9
    return {"name": f"cusparseSpMV csr f64 n={n} nnz={a.nnz}", "value": gflops / s,
            "unit": "GFLOP/s", "baseline": gflops / b, "ratio": b / s,
            "baseline_name": "scipy.sparse csr_matvec direct", "budget": f">= {BUDGET}x",
            "ok": b / s >= BUDGET, "verified": verified, "repeats": repeats,
            "note": "one thread each; y zeroed in the baseline as beta = 0 does in SpMV"}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    quick = ["--quick"] if args.quick else []
    if not args.child:
        # the libraries resolve their ROCm (CPU device) dependencies from the start
        from pyshim.builders.sparse import build_sparse

        build_sparse()
        env = dict(os.environ, LD_LIBRARY_PATH=f"{build_dir() / 'lib'}:{build_dir() / 'cpu'}")
        return subprocess.run([sys.executable, __file__, "--child", *quick], env=env).returncode
    sizes = [(20_000, 10)] if args.quick else [(20_000, 10), (200_000, 16)]
    items = [measure(n, k, 5 if args.quick else 15) for n, k in sizes]
    print(json.dumps(items))
    return 0


if __name__ == "__main__":
    sys.exit(main())
