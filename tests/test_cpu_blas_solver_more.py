"""rocSOLVER reductions, generalized/selected eigenproblems and Jacobi entry points on the
CPU device, against numpy/scipy."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest
import scipy.linalg as sla

sys.path.insert(0, str(Path(__file__).parent / "cpu_blas"))
import harness as H  # noqa: E402
from harness import FILL, OP, E, S  # noqa: E402

EFORM_AX, EVECT_ORIG, ERANGE_ALL, ERANGE_VAL, ERANGE_IDX = 221, 211, 231, 232, 233
ESORT_ASC, SVECT_SINGULAR, COLUMN_WISE, ROW_WISE = 252, 192, 181, 182


@pytest.fixture(scope="module")
def rb() -> H.Rb:
    return H.Rb(H.build_libs())


def F(a):
    return np.asfortranarray(a).ravel(order="F").copy()


def M(buf, m, n, ld=None):
    return H.mat_from(buf, m, n, ld or m)


def herm(rng, pre, n, shift=0.0):
    a = H.rand(rng, pre, (n, n))
    return (a @ a.conj().T + shift * np.eye(n)).astype(H.DTYPE[pre])


@pytest.mark.parametrize("pre", "sdcz")
def test_bidiagonal_and_tridiagonal(rb, pre):
    rng = np.random.default_rng(0)
    cplx = pre in "cz"
    m, n = 6, 4
    a = H.rand(rng, pre, (m, n))
    A = F(a)
    d, e = np.zeros(n, H.RTYPE[pre]), np.zeros(n - 1, H.RTYPE[pre])
    tq, tp = np.zeros(n, H.DTYPE[pre]), np.zeros(n, H.DTYPE[pre])
    assert rb.call(f"rocsolver_{pre}gebrd", m, n, A, m, d, e, tq, tp) == 0
    Q, P = A.copy(), A.copy()
    org = "ungbr" if cplx else "orgbr"
    assert rb.call(f"rocsolver_{pre}{org}", E(COLUMN_WISE), m, n, n, Q, m, tq) == 0
    # P^H: n x n from the rows of A (ld m)
    Pb = np.zeros(n * n, H.DTYPE[pre])
    for j in range(n):
        Pb[j * n:(j + 1) * n] = P[j * m:j * m + n]
    assert rb.call(f"rocsolver_{pre}{org}", E(ROW_WISE), n, n, m, Pb, n, tp) == 0
    B = np.diag(d) + np.diag(e, 1)
    assert H.close(pre, M(Q, m, n) @ B @ M(Pb, n, n), a, scale=10)
    # tridiagonal reduction, its Q, and applying Q with ormtr
    h = herm(rng, pre, n)
    for uplo in "UL":
        Hb = F(h)
        d, e, tau = (np.zeros(n, H.RTYPE[pre]), np.zeros(n - 1, H.RTYPE[pre]),
                     np.zeros(n - 1, H.DTYPE[pre]))
        trd = "hetrd" if cplx else "sytrd"
        assert rb.call(f"rocsolver_{pre}{trd}", E(FILL[uplo]), n, Hb, n, d, e, tau) == 0
        C = H.rand(rng, pre, (n, 2))
        Cb = F(C)
        mtr = "unmtr" if cplx else "ormtr"
        assert rb.call(f"rocsolver_{pre}{mtr}", E(141), E(FILL[uplo]), E(OP["N"]), n, 2, Hb, n,
                       tau, Cb, n) == 0
        orgtr = "ungtr" if cplx else "orgtr"
        assert rb.call(f"rocsolver_{pre}{orgtr}", E(FILL[uplo]), n, Hb, n, tau) == 0
        Q = M(Hb, n, n)
        T = np.diag(d) + np.diag(e, 1) + np.diag(e, -1)
        assert H.close(pre, Q @ T @ Q.conj().T, h, scale=10)
        assert H.close(pre, M(Cb, n, 2), Q @ C, scale=10)


@pytest.mark.parametrize("pre", "sdcz")
def test_lauum_laswp_potrs_batched(rb, pre):
    rng = np.random.default_rng(1)
    n = 5
    a = H.rand(rng, pre, (n, n))
    a[np.diag_indices(n)] = np.abs(a.diagonal())  # a Cholesky factor: LAPACK reads it as real
    A = F(a)
    assert rb.call(f"rocsolver_{pre}lauum", E(FILL["U"]), n, A, n) == 0
    u = np.triu(a)
    assert H.close(pre, np.triu(M(A, n, n)), np.triu(u @ u.conj().T), scale=10)
    A = F(a)
    ipiv = np.array([3, 3, 5, 4, 5], np.int32)
    assert rb.call(f"rocsolver_{pre}laswp", n, A, n, 1, n, ipiv, 1) == 0
    want = a.copy()
    for i, p in enumerate(ipiv):
        want[[i, p - 1]] = want[[p - 1, i]]
    assert np.array_equal(M(A, n, n), want)
    spd = herm(rng, pre, n, shift=n)
    L = np.linalg.cholesky(spd)
    for form in "BS":
        batch = 2
        Ls = H.Operand.make(form, [F(L)] * batch)
        rhs = [H.rand(rng, pre, n) for _ in range(batch)]
        Bs = H.Operand.make(form, rhs)
        sfx = "_batched" if form == "B" else "_strided_batched"
        assert rb.call(f"rocsolver_{pre}potrs{sfx}", E(FILL["L"]), n, 1, *Ls.args(n),
                       *Bs.args(n), batch) == 0
        for b in range(batch):
            assert H.close(pre, spd @ Bs.bufs[b], rhs[b], scale=100)


@pytest.mark.parametrize("pre", "sdcz")
def test_generalized_and_selected_eigen(rb, pre):
    rng = np.random.default_rng(2)
    cplx = pre in "cz"
    n = 5
    a, b = herm(rng, pre, n), herm(rng, pre, n, shift=n)
    want = sla.eigh(a, b, eigvals_only=True)
    info = np.array([-1], np.int32)
    A, B = F(a), F(b)
    d, e = np.zeros(n, H.RTYPE[pre]), np.zeros(n, H.RTYPE[pre])
    gvd = "hegvd" if cplx else "sygvd"
    assert rb.call(f"rocsolver_{pre}{gvd}", E(EFORM_AX), E(EVECT_ORIG), E(FILL["U"]), n, A, n, B,
                   n, d, e, info) == 0 and info[0] == 0
    assert H.close(pre, d, want, scale=100)
    # selected eigenpairs of a: by index (2..4) and by value
    full = np.linalg.eigvalsh(a)
    R = H.RTYPE[pre]
    for rng_kind, vl, vu, il, iu, sel in ((ERANGE_IDX, 0, 0, 2, 4, full[1:4]),
                                          (ERANGE_VAL, full[0] + 1e-3, full[-1] + 1, 1, 1,
                                           full[1:]),
                                          (ERANGE_ALL, 0, 0, 1, 1, full)):
        A = F(a)
        nev = np.array([-1], np.int32)
        W, Z = np.zeros(n, R), np.zeros(n * n, H.DTYPE[pre])
        evx = "heevdx" if cplx else "syevdx"
        assert rb.call(f"rocsolver_{pre}{evx}", E(EVECT_ORIG), E(rng_kind), E(FILL["L"]), n, A,
                       n, R(vl), R(vu), il, iu, nev, W, Z, n, info) == 0
        assert info[0] == 0 and nev[0] == len(sel)
        assert H.close(pre, W[:nev[0]], sel, scale=100)
        z = M(Z, n, n)[:, :nev[0]]
        assert H.close(pre, a @ z, z * W[:nev[0]], scale=100)
    A, B = F(a), F(b)
    nev = np.array([-1], np.int32)
    W, Z = np.zeros(n, R), np.zeros(n * n, H.DTYPE[pre])
    gvx = "hegvdx" if cplx else "sygvdx"
    assert rb.call(f"rocsolver_{pre}{gvx}", E(EFORM_AX), E(EVECT_ORIG), E(ERANGE_IDX),
                   E(FILL["U"]), n, A, n, B, n, R(0), R(0), 1, 2, nev, W, Z, n, info) == 0
    assert nev[0] == 2 and H.close(pre, W[:2], want[:2], scale=100)


@pytest.mark.parametrize("pre", "sdcz")
def test_jacobi_entry_points(rb, pre):
    rng = np.random.default_rng(3)
    cplx = pre in "cz"
    R = H.RTYPE[pre]
    n = 4
    a = herm(rng, pre, n)
    info, sweeps, resid = np.array([-1], np.int32), np.array([-1], np.int32), np.array([7], R)
    A, W = F(a), np.zeros(n, R)
    evj = "heevj" if cplx else "syevj"
    assert rb.call(f"rocsolver_{pre}{evj}", E(ESORT_ASC), E(EVECT_ORIG), E(FILL["U"]), n, A, n,
                   R(1e-7), resid, 100, sweeps, W, info) == 0
    assert info[0] == 0 and resid[0] == 0 and sweeps[0] >= 0
    assert H.close(pre, W, np.linalg.eigvalsh(a), scale=100)
    for form in "BS":
        batch = 2
        As = H.Operand.make(form, [F(a)] * batch)
        Wb = np.zeros(n * batch, R)
        inf_b, sw_b, res_b = np.full(batch, -1, np.int32), np.zeros(batch, np.int32), \
            np.ones(batch, R)
        sfx = "_batched" if form == "B" else "_strided_batched"
        assert rb.call(f"rocsolver_{pre}{evj}{sfx}", E(ESORT_ASC), E(EVECT_ORIG), E(FILL["L"]),
                       n, *As.args(n), R(0), res_b, 10, sw_b, Wb, S(n), inf_b, batch) == 0
        assert np.all(inf_b == 0) and H.close(pre, Wb[n:], np.linalg.eigvalsh(a), scale=100)
    b = herm(rng, pre, n, shift=n)
    A, B, W = F(a), F(b), np.zeros(n, R)
    gvj = "hegvj" if cplx else "sygvj"
    assert rb.call(f"rocsolver_{pre}{gvj}", E(EFORM_AX), E(EVECT_ORIG), E(FILL["U"]), n, A, n,
                   B, n, R(0), resid, 10, sweeps, W, info) == 0
    assert H.close(pre, W, sla.eigh(a, b, eigvals_only=True), scale=100)
    m = 6
    g = H.rand(rng, pre, (m, n))
    A, Sv = F(g), np.zeros(n, R)
    U, V = np.zeros(m * n, H.DTYPE[pre]), np.zeros(n * n, H.DTYPE[pre])
    assert rb.call(f"rocsolver_{pre}gesvdj", E(SVECT_SINGULAR), E(SVECT_SINGULAR), m, n, A, m,
                   R(0), resid, 10, sweeps, Sv, U, m, V, n, info) == 0
    assert info[0] == 0 and H.close(pre, Sv, np.linalg.svd(g, compute_uv=False), scale=10)
    assert H.close(pre, M(U, m, n) @ np.diag(Sv) @ M(V, n, n), g, scale=10)
    As = H.Operand.make("B", [F(g), F(2 * g)])
    Sb = np.zeros(2 * n, R)
    inf_b, sw_b, res_b = np.full(2, -1, np.int32), np.zeros(2, np.int32), np.ones(2, R)
    assert rb.call(f"rocsolver_{pre}gesvdj_batched", E(194), E(194), m, n, *As.args(m), R(0),
                   res_b, 10, sw_b, Sb, S(n), None, m, S(0), None, n, S(0), inf_b, 2) == 0
    assert H.close(pre, Sb[n:], 2 * np.linalg.svd(g, compute_uv=False), scale=10)


@pytest.mark.parametrize("form", "BS")
@pytest.mark.parametrize("pre", "dz")
def test_generated_batched_forms(rb, form, pre):
    """The _batched/_strided_batched forms generated from the declarations loop the plain
    routine with per-instance pointers, strides and info entries."""
    rng = np.random.default_rng(4)
    sfx = "_batched" if form == "B" else "_strided_batched"
    m, n, batch = 6, 4, 3
    mats = [H.rand(rng, pre, (m, n)) for _ in range(batch)]
    R = H.RTYPE[pre]
    # gesvd: S strided, U/V strided, E strided, info per instance
    A = H.Operand.make(form, [F(x) for x in mats])
    Sv, Ev = np.zeros(n * batch, R), np.zeros(n * batch, R)
    info = np.full(batch, -1, np.int32)
    assert rb.call(f"rocsolver_{pre}gesvd{sfx}", E(194), E(194), m, n, *A.args(m), Sv, S(n),
                   None, 1, S(0), None, 1, S(0), Ev, S(n), E(201), info, batch) == 0
    assert np.all(info == 0)
    for b in range(batch):
        assert H.close(pre, Sv[b * n:(b + 1) * n], np.linalg.svd(mats[b], compute_uv=False),
                       scale=10)
    # geqrf then getri on square matrices
    sq = [(H.rand(rng, pre, (n, n)) + 3 * np.eye(n)).astype(H.DTYPE[pre]) for _ in range(batch)]
    A = H.Operand.make(form, [F(x) for x in sq])
    ipiv = np.zeros(n * batch, np.int32)
    assert rb.call(f"rocsolver_{pre}getrf{sfx}", n, n, *A.args(n), ipiv, S(n), info, batch) == 0
    assert rb.call(f"rocsolver_{pre}getri{sfx}", n, *A.args(n), ipiv, S(n), info, batch) == 0
    for b in range(batch):
        assert H.close(pre, M(A.bufs[b], n, n) @ sq[b], np.eye(n), scale=50)
    # a negative batch count is an invalid size, a null handle an invalid handle
    assert rb.call(f"rocsolver_{pre}getri{sfx}", n, *A.args(n), ipiv, S(n), info, -1) == \
        H.ST_INVALID_SIZE
    assert rb.call(f"rocsolver_{pre}getri{sfx}", n, *A.args(n), ipiv, S(n), info, 1,
                   handle=None) == H.ST_INVALID_HANDLE


@pytest.mark.parametrize("pre", "sdcz")
def test_lq_ql_rq_and_unblocked(rb, pre):
    rng = np.random.default_rng(5)
    cplx = pre in "cz"
    m, n = 4, 6  # wide for LQ
    a = H.rand(rng, pre, (m, n))
    for fac in ("gelqf", "gelq2"):
        A, tau = F(a), np.zeros(m, H.DTYPE[pre])
        assert rb.call(f"rocsolver_{pre}{fac}", m, n, A, m, tau) == 0
        L = np.tril(M(A, m, n)[:, :m])
        Q = np.zeros(m * n, H.DTYPE[pre])
        for j in range(n):
            Q[j * m:(j + 1) * m] = A[j * m:(j + 1) * m]
        assert rb.call(f"rocsolver_{pre}{'unglq' if cplx else 'orglq'}", m, n, m, Q, m, tau) == 0
        assert H.close(pre, L @ M(Q, m, n), a, scale=10)
        # apply Q^H to the identity's rows: ormlq from the right gives I Q^H
        C = F(np.eye(n, dtype=H.DTYPE[pre]))
        tc = "C" if cplx else "T"
        assert rb.call(f"rocsolver_{pre}{'unmlq' if cplx else 'ormlq'}", E(141), E(OP[tc]), n,
                       n, m, A, m, tau, C, n) == 0
        # C = Q_full^H (n x n); its first m columns are Q^H (Q is the m x n orglq result)
        assert H.close(pre, M(C, n, n)[:, :m], M(Q, m, n).conj().T, scale=10)
    t = H.rand(rng, pre, (n, m))  # tall for QL / QR-unblocked
    for fac, org in (("geqlf", "orgql"), ("geql2", "org2l"), ("geqr2", "org2r")):
        A, tau = F(t), np.zeros(m, H.DTYPE[pre])
        assert rb.call(f"rocsolver_{pre}{fac}", n, m, A, n, tau) == 0
        R_ = M(A, n, m)
        Q = A.copy()
        orgn = org.replace("org", "ung") if cplx else org
        assert rb.call(f"rocsolver_{pre}{orgn}", n, m, m, Q, n, tau) == 0
        Qm = M(Q, n, m)
        if "ql" in fac or fac == "geql2":
            Lw = np.tril(R_[n - m:, :])
            assert H.close(pre, Qm @ Lw, t, scale=10)
        else:
            assert H.close(pre, Qm @ np.triu(R_[:m]), t, scale=10)
        assert H.close(pre, Qm.conj().T @ Qm, np.eye(m), scale=10)
    A, tau = F(a), np.zeros(m, H.DTYPE[pre])
    assert rb.call(f"rocsolver_{pre}gerqf", m, n, A, m, tau) == 0
    # unblocked LU / Cholesky forward to the blocked ones
    sq = (H.rand(rng, pre, (m, m)) + 3 * np.eye(m)).astype(H.DTYPE[pre])
    A1, A2 = F(sq), F(sq)
    p1, p2, info = np.zeros(m, np.int32), np.zeros(m, np.int32), np.zeros(1, np.int32)
    assert rb.call(f"rocsolver_{pre}getf2", m, m, A1, m, p1, info) == 0
    assert rb.call(f"rocsolver_{pre}getrf", m, m, A2, m, p2, info) == 0
    assert np.array_equal(p1, p2) and H.close(pre, A1, A2)


def test_solver_aux_api(rb):
    import ctypes

    s = rb.solver
    h = ctypes.c_void_p()
    assert s.rocsolver_create_handle(ctypes.byref(h)) == 0
    assert s.rocsolver_set_stream(h, ctypes.c_void_p(0x10)) == 0
    st = ctypes.c_void_p()
    assert s.rocsolver_get_stream(h, ctypes.byref(st)) == 0 and st.value == 0x10
    mode = ctypes.c_int(0)
    assert s.rocsolver_get_alg_mode(h, 402, ctypes.byref(mode)) == 0 and mode.value == 291
    assert s.rocsolver_set_alg_mode(h, 402, 292) == 0
    assert s.rocsolver_get_alg_mode(h, 402, ctypes.byref(mode)) == 0 and mode.value == 292
    assert s.rocsolver_set_alg_mode(h, 999, 292) == H.ST_INVALID_VALUE
    n = ctypes.c_size_t()
    assert s.rocsolver_get_version_string_size(ctypes.byref(n)) == 0
    buf = ctypes.create_string_buffer(n.value)
    assert s.rocsolver_get_version_string(buf, ctypes.c_size_t(n.value)) == 0
    assert buf.value.count(b".") >= 2
    assert s.rocsolver_log_begin() == 0 and s.rocsolver_log_end() == 0
    assert s.rocsolver_destroy_handle(h) == 0


@pytest.mark.parametrize("pre", "sdcz")
def test_more_drivers(rb, pre):
    rng = np.random.default_rng(6)
    cplx = pre in "cz"
    R = H.RTYPE[pre]
    n = 5
    a = (H.rand(rng, pre, (n, n)) + 3 * np.eye(n)).astype(H.DTYPE[pre])
    b = H.rand(rng, pre, (n, 2))
    info = np.array([-1], np.int32)
    A, B, ipiv = F(a), F(b), np.zeros(n, np.int32)
    assert rb.call(f"rocsolver_{pre}gesv", n, 2, A, n, ipiv, B, n, info) == 0 and info[0] == 0
    assert H.close(pre, a @ M(B, n, 2), b, scale=50)
    C = np.zeros(n * n, H.DTYPE[pre])
    assert rb.call(f"rocsolver_{pre}getri_outofplace", n, A, n, ipiv, C, n, info) == 0
    assert H.close(pre, M(C, n, n) @ a, np.eye(n), scale=50)
    A = F(a)
    assert rb.call(f"rocsolver_{pre}getrf_npvt", n, n, A, n, info) == 0
    assert rb.call(f"rocsolver_{pre}getri_npvt", n, A, n, info) == 0 and info[0] == 0
    assert H.close(pre, M(A, n, n) @ a, np.eye(n), scale=50)
    spd = herm(rng, pre, n, shift=n)
    A, B = F(spd), F(b)
    assert rb.call(f"rocsolver_{pre}posv", E(FILL["L"]), n, 2, A, n, B, n, info) == 0
    assert H.close(pre, spd @ M(B, n, 2), b, scale=50)
    T = F(np.triu(a))
    assert rb.call(f"rocsolver_{pre}trtri", E(FILL["U"]), E(131), n, T, n, info) == 0
    assert H.close(pre, np.triu(M(T, n, n)) @ np.triu(a), np.eye(n), scale=50)
    # generalized: reduce with sygst, solve with sygv, Jacobi-D&C wrappers
    h = herm(rng, pre, n)
    want = sla.eigh(h, spd, eigvals_only=True)
    A, Bm = F(h), F(spd)
    d, e = np.zeros(n, R), np.zeros(n, R)
    gv = "hegv" if cplx else "sygv"
    assert rb.call(f"rocsolver_{pre}{gv}", E(EFORM_AX), E(EVECT_ORIG), E(FILL["U"]), n, A, n,
                   Bm, n, d, e, info) == 0
    assert H.close(pre, d, want, scale=100)
    A, Bm = F(h), F(spd)
    gvdj = "hegvdj" if cplx else "sygvdj"
    assert rb.call(f"rocsolver_{pre}{gvdj}", E(EFORM_AX), E(213), E(FILL["L"]), n, A, n, Bm, n,
                   d, info) == 0
    assert H.close(pre, d, want, scale=100)
    Bc = F(spd)
    assert rb.call(f"rocsolver_{pre}potrf", E(FILL["U"]), n, Bc, n, info) == 0
    A = F(h)
    gst = "hegst" if cplx else "sygst"
    assert rb.call(f"rocsolver_{pre}{gst}", E(EFORM_AX), E(FILL["U"]), n, A, n, Bc, n) == 0
    red = M(A, n, n)
    red = np.triu(red) + np.triu(red, 1).conj().T
    assert H.close(pre, np.linalg.eigvalsh(red), want, scale=100)
    # syevx with abstol and ifail
    A = F(h)
    nev, W, Z = np.array([-1], np.int32), np.zeros(n, R), np.zeros(n * n, H.DTYPE[pre])
    ifail = np.full(n, -1, np.int32)
    evx = "heevx" if cplx else "syevx"
    assert rb.call(f"rocsolver_{pre}{evx}", E(EVECT_ORIG), E(ERANGE_IDX), E(FILL["U"]), n, A, n,
                   R(0), R(0), 2, 3, R(0), nev, W, Z, n, ifail, info) == 0
    assert nev[0] == 2 and info[0] == 0 and np.all(ifail[:2] == 0)
    assert H.close(pre, W[:2], np.linalg.eigvalsh(h)[1:3], scale=100)
    # gesdd and gesvdx
    m = 7
    g = H.rand(rng, pre, (m, n))
    sv = np.linalg.svd(g, compute_uv=False)
    A, Sv = F(g), np.zeros(n, R)
    assert rb.call(f"rocsolver_{pre}gesdd", E(194), E(194), m, n, A, m, Sv, None, 1, None, 1,
                   info) == 0
    assert H.close(pre, Sv, sv, scale=10)
    A, Sv = F(g), np.zeros(n, R)
    nsv, ifl = np.array([-1], np.int32), np.zeros(n, np.int32)
    U, Vt = np.zeros(m * n, H.DTYPE[pre]), np.zeros(n * n, H.DTYPE[pre])
    assert rb.call(f"rocsolver_{pre}gesvdx", E(192), E(192), E(263), m, n, A, m, R(0), R(0), 1,
                   2, nsv, Sv, U, m, Vt, n, ifl, info) == 0
    assert nsv[0] == 2 and H.close(pre, Sv[:2], sv[:2], scale=10)
    u2, v2 = M(U, m, 2), M(Vt, n, n)[:2]
    assert H.close(pre, u2.conj().T @ g @ v2.conj().T, np.diag(sv[:2]), scale=10)


@pytest.mark.parametrize("pre", "sdcz")
def test_tridiagonal_and_bidiagonal(rb, pre):
    rng = np.random.default_rng(7)
    R = H.RTYPE[pre]
    n = 6
    d0, e0 = rng.standard_normal(n).astype(R), rng.standard_normal(n - 1).astype(R)
    T = np.diag(d0) + np.diag(e0, 1) + np.diag(e0, -1)
    want = np.linalg.eigvalsh(T)
    info = np.array([-1], np.int32)
    if pre in "sd":
        d, e = d0.copy(), e0.copy()
        assert rb.call(f"rocsolver_{pre}sterf", n, d, e, info) == 0 and info[0] == 0
        assert H.close(pre, d, want, scale=10)
        # stebz: eigenvalues 2..4 by bisection, then stein for their vectors
        nev, nsplit = np.array([-1], np.int32), np.array([-1], np.int32)
        W = np.zeros(n, R)
        iblock, isplit = np.zeros(n, np.int32), np.zeros(n, np.int32)
        assert rb.call(f"rocsolver_{pre}stebz", E(ERANGE_IDX), E(242), n, R(0), R(0), 2, 4, R(0),
                       d0.copy(), e0.copy(), nev, nsplit, W, iblock, isplit, info) == 0
        assert nev[0] == 3 and H.close(pre, W[:3], want[1:4], scale=10)
        Z = np.zeros(n * n, R)
        ifail = np.zeros(n, np.int32)
        assert rb.call(f"rocsolver_{pre}stein", n, d0.copy(), e0.copy(), nev, W, iblock, isplit,
                       Z, n, ifail, info) == 0 and info[0] == 0
        z = M(Z, n, 3)
        assert H.close(pre, T @ z, z * W[:3], scale=10)
    for name in ("steqr", "stedc"):
        d, e = d0.copy(), e0.copy()
        C = np.zeros(n * n, H.DTYPE[pre])
        assert rb.call(f"rocsolver_{pre}{name}", E(212), n, d, e, C, n, info) == 0
        assert info[0] == 0 and H.close(pre, d, want, scale=10)
        z = M(C, n, n)
        assert H.close(pre, T @ z, z * d, scale=10)
    # bdsqr on an upper bidiagonal matrix, accumulating U and V^H from the identity
    B = np.diag(d0) + np.diag(e0, 1)
    d, e = d0.copy(), e0.copy()
    Vt, U = F(np.eye(n, dtype=H.DTYPE[pre])), F(np.eye(n, dtype=H.DTYPE[pre]))
    assert rb.call(f"rocsolver_{pre}bdsqr", E(FILL["U"]), n, n, n, 0, d, e, Vt, n, U, n, None, 1,
                   info) == 0
    assert info[0] == 0 and H.close(pre, d, np.linalg.svd(B, compute_uv=False), scale=10)
    assert H.close(pre, M(U, n, n) @ np.diag(d) @ M(Vt, n, n), B, scale=10)


@pytest.mark.parametrize("pre", "sdcz")
def test_householder_auxiliaries(rb, pre):
    rng = np.random.default_rng(8)
    cplx = pre in "cz"
    n = 5
    x = H.rand(rng, pre, n)
    alpha, xs, tau = x[:1].copy(), x[1:].copy(), np.zeros(1, H.DTYPE[pre])
    assert rb.call(f"rocsolver_{pre}larfg", n, alpha, xs, 1, tau) == 0
    v = np.concatenate([[1], xs]).astype(H.DTYPE[pre])
    Hm = np.eye(n) - tau[0] * np.outer(v, v.conj())
    got = Hm.conj().T @ x
    assert H.close(pre, got[1:], np.zeros(n - 1), scale=10)
    assert H.close(pre, abs(got[0]), np.linalg.norm(x), scale=10)
    # larf applies H = I - tau v v^H from the left
    A0 = H.rand(rng, pre, (n, 3))
    A = F(A0)
    assert rb.call(f"rocsolver_{pre}larf", E(141), n, 3, v, 1, tau, A, n) == 0
    assert H.close(pre, M(A, n, 3), Hm @ A0, scale=10)
    # larft + larfb reproduce the product of reflectors computed by geqrf
    m, k = 6, 3
    g = H.rand(rng, pre, (m, k))
    Aq, tq = F(g), np.zeros(k, H.DTYPE[pre])
    assert rb.call(f"rocsolver_{pre}geqrf", m, k, Aq, m, tq) == 0
    Tm = np.zeros(k * k, H.DTYPE[pre])
    assert rb.call(f"rocsolver_{pre}larft", E(171), E(181), m, k, Aq, m, tq, Tm, k) == 0
    C = F(np.eye(m, dtype=H.DTYPE[pre]))
    assert rb.call(f"rocsolver_{pre}larfb", E(141), E(OP["N"]), E(171), E(181), m, m, k, Aq, m,
                   Tm, k, C, m) == 0
    Q = M(C, m, m)
    assert H.close(pre, Q[:, :k] @ np.triu(M(Aq, m, k)[:k]), g, scale=10)
    # lasr with one rotation in plane (1,2) from the left
    c, s = np.array([0.6, 1.0], H.RTYPE[pre]), np.array([0.8, 0.0], H.RTYPE[pre])
    A0 = H.rand(rng, pre, (3, 2))
    A = F(A0)
    assert rb.call(f"rocsolver_{pre}lasr", E(141), E(281), E(171), 3, 2, c, s, A, 3) == 0
    G = np.array([[0.6, 0.8, 0], [-0.8, 0.6, 0], [0, 0, 1]])
    assert H.close(pre, M(A, 3, 2), G @ A0)
    if cplx:
        z = x.copy()
        assert rb.call(f"rocsolver_{pre}lacgv", n, z, 1) == 0 and np.array_equal(z, x.conj())
    # panel routines run and fill their outputs
    Ab = F(H.rand(rng, pre, (m, m)))
    Dv, Ev = np.zeros(m, H.RTYPE[pre]), np.zeros(m, H.RTYPE[pre])
    tq, tp = np.zeros(m, H.DTYPE[pre]), np.zeros(m, H.DTYPE[pre])
    X, Y = np.zeros(m * 2, H.DTYPE[pre]), np.zeros(m * 2, H.DTYPE[pre])
    assert rb.call(f"rocsolver_{pre}labrd", m, m, 2, Ab, m, Dv, Ev, tq, tp, X, m, Y, m) == 0
    assert np.all(Dv[:2] != 0) and np.any(X != 0)
    hm = herm(rng, pre, m)
    Ah, Wp = F(hm), np.zeros(m * 2, H.DTYPE[pre])
    assert rb.call(f"rocsolver_{pre}latrd", E(FILL["L"]), m, 2, Ah, m, Ev, tq, Wp, m) == 0
    assert np.any(Wp != 0)
    kb, ipiv, info = np.array([-1], np.int32), np.zeros(m, np.int32), np.array([-1], np.int32)
    As = F(hm - 2 * np.eye(m))
    assert rb.call(f"rocsolver_{pre}lasyf", E(FILL["U"]), m, m, kb, As, m, ipiv, info) == 0
    assert kb[0] >= 1 and info[0] == 0


@pytest.mark.parametrize("pre", "dz")
def test_ilp64_entry_points(rb, pre):
    rng = np.random.default_rng(9)
    n, batch = 5, 2
    a = (H.rand(rng, pre, (n, n)) + 3 * np.eye(n)).astype(H.DTYPE[pre])
    b = H.rand(rng, pre, n)
    A, ipiv, info = F(a), np.zeros(n, np.int64), np.array([-1], np.int64)
    assert rb.call(f"rocsolver_{pre}getrf_64", n, n, A, n, ipiv, info) == 0
    assert info[0] == 0 and ipiv.min() >= 1
    X = b.copy()
    assert rb.call(f"rocsolver_{pre}getrs_64", E(OP["N"]), n, 1, A, n, ipiv, X, n) == 0
    assert H.close(pre, a @ X, b, scale=50)
    spd = herm(rng, pre, n, shift=n)
    As = H.Operand.make("S", [F(spd)] * batch)
    infos = np.full(batch, -1, np.int64)
    assert rb.call(f"rocsolver_{pre}potrf_strided_batched_64", E(FILL["U"]), n, *As.args(n),
                   infos, batch) == 0
    assert np.all(infos == 0)
    Bs = H.Operand.make("S", [b, 2 * b])
    assert rb.call(f"rocsolver_{pre}potrs_strided_batched_64", E(FILL["U"]), n, 1, *As.args(n),
                   *Bs.args(n), batch) == 0
    assert H.close(pre, spd @ Bs.bufs[1], 2 * b, scale=100)
    Ab = H.Operand.make("B", [F(a), F(2 * a)])
    ipb = np.zeros(n * batch, np.int64)
    assert rb.call(f"rocsolver_{pre}getrf_batched_64", n, n, *Ab.args(n), ipb, S(n), infos,
                   batch) == 0
    assert np.array_equal(ipb[:n], ipiv) and np.array_equal(ipb[n:], ipiv)
    # sizes beyond 32 bits are refused, not truncated
    assert rb.call(f"rocsolver_{pre}getrf_64", 1 << 33, 1, A, 1 << 33, ipiv, info) == \
        H.ST_INVALID_SIZE


@pytest.mark.parametrize("pre", "sd")
def test_bdsvdx_and_rfinfo(rb, pre):
    import ctypes

    rng = np.random.default_rng(10)
    R = H.RTYPE[pre]
    n = 5
    d0, e0 = rng.standard_normal(n).astype(R), rng.standard_normal(n - 1).astype(R)
    sv = np.linalg.svd(np.diag(d0) + np.diag(e0, 1), compute_uv=False)
    nsv, info = np.array([-1], np.int32), np.array([-1], np.int32)
    Sv, Z, ifail = np.zeros(n, R), np.zeros(2 * n * n, R), np.zeros(n, np.int32)
    assert rb.call(f"rocsolver_{pre}bdsvdx", E(FILL["U"]), E(192), E(263), n, d0.copy(),
                   e0.copy(), R(0), R(0), 1, 3, nsv, Sv, Z, 2 * n, ifail, info) == 0
    assert nsv[0] == 3 and info[0] == 0 and H.close(pre, Sv[:3], sv[:3], scale=10)
    rf = ctypes.c_void_p()
    assert rb.solver.rocsolver_create_rfinfo(ctypes.byref(rf), rb.handle) == 0
    mode = ctypes.c_int(0)
    assert rb.solver.rocsolver_get_rfinfo_mode(rf, ctypes.byref(mode)) == 0 and mode.value == 271
    assert rb.solver.rocsolver_set_rfinfo_mode(rf, 272) == 0
    assert rb.solver.rocsolver_get_rfinfo_mode(rf, ctypes.byref(mode)) == 0 and mode.value == 272
    assert rb.solver.rocsolver_destroy_rfinfo(rf) == 0
