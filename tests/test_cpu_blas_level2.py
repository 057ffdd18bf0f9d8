"""rocBLAS level 2 on the CPU device against numpy: every shape, precision, batch form."""

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
from harness import DIAG, FILL, OP, E  # noqa: E402

# deterministic examples in CI (a failure reproduces); PYSHIM_HYPOTHESIS_RANDOM=1 explores
DERANDOMIZE = not os.environ.get("PYSHIM_HYPOTHESIS_RANDOM")

SFX = {"P": "", "B": "_batched", "S": "_strided_batched"}
incs = st.integers(-2, 2).filter(bool)


@pytest.fixture(scope="module")
def rb() -> H.Rb:
    return H.Rb(H.build_libs())


def bc(form, batch):
    return [] if form == "P" else [batch]


def vec_op(rng, pre, n, inc, batch, form):
    vals = [H.rand(rng, pre, n) for _ in range(batch)]
    bufs = []
    for v in vals:
        buf = H.rand(rng, pre, H.vec_len(n, inc))
        buf[H.vec_index(n, inc)] = v
        bufs.append(buf)
    return vals, H.Operand.make(form, bufs)


def mat_op(rng, pre, m, n, ld, batch, form):
    vals = [H.rand(rng, pre, (m, n)) for _ in range(batch)]
    return vals, H.Operand.make(form, [H.mat_buf(a, ld) for a in vals])


def get_vec(o, b, n, inc):
    return o.bufs[b][H.vec_index(n, inc)]


def pack(a, uplo):
    n = a.shape[0]
    if uplo == "U":
        return np.concatenate([a[: j + 1, j] for j in range(n)]) if n else a[:0, 0]
    return np.concatenate([a[j:, j] for j in range(n)]) if n else a[:0, 0]


def tri(a, uplo, diag):
    t = np.triu(a) if uplo == "U" else np.tril(a)
    if diag == "U":
        np.fill_diagonal(t, 1)
    return t


def herm_from(a, uplo, herm):
    t = np.triu(a) if uplo == "U" else np.tril(a)
    full = t + (t.conj().T if herm else t.T) - np.diag(np.diag(t))
    if herm:
        np.fill_diagonal(full, np.diag(full).real)
    return full


@settings(max_examples=40, deadline=None, derandomize=DERANDOMIZE)
@given(pre=st.sampled_from("sdcz"), m=st.integers(0, 30), n=st.integers(0, 30),
       pad=st.integers(0, 3), t=st.sampled_from("NTC"), incx=incs, incy=incs,
       form=st.sampled_from("PBS"), w=st.sampled_from(["", "_64"]), seed=st.integers(0, 999))
def test_gemv(rb, pre, m, n, pad, t, incx, incy, form, w, seed):
    rng = np.random.default_rng(seed)
    batch = 1 if form == "P" else 2
    lda = max(1, m) + pad
    As, A = mat_op(rng, pre, m, n, lda, batch, form)
    lx, ly = (n, m) if t == "N" else (m, n)
    xs, x = vec_op(rng, pre, lx, incx, batch, form)
    ys, y = vec_op(rng, pre, ly, incy, batch, form)
    alpha, beta = H.scalar(pre, 0.5), H.scalar(pre, -1.25)
    st_ = rb.call(f"rocblas_{pre}gemv{SFX[form]}{w}", E(OP[t]), m, n, alpha, *A.args(lda),
                  *x.args(incx), beta, *y.args(incy), *bc(form, batch))
    assert st_ == H.ST_SUCCESS
    for b in range(batch):
        want = ys[b] if m == 0 or n == 0 else 0.5 * H.op(As[b], t) @ xs[b] - 1.25 * ys[b]
        assert H.close(pre, get_vec(y, b, ly, incy), want, scale=max(m, n))


@pytest.mark.parametrize("pre", "sdcz")
@pytest.mark.parametrize("form", "PBS")
@pytest.mark.parametrize("uplo", "UL")
def test_symmetric_and_packed(rb, pre, form, uplo):
    rng = np.random.default_rng(3)
    n, batch, lda = 9, (1 if form == "P" else 2), 11
    alpha, beta = H.scalar(pre, 2), H.scalar(pre, 0.5)
    names = ["symv"] if pre in "sd" else ["symv", "hemv"]
    for nm in names:
        herm = nm == "hemv"
        As, A = mat_op(rng, pre, n, n, lda, batch, form)
        xs, x = vec_op(rng, pre, n, -1, batch, form)
        ys, y = vec_op(rng, pre, n, 2, batch, form)
        assert rb.call(f"rocblas_{pre}{nm}{SFX[form]}", E(FILL[uplo]), n, alpha, *A.args(lda),
                       *x.args(-1), beta, *y.args(2), *bc(form, batch)) == 0
        for b in range(batch):
            want = 2 * herm_from(As[b], uplo, herm) @ xs[b] + 0.5 * ys[b]
            assert H.close(pre, get_vec(y, b, n, 2), want, scale=n)
    # packed: spmv (real) / hpmv (complex)
    nm = "spmv" if pre in "sd" else "hpmv"
    full = [herm_from(H.rand(rng, pre, (n, n)), uplo, pre in "cz") for _ in range(batch)]
    AP = H.Operand.make(form, [pack(a, uplo) for a in full])
    xs, x = vec_op(rng, pre, n, 1, batch, form)
    ys, y = vec_op(rng, pre, n, 1, batch, form)
    assert rb.call(f"rocblas_{pre}{nm}{SFX[form]}_64", E(FILL[uplo]), n, alpha, *AP.args(),
                   *x.args(1), beta, *y.args(1), *bc(form, batch)) == 0
    for b in range(batch):
        assert H.close(pre, get_vec(y, b, n, 1), 2 * full[b] @ xs[b] + 0.5 * ys[b], scale=n)


@pytest.mark.parametrize("pre", "sdcz")
@pytest.mark.parametrize("uplo", "UL")
@pytest.mark.parametrize("t", "NTC")
@pytest.mark.parametrize("diag", "NU")
def test_triangular(rb, pre, uplo, t, diag):
    rng = np.random.default_rng(5)
    n, lda = 8, 10
    a = (H.rand(rng, pre, (n, n)) + 4 * np.eye(n)).astype(H.DTYPE[pre])  # well conditioned
    T = tri(a, uplo, diag)
    x0 = H.rand(rng, pre, n)
    args = (E(FILL[uplo]), E(OP[t]), E(DIAG[diag]), n)
    # trmv then trsv must round-trip; each checked against numpy
    x = np.zeros(H.vec_len(n, -2), x0.dtype)
    x[H.vec_index(n, -2)] = x0
    assert rb.call(f"rocblas_{pre}trmv", *args, H.mat_buf(a, lda), lda, x, -2) == 0
    assert H.close(pre, x[H.vec_index(n, -2)], H.op(T, t) @ x0, scale=n)
    assert rb.call(f"rocblas_{pre}trsv_64", *args, H.mat_buf(a, lda), lda, x, -2) == 0
    assert H.close(pre, x[H.vec_index(n, -2)], x0, scale=n)
    # packed
    xp = x0.copy()
    assert rb.call(f"rocblas_{pre}tpmv", *args, pack(T, uplo), xp, 1) == 0
    assert H.close(pre, xp, H.op(T, t) @ x0, scale=n)
    assert rb.call(f"rocblas_{pre}tpsv", *args, pack(T, uplo), xp, 1) == 0
    assert H.close(pre, xp, x0, scale=n)
    # band with k = 2
    k = 2
    band = np.triu(np.tril(T, k), -k)
    ab = np.zeros((k + 1, n), dtype=a.dtype)
    for j in range(n):
        for i in range(n):
            if uplo == "U" and 0 <= j - i <= k:
                ab[k + i - j, j] = band[i, j]
            if uplo == "L" and 0 <= i - j <= k:
                ab[i - j, j] = band[i, j]
    xb = x0.copy()
    assert rb.call(f"rocblas_{pre}tbmv", *args[:3], n, k, H.mat_buf(ab, k + 1), k + 1, xb, 1) == 0
    assert H.close(pre, xb, H.op(band, t) @ x0, scale=n)
    assert rb.call(f"rocblas_{pre}tbsv", *args[:3], n, k, H.mat_buf(ab, k + 1), k + 1, xb, 1) == 0
    assert H.close(pre, xb, x0, scale=n)


@pytest.mark.parametrize("pre", "sdcz")
def test_band_gbmv_sbmv(rb, pre):
    rng = np.random.default_rng(7)
    m, n, kl, ku = 7, 6, 2, 1
    a = H.rand(rng, pre, (m, n))
    band = np.triu(np.tril(a, ku), -kl)
    lda = kl + ku + 2
    ab = np.zeros((lda, n), dtype=a.dtype)
    for j in range(n):
        for i in range(max(0, j - ku), min(m, j + kl + 1)):
            ab[ku + i - j, j] = a[i, j]
    x, y = H.rand(rng, pre, n), H.rand(rng, pre, m)
    y0 = y.copy()
    assert rb.call(f"rocblas_{pre}gbmv", E(OP["N"]), m, n, kl, ku, H.scalar(pre, 1),
                   H.mat_buf(ab, lda), lda, x, 1, H.scalar(pre, 2), y, 1) == 0
    assert H.close(pre, y, band @ x + 2 * y0, scale=n)
    # sbmv / hbmv, upper, k = 2
    k, nn = 2, 6
    full = herm_from(H.rand(rng, pre, (nn, nn)), "U", pre in "cz")
    full = np.triu(np.tril(full, k), -k)
    ab = np.zeros((k + 1, nn), dtype=full.dtype)
    for j in range(nn):
        for i in range(max(0, j - k), j + 1):
            ab[k + i - j, j] = full[i, j]
    x, y = H.rand(rng, pre, nn), np.zeros(nn, full.dtype)
    nm = "sbmv" if pre in "sd" else "hbmv"
    assert rb.call(f"rocblas_{pre}{nm}", E(FILL["U"]), nn, k, H.scalar(pre, 1),
                   H.mat_buf(ab, k + 1), k + 1, x, 1, H.scalar(pre, 0), y, 1) == 0
    assert H.close(pre, y, full @ x, scale=nn)


@pytest.mark.parametrize("pre", "sdcz")
@pytest.mark.parametrize("form", "PBS")
def test_rank_updates(rb, pre, form):
    rng = np.random.default_rng(11)
    m, n, lda, batch = 6, 5, 8, (1 if form == "P" else 2)
    alpha = H.scalar(pre, 0.5 + 1j if pre in "cz" else 0.5)
    gers = ["ger"] if pre in "sd" else ["geru", "gerc"]
    for g in gers:
        As, A = mat_op(rng, pre, m, n, lda, batch, form)
        xs, x = vec_op(rng, pre, m, -1, batch, form)
        ys, y = vec_op(rng, pre, n, 2, batch, form)
        assert rb.call(f"rocblas_{pre}{g}{SFX[form]}", m, n, alpha, *x.args(-1), *y.args(2),
                       *A.args(lda), *bc(form, batch)) == 0
        for b in range(batch):
            yy = ys[b].conj() if g == "gerc" else ys[b]
            want = As[b] + alpha[0] * np.outer(xs[b], yy)
            assert H.close(pre, H.mat_from(A.bufs[b], m, n, lda), want, scale=n)
    herm = pre in "cz"
    for uplo in "UL":
        # syr / her (real alpha for her)
        al = H.real_scalar(pre, 0.75) if herm else H.scalar(pre, 0.75)
        As, A = mat_op(rng, pre, n, n, lda, batch, form)
        xs, x = vec_op(rng, pre, n, 1, batch, form)
        nm = "her" if herm else "syr"
        assert rb.call(f"rocblas_{pre}{nm}{SFX[form]}", E(FILL[uplo]), n, al, *x.args(1),
                       *A.args(lda), *bc(form, batch)) == 0
        for b in range(batch):
            upd = 0.75 * np.outer(xs[b], xs[b].conj() if herm else xs[b])
            got = H.mat_from(A.bufs[b], n, n, lda)
            sel = np.triu if uplo == "U" else np.tril
            want = sel(As[b] + upd)
            if herm:
                np.fill_diagonal(want, np.diag(want).real + 1j * np.diag(As[b]).imag * 0)
                got = got.copy()
                np.fill_diagonal(got, np.diag(got).real)
                want = want.copy()
                np.fill_diagonal(want, np.diag(want).real)
            assert H.close(pre, sel(got), want, scale=n)
        # syr2 / her2 on packed storage (spr2 / hpr2)
        full = herm_from(H.rand(rng, pre, (n, n)), uplo, herm)
        ap = pack(full, uplo)
        x, y = H.rand(rng, pre, n), H.rand(rng, pre, n)
        nm = "hpr2" if herm else "spr2"
        assert rb.call(f"rocblas_{pre}{nm}", E(FILL[uplo]), n, alpha, x, 1, y, 1, ap) == 0
        a2 = alpha[0] * np.outer(x, y.conj() if herm else y)
        upd = a2 + (a2.conj().T if herm else a2.T)
        assert H.close(pre, ap, pack(full + upd, uplo), scale=n)


def test_level2_bad_arguments(rb):
    a = np.ones(16, np.float32)
    one = H.scalar("s", 1)
    assert rb.call("rocblas_sgemv", E(99), 4, 4, one, a, 4, a, 1, one, a, 1) == \
        H.ST_INVALID_VALUE
    assert rb.call("rocblas_sgemv", E(OP["N"]), 4, 4, one, a, 3, a, 1, one, a, 1) == \
        H.ST_INVALID_SIZE
    assert rb.call("rocblas_sgemv", E(OP["N"]), -1, 4, one, a, 4, a, 1, one, a, 1) == \
        H.ST_INVALID_SIZE
    assert rb.call("rocblas_sgemv", E(OP["N"]), 4, 4, one, a, 4, a, 0, one, a, 1) == \
        H.ST_INVALID_SIZE
    assert rb.call("rocblas_sgemv", E(OP["N"]), 4, 4, one, None, 4, a, 1, one, a, 1) == \
        H.ST_INVALID_POINTER
    assert rb.call("rocblas_sgemv", E(OP["N"]), 0, 4, None, None, 4, None, 1, None, None, 1) \
        == H.ST_SUCCESS
    assert rb.call("rocblas_strsv", E(FILL["U"]), E(OP["N"]), E(7), 4, a, 4, a, 1) == \
        H.ST_INVALID_VALUE
    assert rb.call("rocblas_ssyr", E(FILL["U"]), 4, one, a, 1, a, 2) == H.ST_INVALID_SIZE
    # alpha == 0, beta == 1 in host mode: nothing to do, null matrices are fine
    assert rb.call("rocblas_sgemv", E(OP["N"]), 4, 4, H.scalar("s", 0), None, 4, None, 1, one,
                   a, 1) == H.ST_SUCCESS
