"""What `pyshim run --trace[=FILE]` and `pyshim run --report FILE` add to a program's
environment, and the report written after the program exits.

Tracing is a separate interposer, build/lib/libpyshim_trace.so (pyshim.builders.trace), put
first in LD_PRELOAD only when asked for: the shim's own libraries hold no tracing code, so
a run without --trace pays nothing for it.

    env = program_env(...)                        # pyshim.runner.launcher
    env = trace_environment(args.trace, env)      # False | True or "-" (stderr) | "FILE"
    env = report_environment(args.report, env)    # None | "FILE"
    ... run the program as a child (not exec: the report is written after it exits) ...
    finish_report(env, args.report)
"""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

from pyshim.paths import build_dir

TRACE_LIBRARY = "libpyshim_trace.so"


def trace_library() -> Path:
    """build/lib/libpyshim_trace.so, built first if it is missing or out of date."""
    from pyshim.builders.trace import build_trace

    return build_trace(build_dir().resolve() / "lib")


STDERR = "-"  # `--trace=-`: the trace on stderr, like a bare --trace


def trace_environment(trace: bool | str | None, env: dict[str, str]) -> dict[str, str]:
    """`env` for a traced run: libpyshim_trace.so first in LD_PRELOAD (ahead of libcuda, so
    every driver and runtime call reaches its wrapper first) and, when `trace` is a file
    name, PYSHIM_TRACE_FILE set to its absolute path (True or "-": lines go to stderr).
    `trace` False, None or "" returns `env` unchanged (a copy). Raises ValueError rather
    than empty an executable file (a program name taken for a trace file)."""
    out = dict(env)
    if trace is None or trace is False or trace == "":
        return out
    if isinstance(trace, str) and trace != STDERR:
        path = Path(trace).expanduser()
        if path.is_file() and os.access(path, os.X_OK):
            raise ValueError(f"--trace={trace}: {trace} is an executable, not a trace file "
                             "(write --trace=FILE, or put the program after --)")
    lib = str(trace_library())
    rest = [p for p in out.get("LD_PRELOAD", "").split(":") if p and p != lib]
    out["LD_PRELOAD"] = ":".join([lib, *rest])
    if isinstance(trace, str) and trace != STDERR:
        path = Path(trace).expanduser().resolve()
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("")  # one run per file: the tracer appends
        out["PYSHIM_TRACE_FILE"] = str(path)
    else:
        out.pop("PYSHIM_TRACE_FILE", None)
    return out


def normalize_trace_argv(argv: list[str], takes_value: frozenset[str] | set[str]
                         ) -> list[str]:
    """`pyshim run` arguments with a bare `--trace` before the program written `--trace=-`.

    An option with an optional value (`--trace[=FILE]`) would otherwise take the program's
    name for its FILE (`pyshim run --trace ./app`). `takes_value`: the run options that
    take a separate value (`--backend`, `--cudart`, `--report`); scanning stops at the
    program (the first other non-option word) or at `--`, so the program's own
    arguments are never touched."""
    out = list(argv)
    i = 0
    while i < len(out):
        arg = out[i]
        if arg == "--" or not arg.startswith("-"):
            break
        if arg == "--trace":
            out[i] = f"--trace={STDERR}"
        elif arg in takes_value:
            i += 1  # its value
        i += 1
    return out


def report_environment(report_path: str | Path | None,
                       env: dict[str, str]) -> dict[str, str]:
    """`env` for a run with --report FILE: PYSHIM_REPORT names a fresh raw log that the
    shim's libraries append to at exit (pyshim.report describes its lines)."""
    out = dict(env)
    if not report_path:
        return out
    fd, raw = tempfile.mkstemp(prefix="pyshim-report-", suffix=".log")
    os.close(fd)
    out["PYSHIM_REPORT"] = raw
    return out


def finish_report(env: dict[str, str], report_path: str | Path | None) -> dict | None:
    """After the program exited: write the run report to `report_path` (.json, .html or
    text, from its suffix), print one line on stderr if an unsupported entry point was
    called, and remove the raw log. Returns the report (None without --report)."""
    if not report_path:
        return None
    from pyshim.report.run import write_run_report

    raw = env.get("PYSHIM_REPORT")
    if raw is None:
        raise ValueError("finish_report: the environment has no PYSHIM_REPORT "
                         "(use report_environment first)")
    try:
        report = write_run_report(raw, report_path)
    finally:
        Path(raw).unlink(missing_ok=True)
    line = summary_line(report, report_path)
    if line:
        print(line, file=sys.stderr)
    return report


def summary_line(report: dict, report_path: str | Path) -> str | None:
    """The one stderr line for a run that hit unsupported entry points, else None."""
    unsupported = report.get("unsupported", [])
    if not unsupported:
        return None
    names = [u["name"] for u in unsupported]
    shown = ", ".join(names[:3]) + (f" and {len(names) - 3} more" if len(names) > 3 else "")
    calls = report["totals"]["unsupported_calls"]
    return (f"pyshim: {len(names)} unsupported function(s) called {calls} time(s) "
            f"({shown}); see {report_path}")
