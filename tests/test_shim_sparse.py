"""cuSPARSE through pyshim's libcusparse.so.12 on the CPU device's rocSPARSE: the generic
API (descriptors, SpMV, SpMM) and the legacy calls it maps, against scipy.sparse, from
ctypes (tests/shim_blas/cases_cusparse.py in a child pytest) and from a real nvcc-built
program linked -lcusparse."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as ssp

from pyshim.codegen.common import load_table

sys.path.insert(0, str(Path(__file__).parent / "shim_blas"))
import env  # noqa: E402

HERE = Path(__file__).parent / "shim_blas"


@pytest.fixture(scope="module")
def built() -> tuple[Path, Path]:
    return env.build_sparse()


def test_generic_api_cases(built, tmp_path: Path) -> None:
    env.run_cases(built, "cases_cusparse.py", tmp_path)
    env.run_cases(built, "cases_cusparse_bsr.py", tmp_path)
    env.run_cases(built, "cases_cusparse_precond.py", tmp_path)
    env.run_cases(built, "cases_cusparse_gtsv.py", tmp_path)
    verified = set(json.loads((tmp_path / "cusparse.json").read_text()))
    table = load_table("cusparse")["entry_points"]
    hand = {n for n, e in table.items() if e["class"] == "shim"}
    assert not sorted(hand - verified), sorted(hand - verified)


def test_every_nvidia_symbol_is_exported(built) -> None:
    from pyshim.tables import exports

    lib, _ = built
    ours = exports.nm_exports(lib / "libcusparse.so.12")
    want = exports.load("libcusparse.so.12")
    wrong = sorted(n for n, v in want.items() if ours.get(n) != v)
    assert not wrong, wrong[:10]


def _floats(words: list[str]) -> np.ndarray:
    return np.array([float(w) for w in words])


@pytest.mark.skipif(shutil.which("nvcc") is None, reason="nvcc is not installed")
def test_nvcc_program(built) -> None:
    out = env.run_program(built, "prog_cusparse", ("cusparse12",), ("libcusparse.so.12",))
    m, n, nnz = map(int, out["shape"])
    a = ssp.csr_matrix((_floats(out["val"]), [int(v) for v in out["ind"]],
                        [int(v) for v in out["ptr"]]), shape=(m, n))
    assert a.nnz == nnz
    x, y0, xt = _floats(out["x"]), _floats(out["y0"]), _floats(out["xt"])
    b = _floats(out["B"]).reshape(-1, n).T  # column-major n x k
    np.testing.assert_allclose(_floats(out["y"]), 2 * (a @ x) - y0, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(_floats(out["yt"]), 2 * (a.T @ xt), rtol=1e-12, atol=1e-12)
    c = _floats(out["C"]).reshape(-1, m).T
    np.testing.assert_allclose(c, 2 * (a @ b), rtol=1e-12, atol=1e-12)


SPSV_SIZES = (1, 8, 33)


@pytest.mark.skipif(shutil.which("nvcc") is None, reason="nvcc is not installed")
def test_nvcc_triangular_solves(built) -> None:
    """SpSV for both fills, both diagonals and both operations, SpSM (row-major B and C)
    and SpVV from an nvcc-built program, in float and double, against scipy."""
    import scipy.sparse.linalg as sla

    out = env.run_program(built, "prog_cusparse_spsv", ("cusparse12",), ("libcusparse.so.12",),
                          tuple(map(str, SPSV_SIZES)))
    checked = 0
    for prefix, tol in (("d", 1e-12), ("s", 1e-5)):
        for n in SPSV_SIZES:
            tag = f"{prefix}{n}."
            size, nnz = map(int, out[tag + "shape"])
            a = ssp.csr_matrix((_floats(out[tag + "val"]), [int(v) for v in out[tag + "ind"]],
                                [int(v) for v in out[tag + "ptr"]]), shape=(size, size))
            assert a.nnz == nnz
            x, b = _floats(out[tag + "x"]), _floats(out[tag + "B"]).reshape(size, 2)
            for fill in (0, 1):
                for diag in (0, 1):
                    t = ssp.tril(a) if fill == 0 else ssp.triu(a)
                    if diag:
                        t = t - ssp.diags(t.diagonal()) + ssp.eye(size)
                    for op in (0, 1):
                        m = (t.T if op else t).tocsr()
                        lower = (fill == 0) == (op == 0)
                        want = sla.spsolve_triangular(m, 1.5 * x, lower=lower)
                        got = _floats(out[f"{tag}y_{fill}{diag}{op}"])
                        np.testing.assert_allclose(got, want, rtol=tol, atol=tol)
                        checked += 1
                        if fill == 1 and diag == 0:
                            want = sla.spsolve_triangular(m, 1.5 * b, lower=lower)
                            got = _floats(out[f"{tag}C_{op}"]).reshape(size, 2)
                            np.testing.assert_allclose(got, want, rtol=tol, atol=tol)
            row0 = a[[0]].toarray().ravel()
            np.testing.assert_allclose(_floats(out[tag + "dot"])[0], row0 @ x, rtol=tol,
                                       atol=tol)
    assert checked == 2 * len(SPSV_SIZES) * 8


CLIENT_PYTHON = Path(os.environ.get("PYSHIM_CLIENTS_PYTHON", "/work/venvs/clients/bin/python"))


def _has_cupy() -> bool:
    return CLIENT_PYTHON.exists() and subprocess.run(
        [str(CLIENT_PYTHON), "-c", "import cupy"], capture_output=True).returncode == 0


@pytest.mark.skipif(not _has_cupy(), reason="no client venv with CuPy")
def test_cupy_sparse_operations() -> None:
    """CuPy as a user runs it (`pyshim run`, no env vars): SpGEMM, csr2csc, csrgeam2,
    compress, DenseToSparse, the sorts and spsolve_triangular (SpSM), against scipy."""
    from pyshim.builders.components import ALL, build_all

    build_all(components=ALL)  # what `pyshim run` loads: the whole build directory
    e = {k: v for k, v in os.environ.items() if k not in ("LD_LIBRARY_PATH",)}
    proc = subprocess.run([sys.executable, "-m", "pyshim", "run", "--", str(CLIENT_PYTHON),
                           str(HERE / "cupy_sparse.py")], capture_output=True, text=True,
                          timeout=600, env=e)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    passed = [ln for ln in proc.stdout.splitlines() if ln.startswith("PASS")]
    assert len(passed) == 26 and proc.stdout.splitlines()[-1] == "done", proc.stdout
