"""elect.sync (PTX ISA 9.7.13.13): the first instruction added on the redesigned interface
(an EMIT row of kind COLLECTIVE, a handler, Form.elect / PhaseForm.elect). Every lane gets
the leader's lane id (the lowest lane of the mask that executes it) and only the leader
the predicate: as region loops and phases (the CPU's phase form, completed like
activemask) and as fibers (the wave primitive every GPU target gets), for both wave sizes."""

from __future__ import annotations

import numpy as np
import pytest
from ptx.harness import build

from pyshim.ptx.translate import translate

HEAD = ".version 8.0\n.target sm_90\n.address_size 64\n"


def kernel(barrier: bool) -> str:
    # out[t] = leader lane id | (is leader) << 8, for the lanes of mask (others write 0xff)
    sync = "bar.sync 0;" if barrier else ""
    return HEAD + f"""
.visible .entry k(.param .u64 out, .param .u32 mask)
{{
  .reg .pred %p<3>; .reg .b32 %r<12>; .reg .b64 %rd<4>;
  mov.u32 %r1, %tid.x;
  and.b32 %r2, %r1, 31;
  ld.param.u32 %r3, [mask];
  shr.u32 %r4, %r3, %r2;
  and.b32 %r4, %r4, 1;
  mov.u32 %r9, 255;
  setp.eq.u32 %p1, %r4, 0;
  {sync}
  @%p1 bra $DONE;
  elect.sync %r5|%p2, %r3;
  selp.u32 %r6, 256, 0, %p2;
  or.b32 %r9, %r5, %r6;
$DONE:
  {sync}
  ld.param.u64 %rd1, [out];
  mul.wide.u32 %rd2, %r1, 4;
  add.s64 %rd1, %rd1, %rd2;
  st.global.u32 [%rd1], %r9;
  ret;
}}
"""


def expected(n: int, mask: int) -> np.ndarray:
    out = np.full(n, 255, np.uint32)
    for t in range(n):
        lane = t & 31
        if mask >> lane & 1:
            leader = (mask & -mask).bit_length() - 1
            out[t] = leader | (256 if lane == leader else 0)
    return out


@pytest.mark.parametrize("barrier", [False, True], ids=["no-barrier", "barrier"])
@pytest.mark.parametrize("mode", ["", "+phases", "+fibers"])
@pytest.mark.parametrize("wave", [32, 64])
def test_elect_sync(tmp_path, barrier, mode, wave):
    m = build(kernel(barrier), f"cpu-wave{wave}{mode}", tmp_path)
    for mask in (0xFFFFFFFF, 0xF0F0F0F0, 0x00010000):
        out = np.zeros(64, np.uint32)
        m.launch("k", (1,), (64,), [out, mask], warp_size=wave)
        np.testing.assert_array_equal(out, expected(64, mask))


def test_elect_sync_sink_and_the_phase_form():
    ptx = kernel(True).replace("elect.sync %r5|%p2, %r3;", "elect.sync _|%p2, %r3;\n  mov.u32 %r5, 0;")
    c = translate(ptx, "cpu-wave64+phases")
    assert "PS_COLL_BALLOT" in c  # completed by the phase scheduler, not a wave call
    assert "ps_activemask(ctx" in translate(kernel(False), "cpu-wave64+fibers")
    for target in ("hip-wave64", "hip-wave32", "cuda"):
        assert "ps_activemask(ctx" in translate(kernel(False), target)


def test_elect_needs_sync():
    with pytest.raises(Exception, match="elect"):
        translate(kernel(False).replace("elect.sync", "elect"), "cpu-wave64")
