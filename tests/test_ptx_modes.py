"""How the CPU device runs blocks: plain loops, phases between barriers, fibers. Hand-written
PTX for the cases nvcc rarely produces: parameters read after a barrier, named barriers with
thread counts, producer/consumer bar.arrive, a barrier in a callee, deadlock detection."""

from __future__ import annotations

import numpy as np
import pytest
from ptx.harness import build

from pyshim.ptx.translate import translate

HEAD = ".version 8.0\n.target sm_80\n.address_size 64\n"

# out[t] = s[(t + 1) % n] * scale, with the parameters loaded only after the barrier
PARAM_AFTER_BARRIER = HEAD + """
.visible .entry k(.param .u64 out, .param .u32 scale)
{
  .reg .b32 %r<10>; .reg .b64 %rd<4>;
  .shared .align 4 .b8 s[256];
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, %ntid.x;
  shl.b32 %r3, %r1, 2;
  mov.u32 %r4, s;
  add.s32 %r5, %r4, %r3;
  st.shared.u32 [%r5], %r1;
  bar.sync 0;
  add.s32 %r6, %r1, 1;
  rem.u32 %r6, %r6, %r2;
  shl.b32 %r6, %r6, 2;
  add.s32 %r6, %r4, %r6;
  ld.shared.u32 %r7, [%r6];
  ld.param.u32 %r8, [scale];
  mul.lo.s32 %r7, %r7, %r8;
  ld.param.u64 %rd1, [out];
  mul.wide.u32 %rd2, %r1, 4;
  add.s64 %rd1, %rd1, %rd2;
  st.global.u32 [%rd1], %r7;
  ret;
}
"""

# warps 0-1 produce into shared memory and bar.arrive on barrier 1 (64 producers + 64
# consumers = 128); warps 2-3 wait with bar.sync 1, 128 and consume
PRODUCER_CONSUMER = HEAD + """
.visible .entry k(.param .u64 out)
{
  .reg .pred %p<2>; .reg .b32 %r<10>; .reg .b64 %rd<4>;
  .shared .align 4 .b8 s[256];
  mov.u32 %r1, %tid.x;
  mov.u32 %r4, s;
  setp.ge.u32 %p1, %r1, 64;
  @%p1 bra $CONSUME;
  shl.b32 %r3, %r1, 2;
  add.s32 %r5, %r4, %r3;
  mul.lo.s32 %r6, %r1, 7;
  st.shared.u32 [%r5], %r6;
  bar.arrive 1, 128;
  ret;
$CONSUME:
  bar.sync 1, 128;
  sub.s32 %r2, %r1, 64;
  shl.b32 %r3, %r2, 2;
  add.s32 %r5, %r4, %r3;
  ld.shared.u32 %r7, [%r5];
  ld.param.u64 %rd1, [out];
  mul.wide.u32 %rd2, %r2, 4;
  add.s64 %rd1, %rd1, %rd2;
  st.global.u32 [%rd1], %r7;
  ret;
}
"""

# the barrier is inside a .func: fibers
BARRIER_IN_CALLEE = HEAD + """
.func sync_and_read(.param .b32 idx, .param .b64 dst)
{
  .reg .b32 %r<4>; .reg .b64 %rd<3>;
  bar.sync 0;
  ld.param.u32 %r1, [idx];
  ld.param.u64 %rd1, [dst];
  mov.u32 %r2, s;
  shl.b32 %r1, %r1, 2;
  add.s32 %r2, %r2, %r1;
  ld.shared.u32 %r3, [%r2];
  st.u32 [%rd1], %r3;
  ret;
}
.shared .align 4 .b8 s[256];
.visible .entry k(.param .u64 out)
{
  .reg .b32 %r<8>; .reg .b64 %rd<4>;
  mov.u32 %r1, %tid.x;
  mov.u32 %r4, s;
  shl.b32 %r3, %r1, 2;
  add.s32 %r5, %r4, %r3;
  add.s32 %r6, %r1, 100;
  st.shared.u32 [%r5], %r6;
  xor.b32 %r7, %r1, 1;
  ld.param.u64 %rd1, [out];
  mul.wide.u32 %rd2, %r1, 4;
  add.s64 %rd1, %rd1, %rd2;
  { .param .b32 a0; .param .b64 a1;
    st.param.b32 [a0], %r7;
    st.param.b64 [a1], %rd1;
    call.uni sync_and_read, (a0, a1);
  }
  ret;
}
"""

# __syncthreads_count / _and / _or without nvcc's scoped register blocks: runs as phases
BAR_RED = HEAD + """
.visible .entry k(.param .u64 in, .param .u64 out)
{
  .reg .pred %p<5>; .reg .b32 %r<10>; .reg .b64 %rd<6>;
  mov.u32 %r1, %tid.x;
  ld.param.u64 %rd1, [in];
  mul.wide.u32 %rd2, %r1, 4;
  add.s64 %rd3, %rd1, %rd2;
  ld.global.s32 %r2, [%rd3];
  setp.gt.s32 %p1, %r2, 0;
  bar.red.popc.u32 %r3, 0, %p1;
  setp.gt.s32 %p2, %r2, -5;
  bar.red.and.pred %p3, 0, %p2;
  setp.gt.s32 %p2, %r2, 100;
  bar.red.or.pred %p4, 0, %p2;
  selp.u32 %r4, 10, 0, %p3;
  selp.u32 %r5, 1, 0, %p4;
  mul.lo.s32 %r3, %r3, 100;
  add.s32 %r3, %r3, %r4;
  add.s32 %r3, %r3, %r5;
  ld.param.u64 %rd4, [out];
  add.s64 %rd5, %rd4, %rd2;
  st.global.u32 [%rd5], %r3;
  ret;
}
"""

# thread 0 waits at a barrier that only it reaches while the others wait at barrier 1
DEADLOCK = HEAD + """
.visible .entry k()
{
  .reg .pred %p<2>; .reg .b32 %r<2>;
  mov.u32 %r1, %tid.x;
  setp.eq.u32 %p1, %r1, 0;
  @%p1 bra $A;
  bar.sync 1;
  ret;
$A:
  bar.sync 2;
  ret;
}
"""


@pytest.mark.parametrize("target", ["cpu-wave64", "cpu-wave32", "cpu-wave64+phases",
                                    "cpu-wave64+fibers"])
def test_parameters_read_after_a_barrier(tmp_path, target):
    assert "region loops" in translate(PARAM_AFTER_BARRIER)
    assert "phases" in translate(PARAM_AFTER_BARRIER, "cpu-wave64+phases")
    m = build(PARAM_AFTER_BARRIER, target, tmp_path)
    out = np.zeros(64, np.int32)
    m.launch("k", (1,), (64,), [out, 3])
    np.testing.assert_array_equal(out, ((np.arange(64) + 1) % 64) * 3)


@pytest.mark.parametrize("target", ["cpu-wave64", "cpu-wave64+fibers"])
def test_bar_red(tmp_path, target):
    assert "phases" in translate(BAR_RED)
    m = build(BAR_RED, target, tmp_path)
    for seed in range(3):
        v = np.random.default_rng(seed).integers(-10, 10, 96).astype(np.int32)
        if seed == 2:
            v[5] = 500
        out = np.zeros(96, np.int32)
        m.launch("k", (1,), (96,), [v, out])
        want = (v > 0).sum() * 100 + int((v > -5).all()) * 10 + int((v > 100).any())
        assert (out == want).all(), (seed, out[:3], want)


def test_named_barrier_with_count_and_arrive(tmp_path):
    src = translate(PRODUCER_CONSUMER)
    assert "fibers" in src
    m = build(PRODUCER_CONSUMER, "cpu-wave64", tmp_path)
    out = np.zeros(64, np.int32)
    m.launch("k", (1,), (128,), [out])
    np.testing.assert_array_equal(out, np.arange(64) * 7)


def test_barrier_inside_a_function(tmp_path):
    m = build(BARRIER_IN_CALLEE, "cpu-wave64", tmp_path)
    out = np.zeros(32, np.int32)
    m.launch("k", (1,), (32,), [out])
    np.testing.assert_array_equal(out, (np.arange(32) ^ 1) + 100)


def test_deadlock_is_reported_not_hung(tmp_path):
    m = build(DEADLOCK, "cpu-wave64", tmp_path)
    with pytest.raises(RuntimeError, match="returned 3"):
        m.launch("k", (1,), (32,), [])
