"""Registers live across the synchronisation points of a phase-mode kernel.

In phase mode (targets/cpu/target.py) a thread returns to the scheduler at every barrier or warp
collective and resumes there later, so its registers live in a per-thread context. Only
those live at a resume point need to: the others can be locals of the phase function, and
gcc then keeps them in machine registers and drops their stores (in a tiled sgemm most
registers are temporaries of one phase). A backward data-flow over the instruction list
and its branches. It is conservative: a register is defined only by the first operand of
the opcodes listed below when the instruction is unguarded; every other mention is a use.
"""

from __future__ import annotations

from pyshim.ptx import ir
from pyshim.ptx.isa.instructions import SYNC_OPCODES

# opcodes whose first operand is written and not read
DEF_FIRST = frozenset((
    "mov", "ld", "ldu", "cvt", "cvta", "add", "sub", "mul", "mad", "fma", "div", "rem", "abs",
    "neg", "min", "max", "and", "or", "xor", "not", "cnot", "shl", "shr", "setp", "selp",
    "set", "slct", "sqrt", "rsqrt", "rcp", "sin", "cos", "lg2", "ex2", "tanh", "popc", "clz",
    "brev", "bfe", "bfi", "prmt", "mul24", "mad24", "sad", "copysign", "testp", "shf", "lop3",
    "atom"))


def _regs(op, out: set[str]) -> None:
    t = type(op)
    if t is ir.Reg:
        if not op.name.startswith("%") or "." not in op.name:  # not %tid.x and friends
            out.add(op.name)
    elif t is ir.Addr:
        _regs(op.base, out)
    elif t in (ir.Vec, ir.Args):
        for x in op.items:
            _regs(x, out)
    elif t is ir.PredPair:
        _regs(op.first, out)
        _regs(op.second, out)
    elif t is ir.Neg:
        _regs(op.reg, out)


def live_at_sync(fn: ir.Function, labels: frozenset[str] = frozenset()) -> set[str] | None:
    """PTX names of the registers live at some resume point (a synchronisation point, or one
    of `labels`: where a region starts in region loops), or None when the body is not
    analysable (indirect branches, scoped register declarations that phase mode renames)."""
    body = fn.body or []
    depth = 0
    for s in body:
        if type(s) is ir.Scope:
            depth += 1 if s.open else -1
        elif type(s) is ir.Var and s.space == "reg" and depth:
            return None
    insts = [s for s in body if type(s) in (ir.Instruction, ir.Label)]
    where = {s.name: i for i, s in enumerate(insts) if type(s) is ir.Label}
    n = len(insts)
    succ: list[list[int]] = []
    use: list[set[str]] = []
    defs: list[set[str]] = []
    for i, s in enumerate(insts):
        u: set[str] = set()
        d: set[str] = set()
        nxt = [i + 1] if i + 1 < n else []
        if type(s) is ir.Instruction:
            if s.opcode == "brx":
                return None
            ops = list(s.operands)
            if s.opcode == "bra":
                t = ops[0] if ops else None
                if not isinstance(t, ir.Sym) or t.name not in where:
                    return None
                nxt = [where[t.name]] + (nxt if s.pred is not None else [])
            elif s.opcode in ("ret", "exit") and s.pred is None:
                nxt = []
            if s.opcode in DEF_FIRST and s.pred is None and ops:
                _regs(ops[0], d)
                ops = ops[1:]
            for o in ops:
                if type(o) is ir.Reg:  # most operands: _regs' first case, without the call
                    name = o.name
                    if not name.startswith("%") or "." not in name:
                        u.add(name)
                elif type(o) is not ir.Imm:
                    _regs(o, u)
            if s.pred is not None:
                u.add(s.pred)
        succ.append(nxt)
        use.append(u)
        defs.append(d)
    # a worklist, seeded last instruction first: straight-line code is then visited once,
    # and a loop again only where its live sets grow (sweeping the whole body until nothing
    # changed took three sweeps of an unrolled loop body of thousands of instructions)
    # predecessors: i - 1 when it falls through to i (not listed), and the branches to i
    # (one list per branch target only: a list per instruction made the collector run)
    jumps_to: dict[int, list[int]] = {}
    for i, nxt in enumerate(succ):
        for j in nxt:
            if j != i + 1:
                jumps_to.setdefault(j, []).append(i)
    live_in: list[set[str] | frozenset[str]] = [frozenset()] * n  # (shared until set)
    work = list(range(n))
    queued = [True] * n
    while work:
        i = work.pop()
        queued[i] = False
        nxt = succ[i]
        if len(nxt) == 1:
            out = live_in[nxt[0]]
        else:
            out = set()
            for j in nxt:
                out |= live_in[j]
        new = use[i] | (out - defs[i]) if defs[i] else use[i] | out
        if new != live_in[i]:
            live_in[i] = new
            if i and i in succ[i - 1] and not queued[i - 1]:
                queued[i - 1] = True
                work.append(i - 1)
            for p in jumps_to.get(i, ()):
                if not queued[p]:
                    queued[p] = True
                    work.append(p)
    live: set[str] = set()
    for i, s in enumerate(insts):
        if type(s) is ir.Instruction and s.opcode in SYNC_OPCODES:
            live |= use[i] | defs[i]          # re-read or written after the resume
            for j in succ[i]:
                live |= live_in[j]
        elif type(s) is ir.Label and s.name in labels:
            live |= live_in[i]
    return live
