"""rocBLAS gemm_ex / gemm_batched_ex / gemm_strided_batched_ex and hgemm on the CPU device."""

from __future__ import annotations

import ctypes
import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).parent / "cpu_blas"))
import harness as H  # noqa: E402
from harness import OP, E, S  # noqa: E402

DT = {"f16": 150, "f32": 151, "f64": 152, "c32": 154, "c64": 155, "bf16": 168, "i8": 160}
NP = {"f16": np.float16, "f32": np.float32, "f64": np.float64, "c32": np.complex64,
      "c64": np.complex128}


@pytest.fixture(scope="module")
def rb() -> H.Rb:
    return H.Rb(H.build_libs())


def to_bf16(x: np.ndarray) -> np.ndarray:
    """float32 -> bf16 bits (round to nearest even), as uint16."""
    b = x.astype(np.float32).view(np.uint32).astype(np.uint64)
    b = (b + 0x7FFF + ((b >> 16) & 1)) >> 16
    return b.astype(np.uint16)


def from_bf16(b: np.ndarray) -> np.ndarray:
    return (b.astype(np.uint32) << 16).view(np.float32)


def tail(comp):
    return [E(DT[comp]), E(0), ctypes.c_int32(0), ctypes.c_uint32(0)]


@pytest.mark.parametrize("ab,cd,comp", [("f32", "f32", "f32"), ("f64", "f64", "f64"),
                                        ("c32", "c32", "c32"), ("c64", "c64", "c64"),
                                        ("f16", "f16", "f32"), ("f16", "f32", "f32"),
                                        ("f16", "f16", "f16"), ("bf16", "bf16", "f32"),
                                        ("bf16", "f32", "f32")])
@pytest.mark.parametrize("w", ["", "_64"])
def test_gemm_ex_types(rb, ab, cd, comp, w):
    rng = np.random.default_rng(0)
    m, n, k, batch = 5, 4, 6, 3
    ta, tb = "T", "N"
    lda, ldb, ldc, ldd = k + 1, k, m + 2, m + 1

    def make(dtname, shape):
        x = rng.standard_normal(shape).astype(np.float32)
        if dtname in ("c32", "c64"):
            x = x + 1j * rng.standard_normal(shape)
        if dtname == "bf16":
            bits = to_bf16(x)
            return bits, from_bf16(bits)
        arr = x.astype(NP[dtname])
        return arr, arr.astype(np.complex128 if dtname.startswith("c") else np.float64)

    def buf(a, ld, dtype):
        out = np.zeros(ld * a.shape[1], dtype=dtype)
        for j in range(a.shape[1]):
            out[j * ld:j * ld + a.shape[0]] = a[:, j]
        return out

    As = [make(ab, (k, m)) for _ in range(batch)]
    Bs = [make(ab, (k, n)) for _ in range(batch)]
    Cs = [make(cd, (m, n)) for _ in range(batch)]
    st_a = lda * m + 2
    st_b, st_c, st_d = ldb * n + 1, ldc * n, ldd * n + 3
    raw = {"bf16": np.uint16}

    def big(items, ld, stride, dtname):
        dt = raw.get(dtname, NP.get(dtname))
        out = np.zeros(stride * batch, dtype=dt)
        for i, (r, _) in enumerate(items):
            b = buf(r, ld, dt)
            out[i * stride:i * stride + b.size] = b
        return out

    a, b, c = big(As, lda, st_a, ab), big(Bs, ldb, st_b, ab), big(Cs, ldc, st_c, cd)
    d = np.zeros(st_d * batch, dtype=c.dtype)
    sdt = raw.get(comp, NP[comp])
    if comp == "f16":
        alpha, beta = np.array([1.5], np.float16), np.array([-0.5], np.float16)
    else:
        alpha, beta = np.array([1.5], sdt), np.array([-0.5], sdt)
    st_ = rb.call(f"rocblas_gemm_strided_batched_ex{w}", E(OP[ta]), E(OP[tb]), m, n, k, alpha,
                  a, E(DT[ab]), lda, S(st_a), b, E(DT[ab]), ldb, S(st_b), beta, c, E(DT[cd]),
                  ldc, S(st_c), d, E(DT[cd]), ldd, S(st_d), batch, *tail(comp))
    assert st_ == H.ST_SUCCESS
    tol = {"f32": 1e-4, "f64": 1e-12, "c32": 1e-4, "c64": 1e-12}.get(cd, 2e-2)
    if cd == "bf16":
        tol = 5e-2
    for i in range(batch):
        want = 1.5 * As[i][1].T @ Bs[i][1] - 0.5 * Cs[i][1]
        got = d[i * st_d:i * st_d + ldd * n]
        got = from_bf16(got) if cd == "bf16" else got
        got = np.stack([got[j * ldd:j * ldd + m] for j in range(n)], axis=1)
        assert np.allclose(got.astype(want.dtype), want, rtol=tol, atol=tol * 4), (i, got, want)


def test_gemm_ex_plain_batched_and_errors(rb):
    rng = np.random.default_rng(1)
    m = n = k = 3
    A, B, C = (rng.standard_normal((3, 3)) for _ in range(3))
    fa, fb, fc = (x.ravel(order="F").copy() for x in (A, B, C))
    one, zero = np.array([1.0]), np.array([0.0])
    f64 = E(DT["f64"])
    # in place: c == d
    assert rb.call("rocblas_gemm_ex", E(OP["N"]), E(OP["N"]), m, n, k, one, fa, f64, 3, fb, f64,
                   3, one, fc, f64, 3, fc, f64, 3, *tail("f64")) == 0
    assert np.allclose(fc.reshape(3, 3, order="F"), A @ B + C)
    pa = np.array([fa.ctypes.data] * 2, np.uint64)
    pb = np.array([fb.ctypes.data] * 2, np.uint64)
    d1, d2 = np.zeros(9), np.zeros(9)
    pd = np.array([d1.ctypes.data, d2.ctypes.data], np.uint64)
    assert rb.call("rocblas_gemm_batched_ex", E(OP["N"]), E(OP["T"]), m, n, k, one, pa, f64, 3,
                   pb, f64, 3, zero, pd, f64, 3, pd, f64, 3, 2, *tail("f64")) == 0
    assert np.allclose(d1.reshape(3, 3, order="F"), A @ B.T) and np.array_equal(d1, d2)
    # unsupported type combination and bad sizes
    assert rb.call("rocblas_gemm_ex", E(OP["N"]), E(OP["N"]), m, n, k, one, fa, E(DT["i8"]), 3,
                   fb, E(DT["i8"]), 3, one, fc, f64, 3, fc, f64, 3, *tail("f64")) == \
        H.ST_NOT_IMPLEMENTED
    assert rb.call("rocblas_gemm_ex", E(OP["N"]), E(OP["N"]), m, n, k, one, fa, f64, 2, fb, f64,
                   3, one, fc, f64, 3, fc, f64, 3, *tail("f64")) == H.ST_INVALID_SIZE
    assert rb.call("rocblas_gemm_ex", E(5), E(OP["N"]), m, n, k, one, fa, f64, 3, fb, f64,
                   3, one, fc, f64, 3, fc, f64, 3, *tail("f64")) == H.ST_INVALID_VALUE


def test_hgemm(rb):
    rng = np.random.default_rng(2)
    A = rng.standard_normal((4, 3)).astype(np.float16)
    B = rng.standard_normal((3, 5)).astype(np.float16)
    C = np.zeros((4, 5), np.float16)
    fa, fb, fc = (x.ravel(order="F").copy() for x in (A, B, C))
    assert rb.call("rocblas_hgemm", E(OP["N"]), E(OP["N"]), 4, 5, 3, np.array([1], np.float16),
                   fa, 4, fb, 3, np.array([0], np.float16), fc, 4) == 0
    want = A.astype(np.float32) @ B.astype(np.float32)
    assert np.allclose(fc.reshape(4, 5, order="F").astype(np.float32), want, atol=1e-2)


def test_half_conversion_roundtrip(rb):
    """Every finite f16 value survives f16 -> f32 -> sgemm(x1) -> f16 exactly."""
    vals = np.arange(0, 0x7C00, 7, dtype=np.uint16).view(np.float16)
    vals = np.concatenate([vals, -vals[1:]])  # -0 would come back as +0 from sgemm
    n = vals.size
    one = np.array([1.0], np.float32)
    eye = np.array([1.0], np.float16)
    d = np.zeros(n, np.float16)
    assert rb.call("rocblas_gemm_ex", E(OP["N"]), E(OP["N"]), n, 1, 1, one, vals, E(DT["f16"]),
                   n, eye, E(DT["f16"]), 1, np.array([0.0], np.float32), d, E(DT["f16"]), n,
                   d, E(DT["f16"]), n, *tail("f32")) == 0
    assert np.array_equal(d.view(np.uint16), vals.view(np.uint16))


# ---- level-1 extension API ----
FORMS = [("P", ""), ("B", ""), ("S", ""), ("P", "_64"), ("S", "_64")]
SFX = {"P": "", "B": "_batched", "S": "_strided_batched"}


def _vecs(form, arrays):
    return H.Operand.make(form, arrays)


@pytest.mark.parametrize("form,w", FORMS)
@pytest.mark.parametrize("t", ["f32", "f64", "c32", "c64", "f16", "bf16"])
def test_level1_ex(rb, form, w, t):
    rng = np.random.default_rng(3)
    n, batch, inc = 9, (1 if form == "P" else 2), 2
    half = t in ("f16", "bf16")
    ex = "f32" if half else t
    cplx = t.startswith("c")

    def mk():
        v = rng.standard_normal(n * inc).astype(np.float32)
        if cplx:
            v = v + 1j * rng.standard_normal(n * inc)
        if t == "bf16":
            return to_bf16(v)
        return v.astype(NP[t])

    def val(a):
        return from_bf16(a).astype(np.float64) if t == "bf16" else a.astype(
            np.complex128 if cplx else np.float64)

    xs, ys = [mk() for _ in range(batch)], [mk() for _ in range(batch)]
    X, Y = _vecs(form, xs), _vecs(form, ys)
    bcl = [] if form == "P" else [batch]
    tol = 3e-2 if half else 1e-4
    alpha = np.array([0.5], NP[ex])
    # axpy_ex
    assert rb.call(f"rocblas_axpy{SFX[form]}_ex{w}", n, alpha, E(DT[ex]), *X.args(E(DT[t]), inc),
                   *Y.args(E(DT[t]), inc), *bcl, E(DT[ex])) == 0
    for b in range(batch):
        want = val(ys[b])[::inc] + 0.5 * val(xs[b])[::inc]
        assert np.allclose(val(Y.bufs[b])[::inc], want, rtol=tol, atol=tol)
    # dot_ex (and dotc_ex for complex)
    for op in ["dot"] + (["dotc"] if cplx else []):
        res = np.zeros(batch, np.uint16 if t == "bf16" else NP[t])
        assert rb.call(f"rocblas_{op}{SFX[form]}_ex{w}", n, *X.args(E(DT[t]), inc),
                       *Y.args(E(DT[t]), inc), *bcl, res, E(DT[t]), E(DT[ex])) == 0
        for b in range(batch):
            xv = val(X.bufs[b])[::inc]
            want = np.sum((xv.conj() if op == "dotc" else xv) * val(Y.bufs[b])[::inc])
            assert np.allclose(val(res)[b], want, rtol=tol * 3, atol=tol * 3)
    # nrm2_ex: real result for complex data
    rt = {"c32": "f32", "c64": "f64"}.get(t, t)
    res = np.zeros(batch, np.uint16 if rt == "bf16" else NP[rt])
    # rocBLAS runs a complex nrm2 in the real type of its result
    assert rb.call(f"rocblas_nrm2{SFX[form]}_ex{w}", n, *X.args(E(DT[t]), inc), *bcl, res,
                   E(DT[rt]), E(DT["f32" if half else rt])) == 0
    for b in range(batch):
        got = from_bf16(res)[b] if rt == "bf16" else res[b]
        assert np.isclose(got, np.linalg.norm(val(X.bufs[b])[::inc]), rtol=tol)
    # scal_ex with a real alpha (complex data scaled by a real is the csscal case)
    at = rt if cplx else ex
    before = [val(b_).copy() for b_ in X.bufs]
    assert rb.call(f"rocblas_scal{SFX[form]}_ex{w}", n, np.array([2.0], NP[at]), E(DT[at]),
                   *X.args(E(DT[t]), inc), *bcl, E(DT[ex])) == 0
    for b in range(batch):
        assert np.allclose(val(X.bufs[b])[::inc], 2 * before[b][::inc], rtol=tol)
    # rot_ex with real c, s
    xb = [val(b_).copy() for b_ in X.bufs]
    yb = [val(b_).copy() for b_ in Y.bufs]
    cs_t = rt if cplx else t
    raw = (lambda v: to_bf16(np.array([v], np.float32))) if cs_t == "bf16" else \
        (lambda v: np.array([v], NP[cs_t]))
    assert rb.call(f"rocblas_rot{SFX[form]}_ex{w}", n, *X.args(E(DT[t]), inc),
                   *Y.args(E(DT[t]), inc), raw(0.6), raw(0.8), E(DT[cs_t]), *bcl,
                   E(DT[ex])) == 0
    for b in range(batch):
        assert np.allclose(val(X.bufs[b])[::inc], 0.6 * xb[b][::inc] + 0.8 * yb[b][::inc],
                           rtol=tol, atol=tol)
        assert np.allclose(val(Y.bufs[b])[::inc], 0.6 * yb[b][::inc] - 0.8 * xb[b][::inc],
                           rtol=tol, atol=tol)


def test_level1_ex_unsupported_and_16bit_families(rb):
    x = np.ones(4, np.float32)
    assert rb.call("rocblas_axpy_ex", 4, np.array([1.0]), E(DT["f64"]), x, E(DT["f32"]), 1, x,
                   E(DT["f32"]), 1, E(DT["f32"])) == H.ST_NOT_IMPLEMENTED
    h = np.array([1, 2, 3], np.float16)
    y = np.array([1, 1, 1], np.float16)
    assert rb.call("rocblas_haxpy", 3, np.array([2], np.float16), h, 1, y, 1) == 0
    assert np.array_equal(y, np.array([3, 5, 7], np.float16))
    r = np.zeros(1, np.float16)
    assert rb.call("rocblas_hdot", 3, h, 1, y, 1, r) == 0 and r[0] == 3 + 10 + 21
    bx = to_bf16(np.array([1, 2, 3], np.float32))
    rbf = np.zeros(1, np.uint16)
    assert rb.call("rocblas_bfdot_64", 3, bx, 1, bx, 1, rbf) == 0
    assert from_bf16(rbf)[0] == 14


def test_trsm_ex_and_syrk_ex(rb):
    rng = np.random.default_rng(5)
    n = 4
    a = np.triu(rng.standard_normal((n, n))) + 4 * np.eye(n)
    b = rng.standard_normal((n, 2))
    A, B = a.ravel(order="F").copy(), b.ravel(order="F").copy()
    assert rb.call("rocblas_trsm_ex", E(141), E(121), E(OP["N"]), E(131), n, 2, np.array([1.0]),
                   A, n, B, n, None, 0, E(DT["f64"])) == 0
    assert np.allclose(a @ B.reshape(n, 2, order="F"), b)
    Bs = np.concatenate([b.ravel(order="F")] * 2)
    assert rb.call("rocblas_trsm_strided_batched_ex", E(141), E(121), E(OP["N"]), E(131), n, 2,
                   np.array([1.0]), A, n, S(0), Bs, n, S(2 * n), 2, None, 0, S(0),
                   E(DT["f64"])) == 0
    assert np.allclose(a @ Bs[2 * n:].reshape(n, 2, order="F"), b)
    assert rb.call("rocblas_trsm_ex", E(141), E(121), E(OP["N"]), E(131), n, 2, np.array([1.0]),
                   A, n, B, n, None, 0, E(DT["i8"])) == H.ST_NOT_IMPLEMENTED
    C = np.zeros(n * n, np.float32)
    a32 = rng.standard_normal((n, 3)).astype(np.float32)
    assert rb.call("rocblas_syrk_ex", E(122), E(OP["N"]), n, 3, np.array([1.0], np.float32),
                   a32.ravel(order="F").copy(), E(DT["f32"]), n, np.array([0.0], np.float32), C,
                   E(DT["f32"]), n, E(DT["f32"])) == 0
    assert np.allclose(np.tril(C.reshape(n, n, order="F")), np.tril(a32 @ a32.T), atol=1e-5)


@pytest.mark.parametrize("name,at,yt", [("hsh", "f16", "f16"), ("hss", "f16", "f32"),
                                        ("tst", "bf16", "bf16"), ("tss", "bf16", "f32")])
@pytest.mark.parametrize("form", ["B", "S"])
def test_mixed_precision_gemv(rb, name, at, yt, form):
    rng = np.random.default_rng(6)
    m, n, batch = 5, 3, 2

    def enc(v, t):
        v = np.asarray(v, np.float32)
        return to_bf16(v) if t == "bf16" else v.astype(NP[t])

    def dec(v, t):
        return from_bf16(v) if t == "bf16" else v.astype(np.float32)

    mats = [enc(rng.standard_normal(m * n), at) for _ in range(batch)]
    xs = [enc(rng.standard_normal(n), at) for _ in range(batch)]
    ys = [enc(rng.standard_normal(m), yt) for _ in range(batch)]
    A, X, Y = (H.Operand.make(form, v) for v in (mats, xs, ys))
    sfx = "_batched" if form == "B" else "_strided_batched"
    assert rb.call(f"rocblas_{name}gemv{sfx}", E(OP["N"]), m, n, np.array([2.0], np.float32),
                   *A.args(m), *X.args(1), np.array([1.0], np.float32), *Y.args(1), batch) == 0
    for b in range(batch):
        want = 2 * dec(mats[b], at).reshape(n, m).T @ dec(xs[b], at) + dec(ys[b], yt)
        assert np.allclose(dec(Y.bufs[b], yt), want, rtol=3e-2, atol=3e-2)


@pytest.mark.parametrize("t", ["f32", "f64", "f16"])
def test_geam_ex_semirings(rb, t):
    rng = np.random.default_rng(7)
    m, n, k = 4, 3, 5
    dt = NP[t]
    A, B, C = (rng.standard_normal(s).astype(dt) for s in ((m, k), (k, n), (m, n)))
    fa, fb, fc = (x.ravel(order="F").copy() for x in (A, B, C))
    A64, B64, C64 = (x.astype(np.float64) for x in (A, B, C))
    al, be = np.array([0.5], dt), np.array([2.0], dt)
    for op, want in ((0, np.minimum(2 * C64, (0.5 * (A64[:, :, None] + B64[None])).min(1))),
                     (1, 2 * C64 + np.minimum(0.5 * A64[:, :, None], 0.5 * B64[None]).sum(1))):
        d = np.zeros(m * n, dt)
        assert rb.call("rocblas_geam_ex", E(OP["N"]), E(OP["N"]), m, n, k, al, fa, E(DT[t]), m,
                       fb, E(DT[t]), k, be, fc, E(DT[t]), m, d, E(DT[t]), m, E(DT[t]), E(op)) == 0
        tol = 2e-2 if t == "f16" else 1e-5
        assert np.allclose(d.reshape(m, n, order="F").astype(np.float64), want, rtol=tol,
                           atol=tol)
    assert rb.call("rocblas_geam_ex", E(OP["N"]), E(OP["N"]), m, n, k, al, fa, E(DT[t]), m, fb,
                   E(DT[t]), k, be, fc, E(DT[t]), m, fc, E(DT[t]), m, E(DT[t]), E(7)) == \
        H.ST_INVALID_VALUE
