"""cuBLAS through the shim vs OpenBLAS (DESIGN.md: >= 0.95x): the cuBLAS engineer's
benchmarks/blas_*.py scripts, each run as `python3 <script> [--quick]` and printing a JSON
list of items ({"name", "value", "unit", "baseline", "ratio", ...}) on stdout."""

from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path

from benchmarks.config import blas_env
from benchmarks.context import Context
from benchmarks.items import BenchError, Item

HERE = Path(__file__).resolve().parent


def scripts() -> list[Path]:
    return sorted(HERE.glob("blas_*.py"))


def _as_item(d: dict, script: str, repeats: int) -> Item:
    try:
        value, baseline = float(d["value"]), float(d["baseline"])
        name, unit = str(d["name"]), str(d["unit"])
    except (KeyError, TypeError, ValueError) as exc:
        raise BenchError(f"{script}: item {d!r} lacks name/value/unit/baseline ({exc})") from None
    ratio = float(d["ratio"]) if d.get("ratio") is not None else (
        value / baseline if baseline else math.nan)
    return Item(name=name, value=value, unit=unit, baseline=baseline, ratio=ratio,
                baseline_name=str(d.get("baseline_name", "OpenBLAS direct")),
                budget=str(d.get("budget", "")), ok=d.get("ok"),
                verified=bool(d.get("verified", False)), repeats=int(d.get("repeats", repeats)),
                note=str(d.get("note", f"from {script}")))


def run(ctx: Context) -> list[Item]:
    return run_scripts(scripts(), ctx.quick, ctx.repeats, ctx.threads)


def run_scripts(paths: list[Path], quick: bool, repeats: int, threads: int = 1) -> list[Item]:
    """Each script runs with OPENBLAS_NUM_THREADS and PYSHIM_CPU_WORKERS = threads."""
    items: list[Item] = []
    for script in paths:
        cmd = [sys.executable, str(script), *(["--quick"] if quick else [])]
        res = subprocess.run(cmd, capture_output=True, text=True, timeout=900,
                             env=blas_env(threads))
        if res.returncode != 0:
            raise BenchError(f"{script.name} failed (exit {res.returncode}):\n"
                             f"{res.stderr.strip()[-3000:]}")
        try:
            data = json.loads(res.stdout)
        except ValueError as exc:
            raise BenchError(f"{script.name}: stdout is not a JSON list of items ({exc})") from None
        if not isinstance(data, list):
            raise BenchError(f"{script.name}: stdout is not a JSON list of items")
        items += [_as_item(d, script.name, repeats) for d in data]
    return items
