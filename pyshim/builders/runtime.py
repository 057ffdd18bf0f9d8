"""libcudart.so.13 and libcudart.so.12: pyshim's CUDA runtime for `-cudart shared` programs.

    python3 -m pyshim.builders.runtime [out_dir]      (default: build/lib)

Each library is a cffi *embedding* library (the PTX translator runs in an embedded Python,
module `_pyshim_cudart<major>`) made of the hand-written C in shim/runtime and the C that
pyshim.codegen.runtime generates from tables/: a weak thunk or stub for every exported
symbol and the version script that puts them under NVIDIA's version node
(`cudaMalloc@libcudart.so.13`). The .12 library is the same sources compiled against CUDA
12.9's headers with -DPYSHIM_CUDART_MAJOR=12 (12.9's cudaDeviceProp layout, version 12090,
the 12-only symbols). Work files go to build/runtime/; a library is rebuilt only when a
stamp of its inputs changes, and concurrent builds serialise on a lock file.
"""

from __future__ import annotations

import sys
from pathlib import Path

from pyshim.builders.common import (
    CC,
    EMBED_DIR,
    BuildError,
    build_lock,
    digest,
    embed_cdef,
    hip_includes,
    init_code,
    link_stub,
    publish,
    python_cflags,
    run,
)
from pyshim.codegen.runtime import MAJORS, generate
from pyshim.paths import SHIM_DIR, build_dir

RUNTIME_DIR = SHIM_DIR / "runtime"
# C shared with libcuda.so.1 (the embedded-Python door, fat binary sizes, logging and
# unsupported-call counts), compiled into each library with its symbols hidden
COMMON_DIR = SHIM_DIR / "common"
COMMON_SOURCES = ["capture_info.c", "device_identity.c", "embed_bridge.c", "fatbin_extent.c", "log.c",
                  "module_bind.c", "unsupported.c"]
# -fno-plt: a thunk calls HIP through the GOT slot it has just checked for NULL
CFLAGS = ["-std=c11", "-O2", "-fPIC", "-fno-plt", "-Wall", "-Wextra", "-Werror",
          "-D__HIP_PLATFORM_AMD__"]

def soname(major: int) -> str:
    return f"libcudart.so.{major}"


def module_name(major: int) -> str:
    return f"_pyshim_cudart{major}"


# ---------------------------------------------------------------- inputs


def cuda_includes(major: int) -> list[Path]:
    from pyshim.tables.fetch import include_dir

    crt = Path(include_dir("cuda13-crt"))  # crt/host_defines.h, which 12.9's wheel lacks
    if major == 12:
        return [Path(include_dir("cuda12-runtime")), crt]
    return [Path(include_dir("cuda13-runtime")), crt]


def cflags(major: int, gen_dir: Path) -> list[str]:
    # SHIM_DIR: the shared headers are included as "common/<name>.h"
    incs = [RUNTIME_DIR, SHIM_DIR, gen_dir, *cuda_includes(major), *hip_includes()]
    return CFLAGS + [f"-I{p}" for p in incs] + [f"-DPYSHIM_CUDART_MAJOR={major}",
                                                 *python_cflags()]


def sources(major: int, gen_dir: Path) -> list[Path]:
    return [*sorted(RUNTIME_DIR.glob("*.c")), gen_dir / f"runtime_thunks_{major}.c",
            gen_dir / f"runtime_export_stubs_{major}.c",
            *(COMMON_DIR / n for n in COMMON_SOURCES)]


# ---------------------------------------------------------------- build


def _compile(major: int, work: Path, gen_dir: Path) -> list[Path]:
    flags = cflags(major, gen_dir)
    obj_dir = work / f"obj{major}"
    obj_dir.mkdir(parents=True, exist_ok=True)
    headers = [*sorted(RUNTIME_DIR.glob("*.h")), *sorted(gen_dir.glob("*.h")),
               *sorted(gen_dir.glob("*.inc")), *sorted(COMMON_DIR.glob("*.h")),
               *sorted(COMMON_DIR.glob("*.inc"))]
    header_key = digest(b for h in headers for b in (h.name.encode(), h.read_bytes()))
    objs = []
    for src in sources(major, gen_dir):
        # shim/common has names that shim/runtime also uses (log.c)
        prefix = "common-" if src.parent == COMMON_DIR else ""
        obj = obj_dir / (prefix + src.stem + ".o")
        stamp = obj.with_suffix(".stamp")
        key = digest([src.read_bytes(), header_key, *flags])
        if not (obj.exists() and stamp.exists() and stamp.read_text() == key):
            run([CC, *flags, "-c", str(src), "-o", str(obj)])
            stamp.write_text(key)
        objs.append(obj)
    return objs


def _link(major: int, objs: list[Path], work: Path, gen_dir: Path, out: Path) -> None:
    import cffi

    ffi = cffi.FFI()
    ffi.embedding_api(embed_cdef())
    ffi.set_source(
        module_name(major),
        '#include "api.h"\n',
        include_dirs=[str(EMBED_DIR)],
        extra_objects=[str(o) for o in objs],
        extra_compile_args=["-O2"],
        extra_link_args=[
            "-Wl,-soname," + soname(major),
            f"-Wl,--version-script={gen_dir / (soname(major) + '.map')}",
            f"-L{link_stub(work)}",
            "-Wl,--no-as-needed",
            "-l:libamdhip64.so.7",
            "-ldl",
            "-lpthread",
        ],
    )
    ffi.embedding_init_code(init_code(module_name(major)))
    cffi_dir = work / f"cffi{major}"
    cffi_dir.mkdir(parents=True, exist_ok=True)
    built = Path(ffi.compile(tmpdir=str(cffi_dir), target=soname(major), verbose=False))
    publish(built, out)


def build_runtime(out_dir: Path | None = None, force: bool = False) -> list[Path]:
    """Build out_dir/libcudart.so.13 and .12 (default out_dir: build/lib); returns them."""
    out_dir = Path(out_dir) if out_dir is not None else build_dir() / "lib"
    work = build_dir() / "runtime"
    out_dir.mkdir(parents=True, exist_ok=True)
    built = []
    with build_lock(work, ".build.lock"):
        gen_dir = work / "gen"
        gen = generate(gen_dir)
        for major in MAJORS:
            objs = _compile(major, work, gen_dir)
            out = out_dir / soname(major)
            key = digest([*(o.read_bytes() for o in objs), *(p.read_bytes() for p in gen),
                           embed_cdef(), init_code(module_name(major)), sys.version,
                           str(out_dir)])
            stamp = work / f"{soname(major)}.stamp"
            if force or not (out.exists() and stamp.exists() and stamp.read_text() == key):
                _link(major, objs, work, gen_dir, out)
                stamp.write_text(key)
            built.append(out)
    return built


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    try:
        for path in build_runtime(Path(argv[0]) if argv else None):
            print(path)
    except BuildError as exc:
        print(f"pyshim build_runtime: failed: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
