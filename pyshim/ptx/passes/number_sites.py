"""Gives every instruction a module-unique site number.

The CPU device groups the lanes that wait at a warp collective by call site, so lanes in
divergent branches that reach different shuffles do not get merged into one collective.
"""

from __future__ import annotations

from pyshim.ptx import ir


def run(module: ir.Module) -> ir.Module:
    n = 0
    for fn in module.functions:
        for s in fn.body or ():
            if type(s) is ir.Instruction:
                n += 1
                s.site = n
    return module
