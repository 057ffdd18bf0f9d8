"""cuFFT and cuRAND on the CPU device against their CPU baselines, run side by side.

  python3 -m benchmarks.randfft

- cuFFT: a batched 1D C2C transform through pyshim's libcufft.so.12 (-> the CPU device's
  hipFFT -> FFTW) against FFTW's own fftwf_plan_many_dft called directly on the same data;
- cuRAND: curandGenerateNormal (XORWOW) through libcurand.so.10 against numpy's
  Generator.standard_normal(out=) in float32.
Each pair alternates, best of N; ratio = baseline / pyshim (>= 0.9 is the budget).
Device memory on the CPU device is host memory, so numpy buffers are passed directly.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import time

import numpy as np

from pyshim.paths import build_dir


def _libs():
    root = build_dir()
    # the shim libraries find the backend by SONAME, as under pyshim run's library path
    for name in ("libamdhip64.so.7", "librocrand.so.1", "libhipfft.so.0"):
        ctypes.CDLL(str(root / "cpu" / name), mode=ctypes.RTLD_GLOBAL)
    return (ctypes.CDLL(str(root / "lib" / "libcufft.so.12")),
            ctypes.CDLL(str(root / "lib" / "libcurand.so.10")))


def _best(fns: dict, reps: int) -> dict[str, float]:
    best = {k: float("inf") for k in fns}
    for f in fns.values():
        f()
    for _ in range(reps):
        for k, f in fns.items():
            t0 = time.perf_counter()
            f()
            best[k] = min(best[k], time.perf_counter() - t0)
    return best


def fft_row(n: int = 4096, batch: int = 256, reps: int = 5) -> dict[str, float]:
    cufft, _ = _libs()
    fftw = ctypes.CDLL(ctypes.util.find_library("fftw3f") or "libfftw3f.so.3")
    x = (np.random.default_rng(0).standard_normal((batch, n)) * (1 + 1j)).astype(np.complex64)
    y = np.empty_like(x)
    plan = ctypes.c_int()
    assert cufft.cufftPlan1d(ctypes.byref(plan), n, 0x29, batch) == 0  # CUFFT_C2C
    fftw.fftwf_plan_many_dft.restype = ctypes.c_void_p
    nn = (ctypes.c_int * 1)(n)
    p = fftw.fftwf_plan_many_dft(1, nn, batch, ctypes.c_void_p(x.ctypes.data), None, 1, n,
                                 ctypes.c_void_p(y.ctypes.data), None, 1, n, -1, 1 << 6)
    xp, yp = ctypes.c_void_p(x.ctypes.data), ctypes.c_void_p(y.ctypes.data)
    best = _best({"fftw": lambda: fftw.fftwf_execute(ctypes.c_void_p(p)),
                  "cufft": lambda: cufft.cufftExecC2C(plan, xp, yp, -1)}, reps)
    cufft.cufftDestroy(plan)
    return {"baseline_s": best["fftw"], "pyshim_s": best["cufft"],
            "ratio": best["fftw"] / best["cufft"]}


def rand_row(n: int = 1 << 22, reps: int = 5) -> dict[str, float]:
    _, curand = _libs()
    out = np.empty(n, np.float32)
    gen = ctypes.c_void_p()
    assert curand.curandCreateGenerator(ctypes.byref(gen), 101) == 0  # XORWOW
    curand.curandGenerateNormal.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_size_t,
                                            ctypes.c_float, ctypes.c_float]
    rng = np.random.default_rng(0)
    ptr = out.ctypes.data
    best = _best({"numpy": lambda: rng.standard_normal(out=out, dtype=np.float32),
                  "curand": lambda: curand.curandGenerateNormal(gen, ptr, n, 0.0, 1.0)}, reps)
    curand.curandDestroyGenerator(gen)
    return {"baseline_s": best["numpy"], "pyshim_s": best["curand"],
            "ratio": best["numpy"] / best["curand"]}


def main() -> int:
    for name, row in (("cuFFT C2C 4096 x256 vs FFTW", fft_row()),
                      ("cuRAND normal 4M f32 vs numpy", rand_row())):
        print(f"{name:<34} baseline {row['baseline_s'] * 1e3:8.2f} ms  pyshim "
              f"{row['pyshim_s'] * 1e3:8.2f} ms  ratio {row['ratio']:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
