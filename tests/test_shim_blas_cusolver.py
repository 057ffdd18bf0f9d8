"""cuSOLVER dense through pyshim's libcusolver.so.12 on the CPU device, against numpy and
scipy (tests/shim_blas/cases_cusolver.py in a child pytest; see test_shim_blas_cublas)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from pyshim.codegen.common import load_table

sys.path.insert(0, str(Path(__file__).parent / "shim_blas"))
import env  # noqa: E402

# entry points checked end to end today; the goal is 60, which needs the tables to
# map the solvers whose devInfo has no rocSOLVER counterpart (getrs, potrs, geqrf, ...)
CUSOLVER_FLOOR = 56


@pytest.fixture(scope="module")
def verified(tmp_path_factory) -> set[str]:
    cov = tmp_path_factory.mktemp("cov")
    env.run_cases(env.build(), "cases_cusolver.py", cov)
    return set(json.loads((cov / "cusolver.json").read_text()))


def test_cusolver_cases(verified: set[str]) -> None:
    table = load_table("cusolver")["entry_points"]
    assert verified <= set(table), sorted(verified - set(table))
    assert len(verified) >= CUSOLVER_FLOOR, f"{len(verified)}: {sorted(verified)}"


def test_every_mapped_factorization_is_exercised(verified: set[str]) -> None:
    table = load_table("cusolver")["entry_points"]
    want = {n for n, e in table.items() if e["class"] == "adapter" and "workspace" in e["args"]}
    assert want, "the tables map no cuSOLVER factorization"
    assert not sorted(want - verified), sorted(want - verified)
