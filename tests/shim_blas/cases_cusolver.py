"""cuSOLVER dense through pyshim's libcusolver.so.12 on the CPU device, against numpy and
scipy (child process, see harness.py). Factorizations take the workspace their
_bufferSize reported, as a CUDA program does."""

from __future__ import annotations

import ctypes
import re
import sys
from pathlib import Path

import numpy as np
import pytest
import scipy.linalg as sla
import scipy.linalg.lapack as lapack

sys.path.insert(0, str(Path(__file__).parent))
import harness as H  # noqa: E402

from pyshim.tables.fetch import include_dir  # noqa: E402

PRE = ["s", "d", "c", "z"]
LOWER, UPPER = 0, 1
ST_SUCCESS, ST_NOT_INITIALIZED, ST_INVALID_VALUE = 0, 1, 3


@pytest.fixture(scope="module")
def cs() -> H.Lib:
    _, lib = H.load()
    yield lib
    H.write_coverage("cusolver", lib.exercised)


@pytest.fixture(scope="module")
def h(cs: H.Lib):
    handle = ctypes.c_void_p()
    cs.call("cusolverDnCreate", ctypes.byref(handle))
    yield handle
    cs.call("cusolverDnDestroy", handle)
    cs.ok("cusolverDnCreate", "cusolverDnDestroy")


@pytest.fixture
def rng() -> np.random.Generator:
    return np.random.default_rng(99)


def n_(pre: str, base: str) -> str:
    return f"cusolverDn{pre.upper()}{base}"


def fort(a: np.ndarray) -> np.ndarray:
    """A column-major copy in a flat buffer (the "device" matrix)."""
    return np.asfortranarray(a).ravel(order="F").copy()


def unflat(buf: np.ndarray, rows: int, cols: int, ld: int | None = None) -> np.ndarray:
    ld = ld or rows
    return buf[: ld * cols].reshape(cols, ld).T[:rows]


def lwork(cs: H.Lib, entry: str, *args) -> int:
    lw = ctypes.c_int(-1)
    cs.call(entry, *args, ctypes.byref(lw))
    assert lw.value >= 0
    cs.ok(entry)
    return lw.value


def spd(rng, pre: str, n: int) -> np.ndarray:
    a = H.rand(rng, pre, n * n).reshape(n, n)
    return (a @ a.conj().T + n * np.eye(n)).astype(H.DTYPE[pre])


@pytest.mark.parametrize("pre", PRE)
def test_getrf(cs, h, rng, pre) -> None:
    for m, n, pad in ((6, 6, 0), (7, 4, 2), (3, 5, 1)):
        a = H.rand(rng, pre, m * n).reshape(m, n)
        lda = m + pad
        buf = np.zeros(lda * n, H.DTYPE[pre])
        unflat(buf, m, n, lda)[...] = a
        lw = lwork(cs, n_(pre, "getrf_bufferSize"), h, m, n, buf, lda)
        work = np.zeros(max(1, lw), H.DTYPE[pre])
        ipiv, info = np.zeros(min(m, n), np.int32), H.device_array(np.full(1, -7, np.int32))
        cs.call(n_(pre, "getrf"), h, m, n, buf, lda, work, ipiv, info)
        lu, piv = sla.lu_factor(a)
        assert info[0] == 0
        H.close(unflat(buf, m, n, lda), lu, pre, n)
        assert np.array_equal(ipiv, piv + 1)
    # a singular matrix: devInfo names the first zero pivot (1-based), as LAPACK does
    a = H.rand(rng, pre, 16).reshape(4, 4)
    a[:, 2] = 0
    buf = fort(a)
    cs.call(n_(pre, "getrf"), h, 4, 4, buf, 4, None, ipiv, info)
    assert info[0] == 3
    cs.ok(n_(pre, "getrf"))


@pytest.mark.parametrize("pre", PRE)
def test_potrf_potri(cs, h, rng, pre) -> None:
    n = 6
    for uplo in (LOWER, UPPER):
        a = spd(rng, pre, n)
        buf = fort(a)
        lw = lwork(cs, n_(pre, "potrf_bufferSize"), h, uplo, n, buf, n)
        work = np.zeros(max(1, lw), H.DTYPE[pre])
        info = H.device_array(np.full(1, -7, np.int32))
        cs.call(n_(pre, "potrf"), h, uplo, n, buf, n, work, lw, info)
        assert info[0] == 0
        low = np.linalg.cholesky(a)
        got = unflat(buf, n, n)
        if uplo == LOWER:
            H.close(np.tril(got), low, pre, n)
        else:
            H.close(np.triu(got), low.conj().T, pre, n)
        lw = lwork(cs, n_(pre, "potri_bufferSize"), h, uplo, n, buf, n)
        work = np.zeros(max(1, lw), H.DTYPE[pre])
        cs.call(n_(pre, "potri"), h, uplo, n, buf, n, work, lw, info)
        assert info[0] == 0
        inv = np.linalg.inv(a)
        tri = np.tril if uplo == LOWER else np.triu
        H.close(tri(unflat(buf, n, n)), tri(inv), pre, n)
    # not positive definite: devInfo is the order of the failing leading minor
    a = spd(rng, pre, n)
    a[3, 3] = -50
    buf = fort(a)
    cs.call(n_(pre, "potrf"), h, LOWER, n, buf, n, None, 0, info)
    assert info[0] == 4
    cs.ok(n_(pre, "potrf"), n_(pre, "potri"))


@pytest.mark.parametrize("pre", PRE)
def test_potrf_batched(cs, h, rng, pre) -> None:
    n, batch = 5, 3
    mats = [spd(rng, pre, n) for _ in range(batch)]
    mats[1][0, 0] = -1.0  # the second one fails at its first minor
    bufs = [fort(a) for a in mats]
    info = H.device_array(np.full(batch, -7, np.int32))
    cs.call(n_(pre, "potrfBatched"), h, LOWER, n, bufs, n, info, batch)
    assert list(info) == [0, 1, 0]
    for i in (0, 2):
        H.close(np.tril(unflat(bufs[i], n, n)), np.linalg.cholesky(mats[i]), pre, n)
    cs.ok(n_(pre, "potrfBatched"))
    # solve with the two good factors (cuSOLVER's potrsBatched takes nrhs = 1)
    good = [bufs[0], bufs[2]]
    rhs = [H.rand(rng, pre, n) for _ in good]
    xs = [r.copy() for r in rhs]
    one = H.device_array(np.full(1, -7, np.int32))
    cs.call(n_(pre, "potrsBatched"), h, LOWER, n, 1, good, n, xs, n, one, 2)
    assert one[0] == 0
    for a, x, r in zip((mats[0], mats[2]), xs, rhs, strict=True):
        H.close(a @ x, r, pre, n)
    cs.ok(n_(pre, "potrsBatched"))


@pytest.mark.parametrize("pre", PRE)
def test_sytrf(cs, h, rng, pre) -> None:
    n = 7
    sytrf = getattr(lapack, f"{pre}sytrf")
    for uplo in (LOWER, UPPER):
        a = H.rand(rng, pre, n * n).reshape(n, n)
        a = a + a.T  # symmetric (complex symmetric for c/z, as ?sytrf takes)
        buf = fort(a)
        lw = lwork(cs, n_(pre, "sytrf_bufferSize"), h, n, buf, n)
        work = np.zeros(max(1, lw), H.DTYPE[pre])
        ipiv, info = np.zeros(n, np.int32), H.device_array(np.full(1, -7, np.int32))
        cs.call(n_(pre, "sytrf"), h, uplo, n, buf, n, ipiv, work, lw, info)
        ldu, piv, inf = sytrf(a, lower=int(uplo == LOWER))
        assert info[0] == inf == 0
        assert np.array_equal(ipiv, piv)
        tri = np.tril if uplo == LOWER else np.triu
        H.close(tri(unflat(buf, n, n)), tri(ldu), pre, n)
    cs.ok(n_(pre, "sytrf"))


@pytest.mark.parametrize("pre", PRE)
def test_laswp(cs, h, rng, pre) -> None:
    m, n = 6, 4
    a = H.rand(rng, pre, m * n).reshape(m, n)
    ipiv = np.array([3, 3, 5, 4, 6, 6], np.int32)
    k1, k2 = 1, 5
    buf = fort(a)
    status = cs.raw(n_(pre, "laswp"), h, n, buf, m, k1, k2, ipiv, 1)
    if status != ST_SUCCESS:
        pytest.skip(f"laswp returned {status} (CPU device backend)")
    want = a.copy()
    for i in range(k1 - 1, k2):
        p = ipiv[i] - 1
        want[[i, p]] = want[[p, i]]
    H.close(unflat(buf, m, n), want, pre)
    cs.ok(n_(pre, "laswp"))


ORG = {"s": "orgqr", "d": "orgqr", "c": "ungqr", "z": "ungqr"}
ORM = {"s": "ormqr", "d": "ormqr", "c": "unmqr", "z": "unmqr"}
EV = {"s": "syevd", "d": "syevd", "c": "heevd", "z": "heevd"}
OP_N, OP_T, OP_C = 0, 1, 2


@pytest.mark.parametrize("pre", PRE)
def test_getrs_potrs(cs, h, rng, pre) -> None:
    n, nrhs = 6, 3
    a = (H.rand(rng, pre, n * n).reshape(n, n) + n * np.eye(n)).astype(H.DTYPE[pre])
    b = H.rand(rng, pre, n * nrhs).reshape(n, nrhs)
    lu = fort(a)
    ipiv, info = np.zeros(n, np.int32), H.device_array(np.full(1, -7, np.int32))
    cs.call(n_(pre, "getrf"), h, n, n, lu, n, None, ipiv, info)
    for t, opa in ((OP_N, a), (OP_T, a.T), (OP_C, a.conj().T)):
        x = fort(b)
        info[0] = -7
        cs.call(n_(pre, "getrs"), h, t, n, nrhs, lu, n, ipiv, x, n, info)
        assert info[0] == 0
        H.close(opa @ unflat(x, n, nrhs), b, pre, n)
    s = spd(rng, pre, n)
    for uplo in (LOWER, UPPER):
        f = fort(s)
        cs.call(n_(pre, "potrf"), h, uplo, n, f, n, None, 0, info)
        x = fort(b)
        info[0] = -7
        cs.call(n_(pre, "potrs"), h, uplo, n, nrhs, f, n, x, n, info)
        assert info[0] == 0
        H.close(s @ unflat(x, n, nrhs), b, pre, n)
    cs.ok(n_(pre, "getrs"), n_(pre, "potrs"))


@pytest.mark.parametrize("pre", PRE)
def test_qr(cs, h, rng, pre) -> None:
    m, n = 8, 5
    a = H.rand(rng, pre, m * n).reshape(m, n)
    buf, tau = fort(a), np.zeros(n, H.DTYPE[pre])
    lw = lwork(cs, n_(pre, "geqrf_bufferSize"), h, m, n, buf, m)
    # the size is the shape's whatever lda says: CuPy's qr asks with lda = n < m
    assert lwork(cs, n_(pre, "geqrf_bufferSize"), h, m, n, buf, n) == lw
    work = np.zeros(max(1, lw), H.DTYPE[pre])
    info = H.device_array(np.full(1, -7, np.int32))
    cs.call(n_(pre, "geqrf"), h, m, n, buf, m, tau, work, lw, info)
    assert info[0] == 0
    qr, tau_ref, _w, _i = getattr(lapack, f"{pre}geqrf")(a)
    H.close(unflat(buf, m, n), qr, pre, n)
    H.close(tau, tau_ref, pre)
    # Q^H C through ormqr/unmqr, then Q itself through orgqr/ungqr
    c = H.rand(rng, pre, m * 3).reshape(m, 3)
    cbuf = fort(c)
    trans = OP_T if pre in "sd" else OP_C
    lw = lwork(cs, n_(pre, ORM[pre] + "_bufferSize"), h, 0, trans, m, 3, n, buf, m, tau, cbuf,
               m)
    work = np.zeros(max(1, lw), H.DTYPE[pre])
    cs.call(n_(pre, ORM[pre]), h, 0, trans, m, 3, n, buf, m, tau, cbuf, m, work, lw, info)
    assert info[0] == 0
    r_ref = np.triu(qr)[:n]
    got = unflat(cbuf, m, 3)
    # Q^H A = R: check through the factorization itself rather than Q's sign convention
    qa = fort(a)
    cs.call(n_(pre, ORM[pre]), h, 0, trans, m, n, n, buf, m, tau, qa, m, work, lw, info)
    H.close(np.triu(unflat(qa, m, n))[:n], r_ref, pre, m)
    lw = lwork(cs, n_(pre, ORG[pre] + "_bufferSize"), h, m, n, n, buf, m, tau)
    work = np.zeros(max(1, lw), H.DTYPE[pre])
    cs.call(n_(pre, ORG[pre]), h, m, n, n, buf, m, tau, work, lw, info)
    assert info[0] == 0
    q = unflat(buf, m, n)
    H.close(q.conj().T @ q, np.eye(n), pre, m)
    H.close(q @ r_ref, a, pre, m)
    H.close(q.conj().T @ c, got[:n], pre, m)
    cs.ok(n_(pre, "geqrf"), n_(pre, ORM[pre]), n_(pre, ORG[pre]))


@pytest.mark.parametrize("pre", PRE)
def test_eigen_and_svd(cs, h, rng, pre) -> None:
    n = 6
    a = H.sym(H.rand(rng, pre, n * n).reshape(n, n), "L", herm=pre in "cz")
    for uplo in (LOWER, UPPER):
        buf, w = fort(a), np.zeros(n, H.RTYPE[pre])
        lw = lwork(cs, n_(pre, EV[pre] + "_bufferSize"), h, 1, uplo, n, buf, n, w)
        work = np.zeros(max(1, lw), H.DTYPE[pre])
        info = H.device_array(np.full(1, -7, np.int32))
        cs.call(n_(pre, EV[pre]), h, 1, uplo, n, buf, n, w, work, lw, info)
        assert info[0] == 0
        H.close(w, np.linalg.eigvalsh(a), pre, n)
        v = unflat(buf, n, n)
        H.close(a @ v, v * w, pre, n)
    m, k = 7, 4
    g = H.rand(rng, pre, m * k).reshape(m, k)
    lw = lwork(cs, n_(pre, "gesvd_bufferSize"), h, m, k)
    work = np.zeros(max(1, lw), H.DTYPE[pre])
    buf, s = fort(g), np.zeros(k, H.RTYPE[pre])
    u, vt = np.zeros(m * m, H.DTYPE[pre]), np.zeros(k * k, H.DTYPE[pre])
    info = H.device_array(np.full(1, -7, np.int32))
    cs.call(n_(pre, "gesvd"), h, ord("A"), ord("A"), m, k, buf, m, s, u, m, vt, k, work, lw,
            None, info)
    assert info[0] == 0
    H.close(s, np.linalg.svd(g, compute_uv=False), pre, m)
    um, vm = unflat(u, m, m), unflat(vt, k, k)
    H.close(um[:, :k] * s @ vm, g, pre, m)
    cs.ok(n_(pre, EV[pre]), n_(pre, "gesvd"), n_(pre, "gesvd_bufferSize"))


EVJ = {"s": "syevj", "d": "syevj", "c": "heevj", "z": "heevj"}


@pytest.mark.parametrize("pre", PRE)
def test_jacobi_eigensolver(cs, h, rng, pre) -> None:
    n = 7
    info_obj = ctypes.c_void_p()
    cs.call("cusolverDnCreateSyevjInfo", ctypes.byref(info_obj))
    cs.call("cusolverDnXsyevjSetTolerance", info_obj, ctypes.c_double(H.TOL[pre] * 1e-2))
    cs.call("cusolverDnXsyevjSetMaxSweeps", info_obj, 60)
    cs.call("cusolverDnXsyevjSetSortEig", info_obj, 1)
    a = H.sym(H.rand(rng, pre, n * n).reshape(n, n), "L", herm=pre in "cz")
    for uplo in (LOWER, UPPER):
        buf, w = fort(a), np.zeros(n, H.RTYPE[pre])
        lw = ctypes.c_int(-1)
        cs.call(n_(pre, EVJ[pre] + "_bufferSize"), h, 1, uplo, n, buf, n, w, ctypes.byref(lw),
                info_obj)
        assert lw.value >= 0
        work = np.zeros(max(1, lw.value), H.DTYPE[pre])
        info = H.device_array(np.full(1, -7, np.int32))
        cs.call(n_(pre, EVJ[pre]), h, 1, uplo, n, buf, n, w, work, lw.value, info, info_obj)
        assert info[0] == 0
        H.close(w, np.linalg.eigvalsh(a), pre, n)
        v = unflat(buf, n, n)
        H.close(a @ v, v * w, pre, n)
    sweeps, residual = ctypes.c_int(-1), ctypes.c_double(-1.0)
    cs.call("cusolverDnXsyevjGetSweeps", h, info_obj, ctypes.byref(sweeps))
    cs.call("cusolverDnXsyevjGetResidual", h, info_obj, ctypes.byref(residual))
    assert 0 < sweeps.value <= 60
    assert 0 <= residual.value < 1e-2 * np.linalg.norm(a)
    assert cs.raw("cusolverDnXsyevjSetMaxSweeps", info_obj, 0) == ST_INVALID_VALUE
    cs.call("cusolverDnDestroySyevjInfo", info_obj)
    cs.ok(n_(pre, EVJ[pre]), n_(pre, EVJ[pre] + "_bufferSize"), "cusolverDnCreateSyevjInfo",
          "cusolverDnDestroySyevjInfo", "cusolverDnXsyevjSetTolerance",
          "cusolverDnXsyevjSetMaxSweeps", "cusolverDnXsyevjSetSortEig",
          "cusolverDnXsyevjGetSweeps", "cusolverDnXsyevjGetResidual")


@pytest.mark.parametrize("pre", ("s", "d"))
def test_jacobi_info_not_converged(cs, h, rng, pre) -> None:
    """cuSOLVER's Jacobi info: n+1 (syevj) or min(m,n)+1 (gesvdj) for a matrix that did not
    converge, per matrix in the batched forms, 0 for the others. A NaN matrix cannot
    converge: LAPACK under the CPU device reports a count, rocSOLVER 1; both are folded."""
    n, m = 5, 6
    good = H.sym(H.rand(rng, pre, n * n).reshape(n, n), "L")
    bad = np.full((n, n), np.nan, H.DTYPE[pre])
    lw = ctypes.c_int(-1)
    for a, want in ((good, 0), (bad, n + 1)):
        buf, w = fort(a), np.zeros(n, H.RTYPE[pre])
        cs.call(n_(pre, "syevj_bufferSize"), h, 1, LOWER, n, buf, n, w, ctypes.byref(lw), None)
        work = np.zeros(max(1, lw.value), H.DTYPE[pre])
        info = H.device_array(np.full(1, -7, np.int32))
        cs.call(n_(pre, "syevj"), h, 1, LOWER, n, buf, n, w, work, lw.value, info, None)
        assert info[0] == want
    pair = np.concatenate([fort(good), fort(bad)])
    w = np.zeros(2 * n, H.RTYPE[pre])
    cs.call(n_(pre, "syevjBatched_bufferSize"), h, 1, LOWER, n, pair, n, w, ctypes.byref(lw),
            None, 2)
    work = np.zeros(max(1, lw.value), H.DTYPE[pre])
    info = H.device_array(np.full(2, -7, np.int32))
    cs.call(n_(pre, "syevjBatched"), h, 1, LOWER, n, pair, n, w, work, lw.value, info, None, 2)
    assert list(info[:2]) == [0, n + 1]
    k = min(m, n)
    rect = H.rand(rng, pre, m * n).reshape(m, n)
    for a, want in ((rect, 0), (np.full((m, n), np.nan, H.DTYPE[pre]), k + 1)):
        buf, s_ = fort(a), np.zeros(k, H.RTYPE[pre])
        u, v = np.zeros(m * m, H.DTYPE[pre]), np.zeros(n * n, H.DTYPE[pre])
        cs.call(n_(pre, "gesvdj_bufferSize"), h, 1, 0, m, n, buf, m, s_, u, m, v, n,
                ctypes.byref(lw), None)
        work = np.zeros(max(1, lw.value), H.DTYPE[pre])
        info = H.device_array(np.full(1, -7, np.int32))
        cs.call(n_(pre, "gesvdj"), h, 1, 0, m, n, buf, m, s_, u, m, v, n, work, lw.value, info,
                None)
        assert info[0] == want
    pair = np.concatenate([fort(rect), np.full(m * n, np.nan, H.DTYPE[pre])])
    s_ = np.zeros(2 * k, H.RTYPE[pre])
    u, v = np.zeros(2 * m * m, H.DTYPE[pre]), np.zeros(2 * n * n, H.DTYPE[pre])
    cs.call(n_(pre, "gesvdjBatched_bufferSize"), h, 1, m, n, pair, m, s_, u, m, v, n,
            ctypes.byref(lw), None, 2)
    work = np.zeros(max(1, lw.value), H.DTYPE[pre])
    info = H.device_array(np.full(2, -7, np.int32))
    cs.call(n_(pre, "gesvdjBatched"), h, 1, m, n, pair, m, s_, u, m, v, n, work, lw.value, info,
            None, 2)
    assert list(info[:2]) == [0, k + 1]
    cs.ok(n_(pre, "syevj"), n_(pre, "syevjBatched"), n_(pre, "gesvdj"), n_(pre, "gesvdjBatched"))


CUDA_TYPE = {"s": 0, "d": 1, "c": 4, "z": 5}  # CUDA_R_32F, _R_64F, _C_32F, _C_64F
CUDA_REAL = {"s": 0, "d": 1, "c": 0, "z": 1}
ST_NOT_SUPPORTED = 9


def xquery(cs: H.Lib, entry: str, *args) -> np.ndarray:
    """A generic-API _bufferSize: the device workspace it asks for (no host workspace)."""
    dev, host = ctypes.c_size_t(), ctypes.c_size_t(99)
    cs.call(entry, *args, ctypes.byref(dev), ctypes.byref(host))
    assert host.value == 0
    cs.ok(entry)
    return np.zeros(max(1, dev.value), np.uint8)


CUDA_COMPLEX = {"s": 4, "d": 5, "c": 4, "z": 5}


def _lapack_vectors(vr: np.ndarray, w: np.ndarray) -> np.ndarray:
    """LAPACK's real form of complex eigenvectors: a conjugate pair (w[j].imag > 0 first)
    is stored as the real and imaginary parts in columns j and j+1."""
    v = vr.astype(np.complex128)
    j = 0
    while j < len(w):
        if w[j].imag != 0:
            v[:, j] = vr[:, j] + 1j * vr[:, j + 1]
            v[:, j + 1] = np.conj(v[:, j])
            j += 2
        else:
            j += 1
    return v


@pytest.mark.parametrize("pre", PRE)
def test_generic_geev(cs, h, rng, pre) -> None:
    """cusolverDnXgeev (CuPy's eig/eigvals): W complex, VL/VR in the matrix type, both
    sides' eigenvectors checked against A itself, eigenvalues against numpy."""
    n, dt, ct = 7, CUDA_TYPE[pre], CUDA_COMPLEX[pre]
    params = ctypes.c_void_p()
    cs.call("cusolverDnCreateParams", ctypes.byref(params))
    info = H.device_array(np.full(1, -7, np.int32))
    a = H.rand(rng, pre, n * n).reshape(n, n)  # general: complex eigenvalues for real a
    f = fort(a)
    w = np.zeros(n, np.complex64 if pre in "sc" else np.complex128)
    vl, vr = np.zeros(n * n, H.DTYPE[pre]), np.zeros(n * n, H.DTYPE[pre])
    args = (h, params, 1, 1, n, dt, f, n, ct, w, dt, vl, n, dt, vr, n, dt)
    work = xquery(cs, "cusolverDnXgeev_bufferSize", *args)
    cs.call("cusolverDnXgeev", *args, work, work.nbytes, None, 0, info)
    assert info[0] == 0
    H.close(np.sort_complex(w), np.sort_complex(np.linalg.eigvals(a)), pre, n)
    if pre in "sd":
        assert np.any(w.imag != 0), "a real matrix with no complex pair tests nothing"
        right, left = _lapack_vectors(unflat(vr, n, n), w), _lapack_vectors(unflat(vl, n, n), w)
    else:
        right, left = unflat(vr, n, n), unflat(vl, n, n)
    H.close(a @ right, right * w, pre, n)
    H.close(left.conj().T @ a, w[:, None] * left.conj().T, pre, n)
    cs.ok("cusolverDnXgeev")
    # eigenvalues only (CuPy's eigvals): VR not referenced
    f = fort(a)
    w2 = np.zeros_like(w)
    args = (h, params, 0, 0, n, dt, f, n, ct, w2, dt, None, n, dt, None, n, dt)
    work = xquery(cs, "cusolverDnXgeev_bufferSize", *args)
    cs.call("cusolverDnXgeev", *args, work, work.nbytes, None, 0, info)
    H.close(w2, w, pre, n)
    # W must be the complex type of A's precision
    dev, host = ctypes.c_size_t(), ctypes.c_size_t()
    assert cs.raw("cusolverDnXgeev_bufferSize", h, params, 0, 0, n, dt, f, n, CUDA_REAL[pre],
                  w2, dt, None,
                  n, dt, None, n, dt, ctypes.byref(dev), ctypes.byref(host)) == ST_NOT_SUPPORTED
    cs.call("cusolverDnDestroyParams", params)


@pytest.mark.parametrize("pre", PRE)
def test_generic_64bit_api(cs, h, rng, pre) -> None:
    n, nrhs, dt, rt = 6, 2, CUDA_TYPE[pre], CUDA_REAL[pre]
    params = ctypes.c_void_p()
    cs.call("cusolverDnCreateParams", ctypes.byref(params))
    cs.call("cusolverDnSetAdvOptions", params, 0, 1)  # CUSOLVERDN_GETRF, CUSOLVER_ALG_1
    info = H.device_array(np.full(1, -7, np.int32))
    s = spd(rng, pre, n)
    b = H.rand(rng, pre, n * nrhs).reshape(n, nrhs)
    f = fort(s)
    work = xquery(cs, "cusolverDnXpotrf_bufferSize", h, params, LOWER, n, dt, f, n, dt)
    cs.call("cusolverDnXpotrf", h, params, LOWER, n, dt, f, n, dt, work, work.nbytes, None, 0,
            info)
    assert info[0] == 0
    H.close(np.tril(unflat(f, n, n)), np.linalg.cholesky(s), pre, n)
    x = fort(b)
    cs.call("cusolverDnXpotrs", h, params, LOWER, n, nrhs, dt, f, n, dt, x, n, info)
    H.close(s @ unflat(x, n, nrhs), b, pre, n)
    # LU with 64-bit pivots, then solve
    a = (H.rand(rng, pre, n * n).reshape(n, n) + n * np.eye(n)).astype(H.DTYPE[pre])
    lu, ipiv = fort(a), H.device_array(np.zeros(n, np.int64))
    work = xquery(cs, "cusolverDnXgetrf_bufferSize", h, params, n, n, dt, lu, n, dt)
    cs.call("cusolverDnXgetrf", h, params, n, n, dt, lu, n, ipiv, dt, work, work.nbytes, None,
            0, info)
    ref_lu, ref_piv = sla.lu_factor(a)
    assert info[0] == 0 and np.array_equal(ipiv, ref_piv + 1)
    H.close(unflat(lu, n, n), ref_lu, pre, n)
    x = fort(b)
    info[0] = -7
    cs.call("cusolverDnXgetrs", h, params, 0, n, nrhs, dt, lu, n, ipiv, dt, x, n, info)
    assert info[0] == 0
    H.close(a @ unflat(x, n, nrhs), b, pre, n)
    # QR
    g = H.rand(rng, pre, 8 * 4).reshape(8, 4)
    q, tau = fort(g), np.zeros(4, H.DTYPE[pre])
    work = xquery(cs, "cusolverDnXgeqrf_bufferSize", h, params, 8, 4, dt, q, 8, dt, tau, dt)
    cs.call("cusolverDnXgeqrf", h, params, 8, 4, dt, q, 8, dt, tau, dt, work, work.nbytes, None,
            0, info)
    qr, tau_ref, _w, _i = getattr(lapack, f"{pre}geqrf")(g)
    H.close(unflat(q, 8, 4), qr, pre, 8)
    H.close(tau, tau_ref, pre)
    # symmetric/Hermitian eigenvalues
    e = H.sym(H.rand(rng, pre, n * n).reshape(n, n), "U", herm=pre in "cz")
    v, w = fort(e), np.zeros(n, H.RTYPE[pre])
    work = xquery(cs, "cusolverDnXsyevd_bufferSize", h, params, 1, UPPER, n, dt, v, n, rt, w, dt)
    cs.call("cusolverDnXsyevd", h, params, 1, UPPER, n, dt, v, n, rt, w, dt, work, work.nbytes,
            None, 0, info)
    assert info[0] == 0
    H.close(w, np.linalg.eigvalsh(e), pre, n)
    # SVD
    m, k = 7, 4
    g = H.rand(rng, pre, m * k).reshape(m, k)
    a2, sv = fort(g), np.zeros(k, H.RTYPE[pre])
    u, vt = np.zeros(m * m, H.DTYPE[pre]), np.zeros(k * k, H.DTYPE[pre])
    args = (h, params, ord("A"), ord("A"), m, k, dt, a2, m, rt, sv, dt, u, m, dt, vt, k, dt)
    work = xquery(cs, "cusolverDnXgesvd_bufferSize", *args)
    cs.call("cusolverDnXgesvd", *args, work, work.nbytes, None, 0, info)
    assert info[0] == 0
    H.close(sv, np.linalg.svd(g, compute_uv=False), pre, m)
    H.close(unflat(u, m, m)[:, :k] * sv @ unflat(vt, k, k), g, pre, m)
    # a type rocSOLVER has no routine for, and a mixed compute type: NOT_SUPPORTED
    dev, host = ctypes.c_size_t(), ctypes.c_size_t()
    assert cs.raw("cusolverDnXpotrf_bufferSize", h, params, LOWER, n, 2, f, n, 2,
                  ctypes.byref(dev), ctypes.byref(host)) == ST_NOT_SUPPORTED
    assert cs.raw("cusolverDnXpotrf_bufferSize", h, params, LOWER, n, dt, f, n, 14,
                  ctypes.byref(dev), ctypes.byref(host)) == ST_NOT_SUPPORTED
    assert cs.raw("cusolverDnSetAdvOptions", params, 1, 0) == ST_INVALID_VALUE
    cs.call("cusolverDnDestroyParams", params)
    # destroyed or forged: refused without reading through them (issue 19)
    for bad in (params, ctypes.c_void_p(0x1234)):
        assert cs.raw("cusolverDnSetAdvOptions", bad, 0, 0) == ST_INVALID_VALUE
        assert cs.raw("cusolverDnDestroyParams", bad) == ST_INVALID_VALUE
        assert cs.raw("cusolverDnDestroySyevjInfo", bad) == ST_INVALID_VALUE
    cs.ok("cusolverDnCreateParams", "cusolverDnSetAdvOptions", "cusolverDnDestroyParams",
          *(f"cusolverDnX{r}" for r in ("potrf", "potrs", "getrf", "getrs", "geqrf", "syevd",
                                        "gesvd")))


# queries whose computation the tables do not map yet: checked to answer, and in
# proportion to the problem (a larger problem never needs less workspace)
QUERIES = {
    "geqrf_bufferSize": lambda h, n, a: (h, n, n, a, n),
    "syevd_bufferSize": lambda h, n, a: (h, 1, LOWER, n, a, n, a),
    "heevd_bufferSize": lambda h, n, a: (h, 1, LOWER, n, a, n, a),
}


@pytest.mark.parametrize("pre", PRE)
def test_buffer_size_queries(cs, h, rng, pre) -> None:
    for base, args in QUERIES.items():
        if (base.startswith("sy") and pre in "cz") or (base.startswith("he") and pre in "sd"):
            continue
        entry = n_(pre, base)
        small = np.zeros(16, H.DTYPE[pre])
        big = np.zeros(64 * 64, H.DTYPE[pre])
        lw_small = lwork(cs, entry, *args(h, 4, small))
        lw_big = lwork(cs, entry, *args(h, 64, big))
        assert lw_big >= lw_small


def test_handle_stream_math_mode(cs, h) -> None:
    hip = ctypes.CDLL("libamdhip64.so.7")
    stream = ctypes.c_void_p()
    assert hip.hipStreamCreate(ctypes.byref(stream)) == 0
    got = ctypes.c_void_p()
    cs.call("cusolverDnSetStream", h, stream)
    cs.call("cusolverDnGetStream", h, ctypes.byref(got))
    assert got.value == stream.value
    cs.call("cusolverDnSetStream", h, None)
    hip.hipStreamDestroy(stream)
    mode = ctypes.c_int(-1)
    cs.call("cusolverDnGetMathMode", h, ctypes.byref(mode))
    assert mode.value == 1  # CUSOLVER_DEFAULT_MATH
    cs.call("cusolverDnSetMathMode", h, 2)
    cs.call("cusolverDnGetMathMode", h, ctypes.byref(mode))
    assert mode.value == 2
    assert cs.raw("cusolverDnSetMathMode", h, 77) == ST_INVALID_VALUE
    cs.call("cusolverDnSetMathMode", h, 1)
    assert cs.raw("cusolverDnSetStream", None, None) == ST_NOT_INITIALIZED
    assert cs.raw("cusolverDnSpotrf_bufferSize", None, 0, 4, None, 4,
                  ctypes.byref(mode)) == ST_NOT_INITIALIZED
    cs.ok("cusolverDnSetStream", "cusolverDnGetStream", "cusolverDnSetMathMode",
          "cusolverDnGetMathMode")


def test_versions(cs) -> None:
    common = (include_dir("cusolver12") / "cusolver_common.h").read_text()
    want = {k: int(re.search(rf"#define\s+CUSOLVER_VER_{k}\s+(\d+)", common).group(1))
            for k in ("MAJOR", "MINOR", "PATCH")}
    v = ctypes.c_int()
    for prop, key in ((0, "MAJOR"), (1, "MINOR"), (2, "PATCH")):
        cs.call("cusolverGetProperty", prop, ctypes.byref(v))
        assert v.value == want[key]
    cs.call("cusolverGetVersion", ctypes.byref(v))
    assert v.value == want["MAJOR"] * 1000 + want["MINOR"] * 100 + want["PATCH"]
    cs.ok("cusolverGetProperty", "cusolverGetVersion")


def test_bad_sizes(cs, h) -> None:
    info = np.zeros(1, np.int32)
    a = np.zeros(16, np.float32)
    st = cs.raw("cusolverDnSpotrf", h, LOWER, -1, a, 4, None, 0, info)
    assert st != ST_SUCCESS
    st = cs.raw("cusolverDnSgetrf", h, 4, 4, a, 2, None, np.zeros(4, np.int32), info)
    assert st != ST_SUCCESS
