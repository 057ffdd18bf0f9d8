"""Build NCCL: pyshim's libnccl.so.2 (build/lib) and the CPU device's RCCL (librccl.so.1,
build/cpu) under it.

- shim side: generated C (pyshim.codegen.nccl) plus shim/nccl, compiled against NVIDIA's
  nccl.h (nvidia-nccl-cu13); it opens librccl.so.1 by SONAME (ROCm's or the CPU device's).
- CPU device: shim/cpu/rccl (C, against the real HIP headers and RCCL's ABI as
  shim/cpu/rccl/rccl_abi.h writes it down); every function hip-python's crccl.pxd declares
  and the C does not define gets a generated stub returning ncclInvalidUsage. Linked
  -Bsymbolic: libnccl.so.2 defines the same names, and RCCL's calls of its own functions
  must stay inside it.
- communicators across processes: shim/cpu/rccl/gloo_bridge.cc (C++, a C interface) over
  gloo (Debian's libgloo-dev). Without gloo's headers the bridge is built without it and a
  cross-process unique id is refused, saying so.
Rebuilds are skipped when nothing changed.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from pyshim.builders.randfft import (
    CFLAGS,
    CPU_SRC,
    HIP_SONAME,
    ShimLib,
    _defined,
    _digest,
    _inc,
    _run,
    _stub_source,
    build_shim_lib,
    shim_lib_build,
)
from pyshim.codegen import nccl as codegen
from pyshim.paths import SHIM_DIR

RCCL_SONAME = codegen.RCCL_SONAME
RCCL_DIR = CPU_SRC / "rccl"
INVALID_USAGE = 5   # ncclInvalidUsage (rccl_abi.h)
GLOO_HEADER = Path("/usr/include/gloo/config.h")
CXXFLAGS = ["-std=c++17", "-O2", "-fPIC", "-Wall", "-Wextra", "-Werror", "-fvisibility=hidden"]


def have_gloo() -> bool:
    return GLOO_HEADER.is_file()


def rccl_declared() -> list[str]:
    from pyshim.tables.nccl_api import rccl_declarations

    return sorted(n for n in rccl_declarations() if n.startswith("nccl"))


def build_cpu_rccl(out_dir: Path) -> Path:
    cc = os.environ.get("CC", "gcc")
    cxx = os.environ.get("CXX", "g++")
    sources = sorted(RCCL_DIR.glob("*.c"))
    bridges = sorted(RCCL_DIR.glob("*.cc"))
    flags = [*CFLAGS, f"-I{RCCL_DIR}", *[f"-I{d}" for d in _inc(("hip", "hsa"))]]
    gloo = have_gloo()
    cxxflags = [*CXXFLAGS, f"-I{RCCL_DIR}", *(["-DRC_HAVE_GLOO"] if gloo else [])]
    declared = rccl_declared()
    target = out_dir / RCCL_SONAME
    stamp = out_dir / f".{RCCL_SONAME}.stamp"
    key = _digest([*sources, *bridges, *RCCL_DIR.glob("*.h"), Path(__file__)],
                  [cc, cxx, *flags, *cxxflags, *declared])
    if target.is_file() and stamp.is_file() and stamp.read_text() == key:
        return target
    obj_dir = out_dir / "obj-rccl"
    obj_dir.mkdir(parents=True, exist_ok=True)
    objects = []
    for src in sources:
        obj = obj_dir / (src.stem + ".o")
        _run([cc, *flags, "-c", str(src), "-o", str(obj)], f"compiling {src.name}")
        objects.append(obj)
    for src in bridges:
        obj = obj_dir / (src.stem + ".o")
        _run([cxx, *cxxflags, "-c", str(src), "-o", str(obj)], f"compiling {src.name}")
        objects.append(obj)
    missing = sorted(set(declared) - _defined(objects))
    stub_c = obj_dir / "stubs.c"
    stub_c.write_text(_stub_source(missing, INVALID_USAGE, RCCL_SONAME))
    stub_o = obj_dir / "stubs.o"
    _run([cc, "-std=c11", "-O1", "-fPIC", "-Wall", "-Werror", "-fvisibility=hidden", "-c",
          str(stub_c), "-o", str(stub_o)], "compiling the stubs")
    vscript = obj_dir / "exports.map"
    vscript.write_text("{ global: nccl*; local: *; };\n")
    tmp = out_dir / f".{RCCL_SONAME}.{os.getpid()}.tmp"
    _run([cc, "-shared", "-o", str(tmp), *map(str, objects), str(stub_o),
          f"-Wl,-soname,{RCCL_SONAME}", f"-Wl,--version-script,{vscript}", "-Wl,-z,defs",
          "-Wl,-Bsymbolic", f"-L{out_dir}", f"-l:{HIP_SONAME}", "-Wl,-rpath,$ORIGIN",
          *(["-lgloo"] if gloo else []), "-lstdc++", "-lm", "-lpthread"],
         f"linking {RCCL_SONAME}")
    os.replace(tmp, target)
    (out_dir / f"{RCCL_SONAME}.unimplemented").write_text("\n".join(missing) + "\n")
    stamp.write_text(key)
    return target


def shim_lib() -> ShimLib:
    return ShimLib("nccl", codegen.SONAME, "nccl2", RCCL_SONAME, SHIM_DIR / "nccl", "nccl")


def build_nccl(root: Path | None = None) -> list[Path]:
    """The CPU device's RCCL into <root>/cpu and libnccl.so.2 into <root>/lib. The CPU
    device's HIP runtime is built first when missing."""
    with shim_lib_build(root, "nccl") as (cpu, lib_dir, gen_dir):
        built = [build_cpu_rccl(cpu)]
        codegen.generate(gen_dir)
        built.append(build_shim_lib(shim_lib(), lib_dir, gen_dir, cpu))
    return built


def main(argv: list[str] | None = None) -> int:
    try:
        for p in build_nccl(Path(argv[0]) if argv else None):
            print(p)
    except RuntimeError as exc:
        print(f"pyshim builders.nccl: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
