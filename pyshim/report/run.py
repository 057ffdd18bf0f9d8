"""The run report: what a program asked of pyshim while it ran (`pyshim run --report FILE`).

The shim's libraries append lines to $PYSHIM_REPORT at exit (every library of every process
appends to the same file, so the same name may appear many times: counts add up). Format,
one record per line, fields separated by single spaces, names never contain spaces:

    unsupported <name> <count>                     an entry point with no mapping was called
    call <name> <count>                            an entry point was called (when tracing)
    kernel <name> translated|cached <ms>           a kernel's module was translated / loaded
    kernel <name> indexed <ms>                     its module was loaded lazily: the kernel
                                                   is translated at first use (a later
                                                   "translated" or "cached" record)
    error <name> <code>                            <name> returned error <code> (number or name)
    redirect <requested> <loaded>                  the LD_AUDIT module loaded pyshim's library
                                                   <loaded> where <requested> was asked for
    # anything                                     a comment (ignored)

Unknown kinds and malformed lines are kept in `malformed` with their line number, never
raised: a report must survive a process that died while writing it.

build_run_report(raw_log_path) -> dict (the JSON layout below); write_run_report picks JSON,
HTML or text from the output file's suffix.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from pyshim.check.tables import TABLE_LIBRARIES, Tables, load

SCHEMA_VERSION = 1
KINDS = ("unsupported", "call", "kernel", "error", "redirect")
_KERNEL_HOW = ("translated", "cached", "indexed")


@dataclass
class _Kernel:
    translated: int = 0
    cached: int = 0
    indexed: int = 0
    ms: list[float] = field(default_factory=list)
    translate_ms: float = 0.0


def _int(tok: str) -> int:
    n = int(tok)
    if n < 0:
        raise ValueError(f"negative count {n}")
    return n


def _ms(tok: str) -> float:
    v = float(tok)
    if not v >= 0:  # also refuses nan
        raise ValueError(f"bad time {tok!r}")
    return v


def parse_lines(lines: Iterable[str]) -> dict:
    """The run report for raw log lines (see the module docstring)."""
    unsupported: dict[str, int] = {}
    calls: dict[str, int] = {}
    errors: dict[tuple[str, str], int] = {}
    kernels: dict[str, _Kernel] = {}
    malformed: list[dict[str, object]] = []
    redirects: dict[tuple[str, str], int] = {}
    for number, raw in enumerate(lines, 1):
        line = raw.rstrip("\n")
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        parts = line.split()
        kind = parts[0]
        try:
            if kind in ("unsupported", "call"):
                if len(parts) != 3:
                    raise ValueError(f"expected '{kind} <name> <count>'")
                target = unsupported if kind == "unsupported" else calls
                target[parts[1]] = target.get(parts[1], 0) + _int(parts[2])
            elif kind == "kernel":
                if len(parts) != 4 or parts[2] not in _KERNEL_HOW:
                    raise ValueError("expected 'kernel <name> translated|cached <ms>'")
                ms = _ms(parts[3])
                k = kernels.setdefault(parts[1], _Kernel())
                if parts[2] == "indexed":
                    k.indexed += 1
                    continue
                k.ms.append(ms)
                if parts[2] == "translated":
                    k.translated += 1
                    k.translate_ms += ms
                else:
                    k.cached += 1
            elif kind == "redirect":
                if len(parts) != 3:
                    raise ValueError("expected 'redirect <requested> <loaded>'")
                rkey = (parts[1], parts[2])
                redirects[rkey] = redirects.get(rkey, 0) + 1
            elif kind == "error":
                if len(parts) != 3:
                    raise ValueError("expected 'error <name> <code>'")
                key = (parts[1], parts[2])
                errors[key] = errors.get(key, 0) + 1
            else:
                raise ValueError(f"unknown record kind {kind!r} (known: {', '.join(KINDS)})")
        except ValueError as exc:
            malformed.append({"line": number, "text": line[:200], "why": str(exc)})
    report = _assemble(unsupported, calls, errors, kernels, malformed)
    report["redirects"] = [{"requested": r, "loaded": t, "count": c}
                           for (r, t), c in sorted(redirects.items())]
    return report


def _describe(name: str, tables: Tables) -> dict[str, object]:
    st = tables.lookup(name)
    if st is None:
        return {"library": None, "status": "unknown", "reason": "not in the dispatch tables"}
    return {"library": TABLE_LIBRARIES[st.api], "status": st.status, "reason": st.reason}


def _assemble(unsupported: dict[str, int], calls: dict[str, int],
              errors: dict[tuple[str, str], int], kernels: dict[str, _Kernel],
              malformed: list[dict[str, object]]) -> dict:
    tables = load()
    by_count = sorted(unsupported.items(), key=lambda kv: (-kv[1], kv[0]))
    report = {
        "schema": SCHEMA_VERSION,
        "unsupported": [{"name": n, "count": c, **_describe(n, tables)} for n, c in by_count],
        "calls": [{"name": n, "count": c, **_describe(n, tables)}
                  for n, c in sorted(calls.items(), key=lambda kv: (-kv[1], kv[0]))],
        "kernels": [{"name": n, "translated": k.translated, "cached": k.cached,
                     "indexed": k.indexed,
                     "ms_total": round(sum(k.ms), 3), "ms_max": round(max(k.ms, default=0.0), 3)}
                    for n, k in sorted(kernels.items())],
        "errors": [{"name": n, "code": code, "count": c}
                   for (n, code), c in sorted(errors.items(), key=lambda kv: (-kv[1], kv[0]))],
        "malformed": malformed,
    }
    report["totals"] = {
        "unsupported_calls": sum(unsupported.values()),
        "unsupported_functions": len(unsupported),
        "calls": sum(calls.values()),
        "kernels": len(kernels),
        "kernels_translated": sum(k.translated for k in kernels.values()),
        "kernels_cached": sum(k.cached for k in kernels.values()),
        "translation_ms": round(sum(k.translate_ms for k in kernels.values()), 3),
        "errors": sum(errors.values()),
        "malformed_lines": len(malformed),
    }
    return report


def append_raw(lines: Iterable[str]) -> None:
    """Append records to $PYSHIM_REPORT (one O_APPEND write: processes may share the file);
    a no-op when no report was asked for."""
    import os

    path = os.environ.get("PYSHIM_REPORT")
    if not path:
        return
    text = "".join(line + "\n" for line in lines)
    try:
        fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
        try:
            os.write(fd, text.encode())
        finally:
            os.close(fd)
    except OSError:
        pass  # a report must never break the program it describes


def build_run_report(raw_log_path: str | Path) -> dict:
    """The run report for the raw log the shim wrote to $PYSHIM_REPORT. A missing file means
    the program never touched anything worth reporting (an empty report, not an error)."""
    path = Path(raw_log_path)
    if not path.exists():
        report = parse_lines([])
    else:
        with open(path, encoding="utf-8", errors="replace") as f:
            report = parse_lines(f)
    report["source"] = str(path)
    return report


def format_text(report: dict) -> str:
    t = report["totals"]
    lines = [f"run report ({report.get('source', '-')}):",
             f"  {t['unsupported_functions']} unsupported function(s) called "
             f"{t['unsupported_calls']} time(s); {t['kernels']} kernel(s) "
             f"({t['kernels_translated']} translated in {t['translation_ms']:.0f} ms, "
             f"{t['kernels_cached']} from cache); {t['errors']} error(s)"]
    for u in report["unsupported"]:
        why = f" ({u['reason']})" if u.get("reason") else ""
        lines.append(f"  unsupported {u['name']} x{u['count']}{why}")
    for e in report["errors"]:
        lines.append(f"  error {e['name']} -> {e['code']} x{e['count']}")
    for r in report.get("redirects", []):
        lines.append(f"  redirected {r['requested']} -> {r['loaded']} x{r['count']}")
    for m in report["malformed"]:
        lines.append(f"  malformed line {m['line']}: {m['why']}: {m['text']!r}")
    return "\n".join(lines)


def write_run_report(raw_log_path: str | Path, out_path: str | Path) -> dict:
    """Build the report and write it to `out_path`: .json -> JSON, .html/.htm -> a page,
    anything else -> text. Returns the report."""
    report = build_run_report(raw_log_path)
    out = Path(out_path)
    suffix = out.suffix.lower()
    if suffix == ".json":
        out.write_text(json.dumps(report, indent=1) + "\n", encoding="utf-8")
    elif suffix in (".html", ".htm"):
        from pyshim.report import html as report_html

        out.write_text(report_html.render_run(report), encoding="utf-8")
    else:
        out.write_text(format_text(report) + "\n", encoding="utf-8")
    return report
