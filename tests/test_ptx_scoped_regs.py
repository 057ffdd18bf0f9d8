"""Registers declared inside `{ }` scopes of a function body, as inline asm writes them
(CUB's `{ .reg .u32 r0; .reg .pred p; shfl.sync.up.b32 r0|p, ...; }`, CUDA's half headers'
`{ .reg.b16 lo; ... }`): the type may be glued to `.reg`, and a scoped name whose C
spelling another register of the kernel has (`r0` beside `%r0`, in any type) is its own
register. Each kernel runs in every mode and is checked against numpy."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from ptx.harness import build
from ptx.per_thread import per_thread_kernel

from pyshim.ptx.frontend.parser import parse

TARGETS = ["cpu-wave64", "cpu-wave32", "cpu-wave64+phases", "cpu-wave64+fibers"]

HEAD = ".version 8.0\n.target sm_80\n.address_size 64\n"

# out[t] = in[t] + in[t - 1] (lane 0 of each warp: in[t] only) + (t & 0xffff as s16) * 2,
# through two inline-asm scopes that reuse the kernel's C names: r0 (u32, then s32), p
SCOPED = per_thread_kernel(HEAD, "scoped", regs="""\
  .reg .pred %p<3>;
  .reg .b32 %r<6>;
  .reg .b64 %rd<6>;
""", body="""\
  mov.u32 %r2, %r1;
  {
    .reg .u32 r0;
    .reg .pred p;
    shfl.sync.up.b32 r0|p, %r1, 1, 0, -1;
    @p add.u32 %r2, %r2, r0;
  }
  {
    .reg.b16 %lo;
    .reg .s32 r0;
    cvt.u16.u32 %lo, %r0;
    cvt.s32.s16 r0, %lo;
    shl.b32 r0, r0, 1;
    add.s32 %r2, %r2, r0;
  }
""", store="st.global.u32 [%rd5], %r2;")

# no synchronisation (a plain thread loop): out[t] = in[t] * 3 + t, the scope's r0 beside
# the kernel's %r0 in one C block
PLAIN = per_thread_kernel(HEAD, "plain", regs="""\
  .reg .b32 %r<4>;
  .reg .b64 %rd<6>;
""", body="""\
  {
    .reg .u32 r0;
    mul.lo.u32 r0, %r1, 3;
    add.u32 %r2, r0, %r0;
  }
""", store="st.global.u32 [%rd5], %r2;")


def test_glued_type_parses() -> None:
    fn = parse(SCOPED).functions[0]
    lo = next(s for s in fn.body if getattr(s, "name", "") == "%lo")
    assert lo.space == "reg" and lo.type == "b16"


@pytest.mark.parametrize("target", TARGETS)
def test_scoped_registers_are_their_own(tmp_path: Path, target: str) -> None:
    mod = build(SCOPED, target, tmp_path)
    n = 96
    x = np.random.default_rng(5).integers(-1000, 1000, n).astype(np.int32)
    out = np.zeros(n, np.int32)
    mod.launch("scoped", (1,), (n,), [x, out])
    t = np.arange(n)
    prev = np.where(t % 32 == 0, 0, np.roll(x, 1))
    want = x + prev + (t.astype(np.int16).astype(np.int32) * 2)
    np.testing.assert_array_equal(out, want.astype(np.int32))


@pytest.mark.parametrize("target", ["cpu-wave64", "cpu-wave64+fibers"])
def test_scoped_register_beside_the_kernels_own_in_a_thread_loop(tmp_path: Path,
                                                                 target: str) -> None:
    mod = build(PLAIN, target, tmp_path)
    n = 64
    x = np.random.default_rng(6).integers(-1000, 1000, n).astype(np.int32)
    out = np.zeros(n, np.int32)
    mod.launch("plain", (1,), (n,), [x, out])
    np.testing.assert_array_equal(out, x * 3 + np.arange(n, dtype=np.int32))
