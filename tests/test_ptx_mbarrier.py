"""mbarrier on the CPU device in both wave modes: a wait returns only once every expected
arrival of its phase happened (the other threads get to run while one waits), phases
alternate, tokens and parities name them, cp.async.mbarrier.arrive.noinc arrives after
the thread's copies, and expect_tx/complete_tx hold the phase until the bytes are counted."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from ptx.harness import build

PTX = r""".version 8.0
.target sm_90
.address_size 64

// every thread: write in[tid] to shared, arrive, wait for the phase, then sum what all
// threads wrote; round two (the next phase) with parity waits, the values doubled
.visible .entry rounds(.param .u64 pin, .param .u64 pout)
{
  .reg .b32 %r<20>; .reg .b64 %rd<10>; .reg .pred %p<4>;
  .shared .align 8 .b64 bar;
  .shared .align 4 .b32 vals[256];
  ld.param.u64 %rd1, [pin]; ld.param.u64 %rd2, [pout];
  mov.u32 %r0, %tid.x; mov.u32 %r1, %ntid.x;
  setp.ne.u32 %p1, %r0, 0;
  @%p1 bra INITED;
  mbarrier.init.shared.b64 [bar], %r1;
INITED:
  bar.sync 0;
  mul.wide.u32 %rd3, %r0, 4; add.s64 %rd4, %rd1, %rd3; ld.global.u32 %r2, [%rd4];
  mov.u32 %r3, vals; shl.b32 %r4, %r0, 2; add.u32 %r3, %r3, %r4;
  st.shared.u32 [%r3], %r2;
  mbarrier.arrive.shared.b64 %rd5, [bar];
WAIT1:
  mbarrier.try_wait.shared.b64 %p2, [bar], %rd5;
  @!%p2 bra WAIT1;
  mov.u32 %r5, 0; mov.u32 %r6, 0; mov.u32 %r7, vals;
SUM1:
  ld.shared.u32 %r8, [%r7]; add.u32 %r5, %r5, %r8;
  add.u32 %r7, %r7, 4; add.u32 %r6, %r6, 1; setp.lt.u32 %p3, %r6, %r1; @%p3 bra SUM1;
  // round two: phase 1, waited on by parity 1... after everyone read round one
  bar.sync 0;
  shl.b32 %r9, %r2, 1; st.shared.u32 [%r3], %r9;
  mbarrier.arrive.shared.b64 _, [bar];
WAIT2:
  mbarrier.test_wait.parity.shared.b64 %p2, [bar], 1;
  @!%p2 bra WAIT2;
  mov.u32 %r10, 0; mov.u32 %r6, 0; mov.u32 %r7, vals;
SUM2:
  ld.shared.u32 %r8, [%r7]; add.u32 %r10, %r10, %r8;
  add.u32 %r7, %r7, 4; add.u32 %r6, %r6, 1; setp.lt.u32 %p3, %r6, %r1; @%p3 bra SUM2;
  mul.wide.u32 %rd6, %r0, 8; add.s64 %rd7, %rd2, %rd6;
  st.global.u32 [%rd7], %r5; st.global.u32 [%rd7+4], %r10;
  mbarrier.inval.shared.b64 [bar];
  ret;
}

// `iters` times: arrive + wait at one site, arrive + wait at another (the shape of
// cuda::barrier in a loop): out[tid] = the number of waits passed
.visible .entry loop(.param .u32 iters, .param .u64 pout)
{
  .reg .b32 %r<20>; .reg .b64 %rd<10>; .reg .pred %p<4>;
  .shared .align 8 .b64 bar;
  ld.param.u32 %r9, [iters]; ld.param.u64 %rd2, [pout];
  mov.u32 %r0, %tid.x; mov.u32 %r1, %ntid.x;
  setp.ne.u32 %p1, %r0, 0;
  @%p1 bra INITED;
  mbarrier.init.shared.b64 [bar], %r1;
INITED:
  bar.sync 0;
  mov.u32 %r2, 0; mov.u32 %r3, 0;
AGAIN:
  mbarrier.arrive.shared.b64 %rd3, [bar];
WA:
  mbarrier.test_wait.shared.b64 %p2, [bar], %rd3;
  @!%p2 bra WA;
  add.u32 %r3, %r3, 1;
  mbarrier.arrive.shared.b64 %rd4, [bar];
WB:
  mbarrier.try_wait.shared.b64 %p2, [bar], %rd4;
  @!%p2 bra WB;
  add.u32 %r3, %r3, 1;
  add.u32 %r2, %r2, 1; setp.lt.u32 %p3, %r2, %r9; @%p3 bra AGAIN;
  mul.wide.u32 %rd5, %r0, 4; add.s64 %rd6, %rd2, %rd5; st.global.u32 [%rd6], %r3;
  ret;
}

// cp.async into shared, cp.async.mbarrier.arrive.noinc as the thread's arrival, expect_tx
// by thread 0 of 4 bytes that thread 0 completes after its wait starts failing once
.visible .entry copies(.param .u64 pin, .param .u64 pout)
{
  .reg .b32 %r<20>; .reg .b64 %rd<10>; .reg .pred %p<4>;
  .shared .align 8 .b64 bar;
  .shared .align 16 .b8 buf[4096];
  ld.param.u64 %rd1, [pin]; ld.param.u64 %rd2, [pout];
  mov.u32 %r0, %tid.x; mov.u32 %r1, %ntid.x;
  setp.ne.u32 %p1, %r0, 0;
  @%p1 bra INITED;
  mbarrier.init.shared.b64 [bar], %r1;
  mbarrier.expect_tx.shared.b64 [bar], 4;
INITED:
  bar.sync 0;
  mul.wide.u32 %rd3, %r0, 16; add.s64 %rd4, %rd1, %rd3;
  mov.u32 %r3, buf; mul.lo.u32 %r4, %r0, 16; add.u32 %r3, %r3, %r4;
  cp.async.cg.shared.global [%r3], [%rd4], 16;
  cp.async.mbarrier.arrive.noinc.shared.b64 [bar];
  mbarrier.test_wait.parity.shared.b64 %p2, [bar], 0;
  selp.u32 %r12, 1, 0, %p2;       // must be 0: 4 transaction bytes are still pending
  @%p1 bra WAIT;
  mbarrier.complete_tx.shared.b64 [bar], 4;
WAIT:
  mbarrier.try_wait.parity.shared.b64 %p2, [bar], 0;
  @!%p2 bra WAIT;
  // read the neighbour's copy: written by another thread before its arrival
  add.u32 %r5, %r0, 1; rem.u32 %r5, %r5, %r1;
  mov.u32 %r6, buf; mul.lo.u32 %r7, %r5, 16; add.u32 %r6, %r6, %r7;
  ld.shared.v4.u32 {%r8, %r9, %r10, %r11}, [%r6];
  mul.wide.u32 %rd6, %r0, 20; add.s64 %rd7, %rd2, %rd6;
  st.global.v4.u32 [%rd7], {%r8, %r9, %r10, %r11};
  st.global.u32 [%rd7+16], %r12;
  ret;
}
"""


@pytest.fixture(scope="module", params=(32, 64), ids=lambda w: f"wave{w}")
def mod(request, tmp_path_factory):
    return request.param, build(PTX, f"cpu-wave{request.param}", tmp_path_factory.mktemp("mb"))


@settings(max_examples=15, deadline=None, suppress_health_check=list(HealthCheck))
@given(n=st.sampled_from([32, 64, 96, 128, 256]), seed=st.integers(0, 2**32 - 1))
def test_phases(mod, n, seed):
    wave, m = mod
    vals = np.random.default_rng(seed).integers(0, 1 << 20, n).astype(np.uint32)
    out = np.zeros((n, 2), dtype=np.uint32)
    m.launch("rounds", (1,), (n,), [vals, out], warp_size=wave)
    total = int(vals.astype(np.uint64).sum()) & 0xFFFFFFFF
    assert (out[:, 0] == total).all()
    assert (out[:, 1] == (2 * total) & 0xFFFFFFFF).all()


@settings(max_examples=10, deadline=None, suppress_health_check=list(HealthCheck))
@given(n=st.sampled_from([32, 64, 128, 256]), seed=st.integers(0, 2**32 - 1))
def test_copies_and_transactions(mod, n, seed):
    wave, m = mod
    src = np.random.default_rng(seed).integers(0, 2**32, (n, 4), dtype=np.uint64).astype(np.uint32)
    out = np.zeros((n, 5), dtype=np.uint32)
    m.launch("copies", (1,), (n,), [src, out], warp_size=wave)
    assert np.array_equal(out[:, :4], np.roll(src, -1, axis=0))
    assert (out[:, 4] == 0).all()  # no wait succeeded before the transaction bytes came


@settings(max_examples=10, deadline=None, suppress_health_check=list(HealthCheck))
@given(n=st.sampled_from([32, 64, 256]), iters=st.integers(1, 5))
def test_waits_at_two_sites_in_a_loop(mod, n, iters):
    # globalToShmemAsyncCopy's AWBarrier kernel: lanes waiting for the next phase at the
    # first wait starved the lanes of their wavefront still at the second (a trap)
    wave, m = mod
    out = np.zeros(n, dtype=np.uint32)
    m.launch("loop", (1,), (n,), [iters, out], warp_size=wave)
    assert (out == 2 * iters).all()
