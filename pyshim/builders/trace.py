"""libpyshim_trace.so: the call tracer `pyshim run --trace` preloads.

    python3 -m pyshim.builders.trace [out_dir]      (default: build/lib)

A plain shared library (no Python inside): the hand-written C in shim/trace plus the
wrappers pyshim.codegen.trace generates from tables/, compiled with -Werror against the
real CUDA 13 headers. Work files go to build/trace/; the library is rebuilt only when a
stamp of its inputs (sources, generated C, flags, compiler) changes.
"""

from __future__ import annotations

import fcntl
import hashlib
import os
import subprocess
import sys
from pathlib import Path

from pyshim.codegen import trace as codegen
from pyshim.codegen.export_tables import generate as export_tables_header
from pyshim.paths import SHIM_DIR, build_dir

TRACE_DIR = SHIM_DIR / "trace"
LIBRARY = "libpyshim_trace.so"
CC = os.environ.get("CC", "cc")
# -fvisibility=hidden: only the wrappers (PT_API) are exported, never our helpers.
# -Bsymbolic-functions: a wrapper named in our own tables is ours, whatever else is loaded.
# -O2 also makes dlsym's RTLD_NEXT forward a sibling call (resolve.c relies on it).
CFLAGS = ["-std=c11", "-O2", "-foptimize-sibling-calls", "-fPIC", "-fvisibility=hidden",
          "-Wall", "-Wextra", "-Werror"]
LDFLAGS = ["-shared", "-Wl,-Bsymbolic-functions", "-Wl,-z,defs", "-ldl", "-lpthread"]
HEADERS = ("cuda13-runtime", "cuda13-crt", "cuda13-profiler")


class BuildError(RuntimeError):
    pass


def work_dir() -> Path:
    return build_dir() / "trace"


def include_dirs() -> list[Path]:
    from pyshim.tables.fetch import include_dir

    return [Path(include_dir(k)) for k in HEADERS]


def sources(gen_dir: Path) -> list[Path]:
    return sorted(TRACE_DIR.glob("*.c")) + [gen_dir / "trace_driver.c",
                                           gen_dir / "trace_runtime.c"]


def _cc_version() -> str:
    proc = subprocess.run([CC, "--version"], capture_output=True, text=True)
    return proc.stdout.splitlines()[0] if proc.stdout else CC


def _stamp(cmd: list[str], inputs: list[Path]) -> str:
    h = hashlib.sha256()
    for part in [*cmd, _cc_version()]:
        h.update(part.encode() + b"\0")
    for path in inputs:
        h.update(str(path).encode() + b"\0" + path.read_bytes() + b"\0")
    return h.hexdigest()


def _compile(src: Path, obj: Path, gen_dir: Path) -> None:
    incs = [TRACE_DIR, gen_dir, *include_dirs()]
    cmd = [CC, *CFLAGS, *(f"-I{p}" for p in incs), "-c", str(src), "-o", str(obj)]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        raise BuildError(f"compiling {src.name} for {LIBRARY} failed:\n"
                         f"{' '.join(cmd)}\n{proc.stderr[-4000:]}")


def build_trace(out_dir: Path | None = None, force: bool = False) -> Path:
    """Build (if its inputs changed) and return out_dir/libpyshim_trace.so."""
    out_dir = Path(out_dir) if out_dir is not None else build_dir() / "lib"
    work = work_dir()
    gen_dir = work / "gen"
    work.mkdir(parents=True, exist_ok=True)
    out_dir.mkdir(parents=True, exist_ok=True)
    out = out_dir / LIBRARY
    with open(work / ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # parallel test workers build it once
        codegen.generate(gen_dir)
        export_tables_header(gen_dir)
        srcs = sources(gen_dir)
        inputs = [*srcs, TRACE_DIR / "trace.h", gen_dir / "trace_enums.h",
                  gen_dir / "export_tables.h"]
        stamp = _stamp([*CFLAGS, *LDFLAGS, str(out)], inputs)
        stamp_file = work / f"{LIBRARY}.stamp"
        if (not force and out.exists() and stamp_file.exists()
                and stamp_file.read_text() == stamp):
            return out
        objs = []
        for src in srcs:
            obj = work / (src.stem + ".o")
            _compile(src, obj, gen_dir)
            objs.append(obj)
        tmp = out.with_name(out.name + ".tmp")
        cmd = [CC, *(str(o) for o in objs), "-o", str(tmp), *LDFLAGS]
        proc = subprocess.run(cmd, capture_output=True, text=True)
        if proc.returncode != 0:
            raise BuildError(f"linking {LIBRARY} failed:\n{proc.stderr[-4000:]}")
        os.replace(tmp, out)  # atomic: a running program never sees half a library
        stamp_file.write_text(stamp)
    return out


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    try:
        print(build_trace(Path(argv[0]) if argv else None))
    except BuildError as exc:
        print(f"pyshim build_trace: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
