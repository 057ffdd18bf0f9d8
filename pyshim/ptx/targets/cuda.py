"""NVIDIA GPUs: CUDA C++ for nvcc/NVRTC, for differential checks (the same PTX through
pyshim's translator and through NVIDIA's own compiler must agree).

    cu = nvrtc_source(translate(ptx, "cuda"))   # then pyshim.kernels.nvrtc.compile_to_ptx(cu)
"""

from __future__ import annotations

from pyshim.ptx.targets.base import GpuTarget

# what a '$' in a PTX identifier (nvcc's $str, $L__BB0_2) becomes for NVRTC
DOLLAR = "_ps_dollar_"


class CudaTarget(GpuTarget):
    name = "cuda"
    wave_size = 32
    prelude_files = ("gpu_types.h", "cuda.h", "common.h", "atomics.h", "warp.h")
    extern_functions = frozenset(("__assertfail", "vprintf"))  # vprintf: ps_vprintf, cuda.h

    def launch_bounds(self, threads: int) -> str:
        return f"__launch_bounds__({threads}) "


def nvrtc_source(source: str) -> str:
    """The cuda target's output made acceptable to NVRTC: PTX identifiers may contain '$',
    which nvcc's front end (in GCC mode) takes in C++ identifiers and NVRTC's rejects, with
    no option to allow it. The translator keeps PTX names, so they are respelled here; the
    only names lost are nvcc's internal ones ($str, $L__BB...), which no host looks up."""
    if DOLLAR in source:
        raise ValueError(f"nvrtc_source: the source already uses {DOLLAR!r}; renaming '$' "
                         "would be ambiguous")
    return source.replace("$", DOLLAR)
