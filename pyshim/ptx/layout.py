"""Sizes, alignments and the packed kernel-parameter layout."""

from __future__ import annotations

from pyshim.ptx import ir
from pyshim.ptx.passes.layout_shared import var_align, var_bytes


def param_layout(params: list[ir.Var]) -> tuple[list[tuple[int, int, int]], int]:
    """[(offset, size, align)] for each kernel parameter, and the packed buffer size."""
    out = []
    off = 0
    for p in params:
        size = var_bytes(p)
        align = var_align(p)
        off = (off + align - 1) & ~(align - 1)
        out.append((off, size, align))
        off += size
    return out, off


__all__ = ["param_layout", "var_align", "var_bytes"]
