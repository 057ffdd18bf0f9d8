"""rocBLAS level 1 on the CPU device against numpy, every precision, batch form and width."""

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

# deterministic examples in CI (a failure reproduces); PYSHIM_HYPOTHESIS_RANDOM=1 explores
DERANDOMIZE = not os.environ.get("PYSHIM_HYPOTHESIS_RANDOM")

FORMS = [("P", ""), ("B", ""), ("S", ""), ("P", "_64"), ("B", "_64"), ("S", "_64")]
SFX = {"P": "", "B": "_batched", "S": "_strided_batched"}
incs = st.integers(-3, 3).filter(bool)


@pytest.fixture(scope="module")
def rb() -> H.Rb:
    return H.Rb(H.build_libs())


def _vec(rng, pre, n, inc, batch, form):
    logical = [H.rand(rng, pre, n) for _ in range(batch)]
    bufs = []
    for v in logical:
        buf = H.rand(rng, pre, H.vec_len(n, inc))
        buf[H.vec_index(n, inc)] = v
        bufs.append(buf)
    return logical, H.Operand.make(form, bufs)


def _name(pre, opname, form, w):
    return f"rocblas_{pre}{opname}{SFX[form]}{w}"


def _bc(form, batch):
    return [] if form == "P" else [batch]


@settings(max_examples=40, deadline=None, derandomize=DERANDOMIZE)
@given(pre=st.sampled_from("sdcz"), n=st.integers(0, 40), incx=incs, incy=incs,
       fw=st.sampled_from(FORMS), batch=st.integers(1, 3), seed=st.integers(0, 2**16))
def test_axpy_scal_copy_swap(rb, pre, n, incx, incy, fw, batch, seed):
    form, w = fw
    batch = 1 if form == "P" else batch
    rng = np.random.default_rng(seed)
    xs, x = _vec(rng, pre, n, incx, batch, form)
    ys, y = _vec(rng, pre, n, incy, batch, form)
    alpha = H.scalar(pre, 1.5 - 0.5j if pre in "cz" else 1.5)
    st_ = rb.call(_name(pre, "axpy", form, w), n, alpha, *x.args(incx), *y.args(incy),
                  *_bc(form, batch))
    assert st_ == H.ST_SUCCESS
    for b in range(batch):
        got = y.bufs[b][H.vec_index(n, incy)]
        assert H.close(pre, got, ys[b] + alpha[0] * xs[b])
    # scal (incx > 0 only; incx <= 0 is a no-op in BLAS)
    before = [buf.copy() for buf in x.bufs]
    assert rb.call(_name(pre, "scal", form, w), n, alpha, *x.args(incx), *_bc(form, batch)) == 0
    for b in range(batch):
        want = before[b].copy()
        if incx > 0:
            want[H.vec_index(n, incx)] *= alpha[0]
        assert H.close(pre, x.bufs[b], want)
    # copy x -> y, then swap back and forth
    assert rb.call(_name(pre, "copy", form, w), n, *x.args(incx), *y.args(incy),
                   *_bc(form, batch)) == 0
    for b in range(batch):
        assert np.array_equal(y.bufs[b][H.vec_index(n, incy)], x.bufs[b][H.vec_index(n, incx)])
    ys2 = [buf[H.vec_index(n, incy)] * 2 for buf in y.bufs]
    for b in range(batch):
        y.bufs[b][H.vec_index(n, incy)] = ys2[b]
    xs2 = [buf[H.vec_index(n, incx)].copy() for buf in x.bufs]
    assert rb.call(_name(pre, "swap", form, w), n, *x.args(incx), *y.args(incy),
                   *_bc(form, batch)) == 0
    for b in range(batch):
        assert np.array_equal(x.bufs[b][H.vec_index(n, incx)], ys2[b])
        assert np.array_equal(y.bufs[b][H.vec_index(n, incy)], xs2[b])


def test_real_scal_of_complex(rb):
    x = np.array([1 + 2j, 3 - 1j], dtype=np.complex64)
    assert rb.call("rocblas_csscal", 2, H.real_scalar("c", 2.0), x, 1) == 0
    assert np.array_equal(x, np.array([2 + 4j, 6 - 2j], dtype=np.complex64))
    z = np.array([1 + 2j], dtype=np.complex128)
    assert rb.call("rocblas_zdscal_64", 1, H.real_scalar("z", -1.0), z, 1) == 0
    assert z[0] == -1 - 2j


@settings(max_examples=40, deadline=None, derandomize=DERANDOMIZE)
@given(pre=st.sampled_from("sdcz"), n=st.integers(0, 40), incx=incs, incy=incs,
       fw=st.sampled_from(FORMS), batch=st.integers(1, 3), seed=st.integers(0, 2**16))
def test_reductions(rb, pre, n, incx, incy, fw, batch, seed):
    form, w = fw
    batch = 1 if form == "P" else batch
    rng = np.random.default_rng(seed)
    xs, x = _vec(rng, pre, n, incx, batch, form)
    ys, y = _vec(rng, pre, n, incy, batch, form)
    dots = ["dot"] if pre in "sd" else ["dotu", "dotc"]
    for d in dots:
        res = np.zeros(batch, dtype=H.DTYPE[pre])
        assert rb.call(_name(pre, d, form, w), n, *x.args(incx), *y.args(incy),
                       *_bc(form, batch), res) == 0
        for b in range(batch):
            xv = xs[b].conj() if d == "dotc" else xs[b]
            assert H.close(pre, res[b], np.sum(xv * ys[b]), scale=n)
    rpre = {"s": "s", "d": "d", "c": "sc", "z": "dz"}[pre]
    for red, ref in (("nrm2", lambda v: np.linalg.norm(v)),
                     ("asum", lambda v: np.sum(np.abs(v.real) + np.abs(v.imag)))):
        res = np.full(batch, -1, dtype=H.RTYPE[pre])
        assert rb.call(_name(rpre, red, form, w), n, *x.args(incx), *_bc(form, batch),
                       res) == 0
        for b in range(batch):
            want = ref(xs[b]) if incx > 0 else 0.0
            assert H.close(pre, res[b], want, scale=n)
    for red, fn in (("amax", np.argmax), ("amin", np.argmin)):
        res = np.full(batch, -1, dtype=np.int64 if w else np.int32)
        assert rb.call(_name("i" + pre, red, form, w), n, *x.args(incx), *_bc(form, batch),
                       res) == 0
        for b in range(batch):
            mag = np.abs(xs[b].real) + np.abs(xs[b].imag)
            want = fn(mag) + 1 if n and incx > 0 else 0
            assert res[b] == want


@pytest.mark.parametrize("pre", "sdcz")
@pytest.mark.parametrize("form", "PBS")
def test_rot_family(rb, pre, form):
    rng = np.random.default_rng(1)
    n, batch = 7, (1 if form == "P" else 2)
    xs, x = _vec(rng, pre, n, 2, batch, form)
    ys, y = _vec(rng, pre, n, -1, batch, form)
    c = H.real_scalar(pre, 0.6)
    s = H.scalar(pre, 0.8)
    assert rb.call(_name(pre, "rot", form, ""), n, *x.args(2), *y.args(-1), c, s,
                   *_bc(form, batch)) == 0
    for b in range(batch):
        gx, gy = x.bufs[b][H.vec_index(n, 2)], y.bufs[b][H.vec_index(n, -1)]
        assert H.close(pre, gx, 0.6 * xs[b] + s[0] * ys[b])
        assert H.close(pre, gy, 0.6 * ys[b] - np.conj(s[0]) * xs[b])
    # rotg: the rotation that zeroes b
    a0, b0 = H.scalar(pre, 3 + 1j if pre in "cz" else 3), H.scalar(pre, 4)
    cc, ss = H.real_scalar(pre, 0), H.scalar(pre, 0)
    a1, b1 = a0.copy(), b0.copy()
    assert rb.call(f"rocblas_{pre}rotg", a1, b1, cc, ss) == 0
    assert H.close(pre, cc[0] * a0[0] + ss[0] * b0[0], a1[0])
    assert H.close(pre, -np.conj(ss[0]) * a0[0] + cc[0] * b0[0], 0)
    if pre in "sd":
        # rotmg then rotm zero the second component
        d1, d2 = H.scalar(pre, 2), H.scalar(pre, 3)
        x1, y1 = H.scalar(pre, 1.5), H.scalar(pre, 0.5)
        param = np.zeros(5, dtype=H.DTYPE[pre])
        assert rb.call(f"rocblas_{pre}rotmg", d1, d2, x1, y1, param) == 0
        xv, yv = H.scalar(pre, 1.5), H.scalar(pre, 0.5)
        assert rb.call(f"rocblas_{pre}rotm", 1, xv, 1, yv, 1, param) == 0
        assert abs(yv[0]) < 1e-5
        # crosscheck rotm in every form against the flag -1 (full H) formula
        p = np.array([-1, 0.5, -0.25, 0.75, 2.0], dtype=H.DTYPE[pre])
        xs, x = _vec(rng, pre, n, 1, batch, form)
        ys, y = _vec(rng, pre, n, 3, batch, form)
        pr = H.Operand.make(form, [p] * batch, pad=0)
        assert rb.call(_name(pre, "rotm", form, "_64"), n, *x.args(1), *y.args(3), *pr.args(),
                       *_bc(form, batch)) == 0
        for b in range(batch):
            assert H.close(pre, x.bufs[b][H.vec_index(n, 1)], 0.5 * xs[b] + 0.75 * ys[b])
            assert H.close(pre, y.bufs[b][H.vec_index(n, 3)], -0.25 * xs[b] + 2.0 * ys[b])


def test_level1_bad_arguments(rb):
    x = np.ones(4, np.float32)
    res = np.zeros(1, np.float32)
    assert rb.call("rocblas_saxpy", 4, H.scalar("s", 1), x, 1, x, 1, handle=None) == \
        H.ST_INVALID_HANDLE
    assert rb.call("rocblas_saxpy", 4, None, x, 1, x, 1) == H.ST_INVALID_POINTER
    assert rb.call("rocblas_saxpy", 4, H.scalar("s", 1), None, 1, x, 1) == H.ST_INVALID_POINTER
    # quick return: n <= 0 succeeds without touching anything, even with null pointers
    assert rb.call("rocblas_saxpy", -1, None, None, 1, None, 1) == H.ST_SUCCESS
    assert rb.call("rocblas_sdot", 4, x, 1, x, 1, None) == H.ST_INVALID_POINTER
    res[0] = 5
    assert rb.call("rocblas_sdot", 0, None, 1, None, 1, res) == 0 and res[0] == 0
    assert rb.call("rocblas_snrm2_batched", 4, None, 1, -1, res) == 0


def test_runs_in_stream_order(rb):
    """A routine on a stream runs after the work enqueued on that stream before it: a host
    function that (slowly) fills x must have finished before asum reads x."""
    import ctypes
    import time

    hip = rb.hip
    stream = ctypes.c_void_p()
    assert hip.hipStreamCreate(ctypes.byref(stream)) == 0
    h = rb.new_handle()
    assert rb.blas.rocblas_set_stream(h, stream) == 0
    n = 1000
    x = np.zeros(n, np.float32)
    res = np.zeros(1, np.float32)

    @ctypes.CFUNCTYPE(None, ctypes.c_void_p)
    def fill(_):
        time.sleep(0.05)
        x[:] = 1

    assert hip.hipLaunchHostFunc(stream, fill, None) == 0
    assert rb.call("rocblas_sasum", n, x, 1, res, handle=h) == 0
    assert res[0] == n
    assert hip.hipStreamSynchronize(stream) == 0
    assert rb.blas.rocblas_destroy_handle(h) == 0
    assert hip.hipStreamDestroy(stream) == 0


def test_stream_capture_is_refused_cleanly(rb):
    """Under graph capture a routine cannot wait for its stream: it refuses with
    rocblas_status_not_implemented instead of running outside the graph."""
    import ctypes

    hip = rb.hip
    stream = ctypes.c_void_p()
    assert hip.hipStreamCreate(ctypes.byref(stream)) == 0
    h = rb.new_handle()
    assert rb.blas.rocblas_set_stream(h, stream) == 0
    x = np.ones(4, np.float32)
    assert hip.hipStreamBeginCapture(stream, 0) == 0  # hipStreamCaptureModeGlobal
    st = rb.call("rocblas_sscal", 4, H.scalar("s", 2), x, 1, handle=h)
    graph = ctypes.c_void_p()
    assert hip.hipStreamEndCapture(stream, ctypes.byref(graph)) == 0
    assert st == H.ST_NOT_IMPLEMENTED and np.all(x == 1)
    if graph.value:
        hip.hipGraphDestroy(graph)
    assert rb.blas.rocblas_destroy_handle(h) == 0
    assert hip.hipStreamDestroy(stream) == 0
