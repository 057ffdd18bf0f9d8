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

import fcntl
import hashlib
import os
import shutil
import subprocess
import sys
import sysconfig
from collections.abc import Iterable
from pathlib import Path

from pyshim.codegen.runtime import MAJORS, generate
from pyshim.paths import PACKAGE_DIR, REPO_DIR, SHIM_DIR, build_dir

RUNTIME_DIR = SHIM_DIR / "runtime"
# C shared with libcuda.so.1 (the embedded-Python door, fat binary sizes, logging and
# unsupported-call counts), compiled into each library with its symbols hidden
COMMON_DIR = SHIM_DIR / "common"
COMMON_SOURCES = ["device_identity.c", "embed_bridge.c", "fatbin_extent.c", "log.c", "unsupported.c"]
EMBED_DIR = PACKAGE_DIR / "embed"
CC = os.environ.get("CC", "cc")
# -fno-plt: a thunk calls HIP through the GOT slot it has just checked for NULL
CFLAGS = ["-std=c11", "-O2", "-fPIC", "-fno-plt", "-Wall", "-Wextra", "-Werror",
          "-D__HIP_PLATFORM_AMD__"]

# Runs once inside the CUDA program when libcudart first calls into Python; mirrors
# pyshim/embed/init_code.py with this library's module name. The work is in
# pyshim.embed.translate (shared with libcuda.so.1).
INIT_CODE = """\
import sys

# our package first; the packages of the Python pyshim was built with last, so that a
# program's own Python (a virtualenv) keeps its own versions of them
_repo, *_more = {paths!r}
if _repo not in sys.path:
    sys.path.insert(0, _repo)
sys.path.extend(_p for _p in _more if _p not in sys.path)

from pyshim.embed.signals import release_sigint  # noqa: E402

release_sigint()  # the program's signals stay its own (pyshim/embed/signals.py)

from {module} import ffi  # noqa: E402  (the module cffi made of this libcudart)

from pyshim.embed import translate as _translate  # noqa: E402


@ffi.def_extern()
def pyshim_embed_translate(image, size, target, out, out_len, status):
    code, text = _translate.translate(ffi.buffer(image, size)[:], ffi.string(target).decode())
    _translate.write_c_string(ffi, out, out_len, text)
    status[0] = code
    return 0
"""


class BuildError(RuntimeError):
    pass


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


def hip_includes() -> list[Path]:
    from pyshim.tables.fetch import include_dir

    return [Path(include_dir("hip")), Path(include_dir("hsa"))]


def python_facts() -> dict[str, str]:
    """What the embedded interpreter needs (mirrors pyshim.build's check)."""
    name = sysconfig.get_config_var("INSTSONAME") or sysconfig.get_config_var("LDLIBRARY")
    if not name or not sysconfig.get_config_var("Py_ENABLE_SHARED"):
        raise BuildError("this Python has no shared libpython; the embedded translator "
                         "needs one (build Python with --enable-shared)")
    return {"soname": name, "hex": f"0x{sys.hexversion:08x}", "home": sys.base_prefix,
            "exe": sys.executable}


def _digest(parts: Iterable[bytes | str]) -> str:
    h = hashlib.sha256()
    for p in parts:
        h.update(p.encode() if isinstance(p, str) else p)
        h.update(b"\0")
    return h.hexdigest()


def _run(cmd: list[str]) -> None:
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        raise BuildError(f"{' '.join(cmd)}\n{proc.stdout}{proc.stderr}")


def cflags(major: int, gen_dir: Path) -> list[str]:
    py = python_facts()
    # SHIM_DIR: the shared headers are included as "common/<name>.h"
    incs = [RUNTIME_DIR, SHIM_DIR, gen_dir, *cuda_includes(major), *hip_includes()]
    return CFLAGS + [f"-I{p}" for p in incs] + [
        f"-DPYSHIM_CUDART_MAJOR={major}",
        f'-DPYSHIM_LIBPYTHON="{py["soname"]}"',
        f"-DPYSHIM_PYTHON_VERSION_HEX={py['hex']}",
        f'-DPYSHIM_PYTHONHOME="{py["home"]}"',
        f'-DPYSHIM_PYTHON_EXE="{py["exe"]}"',
        f'-DPYSHIM_REPO_DIR="{REPO_DIR}"',
    ]


def sources(major: int, gen_dir: Path) -> list[Path]:
    return [*sorted(RUNTIME_DIR.glob("*.c")), gen_dir / f"runtime_thunks_{major}.c",
            gen_dir / f"runtime_export_stubs_{major}.c",
            *(COMMON_DIR / n for n in COMMON_SOURCES)]


def _link_stub(work: Path) -> Path:
    """An empty libamdhip64.so.7 to link against: it gives libcudart its DT_NEEDED entry;
    at run time the library path picks ROCm's or the CPU device's."""
    stub_dir = work / "linkstub"
    stub = stub_dir / "libamdhip64.so.7"
    if not stub.exists():
        stub_dir.mkdir(parents=True, exist_ok=True)
        src = stub_dir / "empty.c"
        src.write_text("/* link-only stand-in for libamdhip64.so.7 */\n")
        _run([CC, "-shared", "-fPIC", "-Wl,-soname,libamdhip64.so.7", str(src), "-o", str(stub)])
    return stub_dir


# ---------------------------------------------------------------- build


def _compile(major: int, work: Path, gen_dir: Path) -> list[Path]:
    flags = cflags(major, gen_dir)
    obj_dir = work / f"obj{major}"
    obj_dir.mkdir(parents=True, exist_ok=True)
    headers = [*sorted(RUNTIME_DIR.glob("*.h")), *sorted(gen_dir.glob("*.h")),
               *sorted(gen_dir.glob("*.inc")), *sorted(COMMON_DIR.glob("*.h")),
               *sorted(COMMON_DIR.glob("*.inc"))]
    header_key = _digest(b for h in headers for b in (h.name.encode(), h.read_bytes()))
    objs = []
    for src in sources(major, gen_dir):
        # shim/common has names that shim/runtime also uses (log.c)
        prefix = "common-" if src.parent == COMMON_DIR else ""
        obj = obj_dir / (prefix + src.stem + ".o")
        stamp = obj.with_suffix(".stamp")
        key = _digest([src.read_bytes(), header_key, *flags])
        if not (obj.exists() and stamp.exists() and stamp.read_text() == key):
            _run([CC, *flags, "-c", str(src), "-o", str(obj)])
            stamp.write_text(key)
        objs.append(obj)
    return objs


def _link(major: int, objs: list[Path], work: Path, gen_dir: Path, out: Path) -> None:
    import cffi

    search_paths = [str(REPO_DIR)] + [p for p in sys.path if p.endswith("-packages")]
    ffi = cffi.FFI()
    ffi.embedding_api((EMBED_DIR / "api.h").read_text())
    ffi.set_source(
        module_name(major),
        '#include "api.h"\n',
        include_dirs=[str(EMBED_DIR)],
        extra_objects=[str(o) for o in objs],
        extra_compile_args=["-O2"],
        extra_link_args=[
            "-Wl,-soname," + soname(major),
            f"-Wl,--version-script={gen_dir / (soname(major) + '.map')}",
            f"-L{_link_stub(work)}",
            "-Wl,--no-as-needed",
            "-l:libamdhip64.so.7",
            "-ldl",
            "-lpthread",
        ],
    )
    ffi.embedding_init_code(INIT_CODE.format(paths=search_paths, module=module_name(major)))
    cffi_dir = work / f"cffi{major}"
    cffi_dir.mkdir(parents=True, exist_ok=True)
    built = Path(ffi.compile(tmpdir=str(cffi_dir), target=soname(major), verbose=False))
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_name(out.name + ".tmp")
    shutil.copyfile(built, tmp)
    os.replace(tmp, out)  # atomic: a running program keeps its old copy


def build_runtime(out_dir: Path | None = None, force: bool = False) -> list[Path]:
    """Build out_dir/libcudart.so.13 and .12 (default out_dir: build/lib); returns them."""
    out_dir = Path(out_dir) if out_dir is not None else build_dir() / "lib"
    work = build_dir() / "runtime"
    work.mkdir(parents=True, exist_ok=True)
    out_dir.mkdir(parents=True, exist_ok=True)
    built = []
    with open(work / ".build.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        gen_dir = work / "gen"
        gen = generate(gen_dir)
        for major in MAJORS:
            objs = _compile(major, work, gen_dir)
            out = out_dir / soname(major)
            key = _digest([*(o.read_bytes() for o in objs), *(p.read_bytes() for p in gen),
                           (EMBED_DIR / "api.h").read_text(), INIT_CODE, sys.version,
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
