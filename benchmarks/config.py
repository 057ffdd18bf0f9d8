"""The one machine configuration every variant runs under: the same number of threads for
the CPU device's workers, OpenMP and PoCL. Applied before any of them is loaded (each reads
its variable once, at start-up)."""

from __future__ import annotations

import os


def usable_cores() -> int:
    return len(os.sched_getaffinity(0))


def blas_env(n: int) -> dict[str, str]:
    """The environment of a BLAS benchmark script: OpenBLAS on the same n threads."""
    return {**os.environ, "OPENBLAS_NUM_THREADS": str(n)}


def apply_threads(n: int) -> None:
    os.environ["PYSHIM_CPU_WORKERS"] = str(n)      # shim/cpu/device.c
    os.environ["PYSHIM_CPU_WAVE"] = "64"           # the cpu-wave64 target the kernels use
    os.environ["OMP_NUM_THREADS"] = str(n)
    # OpenMP threads that spin after a loop would steal the cores from the variant timed
    # next; the CPU device's workers spin at most 50 us (PYSHIM_CPU_SPIN_US) and PoCL's
    # sleep when idle, so the C loops' threads sleep too
    os.environ["OMP_WAIT_POLICY"] = "PASSIVE"
    # numpy's own OpenBLAS threads (references only) would spin beside the timed variants
    os.environ["OPENBLAS_NUM_THREADS"] = "1"
    os.environ["POCL_MAX_PTHREAD_COUNT"] = str(n)  # PoCL 3.x pthread device
    os.environ["POCL_CPU_MAX_CU_COUNT"] = str(n)   # its newer name
