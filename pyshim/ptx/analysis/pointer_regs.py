"""Pointer shadows: which 64-bit registers of a function the CPU target also keeps as a
`uint8_t *`, and how each definition updates that shadow.

Why: PTX forms every address as an integer (`add.s64 %rd6, %rd4, %rd5` with %rd4 a
parameter and %rd5 = 4 * index), and a C compiler cannot see a base pointer plus an affine
offset through `(uint8_t *)(uintptr_t)(a + b)`: it emits gathers and scatters, or does not
vectorize the thread loop at all. Spelled `p_rd4 + (int64_t)r_rd5` it is pointer arithmetic
(a GEP), and clang vectorizes the thread loop with contiguous loads and stores.

How it stays exact: a register with a shadow keeps its integer value too (every integer
use reads the register as before; dead integer copies are removed by the compiler), and
every write of the register also writes the shadow, so `p_x == (uint8_t *)r_x` holds
everywhere. Only memory accesses read the shadow. A write is one of:
- `add` of two 64-bit values (no carry, no saturation): the shadow of the base operand plus
  the other one as a signed offset (computed before the integer write, so `add d, d, x` and
  `add d, x, d` read the old values);
- `mad.wide.{s32,u32} d, a, b, c` (nvcc's base + index * size): the shadow of c plus the
  wide product;
- `mov` / `cvta` (not to or from .shared) of a register with a shadow: its shadow;
- anything else: the register's new value cast to a pointer.

Which registers: the base register of every ld/st address outside .shared and .param, and,
transitively, the base operand of each add, mad.wide, mov or cvta defining one of them. The base of an
add is the operand that looks like a pointer (a parameter, a cvta, a 64-bit load, an address
of a variable, or an add or mov of those) rather than an offset (mul.wide, shl, cvt, ...).
"""

from __future__ import annotations

from collections.abc import Generator
from dataclasses import dataclass, field
from typing import Any

from pyshim.ptx import ir

REG64 = frozenset(("u64", "s64", "b64"))
# instructions whose first operand is not a destination register
_NO_DST = frozenset(("st", "red", "bar", "barrier", "bra", "brx", "ret", "exit", "call",
                     "trap", "prefetch", "prefetchu", "membar", "fence", "cp", "nanosleep",
                     "pmevent", "griddepcontrol", "discard", "applypriority", "sust", "sured"))
# definitions that make a register an offset rather than a base
_OFFSET_OPS = frozenset(("mul", "mad", "mul24", "mad24", "shl", "shr", "cvt", "and", "or",
                         "xor", "sub", "neg", "selp", "min", "max"))
_MEMORY_OPS = frozenset(("ld", "ldu", "st"))
_UNSHADOWED_SPACES = frozenset(("shared", "shared::cta", "shared::cluster", "param"))


# the offset a definition adds to its base's shadow: None (a copy), an operand, or the wide
# product (type, a, b) of a mad.wide
Offset = ir.Operand | tuple[str, ir.Operand, ir.Operand] | None


@dataclass(slots=True)
class PointerPlan:
    regs: frozenset[str] = frozenset()   # registers (PTX names) with a pointer shadow
    # id(instruction) -> (destination, base register, offset)
    defs: dict[int, tuple[str, str, Offset]] = field(default_factory=dict)


def _name(op: ir.Operand | None) -> str | None:
    if type(op) is ir.Reg or type(op) is ir.Sym:
        return op.name
    return None


def _declared_reg64(fn: ir.Function) -> set[str]:
    out: set[str] = set()
    for s in fn.body or ():
        if type(s) is ir.Var and s.space == "reg" and s.type in REG64 and s.vector == 1:
            if s.count:
                out.update(f"{s.name}{i}" for i in range(s.count))
            else:
                out.add(s.name)
    return out


def _addr_base(inst: ir.Instruction) -> ir.Operand | None:
    """The address operand of an ld/st outside .shared and .param, else None."""
    if inst.opcode in ("ld", "ldu"):
        pos = 1
    elif inst.opcode == "st":
        pos = 0
    else:
        return None
    if not _UNSHADOWED_SPACES.isdisjoint(inst.mods) or len(inst.operands) <= pos:
        return None
    a = inst.operands[pos]
    return a.base if type(a) is ir.Addr else a


def _copy_source(inst: ir.Instruction, regs: set[str]) -> str | None:
    """The register a mov.64 or a cvta outside .shared copies, else None."""
    if len(inst.operands) != 2:
        return None
    src = _name(inst.operands[1])
    if src is None or src not in regs:
        return None
    if inst.opcode == "mov" and len(inst.mods) == 1 and inst.mods[0] in REG64:
        return src
    if inst.opcode == "cvta" and inst.mods[-1] == "u64" and not any(
            m.startswith("shared") for m in inst.mods):
        return src
    return None


def _add_operands(inst: ir.Instruction, regs: set[str]) -> tuple[ir.Operand, ir.Operand] | None:
    """(a, b) of a plain 64-bit integer add, else None."""
    if inst.opcode != "add":
        return None
    mods, ops = inst.mods, inst.operands
    if len(mods) != 1 or mods[0] not in REG64 or len(ops) != 3:
        return None
    a, b = ops[1], ops[2]
    # each operand a register of `regs` or an immediate, not both immediates (the hot
    # path of an unrolled chain of adds: _name inline)
    ta, tb = type(a), type(b)
    if ta is ir.Imm:
        return (a, b) if (tb is ir.Reg or tb is ir.Sym) and b.name in regs else None
    if not ((ta is ir.Reg or ta is ir.Sym) and a.name in regs):
        return None
    if tb is ir.Imm or (tb is ir.Reg or tb is ir.Sym) and b.name in regs:
        return a, b
    return None


def _mad_wide(inst: ir.Instruction, regs: set[str]) -> tuple[str, str, Offset] | None:
    """(destination, base, (type, a, b)) of mad.wide.{s32,u32} d, a, b, c with c a 64-bit
    register, else None."""
    if inst.opcode != "mad" or len(inst.mods) != 2 or inst.mods[0] != "wide" \
            or inst.mods[1] not in ("s32", "u32") or len(inst.operands) != 4:
        return None
    d, a, b, c = inst.operands
    dn, cn = _name(d), _name(c)
    if dn is None or cn is None or cn not in regs:
        return None
    return dn, cn, (inst.mods[1], a, b)


class _Analysis:
    def __init__(self, fn: ir.Function) -> None:
        self.regs = _declared_reg64(fn)
        self.defs: dict[str, list[ir.Instruction]] = {}
        self.body = [s for s in fn.body or () if type(s) is ir.Instruction]
        regs, defs = self.regs, self.defs
        for inst in self.body:  # (the hot loop: _name inline)
            if inst.opcode in _NO_DST or not inst.operands:
                continue
            d0 = inst.operands[0]
            if type(d0) is ir.Reg or type(d0) is ir.Sym:
                d = d0.name
                if d in regs:
                    got = defs.get(d)
                    if got is None:
                        defs[d] = [inst]
                    else:
                        got.append(inst)
        self._pointer_like: dict[str, bool] = {}
        self._offset_like: dict[str, bool] = {}
        self._settle()

    def _settle(self) -> None:
        """pointer_like of every register whose definitions read only registers already
        answered, in the order of their first definitions: along straight-line code (an
        unrolled body's chains of adds) all of them, without the walk below. Only values
        that do not depend on the order of the walk are recorded: the walk's cycle guard
        makes an answer inside a cycle depend on where it entered, so a register that reads
        one not yet answered (a loop-carried one, or one defined later) is left to it."""
        memo, regs = self._pointer_like, self.regs
        for name, defs in self.defs.items():
            found: bool | None = False
            for inst in defs:
                op = inst.opcode
                if op in ("ld", "ldu") or op == "cvta":
                    found = True
                elif op == "mov" and len(inst.operands) > 1 and type(inst.operands[1]) is ir.Sym \
                        and inst.operands[1].name not in regs:
                    found = True
                elif op == "mov" and len(inst.operands) < 2:
                    found = None  # (malformed: left to the walk, which fails as it does)
                elif (src := _copy_source(inst, regs)) is not None:
                    found = memo.get(src)
                elif (ab := _add_operands(inst, regs)) is not None:
                    a, b = ab
                    if type(a) is ir.Imm:
                        found = memo.get(b.name)  # type: ignore[union-attr]
                    elif type(b) is ir.Imm:
                        found = memo.get(a.name)  # type: ignore[union-attr]
                    else:
                        na, nb = a.name, b.name  # type: ignore[union-attr]
                        pa, pb = memo.get(na), memo.get(nb)
                        if pa is None or pb is None:
                            found = None
                        else:
                            score_b = 2 if pb else 0 if self.offset_like(nb) else 1
                            score_a = 2 if pa else 0 if self.offset_like(na) else 1
                            found = pb if score_b > score_a else pa
                elif (mw := _mad_wide(inst, regs)) is not None:
                    found = memo.get(mw[1])
                if found is None or found:
                    break
            if found is not None:
                memo[name] = found

    # pointer_like and base ask each other about the registers an address is built from;
    # an unrolled loop chains thousands of adds, too deep for Python's recursion limit.
    # So each is a generator that yields the register it needs an answer for, and _run
    # answers them from an explicit stack, in the order (and with the memo and the cycle
    # guard) a recursive walk would.
    def _run(self, steps: Generator[str, bool, Any]) -> Any:
        stack = [steps]
        answer: bool | None = None
        while True:
            try:
                want = stack[-1].send(answer)
            except StopIteration as stop:
                stack.pop()
                if not stack:
                    return stop.value
                answer = stop.value
                continue
            hit = self._pointer_like.get(want)
            if hit is not None:
                answer = hit
            else:
                stack.append(self._pointer_like_steps(want))
                answer = None

    def pointer_like(self, name: str) -> bool:
        """Whether some definition of `name` yields an address rather than an offset."""
        hit = self._pointer_like.get(name)
        if hit is not None:
            return hit
        return bool(self._run(self._pointer_like_steps(name)))

    def _pointer_like_steps(self, name: str) -> Generator[str, bool, bool]:
        self._pointer_like[name] = False  # a cycle through adds proves nothing
        found = False
        for inst in self.defs.get(name, ()):
            op = inst.opcode
            if op in ("ld", "ldu") or op == "cvta":
                found = True
            elif op == "mov" and type(inst.operands[1]) is ir.Sym \
                    and inst.operands[1].name not in self.regs:
                found = True  # the address of a variable
            elif (src := _copy_source(inst, self.regs)) is not None:
                found = yield src
            elif (ab := _add_operands(inst, self.regs)) is not None:
                base = yield from self._base_steps(ab)
                found = yield base[0]
            elif (mw := _mad_wide(inst, self.regs)) is not None:
                found = yield mw[1]
            if found:
                break
        self._pointer_like[name] = found
        return found

    def offset_like(self, name: str) -> bool:
        hit = self._offset_like.get(name)
        if hit is None:  # (memoised: asked per add of an unrolled chain, of a register
            #              that may have hundreds of definitions)
            defs = self.defs.get(name, ())
            hit = self._offset_like[name] = bool(defs) and all(
                i.opcode in _OFFSET_OPS for i in defs)
        return hit

    def base(self, ab: tuple[ir.Operand, ir.Operand]) -> tuple[str, ir.Operand]:
        """(base register, offset operand) of an add's two operands."""
        a, b = ab
        if type(a) is not ir.Imm and type(b) is not ir.Imm:
            # both operands already answered (the common case along an unrolled chain of
            # adds): _base_steps' result without starting its generators
            na, nb = _name(a) or "", _name(b) or ""
            pb, pa = self._pointer_like.get(nb), self._pointer_like.get(na)
            if pb is not None and pa is not None:
                score_b = 2 if pb else 0 if self.offset_like(nb) else 1
                score_a = 2 if pa else 0 if self.offset_like(na) else 1
                return (nb, a) if score_b > score_a else (na, b)
        return self._run(self._base_steps(ab))

    def _base_steps(self, ab: tuple[ir.Operand, ir.Operand]
                    ) -> Generator[str, bool, tuple[str, ir.Operand]]:
        a, b = ab
        if type(a) is ir.Imm:
            return _name(b) or "", a
        if type(b) is ir.Imm:
            return _name(a) or "", b
        na, nb = _name(a) or "", _name(b) or ""

        def score(n: str) -> Generator[str, bool, int]:
            if (yield n):
                return 2
            return 0 if self.offset_like(n) else 1

        score_b = yield from score(nb)
        score_a = yield from score(na)
        return (nb, a) if score_b > score_a else (na, b)


def plan(fn: ir.Function) -> PointerPlan:
    an = _Analysis(fn)
    if not an.regs:
        return PointerPlan()
    marked: set[str] = set()
    work = []
    for inst in an.body:
        if inst.opcode not in _MEMORY_OPS:
            continue  # (_addr_base's first test, without the calls)
        n = _name(_addr_base(inst))
        if n in an.regs and n not in marked:
            marked.add(n)
            work.append(n)
    defs: dict[int, tuple[str, str, Offset]] = {}
    while work:
        name = work.pop()
        for inst in an.defs.get(name, ()):
            if id(inst) in defs:
                continue
            src = _copy_source(inst, an.regs)
            if src is not None:
                defs[id(inst)] = (name, src, None)
                base = src
            elif (ab := _add_operands(inst, an.regs)) is not None:
                base, off = an.base(ab)
                defs[id(inst)] = (name, base, off)
            elif (mw := _mad_wide(inst, an.regs)) is not None:
                base = mw[1]
                defs[id(inst)] = (name, base, mw[2])
            else:
                continue
            if base not in marked:
                marked.add(base)
                work.append(base)
    return PointerPlan(frozenset(marked), defs)
