"""Every library `pyshim build` makes, by component name, into the build directory.

    build/cpu/   the CPU device (libamdhip64.so.7, librocblas, librocsolver)
    build/lib/   libcuda.so.1, libcudart, libcublas/libcusolver, the JIT wrappers
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from pyshim.builders.libcuda import LIBCUDA, BuildError, build_libcuda
from pyshim.paths import build_dir


def _log(msg: str) -> None:
    print(f"pyshim build: {msg}", file=sys.stderr, flush=True)




def build_cpu(out_dir: Path) -> Path | None:
    """The CPU device's libraries, or None (with a message) when they cannot be built yet."""
    try:
        from pyshim.builders.cpu import build_cpu_device  # type: ignore[import-not-found]
    except ImportError:
        _log("CPU device: not available in this checkout (pyshim.builders.cpu is missing)")
        return None
    return Path(build_cpu_device(out_dir))


def _component_cpu_blas(root: Path) -> object:
    from pyshim.builders.cpu_blas import build_cpu_blas  # type: ignore[import-not-found]

    return build_cpu_blas(root / "cpu")


def _component_cudart(root: Path) -> object:
    from pyshim.builders.runtime import build_runtime  # type: ignore[import-not-found]

    return build_runtime(root / "lib")


def _component_blas(root: Path) -> object:
    from pyshim.builders.blas import build_shim_blas  # type: ignore[import-not-found]

    return build_shim_blas(root / "lib", root / "cpu")


def _component_jit(root: Path) -> object:
    from pyshim.builders.jit import build_jit

    return build_jit(root)


# the libraries besides the CPU device and libcuda, each from its own build module;
# a component whose module is missing from this checkout is skipped with a message
OPTIONAL_COMPONENTS = {
    "cpu-blas": _component_cpu_blas,  # librocblas/librocsolver of the CPU device
    "cudart": _component_cudart,  # libcudart.so.13/.12
    "blas": _component_blas,  # libcublas/libcusolver
    "jit": _component_jit,  # LD_AUDIT module, NVRTC/nvJitLink wrappers, ptxas
}
ALL = ("cpu", "cpu-blas", "libcuda", "cudart", "blas", "jit")


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
            if name == "cpu":
                results[name] = build_cpu(root / "cpu")
            elif name == "libcuda":
                lib, rebuilt = build_libcuda(root / "lib", root / "driver", force=force)
                results[name] = lib
                _log(f"{'built' if rebuilt else 'up to date'}: {lib}")
            else:
                results[name] = out = OPTIONAL_COMPONENTS[name](root)
                shown = ", ".join(map(str, out)) if isinstance(out, list) else str(out)
                _log(f"{name}: {shown}")
        except ImportError as exc:
            _log(f"{name}: not available in this checkout ({exc})")
        except (BuildError, subprocess.CalledProcessError, OSError, RuntimeError) as exc:
            _log(f"{name}: failed: {exc}")
            failed.append(name)
    if failed:
        raise BuildError(f"failed to build: {', '.join(failed)}")
    return results


def is_built() -> bool:
    return (build_dir() / "lib" / LIBCUDA).exists()
