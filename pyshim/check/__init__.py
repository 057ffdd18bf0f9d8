"""`pyshim check`: static analysis of CUDA binaries against the dispatch tables, the fat
binary kernels and their translate verdicts, before anyone tries to run them.

    pyshim check [--json] [--html FILE] [--fail-on unsupported|cannot-run] [--deep] PATH...

Kernel verdicts come from a per-instruction scan (scan.py: a parse, and a dry run only for
instruction shapes not seen before), cached by PTX hash and computed in parallel; `--deep`
dry-runs the whole translator on every module instead.

Modules: walk (which files), analyse (one file: libraries, entry points, verdict),
static_cudart, kernels + translate_probe, tables (lookups), text (summary), progress.
The JSON layout is `check_report()`'s return value (documented in the lead's README).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

from pyshim.binary.errors import BinaryError
from pyshim.check import kernels as kernel_scan
from pyshim.check import text, walk
from pyshim.check.analyse import CANNOT, GAPS, RUNS, VERDICTS, BinaryReport, analyse
from pyshim.check.progress import Progress
from pyshim.check.tables import load

SCHEMA_VERSION = 1
# --fail-on X: exit 1 when some file's verdict is at least this bad
_FAIL_ON = {"unsupported": (GAPS, CANNOT), "cannot-run": (CANNOT,)}


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("paths", nargs="+", metavar="PATH",
                        help="executable, shared library, or directory (every ELF below it)")
    parser.add_argument("--json", action="store_true", help="print the report as JSON")
    parser.add_argument("--html", metavar="FILE", help="also write a self-contained HTML page")
    parser.add_argument("--fail-on", choices=sorted(_FAIL_ON), default=None,
                        help="exit 1 if a file has gaps or unsupported calls (unsupported) "
                             "or cannot run (cannot-run)")
    parser.add_argument("--no-translate", action="store_true",
                        help="skip the translator dry run (kernels show translates: null)")
    parser.add_argument("--deep", action="store_true",
                        help="dry-run the whole translator on every module (slow) instead of "
                             "the per-instruction scan")
    parser.add_argument("--jobs", "-j", type=int, default=0,
                        help="worker processes for kernel verdicts (default: usable cores)")
    parser.add_argument("--ptx-budget", type=float, default=None,
                        metavar="MIB", help="MiB of PTX to check per file (default "
                        f"{kernel_scan.SCAN_PTX_BUDGET >> 20}, with --deep "
                        f"{kernel_scan.DEFAULT_PTX_BUDGET >> 20})")
    parser.add_argument("--time-budget", type=float, default=None,
                        metavar="S", help="seconds of kernel checks per file (default "
                        f"{kernel_scan.SCAN_TIME_BUDGET:g}, with --deep "
                        f"{kernel_scan.DEFAULT_TIME_BUDGET:g})")
    parser.add_argument("--no-deps", action="store_true",
                        help="do not check the CUDA libraries a file depends on")


def check_report(paths: list[str | Path], *, translate: bool = True,
                 ptx_budget: int | None = None, time_budget: float | None = None,
                 deps: bool = True, progress: Progress | None = None, deep: bool = False,
                 jobs: int = 1) -> dict:
    """The check report (the JSON document) for `paths`. Raises FileNotFoundError for a
    path that does not exist and BinaryError for a named file that is not a readable ELF."""
    started = time.monotonic()
    if ptx_budget is None:
        ptx_budget = kernel_scan.DEFAULT_PTX_BUDGET if deep else kernel_scan.SCAN_PTX_BUDGET
    if time_budget is None:
        time_budget = kernel_scan.DEFAULT_TIME_BUDGET if deep else kernel_scan.SCAN_TIME_BUDGET
    say = progress or Progress(enabled=False)
    tables = load()
    queue: list[tuple[Path, str | None, bool]] = []  # (file, needed_by, named explicitly)
    for raw in paths:
        p = Path(raw)
        if not p.exists():
            raise FileNotFoundError(f"{p}: no such file or directory")
        if p.is_dir():
            files = list(walk.elf_files(p))
            say(f"{p}: {len(files)} ELF files")
            queue += [(f, None, False) for f in files]
        else:
            queue.append((p, None, True))
    done: set[Path] = set()
    reports: list[BinaryReport] = []
    skipped = 0
    while queue:
        path, needed_by, named = queue.pop(0)
        real = path.resolve()
        if real in done:
            continue
        done.add(real)
        special = walk.special_kind(path)
        if special is not None:
            # opening a FIFO blocks until someone writes to it; a device is no program
            print(f"pyshim check: {path}: {special}, not a file: skipped", file=sys.stderr)
            continue
        say(f"checking {path} ({path.stat().st_size / 2**20:.1f} MiB)")
        budget = kernel_scan.Budget(ptx_bytes=ptx_budget, seconds=time_budget, deep=deep,
                                    jobs=max(1, jobs))
        try:
            report, needed = analyse(path, tables, translate=translate, budget=budget,
                                     progress=lambda m, p=path: say(f"  {p.name}: {m}"))
        except BinaryError as exc:
            if named:
                raise
            report = BinaryReport(path=str(path), uses_cuda=True)
            report.fail(f"unreadable: {exc}")
            needed = []
        report.needed_by = needed_by
        if not report.uses_cuda and not named:
            skipped += 1
            continue
        say(f"  {path.name}: {report.verdict}, {len(report.entry_points)} entry points, "
            f"{len(report.kernels)} kernels")
        reports.append(report)
        if deps:
            queue += [(n, str(path), False) for n in needed]
    _propagate(reports)
    counts = {v: sum(r.verdict == v for r in reports) for v in VERDICTS}
    return {
        "schema": SCHEMA_VERSION,
        "binaries": [r.to_dict() for r in reports],
        "summary": {"files": len(reports), "verdicts": counts, "skipped_no_cuda": skipped,
                    "seconds": round(time.monotonic() - started, 3)},
    }


def _propagate(reports: list[BinaryReport]) -> None:
    """A file whose CUDA-using dependency has gaps or cannot run has a gap itself."""
    by_path = {r.path: r for r in reports}
    for r in reversed(reports):  # dependencies were appended after their users
        if r.needed_by and r.verdict != RUNS and r.needed_by in by_path:
            by_path[r.needed_by].gap(f"depends on {Path(r.path).name}, which {r.verdict}"
                                     .replace("which runs-with-gaps", "which runs with gaps")
                                     .replace("which cannot-run", "which cannot run"))


def run(args: argparse.Namespace) -> int:
    try:
        jobs = args.jobs if args.jobs > 0 else len(os.sched_getaffinity(0))
        report = check_report(args.paths, translate=not args.no_translate,
                              ptx_budget=None if args.ptx_budget is None
                              else int(args.ptx_budget * 2**20),
                              time_budget=args.time_budget, deps=not args.no_deps,
                              progress=Progress(), deep=args.deep, jobs=jobs)
    except (FileNotFoundError, BinaryError) as exc:
        print(f"pyshim check: {exc}", file=sys.stderr)
        return 2
    try:
        if args.json:
            json.dump(report, sys.stdout, indent=1)
            sys.stdout.write("\n")
        else:
            print(text.format_report(report))
        sys.stdout.flush()
    except BrokenPipeError:  # `pyshim check ... | head`: the reader has seen enough
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    if args.html:
        from pyshim import report_html

        Path(args.html).write_text(report_html.render_check(report), encoding="utf-8")
    if args.fail_on:
        bad = _FAIL_ON[args.fail_on]
        if any(b["verdict"] in bad for b in report["binaries"]):
            return 1
    return 0
