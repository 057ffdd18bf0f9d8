"""A .shared variable's .align holds for its address, not only its offset in the block's
window (numba's `cuda.shared.array(..., alignment=256)` read its address 128 past a
multiple of 256): the CPU device's shared window is page-aligned."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from ptx.harness import build

ALIGNED = """.version 8.0
.target sm_80
.address_size 64
.visible .entry k(.param .u64 out)
{
  .reg .b32 %r<3>;
  .reg .b64 %rd<6>;
  .shared .align 4 .b8 small[4];
  .shared .align 256 .b8 big[8];
  .shared .align 1024 .b8 huge[8];
  mov.u32 %r1, %tid.x;
  st.shared.u8 [small], %r1;
  st.shared.u8 [big], %r1;
  st.shared.u8 [huge], %r1;
  ld.param.u64 %rd1, [out];
  mov.u64 %rd2, big;
  cvta.shared.u64 %rd3, %rd2;
  st.global.u64 [%rd1], %rd3;
  mov.u64 %rd4, huge;
  cvta.shared.u64 %rd5, %rd4;
  st.global.u64 [%rd1+8], %rd5;
  ret;
}
"""


@pytest.mark.parametrize("target", ["cpu-wave64", "cpu-wave64+fibers"])
def test_shared_variables_keep_their_alignment(tmp_path: Path, target: str) -> None:
    mod = build(ALIGNED, target, tmp_path)
    out = np.zeros(2, np.uint64)
    mod.launch("k", (2,), (1,), [out])
    assert int(out[0]) % 256 == 0 and int(out[1]) % 1024 == 0, [hex(int(x)) for x in out]
