"""Which compile tier a CPU kernel build uses ($PYSHIM_JIT: fast | opt | tiered), and the
background build of the optimised tier (issue 23 point 2).

    path, cached, tier = build(key_for, translate_fn, meta)

`key_for(tier)` is the cache key of the build at that tier; `translate_fn()` returns the C
source and the translator's stats. In `tiered` mode a load takes the optimised entry when
the cache has it, else the fast one (building it at the fast tier if absent), and queues the
optimised build on the background pool; the next load, in this process or another, finds
it. Swapping the code of a kernel already handed to the program happens at the next load,
not between two launches of one loaded module.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

from pyshim.kernels import cache
from pyshim.kernels.compile import BACKGROUND_NICE, background, compile_cpu, jit_mode


def build(key_for: Callable[[str], str], translate_fn: Callable[[], tuple[str, dict]],
          meta: dict) -> tuple[Path, bool, str]:
    mode = jit_mode()
    if mode != "tiered":
        path, cached = cache.get_or_build(key_for(mode), ".so",
                                          lambda: _compile(translate_fn, mode, meta))
        return path, cached, mode
    opt_key = key_for("opt")
    found = cache.lookup(opt_key, ".so")
    if found is not None:
        return found, True, "opt"
    path, cached = cache.get_or_build(key_for("fast"), ".so",
                                      lambda: _compile(translate_fn, "fast", meta))
    source = meta.pop("source", None)

    def optimise() -> None:
        if cache.lookup(opt_key, ".so") is not None:
            return
        text = source if source is not None else translate_fn()[0]
        cache.store(opt_key, ".so", compile_cpu(text, tier="opt", nice=BACKGROUND_NICE))

    background(opt_key, optimise)
    return path, cached, "fast"


def _compile(translate_fn: Callable[[], tuple[str, dict]], tier: str, meta: dict) -> bytes:
    t0 = time.perf_counter()
    source, stats = translate_fn()
    t1 = time.perf_counter()
    so = compile_cpu(source, tier=tier)
    meta["stats"] = {**stats, "translate_seconds": round(t1 - t0, 6),
                     "compile_seconds": round(time.perf_counter() - t1, 6), "tier": tier}
    meta["source"] = source
    return so
