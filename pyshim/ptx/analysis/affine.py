"""Values affine in the thread index, over a kernel body (the IR, not its C).

A register is tracked as c + cx * %tid.x + cy * %tid.y + cz * %tid.z with c and the
coefficients uniform over the block: Python ints where known here, else C expressions of
type int64_t over the block's launch context (`c.ctaid_x`, a parameter in the block's
parameter buffer `ps_pb`), whose arithmetic notes overflow in `ps_ovf`. The CPU device's
guard versioning (targets/cpu/guards.py) and prefetching (targets/cpu/prefetch.py, which
extends the analysis to 64-bit addresses, for a block further along %ctaid.x) read these.
What the C of a term needs is said here, where it is made, so no reader searches it: its
magnitude (_BITS), its sign (_NONNEG), whether it goes through the overflow-noting helpers
(overflows: then the block's setup declares `ps_ovf`).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from pyshim.ptx import ir
from pyshim.ptx.isa.instructions import CMP_AS_SIGNED, INT32, INT_CMP, UNSIGNED_CMP
from pyshim.ptx.layout import param_layout

AXES = ("x", "y", "z")
SPECIAL_TERMS = {f"%{w}.{a}": f"(int64_t)c.{w}_{a}" for w in ("ctaid", "ntid", "nctaid")
                 for a in AXES}


def block_terms(ahead: int = 0) -> dict[str, str]:
    """The special registers' terms for the block `ahead` blocks further along %ctaid.x
    (prefetch.py): its %ctaid.x spelled as such, bounded as %ctaid.x itself (a prefetch's
    address is a hint, never a fault), the others as SPECIAL_TERMS."""
    if not ahead:
        return SPECIAL_TERMS
    x = term(f"({SPECIAL_TERMS['%ctaid.x']} + {ahead})", _BITS[SPECIAL_TERMS["%ctaid.x"]],
             True)
    return {**SPECIAL_TERMS, "%ctaid.x": x}


# terms that are exact 32-bit values as they stand: the geometry (below 2^31) and signed
# 32-bit parameters (added as AffineValues.param makes them)
_EXACT_U31: set[str] = set(SPECIAL_TERMS.values())
_EXACT_S32: set[str] = set(SPECIAL_TERMS.values())
# setp comparison -> (the C-level comparison, unsigned)
_CMP = {op: (CMP_AS_SIGNED.get(op, op), op in UNSIGNED_CMP) for op in INT_CMP}


def exact32(t: str, unsigned: bool) -> bool:
    """Whether C term `t`'s value is exact as a 32-bit value (unsigned: below 2^31)."""
    return t in (_EXACT_U31 if unsigned else _EXACT_S32)


# "1" (the uniform part) and axes -> a Python int (known here) or a C expression of type
# int64_t (known per block; its arithmetic sets ps_ovf on overflow, and then the block
# runs the full body)
Term = int | str
Affine = dict[str, Term]


@dataclass(frozen=True, slots=True)
class Cmp:
    op: str          # lt le gt ge eq ne
    a: tuple         # Affine items, hashable
    b: tuple
    unsigned: bool


@dataclass(frozen=True, slots=True)
class Logic:
    op: str          # or and not
    args: tuple


def imm32(op: ir.Operand) -> int | None:
    if type(op) is ir.Imm and op.kind == "int" and not op.bits:
        v = int(op.value) & 0xFFFFFFFF
        return v - (1 << 32) if v >= 1 << 31 else v
    return None


class AffineValues:
    # the opcodes _eval reads (a subclass that reads more adds them): for any other, step
    # skips the call, which would try each of its tests to return None
    EVAL_OPCODES = frozenset(("ld", "mov", "add", "sub", "mul", "mad", "shl", "setp", "or",
                              "and", "not"))

    def __init__(self, k: ir.Function, ahead: int = 0) -> None:
        layout, _ = param_layout(k.params)
        self.params = {p.name: (off, p.type) for p, (off, _s, _a)
                       in zip(k.params, layout, strict=True)}
        self.env: dict[str, Affine | Cmp | Logic | None] = {}
        # the block whose values these are: this one, or `ahead` along %ctaid.x
        self.specials = block_terms(ahead)

    def value(self, op: ir.Operand) -> Affine | None:
        if type(op) is not ir.Reg:
            v = imm32(op)
            return {"1": v} if v is not None else None
        name = op.name
        special = self.specials.get(name)
        if special is not None:
            return {"1": special}
        if name.startswith("%tid."):
            return {name[-1]: 1}
        got = self.env.get(name)
        return got if type(got) is dict else None

    def pred(self, op: ir.Operand) -> Cmp | Logic | None:
        if type(op) is ir.Reg:
            got = self.env.get(op.name)
            return got if isinstance(got, (Cmp, Logic)) else None
        if type(op) is ir.Neg:
            p = self.pred(op.reg)
            return Logic("not", (p,)) if p is not None else None
        return None

    def step(self, s: ir.Instruction) -> list[str]:
        """Steps over `s`; returns the registers it writes (ir.written)."""
        dst = s.operands[0] if s.operands else None
        result = None
        # (of loads, _eval reads only ld.param: any other is unknown, without the call)
        if (s.pred is None and type(dst) is ir.Reg and s.opcode in self.EVAL_OPCODES
                and (s.opcode != "ld" or s.mods[:1] == ("param",))):
            try:
                result = self._eval(s)
            except (KeyError, ValueError, IndexError):
                result = None
        written = ir.written(s)
        for name in written:  # whatever the instruction writes is now unknown
            self.env[name] = None
        if result is not None:  # or this
            self.env[dst.name] = result
        return written

    def param(self, s: ir.Instruction, types: frozenset[str], ctype: str,
              bits: int) -> Affine | None:
        """A kernel parameter of one of `types` loaded by `ld.param s`, read from the block's
        parameter buffer as `ctype`."""
        a = s.operands[1]
        if type(a) is ir.Addr and type(a.base) is ir.Sym and a.base.name in self.params:
            off, ptype = self.params[a.base.name]
            if ptype in types:
                t = term(f"(int64_t)*(const {ctype} *)(ps_pb + {off + a.offset})", bits,
                         False)
                if ctype == "int32_t" and off + a.offset >= 0:
                    _EXACT_S32.add(t)
                return {"1": t}
        return None

    def _eval(self, s: ir.Instruction) -> Affine | Cmp | Logic | None:
        ops, mods, code = s.operands, s.mods, s.opcode
        if code == "ld" and mods[:1] == ("param",) and len(mods) == 2 and mods[1] in INT32:
            return self.param(s, INT32, "int32_t", 32)
        if code == "mov" and mods and mods[-1] in INT32:
            return self.value(ops[1])
        if code in ("add", "sub") and mods and mods[-1] in INT32 and len(mods) == 1:
            a, b = self.value(ops[1]), self.value(ops[2])
            return add(a, b, -1 if code == "sub" else 1)
        if code == "mul" and mods[:1] == ("lo",) and mods[-1] in INT32:
            return mul(self.value(ops[1]), self.value(ops[2]))
        if code == "mad" and mods[:1] == ("lo",) and mods[-1] in INT32:
            return add(mul(self.value(ops[1]), self.value(ops[2])), self.value(ops[3]), 1)
        if code == "shl" and mods == ("b32",):
            k = imm32(ops[2])
            if k is not None and 0 <= k < 31:
                return mul(self.value(ops[1]), {"1": 1 << k})
            return None
        if code == "setp" and len(mods) == 2 and mods[0] in _CMP and mods[1] in ("s32", "u32"):
            a, b = self.value(ops[1]), self.value(ops[2])
            if a is None or b is None:
                return None
            op, unsigned = _CMP[mods[0]]
            return Cmp(op, tuple(sorted(a.items())), tuple(sorted(b.items())),
                       unsigned or mods[1] == "u32" and op not in ("eq", "ne"))
        if code in ("or", "and") and mods == ("pred",):
            p, q = self.pred(ops[1]), self.pred(ops[2])
            return Logic(code, (p, q)) if p is not None and q is not None else None
        if code == "not" and mods == ("pred",):
            p = self.pred(ops[1])
            return Logic("not", (p,)) if p is not None else None
        return None


# magnitude bounds (bits) of the uniform values, so that the block's check is plain 64-bit
# arithmetic wherever it cannot overflow: a block has at most 1024 threads (launch.c), a grid
# fewer than 2^31 blocks per dimension, a parameter is 32 bits; nonnegative values too
_BITS: dict[str, int] = {**{f"(int64_t)c.{w}_{a}": b for w, b in (("ctaid", 31), ("ntid", 11),
                                                                  ("nctaid", 31))
                            for a in AXES}, **{f"ps_box[{i}]": 11 for i in range(3)}}
_NONNEG: set[str] = set(_BITS)
_WIDE = 62  # past this many bits a sum or product goes through the overflow-noting helpers
# the terms whose C goes through those helpers (ps_cadd, ps_cmul: they write ps_ovf)
_OVF: set[str] = set()


def _bits(t: Term) -> int:
    return abs(t).bit_length() if isinstance(t, int) else _BITS.get(t, 64)


def nonneg(t: Term) -> bool:
    return t >= 0 if isinstance(t, int) else t in _NONNEG


def c_term(t: Term) -> str:
    return f"(int64_t){t}" if isinstance(t, int) else t


def overflows(t: Term) -> bool:
    """Whether term t's C notes overflow in `ps_ovf` (the block's setup then declares it)."""
    return not isinstance(t, int) and t in _OVF


def term(expr: str, bits: int, nonneg: bool, ovf: bool = False) -> str:
    _BITS[expr] = min(bits, 64)
    if nonneg:
        _NONNEG.add(expr)
    if ovf:
        _OVF.add(expr)
    return expr


def opaque(expr: str, *parts: Term) -> str:
    """C term `expr`, built from `parts` by C its caller writes (a conditional): of no
    known magnitude or sign, noting overflow where one of its parts does."""
    if any(overflows(t) for t in parts):
        _OVF.add(expr)
    return expr


def tadd(a: Term, b: Term) -> Term:
    if isinstance(a, int) and isinstance(b, int):
        return a + b
    if a == 0 or b == 0:
        return b if a == 0 else a
    bits = max(_bits(a), _bits(b)) + 1
    wide = bits > _WIDE
    expr = f"ps_cadd({c_term(a)}, {c_term(b)}, &ps_ovf)" if wide else f"({c_term(a)} + {c_term(b)})"
    return term(expr, bits, nonneg(a) and nonneg(b), wide or overflows(a) or overflows(b))


def tmul(a: Term, b: Term) -> Term:
    if isinstance(a, int) and isinstance(b, int):
        return a * b
    if a == 0 or b == 0:
        return 0
    if a == 1 or b == 1:
        return b if a == 1 else a
    bits = _bits(a) + _bits(b)
    wide = bits > _WIDE
    expr = f"ps_cmul({c_term(a)}, {c_term(b)}, &ps_ovf)" if wide else f"({c_term(a)} * {c_term(b)})"
    return term(expr, bits, nonneg(a) and nonneg(b), wide or overflows(a) or overflows(b))


def add(a: Affine | None, b: Affine | None, sign: int) -> Affine | None:
    if a is None or b is None:
        return None
    out = dict(a)
    for key, v in b.items():
        out[key] = tadd(out.get(key, 0), v if sign > 0 else tmul(v, -1))
    return {key: v for key, v in out.items() if v != 0}


def mul(a: Affine | None, b: Affine | None) -> Affine | None:
    if a is None or b is None:
        return None
    if set(b) - {"1"}:
        a, b = b, a
    if set(b) - {"1"}:
        return None  # a product of two thread-dependent values: not affine
    k = b.get("1", 0)
    return {key: t for key, v in a.items() if (t := tmul(v, k)) != 0}


def opening(body: list, an: AffineValues) -> Iterator[ir.Instruction]:
    """The branches of the straight-line opening of `body` (before its first label, up to a
    ret, exit, brx or call), in order, with `an` stepped through every other instruction
    before each."""
    for s in body:
        if type(s) is ir.Label:
            return
        if type(s) is not ir.Instruction:
            continue
        if s.opcode in ("ret", "exit", "brx", "call"):
            return
        if s.opcode == "bra":
            yield s
        else:
            an.step(s)
