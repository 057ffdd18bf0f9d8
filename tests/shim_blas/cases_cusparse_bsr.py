"""cuSPARSE's BSR routines through pyshim's libcusparse.so.12 on the CPU device's rocSPARSE:
bsrmv against scipy.sparse.bsr_matrix, the triangular solves bsrsv2/bsrsm2 against dense
triangular solves (of the triangle the descriptor names, the other one filled with values
that must be ignored), their zero pivots, and a dense matrix's strided batch (child
process, see harness.py: numpy arrays are device memory)."""

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

OP_N, OP_T, OP_C = 0, 1, 2
DIR_ROW, DIR_COL = 0, 1
FILL_LOWER, FILL_UPPER = 0, 1
DIAG_NON_UNIT, DIAG_UNIT = 0, 1
ST_INVALID_VALUE, ST_ZERO_PIVOT = 3, 9
PRE = {np.float32: "S", np.float64: "D", np.complex64: "C", np.complex128: "Z"}
DTYPES = list(PRE)
TOL = {np.float32: 2e-4, np.float64: 1e-11, np.complex64: 2e-4, np.complex128: 1e-11}


def block_matrix(rng, mb, nb, bd, dtype, diag=True, density=0.4):
    """A dense (mb*bd x nb*bd) matrix of random bd x bd blocks (the diagonal blocks present
    and dominant when `diag`), and its BSR form."""
    mask = rng.random((mb, nb)) < density
    if diag:
        mask[np.arange(min(mb, nb)), np.arange(min(mb, nb))] = True
    a = np.zeros((mb * bd, nb * bd), dtype)
    for i, j in zip(*np.nonzero(mask), strict=True):
        blk = rng.standard_normal((bd, bd))
        if np.issubdtype(dtype, np.complexfloating):
            blk = blk + 1j * rng.standard_normal((bd, bd))
        if diag and i == j:
            blk = blk + 4 * bd * np.eye(bd)
        a[i * bd:(i + 1) * bd, j * bd:(j + 1) * bd] = blk
    return a


def bsr_arrays(a, bd, direction, base):
    s = ssp.bsr_matrix(a, blocksize=(bd, bd))
    s.sort_indices()
    blocks = s.data if direction == DIR_ROW else s.data.transpose(0, 2, 1)
    return (np.ascontiguousarray(blocks).ravel().copy(),
            (s.indptr + base).astype(np.int32), (s.indices + base).astype(np.int32),
            len(s.indices))


def mat_descr(sp, base=0, fill=FILL_LOWER, diag=DIAG_NON_UNIT):
    d = ctypes.c_void_p()
    sp.call("cusparseCreateMatDescr", ctypes.byref(d))
    sp.call("cusparseSetMatIndexBase", d, base)
    sp.call("cusparseSetMatFillMode", d, fill)
    sp.call("cusparseSetMatDiagType", d, diag)
    return d


def vec(rng, n, dtype):
    v = rng.standard_normal(n)
    if np.issubdtype(dtype, np.complexfloating):
        v = v + 1j * rng.standard_normal(n)
    return v.astype(dtype)


def sc(v: complex, dtype) -> np.ndarray:
    """A scalar argument: v, or its real part for real types."""
    return np.array([v if np.issubdtype(dtype, np.complexfloating) else v.real], dtype)


def op_of(a, op):
    return a if op == OP_N else a.T if op == OP_T else a.conj().T


def triangle(a, fill, diag):
    t = np.tril(a, -1) if fill == FILL_LOWER else np.triu(a, 1)
    return t + (np.eye(len(a), dtype=a.dtype) if diag == DIAG_UNIT else np.diag(np.diag(a)))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("direction", [DIR_ROW, DIR_COL])
def test_bsrmv(sp, h, dtype, direction) -> None:
    rng = np.random.default_rng(7)
    P = PRE[dtype]
    for mb, nb, bd, base in ((4, 3, 3, 0), (5, 6, 2, 1), (3, 3, 1, 0)):
        a = block_matrix(rng, mb, nb, bd, dtype, diag=False)
        val, ptr, ind, nnzb = bsr_arrays(a, bd, direction, base)
        d = mat_descr(sp, base)
        x, y = vec(rng, nb * bd, dtype), vec(rng, mb * bd, dtype)
        y0 = y.copy()
        alpha, beta = sc(1.5 - 0.5j, dtype), sc(-0.75, dtype)
        sp.call(f"cusparse{P}bsrmv", h, direction, OP_N, mb, nb, nnzb, alpha, d, val, ptr,
                ind, bd, x, beta, y)
        np.testing.assert_allclose(y, alpha[0] * (a @ x) + beta[0] * y0, rtol=TOL[dtype],
                                   atol=TOL[dtype] * 10)
        # beta 0: y is written, not read
        y[:] = np.nan
        sp.call(f"cusparse{P}bsrmv", h, direction, OP_N, mb, nb, nnzb, alpha, d, val, ptr,
                ind, bd, x, np.zeros(1, dtype), y)
        np.testing.assert_allclose(y, alpha[0] * (a @ x), rtol=TOL[dtype], atol=TOL[dtype] * 10)
        sp.call("cusparseDestroyMatDescr", d)
    sp.ok(f"cusparse{P}bsrmv")


def new_info(sp, kind):
    info = ctypes.c_void_p()
    sp.call(f"cusparseCreateBsr{kind}2Info", ctypes.byref(info))
    return info


@pytest.mark.parametrize("dtype", DTYPES)
def test_bsrsv2(sp, h, dtype) -> None:
    rng = np.random.default_rng(11)
    P = PRE[dtype]
    mb, bd = 5, 3
    n = mb * bd
    # both triangles filled: the solve must read only the one the descriptor names
    a = block_matrix(rng, mb, mb, bd, dtype)
    for direction in (DIR_ROW, DIR_COL):
        for base in (0, 1):
            val, ptr, ind, nnzb = bsr_arrays(a, bd, direction, base)
            for fill in (FILL_LOWER, FILL_UPPER):
                for diag in (DIAG_NON_UNIT, DIAG_UNIT):
                    d = mat_descr(sp, base, fill, diag)
                    info = new_info(sp, "sv")
                    for op in (OP_N, OP_T, OP_C):
                        size = np.zeros(1, np.int32)
                        sp.call(f"cusparse{P}bsrsv2_bufferSize", h, direction, op, mb, nnzb,
                                d, val, ptr, ind, bd, info, size)
                        size_ext = np.zeros(1, np.uint64)
                        sp.call(f"cusparse{P}bsrsv2_bufferSizeExt", h, direction, op, mb,
                                nnzb, d, val, ptr, ind, bd, info, size_ext)
                        assert size[0] > 0 and size_ext[0] == size[0]
                        buf = np.zeros(int(size[0]), np.uint8)
                        sp.call(f"cusparse{P}bsrsv2_analysis", h, direction, op, mb, nnzb, d,
                                val, ptr, ind, bd, info, 1, buf)
                        pos = np.full(1, -7, np.int32)
                        assert sp.raw("cusparseXbsrsv2_zeroPivot", h, info, pos) == 0
                        assert pos[0] == -1
                        f = vec(rng, n, dtype)
                        x = np.zeros(n, dtype)
                        alpha = sc(0.5 + 0.25j, dtype)
                        sp.call(f"cusparse{P}bsrsv2_solve", h, direction, op, mb, nnzb, alpha,
                                d, val, ptr, ind, bd, info, f, x, 1, buf)
                        t = op_of(triangle(a, fill, diag), op)
                        np.testing.assert_allclose(t @ x, alpha[0] * f, rtol=TOL[dtype] * 10,
                                                   atol=TOL[dtype] * 10)
                    sp.call("cusparseDestroyBsrsv2Info", info)
                    sp.call("cusparseDestroyMatDescr", d)
    sp.ok(*(f"cusparse{P}bsrsv2_{s}" for s in ("bufferSize", "bufferSizeExt", "analysis",
                                                "solve")),
          "cusparseXbsrsv2_zeroPivot", "cusparseCreateBsrsv2Info", "cusparseDestroyBsrsv2Info")


@pytest.mark.parametrize("dtype", DTYPES)
def test_bsrsm2(sp, h, dtype) -> None:
    rng = np.random.default_rng(13)
    P = PRE[dtype]
    mb, bd, nrhs = 4, 2, 3
    n = mb * bd
    a = block_matrix(rng, mb, mb, bd, dtype)
    for direction in (DIR_ROW, DIR_COL):
        val, ptr, ind, nnzb = bsr_arrays(a, bd, direction, 0)
        for fill, diag, op in ((FILL_LOWER, DIAG_NON_UNIT, OP_N), (FILL_UPPER, DIAG_UNIT, OP_N),
                               (FILL_LOWER, DIAG_UNIT, OP_T), (FILL_UPPER, DIAG_NON_UNIT, OP_C)):
            d = mat_descr(sp, 0, fill, diag)
            info = new_info(sp, "sm")
            for trans_xy in (OP_N, OP_T):
                size = np.zeros(1, np.int32)
                sp.call(f"cusparse{P}bsrsm2_bufferSize", h, direction, op, trans_xy, mb, nrhs,
                        nnzb, d, val, ptr, ind, bd, info, size)
                size_ext = np.zeros(1, np.uint64)
                sp.call(f"cusparse{P}bsrsm2_bufferSizeExt", h, direction, op, trans_xy, mb,
                        nrhs, nnzb, d, val, ptr, ind, bd, info, size_ext)
                assert size[0] > 0 and size_ext[0] == size[0]
                buf = np.zeros(int(size[0]), np.uint8)
                sp.call(f"cusparse{P}bsrsm2_analysis", h, direction, op, trans_xy, mb, nrhs,
                        nnzb, d, val, ptr, ind, bd, info, 0, buf)
                pos = np.full(1, -7, np.int32)
                assert sp.raw("cusparseXbsrsm2_zeroPivot", h, info, pos) == 0 and pos[0] == -1
                b = np.array([vec(rng, n, dtype) for _ in range(nrhs)]).T  # n x nrhs
                # column-major storage with a padded leading dimension; transXY stores the
                # transposes (nrhs x n, column-major)
                rows, cols = (n, nrhs) if trans_xy == OP_N else (nrhs, n)
                ld = rows + 2
                bmem = np.zeros(ld * cols, dtype)
                bmem.reshape(cols, ld).T[:rows] = b if trans_xy == OP_N else b.T
                xmem = np.full(ld * cols, 99, dtype)
                alpha = sc(2.0 - 1j, dtype)
                sp.call(f"cusparse{P}bsrsm2_solve", h, direction, op, trans_xy, mb, nrhs, nnzb,
                        alpha, d, val, ptr, ind, bd, info, bmem, ld, xmem, ld, 0, buf)
                xs = xmem.reshape(cols, ld).T[:rows]
                x = xs if trans_xy == OP_N else xs.T
                t = op_of(triangle(a, fill, diag), op)
                np.testing.assert_allclose(t @ x, alpha[0] * b, rtol=TOL[dtype] * 10,
                                           atol=TOL[dtype] * 10)
                assert np.all(xmem.reshape(cols, ld).T[rows:] == 99)  # padding untouched
            sp.call("cusparseDestroyBsrsm2Info", info)
            sp.call("cusparseDestroyMatDescr", d)
    sp.ok(*(f"cusparse{P}bsrsm2_{s}" for s in ("bufferSize", "bufferSizeExt", "analysis",
                                                "solve")),
          "cusparseXbsrsm2_zeroPivot", "cusparseCreateBsrsm2Info", "cusparseDestroyBsrsm2Info")


@pytest.mark.parametrize("kind", ["sv", "sm"])
def test_zero_pivots(sp, h, kind) -> None:
    """A missing diagonal block is found by the analysis, a zero on a diagonal block's
    diagonal by the solve; a unit diagonal has no pivots."""
    rng = np.random.default_rng(17)
    mb, bd = 4, 2
    a = block_matrix(rng, mb, mb, bd, np.float64)
    a[2 * bd:3 * bd, 2 * bd:3 * bd] = 0  # block row 2: no diagonal block
    val, ptr, ind, nnzb = bsr_arrays(np.tril(a), bd, DIR_ROW, 0)
    pos = np.full(1, -7, np.int32)
    for diag, want in ((DIAG_NON_UNIT, 2), (DIAG_UNIT, -1)):
        d = mat_descr(sp, 0, FILL_LOWER, diag)
        info = new_info(sp, kind)
        buf = np.zeros(4096, np.uint8)
        if kind == "sv":
            sp.call("cusparseDbsrsv2_analysis", h, DIR_ROW, OP_N, mb, nnzb, d, val, ptr, ind,
                    bd, info, 1, buf)
        else:
            sp.call("cusparseDbsrsm2_analysis", h, DIR_ROW, OP_N, OP_N, mb, 1, nnzb, d, val,
                    ptr, ind, bd, info, 1, buf)
        st = sp.raw(f"cusparseXbsr{kind}2_zeroPivot", h, info, pos)
        assert (st, pos[0]) == ((ST_ZERO_PIVOT, want) if want >= 0 else (0, -1))
        sp.call(f"cusparseDestroyBsr{kind}2Info", info)
        sp.call("cusparseDestroyMatDescr", d)
    # numerical: block row 1's diagonal block holds a zero on its diagonal
    b = block_matrix(rng, mb, mb, bd, np.float64)
    b[bd + 1, bd + 1] = 0
    val, ptr, ind, nnzb = bsr_arrays(np.tril(b), bd, DIR_COL, 0)
    d = mat_descr(sp, 0, FILL_LOWER, DIAG_NON_UNIT)
    info = new_info(sp, kind)
    buf = np.zeros(4096, np.uint8)
    f, x = np.ones(mb * bd), np.zeros(mb * bd)
    one = np.ones(1)
    if kind == "sv":
        sp.call("cusparseDbsrsv2_analysis", h, DIR_COL, OP_N, mb, nnzb, d, val, ptr, ind, bd,
                info, 1, buf)
        sp.call("cusparseDbsrsv2_solve", h, DIR_COL, OP_N, mb, nnzb, one, d, val, ptr, ind,
                bd, info, f, x, 1, buf)
    else:
        sp.call("cusparseDbsrsm2_analysis", h, DIR_COL, OP_N, OP_N, mb, 1, nnzb, d, val, ptr,
                ind, bd, info, 1, buf)
        sp.call("cusparseDbsrsm2_solve", h, DIR_COL, OP_N, OP_N, mb, 1, nnzb, one, d, val,
                ptr, ind, bd, info, f, mb * bd, x, mb * bd, 1, buf)
    assert sp.raw(f"cusparseXbsr{kind}2_zeroPivot", h, info, pos) == ST_ZERO_PIVOT
    assert pos[0] == 1
    sp.call(f"cusparseDestroyBsr{kind}2Info", info)
    sp.call("cusparseDestroyMatDescr", d)
    # an info of the other kind, or none, is refused
    other = new_info(sp, "sm" if kind == "sv" else "sv")
    assert sp.raw(f"cusparseXbsr{kind}2_zeroPivot", h, other, pos) == ST_INVALID_VALUE
    assert sp.raw(f"cusparseXbsr{kind}2_zeroPivot", h, None, pos) == ST_INVALID_VALUE
    sp.call(f"cusparseDestroyBsr{'sm' if kind == 'sv' else 'sv'}2Info", other)
    sp.call(f"cusparseDestroyBsr{kind}2Info", None)  # destroying NULL: success


def test_dnmat_strided_batch(sp, h) -> None:
    rows, cols, ld, batch = 4, 3, 5, 3
    values = np.zeros(ld * cols * batch)
    d = ctypes.c_void_p()
    sp.call("cusparseCreateDnMat", ctypes.byref(d), rows, cols, ld, values, 1, 1)
    count, stride = np.zeros(1, np.int32), np.zeros(1, np.int64)
    sp.call("cusparseDnMatGetStridedBatch", d, count, stride)
    assert (count[0], stride[0]) == (1, 0)
    sp.call("cusparseDnMatSetStridedBatch", d, batch, ld * cols)
    sp.call("cusparseDnMatGetStridedBatch", d, count, stride)
    assert (count[0], stride[0]) == (batch, ld * cols)
    # overlapping matrices and empty batches are refused, the old setting kept
    assert sp.raw("cusparseDnMatSetStridedBatch", d, batch, ld * cols - 1) == ST_INVALID_VALUE
    assert sp.raw("cusparseDnMatSetStridedBatch", d, 0, ld * cols) == ST_INVALID_VALUE
    sp.call("cusparseDnMatGetStridedBatch", d, count, stride)
    assert (count[0], stride[0]) == (batch, ld * cols)
    sp.call("cusparseDestroyDnMat", d)
    sp.ok("cusparseDnMatSetStridedBatch", "cusparseDnMatGetStridedBatch")


@pytest.mark.parametrize("dtype", [np.float64, np.complex64])
def test_spmm_strided_batch(sp, h, dtype) -> None:
    """SpMM over strided batches of B and C, A shared: C_i = alpha A B_i + beta C_i."""
    rng = np.random.default_rng(19)
    m, k, n, batch = 7, 5, 3, 3
    t = {np.float64: 1, np.complex64: 4}[dtype]
    a = ssp.random(m, k, density=0.4, format="csr", random_state=rng).astype(dtype)
    a.sort_indices()
    ptr, ind, val = a.indptr.astype(np.int32), a.indices.astype(np.int32), a.data.copy()
    da = ctypes.c_void_p()
    sp.call("cusparseCreateCsr", ctypes.byref(da), m, k, a.nnz, ptr, ind, val, 2, 2, 0, t)
    ldb, ldc = k + 1, m + 2
    sb, sc_ = ldb * n + 4, ldc * n + 1  # strides with gaps between the matrices
    bs = [vec(rng, k * n, dtype).reshape(n, k).T for _ in range(batch)]
    cs = [vec(rng, m * n, dtype).reshape(n, m).T for _ in range(batch)]
    bmem, cmem = np.zeros(sb * batch, dtype), np.full(sc_ * batch, 5, dtype)
    for i in range(batch):
        bmem[i * sb:i * sb + ldb * n].reshape(n, ldb).T[:k] = bs[i]
        cmem[i * sc_:i * sc_ + ldc * n].reshape(n, ldc).T[:m] = cs[i]
    before = cmem.copy()
    db, dc = ctypes.c_void_p(), ctypes.c_void_p()
    sp.call("cusparseCreateDnMat", ctypes.byref(db), k, n, ldb, bmem, t, 1)
    sp.call("cusparseCreateDnMat", ctypes.byref(dc), m, n, ldc, cmem, t, 1)
    sp.call("cusparseDnMatSetStridedBatch", db, batch, sb)
    sp.call("cusparseDnMatSetStridedBatch", dc, batch, sc_)
    alpha, beta = sc(1.5 + 1j, dtype), sc(-0.5, dtype)
    size = ctypes.c_size_t(0)
    sp.call("cusparseSpMM_bufferSize", h, OP_N, OP_N, alpha, da, db, beta, dc, t, 0,
            ctypes.byref(size))
    buf = np.zeros(max(1, size.value), np.uint8)
    sp.call("cusparseSpMM", h, OP_N, OP_N, alpha, da, db, beta, dc, t, 0, buf)
    for i in range(batch):
        got = cmem[i * sc_:i * sc_ + ldc * n].reshape(n, ldc).T
        np.testing.assert_allclose(got[:m], alpha[0] * (a @ bs[i]) + beta[0] * cs[i],
                                   rtol=TOL[dtype], atol=TOL[dtype] * 10)
        np.testing.assert_array_equal(got[m:], before[i * sc_:i * sc_ + ldc * n]
                                      .reshape(n, ldc).T[m:])  # padding untouched
    # B's batch differs from C's: refused
    sp.call("cusparseDnMatSetStridedBatch", db, 1, 0)
    assert sp.raw("cusparseSpMM", h, OP_N, OP_N, alpha, da, db, beta, dc, t, 0, buf) != 0
    for d in (db, dc):
        sp.call("cusparseDestroyDnMat", d)
    sp.call("cusparseDestroySpMat", da)
