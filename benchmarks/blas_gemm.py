"""sgemm/dgemm through pyshim's libcublas.so.13 on the CPU device vs the same OpenBLAS
called directly (DESIGN.md: cuBLAS through the shim >= 0.95x OpenBLAS).

    python3 benchmarks/blas_gemm.py [--quick] [--repeats N]

Both variants run in this process on the same buffers (device memory is host memory on
the CPU device) and the same OpenBLAS library file, timed in turn within each repeat;
each result is checked against the other before timing. Prints a JSON list of items
{"name", "value", "unit", "baseline", "ratio", ...}: value and baseline in GFLOP/s,
ratio = shim / direct (higher is better).
"""

from __future__ import annotations

import argparse
import ctypes
import json
import statistics
import sys
import time
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from pyshim.paths import build_dir  # noqa: E402

BUDGET = 0.95
CUBLAS_OP_N = 0


def load_shim() -> ctypes.CDLL:
    """libcublas.so.13 with its CPU-device dependencies loaded first by path (the dynamic
    loader then matches libcublas's DT_NEEDED sonames to them)."""
    lib, cpu = build_dir() / "lib", build_dir() / "cpu"
    if not (lib / "libcublas.so.13").is_file():
        from pyshim.builders.blas import build_shim_blas

        build_shim_blas(lib)
    for name in ("libamdhip64.so.7", "librocblas.so.5", "librocsolver.so.0"):
        ctypes.CDLL(str(cpu / name), mode=ctypes.RTLD_GLOBAL)
    return ctypes.CDLL(str(lib / "libcublas.so.13"))


def load_openblas() -> ctypes.CDLL:
    """The OpenBLAS the CPU device's rocBLAS is linked against (the same file)."""
    from pyshim.builders.cpu_blas import openblas_dirs

    _inc, libdir = openblas_dirs()
    path = sorted(libdir.glob("libscipy_openblas*.so*"))[0]
    return ctypes.CDLL(str(path), mode=ctypes.RTLD_GLOBAL)


def gemm_variants(shim: ctypes.CDLL, ob: ctypes.CDLL, pre: str, n: int):
    dtype = np.float32 if pre == "s" else np.float64
    rng = np.random.default_rng(n)
    a = rng.standard_normal(n * n).astype(dtype)
    b = rng.standard_normal(n * n).astype(dtype)
    c_shim, c_ob = np.zeros(n * n, dtype), np.zeros(n * n, dtype)
    alpha, beta = np.ones(1, dtype), np.zeros(1, dtype)
    handle = ctypes.c_void_p()
    assert shim.cublasCreate_v2(ctypes.byref(handle)) == 0
    fn = getattr(shim, f"cublas{pre.upper()}gemm_v2")
    p = ctypes.c_void_p
    fn.argtypes = [p, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_int,
                   p, p, ctypes.c_int, p, ctypes.c_int, p, p, ctypes.c_int]
    direct = getattr(ob, f"scipy_{pre}gemm_")
    direct.argtypes = [p] * 13
    ni = ctypes.c_int(n)
    trans = ctypes.c_char(b"N")
    buffers = (alpha, a, b, beta, c_shim, c_ob)  # the closures keep them alive
    ptr = [p(x.ctypes.data) for x in buffers]

    def via_shim() -> None:
        assert buffers
        st = fn(handle, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, ptr[0], ptr[1], n, ptr[2], n, ptr[3],
                ptr[4], n)
        if st != 0:
            raise RuntimeError(f"cublas{pre.upper()}gemm_v2 returned {st}")

    def via_openblas() -> None:
        r = ctypes.byref
        direct(r(trans), r(trans), r(ni), r(ni), r(ni), ptr[0], ptr[1], r(ni), ptr[2], r(ni),
               ptr[3], ptr[5], r(ni))

    via_shim()
    via_openblas()
    tol = 1e-3 if pre == "s" else 1e-10
    scale = float(np.max(np.abs(c_ob))) or 1.0
    if np.max(np.abs(c_shim - c_ob)) > tol * scale:
        raise RuntimeError(f"{pre}gemm n={n}: the shim's result differs from OpenBLAS")
    return via_shim, via_openblas, handle


def measure(fns: dict, repeats: int) -> dict[str, float]:
    times: dict[str, list[float]] = {k: [] for k in fns}
    order = list(fns)
    for r in range(repeats):
        for key in order[r % 2:] + order[: r % 2]:  # alternate who goes first
            t0 = time.perf_counter()
            fns[key]()
            times[key].append(time.perf_counter() - t0)
    return {k: statistics.median(v) for k, v in times.items()} | {
        f"{k}_min": min(v) for k, v in times.items()}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="n=1024 only, 3 repeats")
    ap.add_argument("--repeats", type=int, default=None)
    args = ap.parse_args(argv)
    sizes = [1024] if args.quick else [1024, 2048, 4096]
    shim, ob = load_shim(), load_openblas()
    items = []
    for pre in ("s", "d"):
        for n in sizes:
            repeats = args.repeats or (3 if args.quick or n >= 4096 else 5)
            shim_fn, ob_fn, handle = gemm_variants(shim, ob, pre, n)
            t = measure({"shim": shim_fn, "openblas": ob_fn}, repeats)
            shim.cublasDestroy_v2(handle)
            flops = 2.0 * n ** 3 / 1e9
            value, baseline = flops / t["shim"], flops / t["openblas"]
            ratio = value / baseline
            items.append({"name": f"cublas{pre.upper()}gemm n={n}", "value": value,
                          "unit": "GFLOP/s", "baseline": baseline, "ratio": ratio,
                          "baseline_name": "OpenBLAS direct", "budget": f">= {BUDGET}x",
                          "ok": ratio >= BUDGET, "verified": True, "repeats": repeats,
                          "note": "median; interleaved; same OpenBLAS library file; "
                                  "best-of ratio (least disturbed by other load) "
                                  f"{t['openblas_min'] / t['shim_min']:.3f}"})
    json.dump(items, sys.stdout, indent=1)
    print()
    return 0


if __name__ == "__main__":
    sys.exit(main())
