"""`pyshim check [--json] [--html FILE] [--fail-on unsupported|cannot-run] PATH...`:
what CUDA binaries need and whether they will run (pyshim.check.check_report)."""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

from pyshim.binary.errors import BinaryError
from pyshim.check import check_report, text
from pyshim.check import kernels as kernel_scan
from pyshim.check.analyse import CANNOT, GAPS
from pyshim.check.progress import Progress

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
    parser.add_argument("--ptx-budget", type=float, default=kernel_scan.DEFAULT_PTX_BUDGET / 2**20,
                        metavar="MIB", help="MiB of PTX to dry-run translate per file "
                                            "(default %(default)g)")
    parser.add_argument("--time-budget", type=float, default=kernel_scan.DEFAULT_TIME_BUDGET,
                        metavar="S", help="seconds of dry runs per file (default %(default)g)")
    parser.add_argument("--no-deps", action="store_true",
                        help="do not check the CUDA libraries a file depends on")


def run(args: argparse.Namespace) -> int:
    try:
        report = check_report(args.paths, translate=not args.no_translate,
                              ptx_budget=int(args.ptx_budget * 2**20),
                              time_budget=args.time_budget, deps=not args.no_deps,
                              progress=Progress())
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
        from pyshim.report import html as report_html

        Path(args.html).write_text(report_html.render_check(report), encoding="utf-8")
    if args.fail_on:
        bad = _FAIL_ON[args.fail_on]
        if any(b["verdict"] in bad for b in report["binaries"]):
            return 1
    return 0
