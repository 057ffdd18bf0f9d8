"""Lays out .shared variables in the block's shared window.

Shared addresses are offsets into one per-block window (PTX lets code hold them in 32-bit
registers, so they cannot be host pointers). Module-scope variables and those declared in
.func bodies get fixed offsets valid in every kernel; each kernel's own variables follow.
`.extern .shared` arrays (dynamic shared memory) live at a per-launch offset after the static
part (PS_DYN_OFF), so they need no offset here.

A module that reads %reserved_smem_offset_* (cooperative groups' multi-warp tiles on sm_80+
keep their barriers and scratch there) gets the block's "reserved shared memory" as a fixed
region of the common part: RESERVED_SMEM bytes at module.info.reserved_smem.
"""

from __future__ import annotations

from pyshim.ptx import ir
from pyshim.ptx.types import SIZE


def var_bytes(v: ir.Var) -> int:
    n = SIZE.get(v.type, 1) * v.vector
    for d in v.dims:
        n *= max(d, 0)
    return n


def var_align(v: ir.Var) -> int:
    return v.align or SIZE.get(v.type, 1) * v.vector


def _place(v: ir.Var, table: dict[str, int], size: int) -> int:
    if v.linkage == "extern" or (v.dims and v.dims[0] == 0):
        return size  # dynamic: PS_DYN_OFF
    a = var_align(v)
    size = (size + a - 1) & ~(a - 1)
    table[v.name] = size
    return size + var_bytes(v)


RESERVED_SMEM = 1024  # what sm_80+ GPUs set aside per block (CG needs >= 288 bytes)


def _uses_reserved_smem(module: ir.Module) -> bool:
    text = getattr(module.source, "text", None)
    if text is not None:  # a substring test, not a walk over every operand
        return "%reserved_smem_offset" in text
    return any(type(o) is ir.Reg and o.name.startswith("%reserved_smem_offset")
               for f in module.functions for s in f.body or () if type(s) is ir.Instruction
               for o in s.operands)


def run(module: ir.Module) -> ir.Module:
    common: dict[str, int] = {}
    size = 0
    if _uses_reserved_smem(module):
        module.info.reserved_smem = 0
        size = RESERVED_SMEM
    for v in module.variables:
        if v.space == "shared":
            size = _place(v, common, size)
    for fn in module.functions:
        if not fn.entry:
            for s in fn.body or ():
                if type(s) is ir.Var and s.space == "shared":
                    size = _place(s, common, size)
    module.info.shared_common = common
    module.info.shared_common_size = size
    for fn in module.functions:
        if fn.entry:
            own: dict[str, int] = {}
            ksize = size
            for s in fn.body or ():
                if type(s) is ir.Var and s.space == "shared":
                    ksize = _place(s, own, ksize)
            fn.info.shared = own
            fn.info.shared_size = ksize
    return module
