"""Prefetching a later block's global memory on the CPU device (region loops and thread
loops alike).

Why: a region-loop block reads its input in its first region and writes its output in its
last, with all its other regions in between. The hardware prefetcher does not run that far
ahead of such bursts, so every block starts on cache misses and ends on them (scan's first
and last regions took most of its time: benchmarks/README.md). A 2-D block of a thread
loop reads a few short rows far apart (a 32x8 stencil block: ten rows of 128 bytes, 16 KB
apart), too short for the hardware to follow each, which row by row prefetching makes up
for. Blocks of a chunk run in order on one
worker (shim/cpu/grid.c), so the block two further along %ctaid.x is this worker's next
but one.

How: the addresses of global loads and stores are tracked as affine functions of %tid and
%ctaid (a parameter pointer plus scaled indices: cvta, mul.wide, mad.wide, add.s64, with
the arithmetic of cpu/guards.py), through registers with one definition each. Each such
address, for %ctaid.x + 2, is prefetched over the block's box of thread indices row by row
(cpu.h ps_prefetch_box), the rows along x, unless a row spans more than 16 KB or the box
has more than 64 rows (a strided pattern: most lines would be wasted). A prefetch is only
a hint: an address it gets wrong (a chunk's last block, an index that wraps) costs a
wasted line, never a fault.
"""

from __future__ import annotations

from pyshim.ptx import ir
from pyshim.ptx.analysis import affine as aff
from pyshim.ptx.targets.cpu import guards as g

AHEAD = 2  # blocks
_REG64 = frozenset(("u64", "s64", "b64"))


class _Addresses(aff.AffineValues):
    """analysis/affine.py's values, extended to 64-bit addresses, over a whole body: a
    register defined more than once is unknown everywhere."""

    EVAL_OPCODES = aff.AffineValues.EVAL_OPCODES | {"cvta", "cvt"}

    def __init__(self, k: ir.Function) -> None:
        super().__init__(k, ahead=AHEAD)  # (the values of the block AHEAD along %ctaid.x)
        count: dict[str, int] = {}
        for s in k.body or ():
            if type(s) is ir.Instruction:
                for name in ir.written(s):
                    count[name] = count.get(name, 0) + 1
        self.multi = {r for r, n in count.items() if n > 1}

    def step(self, s: ir.Instruction) -> list[str]:
        written = super().step(s)
        if self.multi:
            for name in written:
                if name in self.multi:
                    self.env[name] = None
        return written

    def _eval(self, s: ir.Instruction):
        ops, mods, code = s.operands, s.mods, s.opcode
        if code == "ld" and mods[:1] == ("param",) and len(mods) == 2 and mods[1] in _REG64:
            return self.param(s, _REG64, "int64_t", 64)
        if code == "cvta" and mods[:2] == ("to", "global"):
            return self.value(ops[1])
        if code == "mov" and mods and mods[-1] in _REG64:
            return self.value(ops[1])
        if code == "cvt" and len(mods) == 2 and mods[0] in _REG64 and mods[1] in aff.INT32:
            return self.value(ops[1])
        if code == "mul" and mods[:1] == ("wide",):
            return aff.mul(self.value(ops[1]), self.value(ops[2]))
        if code == "mad" and mods[:1] == ("wide",):
            return aff.add(aff.mul(self.value(ops[1]), self.value(ops[2])), self.value(ops[3]), 1)
        if code in ("add", "sub") and len(mods) == 1 and mods[0] in _REG64:
            return aff.add(self.value(ops[1]), self.value(ops[2]), -1 if code == "sub" else 1)
        if code == "shl" and mods == ("b64",):
            k = aff.imm32(ops[2])
            if k is not None and 0 <= k < 63:
                return aff.mul(self.value(ops[1]), {"1": 1 << k})
            return None
        return super()._eval(s)


def _width(mods: tuple[str, ...]) -> int:
    vec = next((int(m[1:]) for m in mods if m in ("v2", "v4", "v8")), 1)
    bits = next((int(m[1:]) for m in reversed(mods) if m[:1] in "usbf" and m[1:].isdigit()), 32)
    return vec * max(bits, 8) // 8


def lines(k: ir.Function) -> list[str]:
    """run_block C lines prefetching, for the block AHEAD blocks along %ctaid.x, the
    footprint of every global access of kernel k whose address is affine; [] if none.
    Accesses through one address register share a box, its width from the least offset to
    the greatest (a stencil's in[i - 1], in[i] and in[i + 1])."""
    an = _Addresses(k)
    em = g._Emitter()
    boxes: dict[tuple, list[int]] = {}  # (address, is a store) -> [least, greatest end]
    for s in k.body or ():
        if type(s) is not ir.Instruction:
            continue
        if s.opcode in ("ld", "st") and "global" in s.mods and s.operands:
            addr = s.operands[1 if s.opcode == "ld" else 0]
            if type(addr) is ir.Addr and type(addr.base) is ir.Reg:
                v = an.value(addr.base)
                if v is not None and ("x" in v or "y" in v or "z" in v):
                    key = (tuple(sorted(v.items())), s.opcode == "st")
                    lo, hi = addr.offset, addr.offset + _width(s.mods)
                    got = boxes.setdefault(key, [lo, hi])
                    got[0], got[1] = min(got[0], lo), max(got[1], hi)
        an.step(s)
    if not boxes:
        return []
    out = []
    for (v, write), (lo, hi) in boxes.items():
        d = dict(v)
        base = em.local(d.get("1", 0))
        cx, cy, cz = (aff.c_term(d.get(a, 0)) for a in aff.AXES)
        out.append(f"    ps_prefetch_box((uint64_t)({base} + {lo}), {cx}, {cy}, {cz}, ps_box,"
                   f" {hi - lo}, {int(write)});")
    return ["    {  /* the global memory of this worker's next block but one (cpu_prefetch.py) */",
            "    int ps_ovf = 0; (void)ps_ovf;",
            "    const int64_t ps_box[3] = {(int64_t)c.ntid_x - 1, (int64_t)c.ntid_y - 1,"
            " (int64_t)c.ntid_z - 1};",
            *em.setup, *out, "    }"]
