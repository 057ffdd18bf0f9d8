"""cuSPARSE's generic API through pyshim's libcusparse.so.12 on the CPU device's rocSPARSE,
against scipy.sparse (child process, see harness.py: numpy arrays are device memory)."""

from __future__ import annotations

import ctypes
import sys
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as ssp

sys.path.insert(0, str(Path(__file__).parent))
import harness as H  # noqa: E402
import sparse_fixtures  # noqa: E402

sp, h = sparse_fixtures.sp, sparse_fixtures.h

# cuSPARSE constants (cusparse.h, library_types.h)
OP_N, OP_T, OP_C = 0, 1, 2
INDEX_32I, INDEX_64I = 2, 3
ORDER_COL, ORDER_ROW = 1, 2
FORMAT = {"csr": 1, "csc": 2, "coo": 3}
CUDA_TYPE = {np.float32: 0, np.float64: 1, np.complex64: 4, np.complex128: 5}
ST_NOT_INITIALIZED, ST_INVALID_VALUE, ST_NOT_SUPPORTED = 1, 3, 10
DTYPES = [np.float32, np.float64, np.complex64, np.complex128]
TOL = {np.float32: 1e-4, np.float64: 1e-12, np.complex64: 1e-4, np.complex128: 1e-12}


def random_matrix(rng, m, n, dtype, density=0.3):
    a = ssp.random(m, n, density=density, format="csr", random_state=rng, dtype=np.float64)
    if np.issubdtype(dtype, np.complexfloating):
        a = a + 1j * ssp.random(m, n, density=density, format="csr", random_state=rng)
        a = a.tocsr()
    return a.astype(dtype)


def sparse_descr(sp, a, fmt: str, index, base: int = 0):
    """A cuSPARSE descriptor of scipy matrix `a` in `fmt`; returns (descr, keep-alive)."""
    it = np.int32 if index == INDEX_32I else np.int64
    m, n = a.shape
    d = ctypes.c_void_p()
    t = CUDA_TYPE[a.dtype.type]
    if fmt == "coo":
        c = a.tocoo()
        order = np.lexsort((c.col, c.row))
        r, col, v = (c.row[order] + base).astype(it), (c.col[order] + base).astype(it), \
            c.data[order].copy()
        sp.call("cusparseCreateCoo", ctypes.byref(d), m, n, c.nnz, r, col, v, index, base, t)
        return d, (r, col, v)
    s = a.tocsr() if fmt == "csr" else a.tocsc()
    s.sort_indices()
    ptr, ind, v = (s.indptr + base).astype(it), (s.indices + base).astype(it), s.data.copy()
    sp.call(f"cusparseCreate{fmt.capitalize()}", ctypes.byref(d), m, n, s.nnz, ptr, ind, v,
            index, index, base, t)
    return d, (ptr, ind, v)


def scalar(dtype, v):
    return np.array([v], dtype)


def op_of(a, op):
    return a if op == OP_N else a.T if op == OP_T else a.conj().T


@pytest.mark.parametrize("fmt", ["csr", "csc", "coo"])
@pytest.mark.parametrize("dtype", DTYPES)
def test_spmv(sp, h, fmt, dtype) -> None:
    rng = np.random.default_rng(5)
    m, n = 37, 23
    a = random_matrix(rng, m, n, dtype)
    # CSR, OP_N, 32-bit indices is a kernel of its own (either base, alpha = 1, beta = 0, 1
    # or other): each combination once
    cases = [(op, index, base, ab) for op in (OP_N, OP_T, OP_C)
             for index, base in ((INDEX_32I, 0), (INDEX_32I, 1), (INDEX_64I, 1))
             for ab in ((1.5, -0.5), (1.0, 1.0), (1.0, 0.0))]
    for op, index, base, (al, be) in cases:
        descr, keep = sparse_descr(sp, a, fmt, index, base)
        rows, cols = op_of(a, op).shape
        x = rng.standard_normal(cols).astype(dtype)
        y0 = rng.standard_normal(rows).astype(dtype)
        y = y0.copy()
        dx, dy = ctypes.c_void_p(), ctypes.c_void_p()
        t = CUDA_TYPE[dtype]
        sp.call("cusparseCreateDnVec", ctypes.byref(dx), cols, x, t)
        sp.call("cusparseCreateDnVec", ctypes.byref(dy), rows, y, t)
        alpha, beta = scalar(dtype, al), scalar(dtype, be)
        size = ctypes.c_size_t(99)
        sp.call("cusparseSpMV_bufferSize", h, op, alpha, descr, dx, beta, dy, t, 0,
                ctypes.byref(size))
        buf = H.device_array(np.zeros(max(1, size.value), np.uint8))
        sp.call("cusparseSpMV", h, op, alpha, descr, dx, beta, dy, t, 0, buf)
        want = al * (op_of(a, op) @ x) + be * y0
        np.testing.assert_allclose(y, want, rtol=TOL[dtype], atol=TOL[dtype] * 10)
        for d, e in ((dx, "cusparseDestroyDnVec"), (dy, "cusparseDestroyDnVec"),
                     (descr, "cusparseDestroySpMat")):
            sp.call(e, d)
        del keep
    sp.ok("cusparseSpMV", "cusparseSpMV_bufferSize", f"cusparseCreate{fmt.capitalize()}",
          "cusparseCreateDnVec", "cusparseDestroyDnVec", "cusparseDestroySpMat")


def test_spmv_beta_zero_ignores_nan(sp, h) -> None:
    a = random_matrix(np.random.default_rng(1), 8, 6, np.float64)
    descr, keep = sparse_descr(sp, a, "csr", INDEX_32I)
    x, y = np.ones(6), np.full(8, np.nan)
    dx, dy = ctypes.c_void_p(), ctypes.c_void_p()
    sp.call("cusparseCreateDnVec", ctypes.byref(dx), 6, x, 1)
    sp.call("cusparseCreateDnVec", ctypes.byref(dy), 8, y, 1)
    sp.call("cusparseSpMV", h, OP_N, scalar(np.float64, 1), descr, dx, scalar(np.float64, 0),
            dy, 1, 0, None)
    np.testing.assert_allclose(y, a @ x)
    # a vector of the wrong length: INVALID_VALUE, y untouched
    y[:] = 7
    dz = ctypes.c_void_p()
    sp.call("cusparseCreateDnVec", ctypes.byref(dz), 5, x, 1)
    assert sp.raw("cusparseSpMV", h, OP_N, scalar(np.float64, 1), descr, dz,
                  scalar(np.float64, 0), dy, 1, 0, None) == ST_INVALID_VALUE
    assert (y == 7).all()
    # no handle: NOT_INITIALIZED; a compute type rocSPARSE has none for: NOT_SUPPORTED
    assert sp.raw("cusparseSpMV", None, OP_N, scalar(np.float64, 1), descr, dx,
                  scalar(np.float64, 0), dy, 1, 0, None) == ST_NOT_INITIALIZED
    assert sp.raw("cusparseSpMV", h, OP_N, scalar(np.float64, 1), descr, dx,
                  scalar(np.float64, 0), dy, 23, 0, None) == ST_NOT_SUPPORTED
    for d in (dx, dy, dz):
        sp.call("cusparseDestroyDnVec", d)
    sp.call("cusparseDestroySpMat", descr)
    del keep


@pytest.mark.parametrize("fmt", ["csr", "csc", "coo"])
@pytest.mark.parametrize("dtype", [np.float32, np.complex128])
def test_spmm(sp, h, fmt, dtype) -> None:
    rng = np.random.default_rng(9)
    m, k, n = 19, 13, 5
    a = random_matrix(rng, m, k, dtype)
    t = CUDA_TYPE[dtype]
    for op in (OP_N, OP_T):
        descr, keep = sparse_descr(sp, a, fmt, INDEX_32I)
        rows, inner = op_of(a, op).shape
        for b_order, c_order in ((ORDER_COL, ORDER_COL), (ORDER_ROW, ORDER_ROW),
                                 (ORDER_COL, ORDER_ROW)):
            b = rng.standard_normal((inner, n)).astype(dtype)
            c0 = rng.standard_normal((rows, n)).astype(dtype)
            bb = np.asfortranarray(b).ravel("F") if b_order == ORDER_COL else b.ravel().copy()
            cc = np.asfortranarray(c0).ravel("F") if c_order == ORDER_COL else c0.ravel().copy()
            db, dc = ctypes.c_void_p(), ctypes.c_void_p()
            ldb = inner if b_order == ORDER_COL else n
            ldc = rows if c_order == ORDER_COL else n
            sp.call("cusparseCreateDnMat", ctypes.byref(db), inner, n, ldb, bb, t, b_order)
            sp.call("cusparseCreateDnMat", ctypes.byref(dc), rows, n, ldc, cc, t, c_order)
            alpha, beta = scalar(dtype, 2.0), scalar(dtype, 0.25)
            size = ctypes.c_size_t(99)
            sp.call("cusparseSpMM_bufferSize", h, op, OP_N, alpha, descr, db, beta, dc, t, 0,
                    ctypes.byref(size))
            buf = H.device_array(np.zeros(max(1, size.value), np.uint8))
            sp.call("cusparseSpMM_preprocess", h, op, OP_N, alpha, descr, db, beta, dc, t, 0,
                    buf)
            sp.call("cusparseSpMM", h, op, OP_N, alpha, descr, db, beta, dc, t, 0, buf)
            got = cc.reshape(n, rows).T if c_order == ORDER_COL else cc.reshape(rows, n)
            want = 2.0 * (op_of(a, op) @ b) + 0.25 * c0
            np.testing.assert_allclose(got, want, rtol=TOL[dtype], atol=TOL[dtype] * 10)
            sp.call("cusparseDestroyDnMat", db)
            sp.call("cusparseDestroyDnMat", dc)
        sp.call("cusparseDestroySpMat", descr)
        del keep
    sp.ok("cusparseSpMM", "cusparseSpMM_bufferSize", "cusparseSpMM_preprocess",
          "cusparseCreateDnMat", "cusparseDestroyDnMat")


def test_descriptor_queries(sp, h) -> None:
    a = random_matrix(np.random.default_rng(2), 9, 4, np.float32)
    for fmt in ("csr", "csc", "coo"):
        descr, keep = sparse_descr(sp, a, fmt, INDEX_32I)
        rows, cols, nnz = ctypes.c_int64(), ctypes.c_int64(), ctypes.c_int64()
        sp.call("cusparseSpMatGetSize", descr, ctypes.byref(rows), ctypes.byref(cols),
                ctypes.byref(nnz))
        assert (rows.value, cols.value, nnz.value) == (9, 4, a.nnz)
        f = ctypes.c_int(-1)
        sp.call("cusparseSpMatGetFormat", descr, ctypes.byref(f))
        assert f.value == FORMAT[fmt]
        vals = ctypes.c_void_p()
        sp.call("cusparseSpMatGetValues", descr, ctypes.byref(vals))
        assert vals.value == keep[2].ctypes.data
        other = np.zeros_like(keep[2])
        sp.call("cusparseSpMatSetValues", descr, other)
        sp.call("cusparseSpMatGetValues", descr, ctypes.byref(vals))
        assert vals.value == other.ctypes.data
        sp.call("cusparseDestroySpMat", descr)
        del keep
    x, other = np.ones(3, np.float32), np.zeros(3, np.float32)
    dx, vals = ctypes.c_void_p(), ctypes.c_void_p()
    sp.call("cusparseCreateDnVec", ctypes.byref(dx), 3, x, 0)
    sp.call("cusparseDnVecSetValues", dx, other)
    sp.call("cusparseDnVecGetValues", dx, ctypes.byref(vals))
    assert vals.value == other.ctypes.data
    sp.call("cusparseDestroyDnVec", dx)
    dm = ctypes.c_void_p()
    sp.call("cusparseCreateDnMat", ctypes.byref(dm), 3, 1, 3, x, 0, ORDER_COL)
    sp.call("cusparseDnMatSetValues", dm, other)
    sp.call("cusparseDnMatGetValues", dm, ctypes.byref(vals))
    assert vals.value == other.ctypes.data
    sp.call("cusparseDestroyDnMat", dm)
    # destroying NULL is a no-op in cuSPARSE
    sp.call("cusparseDestroySpMat", None)
    sp.ok("cusparseSpMatGetSize", "cusparseSpMatGetFormat", "cusparseSpMatGetValues",
          "cusparseSpMatSetValues", "cusparseDnVecGetValues", "cusparseDnVecSetValues",
          "cusparseDnMatGetValues", "cusparseDnMatSetValues")


def test_handle_version_errors(sp, h) -> None:
    v = ctypes.c_int()
    sp.call("cusparseGetVersion", h, ctypes.byref(v))
    major = ctypes.c_int()
    sp.call("cusparseGetProperty", 0, ctypes.byref(major))
    assert v.value // 1000 == major.value == 12  # cuSPARSE's own version, not rocSPARSE's
    name = ctypes.cast(sp.fn("cusparseGetErrorName")(ST_NOT_SUPPORTED), ctypes.c_char_p)
    assert name.value == b"CUSPARSE_STATUS_NOT_SUPPORTED"
    text = ctypes.cast(sp.fn("cusparseGetErrorString")(ST_INVALID_VALUE), ctypes.c_char_p)
    assert text.value == b"invalid value"
    # the legacy matrix descriptor goes through rocSPARSE's, enums converted
    d = ctypes.c_void_p()
    sp.call("cusparseCreateMatDescr", ctypes.byref(d))
    sp.call("cusparseSetMatIndexBase", d, 1)
    assert sp.fn("cusparseGetMatIndexBase")(d) == 1
    sp.call("cusparseDestroyMatDescr", d)
    # an entry point with no rocSPARSE mapping: NOT_SUPPORTED, counted
    assert sp.raw("cusparseCreatePruneInfo", ctypes.byref(d)) == ST_NOT_SUPPORTED
    count = sp.lib.pyshim_cusparse_unsupported_count
    count.restype, count.argtypes = ctypes.c_ulong, [ctypes.c_char_p]
    assert count(b"cusparseCreatePruneInfo") >= 1
    sp.ok("cusparseGetVersion", "cusparseGetProperty", "cusparseGetErrorName",
          "cusparseGetErrorString",
          "cusparseCreateMatDescr", "cusparseSetMatIndexBase", "cusparseDestroyMatDescr")


def test_index_conversions(sp, h) -> None:
    a = random_matrix(np.random.default_rng(3), 11, 7, np.float64)
    s = a.tocsr()
    ptr = H.device_array(s.indptr.astype(np.int32))
    rows = H.device_array(np.zeros(s.nnz, np.int32))
    sp.call("cusparseXcsr2coo", h, ptr, s.nnz, 11, rows, 0)
    assert np.array_equal(rows, s.tocoo().row)
    back = H.device_array(np.zeros(12, np.int32))
    sp.call("cusparseXcoo2csr", h, rows, s.nnz, 11, back, 0)
    assert np.array_equal(back, s.indptr)
    sp.ok("cusparseXcsr2coo", "cusparseXcoo2csr")


@pytest.mark.parametrize("fmt", ["csr", "csc", "coo"])
@pytest.mark.parametrize("dtype", [np.float32, np.complex128])
def test_sparse_to_dense(sp, h, fmt, dtype) -> None:
    a = random_matrix(np.random.default_rng(4), 6, 9, dtype)
    t = CUDA_TYPE[dtype]
    for order, index in ((ORDER_COL, INDEX_32I), (ORDER_ROW, INDEX_64I)):
        descr, keep = sparse_descr(sp, a, fmt, index, base=1 if order == ORDER_ROW else 0)
        ld = 8 if order == ORDER_COL else 11
        dense = np.full(ld * (9 if order == ORDER_COL else 6), 5, dtype)  # every entry written
        dm = ctypes.c_void_p()
        sp.call("cusparseCreateDnMat", ctypes.byref(dm), 6, 9, ld, dense, t, order)
        size = ctypes.c_size_t(99)
        sp.call("cusparseSparseToDense_bufferSize", h, descr, dm, 0, ctypes.byref(size))
        buf = H.device_array(np.zeros(max(1, size.value), np.uint8))
        sp.call("cusparseSparseToDense", h, descr, dm, 0, buf)
        got = (dense.reshape(9, ld).T[:6] if order == ORDER_COL
               else dense.reshape(6, ld)[:, :9])
        np.testing.assert_array_equal(got, a.toarray())
        sp.call("cusparseDestroyDnMat", dm)
        sp.call("cusparseDestroySpMat", descr)
        del keep
    sp.ok("cusparseSparseToDense", "cusparseSparseToDense_bufferSize")


def spgemm(sp, h, a, b, index, base, dtype, alpha=1.0):
    """C := alpha A B through cuSPARSE's SpGEMM sequence as CuPy calls it: C created empty,
    work estimation and compute each sized then run, C's arrays allocated from its nnz,
    then copied. Returns C as scipy CSR (indices as stored, base removed)."""
    it = np.int32 if index == INDEX_32I else np.int64
    t = CUDA_TYPE[dtype]
    da, ka = sparse_descr(sp, a, "csr", index, base)
    db, kb = sparse_descr(sp, b, "csr", index, base)
    m, n = a.shape[0], b.shape[1]
    dc = ctypes.c_void_p()
    sp.call("cusparseCreateCsr", ctypes.byref(dc), m, n, 0, None, None, None, index, index,
            base, t)
    g = ctypes.c_void_p()
    sp.call("cusparseSpGEMM_createDescr", ctypes.byref(g))
    al, be = scalar(dtype, alpha), scalar(dtype, 0)
    bufs = []
    for name in ("cusparseSpGEMM_workEstimation", "cusparseSpGEMM_compute"):
        size = ctypes.c_size_t(0)
        sp.call(name, h, OP_N, OP_N, al, da, db, be, dc, t, 0, g, ctypes.byref(size), None)
        assert size.value > 0
        bufs.append(H.device_array(np.zeros(size.value, np.uint8)))
        sp.call(name, h, OP_N, OP_N, al, da, db, be, dc, t, 0, g, ctypes.byref(size), bufs[-1])
    rows, cols, nnz = ctypes.c_int64(), ctypes.c_int64(), ctypes.c_int64()
    sp.call("cusparseSpMatGetSize", dc, ctypes.byref(rows), ctypes.byref(cols),
            ctypes.byref(nnz))
    assert (rows.value, cols.value) == (m, n)
    ptr = H.device_array(np.full(m + 1, -7, it))
    ind = H.device_array(np.full(max(1, nnz.value), -7, it))
    val = H.device_array(np.full(max(1, nnz.value), 99, dtype))
    sp.call("cusparseCsrSetPointers", dc, ptr, ind, val)
    sp.call("cusparseSpGEMM_copy", h, OP_N, OP_N, al, da, db, be, dc, t, 0, g)
    sp.call("cusparseSpGEMM_destroyDescr", g)
    for d in (da, db, dc):
        sp.call("cusparseDestroySpMat", d)
    del ka, kb, bufs
    k = nnz.value
    return ssp.csr_matrix((val[:k].copy(), ind[:k] - base, ptr - base), shape=(m, n))


@pytest.mark.parametrize("dtype", DTYPES)
def test_spgemm(sp, h, dtype) -> None:
    rng = np.random.default_rng(11)
    for (m, k, n), density in (((17, 12, 9), 0.3), ((40, 33, 28), 0.05), ((5, 6, 7), 0.0)):
        a = random_matrix(rng, m, k, dtype, density)
        b = random_matrix(rng, k, n, dtype, density)
        want = (1.5 * (a.astype(np.complex128) @ b.astype(np.complex128))).tocsr()
        want.sort_indices()
        for index, base in ((INDEX_32I, 0), (INDEX_64I, 1)):
            c = spgemm(sp, h, a, b, index, base, dtype, alpha=1.5)
            # random values do not cancel: the structural pattern, as scipy finds it
            assert c.nnz == want.nnz
            assert np.array_equal(c.indptr, want.indptr)
            assert np.array_equal(c.indices, want.indices)  # sorted within rows
            np.testing.assert_allclose(c.data, want.data, rtol=TOL[dtype], atol=TOL[dtype])
    sp.ok("cusparseSpGEMM_createDescr", "cusparseSpGEMM_destroyDescr",
          "cusparseSpGEMM_workEstimation", "cusparseSpGEMM_compute", "cusparseSpGEMM_copy",
          "cusparseCsrSetPointers")


def test_spgemm_refusals(sp, h) -> None:
    a = random_matrix(np.random.default_rng(12), 6, 5, np.float64)
    da, ka = sparse_descr(sp, a, "csr", INDEX_32I)
    dc = ctypes.c_void_p()
    sp.call("cusparseCreateCsr", ctypes.byref(dc), 6, 6, 0, None, None, None, INDEX_32I,
            INDEX_32I, 0, 1)
    g = ctypes.c_void_p()
    sp.call("cusparseSpGEMM_createDescr", ctypes.byref(g))
    one, zero = scalar(np.float64, 1), scalar(np.float64, 0)
    size = ctypes.c_size_t(0)
    # A (6x5) times A (6x5): the inner sizes differ
    assert sp.raw("cusparseSpGEMM_workEstimation", h, OP_N, OP_N, one, da, da, zero, dc, 1, 0,
                  g, ctypes.byref(size), None) == ST_INVALID_VALUE
    # copy before compute: cuSPARSE's order is required, nothing is written
    assert sp.raw("cusparseSpGEMM_copy", h, OP_N, OP_N, one, da, da, zero, dc, 1, 0,
                  g) == ST_INVALID_VALUE
    # no handle; a compute type rocSPARSE has none for
    assert sp.raw("cusparseSpGEMM_compute", None, OP_N, OP_N, one, da, da, zero, dc, 1, 0,
                  g, ctypes.byref(size), None) == ST_NOT_INITIALIZED
    assert sp.raw("cusparseSpGEMM_compute", h, OP_N, OP_N, one, da, da, zero, dc, 23, 0,
                  g, ctypes.byref(size), None) == ST_NOT_SUPPORTED
    # a transposed operand: rocSPARSE multiplies untransposed CSR only
    assert sp.raw("cusparseSpGEMM_workEstimation", h, OP_T, OP_N, one, da, da, zero, dc, 1, 0,
                  g, ctypes.byref(size), None) == ST_NOT_SUPPORTED
    sp.call("cusparseSpGEMM_destroyDescr", g)
    sp.call("cusparseDestroySpMat", da)
    sp.call("cusparseDestroySpMat", dc)
    del ka


@pytest.mark.parametrize("fmt", ["csr", "csc", "coo"])
@pytest.mark.parametrize("dtype", [np.float64, np.complex64])
def test_dense_to_sparse(sp, h, fmt, dtype) -> None:
    """cuSPARSE's sample sequence: B created with its offsets only, analysis gives its nnz,
    arrays allocated and set, then conversion."""
    a = random_matrix(np.random.default_rng(6), 7, 10, dtype).toarray()
    t = CUDA_TYPE[dtype]
    for order, index, base in ((ORDER_COL, INDEX_32I, 0), (ORDER_ROW, INDEX_64I, 1)):
        it = np.int32 if index == INDEX_32I else np.int64
        ld = 9 if order == ORDER_COL else 12
        dense = np.full((10, ld) if order == ORDER_COL else (7, ld), 3, dtype)  # padding
        if order == ORDER_COL:
            dense[:, :7] = a.T
        else:
            dense[:, :10] = a
        dm, db = ctypes.c_void_p(), ctypes.c_void_p()
        sp.call("cusparseCreateDnMat", ctypes.byref(dm), 7, 10, ld, dense, t, order)
        offsets = H.device_array(np.full(11 if fmt == "csc" else 8, -1, it))
        if fmt == "coo":
            sp.call("cusparseCreateCoo", ctypes.byref(db), 7, 10, 0, None, None, None, index,
                    base, t)
        else:
            sp.call(f"cusparseCreate{fmt.capitalize()}", ctypes.byref(db), 7, 10, 0, offsets,
                    None, None, index, index, base, t)
        size = ctypes.c_size_t(99)
        sp.call("cusparseDenseToSparse_bufferSize", h, dm, db, 0, ctypes.byref(size))
        buf = H.device_array(np.zeros(max(1, size.value), np.uint8))
        sp.call("cusparseDenseToSparse_analysis", h, dm, db, 0, buf)
        rows, cols, nnz = ctypes.c_int64(), ctypes.c_int64(), ctypes.c_int64()
        sp.call("cusparseSpMatGetSize", db, ctypes.byref(rows), ctypes.byref(cols),
                ctypes.byref(nnz))
        want = ssp.coo_matrix(a)
        assert nnz.value == want.nnz
        ind = H.device_array(np.zeros(nnz.value, it))
        val = H.device_array(np.zeros(nnz.value, dtype))
        if fmt == "coo":
            rind = H.device_array(np.zeros(nnz.value, it))
            sp.call("cusparseCooSetPointers", db, rind, ind, val)
        else:
            sp.call(f"cusparse{fmt.capitalize()}SetPointers", db, offsets, ind, val)
        sp.call("cusparseDenseToSparse_convert", h, dm, db, 0, buf)
        if fmt == "coo":
            got = ssp.coo_matrix((val, (rind - base, ind - base)), shape=(7, 10))
            assert np.all(np.diff((rind - base) * 10 + ind - base) > 0)  # row-major order
        elif fmt == "csr":
            got = ssp.csr_matrix((val, ind - base, offsets - base), shape=(7, 10))
            assert got.has_sorted_indices
        else:
            got = ssp.csc_matrix((val, ind - base, offsets - base), shape=(7, 10))
            assert got.has_sorted_indices
        np.testing.assert_array_equal(got.toarray(), a)
        sp.call("cusparseDestroySpMat", db)
        sp.call("cusparseDestroyDnMat", dm)
    sp.ok("cusparseDenseToSparse_bufferSize", "cusparseDenseToSparse_analysis",
          "cusparseDenseToSparse_convert")


@pytest.mark.parametrize("dtype", DTYPES)
def test_csr2csc(sp, h, dtype) -> None:
    a = random_matrix(np.random.default_rng(7), 13, 8, dtype)
    s = a.tocsr()
    s.sort_indices()
    want = a.tocsc()
    want.sort_indices()
    t = CUDA_TYPE[dtype]
    for base, action in ((0, 1), (1, 1), (0, 0)):  # numeric, numeric one-based, symbolic
        ptr = H.device_array((s.indptr + base).astype(np.int32))
        ind = H.device_array((s.indices + base).astype(np.int32))
        val = H.device_array(s.data.copy())
        cptr = H.device_array(np.full(9, -1, np.int32))
        rind = H.device_array(np.full(s.nnz, -1, np.int32))
        cval = H.device_array(np.full(s.nnz, 7, dtype))
        size = ctypes.c_size_t(0)
        sp.call("cusparseCsr2cscEx2_bufferSize", h, 13, 8, s.nnz, val, ptr, ind, cval, cptr,
                rind, t, action, base, 1, ctypes.byref(size))
        buf = H.device_array(np.zeros(max(1, size.value), np.uint8))
        sp.call("cusparseCsr2cscEx2", h, 13, 8, s.nnz, val, ptr, ind, cval, cptr, rind, t,
                action, base, 1, buf)
        assert np.array_equal(cptr - base, want.indptr)
        assert np.array_equal(rind - base, want.indices)
        if action == 1:
            np.testing.assert_array_equal(cval, want.data)
        else:
            assert (cval == 7).all()  # symbolic: values untouched
    # a value type rocSPARSE has no csr2csc for
    assert sp.raw("cusparseCsr2cscEx2", h, 13, 8, s.nnz, val, ptr, ind, cval, cptr, rind, 23,
                  1, 0, 1, buf) == ST_NOT_SUPPORTED
    sp.ok("cusparseCsr2cscEx2", "cusparseCsr2cscEx2_bufferSize")


def gather(sp, h, values, perm):
    """values[perm] through cusparseGather on a sparse vector, as CuPy's sorts do."""
    out = H.device_array(np.zeros_like(values))
    t = CUDA_TYPE[values.dtype.type]
    dy, dx = ctypes.c_void_p(), ctypes.c_void_p()
    sp.call("cusparseCreateDnVec", ctypes.byref(dy), values.size, values, t)
    sp.call("cusparseCreateSpVec", ctypes.byref(dx), values.size, perm.size, perm, out,
            INDEX_32I, 0, t)
    sp.call("cusparseGather", h, dy, dx)
    sp.call("cusparseDestroySpVec", dx)
    sp.call("cusparseDestroyDnVec", dy)
    return out


@pytest.mark.parametrize("kind", ["csr", "csc", "coo_row", "coo_col"])
def test_sorts_with_permutation(sp, h, kind) -> None:
    rng = np.random.default_rng(8)
    a = random_matrix(rng, 15, 12, np.float64, 0.35)
    m, n = a.shape
    md = ctypes.c_void_p()
    sp.call("cusparseCreateMatDescr", ctypes.byref(md))
    if kind in ("csr", "csc"):
        s = a.tocsr() if kind == "csr" else a.tocsc()
        s.sort_indices()
        ptr, ind, val = s.indptr.astype(np.int32), s.indices.astype(np.int32), s.data.copy()
        for o in range(len(ptr) - 1):  # shuffle within each row (column)
            lo, hi = ptr[o], ptr[o + 1]
            order = lo + rng.permutation(hi - lo)
            ind[lo:hi], val[lo:hi] = ind[order], val[order]
        major = None
    else:
        c = a.tocoo()
        order = rng.permutation(c.nnz)
        major = (c.row if kind == "coo_row" else c.col)[order].astype(np.int32)
        ind = (c.col if kind == "coo_row" else c.row)[order].astype(np.int32)
        val = c.data[order].copy()
        major = H.device_array(major)
    ind, val = H.device_array(ind), H.device_array(val)
    nnz = ind.size
    perm = H.device_array(np.full(nnz, -1, np.int32))
    sp.call("cusparseCreateIdentityPermutation", h, nnz, perm)
    assert np.array_equal(perm, np.arange(nnz))
    size = ctypes.c_size_t(0)
    if kind in ("csr", "csc"):
        X = "csr" if kind == "csr" else "csc"
        dptr = H.device_array(ptr)
        sp.call(f"cusparseX{X}sort_bufferSizeExt", h, m, n, nnz, dptr, ind, ctypes.byref(size))
        buf = H.device_array(np.zeros(max(1, size.value), np.uint8))
        sp.call(f"cusparseX{X}sort", h, m, n, nnz, md, dptr, ind, perm, buf)
        got = (ssp.csr_matrix if kind == "csr" else ssp.csc_matrix)(
            (gather(sp, h, val, perm), ind, ptr), shape=(m, n))
        assert got.has_sorted_indices
    else:
        rows, cols = (major, ind) if kind == "coo_row" else (ind, major)
        sp.call("cusparseXcoosort_bufferSizeExt", h, m, n, nnz, rows, cols, ctypes.byref(size))
        buf = H.device_array(np.zeros(max(1, size.value), np.uint8))
        name = "cusparseXcoosortByRow" if kind == "coo_row" else "cusparseXcoosortByColumn"
        sp.call(name, h, m, n, nnz, rows, cols, perm, buf)
        key = major.astype(np.int64) * 100 + ind
        assert np.all(np.diff(key) > 0)  # by the major index, then the minor one
        got = ssp.coo_matrix((gather(sp, h, val, perm), (rows, cols)), shape=(m, n))
    np.testing.assert_array_equal(got.toarray(), a.toarray())
    sp.call("cusparseDestroyMatDescr", md)
    sorts = {"csr": ("cusparseXcsrsort", "cusparseXcsrsort_bufferSizeExt"),
             "csc": ("cusparseXcscsort", "cusparseXcscsort_bufferSizeExt"),
             "coo_row": ("cusparseXcoosortByRow", "cusparseXcoosort_bufferSizeExt"),
             "coo_col": ("cusparseXcoosortByColumn", "cusparseXcoosort_bufferSizeExt")}
    sp.ok("cusparseCreateIdentityPermutation", "cusparseGather", "cusparseCreateSpVec",
          "cusparseDestroySpVec", *sorts[kind])


GEAM_PREFIX = {np.float32: "S", np.float64: "D", np.complex64: "C", np.complex128: "Z"}


@pytest.mark.parametrize("dtype", DTYPES)
def test_csrgeam2(sp, h, dtype) -> None:
    """C := alpha A + beta B as CuPy's csr + csr calls it: buffer size, nnz, values."""
    rng = np.random.default_rng(10)
    m, n = 14, 11
    a, b = random_matrix(rng, m, n, dtype), random_matrix(rng, m, n, dtype, 0.2)
    p = GEAM_PREFIX[dtype]
    md = ctypes.c_void_p()
    sp.call("cusparseCreateMatDescr", ctypes.byref(md))
    for base in (0, 1):
        sp.call("cusparseSetMatIndexBase", md, base)
        arrs = []
        for s in (a, b):
            s = s.tocsr()
            s.sort_indices()
            arrs.append((H.device_array(s.data.copy()),
                         H.device_array((s.indptr + base).astype(np.int32)),
                         H.device_array((s.indices + base).astype(np.int32)), s.nnz))
        (va, pa, ia, na), (vb, pb, ib, nb) = arrs
        alpha, beta = scalar(dtype, 2.0), scalar(dtype, -0.5)
        pc = H.device_array(np.full(m + 1, -1, np.int32))
        size = ctypes.c_size_t(0)
        sp.call(f"cusparse{p}csrgeam2_bufferSizeExt", h, m, n, alpha, md, na, va, pa, ia, beta,
                md, nb, vb, pb, ib, md, None, pc, None, ctypes.byref(size))
        buf = H.device_array(np.zeros(max(1, size.value), np.uint8))
        nnz = np.zeros(1, np.int32)  # host pointer mode, cuSPARSE's default
        sp.call("cusparseXcsrgeam2Nnz", h, m, n, md, na, pa, ia, md, nb, pb, ib, md, pc, nnz,
                buf)
        want = (2.0 * a - 0.5 * b).tocsr()
        want.sort_indices()
        # scipy drops sums that cancel; random values do not, so the patterns agree
        assert nnz[0] == want.nnz
        ic = H.device_array(np.full(nnz[0], -1, np.int32))
        vc = H.device_array(np.zeros(nnz[0], dtype))
        sp.call(f"cusparse{p}csrgeam2", h, m, n, alpha, md, na, va, pa, ia, beta, md, nb, vb,
                pb, ib, md, vc, pc, ic, buf)
        assert np.array_equal(pc - base, want.indptr)
        assert np.array_equal(ic - base, want.indices)
        np.testing.assert_allclose(vc, want.data, rtol=TOL[dtype], atol=TOL[dtype])
    sp.call("cusparseDestroyMatDescr", md)
    sp.ok("cusparseXcsrgeam2Nnz", f"cusparse{p}csrgeam2", f"cusparse{p}csrgeam2_bufferSizeExt")


class _C64(ctypes.Structure):
    _fields_ = [("x", ctypes.c_float), ("y", ctypes.c_float)]


class _C128(ctypes.Structure):
    _fields_ = [("x", ctypes.c_double), ("y", ctypes.c_double)]


TOL_ARG = {np.float32: ctypes.c_float, np.float64: ctypes.c_double,
           np.complex64: lambda v: _C64(v, 0), np.complex128: lambda v: _C128(v, 0)}


@pytest.mark.parametrize("dtype", DTYPES)
def test_compress(sp, h, dtype) -> None:
    """eliminate_zeros' calls: entries of magnitude <= tol dropped, order kept. A wide
    matrix with distinct offsets and indices: arrays passed in the wrong order show."""
    rng = np.random.default_rng(13)
    a = random_matrix(rng, 9, 14, dtype, 0.4)
    a.data[::3] = 0  # explicit zeros
    a.data[1::5] *= 1e-3  # small ones
    p = GEAM_PREFIX[dtype]
    md = ctypes.c_void_p()
    sp.call("cusparseCreateMatDescr", ctypes.byref(md))
    tol = 0.01
    val, ptr, ind = (H.device_array(a.data.copy()), H.device_array(a.indptr.astype(np.int32)),
                     H.device_array(a.indices.astype(np.int32)))
    per_row = H.device_array(np.full(9, -1, np.int32))
    nnz = np.zeros(1, np.int32)
    fn = sp.fn(f"cusparse{p}nnz_compress")
    fn.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p,
                   ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p,
                   type(TOL_ARG[dtype](tol))]
    assert fn(h, 9, md, val.ctypes.data, ptr.ctypes.data, per_row.ctypes.data,
              nnz.ctypes.data, TOL_ARG[dtype](tol)) == 0
    keep = np.abs(a.data) > tol
    want = ssp.csr_matrix((a.data * keep, a.indices, a.indptr), shape=a.shape)
    want.eliminate_zeros()
    assert nnz[0] == want.nnz
    assert np.array_equal(per_row, np.diff(want.indptr))
    vc = H.device_array(np.zeros(nnz[0], dtype))
    ic = H.device_array(np.full(nnz[0], -1, np.int32))
    pc = H.device_array(np.full(10, -1, np.int32))
    fn = sp.fn(f"cusparse{p}csr2csr_compress")
    fn.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.c_int, ctypes.c_void_p] + \
        [ctypes.c_void_p] * 3 + [ctypes.c_int] + [ctypes.c_void_p] * 4 + \
        [type(TOL_ARG[dtype](tol))]
    assert fn(h, 9, 14, md, val.ctypes.data, ind.ctypes.data, ptr.ctypes.data, a.nnz,
              per_row.ctypes.data, vc.ctypes.data, ic.ctypes.data, pc.ctypes.data,
              TOL_ARG[dtype](tol)) == 0
    assert np.array_equal(pc, want.indptr)
    assert np.array_equal(ic, want.indices)
    np.testing.assert_array_equal(vc, want.data)
    sp.call("cusparseDestroyMatDescr", md)
    sp.ok(f"cusparse{p}nnz_compress", f"cusparse{p}csr2csr_compress")


# ---- triangular solves (SpSV, SpSM), SpVV, the attributes they read ----

ATTR_FILL, ATTR_DIAG, ATTR_STORAGE = 0, 1, 2
LOWER, UPPER = 0, 1
NON_UNIT, UNIT = 0, 1


def set_attr(sp, descr, attr: int, value: int) -> None:
    sp.call("cusparseSpMatSetAttribute", descr, attr, np.array([value], np.int32), 4)


def triangular_matrix(rng, n, dtype):
    """A full n x n matrix (both triangles stored, to show the other is ignored) whose
    triangles are well conditioned: a dominant diagonal."""
    a = random_matrix(rng, n, n, dtype, density=0.4).toarray()
    a[np.diag_indices(n)] = n + 1 + rng.random(n)
    return ssp.csr_matrix(a.astype(dtype))


def triangle(a, fill: int, diag: int) -> ssp.csr_matrix:
    t = ssp.tril(a) if fill == LOWER else ssp.triu(a)
    if diag == UNIT:
        t = t - ssp.diags(t.diagonal()) + ssp.eye(a.shape[0], dtype=a.dtype)
    return ssp.csr_matrix(t)


def solve_ref(a, fill, diag, op, b):
    """op(triangle(A)) X = b by scipy's triangular solver."""
    t = op_of(triangle(a, fill, diag), op).tocsr()
    lower = (fill == LOWER) == (op == OP_N)
    return ssp.linalg.spsolve_triangular(t, b, lower=lower, unit_diagonal=diag == UNIT)


@pytest.mark.parametrize("fmt", ["csr", "coo"])
@pytest.mark.parametrize("dtype", DTYPES)
def test_spsv(sp, h, fmt, dtype) -> None:
    import scipy.sparse.linalg  # noqa: F401  (ssp.linalg)

    rng = np.random.default_rng(11)
    t = CUDA_TYPE[dtype]
    real = not np.issubdtype(dtype, np.complexfloating)
    cases = [(n, fill, diag, op) for n in (1, 9, 40) for fill in (LOWER, UPPER)
             for diag in (NON_UNIT, UNIT) for op in (OP_N, OP_T, OP_C)]
    for i, (n, fill, diag, op) in enumerate(cases):
        index, base = ((INDEX_32I, 0), (INDEX_64I, 1), (INDEX_32I, 1))[i % 3]
        a = triangular_matrix(rng, n, dtype)
        descr, keep = sparse_descr(sp, a, fmt, index, base)
        set_attr(sp, descr, ATTR_FILL, fill)
        set_attr(sp, descr, ATTR_DIAG, diag)
        x = rng.standard_normal(n).astype(dtype)
        if not real:
            x = (x + 1j * rng.standard_normal(n)).astype(dtype)
        y = np.full(n, np.nan, dtype)
        dx, dy, sv = ctypes.c_void_p(), ctypes.c_void_p(), ctypes.c_void_p()
        sp.call("cusparseCreateDnVec", ctypes.byref(dx), n, x, t)
        sp.call("cusparseCreateDnVec", ctypes.byref(dy), n, y, t)
        sp.call("cusparseSpSV_createDescr", ctypes.byref(sv))
        alpha = scalar(dtype, 1.5 if real else 1.5 - 0.5j)
        args = (h, op, alpha, descr, dx, dy, t, 0, sv)
        size = ctypes.c_size_t(0)
        sp.call("cusparseSpSV_bufferSize", *args, ctypes.byref(size))
        assert size.value >= 1
        buf = H.device_array(np.zeros(size.value, np.uint8))
        sp.call("cusparseSpSV_analysis", *args, buf)
        sp.call("cusparseSpSV_solve", *args)
        want = solve_ref(a, fill, diag, op, alpha[0] * x)
        np.testing.assert_allclose(y, want, rtol=TOL[dtype] * 10, atol=TOL[dtype] * 10)
        # new values after analysis (same pattern): the next solve uses them, the
        # matrix descriptor keeps its own
        new = H.device_array(keep[2] * 2)
        sp.call("cusparseSpSV_updateMatrix", h, sv, new, 0)
        sp.call("cusparseSpSV_solve", *args)
        want2 = solve_ref(a * 2, fill, diag, op, alpha[0] * x)
        np.testing.assert_allclose(y, want2, rtol=TOL[dtype] * 10, atol=TOL[dtype] * 10)
        got = ctypes.c_void_p()
        sp.call("cusparseSpMatGetValues", descr, ctypes.byref(got))
        assert got.value == keep[2].ctypes.data
        # the diagonal alone, over the values of the last update
        before = keep[2].copy()
        dn = n + 2 + rng.random(n) + (0 if real else 1j * rng.random(n))
        dnew = H.device_array(dn.astype(dtype))
        sp.call("cusparseSpSV_updateMatrix", h, sv, dnew, 1)
        sp.call("cusparseSpSV_solve", *args)
        a3 = (a * 2).tolil()
        a3.setdiag(dnew)
        want3 = solve_ref(a3.tocsr(), fill, diag, op, alpha[0] * x)
        np.testing.assert_allclose(y, want3, rtol=TOL[dtype] * 10, atol=TOL[dtype] * 10)
        assert np.array_equal(keep[2], before) and np.array_equal(new, keep[2] * 2)
        for d, e in ((dx, "cusparseDestroyDnVec"), (dy, "cusparseDestroyDnVec"),
                     (descr, "cusparseDestroySpMat"), (sv, "cusparseSpSV_destroyDescr")):
            sp.call(e, d)
        del keep
    sp.ok("cusparseSpSV_createDescr", "cusparseSpSV_destroyDescr", "cusparseSpSV_bufferSize",
          "cusparseSpSV_analysis", "cusparseSpSV_solve", "cusparseSpSV_updateMatrix",
          "cusparseSpMatSetAttribute")


@pytest.mark.parametrize("fmt", ["csr", "coo"])
@pytest.mark.parametrize("dtype", DTYPES)
def test_spsm(sp, h, fmt, dtype) -> None:
    import scipy.sparse.linalg  # noqa: F401

    rng = np.random.default_rng(12)
    t = CUDA_TYPE[dtype]
    k = 3
    cases = [(n, fill, diag, op, opb, bord, cord) for n in (6, 25) for fill in (LOWER, UPPER)
             for diag in (NON_UNIT, UNIT) for op in (OP_N, OP_T, OP_C) for opb in (OP_N, OP_T)
             for bord in (ORDER_COL, ORDER_ROW) for cord in (ORDER_COL, ORDER_ROW)]
    for i, (n, fill, diag, op, opb, bord, cord) in enumerate(cases):
        index, base = ((INDEX_32I, 0), (INDEX_64I, 1))[i % 2]
        a = triangular_matrix(rng, n, dtype)
        descr, keep = sparse_descr(sp, a, fmt, index, base)
        set_attr(sp, descr, ATTR_FILL, fill)
        set_attr(sp, descr, ATTR_DIAG, diag)
        opb_b = rng.standard_normal((n, k)).astype(dtype)  # op(B)
        b = opb_b if opb == OP_N else opb_b.T.copy()
        br, bc = b.shape
        # stored with one spare row/column of leading dimension
        bld = (br if bord == ORDER_COL else bc) + 1
        bbuf = np.zeros(bld * (bc if bord == ORDER_COL else br), dtype)
        bview = (bbuf.reshape(bc, bld)[:, :br].T if bord == ORDER_COL
                 else bbuf.reshape(br, bld)[:, :bc])
        bview[...] = b
        cld = (n if cord == ORDER_COL else k) + 1
        cbuf = np.full(cld * (k if cord == ORDER_COL else n), np.nan, dtype)
        cview = (cbuf.reshape(k, cld)[:, :n].T if cord == ORDER_COL
                 else cbuf.reshape(n, cld)[:, :k])
        db, dc, sm = ctypes.c_void_p(), ctypes.c_void_p(), ctypes.c_void_p()
        sp.call("cusparseCreateDnMat", ctypes.byref(db), br, bc, bld, bbuf, t, bord)
        sp.call("cusparseCreateDnMat", ctypes.byref(dc), n, k, cld, cbuf, t, cord)
        sp.call("cusparseSpSM_createDescr", ctypes.byref(sm))
        alpha = scalar(dtype, -2.0)
        args = (h, op, opb, alpha, descr, db, dc, t, 0, sm)
        size = ctypes.c_size_t(0)
        sp.call("cusparseSpSM_bufferSize", *args, ctypes.byref(size))
        buf = H.device_array(np.zeros(size.value, np.uint8))
        sp.call("cusparseSpSM_analysis", *args, buf)
        sp.call("cusparseSpSM_solve", *args)
        want = solve_ref(a, fill, diag, op, -2.0 * opb_b)
        np.testing.assert_allclose(cview, want, rtol=TOL[dtype] * 10, atol=TOL[dtype] * 10)
        if i % 8 == 0:
            new = H.device_array(keep[2] * 3)
            sp.call("cusparseSpSM_updateMatrix", h, sm, new, 0)
            sp.call("cusparseSpSM_solve", *args)
            want = solve_ref(a * 3, fill, diag, op, -2.0 * opb_b)
            np.testing.assert_allclose(cview, want, rtol=TOL[dtype] * 10,
                                       atol=TOL[dtype] * 10)
            dnew = H.device_array((n + 2 + rng.random(n)).astype(dtype))
            sp.call("cusparseSpSM_updateMatrix", h, sm, dnew, 1)
            sp.call("cusparseSpSM_solve", *args)
            a3 = (a * 3).tolil()
            a3.setdiag(dnew)
            want = solve_ref(a3.tocsr(), fill, diag, op, -2.0 * opb_b)
            np.testing.assert_allclose(cview, want, rtol=TOL[dtype] * 10,
                                       atol=TOL[dtype] * 10)
        for d, e in ((db, "cusparseDestroyDnMat"), (dc, "cusparseDestroyDnMat"),
                     (descr, "cusparseDestroySpMat"), (sm, "cusparseSpSM_destroyDescr")):
            sp.call(e, d)
        del keep
    sp.ok("cusparseSpSM_createDescr", "cusparseSpSM_destroyDescr", "cusparseSpSM_bufferSize",
          "cusparseSpSM_analysis", "cusparseSpSM_solve", "cusparseSpSM_updateMatrix")


def test_triangular_refusals(sp, h) -> None:
    rng = np.random.default_rng(13)
    a = triangular_matrix(rng, 5, np.float64)
    descr, keep = sparse_descr(sp, a, "csr", INDEX_32I)
    x, y = np.ones(5), np.zeros(5)
    dx, dy, sv = ctypes.c_void_p(), ctypes.c_void_p(), ctypes.c_void_p()
    sp.call("cusparseCreateDnVec", ctypes.byref(dx), 5, x, 1)
    sp.call("cusparseCreateDnVec", ctypes.byref(dy), 5, y, 1)
    sp.call("cusparseSpSV_createDescr", ctypes.byref(sv))
    one = scalar(np.float64, 1)
    # solve before analysis, no handle, a compute type rocSPARSE lacks
    assert sp.raw("cusparseSpSV_solve", h, OP_N, one, descr, dx, dy, 1, 0, sv) == \
        ST_INVALID_VALUE
    assert sp.raw("cusparseSpSV_analysis", None, OP_N, one, descr, dx, dy, 1, 0, sv,
                  None) == ST_NOT_INITIALIZED
    assert sp.raw("cusparseSpSV_analysis", h, OP_N, one, descr, dx, dy, 23, 0, sv,
                  None) == ST_NOT_SUPPORTED
    assert sp.raw("cusparseSpSV_bufferSize", h, OP_N, one, descr, dx, dy, 1, 0, sv,
                  None) == ST_INVALID_VALUE
    # a vector of the wrong length; a non-square matrix
    dz, rect = ctypes.c_void_p(), None
    sp.call("cusparseCreateDnVec", ctypes.byref(dz), 4, x, 1)
    assert sp.raw("cusparseSpSV_analysis", h, OP_N, one, descr, dz, dy, 1, 0, sv,
                  None) == ST_INVALID_VALUE
    rect, rkeep = sparse_descr(sp, random_matrix(rng, 5, 4, np.float64), "csr", INDEX_32I)
    assert sp.raw("cusparseSpSV_analysis", h, OP_N, one, rect, dz, dy, 1, 0, sv,
                  None) == ST_INVALID_VALUE
    # the diagonal update of a matrix that stores no entry (r, r) for some row
    hole = triangular_matrix(rng, 5, np.float64).tolil()
    hole[2, 2] = 0
    hole = hole.tocsr()
    hole.eliminate_zeros()
    hd, hkeep = sparse_descr(sp, hole, "csr", INDEX_32I)
    size = ctypes.c_size_t(0)
    sp.call("cusparseSpSV_bufferSize", h, OP_N, one, hd, dx, dy, 1, 0, sv, ctypes.byref(size))
    hbuf = H.device_array(np.zeros(size.value, np.uint8))
    sp.call("cusparseSpSV_analysis", h, OP_N, one, hd, dx, dy, 1, 0, sv, hbuf)
    assert sp.raw("cusparseSpSV_updateMatrix", h, sv, H.device_array(np.ones(5)), 1) == \
        ST_NOT_SUPPORTED
    assert sp.raw("cusparseSpSV_updateMatrix", h, sv, H.device_array(np.ones(5)), 7) == \
        ST_INVALID_VALUE
    sp.call("cusparseDestroySpMat", hd)
    del hkeep
    # complex A analysed for A^T, solved as A^H: the analysis kept no conjugated values
    ca = triangular_matrix(rng, 5, np.complex128)
    cd, ckeep = sparse_descr(sp, ca, "csr", INDEX_32I)
    cx, cy = np.ones(5, np.complex128), np.zeros(5, np.complex128)
    dcx, dcy = ctypes.c_void_p(), ctypes.c_void_p()
    sp.call("cusparseCreateDnVec", ctypes.byref(dcx), 5, cx, 5)
    sp.call("cusparseCreateDnVec", ctypes.byref(dcy), 5, cy, 5)
    cone = scalar(np.complex128, 1)
    sp.call("cusparseSpSV_bufferSize", h, OP_T, cone, cd, dcx, dcy, 5, 0, sv, ctypes.byref(size))
    cbuf = H.device_array(np.zeros(size.value, np.uint8))
    sp.call("cusparseSpSV_analysis", h, OP_T, cone, cd, dcx, dcy, 5, 0, sv, cbuf)
    assert sp.raw("cusparseSpSV_solve", h, OP_C, cone, cd, dcx, dcy, 5, 0, sv) == \
        ST_INVALID_VALUE
    for d, e in ((dcx, "cusparseDestroyDnVec"), (dcy, "cusparseDestroyDnVec"),
                 (cd, "cusparseDestroySpMat")):
        sp.call(e, d)
    del ckeep
    # the attributes: round trip, a wrong size, a value outside the enum, no twin
    got = np.array([-1], np.int32)
    sp.call("cusparseSpMatGetAttribute", descr, ATTR_FILL, got, 4)
    assert got[0] == LOWER  # cuSPARSE's default
    set_attr(sp, descr, ATTR_FILL, UPPER)
    set_attr(sp, descr, ATTR_DIAG, UNIT)
    sp.call("cusparseSpMatGetAttribute", descr, ATTR_FILL, got, 4)
    assert got[0] == UPPER
    sp.call("cusparseSpMatGetAttribute", descr, ATTR_DIAG, got, 4)
    assert got[0] == UNIT
    v = np.array([UPPER], np.int32)
    assert sp.raw("cusparseSpMatSetAttribute", descr, ATTR_FILL, v, 8) == ST_INVALID_VALUE
    assert sp.raw("cusparseSpMatSetAttribute", descr, ATTR_FILL, np.array([7], np.int32),
                  4) == ST_INVALID_VALUE
    assert sp.raw("cusparseSpMatSetAttribute", descr, ATTR_STORAGE, v, 4) == ST_NOT_SUPPORTED
    assert sp.raw("cusparseSpMatGetAttribute", descr, ATTR_DIAG, got, 2) == ST_INVALID_VALUE
    for d, e in ((dx, "cusparseDestroyDnVec"), (dy, "cusparseDestroyDnVec"),
                 (dz, "cusparseDestroyDnVec"), (descr, "cusparseDestroySpMat"),
                 (rect, "cusparseDestroySpMat"), (sv, "cusparseSpSV_destroyDescr")):
        sp.call(e, d)
    del keep, rkeep
    sp.ok("cusparseSpMatGetAttribute")


@pytest.mark.parametrize("dtype", DTYPES)
def test_spvv(sp, h, dtype) -> None:
    rng = np.random.default_rng(14)
    t = CUDA_TYPE[dtype]
    real = not np.issubdtype(dtype, np.complexfloating)
    for n, nnz, index, base in ((1, 1, INDEX_32I, 0), (50, 13, INDEX_64I, 1),
                                (300, 0, INDEX_32I, 0), (300, 120, INDEX_32I, 1)):
        it = np.int32 if index == INDEX_32I else np.int64
        idx = np.sort(rng.choice(n, nnz, replace=False)).astype(it)
        val = rng.standard_normal(nnz).astype(dtype)
        y = rng.standard_normal(n).astype(dtype)
        if not real:
            val = (val + 1j * rng.standard_normal(nnz)).astype(dtype)
            y = (y + 1j * rng.standard_normal(n)).astype(dtype)
        dx, dy = ctypes.c_void_p(), ctypes.c_void_p()
        ibuf = idx + base
        sp.call("cusparseCreateSpVec", ctypes.byref(dx), n, nnz, ibuf, val, index, base, t)
        sp.call("cusparseCreateDnVec", ctypes.byref(dy), n, y, t)
        for op in (OP_N, OP_C):
            result = np.full(1, np.nan, dtype)
            size = ctypes.c_size_t(99)
            sp.call("cusparseSpVV_bufferSize", h, op, dx, dy, result, t, ctypes.byref(size))
            buf = H.device_array(np.zeros(max(1, size.value), np.uint8)) if size.value else None
            sp.call("cusparseSpVV", h, op, dx, dy, result, t, buf)
            xv = val.conj() if op == OP_C else val
            want = np.dot(xv, y[idx]) if nnz else 0
            np.testing.assert_allclose(result[0], want, rtol=TOL[dtype] * 10,
                                       atol=TOL[dtype] * 10)
        # rocSPARSE's op(x) is x or conj(x): the transpose is refused
        assert sp.raw("cusparseSpVV", h, OP_T, dx, dy, result, t, None) == ST_NOT_SUPPORTED
        assert sp.raw("cusparseSpVV", None, OP_N, dx, dy, result, t, None) == ST_NOT_INITIALIZED
        sp.call("cusparseDestroySpVec", dx)
        sp.call("cusparseDestroyDnVec", dy)
    sp.ok("cusparseSpVV", "cusparseSpVV_bufferSize")


def test_cpu_rocsparse_statuses(sp, h) -> None:
    """The CPU device's rocsparse_spsv / spsm / spvv / spmat attributes called as rocSPARSE's
    ABI (ctypes on librocsparse.so.1): each bad argument gets rocSPARSE's status."""
    roc = ctypes.CDLL("librocsparse.so.1")
    success, invalid_handle, not_implemented, invalid_pointer, invalid_size = 0, 1, 2, 3, 4
    invalid_value = 7
    op_n, op_t, op_c = 111, 112, 113
    f64, i32, col = 152, 2, 1  # rocsparse_order_column
    vp, i, sz = ctypes.c_void_p, ctypes.c_int, ctypes.c_size_t
    handle = vp()
    assert roc.rocsparse_create_handle(ctypes.byref(handle)) == success
    a = triangular_matrix(np.random.default_rng(15), 4, np.float64)
    ptr, ind, val = a.indptr.astype(np.int32), a.indices.astype(np.int32), a.data.copy()
    csr, csc, rect = vp(), vp(), vp()
    create = roc.rocsparse_create_csr_descr
    create.argtypes = [vp, ctypes.c_int64, ctypes.c_int64, ctypes.c_int64, vp, vp, vp, i, i,
                       i, i]
    roc.rocsparse_create_csc_descr.argtypes = create.argtypes
    assert create(ctypes.byref(csr), 4, 4, a.nnz, ptr.ctypes.data, ind.ctypes.data,
                  val.ctypes.data, i32, i32, 0, f64) == success
    assert create(ctypes.byref(rect), 4, 5, a.nnz, ptr.ctypes.data, ind.ctypes.data,
                  val.ctypes.data, i32, i32, 0, f64) == success
    assert roc.rocsparse_create_csc_descr(ctypes.byref(csc), 4, 4, a.nnz, ptr.ctypes.data,
                                          ind.ctypes.data, val.ctypes.data, i32, i32, 0,
                                          f64) == success
    x, y = np.ones(4), np.zeros(4)
    dx, dy, d3 = vp(), vp(), vp()
    roc.rocsparse_create_dnvec_descr.argtypes = [vp, ctypes.c_int64, vp, i]
    for d, n, arr in ((dx, 4, x), (dy, 4, y), (d3, 3, x)):
        assert roc.rocsparse_create_dnvec_descr(ctypes.byref(d), n, arr.ctypes.data,
                                                f64) == success
    spsv = roc.rocsparse_spsv
    spsv.argtypes = [vp, i, vp, vp, vp, vp, i, i, i, vp, vp]
    one, size = np.ones(1), sz(5)
    size_ref = ctypes.byref(size)

    def sv(hd=handle, op=op_n, mat=csr, vx=dx, vy=dy, ty=f64, alg=0, stage=1, alpha=one,
           size_p=size_ref):
        return spsv(hd, op, None if alpha is None else alpha.ctypes.data, mat, vx, vy, ty, alg,
                    stage, size_p, None)

    assert sv() == success and size.value == 0
    assert sv(hd=None) == invalid_handle
    assert sv(mat=None) == invalid_pointer and sv(vx=None) == invalid_pointer
    assert sv(size_p=None) == invalid_pointer
    assert sv(stage=3, alpha=None) == invalid_pointer
    assert sv(op=op_c) == not_implemented and sv(op=5) == invalid_value
    assert sv(mat=csc) == not_implemented and sv(ty=151) == not_implemented
    assert sv(mat=rect) == invalid_size and sv(vx=d3) == invalid_size
    assert sv(stage=9) == invalid_value and sv(alg=3) == invalid_value
    assert sv(stage=2) == success and sv(stage=3) == success
    np.testing.assert_allclose(np.tril(a.toarray()) @ y, x)
    assert sv(op=op_t, stage=3) == success
    np.testing.assert_allclose(np.tril(a.toarray()).T @ y, x)
    # SpSM: op(B)'s shape against A and C, trans_B conjugate not implemented
    roc.rocsparse_create_dnmat_descr.argtypes = [vp, ctypes.c_int64, ctypes.c_int64,
                                                 ctypes.c_int64, vp, i, i]
    b, c = np.ones(8), np.zeros(8)
    mb, mc, mbt = vp(), vp(), vp()
    assert roc.rocsparse_create_dnmat_descr(ctypes.byref(mb), 4, 2, 4, b.ctypes.data, f64,
                                            col) == success
    assert roc.rocsparse_create_dnmat_descr(ctypes.byref(mc), 4, 2, 4, c.ctypes.data, f64,
                                            col) == success
    assert roc.rocsparse_create_dnmat_descr(ctypes.byref(mbt), 2, 4, 2, b.ctypes.data, f64,
                                            col) == success
    spsm = roc.rocsparse_spsm
    spsm.argtypes = [vp, i, i, vp, vp, vp, vp, i, i, i, vp, vp]
    assert spsm(handle, op_n, op_n, one.ctypes.data, csr, mb, mc, f64, 0, 1,
                ctypes.byref(size), None) == success
    assert spsm(handle, op_n, op_t, one.ctypes.data, csr, mb, mc, f64, 0, 1,
                ctypes.byref(size), None) == invalid_size
    assert spsm(handle, op_n, op_t, one.ctypes.data, csr, mbt, mc, f64, 0, 3,
                ctypes.byref(size), None) == success
    assert spsm(handle, op_n, op_c, one.ctypes.data, csr, mb, mc, f64, 0, 1,
                ctypes.byref(size), None) == not_implemented
    assert spsm(handle, op_n, op_n, one.ctypes.data, csr, None, mc, f64, 0, 1,
                ctypes.byref(size), None) == invalid_pointer
    # SpVV: transpose not implemented, a size mismatch, NULL buffer = size query
    sx = vp()
    idx = np.array([0, 2], np.int32)
    roc.rocsparse_create_spvec_descr.argtypes = [vp, ctypes.c_int64, ctypes.c_int64, vp, vp,
                                                 i, i, i]
    assert roc.rocsparse_create_spvec_descr(ctypes.byref(sx), 4, 2, idx.ctypes.data,
                                            val.ctypes.data, i32, 0, f64) == success
    spvv = roc.rocsparse_spvv
    spvv.argtypes = [vp, i, vp, vp, vp, i, vp, vp]
    res, buf = np.zeros(1), np.zeros(1)
    assert spvv(handle, op_t, sx, dx, res.ctypes.data, f64, ctypes.byref(size),
                None) == not_implemented
    assert spvv(handle, op_n, sx, d3, res.ctypes.data, f64, ctypes.byref(size),
                None) == invalid_size
    assert spvv(handle, op_n, sx, dx, None, f64, ctypes.byref(size), None) == invalid_pointer
    assert spvv(handle, op_n, sx, dx, res.ctypes.data, f64, None, None) == invalid_pointer
    assert spvv(handle, op_n, sx, dx, res.ctypes.data, f64, ctypes.byref(size),
                buf.ctypes.data) == success
    assert res[0] == val[0] * x[0] + val[1] * x[2]
    # attributes: size, value and attribute checks
    setattr_ = roc.rocsparse_spmat_set_attribute
    setattr_.argtypes = [vp, i, vp, sz]
    v = np.array([1], np.int32)
    assert setattr_(csr, 0, v.ctypes.data, 4) == success
    assert setattr_(csr, 0, v.ctypes.data, 8) == invalid_size
    assert setattr_(csr, 9, v.ctypes.data, 4) == invalid_value
    assert setattr_(csr, 0, None, 4) == invalid_pointer
    assert setattr_(csr, 1, np.array([2], np.int32).ctypes.data, 4) == invalid_value
    for d in (csr, csc, rect):
        roc.rocsparse_destroy_spmat_descr(d)
    for d in (dx, dy, d3):
        roc.rocsparse_destroy_dnvec_descr(d)
    for d in (mb, mc, mbt):
        roc.rocsparse_destroy_dnmat_descr(d)
    roc.rocsparse_destroy_spvec_descr(sx)
    roc.rocsparse_destroy_handle(handle)
