"""NVIDIA GPUs: CUDA C++ for nvcc/NVRTC, for differential checks (the same PTX through
pyshim's translator and through NVIDIA's own compiler must agree)."""

from __future__ import annotations

from pyshim.ptx.targets.base import GpuTarget


class CudaTarget(GpuTarget):
    name = "cuda"
    wave_size = 32
    prelude_files = ("gpu_types.h", "cuda.h", "common.h", "atomics.h", "warp.h")
    extern_functions = frozenset(("__assertfail", "vprintf"))  # vprintf: ps_vprintf, cuda.h

    def launch_bounds(self, threads: int) -> str:
        return f"__launch_bounds__({threads}) "
