"""rocSOLVER on the CPU device (librocsolver.so.0) against numpy/scipy."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).parent / "cpu_blas"))
import harness as H  # noqa: E402
from harness import FILL, OP, E, S  # noqa: E402


@pytest.fixture(scope="module")
def rb() -> H.Rb:
    return H.Rb(H.build_libs())


def F(a):
    return np.asfortranarray(a).ravel(order="F").copy()


def M(buf, m, n, ld=None):
    return H.mat_from(buf, m, n, ld or m)


@pytest.mark.parametrize("pre", "sdcz")
def test_lu_cholesky_inverse(rb, pre):
    rng = np.random.default_rng(0)
    n, nrhs = 6, 2
    a = (H.rand(rng, pre, (n, n)) + 3 * np.eye(n)).astype(H.DTYPE[pre])
    b = H.rand(rng, pre, (n, nrhs))
    A, B = F(a), F(b)
    ipiv, info = np.zeros(n, np.int32), np.array([-1], np.int32)
    assert rb.call(f"rocsolver_{pre}getrf", n, n, A, n, ipiv, info) == 0
    assert info[0] == 0 and ipiv.min() >= 1  # 1-based pivots
    for t in "NTC":
        X = B.copy()
        assert rb.call(f"rocsolver_{pre}getrs", E(OP[t]), n, nrhs, A, n, ipiv, X, n) == 0
        assert H.close(pre, H.op(a, t) @ M(X, n, nrhs), b, scale=50)
    assert rb.call(f"rocsolver_{pre}getri", n, A, n, ipiv, info) == 0
    assert H.close(pre, M(A, n, n) @ a, np.eye(n), scale=50)
    # no pivoting
    A2 = F(a)
    assert rb.call(f"rocsolver_{pre}getrf_npvt", n, n, A2, n, info) == 0 and info[0] == 0
    lu = M(A2, n, n)
    assert H.close(pre, (np.tril(lu, -1) + np.eye(n)) @ np.triu(lu), a, scale=50)
    # Cholesky of a Hermitian positive definite matrix
    spd = (a @ a.conj().T + n * np.eye(n)).astype(H.DTYPE[pre])
    for uplo in "UL":
        C = F(spd)
        assert rb.call(f"rocsolver_{pre}potrf", E(FILL[uplo]), n, C, n, info) == 0
        assert info[0] == 0
        X = B.copy()
        assert rb.call(f"rocsolver_{pre}potrs", E(FILL[uplo]), n, nrhs, C, n, X, n) == 0
        assert H.close(pre, spd @ M(X, n, nrhs), b, scale=100)
        assert rb.call(f"rocsolver_{pre}potri", E(FILL[uplo]), n, C, n, info) == 0
        inv = np.linalg.inv(spd)
        sel = np.triu if uplo == "U" else np.tril
        assert H.close(pre, sel(M(C, n, n)), sel(inv), scale=100)
    # a singular matrix reports the zero pivot through info
    z = np.zeros((3, 3), H.DTYPE[pre])
    assert rb.call(f"rocsolver_{pre}potrf", E(FILL["U"]), 3, F(z), 3, info) == 0 and info[0] == 1


@pytest.mark.parametrize("pre", "sdcz")
def test_qr_svd_eig_gels(rb, pre):
    rng = np.random.default_rng(1)
    m, n = 7, 4
    a = H.rand(rng, pre, (m, n))
    A, tau = F(a), np.zeros(n, H.DTYPE[pre])
    assert rb.call(f"rocsolver_{pre}geqrf", m, n, A, m, tau) == 0
    R = np.triu(M(A, m, n)[:n])
    Cm = H.rand(rng, pre, (m, 2))
    Cb = F(Cm)
    orm = "ormqr" if pre in "sd" else "unmqr"
    tc = "T" if pre in "sd" else "C"
    assert rb.call(f"rocsolver_{pre}{orm}", E(141), E(OP[tc]), m, 2, n, A, m, tau, Cb, m) == 0
    org = "orgqr" if pre in "sd" else "ungqr"
    assert rb.call(f"rocsolver_{pre}{org}", m, n, n, A, m, tau) == 0
    Q = M(A, m, n)
    assert H.close(pre, Q @ R, a, scale=10)
    assert H.close(pre, M(Cb, m, 2)[:n], Q.conj().T @ Cm, scale=10)
    # SVD
    A = F(a)
    s = np.zeros(n, H.RTYPE[pre])
    e = np.zeros(n, H.RTYPE[pre])
    U, V = np.zeros(m * m, H.DTYPE[pre]), np.zeros(n * n, H.DTYPE[pre])
    info = np.array([-1], np.int32)
    assert rb.call(f"rocsolver_{pre}gesvd", E(191), E(191), m, n, A, m, s, U, m, V, n, e,
                   E(201), info) == 0
    assert info[0] == 0
    assert H.close(pre, s, np.linalg.svd(a, compute_uv=False), scale=10)
    Um, Vm = M(U, m, m), M(V, n, n)
    assert H.close(pre, Um[:, :n] @ np.diag(s) @ Vm, a, scale=10)
    # symmetric / Hermitian eigenvalues
    herm = (a.conj().T @ a).astype(H.DTYPE[pre])
    names = ["syev", "syevd"] if pre in "sd" else ["heev", "heevd"]
    for nm in names:
        Ab = F(herm)
        d, e2 = np.zeros(n, H.RTYPE[pre]), np.zeros(n, H.RTYPE[pre])
        assert rb.call(f"rocsolver_{pre}{nm}", E(211), E(FILL["L"]), n, Ab, n, d, e2, info) == 0
        assert info[0] == 0
        assert H.close(pre, d, np.linalg.eigvalsh(herm), scale=10)
        vecs = M(Ab, n, n)
        assert H.close(pre, herm @ vecs, vecs * d, scale=10)
    # least squares
    b = H.rand(rng, pre, (m, 1))
    A, B = F(a), F(b)
    assert rb.call(f"rocsolver_{pre}gels", E(OP["N"]), m, n, 1, A, m, B, m, info) == 0
    want = np.linalg.lstsq(a, b, rcond=None)[0]
    assert H.close(pre, B[:n], want.ravel(), scale=10)
    # symmetric indefinite
    sym = (a.T @ a - 2 * np.eye(n)).astype(H.DTYPE[pre])
    Ab, ipiv = F(sym), np.zeros(n, np.int32)
    assert rb.call(f"rocsolver_{pre}sytrf", E(FILL["U"]), n, Ab, n, ipiv, info) == 0
    assert info[0] == 0 and np.all(ipiv != 0)


@pytest.mark.parametrize("form", "BS")
def test_batched_getrf_getrs_potrf(rb, form):
    rng = np.random.default_rng(2)
    n, batch = 5, 3
    mats = [rng.standard_normal((n, n)) + 3 * np.eye(n) for _ in range(batch)]
    A = H.Operand.make(form, [F(x) for x in mats])
    ipiv = np.zeros(n * batch, np.int32)
    info = np.full(batch, -1, np.int32)
    sfx = "_batched" if form == "B" else "_strided_batched"
    assert rb.call(f"rocsolver_dgetrf{sfx}", n, n, *A.args(n), ipiv, S(n), info, batch) == 0
    assert np.all(info == 0)
    rhs = [rng.standard_normal(n) for _ in range(batch)]
    B = H.Operand.make(form, rhs)
    assert rb.call(f"rocsolver_dgetrs{sfx}", E(OP["N"]), n, 1, *A.args(n), ipiv, S(n),
                   *B.args(n), batch) == 0
    for i in range(batch):
        assert np.allclose(mats[i] @ B.bufs[i], rhs[i])
    spd = [x @ x.T + n * np.eye(n) for x in mats]
    C = H.Operand.make(form, [F(x) for x in spd])
    assert rb.call(f"rocsolver_dpotrf{sfx}", E(FILL["L"]), n, *C.args(n), info, batch) == 0
    for i in range(batch):
        L = np.tril(M(C.bufs[i], n, n))
        assert np.allclose(L @ L.T, spd[i])


def test_solver_arguments_and_size_query(rb):
    info = np.zeros(1, np.int32)
    a = np.eye(3)
    assert rb.call("rocsolver_dgetrf", 3, 3, a, 2, None, info) == H.ST_INVALID_SIZE
    assert rb.call("rocsolver_dgetrf", 3, 3, None, 3, None, info) == H.ST_INVALID_POINTER
    assert rb.call("rocsolver_dgetrf", 3, 3, a, 3, None, info, handle=None) == \
        H.ST_INVALID_HANDLE
    assert rb.call("rocsolver_dpotrf", E(0), 3, a, 3, info) == H.ST_INVALID_VALUE
    # a size query (as hipSOLVER's bufferSize does) may pass null arrays
    h = rb.new_handle()
    assert rb.blas.rocblas_start_device_memory_size_query(h) == 0
    assert rb.call("rocsolver_dgetrf", 3, 3, None, 3, None, None, handle=h) == \
        H.ST_SIZE_UNCHANGED
    size = np.array([123], np.uint64)
    assert rb.blas.rocblas_stop_device_memory_size_query(h, H.ctypes.c_void_p(size.ctypes.data)) \
        == 0
    assert size[0] == 0
    rb.blas.rocblas_destroy_handle(h)
    # a declared but unimplemented entry point refuses cleanly
    assert rb.call("rocsolver_dgeblttrf_npvt", 1, 1, a, 1, a, 1, a, 1, info) == \
        H.ST_NOT_IMPLEMENTED
