"""Translation stays linear on a grid-stride loop with an unrolled body (one long region of
memory accesses): the per-access rescans of the region are gone (the figure is the
benchmark row translator.grid_stride_unrolled_lines_per_s), the address analysis no longer
recurses once per add of a chain, and the rewrite gives the C the rescanning one gave."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pyshim.ptx.targets.cpu import regions as cpu_regions
from pyshim.ptx.translate import translate

GRID_STRIDE = """\
__global__ void gs(const float *__restrict__ a, const float *__restrict__ b,
                   float *__restrict__ c, int n)
{{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {{
#pragma unroll
        for (int j = 0; j < {unroll}; j++)
            c[i + j * n] = a[i + j * n] * b[i + j * n] + c[i + j * n];
    }}
}}
"""


@pytest.mark.skipif(shutil.which("nvcc") is None, reason="nvcc is not installed")
def test_a_long_unrolled_grid_stride_loop_translates(tmp_path: Path) -> None:
    """448 unrolled steps chain ~1,350 address adds: the pointer analysis recursed through
    every one of them and died of RecursionError."""
    src = tmp_path / "gs.cu"
    src.write_text(GRID_STRIDE.format(unroll=448))
    subprocess.run(["nvcc", "-ptx", "-o", str(tmp_path / "gs.ptx"), str(src)], check=True,
                   timeout=300)
    ptx = (tmp_path / "gs.ptx").read_text()
    assert len(ptx.splitlines()) > 4000
    stats: dict = {}
    c = translate(ptx, "cpu-wave64", stats)
    assert stats["kernels"] == 1
    # every access of the body is there, as base + offset pointer arithmetic
    assert c.count("((uint8_t *)(uintptr_t)") >= 4 * 448


def _reference(r: str, adds: dict[str, tuple[str, str]]) -> str:
    """The rewrite as it was, a rescan of the region per access: the specification."""
    out, last = [], 0
    for m in cpu_regions._ADDR_USE.finditer(r):
        name = m.group(1)
        if name not in adds:
            continue
        base, off = adds[name]
        defs = list(re.finditer(rf"(?<![\w.>&]){name} = ", r))
        if len(defs) != 1 or defs[0].start() > m.start():
            continue
        at = defs[0].end()
        line = r[at:r.find(";", at)]
        if any(f"(int64_t)({x}))" not in line for x in (base, off)):
            continue
        if any(re.search(rf"(?<![\w.>]){x} = |&{x}\b", r[at:]) for x in (base, off)):
            continue
        out += [r[last:m.start()], f"((uint8_t *)(uintptr_t){base} + (int64_t){off})"]
        last = m.end()
    return "".join(out) + r[last:]


NAMES = ["r_rd1", "r_rd2", "r_rd3", "r_rd4", "r_rd10", "r_r1"]
_name = st.sampled_from(NAMES)
_stmt = st.one_of(
    st.builds(lambda d, a, b: _add_def(d, a, b), _name, _name, _name),
    st.builds(lambda a: f"v = *(float *)(uint8_t *)(uintptr_t){a};", _name),
    st.builds(lambda a: f"(uint8_t *)(uintptr_t){a}[0] = 1;", _name),
    st.builds(lambda a, b: f"{a} = {b} + 1;", _name, _name),
    st.builds(lambda a: f"p = &{a};", _name),
    st.builds(lambda a: f"x.{a} = 3; c->{a} = 2; &{a} = 0; y{a} = 1;", _name),
    st.builds(lambda a, b: f"{a} == {b};", _name, _name),
)


def _add_def(d: str, a: str, b: str) -> str:
    return f"{d} = ((uint64_t)((((int64_t)({a})) + ((int64_t)({b})))));"


@st.composite
def _regions(draw: st.DrawFn) -> tuple[str, dict[str, tuple[str, str]]]:
    adds = draw(st.dictionaries(_name, st.tuples(_name, _name), min_size=1, max_size=4))
    # the definitions the rewrite looks for, among everything that may spoil them
    defining = st.sampled_from(sorted(adds)).map(lambda d: _add_def(d, *adds[d]))
    using = st.sampled_from(sorted(adds)).map(
        lambda a: f"v = *(float *)(uint8_t *)(uintptr_t){a};")
    stmts = draw(st.lists(st.one_of(defining, using, _stmt), max_size=14))
    return "\n".join(f"    {s}" for s in stmts), adds


@settings(max_examples=400, deadline=None)
@given(_regions())
def test_the_one_scan_rewrite_matches_the_rescanning_one(
        case: tuple[str, dict[str, tuple[str, str]]]) -> None:
    region, adds = case
    assert cpu_regions._pointer_addresses(region, adds) == _reference(region, adds)
