"""Launch latency on the CPU device (issue #18): an empty launch, a one-block launch and a
small saxpy, each launch + synchronize, side by side with an OpenMP region doing the same
work on the same threads; and a big saxpy, which must not get slower for it
(c/launch_bench.c). Results are checked in the C program before anything is timed."""

from __future__ import annotations

import subprocess

from benchmarks import build
from benchmarks.context import Context
from benchmarks.items import BenchError, Item, item, median

CASES = {
    "empty": "empty_kernel<<<1,1>>>",
    "block": "saxpy, one block of 256 threads",
    "saxpy_small": "saxpy n=16384 (64 blocks of 256)",
    "saxpy_big": "saxpy n=4M (16384 blocks of 256)",
}
BUDGET_US = 10.0   # issue #18: an empty launch, launch + synchronize


def run_launch_bench(ctx: Context) -> dict[str, list[float]]:
    from pyshim.kernels.loader import load_module

    exe = build.launch_bench()
    module = load_module(build.kernels_ptx().read_bytes(), "cpu-wave64")
    launches = 200 if ctx.quick else 4000
    cmd = [str(exe), str(ctx.repeats), str(launches), str(module.path), str(build.kernels_ptx())]
    res = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    if res.returncode != 0:
        raise BenchError(f"launch_bench failed (exit {res.returncode}): {res.stderr.strip()}")
    values: dict[str, list[float]] = {}
    for line in res.stdout.splitlines():
        key, sep, value = line.partition("=")
        if sep:
            values.setdefault(key, []).append(float(value))
    return values


def run(ctx: Context) -> list[Item]:
    v = run_launch_bench(ctx)
    m = {k: median(x) for k, x in v.items()}
    r = ctx.repeats
    items = []
    for case, what in CASES.items():
        hip, shim, omp = m[f"{case}.hip"], m[f"{case}.shim"], m[f"{case}.omp"]
        budget = f"<= {BUDGET_US:g} us" if case == "empty" else ""
        ok = hip <= BUDGET_US if case == "empty" else None
        items.append(item(f"launch.{case}", hip, "us", omp, "OpenMP region, same work and threads",
                          budget=budget, ok=ok, repeats=r,
                          note=f"{what}: hipModuleLaunchKernel + hipStreamSynchronize; "
                               f"plain C loop on one thread {m[f'{case}.loop']:.3g} us, "
                               f"launches queued back to back {m[f'{case}.queued']:.3g} us each"))
        items.append(item(f"launch.{case}.shim", shim, "us", hip, "hipModuleLaunchKernel direct",
                          budget=budget, ok=shim <= BUDGET_US if case == "empty" else None,
                          repeats=r, note=f"{what}: cuLaunchKernel + cuStreamSynchronize "
                                          "through the shim's libcuda"))
    return items
