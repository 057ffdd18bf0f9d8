"""Bad input never crashes the CPU device's rocBLAS/rocSOLVER: every declared entry point,
called with NULL for every pointer, returns a status (in a subprocess, so a crash would
show as the function it happened in)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent / "cpu_blas"))
import harness as H  # noqa: E402


def test_every_entry_point_with_null_pointers():
    out = H.build_libs()
    sizes = (3, 0, -1)
    run = subprocess.run([sys.executable, str(H.HERE / "null_args.py"), str(out),
                          *map(str, sizes)], capture_output=True, text=True, timeout=300)
    lines = run.stdout.splitlines()
    assert run.returncode == 0, f"crashed in {lines[-1] if lines else '?'}: {run.stderr[-2000:]}"
    for size in sizes:
        results = {n: v for s, n, v in (ln.split() for ln in lines) if s == str(size)}
        _check(size, results)


def _check(size: int, results: dict[str, str]) -> None:
    assert len(results) > 2000
    assert all(0 <= int(v) <= 15 for v in results.values())
    if size > 0:
        # with NULL arrays and work to do, only the setters may succeed
        ok = [n for n, v in results.items() if v == "0"]
        assert all("_set_" in n or "_log_" in n for n in ok), ok
        # and the pointer checks are what refuse most calls
        assert sum(v == str(H.ST_INVALID_POINTER) for v in results.values()) > 1500
