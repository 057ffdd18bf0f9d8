"""`pyshim check`'s per-instruction scan (pyshim/check/scan.py) gives the verdicts of the
full translator dry run (`--deep`) on the test corpus: our CUDA test files through nvcc,
whole and one kernel per module, and the same modules with a kernel broken."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from pyshim.check import scan, translate_probe
from pyshim.kernels import cache, lazy

ROOT = Path(__file__).resolve().parents[1]
SOURCES = [ROOT / "tests/ptx" / n for n in ("kernels.cu", "gaps.cu", "warp80.cu",
                                             "vectorize.cu", "device_assert.cu")]
SOURCES.append(ROOT / "benchmarks/kernels/kernels.cu")

pytestmark = pytest.mark.skipif(shutil.which("nvcc") is None, reason="needs nvcc")


@pytest.fixture(scope="module")
def corpus(tmp_path_factory) -> list[tuple[str, str]]:
    out_dir = tmp_path_factory.mktemp("scan-corpus")
    texts = [("sample.ptx", (ROOT / "tests/ptx/sample.ptx").read_text())]
    for src in SOURCES:
        out = out_dir / (src.stem + ".ptx")
        subprocess.run(["nvcc", "-ptx", "-arch=sm_80", "-O2", str(src), "-o", str(out)],
                       check=True, capture_output=True, timeout=600)
        texts.append((src.name, out.read_text()))
    modules = list(texts)
    for name, text in texts:  # each kernel alone, as a module of its own
        index = lazy.Index(text.encode())
        modules += [(f"{name}:{k}", index.kernel_module(k)) for k in index.kernels]
    broken = []
    for name, text in modules[:len(texts)]:
        # an instruction the translator refuses, and malformed PTX, in one kernel each
        broken.append((f"{name}+unsupported", text.replace("\tret;", "\tfrobnicate.b32 "
                                                           "%r1, %r1;\n\tret;", 1)))
        broken.append((f"{name}+bad-label", text.replace("\tret;", "\tbra NOWHERE;\n\tret;",
                                                         1)))
    return modules + broken


def test_scan_gives_the_deep_verdicts_on_the_corpus(corpus):
    memo: dict = {}
    differ = []
    for name, text in corpus:
        deep = translate_probe.dry_run(text)
        got = scan.scan(text, memo)
        if (deep.translates, deep.error) != (got.translates, got.error):
            differ.append((name, deep.translates, deep.error, got.translates, got.error))
    assert differ == []
    assert sum(1 for n, _ in corpus if "+" in n) >= 10  # the broken ones were there
    assert len(memo) > 100  # shapes were learned, so later modules could skip dry runs


def test_scan_skips_dry_runs_for_known_shapes(corpus, monkeypatch):
    name, text = next((n, t) for n, t in corpus if n == "kernels.cu")
    memo: dict = {}
    assert scan.scan(text, memo).translates is True
    calls = []
    real = translate_probe.dry_run
    monkeypatch.setattr(translate_probe, "dry_run", lambda t: calls.append(t) or real(t))
    # the same shapes again (another module): no dry run at all
    again = scan.scan(text.replace(".entry ", ".entry again_"), memo)
    assert again.translates is True and again.mode == "scan" and calls == []


def test_verdicts_are_cached_by_ptx_hash(corpus, tmp_path, monkeypatch):
    monkeypatch.setenv("PYSHIM_CACHE", str(tmp_path))
    monkeypatch.setenv("PYSHIM_SYSTEM_CACHE", "")
    cache.forget_private()
    text = next(t for n, t in corpus if n == "gaps.cu")
    first = scan.cached_outcome(text, deep=False)
    monkeypatch.setattr(scan, "scan", lambda *a: pytest.fail("not served from the cache"))
    assert scan.cached_outcome(text, deep=False) == first
    cache.forget_private()


def test_the_shape_memo_is_kept_between_checks(corpus, tmp_path, monkeypatch):
    monkeypatch.setenv("PYSHIM_CACHE", str(tmp_path))
    monkeypatch.setenv("PYSHIM_SYSTEM_CACHE", "")
    cache.forget_private()
    assert scan.load_memo() == {}
    memo: dict = {}
    text = next(t for n, t in corpus if n == "kernels.cu")
    assert scan.scan(text, memo).translates is True and memo
    scan.save_memo(memo)
    assert scan.load_memo() == memo
    scan.save_memo({"('extra',)": True})
    assert set(scan.load_memo()) == {*memo, "('extra',)"}
    cache.forget_private()
