"""CPU device kernels vs the same computation as plain C loops and as OpenCL on PoCL
(DESIGN.md: within 2x of the C loop, faster than PoCL). Each variant's result is checked
against an independent numpy reference before anything is timed."""

from __future__ import annotations

import numpy as np

from benchmarks import build
from benchmarks.cases import Case, all_cases
from benchmarks.context import Context
from benchmarks.items import Item, VerificationError, interleaved, item
from benchmarks.variants import DeviceVariant, LoopVariant, PoclVariant, Prepared


def check(case: Case, label: str, results: dict[int, np.ndarray]) -> None:
    """Raise VerificationError naming the kernel, the variant and the first bad element."""
    for idx, want in case.expected.items():
        got = results[idx]
        if case.exact:
            bad = np.flatnonzero(got != want)
        else:
            tol = case.rtol * np.maximum(np.abs(want), 1.0)
            bad = np.flatnonzero(~(np.abs(got - want) <= tol))
        if bad.size:
            i = int(bad[0])
            raise VerificationError(
                f"kernel {case.name} on {label}: {bad.size} of {want.size} results wrong "
                f"(argument {idx}, first at [{i}]: got {got[i]!r}, expected {want[i]!r})")


def kernel_modes(ptx: str) -> dict[str, str]:
    """How the translator runs each kernel on the CPU (loop: threads as a loop; fiber: a
    fiber per thread), for the report: it explains most of the gaps."""
    from pyshim.ptx.translate import translate

    stats: dict = {}
    translate(ptx, "cpu-wave64", stats)
    return dict(stats.get("kernel_modes", {}))


def run(ctx: Context) -> list[Item]:
    from pyshim.kernels.loader import load_module

    ptx = build.kernels_ptx().read_text()
    modes = kernel_modes(ptx)
    module = load_module(ptx.encode(), "cpu-wave64")
    variants = {"device": DeviceVariant(ctx.device, module.path),
                "loop": LoopVariant(build.loops_so(), ctx.threads)}
    if ctx.pocl_or_none is not None:
        variants["pocl"] = PoclVariant(ctx.pocl_or_none)
    items: list[Item] = []
    try:
        for case in all_cases(ctx.quick):
            items += _one_case(ctx, case, variants, modes.get(case.name, "?"))
    finally:
        for v in variants.values():
            v.close()
    return items


def _one_case(ctx: Context, case: Case, variants: dict, mode: str) -> list[Item]:
    prepared: dict[str, Prepared] = {}
    try:
        for key, v in variants.items():
            prepared[key] = p = v.prepare(case)
            p.run()               # outputs start zeroed; this checked run is also a warm-up
            check(case, v.label, p.results())
            p.run()
        t = interleaved({k: p.run for k, p in prepared.items()}, ctx.repeats)
        # a last check, on outputs zeroed first: the runs being timed compute everything
        for key, p in prepared.items():
            p.clear()
            p.run()
            check(case, variants[key].label, p.results())
    finally:
        for p in prepared.values():
            p.close()
    dev_ms, loop_ms = (t[k] * 1e3 for k in ("device", "loop"))
    note = f"{case.what}; executed as '{mode}' on the CPU device; {ctx.threads} threads each"
    out = [item(f"kernel.{case.name}.vs_c_loop", dev_ms, "ms", loop_ms, "C loop (OpenMP)",
                budget="<= 2x", ok=dev_ms <= 2 * loop_ms, repeats=ctx.repeats, note=note)]
    if "pocl" in t:
        pocl_ms = t["pocl"] * 1e3
        out.append(item(f"kernel.{case.name}.vs_pocl", dev_ms, "ms", pocl_ms, "PoCL",
                        budget="< 1x", ok=dev_ms < pocl_ms, repeats=ctx.repeats, note=note))
    return out
