"""Refuse loudly, never crash: every exported cuBLAS/cuSOLVER symbol called with degenerate
arguments returns a status (tests/shim_blas/cases_robust.py in a child process, so that
a crash is reported as this test's failure instead of ending the test run)."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent / "shim_blas"))
import env  # noqa: E402


def test_degenerate_arguments_never_crash(tmp_path: Path) -> None:
    env.run_cases(env.build(), "cases_robust.py", tmp_path)
