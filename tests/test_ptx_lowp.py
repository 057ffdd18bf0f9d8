"""cvt to and from tf32, the FP8 pairs (e4m3x2, e5m2x2), the FP6 pairs (e2m3x2, e3m2x2) and,
with .satfinite, f16 / bf16 (and their pairs), and elect.sync, on the CPU device in both wave modes, against references written
from the ISA's definitions: the nearest representable value by exhaustive search over the
format's codes (ties to the even code; numpy's conversion for f16), .satfinite clamping to the
largest finite value (and, for FP6, which has no NaN, NaN to +MAX_NORM), .relu making
negatives +0."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from ptx import mma
from ptx.harness import build

from pyshim.kernels.nvrtc import available as nvrtc_available

HEAD = ".version 8.0\n.target sm_90\n.address_size 64\n"


def _unary(name: str, op: str, src_ty: str, dst_ty: str, srcs: int = 1) -> str:
    """name(in, out): out[i] = op(in[i * srcs ...])"""
    sz = {"f32": 4, "b32": 4, "b16": 2}
    loads = "\n".join(f"  ld.global.{src_ty} %s{j}, [%rd4+{j * sz[src_ty]}];" for j in range(srcs))
    args = ", ".join(f"%s{j}" for j in range(srcs))
    sreg = {"f32": ".f32", "b32": ".b32", "b16": ".b16"}[src_ty]
    dreg = {"f32": ".f32", "b32": ".b32", "b16": ".b16"}[dst_ty]
    return f"""
.visible .entry {name}(.param .u64 pin, .param .u64 pout) {{
  .reg {sreg} %s<4>; .reg {dreg} %d<2>; .reg .b32 %r<4>; .reg .b64 %rd<8>;
  ld.param.u64 %rd1, [pin]; ld.param.u64 %rd2, [pout];
  mov.u32 %r0, %ctaid.x; mov.u32 %r1, %ntid.x; mov.u32 %r2, %tid.x; mad.lo.u32 %r0, %r0, %r1, %r2;
  mul.wide.u32 %rd3, %r0, {srcs * sz[src_ty]}; add.s64 %rd4, %rd1, %rd3;
{loads}
  {op} %d0, {args};
  mul.wide.u32 %rd5, %r0, {sz[dst_ty]}; add.s64 %rd6, %rd2, %rd5;
  st.global.{dst_ty} [%rd6], %d0;
  ret;
}}
"""


KERNELS = [
    ("tf32_rna", "cvt.rna.tf32.f32", "f32", "b32", 1),
    ("tf32_rn", "cvt.rn.tf32.f32", "f32", "b32", 1),
    ("tf32_rna_sat", "cvt.rna.satfinite.tf32.f32", "f32", "b32", 1),
    ("e4m3_f32", "cvt.rn.satfinite.e4m3x2.f32", "f32", "b16", 2),
    ("e5m2_f32", "cvt.rn.satfinite.e5m2x2.f32", "f32", "b16", 2),
    ("e4m3_f32_relu", "cvt.rn.satfinite.relu.e4m3x2.f32", "f32", "b16", 2),
    ("e4m3_f16", "cvt.rn.satfinite.e4m3x2.f16x2", "b32", "b16", 1),
    ("e5m2_f16", "cvt.rn.satfinite.e5m2x2.f16x2", "b32", "b16", 1),
    ("f16_e4m3", "cvt.rn.f16x2.e4m3x2", "b16", "b32", 1),
    ("f16_e5m2", "cvt.rn.f16x2.e5m2x2", "b16", "b32", 1),
    ("f16_e4m3_relu", "cvt.rn.relu.f16x2.e4m3x2", "b16", "b32", 1),
    # FP6 (PTX 8.6, sm_100a): each in the low 6 bits of its byte
    ("e2m3_f32", "cvt.rn.satfinite.e2m3x2.f32", "f32", "b16", 2),
    ("e3m2_f32", "cvt.rn.satfinite.e3m2x2.f32", "f32", "b16", 2),
    ("e2m3_f32_relu", "cvt.rn.satfinite.relu.e2m3x2.f32", "f32", "b16", 2),
    ("e3m2_f32_relu", "cvt.rn.satfinite.relu.e3m2x2.f32", "f32", "b16", 2),
    ("f16_e2m3", "cvt.rn.f16x2.e2m3x2", "b16", "b32", 1),
    ("f16_e3m2", "cvt.rn.f16x2.e3m2x2", "b16", "b32", 1),
    ("f16_e3m2_relu", "cvt.rn.relu.f16x2.e3m2x2", "b16", "b32", 1),
    # .satfinite to f16 / bf16 (PTX 8.1)
    ("f16x2_rn_satf", "cvt.rn.satfinite.f16x2.f32", "f32", "b32", 2),
    ("bf16x2_rn_satf", "cvt.rn.satfinite.bf16x2.f32", "f32", "b32", 2),
    ("f16x2_rz_relu_satf", "cvt.rz.relu.satfinite.f16x2.f32", "f32", "b32", 2),
    ("bf16x2_rz_relu_satf", "cvt.rz.relu.satfinite.bf16x2.f32", "f32", "b32", 2),
    ("f16_rn_satf", "cvt.rn.satfinite.f16.f32", "f32", "b16", 1),
    ("bf16_rz_satf", "cvt.rz.satfinite.bf16.f32", "f32", "b16", 1),
]

ELECT = """
.visible .entry elect(.param .u64 pmask, .param .u64 pout) {
  .reg .b32 %r<8>; .reg .b64 %rd<8>; .reg .pred %p<3>;
  ld.param.u64 %rd1, [pmask]; ld.param.u64 %rd2, [pout];
  mov.u32 %r0, %tid.x;
  mul.wide.u32 %rd3, %r0, 8; add.s64 %rd4, %rd2, %rd3;
  mov.u32 %r5, 0xffffffff; st.global.u32 [%rd4], %r5; st.global.u32 [%rd4+4], %r5;
  ld.global.u32 %r1, [%rd1];      // the membermask
  ld.global.u32 %r2, [%rd1+4];    // the lanes that take part
  and.b32 %r3, %r0, 31; shr.u32 %r4, %r2, %r3; and.b32 %r4, %r4, 1;
  setp.eq.u32 %p1, %r4, 0;
  @%p1 bra DONE;
  elect.sync %r6|%p2, %r1;
  selp.u32 %r7, 1, 0, %p2;
  st.global.u32 [%rd4], %r6; st.global.u32 [%rd4+4], %r7;
DONE:
  ret;
}
"""


@pytest.fixture(scope="module", params=(32, 64), ids=lambda w: f"wave{w}")
def mod(request, tmp_path_factory):
    src = HEAD + "".join(_unary(*k) for k in KERNELS) + ELECT
    return request.param, build(src, f"cpu-wave{request.param}", tmp_path_factory.mktemp("lp"))


# ---- references ----------------------------------------------------------------------------
def _fp8_table(fmt: str) -> np.ndarray:
    return mma.e4m3_values() if fmt == "e4m3" else mma.e5m2_values()


def fp8_ref(x: float, fmt: str, relu: bool = False) -> int:
    vals = _fp8_table(fmt)
    if np.isnan(x):
        return 0x7F
    if relu and (x < 0 or (x == 0 and np.signbit(x))):
        return 0
    maxv = 448.0 if fmt == "e4m3" else 57344.0
    sign = 0x80 if np.signbit(x) else 0
    a = abs(x)
    best, bestd = 0, None
    for code in range(0x80):  # the non-negative codes, finite only
        v = vals[code]
        if not np.isfinite(v):
            continue
        dist = abs(v - a)
        if bestd is None or dist < bestd or (dist == bestd and code % 2 == 0):
            best, bestd = code, dist
    if a > maxv:
        best = 0x7E if fmt == "e4m3" else 0x7B
    return sign | best


def fp6_values(fmt: str) -> list[float]:
    """The 32 non-negative values of e2m3 (bias 1) / e3m2 (bias 3), from the format's
    definition (PTX ISA 5.2.5.1): e == 0 is subnormal, m / 2^M * 2^(1 - bias)."""
    mbits, bias = (3, 1) if fmt == "e2m3" else (2, 3)
    out = []
    for code in range(32):
        e, m = code >> mbits, code & ((1 << mbits) - 1)
        out.append(m / (1 << mbits) * 2.0 ** (1 - bias) if e == 0
                   else (1 + m / (1 << mbits)) * 2.0 ** (e - bias))
    return out


def fp6_ref(x: float, fmt: str, relu: bool = False) -> int:
    """f32 -> FP6, .rn.satfinite: the nearest value (ties to the even code), overflow and
    infinities to MAX_NORM of their sign, NaN to +MAX_NORM (the format has no NaN)."""
    if np.isnan(x):
        return 0x1F
    if relu and np.signbit(x):
        return 0
    vals = fp6_values(fmt)
    a = abs(x)
    best, bestd = 0, None
    for code, v in enumerate(vals):
        dist = abs(v - a)
        if bestd is None or dist < bestd or (dist == bestd and code % 2 == 0):
            best, bestd = code, dist
    if a >= vals[-1]:
        best = 0x1F
    return (0x20 if np.signbit(x) else 0) | best


def fp6_to_f16_ref(b: int, fmt: str, relu: bool) -> int:
    v = fp6_values(fmt)[b & 0x1F]
    h = int(np.float16(-v if b & 0x20 else v).view(np.uint16))
    return 0 if relu and h & 0x8000 else h


def tf32_ref(x: np.float32, rna: bool, sat: bool) -> int:
    u = int(np.float32(x).view(np.uint32))
    if np.isnan(x):
        return 0x7FFFFFFF
    if np.isinf(x):
        return (u & 0x80000000) | 0x7F7FE000 if sat else u
    lo = u & ~0x1FFF
    rem = u & 0x1FFF
    if rem > 0x1000 or rem == 0x1000 and (rna or (lo >> 13) & 1):
        lo += 0x2000
    if sat and (lo & 0x7FFFFFFF) >= 0x7F800000:
        lo = (lo & 0x80000000) | 0x7F7FE000
    return lo


def fp8_to_f16_ref(b: int, fmt: str, relu: bool) -> int:
    v = _fp8_table(fmt)[b]
    if np.isnan(v):
        return 0x7FFF
    h = int(np.float16(v).view(np.uint16))
    if relu and h & 0x8000:
        return 0
    return h


def half_ref(x: np.float32, bf16: bool, rz: bool, relu: bool, satfinite: bool) -> int:
    """f32 -> f16 (numpy's round to nearest even, then a step toward zero where that went
    past x for .rz) or bf16 (the top 16 bits, rounded), then .satfinite and .relu."""
    if np.isnan(x):
        return -1  # any NaN
    if bf16:
        u = int(np.float32(x).view(np.uint32))
        h = u >> 16 if rz else (u + 0x7FFF + ((u >> 16) & 1)) >> 16
        inf, maxn = 0x7F80, 0x7F7F
    else:
        with np.errstate(over="ignore"):  # (an overflow is the case under test: inf)
            v = np.float32(x).astype(np.float16)
        if rz and abs(float(v)) > abs(float(x)):
            v = np.nextafter(v, np.float16(0))
        h = int(v.view(np.uint16))
        inf, maxn = 0x7C00, 0x7BFF
    if satfinite and h & 0x7FFF == inf:
        h = (h & 0x8000) | maxn
    if relu and h & 0x8000:
        h = 0
    return h


def _half_is(got: int, want: int, bf16: bool) -> bool:
    if want < 0:  # a NaN of the format
        return (got & 0x7FFF) > (0x7F80 if bf16 else 0x7C00)
    return got == want


# ---- tests ---------------------------------------------------------------------------------
floats32 = st.one_of(st.floats(width=32), st.floats(-600, 600, width=32),
                     st.floats(-0.0078125, 0.0078125, width=32))


@settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
@given(xs=st.lists(floats32, min_size=64, max_size=64))
@pytest.mark.parametrize("kind", ("tf32_rna", "tf32_rn", "tf32_rna_sat"))
def test_tf32(mod, kind, xs):
    wave, m = mod
    x = np.array(xs, dtype=np.float32)
    out = np.zeros(64, dtype=np.uint32)
    m.launch(kind, (1,), (64,), [x, out], warp_size=wave)
    for i in range(64):
        assert int(out[i]) == tf32_ref(x[i], kind != "tf32_rn", kind.endswith("sat")), x[i]


@settings(max_examples=20, deadline=None, suppress_health_check=list(HealthCheck))
@given(xs=st.lists(st.one_of(st.floats(width=32), st.floats(-70000, 70000, width=32),
                             st.floats(-1, 1, width=32), st.floats(-2.0**-13, 2.0**-13, width=32)),
                   min_size=64, max_size=64))
@pytest.mark.parametrize("kind", ("e4m3_f32", "e5m2_f32", "e4m3_f32_relu"))
def test_f32_to_fp8x2(mod, kind, xs):
    wave, m = mod
    x = np.array(xs, dtype=np.float32)
    out = np.zeros(32, dtype=np.uint16)
    m.launch(kind, (1,), (32,), [x, out], warp_size=wave)
    fmt, relu = kind[:4], kind.endswith("relu")
    for i in range(32):
        # cvt d, a, b: a in the upper byte, b in the lower
        want = (fp8_ref(float(x[2 * i]), fmt, relu) << 8) | fp8_ref(float(x[2 * i + 1]), fmt, relu)
        assert int(out[i]) == want, (x[2 * i], x[2 * i + 1], hex(int(out[i])), hex(want))


@settings(max_examples=20, deadline=None, suppress_health_check=list(HealthCheck))
@given(hs=st.lists(st.integers(0, 0xFFFF), min_size=64, max_size=64))
@pytest.mark.parametrize("kind", ("e4m3_f16", "e5m2_f16"))
def test_f16x2_to_fp8x2(mod, kind, hs):
    wave, m = mod
    h = np.array(hs, dtype=np.uint16)
    words = (h[0::2].astype(np.uint32) << 16) | h[1::2]
    out = np.zeros(32, dtype=np.uint16)
    m.launch(kind, (1,), (32,), [words, out], warp_size=wave)
    fmt = kind[:4]
    for i in range(32):
        hi = float(np.uint16(h[2 * i]).view(np.float16))
        lo = float(np.uint16(h[2 * i + 1]).view(np.float16))
        assert int(out[i]) == (fp8_ref(hi, fmt) << 8) | fp8_ref(lo, fmt), (hi, lo)


@pytest.mark.parametrize("kind", ("f16_e4m3", "f16_e5m2", "f16_e4m3_relu"))
def test_fp8x2_to_f16x2_exhaustive(mod, kind):
    wave, m = mod
    x = np.arange(65536, dtype=np.uint32).astype(np.uint16)
    out = np.zeros(65536, dtype=np.uint32)
    m.launch(kind, (256,), (256,), [x, out], warp_size=wave)
    fmt, relu = kind[4:8], kind.endswith("relu")
    lo = np.array([fp8_to_f16_ref(b, fmt, relu) for b in range(256)], dtype=np.uint32)
    want = (lo[x >> 8] << 16) | lo[x & 0xFF]
    assert np.array_equal(out, want)


@settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck))
@given(mask=st.integers(1, 2**32 - 1), active=st.integers(0, 2**32 - 1))
def test_elect_sync(mod, mask, active):
    wave, m = mod
    # the lanes in the mask must take part (the ISA); others may too. An empty mask is
    # undefined (no executing thread is in it), so it is not tested
    active |= mask
    args = np.array([mask, active], dtype=np.uint32)
    out = np.zeros((64, 2), dtype=np.uint32)
    m.launch("elect", (1,), (64,), [args, out], warp_size=wave)
    taking = mask & active
    leader = (taking & -taking).bit_length() - 1 if taking else 0
    for t in range(64):
        lane = t & 31
        if not (active >> lane) & 1:
            assert list(out[t]) == [0xFFFFFFFF, 0xFFFFFFFF]
            continue
        assert int(out[t, 0]) == leader
        assert int(out[t, 1]) == int(bool(taking) and lane == leader)


@settings(max_examples=30, deadline=None, suppress_health_check=list(HealthCheck))
@given(xs=st.lists(st.one_of(st.floats(width=32), st.floats(-70000, 70000, width=32),
                             st.floats(65472, 65536, width=32), st.floats(-1, 1, width=32),
                             st.sampled_from([np.inf, -np.inf, 3.3895e38, -3.3895e38,
                                              65504.0, 65519.99, 65520.0, -65520.0])),
                   min_size=64, max_size=64))
@pytest.mark.parametrize("kind", ("f16x2_rn_satf", "bf16x2_rn_satf", "f16x2_rz_relu_satf",
                                  "bf16x2_rz_relu_satf", "f16_rn_satf", "bf16_rz_satf"))
def test_f32_to_half_satfinite(mod, kind, xs):
    wave, m = mod
    x = np.array(xs, dtype=np.float32)
    pair = "x2" in kind
    bf16, rz, relu = kind.startswith("bf16"), "_rz" in kind, "relu" in kind
    n = 32 if pair else 64
    out = np.zeros(n, dtype=np.uint32 if pair else np.uint16)
    m.launch(kind, (1,), (n,), [x, out], warp_size=wave)
    for i in range(n):
        got = int(out[i])
        if pair:  # cvt d, a, b: a in the upper half, b in the lower
            hi = half_ref(x[2 * i], bf16, rz, relu, True)
            lo = half_ref(x[2 * i + 1], bf16, rz, relu, True)
            ok = _half_is(got >> 16, hi, bf16) and _half_is(got & 0xFFFF, lo, bf16)
            assert ok, (kind, x[2 * i], x[2 * i + 1], hex(got), hi, lo)
        else:
            want = half_ref(x[i], bf16, rz, relu, True)
            assert _half_is(got, want, bf16), (kind, x[i], hex(got), want)



@settings(max_examples=20, deadline=None, suppress_health_check=list(HealthCheck))
@given(xs=st.lists(st.one_of(st.floats(width=32), st.floats(-40, 40, width=32),
                             st.floats(-1, 1, width=32), st.floats(-0.25, 0.25, width=32),
                             st.sampled_from([7.25, 7.5, 7.75, 28.0, 30.0, 32.0, 0.0625, 0.03125,
                                              0.09375, -0.0, np.inf, -np.inf, np.nan])),
                   min_size=64, max_size=64))
@pytest.mark.parametrize("kind", ("e2m3_f32", "e3m2_f32", "e2m3_f32_relu", "e3m2_f32_relu"))
def test_f32_to_fp6x2(mod, kind, xs):
    wave, m = mod
    x = np.array(xs, dtype=np.float32)
    out = np.zeros(32, dtype=np.uint16)
    m.launch(kind, (1,), (32,), [x, out], warp_size=wave)
    fmt, relu = kind[:4], kind.endswith("relu")
    for i in range(32):
        # cvt d, a, b: a in the upper byte, b in the lower
        want = (fp6_ref(float(x[2 * i]), fmt, relu) << 8) | fp6_ref(float(x[2 * i + 1]), fmt, relu)
        assert int(out[i]) == want, (x[2 * i], x[2 * i + 1], hex(int(out[i])), hex(want))


@pytest.mark.parametrize("kind", ("f16_e2m3", "f16_e3m2", "f16_e3m2_relu"))
def test_fp6x2_to_f16x2_exhaustive(mod, kind):
    """Every 16-bit input, the upper two bits of each byte set too (the ISA reads the low 6)."""
    wave, m = mod
    x = np.arange(65536, dtype=np.uint32).astype(np.uint16)
    out = np.zeros(65536, dtype=np.uint32)
    m.launch(kind, (256,), (256,), [x, out], warp_size=wave)
    fmt, relu = kind[4:8], kind.endswith("relu")
    lo = np.array([fp6_to_f16_ref(b & 0x3F, fmt, relu) for b in range(256)], dtype=np.uint32)
    want = (lo[x >> 8] << 16) | lo[x & 0xFF]
    assert np.array_equal(out, want)


def test_fp6_prelude_only_where_used():
    """fp6.h reaches the modules whose cvt uses FP6, and no other (their C is unchanged)."""
    from pyshim.ptx.translate import translate

    fp6 = HEAD + _unary("k", "cvt.rn.satfinite.e2m3x2.f32", "f32", "b16", 2)
    fp8 = HEAD + _unary("k", "cvt.rn.satfinite.e4m3x2.f32", "f32", "b16", 2)
    for target in ("cpu-wave64", "hip-wave64:gfx942", "cuda"):
        assert translate(fp6, target).count("/* ---- fp6.h ---- */") == 1
        assert "fp6.h" not in translate(fp8, target)


@pytest.mark.skipif(not nvrtc_available(), reason="NVRTC not found (pip install nvidia-cuda-nvrtc)")
def test_cuda_target_of_the_conversions_compiles_and_agrees(tmp_path):
    """The cuda target's C++ of every conversion here compiles with NVRTC (lowp.h spelled
    float builtins NVRTC does not have), and its PTX P' gives P's bytes on the CPU device."""
    from pyshim.differential.checks import cuda_target_ptx

    src = HEAD + "".join(_unary(*k) for k in KERNELS)
    (tmp_path / "p").mkdir()
    (tmp_path / "q").mkdir()
    p = build(src, "cpu-wave32", tmp_path / "p")
    q = build(cuda_target_ptx(src), "cpu-wave32", tmp_path / "q")
    rng = np.random.default_rng(7)
    specials = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 448.0, 57344.0, 1e-9, -7.5, 0.5],
                        dtype=np.float32)
    size = {"f32": 4, "b32": 4, "b16": 2}
    for name, _op, src_ty, dst_ty, srcs in KERNELS:
        n = 64 * srcs
        if src_ty == "f32":
            x = np.concatenate([specials, rng.standard_normal(n, dtype=np.float32) * 300])[:n]
        else:
            x = rng.integers(0, 2 ** (8 * size[src_ty]), n, dtype=np.uint64).astype(
                np.uint16 if src_ty == "b16" else np.uint32)
        outs = []
        for m in (p, q):
            out = np.zeros(64 * size[dst_ty], dtype=np.uint8)
            m.launch(name, (1,), (64,), [x, out], warp_size=32)
            outs.append(out)
        assert np.array_equal(outs[0], outs[1]), name
