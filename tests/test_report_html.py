"""The HTML pages: self-contained (nothing fetched), every row present, and filters that
really work in a real headless browser (Debian's chromium; skipped where it is absent).
Filters are preset through the URL fragment and the DOM is read back after the script ran."""

from __future__ import annotations

import re
import shutil
import subprocess
from html.parser import HTMLParser
from pathlib import Path

import pytest
import test_check as tc

from pyshim.check import check_report
from pyshim.report.html import render_check, render_run
from pyshim.report.run import parse_lines


def _report() -> dict:
    return check_report([tc.build("gaps", tc.GAPS_SOURCE, []),
                         tc.build("brkpt", tc.BRKPT_SOURCE, []),
                         tc.example(["-gencode", "arch=compute_86,code=sm_86"], "matmul-sass86")])


class _Rows(HTMLParser):
    """Rows of each filtered table: (table id, hidden?, data-status, text)."""

    def __init__(self) -> None:
        super().__init__()
        self.table: str | None = None
        self.rows: list[dict] = []
        self.counts: dict[str, str] = {}
        self._count_id: str | None = None
        self._in_body = False
        self.external: list[str] = []
        self.cards: list[tuple[str, bool]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        for key in ("src", "href"):
            if a.get(key):
                self.external.append(f"{tag} {key}={a[key]}")
        if tag == "table" and "filtered" in (a.get("class") or ""):
            self.table = a["id"]
        elif tag == "tbody":
            self._in_body = True
        elif tag == "tr" and self._in_body and self.table:
            self.rows.append({"table": self.table, "hidden": "hidden" in a,
                              "status": a.get("data-status"), "library": a.get("data-library"),
                              "text": ""})
        elif tag == "section" and a.get("data-binary"):
            self.cards.append((a["data-binary"], "hidden" in a))
        elif tag == "span" and (a.get("id") or "").endswith("-count"):
            self._count_id = a["id"][:-len("-count")]

    def handle_endtag(self, tag: str) -> None:
        if tag == "tbody":
            self._in_body = False
        elif tag == "table":
            self.table = None
        elif tag == "span":
            self._count_id = None

    def handle_data(self, data: str) -> None:
        if self._count_id:
            self.counts[self._count_id] = data
        if self._in_body and self.rows:
            self.rows[-1]["text"] += data


def _parse(page: str) -> _Rows:
    p = _Rows()
    p.feed(page)
    return p


def test_page_is_self_contained_and_complete():
    report = _report()
    page = render_check(report)
    assert page.startswith("<!DOCTYPE html>")
    assert not re.search(r"https?://", page), "the page must not fetch anything"
    rows = _parse(page)
    assert rows.external == []
    kernels = [r for r in rows.rows if r["table"] == "kernels"]
    entries = [r for r in rows.rows if r["table"] == "entries"]
    assert len(kernels) == sum(len(b["kernels"]) for b in report["binaries"])
    assert len(entries) == sum(len(b["entry_points"]) for b in report["binaries"])
    # names are escaped, not interpreted
    evil = {"binaries": [{**report["binaries"][0], "path": "/tmp/<script>alert(1)</script>"}]}
    assert "<script>alert(1)" not in render_check(evil)


def _chromium() -> str:
    for name in ("chromium", "chromium-browser", "google-chrome"):
        found = shutil.which(name)
        if found:
            return found
    pytest.skip("no chromium: apt-get install -y chromium (CI should install it)")


def _browser(args: list[str], url: str) -> subprocess.CompletedProcess[str]:
    cmd = [_chromium(), "--headless", "--no-sandbox", "--disable-gpu",
           "--disable-background-networking", "--no-first-run", "--disable-extensions",
           *args, url]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=90)
    assert proc.returncode == 0, proc.stderr[-2000:]
    return proc


def _dom(page: Path, fragment: str) -> _Rows:
    return _parse(_browser(["--dump-dom"], page.as_uri() + fragment).stdout)


@pytest.fixture(scope="module")
def page(tmp_path_factory) -> tuple[Path, dict]:
    report = _report()
    path = tmp_path_factory.mktemp("html") / "check.html"
    path.write_text(render_check(report), encoding="utf-8")
    return path, report


def test_filters_in_a_real_browser(page):
    path, report = page
    bins = report["binaries"]
    n_kernels = sum(len(b["kernels"]) for b in bins)
    n_entries = sum(len(b["entry_points"]) for b in bins)
    unsupported = sum(e["status"] == "unsupported" for b in bins for e in b["entry_points"])
    assert 0 < unsupported < n_entries

    dom = _dom(path, "")  # no filter: everything shown, counts filled in by the script
    assert not any(r["hidden"] for r in dom.rows)
    assert dom.counts["kernels"] == f"{n_kernels} of {n_kernels} shown"

    dom = _dom(path, "#status=unsupported")
    shown = [r for r in dom.rows if r["table"] == "entries" and not r["hidden"]]
    assert len(shown) == unsupported and {r["status"] for r in shown} == {"unsupported"}
    assert dom.counts["entries"] == f"{unsupported} of {n_entries} shown"
    assert dom.counts["kernels"] == f"0 of {n_kernels} shown"  # no kernel is "unsupported"

    # free text (case-insensitive, spaces encoded): the untranslatable kernel only (the
    # module's other kernel translates: a kernel fails alone)
    dom = _dom(path, "#q=Instruction%20BRKPT")
    shown = [r for r in dom.rows if not r["hidden"]]
    assert {r["table"] for r in shown} == {"kernels"}
    assert len(shown) == 1 and all("instruction brkpt" in r["text"] for r in shown)
    assert "_Z6markedPi" in shown[0]["text"]

    # one binary: its card and rows only
    name = Path(bins[0]["path"]).name
    dom = _dom(path, f"#binary={name}")
    assert [c for c in dom.cards if not c[1]] == [(name, False)]
    assert len(dom.cards) == len(bins)
    shown = [r for r in dom.rows if not r["hidden"]]
    assert len(shown) == len(bins[0]["kernels"]) + len(bins[0]["entry_points"])

    dom = _dom(path, "#status=problems&library=libcudart_static")
    shown = [r for r in dom.rows if not r["hidden"]]
    expected = sum(e["library"] == "libcudart_static" and
                   e["status"] in ("unsupported", "unknown", "not-replaced")
                   for b in bins for e in b["entry_points"])
    assert len(shown) == expected > 0
    assert all(r["library"] == "libcudart_static" for r in shown)


def test_screenshot_renders(page, tmp_path):
    path, _ = page
    shot = tmp_path / "shot.png"
    _browser([f"--screenshot={shot}", "--window-size=1200,900"], path.as_uri())
    data = shot.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 20_000  # not a blank page


def test_run_report_page_in_a_browser(tmp_path):
    report = parse_lines(["unsupported cudaCtxResetPersistingL2Cache 2\n",
                          "unsupported cudaLogsCurrent 1\n",
                          "kernel _Z5scalePffi translated 12.5\n", "error cudaMalloc 2\n",
                          "bogus line\n"])
    report["source"] = "raw.log"
    path = tmp_path / "run.html"
    path.write_text(render_run(report), encoding="utf-8")
    dom = _dom(path, "#q=Logs")
    shown = [r for r in dom.rows if not r["hidden"]]
    assert len(shown) == 1 and "cudaLogsCurrent" in shown[0]["text"]
    assert "bogus" in path.read_text()
