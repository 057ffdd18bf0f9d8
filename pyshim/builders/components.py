"""Every library `pyshim build` makes, by component name, into the build directory.

    build/cpu/   the CPU device (libamdhip64.so.7, librocblas, librocsolver)
    build/lib/   libcuda.so.1, libcudart, libcublas/libcusolver, the JIT wrappers
"""

from __future__ import annotations

import subprocess
from pathlib import Path

from pyshim.builders.common import BuildError, log
from pyshim.builders.libcuda import build_libcuda
from pyshim.paths import build_dir


def _cpu(root: Path) -> object:
    from pyshim.builders.cpu import build_cpu_device

    return Path(build_cpu_device(root / "cpu"))


def _cpu_blas(root: Path) -> object:
    from pyshim.builders.cpu_blas import build_cpu_blas

    return build_cpu_blas(root / "cpu")


def _cudart(root: Path) -> object:
    from pyshim.builders.runtime import build_runtime

    return build_runtime(root / "lib")


def _blas(root: Path) -> object:
    from pyshim.builders.blas import build_shim_blas

    return build_shim_blas(root / "lib", root / "cpu")


def _randfft(root: Path) -> object:
    from pyshim.builders.randfft import build_randfft

    return build_randfft(root)


def _sparse(root: Path) -> object:
    from pyshim.builders.sparse import build_sparse

    return build_sparse(root)


def _nccl(root: Path) -> object:
    from pyshim.builders.nccl import build_nccl

    return build_nccl(root)


def _jit(root: Path) -> object:
    from pyshim.builders.jit import build_jit

    return build_jit(root)


# every library besides libcuda (which takes --force), each from its own builder module,
# imported only when built
COMPONENTS = {
    "cpu": _cpu,  # libamdhip64.so.7 of the CPU device
    "cpu-blas": _cpu_blas,  # librocblas/librocsolver of the CPU device
    "cudart": _cudart,  # libcudart.so.13/.12
    "blas": _blas,  # libcublas/libcusolver
    "jit": _jit,  # LD_AUDIT module, NVRTC/nvJitLink wrappers, ptxas
    "randfft": _randfft,  # libcurand/libcufft + the CPU device's rocRAND/hipFFT
    "sparse": _sparse,  # libcusparse + the CPU device's rocSPARSE
    "nccl": _nccl,  # libnccl.so.2 + the CPU device's RCCL
}
ALL = ("cpu", "cpu-blas", "libcuda", "cudart", "blas", "jit", "randfft", "sparse", "nccl")


def build_all(force: bool = False, cpu: bool = True,
              components: tuple[str, ...] = ("cpu", "libcuda")) -> dict[str, object]:
    """Build the named components (see ALL) into the build directory. Raises BuildError
    naming every component that failed; the others are still built."""
    root = build_dir()
    results: dict[str, object] = {}
    failed = []
    for name in components:
        if name == "cpu" and not cpu:
            continue
        try:
            if name == "libcuda":
                lib, rebuilt = build_libcuda(root / "lib", root / "driver", force=force)
                results[name] = lib
                log(f"{'built' if rebuilt else 'up to date'}: {lib}")
            else:
                results[name] = out = COMPONENTS[name](root)
                shown = ", ".join(map(str, out)) if isinstance(out, list) else str(out)
                log(f"{name}: {shown}")
        except (BuildError, subprocess.CalledProcessError, OSError, RuntimeError) as exc:
            log(f"{name}: failed: {exc}")
            failed.append(name)
    if failed:
        raise BuildError(f"failed to build: {', '.join(failed)}")
    return results

