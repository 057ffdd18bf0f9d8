"""Which phase-mode kernels can run as region loops (PoCL-style work-item loops).

A kernel qualifies when every thread that has not exited reaches every barrier, in the
same order, once: its only synchronisation is unconditional `bar.sync <imm>` (or
`barrier.sync`) at the top level of the body (no guard, not inside a `{ }` scope), no
branch crosses a barrier (so the code between two barriers, a region, is entered only at
its top and left only at its bottom or by `ret`/`exit`, or by a branch to a label that is
followed by `ret`), and it has no .local/.param
arrays (those would need per-thread copies). Then the CPU target runs each region as one
loop over the block's threads, one after the other, with no resume switch; registers used
in more than one region live in per-thread arrays, the others are plain locals
(targets/cpu.py). Everything else (barriers in loops or under branches, warp collectives,
bar.red, named barriers with counts) keeps the phase scheduler or fibers, which handle
divergent barriers.
"""

from __future__ import annotations

from pyshim.ptx import ir


def exit_labels(body: list) -> set[str]:
    """Labels followed (past other labels and closing scopes) by an unguarded ret/exit: a
    branch to one is an early exit (nvcc's `if (i >= n) return;` around a barrier)."""
    out: set[str] = set()
    pending: list[str] = []
    for s in body:
        ts = type(s)
        if ts is ir.Label:
            pending.append(s.name)
        elif ts is ir.Scope and not s.open:
            continue
        else:
            if (ts is ir.Instruction and s.opcode in ("ret", "exit") and s.pred is None):
                out.update(pending)
            pending = []
    return out


def barrier_count(fn: ir.Function) -> int | None:
    """The number of top-level barriers if kernel fn qualifies for region loops, else None.
    Branches to exit labels (see exit_labels) may cross barriers: the CPU target turns them
    into the thread's exit."""
    body = fn.body or []
    exits = exit_labels(body)
    depth = 0
    region = 0
    label_region: dict[str, int] = {}
    branches: list[tuple[str, int]] = []
    for s in body:
        ts = type(s)
        if ts is ir.Scope:
            depth += 1 if s.open else -1
        elif ts is ir.Label:
            label_region[s.name] = region
        elif ts is ir.Var:
            if s.space in ("local", "param"):
                return None
        elif ts is ir.Instruction:
            if s.opcode in ("bar", "barrier"):
                mods = [m for m in s.mods if m not in ("cta", "aligned")]
                if (mods != ["sync"] or len(s.operands) != 1 or type(s.operands[0]) is not ir.Imm
                        or s.pred is not None or depth != 0):
                    return None
                region += 1
            elif s.opcode in ("shfl", "vote", "activemask", "match", "redux", "brx"):
                return None
            elif s.opcode == "bra":
                t = s.operands[0] if s.operands else None
                if not isinstance(t, ir.Sym):
                    return None
                branches.append((t.name, region))
    for name, r in branches:
        if label_region.get(name) != r and name not in exits:
            return None
    return region if region else None
