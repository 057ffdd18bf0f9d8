"""Build cuSPARSE: pyshim's libcusparse.so.12 (build/lib) and the CPU device's rocSPARSE
(librocsparse.so.1, build/cpu) under it.

- shim side: generated C (pyshim.codegen.sparse) plus shim/sparse, compiled against the real
  cusparse.h with its own version node as NVIDIA's library has; it needs librocsparse.so.1
  by SONAME only (the launcher's library path picks ROCm's or the CPU device's).
- CPU device: shim/cpu/rocsparse (C, against the real rocsparse.h); every function the
  header declares and the C does not define gets a generated stub returning
  rocsparse_status_not_implemented (pyshim.builders.randfft.build_cpu_lib), so the ABI surface
  is complete.
Rebuilds are skipped when nothing changed.
"""

from __future__ import annotations

from pathlib import Path

from pyshim.builders.randfft import CpuLib, ShimLib, build_cpu_lib, build_shim_lib, shim_lib_build
from pyshim.codegen import sparse as codegen
from pyshim.paths import SHIM_DIR

SHIM_SRC = SHIM_DIR / "sparse"
# rocsparse_status_not_implemented; complex products as GPU libraries compute them (no C
# Annex G NaN recovery, which made each complex multiply a __muldc3 call: complex SpMV ran at
# 0.6x scipy's), division still range-reduced; libm for csric0's square roots and the
# pivot moduli of the incomplete factorizations
CPU_LIB = CpuLib("librocsparse.so.1", "rocsparse", ("rocsparse", "hip", "hsa"), "rocsparse_",
                 "rocsparse", 2, ("-lm",), cflags=("-fcx-fortran-rules",))
SHIM_LIBS = {"cusparse": ("cusparse12", "librocsparse.so.1")}


def shim_lib(lib: str) -> ShimLib:
    cuda_key, needs = SHIM_LIBS[lib]
    # a shim implements the deprecated entry points too: cusparse.h's own switch silences it
    return ShimLib(lib, codegen.SONAMES[lib][0], cuda_key, needs, SHIM_SRC, "sparse",
                   ("-DDISABLE_CUSPARSE_DEPRECATED",))


def build_sparse(root: Path | None = None) -> list[Path]:
    """The CPU device's rocSPARSE into <root>/cpu and libcusparse into <root>/lib. The CPU
    device's HIP runtime is built first when missing."""
    with shim_lib_build(root, "sparse") as (cpu, lib_dir, gen_dir):
        built = [build_cpu_lib(CPU_LIB, cpu)]
        codegen.generate(gen_dir)
        for lib in codegen.LIBS:
            built.append(build_shim_lib(shim_lib(lib), lib_dir, gen_dir, cpu))
    return built


if __name__ == "__main__":
    for p in build_sparse():
        print(p)
