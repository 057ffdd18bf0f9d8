"""The CPU device's region loops: a phase-mode kernel run as one loop over the block's
threads per region (the code between two synchronisation points, passes/regions.py),
PoCL-style, instead of phases with a per-thread resume switch.

Control flow between regions is per thread (ps_pc). Without branches back to an earlier
region the regions run once each, in order, and a thread skips those before the one it
waits for (or all, once it has exited). With them, a scheduler runs the lowest region any
thread waits at (ps_cnt counts them). A region ending at a warp collective completes it
before the next runs: shuffles from per-thread arrays (constant shfl.up/down by shifted loads,
read directly by the next region when regions run in order), the others as phase mode does
(cpu.h ps_phase_collectives). Registers live where a region starts are per-thread arrays
(struct of arrays), unless they are the same for the whole block (one scalar) or recomputed
from %tid where each region starts; all others are locals of the block function.

Three things make the loops cheaper. A region that branches on a predicate no thread of
the block takes (decided once per block, cpu_guards.branch_guards) runs a copy without the
branch, so without masked loads and stores. A constant shuffle's reader reads the shuffled
register's own array when every thread deposits, and a thread that skips a shuffle zeroes
its element instead of every thread writing a round mark. And 1-D blocks of whole warps
run a copy of all the loops in which the compiler knows every x loop is a whole number of
vectors, and chains of shuffle regions run as warp vectors (cpu/warpvec.py).
"""

from __future__ import annotations

from pyshim.ptx import ir
from pyshim.ptx.analysis import pointer_regs
from pyshim.ptx.isa import records
from pyshim.ptx.isa.emitter import cname_label, cname_reg
from pyshim.ptx.isa.records import PH
from pyshim.ptx.layout import param_layout
from pyshim.ptx.passes.regions import exit_labels, region_numbers
from pyshim.ptx.targets.cpu import guards as cpu_guards
from pyshim.ptx.targets.cpu import prefetch as cpu_prefetch
from pyshim.ptx.targets.cpu import warpvec as cpu_warpvec
from pyshim.ptx.targets.cpu.phase import SHFL_POINTS, PhaseNaming, shfl_point

_TID_VARS = {"TID_X": "x", "TID_Y": "y", "TID_Z": "z", "LINEAR": "ps_i"}
_RET = records.point("@ret")  # a thread leaves the kernel (phase.PhaseForm.ret_stmt)
# the branches a region's guard-free copy may leave out (their guards' marks, _marked_records)
_GUARDED = frozenset(("bra", "ret", "exit"))
# a lane tail's marks (RegionKernel.tail_marks): its guard, where it begins and ends
_TG, _TB, _TE = records.point("@tg"), records.point("@tb"), records.point("@te")


def _guard_mark(what: str) -> bool:
    """Whether a point is a mark the region loops place (guards, lane tails, records)."""
    return what[:3] == "@g:" or what[:5] == "@rec:" or what in ("@/g", "@tg", "@tb", "@te")


# the placeholders that move a record's text to another region (RegionKernel.scan: those
# whose first four characters are "@bar", "@col" or "@reg", and "@resume"), as they open
_SCAN_RESUME, _SCAN_BAR, _SCAN_COLL, _SCAN_REGION = (PH + "@resume", PH + "@bar", PH + "@col",
                                                     PH + "@reg")
# the placeholders that end a region or the prologue (RegionKernel.split: "@resume",
# "@red", "@region", "@coll", "@bar"), as they open ("@re" alone would take in the record
# marks, "@rec:<i>")
_SPLIT_RES, _SPLIT_RED, _SPLIT_REG, _SPLIT_COLL, _SPLIT_BAR = (
    PH + x for x in ("@res", "@red", "@reg", "@coll", "@bar"))
_ADDR = "(uint8_t *)(uintptr_t)"  # the address a register holds (phase.PhaseForm.address)
_PC = "coll[ps_i]"  # thread ps_i's collective record (phase.PC)
# a shuffle's source lane from the thread's index, without its context (phase.SHFL_POINTS)
_LANE_AT = "ps_shfl_lane_at(ps_i & (wave - 1u), "


def word(name: str) -> bool:
    """Whether a register's C name is all word characters, as the arrays (ps_s_<name>) and
    struct members the CPU back end makes of registers assume."""
    bare = name.replace("_", "")
    return bare.isalnum() if bare else bool(name)


class _Naming(records.Naming):
    """A region loop's spelling of its registers (those in `arrays` as thread ps_i's
    element of their per-thread array, the others as locals of the block function) and of
    its branches (`jump`: to another region, out of the kernel, or within the region)."""

    def __init__(self, arrays: set[str], jump=lambda label: f"goto {label};",
                 simd: bool = False, done: str = "return 0;",
                 shfl: dict[str, str | None] | None = None, park: str | None = None) -> None:
        self.arrays = arrays
        self.jump = jump
        self.simd = simd  # the thread's index from the loop's variables, not the context
        self.done = done  # what a thread that leaves the kernel does
        # the shuffle points (phase.SHFL_POINTS) of the shuffles completed from the arrays:
        # "<kind>:<site>" -> its C (None for "@dval": the value is not stored); the others
        # as phase kernels spell them, in the thread's record
        self.shfl = shfl or {}
        # where a thread waits at the collective closing its region ("@park:<site>"): for
        # the generic completion (ps_phase_collectives, park None) its state and resume
        # site, else `park`
        self.park = park

    def reg(self, name: str) -> str:
        return f"ps_s_{name}[ps_i]" if name in self.arrays else name

    def render(self, template: str) -> str:
        if PH not in template:
            return template
        if not self.shfl:
            # reg() and the record marks' point() inline (a region's text holds thousands)
            out = template.split(PH)
            arrays, point = self.arrays, self.point
            for i in range(1, len(out), 2):
                x = out[i]
                if x[:1] != "@":
                    if x in arrays:
                        out[i] = f"ps_s_{x}[ps_i]"
                elif x[:5] == "@rec:":
                    out[i] = PH + x + PH
                else:
                    out[i] = point(x)
            return "".join(out)
        out = template.split(PH)
        drop = False  # (between a value's "@dval" spelled None and its "@dend")
        for i in range(len(out)):
            x = out[i]
            if drop:
                drop = x[:6] != "@dend:" or not i % 2
                out[i] = ""
            elif i % 2:
                if self.shfl.get(x, "") is None:
                    drop, out[i] = True, ""
                else:
                    out[i] = self.point(x) if x[:1] == "@" else self.reg(x)
        return "".join(out)

    def point(self, what: str) -> str:
        if what[:6] == "@goto:":
            return self.jump(what[6:])
        if what == "@pc":
            return _PC
        kind = what.partition(":")[0]
        if kind in SHFL_POINTS:
            got = self.shfl.get(what)
            return shfl_point(kind, _PC) if got is None else got
        if what == "@ret":
            return self.done
        if what[:5] == "@tid:":
            return _TID_VARS[what[5:]] if self.simd else f"PS_{what[5:]}(ctx)"
        if what[:6] == "@addr:":
            # a local's address may become base + offset (_pointer_addresses)
            name = what[6:]
            return _ADDR + self.reg(name) if name in self.arrays else records.point(what)
        if what[:6] == "@park:":
            return (f"ps_state[ps_i] = 2; ps_resume[ps_i] = {what[6:]}u;"
                    if self.park is None else self.park)
        if what[:3] == "@l:" or _guard_mark(what):
            return records.point(what)  # (spelled once its copies are made and its
            #                             guards decided)
        if what[:3] == "@w:":
            # a warp matrix instruction's records (cpu/phase.py warp_fn): rows of the
            # block's arrays, without the context (the loop may then run its threads in SIMD)
            kind, _, row = what[3:].partition(":")
            return ("ps_waddr[ps_i]" if kind == "addr"
                    else f"ps_w{kind}[{row}u * (uint64_t)n + ps_i]")
        return super().point(what)


def _lbl(name: str) -> str:
    """A label of the region loops, as the placeholder their copies rename (_Labels)."""
    return records.point(f"@l:{name}")


class _Labels(records.Naming):
    """Spells the region loops' labels with `suffix` (a copy of some of the loops has its
    own labels: "_f" the guard-free copy of a region, "_w" the copy for 1-D blocks), still
    as placeholders unless `final`."""

    def __init__(self, suffix: str, final: bool = False) -> None:
        self.suffix = suffix
        self.final = final

    def point(self, what: str) -> str:
        if what[:3] == "@l:":
            return what[3:] + self.suffix if self.final else records.point(what + self.suffix)
        if _guard_mark(what):
            return "" if self.final else records.point(what)
        if what[:6] == "@addr:":
            return _ADDR + what[6:] if self.final else records.point(what)
        return super().point(what)


_SPELLED = _Labels("", final=True)


class _Scalar(PhaseNaming):
    """Every register a local (a warp vector's uniform definitions, kept scalar)."""

    def reg(self, name: str) -> str:
        return name



def param_copies(k: ir.Function) -> list[str]:
    """run_block lines copying the kernel's parameters into the local buffer ps_pb."""
    layout, total = param_layout(k.params)
    return [f"    PS_ALIGN(16) uint8_t ps_pb[{max(total, 1)}];",
            *(f"    memcpy(ps_pb + {o}, params[{j}], {s});"
              for j, (o, s, _a) in enumerate(layout) if s)]


def region_kernel(index: int, k: ir.Function, body: str, fe) -> str | None:
    """Kernel k (phase mode, with a RegionPlan in info.regions) as region loops, or None
    when the translated body is not in the shape the plan promises (the caller then keeps
    phases)."""
    return RegionKernel(index, k, body, fe).render()


class _NotInShape(Exception):
    """The translated body is not in the shape the region plan promises: keep phases."""


class RegionKernel:
    """One kernel's region loops, stage by stage: split the body into regions (split),
    decide where each register lives (registers), the loop of each region (region_loops,
    region), the copy for 1-D blocks of whole warps (one_d, warp_chains), the per-thread
    arrays (arrays) and the block function (assemble)."""

    def __init__(self, index: int, k: ir.Function, body: str, fe) -> None:
        self.index = index
        self.k = k
        self.body = body
        self.fe = fe
        self.plan = k.info.regions

    def render(self) -> str | None:
        plan, fe = self.plan, self.fe
        if plan is None or fe.form.array_sizes or records.point("@resume") not in self.body:
            return None
        try:
            self.split()
            self.registers()
            self.region_loops()
        except _NotInShape:
            return None
        self.one_d()
        self.arrays()
        return self.assemble()

    # ---- the regions -----------------------------------------------------------------
    def split(self) -> None:
        """The regions' templates (records.py), what ends each ("bar", "label",
        "coll:<site>"), which region each split label starts, and the labels that leave the
        kernel: the body's synchronisation points and region marks split it."""
        plan = self.plan
        self.scan()
        regions: list[str] = []
        ends: dict[int, str] = {}  # what ends region j
        start_of: dict[str, int] = {}  # which region each split label starts
        cur: list[str] = []
        prologue = None
        # the marked records joined by newlines, split where a region ends: a record without
        # a placeholder that may end one goes into the current region as it stands (a
        # record's placeholders are whole: its pieces alternate text and placeholder)
        for n, text in enumerate(self._marked_records(self.tail_marks())):
            if n:
                cur.append("\n")
            if (_SPLIT_RES not in text and _SPLIT_RED not in text and _SPLIT_REG not in text
                    and _SPLIT_COLL not in text and _SPLIT_BAR not in text):
                cur.append(text)
                continue
            for i, x in enumerate(text.split(PH)):
                if not i % 2:
                    cur.append(x)
                    continue
                kind, _, arg = x.partition(":")
                if kind == "@resume" and prologue is None:
                    prologue, cur = "".join(cur), []
                    continue
                if kind == "@red":  # (bar.red: the phase form's own resume point)
                    raise _NotInShape
                if kind == "@coll":  # the collective completes after the region's loop
                    cur.append(records.point(f"@park:{arg}") + " }")
                    ends[len(regions)] = f"coll:{arg}"
                elif kind == "@region":
                    start_of[arg] = len(regions) + 1
                    ends[len(regions)] = "label"
                elif kind == "@bar":
                    ends[len(regions)] = "bar"
                else:  # a register: the regions render it
                    cur.append(PH + x + PH)
                    continue
                regions.append("".join(cur))
                cur = []
        regions.append("".join(cur))
        if len(regions) != plan.count:
            raise _NotInShape
        if set(start_of) != {cname_label(n) for n in plan.labels}:
            raise _NotInShape
        self.prologue = PhaseNaming().render(prologue or "")
        self.regions, self.ends, self.start_of = regions, ends, start_of
        self.exit_gotos = {cname_label(n) for n in exit_labels(self.k.body or [])}
        self.nreg = len(regions)
        recs = [r for r in self.fe.records if r.site is not None]
        self.context_sites = {r.site for r in recs if r.context}
        self.code_at = {r.site: r.template for r in recs}  # each instruction's template
        self.deposits = {r.site: r.deposit for r in recs if r.deposit is not None}

    def scan(self) -> None:
        """Where each record lies: the regions it starts and ends in (a synchronisation
        point or region mark inside it ends one; before the resume point: -1), the regions
        it writes anything but labels in, and the regions that hold anything but labels
        (busy) or read the thread's context (Record.context: where the record ends, a
        collective's where it resumes)."""
        self.busy: set[int] = set()
        self.context: set[int] = set()
        self.at: list[tuple[int, int]] = []
        self.text_in: list[set[int]] = []
        self.rec_index = {rec.site: i for i, rec in enumerate(self.fe.records)
                      if rec.site is not None}
        # the registers the records of each region write (Record.writes: where a record
        # resumes, for one that spans regions)
        self.writes_in: dict[int, set[str]] = {}
        at = -1
        busy, writes_in, at_list, text_in = self.busy, self.writes_in, self.at, self.text_in
        for rec in self.fe.records:
            first = at
            text: set[int] = set()
            t = rec.template
            if PH not in t:  # (most records: one piece)
                if at >= 0 and rec.kind != records.LABEL and t.strip():
                    text.add(at)
            elif (_SCAN_RESUME not in t and _SCAN_BAR not in t and _SCAN_COLL not in t
                  and _SCAN_REGION not in t):
                # no synchronisation point or region mark: the record stays in region `at`,
                # and its text is there (it has a placeholder); whether the region is busy
                # needs its text pieces only while that is not known yet
                if at >= 0 and rec.kind != records.LABEL:
                    text.add(at)
                    if at not in busy and any(x.strip() for x in t.split(PH)[::2]):
                        busy.add(at)
            else:
                for i, x in enumerate(t.split(PH)):
                    if i % 2:
                        if x == "@resume":
                            at = 0
                        elif x[:4] in ("@bar", "@col", "@reg"):
                            if at >= 0:
                                at += 1
                        elif at >= 0 and rec.kind != records.LABEL:
                            text.add(at)  # (a register or a branch: not blank)
                    elif at >= 0 and rec.kind != records.LABEL and x.strip():
                        text.add(at)
                        self.busy.add(at)
            if PH not in t:
                busy |= text
            if at >= 0 and rec.context:
                self.context.add(at)
            if rec.writes:
                got = writes_in.get(at)
                if got is None:
                    got = writes_in[at] = set()
                got.update(rec.writes)
            at_list.append((first, at))
            text_in.append(text)

    def tail_marks(self) -> dict[int, str]:
        """Marks (records.py points) to put before records, around each lane tail
        (passes/regions.py) in the shape the region loops split off: its guard
        `@%p bra end;` ("@tg" before it; with nvcc's `@%p bra start; bra end; start:` the
        two branches and the label), the tail ("@tb" before its first record, "@te"
        before the label `end:` that closes it), and nothing but labels after that in the
        region; the tails' registers (self.tail_regs). A tail in any other shape stays in
        its region's loop."""
        recs, at, text_in = self.fe.records, self.at, self.text_in
        ops = {s.site: s for s in self.k.body or () if type(s) is ir.Instruction}

        def target(i: int) -> str | None:  # where branch record i goes (bra only)
            s = ops.get(recs[i].site)
            if (recs[i].kind != records.BRANCH or s is None or s.opcode != "bra"
                    or not s.operands or type(s.operands[0]) is not ir.Sym):
                return None
            return cname_label(s.operands[0].name)

        marks: dict[int, str] = {}
        self.tail_found: dict[int, tuple[str, int, str]] = {}
        self.tail_regs: dict[int, set[str]] = {}
        tails = {j: t for j, t in self.plan.tails}
        for j, (label, lane, start) in tails.items():
            label, start = cname_label(label), cname_label(start) if start else ""
            to = start or label
            inner = [i for i in range(len(recs)) if at[i] == (j, j)]
            count: dict[str, int] = {}
            for i in inner:
                for g in records.gotos(recs[i].template):
                    count[g] = count.get(g, 0) + 1
            guards = [i for i in inner if recs[i].cond is not None and target(i) == to]
            if len(guards) != 1 or count.get(to) != 1:
                continue
            g = guards[0]
            rest = [i for i in inner if i > g]
            begin = 0
            if start:  # `bra end;` and `start:` next (blank records between), the tail after
                near = [i for i in rest if text_in[i] or recs[i].kind == records.LABEL]
                if (len(near) < 2 or recs[near[0]].cond is not None
                        or target(near[0]) != label or count.get(label) != 1
                        or recs[near[1]].kind != records.LABEL or recs[near[1]].label != start
                        or any(text_in[i] for i in rest if near[0] < i < near[1])):
                    continue
                begin = near[1] + 1
            else:
                begin = g + 1
            end = next((i for i in rest if i >= begin and recs[i].kind == records.LABEL
                        and recs[i].label == label), None)
            if end is None or any(j in text_in[i] for i in range(end + 1, len(recs))
                                  if at[i][0] <= j):
                continue
            marks[g] = marks.get(g, "") + _TG
            marks[begin] = marks.get(begin, "") + _TB
            marks[end] = marks.get(end, "") + _TE
            self.tail_found[j] = (label, lane, start)
            self.tail_regs[j] = set().union(*(records.names(recs[i].template)
                                              for i in range(begin, end)))
        return marks

    def _marked_records(self, marks: dict[int, str]) -> list[str]:
        """The body's templates, one per record, with `marks` before records, and each predicated branch
        between the marks of its guard ("@g:<predicate>:<negated>" ... "@/g"): the
        guard-free copy of a region leaves out the branches no thread of the block takes
        (_unguarded)."""
        sites = {s.site: s.opcode for s in self.k.body or () if type(s) is ir.Instruction}
        simd = self.plan.simd
        out = []
        for i, rec in enumerate(self.fe.records):
            x = rec.template
            if (rec.cond is not None and rec.kind == records.BRANCH
                    and sites.get(rec.site) in _GUARDED):
                pred, neg = rec.cond
                x = records.point(f"@g:{pred}:{int(neg)}") + x + records.point("@/g")
            first, last = self.at[i]
            if (rec.writes or "@addr:" in x) and (first in simd or last in simd):
                # where the record's writes and addresses are in a SIMD region's text
                # (_pointer_addresses): before it, and where it resumes
                mark = records.point(f"@rec:{i}")
                if first != last:
                    x = _after_last_split(x, mark)
                x = mark + x
            out.append(marks[i] + x if i in marks else x)
        return out

    def registers(self) -> None:
        """Each register's C type, the registers each region uses, and which of them cross
        regions (per-thread arrays) or are locals of the block function."""
        k, plan, fe, regions = self.k, self.plan, self.fe, self.regions
        types: dict[str, str] = {}
        for ct, names in fe.phase_decls:
            if not all(map(word, names)):
                raise _NotInShape
            types.update(dict.fromkeys(names, ct))
        used = [records.names(r) for r in regions]
        if any(n not in types for u in used for n in u):
            raise _NotInShape
        live = k.info.phase_live
        live_c = set(used[0].union(*used)) if live is None else {cname_reg(n) for n in live}
        if plan.backward:  # a region may run again: everything live at a region start
            crossing = sorted(n for n in types if n in live_c and any(n in u for u in used))
        else:  # each region runs once: what more than one region uses and is live across
            crossing = sorted(n for n in types
                              if n in live_c and sum(n in u for u in used) > 1)
        uniform = {cname_reg(x) for x in plan.uniform}
        remat = _remat(k, plan, used, self.code_at)
        crossing = [x for x in crossing if x not in uniform and x not in remat]
        # lane tails (passes/regions.py): what a tail reads or writes is kept per thread, so
        # the loop over its threads after the region's loop finds it
        tails, tail_regs = self.tail_found, self.tail_regs
        for j in tails:
            crossing += sorted({x for x in tail_regs[j]
                                if x in types and x not in uniform} - set(crossing))
        crossing.sort()
        self.types, self.used, self.remat = types, used, remat
        self.tails, self.tail_regs = tails, tail_regs
        self.crossing, self.cross = crossing, set(crossing)
        self.local = [f"    {types[n]} {n};" for n in types if n not in self.cross]

    # ---- the loops -------------------------------------------------------------------
    def region_loops(self) -> None:
        """The loop of every region, in order, and the scheduler between them."""
        k, plan, nreg = self.k, self.plan, self.nreg
        # shuffles complete from per-thread arrays (ps_shfl_complete) instead of the generic
        # collective records: the regions around them stay free of the context, so SIMD
        self.shfl_insts = {s.site: s for s in k.body or () if type(s) is ir.Instruction
                           and s.opcode == "shfl"}
        self.shfl_end: set[int] = set()
        # region -> (the array the next region reads the source lanes from, mode, d)
        self.inline: dict[int, tuple[str, str, int]] = {}
        self.full_shfl: set[int] = set()  # inline shuffles every thread of the block reaches
        # crossing registers whose own arrays a shuffle's reader reads (no copy): guarded
        self.aliased: set[str] = set()
        # arrays a shuffle's reader may read past the block's last thread: zeroed there
        self.zero_tail: set[str] = set()
        self.constants = _constant_regs(k, plan)
        self.adds = _base_offset_adds(k)
        # branches back to an earlier region (loops across regions): a region counter per
        # thread and a scheduler; forward branches only: the regions in order, each thread
        # skipping those before the one it waits for (ps_pc)
        paths = self.paths = bool(plan.labels) and plan.backward
        loops = self.loops = []
        # regions that start at a block barrier; when a thread may still come to one from a
        # region after it (a branch past the barrier that loops back to it), the threads on
        # their way run before any barrier completes, not in region order (numba's reduce)
        after_bar = [j for j in range(1, nreg) if self.ends[j - 1] == "bar"]
        # where each region's own branches go, in order (read once: a region's text may
        # be hundreds of KB)
        self.region_gotos = [records.gotos(r) for r in self.regions]
        late = paths and _late_arrivals(self.region_gotos, self.start_of, after_bar)
        if paths:
            if late:
                waiting = sum(1 << j for j in after_bar)
                pick = [f"    for (ps_j = 0; ps_j < {nreg}u && (!ps_cnt[ps_j] || "
                        f"((0x{waiting:x}ull >> ps_j) & 1u)); ps_j++) ;",
                        f"    if (ps_j == {nreg}u)",
                        f"        for (ps_j = 0; ps_j < {nreg}u && !ps_cnt[ps_j]; ps_j++) ;"]
            else:
                pick = [f"    for (ps_j = 0; ps_j < {nreg}u && !ps_cnt[ps_j]; ps_j++) ;"]
            loops += [f"    uint32_t ps_cnt[{nreg + 1}] = {{0}};  /* threads waiting at each region */",
                      "    ps_cnt[0] = n;",
                      f"{_lbl('ps_dispatch')}:",
                      *pick,
                      "    switch (ps_j) {",
                      *(f"    case {j}u: goto {_lbl(f'ps_r{j}')};" for j in range(nreg)),
                      "    default: return 0;",
                      "    }"]
        self.spans: dict[int, tuple[int, int]] = {}  # region -> its loop's lines in `loops`
        self.plain: set[int] = set()  # SIMD regions every thread runs, no branch out, no copy
        self.exits = False  # whether some thread may have left
        self.ahead = -1     # the furthest region a branch so far goes to
        self.ranges = dict(plan.ranges)
        # branches no thread of a block may take, decided once per block (cpu/guards.py)
        guards = self.guards = None if paths else cpu_guards.branch_guards(k)
        self.guard_names = ({key: f"ps_gk{i}" for i, key in enumerate(guards.never)}
                            if guards else {})
        self.guards_used: set[str] = set()  # the names a region's guard-free copy tests
        for j, r in enumerate(self.regions):
            self.region(j, r)
        if not paths:
            loops.append("    return 0;")

    def region(self, j: int, r: str) -> None:
        """Region j's loop over the block's threads (its template `r`, records.py, rendered
        with a naming for this region), appended to self.loops."""
        paths, nreg, start_of, exit_gotos = self.paths, self.nreg, self.start_of, self.exit_gotos
        plan, types, used, cross = self.plan, self.types, self.used, self.cross
        tails, remat, inline = self.tails, self.remat, self.inline
        shfl_insts, shfl_end, ranges, loops = self.shfl_insts, self.shfl_end, self.ranges, self.loops
        # whether some thread may wait beyond this region: it has left, or branched past
        exited = self.exits or self.ahead > j
        leave = f"goto {_lbl(f'ps_next_{j}')};"
        done = (f"{{ ps_pc[ps_i] = 0xffffffffu; {leave} }}" if paths
                else f"goto {_lbl(f'ps_exit_{j}')};")

        simd = j in plan.simd

        def jump(name: str, done: str = done, leave: str = leave, simd: bool = simd) -> str:
            if name in start_of:
                t = start_of[name]
                if not paths:
                    return f"{{ ps_pc[ps_i] = {t}u; {leave} }}"
                if simd:  # no shared counter in a SIMD loop: recounted after it
                    return f"{{ ps_pc[ps_i] = {t}u; ps_jumped = 1; {leave} }}"
                return f"{{ ps_pc[ps_i] = {t}u; ps_cnt[{t}]++; {leave} }}"
            if name in exit_gotos:
                return done
            return f"goto {_lbl(name)};"

        end = self.ends.get(j, "")
        own_gotos = self.region_gotos[j]
        # the shuffle that ends the region (its site)
        shfl = int(end[5:]) if end.startswith("coll:") and int(end[5:]) in shfl_insts else None
        const = None
        if shfl is not None and not paths:
            const = _const_shfl(shfl_insts[shfl], self.constants)
        # every thread of the block reaches the shuffle: none has left, none is ruled out by
        # a guard range, none branches away in this region
        full = (const is not None and not exited and j not in ranges
                and not any(x in start_of or x in exit_gotos for x in own_gotos)
                and _RET not in r)
        # the shuffled register's own array serves as the source lanes when every thread
        # deposits and the next region does not assign it (Record.writes)
        source = self.deposits.get(shfl) if full else None
        if (source is None or source not in cross or types[source] not in _WORD
                or j + 1 >= nreg or source in self.writes_in.get(j + 1, ())):
            source = None
        # registers no later region (nor this one's tail) reads: locals of this region's
        # loop, loaded from their arrays as it opens, instead of stores nobody reads
        later = set().union(*used[j + 1:]) if j + 1 < nreg else set()
        if j in tails:
            later |= self.tail_regs[j]
        own = set() if paths else {x for x in used[j] & cross if x not in later
                                   and x != source}

        # the deposit of the shuffle ending the region, into the shuffle arrays (its source
        # lane from the thread's index, no context): completed after the loop
        # (ps_shfl_complete), or, for a constant one with regions in order, read by the next
        # region from one of two arrays the shuffles alternate or from the shuffled
        # register's own array; a thread that does not reach the shuffle then zeroes its
        # element, so a lane reading it gets 0, as on NVIDIA's GPUs
        spell: dict[str, str | None] = {}
        park = zero = None
        if shfl is not None:
            if const is not None:
                arr = f"ps_sv{'AB'[len(inline) % 2]}"
                dval = None if source is not None else f"{arr}[ps_i] = (uint32_t)"
                if source is not None:
                    arr = f"ps_s_{source}"
                    self.aliased.add(source)
                inline[j] = (arr, *const)
                if full:
                    self.full_shfl.add(j)
                if const[0] == "down":  # (shfl.up never reads past the last thread)
                    self.zero_tail.add(arr)
                zero = None if full else arr
                dsrc, dok, park = "(void)", "(void)", ""
            else:
                dval, dsrc, dok = "ps_sv[ps_i] = (uint32_t)", "ps_ss[ps_i] = ", "ps_sok[ps_i] = "
                park = "ps_sep[ps_i] = ps_ep;"
            spell.update({f"@dlane:{shfl}": _LANE_AT, f"@dval:{shfl}": dval,
                          f"@dsrc:{shfl}": dsrc, f"@dok:{shfl}": dok})
            shfl_end.add(j)
        if j - 1 in shfl_end:  # the result of the shuffle ending the region before
            prev = int(self.ends[j - 1][5:])
            if j - 1 in inline:
                arr, mode, d = inline[j - 1]
                spell[f"@sres:{prev}"] = _shfl_read(arr, mode, d)
                spell[f"@sok:{prev}"] = f"({_shfl_source(mode, d, 'ps_i', '(ps_i & 31u)')[0]})"
            else:
                spell[f"@sres:{prev}"] = "ps_sres[ps_i]"
                spell[f"@sok:{prev}"] = "(ps_sok[ps_i] != 0)"
        naming = _Naming(cross - own, jump, simd, done, spell, park)

        need = {x for x in used[j] if x in remat and remat[x][0] < j}
        for x in sorted(remat, key=lambda x: -remat[x][1]):  # dependencies first, backwards
            if x in need:
                need |= remat[x][2] & remat.keys()
        # the labels this region's branches go to (its own and those of what it recomputes)
        branches = own_gotos + [g for x in need for g in records.gotos(
            self.code_at[remat[x][1]])]
        pre = "".join(f"{types[x]} {x} = ps_s_{x}[ps_i];\n" for x in sorted(own))
        pre += "".join(naming.render(self.code_at[remat[x][1]]) + "\n"
                       for x in sorted(need, key=lambda x: remat[x][1]))
        # whether a thread may leave the kernel here (its own code: what it recomputes is
        # plain arithmetic)
        leaves = _RET in r
        template = r
        r = pre + naming.render(r)
        for x in branches:
            if x in start_of:
                self.ahead = max(self.ahead, start_of[x])
            self.exits = self.exits or x in exit_gotos
        self.exits = self.exits or leaves
        if simd:
            # a SIMD loop keeps no thread's context (c.tid_x ... stay unset): none of its
            # records, nor what it recomputes, reads it, and a shuffle ending it deposits
            # into the arrays (not through ps_shfl_lane's context)
            simd = not (j in self.context
                        or any(remat[x][1] in self.context_sites for x in need)
                        or (shfl is not None and j not in shfl_end))
        if simd:  # (in scalar loops clang's own vectorizer then chose masked code: slower)
            pre_writes = [(None, (x,)) for x in sorted(own)] + [
                (self.rec_index[remat[x][1]],
                 self.fe.records[self.rec_index[remat[x][1]]].writes)
                for x in sorted(need, key=lambda x: remat[x][1])]
            r = _pointer_addresses(r, j, pre_writes, self.fe.records, self.at, self.adds,
                                   naming.arrays)
        else:
            r = _plain_addresses(r)
        tail = _split_tail(r) if simd and j in tails and not paths else None
        if tail is None:
            r = _no_tail_marks(r)
        else:
            r, tail_code = tail
            tail_code = _unguarded(tail_code, {})[1]
        # the copy without the branches no thread of the block takes, and r without marks
        fast, r, conds = _unguarded(r, self.guard_names)
        tids = "" if simd else "                c.tid_x = x; c.linear = ps_i;"
        lo_hi = "ps_lo = 0; ps_hi = nx;"
        if j in ranges and not paths:
            # only these threads do anything here (a guard on %tid.x, passes/regions.py)
            lo, hi = ranges[j]
            lo_hi += (f" if (ny == 1 && nz == 1) {{ ps_lo = {lo}u < nx ? {lo}u : nx; "
                      f"ps_hi = {hi}u < nx ? {hi}u : nx; }}")
        pragma = []
        if simd:  # threads in lockstep, as in a warp (passes/regions.py _SIMD_SAFE)
            red = "reduction(+:ps_fall) reduction(|:ps_jumped)" if paths else ""
            # one vector of threads per step: blocks are often only 16 or 32 wide
            pragma = [f'            _Pragma("omp simd {red}")',
                      '            _Pragma("clang loop interleave_count(1)")']
        head = [f"    {lo_hi}", *_row_loops(pragma, "x = ps_lo; x < ps_hi; x++")]
        if paths:
            loops += [f"{_lbl(f'ps_r{j}')}: {{  /* region {j} */",
                      "    uint32_t ps_fall = 0;",
                      "    uint32_t ps_jumped = 0;",
                      f"    ps_cnt[{j}] = 0;",
                      *head,
                      f"                if (ps_pc[ps_i] != {j}u) continue;",
                      tids,
                      r,
                      f"                ps_pc[ps_i] = {j + 1}u; ps_fall++;",
                      f"                {_lbl(f'ps_next_{j}')}: ;",
                      "            }",
                      "        }",
                      f"    if (ps_jumped) ps_recount(ps_pc, n, ps_cnt, {nreg + 1}u);",
                      f"    else ps_cnt[{j + 1}] += ps_fall;",
                      "    if (trap) return trap;"]
        elif j not in self.busy and not self.ends.get(j, "").startswith("coll"):
            # nothing but a label (a branch target): threads waiting here go on to the next
            # region, which they would run anyway (ps_pc <= j + 1)
            loops.append(f"    /* region {j}: nothing to run */")
        else:
            opening = [*head,
                       f"                {zero}[ps_i] = 0;" if zero else "",
                       f"                if (ps_pc[ps_i] > {j}u) continue;" if exited else "",
                       tids]
            closing = [f"                goto {_lbl(f'ps_next_{j}')};",
                       # (after the last region nobody reads the exit mark)
                       f"                {_lbl(f'ps_exit_{j}')}: "
                       + ("ps_pc[ps_i] = 0xffffffffu;" if j + 1 < nreg else ";"),
                       f"                {_lbl(f'ps_next_{j}')}: ;",
                       "            }",
                       "        }"]
            span_start = len(loops)
            loops.append(f"    /* region {j} */")
            if conds:
                # a block where no thread takes these branches (the `i < n` of most
                # kernels, tested again around the last store) runs a copy without them:
                # no masked loads and stores, which streamed at half the speed
                self.guards_used.update(conds)
                loops += [f"    if ({' && '.join(conds)}) {{",
                          *(_Labels("_f").render(x) for x in [*opening, fast, *closing]),
                          "    } else {", *opening, r, *closing, "    }"]
            else:
                loops += [*opening, r, *closing]
            loops.append("    if (trap) return trap;")
            self.spans[j] = (span_start, len(loops))
            # the branches its loop keeps (its own, less its lane tail's, and those of what
            # it recomputes) all leave the kernel: none goes to another region (ps_pc) or
            # within this one
            kept = (list(own_gotos) if tail is None
                    else records.gotos(_split_tail(template)[0]))
            kept += [g for x in need for g in records.gotos(self.code_at[remat[x][1]])]
            if (simd and not exited and j not in ranges and not conds and not zero
                    and all(x not in start_of and x in exit_gotos for x in kept)):
                self.plain.add(j)  # (a region a warp-vector chain may replace)
            if zero is not None and j in ranges:
                # the lanes of the range's warps that the loop did not visit
                loops += ["    if (ny == 1 && nz == 1) {",
                          f"        for (uint32_t x = ps_lo & ~31u; x < ps_lo; x++) {zero}[x] = 0;",
                          "        for (uint32_t x = ps_hi; x < n && x < ((ps_hi + 31u) & ~31u);"
                          f" x++) {zero}[x] = 0;",
                          "    }"]
            if tail is not None:
                lane = tails[j][1]
                loops += [f"    /* region {j}: its tail, which only threads with %tid.x & 31 == "
                          f"{lane} run */",
                          *_row_loops([], f"x = (ps_lo & ~31u) + {lane}u; x < ps_hi; x += 32"),
                          f"                if (x < ps_lo || ps_pc[ps_i] > {j}u) continue;",
                          tail_code,
                          "            }",
                          "        }",
                          "    if (trap) return trap;"]
        if j in shfl_end:
            if j not in inline:  # (inline: the next region reads the source lanes)
                loops += _shfl_completion(shfl_insts[int(self.ends[j][5:])], self.constants)
        elif self.ends.get(j, "").startswith("coll"):
            done = ("ps_phase_warpfns(n, wave, ps_state, coll, c.wrec)"
                    if int(self.ends[j][5:]) in self.fe.form.warp_sites
                    else "ps_phase_collectives(n, wave, ps_state, ps_resume, coll, c.wrec)")
            loops.append(f"    {done};")
        if paths:
            loops += [f"    goto {_lbl('ps_dispatch')};", "}"]

    def one_d(self) -> None:
        """A 1-D block of whole warps (most launches) runs a copy of the loops in which the
        compiler knows that: every x loop a whole number of vectors, no row loops (scan's
        figure: benchmarks/README.md); chains of shuffle regions there run as warp vectors."""
        loops = self.loops
        if sum(x.count("\n") + 1 for x in loops) > MAX_1D_LINES:
            return
        one_d = list(loops)
        chains = [] if self.paths else self.warp_chains()
        for first, last, code in reversed(chains):
            one_d[self.spans[first][0]:self.spans[last][1]] = [
                f"    /* regions {first}-{last}: warp vectors (cpu_warpvec.py) */", *code,
                "    ps_lo = 0; ps_hi = nx;", "    if (trap) return trap;"]
        self.loops = ["    if (ny == 1 && nz == 1 && (nx & 31u) == 0) {  /* 1-D, whole warps */",
                      # (one substitution over the copy's text: a label never spans
                      # its lines, and assemble() joins them with newlines)
                      *([_Labels("_w").render("\n".join(one_d))] if one_d else []),
                      "    }", *loops]

    def warp_chains(self) -> list[tuple[int, int, list[str]]]:
        """Chains of regions j0..j1 the 1-D copy runs as warp vectors (cpu/warpvec.py): each
        entered through a full constant shuffle at the end of region j0 - 1 (its source in
        an array), each region plain SIMD, each but the last ending in such a shuffle, the
        last at a barrier (after which its lane tail, if any, runs as before)."""
        k, plan, inline, nreg = self.k, self.plan, self.inline, self.nreg
        full_shfl, plain, ends, tail_regs = self.full_shfl, self.plain, self.ends, self.tail_regs
        cross, types, used = self.cross, self.types, self.used
        body = k.body or []
        region = region_numbers(body, plan)
        by_region: dict[int, list] = {}
        for s, rg in zip(body, region, strict=True):
            by_region.setdefault(rg, []).append(s)
        uniform = set(plan.uniform)
        constants = _constant_regs(k, plan)
        sites = {s.site: s for s in body if type(s) is ir.Instruction}
        remat = {sites[site].operands[0].name: sites[site] for _, site in plan.remat
                 if site in sites}
        arrays = {}
        for s in body:
            if type(s) is ir.Instruction:
                for name in ir.written(s):
                    if cname_reg(name) in cross:
                        arrays[name] = types[cname_reg(name)]
        scalar = {site: _Scalar().render(code)
                  for site, code in self.code_at.items()
                  if site in sites and sites[site].operands
                  and type(sites[site].operands[0]) is ir.Reg
                  and sites[site].operands[0].name in uniform}
        out = []
        j = 1
        while j < nreg:
            if not (j - 1 in inline and j - 1 in full_shfl and j in plain
                    and inline[j - 1][0].startswith(("ps_s_", "ps_sv"))):
                j += 1
                continue
            last = j
            while last in full_shfl and last + 1 in plain:
                last += 1
            if ends.get(last, "bar") not in ("bar", "") or last in full_shfl:
                j = last + 1
                continue
            insts = [by_region[j - 1][-1]]
            for rg in range(j, last + 1):
                for s in by_region.get(rg, []):
                    if type(s) is ir.Instruction and s.opcode == "bar":
                        break
                    if (rg == last and last in tail_regs and type(s) is ir.Instruction
                            and s.opcode == "bra"):
                        break  # the lane tail's guard: the tail runs after the chain
                    if type(s) is not ir.Instruction:
                        insts = []
                        break
                    insts.append(s)
                if not insts:
                    break
            # what regions after the chain, and its last region's tail, read from the arrays
            later = set().union(*used[last + 1:]) if last + 1 < nreg else set()
            later |= tail_regs.get(last, set())
            consts = {s.site: _const_shfl(s, constants) for s in insts if s.opcode == "shfl"}
            code = None
            if insts and all(c is not None for c in consts.values()):
                stores = {name for name in arrays if cname_reg(name) in later}
                code = cpu_warpvec.chain_loop(insts, inline[j - 1][0], uniform, remat, arrays,
                                              scalar, consts, stores)
            if code is not None:
                out.append((j, last, code))
            j = last + 1
        return out

    # ---- the block function ----------------------------------------------------------
    def arrays(self) -> None:
        """run_block lines sizing (self.sizes) and carving (self.array_lines) the per-thread
        arrays out of the phase buffer."""
        types, inline, shfl_end = self.types, self.inline, self.shfl_end
        arrays: list[str] = []
        sizes: list[str] = []
        for nm in self.crossing:
            # restrict: the kernel cannot address these arrays (they are the pyshim's own)
            if nm in self.aliased:  # a shuffle's source lanes: 32 guard elements each side
                arrays += [f"    {types[nm]} *restrict ps_s_{nm} = ({types[nm]} *)(ps_buf + ps_off)"
                           " + 32;",
                           "    ps_off += ((uint64_t)(n + 64) * 4 + 63) & ~63ull;"]
                sizes.append("    ps_size += ((uint64_t)(n + 64) * 4 + 63) & ~63ull;")
                continue
            arrays += [f"    {types[nm]} *restrict ps_s_{nm} = ({types[nm]} *)(ps_buf + ps_off);",
                       f"    ps_off += ((uint64_t)n * sizeof({types[nm]}) + 63) & ~63ull;"]
            sizes.append(f"    ps_size += ((uint64_t)n * sizeof({types[nm]}) + 63) & ~63ull;")
        # the collective records only for collectives that are not shuffles completed from
        # the shuffle arrays: only their regions park a thread in ps_state/ps_resume or
        # keep its record (coll[ps_i]); a completed shuffle's deposit and result are
        # rewritten whole (_shfl_deposit, region), or it is not completed from the arrays
        colls = any(e.startswith("coll") and j not in shfl_end for j, e in self.ends.items())
        if colls:
            sizes.append("    ps_size += ((uint64_t)n * sizeof(ps_coll) + 63) & ~63ull;")
            sizes.append("    ps_size += ((uint64_t)n * 5 + 63) & ~63ull;")
            arrays += ["    ps_coll *restrict coll = (ps_coll *)(ps_buf + ps_off);",
                       "    ps_off += ((uint64_t)n * sizeof(ps_coll) + 63) & ~63ull;",
                       "    uint32_t *ps_resume = (uint32_t *)(ps_buf + ps_off);",
                       "    uint8_t *ps_state = (uint8_t *)(ps_resume + n);",
                       "    memset(coll, 0, (size_t)n * sizeof(ps_coll));",
                       "    memset(ps_state, 0, n);",
                       "    c.coll = coll;",
                       "    ps_off += ((uint64_t)n * 5 + 63) & ~63ull;"]
        if colls or shfl_end:
            arrays.append("    const uint32_t wave = PS_WAVE_SIZE(&c);")
        if self.fe.form.warp_fns:
            # warp matrix instructions: the block's records (mma_cpu.h)
            sizes.append("    ps_size += (ps_wblock_bytes(n) + 63) & ~63ull;")
            arrays += ["    ps_wwarp ps_wb;",
                       "    ps_wblock_init(&ps_wb, ps_buf + ps_off, n);",
                       "    ps_off += (ps_wblock_bytes(n) + 63) & ~63ull;",
                       "    c.wrec = &ps_wb;",
                       "    uint32_t *restrict ps_win = ps_wb.in, *restrict ps_wout = ps_wb.out;",
                       "    uint8_t **restrict ps_waddr = ps_wb.addr;",
                       "    (void)ps_win; (void)ps_wout; (void)ps_waddr;"]
        if shfl_end - inline.keys():
            # 32 elements of guard before and after each array: a shuffle by a constant lane
            # offset reads its source as a plain shifted load (_shfl_completion)
            sizes.append("    ps_size += 4 * (((uint64_t)(n + 64) * 4 + 63) & ~63ull)"
                         " + (((uint64_t)n + 63) & ~63ull);")
            arrays += ["    uint32_t ps_ep = 1;",
                       *_guarded_arrays(("ps_sep", "ps_ss", "ps_sv", "ps_sres")),
                       "    uint8_t *restrict ps_sok = ps_buf + ps_off;",
                       "    ps_off += ((uint64_t)n + 63) & ~63ull;"]
        if any(v[0].startswith("ps_sv") for v in inline.values()):
            sizes.append("    ps_size += 2 * (((uint64_t)(n + 64) * 4 + 63) & ~63ull);")
            arrays += _guarded_arrays(("ps_svA", "ps_svB"), zero=False)
        # a shfl.down past the block's last thread reads 0 there (a lane past a partial
        # warp's end); below the first thread the shuffle's condition never picks the value
        arrays += [f"    memset({x} + n, 0, 32 * 4);" for x in sorted(self.zero_tail)]
        self.sizes, self.array_lines = sizes, arrays

    def assemble(self) -> str:
        k, index = self.k, self.index
        static = k.info.shared_size
        return "\n".join([
            f"/* kernel {k.name}: {self.nreg} region loops */",
            f"static int k{index}_run_block(const pyshim_launch *lp, const pyshim_block *b,"
            " void *const *params) {",
            "    int trap = 0;",
            "    ps_tctx c;",
            f"    if (ps_ctx_init(&c, lp, b, params, {static}u, &trap)) return 2;",
            *param_copies(k),
            *cpu_prefetch.lines(k),
            "    ps_tctx *ctx = &c;",
            "    const uint32_t nx = c.ntid_x, ny = c.ntid_y, nz = c.ntid_z, n = c.nthreads;",
            "    uint32_t ps_j = 0, ps_lo, ps_hi;",
            "    (void)ps_j; (void)ps_lo; (void)ps_hi;",
            *_guard_setup(self.guards, self.guard_names, self.guards_used),
            self.prologue,
            *self.local,
            "    uint64_t ps_size = ((uint64_t)n * 4 + 63) & ~63ull;",
            *self.sizes,
            "    uint8_t *ps_buf = (uint8_t *)ps_phase_buffer(ps_size);",
            "    if (!ps_buf) return 2;",
            "    /* per thread: the region it runs next (branches between regions), else whether"
            " it has exited */",
            "    uint32_t *ps_pc = (uint32_t *)ps_buf;",
            "    memset(ps_pc, 0, (size_t)n * 4);",
            "    uint64_t ps_off = ((uint64_t)n * 4 + 63) & ~63ull;",
            *self.array_lines,
            *(_SPELLED.render(x) for x in self.loops),
            "}"])


def _guard_setup(guards, names: dict[tuple[str, bool], str], tested: set[str]) -> list[str]:
    """run_block lines computing the block-level conditions the region loops test
    (`tested`: those of `names` that some region's guard-free copy is entered by)."""
    used = [(key, name) for key, name in names.items() if name in tested]
    if not used:
        return []
    return ["    const int64_t ps_box[3] = {(int64_t)nx - 1, (int64_t)ny - 1, (int64_t)nz - 1};",
            *guards.setup,
            *(f"    const int {name} = nx && ny && nz && {guards.never[key]};"
              for key, name in used)]


def _remat(k: ir.Function, plan, used: list[set[str]], code_at: dict[int, str]
           ) -> dict[str, tuple[int, int, set[str]]]:
    """The plan's rematerialisable registers (C names) this kernel can recompute at region
    starts: name -> (region of the definition, its site, the registers it reads). A register
    read in a region before its definition's (a loop back to it) is kept per thread, and so
    is everything computed from it."""
    sites = {s.site: s for s in k.body or () if type(s) is ir.Instruction}
    out: dict[str, tuple[int, int, set[str]]] = {}
    for region, site in plan.remat:
        inst = sites.get(site)
        if inst is None or site not in code_at:
            continue
        deps = {cname_reg(op.name) for op in inst.operands[1:]
                if type(op) is ir.Reg and "." not in op.name}
        out[cname_reg(inst.operands[0].name)] = (region, site, deps)
    uniform = {cname_reg(x) for x in plan.uniform}
    changed = True
    while changed:
        changed = False
        for name, (region, _site, deps) in list(out.items()):
            if (any(name in used[j] for j in range(region))
                    or any(d not in out and d not in uniform for d in deps)):
                del out[name]
                changed = True
    return out


def _row_loops(pragma: list[str], x_loop: str) -> list[str]:
    """The opening lines of a loop over the block's threads: rows (z, y), then `x_loop`
    (the text inside `for (uint32_t ...)`), marked by `pragma`; ps_i is the thread."""
    return ["    for (uint32_t z = 0; z < nz; z++)",
            "        for (uint32_t y = 0; y < ny; y++) {",
            "            uint32_t ps_row = (z * ny + y) * nx;",
            "            c.tid_y = y; c.tid_z = z;",
            *pragma,
            f"            for (uint32_t {x_loop}) {{",
            "                uint32_t ps_i = ps_row + x;"]


def _split_tail(r: str) -> tuple[str, str]:
    """Region text `r` without its lane tail (the tail's guard gone), and the tail: the
    text between its marks (RegionKernel.tail_marks)."""
    head, _, rest = r.partition(_TG)
    _guard, _, rest = rest.partition(_TB)
    tail, _, rest = rest.partition(_TE)
    return head + rest, tail


class _NoTail(records.Naming):
    """Spells a lane tail's marks as nothing (a region that keeps its tail in its loop) and
    leaves every other placeholder for the renders after it."""

    def reg(self, name: str) -> str:
        return records.reg(name)

    def point(self, what: str) -> str:
        return "" if what in ("@tg", "@tb", "@te") else records.point(what)


_NO_TAIL = _NoTail()


def _no_tail_marks(r: str) -> str:
    """Region text `r` without the marks of a lane tail it keeps in its loop."""
    return _NO_TAIL.render(r) if _TG in r else r


# region loops longer than this get no copy for 1-D blocks (it doubles their compile time)
MAX_1D_LINES = 2000


def _late_arrivals(region_gotos: list[list[str]], start_of: dict[str, int],
                   after_bar: list[int]) -> bool:
    """Whether a thread can wait at a region after barrier region b without having passed
    b, and then come back to b: reachable from region 0 along branches and fall-throughs
    that avoid b, and reaching b (`region_gotos`: each region's branch targets)."""
    if not after_bar:
        return False
    n = len(region_gotos)
    succ = [{start_of[x] for x in g if x in start_of} | ({j + 1} if j + 1 < n else set())
            for j, g in enumerate(region_gotos)]

    def reach(first: int, avoid: int) -> set[int]:
        seen, todo = {first}, [first]
        while todo:
            for t in succ[todo.pop()]:
                if t not in seen and t != avoid:
                    seen.add(t)
                    todo.append(t)
        return seen

    return any(c > b and b in reach(c, -1) for b in after_bar for c in reach(0, b))


def _unguarded(r: str, names: dict[tuple[str, bool], str]) -> tuple[str, str, list[str]]:
    """Region text `r` (its guards marked, _marked_records) without its branches on predicates
    that `names` maps (with the negation) to a block-level condition that no thread takes
    them; `r` without the marks; and those conditions."""
    if "@g:" not in r:
        return r, r, []
    parts = r.split(PH)
    fast: list[str] = []
    slow: list[str] = []
    conds: list[str] = []
    drop = False
    for i, x in enumerate(parts):
        if not i % 2:
            slow.append(x)
            if not drop:
                fast.append(x)
        elif x[:3] == "@g:":
            pred, _, neg = x[3:].rpartition(":")
            name = names.get((pred, neg == "1"))
            if name is not None:
                drop = True
                if name not in conds:
                    conds.append(name)
        elif x == "@/g":
            drop = False
        else:
            slow.append(PH + x + PH)
            if not drop:
                fast.append(PH + x + PH)
    return "".join(fast), "".join(slow), conds


def _shfl_completion(inst: ir.Instruction, constants: dict[str, int]) -> list[str]:
    """C lines completing shuffle `inst` after its region loop. shfl.up by a constant d over
    the whole warp (c = 0) and shfl.down by d (c = 31), the scan and reduction idioms, read
    lane l - d or l + d of the same warp: a shifted contiguous load into the guarded arrays
    rather than a gather. Anything else completes from the source lanes the threads
    deposited (cpu.h ps_shfl_complete). A source lane in range that did not take part
    gives 0, as on NVIDIA's GPUs."""
    generic = ["    ps_shfl_complete(n, wave, ps_ep, ps_sep, ps_ss, ps_sv, ps_sres); ps_ep++;"]
    const = _const_shfl(inst, constants)
    if const is None:
        return generic
    inr, exists, at = _shfl_source(*const, "i", "l")
    took = "e == ps_ep" if exists is None else f"{exists} && e == ps_ep"
    return ["    for (uint32_t w = 0; w < n; w += 32) {",
            "        const uint32_t lanes = n - w < 32u ? n - w : 32u;",
            '        _Pragma("omp simd")',
            "        for (uint32_t l = 0; l < lanes; l++) {",
            "            const uint32_t i = w + l;",
            f"            const uint32_t v = ps_sv[{at}], e = ps_sep[{at}];",
            f"            if (ps_sep[i] == ps_ep) ps_sres[i] = !({inr}) ? ps_sv[i] : ({took}) ? v : 0u;",
            "        }",
            "    }",
            "    ps_ep++;"]


def _const_shfl(inst: ir.Instruction, constants: dict[str, int]) -> tuple[str, int] | None:
    """("up", d) for shfl.up by a constant d over the whole warp (c = 0), ("down", d) for
    shfl.down with c = 31; None for anything else."""
    mode = inst.mods[1] if len(inst.mods) > 1 else ""
    vals = []
    for op in inst.operands[2:4]:
        if type(op) is ir.Imm and op.kind == "int":
            vals.append(int(op.value) & 0xffffffff)
        elif type(op) is ir.Reg and op.name in constants:
            vals.append(constants[op.name] & 0xffffffff)
        else:
            return None
    if mode == "up" and vals[1] == 0:
        return "up", vals[0] & 31
    if mode == "down" and vals[1] == 31:
        return "down", vals[0] & 31
    return None


def _shfl_source(mode: str, d: int, i: str, lane: str) -> tuple[str, str | None, str]:
    """For thread index `i` at warp lane `lane`, a constant shuffle's in-range predicate
    (PTX's p), the condition for its source thread to exist (None: it always does) and that
    thread's index in the guarded arrays (32 elements each side absorb what the conditions
    rule out)."""
    if mode == "up":
        return f"{lane} >= {d}u", None, f"(int64_t){i} - {d}"
    return f"{lane} + {d}u < 32u", f"{i} + {d}u < n", f"{i} + {d}u"


def _guarded_arrays(names: tuple[str, ...], zero: bool = True) -> list[str]:
    """run_block lines carving uint32 per-thread arrays (zeroed, with `zero`) with 32 guard
    elements on each side out of ps_buf at ps_off."""
    return [f"    uint32_t {', '.join('*restrict ' + x for x in names)};",
            f"    {{ uint32_t **ps_guarded[{len(names)}] = "
            f"{{{', '.join('&' + x for x in names)}}};",
            f"      for (int a = 0; a < {len(names)}; a++) {{",
            *(["        memset(ps_buf + ps_off, 0, (size_t)(n + 64) * 4);"] if zero else []),
            "        *ps_guarded[a] = (uint32_t *)(ps_buf + ps_off) + 32;",
            "        ps_off += ((uint64_t)(n + 64) * 4 + 63) & ~63ull;",
            "    } }"]


def _shfl_read(arr: str, mode: str, d: int) -> str:
    """The value thread ps_i reads from a constant shuffle deposited in array `arr` by the
    region before: out of range, its own; else its source lane's element, which a lane
    that did not take part (or past the block's end) left 0, as NVIDIA's GPUs return for a
    lane outside the shuffle. Both values are loaded and one picked: a vector of threads
    then reads contiguous vectors instead of gathering."""
    inr, _exists, at = _shfl_source(mode, d, "ps_i", "(ps_i & 31u)")
    return f"ps_pick32({inr}, {arr}[{at}], {arr}[ps_i])"


# register types a shuffle's source array may have (shfl is .b32)
_WORD = frozenset(("uint32_t", "int32_t"))


def _constant_regs(k: ir.Function, plan) -> dict[str, int]:
    """Uniform registers whose one definition is `mov %r, <integer immediate>`."""
    out = {}
    for s in k.body or ():
        if (type(s) is ir.Instruction and s.opcode == "mov" and s.pred is None
                and len(s.operands) == 2 and type(s.operands[0]) is ir.Reg
                and s.operands[0].name in plan.uniform and type(s.operands[1]) is ir.Imm
                and s.operands[1].kind == "int"):
            out[s.operands[0].name] = int(s.operands[1].value)
    return out


def _base_offset_adds(k: ir.Function) -> dict[str, tuple[str, str, frozenset[int]]]:
    """64-bit adds of two registers that form an address, as C names: destination ->
    (base, offset, the sites of the add.s64 instructions of the two that define it), the
    base being the operand pointer_regs.py takes for a pointer. Only those whose three C
    names are words (the arrays and members of the region loops, word())."""
    out = {}
    for dst, base, off in pointer_regs.plan(k).defs.values():
        if type(off) is ir.Reg and "." not in off.name and "." not in base:
            d, b, o = cname_reg(dst), cname_reg(base), cname_reg(off.name)
            if word(d) and word(b) and word(o):
                out[d] = (b, o)
            else:
                out.pop(d, None)  # (a later definition replaces an earlier one's entry)
    sites: dict[str, set[int]] = {}
    Reg = ir.Reg
    for s in k.body or ():
        if (type(s) is ir.Instruction and s.opcode == "add" and s.mods == ("s64",)
                and len(s.operands) == 3):
            o0, o1, o2 = s.operands
            if type(o0) is not Reg or type(o1) is not Reg or type(o2) is not Reg:
                continue
            got = out.get(cname_reg(o0.name))
            if got is None:
                continue
            # the two operands are the pair (as a set: either order, or both the same)
            a, b = cname_reg(o1.name), cname_reg(o2.name)
            if (a == got[0] and b == got[1]) or (a == got[1] and b == got[0]):
                sites.setdefault(cname_reg(o0.name), set()).add(s.site)
    return {d: (b, o, frozenset(sites.get(d, ()))) for d, (b, o) in out.items()}


def _after_last_split(template: str, mark: str) -> str:
    """A template with `mark` after its last synchronisation point or region mark (where a
    record that spans regions resumes)."""
    parts = template.split(PH)
    at = max(i for i in range(1, len(parts), 2) if parts[i][:4] in ("@bar", "@col", "@reg"))
    return PH.join(parts[:at + 1]) + PH + mark + PH.join(parts[at + 1:])


def _plain_addresses(r: str) -> str:
    """Region text `r` with its registers' addresses as they stand, without record marks."""
    if "@addr:" not in r and "@rec:" not in r:
        return r
    parts = r.split(PH)
    out = [parts[0]]
    for i in range(1, len(parts), 2):
        x = parts[i]
        if x[:6] == "@addr:":
            out.append(_ADDR + x[6:])
        elif x[:5] != "@rec:":
            out.append(PH + x + PH)
        out.append(parts[i + 1])
    return "".join(out)


def _pointer_addresses(r: str, j: int, pre: list, recs: list, at: list[tuple[int, int]],
                       adds: dict[str, tuple[str, str, frozenset[int]]], arrays: set[str]
                       ) -> str:
    """Region j's text `r` whose memory accesses through an address computed in the region
    as base + offset (a local, one definition) read `(uint8_t *)base + offset`: pointer
    arithmetic, which clang vectorizes into contiguous loads and stores where the integer
    sum, converted to a pointer, makes it gather and scatter (pointer_regs.py says why).
    Kept only where neither operand is written again after the definition. The writes are
    the records' (Record.writes, where the marks "@rec:<i>" place them; `pre`: (record or
    None, writes) of the loads and recomputations `r` opens with), the accesses the
    "@addr:<register>" points of the locals."""
    parts = r.split(PH)
    if len(parts) == 1:
        return r
    # each write's place in the region's order of records; a register's sole definition's
    # place (None: several) and record
    defs: dict[str, int | None] = {}
    last: dict[str, int] = {}
    who: list[int | None] = []

    def write(rec: int | None, names) -> None:
        for n in names:
            defs[n] = None if n in defs else len(who)
            last[n] = len(who)
        who.append(rec)

    for rec, names in pre:
        write(rec, names)
    # the record marks and addresses (the placeholders this rewrites) by part index; the
    # others are copied with the text around them (a join of the parts between, with PH)
    marks = [i for i in range(1, len(parts), 2)
             if parts[i][:5] == "@rec:" or parts[i][:6] == "@addr:"]
    place: dict[int, int] = {}  # part index of a record mark -> the record's place
    for i in marks:
        x = parts[i]
        if x[1] == "r":  # (@rec:; write() inline)
            k = int(x[5:])
            n = place[i] = len(who)
            if at[k][1] == j:
                for name in recs[k].writes:
                    defs[name] = None if name in defs else n
                    last[name] = n
            who.append(k)
    out = []
    prev = 0  # the first part not copied yet (text)
    cur = -1
    for i in marks:
        out.append(PH.join(parts[prev:i]))
        prev = i + 1
        x = parts[i]
        if x[1] == "r":
            cur = place[i]
            continue
        name = x[6:]
        spelled = _ADDR + name
        hit = adds.get(name)  # (its three names words: _base_offset_adds)
        if hit is not None:
            base, off, sites = hit
            d = defs.get(name)
            # (not `p = p + off`: the access needs p's value before the add)
            if (d is not None and d < cur and who[d] is not None
                    and name != base and name != off
                    and recs[who[d]].site in sites
                    and base not in arrays and off not in arrays
                    and last.get(base, -1) <= d and last.get(off, -1) <= d):
                # both among the add's registers (Record.regs: for word names, a
                # placeholder of the name or of its address; its few placeholders as a list)
                ph = recs[who[d]].template.split(PH)[1::2]
                if ((base in ph or "@addr:" + base in ph)
                        and (off in ph or "@addr:" + off in ph)):
                    spelled = f"({_ADDR}{base} + (int64_t){off})"
        out.append(spelled)
    out.append(PH.join(parts[prev:]))
    return "".join(out)
