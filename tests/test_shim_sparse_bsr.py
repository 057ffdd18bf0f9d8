"""What PyTorch's libtorch_cuda imports of cuSPARSE's BSR API (bsrmv, bsrsv2, bsrsm2, their
infos and zero pivots) and cuBLAS's geqrfBatched, on the CPU device: a real nvcc-built
program linked -lcusparse -lcublas, against scipy. The ctypes cases
(tests/shim_blas/cases_cusparse_bsr.py) run with the other cuSPARSE cases in
test_shim_sparse.py, which checks that every hand-written entry point is exercised;
geqrfBatched's are in cases_cublas.py."""

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


@pytest.mark.skipif(shutil.which("nvcc") is None, reason="nvcc is not installed")
def test_nvcc_program(built) -> None:
    out = env.run_program(built, "prog_bsr_geqrf", ("cusparse12", "cublas13"),
                          ("libcusparse.so.12", "libcublas.so.13"))
    mb, bd, nnzb = map(int, out["shape"])
    n = mb * bd
    # blocks are column-major (CUSPARSE_DIRECTION_COLUMN): transpose each into scipy's rows
    blocks = _floats(out["val"]).reshape(nnzb, bd, bd).transpose(0, 2, 1)
    a = ssp.bsr_matrix((blocks, [int(v) for v in out["ind"]], [int(v) for v in out["ptr"]]),
                       shape=(n, n)).toarray()
    x, y0, f = _floats(out["x"]), _floats(out["y0"]), _floats(out["f"])
    np.testing.assert_allclose(_floats(out["y"]), 2 * (a @ x) - y0, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(_floats(out["xs"]),
                               sla.solve_triangular(np.tril(a), f, lower=True), rtol=1e-11)
    b = _floats(out["B"]).reshape(-1, n).T
    upper_unit = np.triu(a, 1) + np.eye(n)
    want = sla.solve_triangular(upper_unit.T, 0.5 * b, lower=True, unit_diagonal=True)
    np.testing.assert_allclose(_floats(out["X"]).reshape(-1, n).T, want, rtol=1e-11,
                               atol=1e-12)
    m, q, lda = 5, 3, 6
    for i in (0, 1):
        a_i = _floats(out[f"A{i}"]).reshape(q, lda).T[:m]
        (qr, tau), _ = sla.qr(a_i, mode="raw")
        np.testing.assert_allclose(_floats(out[f"QR{i}"]).reshape(q, lda).T[:m], qr,
                                   rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(_floats(out[f"tau{i}"]), tau, rtol=1e-12, atol=1e-12)
