"""Directed rounding (.rz/.rm/.rp) of add, sub, mul, div, fma, sqrt, rcp in f32 and f64
(expf/powf emit fma.rm.f32): each (op, type, mode) as a PTX kernel on the CPU device,
compared bit for bit with an exact reference (Python fractions, rounded by hand)."""

from __future__ import annotations

import math
import shutil
import struct
import subprocess
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from ptx.harness import build

from pyshim.kernels import amd
from pyshim.ptx.errors import UnsupportedInstruction
from pyshim.ptx.translate import translate

OPS = {"add": 2, "sub": 2, "mul": 2, "div": 2, "fma": 3, "sqrt": 1, "rcp": 1}
MODES = ("rz", "rm", "rp")
TYPES = ("f32", "f64")
N = 64
HEAD = ".version 8.0\n.target sm_80\n.address_size 64\n"


def _kernel(op: str, ty: str, mode: str) -> str:
    size = 4 if ty == "f32" else 8
    srcs = ["%fa", "%fb", "%fc"][:OPS[op]]
    loads = []
    for i, (name, reg) in enumerate(zip("abc", srcs, strict=False)):
        loads.append(f"ld.param.u64 %rd{2 + i}, [p{name}]; add.s64 %rd{2 + i}, %rd{2 + i}, %rd1; "
                     f"ld.global.{ty} {reg}, [%rd{2 + i}];")
    return f"""
.visible .entry k_{op}_{ty}_{mode}(.param .u64 pa, .param .u64 pb, .param .u64 pc,
                                  .param .u64 pd)
{{
  .reg .b32 %r1; .reg .b64 %rd<8>; .reg .{ty} %fa, %fb, %fc, %fd;
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd1, %r1, {size};
  {' '.join(loads)}
  {op}.{mode}.{ty} %fd, {', '.join(srcs)};
  ld.param.u64 %rd6, [pd]; add.s64 %rd6, %rd6, %rd1;
  st.global.{ty} [%rd6], %fd;
  ret;
}}
"""


KERNELS = [(op, ty, mode) for op in OPS for ty in TYPES for mode in MODES]


@pytest.fixture(scope="module")
def module(tmp_path_factory):
    ptx = HEAD + "".join(_kernel(*k) for k in KERNELS)
    return build(ptx, "cpu-wave64", tmp_path_factory.mktemp("rounding"))


# ---- the reference -------------------------------------------------------------------------
def _bits(x: float, ty: str) -> int:
    return struct.unpack("<I", struct.pack("<f", x))[0] if ty == "f32" else \
        struct.unpack("<Q", struct.pack("<d", x))[0]


def _step(x: float, ty: str, up: bool) -> float:
    if ty == "f64":
        return math.nextafter(x, math.inf if up else -math.inf)
    with np.errstate(over="ignore"):
        return float(np.nextafter(np.float32(x), np.float32(np.inf if up else -np.inf)))


def _round(x: Fraction, ty: str, mode: str) -> float:
    """x rounded to f32/f64 toward zero (rz), down (rm) or up (rp)."""
    big = float(np.finfo(np.float32 if ty == "f32" else np.float64).max)
    if abs(x) > Fraction(big):
        away = (mode == "rp") if x > 0 else (mode == "rm")
        mag = math.inf if away else big
        return mag if x > 0 else -mag
    c = max(-big, min(big, float(x)))  # within an ulp of x (f32: rounded twice, then corrected below)
    if ty == "f32":
        c = float(np.float32(c)) if abs(c) <= big else math.copysign(big, c)
    while Fraction(c) > x:
        c = _step(c, ty, False)
    while math.isfinite(_step(c, ty, True)) and Fraction(_step(c, ty, True)) <= x:
        c = _step(c, ty, True)
    lo = c  # the largest value <= x
    if Fraction(lo) == x:
        return lo
    hi = _step(lo, ty, True)
    if mode == "rm" or (mode == "rz" and x > 0):
        return lo
    return hi


def _native(op: str, ty: str, args: list[float]) -> float:
    """Round-to-nearest result; exact for the special cases the reference hands over."""
    t = np.float32 if ty == "f32" else np.float64
    if op == "fma" and all(map(math.isfinite, args[:2])) and math.isinf(args[2]):
        return args[2]  # a finite product, however large, plus an infinity
    a = [t(v) for v in args]
    with np.errstate(all="ignore"):
        r = {"add": lambda: a[0] + a[1], "sub": lambda: a[0] - a[1], "mul": lambda: a[0] * a[1],
             "div": lambda: a[0] / a[1], "fma": lambda: a[0] * a[1] + a[2],
             "sqrt": lambda: np.sqrt(a[0]), "rcp": lambda: t(1) / a[0]}[op]()
    return float(r)


def reference(op: str, ty: str, mode: str, args: list[float]) -> float:
    if any(not math.isfinite(v) for v in args) or (op in ("div", "rcp") and args[-1] == 0) \
            or (op == "sqrt" and args[0] < 0):
        return _native(op, ty, args)  # infinities and NaNs: exact, no rounding involved
    f = [Fraction(v) for v in args]
    if op == "sqrt":
        x = f[0]
        if x == 0:
            return args[0]
        # the exact square root is irrational unless x is a square: bracket it
        r = _native(op, ty, args)
        if Fraction(r) ** 2 == x:
            return r
        below = Fraction(r) ** 2 < x
        lo = r if below else _step(r, ty, False)
        return _step(lo, ty, True) if mode == "rp" else lo
    x = {"add": lambda: f[0] + f[1], "sub": lambda: f[0] - f[1], "mul": lambda: f[0] * f[1],
         "div": lambda: f[0] / f[1], "fma": lambda: f[0] * f[1] + f[2],
         "rcp": lambda: 1 / f[0]}[op]()
    if x == 0:  # an exact zero: its sign follows IEEE 754 6.3
        r = _native(op, ty, args)
        if op in ("add", "sub", "fma") and mode == "rm":
            if op == "fma":
                terms = (args[0] * args[1], args[2])
            else:
                terms = (args[0], args[1] if op == "add" else -args[1])
            both_plus = all(t == 0 and math.copysign(1, t) > 0 for t in terms)
            return 0.0 if both_plus else -0.0
        return r
    return _round(x, ty, mode)


# ---- the tests -----------------------------------------------------------------------------
def _run(module, op, ty, mode, cols):
    dt = np.float32 if ty == "f32" else np.float64
    arrays = [np.array(c, dtype=dt) for c in cols]
    while len(arrays) < 3:
        arrays.append(np.zeros(N, dtype=dt))
    out = np.zeros(N, dtype=dt)
    module.launch(f"k_{op}_{ty}_{mode}", (1,), (N,), [*arrays, out])
    for i in range(N):
        args = [float(a[i]) for a in arrays[:OPS[op]]]
        want = reference(op, ty, mode, args)
        got = float(out[i])
        if math.isnan(want):
            assert math.isnan(got), (op, ty, mode, args, got)
        else:
            assert _bits(got, ty) == _bits(want, ty), \
                f"{op}.{mode}.{ty}{args} -> {got!r}, expected {want!r}"


def _floats(ty: str):
    w = 32 if ty == "f32" else 64
    tiny = float(np.finfo(np.float32 if ty == "f32" else np.float64).smallest_subnormal)
    return st.one_of(st.floats(width=w), st.sampled_from([tiny, -tiny, 1.0, -1.0, 0.0, -0.0,
                                                          3.0, 0.1]))


@pytest.mark.parametrize("op,ty,mode", KERNELS, ids=["-".join(k) for k in KERNELS])
def test_directed_rounding(module, op, ty, mode):
    cols = st.tuples(*(st.lists(_floats(ty), min_size=N, max_size=N) for _ in range(OPS[op])))

    @settings(max_examples=6, deadline=None, database=None,
              suppress_health_check=[HealthCheck.too_slow])
    @given(cols)
    def check(c):
        _run(module, op, ty, mode, c)

    check()


def test_cancellation_and_near_ties(module):
    """Inputs drawn at random rarely land where the direction matters most: sums whose
    exact value sits just off a representable one, and an exactly cancelling fma."""
    e = 2.0 ** -30
    a = [1.0, 1.0, -1.0, 3.0, 1.0 + 2 ** -23, 2.0 ** 100] * 11
    b = [e, -e, e, -3.0, 1.0 - 2 ** -23, 2.0 ** -100] * 11
    for mode in MODES:
        _run(module, "add", "f32", mode, [a[:N], b[:N]])
        _run(module, "fma", "f32", mode, [a[:N], b[:N], [-x * y for x, y in zip(a, b, strict=True)][:N]])
        _run(module, "add", "f64", mode, [a[:N], [x * 2 ** -40 for x in b][:N]])


def test_f64_directed_fma_is_refused_on_amd_not_guessed():
    ptx = HEAD + _kernel("fma", "f64", "rm")
    with pytest.raises(UnsupportedInstruction, match=r"fma\.rm\.f64.*hip"):
        translate(ptx, "hip-wave64")
    assert "ps_rnd_mul_f64" in translate(HEAD + _kernel("mul", "f64", "rm"), "hip-wave64")


def test_f64_results_in_the_subnormal_range(module):
    """Products and quotients that land among the subnormals (where the plain error-free
    forms underflow), and square roots of subnormals."""
    rng = np.random.default_rng(7)
    m = rng.uniform(1, 2, size=(3, N))
    a = (m[0] * 2.0 ** -540 * np.where(rng.random(N) < 0.5, -1, 1)).tolist()
    b = (m[1] * 2.0 ** rng.integers(-560, -500, N)).tolist()
    big = (m[2] * 2.0 ** rng.integers(500, 560, N)).tolist()
    sub = (m[2] * 2.0 ** rng.integers(-1074, -1022, N)).tolist()
    for mode in MODES:
        _run(module, "mul", "f64", mode, [a, b])
        _run(module, "div", "f64", mode, [a, big])
        _run(module, "sqrt", "f64", mode, [sub])
        _run(module, "rcp", "f64", mode, [big])
        _run(module, "fma", "f64", mode, [a, b, sub])


@pytest.mark.skipif("clang" not in amd.available_compilers(), reason="needs clang for AMDGPU")
def test_directed_rounding_builds_for_amd():
    """The same error-free forms the CPU tests check, compiled for a CDNA GPU (frexp and
    ldexp become v_frexp/v_ldexp: no library calls)."""
    ptx = HEAD + "".join(_kernel(*k) for k in KERNELS if k[:2] != ("fma", "f64"))
    assert amd.compile_hip(translate(ptx, "hip-wave64:gfx942"), "gfx942", use_cache=False)


@pytest.mark.skipif(shutil.which("nvcc") is None, reason="needs nvcc")
def test_directed_rounding_builds_for_cuda(tmp_path):
    """On NVIDIA the f64 forms are CUDA's own _rz/_rd/_ru intrinsics."""
    src = translate(HEAD + "".join(_kernel(*k) for k in KERNELS), "cuda")
    (tmp_path / "m.cu").write_text(src)
    subprocess.run(["nvcc", "-c", "-arch=sm_75", "-w", str(tmp_path / "m.cu"), "-o",
                    str(tmp_path / "m.o")], check=True, capture_output=True, timeout=300)
