"""Guard versioning in thread loops (targets/cpu/guards.py): a block whose threads provably
take none of the kernel's opening guards runs a copy of the body without them. Each kernel
here runs over grids whose edge blocks take the guards and whose inner blocks do not, and
is checked against numpy; the hand-written PTX covers negated branches, unsigned and
combined predicates, and index arithmetic that wraps in 32 bits (where only the full body
is right)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from ptx.harness import build

from pyshim.ptx.frontend.parser import parse
from pyshim.ptx.passes import run as run_passes
from pyshim.ptx.targets.cpu import guards as cpu_guards
from pyshim.ptx.translate import translate

TARGETS = ["cpu-wave64", "cpu-wave32"]

STENCIL_CU = r"""
extern "C" __global__ void stencil(int w, int h, const float *in, float *out)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= w || y >= h)
        return;
    int i = y * w + x;
    if (x == 0 || y == 0 || x == w - 1 || y == h - 1) {
        out[i] = in[i];
        return;
    }
    out[i] = 0.25f * (in[i - 1] + in[i + 1] + in[i - w] + in[i + w]);
}
"""

HEAD = ".version 8.0\n.target sm_80\n.address_size 64\n"


def _kernel(name: str, guard: str) -> str:
    """A kernel writing 1 + its thread's global index to out[global index], unless `guard`
    (PTX computing %p9 from %r1 = the index, %r2 = param a, %r3 = param b) branches to the
    end with `@%p9` or `@!%p9` as written in it."""
    return (f".visible .entry {name}(.param .u64 out, .param .u32 a, .param .u32 b,"
            " .param .u32 scale)\n{\n"
            "  .reg .pred %p<10>; .reg .b32 %r<10>; .reg .b64 %rd<4>;\n"
            "  ld.param.u64 %rd1, [out];\n  ld.param.u32 %r2, [a];\n  ld.param.u32 %r3, [b];\n"
            "  ld.param.u32 %r4, [scale];\n  mov.u32 %r5, %ctaid.x;\n  mov.u32 %r6, %tid.x;\n"
            "  mov.u32 %r7, %ntid.x;\n  mad.lo.s32 %r1, %r5, %r4, %r6;\n"
            f"{guard}\n"
            "  mad.lo.s32 %r8, %r5, %r7, %r6;\n  mul.wide.u32 %rd2, %r8, 4;\n"
            "  add.s64 %rd3, %rd1, %rd2;\n  add.s32 %r9, %r1, 1;\n"
            "  st.global.u32 [%rd3], %r9;\nDONE:\n  ret;\n}\n")


# name -> (guard PTX, whether thread index i writes, given i, a, b as Python ints, the
# 32-bit signed value of i first)
GUARDS = {
    "ge": ("  setp.ge.s32 %p9, %r1, %r2;\n  @%p9 bra DONE;",
           lambda i, a, b: not i >= a),
    "not_lt": ("  setp.lt.s32 %p9, %r1, %r2;\n  @!%p9 bra DONE;",
               lambda i, a, b: i < a),
    "unsigned_hs": ("  setp.hs.u32 %p9, %r1, %r2;\n  @%p9 bra DONE;",
                    lambda i, a, b: not (i & 0xFFFFFFFF) >= (a & 0xFFFFFFFF)),
    "window": ("  setp.lt.s32 %p1, %r1, %r2;\n  setp.ge.s32 %p2, %r1, %r3;\n"
               "  or.pred %p9, %p1, %p2;\n  @%p9 bra DONE;",
               lambda i, a, b: not (i < a or i >= b)),
    "edges": ("  setp.eq.s32 %p1, %r1, %r2;\n  setp.ne.s32 %p2, %r1, %r3;\n"
              "  not.pred %p3, %p2;\n  or.pred %p4, %p1, %p3;\n"
              "  setp.gt.s32 %p5, %r1, 100000;\n  and.pred %p6, %p5, %p5;\n"
              "  or.pred %p9, %p4, %p6;\n  @%p9 bra DONE;",
              lambda i, a, b: not (i == a or i == b or i > 100000)),
    # the index wraps in 32 bits for large blocks: their exact index says "never", their
    # wrapped index takes the guard
    "wraps": ("  setp.lt.s32 %p9, %r1, %r2;\n  @%p9 bra DONE;",
              lambda i, a, b: not i < a),
}
PTX = HEAD + "".join(_kernel(n, g) for n, (g, _) in GUARDS.items())


def _s32(v: int) -> int:
    v &= 0xFFFFFFFF
    return v - (1 << 32) if v >= 1 << 31 else v


def _expect(name: str, grid: int, block: int, a: int, b: int, scale: int) -> np.ndarray:
    want = np.zeros(grid * block, np.uint32)
    for c in range(grid):
        for t in range(block):
            i = _s32(c * scale + t)
            if GUARDS[name][1](i, a, b):
                want[c * block + t] = (i + 1) & 0xFFFFFFFF
    return want


def test_every_guard_kernel_gets_a_fast_copy() -> None:
    for k in run_passes(parse(PTX)).kernels:
        plan = cpu_guards.plan(k)
        assert plan is not None and len(plan.branches) == 1, k.name
    src = translate(PTX, "cpu-wave64")
    assert src.count("_fast(PS_CTX, uint8_t *ps_pb)") == len(GUARDS)


@pytest.fixture(scope="module")
def mods(tmp_path_factory: pytest.TempPathFactory) -> dict:
    return {t: build(PTX, t, tmp_path_factory.mktemp(t)) for t in TARGETS}


@pytest.mark.parametrize("name", sorted(GUARDS))
@pytest.mark.parametrize("target", TARGETS)
def test_guards_on_edge_and_inner_blocks(mods: dict, name: str, target: str) -> None:
    grid, block, scale = 7, 64, 64
    for a, b in ((300, 377), (-5, 64), (0, 447), (448, 1), (129, 128)):
        out = np.zeros(grid * block, np.uint32)
        mods[target].launch(name, (grid,), (block,), [out, a, b, scale])
        np.testing.assert_array_equal(out, _expect(name, grid, block, a, b, scale),
                                      err_msg=f"{name} a={a} b={b}")


def test_an_index_that_wraps_runs_the_full_body(mods: dict) -> None:
    """Blocks 2 and 3 have exact indices 2^31 + t and 3 * 2^30 + t: as exact values
    `i < 10` is never true there, but the kernel compares the wrapped 32-bit values, which
    are negative, so every thread of those blocks branches away (the others write)."""
    grid, block, scale, a = 5, 32, 1 << 30, 10
    out = np.zeros(grid * block, np.uint32)
    mods["cpu-wave64"].launch("wraps", (grid,), (block,), [out, a, 0, scale])
    want = _expect("wraps", grid, block, a, 0, scale)
    assert not want[2 * block:4 * block].any() and want[block:2 * block].all()
    np.testing.assert_array_equal(out, want)


@settings(max_examples=25, deadline=None)
@given(grid=st.integers(1, 9), block=st.sampled_from([1, 3, 32, 48, 64]),
       a=st.integers(-2**31, 2**31 - 1), b=st.integers(-2**31, 2**31 - 1),
       scale=st.sampled_from([0, 1, 32, 48, 1 << 20, 1 << 29, -7, -(1 << 30)]),
       name=st.sampled_from(sorted(GUARDS)))
def test_guards_property(mods: dict, grid: int, block: int, a: int, b: int, scale: int,
                         name: str) -> None:
    # parameters near the grid's indices make the guards split blocks
    a = a % (grid * block + 2) - 1 if a % 3 else a
    b = b % (grid * block + 2) - 1 if b % 3 else b
    out = np.zeros(grid * block, np.uint32)
    mods["cpu-wave64"].launch(name, (grid,), (block,), [out, a, b, scale & 0xFFFFFFFF])
    np.testing.assert_array_equal(out, _expect(name, grid, block, a, b, scale))


VECLOAD = HEAD + """
.visible .entry vecload(.param .u64 out, .param .u64 in, .param .u32 a)
{
  .reg .pred %p<2>; .reg .b32 %r<10>; .reg .b64 %rd<6>;
  ld.param.u64 %rd1, [out];
  ld.param.u64 %rd4, [in];
  ld.param.u32 %r3, [a];
  mov.u32 %r5, %ctaid.x;
  mov.u32 %r6, %tid.x;
  mov.u32 %r7, %ntid.x;
  mad.lo.s32 %r8, %r5, %r7, %r6;
  mov.u32 %r1, %r8;
  mul.wide.u32 %rd2, %r8, 8;
  add.s64 %rd5, %rd4, %rd2;
  ld.global.v2.u32 {%r1, %r2}, [%rd5];
  setp.ge.s32 %p1, %r1, %r3;
  @%p1 bra DONE;
  mul.wide.u32 %rd2, %r8, 4;
  add.s64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r2;
DONE:
  ret;
}
"""


def test_a_register_a_vector_load_overwrites_is_not_the_thread_index(tmp_path: Path) -> None:
    """%r1 holds the thread's index until a vector load writes {%r1, %r2}: the guard then
    tests loaded data, which no block-level check can decide (no fast copy is made)."""
    assert cpu_guards.plan(run_passes(parse(VECLOAD)).kernels[0]) is None
    mod = build(VECLOAD, "cpu-wave64", tmp_path)
    grid, block = 4, 32
    n = grid * block
    pairs = np.random.default_rng(9).integers(0, 2 * n, (n, 2)).astype(np.uint32)
    out = np.zeros(n, np.uint32)
    mod.launch("vecload", (grid,), (block,), [out, pairs.ravel(), n])
    np.testing.assert_array_equal(out, np.where(pairs[:, 0] < n, pairs[:, 1], 0))


@pytest.fixture(scope="module")
def stencil_ptx(tmp_path_factory: pytest.TempPathFactory) -> str:
    if shutil.which("nvcc") is None:
        pytest.skip("needs nvcc")
    tmp = tmp_path_factory.mktemp("stencil")
    (tmp / "k.cu").write_text(STENCIL_CU)
    subprocess.run(["nvcc", "-arch=sm_75", "-ptx", "-o", str(tmp / "k.ptx"),
                    str(tmp / "k.cu")], check=True)
    return (tmp / "k.ptx").read_text()


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("w,h,bx,by", [(70, 45, 32, 8), (64, 64, 16, 16), (33, 9, 32, 4),
                                       (5, 200, 8, 8)])
def test_stencil_with_border_blocks(tmp_path: Path, stencil_ptx: str, target: str, w: int,
                                    h: int, bx: int, by: int) -> None:
    k = run_passes(parse(stencil_ptx)).kernels[0]
    assert cpu_guards.plan(k) is not None and len(cpu_guards.plan(k).branches) == 2
    mod = build(stencil_ptx, target, tmp_path)
    grid = np.random.default_rng(w * h).standard_normal((h, w)).astype(np.float32)
    out = np.full((h, w), np.nan, np.float32)
    mod.launch("stencil", ((w + bx - 1) // bx, (h + by - 1) // by), (bx, by),
               [w, h, grid, out])
    want = grid.copy()
    s = ((grid[1:-1, :-2] + grid[1:-1, 2:]) + grid[:-2, 1:-1]) + grid[2:, 1:-1]
    want[1:-1, 1:-1] = np.float32(0.25) * s
    np.testing.assert_array_equal(out, want)
