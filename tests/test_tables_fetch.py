"""The headers cache filled by several processes at once (pytest-xdist workers on a fresh
cache, two builds): every process gets the complete headers, none fails on another's apt
lock or half-copied directory."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
FETCH = ("from pyshim.tables.fetch import fetch, is_fetched\n"
         "from pyshim.tables.sources import SOURCES\n"
         "s = next(x for x in SOURCES if x.key == 'hsa')\n"
         "d = fetch(s, quiet=True)\n"
         "assert is_fetched(s) and (d / 'usr/include/hsa/hsa.h').is_file(), d\n")


@pytest.mark.slow
def test_concurrent_fetches_of_one_source_all_succeed(tmp_path: Path) -> None:
    env = {**os.environ, "PYSHIM_CACHE": str(tmp_path / "cache"), "PYTHONPATH": str(REPO)}
    procs = [subprocess.Popen([sys.executable, "-c", FETCH], env=env, cwd=REPO,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for _ in range(3)]
    results = [p.communicate(timeout=600) for p in procs]
    for p, (_out, err) in zip(procs, results, strict=True):
        assert p.returncode == 0, err
    headers = tmp_path / "cache" / "headers"
    # nothing left behind but the one directory (no staging copies)
    assert not [x for x in headers.glob("hsa*") if x.name != "hsa"]
    assert not list(headers.glob(".hsa-*"))
