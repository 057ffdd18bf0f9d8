"""cuSOLVER's iterative-refinement solvers and reductions to condensed form through
pyshim's libcusolver.so.12 on the CPU device, against numpy and scipy
(tests/shim_blas/cases_cusolver_irs.py in a child pytest; see test_shim_blas_cusolver)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from pyshim.codegen.common import load_table
from pyshim.tables.stats import is_mapped

sys.path.insert(0, str(Path(__file__).parent / "shim_blas"))
import env  # noqa: E402

HAND_FILES = ("cusolver_irs.c", "cusolver_reduce.c", "cusolver_syevj.c", "cusolver_gesvdj.c")


def test_irs_and_reduction_cases(tmp_path: Path) -> None:
    env.run_cases(env.build(), "cases_cusolver_irs.py", tmp_path)
    verified = set(json.loads((tmp_path / "cusolver_irs.json").read_text()))
    table = load_table("cusolver")["entry_points"]
    # every entry point the tables hand to these two files ran against numpy/scipy, but the
    # IRS setters whose effect no result shows
    hand = {n for n, e in table.items() if e["class"] == "shim"
            and any(f in (e["reason"] or "") for f in HAND_FILES)}
    setters = {n for n in hand if n.startswith("cusolverDnIRSParams")
               or n.startswith("cusolverDnIRSInfos")}
    assert len(hand) >= 120, len(hand)
    assert not sorted(hand - setters - verified), sorted(hand - setters - verified)


def test_dense_cusolver_mapped_count() -> None:
    # issue 16: dense cuSOLVER from 158 to >= 250 mapped (a ROCm target, a complete mapping)
    table = load_table("cusolver")["entry_points"]
    dense = [e for n, e in table.items() if n.startswith("cusolverDn") and is_mapped(e, "cusolver")]
    assert len(dense) >= 250, len(dense)
