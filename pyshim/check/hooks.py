"""cudart's hidden registration hooks (`__cudaRegisterFatBinary`, `__cudaLaunchKernel`, ...)
are declared in no header, so the tables do not list them. Which ones pyshim implements is
read from its runtime's sources (every `EXPORT ... __cudaXxx(` definition in
shim/runtime/*.c): the code is the one place that fact lives."""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path

from pyshim.paths import SHIM_DIR

# a definition: EXPORT, the name, a parameter list, then a body (a declaration ends in ';')
_DEFINITION = re.compile(r"^EXPORT\b[^;(]*?\b(__cuda\w+)\s*\([^;{]*\)\s*\{", re.MULTILINE)
PREFIX = "__cuda"


@cache
def implemented(runtime_dir: Path = SHIM_DIR / "runtime") -> frozenset[str]:
    """The hooks pyshim's runtime defines (empty if its sources are not present)."""
    names: set[str] = set()
    for src in sorted(runtime_dir.glob("*.c")):
        names.update(_DEFINITION.findall(src.read_text(encoding="utf-8", errors="replace")))
    return frozenset(names)


def status(name: str) -> tuple[str, str]:
    """(status, reason) of a hook imported or called by a program."""
    if name in implemented():
        return "shim", "cudart registration hook, implemented by pyshim's runtime"
    return "unknown", "cudart hook that pyshim's runtime does not define"
