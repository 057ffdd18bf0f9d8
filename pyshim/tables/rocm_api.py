"""The ROCm side: HIP, rocBLAS and rocSOLVER declarations from the real ROCm 7.2 headers,
cross-checked against hip-python 7.2's declarations."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from pyshim.tables.clang_parse import Header, parse_header
from pyshim.tables.fetch import include_dir


@dataclass
class Rocm:
    hip: Header
    rocblas: Header
    rocsolver: Header
    # further ROCm libraries, by key (EXTRA_LIBRARIES): rocrand, hipfft, ...
    extra: dict[str, Header] = field(default_factory=dict)

    def headers(self) -> list[Header]:
        return [self.hip, self.rocblas, self.rocsolver, *self.extra.values()]

    def function(self, name: str):
        for h in self.headers():
            if name in h.functions:
                return h.functions[name]
        return None


def _includes():
    return [include_dir("hip"), include_dir("hsa"), include_dir("rocblas"),
            include_dir("rocsolver")]


def _keep_prefix(h: Header, prefix: tuple[str, ...]) -> Header:
    h.functions = {n: f for n, f in h.functions.items() if n.startswith(prefix)}
    return h


# key -> (headers-cache source, header under it, files kept, function prefixes): one line
# per ROCm library beyond HIP/rocBLAS/rocSOLVER. rocrand.h (HIP's __half) and hipfftXt.h
# (<cstddef>) parse only as C++; their functions are extern "C".
EXTRA_LIBRARIES: dict[str, tuple[str, str, tuple[str, ...], tuple[str, ...]]] = {
    "rocrand": ("rocrand", "rocrand/rocrand.h", ("/include/rocrand/",), ("rocrand_",)),
    # hip/library_types.h: hipDataType, which hipfftXt's planner takes
    "hipfft": ("hipfft", "hipfft/hipfftXt.h", ("/include/hipfft/", "/hip/library_types.h"),
               ("hipfft",)),
    "rocsparse": ("rocsparse", "rocsparse/rocsparse.h", ("/include/rocsparse/",),
                  ("rocsparse_",)),
    # hipblas-common.h: hipblasStatus_t, hipblasOperation_t, hipblasComputeType_t, which
    # hipBLASLt's entry points take (hipblas.h, which hipblaslt.h also includes, is kept out)
    "hipblaslt": ("hipblaslt", "hipblaslt/hipblaslt.h",
                  ("/include/hipblaslt/hipblaslt.h", "/include/hipblaslt/hipblaslt-types.h",
                   "/hipblas-common/hipblas-common.h"), ("hipblasLt",)),
}
# headers-cache sources an extra library's header includes beyond HIP's
EXTRA_INCLUDES: dict[str, tuple[str, ...]] = {"hipblaslt": ("hipblas-common", "hipblas")}


def _load_extra(key: str, inc: list) -> Header:
    source, header, files, prefixes = EXTRA_LIBRARIES[key]
    base = include_dir(source)
    own = [include_dir(k) for k in EXTRA_INCLUDES.get(key, ())]
    h = parse_header(base / header, [base, *own, *inc], files=files,
                     defines=("__HIP_PLATFORM_AMD__",), lang="c++")
    return _keep_prefix(h, prefixes)


def load() -> Rocm:
    inc = _includes()
    amd = ("__HIP_PLATFORM_AMD__",)
    hip = parse_header(inc[0] / "hip" / "hip_runtime_api.h", inc, files=("/include/hip/",),
                       defines=amd)
    rtc = parse_header(inc[0] / "hip" / "hiprtc.h", inc, files=("/hiprtc.h",), defines=amd)
    hip.functions.update(rtc.functions)
    hip.enums.update(rtc.enums)
    rocblas = parse_header(inc[2] / "rocblas" / "rocblas.h", inc, files=("/include/rocblas/",),
                           defines=amd)
    rocsolver = parse_header(inc[3] / "rocsolver" / "rocsolver.h", inc,
                             files=("/include/rocsolver/",), defines=amd)
    return Rocm(_keep_prefix(hip, ("hip",)), _keep_prefix(rocblas, ("rocblas_",)),
                _keep_prefix(rocsolver, ("rocsolver_",)),
                {key: _load_extra(key, inc) for key in EXTRA_LIBRARIES})


_PXD_FN_RE = re.compile(r"^cdef\s+[^(\n]*?\b(\w+)\(", re.M)
_PXD_ENUM_RE = re.compile(r"^\s+(\w+)\s*=\s*(-?\d+)\s*$", re.M)


def hip_python_functions() -> set[str]:
    """Every HIP runtime function hip-python 7.2 declares (hip/chip.pxd)."""
    text = (include_dir("hip-python") / "chip.pxd").read_text()
    return {n for n in _PXD_FN_RE.findall(text) if n.startswith("hip")}


def hip_python_enum_values() -> dict[str, int]:
    """Enum constants with explicit values in hip/chip.pxd."""
    text = (include_dir("hip-python") / "chip.pxd").read_text()
    return {k: int(v) for k, v in _PXD_ENUM_RE.findall(text)}


_ALIAS_RE = re.compile(r"^from hip\.(\w+) cimport (\w+) as (\w+)\s*$", re.M)


def curated_renames() -> dict[str, str]:
    """CUDA name -> HIP name, from hip-python-interop's `cimport hipX as cudaY` lines."""
    out: dict[str, str] = {}
    for f in ("ccuda.pxd", "ccudart.pxd"):
        text = (include_dir("hip-python-interop") / f).read_text()
        for _module, hip, cuda in _ALIAS_RE.findall(text):
            out.setdefault(cuda, hip)
    return out
