"""Static analysis of CUDA binaries against the dispatch tables, the fat binary kernels
and a dry run of the PTX translator, before anyone tries to run them (the command:
pyshim.commands.check).

Modules: walk (which files), analyse (one file: libraries, entry points, verdict),
static_cudart, kernels + translate_probe, tables (lookups), text (summary), progress.
The JSON layout is `check_report()`'s return value (documented in the lead's README).
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

from pyshim.binary.errors import BinaryError
from pyshim.check import kernels as kernel_scan
from pyshim.check import walk
from pyshim.check.analyse import RUNS, VERDICTS, BinaryReport, analyse
from pyshim.check.progress import Progress
from pyshim.check.tables import load

SCHEMA_VERSION = 1


def check_report(paths: list[str | Path], *, translate: bool = True,
                 ptx_budget: int = kernel_scan.DEFAULT_PTX_BUDGET,
                 time_budget: float = kernel_scan.DEFAULT_TIME_BUDGET, deps: bool = True,
                 progress: Progress | None = None) -> dict:
    """The check report (the JSON document) for `paths`. Raises FileNotFoundError for a
    path that does not exist and BinaryError for a named file that is not a readable ELF."""
    started = time.monotonic()
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
        budget = kernel_scan.Budget(ptx_bytes=ptx_budget, seconds=time_budget)
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
