"""The shim's libcuda side by side with the backend it forwards to, in one C program
(c/api_bench.c): a forwarded call (DESIGN.md: <= 5 ns over HIP), empty-kernel launch
latency (direct, through the shim, vs an OpenMP fork-join and vs PoCL), and module loads
through cuModuleLoadData (cold, then cached: <= 10 ms)."""

from __future__ import annotations

import os
import subprocess
import tempfile
import time

from benchmarks import build
from benchmarks.context import Context
from benchmarks.items import BenchError, Item, item, median


def _parse(out: str) -> dict[str, list[float]]:
    values: dict[str, list[float]] = {}
    for line in out.splitlines():
        key, sep, value = line.partition("=")
        if sep:
            values.setdefault(key, []).append(float(value))
    return values


def run_api_bench(ctx: Context) -> dict[str, list[float]]:
    from pyshim.kernels.loader import load_module

    exe = build.api_bench()
    module = load_module(build.kernels_ptx().read_bytes(), "cpu-wave64")
    warm = build.nvcc_ptx(build.KERNELS_DIR / "warmup.cu")
    calls, launches = (100_000, 100) if ctx.quick else (2_000_000, 2_000)
    with tempfile.TemporaryDirectory(prefix="pyshim-bench-cache-") as cache:
        env = {**os.environ, "PYSHIM_CACHE": cache}   # cold: an empty kernel cache
        cmd = [str(exe), str(ctx.repeats), str(calls), str(launches), str(module.path),
               str(warm), str(build.kernels_ptx())]
        res = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=600)
    if res.returncode != 0:
        raise BenchError(f"api_bench failed (exit {res.returncode}): {res.stderr.strip()}")
    values = _parse(res.stdout)
    if values.get("devices", [0])[0] < 1:
        raise BenchError("api_bench: cuDeviceGetCount reported no device")
    return values


def pocl_empty_launch_us(ctx: Context, grid: int) -> float:
    """PoCL's enqueue + finish of an empty kernel, through pyopencl (whose Python
    overhead, a few microseconds, is included: there are no OpenCL headers here for C)."""
    p = ctx.pocl
    launches = 100 if ctx.quick else 2000
    for _ in range(10):
        p.launch("empty_kernel", (grid * 256,), (256,), [])
    times = []
    for _ in range(ctx.repeats):
        t0 = time.perf_counter()
        for _ in range(launches):
            p.launch("empty_kernel", (grid * 256,), (256,), [])
        times.append((time.perf_counter() - t0) / launches * 1e6)
    return median(times)


def run(ctx: Context) -> list[Item]:
    v = run_api_bench(ctx)
    m = {k: median(x) for k, x in v.items()}
    r = ctx.repeats
    items = []
    for api in ("cuDeviceGetCount", "cuStreamQuery"):
        shim, hip = m[f"call.{api}.shim"], m[f"call.{api}.hip"]
        hip_name = {"cuDeviceGetCount": "hipGetDeviceCount",
                    "cuStreamQuery": "hipStreamQuery"}[api]
        items.append(item(f"api.{api}", shim, "ns/call", hip, f"{hip_name} direct",
                          budget="<= +5 ns", ok=shim - hip <= 5.0, repeats=r,
                          note=f"forwarded through the shim: {shim - hip:+.1f} ns; per repeat "
                               "the fastest of 20 loops, median over repeats"))
    for grid in (1, 64):
        hip, shim, omp = (m[f"launch.{grid}.{k}"] for k in ("hip", "shim", "omp"))
        blocks = f"{grid} block{'s' if grid > 1 else ''} of 256 threads"
        items.append(item(f"launch.empty.grid{grid}", hip, "us", omp,
                          "OpenMP fork-join (same threads)", repeats=r,
                          note=f"hipModuleLaunchKernel + hipDeviceSynchronize, {blocks}"))
        items.append(item(f"launch.empty.grid{grid}.shim", shim, "us", hip,
                          "hipModuleLaunchKernel direct", repeats=r,
                          note=f"cuLaunchKernel + cuCtxSynchronize through the shim, {blocks}"))
    if ctx.pocl_or_none is not None:
        pocl = pocl_empty_launch_us(ctx, 64)
        items.append(item("launch.empty.grid64.vs_pocl", m["launch.64.hip"], "us", pocl,
                          "PoCL via pyopencl", repeats=r,
                          note="PoCL's figure includes pyopencl's Python overhead per launch"))
    cold, cached, first = m["load.cold"], m["load.cached"], m["load.first"]
    items.append(item("module_load.shim.cached", cached, "ms", cold,
                      "cold load (translate + cc)", budget="<= 10 ms", ok=cached <= 10.0,
                      repeats=r,
                      note=f"cuModuleLoadData of kernels.cu's PTX through the shim's libcuda; "
                           f"first load of the process (interpreter start) {first:.0f} ms"))
    return items
