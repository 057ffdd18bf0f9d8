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


def _use_def(s: ir.Instruction) -> tuple[set[str], set[str]]:
    """(registers read, registers written) by one instruction, as the module doc says."""
    u: set[str] = set()
    d: set[str] = set()
    ops = s.operands
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
    return u, d


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
    # basic blocks (a label starts one, a branch or return ends one), with the registers
    # each reads before writing them (gen) and those it writes (kill): the data flow below
    # is then per block, and an unrolled loop body of thousands of instructions costs one
    # pass over its operands rather than a live set copied per instruction
    starts: list[int] = []
    exits: list[list[int]] = []  # the instructions the last one of each block goes to
    gen: list[set[str]] = []
    kill: list[set[str]] = []
    synced: list[bool] = []  # whether the block holds a synchronisation point
    g: set[str] = set()
    k: set[str] = set()
    nxt: list[int] = []
    for i, s in enumerate(insts):
        if i == 0 or type(s) is ir.Label or nxt != [i]:
            if i:
                exits.append(nxt)
            starts.append(i)
            g, k = set(), set()
            gen.append(g)
            kill.append(k)
            synced.append(False)
        nxt = [i + 1] if i + 1 < n else []
        if type(s) is not ir.Instruction:
            continue
        op = s.opcode
        if op == "brx":
            return None
        ops = s.operands
        if op == "bra":
            t = ops[0] if ops else None
            if not isinstance(t, ir.Sym) or t.name not in where:
                return None
            nxt = [where[t.name]] + (nxt if s.pred is not None else [])
        elif op in ("ret", "exit") and s.pred is None:
            nxt = []
        elif op in SYNC_OPCODES:
            synced[-1] = True
        d: set[str] | None = None
        if op in DEF_FIRST and s.pred is None and ops:
            o = ops[0]
            if type(o) is ir.Reg and (not o.name.startswith("%") or "." not in o.name):
                d = {o.name}  # most destinations: _regs' first case, without the call
            else:
                d = set()
                _regs(o, d)
            ops = ops[1:]
        for o in ops:
            if type(o) is ir.Reg:  # most operands: _regs' first case, without the call
                name = o.name
                if (not name.startswith("%") or "." not in name) and name not in k:
                    g.add(name)
            elif type(o) is ir.Addr:  # a memory operand: _regs of its base, inline
                b = o.base
                if type(b) is ir.Reg:
                    name = b.name
                    if (not name.startswith("%") or "." not in name) and name not in k:
                        g.add(name)
            elif type(o) is not ir.Imm:
                u: set[str] = set()
                _regs(o, u)
                g.update(u - k)
        if s.pred is not None and s.pred not in k:
            g.add(s.pred)
        if d:
            k |= d
    if n:
        exits.append(nxt)
    block_at = {i: b for b, i in enumerate(starts)}
    nb = len(starts)
    bsucc = [[block_at[j] for j in exits[b]] for b in range(nb)]
    # a worklist, seeded last block first: straight-line code is then visited once, and a
    # loop again only where its live sets grow
    preds: list[list[int]] = [[] for _ in range(nb)]
    for b, to in enumerate(bsucc):
        for c in to:
            preds[c].append(b)
    live_in: list[set[str] | frozenset[str]] = [frozenset()] * nb  # (shared until set)
    work = list(range(nb))
    queued = [True] * nb
    while work:
        b = work.pop()
        queued[b] = False
        to = bsucc[b]
        if len(to) == 1:
            out = live_in[to[0]]
        else:
            out = set()
            for c in to:
                out |= live_in[c]
        new = gen[b] | (out - kill[b]) if kill[b] else gen[b] | out
        if new != live_in[b]:
            live_in[b] = new
            for p in preds[b]:
                if not queued[p]:
                    queued[p] = True
                    work.append(p)
    live: set[str] = set()
    ends = starts[1:] + [n]
    for b in range(nb):
        first = insts[starts[b]]
        if type(first) is ir.Label and first.name in labels:
            live |= live_in[b]
        if not synced[b]:
            continue
        # live after each instruction, walking the block backwards from its end
        after: set[str] = set()
        for c in bsucc[b]:
            after |= live_in[c]
        for i in range(ends[b] - 1, starts[b] - 1, -1):
            s = insts[i]
            if type(s) is not ir.Instruction:
                continue
            u, d = _use_def(s)
            if s.opcode in SYNC_OPCODES:
                live |= u | d | after  # re-read or written after the resume
            after -= d
            after |= u
    return live
