"""cuFFT and cuRAND on the CPU device against their CPU baselines, run side by side.

  python3 benchmarks/blas_randfft.py [--quick]     (run by `python3 -m benchmarks --only blas`)

Prints a JSON list of items {"name", "value", "unit", "baseline", "ratio", ...}:
- cuFFT: batched 1D C2C (float) through pyshim's libcufft.so.12 (-> the CPU device's
  hipFFT -> FFTW) against FFTW's own fftwf_plan_many_dft called directly on the same data
  (GFLOP/s at 5 N log2 N per transform); the result is checked against numpy.fft first;
- cuRAND: curandGenerateNormal (XORWOW) through libcurand.so.10 against numpy's
  Generator.standard_normal(out=, dtype=float32) (Msamples/s); the samples' moments are
  checked first.
Variants are timed in turn within each repeat; value and baseline are medians. Device
memory on the CPU device is host memory, so numpy buffers are passed directly.
"""

from __future__ import annotations

import argparse
import ctypes
import ctypes.util
import json
import math
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from pyshim.paths import build_dir  # noqa: E402

BUDGET = 0.9


def _libs():
    from pyshim.builders.randfft import build_randfft

    build_randfft()
    root = build_dir()
    # the shim libraries find the backend by SONAME, as under pyshim run's library path
    for name in ("libamdhip64.so.7", "librocrand.so.1", "libhipfft.so.0"):
        ctypes.CDLL(str(root / "cpu" / name), mode=ctypes.RTLD_GLOBAL)
    return (ctypes.CDLL(str(root / "lib" / "libcufft.so.12")),
            ctypes.CDLL(str(root / "lib" / "libcurand.so.10")))


def _measure(fns: dict, repeats: int) -> dict[str, float]:
    times: dict[str, list[float]] = {k: [] for k in fns}
    for f in fns.values():
        f()
    order = list(fns.items())
    for r in range(repeats):
        # alternate which variant goes first: the second of a pair finds warmer caches
        for k, f in order if r % 2 == 0 else order[::-1]:
            t0 = time.perf_counter()
            f()
            times[k].append(time.perf_counter() - t0)
    return {k: statistics.median(v) for k, v in times.items()}


def fft_item(cufft, n: int, batch: int, repeats: int) -> dict:
    fftw = ctypes.CDLL(ctypes.util.find_library("fftw3f") or "libfftw3f.so.3")
    x = (np.random.default_rng(0).standard_normal((batch, n)) * (1 + 1j)).astype(np.complex64)
    y, z = np.empty_like(x), np.empty_like(x)
    plan = ctypes.c_int()
    if cufft.cufftPlan1d(ctypes.byref(plan), n, 0x29, batch) != 0:  # CUFFT_C2C
        raise RuntimeError("cufftPlan1d failed")
    fftw.fftwf_plan_many_dft.restype = ctypes.c_void_p
    dims = (ctypes.c_int * 1)(n)
    direct = ctypes.c_void_p(fftw.fftwf_plan_many_dft(
        1, dims, batch, ctypes.c_void_p(x.ctypes.data), None, 1, n,
        ctypes.c_void_p(z.ctypes.data), None, 1, n, -1, 1 << 6))  # FFTW_ESTIMATE, as hipFFT
    xp, yp = ctypes.c_void_p(x.ctypes.data), ctypes.c_void_p(y.ctypes.data)
    if cufft.cufftExecC2C(plan, xp, yp, -1) != 0:
        raise RuntimeError("cufftExecC2C failed")
    want = np.fft.fft(x.astype(np.complex128), axis=1)
    if not np.allclose(y, want, rtol=1e-3, atol=1e-3 * math.sqrt(n)):
        raise RuntimeError("cuFFT result differs from numpy.fft")
    t = _measure({"fftw": lambda: fftw.fftwf_execute(direct),
                  "cufft": lambda: cufft.cufftExecC2C(plan, xp, yp, -1)}, repeats)
    cufft.cufftDestroy(plan)
    flops = 5.0 * n * math.log2(n) * batch / 1e9
    value, baseline = flops / t["cufft"], flops / t["fftw"]
    return {"name": f"cufftExecC2C n={n} batch={batch}", "value": value, "unit": "GFLOP/s",
            "baseline": baseline, "ratio": value / baseline, "baseline_name": "FFTW direct",
            "budget": f">= {BUDGET}x", "ok": value / baseline >= BUDGET, "verified": True,
            "repeats": repeats, "note": "median; interleaved; same FFTW library, FFTW_ESTIMATE"}


def rand_item(curand, n: int, repeats: int) -> dict:
    out = np.empty(n, np.float32)
    gen = ctypes.c_void_p()
    if curand.curandCreateGenerator(ctypes.byref(gen), 101) != 0:  # XORWOW
        raise RuntimeError("curandCreateGenerator failed")
    curand.curandGenerateNormal.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_size_t,
                                            ctypes.c_float, ctypes.c_float]
    ptr = out.ctypes.data
    if curand.curandGenerateNormal(gen, ptr, n, 0.0, 1.0) != 0:
        raise RuntimeError("curandGenerateNormal failed")
    if abs(float(out.mean())) > 0.01 or abs(float(out.std()) - 1) > 0.01:
        raise RuntimeError("curandGenerateNormal's samples are not standard normal")
    rng = np.random.default_rng(0)
    t = _measure({"numpy": lambda: rng.standard_normal(out=out, dtype=np.float32),
                  "curand": lambda: curand.curandGenerateNormal(gen, ptr, n, 0.0, 1.0)},
                 repeats)
    curand.curandDestroyGenerator(gen)
    value, baseline = n / t["curand"] / 1e6, n / t["numpy"] / 1e6
    return {"name": f"curandGenerateNormal XORWOW n={n}", "value": value,
            "unit": "Msamples/s", "baseline": baseline, "ratio": value / baseline,
            "baseline_name": "numpy Generator.standard_normal", "budget": f">= {BUDGET}x",
            "ok": value / baseline >= BUDGET, "verified": True, "repeats": repeats,
            "note": "median; interleaved; float32"}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true")
    args = ap.parse_args(argv)
    repeats = 3 if args.quick else 7
    cufft, curand = _libs()
    items = [fft_item(cufft, 4096, 64 if args.quick else 256, repeats),
             rand_item(curand, 1 << (20 if args.quick else 22), repeats)]
    json.dump(items, sys.stdout, indent=1)
    print()
    return 0


if __name__ == "__main__":
    sys.exit(main())
