"""pyshim.kernels.loader.load_module in process: cold (empty kernel cache: translate + cc)
vs cached (a cache hit), DESIGN.md: cached <= 10 ms."""

from __future__ import annotations

import os
import tempfile
import time

from benchmarks import build
from benchmarks.context import Context
from benchmarks.items import BenchError, Item, item, median


def run(ctx: Context) -> list[Item]:
    from pyshim.kernels.loader import load_module

    data = build.kernels_ptx().read_bytes()
    saved = os.environ.get("PYSHIM_CACHE")
    with tempfile.TemporaryDirectory(prefix="pyshim-bench-cache-") as cache:
        os.environ["PYSHIM_CACHE"] = cache
        try:
            t0 = time.perf_counter()
            cold = load_module(data, "cpu-wave64")
            cold_s = time.perf_counter() - t0
            cached = []
            for _ in range(max(ctx.repeats, 3)):
                t0 = time.perf_counter()
                mod = load_module(data, "cpu-wave64")
                cached.append(time.perf_counter() - t0)
                if not mod.cached or mod.path != cold.path:
                    raise BenchError("load_module: a second load of the same PTX was not a "
                                     "cache hit")
        finally:
            if saved is None:
                os.environ.pop("PYSHIM_CACHE", None)
            else:
                os.environ["PYSHIM_CACHE"] = saved
    if cold.cached:
        raise BenchError("load_module: the first load into an empty cache claims a hit")
    cold_ms, cached_ms = cold_s * 1e3, median(cached) * 1e3
    translate_ms = cold.stats.get("seconds", 0.0) * 1e3
    lines = cold.stats.get("lines", 0)
    return [
        item("module_load.cached", cached_ms, "ms", cold_ms, "cold load (translate + cc)",
             budget="<= 10 ms", ok=cached_ms <= 10.0, repeats=max(ctx.repeats, 3),
             note=f"load_module of kernels.cu's PTX ({lines} lines, "
                  f"{len(cold.kernels)} kernels) in process"),
        item("module_load.cold.translate", translate_ms, "ms", cold_ms, "whole cold load",
             repeats=1, note="the translator's share of a cold load; the rest is cc"),
    ]
