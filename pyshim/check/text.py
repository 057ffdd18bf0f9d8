"""The human-readable summary of a check: a few lines per file, worst news first."""

from __future__ import annotations

from collections import Counter

_SHOW_KERNELS = 20
_BACKENDS = {"cpu": "the CPU device", "rocm": "ROCm"}


def _missing_on(gaps: dict[str, str]) -> str:
    """'not on the CPU device (no hipArray3DCreate)' for each backend lacking the target."""
    return "; ".join(f"not on {_BACKENDS.get(b, b)} (no {t})" for b, t in sorted(gaps.items()))


def format_binary(b: dict) -> str:
    lines = [f"{b['path']}: {b['verdict'].upper()}"]
    if b.get("needed_by"):
        lines.append(f"  needed by {b['needed_by']}")
    for r in b["reasons"]:
        lines.append(f"  - {r}")
    if b["cuda_access"]:
        lines.append("  reaches CUDA through: " + "; ".join(b["cuda_access"]))
    used = [e for e in b["entry_points"] if e["via"] != "cuGetProcAddress"]
    asked = [e for e in b["entry_points"] if e["via"] == "cuGetProcAddress"]
    if used:
        counts = Counter(e["status"] for e in used)
        lines.append(f"  entry points used: {len(used)} (" +
                     ", ".join(f"{n} {s}" for s, n in sorted(counts.items())) + ")")
        for e in used:
            if e["status"] in ("unsupported", "unknown"):
                why = f": {e['reason']}" if e.get("reason") else ""
                lines.append(f"      {e['status']:<12} {e['name']} [{e['library']}]{why}")
            elif e.get("backend_gaps"):
                lines.append(f"      {e['status']:<12} {e['name']} [{e['library']}]: "
                             + _missing_on(e["backend_gaps"]))
    if asked:
        counts = Counter(e["status"] for e in asked)
        lines.append(f"  driver entry points it can look up by name: {len(asked)} (" +
                     ", ".join(f"{n} {s}" for s, n in sorted(counts.items())) + ")")
        lacking = Counter(b for e in asked for b in e.get("backend_gaps", {}))
        for backend, n in sorted(lacking.items()):
            lines.append(f"      {n} of them have no HIP target on {_BACKENDS.get(backend, backend)}")
    ks = b["kernels"]
    if ks:
        ok = sum(k["translates"] is True for k in ks)
        bad = sum(k["translates"] is False for k in ks)
        lines.append(f"  kernels: {len(ks)} ({ok} translate, {bad} cannot run, "
                     f"{len(ks) - ok - bad} not checked)")
        worst = sorted(ks, key=lambda k: {False: 0, None: 1, True: 2}[k["translates"]])
        for k in worst[:_SHOW_KERNELS]:
            mark = {True: "ok", False: "FAIL", None: "?"}[k["translates"]]
            ptx = ",".join(k["ptx_archs"]) or "no PTX"
            sass = ",".join(k["sass"]) or "no SASS"
            lines.append(f"      {mark:<4} {k['name']}  [{ptx}; {sass}]")
            for u in k["unsupported_instructions"]:
                lines.append(f"           {u}")
            if k["translates"] is False and not k["unsupported_instructions"] and k["notes"]:
                lines.append(f"           {k['notes'][0]}")
        if len(ks) > _SHOW_KERNELS:
            lines.append(f"      ... {len(ks) - _SHOW_KERNELS} more (see --json or --html)")
    for n in b["notes"]:
        lines.append(f"  note: {n}")
    return "\n".join(lines)


def format_report(report: dict) -> str:
    parts = [format_binary(b) for b in report["binaries"]]
    s = report.get("summary", {})
    if s:
        verdicts = ", ".join(f"{n} {v}" for v, n in s.get("verdicts", {}).items() if n)
        parts.append(f"checked {s.get('files', 0)} file(s) in {s.get('seconds', 0):.1f} s: "
                     f"{verdicts or 'nothing with CUDA'}"
                     + (f"; {s['skipped_no_cuda']} without CUDA skipped"
                        if s.get("skipped_no_cuda") else ""))
    return "\n\n".join(parts)
