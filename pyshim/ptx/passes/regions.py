"""Which phase-mode kernels run as region loops (PoCL-style work-item loops), and where their
regions start.

A region is a stretch of the kernel body that the CPU target runs as one loop over the
block's threads (targets/cpu_regions.py). Regions end at every synchronisation point: an
unconditional `bar.sync <imm>` / `barrier.sync` or a warp collective (shfl, vote,
activemask, match, redux, bar.warp.sync) at the top level of the body. Control flow between
regions is per thread: each thread has a region counter, a branch to a label in another
region sets it, and the block runs next the lowest region some thread is waiting at. So the
labels that such branches target start regions too, found to a fixpoint (splitting at a label
can put other branches across regions). Nothing is assumed about uniformity: a loop around
a barrier, a branch around a collective, a thread that leaves early all run each thread
along its own path, and a barrier or collective completes when every thread that has not
exited or branched past it has arrived, as in phase mode, whose per-thread contexts region
loops replace by per-thread arrays of just the registers live where a region starts.

Not region loops (phase mode or fibers keep them): synchronisation under a guard or inside a
`{ }` scope, bar.red/bar.arrive and barriers with counts, several barrier ids, indirect
branches, .local/.param arrays (they would need per-thread copies).

Branches to a label followed by an unguarded `ret` (nvcc's `if (i >= n) return;`) are the
thread's exit and start nothing.
"""

from __future__ import annotations

from dataclasses import dataclass

from pyshim.ptx import ir

COLLECTIVES = frozenset(("shfl", "vote", "activemask", "match", "redux"))


@dataclass(frozen=True)
class RegionPlan:
    """How a kernel splits into regions: `syncs` are the call sites (Instruction.site) of the
    synchronisation points that end a region, in body order; `labels` the labels that start
    one; `backward` whether some branch goes back to a region start (a loop across regions,
    so a region can run more than once per thread)."""

    syncs: tuple[int, ...]
    labels: frozenset[str]
    backward: bool

    @property
    def count(self) -> int:
        return len(self.syncs) + len(self.labels) + 1


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


def _is_split(s: ir.Instruction) -> bool | None:
    """True for a synchronisation point that ends a region, False for an instruction that
    does not synchronise, None for a synchronisation region loops cannot express."""
    op = s.opcode
    if op in COLLECTIVES:
        return True
    if op in ("bar", "barrier"):
        if s.mods[:1] == ("warp",):
            return True  # bar.warp.sync: a collective in phase mode
        mods = [m for m in s.mods if m not in ("cta", "aligned")]
        if mods == ["sync"] and len(s.operands) == 1 and type(s.operands[0]) is ir.Imm:
            return True
        return None
    return False


def plan(fn: ir.Function) -> RegionPlan | None:
    """The region plan of phase-mode kernel fn, or None when it cannot run as region loops."""
    body = fn.body or []
    exits = exit_labels(body)
    all_labels = {s.name for s in body if type(s) is ir.Label}
    depth = 0
    syncs: list[int] = []
    sync_at: set[int] = set()
    label_at: dict[str, int] = {}
    label_depth: dict[str, int] = {}
    branches: list[tuple[int, str]] = []
    for i, s in enumerate(body):
        ts = type(s)
        if ts is ir.Scope:
            depth += 1 if s.open else -1
        elif ts is ir.Label:
            label_at[s.name] = i
            label_depth[s.name] = depth
        elif ts is ir.Var:
            if s.space in ("local", "param"):
                return None
        elif ts is ir.Instruction:
            split = _is_split(s)
            if split is None:
                return None
            if split:
                if s.pred is not None or depth != 0:
                    return None
                syncs.append(s.site)
                sync_at.add(i)
            elif s.opcode == "brx":
                return None
            elif s.opcode == "bra":
                t = s.operands[0] if s.operands else None
                if not isinstance(t, ir.Sym) or t.name not in all_labels:
                    return None
                if t.name not in exits:
                    branches.append((i, t.name))
    if not syncs:
        return None
    labels: set[str] = set()
    while True:
        region = _regions(body, sync_at, labels)
        more = {name for i, name in branches
                if name not in labels and region[label_at[name]] != region[i]}
        if not more:
            break
        labels |= more
    if any(label_depth[name] for name in labels):
        return None  # a region would start inside a { } scope
    backward = any(name in labels and label_at[name] < i for i, name in branches)
    return RegionPlan(tuple(syncs), frozenset(labels), backward)


def _regions(body: list, sync_at: set[int], labels: set[str]) -> list[int]:
    """The region number of every body statement, given the splits."""
    out = []
    r = 0
    for i, s in enumerate(body):
        if type(s) is ir.Label and s.name in labels:
            r += 1
        out.append(r)
        if i in sync_at:
            r += 1
    return out
