"""A block barrier that some threads reach late: they branch forward past it (to code laid
out after the kernel's `ret`, as numba's reductions are) and come back to it. Region loops
ran the barrier's region as soon as the threads before it arrived, without those on their
way (numba's `cuda.reduce` summed 0..63 to 528): now every thread that can still come to a
barrier runs before the barrier completes. Every kernel runs as region loops, as phases and
as fibers, and is checked against numpy."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from ptx.harness import build

from pyshim.ptx.frontend.parser import parse
from pyshim.ptx.passes import run as run_passes

TARGETS = ["cpu-wave64", "cpu-wave32", "cpu-wave64+phases", "cpu-wave64+fibers"]

# warp 0 sums its 32 values by a tree under bar.warp.sync; the other warps branch past the
# barrier, where lane 0 of each sums its warp one value at a time and branches back to it;
# thread 0 then adds the totals of warps 0 and 1
LATE = """.version 8.0
.target sm_80
.address_size 64
.visible .entry late(.param .u64 in, .param .u64 out)
{
  .reg .pred %p<5>;
  .reg .b32 %r<16>;
  .reg .b64 %rd<10>;
  .shared .align 4 .b32 sm[128];
  ld.param.u64 %rd1, [in];
  ld.param.u64 %rd2, [out];
  mov.u32 %r1, %tid.x;
  shr.u32 %r2, %r1, 5;
  and.b32 %r3, %r1, 31;
  mul.wide.u32 %rd3, %r1, 4;
  add.s64 %rd4, %rd1, %rd3;
  ld.global.u32 %r4, [%rd4];
  mov.u64 %rd5, sm;
  add.s64 %rd6, %rd5, %rd3;
  st.shared.u32 [%rd6], %r4;
  bar.sync 0;
  setp.ne.u32 %p1, %r2, 0;
  @%p1 bra $L_seq;
  mov.u32 %r5, 16;
$L_tree:
  bar.warp.sync -1;
  setp.ge.u32 %p2, %r3, %r5;
  @%p2 bra $L_skip;
  ld.shared.u32 %r6, [%rd6];
  mul.wide.u32 %rd7, %r5, 4;
  add.s64 %rd8, %rd6, %rd7;
  ld.shared.u32 %r7, [%rd8];
  add.s32 %r6, %r6, %r7;
  st.shared.u32 [%rd6], %r6;
$L_skip:
  shr.u32 %r5, %r5, 1;
  setp.ne.u32 %p3, %r5, 0;
  @%p3 bra $L_tree;
  bar.warp.sync -1;
$L_join:
  bar.sync 0;
  setp.ne.u32 %p4, %r1, 0;
  @%p4 bra $L_done;
  ld.shared.u32 %r8, [sm];
  ld.shared.u32 %r9, [sm+128];
  add.s32 %r8, %r8, %r9;
  st.global.u32 [%rd2], %r8;
$L_done:
  ret;
$L_seq:
  setp.ne.u32 %p2, %r3, 0;
  @%p2 bra $L_join;
  ld.shared.u32 %r10, [%rd6];
  mov.u32 %r11, 1;
$L_loop:
  mul.wide.u32 %rd7, %r11, 4;
  add.s64 %rd8, %rd6, %rd7;
  ld.shared.u32 %r12, [%rd8];
  add.s32 %r10, %r10, %r12;
  add.u32 %r11, %r11, 1;
  setp.lt.u32 %p3, %r11, 32;
  @%p3 bra $L_loop;
  st.shared.u32 [%rd6], %r10;
  bra.uni $L_join;
}
"""


def test_runs_as_region_loops() -> None:
    k = run_passes(parse(LATE)).kernels[0]
    assert k.info["mode"] == "phase" and k.info["regions"] is not None
    assert k.info["regions"].backward


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("block", [64, 96, 128])
def test_threads_on_their_way_to_a_barrier_arrive_before_it_completes(
        tmp_path: Path, target: str, block: int) -> None:
    mod = build(LATE, target, tmp_path)
    x = np.random.default_rng(7).integers(-1000, 1000, block).astype(np.int32)
    out = np.zeros(1, np.int32)
    mod.launch("late", (1,), (block,), [x, out])
    assert out[0] == x[:64].sum()
