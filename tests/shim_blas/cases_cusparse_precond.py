"""cuSPARSE's incomplete factorizations through pyshim's libcusparse.so.12 on the CPU device's
rocSPARSE: csrilu02 (ILU(0)) and csric02 (IC(0)) against factors computed here from their
definition on the CSR pattern, and checked again by the property that defines them (the
product equals A on the pattern); their zero pivots (structural after the analysis,
numerical after the factorization), csrilu02's numeric boost, both index bases (child
process, see harness.py: numpy arrays are device memory)."""

from __future__ import annotations

import ctypes
import os
import sys
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as ssp

sys.path.insert(0, str(Path(__file__).parent))
import harness as H  # noqa: E402

ST_INVALID_VALUE, ST_ZERO_PIVOT = 3, 9
POLICY_USE_LEVEL = 1
PRE = {np.float32: "S", np.float64: "D", np.complex64: "C", np.complex128: "Z"}
DTYPES = list(PRE)
TOL = {np.float32: 2e-4, np.float64: 1e-11, np.complex64: 2e-4, np.complex128: 1e-11}
STAGES = ("bufferSize", "bufferSizeExt", "analysis")


@pytest.fixture(scope="module")
def sp() -> H.Lib:
    lib = H.Lib(Path(os.environ["PYSHIM_BLAS_LIB"]) / "libcusparse.so.12", "cusparse")
    yield lib
    H.write_coverage("cusparse", lib.exercised)


@pytest.fixture(scope="module")
def h(sp: H.Lib):
    handle = ctypes.c_void_p()
    sp.call("cusparseCreate", ctypes.byref(handle))
    yield handle
    sp.call("cusparseDestroy", handle)


def is_complex(dtype) -> bool:
    return np.issubdtype(dtype, np.complexfloating)


def make_matrix(rng, n, dtype, hermitian=False, density=0.3):
    """A dense n x n matrix on a random pattern with its diagonal, diagonally dominant so
    that neither factorization meets a zero pivot (Hermitian positive definite when
    `hermitian`)."""
    mask = rng.random((n, n)) < density
    mask |= np.eye(n, dtype=bool)
    if hermitian:
        mask |= mask.T
    a = rng.standard_normal((n, n)) * mask
    if is_complex(dtype):
        a = a + 1j * rng.standard_normal((n, n)) * mask
    if hermitian:
        a = np.tril(a, -1) + np.tril(a, -1).conj().T
    a = a + np.diag(np.abs(a).sum(axis=1) + 1)
    return a.astype(dtype), mask


def csr_arrays(a, mask, base):
    # explicit entries for the whole pattern, zeros included
    rows, cols = np.nonzero(mask)
    s = ssp.csr_matrix((a[rows, cols], (rows, cols)), shape=a.shape)
    s.sort_indices()
    return (s.data.copy(), (s.indptr + base).astype(np.int32),
            (s.indices + base).astype(np.int32), s.nnz)


def dense_of(val, ptr, ind, n, base):
    return ssp.csr_matrix((val, ind - base, ptr - base), shape=(n, n)).toarray()


def ilu0_reference(a, mask, boost=None):
    """L (unit lower, strict part) and U of ILU(0) from the definition on the pattern: for
    each (i, j) stored, row by row, L_ij = (A_ij - sum_{k<j} L_ik U_kj) / U_jj when i > j,
    U_ij = A_ij - sum_{k<i} L_ik U_kj when i <= j, the sums over k with (i, k) and (k, j)
    stored; `boost` = (tol, value) replaces a pivot of modulus <= tol."""
    n = len(a)
    lu = np.zeros((n, n), complex)
    for i in range(n):
        for j in np.nonzero(mask[i])[0]:
            ks = [k for k in range(min(i, j)) if mask[i, k] and mask[k, j]]
            s = a[i, j] - sum(lu[i, k] * lu[k, j] for k in ks)
            lu[i, j] = s / lu[j, j] if i > j else s
        if boost and abs(lu[i, i]) <= boost[0]:
            lu[i, i] = boost[1]
    return lu


def ic0_reference(a, mask):
    """L of IC(0) from the definition on the lower pattern: L_ij = (A_ij - sum_{k<j} L_ik
    conj(L_jk)) / L_jj, L_ii = sqrt(A_ii - sum_{k<i} |L_ik|^2)."""
    n = len(a)
    lo = np.zeros((n, n), complex)
    for i in range(n):
        for j in np.nonzero(mask[i, :i + 1])[0]:
            ks = [k for k in range(j) if mask[i, k] and mask[j, k]]
            s = a[i, j] - sum(lo[i, k] * np.conj(lo[j, k]) for k in ks)
            lo[i, j] = s / lo[j, j] if i > j else np.sqrt(s.real)
    return lo


def mat_descr(sp, base):
    d = ctypes.c_void_p()
    sp.call("cusparseCreateMatDescr", ctypes.byref(d))
    sp.call("cusparseSetMatIndexBase", d, base)
    return d


def new_info(sp, kind):
    info = ctypes.c_void_p()
    sp.call(f"cusparseCreate{kind}Info", ctypes.byref(info))
    return info


def factor(sp, h, k, P, info, d, n, val, ptr, ind):
    """bufferSize (both), analysis and the factorization of family k, in place in val."""
    size = np.zeros(1, np.int32)
    sp.call(f"cusparse{P}{k}_bufferSize", h, n, len(val), d, val, ptr, ind, info, size)
    size_ext = np.zeros(1, np.uint64)
    sp.call(f"cusparse{P}{k}_bufferSizeExt", h, n, len(val), d, val, ptr, ind, info, size_ext)
    assert size[0] > 0 and size_ext[0] == size[0]
    buf = np.zeros(int(size[0]), np.uint8)
    sp.call(f"cusparse{P}{k}_analysis", h, n, len(val), d, val, ptr, ind, info,
            POLICY_USE_LEVEL, buf)
    sp.call(f"cusparse{P}{k}", h, n, len(val), d, val, ptr, ind, info, POLICY_USE_LEVEL, buf)


def pivot(sp, h, k, info):
    pos = np.full(1, -7, np.int32)
    st = sp.raw(f"cusparseX{k}_zeroPivot", h, info, pos)
    return st, int(pos[0])


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("base", [0, 1])
def test_csrilu02(sp, h, dtype, base) -> None:
    rng = np.random.default_rng(23 + base)
    P = PRE[dtype]
    for n in (1, 6, 17):
        a, mask = make_matrix(rng, n, dtype)
        val, ptr, ind, _ = csr_arrays(a, mask, base)
        d, info = mat_descr(sp, base), new_info(sp, "Csrilu02")
        factor(sp, h, "csrilu02", P, info, d, n, val, ptr, ind)
        assert pivot(sp, h, "csrilu02", info) == (0, -1)
        lu = dense_of(val, ptr, ind, n, base)
        want = ilu0_reference(a.astype(complex), mask)
        np.testing.assert_allclose(lu, want, rtol=TOL[dtype] * 10, atol=TOL[dtype] * 10)
        # the definition's property: (L U)_ij = A_ij on the pattern
        low = np.tril(lu, -1) + np.eye(n)
        prod = low @ np.triu(lu)
        np.testing.assert_allclose(prod[mask], a[mask], rtol=TOL[dtype] * 100,
                                   atol=TOL[dtype] * 100)
        sp.call("cusparseDestroyCsrilu02Info", info)
        sp.call("cusparseDestroyMatDescr", d)
    sp.ok(*(f"cusparse{P}csrilu02{s}" for s in ("", *(f"_{t}" for t in STAGES))),
          "cusparseXcsrilu02_zeroPivot", "cusparseCreateCsrilu02Info",
          "cusparseDestroyCsrilu02Info")


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("base", [0, 1])
def test_csric02(sp, h, dtype, base) -> None:
    rng = np.random.default_rng(29 + base)
    P = PRE[dtype]
    for n in (1, 6, 17):
        a, mask = make_matrix(rng, n, dtype, hermitian=True)
        val, ptr, ind, _ = csr_arrays(a, mask, base)
        d, info = mat_descr(sp, base), new_info(sp, "Csric02")
        factor(sp, h, "csric02", P, info, d, n, val, ptr, ind)
        assert pivot(sp, h, "csric02", info) == (0, -1)
        out = dense_of(val, ptr, ind, n, base)
        low = np.tril(out)
        np.testing.assert_allclose(low, ic0_reference(a.astype(complex), mask),
                                   rtol=TOL[dtype] * 10, atol=TOL[dtype] * 10)
        # the strict upper triangle is not touched
        np.testing.assert_array_equal(np.triu(out, 1), np.triu(np.where(mask, a, 0), 1))
        lower = np.tril(mask)
        np.testing.assert_allclose((low @ low.conj().T)[lower], a[lower],
                                   rtol=TOL[dtype] * 100, atol=TOL[dtype] * 100)
        sp.call("cusparseDestroyCsric02Info", info)
        sp.call("cusparseDestroyMatDescr", d)
    sp.ok(*(f"cusparse{P}csric02{s}" for s in ("", *(f"_{t}" for t in STAGES))),
          "cusparseXcsric02_zeroPivot", "cusparseCreateCsric02Info",
          "cusparseDestroyCsric02Info")


# rocSPARSE's documented numerical zero: U_11 = 1/2 - (1/2) * 1 = 0
SINGULAR = np.array([[2, 1, 0], [1, 0.5, 1], [0, 1, 2]])


@pytest.mark.parametrize("base", [0, 1])
def test_zero_pivots(sp, h, base) -> None:
    """Structural (a row without its diagonal: found by the analysis) and numerical (found by
    the factorization) zero pivots, in the matrix's index base."""
    for k, kind in (("csrilu02", "Csrilu02"), ("csric02", "Csric02")):
        a = np.array([[4.0, 1, 0, 1], [1, 4, 1, 0], [0, 1, 0, 1], [1, 0, 1, 4]])
        mask = a != 0
        val, ptr, ind, nnz = csr_arrays(a, mask, base)
        d, info = mat_descr(sp, base), new_info(sp, kind)
        buf = np.zeros(4096, np.uint8)
        sp.call(f"cusparseD{k}_analysis", h, 4, nnz, d, val, ptr, ind, info,
                POLICY_USE_LEVEL, buf)
        assert pivot(sp, h, k, info) == (ST_ZERO_PIVOT, 2 + base)
        sp.call(f"cusparseD{k}", h, 4, nnz, d, val, ptr, ind, info, POLICY_USE_LEVEL, buf)
        assert pivot(sp, h, k, info) == (ST_ZERO_PIVOT, 2 + base)
        # numerical: ILU's U_11 = 0; IC's [[1, 1], [1, 1]] leaves L_11 = 0
        b = SINGULAR if k == "csrilu02" else np.array([[1.0, 1], [1, 1]])
        val, ptr, ind, nnz = csr_arrays(b, b != 0, base)
        sp.call(f"cusparseD{k}_analysis", h, len(b), nnz, d, val, ptr, ind, info,
                POLICY_USE_LEVEL, buf)
        assert pivot(sp, h, k, info) == (0, -1)
        sp.call(f"cusparseD{k}", h, len(b), nnz, d, val, ptr, ind, info, POLICY_USE_LEVEL, buf)
        assert pivot(sp, h, k, info) == (ST_ZERO_PIVOT, 1 + base)
        assert np.isfinite(val).all()
        # an info of the other kind, or none, is refused
        other = new_info(sp, "Csric02" if k == "csrilu02" else "Csrilu02")
        assert sp.raw(f"cusparseX{k}_zeroPivot", h, other, np.zeros(1, np.int32)) == \
            ST_INVALID_VALUE
        assert sp.raw(f"cusparseX{k}_zeroPivot", h, None, np.zeros(1, np.int32)) == \
            ST_INVALID_VALUE
        assert sp.raw(f"cusparseD{k}_analysis", h, len(b), nnz, d, val, ptr, ind, other,
                      POLICY_USE_LEVEL, buf) == ST_INVALID_VALUE
        other_kind = "Csric02" if k == "csrilu02" else "Csrilu02"
        assert sp.raw(f"cusparseDestroy{kind}Info", other) == ST_INVALID_VALUE
        sp.call(f"cusparseDestroy{other_kind}Info", other)
        sp.call(f"cusparseDestroy{kind}Info", info)
        sp.call(f"cusparseDestroy{kind}Info", None)  # destroying NULL: success
        sp.call("cusparseDestroyMatDescr", d)


@pytest.mark.parametrize("dtype", DTYPES)
def test_csrilu02_numeric_boost(sp, h, dtype) -> None:
    """A pivot of modulus <= tol becomes the boost value, so the documented singular matrix
    factors without a zero pivot; the tolerance is a double for every value type, read when
    the factorization runs; disabling the boost brings the pivot back."""
    P = PRE[dtype]
    boost = (1.5 - 0.5j) if is_complex(dtype) else 1.5
    a = SINGULAR.astype(dtype)
    mask = a != 0
    val0, ptr, ind, nnz = csr_arrays(a, mask, 0)
    d, info = mat_descr(sp, 0), new_info(sp, "Csrilu02")
    tol, bval = np.array([0.0]), np.array([boost], dtype)
    sp.call(f"cusparse{P}csrilu02_numericBoost", h, info, 1, tol, bval)
    tol[0] = 1e-3  # read by the factorization, not by numericBoost
    val = val0.copy()
    factor(sp, h, "csrilu02", P, info, d, 3, val, ptr, ind)
    assert pivot(sp, h, "csrilu02", info) == (0, -1)
    want = ilu0_reference(a.astype(complex), mask, (1e-3, boost))
    np.testing.assert_allclose(dense_of(val, ptr, ind, 3, 0), want, rtol=TOL[dtype] * 10,
                               atol=TOL[dtype] * 10)
    sp.call(f"cusparse{P}csrilu02_numericBoost", h, info, 0, tol, bval)
    val = val0.copy()
    factor(sp, h, "csrilu02", P, info, d, 3, val, ptr, ind)
    assert pivot(sp, h, "csrilu02", info) == (ST_ZERO_PIVOT, 1)
    sp.call("cusparseDestroyCsrilu02Info", info)
    sp.call("cusparseDestroyMatDescr", d)
    sp.ok(f"cusparse{P}csrilu02_numericBoost")
