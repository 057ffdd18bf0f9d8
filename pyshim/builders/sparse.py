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

import fcntl
import os
from pathlib import Path

from pyshim.builders.randfft import (
    CFLAGS,
    CUDA_KEYS,
    HIP_SONAME,
    CpuLib,
    _digest,
    _inc,
    _run,
    build_cpu_lib,
)
from pyshim.codegen import sparse as codegen
from pyshim.paths import SHIM_DIR, build_dir

SHIM_SRC = SHIM_DIR / "sparse"
COMMON_DIR = SHIM_DIR / "common"
COMMON_SOURCES = ("log.c", "unsupported.c")
CPU_LIB = CpuLib("librocsparse.so.1", "rocsparse", ("rocsparse", "hip", "hsa"), "rocsparse_",
                 "rocsparse", 2, ())  # rocsparse_status_not_implemented
SHIM_LIBS = {"cusparse": ("cusparse12", "librocsparse.so.1")}


def build_shim_lib(lib: str, out_dir: Path, gen_dir: Path, backend: Path) -> Path:
    cc = os.environ.get("CC", "gcc")
    cuda_key, needs = SHIM_LIBS[lib]
    soname = codegen.SONAMES[lib][0]
    inc = _inc((cuda_key, *CUDA_KEYS))
    gen = [gen_dir / f"{lib}_thunks.c", gen_dir / f"{lib}_export_stubs.c"]
    hand = sorted(SHIM_SRC.glob(f"{lib}_*.c")) + sorted(SHIM_SRC.glob("sparse_*.c"))
    common = [COMMON_DIR / n for n in COMMON_SOURCES]
    # a shim implements the deprecated entry points too: cusparse.h's own switch silences it
    flags = [*CFLAGS, "-DDISABLE_CUSPARSE_DEPRECATED", f"-I{SHIM_SRC}", f"-I{SHIM_DIR}", f"-I{gen_dir}", *[f"-I{d}" for d in inc]]
    target = out_dir / soname
    stamp = out_dir / f".{lib}.stamp"
    deps = [*gen, *hand, *common, *gen_dir.glob(f"{lib}_*.h"), gen_dir / f"{soname}.map",
            *SHIM_SRC.glob("*.h"), *COMMON_DIR.glob("*.h"), Path(__file__)]
    key = _digest(deps, [cc, *flags, str((backend / needs).stat().st_size)])
    if target.is_file() and stamp.is_file() and stamp.read_text() == key:
        return target
    obj_dir = gen_dir / f"obj-{lib}"
    obj_dir.mkdir(parents=True, exist_ok=True)
    objects = []
    for src in [*gen, *hand, *common]:
        obj = obj_dir / (src.stem + ".o")
        _run([cc, *flags, "-c", str(src), "-o", str(obj)], f"compiling {src.name}")
        objects.append(obj)
    tmp = out_dir / f".{soname}.{os.getpid()}.tmp"
    _run([cc, "-shared", "-o", str(tmp), *map(str, objects), f"-Wl,-soname,{soname}",
          f"-Wl,--version-script,{gen_dir / (soname + '.map')}", "-Wl,-z,defs",
          "-Wl,--no-as-needed", f"-L{backend}", f"-l:{needs}", f"-l:{HIP_SONAME}",
          "-lpthread"], f"linking {soname}")
    os.replace(tmp, target)
    stamp.write_text(key)
    return target


def build_sparse(root: Path | None = None) -> list[Path]:
    """The CPU device's rocSPARSE into <root>/cpu and libcusparse into <root>/lib. The CPU
    device's HIP runtime is built first when missing."""
    root = Path(root) if root is not None else build_dir()
    cpu, lib_dir = root / "cpu", root / "lib"
    if not (cpu / HIP_SONAME).is_file():
        from pyshim.builders.cpu import build_cpu_device

        build_cpu_device(cpu)
    lib_dir.mkdir(parents=True, exist_ok=True)
    gen_dir = root / "sparse"
    gen_dir.mkdir(parents=True, exist_ok=True)
    with open(gen_dir / ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        built = [build_cpu_lib(CPU_LIB, cpu)]
        codegen.generate(gen_dir)
        for lib in codegen.LIBS:
            built.append(build_shim_lib(lib, lib_dir, gen_dir, cpu))
    return built


if __name__ == "__main__":
    for p in build_sparse():
        print(p)
