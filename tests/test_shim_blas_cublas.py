"""cuBLAS through pyshim's libcublas.so.13 on the CPU device, every family against numpy.

The cases (tests/shim_blas/cases_cublas.py) run in a child pytest whose library path is
build/lib:build/cpu, as under the launcher; each entry point whose result matched the
reference is recorded, and the count from the tables' names is checked here."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from pyshim.codegen.common import load_table

sys.path.insert(0, str(Path(__file__).parent / "shim_blas"))
import env  # noqa: E402

# the goal from the issue: cuBLAS entry points working end to end
CUBLAS_GOAL = 300


@pytest.fixture(scope="module")
def verified(tmp_path_factory) -> set[str]:
    cov = tmp_path_factory.mktemp("cov")
    built = env.build()
    env.run_cases(built, "cases_cublas.py", cov)
    env.run_cases(built, "cases_handles.py", cov)
    return set(json.loads((cov / "cublas.json").read_text()))


def test_cublas_cases_cover_the_goal(verified: set[str]) -> None:
    table = load_table("cublas")["entry_points"]
    unknown = verified - set(table)
    assert not unknown, f"not cuBLAS entry points of the tables: {sorted(unknown)}"
    assert len(verified) >= CUBLAS_GOAL, f"{len(verified)} verified: {sorted(verified)}"


def test_every_mapped_family_is_exercised(verified: set[str]) -> None:
    """Every cuBLAS entry the tables map onto rocBLAS is checked against numpy."""
    table = load_table("cublas")["entry_points"]
    mapped = {n for n, e in table.items() if e["class"] in ("direct", "converted", "adapter")}
    missing = sorted(mapped - verified)
    assert not missing, missing
