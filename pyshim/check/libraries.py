"""Which CUDA libraries a file links against, and where the dynamic loader would find them.

Sonames are recognised by their stem (`libcublas.so.13` -> cublas). pyshim replaces the
families of _REPLACED (driver, runtime, cuBLAS, cuBLASLt, cuSOLVER and cuSOLVERMg, cuRAND,
cuFFT, cuSPARSE, NCCL); every other NVIDIA library is "not replaced":
the real one must be installed, and it then runs on pyshim's driver only if its own kernels
carry PTX (so `pyshim check` looks inside it when it can find it).
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path

# stem -> (api, replaced by pyshim)
_REPLACED = {
    "libcuda": "driver",
    "libcudart": "runtime",
    "libcublas": "cublas",
    "libcublasLt": "cuBLASLt",  # on hipBLASLt (tables/cublaslt.json, shim/blaslt)
    "libcusolver": "cusolver",
    "libcusolverMg": "cuSOLVERMg",  # every entry point refused (NOT_SUPPORTED, by name)
    "libcurand": "curand",
    "libcufft": "cufft",
    "libcusparse": "cusparse",
    "libnccl": "nccl",  # onto RCCL (the CPU device's: communicators of one process)
}
# NVIDIA libraries pyshim does not replace (stem -> what it is, for the report)
_NOT_REPLACED = {
    "libcufftw": "cuFFTW",
    "libcudnn": "cuDNN",
    "libnvrtc": "NVRTC",
    "libnvrtc-builtins": "NVRTC builtins",
    "libnvJitLink": "nvJitLink",
    "libnvjpeg": "nvJPEG",
    "libnpp": "NPP",
    "libnvToolsExt": "NVTX",
    "libnvtx3interop": "NVTX",
    "libcupti": "CUPTI",
    "libnvidia-ml": "NVML",
    "libcutensor": "cuTENSOR",
    "libcudss": "cuDSS",
    "libcufile": "cuFile",
    "libnvblas": "NVBLAS",
    "libnvptxcompiler": "PTX compiler",
}
_SONAME = re.compile(r"^(lib[A-Za-z0-9_+-]+?)(?:\.so.*|\.a)?$")


@dataclass(frozen=True)
class CudaLibrary:
    soname: str
    family: str  # driver | runtime | cublas | cusolver | cuFFT, cuDNN, ...
    replaced: bool  # pyshim provides its own library of this name


def classify(soname: str) -> CudaLibrary | None:
    """The CUDA library a soname names, or None for anything else."""
    m = _SONAME.match(Path(soname).name)
    if not m:
        return None
    stem = m.group(1)
    if stem in _REPLACED:
        return CudaLibrary(soname, _REPLACED[stem], True)
    if stem in _NOT_REPLACED:
        return CudaLibrary(soname, _NOT_REPLACED[stem], False)
    # versioned sub-libraries: libnppif, libnppc, libcudnn_ops, libnvrtc-builtins.alt ...
    for prefix, family in (("libnpp", "NPP"), ("libcudnn", "cuDNN"), ("libnvrtc", "NVRTC"),
                           ("libcufft", "cuFFT"), ("libnccl", "NCCL")):
        if stem.startswith(prefix):
            return CudaLibrary(soname, family, False)
    return None


def _expand(entry: str, origin: Path) -> Path:
    for token in ("$ORIGIN", "${ORIGIN}"):
        entry = entry.replace(token, str(origin))
    return Path(os.path.normpath(entry))


def search_dirs(binary: Path, rpath: list[str], runpath: list[str]) -> list[Path]:
    """Directories the loader searches for this file's DT_NEEDED (ld.so(8) order: RPATH
    unless RUNPATH is set, LD_LIBRARY_PATH, RUNPATH), then the file's own directory, which
    is where a library directory walk finds its siblings."""
    origin = binary.resolve().parent
    dirs: list[Path] = []
    if not runpath:
        dirs += [_expand(p, origin) for p in rpath if p]
    env = os.environ.get("LD_LIBRARY_PATH", "")
    dirs += [Path(p) for p in env.split(":") if p]
    dirs += [_expand(p, origin) for p in runpath if p]
    dirs.append(origin)
    seen: list[Path] = []
    for d in dirs:
        if d not in seen:
            seen.append(d)
    return seen


def find(soname: str, dirs: list[Path]) -> Path | None:
    """The first file named `soname` in `dirs` (None: the report says "not found")."""
    for d in dirs:
        candidate = d / soname
        if candidate.is_file():
            return candidate
    return None
