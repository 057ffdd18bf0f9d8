"""Per-instruction property tests: each (opcode, type) as a tiny PTX kernel run through the
whole path (parse -> translate -> cc -> run on the CPU device), compared with a Python
reference of the instruction on hypothesis-drawn inputs. All kernels share one module, so
the C compiler runs once; each example launches one kernel over a batch of inputs."""

from __future__ import annotations

import math
import struct

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from ptx import ops
from ptx.harness import build

SPECS = ops.specs()
N = 32


@pytest.fixture(scope="module")
def module(tmp_path_factory):
    return build(ops.module(SPECS), "cpu-wave64", tmp_path_factory.mktemp("ops"))


def _strategy(ty: str, rng):
    if ty == "pred":
        return st.integers(0, 1)
    if ty in ("f32",):
        return st.floats(width=32)
    if ty == "f64":
        return st.floats()
    if ty == "b16":
        return st.integers(0, 0xFFFF)
    if rng == "nonzero":
        return st.integers(*ops.ints(ty)).filter(bool)
    if rng:
        return st.integers(*rng)
    if ty.startswith("b"):
        return st.integers(0, (1 << ops.BITS[ty]) - 1)
    return st.integers(*ops.ints(ty))


def _same(spec, want, got) -> bool:
    if spec.dst in ("f32", "f64"):
        want, got = float(want), float(got)
        if math.isnan(want):
            return math.isnan(got)
        if spec.tol_zero_sign:
            return want == got
        fmt = "<f" if spec.dst == "f32" else "<d"
        return struct.pack(fmt, want) == struct.pack(fmt, got)
    return int(want) == int(got)


@pytest.mark.parametrize("index", range(len(SPECS)), ids=[s.id for s in SPECS])
def test_instruction(module, index):
    spec = SPECS[index]
    ranges = spec.ranges or (None,) * len(spec.srcs)
    columns = st.tuples(*(st.lists(_strategy(t, r), min_size=N, max_size=N)
                          for t, r in zip(spec.srcs, ranges, strict=True)))

    @settings(max_examples=12, deadline=None, database=None,
              suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
    @given(columns)
    def check(cols):
        arrays = [np.array(c, dtype=ops.DTYPE[t]) for c, t in zip(cols, spec.srcs, strict=True)]
        out = np.zeros(N, dtype=ops.DTYPE[spec.dst])
        inputs = [a.copy() for a in arrays]  # atomics update their operand in place
        module.launch(f"k{index}", (1,), (N,), [*arrays, out, N])
        with np.errstate(all="ignore"):
            for i in range(N):
                args = [a[i].item() for a in inputs] + [0] * (3 - len(arrays))
                want = spec.ref(*args)
                assert _same(spec, want, out[i]), \
                    f"{spec.id}: inputs {args[:len(arrays)]} -> {out[i]!r}, expected {want!r}"

    check()


@pytest.mark.parametrize("name", ["cvt.rn.bf16.s64", "cvt.rn.bf16.u64", "cvt.rz.f32.s64",
                                  "cvt.rp.f32.u64", "cvt.rm.bf16.s64"])
def test_int64_conversions_near_ties(module, name):
    """Integers just off a tie of the narrow format, past 2**53: a plain (double) rounds
    them onto the tie, and the second rounding then goes the wrong way."""
    index = next(i for i, s in enumerate(SPECS) if s.id == name)
    spec = SPECS[index]
    base = [(1 << 62) + (1 << 54), (1 << 62) + (1 << 39), (1 << 60) + (1 << 52) * 3,
            (1 << 63) - 1, (1 << 53) + 1, 1 << 53]
    vals = [v + d for v in base for d in (-1, 0, 1)]
    if spec.srcs[0] == "s64":
        vals = [v for v in vals if v < 1 << 63] + [-v for v in vals if v <= 1 << 63]
    else:
        vals += [(1 << 64) - 1, (1 << 64) - 2049, (1 << 63) + (1 << 39) + 1]
    vals = (vals * N)[:N]
    a = np.array(vals, dtype=ops.DTYPE[spec.srcs[0]])
    out = np.zeros(N, dtype=ops.DTYPE[spec.dst])
    module.launch(f"k{index}", (1,), (N,), [a, out, N])
    for v, got in zip(vals, out, strict=True):
        assert _same(spec, spec.ref(v, 0, 0), got), f"{name}({v}) -> {got!r}"
