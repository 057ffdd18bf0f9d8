"""Decides how each kernel runs on the CPU device.

`info['sync']` is True for a function that contains, or calls (transitively) a function that
contains, a block barrier or a warp collective. Such kernels run as fibers; the others as a
plain loop over the block's threads. Indirect calls count as synchronising (we cannot see
the callee).
"""

from __future__ import annotations

from pyshim.ptx import ir

# opcodes (and opcode.first-modifier) that need the other threads of the block or warp
SYNC_OPCODES = frozenset(("bar", "barrier", "shfl", "vote", "activemask", "match", "redux"))


def _direct_sync(fn: ir.Function) -> bool:
    for s in fn.body or ():
        if type(s) is ir.Instruction and s.opcode in SYNC_OPCODES:
            if s.opcode == "bar" and s.mods[:1] == ("warp",):
                continue  # bar.warp.sync: a no-op when the warp is converged
            return True
    return False


def run(module: ir.Module) -> ir.Module:
    by_name = {f.name: f for f in module.functions}
    direct = {f.name: _direct_sync(f) or f.info.get("indirect_calls", False)
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
            for callee in fn.info.get("calls", ()):
                if callee not in seen and sync(callee, seen | {name}):
                    result = True
                    break
        memo[name] = result
        return result

    for fn in module.functions:
        fn.info["sync"] = sync(fn.name, frozenset())
        if fn.entry:
            fn.info["mode"] = "fiber" if fn.info["sync"] else "loop"
    return module
