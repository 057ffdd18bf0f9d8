"""Guard versioning for the CPU device's thread loops: an unmasked copy of a kernel body for
blocks where no thread takes the guards it opens with.

Why: most kernels open with guards on the thread's position (`if (i >= n) return;`, a
stencil's `if (x == 0 || x == w - 1 ...)`). Vectorized over a block's threads, every guard
is computed per thread and becomes a mask on each later load and store: saxpy 5.6 -> 4.3 ms
and stencil 5.5 -> 4.1 ms without them. Almost every block is interior, none of its threads
takes those branches, and that can be decided once per block.

How: in the straight-line opening of the kernel (before its first label), registers that
are affine in the thread index are tracked as c + cx * %tid.x + cy * %tid.y + cz * %tid.z,
with c and the coefficients uniform over the block (parameters, %ctaid, %ntid, constants):
`mad.lo i, %ctaid.x, %ntid.x, %tid.x` is (ctaid * ntid) + 1 * tid.x. A comparison of two such
values is false for every thread of the block when the difference's range over the block's
box of thread indices (its corners) lies on the other side of zero, and the compared values
are exact (their ranges fit the 32-bit type, so the wrapping arithmetic the kernel does
gives the same values). or/and/not combine those facts. Each branch of the opening whose
predicate is decided this way is left out of the fast copy, which a block runs when every
such condition holds, at the cost of a few integer operations per block. Everything else,
and a block at an edge, runs the full body.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

from pyshim.ptx import ir
from pyshim.ptx.function import cname_label, cname_reg
from pyshim.ptx.instructions import CMP_AS_SIGNED, INT_CMP, NEGATE_CMP, UNSIGNED_CMP
from pyshim.ptx.layout import param_layout

AXES = ("x", "y", "z")
_LABEL_LINE = re.compile(r"^\s*L_[\w$]+: ;", re.M)
_INT32 = frozenset(("s32", "u32", "b32"))
_SPECIAL = {f"%{w}.{a}": f"(int64_t)c.{w}_{a}" for w in ("ctaid", "ntid", "nctaid")
            for a in AXES}
# values that are exact 32-bit values as they stand: the geometry (below 2^31) and signed
# 32-bit parameters
_EXACT_S32 = re.compile(r"^\(int64_t\)(c\.\w+|\*\(const int32_t \*\)\(ps_pb \+ \d+\))$")
_EXACT_U31 = re.compile(r"^\(int64_t\)c\.\w+$")
# setp comparison -> (the C-level comparison, unsigned)
_CMP = {op: (CMP_AS_SIGNED.get(op, op), op in UNSIGNED_CMP) for op in INT_CMP}
# a body longer than this is not copied (the copy doubles the kernel's compile time)
MAX_LINES = 600

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


@dataclass(slots=True)
class Plan:
    branches: list[tuple[str, bool, str]]  # (predicate C name, negated, label C name)
    setup: list[str]                        # C statements in run_block, then
    condition: str                          # C: no thread takes any of them


def _imm(op: ir.Operand) -> int | None:
    if type(op) is ir.Imm and op.kind == "int" and not op.bits:
        v = int(op.value) & 0xFFFFFFFF
        return v - (1 << 32) if v >= 1 << 31 else v
    return None


class _Analysis:
    def __init__(self, k: ir.Function) -> None:
        layout, _ = param_layout(k.params)
        self.params = {p.name: (off, p.type) for p, (off, _s, _a)
                       in zip(k.params, layout, strict=True)}
        self.env: dict[str, Affine | Cmp | Logic | None] = {}

    def value(self, op: ir.Operand) -> Affine | None:
        v = _imm(op)
        if v is not None:
            return {"1": v}
        if type(op) is not ir.Reg:
            return None
        if op.name in _SPECIAL:
            return {"1": _SPECIAL[op.name]}
        if op.name.startswith("%tid."):
            return {op.name[-1]: 1}
        got = self.env.get(op.name)
        return got if isinstance(got, dict) else None

    def pred(self, op: ir.Operand) -> Cmp | Logic | None:
        if type(op) is ir.Reg:
            got = self.env.get(op.name)
            return got if isinstance(got, (Cmp, Logic)) else None
        if type(op) is ir.Neg:
            p = self.pred(op.reg)
            return Logic("not", (p,)) if p is not None else None
        return None

    def step(self, s: ir.Instruction) -> None:
        dst = s.operands[0] if s.operands else None
        result = None
        if s.pred is None and type(dst) is ir.Reg:
            try:
                result = self._eval(s)
            except (KeyError, ValueError, IndexError):
                result = None
        for name in ir.written(s):  # whatever the instruction writes is now unknown
            self.env[name] = None
        if result is not None:  # or this
            self.env[dst.name] = result

    def param(self, s: ir.Instruction, types: frozenset[str], ctype: str,
              bits: int) -> Affine | None:
        """A kernel parameter of one of `types` loaded by `ld.param s`, read from the block's
        parameter buffer as `ctype`."""
        a = s.operands[1]
        if type(a) is ir.Addr and type(a.base) is ir.Sym and a.base.name in self.params:
            off, ptype = self.params[a.base.name]
            if ptype in types:
                return {"1": _term(f"(int64_t)*(const {ctype} *)(ps_pb + {off + a.offset})",
                                   bits, False)}
        return None

    def _eval(self, s: ir.Instruction) -> Affine | Cmp | Logic | None:
        ops, mods, code = s.operands, s.mods, s.opcode
        if code == "ld" and mods[:1] == ("param",) and len(mods) == 2 and mods[1] in _INT32:
            return self.param(s, _INT32, "int32_t", 32)
        if code == "mov" and mods and mods[-1] in _INT32:
            return self.value(ops[1])
        if code in ("add", "sub") and mods and mods[-1] in _INT32 and len(mods) == 1:
            a, b = self.value(ops[1]), self.value(ops[2])
            return _add(a, b, -1 if code == "sub" else 1)
        if code == "mul" and mods[:1] == ("lo",) and mods[-1] in _INT32:
            return _mul(self.value(ops[1]), self.value(ops[2]))
        if code == "mad" and mods[:1] == ("lo",) and mods[-1] in _INT32:
            return _add(_mul(self.value(ops[1]), self.value(ops[2])), self.value(ops[3]), 1)
        if code == "shl" and mods == ("b32",):
            k = _imm(ops[2])
            if k is not None and 0 <= k < 31:
                return _mul(self.value(ops[1]), {"1": 1 << k})
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


def _bits(t: Term) -> int:
    return abs(t).bit_length() if isinstance(t, int) else _BITS.get(t, 64)


def _nonneg(t: Term) -> bool:
    return t >= 0 if isinstance(t, int) else t in _NONNEG


def _c(t: Term) -> str:
    return f"(int64_t){t}" if isinstance(t, int) else t


def _term(expr: str, bits: int, nonneg: bool) -> str:
    _BITS[expr] = min(bits, 64)
    if nonneg:
        _NONNEG.add(expr)
    return expr


def _tadd(a: Term, b: Term) -> Term:
    if isinstance(a, int) and isinstance(b, int):
        return a + b
    if a == 0 or b == 0:
        return b if a == 0 else a
    bits = max(_bits(a), _bits(b)) + 1
    expr = f"({_c(a)} + {_c(b)})" if bits <= _WIDE else f"ps_cadd({_c(a)}, {_c(b)}, &ps_ovf)"
    return _term(expr, bits, _nonneg(a) and _nonneg(b))


def _tmul(a: Term, b: Term) -> Term:
    if isinstance(a, int) and isinstance(b, int):
        return a * b
    if a == 0 or b == 0:
        return 0
    if a == 1 or b == 1:
        return b if a == 1 else a
    bits = _bits(a) + _bits(b)
    expr = f"({_c(a)} * {_c(b)})" if bits <= _WIDE else f"ps_cmul({_c(a)}, {_c(b)}, &ps_ovf)"
    return _term(expr, bits, _nonneg(a) and _nonneg(b))


def _add(a: Affine | None, b: Affine | None, sign: int) -> Affine | None:
    if a is None or b is None:
        return None
    out = dict(a)
    for key, v in b.items():
        out[key] = _tadd(out.get(key, 0), v if sign > 0 else _tmul(v, -1))
    return {key: v for key, v in out.items() if v != 0}


def _mul(a: Affine | None, b: Affine | None) -> Affine | None:
    if a is None or b is None:
        return None
    if set(b) - {"1"}:
        a, b = b, a
    if set(b) - {"1"}:
        return None  # a product of two thread-dependent values: not affine
    k = b.get("1", 0)
    return {key: t for key, v in a.items() if (t := _tmul(v, k)) != 0}


class _Emitter:
    """The block-level C of a plan: each range computed once, into a local."""

    def __init__(self) -> None:
        self.setup: list[str] = []
        self.names: dict[str, str] = {}

    def local(self, expr: str) -> str:
        if expr not in self.names:
            self.names[expr] = f"ps_g{len(self.names)}"
            self.setup.append(f"    const int64_t {self.names[expr]} = {expr};")
        return self.names[expr]

    def range(self, a: tuple) -> tuple[str, str]:
        """The least and greatest value of affine `a` over the block's threads."""
        d = dict(a)
        lo: Term = d.get("1", 0)
        hi: Term = lo
        for i, axis in enumerate(AXES):
            k = d.get(axis, 0)
            if isinstance(k, int):
                if k < 0:
                    lo = _tadd(lo, _tmul(k, f"ps_box[{i}]"))
                elif k > 0:
                    hi = _tadd(hi, _tmul(k, f"ps_box[{i}]"))
            else:
                lo = _tadd(lo, f"({k} < 0 ? {_tmul(k, f'ps_box[{i}]')} : 0)")
                hi = _tadd(hi, f"({k} > 0 ? {_tmul(k, f'ps_box[{i}]')} : 0)")
        lo_c, hi_c = _c(lo), _c(hi)
        lo_c = lo_c if isinstance(lo, int) or lo in _SPECIAL.values() else self.local(lo_c)
        hi_c = hi_c if isinstance(hi, int) or hi in _SPECIAL.values() else self.local(hi_c)
        return lo_c, hi_c

    def exact(self, a: tuple, unsigned: bool) -> str | None:
        """C: the 32-bit value of affine `a` is its exact value for every thread (the
        compare then compares exact values); None when that always holds."""
        d = dict(a)
        if set(d) <= {"1"}:
            v = d.get("1", 0)
            if isinstance(v, int):
                if (0 <= v <= 2**31 - 1) if unsigned else (-2**31 <= v <= 2**31 - 1):
                    return None
            elif (_EXACT_U31 if unsigned else _EXACT_S32).match(v):
                return None
        lo, hi = self.range(a)
        if all(_nonneg(t) for t in d.values()):
            return f"{hi} <= INT32_MAX"
        return f"ps_aff_u31({lo}, {hi})" if unsigned else f"ps_aff_s32({lo}, {hi})"

    def never(self, p: Cmp | Logic, value: bool) -> str:
        """C condition: predicate p is `value` for no thread of the block."""
        if type(p) is Logic:
            if p.op == "not":
                return self.never(p.args[0], not value)
            left, right = (self.never(q, value) for q in p.args)
            both = (p.op == "or") == value  # never true of an or: never true of either
            return f"({left} {'&&' if both else '||'} {right})"
        op = p.op if value else NEGATE_CMP[p.op]
        diff = _add(dict(p.a), dict(p.b), -1)
        lo, hi = self.range(tuple(sorted(diff.items())))
        never = {"lt": f"{lo} >= 0", "le": f"{lo} > 0", "gt": f"{hi} <= 0", "ge": f"{hi} < 0",
                 "eq": f"({lo} > 0 || {hi} < 0)", "ne": f"({lo} == 0 && {hi} == 0)"}[op]
        checks = [x for x in (self.exact(p.a, p.unsigned), self.exact(p.b, p.unsigned)) if x]
        return "(" + " && ".join(checks + [never]) + ")"


def _opening(body: list, an: _Analysis) -> Iterator[ir.Instruction]:
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


def plan(k: ir.Function) -> Plan | None:
    """The opening guards of thread-loop kernel k that a whole block can be shown not to
    take, or None."""
    body = k.body or []
    last = -1  # the opening's last branch: nothing after it matters
    for j, s in enumerate(body):
        if type(s) is ir.Label:
            break
        if type(s) is ir.Instruction and s.opcode == "bra":
            last = j
    if last < 0:
        return None
    an = _Analysis(k)
    em = _Emitter()
    branches, conds = [], ["!ps_ovf"]
    for s in _opening(body[:last + 1], an):
        if s.pred is None or not s.operands or type(s.operands[0]) is not ir.Sym:
            break
        p = an.env.get(s.pred)
        if isinstance(p, (Cmp, Logic)):
            branches.append((cname_reg(s.pred), s.pred_neg, cname_label(s.operands[0].name)))
            conds.append(em.never(p, not s.pred_neg))  # (after the setup it needs)
    if not branches:
        return None
    setup = ["    int ps_ovf = 0;", *em.setup]
    if not any("ps_ovf" in x for x in em.setup):
        setup, conds = setup[1:], conds[1:]
    return Plan(branches, setup, " && ".join(conds))


def fast_body(body: str, p: Plan) -> str | None:
    """`body` without the branches of plan p (the text lines the translator emitted for
    them, in order, before the first label), or None if they are not all found."""
    label = _LABEL_LINE.search(body)
    end = label.start() if label else len(body)
    out, at = [], 0
    for pred, neg, name in p.branches:
        want = f"if ({'!' if neg else ''}{pred}) {{ goto {name}; }}"
        i = body.find(want, at, end)
        if i < 0:
            return None
        out.append(body[at:i])
        at = i + len(want)
    if body.count("\n") > MAX_LINES:
        return None
    return "".join(out) + body[at:]


@dataclass(slots=True)
class BranchGuards:
    setup: list[str]                      # C statements in run_block, then
    never: dict[tuple[str, bool], str]    # (predicate C name, negated) -> C: no thread of
    #                                       the block takes a branch on it


def branch_guards(k: ir.Function) -> BranchGuards | None:
    """For region loops: the branches anywhere in kernel k on a predicate defined once, in
    the straight-line opening, as a comparison of values affine in the thread index (nvcc's
    `i < n` tested again around a kernel's last store), with the C condition that no thread
    of the block takes each; None if there are none."""
    body = k.body or []
    count: dict[str, int] = {}
    for s in body:
        if type(s) is ir.Instruction:
            for name in ir.written(s):
                count[name] = count.get(name, 0) + 1
    an = _Analysis(k)
    for _ in _opening(body, an):
        pass
    em = _Emitter()
    never: dict[tuple[str, bool], str] = {}
    for s in body:
        if (type(s) is ir.Instruction and s.opcode == "bra" and s.pred is not None
                and count.get(s.pred) == 1):
            p = an.env.get(s.pred)
            key = (cname_reg(s.pred), s.pred_neg)
            if isinstance(p, (Cmp, Logic)) and key not in never:
                never[key] = em.never(p, not s.pred_neg)
    if not never:
        return None
    setup = ["    int ps_ovf = 0;", *em.setup]
    if any("ps_ovf" in x for x in em.setup):
        never = {key: f"(!ps_ovf && {c})" for key, c in never.items()}
    else:
        setup = setup[1:]
    return BranchGuards(setup, never)
