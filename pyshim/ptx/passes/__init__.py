"""The pass pipeline: small passes, one per file, each `run(module) -> module`.

`run(module, target)` runs the generic passes (PIPELINE) and then the target's own
(`Target.passes`: the CPU device's classify_sync, which plans how each kernel's threads run
and its region loops). PYSHIM_DUMP_IR=<pass-name>[,<pass-name>...] (or "all") prints the IR
after those passes to stderr.
"""

from __future__ import annotations

import os
import sys

from pyshim.ptx import ir
from pyshim.ptx.passes import device_syscalls, layout_shared, number_sites, resolve_calls
from pyshim.ptx.printer import format_module

PIPELINE = [
    ("device_syscalls", device_syscalls.run),
    ("number_sites", number_sites.run),
    ("resolve_calls", resolve_calls.run),
    ("layout_shared", layout_shared.run),
]
NAMES = [name for name, _ in PIPELINE] + ["classify_sync"]


def run(module: ir.Module, target="cpu-wave64", dump: str | None = None) -> ir.Module:
    """`target`: a targets.base.Target or its name (the CPU device's by default)."""
    if isinstance(target, str):
        from pyshim.ptx.targets import get_target

        target = get_target(target)
    dump = dump if dump is not None else os.environ.get("PYSHIM_DUMP_IR", "")
    wanted = set(dump.split(",")) if dump else set()
    if "parse" in wanted or "all" in wanted:
        sys.stderr.write(f"// ---- IR after parse ----\n{format_module(module)}\n")
    for name, pass_run in [*PIPELINE, *target.passes]:
        module = pass_run(module)
        if name in wanted or "all" in wanted:
            sys.stderr.write(f"// ---- IR after {name} ----\n{format_module(module)}\n")
    return module
