"""Warp matrix instructions on the CPU device in both wave modes, against numpy: every
mma.sync shape and type pyshim translates, ldmatrix / stmatrix x1/x2/x4 (.trans) and
movmatrix, as hand-written PTX (tests/ptx/mma.py) on hypothesis-drawn matrices (tests/ptx/mma_check.py).

What is exact and what is within bounds (preludes/mma.h says how the CPU device computes):
- integer and b1 mma: bit-exact (wrapping, or clamped with .satfinite);
- f16 / bf16 / tf32 / e4m3 / e5m2 inputs with an f32 accumulator: every product is exact in
  f32 and the sum is accumulated in f32, so the result is within k + 1 f32 roundings of the
  exact value (|err| <= (k + 1) 2^-24 (|c| + sum |a b|)), what NVIDIA documents for its
  tensor cores' f32 accumulation ("at least single precision");
- an f16 accumulator: the same plus one rounding to f16;
- f64: within k + 1 f64 roundings.
"""

from __future__ import annotations

import re

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from ptx import mma, mma_check
from ptx.harness import build

WAVES = (32, 64)
WARPS = 2  # two warps per block: on a 64-wide wavefront, the two halves of one wave


@pytest.fixture(scope="module", params=WAVES, ids=lambda w: f"wave{w}")
def mod(request, tmp_path_factory):
    return request.param, build(mma.module(), f"cpu-wave{request.param}",
                                tmp_path_factory.mktemp("mma"))


def _run(wave, module, f: mma.Form, seed: int, kind: int):
    rng = np.random.default_rng(seed)
    warps = [mma_check.operands(f, rng, kind) for _ in range(WARPS)]
    out = np.zeros((WARPS * 32, f.words("d")), dtype=np.uint32)
    module.launch(f"k_{f.id}", (1,), (WARPS * 32,), [mma_check.pack(f, warps), out],
                  warp_size=wave)
    mma_check.check(f, out, warps)


@pytest.mark.parametrize("form", mma.FORMS, ids=[f.id for f in mma.FORMS])
@settings(max_examples=15, deadline=None, suppress_health_check=list(HealthCheck))
@given(seed=st.integers(0, 2**63), kind=st.integers(0, 1))
def test_mma(mod, form, seed, kind):
    wave, module = mod
    _run(wave, module, form, seed, kind)


def test_mma_int_wraps_and_saturates(mod):
    """s8 with the largest products: without .satfinite the sum wraps, with it it clamps"""
    wave, module = mod
    for f in (mma.Form(16, 8, 32, "s32", "s8", "s8", "s32", True),
              mma.Form(16, 8, 32, "s32", "u8", "u8", "s32")):
        A = np.full((f.m, f.k), 0x80 if f.a == "s8" else 0xFF, dtype=np.uint64)
        B = np.full((f.k, f.n), 0x80 if f.b == "s8" else 0xFF, dtype=np.uint64)
        C = np.full((f.m, f.n), 0x7FFFFFF0, dtype=np.uint64)
        ins = mma_check.pack(f, [(A, B, C)] * WARPS)
        out = np.zeros((WARPS * 32, f.words("d")), dtype=np.uint32)
        module.launch(f"k_{f.id}", (1,), (WARPS * 32,), [ins, out], warp_size=wave)
        got = mma.unpack("s32", mma.c_layout(f), out[:32], f.m, f.n)
        want, _ = mma_check.reference(f, A, B, C)
        assert np.array_equal(got.astype(np.int64), want)
        if f.sat:
            assert int(got[0, 0]) == 0x7FFFFFFF


# ---- ldmatrix / stmatrix / movmatrix --------------------------------------------------------
def _pieces(src: np.ndarray) -> np.ndarray:
    """the 32 x 32 b16 source as 128 16-byte row pieces of 8 elements"""
    return src.reshape(128, 8)


@pytest.mark.parametrize("count", (1, 2, 4))
@pytest.mark.parametrize("trans", (False, True), ids=("plain", "trans"))
@settings(max_examples=20, deadline=None, suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_ldmatrix(mod, count, trans, data):
    wave, module = mod
    src = np.array(data.draw(st.lists(st.integers(0, 0xFFFF), min_size=1024, max_size=1024)),
                   dtype=np.uint16)
    offs = np.array(data.draw(st.lists(st.integers(0, 127), min_size=32, max_size=32)),
                    dtype=np.uint32)
    out = np.zeros((32, count), dtype=np.uint32)
    module.launch(f"ldm_x{count}{'_t' if trans else ''}", (1,), (32,), [src, offs, out],
                  warp_size=wave)
    rows = _pieces(src)
    for lane in range(32):
        for j in range(count):
            mat = rows[offs[8 * j:8 * j + 8]]  # matrix j: 8 rows of 8
            if trans:
                mat = mat.T
            r, c = lane >> 2, 2 * (lane & 3)
            want = int(mat[r, c]) | (int(mat[r, c + 1]) << 16)
            assert int(out[lane, j]) == want, (lane, j)


@pytest.mark.parametrize("count", (1, 2, 4))
@pytest.mark.parametrize("trans", (False, True), ids=("plain", "trans"))
@settings(max_examples=20, deadline=None, suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_stmatrix(mod, count, trans, data):
    wave, module = mod
    regs = np.array(data.draw(st.lists(st.integers(0, 2**32 - 1), min_size=32 * count,
                                       max_size=32 * count)), dtype=np.uint32).reshape(32, count)
    # distinct rows, so no two lanes' stores overlap
    offs = np.array(data.draw(st.permutations(range(128)))[:32], dtype=np.uint32)
    out = np.zeros(1024, dtype=np.uint16)
    module.launch(f"stm_x{count}{'_t' if trans else ''}", (1,), (32,), [regs, offs, out],
                  warp_size=wave)
    want = np.zeros((128, 8), dtype=np.uint16)
    for j in range(count):
        mat = np.zeros((8, 8), dtype=np.uint16)
        for lane in range(32):
            r, c = lane >> 2, 2 * (lane & 3)
            mat[r, c] = regs[lane, j] & 0xFFFF
            mat[r, c + 1] = regs[lane, j] >> 16
        if trans:
            mat = mat.T
        want[offs[8 * j:8 * j + 8]] = mat
    assert np.array_equal(out.reshape(128, 8), want)


@settings(max_examples=20, deadline=None, suppress_health_check=list(HealthCheck))
@given(regs=st.lists(st.integers(0, 2**32 - 1), min_size=32, max_size=32))
def test_movmatrix(mod, regs):
    wave, module = mod
    a = np.array(regs, dtype=np.uint32)
    out = np.zeros(32, dtype=np.uint32)
    module.launch("movm", (1,), (32,), [a, out], warp_size=wave)
    mat = np.zeros((8, 8), dtype=np.uint32)
    for lane in range(32):
        mat[lane >> 2, 2 * (lane & 3)] = a[lane] & 0xFFFF
        mat[lane >> 2, 2 * (lane & 3) + 1] = a[lane] >> 16
    t = mat.T
    for lane in range(32):
        r, c = lane >> 2, 2 * (lane & 3)
        assert int(out[lane]) == int(t[r, c]) | (int(t[r, c + 1]) << 16)


# ---- how the CPU device runs these kernels, and mma among divergent branches ----------------
# thread i loads its m16n8k16 f16 fragments (f32 C) from in[i * 10 ...]; odd lanes add
# 1.0f to their first C word (tid & 7) + 1 times in a loop of their own, even lanes skip it;
# after the mma, even lanes negate their first D word on a branch of their own
DIVERGENT = mma.HEAD + """
.visible .entry divergent(.param .u64 pin, .param .u64 pout) {
  .reg .b32 %r<40>; .reg .f32 %f<4>; .reg .b64 %rd<10>; .reg .pred %p<4>;
  ld.param.u64 %rd1, [pin]; ld.param.u64 %rd2, [pout];
  mov.u32 %r0, %tid.x;
  mul.wide.u32 %rd3, %r0, 40; add.s64 %rd4, %rd1, %rd3;
  mul.wide.u32 %rd5, %r0, 16; add.s64 %rd6, %rd2, %rd5;
  ld.global.b32 %r10, [%rd4]; ld.global.b32 %r11, [%rd4+4];
  ld.global.b32 %r12, [%rd4+8]; ld.global.b32 %r13, [%rd4+12];
  ld.global.b32 %r14, [%rd4+16]; ld.global.b32 %r15, [%rd4+20];
  ld.global.f32 %f0, [%rd4+24]; ld.global.f32 %f1, [%rd4+28];
  ld.global.f32 %f2, [%rd4+32]; ld.global.f32 %f3, [%rd4+36];
  and.b32 %r1, %r0, 1;
  setp.eq.u32 %p1, %r1, 0;
  @%p1 bra SKIP;
  and.b32 %r2, %r0, 7;
  mov.u32 %r3, 0;
AGAIN:
  add.f32 %f0, %f0, 0f3F800000;
  add.u32 %r3, %r3, 1;
  setp.le.u32 %p2, %r3, %r2;
  @%p2 bra AGAIN;
SKIP:
  mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%f0, %f1, %f2, %f3},
      {%r10, %r11, %r12, %r13}, {%r14, %r15}, {%f0, %f1, %f2, %f3};
  @!%p1 bra STORE;
  neg.f32 %f0, %f0;
STORE:
  st.global.f32 [%rd6], %f0; st.global.f32 [%rd6+4], %f1;
  st.global.f32 [%rd6+8], %f2; st.global.f32 [%rd6+12], %f3;
  ret;
}
"""


@pytest.mark.parametrize("wave", WAVES, ids=lambda w: f"wave{w}")
def test_tensor_kernels_run_in_warp_lockstep(wave):
    """The warp matrix kernels run as region loops or phases (the warp's lanes in lockstep,
    the whole-warp function between regions), not as fibers"""
    from pyshim.ptx.translate import translate

    for ptx in (mma.module(), DIVERGENT):
        src = translate(ptx, f"cpu-wave{wave}")
        modes = re.findall(r"/\* kernel (\S+): ([^*]*?) \*/", src)
        assert modes and not [k for k, how in modes if "fibers" in how], modes
        assert all("region loops" in how or "phases" in how for _k, how in modes), modes
        assert "ps_warp_run(ctx" not in src  # (the fibers' exchange)
        assert "PS_COLL_WARPFN;" in src


def test_mma_among_divergent_branches(mod, tmp_path):
    wave, _module = mod
    f = mma.Form(16, 8, 16, "f32", "f16", "f16", "f32")
    module = build(DIVERGENT, f"cpu-wave{wave}", tmp_path)
    rng = np.random.default_rng(wave)
    ins = np.zeros((WARPS * 32, 10), dtype=np.uint32)
    refs = []
    for w in range(WARPS):
        A, B, C = mma_check.operands(f, rng, 0)
        lanes = slice(32 * w, 32 * w + 32)
        ins[lanes, :4] = mma.pack("f16", mma.a_layout(f), A, 4)
        ins[lanes, 4:6] = mma.pack("f16", mma.b_layout(f), B, 2)
        words = mma.pack("f32", mma.c_layout(f), C, 4)
        ins[lanes, 6:] = words
        for lane in range(1, 32, 2):  # what the odd lanes' loop does to their first C word
            v = words[lane, 0:1].view(np.float32).copy()
            for _ in range(((32 * w + lane) & 7) + 1):
                v = v + np.float32(1.0)
            words[lane, 0:1] = v.view(np.uint32)
        refs.append(mma_check.reference(f, A, B, mma.unpack("f32", mma.c_layout(f), words, 16, 8)))
    out = np.zeros((WARPS * 32, 4), dtype=np.uint32)
    module.launch("divergent", (1,), (WARPS * 32,), [ins, out], warp_size=wave)
    out[0::2, 0] ^= 0x80000000  # the even lanes' negation, undone
    for w in range(WARPS):
        got = mma.decode("f32", mma.unpack("f32", mma.c_layout(f), out[32 * w:32 * w + 32],
                                           16, 8))
        want, tol = refs[w]
        assert np.all(np.abs(got - want) <= tol), (w, got - want, tol)
