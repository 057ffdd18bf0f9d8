"""passes/liveness.py: which registers phase mode must keep in the per-thread context
(live at a barrier's resume point, including around a loop's back edge) and which become
locals of the phase function; the kernel is run to check the split is right."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from ptx.harness import build

from pyshim.ptx.frontend.parser import parse
from pyshim.ptx.passes import run as run_passes
from pyshim.ptx.translate import translate

HEAD = ".version 8.0\n.target sm_80\n.address_size 64\n"

# 4 rounds: each thread stores tid + round to s[tid], then adds s[(tid + 1) % n];
# %r2 (the round) and %r3 (the sum) are carried around the loop across both barriers, %r9
# (s) and %p1 across one; %r4..%r8 are temporaries of one phase
LOOP = HEAD + """
.visible .entry k(.param .u64 out)
{
  .reg .pred %p<2>; .reg .b32 %r<12>; .reg .b64 %rd<4>;
  .shared .align 4 .b8 s[1024];
  mov.u32 %r1, %tid.x;
  mov.u32 %r10, %ntid.x;
  mov.u32 %r2, 0;
  mov.u32 %r3, 0;
  mov.u32 %r9, s;
$LOOP:
  add.u32 %r4, %r1, %r2;
  shl.b32 %r5, %r1, 2;
  add.u32 %r6, %r9, %r5;
  st.shared.u32 [%r6], %r4;
  bar.sync 0;
  add.u32 %r7, %r1, 1;
  rem.u32 %r7, %r7, %r10;
  shl.b32 %r7, %r7, 2;
  add.u32 %r7, %r9, %r7;
  ld.shared.u32 %r8, [%r7];
  add.u32 %r3, %r3, %r8;
  add.u32 %r2, %r2, 1;
  setp.lt.u32 %p1, %r2, 4;
  bar.sync 0;
  @%p1 bra $LOOP;
  ld.param.u64 %rd1, [out];
  mul.wide.u32 %rd2, %r1, 4;
  add.s64 %rd1, %rd1, %rd2;
  st.global.u32 [%rd1], %r3;
  ret;
}
"""


def test_live_registers_at_barriers() -> None:
    k = run_passes(parse(LOOP)).kernels[0]
    assert k.info["mode"] == "phase" and k.info["regions"].backward   # a barrier in a loop
    live = k.info["phase_live"]
    assert {"%r1", "%r2", "%r3", "%r9", "%r10", "%p1"} <= live
    assert not live & {"%r4", "%r5", "%r6", "%r7", "%r8"}
    src = translate(LOOP, "cpu-wave64+phases")
    regs = src[src.index("typedef struct k0_regs"):src.index("} k0_regs;")]
    assert "r_r2" in regs and "r_r4" not in regs


@pytest.mark.parametrize("target", ["cpu-wave64", "cpu-wave32", "cpu-wave64+phases",
                                    "cpu-wave64+fibers"])
def test_loop_carried_registers_survive_barriers(tmp_path: Path, target: str) -> None:
    mod = build(LOOP, target, tmp_path)
    n = 96
    out = np.zeros(n, np.uint32)
    mod.launch("k", (1,), (n,), [out])
    t = np.arange(n)
    want = sum((t + 1) % n + r for r in range(4))
    assert out.tolist() == want.tolist()
