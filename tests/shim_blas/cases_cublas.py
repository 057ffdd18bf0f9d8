"""cuBLAS through pyshim's libcublas.so.13 on the CPU device, against numpy references.
Run by tests/test_shim_blas_cublas.py in a child process (see harness.py); every entry
point whose result was checked is recorded for the coverage count."""

from __future__ import annotations

import ctypes
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

sys.path.insert(0, str(Path(__file__).parent))
import harness as H  # noqa: E402
from harness import DIAG, FILL, OP, SIDE, close, mat, name, op, rand, scalar, strided, vec  # noqa: E402

PRE = ["s", "d", "c", "z"]
WIDTHS = ["", "_64"]
FAST = settings(max_examples=6, deadline=None,
                suppress_health_check=[HealthCheck.function_scoped_fixture])
incs = st.integers(-3, 3).filter(bool)


@pytest.fixture(scope="module")
def cb() -> H.Lib:
    lib, _solver = H.load()
    yield lib
    H.write_coverage("cublas", lib.exercised)


@pytest.fixture(scope="module")
def h(cb: H.Lib) -> ctypes.c_void_p:
    handle = ctypes.c_void_p()
    cb.call("cublasCreate", ctypes.byref(handle))
    yield handle
    cb.call("cublasDestroy", handle)
    cb.ok("cublasCreate", "cublasDestroy")


@pytest.fixture
def rng() -> np.random.Generator:
    return np.random.default_rng(1234)


def put(buf: np.ndarray, n: int, inc: int, values: np.ndarray) -> np.ndarray:
    out = buf.copy()
    idx = np.arange(n) * abs(inc)
    if inc < 0:
        idx = idx[::-1]
    out[idx] = values
    return out


# ---- level 1 ---------------------------------------------------------------------------

@pytest.mark.parametrize("w", WIDTHS)
@pytest.mark.parametrize("pre", PRE)
@FAST
@given(n=st.integers(0, 40),
       incx=incs, incy=incs, mode=st.sampled_from([H.POINTER_HOST, H.POINTER_DEVICE]))
def test_axpy_copy_swap_scal(cb, h, pre, w, n, incx, incy, mode) -> None:
    rng = np.random.default_rng(n)
    cb.call("cublasSetPointerMode", h, mode)
    try:
        x, y = vec(rng, pre, n, incx), vec(rng, pre, n, incy)
        alpha = H.scalar(pre, 0.5 - 1.5j)
        xs, ys = strided(x, n, incx), strided(y, n, incy)
        y2 = y.copy()
        cb.call(name(pre, "axpy", w), h, n, alpha, x, incx, y2, incy)
        close(strided(y2, n, incy), ys + alpha[0] * xs, pre)
        y3 = y.copy()
        cb.call(name(pre, "copy", w), h, n, x, incx, y3, incy)
        close(strided(y3, n, incy), xs, pre)
        x4, y4 = x.copy(), y.copy()
        cb.call(name(pre, "swap", w), h, n, x4, incx, y4, incy)
        close(strided(x4, n, incx), ys, pre)
        close(strided(y4, n, incy), xs, pre)
        x5 = x.copy()
        cb.call(name(pre, "scal", w), h, n, alpha, x5, abs(incx))
        close(strided(x5, n, abs(incx)), strided(x, n, abs(incx)) * alpha[0], pre)
        cb.ok(*(name(pre, f, w) for f in ("axpy", "copy", "swap", "scal")))
        if pre in "cz":
            real = {"c": "Cs", "z": "Zd"}[pre]
            x6 = x.copy()
            r = H.real_scalar(pre, -2.5)
            cb.call(f"cublas{real}scal{w}", h, n, r, x6, abs(incx))
            close(strided(x6, n, abs(incx)), strided(x, n, abs(incx)) * r[0], pre)
            cb.ok(f"cublas{real}scal{w}")
    finally:
        cb.call("cublasSetPointerMode", h, H.POINTER_HOST)


@pytest.mark.parametrize("w", WIDTHS)
@pytest.mark.parametrize("pre", PRE)
@FAST
@given(n=st.integers(0, 50),
       incx=st.integers(1, 3), incy=incs)
def test_dot_nrm2_asum(cb, h, pre, w, n, incx, incy) -> None:
    rng = np.random.default_rng(n + 7)
    x, y = vec(rng, pre, n, incx), vec(rng, pre, n, incy)
    xs, ys = strided(x, n, incx), strided(y, n, incy)
    res = np.zeros(1, dtype=H.DTYPE[pre])
    if pre in "sd":
        cb.call(name(pre, "dot", w), h, n, x, incx, y, incy, res)
        close(res[0], np.dot(xs, ys), pre, n)
        cb.ok(name(pre, "dot", w))
    else:
        cb.call(name(pre, "dotu", w), h, n, x, incx, y, incy, res)
        close(res[0], np.dot(xs, ys), pre, n)
        cb.call(name(pre, "dotc", w), h, n, x, incx, y, incy, res)
        close(res[0], np.vdot(xs, ys), pre, n)
        cb.ok(name(pre, "dotu", w), name(pre, "dotc", w))
    r = np.zeros(1, dtype=H.RTYPE[pre])
    nrm2 = {"s": "cublasSnrm2", "d": "cublasDnrm2", "c": "cublasScnrm2", "z": "cublasDznrm2"}
    asum = {"s": "cublasSasum", "d": "cublasDasum", "c": "cublasScasum", "z": "cublasDzasum"}
    cb.call(nrm2[pre] + w, h, n, x, incx, r)
    close(r[0], np.linalg.norm(xs) if n else 0.0, pre, n)
    cb.call(asum[pre] + w, h, n, x, incx, r)
    close(r[0], np.sum(np.abs(xs.real) + np.abs(xs.imag)), pre, n)
    cb.ok(nrm2[pre] + w, asum[pre] + w)


@pytest.mark.parametrize("w", WIDTHS)
@pytest.mark.parametrize("pre", PRE)
def test_amax_amin(cb, h, rng, pre, w) -> None:
    n, inc = 37, 2
    x = vec(rng, pre, n, inc)
    xs = strided(x, n, inc)
    mag = np.abs(xs.real) + np.abs(xs.imag)
    res = np.zeros(1, dtype=np.int64 if w else np.int32)
    for kind, want in (("amax", np.argmax(mag)), ("amin", np.argmin(mag))):
        entry = f"cublasI{pre}{kind}{w}"
        cb.call(entry, h, n, x, inc, res)
        assert res[0] == want + 1, entry  # 1-based, first of equals
        cb.ok(entry)


@pytest.mark.parametrize("w", WIDTHS)
@pytest.mark.parametrize("pre", PRE)
def test_rot(cb, h, rng, pre, w) -> None:
    n = 23
    x, y = rand(rng, pre, n), rand(rng, pre, n)
    c = H.real_scalar(pre, 0.6)
    forms = [(name(pre, "rot", w), scalar(pre, 0.8 + 0.3j))]
    if pre in "cz":
        forms.append(({"c": "cublasCsrot", "z": "cublasZdrot"}[pre] + w, H.real_scalar(pre, 0.8)))
    for entry, s in forms:
        x2, y2 = x.copy(), y.copy()
        cb.call(entry, h, n, x2, 1, y2, 1, c, s)
        close(x2, c[0] * x + s[0] * y, pre)
        close(y2, c[0] * y - np.conj(s[0]) * x, pre)
        cb.ok(entry)


@pytest.mark.parametrize("pre", PRE)
def test_rotg(cb, h, pre) -> None:
    a, b = scalar(pre, 3.0 + 1.0j), scalar(pre, -4.0 + 2.0j)
    a0, b0 = a[0], b[0]
    c, s = H.real_scalar(pre, 0), scalar(pre, 0)
    cb.call(name(pre, "rotg", ""), h, a, b, c, s)
    r = a[0]
    close(c[0] * a0 + s[0] * b0, r, pre)
    close(-np.conj(s[0]) * a0 + c[0] * b0, 0.0, pre)
    close(c[0] ** 2 + abs(s[0]) ** 2, 1.0, pre)
    cb.ok(name(pre, "rotg", ""))


def _rotm_h(p: np.ndarray) -> np.ndarray:
    flag = p[0]
    if flag == -1:
        return np.array([[p[1], p[3]], [p[2], p[4]]])
    if flag == 0:
        return np.array([[1.0, p[3]], [p[2], 1.0]])
    if flag == 1:
        return np.array([[p[1], 1.0], [-1.0, p[4]]])
    return np.eye(2)


@pytest.mark.parametrize("pre", ["s", "d"])
def test_rotm_rotmg(cb, h, rng, pre) -> None:
    for w in WIDTHS:
        for flag in (-1.0, 0.0, 1.0, -2.0):
            p = np.array([flag, 0.5, -0.25, 1.5, 0.75], dtype=H.DTYPE[pre])
            x, y = rand(rng, pre, 9), rand(rng, pre, 9)
            x2, y2 = x.copy(), y.copy()
            cb.call(name(pre, "rotm", w), h, 9, x2, 1, y2, 1, p)
            hm = _rotm_h(p)
            close(x2, hm[0, 0] * x + hm[0, 1] * y, pre)
            close(y2, hm[1, 0] * x + hm[1, 1] * y, pre)
        cb.ok(name(pre, "rotm", w))
    d1, d2 = scalar(pre, 2.0), scalar(pre, 3.0)
    x1, y1 = scalar(pre, 1.5), scalar(pre, -0.5)
    y10 = y1[0]
    x10 = x1[0]
    p = np.zeros(5, dtype=H.DTYPE[pre])
    cb.call(name(pre, "rotmg", ""), h, d1, d2, x1, y1, p)
    hm = _rotm_h(p)
    close(hm[1, 0] * x10 + hm[1, 1] * y10, 0.0, pre)
    close(hm[0, 0] * x10 + hm[0, 1] * y10, x1[0], pre)
    cb.ok(name(pre, "rotmg", ""))


# ---- level 2 ---------------------------------------------------------------------------

@pytest.mark.parametrize("w", WIDTHS)
@pytest.mark.parametrize("pre", PRE)
@FAST
@given(m=st.integers(0, 17),
       n=st.integers(0, 17), pad=st.integers(0, 3), t=st.sampled_from("NTC"),
       incx=incs, incy=incs)
def test_gemv(cb, h, pre, w, m, n, pad, t, incx, incy) -> None:
    rng = np.random.default_rng(m * 31 + n)
    a = mat(rng, pre, m, n, max(1, m) + pad)
    lx, ly = (n, m) if t == "N" else (m, n)
    x, y = vec(rng, pre, lx, incx), vec(rng, pre, ly, incy)
    alpha, beta = scalar(pre, 1.25 - 0.5j), scalar(pre, -0.75 + 0.25j)
    want = alpha[0] * op(a.view, t) @ strided(x, lx, incx) + beta[0] * strided(y, ly, incy)
    if m == 0 or n == 0:  # BLAS returns at once: y is left alone
        want = strided(y, ly, incy).copy()
    cb.call(name(pre, "gemv", w), h, OP[t], m, n, alpha, a.buf, a.ld, x, incx, beta, y, incy)
    close(strided(y, ly, incy), want, pre, max(m, n))
    cb.ok(name(pre, "gemv", w))


@pytest.mark.parametrize("w", WIDTHS)
@pytest.mark.parametrize("pre", PRE)
def test_gbmv_ger(cb, h, rng, pre, w) -> None:
    m, n, kl, ku = 9, 7, 2, 1
    a = rand(rng, pre, m * n).reshape(n, m).T
    ab = H.band_of(a, kl, ku)
    lda = kl + ku + 2
    buf = H.band_store(a, kl, ku, lda)
    alpha, beta = scalar(pre, 0.5 + 1j), scalar(pre, 2.0)
    for t in "NTC":
        lx, ly = (n, m) if t == "N" else (m, n)
        x, y = rand(rng, pre, lx), rand(rng, pre, ly)
        want = alpha[0] * op(ab, t) @ x + beta[0] * y
        cb.call(name(pre, "gbmv", w), h, OP[t], m, n, kl, ku, alpha, buf, lda, x, 1, beta, y, 1)
        close(y, want, pre, m)
    cb.ok(name(pre, "gbmv", w))
    x, y = rand(rng, pre, m), rand(rng, pre, n)
    kinds = [("ger", False)] if pre in "sd" else [("geru", False), ("gerc", True)]
    for kind, conj in kinds:
        c = mat(rng, pre, m, n, m + 1)
        want = c.copy() + alpha[0] * np.outer(x, np.conj(y) if conj else y)
        cb.call(name(pre, kind, w), h, m, n, alpha, x, 1, y, 1, c.buf, c.ld)
        close(c.view, want, pre)
        cb.ok(name(pre, kind, w))


@pytest.mark.parametrize("w", WIDTHS)
@pytest.mark.parametrize("pre", PRE)
def test_symv_hemv_sbmv_spmv(cb, h, rng, pre, w) -> None:
    n, k = 8, 2
    alpha, beta = scalar(pre, 0.75 - 0.5j), scalar(pre, -1.5)
    kinds = [("symv", False)] + ([("hemv", True)] if pre in "cz" else [])
    for uplo in "UL":
        a = mat(rng, pre, n, n, n + 2)
        x, y = rand(rng, pre, n), rand(rng, pre, n)
        for kind, herm in kinds:
            full = H.sym(a.view, uplo, herm)
            y2 = y.copy()
            cb.call(name(pre, kind, w), h, FILL[uplo], n, alpha, a.buf, a.ld, x, 1, beta, y2, 1)
            close(y2, alpha[0] * full @ x + beta[0] * y, pre, n)
            cb.ok(name(pre, kind, w))
        herm = pre in "cz"
        full = H.sym(a.view, uplo, herm)
        packed = {"s": "spmv", "d": "spmv", "c": "hpmv", "z": "hpmv"}[pre]
        y2 = y.copy()
        cb.call(name(pre, packed, w), h, FILL[uplo], n, alpha, H.pack(full, uplo), x, 1,
                beta, y2, 1)
        close(y2, alpha[0] * full @ x + beta[0] * y, pre, n)
        bandk = {"s": "sbmv", "d": "sbmv", "c": "hbmv", "z": "hbmv"}[pre]
        fb = H.band_of(full, k, k)
        y2 = y.copy()
        cb.call(name(pre, bandk, w), h, FILL[uplo], n, k, alpha,
                H.sym_band_store(fb, k, uplo, k + 1), k + 1, x, 1, beta, y2, 1)
        close(y2, alpha[0] * fb @ x + beta[0] * y, pre, n)
        cb.ok(name(pre, packed, w), name(pre, bandk, w))


def _tri_update(got: np.ndarray, want: np.ndarray, uplo: str, pre: str) -> None:
    close(H.tri(got, uplo), H.tri(want, uplo), pre)


@pytest.mark.parametrize("w", WIDTHS)
@pytest.mark.parametrize("pre", PRE)
def test_syr_her_spr(cb, h, rng, pre, w) -> None:
    n = 7
    for uplo in "UL":
        x, y = rand(rng, pre, n), rand(rng, pre, n)
        alpha = scalar(pre, 0.5 + 0.25j)
        a = mat(rng, pre, n, n, n + 1)
        base = a.copy()
        cb.call(name(pre, "syr", w), h, FILL[uplo], n, alpha, x, 1, a.buf, a.ld)
        _tri_update(a.view, base + alpha[0] * np.outer(x, x), uplo, pre)
        a = mat(rng, pre, n, n, n)
        base = a.copy()
        cb.call(name(pre, "syr2", w), h, FILL[uplo], n, alpha, x, 1, y, 1, a.buf, a.ld)
        _tri_update(a.view, base + alpha[0] * (np.outer(x, y) + np.outer(y, x)), uplo, pre)
        cb.ok(name(pre, "syr", w), name(pre, "syr2", w))
        if pre in "cz":
            ralpha = H.real_scalar(pre, 0.75)
            a = mat(rng, pre, n, n, n)
            base = a.copy()
            cb.call(name(pre, "her", w), h, FILL[uplo], n, ralpha, x, 1, a.buf, a.ld)
            want = base + ralpha[0] * np.outer(x, x.conj())
            np.fill_diagonal(want, np.diag(base).real + ralpha[0] * np.abs(x) ** 2)
            _tri_update(a.view, want, uplo, pre)
            a = mat(rng, pre, n, n, n)
            base = a.copy()
            cb.call(name(pre, "her2", w), h, FILL[uplo], n, alpha, x, 1, y, 1, a.buf, a.ld)
            upd = alpha[0] * np.outer(x, y.conj()) + np.conj(alpha[0]) * np.outer(y, x.conj())
            want = base + upd
            np.fill_diagonal(want, np.diag(base).real + np.diag(upd).real)
            _tri_update(a.view, want, uplo, pre)
            cb.ok(name(pre, "her", w), name(pre, "her2", w))
            # packed Hermitian rank updates
            full = H.sym(rand(rng, pre, n * n).reshape(n, n), uplo, True)
            p = H.pack(full, uplo)
            cb.call(name(pre, "hpr", w), h, FILL[uplo], n, ralpha, x, 1, p)
            close(H.unpack(p, n, uplo), H.tri(full + ralpha[0] * np.outer(x, x.conj()), uplo),
                  pre)
            p = H.pack(full, uplo)
            cb.call(name(pre, "hpr2", w), h, FILL[uplo], n, alpha, x, 1, y, 1, p)
            close(H.unpack(p, n, uplo), H.tri(full + upd, uplo), pre)
            cb.ok(name(pre, "hpr", w), name(pre, "hpr2", w))
        else:
            full = H.sym(rand(rng, pre, n * n).reshape(n, n), uplo)
            p = H.pack(full, uplo)
            cb.call(name(pre, "spr", w), h, FILL[uplo], n, alpha, x, 1, p)
            close(H.unpack(p, n, uplo), H.tri(full + alpha[0] * np.outer(x, x), uplo), pre)
            p = H.pack(full, uplo)
            cb.call(name(pre, "spr2", w), h, FILL[uplo], n, alpha, x, 1, y, 1, p)
            want = full + alpha[0] * (np.outer(x, y) + np.outer(y, x))
            close(H.unpack(p, n, uplo), H.tri(want, uplo), pre)
            cb.ok(name(pre, "spr", w), name(pre, "spr2", w))


@pytest.mark.parametrize("w", WIDTHS)
@pytest.mark.parametrize("pre", PRE)
def test_triangular_mv_sv(cb, h, rng, pre, w) -> None:
    n, k = 8, 2
    for uplo in "UL":
        for t in "NTC":
            for diag in "NU":
                a = mat(rng, pre, n, n, n + 1)
                a.view[...] += (3 * n) * np.eye(n, dtype=a.buf.dtype)  # well conditioned
                ta = H.tri(a.view, uplo, diag)
                x = rand(rng, pre, n)
                args = (FILL[uplo], OP[t], DIAG[diag], n)
                x2 = x.copy()
                cb.call(name(pre, "trmv", w), h, *args, a.buf, a.ld, x2, 1)
                close(x2, op(ta, t) @ x, pre, n)
                x2 = x.copy()
                cb.call(name(pre, "trsv", w), h, *args, a.buf, a.ld, x2, 1)
                close(op(ta, t) @ x2, x, pre, n)
                p = H.pack(ta, uplo)
                x2 = x.copy()
                cb.call(name(pre, "tpmv", w), h, *args, p, x2, 1)
                close(x2, op(ta, t) @ x, pre, n)
                x2 = x.copy()
                cb.call(name(pre, "tpsv", w), h, *args, p, x2, 1)
                close(op(ta, t) @ x2, x, pre, n)
                tb = H.band_of(ta, k, k)
                if diag == "U":
                    np.fill_diagonal(tb, 1)
                bs = H.sym_band_store(H.tri(a.view, uplo), k, uplo, k + 1)
                x2 = x.copy()
                cb.call(name(pre, "tbmv", w), h, FILL[uplo], OP[t], DIAG[diag], n, k, bs, k + 1,
                        x2, 1)
                close(x2, op(tb, t) @ x, pre, n)
                x2 = x.copy()
                cb.call(name(pre, "tbsv", w), h, FILL[uplo], OP[t], DIAG[diag], n, k, bs, k + 1,
                        x2, 1)
                close(op(tb, t) @ x2, x, pre, n)
    cb.ok(*(name(pre, f, w) for f in ("trmv", "trsv", "tpmv", "tpsv", "tbmv", "tbsv")))


@pytest.mark.parametrize("w", WIDTHS)
@pytest.mark.parametrize("pre", PRE)
def test_gemv_batched(cb, h, rng, pre, w) -> None:
    m, n, batch = 6, 5, 3
    alpha, beta = scalar(pre, 1.5), scalar(pre, 0.5 - 1j)
    for t in "NT":
        lx, ly = (n, m) if t == "N" else (m, n)
        As = [mat(rng, pre, m, n, m) for _ in range(batch)]
        xs = [rand(rng, pre, lx) for _ in range(batch)]
        ys = [rand(rng, pre, ly) for _ in range(batch)]
        want = [alpha[0] * op(a.view, t) @ x + beta[0] * y for a, x, y in zip(As, xs, ys, strict=True)]
        cb.call(name(pre, "gemvBatched", w), h, OP[t], m, n, alpha, [a.buf for a in As], m,
                xs, 1, beta, ys, 1, batch)
        for got, ref in zip(ys, want, strict=True):
            close(got, ref, pre, n)
        A = np.concatenate([a.buf for a in As])
        X = np.concatenate([x for x in xs])
        Y = np.concatenate([rand(rng, pre, ly) for _ in range(batch)])
        Y0 = Y.copy()
        cb.call(name(pre, "gemvStridedBatched", w), h, OP[t], m, n, alpha, A, m, m * n, X, 1, lx,
                beta, Y, 1, ly, batch)
        for i, a in enumerate(As):
            close(Y[i * ly:(i + 1) * ly],
                  alpha[0] * op(a.view, t) @ xs[i] + beta[0] * Y0[i * ly:(i + 1) * ly], pre, n)
    cb.ok(name(pre, "gemvBatched", w), name(pre, "gemvStridedBatched", w))


# ---- level 3 ---------------------------------------------------------------------------

@pytest.mark.parametrize("w", WIDTHS)
@pytest.mark.parametrize("pre", PRE)
@FAST
@given(m=st.integers(0, 12),
       n=st.integers(0, 12), k=st.integers(0, 12), ta=st.sampled_from("NTC"),
       tb=st.sampled_from("NTC"), pad=st.integers(0, 2),
       mode=st.sampled_from([H.POINTER_HOST, H.POINTER_DEVICE]))
def test_gemm(cb, h, pre, w, m, n, k, ta, tb, pad, mode) -> None:
    rng = np.random.default_rng(m * 100 + n * 10 + k)
    ar, ac = (m, k) if ta == "N" else (k, m)
    br, bc = (k, n) if tb == "N" else (n, k)
    a, b = mat(rng, pre, ar, ac, max(1, ar) + pad), mat(rng, pre, br, bc, max(1, br) + pad)
    c = mat(rng, pre, m, n, max(1, m) + pad)
    alpha, beta = scalar(pre, 0.5 + 0.5j), scalar(pre, -1.0 + 0.25j)
    want = alpha[0] * op(a.view, ta) @ op(b.view, tb) + beta[0] * c.view
    cb.call("cublasSetPointerMode", h, mode)
    try:
        cb.call(name(pre, "gemm", w), h, OP[ta], OP[tb], m, n, k, alpha, a.buf, a.ld, b.buf,
                b.ld, beta, c.buf, c.ld)
    finally:
        cb.call("cublasSetPointerMode", h, H.POINTER_HOST)
    close(c.view, want, pre, k)
    cb.ok(name(pre, "gemm", w), "cublasSetPointerMode")


@pytest.mark.parametrize("w", WIDTHS)
def test_hgemm(cb, h, rng, w) -> None:
    m, n, k = 5, 4, 6
    a = rng.standard_normal((m, k)).astype(np.float16)
    b = rng.standard_normal((k, n)).astype(np.float16)
    c = rng.standard_normal((m, n)).astype(np.float16)
    alpha, beta = np.array([0.5], np.float16), np.array([1.0], np.float16)
    want = 0.5 * a.astype(np.float32) @ b.astype(np.float32) + c.astype(np.float32)
    af, bf, cf = (np.asfortranarray(x).ravel(order="F").copy() for x in (a, b, c))
    cb.call(f"cublasHgemm{w}", h, 0, 0, m, n, k, alpha, af, m, bf, k, beta, cf, m)
    got = cf.reshape(n, m).T.astype(np.float32)
    assert np.max(np.abs(got - want)) < 0.05
    cb.ok(f"cublasHgemm{w}")
    # batched: the same problem twice, by pointer arrays and by strides
    cs = [cf0.copy() for cf0 in (np.asfortranarray(c).ravel(order="F"),) * 2]
    cb.call(f"cublasHgemmBatched{w}", h, 0, 0, m, n, k, alpha, [af, af], m, [bf, bf], k, beta,
            cs, m, 2)
    for ci in cs:
        assert np.max(np.abs(ci.reshape(n, m).T.astype(np.float32) - want)) < 0.05
    C = np.concatenate([np.asfortranarray(c).ravel(order="F")] * 2)
    cb.call(f"cublasHgemmStridedBatched{w}", h, 0, 0, m, n, k, alpha, np.concatenate([af, af]), m,
            m * k, np.concatenate([bf, bf]), k, k * n, beta, C, m, m * n, 2)
    for i in range(2):
        got = C[i * m * n:(i + 1) * m * n].reshape(n, m).T.astype(np.float32)
        assert np.max(np.abs(got - want)) < 0.05
    cb.ok(f"cublasHgemmBatched{w}", f"cublasHgemmStridedBatched{w}")


@pytest.mark.parametrize("w", WIDTHS)
@pytest.mark.parametrize("pre", PRE)
def test_gemm_batched(cb, h, rng, pre, w) -> None:
    m, n, k, batch = 4, 5, 3, 3
    alpha, beta = scalar(pre, 1.5 - 0.5j), scalar(pre, 0.25)
    As = [mat(rng, pre, k, m) for _ in range(batch)]  # op = T
    Bs = [mat(rng, pre, k, n) for _ in range(batch)]
    Cs = [mat(rng, pre, m, n) for _ in range(batch)]
    want = [alpha[0] * a.view.T @ b.view + beta[0] * c.view for a, b, c in zip(As, Bs, Cs, strict=True)]
    cb.call(name(pre, "gemmBatched", w), h, OP["T"], OP["N"], m, n, k, alpha,
            [a.buf for a in As], k, [b.buf for b in Bs], k, beta, [c.buf for c in Cs], m, batch)
    for c, ref in zip(Cs, want, strict=True):
        close(c.view, ref, pre, k)
    A = np.concatenate([a.buf for a in As])
    B = np.concatenate([b.buf for b in Bs])
    C = np.concatenate([mat(rng, pre, m, n).buf for _ in range(batch)])
    C0 = C.copy()
    cb.call(name(pre, "gemmStridedBatched", w), h, OP["T"], OP["N"], m, n, k, alpha, A, k, k * m,
            B, k, k * n, beta, C, m, m * n, batch)
    for i in range(batch):
        ci = H.Mat(C[i * m * n:(i + 1) * m * n], m, n, m).view
        c0 = H.Mat(C0[i * m * n:(i + 1) * m * n], m, n, m).view
        close(ci, alpha[0] * As[i].view.T @ Bs[i].view + beta[0] * c0, pre, k)
    cb.ok(name(pre, "gemmBatched", w), name(pre, "gemmStridedBatched", w))


@pytest.mark.parametrize("w", WIDTHS)
@pytest.mark.parametrize("pre", PRE)
def test_symm_hemm(cb, h, rng, pre, w) -> None:
    m, n = 6, 5
    alpha, beta = scalar(pre, 0.5 - 1j), scalar(pre, 1.5)
    kinds = [("symm", False)] + ([("hemm", True)] if pre in "cz" else [])
    for kind, herm in kinds:
        for side in "LR":
            for uplo in "UL":
                ka = m if side == "L" else n
                a, b, c = mat(rng, pre, ka, ka, ka + 1), mat(rng, pre, m, n), mat(rng, pre, m, n)
                full = H.sym(a.view, uplo, herm)
                prod = full @ b.view if side == "L" else b.view @ full
                want = alpha[0] * prod + beta[0] * c.view
                cb.call(name(pre, kind, w), h, SIDE[side], FILL[uplo], m, n, alpha, a.buf, a.ld,
                        b.buf, b.ld, beta, c.buf, c.ld)
                close(c.view, want, pre, ka)
        cb.ok(name(pre, kind, w))


@pytest.mark.parametrize("w", WIDTHS)
@pytest.mark.parametrize("pre", PRE)
def test_rank_k(cb, h, rng, pre, w) -> None:
    n, k = 6, 4
    cplx = pre in "cz"
    alpha, beta = scalar(pre, 0.75 + 0.5j), scalar(pre, -0.5 + 0.25j)
    for uplo in "UL":
        for t in "NT":
            ar, ac = (n, k) if t == "N" else (k, n)
            a, b = mat(rng, pre, ar, ac), mat(rng, pre, ar, ac)
            oa, ob = op(a.view, t), op(b.view, t)
            c = mat(rng, pre, n, n)
            base = c.copy()
            cb.call(name(pre, "syrk", w), h, FILL[uplo], OP[t], n, k, alpha, a.buf, a.ld, beta,
                    c.buf, c.ld)
            _tri_update(c.view, alpha[0] * oa @ oa.T + beta[0] * base, uplo, pre)
            c = mat(rng, pre, n, n)
            base = c.copy()
            cb.call(name(pre, "syr2k", w), h, FILL[uplo], OP[t], n, k, alpha, a.buf, a.ld, b.buf,
                    b.ld, beta, c.buf, c.ld)
            want = alpha[0] * (oa @ ob.T + ob @ oa.T) + beta[0] * base
            _tri_update(c.view, want, uplo, pre)
            c = mat(rng, pre, n, n)
            base = c.copy()
            cb.call(name(pre, "syrkx", w), h, FILL[uplo], OP[t], n, k, alpha, a.buf, a.ld, b.buf,
                    b.ld, beta, c.buf, c.ld)
            _tri_update(c.view, alpha[0] * oa @ ob.T + beta[0] * base, uplo, pre)
        if cplx:
            for t in "NC":
                ar, ac = (n, k) if t == "N" else (k, n)
                a, b = mat(rng, pre, ar, ac), mat(rng, pre, ar, ac)
                oa, ob = op(a.view, t), op(b.view, t)
                ra, rb = H.real_scalar(pre, 0.5), H.real_scalar(pre, 2.0)
                herm_base = H.sym(mat(rng, pre, n, n).view, uplo, True)
                c = H.Mat(np.asfortranarray(herm_base).ravel(order="F").copy(), n, n, n)
                cb.call(name(pre, "herk", w), h, FILL[uplo], OP[t], n, k, ra, a.buf, a.ld, rb,
                        c.buf, c.ld)
                _tri_update(c.view, ra[0] * oa @ oa.conj().T + rb[0] * herm_base, uplo, pre)
                c = H.Mat(np.asfortranarray(herm_base).ravel(order="F").copy(), n, n, n)
                cb.call(name(pre, "her2k", w), h, FILL[uplo], OP[t], n, k, alpha, a.buf, a.ld,
                        b.buf, b.ld, rb, c.buf, c.ld)
                want = (alpha[0] * oa @ ob.conj().T + np.conj(alpha[0]) * ob @ oa.conj().T
                        + rb[0] * herm_base)
                _tri_update(c.view, want, uplo, pre)
                c = H.Mat(np.asfortranarray(herm_base).ravel(order="F").copy(), n, n, n)
                cb.call(name(pre, "herkx", w), h, FILL[uplo], OP[t], n, k, alpha, a.buf, a.ld,
                        b.buf, b.ld, rb, c.buf, c.ld)
                want = alpha[0] * oa @ ob.conj().T + rb[0] * herm_base
                np.fill_diagonal(want, np.diag(want).real)  # a Hermitian result's diagonal
                _tri_update(c.view, want, uplo, pre)
    cb.ok(*(name(pre, f, w) for f in ("syrk", "syr2k", "syrkx")))
    if cplx:
        cb.ok(*(name(pre, f, w) for f in ("herk", "her2k", "herkx")))


@pytest.mark.parametrize("w", WIDTHS)
@pytest.mark.parametrize("pre", PRE)
def test_trmm_trsm(cb, h, rng, pre, w) -> None:
    m, n = 5, 4
    alpha = scalar(pre, 1.5 - 0.5j)
    for side in "LR":
        for uplo in "UL":
            for t in "NTC":
                for diag in "NU":
                    ka = m if side == "L" else n
                    a = mat(rng, pre, ka, ka, ka + 1)
                    a.view[...] += (2 * ka) * np.eye(ka, dtype=a.buf.dtype)
                    ta = op(H.tri(a.view, uplo, diag), t)
                    b, c = mat(rng, pre, m, n), mat(rng, pre, m, n, m + 2)
                    args = (SIDE[side], FILL[uplo], OP[t], DIAG[diag], m, n, alpha, a.buf, a.ld)
                    cb.call(name(pre, "trmm", w), h, *args, b.buf, b.ld, c.buf, c.ld)
                    prod = ta @ b.view if side == "L" else b.view @ ta
                    close(c.view, alpha[0] * prod, pre, ka)
                    x = b.copy()
                    cb.call(name(pre, "trsm", w), h, *args, b.buf, b.ld)
                    back = ta @ b.view if side == "L" else b.view @ ta
                    close(back, alpha[0] * x, pre, ka)
    cb.ok(name(pre, "trmm", w), name(pre, "trsm", w))


@pytest.mark.parametrize("w", WIDTHS)
@pytest.mark.parametrize("pre", PRE)
def test_trsm_batched(cb, h, rng, pre, w) -> None:
    m, n, batch = 4, 3, 3
    alpha = scalar(pre, 2.0)
    As = [mat(rng, pre, m, m) for _ in range(batch)]
    for a in As:
        a.view[...] += 8 * np.eye(m, dtype=a.buf.dtype)
    Bs = [mat(rng, pre, m, n) for _ in range(batch)]
    B0 = [b.copy() for b in Bs]
    cb.call(name(pre, "trsmBatched", w), h, SIDE["L"], FILL["L"], OP["N"], DIAG["N"], m, n, alpha,
            [a.buf for a in As], m, [b.buf for b in Bs], m, batch)
    for a, b, b0 in zip(As, Bs, B0, strict=True):
        close(np.tril(a.view) @ b.view, alpha[0] * b0, pre, m)
    cb.ok(name(pre, "trsmBatched", w))


@pytest.mark.parametrize("w", WIDTHS)
@pytest.mark.parametrize("pre", PRE)
def test_geam_dgmm(cb, h, rng, pre, w) -> None:
    m, n = 5, 6
    alpha, beta = scalar(pre, 0.5 + 1j), scalar(pre, -2.0)
    for ta in "NTC":
        for tb in "NT":
            a = mat(rng, pre, *((m, n) if ta == "N" else (n, m)))
            b = mat(rng, pre, *((m, n) if tb == "N" else (n, m)))
            c = mat(rng, pre, m, n, m + 1)
            cb.call(name(pre, "geam", w), h, OP[ta], OP[tb], m, n, alpha, a.buf, a.ld, beta, b.buf,
                    b.ld, c.buf, c.ld)
            close(c.view, alpha[0] * op(a.view, ta) + beta[0] * op(b.view, tb), pre)
    for side in "LR":
        a, c = mat(rng, pre, m, n), mat(rng, pre, m, n)
        x = rand(rng, pre, m if side == "L" else n)
        cb.call(name(pre, "dgmm", w), h, SIDE[side], m, n, a.buf, a.ld, x, 1, c.buf, c.ld)
        want = np.diag(x) @ a.view if side == "L" else a.view @ np.diag(x)
        close(c.view, want, pre)
    cb.ok(name(pre, "geam", w), name(pre, "dgmm", w))


# CUDA_R_32F 0, CUDA_R_64F 1, CUDA_C_32F 4, CUDA_C_64F 5; CUBLAS_COMPUTE_32F 68, _64F 70
EX_TYPES = {"s": (0, 68), "d": (1, 70), "c": (4, 68), "z": (5, 70)}


@pytest.mark.parametrize("w", WIDTHS)
@pytest.mark.parametrize("pre", PRE)
def test_gemm_ex_family(cb, h, rng, pre, w) -> None:
    m, n, k, batch = 4, 3, 5, 2
    dt, ct = EX_TYPES[pre]
    alpha, beta = scalar(pre, 1.25), scalar(pre, -0.5)
    a, b, c = mat(rng, pre, m, k), mat(rng, pre, k, n), mat(rng, pre, m, n)
    want = alpha[0] * a.view @ b.view + beta[0] * c.view
    cb.call(f"cublasGemmEx{w}", h, 0, 0, m, n, k, alpha, a.buf, dt, m, b.buf, dt, k, beta, c.buf,
            dt, m, ct, -1)
    close(c.view, want, pre, k)
    As = [mat(rng, pre, m, k) for _ in range(batch)]
    Bs = [mat(rng, pre, k, n) for _ in range(batch)]
    Cs = [mat(rng, pre, m, n) for _ in range(batch)]
    wants = [alpha[0] * x.view @ y.view + beta[0] * z.view for x, y, z in zip(As, Bs, Cs, strict=True)]
    cb.call(f"cublasGemmBatchedEx{w}", h, 0, 0, m, n, k, alpha, [x.buf for x in As], dt, m,
            [y.buf for y in Bs], dt, k, beta, [z.buf for z in Cs], dt, m, batch, ct, -1)
    for z, ref in zip(Cs, wants, strict=True):
        close(z.view, ref, pre, k)
    A = np.concatenate([x.buf for x in As])
    B = np.concatenate([y.buf for y in Bs])
    C = np.concatenate([mat(rng, pre, m, n).buf for _ in range(batch)])
    C0 = C.copy()
    cb.call(f"cublasGemmStridedBatchedEx{w}", h, 0, 0, m, n, k, alpha, A, dt, m, m * k, B, dt, k,
            k * n, beta, C, dt, m, m * n, batch, ct, -1)
    for i in range(batch):
        ci = H.Mat(C[i * m * n:(i + 1) * m * n], m, n, m).view
        c0 = H.Mat(C0[i * m * n:(i + 1) * m * n], m, n, m).view
        close(ci, alpha[0] * As[i].view @ Bs[i].view + beta[0] * c0, pre, k)
    cb.ok(f"cublasGemmEx{w}", f"cublasGemmBatchedEx{w}", f"cublasGemmStridedBatchedEx{w}")


# the level 1 *Ex family: data and execution types as cudaDataType (s/d/c/z only here)
@pytest.mark.parametrize("w", WIDTHS)
@pytest.mark.parametrize("pre", PRE)
def test_level1_ex(cb, h, rng, pre, w) -> None:
    n = 11
    dt, _ct = EX_TYPES[pre]
    rt = EX_TYPES["s" if pre in "sc" else "d"][0]
    x, y = rand(rng, pre, n), rand(rng, pre, n)
    alpha = scalar(pre, 0.5 - 0.25j)
    y2 = y.copy()
    st = cb.raw(f"cublasAxpyEx{w}", h, n, alpha, dt, x, dt, 1, y2, dt, 1, dt)
    if st == 15:  # CUBLAS_STATUS_NOT_SUPPORTED: the CPU device has no rocblas_*_ex yet
        pytest.skip("the backend's rocblas_axpy_ex is not implemented")
    assert st == 0
    close(y2, y + alpha[0] * x, pre)
    res = np.zeros(1, H.DTYPE[pre])
    cb.call(f"cublasDotEx{w}", h, n, x, dt, 1, y, dt, 1, res, dt, dt)
    close(res[0], np.dot(x, y), pre, n)
    entries = [f"cublasAxpyEx{w}", f"cublasDotEx{w}"]
    if pre in "cz":
        cb.call(f"cublasDotcEx{w}", h, n, x, dt, 1, y, dt, 1, res, dt, dt)
        close(res[0], np.vdot(x, y), pre, n)
        entries.append(f"cublasDotcEx{w}")
    nrm = np.zeros(1, H.RTYPE[pre])
    cb.call(f"cublasNrm2Ex{w}", h, n, x, dt, 1, nrm, rt, rt)
    close(nrm[0], np.linalg.norm(x), pre, n)
    x2 = x.copy()
    cb.call(f"cublasScalEx{w}", h, n, alpha, dt, x2, dt, 1, dt)
    close(x2, alpha[0] * x, pre)
    x3, y3 = x.copy(), y.copy()
    c, s = H.real_scalar(pre, 0.6), H.real_scalar(pre, 0.8)
    cb.call(f"cublasRotEx{w}", h, n, x3, dt, 1, y3, dt, 1, c, s, rt, dt)
    close(x3, c[0] * x + s[0] * y, pre)
    close(y3, c[0] * y - s[0] * x, pre)
    cb.ok(*entries, f"cublasNrm2Ex{w}", f"cublasScalEx{w}", f"cublasRotEx{w}")


# batched LAPACK-like routines (rocSOLVER underneath)
@pytest.mark.parametrize("pre", PRE)
def test_batched_lu_and_least_squares(cb, h, rng, pre) -> None:
    import scipy.linalg as sla

    P = pre.upper()
    n, nrhs, batch = 5, 2, 3
    mats = [(rand(rng, pre, n * n).reshape(n, n) + n * np.eye(n)).astype(H.DTYPE[pre])
            for _ in range(batch)]
    bufs = [np.asfortranarray(a).ravel(order="F").copy() for a in mats]
    piv = np.zeros(n * batch, np.int32)
    info = np.full(batch, -7, np.int32)
    cb.call(f"cublas{P}getrfBatched", h, n, bufs, n, piv, info, batch)
    assert list(info) == [0] * batch
    for i, a in enumerate(mats):
        lu, p = sla.lu_factor(a)
        close(bufs[i].reshape(n, n).T, lu, pre, n)
        assert np.array_equal(piv[i * n:(i + 1) * n], p + 1)
    rhs = [rand(rng, pre, n * nrhs) for _ in range(batch)]
    xs = [r.copy() for r in rhs]
    host_info = np.full(1, -7, np.int32)
    cb.call(f"cublas{P}getrsBatched", h, OP["N"], n, nrhs, bufs, n, piv, xs, n, host_info,
            batch)
    assert host_info[0] == 0
    for a, x, r in zip(mats, xs, rhs, strict=True):
        close(a @ x.reshape(nrhs, n).T, r.reshape(nrhs, n).T, pre, n)
    assert cb.raw(f"cublas{P}getrsBatched", h, OP["N"], n, nrhs, bufs, n - 1, piv, xs, n,
                  host_info, batch) == 7
    assert host_info[0] == -6  # lda, the 6th argument
    invs = [np.zeros(n * n, H.DTYPE[pre]) for _ in range(batch)]
    cb.call(f"cublas{P}getriBatched", h, n, bufs, n, piv, invs, n, info, batch)
    assert list(info) == [0] * batch
    for a, inv in zip(mats, invs, strict=True):
        close(inv.reshape(n, n).T, np.linalg.inv(a), pre, n)
    # least squares, overdetermined
    m = 8
    As = [rand(rng, pre, m * n) for _ in range(batch)]
    Cs = [rand(rng, pre, m * nrhs) for _ in range(batch)]
    refs = [np.linalg.lstsq(a.reshape(n, m).T, c.reshape(nrhs, m).T, rcond=None)[0]
            for a, c in zip(As, Cs, strict=True)]
    dev_info = np.full(batch, -7, np.int32)
    cb.call(f"cublas{P}gelsBatched", h, OP["N"], m, n, nrhs, As, m, Cs, m, host_info, dev_info,
            batch)
    assert host_info[0] == 0 and list(dev_info) == [0] * batch
    for c, ref in zip(Cs, refs, strict=True):
        close(c.reshape(nrhs, m).T[:n], ref, pre, m)
    cb.ok(*(f"cublas{P}{r}Batched" for r in ("getrf", "getrs", "getri", "gels")))


@pytest.mark.parametrize("pre", PRE)
def test_batched_qr(cb, h, rng, pre) -> None:
    """geqrfBatched: each matrix's R and Householder vectors and its own tau vector, as
    LAPACK's geqrf (scipy.linalg.qr mode='raw') gives them; bad arguments in host info."""
    import scipy.linalg as sla

    P = pre.upper()
    batch = 3
    for m, n in ((6, 4), (3, 5)):
        lda = m + 1
        mats = [rand(rng, pre, m * n).reshape(n, m).T for _ in range(batch)]
        bufs = []
        for a in mats:
            buf = np.zeros(lda * n, H.DTYPE[pre])
            buf.reshape(n, lda).T[:m] = a
            bufs.append(buf)
        k = min(m, n)
        taus = [np.full(k + 1, 7, H.DTYPE[pre]) for _ in range(batch)]
        info = np.full(1, -7, np.int32)
        cb.call(f"cublas{P}geqrfBatched", h, m, n, bufs, lda, taus, info, batch)
        assert info[0] == 0
        for a, buf, tau in zip(mats, bufs, taus, strict=True):
            (qr, want_tau), r = sla.qr(a, mode="raw")
            close(buf.reshape(n, lda).T[:m], qr, pre, m)
            close(tau[:k], want_tau, pre, m)
            assert tau[k] == 7  # nothing past min(m, n) written
            close(np.triu(buf.reshape(n, lda).T[:k]), r, pre, m)
    before = [b.copy() for b in bufs]
    for args, bad in (((-1, n, bufs, lda), 2), ((m, -1, bufs, lda), 3),
                      ((m, n, bufs, m - 1), 5)):
        info[0] = 7
        assert cb.raw(f"cublas{P}geqrfBatched", h, *args, taus, info, batch) == 7
        assert info[0] == -bad
    info[0] = 7
    assert cb.raw(f"cublas{P}geqrfBatched", h, m, n, bufs, lda, taus, info, -1) == 7
    assert info[0] == -8
    assert all(np.array_equal(b, c) for b, c in zip(bufs, before, strict=True))
    cb.ok(f"cublas{P}geqrfBatched")


@pytest.mark.parametrize("w", WIDTHS)
def test_gemm_ex_and_3m(cb, h, rng, w) -> None:
    m, n, k, batch = 4, 5, 3, 2
    for pre, entries in (("s", ["cublasSgemmEx"]), ("c", ["cublasCgemmEx", "cublasCgemm3mEx"])):
        dt = EX_TYPES[pre][0]
        alpha, beta = scalar(pre, 0.75 + 0.5j), scalar(pre, -1.25)
        for entry in entries:
            a, b, c = mat(rng, pre, k, m), mat(rng, pre, k, n), mat(rng, pre, m, n, m + 1)
            want = alpha[0] * a.view.T @ b.view + beta[0] * c.view
            cb.call(entry + w, h, OP["T"], OP["N"], m, n, k, alpha, a.buf, dt, a.ld, b.buf, dt,
                    b.ld, beta, c.buf, dt, c.ld)
            close(c.view, want, pre, k)
            cb.ok(entry + w)
    for pre in "cz":
        alpha, beta = scalar(pre, 1.5 - 0.5j), scalar(pre, 0.5j)
        a, b, c = mat(rng, pre, m, k), mat(rng, pre, n, k), mat(rng, pre, m, n)
        want = alpha[0] * a.view @ b.view.conj().T + beta[0] * c.view
        cb.call(f"cublas{pre.upper()}gemm3m{w}", h, OP["N"], OP["C"], m, n, k, alpha, a.buf,
                a.ld, b.buf, b.ld, beta, c.buf, c.ld)
        close(c.view, want, pre, k)
        cb.ok(f"cublas{pre.upper()}gemm3m{w}")
    pre = "c"
    alpha, beta = scalar(pre, 1.5 - 0.5j), scalar(pre, 0.5j)
    As = [mat(rng, pre, m, k) for _ in range(batch)]
    Bs = [mat(rng, pre, k, n) for _ in range(batch)]
    Cs = [mat(rng, pre, m, n) for _ in range(batch)]
    wants = [alpha[0] * x.view @ y.view + beta[0] * z.view for x, y, z in zip(As, Bs, Cs,
                                                                             strict=True)]
    cb.call(f"cublasCgemm3mBatched{w}", h, 0, 0, m, n, k, alpha, [x.buf for x in As], m,
            [y.buf for y in Bs], k, beta, [z.buf for z in Cs], m, batch)
    for z, ref in zip(Cs, wants, strict=True):
        close(z.view, ref, pre, k)
    A = np.concatenate([x.buf for x in As])
    B = np.concatenate([y.buf for y in Bs])
    C = np.concatenate([mat(rng, pre, m, n).buf for _ in range(batch)])
    C0 = C.copy()
    cb.call(f"cublasCgemm3mStridedBatched{w}", h, 0, 0, m, n, k, alpha, A, m, m * k, B, k,
            k * n, beta, C, m, m * n, batch)
    for i in range(batch):
        ci = H.Mat(C[i * m * n:(i + 1) * m * n], m, n, m).view
        c0 = H.Mat(C0[i * m * n:(i + 1) * m * n], m, n, m).view
        close(ci, alpha[0] * As[i].view @ Bs[i].view + beta[0] * c0, pre, k)
    cb.ok(f"cublasCgemm3mBatched{w}", f"cublasCgemm3mStridedBatched{w}")
