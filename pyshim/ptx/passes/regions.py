"""Which phase-mode kernels run as region loops (PoCL-style work-item loops), and where their
regions start.

A region is a stretch of the kernel body that the CPU target runs as one loop over the
block's threads (targets/cpu/regions.py). Regions end at every synchronisation point: an
unconditional `bar.sync <imm>` / `barrier.sync` or a warp collective (shfl, vote,
activemask, match, redux, bar.warp.sync, the warp matrix instructions) at the top level of
the body. Control flow between
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
thread's exit and start nothing. A loop inside a region that touches global memory is split
at its head too, so its iterations run in lockstep (also in kernels without any
synchronisation: grid-stride loops). The plan also records what makes the loops cheaper: the
%tid.x range a region's guard lets through, the registers uniform over the block, those
recomputable from %tid, and the regions whose threads may run in SIMD lockstep.
"""

from __future__ import annotations

from dataclasses import dataclass

from pyshim.ptx import ir
from pyshim.ptx.isa.emitter import UNIFORM_SPECIAL as _UNIFORM_SPECIAL
from pyshim.ptx.isa.instructions import BARRIERS, COLLECTIVES

# beyond this many regions a kernel keeps phases: clang's compile time of region loops grows
# far faster than of phases (benchmarks/README.md, "Figures behind the code")
MAX_REGIONS = 64


@dataclass(frozen=True)
class RegionPlan:
    """How a kernel splits into regions: `syncs` are the call sites (Instruction.site) of the
    synchronisation points that end a region, in body order; `labels` the labels that start
    one; `backward` whether some branch goes back to a region start (a loop across regions,
    so a region can run more than once per thread)."""

    syncs: tuple[int, ...]
    labels: frozenset[str]
    backward: bool
    # region -> (first, end): in a 1-D block only threads first <= %tid.x < end do anything
    # in that region (it opens with `if (%tid.x <cmp> imm) skip to its end`)
    ranges: tuple[tuple[int, tuple[int, int]], ...] = ()
    # registers with one definition computed from launch constants only (the same in every
    # thread: one scalar for the block, not a per-thread array)
    uniform: frozenset[str] = frozenset()
    # registers with one cheap definition from %tid and uniform values: recomputed where a
    # region starts instead of kept in arrays; (region of the definition, its site)
    remat: tuple[tuple[int, int], ...] = ()
    # regions whose instructions are plain arithmetic, non-volatile loads and stores and
    # branches: their thread loop may run threads in SIMD lockstep (a warp's schedule)
    simd: frozenset[int] = frozenset()
    # SIMD region -> (end, K, start): the region ends in a tail that only threads with
    # %tid.x & 31 == K run (`if (lane == 31) sums[warp] = v`), as `@%p bra end; <tail>;
    # end:` (start "") or `@%p bra start; bra end; start: <tail>; end:`. The tail then runs
    # after the region's SIMD loop, in a loop over those threads alone, rather than as
    # masked scatters inside it
    tails: tuple[tuple[int, tuple[str, int, str]], ...] = ()

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
    if op in BARRIERS:
        if s.mods[:1] == ("warp",):
            return True  # bar.warp.sync: a collective in phase mode
        mods = [m for m in s.mods if m not in ("cta", "aligned")]
        if mods == ["sync"] and len(s.operands) == 1 and type(s.operands[0]) is ir.Imm:
            return True
        return None
    return False


def plan(fn: ir.Function, lockstep_only: bool = False) -> RegionPlan | None:
    """The region plan of phase-mode kernel fn, or None when it cannot run as region loops.
    lockstep_only: fn has no synchronisation; a plan only if it has loops to run in
    lockstep."""
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
    if not syncs and not lockstep_only:
        return None
    labels: set[str] = set()
    while True:
        region = _regions(body, sync_at, labels)
        more = {name for i, name in branches
                if name not in labels and region[label_at[name]] != region[i]}
        if not more:
            # loops inside a region that touch global memory run in lockstep: each
            # iteration a region of its own, so the block's threads take iteration k
            # together (a grid-stride loop then reads memory in order, as a GPU's warps
            # do; thread after thread it would stride through it once per thread). So do
            # loops that read a clock: a spin-wait then waits once for the whole block, as
            # the GPU's threads wait together, not once per thread in turn
            more = {name for i, name in branches if name not in labels
                    and label_at[name] < i and region[label_at[name]] == region[i]
                    and label_depth[name] == 0
                    and _lockstep_loop(body[label_at[name]:i])}
        if not more:
            break
        labels |= more
    if any(label_depth[name] for name in labels):
        return None  # a region would start inside a { } scope
    if not syncs and not labels:
        return None  # nothing to split: the plain thread loop
    if len(syncs) + len(labels) >= MAX_REGIONS:
        return None  # one C function of hundreds of loops takes the C compiler minutes
    backward = any(name in labels and label_at[name] < i for i, name in branches)
    defs = _definitions(body) if not backward else {}  # (read by both, made once)
    ranges = _guard_ranges(body, region, labels, defs) if not backward else ()
    uniform, remat = _invariants(body)
    simd = _simd_regions(body, region, sync_at)
    tails = _lane_tails(body, region, simd, sync_at, defs) if not backward else ()
    return RegionPlan(tuple(syncs), frozenset(labels), backward, ranges, frozenset(uniform),
                      tuple((region[i], body[i].site) for i in remat), simd, tails)


# what a thread may do in a region that runs its threads in SIMD lockstep: no atomics (a
# vectorised read-modify-write would lose updates), no calls, no volatile accesses
# (warp-synchronous code), nothing with side effects beyond its own loads and stores
_SIMD_SAFE = frozenset((
    "add", "sub", "mul", "mad", "fma", "div", "rem", "abs", "neg", "min", "max", "and", "or",
    "xor", "not", "cnot", "shl", "shr", "setp", "selp", "set", "slct", "mov", "cvt", "cvta",
    "ld", "st", "bra", "ret", "exit", "sqrt", "rsqrt", "rcp", "ex2", "lg2", "sin", "cos",
    "popc", "clz", "brev", "bfe", "bfi", "prmt", "copysign", "testp", "shf", "lop3", "mul24",
    "mad24", "sad"))


def _simd_regions(body: list, region: list[int], sync_at: set[int]) -> frozenset[int]:
    bad: set[int] = set()
    seen: set[int] = set()
    for i, s in enumerate(body):
        seen.add(region[i])
        if type(s) is not ir.Instruction or i in sync_at:
            continue
        # shared stores too: their 32-bit wrapping offsets make them scatters in a SIMD
        # loop, but left to itself clang vectorizes no loop around them (it cannot bound
        # the addresses for its alias checks), and scalar loops were slower still
        # (benchmarks/README.md, "Figures behind the code")
        if s.opcode not in _SIMD_SAFE or "volatile" in s.mods:
            bad.add(region[i])
    return frozenset(seen - bad)


_TID = frozenset(("%tid.x", "%tid.y", "%tid.z"))
_PURE = frozenset(("mov", "add", "sub", "mul", "mad", "shl", "shr", "and", "or", "xor", "not",
                   "cvt", "cvta", "setp", "selp", "min", "max", "bfe"))


def _defined(op, out: list[str]) -> None:
    t = type(op)
    if t is ir.Reg:
        out.append(op.name)
    elif t is ir.PredPair:
        _defined(op.first, out)
        _defined(op.second, out)
    elif t is ir.Vec:
        for x in op.items:
            _defined(x, out)


def _invariants(body: list) -> tuple[set[str], list[int]]:
    """Uniform registers and the body indices of the definitions of rematerialisable ones."""
    # inline asm's scoped registers (`{ .reg .f16 low, high; mov.b32 {low, high}, %r5; }`)
    # have no `%` and parse as symbols: they are per-thread values, not link-time constants
    # (taken for constants, `cvt.f32.f16 %f1, low` made %f1 one scalar for the block)
    scoped = {s.name for s in body if type(s) is ir.Var and s.space == "reg"}
    count: dict[str, int] = {}
    for s in body:
        if type(s) is ir.Instruction and s.operands:
            d = s.operands[0]
            if type(d) is ir.Reg:  # (most destinations: _defined's first case, inline)
                count[d.name] = count.get(d.name, 0) + 1
                continue
            names: list[str] = []
            _defined(d, names)
            for name in names:
                count[name] = count.get(name, 0) + 1
    uniform: set[str] = set()
    remat: set[str] = set()
    where: list[int] = []
    for i, s in enumerate(body):
        if (type(s) is not ir.Instruction or s.pred is not None or len(s.operands) < 2
                or type(s.operands[0]) is not ir.Reg or count.get(s.operands[0].name) != 1):
            continue
        param = s.opcode == "ld" and "param" in s.mods
        if s.opcode not in _PURE and not param:
            continue
        tid = False  # some operand a thread index (or rematerialisable from one)
        for op in s.operands[1:]:
            t = type(op)
            if t is ir.Imm or (t is ir.Sym and op.name not in scoped):
                continue
            if param and t is ir.Addr and type(op.base) is ir.Sym:
                continue
            if t is ir.Reg and (op.name in _UNIFORM_SPECIAL or op.name in uniform):
                continue
            if t is ir.Reg and (op.name in _TID or op.name in remat):
                tid = True
                continue
            break  # any other operand: neither uniform nor rematerialisable
        else:
            if not tid:
                uniform.add(s.operands[0].name)
            elif not param:
                remat.add(s.operands[0].name)
                where.append(i)
    return uniform, where


def _definitions(body: list) -> dict[str, list]:
    """Every register's defining instructions (a vector load's {%r1, %r2} defines both)."""
    defs: dict[str, list] = {}
    for s in body:
        if type(s) is ir.Instruction:
            for name in ir.written(s):
                defs.setdefault(name, []).append(s)
    return defs


# what a lane tail may hold: shared memory and plain arithmetic
_TAIL_SAFE = frozenset(("mov", "add", "sub", "mul", "mad", "shl", "shr", "and", "or", "xor",
                        "not", "cvt", "cvta", "selp", "min", "max", "ld", "st"))


def _lane_tails(body: list, region: list[int], simd: frozenset[int], sync_at: set[int],
                defs: dict[str, list] | None = None
                ) -> tuple[tuple[int, tuple[str, int, str]], ...]:
    """SIMD regions that end in a tail only threads with %tid.x & 31 == K run: `@%p bra end;
    <tail>; end: <sync>` or nvcc's `@%p bra start; bra end; start: <tail>; end: <sync>`,
    with %p a comparison of %tid.x & 31 with K and the tail shared loads and stores and
    plain arithmetic. `defs`: _definitions(body), where the caller has it."""
    if defs is None:
        defs = _definitions(body)

    def only_def(name: str):
        d = defs.get(name, [])
        return d[0] if len(d) == 1 and d[0].pred is None else None

    def is_lane(name: str) -> bool:
        d = only_def(name)
        if (d is None or d.opcode != "and" or len(d.operands) != 3
                or type(d.operands[1]) is not ir.Reg or type(d.operands[2]) is not ir.Imm
                or d.operands[2].kind != "int" or int(d.operands[2].value) != 31):
            return False
        t = only_def(d.operands[1].name)
        return (t is not None and t.opcode == "mov" and len(t.operands) == 2
                and type(t.operands[1]) is ir.Reg and t.operands[1].name == "%tid.x")

    def target(s) -> str | None:
        ok = (type(s) is ir.Instruction and s.opcode == "bra" and s.operands
              and isinstance(s.operands[0], ir.Sym) and s.operands[0].name in labels)
        return s.operands[0].name if ok else None

    labels = {s.name: i for i, s in enumerate(body) if type(s) is ir.Label}
    out = []
    n = len(body)
    for i, s in enumerate(body):
        first = target(s)
        if first is None or s.pred is None or region[i] not in simd:
            continue
        # `@%p bra end` runs the tail when %p fails; `@%p bra start; bra end; start:` when
        # it holds
        start = ""
        t = labels[first]
        lo = i + 1
        if (i + 2 < n and type(body[i + 2]) is ir.Label and body[i + 2].name == first
                and target(body[i + 1]) is not None and body[i + 1].pred is None):
            start, t, lo = first, labels[target(body[i + 1])], i + 3
        end = t
        while end + 1 < n and type(body[end + 1]) is ir.Label:
            end += 1
        if (t < lo or region[t] != region[i] or end + 1 >= n or end + 1 not in sync_at
                or region[end + 1] != region[i]):
            continue
        tail = body[lo:t]
        if not tail or any(type(x) is not ir.Instruction or x.opcode not in _TAIL_SAFE
                           or "volatile" in x.mods
                           or (x.opcode in ("ld", "st") and "shared" not in x.mods)
                           for x in tail):
            continue
        setp = only_def(s.pred)
        # the tail runs when the lane equals K
        want = ("eq" if s.pred_neg else "ne") if not start else ("ne" if s.pred_neg else "eq")
        if (setp is None or setp.opcode != "setp" or len(setp.mods) != 2
                or setp.mods[1] not in ("s32", "u32", "b32") or setp.mods[0] != want
                or len(setp.operands) != 3 or type(setp.operands[1]) is not ir.Reg
                or not is_lane(setp.operands[1].name)
                or type(setp.operands[2]) is not ir.Imm or setp.operands[2].kind != "int"
                or not 0 <= int(setp.operands[2].value) < 32):
            continue
        out.append((region[i], (body[t].name, int(setp.operands[2].value), start)))
    return tuple(out)


# the threads a guard `setp.<cmp> %p, %tid.x, K; @%p bra <end of region>` lets through
_PASS = {"gt": lambda k: (0, k + 1), "ge": lambda k: (0, k), "lt": lambda k: (k, 1 << 31),
         "le": lambda k: (k + 1, 1 << 31), "ne": lambda k: (k, k + 1)}


def _guard_ranges(body: list, region: list[int], labels: set[str] = frozenset(),
                  defs: dict[str, list] | None = None
                  ) -> tuple[tuple[int, tuple[int, int]], ...]:
    """Regions of a kernel without branches back to an earlier region whose code is skipped
    by every thread outside a range of %tid.x, with that range: the CPU target then loops
    over those threads only. The guard opens a region: `setp.<cmp> %p, %t, K; @%p bra L`
    with %t = %tid.x (the tree reduction's `if (tid < stride)`), %tid.x >> s or
    %tid.x & -(1 << s) (a warp number: `if (warp == 0)`), and L either ends the region or
    starts a later one that the regions between are entered from only in order (those then
    have the range too)."""
    n = len(body)
    starts = [i for i in range(1, n) if region[i] != region[i - 1] and any(
        type(x) is ir.Instruction and x.opcode == "setp" for x in body[i:i + 8])]
    if not starts:
        return ()  # (most kernels: no region opens with a comparison)
    # register -> (s, how): it holds %tid.x >> s ("shr") or %tid.x & -(1 << s) ("and")
    tid_of: dict[str, tuple[int, str]] = {}
    if defs is None:
        defs = _definitions(body)
    for s in body:
        if type(s) is not ir.Instruction:
            continue
        if s.operands and type(s.operands[0]) is ir.Reg:
            if (s.opcode == "mov" and s.pred is None and len(s.operands) == 2
                    and type(s.operands[1]) is ir.Reg and s.operands[1].name == "%tid.x"):
                tid_of[s.operands[0].name] = (0, "shr")
    for s in body:  # (one definition each, so the order of the two passes does not matter)
        if (type(s) is ir.Instruction and s.opcode in ("shr", "and") and s.pred is None
                and len(s.operands) == 3 and type(s.operands[0]) is ir.Reg
                and type(s.operands[1]) is ir.Reg and tid_of.get(s.operands[1].name) == (0, "shr")
                and type(s.operands[2]) is ir.Imm and s.operands[2].kind == "int"
                and len(s.mods) == 1 and s.mods[0] in ("s32", "u32", "b32")):
            k = int(s.operands[2].value)
            if s.opcode == "shr" and 0 < k < 31:
                tid_of[s.operands[0].name] = (k, "shr")
            elif s.opcode == "and" and -(1 << 30) <= k < 0 and (-k) & (-k - 1) == 0:
                tid_of[s.operands[0].name] = ((-k).bit_length() - 1, "and")
    tid_of = {r: v for r, v in tid_of.items() if len(defs[r]) == 1}
    mentions: dict[str, int] = {}  # every register's count of mentions, once a guard needs it
    label_region = {b.name: region[j] for j, b in enumerate(body) if type(b) is ir.Label}
    starts_by_label = {label_region[x] for x in labels if x in label_region}
    out: dict[int, tuple[int, int]] = {}
    for i in starts:
        insts = [(j, x) for j, x in enumerate(body[i:i + 8], i) if type(x) is ir.Instruction]
        # a few definitions may come first (nvcc's `and %r, %tid, -32` of a warp test)
        pre = 0
        while pre < len(insts) and insts[pre][1].opcode in _GUARD_PREFIX and insts[pre][1].pred is None:
            pre += 1
        if len(insts) < pre + 2:
            continue
        (_, setp), (jb, bra) = insts[pre], insts[pre + 1]
        # threads outside the range skip these definitions: none may be named elsewhere
        if (setp.opcode != "setp" or setp.pred is not None or len(setp.mods) != 2
                or setp.mods[1] not in ("s32", "u32") or setp.mods[0] not in _PASS
                or len(setp.operands) != 3 or type(setp.operands[0]) is not ir.Reg
                or type(setp.operands[1]) is not ir.Reg
                or setp.operands[1].name not in tid_of
                or type(setp.operands[2]) is not ir.Imm or setp.operands[2].kind != "int"):
            continue
        if (bra.opcode != "bra" or bra.pred != setp.operands[0].name or bra.pred_neg
                or not isinstance(bra.operands[0], ir.Sym)):
            continue
        skipped = [x for _, x in insts[:pre + 1]]
        if not mentions:
            for s in body:
                if type(s) is ir.Instruction:
                    for name in _names(s):
                        mentions[name] = mentions.get(name, 0) + 1
        if any(not x.operands or type(x.operands[0]) is not ir.Reg for x in skipped) or any(
                mentions[x.operands[0].name] != _mentions(x.operands[0].name, skipped + [bra])
                for x in skipped):
            continue
        r0 = region[i]
        target = next((j for j in range(jb, n) if type(body[j]) is ir.Label
                       and body[j].name == bra.operands[0].name), None)
        if target is None:
            continue
        if bra.operands[0].name in labels:
            # a later region: those between are entered only from the one before
            covered = range(r0, region[target])
            if region[target] <= r0 or any(r in starts_by_label for r in covered[1:]):
                continue
        else:
            # the region's end: only labels between the target and the sync
            if region[target] != r0:
                continue
            end = target
            while end + 1 < n and type(body[end + 1]) is ir.Label and region[end + 1] == r0:
                end += 1
            if (end + 1 >= n or region[end + 1] != r0
                    or type(body[end + 1]) is not ir.Instruction
                    or _is_split(body[end + 1]) is not True):
                continue
            covered = range(r0, r0 + 1)
        k = int(setp.operands[2].value)
        if not 0 <= k < 1 << 30:
            continue
        shift, how = tid_of[setp.operands[1].name]
        lo, hi = _PASS[setp.mods[0]](k)
        if how == "and":  # (t >> s) << s in [lo, hi): t from lo to hi, rounded up
            lo, hi = -(-lo >> shift), -(-hi >> shift)
        lo, hi = min(lo << shift, 1 << 31), min(hi << shift, 1 << 31)
        for r in covered:
            a, b = out.get(r, (0, 1 << 31))
            out[r] = (max(a, lo), max(max(a, lo), min(b, hi)))
    return tuple(sorted(out.items()))


# definitions a guard may follow at a region start: no memory, no side effects
_GUARD_PREFIX = frozenset(("mov", "and", "or", "xor", "shr", "shl", "add", "sub", "cvt", "cvta"))


def _names(inst: ir.Instruction) -> list[str]:
    """Every register instruction `inst` names, read or written, with repeats."""
    out = [inst.pred] if inst.pred else []
    for op in inst.operands:
        t = type(op)
        if t is ir.Reg:
            out.append(op.name)
        elif t is ir.Addr and type(op.base) is ir.Reg:
            out.append(op.base.name)
        elif t is ir.Vec or t is ir.Args:
            out += [x.name for x in op.items if type(x) is ir.Reg]
        elif t is ir.PredPair:
            out += [op.first.name, op.second.name]
        elif t is ir.Neg:
            out.append(op.reg.name)
    return out


def _mentions(name: str, insts: list) -> int:
    return sum(_names(x).count(name) for x in insts)


_CLOCKS = frozenset(("%clock", "%clock64", "%globaltimer", "%globaltimer_lo",
                     "%globaltimer_hi"))


def _lockstep_loop(stmts: list) -> bool:
    """Whether some load, store or atomic among stmts may reach global memory, or some
    instruction reads a clock."""
    for s in stmts:
        if type(s) is not ir.Instruction:
            continue
        if s.opcode in ("ld", "st", "atom", "red", "ldu"):
            if not any(m in ("shared", "local", "param", "const") or m.startswith("shared::")
                       for m in s.mods):
                return True
        elif s.opcode == "mov" and any(type(op) is ir.Reg and op.name in _CLOCKS
                                       for op in s.operands[1:]):
            return True
    return False


def region_numbers(body: list, p: RegionPlan) -> list[int]:
    """The region number of every statement of `body`, the body plan `p` was made for."""
    syncs = set(p.syncs)
    return _regions(body, {i for i, s in enumerate(body)
                           if type(s) is ir.Instruction and s.site in syncs}, set(p.labels))


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
