"""cuSOLVER dense through pyshim's libcusolver.so.12 on the CPU device, against numpy and
scipy (tests/shim_blas/cases_cusolver.py in a child pytest; see test_shim_blas_cublas)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from pyshim.codegen.common import load_table

sys.path.insert(0, str(Path(__file__).parent / "shim_blas"))
import env  # noqa: E402

# the goal from the issue: cuSOLVER dense entry points working end to end
CUSOLVER_GOAL = 60
# written by hand in shim/blas/cusolver_solve.c: devInfo/scratch have no rocSOLVER twin
HAND_SOLVERS = ("getrs", "potrs", "geqrf", "orgqr", "ungqr", "ormqr", "unmqr", "syevd",
                "heevd", "gesvd", "gesvd_bufferSize", "geqrf_bufferSize")


@pytest.fixture(scope="module")
def verified(tmp_path_factory) -> set[str]:
    cov = tmp_path_factory.mktemp("cov")
    env.run_cases(env.build(), "cases_cusolver.py", cov)
    return set(json.loads((cov / "cusolver.json").read_text()))


def test_cusolver_cases(verified: set[str]) -> None:
    table = load_table("cusolver")["entry_points"]
    assert verified <= set(table), sorted(verified - set(table))
    assert len(verified) >= CUSOLVER_GOAL, f"{len(verified)}: {sorted(verified)}"


def test_hand_written_solvers_are_exercised(verified: set[str]) -> None:
    table = load_table("cusolver")["entry_points"]
    want = {f"cusolverDn{p}{b}" for p in "SDCZ" for b in HAND_SOLVERS} & set(table)
    assert len(want) == 36
    assert not sorted(want - verified), sorted(want - verified)


def test_every_mapped_factorization_is_exercised(verified: set[str]) -> None:
    table = load_table("cusolver")["entry_points"]
    want = {n for n, e in table.items() if e["class"] == "adapter" and "workspace" in e["args"]}
    assert want, "the tables map no cuSOLVER factorization"
    assert not sorted(want - verified), sorted(want - verified)


CLIENT_PYTHON = Path(os.environ.get("PYSHIM_CLIENTS_PYTHON", "/work/venvs/clients/bin/python"))


def _has_cupy() -> bool:
    return CLIENT_PYTHON.exists() and subprocess.run(
        [str(CLIENT_PYTHON), "-c", "import cupy"], capture_output=True).returncode == 0


@pytest.mark.skipif(not _has_cupy(), reason="no client venv with CuPy")
def test_cupy_eig() -> None:
    """CuPy as a user runs it (`pyshim run`, no env vars): eig and batched eigvals, every
    precision, on cusolverDnXgeev."""
    from pyshim.builders.components import ALL, build_all

    build_all(components=ALL)
    e = {k: v for k, v in os.environ.items() if k not in ("LD_LIBRARY_PATH",)}
    proc = subprocess.run([sys.executable, "-m", "pyshim", "run", "--", str(CLIENT_PYTHON),
                           str(Path(__file__).parent / "shim_blas" / "cupy_eig.py")],
                          capture_output=True, text=True, timeout=600, env=e)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    passed = [ln for ln in proc.stdout.splitlines() if ln.startswith("PASS")]
    assert len(passed) == 8 and proc.stdout.splitlines()[-1] == "done", proc.stdout
