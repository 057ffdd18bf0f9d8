"""libpyshim_trace.so: the call tracer `pyshim run --trace` preloads.

    python3 -m pyshim.builders.trace [out_dir]      (default: build/lib)

A plain shared library (no Python inside): the hand-written C in shim/trace plus the
wrappers pyshim.codegen.trace generates from tables/, compiled with -Werror against the
real CUDA 13 headers. Work files go to build/trace/; the library is rebuilt only when a
stamp of its inputs (sources, generated C, flags, compiler) changes.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from pyshim.builders.common import CC, BuildError, build_lock, compiler_version, digest, run
from pyshim.codegen import trace as codegen
from pyshim.codegen.export_tables import generate as export_tables_header
from pyshim.paths import SHIM_DIR, build_dir

TRACE_DIR = SHIM_DIR / "trace"
LIBRARY = "libpyshim_trace.so"
# -fvisibility=hidden: only the wrappers (PT_API) are exported, never our helpers.
# -Bsymbolic-functions: a wrapper named in our own tables is ours, whatever else is loaded.
# -O2 also makes dlsym's RTLD_NEXT forward a sibling call (resolve.c relies on it).
CFLAGS = ["-std=c11", "-O2", "-foptimize-sibling-calls", "-fPIC", "-fvisibility=hidden",
          "-Wall", "-Wextra", "-Werror"]
LDFLAGS = ["-shared", "-Wl,-Bsymbolic-functions", "-Wl,-z,defs", "-ldl", "-lpthread"]
HEADERS = ("cuda13-runtime", "cuda13-crt", "cuda13-profiler")


def work_dir() -> Path:
    return build_dir() / "trace"


def include_dirs() -> list[Path]:
    from pyshim.tables.fetch import include_dir

    return [Path(include_dir(k)) for k in HEADERS]


def sources(gen_dir: Path) -> list[Path]:
    return sorted(TRACE_DIR.glob("*.c")) + [gen_dir / "trace_driver.c",
                                           gen_dir / "trace_runtime.c"]


def _compile(src: Path, obj: Path, gen_dir: Path) -> None:
    incs = [TRACE_DIR, gen_dir, *include_dirs()]
    cmd = [CC, *CFLAGS, *(f"-I{p}" for p in incs), "-c", str(src), "-o", str(obj)]
    run(cmd, f"compiling {src.name} for {LIBRARY}")


def build_trace(out_dir: Path | None = None, force: bool = False) -> Path:
    """Build (if its inputs changed) and return out_dir/libpyshim_trace.so."""
    out_dir = Path(out_dir) if out_dir is not None else build_dir() / "lib"
    work = work_dir()
    gen_dir = work / "gen"
    work.mkdir(parents=True, exist_ok=True)
    out_dir.mkdir(parents=True, exist_ok=True)
    out = out_dir / LIBRARY
    with build_lock(work):  # parallel test workers build it once
        codegen.generate(gen_dir)
        export_tables_header(gen_dir)
        srcs = sources(gen_dir)
        inputs = [*srcs, TRACE_DIR / "trace.h", gen_dir / "trace_enums.h",
                  gen_dir / "export_tables.h"]
        stamp = digest([*CFLAGS, *LDFLAGS, str(out), compiler_version(),
                        *(x for p in inputs for x in (str(p), p.read_bytes()))])
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
        run(cmd, f"linking {LIBRARY}")
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
