"""The pass pipeline: small passes, one per file, each `run(module) -> module`.

PYSHIM_DUMP_IR=<pass-name>[,<pass-name>...] (or "all") prints the IR after those passes to
stderr.
"""

from __future__ import annotations

import os
import sys

from pyshim.ptx import ir
from pyshim.ptx.passes import classify_sync, layout_shared, number_sites, resolve_calls
from pyshim.ptx.printer import format_module

PIPELINE = [
    ("number_sites", number_sites.run),
    ("resolve_calls", resolve_calls.run),
    ("layout_shared", layout_shared.run),
    ("classify_sync", classify_sync.run),
]
NAMES = [name for name, _ in PIPELINE]


def run(module: ir.Module, dump: str | None = None) -> ir.Module:
    dump = dump if dump is not None else os.environ.get("PYSHIM_DUMP_IR", "")
    wanted = set(dump.split(",")) if dump else set()
    if "parse" in wanted or "all" in wanted:
        sys.stderr.write(f"// ---- IR after parse ----\n{format_module(module)}\n")
    for name, pass_run in PIPELINE:
        module = pass_run(module)
        if name in wanted or "all" in wanted:
            sys.stderr.write(f"// ---- IR after {name} ----\n{format_module(module)}\n")
    return module
