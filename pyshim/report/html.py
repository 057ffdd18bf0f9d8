"""Self-contained HTML pages (inline CSS and JS, nothing fetched) for `pyshim check --html`
and for run reports.

Rows are rendered here, so the page reads without JavaScript; the script only filters
(by binary, library, status and free text) and keeps counts of what is shown. Filters can
be preset from the URL fragment, e.g. `report.html#status=unsupported&q=cuMem`, which is
also how the tests drive a headless browser.
"""

from __future__ import annotations

import html
from collections import Counter
from pathlib import Path

from pyshim.check.analyse import VERDICTS

# status -> CSS colour; mapped classes are shades of green, gaps red/orange, unknown grey
_COLOURS = {
    "direct": "#2e7d32", "converted": "#43a047", "adapter": "#7cb342", "shim": "#9ccc65",
    "unsupported": "#c62828", "not-replaced": "#ef6c00", "unknown": "#9e9e9e",
    "translates": "#2e7d32", "fails": "#c62828", "unchecked": "#9e9e9e",
    "runs": "#2e7d32", "runs-with-gaps": "#ef6c00", "cannot-run": "#c62828",
}
_STATUS_ORDER = ["direct", "converted", "adapter", "shim", "not-replaced", "unknown",
                 "unsupported"]

_CSS = """
body{font:14px/1.4 system-ui,sans-serif;margin:0;color:#222;background:#fafafa}
header{background:#263238;color:#fff;padding:12px 20px}
header h1{margin:0;font-size:20px}
main{padding:12px 20px}
.badge{display:inline-block;padding:1px 8px;border-radius:9px;color:#fff;font-size:12px;
 font-weight:600;white-space:nowrap}
.card{background:#fff;border:1px solid #ddd;border-radius:6px;padding:10px 14px;margin:10px 0}
.card h2{font-size:15px;margin:0 0 6px;word-break:break-all}
.reasons li{margin:2px 0;word-break:break-all}
.notes{color:#666;font-size:12px}
.bar{display:flex;height:14px;border-radius:3px;overflow:hidden;background:#eee;min-width:200px}
.bar span{display:block;height:100%}
.cov{display:grid;grid-template-columns:minmax(160px,max-content) 1fr max-content;gap:4px 10px;
 align-items:center;margin:6px 0}
.legend span{margin-right:10px;font-size:12px}
.legend i{display:inline-block;width:10px;height:10px;margin-right:3px;border-radius:2px}
#filters{position:sticky;top:0;background:#eceff1;padding:8px 20px;display:flex;gap:10px;
 flex-wrap:wrap;align-items:center;border-bottom:1px solid #cfd8dc;z-index:1}
#filters input{min-width:240px}
table{border-collapse:collapse;width:100%;background:#fff;font-size:13px}
th,td{border:1px solid #e0e0e0;padding:3px 6px;text-align:left;vertical-align:top}
th{background:#f5f5f5;position:sticky;top:42px}
td.name{font-family:ui-monospace,monospace;word-break:break-all}
tr[hidden],section[hidden]{display:none}
.count{color:#555;font-size:12px}
"""

_JS = """
(function(){
  const $ = id => document.getElementById(id);
  const controls = ['binary','library','status','q'];
  function matches(tr, f){
    if (f.binary && tr.dataset.binary !== f.binary) return false;
    if (f.library && tr.dataset.library !== f.library) return false;
    if (f.status) {
      const problem = tr.dataset.problem === '1';
      if (f.status === 'problems' ? !problem : tr.dataset.status !== f.status) return false;
    }
    if (f.q && tr.textContent.toLowerCase().indexOf(f.q.toLowerCase()) < 0) return false;
    return true;
  }
  function apply(){
    const f = {};
    controls.forEach(c => { const el = $('f-' + c); f[c] = el ? el.value : ''; });
    document.querySelectorAll('table.filtered').forEach(t => {
      let shown = 0, total = 0;
      t.querySelectorAll('tbody tr').forEach(tr => {
        total++;
        const ok = matches(tr, f);
        tr.hidden = !ok;
        if (ok) shown++;
      });
      const c = $(t.id + '-count');
      if (c) c.textContent = shown + ' of ' + total + ' shown';
      t.dataset.shown = shown;
    });
    document.querySelectorAll('section.card[data-binary]').forEach(card => {
      card.hidden = !!f.binary && card.dataset.binary !== f.binary;
    });
    const parts = controls.filter(c => f[c]).map(c => c + '=' + encodeURIComponent(f[c]));
    history.replaceState(null, '', parts.length ? '#' + parts.join('&') : location.pathname);
  }
  function fromHash(){
    const h = location.hash.replace(/^#/, '');
    h.split('&').filter(Boolean).forEach(kv => {
      const i = kv.indexOf('=');
      const el = $('f-' + kv.slice(0, i));
      if (el) el.value = decodeURIComponent(kv.slice(i + 1));
    });
  }
  controls.forEach(c => { const el = $('f-' + c); if (el) el.addEventListener('input', apply); });
  fromHash();
  apply();
})();
"""


def _e(value: object) -> str:
    return html.escape(str(value), quote=True)


def _badge(text: str) -> str:
    return f'<span class="badge" style="background:{_COLOURS.get(text, "#607d8b")}">' \
           f"{_e(text)}</span>"


def _bar(counts: Counter[str], order: list[str]) -> str:
    total = sum(counts.values()) or 1
    spans = "".join(
        f'<span title="{_e(s)}: {counts[s]}" style="width:{100 * counts[s] / total:.3f}%;'
        f'background:{_COLOURS.get(s, "#607d8b")}"></span>'
        for s in order + sorted(set(counts) - set(order)) if counts.get(s))
    return f'<div class="bar">{spans}</div>'


def _legend(statuses: list[str]) -> str:
    return '<div class="legend">' + "".join(
        f'<span><i style="background:{_COLOURS[s]}"></i>{_e(s)}</span>' for s in statuses) + \
        "</div>"


def _select(name: str, label: str, values: list[str], extra: list[tuple[str, str]] = ()) -> str:
    opts = '<option value="">all</option>' + "".join(
        f'<option value="{_e(v)}">{_e(t)}</option>' for v, t in extra) + "".join(
        f'<option value="{_e(v)}">{_e(v)}</option>' for v in values)
    return f'<label>{_e(label)} <select id="f-{name}">{opts}</select></label>'


def _page(title: str, body: str, filters: str) -> str:
    return (f'<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
            f'<meta name="viewport" content="width=device-width,initial-scale=1">'
            f"<title>{_e(title)}</title><style>{_CSS}</style></head><body>"
            f"<header><h1>{_e(title)}</h1></header>"
            f'<div id="filters">{filters}</div><main>{body}</main>'
            f"<script>{_JS}</script></body></html>\n")


def _kernel_state(k: dict) -> str:
    return {True: "translates", False: "fails", None: "unchecked"}[k["translates"]]


def _coverage(b: dict) -> str:
    by_lib: dict[str, Counter[str]] = {}
    for e in b["entry_points"]:
        key = e["library"] + (" (looked up by name)"
                              if e["via"] == "cuGetProcAddress" else "")
        by_lib.setdefault(key, Counter())[e["status"]] += 1
    rows = []
    for lib, counts in sorted(by_lib.items()):
        n = sum(counts.values())
        ok = sum(counts[s] for s in ("direct", "converted", "adapter", "shim"))
        rows.append(f"<div>{_e(lib)}</div>{_bar(counts, _STATUS_ORDER)}"
                    f'<div class="count">{ok}/{n} mapped</div>')
    if b["kernels"]:
        ks = Counter(_kernel_state(k) for k in b["kernels"])
        rows.append(f"<div>kernels</div>{_bar(ks, ['translates', 'unchecked', 'fails'])}"
                    f'<div class="count">{ks["translates"]}/{sum(ks.values())} translate</div>')
    return f'<div class="cov">{"".join(rows)}</div>' if rows else ""


def _card(b: dict) -> str:
    reasons = "".join(f"<li>{_e(r)}</li>" for r in b["reasons"])
    notes = "".join(f"<li>{_e(n)}</li>" for n in b["notes"])
    access = "; ".join(b["cuda_access"]) or "no CUDA use found"
    needed = f' <span class="count">(needed by {_e(b["needed_by"])})</span>' \
        if b.get("needed_by") else ""
    return (f'<section class="card" data-binary="{_e(Path(b["path"]).name)}">'
            f'<h2>{_badge(b["verdict"])} {_e(b["path"])}{needed}</h2>'
            f"<div>reaches CUDA through: {_e(access)}</div>"
            + (f'<ul class="reasons">{reasons}</ul>' if reasons else "")
            + _coverage(b)
            + (f'<ul class="notes">{notes}</ul>' if notes else "") + "</section>")


def _entry_rows(binaries: list[dict]) -> str:
    rows = []
    for b in binaries:
        name = Path(b["path"]).name
        for e in b["entry_points"]:
            problem = e["status"] in ("unsupported", "unknown", "not-replaced")
            rows.append(
                f'<tr data-binary="{_e(name)}" data-library="{_e(e["library"])}" '
                f'data-status="{_e(e["status"])}" data-problem="{int(problem)}">'
                f'<td class="name">{_e(e["name"])}</td><td>{_e(e["library"])}</td>'
                f'<td>{_badge(e["status"])}</td><td>{_e(e["via"])}</td>'
                f'<td>{_e(e["reason"] or "")}</td><td>{_e(name)}</td></tr>')
    return "".join(rows)


def _kernel_rows(binaries: list[dict]) -> str:
    rows = []
    for b in binaries:
        name = Path(b["path"]).name
        for k in b["kernels"]:
            state = _kernel_state(k)
            why = "; ".join(k["unsupported_instructions"] + k["notes"])
            rows.append(
                f'<tr data-binary="{_e(name)}" data-library="{_e(name)}" '
                f'data-status="{state}" data-problem="{int(state == "fails")}">'
                f'<td class="name">{_e(k["name"])}</td><td>{_e(", ".join(k["ptx"]))}</td>'
                f'<td>{_e(", ".join(k["ptx_archs"]))}</td><td>{_e(", ".join(k["sass"]))}</td>'
                f"<td>{_badge(state)}</td><td>{_e(why)}</td><td>{_e(name)}</td></tr>")
    return "".join(rows)


def _table(tid: str, title: str, heads: list[str], rows: str) -> str:
    head = "".join(f"<th>{_e(h)}</th>" for h in heads)
    return (f'<h2>{_e(title)} <span class="count" id="{tid}-count"></span></h2>'
            f'<table class="filtered" id="{tid}"><thead><tr>{head}</tr></thead>'
            f"<tbody>{rows}</tbody></table>")


def _table_coverage() -> str:
    """How much of each CUDA API the dispatch tables map (independent of any binary)."""
    from pyshim.tables.stats import stats

    rows = []
    for api, row in stats().items():
        counts = Counter({k: v for k, v in row["by_class"].items() if v})
        rows.append(f"<div>{_e(api)}</div>{_bar(counts, _STATUS_ORDER)}"
                    f'<div class="count">{row["mapped"]}/{row["entry_points"]} mapped</div>')
    return ('<details class="card"><summary>What pyshim\'s tables cover (all entry points '
            f'of each API)</summary><div class="cov">{"".join(rows)}</div></details>')


def render_check(report: dict) -> str:
    """The page for a `pyshim check` report (the JSON document)."""
    bins = report["binaries"]
    summary = report.get("summary", {})
    verdicts = summary.get("verdicts", {v: 0 for v in VERDICTS})
    top = " ".join(f"{_badge(v)} {n}" for v, n in verdicts.items())
    statuses = sorted({e["status"] for b in bins for e in b["entry_points"]} |
                      {_kernel_state(k) for b in bins for k in b["kernels"]})
    libs = sorted({e["library"] for b in bins for e in b["entry_points"]} |
                  {Path(b["path"]).name for b in bins if b["kernels"]})
    names = [Path(b["path"]).name for b in bins]
    filters = (_select("binary", "binary", names) + _select("library", "library", libs) +
               _select("status", "status", statuses, [("problems", "problems only")]) +
               '<label>search <input id="f-q" type="search" placeholder="name, reason, '
               'instruction..."></label>')
    body = (f"<p>{len(bins)} file(s): {top}"
            + (f' <span class="count">({summary["skipped_no_cuda"]} without CUDA skipped, '
               f'{summary.get("seconds", 0):.1f} s)</span>' if summary else "") + "</p>"
            + _legend(_STATUS_ORDER) + _table_coverage() + "".join(_card(b) for b in bins)
            + _table("kernels", "Kernels", ["kernel", "PTX ISA", "PTX arch", "SASS",
                                            "translation", "why not", "file"],
                     _kernel_rows(bins))
            + _table("entries", "Entry points", ["name", "library", "status", "via",
                                                 "reason", "file"], _entry_rows(bins)))
    return _page("pyshim check", body, filters)


def render_run(report: dict) -> str:
    """The page for a run report (pyshim.report.run.build_run_report)."""
    t = report["totals"]
    rows = []
    for u in report["unsupported"]:
        rows.append(f'<tr data-binary="" data-library="{_e(u["library"] or "")}" '
                    f'data-status="unsupported" data-problem="1">'
                    f'<td class="name">{_e(u["name"])}</td><td>{_e(u["library"] or "")}</td>'
                    f'<td>{u["count"]}</td><td>{_e(u["reason"] or "")}</td></tr>')
    krows = "".join(
        f'<tr data-binary="" data-library="" data-status="kernel" data-problem="0">'
        f'<td class="name">{_e(k["name"])}</td><td>{k["translated"]}</td><td>{k["cached"]}</td>'
        f'<td>{k["ms_total"]:.1f}</td></tr>' for k in report["kernels"])
    erows = "".join(
        f'<tr data-binary="" data-library="" data-status="error" data-problem="1">'
        f'<td class="name">{_e(e["name"])}</td><td>{_e(e["code"])}</td><td>{e["count"]}</td></tr>'
        for e in report["errors"])
    bad = "".join(f"<li>line {m['line']}: {_e(m['why'])}: <code>{_e(m['text'])}</code></li>"
                  for m in report["malformed"])
    body = (f"<p>{t['unsupported_functions']} unsupported function(s) called "
            f"{t['unsupported_calls']} time(s); {t['kernels']} kernel(s), "
            f"{t['kernels_translated']} translated in {t['translation_ms']:.0f} ms, "
            f"{t['kernels_cached']} from cache; {t['errors']} error(s)</p>"
            + (f'<ul class="notes">{bad}</ul>' if bad else "")
            + _table("unsupported", "Unsupported calls", ["name", "library", "calls", "reason"],
                     "".join(rows))
            + _table("rkernels", "Kernels", ["name", "translated", "from cache", "ms"], krows)
            + _table("errors", "Errors", ["name", "code", "count"], erows))
    filters = '<label>search <input id="f-q" type="search" placeholder="name..."></label>'
    return _page(f"pyshim run report: {report.get('source', '')}", body, filters)
