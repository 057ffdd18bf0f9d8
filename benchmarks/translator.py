"""Translator throughput on a large generated PTX module (gen_ptx.py through nvcc -ptx):
PTX lines per second of parse + translate to C, excluding cc (DESIGN.md: >= 50k lines/s
for a first translation). Each repeat runs in a fresh interpreter, so no cache of a
previous translation helps; imports are not timed."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from benchmarks import build, gen_ptx
from benchmarks.context import Context
from benchmarks.items import BenchError, Item, item, median

BUDGET_LINES_PER_S = 50_000.0

# runs in a child interpreter: prints {"lines", "parse_s", "translate_s",
# "translate_wall_s", "c_lines", "kernels"}; times are the process's CPU time (the
# translator is single-threaded, so on an idle machine CPU time is wall time, and on a
# shared one it leaves out the time other processes had the core)
_CHILD = r"""
import json, sys, time
from pyshim.ptx.frontend.parser import parse
from pyshim.ptx.targets import get_target
from pyshim.ptx.translate import translate
get_target("cpu-wave64")  # imports the target's modules (lazily imported), untimed as above
ptx = open(sys.argv[1]).read()
stats = {}
w0, t0 = time.perf_counter(), time.process_time()
src = translate(ptx, "cpu-wave64", stats)
w1, t1 = time.perf_counter(), time.process_time()
parse(ptx)
t2 = time.process_time()
print(json.dumps({"lines": len(ptx.splitlines()), "translate_s": t1 - t0,
                  "translate_wall_s": w1 - w0,
                  "parse_s": t2 - t1, "c_lines": len(src.splitlines()),
                  "kernels": stats.get("kernels", 0)}))
"""


# a grid-stride loop whose body nvcc unrolls: one long region of memory accesses, the shape
# that was quadratic (a rescan of the region per access; README.md has the figure)
GRID_STRIDE_UNROLL = 432  # about 3,650 PTX lines
_GRID_STRIDE = """\
__global__ void grid_stride_unrolled(const float *__restrict__ a, const float *__restrict__ b,
                                     float *__restrict__ c, int n)
{{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {{
#pragma unroll
        for (int j = 0; j < {unroll}; j++)
            c[i + j * n] = a[i + j * n] * b[i + j * n] + c[i + j * n];
    }}
}}
"""


def grid_stride_ptx(unroll: int) -> str:
    src = build.out_dir() / f"translator_grid_stride_{unroll}.cu"
    text = _GRID_STRIDE.format(unroll=unroll)
    if not src.exists() or src.read_text() != text:
        src.write_text(text)
    return str(build.nvcc_ptx(src))


def _translate_runs(ptx: str, repeats: int) -> list[dict]:
    runs = []
    for _ in range(repeats):
        res = subprocess.run([sys.executable, "-c", _CHILD, ptx], capture_output=True,
                             text=True, timeout=600)
        if res.returncode != 0:
            raise BenchError(f"translating {ptx} failed:\n{res.stderr.strip()[-3000:]}")
        runs.append(json.loads(res.stdout))
    # a translation that drops kernels would be fast garbage: every .entry must come out
    entries = Path(ptx).read_text().count(".entry ")
    for r in runs:
        if r["kernels"] != entries or r["c_lines"] < r["lines"] // 2:
            raise BenchError(f"translating {ptx}: {entries} .entry and {r['lines']} lines in "
                             f"the PTX, but {r['kernels']} kernels and {r['c_lines']} lines "
                             "of C came out")
    return runs


def big_ptx(kernels: int) -> str:
    src = build.out_dir() / f"translator_{kernels}.cu"
    text = gen_ptx.source(kernels)
    if not src.exists() or src.read_text() != text:
        src.write_text(text)
    return str(build.nvcc_ptx(src))


def run(ctx: Context) -> list[Item]:
    ptx = big_ptx(12 if ctx.quick else 480)
    runs = _translate_runs(ptx, ctx.repeats)
    lines = runs[0]["lines"]
    rate = lines / median([r["translate_s"] for r in runs])
    wall_rate = lines / median([r["translate_wall_s"] for r in runs])
    parse_rate = lines / median([r["parse_s"] for r in runs])
    gs = _translate_runs(grid_stride_ptx(16 if ctx.quick else GRID_STRIDE_UNROLL), ctx.repeats)
    gs_lines = gs[0]["lines"]
    gs_rate = gs_lines / median([r["translate_s"] for r in gs])
    return [
        item("translator.lines_per_s", rate, "lines/s", BUDGET_LINES_PER_S,
             "budget (DESIGN.md)", budget=">= 50000 lines/s", ok=rate >= BUDGET_LINES_PER_S,
             repeats=ctx.repeats,
             note=f"parse + translate to C of {lines} PTX lines ({runs[0]['c_lines']} C "
                  "lines out), first translation in a fresh process, cc excluded; per "
                  f"CPU second (wall clock: {wall_rate:,.0f} lines/s)"),
        item("translator.parse_lines_per_s", parse_rate, "lines/s", rate,
             "parse + translate", repeats=ctx.repeats,
             note="the parser alone (a second parse in the same process)"),
        item("translator.grid_stride_unrolled_lines_per_s", gs_rate, "lines/s",
             BUDGET_LINES_PER_S, "budget (DESIGN.md)", budget=">= 50000 lines/s",
             ok=gs_rate >= BUDGET_LINES_PER_S, repeats=ctx.repeats,
             note=f"one kernel: a grid-stride loop with its body unrolled "
                  f"{16 if ctx.quick else GRID_STRIDE_UNROLL} times ({gs_lines} PTX lines, "
                  "one region of memory accesses), as the row above"),
    ]
