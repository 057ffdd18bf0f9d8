"""Build the CPU device's HIP runtime: `libamdhip64.so.7` from the C in shim/cpu/hip/.

It is compiled against the real HIP 7.2 headers, so a definition that disagrees with
ROCm's declaration does not compile. Only `hip*` symbols are exported (a version script).
The build is skipped when a stamp of every input (sources, headers, flags, compiler)
matches; concurrent builds (pytest -n) serialise on a lock file and publish atomically.
"""

from __future__ import annotations

import hashlib
import os
import sys
from pathlib import Path

from pyshim import paths
from pyshim.builders.common import (
    CC,
    BuildError,
    build_lock,
    compiler_version,
    hip_includes,
    run,
)

CPU_DIR = paths.SHIM_DIR / "cpu" / "hip"
INCLUDE_DIR = paths.SHIM_DIR / "include"
LIB_NAME = "libamdhip64.so"
SONAME = "libamdhip64.so.7"
VERSION_SCRIPT = CPU_DIR / "exports.map"
# C shared with the shim's own libraries (shim/common), included as "common/<name>.h"
COMMON_DIR = paths.SHIM_DIR / "common"
COMMON_SOURCES = ("handle_set.c",)

CFLAGS = (
    "-std=c11", "-O2", "-g", "-fPIC", "-pthread",
    "-Wall", "-Wextra", "-Werror",
    "-D_GNU_SOURCE", "-D__HIP_PLATFORM_AMD__",
)


def default_out_dir() -> Path:
    return paths.build_dir() / "cpu"


def sources() -> list[Path]:
    """The runtime's C files, in a stable order."""
    return [*sorted(CPU_DIR.glob("*.c")), *(COMMON_DIR / n for n in COMMON_SOURCES)]


def _headers() -> list[Path]:
    return [*sorted(CPU_DIR.glob("*.h")), *sorted(INCLUDE_DIR.glob("*.h")),
            *sorted(COMMON_DIR.glob("*.h"))]


def _command(out: Path, includes: list[Path]) -> list[str]:
    return [
        CC, *CFLAGS,
        *(f"-I{d}" for d in (CPU_DIR, INCLUDE_DIR, paths.SHIM_DIR, *includes)),
        "-shared", f"-Wl,-soname,{SONAME}", f"-Wl,--version-script={VERSION_SCRIPT}",
        "-Wl,-z,defs",
        "-o", str(out), *map(str, sources()), "-ldl",
    ]


def _stamp(includes: list[Path]) -> str:
    h = hashlib.sha256()
    h.update(compiler_version().encode())
    h.update(repr(_command(Path("out"), includes)).encode())
    for p in [*sources(), *_headers(), VERSION_SCRIPT]:
        h.update(p.name.encode())
        h.update(p.read_bytes())
    hip_version = includes[0] / "hip" / "hip_version.h"
    if hip_version.exists():
        h.update(hip_version.read_bytes())
    return h.hexdigest()


def _check_exports(lib: Path) -> None:
    """`pyshim check` computes the CPU device's exports from the sources (it must work
    without a build): the built library must agree, or its gap list would be wrong."""
    from pyshim.check.backends import cpu_exports_from_sources, library_exports

    built, scanned = library_exports(lib), cpu_exports_from_sources(CPU_DIR)
    if built != scanned:
        lib.unlink(missing_ok=True)
        raise BuildError(f"{SONAME} exports disagree with the definitions found in "
                         f"{CPU_DIR}: only built {sorted(built - scanned)}, only in the "
                         f"sources {sorted(scanned - built)} (fix pyshim.check.backends)")


def _write_gaps(out_dir: Path) -> None:
    """The generated list of table targets the CPU device lacks (tables change without a
    rebuild of the library, so it is rewritten on every build)."""
    import json

    from pyshim.check.backends import CPU, table_gaps

    gaps = {api: {ep: g[CPU] for ep, g in eps.items() if CPU in g}
            for api, eps in table_gaps().items()}
    path = out_dir / f"{SONAME}.gaps.json"
    text = json.dumps(gaps, indent=1, sort_keys=True) + "\n"
    if not path.exists() or path.read_text() != text:
        tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
        tmp.write_text(text)
        os.replace(tmp, path)


def build_cpu_device(out_dir: Path | None = None) -> Path:
    """Builds libamdhip64.so.7 (and the libamdhip64.so link) into `out_dir`; returns it."""
    out_dir = Path(out_dir) if out_dir is not None else default_out_dir()
    out_dir.mkdir(parents=True, exist_ok=True)
    includes = hip_includes()
    stamp = _stamp(includes)
    target = out_dir / SONAME
    stamp_file = out_dir / f"{SONAME}.stamp"
    with build_lock(out_dir, f".{SONAME}.lock"):
        if not (target.exists() and stamp_file.exists() and stamp_file.read_text() == stamp):
            tmp = out_dir / f".{SONAME}.{os.getpid()}.tmp"
            try:
                run(_command(tmp, includes), f"building {SONAME}")
            except BuildError:
                tmp.unlink(missing_ok=True)
                raise
            _check_exports(tmp)
            os.replace(tmp, target)
            stamp_file.write_text(stamp)
        _write_gaps(out_dir)
        link = out_dir / LIB_NAME
        if not link.is_symlink() or os.readlink(link) != SONAME:
            link.unlink(missing_ok=True)
            link.symlink_to(SONAME)
    return out_dir


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    out = Path(args[0]) if args else None
    try:
        print(build_cpu_device(out) / SONAME)
    except BuildError as e:
        print(e, file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
