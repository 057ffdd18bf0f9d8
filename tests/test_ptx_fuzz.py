"""Malformed and mutated PTX never crashes or hangs the parser or the translator: the only
exceptions that escape are PtxError subclasses (which carry a CUresult).
PTX_FUZZ=<n> sets the number of examples per test (default 150)."""

from __future__ import annotations

import os
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pyshim.ptx.errors import PtxError
from pyshim.ptx.translate import translate

SAMPLE = (Path(__file__).parent / "ptx" / "sample.ptx").read_text()
LINES = SAMPLE.splitlines()
FUZZ = settings(max_examples=int(os.environ.get("PTX_FUZZ", "150")), deadline=2000, database=None,
                suppress_health_check=[HealthCheck.too_slow])


def _translate_or_ptx_error(text: str) -> None:
    try:
        translate(text, "cpu-wave64")
    except PtxError as exc:
        assert exc.cuda_error.startswith("CUDA_ERROR_")
        assert str(exc)


@FUZZ
@given(st.lists(st.tuples(st.integers(0, len(LINES) - 1),
                          st.sampled_from(["drop", "dup", "cut", "junk", "swap"]),
                          st.text(max_size=8)), max_size=6))
def test_line_mutations(muts):
    lines = list(LINES)
    for idx, kind, junk in muts:
        idx %= max(1, len(lines))
        if not lines:
            break
        if kind == "drop":
            del lines[idx]
        elif kind == "dup":
            lines.insert(idx, lines[idx])
        elif kind == "cut":
            lines[idx] = lines[idx][: len(lines[idx]) // 2]
        elif kind == "junk":
            line = lines[idx]
            pos = len(junk) % (len(line) + 1)
            lines[idx] = line[:pos] + junk + line[pos:]
        else:
            j = (idx + 1) % len(lines)
            lines[idx], lines[j] = lines[j], lines[idx]
    _translate_or_ptx_error("\n".join(lines))


TOKENS = ["{", "}", "(", ")", "[", "]", ";", ",", "%r1", "%rd2", "%p1", "@", "!", "-", "+",
          ".reg", ".b32", ".u64", ".param", ".shared", ".entry", ".func", "ld.global.f32",
          "add.s32", "bra", "$L1", "$L1:", "0f3F800000", "0x10", "017", "<", ">", "|", "=",
          ".align", "8", "call.uni", "setp.lt.s32", "mov.u32", "ret", "_", "\n"]


@FUZZ
@given(st.lists(st.sampled_from(TOKENS), max_size=60))
def test_token_soup_in_a_kernel(tokens):
    text = (".version 8.0\n.target sm_80\n.address_size 64\n.visible .entry k(.param .u64 p)\n"
            "{\n.reg .b32 %r<4>;\n.reg .b64 %rd<4>;\n.reg .pred %p<2>;\n"
            + " ".join(tokens) + "\nret;\n}\n")
    _translate_or_ptx_error(text)


@FUZZ
@given(st.text(max_size=300))
def test_arbitrary_text(text):
    _translate_or_ptx_error(text)


@FUZZ
@given(st.integers(0, len(SAMPLE)))
def test_truncated(n):
    _translate_or_ptx_error(SAMPLE[:n])
