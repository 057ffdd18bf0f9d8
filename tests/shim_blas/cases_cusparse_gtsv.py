"""cuSPARSE's tri- and pentadiagonal solves through pyshim's libcusparse.so.12 on the CPU
device's rocSPARSE: gtsv2 (pivoting), gtsv2_nopivot, gtsv2StridedBatch, gtsvInterleavedBatch
(its three algorithms) and gpsvInterleavedBatch against scipy.linalg.solve_banded, with
several right-hand sides and padded leading dimensions (child process, see harness.py: numpy
arrays are device memory)."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest
import scipy.linalg as sla

sys.path.insert(0, str(Path(__file__).parent))
import sparse_fixtures  # noqa: E402

sp, h = sparse_fixtures.sp, sparse_fixtures.h

ST_INVALID_VALUE = 3
PRE = {np.float32: "S", np.float64: "D", np.complex64: "C", np.complex128: "Z"}
DTYPES = list(PRE)
TOL = {np.float32: 2e-4, np.float64: 1e-11, np.complex64: 2e-4, np.complex128: 1e-11}


def rand(rng, shape, dtype):
    v = rng.standard_normal(shape)
    if np.issubdtype(dtype, np.complexfloating):
        v = v + 1j * rng.standard_normal(shape)
    return v.astype(dtype)


def diagonals(rng, m, dtype, dominant):
    """dl, d, du as cuSPARSE takes them (dl[0] = du[m-1] = 0); a small or zero leading
    diagonal when not `dominant`, which only a pivoting solve survives."""
    dl, d, du = rand(rng, m, dtype), rand(rng, m, dtype), rand(rng, m, dtype)
    dl[0] = du[-1] = 0
    if dominant:
        d = d + (3 * np.sign(d.real) + 0).astype(dtype)
    else:
        d[0] = 0
        d[m // 2] *= 1e-3
    return dl, d, du


def reference(dl, d, du, b):
    ab = np.zeros((3, len(d)), np.result_type(d, complex))
    ab[0, 1:], ab[1], ab[2, :-1] = du[:-1], d, dl[1:]
    return sla.solve_banded((1, 1), ab, b.astype(ab.dtype))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("pivot", [True, False])
def test_gtsv2(sp, h, dtype, pivot) -> None:
    rng = np.random.default_rng(31 + pivot)
    P = PRE[dtype]
    name = f"cusparse{P}gtsv2" + ("" if pivot else "_nopivot")
    for m, n in ((3, 1), (8, 4), (33, 3)):
        dl, d, du = diagonals(rng, m, dtype, dominant=not pivot)
        ldb = m + 2
        b = rand(rng, (n, ldb), dtype)  # column-major m x n in rows of ldb
        b0 = b.copy()
        size = np.zeros(1, np.uint64)
        sp.call(f"{name}_bufferSizeExt", h, m, n, dl, d, du, b, ldb, size)
        assert size[0] > 0
        buf = np.zeros(int(size[0]), np.uint8)
        sp.call(name, h, m, n, dl, d, du, b, ldb, buf)
        want = reference(dl, d, du, b0[:, :m].T).T
        np.testing.assert_allclose(b[:, :m], want, rtol=TOL[dtype] * 100,
                                   atol=TOL[dtype] * 100)
        np.testing.assert_array_equal(b[:, m:], b0[:, m:])  # padding rows untouched
        # ldb below m is refused
        assert sp.raw(name, h, m, n, dl, d, du, b, m - 1, buf) == ST_INVALID_VALUE
    sp.ok(name, f"{name}_bufferSizeExt")


@pytest.mark.parametrize("dtype", DTYPES)
def test_gtsv2_strided_batch(sp, h, dtype) -> None:
    rng = np.random.default_rng(37)
    P = PRE[dtype]
    name = f"cusparse{P}gtsv2StridedBatch"
    for m, count in ((3, 1), (9, 4)):
        stride = m + 3
        dl, d, du, x = (np.zeros(count * stride, dtype) for _ in range(4))
        systems = []
        for i in range(count):
            s = diagonals(rng, m, dtype, dominant=True)
            for arr, part in zip((dl, d, du), s, strict=True):
                arr[i * stride:i * stride + m] = part
            x[i * stride:i * stride + m] = rand(rng, m, dtype)
            systems.append(s)
        x0 = x.copy()
        size = np.zeros(1, np.uint64)
        sp.call(f"{name}_bufferSizeExt", h, m, dl, d, du, x, count, stride, size)
        buf = np.zeros(int(size[0]), np.uint8)
        sp.call(name, h, m, dl, d, du, x, count, stride, buf)
        for i, s in enumerate(systems):
            got = x[i * stride:i * stride + m]
            want = reference(*s, x0[i * stride:i * stride + m])
            np.testing.assert_allclose(got, want, rtol=TOL[dtype] * 100, atol=TOL[dtype] * 100)
            np.testing.assert_array_equal(x[i * stride + m:(i + 1) * stride],
                                          x0[i * stride + m:(i + 1) * stride])
        # a stride below m would overlap the systems: refused
        assert sp.raw(name, h, m, dl, d, du, x, count, m - 1, buf) == ST_INVALID_VALUE
    sp.ok(name, f"{name}_bufferSizeExt")


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("algo", [0, 1, 2])  # Thomas, LU with pivoting, QR
def test_gtsv_interleaved_batch(sp, h, dtype, algo) -> None:
    """Element i of system b at i*batchCount + b; the stable algorithms (1, 2) solve systems
    with a zero leading diagonal, Thomas (0) diagonally dominant ones."""
    rng = np.random.default_rng(41 + algo)
    P = PRE[dtype]
    name = f"cusparse{P}gtsvInterleavedBatch"
    for m, count in ((3, 1), (10, 5)):
        systems = [diagonals(rng, m, dtype, dominant=algo == 0) for _ in range(count)]
        dl, d, du = (np.stack([s[k] for s in systems], axis=1).ravel() for k in range(3))
        x = rand(rng, m * count, dtype)
        x0 = x.copy()
        size = np.zeros(1, np.uint64)
        sp.call(f"{name}_bufferSizeExt", h, algo, m, dl, d, du, x, count, size)
        buf = np.zeros(int(size[0]), np.uint8)
        sp.call(name, h, algo, m, dl, d, du, x, count, buf)
        got, rhs = x.reshape(m, count), x0.reshape(m, count)
        for b, s in enumerate(systems):
            np.testing.assert_allclose(got[:, b], reference(*s, rhs[:, b]),
                                       rtol=TOL[dtype] * 100, atol=TOL[dtype] * 100)
    assert sp.raw(name, h, 3, 3, dl[:3], d[:3], du[:3], x[:3], 1, buf) == ST_INVALID_VALUE
    sp.ok(name, f"{name}_bufferSizeExt")


@pytest.mark.parametrize("dtype", DTYPES)
def test_gpsv_interleaved_batch(sp, h, dtype) -> None:
    """Pentadiagonal systems interleaved with a stride of batchCount, against solve_banded:
    some with a zero leading diagonal (a solve must pivot) and some diagonally dominant."""
    rng = np.random.default_rng(43)
    P = PRE[dtype]
    name = f"cusparse{P}gpsvInterleavedBatch"
    for m, count in ((3, 1), (12, 4)):
        systems = []
        for b in range(count):
            ds, dl, d, du, dw = (rand(rng, m, dtype) for _ in range(5))
            ds[:2], dl[:1], du[-1:], dw[-2:] = 0, 0, 0, 0
            if b % 2:
                d = d + (6 * np.sign(d.real)).astype(dtype)
            else:
                d[0] = 0
            systems.append((ds, dl, d, du, dw))
        diags = [np.stack([s[k] for s in systems], axis=1).ravel() for k in range(5)]
        x = rand(rng, m * count, dtype)
        x0 = x.copy()
        size = np.zeros(1, np.uint64)
        sp.call(f"{name}_bufferSizeExt", h, 0, m, *diags, x, count, size)
        buf = np.zeros(int(size[0]), np.uint8)
        sp.call(name, h, 0, m, *diags, x, count, buf)
        got, rhs = x.reshape(m, count), x0.reshape(m, count)
        for b, (ds, dl, d, du, dw) in enumerate(systems):
            ab = np.zeros((5, m), complex)
            ab[0, 2:], ab[1, 1:], ab[2], ab[3, :-1], ab[4, :-2] = dw[:-2], du[:-1], d, \
                dl[1:], ds[2:]
            want = sla.solve_banded((2, 2), ab, rhs[:, b].astype(complex))
            np.testing.assert_allclose(got[:, b], want, rtol=TOL[dtype] * 100,
                                       atol=TOL[dtype] * 100)
    assert sp.raw(name, h, 1, m, *diags, x, count, buf) == ST_INVALID_VALUE  # only QR (0)
    sp.ok(name, f"{name}_bufferSizeExt")
