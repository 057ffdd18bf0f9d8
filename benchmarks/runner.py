"""`python3 -m benchmarks [--json] [--only NAME[,NAME]] [--quick] [--repeats N]`

Runs the suites, prints a table (or, with --json, a JSON list of items: name, value, unit,
baseline, ratio, baseline_name, budget, ok, verified, repeats, note). Exit status: 0 when
every suite ran and every result verified, 1 when a suite failed (its error on stderr; the
other suites' items are still printed), 2 for bad arguments. A missed budget is reported
in the items (ok: false), not in the exit status: a measurement is not a test."""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
import time
from collections.abc import Callable

from benchmarks.config import apply_threads, usable_cores
from benchmarks.items import BenchError, Item

# name -> "module:function"; imported lazily so that the thread settings are in place
# before any library that reads them is loaded
SUITES: dict[str, str] = {
    "api": "benchmarks.api",
    "launch": "benchmarks.launch",
    "module_load": "benchmarks.module_load",
    "translator": "benchmarks.translator",
    "firstrun": "benchmarks.firstrun",
    "kernels": "benchmarks.kernels_suite",
    "sass": "benchmarks.sass_suite",
    "blas": "benchmarks.blas",
    "numba": "benchmarks.numba_suite",
}


def _suite(name: str) -> Callable:
    import importlib

    return importlib.import_module(SUITES[name]).run


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="python3 -m benchmarks", description=__doc__.split("\n\n")[1])
    p.add_argument("--json", action="store_true", help="print a JSON list of items")
    p.add_argument("--only", metavar="NAME", help=f"comma-separated suites: {', '.join(SUITES)}")
    p.add_argument("--quick", action="store_true",
                   help="tiny sizes, one repeat: checks that everything runs and verifies")
    p.add_argument("--repeats", type=int, help="timed repeats per figure (default 5; 1 quick)")
    p.add_argument("--threads", type=int,
                   help="threads for the CPU device, OpenMP and PoCL (default: usable cores)")
    args = p.parse_args(argv)
    names = args.only.split(",") if args.only else list(SUITES)
    unknown = [n for n in names if n not in SUITES]
    if unknown:
        p.error(f"unknown suite {', '.join(unknown)} (choose from {', '.join(SUITES)})")
    args.suites = names
    if args.repeats is None:
        args.repeats = 1 if args.quick else 5
    if args.repeats < 1 or (args.threads is not None and args.threads < 1):
        p.error("--repeats and --threads must be at least 1")
    return args


def _fmt(x: float) -> str:
    if math.isnan(x):
        return "-"
    if abs(x) >= 1e4:
        return f"{x:,.0f}"
    return f"{x:.3g}" if abs(x) < 10 else f"{x:.1f}"


def _ratio(r: float) -> str:
    # numba's simulator is 10^4-10^5 times slower: two decimals would print 0.00
    return f"{r:.2f}" if r == 0 or abs(r) >= 0.01 or math.isnan(r) else f"{r:.2g}"


def table(items: list[Item]) -> str:
    rows = [("name", "value", "unit", "baseline", "(baseline is)", "ratio", "budget", "ok")]
    for it in items:
        ok = "-" if it.ok is None else ("yes" if it.ok else "MISSED")
        rows.append((it.name, _fmt(it.value), it.unit, _fmt(it.baseline), it.baseline_name,
                     _ratio(it.ratio), it.budget, ok))
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    lines = ["  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip()
             for r in rows]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    threads = args.threads or usable_cores()
    apply_threads(threads)
    from benchmarks.context import Context

    ctx = Context(quick=args.quick, repeats=args.repeats, threads=threads)
    items: list[Item] = []
    failed = []
    load = os.getloadavg()[0]
    for name in args.suites:
        t0 = time.perf_counter()
        try:
            got = _suite(name)(ctx)
        except BenchError as exc:
            print(f"benchmarks: suite {name} failed: {exc}", file=sys.stderr)
            failed.append(name)
            continue
        items += got
        if not args.json:
            print(f"[{name}: {len(got)} items in {time.perf_counter() - t0:.1f} s]",
                  file=sys.stderr)
    if args.json:
        print(json.dumps([it.as_dict() for it in items], indent=1))
    else:
        print(f"{threads} threads per variant; load average {load:.1f} at start "
              "(figures are medians; a busy machine widens them)")
        print(table(items))
    for name, why in ctx.missing.items():
        print(f"benchmarks: baseline {name} is missing, its comparisons were left out: {why}",
              file=sys.stderr)
    if failed:
        print(f"benchmarks: failed suites: {', '.join(failed)}", file=sys.stderr)
        return 1
    return 0
