"""cp.async on the CPU device in both wave modes, every form: .ca with 4, 8 and 16 bytes,
.cg with 16, a src-size operand (the bytes past it are zero-filled), the ignore-src
predicate (all zeros), an L2 cache hint, and commit_group / wait_group / wait_all around
them. Each thread copies one chunk into shared memory; after the wait and a barrier the
block writes shared memory back; numpy says what must be there."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from ptx.harness import build

FORMS = [("ca", 4), ("ca", 8), ("ca", 16), ("cg", 16)]


def _kernel(kind: str, size: int) -> str:
    name = f"cp_{kind}_{size}"
    return f"""
.visible .entry {name}(.param .u64 psrc, .param .u64 psizes, .param .u64 pout)
{{
  .reg .b32 %r<20>; .reg .b64 %rd<12>; .reg .pred %p<4>;
  .shared .align 16 .b8 buf[{16 * 256}];
  ld.param.u64 %rd1, [psrc]; ld.param.u64 %rd2, [psizes]; ld.param.u64 %rd3, [pout];
  mov.u32 %r0, %tid.x; mov.u32 %r1, %ntid.x;
  mul.wide.u32 %rd4, %r0, {size}; add.s64 %rd5, %rd1, %rd4;       // this thread's chunk
  mov.u32 %r2, buf; mul.lo.u32 %r3, %r0, {size}; add.u32 %r2, %r2, %r3;
  mul.wide.u32 %rd6, %r0, 4; add.s64 %rd7, %rd2, %rd6; ld.global.u32 %r4, [%rd7];
  // sizes[t]: 0..{size} a src-size; {size} + 1 ignore-src; {size} + 2 a cache hint
  setp.eq.u32 %p1, %r4, {size + 1};
  setp.eq.u32 %p2, %r4, {size + 2};
  @%p1 bra IGNORE;
  @%p2 bra HINT;
  cp.async.{kind}.shared.global [%r2], [%rd5], {size}, %r4;
  bra DONE;
IGNORE:
  cp.async.{kind}.shared.global [%r2], [%rd5], {size}, %p1;
  bra DONE;
HINT:
  createpolicy.fractional.L2::evict_last.b64 %rd8, 1.0;
  cp.async.{kind}.shared.global.L2::cache_hint [%r2], [%rd5], {size}, %rd8;
DONE:
  cp.async.commit_group;
  cp.async.wait_group 0;
  cp.async.wait_all;
  bar.sync 0;
  mul.wide.u32 %rd9, %r0, {size}; add.s64 %rd10, %rd3, %rd9;
  mov.u32 %r5, 0;
COPY:
  add.u32 %r6, %r2, %r5; ld.shared.u8 %r7, [%r6];
  cvt.u64.u32 %rd11, %r5; add.s64 %rd11, %rd10, %rd11; st.global.u8 [%rd11], %r7;
  add.u32 %r5, %r5, 1; setp.lt.u32 %p3, %r5, {size}; @%p3 bra COPY;
  ret;
}}
"""


@pytest.fixture(scope="module", params=(32, 64), ids=lambda w: f"wave{w}")
def mod(request, tmp_path_factory):
    src = ".version 8.0\n.target sm_80\n.address_size 64\n" + "".join(
        _kernel(k, s) for k, s in FORMS)
    return request.param, build(src, f"cpu-wave{request.param}", tmp_path_factory.mktemp("cp"))


@pytest.mark.parametrize("kind,size", FORMS, ids=[f"{k}{s}" for k, s in FORMS])
@settings(max_examples=20, deadline=None, suppress_health_check=list(HealthCheck))
@given(n=st.sampled_from([1, 31, 64, 100, 256]), seed=st.integers(0, 2**32 - 1))
def test_cp_async(mod, kind, size, n, seed):
    wave, m = mod
    rng = np.random.default_rng(seed)
    src = rng.integers(1, 256, n * size).astype(np.uint8)  # no zeros: fills show
    sizes = rng.integers(0, size + 3, n).astype(np.uint32)
    out = np.zeros(n * size, dtype=np.uint8)
    m.launch(f"cp_{kind}_{size}", (1,), (n,), [src, sizes, out], warp_size=wave)
    want = src.reshape(n, size).copy()
    for t in range(n):
        s = int(sizes[t])
        if s == size + 1:
            want[t] = 0  # ignore-src: the chunk is zero-filled
        elif s <= size:
            want[t, s:] = 0  # src-size: the rest is zero-filled
    assert np.array_equal(out.reshape(n, size), want)
