"""Guard versioning for the CPU device's thread loops: an unmasked copy of a kernel body for
blocks where no thread takes the guards it opens with.

Why: most kernels open with guards on the thread's position (`if (i >= n) return;`, a
stencil's `if (x == 0 || x == w - 1 ...)`). Vectorized over a block's threads, every guard
is computed per thread and becomes a mask on each later load and store (saxpy and stencil
are a quarter faster without them: benchmarks/README.md). Almost every block is interior,
none of its threads takes those branches, and that can be decided once per block.

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

from dataclasses import dataclass

from pyshim.ptx import ir
from pyshim.ptx.analysis.affine import (
    AXES,
    SPECIAL_TERMS,
    AffineValues,
    Cmp,
    Logic,
    Term,
    add,
    c_term,
    exact32,
    nonneg,
    opaque,
    opening,
    overflows,
    tadd,
    tmul,
)
from pyshim.ptx.isa.emitter import cname_label, cname_reg
from pyshim.ptx.isa.instructions import NEGATE_CMP
from pyshim.ptx.isa.records import BRANCH, LABEL, Record

# a body longer than this is not copied (the copy doubles the kernel's compile time)
MAX_LINES = 600


@dataclass(slots=True)
class Plan:
    branches: list[tuple[str, bool, str, int]]  # (predicate C name, negated, label C name,
    #                                             the branch's site)
    setup: list[str]                        # C statements in run_block, then
    condition: str                          # C: no thread takes any of them


class _Emitter:
    """The block-level C of a plan: each range computed once, into a local."""

    def __init__(self) -> None:
        self.setup: list[str] = []
        self.names: dict[str, str] = {}
        self.overflow = False  # whether the setup notes overflow (declares ps_ovf first)

    def local(self, t: Term) -> str:
        """A local holding term t's value (analysis/affine.py)."""
        expr = c_term(t)
        if expr not in self.names:
            self.names[expr] = f"ps_g{len(self.names)}"
            self.setup.append(f"    const int64_t {self.names[expr]} = {expr};")
            self.overflow = self.overflow or overflows(t)
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
                    lo = tadd(lo, tmul(k, f"ps_box[{i}]"))
                elif k > 0:
                    hi = tadd(hi, tmul(k, f"ps_box[{i}]"))
            else:
                kb = tmul(k, f"ps_box[{i}]")
                lo = tadd(lo, opaque(f"({k} < 0 ? {kb} : 0)", k, kb))
                hi = tadd(hi, opaque(f"({k} > 0 ? {kb} : 0)", k, kb))
        lo_c = c_term(lo) if isinstance(lo, int) or lo in SPECIAL_TERMS.values() else self.local(lo)
        hi_c = c_term(hi) if isinstance(hi, int) or hi in SPECIAL_TERMS.values() else self.local(hi)
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
            elif exact32(v, unsigned):
                return None
        lo, hi = self.range(a)
        if all(nonneg(t) for t in d.values()):
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
        diff = add(dict(p.a), dict(p.b), -1)
        lo, hi = self.range(tuple(sorted(diff.items())))
        never = {"lt": f"{lo} >= 0", "le": f"{lo} > 0", "gt": f"{hi} <= 0", "ge": f"{hi} < 0",
                 "eq": f"({lo} > 0 || {hi} < 0)", "ne": f"({lo} == 0 && {hi} == 0)"}[op]
        checks = [x for x in (self.exact(p.a, p.unsigned), self.exact(p.b, p.unsigned)) if x]
        return "(" + " && ".join(checks + [never]) + ")"


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
    an = AffineValues(k)
    em = _Emitter()
    branches, conds = [], ["!ps_ovf"]
    for s in opening(body[:last + 1], an):
        if s.pred is None or not s.operands or type(s.operands[0]) is not ir.Sym:
            break
        p = an.env.get(s.pred)
        if isinstance(p, (Cmp, Logic)):
            branches.append((cname_reg(s.pred), s.pred_neg, cname_label(s.operands[0].name),
                             s.site))
            conds.append(em.never(p, not s.pred_neg))  # (after the setup it needs)
    if not branches:
        return None
    setup = ["    int ps_ovf = 0;", *em.setup]
    if not em.overflow:
        setup, conds = setup[1:], conds[1:]
    return Plan(branches, setup, " && ".join(conds))


def fast_body(recs: list[Record], body: str, p: Plan) -> str | None:
    """The body (its records `recs`, joined: `body`) without the branches of plan p, which
    are in the opening (before the first label); None if one of them is not there as a
    branch guarded by the predicate the plan names (Record.cond: one renamed in a scope
    spells another)."""
    if body.count("\n") > MAX_LINES:  # (its size: the copy doubles its compile time)
        return None
    want = {site: (pred, neg) for pred, neg, _name, site in p.branches}
    out, opening = [], True
    for r in recs:
        opening = opening and r.kind != LABEL
        if opening and r.site in want:
            if r.kind != BRANCH or r.cond != want.pop(r.site):
                return None
            out.append("")
        else:
            out.append(r.template)
    return None if want else "\n".join(out)


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
    an = AffineValues(k)
    for _ in opening(body, an):
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
    if em.overflow:
        never = {key: f"(!ps_ovf && {c})" for key, c in never.items()}
    else:
        setup = setup[1:]
    return BranchGuards(setup, never)
