"""Which backends lack the HIP function a table entry forwards to.

The tables say how a CUDA entry point reaches HIP (`direct`, `converted`, `adapter` name a
HIP target); whether that target exists depends on the backend. The CPU device's
`libamdhip64.so.7` exports only the `hip*` functions shim/cpu/hip/*.c defines (exports.map keeps
nothing else), so its export list is computed from those sources: it works on a fresh checkout
without a build, and the CPU build checks the list against the built library's dynamic symbols
(`pyshim.builders.cpu`), so the two cannot drift. The ROCm backend's list is tables/rocm.json's
`hip` names (the ROCm release the tables were generated from).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from pyshim import paths

CPU = "cpu"
ROCM = "rocm"
# classes whose call goes to the table's HIP target (shim entry points are our own C)
FORWARDING = ("direct", "converted", "adapter")
_CPU_DIR = paths.SHIM_DIR / "cpu" / "hip"
# A definition at file scope: return type (on the line before, or the same line), the name,
# a parameter list, then a body. Our declarations end in ';' before any '{', so prototypes do
# not match; static helpers are not exported. The CPU build checks the scan (`builders.cpu`).
_DEFINITION = re.compile(r"^(?!static\b)[A-Za-z_][\w \t\*\n]*?\b(hip[A-Za-z0-9_]*)\s*"
                         r"\([^;{}]*\)\s*\{", re.M)


def hip_owned(target: str | None) -> bool:
    """A target that libamdhip64 provides (hiprtc lives in its own library since ROCm 7)."""
    return bool(target) and target.startswith("hip") and not target.startswith("hiprtc")


def cpu_exports_from_sources(cpu_dir: Path = _CPU_DIR) -> frozenset[str]:
    """The hip* functions the CPU device's sources define (what exports.map exports)."""
    names: set[str] = set()
    for p in sorted(cpu_dir.glob("*.c")):
        names.update(_DEFINITION.findall(p.read_text(errors="replace")))
    return frozenset(names)


def library_exports(path: Path) -> frozenset[str]:
    """The hip* functions a built shared object defines in its dynamic symbol table."""
    from elftools.elf.elffile import ELFFile

    with open(path, "rb") as f:
        dynsym = ELFFile(f).get_section_by_name(".dynsym")
        return frozenset(s.name for s in dynsym.iter_symbols()
                         if s.name.startswith("hip") and s["st_shndx"] != "SHN_UNDEF")


@dataclass(frozen=True)
class Backends:
    """backend -> the HIP functions it has."""

    exports: dict[str, frozenset[str]]

    def missing(self, target: str | None) -> dict[str, str]:
        """backend -> the target it lacks ({} when every backend has it)."""
        if not hip_owned(target):
            return {}
        return {b: target for b, have in self.exports.items() if target not in have}


def _rocm_hip(tables_dir: Path) -> frozenset[str]:
    with open(tables_dir / "rocm.json") as f:
        return frozenset(json.load(f)["names"]["hip"])


@cache
def load(tables_dir: Path = paths.TABLES_DIR, cpu_dir: Path = _CPU_DIR) -> Backends:
    return Backends({CPU: cpu_exports_from_sources(cpu_dir), ROCM: _rocm_hip(tables_dir)})


def table_gaps(tables_dir: Path = paths.TABLES_DIR,
               backends: Backends | None = None) -> dict[str, dict[str, dict[str, str]]]:
    """api -> entry point -> {backend: missing target} for every forwarding table entry."""
    backends = backends or load(tables_dir)
    out: dict[str, dict[str, dict[str, str]]] = {}
    for api in ("driver", "runtime"):
        with open(tables_dir / f"{api}.json") as f:
            eps = json.load(f)["entry_points"]
        out[api] = {name: gap for name, ep in eps.items()
                    if ep["class"] in FORWARDING and (gap := backends.missing(ep.get("target")))}
    return out
