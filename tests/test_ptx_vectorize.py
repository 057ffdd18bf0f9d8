"""Vectorizable thread loops on the CPU device: addresses as base pointer + offset (pointer
shadows, pyshim/ptx/analysis/pointer_regs.py), atom/red on .shared (plain read-modify-writes on the
block's own window, preludes/cpu.h) against real atomics, and the kernel compiler preference
(pyshim/kernels/compile.py)."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from ptx.harness import build

from pyshim.kernels import compile as kcompile
from pyshim.ptx import ir
from pyshim.ptx.analysis import pointer_regs
from pyshim.ptx.frontend.parser import parse
from pyshim.ptx.translate import translate

HERE = Path(__file__).parent / "ptx"
HEAD = ".version 8.0\n.target sm_80\n.address_size 64\n"
needs_nvcc = pytest.mark.skipif(shutil.which("nvcc") is None, reason="needs nvcc")


def kernel_c(source: str, name: str) -> str:
    """The C of one kernel (its body and run_block) in a translated module."""
    start = source.index(f"/* kernel {name}:")
    end = source.find("/* kernel ", start + 1)
    return source[start:end if end > 0 else source.index("/* ---- module descriptor")]


# ---- pointer shadows: what the translator emits -------------------------------------------

@pytest.fixture(scope="module")
def vec_ptx(tmp_path_factory) -> str:
    if shutil.which("nvcc") is None:
        pytest.skip("needs nvcc")
    out = tmp_path_factory.mktemp("nvcc") / "vectorize.ptx"
    subprocess.run(["nvcc", "-ptx", "-O2", str(HERE / "vectorize.cu"), "-o", str(out)],
                   check=True, capture_output=True)
    return out.read_text()


@needs_nvcc
@pytest.mark.parametrize("name", ["saxpy", "stencil", "rows_reversed", "pick_gather"])
def test_global_accesses_are_base_pointer_plus_offset(vec_ptx, name):
    """Every ld/st.global of nvcc's thread-loop kernels reads its address from a pointer
    shadow (p_rdN, possibly + constant), never through an integer-to-pointer cast of a sum."""
    c = kernel_c(translate(vec_ptx, "cpu-wave64"), name)
    assert "thread loop" in c.splitlines()[0]
    accesses = [ln for ln in c.splitlines()
                 if re.search(r"\*\((?:const )?float \*\)", ln) and "_param_" not in ln]
    assert accesses, c
    for ln in accesses:
        assert re.search(r"float \*\)\(p_rd\d+( [-+] \d+)?\)", ln), ln


@needs_nvcc
def test_grid_stride_loop_runs_in_lockstep(vec_ptx):
    """scale_strided's loop walks global memory: region loops run its iterations in
    lockstep (passes/regions.py) rather than one thread's whole loop after another's."""
    c = kernel_c(translate(vec_ptx, "cpu-wave64"), "scale_strided")
    assert "region loops" in c.splitlines()[0]


@needs_nvcc
def test_shadow_is_updated_at_every_write(vec_ptx):
    """A register with a shadow: add -> base shadow + offset before the integer write; mov /
    cvta -> the source's shadow; anything else (ld, selp) -> the new value as a pointer."""
    c = kernel_c(translate(vec_ptx, "cpu-wave64"), "pick_gather")
    for m in re.finditer(r"\br_(rd\d+) = ", c):
        reg = m.group(1)
        if f"p_{reg}" not in c:
            continue
        line = c[c.rfind("\n", 0, m.start()) + 1:c.find("\n", m.start())]
        assert f"p_{reg} = " in line, line  # the same statement keeps the shadow in step
    assert re.search(r"r_rd\d+ = \(r_p\d+ \? r_rd\d+ : r_rd\d+\); p_rd\d+ = \(uint8_t \*\)"
                     r"\(uintptr_t\)r_rd\d+;", c), c


def test_no_shadows_on_gpu_targets_or_in_phase_mode():
    ptx = HEAD + """
.visible .entry k(.param .u64 out)
{
  .reg .b32 %r<3>; .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd2, %r1, 4;
  add.s64 %rd3, %rd1, %rd2;
  bar.sync 0;
  st.global.u32 [%rd3], %r1;
  ret;
}
"""
    assert "p_rd3" not in translate(ptx, "hip-wave64")
    assert "p_rd3" not in translate(ptx, "cpu-wave64")  # a barrier: phases / region loops
    assert "p_rd3" in translate(ptx.replace("bar.sync 0;", ""), "cpu-wave64")


def _plan(body: str) -> pointer_regs.PointerPlan:
    mod = parse(HEAD + ".visible .entry k(.param .u64 a, .param .u64 b)\n{\n" + body + "\n}\n")
    return pointer_regs.plan(mod.kernels[0])


def test_base_is_the_pointer_operand_whichever_side_it_is_on():
    plan = _plan("""
  .reg .b32 %r<3>; .reg .b64 %rd<8>;
  ld.param.u64 %rd1, [a];
  cvta.to.global.u64 %rd2, %rd1;
  mov.u32 %r1, %tid.x;
  mul.wide.s32 %rd3, %r1, 4;
  add.s64 %rd4, %rd3, %rd2;
  ld.global.u32 %r2, [%rd4];
  shl.b64 %rd5, %rd3, 1;
  add.s64 %rd6, %rd5, %rd4;
  st.global.u32 [%rd6+8], %r2;
  ret;""")
    how = {d: (base, off) for d, base, off in plan.defs.values()}
    assert how["%rd4"][0] == "%rd2" and how["%rd4"][1] == ir.Reg("%rd3")
    assert how["%rd6"][0] == "%rd4"
    assert how["%rd2"] == ("%rd1", None)
    assert plan.regs == {"%rd1", "%rd2", "%rd4", "%rd6"}  # offsets (%rd3, %rd5) get none


def test_shared_and_param_addresses_get_no_shadow():
    plan = _plan("""
  .reg .b32 %r<3>; .reg .b64 %rd<4>;
  .shared .align 4 .b8 s[64];
  mov.u64 %rd1, s;
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd2, %r1, 4;
  add.s64 %rd3, %rd1, %rd2;
  ld.shared.u32 %r2, [%rd3];
  ld.param.u64 %rd1, [a];
  ret;""")
    assert not plan.regs


# hand-written PTX: a pointer advanced in place (d = d + x), the base on either side, predicated
# adds, pointers rewritten by a non-add (selp, ld), an add whose destination is its own offset
# operand
REWRITES = HEAD + """
.visible .entry k(.param .u64 p_out, .param .u64 p_in, .param .u64 p_ptrs, .param .u32 n)
{
  .reg .pred %p<4>; .reg .b32 %r<12>; .reg .b64 %rd<16>;
  ld.param.u64 %rd1, [p_out];
  ld.param.u64 %rd2, [p_in];
  ld.param.u64 %rd3, [p_ptrs];
  ld.param.u32 %r1, [n];
  mov.u32 %r2, %tid.x;
  setp.ge.u32 %p1, %r2, %r1;
  @%p1 bra $DONE;
  mul.wide.u32 %rd4, %r2, 4;
  add.s64 %rd5, %rd4, %rd2;          // base on the right
  ld.global.u32 %r3, [%rd5];
  mov.u32 %r4, 0;
  mov.u64 %rd6, %rd5;
  mov.u32 %r5, 0;
$SUM:                                 // r4 = in[t] + in[t+1] + in[t+2], pointer advanced in place
  ld.global.u32 %r6, [%rd6];
  add.s32 %r4, %r4, %r6;
  add.s64 %rd6, %rd6, 4;
  add.u32 %r5, %r5, 1;
  setp.lt.u32 %p2, %r5, 3;
  @%p2 bra $SUM;
  ld.global.u32 %r7, [%rd6+-4];       // in[t+2] again
  add.s32 %r4, %r4, %r7;
  and.b32 %r8, %r2, 1;
  setp.eq.u32 %p3, %r8, 1;
  selp.b64 %rd7, %rd2, %rd3, %p3;     // odd threads read in[], even ones ptrs[] as words
  add.s64 %rd7, %rd7, %rd4;
  ld.global.u32 %r9, [%rd7];
  add.s32 %r4, %r4, %r9;
  mul.wide.u32 %rd8, %r2, 8;
  add.s64 %rd9, %rd3, %rd8;
  ld.global.u64 %rd10, [%rd9];        // a pointer loaded from memory: &in[t ^ 1]
  ld.global.u32 %r10, [%rd10];
  add.s32 %r4, %r4, %r10;
  mov.u64 %rd11, 4;
  @%p3 add.s64 %rd11, %rd1, %rd11;    // predicated: out + 4 for odd threads
  @!%p3 add.s64 %rd11, %rd1, 0;       // and out for even ones
  add.s64 %rd4, %rd11, %rd4;          // the destination is the add's own offset operand
  @%p3 st.global.u32 [%rd4+-4], %r4;  // both: out[t]
  @!%p3 st.global.u32 [%rd4], %r4;
$DONE:
  ret;
}
"""


@pytest.mark.parametrize("target", ["cpu-wave64", "cpu-wave64+fibers"])
def test_pointer_rewrites_give_exact_results(tmp_path, target):
    n = 37
    data = np.arange(1000, 1000 + n + 3, dtype=np.uint32)
    mod = build(REWRITES, target, tmp_path)
    out = np.zeros(n + 2, np.uint32)
    ptrs = np.array([data.ctypes.data + 4 * (t ^ 1) for t in range(n + 1)], np.uint64)
    mod.launch("k", (1,), (64,), [out, data, ptrs, n])
    words = ptrs.view(np.uint32)
    t = np.arange(n)
    other = np.where(t & 1, data[t], words[t])
    want = data[t] + data[t + 1] + data[t + 2] + data[t + 2] + other + data[t ^ 1]
    assert out[:n].tolist() == want.astype(np.uint32).tolist()
    assert out[n:].tolist() == [0, 0]  # threads past n wrote nothing


# mad.wide as address arithmetic (nvcc's base + index * size): a negative signed multiplier
# reads in[] backwards from its end, an unsigned one writes out[t]
MAD_WIDE = HEAD + """
.visible .entry k(.param .u64 p_out, .param .u64 p_in, .param .u32 n)
{
  .reg .pred %p<2>; .reg .b32 %r<6>; .reg .b64 %rd<8>;
  ld.param.u64 %rd1, [p_out];
  ld.param.u64 %rd2, [p_in];
  ld.param.u32 %r1, [n];
  cvta.to.global.u64 %rd3, %rd2;
  mov.u32 %r2, %tid.x;
  setp.ge.u32 %p1, %r2, %r1;
  @%p1 bra $DONE;
  mul.wide.u32 %rd4, %r1, 4;
  add.s64 %rd5, %rd3, %rd4;           // one past the end of in[]
  mad.wide.s32 %rd6, %r2, -4, %rd5;   // &in[n - t] ...
  ld.global.u32 %r3, [%rd6+-4];       // ... minus one: in[n - 1 - t]
  mad.wide.u32 %rd7, %r2, 4, %rd1;
  st.global.u32 [%rd7], %r3;
$DONE:
  ret;
}
"""


def test_mad_wide_addresses(tmp_path):
    src = kernel_c(translate(MAD_WIDE, "cpu-wave64"), "k")
    assert re.search(r"p_rd6 = p_rd5 \+ \(int64_t\)\(\(int64_t\)", src), src
    assert re.search(r"p_rd7 = p_rd1 \+ \(int64_t\)\(\(uint64_t\)", src), src
    assert "(p_rd6 - 4)" in src and "(p_rd7)" in src
    n = 45
    data = np.arange(7, 7 + n, dtype=np.uint32)
    out = np.zeros(n + 3, np.uint32)
    build(MAD_WIDE, "cpu-wave64", tmp_path).launch("k", (1,), (64,), [out, data, n])
    assert out.tolist() == data[::-1].tolist() + [0, 0, 0]


# ---- pointer shadows: real nvcc kernels against numpy --------------------------------------

@pytest.fixture(scope="module", params=["cpu-wave64", "cpu-wave32"])
def vec_mod(request, vec_ptx, tmp_path_factory):
    return build(vec_ptx, request.param, tmp_path_factory.mktemp("vec"))


@needs_nvcc
def test_saxpy_with_a_partial_last_block(vec_mod):
    n = 1000
    rng = np.random.default_rng(3)
    x, y = rng.standard_normal(n, dtype=np.float32), rng.standard_normal(n, dtype=np.float32)
    z = np.full(n + 24, -1.0, np.float32)
    vec_mod.launch("saxpy", ((n + 255) // 256,), (256,), [n, 1.5, x, y, z])
    want = (np.float64(1.5) * x.astype(np.float64) + y).astype(np.float32)  # one fma rounding
    assert np.array_equal(z[:n], want)
    assert (z[n:] == -1.0).all()  # the guard keeps threads past n from writing


@needs_nvcc
@pytest.mark.parametrize("w,h", [(67, 45), (32, 8), (1, 5), (3, 3)])
def test_stencil_guards_and_early_returns(vec_mod, w, h):
    rng = np.random.default_rng(w * h)
    grid = rng.standard_normal((h, w), dtype=np.float32)
    want = grid.copy()
    if w > 2 and h > 2:
        c = grid[1:-1, 1:-1]
        s = (((c + grid[1:-1, :-2]) + grid[1:-1, 2:]) + grid[:-2, 1:-1]) + grid[2:, 1:-1]
        want[1:-1, 1:-1] = np.float32(0.2) * s
    out = np.full(w * h + 16, 7.0, np.float32)
    vec_mod.launch("stencil", ((w + 31) // 32, (h + 7) // 8), (32, 8),
                   [w, h, grid.ravel(), out])
    assert np.array_equal(out[:w * h], want.ravel())
    assert (out[w * h:] == 7.0).all()


@needs_nvcc
def test_pointers_loaded_from_memory(vec_mod):
    w, rows = 50, 3
    data = [np.arange(r * 100, r * 100 + w, dtype=np.float32) for r in range(rows)]
    table = np.array([d.ctypes.data for d in data], np.uint64)
    out = np.zeros(rows * w, np.float32)
    vec_mod.launch("rows_reversed", (rows,), (64,), [w, table, out])
    assert np.array_equal(out, np.concatenate([d[::-1] for d in data]))


@needs_nvcc
def test_grid_stride_loop(vec_mod):
    n = 5000
    x = np.arange(n, dtype=np.float32)
    out = np.zeros(n, np.float32)
    vec_mod.launch("scale_strided", (3,), (128,), [n, 0.5, x, out])
    assert np.array_equal(out, x * np.float32(0.5))


@needs_nvcc
def test_selected_pointer_and_indices_from_memory(vec_mod):
    n = 300
    rng = np.random.default_rng(5)
    a, b = rng.standard_normal(64, dtype=np.float32), rng.standard_normal(64, dtype=np.float32)
    idx = rng.integers(0, 64, n).astype(np.int32)
    out = np.zeros(n, np.float32)
    vec_mod.launch("pick_gather", ((n + 127) // 128,), (128,), [n, idx, a, b, out])
    i = np.arange(n)
    assert np.array_equal(out, np.where(i & 1, b[idx], a[idx]))


@needs_nvcc
def test_atomic_slots_in_a_thread_loop(vec_mod):
    """Threads of one (omp simd) thread loop that hand each other slots through atomicAdd's
    returned value: every kept element lands in its own slot (in some order)."""
    n = 1000
    data = np.arange(n, dtype=np.int32) * 7 - 300
    out = np.full(n, -1, np.int32)
    count = np.zeros(1, np.uint32)
    vec_mod.launch("compact", ((n + 127) // 128,), (128,), [n, data, out, count])
    kept = data[np.fmod(data, 3) == 0]  # C's % keeps the dividend's sign
    assert count[0] == len(kept)
    assert sorted(out[:count[0]].tolist()) == sorted(kept.tolist())
    assert (out[count[0]:] == -1).all()


# ---- atom/red on .shared: plain read-modify-writes -----------------------------------------

# (op, type, register width in bits); each runs as atom.shared and as atom.global in one
# module, on the same inputs and in the same thread order, so the plain read-modify-write the
# CPU device does on a block's shared window must give exactly what the real atomic gives
# (old values and final memory), in every mode a block can run in
ATOMS = [("add", "u32", 32), ("add", "s32", 32), ("add", "u64", 64), ("add", "f32", 32),
         ("add", "f64", 64), ("and", "b32", 32), ("or", "b64", 64), ("xor", "b32", 32),
         ("min", "s32", 32), ("max", "u32", 32), ("min", "u64", 64), ("max", "s64", 64),
         ("min", "f32", 32), ("max", "f64", 64), ("inc", "u32", 32), ("dec", "u32", 32),
         ("exch", "b32", 32), ("exch", "b64", 64), ("cas", "b32", 32), ("cas", "b64", 64),
         ("cas", "b16", 16), ("add.noftz", "f16", 16), ("add.noftz", "bf16", 16),
         ("add.noftz", "f16x2", 32), ("red.add", "u32", 32), ("red.max", "s32", 32)]
N_ATOMS = 96
THREADS = 32
SLOTS = 4


def _atom_kernel(j: int, op: str, ty: str, bits: int, space: str) -> str:
    """Threads 0-3 initialise 4 slots, a barrier, then thread t applies inputs t, t+32, ...
    to slot i % 4 (old values to old[i]), a barrier, threads 0-3 copy the slots out."""
    size = bits // 8
    red = op.startswith("red.")
    op = op.removeprefix("red.")
    c = ", %v2" if op == "cas" else ""
    if space == "shared":
        slot = (f"mov.u32 %r9, s{j}; mul.lo.u32 %r10, %SLOT, {size}; add.u32 %r11, %r9, %r10;",
                "[%r11]")
    else:
        slot = (f"mul.wide.u32 %rd14, %SLOT, {size}; add.s64 %rd15, %rd6, %rd14;", "[%rd15]")
    at = f"{'red' if red else 'atom'}.{space}.{op}.{ty}"
    apply = f"{at} {slot[1]}, %v1{c};" if red else f"{at} %v3, {slot[1]}, %v1{c};"
    return f"""
.visible .entry k{j}_{space}(.param .u64 p_old, .param .u64 p_b, .param .u64 p_c,
                             .param .u64 p_mem, .param .u64 p_init, .param .u64 p_g)
{{
  .reg .pred %p<4>; .reg .b32 %r<12>; .reg .b64 %rd<16>; .reg .b{bits} %v<4>;
  .shared .align 8 .b8 s{j}[{SLOTS * size}];
  ld.param.u64 %rd1, [p_old]; ld.param.u64 %rd2, [p_b]; ld.param.u64 %rd3, [p_c];
  ld.param.u64 %rd4, [p_mem]; ld.param.u64 %rd5, [p_init]; ld.param.u64 %rd6, [p_g];
  mov.u32 %r1, %tid.x;
  setp.ge.u32 %p1, %r1, {SLOTS};
  @%p1 bra $INIT_DONE;
  mul.wide.u32 %rd7, %r1, {size};
  add.s64 %rd8, %rd5, %rd7;
  ld.global.b{bits} %v1, [%rd8];
  {slot[0].replace("%SLOT", "%r1")}
  st.{space}.b{bits} {slot[1]}, %v1;
$INIT_DONE:
  bar.sync 0;
  mov.u32 %r2, %r1;
$LOOP:
  setp.ge.u32 %p2, %r2, {N_ATOMS};
  @%p2 bra $END;
  and.b32 %r3, %r2, {SLOTS - 1};
  mul.wide.u32 %rd9, %r2, {size};
  add.s64 %rd10, %rd2, %rd9;
  ld.global.b{bits} %v1, [%rd10];
  add.s64 %rd11, %rd3, %rd9;
  ld.global.b{bits} %v2, [%rd11];
  mov.b{bits} %v3, 0;
  {slot[0].replace("%SLOT", "%r3")}
  {apply}
  add.s64 %rd12, %rd1, %rd9;
  st.global.b{bits} [%rd12], %v3;
  add.u32 %r2, %r2, {THREADS};
  bra $LOOP;
$END:
  bar.sync 0;
  @%p1 bra $DONE;
  {slot[0].replace("%SLOT", "%r1")}
  ld.{space}.b{bits} %v1, {slot[1]};
  mul.wide.u32 %rd7, %r1, {size};
  add.s64 %rd13, %rd4, %rd7;
  st.global.b{bits} [%rd13], %v1;
$DONE:
  ret;
}}
"""


ATOM_PTX = HEAD + "".join(_atom_kernel(j, op, ty, bits, space)
                          for j, (op, ty, bits) in enumerate(ATOMS)
                          for space in ("shared", "global"))


@pytest.fixture(scope="module", params=["cpu-wave64", "cpu-wave64+phases", "cpu-wave64+fibers"])
def atom_mod(request, tmp_path_factory):
    return build(ATOM_PTX, request.param, tmp_path_factory.mktemp("atom"))


_DTYPES = {16: np.uint16, 32: np.uint32, 64: np.uint64}
# (sign, exponent, mantissa) masks of the float formats whose NaN results C leaves open (the
# compiler may swap the operands of old + b, and x86 returns the first NaN): all NaNs of a
# lane compare as one value
_NAN = {"f32": [(1 << 31, 0x7F800000, 0x7FFFFF)],
        "f64": [(1 << 63, 0x7FF << 52, (1 << 52) - 1)],
        "f16": [(0x8000, 0x7C00, 0x3FF)], "bf16": [(0x8000, 0x7F80, 0x7F)],
        "f16x2": [(0x8000, 0x7C00, 0x3FF), (0x8000 << 16, 0x7C00 << 16, 0x3FF << 16)]}


def _canon(values: np.ndarray, ty: str) -> list[int]:
    out = []
    for v in values.tolist():
        for sign, exp, man in _NAN.get(ty, ()):
            if v & exp == exp and v & man:
                v = (v & ~(sign | exp | man)) | exp | man
        out.append(v)
    return out


@pytest.mark.parametrize("j", range(len(ATOMS)), ids=[f"{o}.{t}" for o, t, _b in ATOMS])
@settings(max_examples=12, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(pool=st.lists(st.integers(0, 2**64 - 1), min_size=1, max_size=6),
       seed=st.integers(0, 2**32 - 1))
def test_plain_shared_atomics_match_real_atomics(atom_mod, j, pool, seed):
    """Old values and final slots of atom/red.shared (plain on the CPU device) equal
    atom/red.global (real atomics) on the same inputs: 96 operands from a small pool plus
    edge values."""
    op, ty, bits = ATOMS[j]
    hi = (1 << bits) - 1
    values = [v & hi for v in pool] + [0, 1, hi, hi >> 1, (hi >> 1) + 1]
    if op in ("inc", "dec"):
        values += [v % 41 for v in pool]
    rng = np.random.default_rng(seed)
    b, c, init = (np.array(rng.choice(values, k), _DTYPES[bits])
                  for k in (N_ATOMS, N_ATOMS, SLOTS))
    if op == "cas":  # some compares succeed: the slot's initial value
        b[::3] = init[np.arange(0, N_ATOMS, 3) % SLOTS]
    got = {}
    for space in ("shared", "global"):
        old = np.zeros(N_ATOMS, _DTYPES[bits])
        mem = np.zeros(SLOTS, _DTYPES[bits])
        g = np.zeros(SLOTS, _DTYPES[bits])
        atom_mod.launch(f"k{j}_{space}", (1,), (THREADS,), [old, b, c, mem, init, g])
        got[space] = (_canon(old, ty), _canon(mem, ty))
    assert got["shared"] == got["global"]
    assert got["shared"][1] != [0] * SLOTS or not init.any() or op in ("and", "exch", "cas",
                                                                       "min", "inc", "dec")


# ---- the kernel compiler ------------------------------------------------------------------

def test_compiler_preference(monkeypatch):
    monkeypatch.delenv("PYSHIM_CC", raising=False)
    monkeypatch.delenv("CC", raising=False)
    kcompile._default_cc.cache_clear()
    try:
        have = shutil.which(kcompile.PREFERRED_CC) is not None
        assert kcompile.cpu_compiler() == [kcompile.PREFERRED_CC if have else "cc"]
        monkeypatch.setattr(kcompile.shutil, "which", lambda name: None)
        kcompile._default_cc.cache_clear()
        assert kcompile.cpu_compiler() == ["cc"]  # no clang-19: the system compiler
        monkeypatch.setenv("CC", "gcc -m64")
        assert kcompile.cpu_compiler() == ["gcc", "-m64"]
        monkeypatch.setenv("PYSHIM_CC", "my-cc")
        assert kcompile.cpu_compiler() == ["my-cc"]
    finally:
        kcompile._default_cc.cache_clear()


def test_benchmark_loops_use_the_kernel_compiler(monkeypatch, capsys):
    """benchmarks/build.py builds the plain C loops with the kernel compiler, and with cc when
    that compiler cannot compile OpenMP (clang-19 without libomp-19-dev), saying so."""
    from benchmarks import build as bbuild

    monkeypatch.setenv("PYSHIM_CC", "gcc")
    assert bbuild.loops_compiler() == ["gcc"]
    if shutil.which("clang-19") is None:
        pytest.skip("needs clang-19")
    monkeypatch.setenv("PYSHIM_CC", "clang-19 -nostdinc")  # no headers at all: no omp.h
    assert bbuild.loops_compiler() == ["cc"]
    assert "libomp-19-dev" in capsys.readouterr().err
