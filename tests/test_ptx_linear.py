"""Translation stays linear on a grid-stride loop with an unrolled body (one long region of
memory accesses): the per-access rescans of the region are gone (the figure is the
benchmark row translator.grid_stride_unrolled_lines_per_s), the address analysis no longer
recurses once per add of a chain, and the rewrite gives the C the rescanning one gave."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pyshim.ptx.isa.records import PLAIN, Record
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


PH = cpu_regions.PH
_ADDR = "(uint8_t *)(uintptr_t)"
NAMES = ["r_rd1", "r_rd2", "r_rd3", "r_rd4", "r_rd10", "r_r1"]
SITES = [10, 11, 12]
J = 1  # the region rewritten; records of region 0 are there only to be ignored


def _ph(x: str) -> str:
    return PH + x + PH


def _reference(recs: list[Record], at: list[tuple[int, int]], order: list[int],
               pre: list[tuple[int | None, tuple[str, ...]]],
               adds: dict[str, tuple[str, str, frozenset[int]]], arrays: set[str]) -> str:
    """The rewrite as specified, a rescan of the region's writes per access: an access
    through `name` becomes base + offset where the region writes `name` once, in an earlier
    add record of one of its sites that spells both operands, and writes neither operand
    from that add on (nor does the add itself write one of them)."""
    writes = [(rec, w) for rec, w in pre] + [
        (k, recs[k].writes if at[k][1] == J else ()) for k in order]
    out = []
    for place, k in enumerate(order, start=len(pre)):
        parts = recs[k].template.split(PH)
        out.append(parts[0])
        for i in range(1, len(parts), 2):
            y = parts[i]
            if y[:6] != "@addr:":
                out += [_ph(y), parts[i + 1]]
                continue
            name = y[6:]
            spelled = _ADDR + name
            hit = adds.get(name)
            defs = [d for d, (_, w) in enumerate(writes) if name in w]
            if hit is not None and len(defs) == 1 and defs[0] < place:
                base, off, sites = hit
                d = defs[0]
                rec = writes[d][0]
                if (rec is not None and recs[rec].site in sites
                        and not {base, off} & arrays
                        and {base, off} <= recs[rec].regs
                        and name not in (base, off)
                        and not any({base, off} & set(w) for _, w in writes[d + 1:])):
                    spelled = f"({_ADDR}{base} + (int64_t){off})"
            out += [spelled, parts[i + 1]]
    return "".join(out)


_name = st.sampled_from(NAMES)


@st.composite
def _records(draw: st.DrawFn) -> Record:
    what = draw(st.sampled_from(["add", "use", "write", "copy"]))
    a, b, d = draw(_name), draw(_name), draw(_name)
    site = draw(st.sampled_from(SITES + [None]))
    if what == "add":
        return Record(PLAIN, f"{_ph(d)} = {_ph(a)} + {_ph(b)};", site=site, writes=(d,))
    if what == "use":
        return Record(PLAIN, f"v = *(float *){_ph('@addr:' + a)};", site=site)
    if what == "write":
        return Record(PLAIN, f"{_ph(a)} = {_ph(b)} + 1;", site=site, writes=(a,))
    return Record(PLAIN, f"{_ph(a)} = {_ph(b)};", site=site, writes=(a,))


@st.composite
def _regions(draw: st.DrawFn):
    adds = draw(st.dictionaries(_name, st.tuples(_name, _name, st.frozensets(
        st.sampled_from(SITES), max_size=2)), min_size=1, max_size=4))
    # the adds the rewrite looks for (at one of their sites), among everything that may
    # spoil them
    defining = st.sampled_from(sorted(adds)).flatmap(lambda d: st.builds(
        lambda site: Record(PLAIN, f"{_ph(d)} = {_ph(adds[d][0])} + {_ph(adds[d][1])};",
                            site=site, writes=(d,)),
        st.sampled_from(sorted(adds[d][2]) or SITES)))
    using = st.sampled_from(sorted(adds)).map(
        lambda a: Record(PLAIN, f"v = *(float *){_ph('@addr:' + a)};"))
    recs = draw(st.lists(st.one_of(defining, using, _records()), max_size=14))
    at = [(0, draw(st.sampled_from([J, J, J, 0]))) for _ in recs]
    order = list(range(len(recs)))
    pre = draw(st.lists(st.tuples(
        st.sampled_from([None] + order) if order else st.none(),
        st.lists(_name, max_size=2).map(tuple)), max_size=3))
    arrays = draw(st.sets(_name, max_size=1))
    return recs, at, order, pre, adds, arrays


@settings(max_examples=400, deadline=None)
@given(_regions())
def test_the_one_scan_rewrite_matches_the_rescanning_one(case) -> None:
    recs, at, order, pre, adds, arrays = case
    r = "".join(_ph(f"@rec:{k}") + recs[k].template for k in order)
    got = cpu_regions._pointer_addresses(r, J, pre, recs, at, adds, arrays)
    assert got == _reference(recs, at, order, pre, adds, arrays)
