"""The PTX parser: directives, declarations, operands, immediates, errors with positions."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pyshim.ptx import ir
from pyshim.ptx.errors import PtxError, UnsupportedInstruction
from pyshim.ptx.frontend.parser import _Parser, parse
from pyshim.ptx.translate import translate

HEAD = ".version 7.4\n.target sm_70\n.address_size 64\n"


def body(text: str, params: str = "") -> ir.Function:
    m = parse(HEAD + f".visible .entry k({params})\n{{\n{text}\n}}\n")
    return m.functions[0]


def insts(fn: ir.Function) -> list[ir.Instruction]:
    return [s for s in fn.body if isinstance(s, ir.Instruction)]


def test_module_directives_and_variables():
    m = parse("""
    // comment
    .version 9.0
    .target sm_75, debug
    .address_size 64
    .file 1 "/tmp/x.cu"
    .global .align 4 .b32 tab[4] = {1, 2, 0x10, -1};
    .const .align 8 .f64 cd = 0d3FF0000000000000;
    .global .align 1 .b8 $str[3] = {104, 105, 0};
    .extern .shared .align 16 .b8 dyn[];
    .visible .global .align 8 .u64 ptrs[2] = {generic(tab), tab};
    """)
    assert m.version == "9.0" and m.target == ["sm_75", "debug"] and m.address_size == 64
    tab, cd, s, dyn, ptrs = m.variables
    assert (tab.space, tab.type, tab.align, tab.dims) == ("global", "b32", 4, [4])
    assert [i.value for i in tab.init] == [1, 2, 16, -1]
    assert cd.init[0].bits and cd.init[0].kind == "f64"
    assert s.name == "$str"
    assert dyn.linkage == "extern" and dyn.dims == [0]
    assert isinstance(ptrs.init[0], ir.Addr) and isinstance(ptrs.init[1], ir.Sym)


def test_function_headers_and_directives():
    m = parse(HEAD + """
    .func (.param .b32 r) f(.param .b32 a, .param .align 8 .b8 s[16]) .noreturn { ret; }
    .extern .func (.param .b32 func_retval0) vprintf (.param .b64 p0, .param .b64 p1);
    .visible .entry k(.param .u64 .ptr.global.align 4 p) .maxntid 128, 1, 1 .minnctapersm 2
    { ret; }
    .entry k2 .reqntid 32 { exit; }
    """)
    f, vp, k, k2 = m.functions
    assert not f.entry and f.noreturn and [p.name for p in f.params] == ["a", "s"]
    assert f.params[1].align == 8 and f.params[1].dims == [16] and f.returns[0].name == "r"
    assert vp.body is None
    assert k.entry and k.params[0].ptr_space == "global"
    assert k.directives == {"maxntid": [128, 1, 1], "minnctapersm": [2]}
    assert k2.directives == {"reqntid": [32]}


def test_operands_and_immediates():
    fn = body("""
    .reg .b32 %r<10>; .reg .pred %p<3>; .reg .f32 %f<3>; .reg .b64 %rd<3>;
    @!%p1 bra $L__BB0_2;
    mov.b32 %r1, 0x7fffffff;
    mov.b32 %r2, 017;
    mov.b32 %r3, -5;
    mov.f32 %f1, 0f3F800000;
    mov.b32 %r4, 0b101;
    setp.lt.s32 %p1|%p2, %r1, %r2;
    ld.global.v4.u32 {%r1, %r2, _, %r4}, [%rd1+-16];
    st.shared.u32 [smem+4], %r1;
    shfl.sync.bfly.b32 %r5|%p1, %r1, 1, 31, -1;
    selp.b32 %r6, 1, 0, !%p1;
    $L__BB0_2:
    ret;
    """)
    i = insts(fn)
    assert i[0].pred == "%p1" and i[0].pred_neg and i[0].operands[0] == ir.Sym("$L__BB0_2")
    assert i[1].operands[1].value == 0x7FFFFFFF
    assert i[2].operands[1].value == 0o17
    assert i[3].operands[1].value == -5
    assert i[4].operands[1] == ir.Imm(0x3F800000, "f32", True)
    assert i[5].operands[1].value == 5
    assert isinstance(i[6].operands[0], ir.PredPair)
    vec, addr = i[7].operands
    assert [getattr(x, "name", None) for x in vec.items] == ["%r1", "%r2", "_", "%r4"]
    assert addr == ir.Addr(ir.Reg("%rd1"), -16)
    assert i[7].mods == ("global", "v4", "u32")
    assert i[8].operands[0] == ir.Addr(ir.Sym("smem"), 4)
    assert isinstance(i[10].operands[3], ir.Neg)


def test_callprototype_and_call_forms():
    m = parse(HEAD + """
    .func (.param .b32 r) g(.param .b32 a) { st.param.b32 [r], 1; ret; }
    .visible .entry k() {
      .reg .b64 %rd<2>;
      { .param .b32 p0; .param .b32 r0;
        call.uni (r0), g, (p0);
        proto0 : .callprototype (.param .b32 _) _ (.param .b32 _);
        call (r0), %rd1, (p0), proto0;
      }
      ret;
    }""")
    assert "proto0" in m.prototypes
    k = m.functions[1]
    calls = [s for s in k.body if isinstance(s, ir.Instruction) and s.opcode == "call"]
    assert calls[0].mods == ("uni",) and isinstance(calls[0].operands[0], ir.Args)
    assert calls[1].operands[1] == ir.Reg("%rd1")


@pytest.mark.parametrize("text, message, line", [
    (".version 7.0\n.target sm_70\n.entry k( { ret; }", "expected a declaration", 3),
    (HEAD + ".entry k() {\n  mov.u32 %r1, 1\n  ret;\n}", "missing ';'", 5),
    (HEAD + ".entry k() {\n  .reg .b32 %r<2>;\n  add.s32 %r1, [x, 1;\n}", "expected ']'", 6),
    (HEAD + ".entry k() {\n  .reg .b32 %r<2>;\n  bra $nowhere;\n}", "undefined label", 6),
    (HEAD + ".entry k() {\n  .reg .b32 %r<2>;\n  .reg .b32 %q;", "unterminated", 6),
    (HEAD + ".global .align 3 .b32 x;", "power of two", 4),
])
def test_errors_name_line_and_text(text, message, line):
    with pytest.raises(PtxError) as info:
        translate(text)
    e = info.value
    assert message in str(e)
    assert e.line == line, str(e)
    assert e.cuda_error == "CUDA_ERROR_INVALID_PTX"


def test_unsupported_instruction_names_opcode_line_and_kernel():
    text = HEAD + ".visible .entry kern() {\n  .reg .b32 %r<3>;\n  mov.u32 %r1, 1;\n" \
                  "  frobnicate.sync.b32 %r1, %r2;\n  ret;\n}\n"
    with pytest.raises(UnsupportedInstruction) as info:
        translate(text)
    msg = str(info.value)
    assert "frobnicate.sync.b32" in msg and "kern" in msg and "line 7" in msg


def test_unsupported_type_combination_is_refused():
    text = HEAD + ".visible .entry k() {\n .reg .b32 %r<3>;\n popc.b16 %r1, %r2;\n ret;\n}\n"
    with pytest.raises(UnsupportedInstruction, match="popc.b16"):
        translate(text)


def test_translator_speed_order_of_magnitude():
    """The budget is >= 50k lines/s on a quiet machine (benchmarks/translator.py measures
    it); here only an order-of-magnitude regression fails: best of 3 > 15k lines/s. Timed
    in this process's CPU time, not wall time: the translator is single-threaded, and on a
    shared machine the wall clock also counts the time other processes had the core (4.5k
    lines/s wall was seen under load for a translator that runs 30k+ per CPU second)."""
    text = (Path(__file__).parent / "ptx" / "sample.ptx").read_text()
    lines = text.count("\n")
    best = 0.0
    for _ in range(3):
        t0 = time.process_time()
        translate(text)
        # process_time ticks coarsely on some kernels: never divide by a zero interval
        best = max(best, lines / max(time.process_time() - t0, 1e-6))
    assert best > 15_000, f"translator: {best:.0f} lines/s of CPU time"


def test_guard_predicates_and_double_colon_modifiers_from_cublas():
    """NVIDIA's CUDA 13 libraries (libcublas, libcublasLt) guard instructions whose modifiers
    contain '::' (`@p ld.global.L2::128B.u32`); before the lexer kept '::' inside a token
    these failed as labels or operands."""
    body = """
.visible .entry k(.param .u64 a)
{
  .reg .pred %p<3>, p, __$t1; .reg .b32 %r<9>; .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [a];
  @%p1 ld.global.L2::128B.u32 %r1, [%rd1];
  @!%p2 cp.async.ca.shared.global.L2::128B [%r2], [%rd1], 4, %r3;
  @p ld.global.L2::cache_hint.u32 %r4, [%rd1], %rd2;
  @!__$t1 bra.uni L1;
  @ %p1 st.global.L1::no_allocate.u32 [%rd1], %r1;
L1:
  ret;
}
"""
    insts = [s for s in parse(HEAD + body).functions[0].body if isinstance(s, ir.Instruction)]
    guards = [(i.pred, i.pred_neg, i.opcode, i.mods) for i in insts if i.pred]
    assert guards == [
        ("%p1", False, "ld", ("global", "L2::128B", "u32")),
        ("%p2", True, "cp", ("async", "ca", "shared", "global", "L2::128B")),
        ("p", False, "ld", ("global", "L2::cache_hint", "u32")),
        ("__$t1", True, "bra", ("uni",)),
        ("%p1", False, "st", ("global", "L1::no_allocate", "u32")),
    ]
    with pytest.raises(PtxError, match="expected a predicate register after '@'"):
        parse(HEAD + ".visible .entry k() { @ 1 ret; }\n")


_INIT_ITEMS = st.one_of(
    st.integers(0, 2**64 - 1).map(str),
    st.integers(0, 4095).map(lambda v: f"0{v:o}" if v else "00"),
    st.integers(0, 2**32 - 1).map(lambda v: f"0x{v:X}"),
    st.integers(1, 2**31).map(lambda v: f"-{v}"),
    st.integers(0, 2**32 - 1).map(lambda v: f"0f{v:08X}"),
    st.sampled_from(["1.5", "generic(tab)", "tab", "tab+8", "007", "0"]),
)
_INITS = st.recursive(
    _INIT_ITEMS, lambda inner: st.lists(inner, max_size=6).map(lambda xs: "{" + ", ".join(xs) + "}"),
    max_leaves=40)


@settings(max_examples=200, deadline=None)
@given(_INITS.filter(lambda s: s.startswith("{")))
def test_integer_tables_parse_as_the_general_path_does(init):
    # the one-pass reader of `{ d, d, ... }` must give exactly the operands the general
    # operand parser gives, and leave every other brace (octal, hex, signs, floats,
    # symbols, nesting) to it
    text = (".version 8.0\n.target sm_80\n.address_size 64\n"
            f".global .align 8 .u64 tab[64] = {init};\n")
    fast = parse(text).variables[0].init
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(_Parser, "_int_table", lambda self, out: False)
        slow = parse(text).variables[0].init
    assert fast == slow
