"""wmma.load / wmma.mma / wmma.store as nvcc emits them for the WMMA C++ API (our own
tests/ptx/wmma.cu, compiled with nvcc -ptx at test time: skipped without nvcc), on the CPU
device in both wave modes, against numpy: every shape and element type for sm_80, row- and
column-major A/B/C/D, leading dimensions wider than the matrix. Integer results are exact;
floating point within the f32 accumulation bound of tests/test_ptx_mma.py (f16 accumulators:
plus one f16 rounding; f64: (k + 1) f64 roundings)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from ptx.harness import build

CU = Path(__file__).parent / "ptx" / "wmma.cu"
SHAPES = {"16x16x16": (16, 16, 16), "32x8x16": (32, 8, 16), "8x32x16": (8, 32, 16),
          "16x16x8": (16, 16, 8), "8x8x4": (8, 8, 4)}
KERNELS = [f"{p}_{s}" for p in ("f16f32", "f16f16", "bf16", "s8", "u8")
           for s in ("16x16x16_rc", "16x16x16_cr", "32x8x16_rr", "8x32x16_cc")] + [
    "tf32_16x16x8_rc", "tf32_16x16x8_cr", "f64_8x8x4_rc", "f64_8x8x4_cr"]


@pytest.fixture(scope="module", params=(32, 64), ids=lambda w: f"wave{w}")
def mod(request, tmp_path_factory):
    nvcc = shutil.which("nvcc")
    if nvcc is None:
        pytest.skip("nvcc not installed: the WMMA kernels are built from tests/ptx/wmma.cu")
    tmp = tmp_path_factory.mktemp("wmma")
    ptx = tmp / "wmma.ptx"
    subprocess.run([nvcc, "-arch=compute_80", "-ptx", str(CU), "-o", str(ptx)], check=True,
                   capture_output=True, timeout=300)
    return request.param, build(ptx.read_text(), f"cpu-wave{request.param}", tmp)


def _inputs(kind: str, rng, shape):
    if kind in ("f16f32", "f16f16"):
        return rng.uniform(-8, 8, shape).astype(np.float16)
    if kind == "bf16":
        x = rng.uniform(-8, 8, shape).astype(np.float32)
        return (x.view(np.uint32) >> 16).astype(np.uint16)
    if kind == "tf32":  # tf32 values (the low 13 bits zero), what __float_to_tf32 gives
        x = rng.uniform(-8, 8, shape).astype(np.float32)
        return (x.view(np.uint32) & 0xFFFFE000).view(np.float32)
    if kind == "f64":
        return rng.uniform(-8, 8, shape)
    if kind == "s8":
        return rng.integers(-128, 128, shape).astype(np.int8)
    return rng.integers(0, 256, shape).astype(np.uint8)


def _values(kind: str, x: np.ndarray) -> np.ndarray:
    if kind == "bf16":
        return (x.astype(np.uint32) << 16).view(np.float32).astype(np.float64)
    if kind in ("s8", "u8"):
        return x.astype(np.int64)
    return x.astype(np.float64)


def _store(mat: np.ndarray, col_major: bool, ld: int, dtype) -> np.ndarray:
    rows, cols = mat.shape
    buf = np.zeros((cols if col_major else rows) * ld, dtype=dtype)
    view = buf.reshape(-1, ld)
    if col_major:
        view[:cols, :rows] = mat.T
    else:
        view[:rows, :cols] = mat
    return buf


def _load(buf: np.ndarray, col_major: bool, ld: int, rows: int, cols: int) -> np.ndarray:
    view = buf.reshape(-1, ld)
    return view[:cols, :rows].T if col_major else view[:rows, :cols]


@pytest.mark.parametrize("name", KERNELS)
@settings(max_examples=8, deadline=None, suppress_health_check=list(HealthCheck))
@given(seed=st.integers(0, 2**32 - 1), extra=st.tuples(*[st.integers(0, 2)] * 3),
       c_col=st.booleans(), d_col=st.booleans())
def test_wmma(mod, name, seed, extra, c_col, d_col):
    wave, m = mod
    kind, shape, layouts = name.split("_")
    M, N, K = SHAPES[shape]
    a_col, b_col = layouts[0] == "c", layouts[1] == "c"
    rng = np.random.default_rng(seed)
    A, B = _inputs(kind, rng, (M, K)), _inputs(kind, rng, (K, N))
    acc = {"f16f16": np.float16, "s8": np.int32, "u8": np.int32, "f64": np.float64}.get(
        kind, np.float32)
    if acc is np.int32:
        C = rng.integers(-2**31, 2**31, (M, N)).astype(np.int32)
    else:
        C = rng.uniform(-8, 8, (M, N)).astype(acc)
    lda = (M if a_col else K) + 16 * extra[0]
    ldb = (K if b_col else N) + 16 * extra[1]
    ldc = max(M, N) + 16 * extra[2]
    a = _store(A, a_col, lda, A.dtype)
    b = _store(B, b_col, ldb, B.dtype)
    c = _store(C, c_col, ldc, acc)
    d = np.zeros_like(_store(C, d_col, ldc, acc))
    m.launch(f"{kind}_{shape}_{layouts}", (1,), (32,),
             [a, b, c, d, lda, ldb, ldc, int(c_col), int(d_col)], warp_size=wave)
    got = _load(d, d_col, ldc, M, N)
    av, bv = _values(kind, A), _values(kind, B)
    if acc is np.int32:
        want = (C.astype(np.int64) + av @ bv) & 0xFFFFFFFF
        assert np.array_equal(got.astype(np.int64) & 0xFFFFFFFF, want)
        return
    exact = C.astype(np.float64) + av @ bv
    mag = np.abs(C.astype(np.float64)) + np.abs(av) @ np.abs(bv)
    eps = 2.0 ** -53 if kind == "f64" else 2.0 ** -24
    tol = (K + 1) * eps * mag
    if acc is np.float16:
        tol = tol + np.abs(exact) * 2.0 ** -11 + 2.0 ** -24
    assert np.all(np.abs(got.astype(np.float64) - exact) <= tol)
