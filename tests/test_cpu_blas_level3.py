"""rocBLAS level 3 on the CPU device against numpy: every routine, precision, batch form."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

sys.path.insert(0, str(Path(__file__).parent / "cpu_blas"))
import harness as H  # noqa: E402
from harness import DIAG, FILL, OP, SIDE, E  # noqa: E402

# deterministic examples in CI (a failure reproduces); PYSHIM_HYPOTHESIS_RANDOM=1 explores
DERANDOMIZE = not os.environ.get("PYSHIM_HYPOTHESIS_RANDOM")

SFX = {"P": "", "B": "_batched", "S": "_strided_batched"}


@pytest.fixture(scope="module")
def rb() -> H.Rb:
    return H.Rb(H.build_libs())


def bc(form, batch):
    return [] if form == "P" else [batch]


def mats(rng, pre, m, n, ld, batch, form):
    vals = [H.rand(rng, pre, (m, n)) for _ in range(batch)]
    return vals, H.Operand.make(form, [H.mat_buf(a, ld) for a in vals])


def got(o, b, m, n, ld):
    return H.mat_from(o.bufs[b], m, n, ld)


@settings(max_examples=50, deadline=None, derandomize=DERANDOMIZE)
@given(pre=st.sampled_from("sdcz"), m=st.integers(0, 24), n=st.integers(0, 24),
       k=st.integers(0, 24), ta=st.sampled_from("NTC"), tb=st.sampled_from("NTC"),
       pad=st.integers(0, 2), form=st.sampled_from("PBS"), w=st.sampled_from(["", "_64"]),
       seed=st.integers(0, 999))
def test_gemm(rb, pre, m, n, k, ta, tb, pad, form, w, seed):
    rng = np.random.default_rng(seed)
    batch = 1 if form == "P" else 3
    ra, ca = (m, k) if ta == "N" else (k, m)
    rb_, cb = (k, n) if tb == "N" else (n, k)
    lda, ldb, ldc = max(1, ra) + pad, max(1, rb_) + pad, max(1, m) + pad
    As, A = mats(rng, pre, ra, ca, lda, batch, form)
    Bs, B = mats(rng, pre, rb_, cb, ldb, batch, form)
    Cs, C = mats(rng, pre, m, n, ldc, batch, form)
    alpha = H.scalar(pre, 1.5 + 0.5j if pre in "cz" else 1.5)
    beta = H.scalar(pre, -0.5)
    assert rb.call(f"rocblas_{pre}gemm{SFX[form]}{w}", E(OP[ta]), E(OP[tb]), m, n, k, alpha,
                   *A.args(lda), *B.args(ldb), beta, *C.args(ldc), *bc(form, batch)) == 0
    for b in range(batch):
        want = alpha[0] * H.op(As[b], ta) @ H.op(Bs[b], tb) - 0.5 * Cs[b] if m and n else Cs[b]
        assert H.close(pre, got(C, b, m, n, ldc), want, scale=k)


@pytest.mark.parametrize("pre", "sdcz")
@pytest.mark.parametrize("form", "PBS")
def test_trsm_trmm_trtri(rb, pre, form):
    rng = np.random.default_rng(2)
    m, n, batch = 7, 5, (1 if form == "P" else 2)
    for side in "LR":
        for uplo in "UL":
            for t in "NTC":
                for diag in "NU":
                    ka = m if side == "L" else n
                    lda, ldb = ka + 1, m + 2
                    a = [(H.rand(rng, pre, (ka, ka)) + 4 * np.eye(ka)).astype(H.DTYPE[pre])
                         for _ in range(batch)]
                    A = H.Operand.make(form, [H.mat_buf(x, lda) for x in a])
                    Bs, B = mats(rng, pre, m, n, ldb, batch, form)
                    alpha = H.scalar(pre, 2)
                    args = (E(SIDE[side]), E(FILL[uplo]), E(OP[t]), E(DIAG[diag]), m, n, alpha)
                    # out-of-place trmm into C, then trsm brings C back to 2*2*B... checked
                    ldc = m + 1
                    C = H.Operand.make(form, [np.zeros(ldc * n, H.DTYPE[pre])] * batch)
                    assert rb.call(f"rocblas_{pre}trmm{SFX[form]}", *args, *A.args(lda),
                                   *B.args(ldb), *C.args(ldc), *bc(form, batch)) == 0
                    for b in range(batch):
                        T = np.triu(a[b]) if uplo == "U" else np.tril(a[b])
                        if diag == "U":
                            np.fill_diagonal(T, 1)
                        opT = H.op(T, t)
                        want = 2 * (opT @ Bs[b] if side == "L" else Bs[b] @ opT)
                        assert H.close(pre, got(C, b, m, n, ldc), want, scale=m)
                    assert rb.call(f"rocblas_{pre}trsm{SFX[form]}_64", *args, *A.args(lda),
                                   *C.args(ldc), *bc(form, batch)) == 0
                    for b in range(batch):
                        assert H.close(pre, got(C, b, m, n, ldc), 4 * Bs[b], scale=m * 10)
    # trtri: out-of-place inverse of a triangle
    n = 6
    a = (H.rand(rng, pre, (n, n)) + 4 * np.eye(n)).astype(H.DTYPE[pre])
    inv = np.zeros(n * 8, H.DTYPE[pre])
    assert rb.call(f"rocblas_{pre}trtri", E(FILL["L"]), E(DIAG["N"]), n, H.mat_buf(a, 7), 7,
                   inv, 8) == 0
    assert H.close(pre, np.tril(H.mat_from(inv, n, n, 8)), np.linalg.inv(np.tril(a)), scale=10)


def sym_full(c, uplo, herm):
    t = np.triu(c) if uplo == "U" else np.tril(c)
    return t


@pytest.mark.parametrize("pre", "sdcz")
@pytest.mark.parametrize("form", "PBS")
@pytest.mark.parametrize("uplo", "UL")
def test_rank_k_and_symm(rb, pre, form, uplo):
    rng = np.random.default_rng(4)
    n, k, batch = 6, 4, (1 if form == "P" else 2)
    herm_ok = pre in "cz"
    sel = np.triu if uplo == "U" else np.tril
    cases = [("syrk", "N", False), ("syrk", "T", False)]
    if herm_ok:
        cases += [("herk", "N", True), ("herk", "C", True)]
    for nm, t, herm in cases:
        ra, ca = (n, k) if t == "N" else (k, n)
        As, A = mats(rng, pre, ra, ca, ra + 1, batch, form)
        Cs, C = mats(rng, pre, n, n, n + 2, batch, form)
        al = H.real_scalar(pre, 0.5) if herm else H.scalar(pre, 0.5)
        be = H.real_scalar(pre, 2) if herm else H.scalar(pre, 2)
        assert rb.call(f"rocblas_{pre}{nm}{SFX[form]}", E(FILL[uplo]), E(OP[t]), n, k, al,
                       *A.args(ra + 1), be, *C.args(n + 2), *bc(form, batch)) == 0
        for b in range(batch):
            opA = H.op(As[b], t)
            prod = opA @ (opA.conj().T if herm else opA.T)
            want = sel(0.5 * prod + 2 * Cs[b])
            res = sel(got(C, b, n, n, n + 2))
            if herm:
                want = want - 1j * np.diag(np.diag(want).imag)
            assert H.close(pre, res, want, scale=k)
    # syr2k/her2k and syrkx/herkx
    for nm in (["syr2k", "syrkx"] + (["her2k", "herkx"] if herm_ok else [])):
        herm = nm.startswith("her")
        t = "C" if herm else "T"
        As, A = mats(rng, pre, k, n, k, batch, form)
        Bs, B = mats(rng, pre, k, n, k, batch, form)
        Cs, C = mats(rng, pre, n, n, n, batch, form)
        al = H.scalar(pre, 0.5 + 0.25j if pre in "cz" else 0.5)
        be = H.real_scalar(pre, 2) if herm else H.scalar(pre, 2)
        assert rb.call(f"rocblas_{pre}{nm}{SFX[form]}", E(FILL[uplo]), E(OP[t]), n, k, al,
                       *A.args(k), *B.args(k), be, *C.args(n), *bc(form, batch)) == 0
        for b in range(batch):
            oa, ob = H.op(As[b], t), H.op(Bs[b], t)
            tr = (lambda x: x.conj().T) if herm else (lambda x: x.T)
            p = al[0] * oa @ tr(ob)
            prod = p + tr(p) if nm.endswith("2k") else p
            want = sel(prod + 2 * Cs[b])
            if herm:
                want = want - 1j * np.diag(np.diag(want).imag)
            assert H.close(pre, sel(got(C, b, n, n, n)), want, scale=k)
    # symm / hemm
    for nm in ["symm"] + (["hemm"] if herm_ok else []):
        herm = nm == "hemm"
        for side in "LR":
            m2, n2 = 5, 4
            ka = m2 if side == "L" else n2
            As, A = mats(rng, pre, ka, ka, ka, batch, form)
            Bs, B = mats(rng, pre, m2, n2, m2, batch, form)
            Cs, C = mats(rng, pre, m2, n2, m2, batch, form)
            one = H.scalar(pre, 1)
            assert rb.call(f"rocblas_{pre}{nm}{SFX[form]}", E(SIDE[side]), E(FILL[uplo]), m2, n2,
                           one, *A.args(ka), *B.args(m2), one, *C.args(m2),
                           *bc(form, batch)) == 0
            for b in range(batch):
                t_ = sel(As[b])
                full = t_ + (t_.conj().T if herm else t_.T) - np.diag(np.diag(t_))
                if herm:
                    full = full - 1j * np.diag(np.diag(full).imag)
                want = (full @ Bs[b] if side == "L" else Bs[b] @ full) + Cs[b]
                assert H.close(pre, got(C, b, m2, n2, m2), want, scale=5)


@pytest.mark.parametrize("pre", "sdcz")
@pytest.mark.parametrize("form", "PBS")
def test_geam_dgmm_gemmt(rb, pre, form):
    rng = np.random.default_rng(8)
    m, n, batch = 5, 4, (1 if form == "P" else 2)
    for ta, tb in (("N", "N"), ("T", "C"), ("C", "N")):
        ra, rb_ = (m, n) if ta == "N" else (n, m), (m, n) if tb == "N" else (n, m)
        As, A = mats(rng, pre, *ra, ra[0] + 1, batch, form)
        Bs, B = mats(rng, pre, *rb_, rb_[0], batch, form)
        C = H.Operand.make(form, [np.zeros(m * n + 3, H.DTYPE[pre])] * batch)
        al, be = H.scalar(pre, 2), H.scalar(pre, -1)
        assert rb.call(f"rocblas_{pre}geam{SFX[form]}", E(OP[ta]), E(OP[tb]), m, n, al,
                       *A.args(ra[0] + 1), be, *B.args(rb_[0]), *C.args(m),
                       *bc(form, batch)) == 0
        for b in range(batch):
            assert H.close(pre, got(C, b, m, n, m), 2 * H.op(As[b], ta) - H.op(Bs[b], tb))
    for side in "LR":
        As, A = mats(rng, pre, m, n, m + 1, batch, form)
        L = m if side == "L" else n
        xs = [H.rand(rng, pre, L) for _ in range(batch)]
        xb = []
        for v in xs:
            buf = np.zeros(H.vec_len(L, -2), H.DTYPE[pre])
            buf[H.vec_index(L, -2)] = v
            xb.append(buf)
        X = H.Operand.make(form, xb)
        C = H.Operand.make(form, [np.zeros(m * n, H.DTYPE[pre])] * batch)
        assert rb.call(f"rocblas_{pre}dgmm{SFX[form]}_64", E(SIDE[side]), m, n,
                       *A.args(m + 1), *X.args(-2), *C.args(m), *bc(form, batch)) == 0
        for b in range(batch):
            want = np.diag(xs[b]) @ As[b] if side == "L" else As[b] @ np.diag(xs[b])
            assert H.close(pre, got(C, b, m, n, m), want)
    # gemmt: one triangle of a general product
    k = 3
    a, bm, c = H.rand(rng, pre, (n, k)), H.rand(rng, pre, (k, n)), H.rand(rng, pre, (n, n))
    cb = H.mat_buf(c, n)
    one = H.scalar(pre, 1)
    assert rb.call(f"rocblas_{pre}gemmt", E(FILL["L"]), E(OP["N"]), E(OP["N"]), n, k, one,
                   H.mat_buf(a, n), n, H.mat_buf(bm, k), k, one, cb, n) == 0
    res = H.mat_from(cb, n, n, n)
    assert H.close(pre, np.tril(res), np.tril(a @ bm + c), scale=k)
    assert np.array_equal(np.triu(res, 1), np.triu(c, 1))


def test_level3_bad_arguments_and_pointer_mode(rb):
    a = np.ones(64, np.float64)
    one = H.scalar("d", 1)
    N = E(OP["N"])
    assert rb.call("rocblas_dgemm", E(0), N, 4, 4, 4, one, a, 4, a, 4, one, a, 4) == \
        H.ST_INVALID_VALUE
    assert rb.call("rocblas_dgemm", N, N, 4, 4, 4, one, a, 3, a, 4, one, a, 4) == \
        H.ST_INVALID_SIZE
    assert rb.call("rocblas_dgemm", N, N, 4, 4, 4, one, a, 4, a, 4, one, a, 4, handle=None) == \
        H.ST_INVALID_HANDLE
    assert rb.call("rocblas_dgemm", N, N, 4, 4, 4, one, None, 4, a, 4, one, a, 4) == \
        H.ST_INVALID_POINTER
    assert rb.call("rocblas_dgemm_strided_batched", N, N, 4, 4, 4, one, a, 4, H.S(0), a, 4,
                   H.S(0), one, a, 4, H.S(0), -1) == H.ST_INVALID_SIZE
    assert rb.call("rocblas_zherk", E(FILL["U"]), E(OP["T"]), 2, 2, one, a, 2, one, a, 2) == \
        H.ST_INVALID_VALUE
    # device pointer mode: scalars are read when the routine runs (host memory here)
    h = rb.new_handle()
    assert rb.blas.rocblas_set_pointer_mode(h, 1) == 0
    A = np.eye(2).ravel(order="F").copy()
    B = np.array([1.0, 2.0, 3.0, 4.0])
    C = np.zeros(4)
    alpha = np.array([3.0])
    assert rb.call("rocblas_dgemm", N, N, 2, 2, 2, alpha, A, 2, B, 2, H.scalar("d", 0), C, 2,
                   handle=h) == 0
    assert np.array_equal(C, 3 * B)
    rb.blas.rocblas_destroy_handle(h)


@settings(max_examples=40, deadline=None, derandomize=DERANDOMIZE)
@given(pre=st.sampled_from("sdcz"), m=st.integers(0, 40), n=st.integers(0, 40),
       side=st.sampled_from("LR"), uplo=st.sampled_from("UL"), t=st.sampled_from("NTC"),
       diag=st.sampled_from("NU"), pad=st.integers(0, 2), device_mode=st.booleans(),
       form=st.sampled_from("PS"), seed=st.integers(0, 999))
def test_triangular_and_symmetric_shapes(rb, pre, m, n, side, uplo, t, diag, pad, device_mode,
                                         form, seed):
    """trmm/trsm and symm over random shapes, paddings, pointer modes and forms."""
    rng = np.random.default_rng(seed)
    h = rb.new_handle()
    assert rb.blas.rocblas_set_pointer_mode(h, int(device_mode)) == 0
    batch = 1 if form == "P" else 2
    ka = m if side == "L" else n
    lda, ldb = max(1, ka) + pad, max(1, m) + pad
    # small off-diagonal entries keep unit-diagonal triangles well conditioned at n = 40
    a = [(0.2 * H.rand(rng, pre, (ka, ka)) + 4 * np.eye(ka)).astype(H.DTYPE[pre])
         for _ in range(batch)]
    A = H.Operand.make(form, [H.mat_buf(x, lda) for x in a])
    Bs, B = mats(rng, pre, m, n, ldb, batch, form)
    alpha = H.scalar(pre, 1.5)
    args = (E(SIDE[side]), E(FILL[uplo]), E(OP[t]), E(DIAG[diag]), m, n, alpha)
    assert rb.call(f"rocblas_{pre}trsm{SFX[form]}", *args, *A.args(lda), *B.args(ldb),
                   *bc(form, batch), handle=h) == 0
    for b in range(batch):
        T = np.triu(a[b]) if uplo == "U" else np.tril(a[b])
        if diag == "U":
            np.fill_diagonal(T, 1)
        X = got(B, b, m, n, ldb)
        lhs = H.op(T, t) @ X if side == "L" else X @ H.op(T, t)
        assert H.close(pre, lhs, 1.5 * Bs[b], scale=max(m, n, 1) * 10)
    # symm with the same A as the symmetric operand
    Cs, C = mats(rng, pre, m, n, ldb, batch, form)
    one, zero = H.scalar(pre, 1), H.scalar(pre, 0)
    assert rb.call(f"rocblas_{pre}symm{SFX[form]}", E(SIDE[side]), E(FILL[uplo]), m, n, one,
                   *A.args(lda), *B.args(ldb), zero, *C.args(ldb), *bc(form, batch),
                   handle=h) == 0
    for b in range(batch):
        tri = np.triu(a[b]) if uplo == "U" else np.tril(a[b])
        full = tri + tri.T - np.diag(np.diag(tri))
        Xb = got(B, b, m, n, ldb)
        want = full @ Xb if side == "L" else Xb @ full
        if m and n:
            assert H.close(pre, got(C, b, m, n, ldb), want, scale=max(m, n, 1) * 10)
    rb.blas.rocblas_destroy_handle(h)
