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
    # over basic blocks (a label starts one, a branch or return ends one): the data-flow
    # sets are per block, so an unrolled loop body of thousands of instructions costs one
    # pass over its operands rather than a live set copied per instruction
    starts = [i for i in range(n) if i == 0 or type(insts[i]) is ir.Label
              or succ[i - 1] != [i]]
    block_at = {i: b for b, i in enumerate(starts)}
    nb = len(starts)
    ends = starts[1:] + [n]
    bsucc = [[block_at[j] for j in succ[ends[b] - 1]] for b in range(nb)]
    gen: list[set[str]] = []
    kill: list[set[str]] = []
    for b in range(nb):
        g: set[str] = set()
        k: set[str] = set()
        for i in range(ends[b] - 1, starts[b] - 1, -1):
            if defs[i]:
                g -= defs[i]
                k |= defs[i]
            g |= use[i]
        gen.append(g)
        kill.append(k)
    # a worklist, seeded last block first: straight-line code is then visited once, and a
    # loop again only where its live sets grow
    preds: list[list[int]] = [[] for _ in range(nb)]
    for b, nxt in enumerate(bsucc):
        for c in nxt:
            preds[c].append(b)
    live_in: list[set[str] | frozenset[str]] = [frozenset()] * nb  # (shared until set)
    work = list(range(nb))
    queued = [True] * nb
    while work:
        b = work.pop()
        queued[b] = False
        nxt = bsucc[b]
        if len(nxt) == 1:
            out = live_in[nxt[0]]
        else:
            out = set()
            for c in nxt:
                out |= live_in[c]
        new = gen[b] | (out - kill[b]) if kill[b] else gen[b] | out
        if new != live_in[b]:
            live_in[b] = new
            for p in preds[b]:
                if not queued[p]:
                    queued[p] = True
                    work.append(p)
    live: set[str] = set()
    for b in range(nb):
        first = insts[starts[b]]
        if type(first) is ir.Label and first.name in labels:
            live |= live_in[b]
        syncs = [i for i in range(starts[b], ends[b]) if type(insts[i]) is ir.Instruction
                 and insts[i].opcode in SYNC_OPCODES]
        if not syncs:
            continue
        # live after each instruction, walking the block backwards from its end
        after: set[str] = set()
        for c in bsucc[b]:
            after |= live_in[c]
        i = ends[b] - 1
        for j in reversed(syncs):
            while i > j:
                after -= defs[i]
                after |= use[i]
                i -= 1
            live |= use[j] | defs[j] | after  # re-read or written after the resume
    return live
