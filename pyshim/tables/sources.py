"""Pinned header sources: every input of `pyshim tables generate`, by exact version.

Headers are never committed (NVIDIA's licence; AMD's are only needed as facts).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Source:
    key: str          # directory name under the headers cache
    registry: str     # "pypi" | "debian"
    package: str
    version: str
    members: tuple[str, ...]  # path prefixes to keep from the archive
    suite: str = ""   # Debian suite for apt sources


PYPI = "pypi"
DEBIAN = "debian"

SOURCES: tuple[Source, ...] = (
    Source("cuda13-runtime", PYPI, "nvidia-cuda-runtime", "13.0.96", ("nvidia/cu13/include/",)),
    Source("cuda13-crt", PYPI, "nvidia-cuda-crt", "13.0.88", ("nvidia/cu13/include/",)),
    Source("cuda13-profiler", PYPI, "nvidia-cuda-profiler-api", "13.0.85",
           ("nvidia/cu13/include/",)),
    Source("cuda13-cccl", PYPI, "nvidia-cuda-cccl", "13.0.85", ("nvidia/cu13/include/",)),
    Source("cuda12-runtime", PYPI, "nvidia-cuda-runtime-cu12", "12.9.79",
           ("nvidia/cuda_runtime/include/",)),
    Source("cublas13", PYPI, "nvidia-cublas", "13.0.2.14", ("nvidia/cu13/include/",)),
    Source("cusolver12", PYPI, "nvidia-cusolver", "12.0.4.66", ("nvidia/cu13/include/",)),
    # cusparse.h: only for the types cusolverSp.h's declarations use
    Source("cusparse12", PYPI, "nvidia-cusparse", "12.9.4.2", ("nvidia/cu13/include/",)),
    # cuRAND and cuFFT: the versions CuPy's cupy-cuda13x[ctk] installs (their exports lists
    # come from the same wheels)
    Source("curand10", PYPI, "nvidia-curand", "10.4.5.25", ("nvidia/cu13/include/",)),
    Source("cufft12", PYPI, "nvidia-cufft", "12.5.0.14", ("nvidia/cu13/include/",)),
    # NCCL: the wheel PyTorch's cu13 builds install (its exports list comes from it too)
    Source("nccl2", PYPI, "nvidia-nccl-cu13", "2.32.3", ("nvidia/nccl/include/",)),
    Source("hip-python", PYPI, "hip-python", "7.2.2.562.43", ("hip/",)),
    Source("hip-python-interop", PYPI, "hip-python-interop", "7.2.2.562.43", ("cuda/",)),
    Source("hip", DEBIAN, "libamdhip64-dev", "7.2.4-1~exp2", ("usr/include/",), "experimental"),
    Source("hsa", DEBIAN, "libhsa-runtime-dev", "7.2.4+dfsg-1~exp1", ("usr/include/",),
           "experimental"),
    Source("rocblas", DEBIAN, "librocblas-dev", "7.2.4-1~exp1", ("usr/include/",),
           "experimental"),
    Source("rocsolver", DEBIAN, "librocsolver-dev", "7.2.4-1~exp1+b1", ("usr/include/",),
           "experimental"),
    Source("rocrand", DEBIAN, "librocrand-dev", "7.2.4-1~exp1", ("usr/include/",),
           "experimental"),
    Source("hipfft", DEBIAN, "libhipfft-dev", "7.2.4-1~exp1", ("usr/include/",),
           "experimental"),
    Source("rocsparse", DEBIAN, "librocsparse-dev", "7.2.4-1~exp1", ("usr/include/",),
           "experimental"),
    # hipBLASLt (what libcublasLt.so.13 maps onto) and the two headers hipblaslt.h includes:
    # hipblas-common.h (hipblasStatus_t, hipblasOperation_t, hipblasComputeType_t) and
    # hipblas.h
    Source("hipblaslt", DEBIAN, "libhipblaslt-dev", "7.2.4+dfsg-1~exp1", ("usr/include/",),
           "experimental"),
    Source("hipblas-common", DEBIAN, "libhipblas-common-dev", "7.2.4-1~exp1", ("usr/include/",),
           "experimental"),
    Source("hipblas", DEBIAN, "libhipblas-dev", "7.2.4-1~exp1", ("usr/include/",),
           "experimental"),
)

BY_KEY = {s.key: s for s in SOURCES}
