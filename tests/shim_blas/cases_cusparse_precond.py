"""cuSPARSE's incomplete factorizations through pyshim's libcusparse.so.12 on the CPU device's
rocSPARSE: csrilu02 (ILU(0)) and csric02 (IC(0)) against factors computed here from their
definition on the CSR pattern, and checked again by the property that defines them (the
product equals A on the pattern); bsrilu02/bsric02 the same on the scalar pattern of the
stored blocks, both block directions; their zero pivots (structural after the analysis,
numerical after the factorization; block rows for BSR), the numeric boosts, both index
bases (child process, see harness.py: numpy arrays are device memory)."""

from __future__ import annotations

import ctypes
import sys
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as ssp

sys.path.insert(0, str(Path(__file__).parent))
import sparse_fixtures  # noqa: E402

sp, h = sparse_fixtures.sp, sparse_fixtures.h

ST_INVALID_VALUE, ST_ZERO_PIVOT = 3, 9
POLICY_USE_LEVEL = 1
PRE = {np.float32: "S", np.float64: "D", np.complex64: "C", np.complex128: "Z"}
DTYPES = list(PRE)
TOL = {np.float32: 2e-4, np.float64: 1e-11, np.complex64: 2e-4, np.complex128: 1e-11}
STAGES = ("bufferSize", "bufferSizeExt", "analysis")


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


DIR_ROW, DIR_COL = 0, 1


def block_arrays(a, bmask, bd, direction, base):
    """BSR arrays of the dense `a` on the block pattern `bmask` (blocks row- or
    column-major), and a function back to the dense form of values in that layout."""
    mb = len(bmask)
    rows, cols = np.nonzero(bmask)  # row-major: block rows in order, columns sorted
    blocks = np.stack([a[i * bd:(i + 1) * bd, j * bd:(j + 1) * bd] for i, j in
                       zip(rows, cols, strict=True)])
    if direction == DIR_COL:
        blocks = blocks.transpose(0, 2, 1)
    ptr = np.searchsorted(rows, np.arange(mb + 1)).astype(np.int32) + base
    ind = cols.astype(np.int32) + base

    def dense(val):
        b = val.reshape(-1, bd, bd)
        if direction == DIR_COL:
            b = b.transpose(0, 2, 1)
        out = np.zeros(a.shape, val.dtype)
        for (i, j), blk in zip(zip(rows, cols, strict=True), b, strict=True):
            out[i * bd:(i + 1) * bd, j * bd:(j + 1) * bd] = blk
        return out

    return np.ascontiguousarray(blocks).ravel().copy(), ptr, ind, len(rows), dense


def block_matrix(rng, mb, bd, dtype, hermitian=False):
    """A dense matrix of random bd x bd blocks on a random block pattern with its diagonal,
    diagonally dominant (Hermitian positive definite when `hermitian`); the block mask."""
    bmask = rng.random((mb, mb)) < 0.4
    bmask |= np.eye(mb, dtype=bool)
    if hermitian:
        bmask |= bmask.T
    mask = np.kron(bmask, np.ones((bd, bd), bool))
    n = mb * bd
    a = rng.standard_normal((n, n)) * mask
    if is_complex(dtype):
        a = a + 1j * rng.standard_normal((n, n)) * mask
    if hermitian:
        a = np.tril(a, -1) + np.tril(a, -1).conj().T
    a = a + np.diag(np.abs(a).sum(axis=1) + 1)
    return a.astype(dtype), bmask, mask


def bsr_factor(sp, h, k, P, info, d, direction, mb, nnzb, val, ptr, ind, bd):
    size = np.zeros(1, np.int32)
    sp.call(f"cusparse{P}{k}_bufferSize", h, direction, mb, nnzb, d, val, ptr, ind, bd, info,
            size)
    size_ext = np.zeros(1, np.uint64)
    sp.call(f"cusparse{P}{k}_bufferSizeExt", h, direction, mb, nnzb, d, val, ptr, ind, bd,
            info, size_ext)
    assert size[0] > 0 and size_ext[0] == size[0]
    buf = np.zeros(int(size[0]), np.uint8)
    sp.call(f"cusparse{P}{k}_analysis", h, direction, mb, nnzb, d, val, ptr, ind, bd, info,
            POLICY_USE_LEVEL, buf)
    sp.call(f"cusparse{P}{k}", h, direction, mb, nnzb, d, val, ptr, ind, bd, info,
            POLICY_USE_LEVEL, buf)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("direction", [DIR_ROW, DIR_COL])
def test_bsrilu02(sp, h, dtype, direction) -> None:
    """ILU(0) of the scalar pattern of the stored blocks: the blocks of L and U, each
    diagonal block holding its own unit-lower/upper factors."""
    rng = np.random.default_rng(47 + direction)
    P = PRE[dtype]
    for mb, bd, base in ((1, 3, 0), (5, 2, 1), (4, 3, 0), (6, 1, 1)):
        a, bmask, mask = block_matrix(rng, mb, bd, dtype)
        val, ptr, ind, nnzb, dense = block_arrays(a, bmask, bd, direction, base)
        d, info = mat_descr(sp, base), new_info(sp, "Bsrilu02")
        bsr_factor(sp, h, "bsrilu02", P, info, d, direction, mb, nnzb, val, ptr, ind, bd)
        assert pivot(sp, h, "bsrilu02", info) == (0, -1)
        lu = dense(val)
        np.testing.assert_allclose(lu, ilu0_reference(a.astype(complex), mask),
                                   rtol=TOL[dtype] * 10, atol=TOL[dtype] * 10)
        n = mb * bd
        prod = (np.tril(lu, -1) + np.eye(n)) @ np.triu(lu)
        np.testing.assert_allclose(prod[mask], a[mask], rtol=TOL[dtype] * 100,
                                   atol=TOL[dtype] * 100)
        sp.call("cusparseDestroyBsrilu02Info", info)
        sp.call("cusparseDestroyMatDescr", d)
    sp.ok(*(f"cusparse{P}bsrilu02{s}" for s in ("", *(f"_{t}" for t in STAGES))),
          "cusparseXbsrilu02_zeroPivot", "cusparseCreateBsrilu02Info",
          "cusparseDestroyBsrilu02Info")


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("direction", [DIR_ROW, DIR_COL])
def test_bsric02(sp, h, dtype, direction) -> None:
    rng = np.random.default_rng(53 + direction)
    P = PRE[dtype]
    for mb, bd, base in ((1, 3, 1), (5, 2, 0), (4, 3, 1), (6, 1, 0)):
        a, bmask, mask = block_matrix(rng, mb, bd, dtype, hermitian=True)
        val, ptr, ind, nnzb, dense = block_arrays(a, bmask, bd, direction, base)
        d, info = mat_descr(sp, base), new_info(sp, "Bsric02")
        bsr_factor(sp, h, "bsric02", P, info, d, direction, mb, nnzb, val, ptr, ind, bd)
        assert pivot(sp, h, "bsric02", info) == (0, -1)
        out = dense(val)
        low = np.tril(out)
        np.testing.assert_allclose(low, ic0_reference(a.astype(complex), mask),
                                   rtol=TOL[dtype] * 10, atol=TOL[dtype] * 10)
        np.testing.assert_array_equal(np.triu(out, 1), np.triu(a, 1))
        lower = np.tril(mask)
        np.testing.assert_allclose((low @ low.conj().T)[lower], a[lower],
                                   rtol=TOL[dtype] * 100, atol=TOL[dtype] * 100)
        sp.call("cusparseDestroyBsric02Info", info)
        sp.call("cusparseDestroyMatDescr", d)
    sp.ok(*(f"cusparse{P}bsric02{s}" for s in ("", *(f"_{t}" for t in STAGES))),
          "cusparseXbsric02_zeroPivot", "cusparseCreateBsric02Info",
          "cusparseDestroyBsric02Info")


@pytest.mark.parametrize("base", [0, 1])
def test_bsr_zero_pivots(sp, h, base) -> None:
    """A missing diagonal block (analysis) and a zero pivot inside a diagonal block
    (factorization) are reported as block rows in the matrix's index base."""
    rng = np.random.default_rng(59)
    bd, mb = 2, 4
    for k, kind in (("bsrilu02", "Bsrilu02"), ("bsric02", "Bsric02")):
        a, bmask, _ = block_matrix(rng, mb, bd, np.float64, hermitian=True)
        bmask[2, 2] = False
        val, ptr, ind, nnzb, _ = block_arrays(a, bmask, bd, DIR_ROW, base)
        d, info = mat_descr(sp, base), new_info(sp, kind)
        buf = np.zeros(1 << 16, np.uint8)
        sp.call(f"cusparseD{k}_analysis", h, DIR_ROW, mb, nnzb, d, val, ptr, ind, bd, info,
                POLICY_USE_LEVEL, buf)
        assert pivot(sp, h, k, info) == (ST_ZERO_PIVOT, 2 + base)
        # block row 1's diagonal block [[1, 1], [1, 1]]: its second pivot is zero
        a, bmask, _ = block_matrix(rng, mb, bd, np.float64, hermitian=True)
        bmask[1, :] = bmask[:, 1] = False
        bmask[1, 1] = True
        a[2:4, 2:4] = 1
        val, ptr, ind, nnzb, _ = block_arrays(a, bmask, bd, DIR_COL, base)
        sp.call(f"cusparseD{k}_analysis", h, DIR_COL, mb, nnzb, d, val, ptr, ind, bd, info,
                POLICY_USE_LEVEL, buf)
        sp.call(f"cusparseD{k}", h, DIR_COL, mb, nnzb, d, val, ptr, ind, bd, info,
                POLICY_USE_LEVEL, buf)
        assert pivot(sp, h, k, info) == (ST_ZERO_PIVOT, 1 + base)
        other = new_info(sp, "Csrilu02")
        assert sp.raw(f"cusparseX{k}_zeroPivot", h, other, np.zeros(1, np.int32)) == \
            ST_INVALID_VALUE
        sp.call("cusparseDestroyCsrilu02Info", other)
        sp.call(f"cusparseDestroy{kind}Info", info)
        sp.call("cusparseDestroyMatDescr", d)


@pytest.mark.parametrize("dtype", DTYPES)
def test_bsrilu02_numeric_boost(sp, h, dtype) -> None:
    P = PRE[dtype]
    boost = (2.5 + 0.5j) if is_complex(dtype) else 2.5
    # one 3x3 block: the documented singular matrix
    a = SINGULAR.astype(dtype)
    bmask, mask = np.ones((1, 1), bool), np.ones((3, 3), bool)
    val0, ptr, ind, nnzb, dense = block_arrays(a, bmask, 3, DIR_ROW, 0)
    d, info = mat_descr(sp, 0), new_info(sp, "Bsrilu02")
    tol, bval = np.array([1e-3]), np.array([boost], dtype)
    sp.call(f"cusparse{P}bsrilu02_numericBoost", h, info, 1, tol, bval)
    val = val0.copy()
    bsr_factor(sp, h, "bsrilu02", P, info, d, DIR_ROW, 1, nnzb, val, ptr, ind, 3)
    assert pivot(sp, h, "bsrilu02", info) == (0, -1)
    np.testing.assert_allclose(dense(val), ilu0_reference(a.astype(complex), mask,
                                                          (1e-3, boost)),
                               rtol=TOL[dtype] * 10, atol=TOL[dtype] * 10)
    sp.call(f"cusparse{P}bsrilu02_numericBoost", h, info, 0, tol, bval)
    val = val0.copy()
    bsr_factor(sp, h, "bsrilu02", P, info, d, DIR_ROW, 1, nnzb, val, ptr, ind, 3)
    assert pivot(sp, h, "bsrilu02", info) == (ST_ZERO_PIVOT, 0)
    sp.call("cusparseDestroyBsrilu02Info", info)
    sp.call("cusparseDestroyMatDescr", d)
    sp.ok(f"cusparse{P}bsrilu02_numericBoost")
