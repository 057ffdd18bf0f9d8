"""The run report: parsing the lines the shim appends to $PYSHIM_REPORT, adding up repeats
from several libraries/processes, keeping malformed lines, and the three output formats.
One test runs a real program under pyshim's own libcudart (when it has been built)."""

from __future__ import annotations

import json
import os
import re
import subprocess

import pytest
import test_check as tc

from pyshim import paths
from pyshim.check.tables import load as load_tables
from pyshim.report.run import build_run_report, format_text, parse_lines, write_run_report

RAW = """\
unsupported cudaCtxResetPersistingL2Cache 2
call cudaMalloc 3
kernel _Z5scalePffi translated 41.5
kernel _Z5scalePffi cached 0.4
error cudaMalloc 2
# written by a second library of the same process
unsupported cudaCtxResetPersistingL2Cache 1
unsupported cublasNotAFunction 4
call cudaMalloc 1
error cudaMalloc 2
error cudaFree cudaErrorInvalidValue
"""


def test_counts_add_up_across_writers():
    r = parse_lines(RAW.splitlines(True))
    unsupported = {u["name"]: u for u in r["unsupported"]}
    assert unsupported["cudaCtxResetPersistingL2Cache"]["count"] == 3
    assert r["unsupported"][0]["name"] == "cublasNotAFunction"  # most calls first
    assert r["calls"] == [{"name": "cudaMalloc", "count": 4,
                           **_status("cudaMalloc")}]
    (k,) = r["kernels"]
    assert (k["name"], k["translated"], k["cached"]) == ("_Z5scalePffi", 1, 1)
    assert k["ms_total"] == pytest.approx(41.9) and k["ms_max"] == pytest.approx(41.5)
    assert {(e["name"], e["code"], e["count"]) for e in r["errors"]} == \
        {("cudaMalloc", "2", 2), ("cudaFree", "cudaErrorInvalidValue", 1)}
    t = r["totals"]
    assert (t["unsupported_calls"], t["unsupported_functions"], t["calls"]) == (7, 2, 4)
    assert (t["kernels_translated"], t["kernels_cached"], t["errors"]) == (1, 1, 3)
    assert t["translation_ms"] == pytest.approx(41.5)
    assert r["malformed"] == []


def _status(name: str) -> dict:
    st = load_tables().lookup(name)
    lib = {"driver": "libcuda.so.1", "runtime": "libcudart.so", "cublas": "libcublas.so",
           "cusolver": "libcusolver.so"}[st.api]
    return {"library": lib, "status": st.status, "reason": st.reason}


def test_names_get_their_status_from_the_tables():
    r = parse_lines(["unsupported cudaCtxResetPersistingL2Cache 1\n",
                     "unsupported cublasNotAFunction 1\n"])
    by = {u["name"]: u for u in r["unsupported"]}
    assert {k: by["cudaCtxResetPersistingL2Cache"][k] for k in ("library", "status", "reason")} \
        == _status("cudaCtxResetPersistingL2Cache")
    assert by["cublasNotAFunction"]["status"] == "unknown"
    assert by["cublasNotAFunction"]["library"] is None


@pytest.mark.parametrize("line, why", [
    ("unsupported cudaMalloc", "expected"),
    ("unsupported cudaMalloc many", "invalid literal"),
    ("unsupported cudaMalloc -3", "negative"),
    ("kernel k compiled 3", "translated|cached"),
    ("kernel k translated nan", "bad time"),
    ("error cudaMalloc", "expected"),
    ("launch k 3", "unknown record kind 'launch'"),
    ("unsupported cudaMal", "expected"),  # a line cut short by a dying process
])
def test_malformed_lines_are_kept_with_their_number(line, why):
    r = parse_lines(["call cudaFree 1\n", "\n", line + "\n"])
    (m,) = r["malformed"]
    assert m["line"] == 3 and m["text"] == line and why in m["why"]
    assert r["calls"][0]["count"] == 1  # the good lines still count
    assert r["totals"]["malformed_lines"] == 1


def test_missing_log_is_an_empty_report(tmp_path):
    r = build_run_report(tmp_path / "never-written")
    assert r["totals"]["unsupported_calls"] == 0 and r["unsupported"] == []
    assert r["source"].endswith("never-written")


def test_writer_picks_the_format_from_the_suffix(tmp_path):
    raw = tmp_path / "raw.log"
    raw.write_text(RAW)
    as_json = write_run_report(raw, tmp_path / "r.json")
    assert json.loads((tmp_path / "r.json").read_text()) == as_json
    write_run_report(raw, tmp_path / "r.txt")
    text = (tmp_path / "r.txt").read_text()
    assert text.strip() == format_text(as_json)
    assert "unsupported cudaCtxResetPersistingL2Cache x3" in text
    write_run_report(raw, tmp_path / "r.html")
    page = (tmp_path / "r.html").read_text()
    assert page.startswith("<!DOCTYPE html>") and "cudaCtxResetPersistingL2Cache" in page


def test_real_program_under_pyshims_runtime(tmp_path):
    """The lines our libcudart really writes parse into a report naming the same functions
    its log names (skipped until the runtime library has been built into build/lib)."""
    lib = paths.build_dir() / "lib"
    cpu = paths.build_dir() / "cpu"
    if not (lib / "libcudart.so.13").exists():
        pytest.skip("build/lib/libcudart.so.13 not built (pyshim build)")
    tc.gaps_functions()
    exe = tc.build("gaps-cudart-shared", tc.GAPS_SOURCE, ["-cudart", "shared"])
    raw = tmp_path / "raw.log"
    env = dict(os.environ, PYSHIM_REPORT=str(raw),
               LD_LIBRARY_PATH=f"{lib}:{cpu}:" + os.environ.get("LD_LIBRARY_PATH", ""))
    proc = subprocess.run([str(exe)], capture_output=True, text=True, env=env, timeout=120)
    logged = set(re.findall(r"pyshim: (\w+) is not supported", proc.stderr))
    if not raw.exists() and not logged:
        pytest.skip(f"the program did not reach the shim (rc {proc.returncode}): "
                    f"{proc.stderr[-300:]}")
    r = build_run_report(raw)
    assert r["malformed"] == []
    assert {u["name"] for u in r["unsupported"]} == logged
    assert logged, proc.stderr


def test_module_loads_are_reported(tmp_path, monkeypatch):
    """The embedded translator records each kernel it loads, translated or from cache."""
    from pyshim.embed.translate import translate
    from pyshim.report.run import build_run_report

    ptx = (".version 8.0\n.target sm_75\n.address_size 64\n"
           ".visible .entry k_report_probe(.param .u64 p)\n{\n ret;\n}\n")
    raw = tmp_path / "raw.log"
    monkeypatch.setenv("PYSHIM_REPORT", str(raw))
    monkeypatch.setenv("PYSHIM_CACHE", str(tmp_path / "cache"))
    assert translate(ptx.encode(), "cpu-wave64")[0] == 0
    assert translate(ptx.encode(), "cpu-wave64")[0] == 0
    rc, msg = translate(b"not ptx at all", "cpu-wave64")
    assert rc == 1
    report = build_run_report(raw)
    (k,) = report["kernels"]
    assert (k["name"], k["translated"], k["cached"]) == ("k_report_probe", 1, 1)
    assert report["errors"][0]["name"] == "module-load"
    assert report["errors"][0]["code"] == msg.split("\t")[0]
