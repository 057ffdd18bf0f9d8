"""What every library build shares: the compiler, running it, digests for the skip-if-unchanged
stamps, the lock that serialises concurrent builds (parallel test workers), atomic
publishing, and the facts an embedding library (libcuda, libcudart) needs."""

from __future__ import annotations

import fcntl
import hashlib
import os
import shutil
import subprocess
import sys
import sysconfig
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path

from pyshim.paths import PACKAGE_DIR, REPO_DIR

CC = os.environ.get("CC", "cc")
EMBED_DIR = PACKAGE_DIR / "embed"
# the cffi module name written in embed/init_code.py, replaced by each library's own
_INIT_MODULE = "_pyshim_cuda"


class BuildError(RuntimeError):
    """A build step failed; the message carries the compiler's output."""


def log(msg: str) -> None:
    print(f"pyshim build: {msg}", file=sys.stderr, flush=True)


def run(cmd: list[str], what: str = "", cwd: Path | None = None) -> str:
    """Run a compiler or linker; its stdout, or BuildError with everything it said."""
    proc = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True)
    if proc.returncode != 0:
        head = f"{what} failed:\n" if what else ""
        raise BuildError(f"{head}{' '.join(cmd)}\n{proc.stdout}{proc.stderr}")
    return proc.stdout


def digest(parts: Iterable[bytes | str]) -> str:
    h = hashlib.sha256()
    for p in parts:
        h.update(p.encode() if isinstance(p, str) else p)
        h.update(b"\0")
    return h.hexdigest()


def file_digest(paths: Iterable[Path]) -> str:
    """Of each file's path and bytes, in sorted order."""
    return digest(b for p in sorted(paths) for b in (str(p).encode(), p.read_bytes()))


def compiler_version(cc: str = CC) -> str:
    return subprocess.run([cc, "--version"], capture_output=True, text=True).stdout


def write_if_changed(path: Path, text: str) -> Path:
    """Write `text` unless the file already holds it (its mtime then stays)."""
    if not path.exists() or path.read_text() != text:
        path.write_text(text)
    return path


def write_bytes_if_changed(path: Path, data: bytes) -> Path:
    """Write `data` unless the file already holds it, atomically (a process reading the file
    meanwhile sees the old bytes or the new, never part of them)."""
    if not path.is_file() or path.read_bytes() != data:
        tmp = path.with_name(f".{path.name}.{os.getpid()}")
        tmp.write_bytes(data)
        os.replace(tmp, path)
    return path


def publish(built: Path, out: Path) -> None:
    """Copy `built` to `out` atomically: a running program keeps its old copy."""
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_name(out.name + ".tmp")
    shutil.copyfile(built, tmp)
    os.replace(tmp, out)


@contextmanager
def build_lock(work: Path, name: str = ".lock") -> Iterator[None]:
    """Concurrent builds of the same work directory wait for each other."""
    work.mkdir(parents=True, exist_ok=True)
    with open(work / name, "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        yield


def defined_symbols(objs: list[Path]) -> set[str]:
    """Global symbols the objects define (nm)."""
    out = subprocess.run(
        ["nm", "--defined-only", "-g", *map(str, objs)], capture_output=True, text=True, check=True
    ).stdout
    return {parts[2] for line in out.splitlines() if len(parts := line.split()) == 3}


def hip_includes() -> list[Path]:
    """ROCm's HIP and HSA headers (fetched, pinned)."""
    from pyshim.tables.fetch import include_dir

    return [Path(include_dir("hip")), Path(include_dir("hsa"))]


def link_stub(work: Path, cc: str = CC) -> Path:
    """A directory holding an empty libamdhip64.so.7 to link against: it gives a shim library
    its DT_NEEDED entry; at run time the library path picks ROCm's or the CPU device's."""
    stub_dir = work / "linkstub"
    stub = stub_dir / "libamdhip64.so.7"
    if not stub.exists():
        stub_dir.mkdir(parents=True, exist_ok=True)
        src = stub_dir / "empty.c"
        src.write_text("/* link-only stand-in for libamdhip64.so.7 */\n")
        run([cc, "-shared", "-fPIC", "-Wl,-soname,libamdhip64.so.7", str(src), "-o", str(stub)])
    return stub_dir


# ---------------------------------------------------------------- embedding libraries


def python_facts() -> dict[str, str]:
    """What a library that embeds this Python needs to find and start it."""
    soname = sysconfig.get_config_var("INSTSONAME") or sysconfig.get_config_var("LDLIBRARY")
    if not soname or not sysconfig.get_config_var("Py_ENABLE_SHARED"):
        raise BuildError(
            "this Python has no shared libpython; the embedded translator needs one "
            "(build Python with --enable-shared)"
        )
    return {"soname": soname, "hex": f"0x{sys.hexversion:08x}", "home": sys.base_prefix,
            "exe": sys.executable}


def python_cflags() -> list[str]:
    """The -D flags shim/common/embed_bridge.c reads."""
    py = python_facts()
    return [
        f'-DPYSHIM_LIBPYTHON="{py["soname"]}"',
        f"-DPYSHIM_PYTHON_VERSION_HEX={py['hex']}",
        f'-DPYSHIM_PYTHONHOME="{py["home"]}"',
        f'-DPYSHIM_PYTHON_EXE="{py["exe"]}"',
        f'-DPYSHIM_REPO_DIR="{REPO_DIR}"',
    ]


def embed_cdef() -> str:
    """The C API the embedded Python implements (cffi's embedding_api)."""
    return (EMBED_DIR / "api.h").read_text()


def init_code(module: str) -> str:
    """embed/init_code.py for the cffi module `module`, with the search paths filled in:
    our package first, then the site-packages of the Python pyshim was built with."""
    search_paths = [str(REPO_DIR)] + [p for p in sys.path if p.endswith("-packages")]
    template = (EMBED_DIR / "init_code.py").read_text()
    text = template.replace("PYSHIM_SEARCH_PATHS = []", f"PYSHIM_SEARCH_PATHS = {search_paths!r}")
    return text.replace(f"from {_INIT_MODULE} import ffi", f"from {module} import ffi")
