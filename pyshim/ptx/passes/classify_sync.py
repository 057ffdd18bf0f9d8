"""Decides how each kernel runs on the CPU device (`info['mode']`).

`info['sync']` is True for a function that contains, or calls (transitively) a function that
contains, a block barrier or a warp collective. Indirect calls count as synchronising (we
cannot see the callee). Kernels:
- "loop": no sync at all: a plain loop over the block's threads (unless a loop in it walks
  global memory or reads a clock: then "phase" with region loops running the loop's
  iterations in lockstep);
- "phase": the only sync is `bar.sync <imm>`, `bar.red` (no count), shfl, vote,
  activemask, match, redux, elect, bar.warp.sync or a warp matrix instruction (mma, wmma,
  ldmatrix, stmatrix, movmatrix: a whole-warp function between phases) in
  the kernel body itself (not in callees): each thread runs until it reaches one, with its
  registers in a per-thread context, and returns that site; the block function loops over
  the threads phase after phase and completes barriers and collectives in between (no
  stacks, no context switches); `info['regions']` (a RegionPlan, or None) says
  whether it can instead run as one thread loop per region between synchronisation points
  (passes/regions.py);
- "fiber": everything else (sync in callees, bar.arrive, barrier counts, several barrier
  ids).
"""

from __future__ import annotations

from pyshim.ptx import ir
from pyshim.ptx.isa.instructions import BARRIERS, COLLECTIVES, SYNC_OPCODES
from pyshim.ptx.passes import liveness, regions
from pyshim.ptx.targets.cpu.phase import PHASE_COLLECTIVES


def _direct_sync(fn: ir.Function) -> bool:
    for s in fn.body or ():
        if type(s) is ir.Instruction and s.opcode in SYNC_OPCODES:
            if s.opcode == "bar" and s.mods[:1] == ("warp",):
                continue  # bar.warp.sync: a no-op when the warp is converged
            return True
    return False


def run(module: ir.Module) -> ir.Module:
    by_name = {f.name: f for f in module.functions}
    direct = {f.name: _direct_sync(f) or f.info.indirect_calls
              for f in module.functions}
    memo: dict[str, bool] = {}

    def sync(name: str, seen: frozenset[str]) -> bool:
        if name in memo:
            return memo[name]
        if direct.get(name, False):
            memo[name] = True
            return True
        fn = by_name.get(name)
        result = False
        if fn is not None:
            for callee in fn.info.calls:
                if callee not in seen and sync(callee, seen | {name}):
                    result = True
                    break
        memo[name] = result
        return result

    for fn in module.functions:
        fn.info.sync = sync(fn.name, frozenset())
        if fn.entry:
            lockstep = None
            if not fn.info.sync and not fn.info.calls \
                    and not fn.info.indirect_calls:
                # no synchronisation, but a loop over global memory (a grid-stride loop) or
                # on a clock (a spin-wait): region loops run its iterations in lockstep
                # (passes/regions.py)
                lockstep = regions.plan(fn, lockstep_only=True)
            if not fn.info.sync and lockstep is None:
                fn.info.mode = "loop"
            elif lockstep is not None or _phase_ok(fn, memo):
                fn.info.mode = "phase"
                # region loops where the synchronisation allows (passes/regions.py)
                plan = lockstep or regions.plan(fn)
                fn.info.regions = plan
                # registers a thread must keep across its returns to the scheduler, and
                # across region starts
                fn.info.phase_live = liveness.live_at_sync(
                    fn, plan.labels if plan else frozenset())
            else:
                fn.info.mode = "fiber"
    _region_budget([f for f in module.functions if f.entry and f.info.regions])
    return module


# region loops cost the C compiler far more than phases (a loop nest per region, vectorised):
# past this many regions in one module, the kernels with the most regions keep phases (NVIDIA's
# reduction sample compiled several times faster as phases: benchmarks/README.md, Figures
# behind the code)
MODULE_REGIONS = 640


def _region_budget(kernels: list[ir.Function]) -> None:
    total = 0
    for fn in sorted(kernels, key=lambda f: f.info.regions.count):
        total += fn.info.regions.count
        if total <= MODULE_REGIONS:
            continue
        fn.info.regions = None
        if fn.info.sync:  # phases, without the region starts' extra live registers
            fn.info.phase_live = liveness.live_at_sync(fn)
        else:  # it was a region kernel only to run its loops in lockstep
            fn.info.mode = "loop"
            fn.info.phase_live = None


def _phase_ok(fn: ir.Function, memo: dict[str, bool]) -> bool:
    if fn.info.indirect_calls or any(memo.get(c) for c in fn.info.calls):
        return False
    barrier_ids: set[int] = set()
    for s in fn.body or ():
        if type(s) is ir.Instruction and s.opcode in SYNC_OPCODES:
            if s.opcode in COLLECTIVES:
                if s.opcode in PHASE_COLLECTIVES:
                    continue  # warp collectives the phase scheduler completes
                return False
            if s.opcode not in BARRIERS:
                return False
            if s.mods[:1] == ("warp",):
                continue
            mods = [m for m in s.mods if m not in ("cta", "aligned")]
            if mods == ["sync"] and len(s.operands) == 1:
                bar_id = s.operands[0]
            elif mods[:1] == ["red"] and len(s.operands) == 3:  # bar.red without a count
                bar_id = s.operands[1]
            else:
                return False
            if type(bar_id) is not ir.Imm:
                return False
            barrier_ids.add(int(bar_id.value))
    return len(barrier_ids) <= 1  # phases treat every barrier as the same one
