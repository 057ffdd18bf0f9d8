"""`pyshim ptx translate|stats`."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from pyshim.kernels import amd

SAMPLE = Path(__file__).parent / "ptx" / "sample.ptx"


def _pyshim(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "pyshim", "ptx", *args], capture_output=True,
                          text=True)


def test_translate_to_file_and_dump_ir(tmp_path):
    out = tmp_path / "m.c"
    r = _pyshim("translate", "--target", "cpu-wave32", str(SAMPLE), "-o", str(out),
                "--dump-ir", "classify_sync")
    assert r.returncode == 0, r.stderr
    text = out.read_text()
    assert "pyshim_module" in text and "cpu-wave32" in text
    assert "IR after classify_sync" in r.stderr and "mode='phase'" in r.stderr


def test_stats():
    r = _pyshim("stats", str(SAMPLE))
    assert r.returncode == 0, r.stderr
    assert "lines/s" in r.stdout and "block_sum: phase" in r.stdout and "callee_barrier: fiber" in r.stdout and "saxpy: loop" in r.stdout


def test_bad_ptx_is_a_clean_error(tmp_path):
    bad = tmp_path / "bad.ptx"
    bad.write_text(".version 8.0\n.target sm_80\n.address_size 64\n.entry k() { bogus.op; }\n")
    r = _pyshim("translate", str(bad))
    assert r.returncode == 1
    assert "bogus.op" in r.stderr and "line 4" in r.stderr and "Traceback" not in r.stderr


def test_compile_cpu_shared_object(tmp_path):
    out = tmp_path / "m.so"
    r = _pyshim("compile", "--arch", "cpu", str(SAMPLE), "-o", str(out))
    assert r.returncode == 0, r.stderr
    assert out.read_bytes()[:4] == b"\x7fELF"


@pytest.mark.skipif("clang" not in amd.available_compilers(), reason="needs clang-19")
def test_compile_amd_code_object(tmp_path, monkeypatch):
    monkeypatch.setenv("PYSHIM_CACHE", str(tmp_path / "cache"))
    text = SAMPLE.read_text()
    a = text.index(".visible .entry fib_kernel")  # printf: not on AMD yet
    b = text.index(".visible .entry", a + 10)
    src = tmp_path / "noprintf.ptx"
    src.write_text(text[:a] + text[b:])
    out = tmp_path / "m.co"
    r = _pyshim("compile", "--arch", "gfx1100", str(src), "-o", str(out))
    assert r.returncode == 0, r.stderr
    assert out.read_bytes()[:4] == b"\x7fELF"
