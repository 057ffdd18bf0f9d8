"""cuSOLVER's iterative-refinement solvers (<t1><t2>gesv/gels, IRSXgesv/gels) and the
reductions to condensed form (gebrd, orgbr, sytrd, orgtr, ormtr, lauum) through pyshim's
libcusolver.so.12 on the CPU device, against numpy/scipy (child process, see harness.py)."""

from __future__ import annotations

import ctypes
import sys
from pathlib import Path

import numpy as np
import pytest
import scipy.linalg as sla

sys.path.insert(0, str(Path(__file__).parent))
import harness as H  # noqa: E402

LOWER, UPPER = 0, 1
ST_INVALID_VALUE, ST_NOT_SUPPORTED = 3, 9
# main precision -> the lowest precisions cuSOLVER pairs it with
PAIRS = {"z": "zckey", "c": "ceky", "d": "dshbx", "s": "shbx"}
# cusolverPrecType_t of the main precisions
PREC_TYPE = {"s": 1204, "d": 1203, "c": 1214, "z": 1213}


@pytest.fixture(scope="module")
def cs() -> H.Lib:
    _, lib = H.load()
    yield lib
    H.write_coverage("cusolver_irs", lib.exercised)


@pytest.fixture(scope="module")
def h(cs: H.Lib):
    handle = ctypes.c_void_p()
    cs.call("cusolverDnCreate", ctypes.byref(handle))
    yield handle
    cs.call("cusolverDnDestroy", handle)


@pytest.fixture
def rng() -> np.random.Generator:
    return np.random.default_rng(7)


def fort(a: np.ndarray, ld: int | None = None) -> np.ndarray:
    rows, cols = a.shape
    ld = ld or rows
    buf = np.zeros(ld * cols, a.dtype)
    unflat(buf, rows, cols, ld)[...] = a
    return H.device_array(buf)  # the libraries copy it: device memory, as on CUDA


def dzeros(n: int, dtype) -> np.ndarray:
    return H.device_array(np.zeros(n, dtype))


def unflat(buf: np.ndarray, rows: int, cols: int, ld: int | None = None) -> np.ndarray:
    ld = ld or rows
    return buf[: ld * cols].reshape(cols, ld).T[:rows]


def well_conditioned(rng, pre: str, m: int, n: int) -> np.ndarray:
    a = H.rand(rng, pre, m * n).reshape(m, n)
    a[: min(m, n), : min(m, n)] += 4 * np.eye(min(m, n))
    return a.astype(H.DTYPE[pre])


def size_query(cs, entry: str, *args) -> int:
    out = ctypes.c_size_t(1 << 60)
    cs.call(entry, *args, ctypes.byref(out))
    assert out.value < 1 << 40
    return out.value


@pytest.mark.parametrize("main", list(PAIRS))
def test_mixed_precision_gesv(cs, h, rng, main) -> None:
    n, nrhs, ld = 9, 3, 11
    for low in PAIRS[main]:
        name = f"cusolverDn{main.upper()}{low.upper()}gesv"
        a = well_conditioned(rng, main, n, n)
        b = H.rand(rng, main, n * nrhs).reshape(n, nrhs)
        da, db = fort(a, ld), fort(b, ld)
        dx = dzeros(ld * nrhs, H.DTYPE[main])
        ipiv = H.device_array(np.zeros(n, np.int32))
        info = H.device_array(np.full(1, -7, np.int32))
        lw = size_query(cs, name + "_bufferSize", h, n, nrhs, da, ld, ipiv, db, ld, dx, ld,
                        None)
        work = dzeros(max(1, lw), np.uint8)
        it = ctypes.c_int(99)
        cs.call(name, h, n, nrhs, da, ld, ipiv, db, ld, dx, ld, work, lw, ctypes.byref(it), info)
        H.sync()
        assert info[0] == 0
        # the documented main-precision fallback: -1 for a lower precision, 0 for none
        assert it.value == (0 if low == main else -1)
        H.close(unflat(dx, n, nrhs, ld), np.linalg.solve(a, b), main, n)
        assert np.array_equal(unflat(db, n, nrhs, ld), b)  # B is input only
        lu, piv = sla.lu_factor(a)
        assert np.array_equal(ipiv, piv + 1)
        cs.ok(name, name + "_bufferSize")
    # a singular matrix: devInfo names the zero pivot
    name = f"cusolverDn{main.upper()}{main.upper()}gesv"
    a = well_conditioned(rng, main, 4, 4)
    a[:, 1] = 0
    da, db, dx = fort(a), fort(np.ones((4, 1), a.dtype)), dzeros(4, a.dtype)
    ipiv, info = H.device_array(np.zeros(4, np.int32)), H.device_array(np.zeros(1, np.int32))
    it = ctypes.c_int(0)
    lw = size_query(cs, name + "_bufferSize", h, 4, 1, da, 4, ipiv, db, 4, dx, 4, None)
    work = dzeros(max(1, lw), np.uint8)
    cs.call(name, h, 4, 1, da, 4, ipiv, db, 4, dx, 4, work, lw, ctypes.byref(it), info)
    H.sync()
    assert info[0] == 2
    # bad leading dimensions are INVALID_VALUE, nothing written
    assert cs.raw(name, h, 4, 1, da, 2, ipiv, db, 4, dx, 4, work, lw, ctypes.byref(it),
                  info) == ST_INVALID_VALUE


@pytest.mark.parametrize("main", list(PAIRS))
def test_mixed_precision_gels(cs, h, rng, main) -> None:
    m, n, nrhs = 10, 6, 2
    lda, ldb, ldx = 12, 11, 7
    for low in PAIRS[main]:
        name = f"cusolverDn{main.upper()}{low.upper()}gels"
        a = well_conditioned(rng, main, m, n)
        b = H.rand(rng, main, m * nrhs).reshape(m, nrhs)
        da, db = fort(a, lda), fort(b, ldb)
        dx = dzeros(ldx * nrhs, H.DTYPE[main])
        info = H.device_array(np.full(1, -7, np.int32))
        lw = size_query(cs, name + "_bufferSize", h, m, n, nrhs, da, lda, db, ldb, dx, ldx,
                        None)
        work = dzeros(max(1, lw), np.uint8)
        it = ctypes.c_int(99)
        cs.call(name, h, m, n, nrhs, da, lda, db, ldb, dx, ldx, work, lw, ctypes.byref(it),
                info)
        H.sync()
        assert info[0] == 0
        assert it.value == (0 if low == main else -1)
        want = np.linalg.lstsq(a, b, rcond=None)[0]
        H.close(unflat(dx, n, nrhs, ldx), want, main, m)
        assert np.array_equal(unflat(db, m, nrhs, ldb), b)
        # a workspace smaller than asked for is refused, not overrun
        assert cs.raw(name, h, m, n, nrhs, da, lda, db, ldb, dx, ldx, work, 16,
                      ctypes.byref(it), info) == ST_INVALID_VALUE
        cs.ok(name, name + "_bufferSize")


@pytest.mark.parametrize("pre", ["s", "d", "c", "z"])
def test_irs_expert_api(cs, h, rng, pre) -> None:
    params, infos = ctypes.c_void_p(), ctypes.c_void_p()
    cs.call("cusolverDnIRSParamsCreate", ctypes.byref(params))
    cs.call("cusolverDnIRSInfosCreate", ctypes.byref(infos))
    n, nrhs, m = 8, 2, 12
    # no main precision yet: cuSOLVER's IRS_PARAMS_INVALID_PREC
    out = ctypes.c_size_t()
    assert cs.raw("cusolverDnIRSXgesv_bufferSize", h, params, n, nrhs, ctypes.byref(out)) != 0
    cs.call("cusolverDnIRSParamsSetSolverPrecisions", params, PREC_TYPE[pre], PREC_TYPE[pre])
    cs.call("cusolverDnIRSParamsSetSolverMainPrecision", params, PREC_TYPE[pre])
    cs.call("cusolverDnIRSParamsSetSolverLowestPrecision", params, PREC_TYPE[pre])
    cs.call("cusolverDnIRSParamsSetRefinementSolver", params, 1102)
    cs.call("cusolverDnIRSParamsSetTol", params, ctypes.c_double(1e-8))
    cs.call("cusolverDnIRSParamsSetTolInner", params, ctypes.c_double(1e-4))
    cs.call("cusolverDnIRSParamsSetMaxIters", params, 17)
    cs.call("cusolverDnIRSParamsSetMaxItersInner", params, 5)
    cs.call("cusolverDnIRSParamsEnableFallback", params)
    cs.call("cusolverDnIRSParamsDisableFallback", params)
    got = ctypes.c_int()
    cs.call("cusolverDnIRSParamsGetMaxIters", params, ctypes.byref(got))
    assert got.value == 17
    a, b = well_conditioned(rng, pre, n, n), H.rand(rng, pre, n * nrhs).reshape(n, nrhs)
    da, db, dx = fort(a), fort(b), dzeros(n * nrhs, H.DTYPE[pre])
    info = H.device_array(np.full(1, -7, np.int32))
    lw = size_query(cs, "cusolverDnIRSXgesv_bufferSize", h, params, n, nrhs)
    work = dzeros(max(1, lw), np.uint8)
    it = ctypes.c_int(99)
    cs.call("cusolverDnIRSXgesv", h, params, infos, n, nrhs, da, n, db, n, dx, n, work, lw,
            ctypes.byref(it), info)
    H.sync()
    assert info[0] == 0 and it.value == 0
    H.close(unflat(dx, n, nrhs), np.linalg.solve(a, b), pre, n)
    a, b = well_conditioned(rng, pre, m, n), H.rand(rng, pre, m * nrhs).reshape(m, nrhs)
    da, db, dx = fort(a), fort(b), dzeros(n * nrhs, H.DTYPE[pre])
    lw = size_query(cs, "cusolverDnIRSXgels_bufferSize", h, params, m, n, nrhs)
    work = dzeros(max(1, lw), np.uint8)
    cs.call("cusolverDnIRSXgels", h, params, infos, m, n, nrhs, da, m, db, m, dx, n, work, lw,
            ctypes.byref(it), info)
    H.sync()
    assert info[0] == 0
    H.close(unflat(dx, n, nrhs), np.linalg.lstsq(a, b, rcond=None)[0], pre, m)
    for entry in ("cusolverDnIRSInfosGetNiters", "cusolverDnIRSInfosGetOuterNiters"):
        got.value = 99
        cs.call(entry, infos, ctypes.byref(got))
        assert got.value == it.value
    cs.call("cusolverDnIRSInfosGetMaxIters", infos, ctypes.byref(got))
    assert got.value == 17
    # no refinement runs, so no residual history: refused, not invented
    assert cs.raw("cusolverDnIRSInfosRequestResidual", infos) == ST_NOT_SUPPORTED
    hist = ctypes.c_void_p()
    assert cs.raw("cusolverDnIRSInfosGetResidualHistory", infos,
                  ctypes.byref(hist)) == ST_NOT_SUPPORTED
    cs.call("cusolverDnIRSInfosDestroy", infos)
    cs.call("cusolverDnIRSParamsDestroy", params)
    # destroyed objects are recognised, not read
    assert cs.raw("cusolverDnIRSParamsDestroy", params) == ST_INVALID_VALUE
    assert cs.raw("cusolverDnIRSInfosDestroy", infos) == ST_INVALID_VALUE
    cs.ok("cusolverDnIRSXgesv", "cusolverDnIRSXgels", "cusolverDnIRSXgesv_bufferSize",
          "cusolverDnIRSXgels_bufferSize", "cusolverDnIRSParamsCreate",
          "cusolverDnIRSInfosCreate", "cusolverDnIRSInfosRequestResidual",
          "cusolverDnIRSInfosGetResidualHistory")


ORG = {"s": "or", "d": "or", "c": "un", "z": "un"}
TRD = {"s": "sytrd", "d": "sytrd", "c": "hetrd", "z": "hetrd"}


def lwork(cs, entry: str, *args) -> int:
    lw = ctypes.c_int(-1)
    cs.call(entry, *args, ctypes.byref(lw))
    assert lw.value >= 0
    cs.ok(entry)
    return lw.value


@pytest.mark.parametrize("pre", ["s", "d", "c", "z"])
def test_gebrd_orgbr(cs, h, rng, pre) -> None:
    P = pre.upper()
    m, n = 8, 5
    a = H.rand(rng, pre, m * n).reshape(m, n)
    buf = fort(a)
    rt = H.RTYPE[pre]
    d, e = np.zeros(n, rt), np.zeros(n - 1, rt)
    tauq, taup = np.zeros(n, H.DTYPE[pre]), np.zeros(n, H.DTYPE[pre])
    lw = lwork(cs, f"cusolverDn{P}gebrd_bufferSize", h, m, n)
    work = np.zeros(max(1, lw), H.DTYPE[pre])
    info = H.device_array(np.full(1, -7, np.int32))
    cs.call(f"cusolverDn{P}gebrd", h, m, n, buf, m, d, e, tauq, taup, work, lw, info)
    H.sync()
    assert info[0] == 0
    # the bidiagonal has A's singular values
    bd = np.diag(d) + np.diag(e, 1)
    H.close(np.linalg.svd(bd, compute_uv=False), np.linalg.svd(a, compute_uv=False), pre, m)
    # Q (m x n) from the left reflectors, P**T (n x n) from the right ones: A = Q B P**T
    org = f"cusolverDn{P}{ORG[pre]}gbr"
    q = buf.copy()
    lw = lwork(cs, org + "_bufferSize", h, 0, m, n, n, q, m, tauq)
    work = np.zeros(max(1, lw), H.DTYPE[pre])
    cs.call(org, h, 0, m, n, n, q, m, tauq, work, lw, info)
    H.sync()
    assert info[0] == 0
    pt = fort(unflat(buf, n, n, m).copy())
    lw = lwork(cs, org + "_bufferSize", h, 1, n, n, m, pt, n, taup)
    work = np.zeros(max(1, lw), H.DTYPE[pre])
    cs.call(org, h, 1, n, n, m, pt, n, taup, work, lw, info)
    H.sync()
    assert info[0] == 0
    H.close(unflat(q, m, n) @ bd @ unflat(pt, n, n), a, pre, m)
    cs.ok(f"cusolverDn{P}gebrd", org)


@pytest.mark.parametrize("pre", ["s", "d", "c", "z"])
def test_sytrd_orgtr_ormtr(cs, h, rng, pre) -> None:
    P = pre.upper()
    n = 7
    a = H.sym(H.rand(rng, pre, n * n).reshape(n, n), "L", herm=pre in "cz")
    rt = H.RTYPE[pre]
    for uplo in (LOWER, UPPER):
        buf = fort(a)
        d, e, tau = np.zeros(n, rt), np.zeros(n - 1, rt), np.zeros(n - 1, H.DTYPE[pre])
        trd = f"cusolverDn{P}{TRD[pre]}"
        lw = lwork(cs, trd + "_bufferSize", h, uplo, n, buf, n, d, e, tau)
        work = np.zeros(max(1, lw), H.DTYPE[pre])
        info = H.device_array(np.full(1, -7, np.int32))
        cs.call(trd, h, uplo, n, buf, n, d, e, tau, work, lw, info)
        H.sync()
        assert info[0] == 0
        t = np.diag(d) + np.diag(e, 1) + np.diag(e, -1)
        H.close(np.linalg.eigvalsh(t), np.linalg.eigvalsh(a), pre, n)
        # C := Q**H * A * Q through ormtr twice gives T back
        orm = f"cusolverDn{P}{ORG[pre]}mtr"
        c = fort(a.astype(H.DTYPE[pre]))
        conj = 2 if pre in "cz" else 1
        lw = lwork(cs, orm + "_bufferSize", h, 0, uplo, conj, n, n, buf, n, tau, c, n)
        work = np.zeros(max(1, lw), H.DTYPE[pre])
        cs.call(orm, h, 0, uplo, conj, n, n, buf, n, tau, c, n, work, lw, info)
        H.sync()
        cs.call(orm, h, 1, uplo, 0, n, n, buf, n, tau, c, n, work, lw, info)
        H.sync()
        assert info[0] == 0
        H.close(unflat(c, n, n), t, pre, n)
        # Q explicitly: A = Q T Q**H
        org = f"cusolverDn{P}{ORG[pre]}gtr"
        q = buf.copy()
        lw = lwork(cs, org + "_bufferSize", h, uplo, n, q, n, tau)
        work = np.zeros(max(1, lw), H.DTYPE[pre])
        cs.call(org, h, uplo, n, q, n, tau, work, lw, info)
        H.sync()
        assert info[0] == 0
        qm = unflat(q, n, n)
        H.close(qm @ t @ qm.conj().T, a, pre, n)
        cs.ok(trd, orm, org)


@pytest.mark.parametrize("pre", ["s", "d", "c", "z"])
def test_lauum(cs, h, rng, pre) -> None:
    P = pre.upper()
    n = 6
    a = H.rand(rng, pre, n * n).reshape(n, n)
    # a Cholesky factor's diagonal is real, and LAPACK's lauum reads only its real part
    np.fill_diagonal(a, np.abs(np.diag(a)) + 1)
    for uplo, part in ((LOWER, np.tril), (UPPER, np.triu)):
        buf = fort(a)
        lw = lwork(cs, f"cusolverDn{P}lauum_bufferSize", h, uplo, n, buf, n)
        work = np.zeros(max(1, lw), H.DTYPE[pre])
        info = H.device_array(np.full(1, -7, np.int32))
        cs.call(f"cusolverDn{P}lauum", h, uplo, n, buf, n, work, lw, info)
        H.sync()
        assert info[0] == 0
        t = part(a)
        want = t.conj().T @ t if uplo == LOWER else t @ t.conj().T
        H.close(part(unflat(buf, n, n)), part(want), pre, n)
        cs.ok(f"cusolverDn{P}lauum")


EVJ = {"s": "syevj", "d": "syevj", "c": "heevj", "z": "heevj"}


@pytest.mark.parametrize("pre", ["s", "d", "c", "z"])
def test_jacobi_batched(cs, h, rng, pre) -> None:
    P = pre.upper()
    n, lda, batch = 5, 6, 3
    mats = [H.sym(H.rand(rng, pre, n * n).reshape(n, n), "L", herm=pre in "cz")
            for _ in range(batch)]
    info_obj = ctypes.c_void_p()
    cs.call("cusolverDnCreateSyevjInfo", ctypes.byref(info_obj))
    cs.call("cusolverDnXsyevjSetTolerance", info_obj, ctypes.c_double(H.TOL[pre] * 1e-2))
    cs.call("cusolverDnXsyevjSetSortEig", info_obj, 1)
    for uplo in (LOWER, UPPER):
        buf = np.concatenate([fort(a, lda) for a in mats])
        w = np.zeros(n * batch, H.RTYPE[pre])
        name = f"cusolverDn{P}{EVJ[pre]}Batched"
        lw = ctypes.c_int(-1)
        cs.call(name + "_bufferSize", h, 1, uplo, n, buf, lda, w, ctypes.byref(lw), info_obj,
                batch)
        work = dzeros(max(1, lw.value), H.DTYPE[pre])
        info = H.device_array(np.full(batch, -7, np.int32))
        cs.call(name, h, 1, uplo, n, buf, lda, w, work, lw.value, info, info_obj, batch)
        H.sync()
        assert list(info) == [0] * batch
        for b, a in enumerate(mats):
            wb = w[b * n:(b + 1) * n]
            H.close(wb, np.linalg.eigvalsh(a), pre, n)
            v = unflat(buf[b * lda * n:], n, n, lda)
            H.close(a @ v, v * wb, pre, n)
        cs.ok(name, name + "_bufferSize")
    cs.call("cusolverDnDestroySyevjInfo", info_obj)


def test_batched_pointer_arrays_read_in_stream_order(rng) -> None:
    """cuBLAS's batched getrf/getri take device arrays of matrix pointers that the program
    may still be computing on the stream (CuPy's inv() fills them with a kernel just
    before): the CPU device reads them only once the stream's earlier work is done."""
    import time

    cb, _ = H.load()
    hip = ctypes.CDLL("libamdhip64.so.7")
    h, stream = ctypes.c_void_p(), ctypes.c_void_p()
    cb.call("cublasCreate", ctypes.byref(h))
    assert hip.hipStreamCreate(ctypes.byref(stream)) == 0
    cb.call("cublasSetStream", h, stream)
    n, batch = 4, 3
    mats = [well_conditioned(rng, "d", n, n) for _ in range(batch)]
    bufs = [fort(a) for a in mats]
    invs = [dzeros(n * n, np.float64) for _ in range(batch)]
    a_ptrs, c_ptrs = dzeros(batch, np.uint64), dzeros(batch, np.uint64)

    @ctypes.CFUNCTYPE(None, ctypes.c_void_p)
    def fill_a(_user):  # late, on the stream: the arrays are zeros until it has run
        time.sleep(0.2)
        a_ptrs[:] = [b.ctypes.data for b in bufs]

    @ctypes.CFUNCTYPE(None, ctypes.c_void_p)
    def fill_c(_user):
        time.sleep(0.2)
        c_ptrs[:] = [c.ctypes.data for c in invs]

    piv = dzeros(n * batch, np.int32)
    info = H.device_array(np.full(batch, -7, np.int32))
    assert hip.hipLaunchHostFunc(stream, fill_a, None) == 0
    cb.call("cublasDgetrfBatched", h, n, a_ptrs, n, piv, info, batch)
    assert hip.hipLaunchHostFunc(stream, fill_c, None) == 0
    cb.call("cublasDgetriBatched", h, n, a_ptrs, n, piv, c_ptrs, n, info, batch)
    assert hip.hipStreamSynchronize(stream) == 0
    assert list(info) == [0] * batch
    for a, inv in zip(mats, invs, strict=True):
        H.close(unflat(inv, n, n), np.linalg.inv(a), "d", n)
    cb.call("cublasDestroy", h)
    hip.hipStreamDestroy(stream)


@pytest.mark.parametrize("pre", ["s", "d", "c", "z"])
def test_jacobi_svd(cs, h, rng, pre) -> None:
    P = pre.upper()
    info_obj = ctypes.c_void_p()
    cs.call("cusolverDnCreateGesvdjInfo", ctypes.byref(info_obj))
    cs.call("cusolverDnXgesvdjSetTolerance", info_obj, ctypes.c_double(H.TOL[pre] * 1e-2))
    cs.call("cusolverDnXgesvdjSetMaxSweeps", info_obj, 80)
    cs.call("cusolverDnXgesvdjSetSortEig", info_obj, 1)
    rt = H.RTYPE[pre]
    for m, n in ((7, 4), (3, 5)):
        a = H.rand(rng, pre, m * n).reshape(m, n)
        k = min(m, n)
        for econ in (0, 1):
            ucols, vcols = (k, k) if econ else (m, n)
            buf, s = fort(a), np.zeros(k, rt)
            u, v = dzeros(m * ucols, H.DTYPE[pre]), dzeros(n * vcols, H.DTYPE[pre])
            lw = ctypes.c_int(-1)
            cs.call(f"cusolverDn{P}gesvdj_bufferSize", h, 1, econ, m, n, buf, m, s, u, m, v, n,
                    ctypes.byref(lw), info_obj)
            work = dzeros(max(1, lw.value), H.DTYPE[pre])
            info = H.device_array(np.full(1, -7, np.int32))
            cs.call(f"cusolverDn{P}gesvdj", h, 1, econ, m, n, buf, m, s, u, m, v, n, work,
                    lw.value, info, info_obj)
            H.sync()
            assert info[0] == 0
            H.close(s, np.linalg.svd(a, compute_uv=False), pre, m)
            um, vm = unflat(u, m, ucols)[:, :k], unflat(v, n, vcols)[:, :k]
            # cuSOLVER returns V itself (rocSOLVER returns V**H): A = U S V**H
            H.close(um * s @ vm.conj().T, a, pre, m)
    sweeps, residual = ctypes.c_int(-1), ctypes.c_double(-1.0)
    cs.call("cusolverDnXgesvdjGetSweeps", h, info_obj, ctypes.byref(sweeps))
    cs.call("cusolverDnXgesvdjGetResidual", h, info_obj, ctypes.byref(residual))
    assert sweeps.value >= 1 and residual.value >= 0
    # batched (small matrices, full U and V)
    m, n, batch = 5, 3, 4
    mats = [H.rand(rng, pre, m * n).reshape(m, n) for _ in range(batch)]
    buf = H.device_array(np.concatenate([np.asfortranarray(x).ravel("F") for x in mats]))
    s = np.zeros(n * batch, rt)
    u, v = dzeros(m * m * batch, H.DTYPE[pre]), dzeros(n * n * batch, H.DTYPE[pre])
    lw = ctypes.c_int(-1)
    cs.call(f"cusolverDn{P}gesvdjBatched_bufferSize", h, 1, m, n, buf, m, s, u, m, v, n,
            ctypes.byref(lw), info_obj, batch)
    work = dzeros(max(1, lw.value), H.DTYPE[pre])
    info = H.device_array(np.full(batch, -7, np.int32))
    cs.call(f"cusolverDn{P}gesvdjBatched", h, 1, m, n, buf, m, s, u, m, v, n, work, lw.value,
            info, info_obj, batch)
    H.sync()
    assert list(info) == [0] * batch
    for i, x in enumerate(mats):
        si = s[i * n:(i + 1) * n]
        H.close(si, np.linalg.svd(x, compute_uv=False), pre, m)
        um = unflat(u[i * m * m:], m, m)[:, :n]
        vm = unflat(v[i * n * n:], n, n)
        H.close(um * si @ vm.conj().T, x, pre, m)
    cs.call("cusolverDnDestroyGesvdjInfo", info_obj)
    assert cs.raw("cusolverDnDestroyGesvdjInfo", info_obj) == ST_INVALID_VALUE
    cs.ok(f"cusolverDn{P}gesvdj", f"cusolverDn{P}gesvdj_bufferSize",
          f"cusolverDn{P}gesvdjBatched", f"cusolverDn{P}gesvdjBatched_bufferSize",
          "cusolverDnCreateGesvdjInfo", "cusolverDnDestroyGesvdjInfo",
          "cusolverDnXgesvdjSetTolerance", "cusolverDnXgesvdjSetMaxSweeps",
          "cusolverDnXgesvdjSetSortEig", "cusolverDnXgesvdjGetSweeps",
          "cusolverDnXgesvdjGetResidual")
