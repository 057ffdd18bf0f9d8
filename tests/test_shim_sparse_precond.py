"""What CuPy's spilu and tridiagonal solves call of cuSPARSE (csrilu02 with its numeric boost,
csric02, their zero pivots, gtsv2, gtsv2_nopivot, gtsv2StridedBatch), on the CPU device: a
real nvcc-built program linked -lcusparse, checked here by the properties that define ILU(0)
and IC(0) on the pattern (LU = A, L L^T = A there, L and U on A's pattern) and against
scipy.linalg.solve_banded. The ctypes cases (tests/shim_blas/cases_cusparse_precond.py,
cases_cusparse_gtsv.py) run with the other cuSPARSE cases in test_shim_sparse.py."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import numpy as np
import pytest
import scipy.linalg as sla
import scipy.sparse as ssp

sys.path.insert(0, str(Path(__file__).parent / "shim_blas"))
import env  # noqa: E402

HERE = Path(__file__).parent / "shim_blas"


@pytest.fixture(scope="module")
def built() -> tuple[Path, Path]:
    return env.build_sparse()


def _floats(words: list[str]) -> np.ndarray:
    return np.array([float(w) for w in words])


def _banded(dl, d, du, b):
    ab = np.zeros((3, len(d)))
    ab[0, 1:], ab[1], ab[2, :-1] = du[:-1], d, dl[1:]
    return sla.solve_banded((1, 1), ab, b)


@pytest.mark.skipif(shutil.which("nvcc") is None, reason="nvcc is not installed")
def test_nvcc_program(built) -> None:
    out = env.run_program(built, "prog_ilu_gtsv", ("cusparse12",), ("libcusparse.so.12",))
    n, nnz = map(int, out["shape"])
    ptr, ind = [int(v) for v in out["ptr"]], [int(v) for v in out["ind"]]

    def dense(key: str) -> np.ndarray:
        return ssp.csr_matrix((_floats(out[key]), ind, ptr), shape=(n, n)).toarray()

    a = dense("val")
    mask = dense("val") != 0
    assert mask.sum() == nnz
    lu = dense("ilu")
    low, up = np.tril(lu, -1) + np.eye(n), np.triu(lu)
    np.testing.assert_allclose((low @ up)[mask], a[mask], rtol=1e-12, atol=1e-12)
    # ILU(0) is not the exact LU: the 5-point pattern drops fill-in
    assert not np.allclose(low @ up, a)
    ic = dense("ic")
    lo = np.tril(ic)
    lower = np.tril(mask)
    np.testing.assert_allclose((lo @ lo.T)[lower], a[lower], rtol=1e-12, atol=1e-12)
    np.testing.assert_array_equal(np.triu(ic, 1), np.triu(a, 1))  # upper part not written

    dl, d, du, dd = (_floats(out[k]) for k in ("dl", "d", "du", "dd"))
    m, ldb, k = len(d), len(d) + 1, 2
    b = _floats(out["B"]).reshape(k, ldb)
    assert d[0] == 0  # only a pivoting solve survives this system
    x = _floats(out["X"]).reshape(k, ldb)
    np.testing.assert_allclose(x[:, :m].T, _banded(dl, d, du, b[:, :m].T), rtol=1e-10,
                               atol=1e-12)
    np.testing.assert_array_equal(x[:, m:], b[:, m:])
    xn = _floats(out["Xn"]).reshape(k, ldb)
    np.testing.assert_allclose(xn[:, :m].T, _banded(dl, dd, du, b[:, :m].T), rtol=1e-12,
                               atol=1e-12)
    batch, stride = 3, m + 2
    sx0, sx = (_floats(out[k]).reshape(batch, stride) for k in ("sx0", "sx"))
    for i in range(batch):
        s = i + 1
        np.testing.assert_allclose(sx[i, :m], _banded(s * dl, s * dd, s * du, sx0[i, :m]),
                                   rtol=1e-12, atol=1e-12)
        np.testing.assert_array_equal(sx[i, m:], sx0[i, m:])
