"""Instruction emission: PTX instruction -> one C statement (or a small block).

Table-driven where the operation is one expression (`BINARY`, `UNARY_F`, `COMPARE`), named
functions for the rest. Any (opcode, modifiers, type) combination not handled here raises
UnsupportedInstruction naming it; nothing is guessed. Sections refer to the PTX ISA 9.0
manual.
"""

from __future__ import annotations

from collections.abc import Callable

from pyshim.ptx import ir
from pyshim.ptx.isa import cluster, lowp, mbarrier, tensor, texture
from pyshim.ptx.isa.emitter import FunctionEmitter, cname_fn, cname_label
from pyshim.ptx.types import BITS, C_TYPE, FLOAT, HALF, HALF2, INT, SIGNED, SIZE, sint_of, uint_of

Fe = FunctionEmitter
I = ir.Instruction  # noqa: E741

ROUND_F = ("rn", "rz", "rm", "rp")
ROUND_I = ("rni", "rzi", "rmi", "rpi")
MODE = {"rn": 0, "rz": 1, "rm": 2, "rp": 3, "": 0}
# load/store qualifiers that do not change the result on this model
LDST_IGNORED = frozenset((
    "weak", "relaxed", "acquire", "release", "volatile", "mmio", "cta", "gpu", "sys",
    "cluster", "nc", "ca", "cg", "cs", "lu", "cv", "wb", "wt", "unified", "aligned",
    "sync",
))
VOLATILE = frozenset(("volatile", "relaxed", "acquire", "mmio"))
SPACES = {"global": "global", "shared": "shared", "shared::cta": "shared",
          "shared::cluster": "shared", "local": "local", "const": "const", "param": "param",
          "param::entry": "param", "param::func": "param", "generic": "generic"}


def _type(fe: Fe, inst: I, allowed: frozenset[str] | None = None) -> str:
    ty = inst.mods[-1] if inst.mods else ""
    if ty not in C_TYPE or (allowed is not None and ty not in allowed):
        raise fe.unsupported(inst)
    return ty


def _nops(fe: Fe, inst: I, *counts: int) -> list[ir.Operand]:
    if len(inst.operands) not in counts:
        raise fe.bad(inst, f"expected {' or '.join(map(str, counts))} operands, "
                           f"got {len(inst.operands)}")
    return inst.operands


def _check_mods(fe: Fe, inst: I, allowed: set[str] | frozenset[str]) -> None:
    for m in inst.mods[:-1]:
        if m not in allowed:
            raise fe.unsupported(inst, f"modifier .{m}")


def _ftz_wrap(inst: I, ty: str, expr: str, args: list[str]) -> tuple[str, list[str]]:
    """Applies .ftz to the inputs of an f32 operation; returns (expr, args)."""
    if ty == "f32" and "ftz" in inst.mods:
        args = [f"ps_ftz({a})" for a in args]
    return expr, args


def _directed(inst: I) -> int:
    """The directed rounding mode of a float op (1 .rz, 2 .rm, 3 .rp), or 0 for .rn/none."""
    for m in ("rz", "rm", "rp"):
        if m in inst.mods:
            return MODE[m]
    return 0


# f64 operations with directed rounding that have no exact form on AMD GPUs yet (f32 ones
# and f64 add/sub are exact everywhere: see common.h)
_NO_DIRECTED_F64_ON_HIP = frozenset(("fma", "mad"))


def _rounded(fe: Fe, inst: I, ty: str, op: str, args: list[str]) -> str:
    """A call of common.h's directed-rounding form of `op` (exact, see there)."""
    mode = _directed(inst)
    if ty == "f64" and op in _NO_DIRECTED_F64_ON_HIP and fe.tr.target.name.startswith("hip"):
        raise fe.unsupported(inst, f"directed rounding of f64 {op} on {fe.tr.target.name}")
    op = "fma" if op == "mad" else op
    return f"ps_rnd_{op}_{ty}({', '.join(args)}, {mode})"


def _fresult(inst: I, ty: str, expr: str) -> str:
    if ty == "f32" and "ftz" in inst.mods:
        expr = f"ps_ftz({expr})"
    if "sat" in inst.mods:
        expr = f"ps_satf({expr})" if ty == "f32" else f"ps_satd({expr})"
    return expr


# ---- half precision: computed in f32 (exact for + - * / with f16's and bf16's precision) ----
def _h_in(ty: str, expr: str) -> str:
    return f"ps_h2f({expr})" if ty.startswith("f16") else f"ps_bf2f({expr})"


def _h_out(ty: str, expr: str, mode: int = 0) -> str:
    return f"ps_f2h_mode({expr}, {mode})" if ty.startswith("f16") else f"ps_f2bf_mode({expr}, {mode})"


def _relu(ty: str, h: str) -> str:
    """.relu on a rounded f16 / bf16 result (preludes/common.h: each format has its NaNs)."""
    return f"ps_relu_h({h})" if ty == "f16" else f"ps_relu_bf({h})"


def _half_op(fe: Fe, inst: I, ty: str, fexpr: Callable[[list[str]], str],
             nsrc: int) -> str:
    """An f16/bf16/f16x2/bf16x2 arithmetic op computed per half in f32."""
    ops = _nops(fe, inst, nsrc + 1)
    mode = 0
    for r in ROUND_F:
        if r in inst.mods:
            mode = MODE[r]
    if ty in HALF:
        args = [_h_in(ty, fe.src(o, ty, inst)) for o in ops[1:]]
        if "ftz" in inst.mods and ty == "f16":
            args = [f"ps_ftz_h({a})" for a in args]
        r = fexpr(args)
        if "sat" in inst.mods:
            r = f"ps_satf({r})"
        out = _h_out(ty, r, mode)
        if "relu" in inst.mods:
            out = _relu(ty, out)
        return fe.dst(ops[0], ty, out, inst)
    base = "f16" if ty == "f16x2" else "bf16"
    srcs = [fe.src(o, "b32", inst) for o in ops[1:]]
    halves = []
    for shift in (0, 16):
        args = [_h_in(base, f"(uint16_t)({s} >> {shift})") for s in srcs]
        r = fexpr(args)
        if "sat" in inst.mods:
            r = f"ps_satf({r})"
        out = _h_out(base, r, mode)
        if "relu" in inst.mods:
            out = _relu(base, out)
        halves.append(out)
    return fe.dst(ops[0], "b32", f"ps_pack2({halves[0]}, {halves[1]})", inst)


# ---- 9.7.1 integer and 9.7.3 floating-point arithmetic ----
def _add_sub(op: str) -> Callable[[Fe, I], str]:
    def emit(fe: Fe, inst: I) -> str:
        ty = _type(fe, inst)
        if ty in HALF or ty in HALF2:
            return _half_op(fe, inst, ty, lambda a: f"({a[0]} {op} {a[1]})", 2)
        d, a, b = _nops(fe, inst, 3)
        if ty in FLOAT:
            _check_mods(fe, inst, {"rn", "rz", "rm", "rp", "ftz", "sat"})
            args = [fe.src(a, ty, inst), fe.src(b, ty, inst)]
            _, args = _ftz_wrap(inst, ty, "", args)
            r = f"({args[0]} {op} {args[1]})"
            if _directed(inst):
                r = _rounded(fe, inst, ty, "add" if op == "+" else "sub", args)
            return fe.dst(d, ty, _fresult(inst, ty, r), inst)
        if ty not in INT:
            raise fe.unsupported(inst)
        x, y = fe.src(a, ty, inst), fe.src(b, ty, inst)
        mods = set(inst.mods[:-1])
        if op == "+" and inst.opcode == "addc" or op == "-" and inst.opcode == "subc":
            mods.add("carry_in")
        if "sat" in mods:
            if ty != "s32" or mods - {"sat"}:
                raise fe.unsupported(inst)
            return fe.dst(d, ty, f"ps_sat_s64_to_s32((int64_t){x} {op} (int64_t){y})", inst)
        if mods - {"cc", "carry_in"}:
            raise fe.unsupported(inst)
        if not mods:
            return fe.dst(d, ty, f"({x} {op} {y})", inst)
        # carry chains (add.cc / addc / sub.cc / subc): 32- and 64-bit only
        if SIZE[ty] not in (4, 8):
            raise fe.unsupported(inst)
        u = uint_of(SIZE[ty])
        wide = "uint64_t" if SIZE[ty] == 4 else "unsigned __int128"
        xs, ys = fe.src(a, u, inst), fe.src(b, u, inst)
        cin = " + ps_cc" if op == "+" and "carry_in" in mods else (
            " - ps_cc" if "carry_in" in mods else "")
        t = fe.new_tmp()
        bits = 8 * SIZE[ty]
        out = [f"{{ {wide} {t} = ({wide}){xs} {op} ({wide}){ys}{cin};"]
        out.append(fe.dst(d, u, f"({C_TYPE[u]}){t}", inst))
        if "cc" in mods:
            out.append(f"ps_cc = (uint32_t)(({t} >> {bits}) & 1u);")
        out.append("}")
        return " ".join(out)
    return emit


def _mul(fe: Fe, inst: I) -> str:
    ty = _type(fe, inst)
    if ty in HALF or ty in HALF2:
        return _half_op(fe, inst, ty, lambda a: f"({a[0]} * {a[1]})", 2)
    d, a, b = _nops(fe, inst, 3)
    if ty in FLOAT:
        _check_mods(fe, inst, {"rn", "rz", "rm", "rp", "ftz", "sat"})
        args = [fe.src(a, ty, inst), fe.src(b, ty, inst)]
        _, args = _ftz_wrap(inst, ty, "", args)
        r = f"({args[0]} * {args[1]})"
        if _directed(inst):
            r = _rounded(fe, inst, ty, "mul", args)
        return fe.dst(d, ty, _fresult(inst, ty, r), inst)
    if ty not in INT or len(inst.mods) != 2:
        raise fe.unsupported(inst)
    x, y = fe.src(a, ty, inst), fe.src(b, ty, inst)
    mode = inst.mods[0]
    if mode == "lo":
        return fe.dst(d, ty, f"({x} * {y})", inst)
    if mode == "hi":
        if ty in BITS:
            raise fe.unsupported(inst)
        return fe.dst(d, ty, f"ps_mulhi_{ty}({x}, {y})", inst)
    if mode == "wide" and SIZE[ty] in (2, 4) and ty not in BITS:
        wt = (sint_of if ty in SIGNED else uint_of)(2 * SIZE[ty])
        return fe.dst(d, wt, f"(({C_TYPE[wt]}){x} * ({C_TYPE[wt]}){y})", inst)
    raise fe.unsupported(inst)


def _mad(fe: Fe, inst: I) -> str:
    ty = _type(fe, inst)
    if ty in HALF or ty in HALF2:
        raise fe.unsupported(inst, "use fma for half precision")
    d, a, b, c = _nops(fe, inst, 4)
    if ty in FLOAT:
        return _fma(fe, inst)
    mods = inst.mods[:-1]
    x, y = fe.src(a, ty, inst), fe.src(b, ty, inst)
    if ty not in INT or ty in BITS:
        raise fe.unsupported(inst)
    if inst.opcode == "madc" or "cc" in mods:
        return _mad_carry(fe, inst, ty, x, y)
    if mods == ("lo",):
        return fe.dst(d, ty, f"({x} * {y} + {fe.src(c, ty, inst)})", inst)
    if mods == ("hi",):
        return fe.dst(d, ty, f"(ps_mulhi_{ty}({x}, {y}) + {fe.src(c, ty, inst)})", inst)
    if mods in (("hi", "sat"), ("sat", "hi")) and ty == "s32":
        return fe.dst(d, ty, f"ps_sat_s64_to_s32((int64_t)ps_mulhi_s32({x}, {y}) + "
                             f"{fe.src(c, ty, inst)})", inst)
    if mods == ("wide",) and SIZE[ty] in (2, 4):
        wt = (sint_of if ty in SIGNED else uint_of)(2 * SIZE[ty])
        ct = C_TYPE[wt]
        return fe.dst(d, wt, f"(({ct}){x} * ({ct}){y} + {fe.src(c, wt, inst)})", inst)
    raise fe.unsupported(inst)


def _mad_carry(fe: Fe, inst: I, ty: str, x: str, y: str) -> str:
    """mad{.lo,.hi}.cc / madc{.lo,.hi}{.cc} (PTX ISA 9.7.2.4): extended-precision multiply-add
    with the carry flag, 32- and 64-bit."""
    half = next((m for m in inst.mods if m in ("lo", "hi")), None)
    if half is None or SIZE[ty] not in (4, 8) or set(inst.mods[:-1]) - {"lo", "hi", "cc"}:
        raise fe.unsupported(inst)
    ut = uint_of(SIZE[ty])
    uct = C_TYPE[ut]
    wide = "uint64_t" if SIZE[ty] == 4 else "unsigned __int128"
    prod = f"({uct})({uct}){x} * ({uct}){y}" if half == "lo" else f"({uct})ps_mulhi_{ty}({x}, {y})"
    cin = " + ps_cc" if inst.opcode == "madc" else ""
    t = fe.new_tmp()
    d, c = inst.operands[0], inst.operands[3]
    out = [f"{{ {wide} {t} = ({wide})({prod}) + ({wide}){fe.src(c, ut, inst)}{cin};",
           fe.dst(d, ut, f"({uct}){t}", inst)]
    if "cc" in inst.mods:
        out.append(f"ps_cc = (uint32_t)(({t} >> {8 * SIZE[ty]}) & 1u);")
    out.append("}")
    return " ".join(out)


def _mul24(fe: Fe, inst: I) -> str:
    ty = _type(fe, inst, frozenset(("u32", "s32")))
    ops = _nops(fe, inst, 3 if inst.opcode == "mul24" else 4)
    x, y = fe.src(ops[1], ty, inst), fe.src(ops[2], ty, inst)
    mode = inst.mods[0]
    if mode == "lo":
        if ty == "u32":
            r = f"(({x} & 0xffffffu) * ({y} & 0xffffffu))"
        else:
            r = f"(int32_t)((int64_t)ps_sext24((uint32_t){x}) * ps_sext24((uint32_t){y}))"
    elif mode == "hi":
        r = f"ps_mul24hi_{ty}({x}, {y})"
    else:
        raise fe.unsupported(inst)
    if inst.opcode == "mad24":
        if "sat" in inst.mods:
            raise fe.unsupported(inst)
        r = f"({r} + {fe.src(ops[3], ty, inst)})"
    return fe.dst(ops[0], ty, r, inst)


def _div(fe: Fe, inst: I) -> str:
    ty = _type(fe, inst)
    d, a, b = _nops(fe, inst, 3)
    if ty in FLOAT:
        _check_mods(fe, inst, {"rn", "rz", "rm", "rp", "approx", "full", "ftz"})
        if ty == "f64" and not ({"rn", "approx"} & set(inst.mods) or _directed(inst)):
            raise fe.unsupported(inst)
        args = [fe.src(a, ty, inst), fe.src(b, ty, inst)]
        _, args = _ftz_wrap(inst, ty, "", args)
        r = f"({args[0]} / {args[1]})"
        if ty == "f32" and ("approx" in inst.mods or "full" in inst.mods):
            kind = "APPROX" if "approx" in inst.mods else "FULL"
            r = f"PS_DIV_{kind}F({args[0]}, {args[1]})"
        if _directed(inst):
            r = _rounded(fe, inst, ty, "div", args)
        return fe.dst(d, ty, _fresult(inst, ty, r), inst)
    if ty in INT and ty not in BITS and SIZE[ty] >= 4 and len(inst.mods) == 1:
        op = "div" if inst.opcode == "div" else "rem"
        return fe.dst(d, ty, f"ps_{op}_{ty}({fe.src(a, ty, inst)}, {fe.src(b, ty, inst)})",
                      inst)
    if ty in INT and ty not in BITS and len(inst.mods) == 1:  # 16-bit: promote
        wt = sint_of(4) if ty in SIGNED else uint_of(4)
        op = "div" if inst.opcode == "div" else "rem"
        return fe.dst(d, ty, f"ps_{op}_{wt}({fe.src(a, wt, inst)}, {fe.src(b, wt, inst)})",
                      inst)
    raise fe.unsupported(inst)


def _abs_neg(fe: Fe, inst: I) -> str:
    ty = _type(fe, inst)
    d, a = _nops(fe, inst, 2)
    if ty in HALF or ty in HALF2:
        mask = 0x7FFF if ty in HALF else 0x7FFF7FFF
        sign = 0x8000 if ty in HALF else 0x80008000
        bt = "b16" if ty in HALF else "b32"
        x = fe.src(a, bt, inst)
        r = f"({x} & 0x{mask:x}u)" if inst.opcode == "abs" else f"({x} ^ 0x{sign:x}u)"
        return fe.dst(d, bt, r, inst)
    x = fe.src(a, ty, inst)
    if ty in FLOAT:
        _check_mods(fe, inst, {"ftz"})
        if "ftz" in inst.mods and ty == "f32":
            x = f"ps_ftz({x})"
        fn = "PS_FABSF" if ty == "f32" else "PS_FABS"
        return fe.dst(d, ty, f"{fn}({x})" if inst.opcode == "abs" else f"(-{x})", inst)
    if ty in SIGNED and len(inst.mods) == 1:
        return fe.dst(d, ty, f"({x} < 0 ? -{x} : {x})" if inst.opcode == "abs" else f"(-{x})",
                      inst)
    raise fe.unsupported(inst)


def _min_max(fe: Fe, inst: I) -> str:
    mn = inst.opcode == "min"
    if inst.mods and inst.mods[-1] in ("u16x2", "s16x2"):
        return _min_max_16x2(fe, inst, mn)
    ty = _type(fe, inst)
    nan = "NaN" in inst.mods
    if ty in HALF or ty in HALF2:
        fn = ("ps_minf" if mn else "ps_maxf") + ("_nan" if nan else "")
        return _half_op(fe, inst, ty, lambda a: f"{fn}({a[0]}, {a[1]})", 2)
    d, a, b = _nops(fe, inst, 3)
    x, y = fe.src(a, ty, inst), fe.src(b, ty, inst)
    if ty in FLOAT:
        _check_mods(fe, inst, {"ftz", "NaN", "xorsign", "abs"} - {"xorsign", "abs"})
        if ty == "f32":
            if "ftz" in inst.mods:
                x, y = f"ps_ftz({x})", f"ps_ftz({y})"
            fn = ("ps_minf" if mn else "ps_maxf") + ("_nan" if nan else "")
        else:
            fn = "ps_mind" if mn else "ps_maxd"
        return fe.dst(d, ty, f"{fn}({x}, {y})", inst)
    if ty in INT and len(inst.mods) == 1:
        if ty in BITS:
            raise fe.unsupported(inst)
        op = "<" if mn else ">"
        return fe.dst(d, ty, f"({x} {op} {y} ? {x} : {y})", inst)
    if ty in ("s32", "u32") and "relu" in inst.mods and len(inst.mods) == 2 and ty == "s32":
        op = "<" if mn else ">"
        return fe.dst(d, ty, f"ps_relu_s32({x} {op} {y} ? {x} : {y})", inst)
    raise fe.unsupported(inst)


def _min_max_16x2(fe: Fe, inst: I, mn: bool) -> str:
    """min/max{.relu}.{u16x2,s16x2} (sm_90; CUDA 13's CUB reduces shorts with them): each
    16-bit half on its own; .relu (signed only) clamps a negative result to 0."""
    signed = inst.mods[-1] == "s16x2"
    relu = "relu" in inst.mods[:-1]
    if any(m != "relu" for m in inst.mods[:-1]) or (relu and not signed):
        raise fe.unsupported(inst)
    d, a, b = _nops(fe, inst, 3)
    x, y = fe.src(a, "b32", inst), fe.src(b, "b32", inst)
    t = "int16_t" if signed else "uint16_t"
    op = "<" if mn else ">"
    halves = []
    for shift in (0, 16):
        hx, hy = f"(({t})({x} >> {shift}))", f"(({t})({y} >> {shift}))"
        v = f"({hx} {op} {hy} ? {hx} : {hy})"
        if relu:
            v = f"({v} < 0 ? 0 : {v})"
        halves.append(f"((uint32_t)(uint16_t){v}{f' << {shift}' if shift else ''})")
    return fe.dst(d, "b32", f"({halves[0]} | {halves[1]})", inst)


def _logic(op: str) -> Callable[[Fe, I], str]:
    def emit(fe: Fe, inst: I) -> str:
        ty = _type(fe, inst, BITS | frozenset(("pred",)))
        if len(inst.mods) != 1:
            raise fe.unsupported(inst)
        d, a, b = _nops(fe, inst, 3)
        return fe.dst(d, ty, f"({fe.src(a, ty, inst)} {op} {fe.src(b, ty, inst)})", inst)
    return emit


def _not(fe: Fe, inst: I) -> str:
    ty = _type(fe, inst, BITS | frozenset(("pred",)))
    d, a = _nops(fe, inst, 2)
    x = fe.src(a, ty, inst)
    if inst.opcode == "cnot":
        return fe.dst(d, ty, f"({x} == 0)", inst)
    return fe.dst(d, ty, f"(!{x})" if ty == "pred" else f"(~{x})", inst)


def _shift(fe: Fe, inst: I) -> str:
    ty = _type(fe, inst, INT)
    d, a, b = _nops(fe, inst, 3)
    size = SIZE[ty]
    if size == 1:
        raise fe.unsupported(inst)
    bits = 8 * size
    amt = fe.src(b, "u32", inst)
    if inst.opcode == "shl":
        ut = uint_of(size)
        return fe.dst(d, ut, f"ps_shl{bits}({fe.src(a, ut, inst)}, {amt})", inst)
    kind = "s" if ty in SIGNED else "u"
    st = (sint_of if kind == "s" else uint_of)(size)
    return fe.dst(d, st, f"ps_shr_{kind}{bits}({fe.src(a, st, inst)}, {amt})", inst)


# setp/set comparisons (9.7.8.1), written once: the C operator of each integer comparison,
# the unsigned ones (lo ls hi hs compare as unsigned whatever the type), the signed-form name
# of each and each one's negation (targets/cpu/guards.py, targets/cpu/warpvec.py read these)
INT_CMP = {"eq": "==", "ne": "!=", "lt": "<", "le": "<=", "gt": ">", "ge": ">=",
           "lo": "<", "ls": "<=", "hi": ">", "hs": ">="}
UNSIGNED_CMP = frozenset(("lo", "ls", "hi", "hs"))
CMP_AS_SIGNED = {"lo": "lt", "ls": "le", "hi": "gt", "hs": "ge"}
NEGATE_CMP = {"lt": "ge", "ge": "lt", "le": "gt", "gt": "le", "eq": "ne", "ne": "eq"}
FLOAT_CMP = {
    "eq": "({a} == {b})", "ne": "({a} < {b} || {a} > {b})", "lt": "({a} < {b})",
    "le": "({a} <= {b})", "gt": "({a} > {b})", "ge": "({a} >= {b})",
    "equ": "!({a} < {b} || {a} > {b})", "neu": "({a} != {b})", "ltu": "!({a} >= {b})",
    "leu": "!({a} > {b})", "gtu": "!({a} <= {b})", "geu": "!({a} < {b})",
    "num": "({a} == {a} && {b} == {b})", "nan": "({a} != {a} || {b} != {b})",
}
BOOL_OPS = {"and": "&&", "or": "||", "xor": "!="}


def _compare(fe: Fe, inst: I, cmp: str, ty: str, a: ir.Operand, b: ir.Operand) -> str:
    if ty in FLOAT or ty in HALF:
        if cmp not in FLOAT_CMP:
            raise fe.unsupported(inst)
        x, y = fe.src(a, ty, inst), fe.src(b, ty, inst)
        if ty in HALF:
            x, y = _h_in(ty, x), _h_in(ty, y)
        elif "ftz" in inst.mods and ty == "f32":
            x, y = f"ps_ftz({x})", f"ps_ftz({y})"
        return FLOAT_CMP[cmp].format(a=x, b=y)
    if ty in INT:
        if cmp not in INT_CMP:
            raise fe.unsupported(inst)
        if cmp in UNSIGNED_CMP or ty in BITS:
            ty = uint_of(SIZE[ty]) if ty not in SIGNED or cmp in UNSIGNED_CMP else ty
        return f"({fe.src(a, ty, inst)} {INT_CMP[cmp]} {fe.src(b, ty, inst)})"
    raise fe.unsupported(inst)


def _setp(fe: Fe, inst: I) -> str:
    ty = _type(fe, inst)
    cmp = inst.mods[0]
    boolop = next((m for m in inst.mods[1:-1] if m in BOOL_OPS), None)
    ops = _nops(fe, inst, 3, 4)
    if (boolop is None) != (len(ops) == 3):
        raise fe.bad(inst, "a combining predicate needs .and/.or/.xor")
    d = ops[0]
    p, q = (d.first, d.second) if isinstance(d, ir.PredPair) else (d, None)
    if ty in HALF2:
        base = "f16" if ty == "f16x2" else "bf16"
        sa, sb = fe.src(ops[1], "b32", inst), fe.src(ops[2], "b32", inst)
        res = []
        for shift in (0, 16):
            x = _h_in(base, f"(uint16_t)({sa} >> {shift})")
            y = _h_in(base, f"(uint16_t)({sb} >> {shift})")
            if cmp not in FLOAT_CMP:
                raise fe.unsupported(inst)
            res.append(FLOAT_CMP[cmp].format(a=x, b=y))
        if boolop is not None or q is None:
            raise fe.unsupported(inst)
        return fe.dst(p, "pred", res[0], inst) + " " + fe.dst(q, "pred", res[1], inst)
    c = _compare(fe, inst, cmp, ty, ops[1], ops[2])
    t = fe.new_tmp()
    out = [f"{{ bool {t} = {c};"]
    if boolop is None:
        out.append(fe.dst(p, "pred", t, inst))
        if q is not None:
            out.append(fe.dst(q, "pred", f"!{t}", inst))
    else:
        cc = fe.src(ops[3], "pred", inst)
        bo = BOOL_OPS[boolop]
        out.append(fe.dst(p, "pred", f"({t} {bo} {cc})", inst))
        if q is not None:
            out.append(fe.dst(q, "pred", f"(!{t} {bo} {cc})", inst))
    out.append("}")
    return " ".join(out)


# what set writes for true in a half or 16-bit destination: 1.0 in the half type, all ones
SET_TRUE_16 = {"f16": "0x3c00u", "bf16": "0x3f80u", "u16": "0xffffu", "s16": "0xffffu"}


def _set(fe: Fe, inst: I) -> str:
    """set.CmpOp{.BoolOp}{.ftz}.dtype.stype (PTX ISA 9.7.3.8, 9.7.4.8): setp's comparison as
    a value, all ones (integer types) or 1.0 (f32, f16, bf16) when true, 0 when false; for
    f16x2/bf16x2 sources each half compares on its own into its half of d."""
    mods = list(inst.mods)
    if len(mods) < 3:
        raise fe.unsupported(inst)
    stype, dtype, cmp = mods[-1], mods[-2], mods[0]
    boolop = next((m for m in mods[1:-2] if m in BOOL_OPS), None)
    ops = _nops(fe, inst, 3, 4)
    if (boolop is None) != (len(ops) == 3):
        raise fe.bad(inst, "a combining predicate needs .and/.or/.xor")
    cc = f" {BOOL_OPS[boolop]} {fe.src(ops[3], 'pred', inst)}" if boolop is not None else ""
    if stype in HALF2:
        if dtype not in (stype, "u32", "s32") or cmp not in FLOAT_CMP:
            raise fe.unsupported(inst)
        base = "f16" if stype == "f16x2" else "bf16"
        one = SET_TRUE_16[base] if dtype == stype else "0xffffu"
        sa, sb = fe.src(ops[1], "b32", inst), fe.src(ops[2], "b32", inst)
        halves = []
        for shift in (0, 16):
            c = FLOAT_CMP[cmp].format(a=_h_in(base, f"(uint16_t)({sa} >> {shift})"),
                                      b=_h_in(base, f"(uint16_t)({sb} >> {shift})"))
            halves.append(f"((({c}){cc}) ? {one} : 0u)")
        return fe.dst(ops[0], "b32", f"({halves[0]} | ({halves[1]} << 16))", inst)
    if dtype not in ("u32", "s32", "f32") and dtype not in SET_TRUE_16:
        raise fe.unsupported(inst)
    if stype not in FLOAT and stype not in INT and stype not in HALF:
        raise fe.unsupported(inst)
    c = _compare(fe, inst, cmp, stype, ops[1], ops[2])
    if boolop is not None:
        c = f"({c}{cc})"
    if dtype in SET_TRUE_16:
        return fe.dst(ops[0], "b16", f"(uint16_t)(({c}) ? {SET_TRUE_16[dtype]} : 0u)", inst)
    val = f"(({c}) ? 1.0f : 0.0f)" if dtype == "f32" else f"(({c}) ? 0xffffffffu : 0u)"
    return fe.dst(ops[0], dtype, val, inst)


def _selp(fe: Fe, inst: I) -> str:
    ty = _type(fe, inst)
    d, a, b, c = _nops(fe, inst, 4)
    return fe.dst(d, ty, f"({fe.src(c, 'pred', inst)} ? {fe.src(a, ty, inst)} : "
                         f"{fe.src(b, ty, inst)})", inst)


def _slct(fe: Fe, inst: I) -> str:
    if len(inst.mods) < 2:
        raise fe.unsupported(inst)
    ty, ct = inst.mods[-2], inst.mods[-1]
    if ty not in C_TYPE or ct not in ("s32", "f32"):
        raise fe.unsupported(inst)
    d, a, b, c = _nops(fe, inst, 4)
    cv = fe.src(c, ct, inst)
    if ct == "f32" and "ftz" in inst.mods:
        cv = f"ps_ftz({cv})"
    zero = "0.0f" if ct == "f32" else "0"
    return fe.dst(d, ty, f"({cv} >= {zero} ? {fe.src(a, ty, inst)} : {fe.src(b, ty, inst)})",
                  inst)


def _fma(fe: Fe, inst: I) -> str:
    ty = _type(fe, inst)
    if ty in HALF or ty in HALF2:
        return _half_op(fe, inst, ty, lambda a: f"(float)PS_FMA((double){a[0]}, "
                                                 f"(double){a[1]}, (double){a[2]})", 3)
    if ty not in FLOAT:
        raise fe.unsupported(inst)
    _check_mods(fe, inst, {"rn", "rz", "rm", "rp", "ftz", "sat"})
    if "rn" not in inst.mods and not _directed(inst) and inst.opcode == "fma":
        raise fe.unsupported(inst, "fma needs a rounding modifier")
    d, a, b, c = _nops(fe, inst, 4)
    args = [fe.src(o, ty, inst) for o in (a, b, c)]
    _, args = _ftz_wrap(inst, ty, "", args)
    fn = "PS_FMAF" if ty == "f32" else "PS_FMA"
    r = f"{fn}({', '.join(args)})"
    if _directed(inst):
        r = _rounded(fe, inst, ty, "fma", args)
    return fe.dst(d, ty, _fresult(inst, ty, r), inst)


# unary float functions: opcode -> (f32 template, f64 template or None)
UNARY_F = {
    "sqrt": ("PS_SQRTF({a})", "PS_SQRT({a})"),
    "rsqrt": ("(1.0f / PS_SQRTF({a}))", "(1.0 / PS_SQRT({a}))"),
    "rcp": ("(1.0f / {a})", "(1.0 / {a})"),
    "sin": ("PS_SINF({a})", None),
    "cos": ("PS_COSF({a})", None),
    "ex2": ("PS_EX2F({a})", None),
    "lg2": ("PS_LG2F({a})", None),
    "tanh": ("PS_TANHF({a})", None),
}


APPROX_F32 = {"rcp": "PS_RCP_APPROXF({a})", "rsqrt": "PS_RSQRT_APPROXF({a})",
              "sqrt": "PS_SQRT_APPROXF({a})"}


def _unary_f(fe: Fe, inst: I) -> str:
    ty = _type(fe, inst)
    f32, f64 = UNARY_F[inst.opcode]
    if ty in HALF or ty in HALF2:
        if inst.opcode not in ("ex2", "tanh", "sqrt", "rsqrt", "rcp", "sin", "cos", "lg2"):
            raise fe.unsupported(inst)
        return _half_op(fe, inst, ty, lambda a: f32.format(a=a[0]), 1)
    tmpl = f32 if ty == "f32" else f64 if ty == "f64" else None
    if tmpl is None:
        raise fe.unsupported(inst)
    _check_mods(fe, inst, {"rn", "rz", "rm", "rp", "approx", "full", "ftz"})
    d, a = _nops(fe, inst, 2)
    x = fe.src(a, ty, inst)
    if ty == "f32" and "ftz" in inst.mods:
        x = f"ps_ftz({x})"
    if ty == "f32" and "approx" in inst.mods and inst.opcode in APPROX_F32:
        tmpl = APPROX_F32[inst.opcode]  # the preludes say how close (common.h, cuda.h)
    r = tmpl.format(a=x)
    if _directed(inst):
        if inst.opcode not in ("sqrt", "rcp"):
            raise fe.unsupported(inst)
        r = _rounded(fe, inst, ty, inst.opcode, [x])
    return fe.dst(d, ty, _fresult(inst, ty, r), inst)


def _copysign(fe: Fe, inst: I) -> str:
    ty = _type(fe, inst, FLOAT)
    d, a, b = _nops(fe, inst, 3)
    fn = "PS_COPYSIGNF" if ty == "f32" else "PS_COPYSIGN"
    return fe.dst(d, ty, f"{fn}({fe.src(b, ty, inst)}, {fe.src(a, ty, inst)})", inst)


TESTP = {
    "finite": ("(!ps_isinf{s}({a}) && {a} == {a})"), "infinite": "ps_isinf{s}({a})",
    "number": "({a} == {a})", "notanumber": "({a} != {a})",
    "normal": "ps_testp_normal_{s}({a})", "subnormal": "ps_testp_sub_{s}({a})",
}


def _testp(fe: Fe, inst: I) -> str:
    ty = _type(fe, inst, FLOAT)
    d, a = _nops(fe, inst, 2)
    if inst.mods[0] not in TESTP:
        raise fe.unsupported(inst)
    s = "f" if ty == "f32" else "d"
    return fe.dst(d, "pred", TESTP[inst.mods[0]].format(s=s, a=fe.src(a, ty, inst)), inst)


# ---- 9.7.8 bit manipulation ----
def _bitop(fe: Fe, inst: I) -> str:
    ty = _type(fe, inst, INT)
    d, a = _nops(fe, inst, 2)
    size = SIZE[ty]
    if size not in (4, 8):
        raise fe.unsupported(inst)
    bits = 8 * size
    op = inst.opcode
    x = fe.src(a, uint_of(size), inst)
    if op == "popc":
        return fe.dst(d, "u32", f"ps_popc{bits}({x})", inst)
    if op == "clz":
        return fe.dst(d, "u32", f"ps_clz{bits}({x})", inst)
    if op == "brev":
        return fe.dst(d, uint_of(size), f"ps_brev{bits}({x})", inst)
    if op == "bfind":
        if ty in BITS:
            raise fe.unsupported(inst)
        r = f"ps_bfind_{ty}({fe.src(a, ty, inst)})"
        if "shiftamt" in inst.mods:
            t = fe.new_tmp()
            return (f"{{ uint32_t {t} = {r}; "
                    + fe.dst(d, "u32", f"({t} == 0xffffffffu ? {t} : {bits - 1}u - {t})",
                             inst) + " }")
        return fe.dst(d, "u32", r, inst)
    raise fe.unsupported(inst)


def _bfe(fe: Fe, inst: I) -> str:
    ty = _type(fe, inst, frozenset(("u32", "s32", "u64", "s64")))
    d, a, b, c = _nops(fe, inst, 4)
    return fe.dst(d, ty, f"ps_bfe_{ty}({fe.src(a, ty, inst)}, {fe.src(b, 'u32', inst)}, "
                         f"{fe.src(c, 'u32', inst)})", inst)


def _bfi(fe: Fe, inst: I) -> str:
    ty = _type(fe, inst, frozenset(("b32", "b64")))
    d, f, b, c, n = _nops(fe, inst, 5)
    ut = uint_of(SIZE[ty])
    return fe.dst(d, ut, f"ps_bfi_{ut}({fe.src(f, ut, inst)}, {fe.src(b, ut, inst)}, "
                         f"{fe.src(c, 'u32', inst)}, {fe.src(n, 'u32', inst)})", inst)


def _fns(fe: Fe, inst: I) -> str:
    _type(fe, inst, frozenset(("b32",)))
    d, mask, base, off = _nops(fe, inst, 4)
    return fe.dst(d, "b32", f"ps_fns({fe.src(mask, 'u32', inst)}, {fe.src(base, 'u32', inst)}, "
                            f"{fe.src(off, 's32', inst)})", inst)


def _bmsk_szext(fe: Fe, inst: I) -> str:
    allowed = ("b32",) if inst.opcode == "bmsk" else ("u32", "s32")
    ty = _type(fe, inst, frozenset(allowed))
    if len(inst.mods) != 2 or inst.mods[0] not in ("clamp", "wrap"):
        raise fe.unsupported(inst)
    d, a, b = _nops(fe, inst, 3)
    clamp = int(inst.mods[0] == "clamp")
    x, y = fe.src(a, "u32", inst), fe.src(b, "u32", inst)
    if inst.opcode == "bmsk":
        return fe.dst(d, "b32", f"ps_bmsk({x}, {y}, {clamp})", inst)
    return fe.dst(d, ty, f"ps_szext({x}, {y}, {clamp}, {int(ty == 's32')})", inst)


def _prmt(fe: Fe, inst: I) -> str:
    ty = _type(fe, inst, frozenset(("b32",)))
    if len(inst.mods) != 1:
        raise fe.unsupported(inst, "prmt modes")
    d, a, b, c = _nops(fe, inst, 4)
    return fe.dst(d, ty, f"ps_prmt({fe.src(a, 'u32', inst)}, {fe.src(b, 'u32', inst)}, "
                         f"{fe.src(c, 'u32', inst)})", inst)


def _lop3(fe: Fe, inst: I) -> str:
    _type(fe, inst, frozenset(("b32", "b64")))
    ty = inst.mods[-1]
    ops = _nops(fe, inst, 5)
    d, a, b, c, lut = ops
    if not isinstance(lut, ir.Imm) or lut.kind != "int":
        raise fe.bad(inst, "immLut must be an integer constant")
    x, y, z = (fe.src(o, ty, inst) for o in (a, b, c))
    terms = []
    for k in range(8):
        if (int(lut.value) >> k) & 1:
            terms.append(f"({x if k & 4 else '~' + x} & {y if k & 2 else '~' + y} & "
                         f"{z if k & 1 else '~' + z})")
    expr = " | ".join(terms) if terms else "0"
    return fe.dst(d, ty, f"({C_TYPE[ty]})({expr})", inst)


def _shf(fe: Fe, inst: I) -> str:
    _type(fe, inst, frozenset(("b32",)))
    d, a, b, c = _nops(fe, inst, 4)
    direction = inst.mods[0]
    clamp = "1" if "clamp" in inst.mods else "0"
    if direction not in ("l", "r"):
        raise fe.unsupported(inst)
    return fe.dst(d, "b32", f"ps_shf_{direction}({fe.src(a, 'u32', inst)}, "
                            f"{fe.src(b, 'u32', inst)}, {fe.src(c, 'u32', inst)}, {clamp})",
                  inst)


def _dp(fe: Fe, inst: I) -> str:
    if len(inst.mods) < 2:
        raise fe.unsupported(inst)
    at, bt = inst.mods[-2], inst.mods[-1]
    if at not in ("u32", "s32") or bt not in ("u32", "s32"):
        raise fe.unsupported(inst)
    d, a, b, c = _nops(fe, inst, 4)
    ct = "s32" if "s32" in (at, bt) else "u32"
    asg, bsg = int(at == "s32"), int(bt == "s32")
    x, y, z = fe.src(a, "u32", inst), fe.src(b, "u32", inst), fe.src(c, "s32", inst)
    if inst.opcode == "dp4a":
        return fe.dst(d, ct, f"ps_dp4a({x}, {y}, {z}, {asg}, {bsg})", inst)
    hi = inst.mods[0]
    if hi not in ("lo", "hi"):
        raise fe.unsupported(inst)
    return fe.dst(d, ct, f"ps_dp2a({x}, {y}, {z}, {asg}, {bsg}, {int(hi == 'hi')})", inst)


def _sad(fe: Fe, inst: I) -> str:
    ty = _type(fe, inst, INT - BITS)
    d, a, b, c = _nops(fe, inst, 4)
    x, y = fe.src(a, ty, inst), fe.src(b, ty, inst)
    return fe.dst(d, ty, f"(({x} < {y} ? {y} - {x} : {x} - {y}) + {fe.src(c, ty, inst)})",
                  inst)


def _vabsdiff4(fe: Fe, inst: I) -> str:
    """vabsdiff4.dtype.atype.btype.add d, a, b, c (PTX ISA 9.7.18.2): the sum of the four
    byte lanes' absolute differences, plus c. The per-lane forms (a mask, no .add) and
    saturation are refused."""
    mods = list(inst.mods)
    if len(mods) != 4 or mods[3] != "add" or mods[0] not in ("u32", "s32") or \
            mods[1] not in ("u32", "s32") or mods[2] not in ("u32", "s32"):
        raise fe.unsupported(inst)
    d, a, b, c = _nops(fe, inst, 4)
    x, y = fe.src(a, "u32", inst), fe.src(b, "u32", inst)
    lane = "(int32_t)(int8_t)" if mods[1] == "s32" else "(int32_t)(uint8_t)"
    lane_b = "(int32_t)(int8_t)" if mods[2] == "s32" else "(int32_t)(uint8_t)"
    terms = " + ".join(f"(uint32_t)abs({lane}({x} >> {8 * k}) - {lane_b}({y} >> {8 * k}))"
                       for k in range(4))
    return fe.dst(d, "u32", f"({terms} + {fe.src(c, 'u32', inst)})", inst)


# ---- 9.7.9 data movement and conversion ----
def _mov(fe: Fe, inst: I) -> str:
    ty = _type(fe, inst)
    d, a = _nops(fe, inst, 2)
    if type(a) is ir.Reg and a.name in cluster.SPECIAL:
        return cluster.special_mov(fe, inst, ty, d, a.name)
    return fe.dst(d, ty, fe.src(a, ty, inst), inst)


def _ldst_mods(fe: Fe, inst: I) -> tuple[str, int, str, bool]:
    """(space, vector width, type, volatile) of an ld/st/ldu."""
    space = "generic"
    vec = 1
    vol = False
    for m in inst.mods[:-1]:
        if m in SPACES:
            space = SPACES[m]
        elif m in ("v2", "v4", "v8"):
            vec = int(m[1:])
        elif m in LDST_IGNORED or m.startswith(("L1::", "L2::", "level::")):
            vol = vol or m in VOLATILE
        else:
            raise fe.unsupported(inst, f"modifier .{m}")
    ty = inst.mods[-1] if inst.mods else ""
    if ty not in C_TYPE or ty == "pred":
        raise fe.unsupported(inst)
    return space, vec, ty, vol


def _hint_counts(inst: I, n: int) -> tuple[int, ...]:
    """Operand counts of a memory instruction: .L2::cache_hint adds a trailing 64-bit cache
    policy operand (a performance hint with no observable effect here)."""
    return (n + 1,) if "L2::cache_hint" in inst.mods else (n,)


def _addr(fe: Fe, a: ir.Operand, space: str, inst: I) -> str:
    """fe.addr, and for a shared::cluster address the block of the cluster it names."""
    ptr = fe.addr(a, space, inst)
    if "shared::cluster" in inst.mods:
        return cluster.shared_cluster_ptr(fe, inst, ptr)
    return ptr


def _ld(fe: Fe, inst: I) -> str:
    space, vec, ty, vol = _ldst_mods(fe, inst)
    d, a = _nops(fe, inst, *_hint_counts(inst, 2))[:2]
    ptr = _addr(fe, a, space, inst)
    q = "volatile " if vol else ""
    ct = C_TYPE[ty]
    if vec == 1:
        if isinstance(d, ir.Vec):
            raise fe.bad(inst, "vector destination without .v2/.v4")
        load = f"(*(const {q}{ct} *){ptr})"
        if vol and space in ("global", "generic"):
            # how a spin-wait on another block or the host reads (grid sync, flags): on a
            # CPU with more such blocks than cores, the one awaited needs this core now and then
            load = f"(ps_spin_hint(), {load})"
        return fe.dst(d, ty, load, inst)
    if not isinstance(d, ir.Vec) or len(d.items) != vec:
        raise fe.bad(inst, f"expected {{..}} of {vec} registers")
    t = fe.new_tmp()
    out = [f"{{ const {q}{ct} *{t} = (const {q}{ct} *){ptr};"]
    for i, item in enumerate(d.items):
        if isinstance(item, ir.Sym) and item.name == "_":
            continue
        out.append(fe.dst(item, ty, f"{t}[{i}]", inst))
    out.append("}")
    return " ".join(out)


def _st(fe: Fe, inst: I) -> str:
    space, vec, ty, vol = _ldst_mods(fe, inst)
    a, v = _nops(fe, inst, *_hint_counts(inst, 2))[:2]
    ptr = _addr(fe, a, space, inst)
    q = "volatile " if vol else ""
    ct = C_TYPE[ty]
    if vec == 1:
        return f"*({q}{ct} *){ptr} = {fe.src(v, ty, inst)};"
    if not isinstance(v, ir.Vec) or len(v.items) != vec:
        raise fe.bad(inst, f"expected {{..}} of {vec} values")
    t = fe.new_tmp()
    out = [f"{{ {q}{ct} *{t} = ({q}{ct} *){ptr};"]
    for i, item in enumerate(v.items):
        out.append(f"{t}[{i}] = {fe.src(item, ty, inst)};")
    out.append("}")
    return " ".join(out)


def _cvta(fe: Fe, inst: I) -> str:
    ty = _type(fe, inst, frozenset(("u32", "u64")))
    d, a = _nops(fe, inst, 2)
    to = inst.mods[0] == "to"
    space = SPACES.get(inst.mods[1] if to else inst.mods[0])
    if space is None or space == "generic":
        raise fe.unsupported(inst)
    x = fe.src(a, ty, inst)
    if space != "shared":
        return fe.dst(d, ty, x, inst)
    if ty != "u64":
        raise fe.unsupported(inst, "32-bit generic addresses")
    if to:
        return fe.dst(d, ty, f"({x} - (uint64_t)(uintptr_t){fe.shared_window()})", inst)
    return fe.dst(d, ty, f"((uint64_t)(uintptr_t)({fe.shared_window()} + {x}))", inst)


def _isspacep(fe: Fe, inst: I) -> str:
    d, a = _nops(fe, inst, 2)
    space = SPACES.get(inst.mods[0])
    x = fe.src(a, "u64", inst)
    fe.context = True
    if space == "shared":
        return fe.dst(d, "pred", f"({x} - (uint64_t)(uintptr_t){fe.shared_window()} < "
                                 f"(uint64_t)PS_DYN_OFF(ctx) + PS_DYN_SMEM(ctx))", inst)
    if space in ("global", "const", "local", "param"):
        # everything that is not shared is host memory on the CPU device
        return fe.dst(d, "pred", f"!({x} - (uint64_t)(uintptr_t){fe.shared_window()} < "
                                 f"(uint64_t)PS_DYN_OFF(ctx) + PS_DYN_SMEM(ctx))"
                      if space == "global" else "0", inst)
    raise fe.unsupported(inst)


def _float_in(ty: str, expr: str) -> str:
    """A float-ish PTX value as a C float/double expression."""
    return _h_in(ty, expr) if ty in HALF else expr


def _i64_as_double(x: str, ty: str) -> str:
    """A 64-bit integer as a double that rounds to f32, f16 or bf16 as the integer does.
    Past 2**53 a plain (double) rounds once already (a second rounding can then land on a
    tie that the integer was not on); there the bits below 4096 become one sticky bit
    (2048), which keeps the value strictly inside the same interval between neighbours of
    those formats, whose spacing is a multiple of 4096 there. That value is exact in a
    double."""
    c = C_TYPE[ty]
    small = (f"({x}) >= -9007199254740992LL && ({x}) <= 9007199254740992LL" if ty == "s64"
             else f"({x}) <= 9007199254740992ull")
    return (f"({small} ? (double)({x}) : (double)((({x}) & ~({c})4095) | "
            f"(({c})((({x}) & 4095) != 0) << 11)))")


def _cvt(fe: Fe, inst: I) -> str:
    if len(inst.mods) < 2:
        raise fe.unsupported(inst)
    dt, at = inst.mods[-2], inst.mods[-1]
    mods = inst.mods[:-2]
    if dt not in C_TYPE or at not in C_TYPE or dt == "pred" or at == "pred":
        raise fe.unsupported(inst)
    for m in mods:
        if m not in ROUND_F + ROUND_I + ("ftz", "sat", "relu", "satfinite"):
            raise fe.unsupported(inst, f"modifier .{m}")
    irnd = next((m for m in mods if m in ROUND_I), "")
    frnd = next((m for m in mods if m in ROUND_F), "")
    sat = "sat" in mods
    # cvt.{rn,rz}{.relu}.satfinite.{f16,bf16}{,x2}.f32 (PTX 8.1): an overflow (or an
    # infinite input) gives the largest finite value of its sign, NaN stays NaN
    satfinite = "satfinite" in mods
    if satfinite and (at != "f32" or (dt not in HALF2 and dt not in HALF)
                      or frnd not in ("rn", "rz") or set(mods) - {frnd, "relu", "satfinite"}):
        raise fe.unsupported(inst, "modifier .satfinite")
    if dt in HALF2 and at == "f32":
        d, a, b = _nops(fe, inst, 3)
        fx, fy = fe.src(a, "f32", inst), fe.src(b, "f32", inst)
        m = MODE[frnd]
        base = "f16" if dt == "f16x2" else "bf16"
        if sat:
            fx, fy = f"ps_satf({fx})", f"ps_satf({fy})"
        hi, lo = _h_out(base, fx, m), _h_out(base, fy, m)
        if satfinite:
            hi, lo = _satfinite(base, hi), _satfinite(base, lo)
        if "relu" in mods:
            hi, lo = _relu(base, hi), _relu(base, lo)
        return fe.dst(d, "b32", f"ps_pack2({lo}, {hi})", inst)
    d, a = _nops(fe, inst, 2)
    x = fe.src(a, at, inst)
    if at == "f32" and "ftz" in mods:
        x = f"ps_ftz({x})"
    isf_d, isf_a = dt in FLOAT or dt in HALF, at in FLOAT or at in HALF
    if not isf_d and not isf_a:  # integer <-> integer
        if dt not in INT or at not in INT:
            raise fe.unsupported(inst)
        if sat:
            lo, hi = _int_range(dt)
            v = f"((__int128){x})"
            r = f"({v} < {lo} ? ({C_TYPE[dt]}){lo} : ({v} > {hi} ? ({C_TYPE[dt]}){hi} : " \
                f"({C_TYPE[dt]}){v}))"
            return fe.dst(d, dt, r, inst)
        return fe.dst(d, dt, f"(({C_TYPE[dt]}){x})", inst)
    if isf_a and not isf_d:  # float -> integer: rounding, then saturation (always)
        if dt not in INT or dt in BITS:
            raise fe.unsupported(inst)
        v = f"(double){_float_in(at, x)}"
        rfn = {"rni": "PS_RINT", "rzi": "PS_TRUNC", "rmi": "PS_FLOOR", "rpi": "PS_CEIL",
               "": "PS_TRUNC"}[irnd]
        return fe.dst(d, dt, f"ps_d2{dt}({rfn}({v}))", inst)
    if isf_d and not isf_a:  # integer -> float
        if irnd:
            raise fe.unsupported(inst)
        m = MODE[frnd]
        big = SIZE[at] == 8
        if dt == "f64":
            if m and big:
                raise fe.unsupported(inst, "directed rounding of a 64-bit integer")
            r = f"(double){x}"
        elif dt == "f32":
            if m and big:
                r = f"ps_d2f_dir({_i64_as_double(x, at)}, {m})"
            else:
                r = f"ps_d2f_dir((double){x}, {m})" if m else f"(float){x}"
        else:
            v = _i64_as_double(x, at) if big else f"(double){x}"
            r = f"ps_d2h_mode({v}, {m})" if dt == "f16" else f"ps_d2bf_mode({v}, {m})"
            if sat:
                raise fe.unsupported(inst)
            return fe.dst(d, dt, r, inst)
        return fe.dst(d, dt, _fresult(inst, dt, r), inst)
    # float -> float
    m = MODE[frnd]
    if irnd:  # round to integral value in the same type
        if dt != at:
            raise fe.unsupported(inst)
        if dt in HALF:
            fn = {"rni": "PS_RINTF", "rzi": "PS_TRUNCF", "rmi": "PS_FLOORF",
                  "rpi": "PS_CEILF"}[irnd]
            return fe.dst(d, dt, _h_out(dt, f"{fn}({_h_in(dt, x)})"), inst)
        fn = {"rni": "PS_RINT", "rzi": "PS_TRUNC", "rmi": "PS_FLOOR", "rpi": "PS_CEIL"}[irnd]
        if dt == "f32":
            fn += "F"
        return fe.dst(d, dt, _fresult(inst, dt, f"{fn}({x})"), inst)
    if dt in HALF:
        if at == "f64":
            src = f"(double){x}"
            r = f"ps_d2h_mode({src}, {m})" if dt == "f16" else f"ps_d2bf_mode({src}, {m})"
        else:
            fx = _float_in(at, x)
            if sat:
                fx = f"ps_satf({fx})"
            r = _h_out(dt, fx, m)
            if satfinite:
                r = _satfinite(dt, r)
        if "relu" in mods:
            r = _relu(dt, r)
        return fe.dst(d, dt, r, inst)
    fx = _float_in(at, x)
    if dt == "f32" and at == "f64":
        r = f"ps_d2f_dir({fx}, {m})" if m else f"(float){fx}"
    elif dt == "f64":
        r = f"(double){fx}"
    else:
        r = fx
    return fe.dst(d, dt, _fresult(inst, dt, r), inst)


def _satfinite(ty: str, h: str) -> str:
    """.satfinite on a rounded f16 / bf16 result (preludes/common.h)."""
    return f"ps_satfinite_h({h})" if ty == "f16" else f"ps_satfinite_bf({h})"


def _int_range(ty: str) -> tuple[str, str]:
    bits = 8 * SIZE[ty]
    if ty in SIGNED:
        return f"(-(__int128)1 << {bits - 1})", f"(((__int128)1 << {bits - 1}) - 1)"
    return "(__int128)0", f"(((__int128)1 << {bits}) - 1)"


# ---- 9.7.12 atomics ----
ATOM_IGNORED = frozenset(("relaxed", "acquire", "release", "acq_rel", "sc", "cta", "gpu",
                          "sys", "cluster", "noftz"))


def _atom(fe: Fe, inst: I) -> str:
    space = "generic"
    op = ""
    for m in inst.mods[:-1]:
        if m in SPACES:
            space = SPACES[m]
        elif m in ATOM_IGNORED or m.startswith(("L2::", "level::")):
            continue
        elif not op:
            op = m
        else:
            raise fe.unsupported(inst, f"modifier .{m}")
    ty = inst.mods[-1] if inst.mods else ""
    red = inst.opcode == "red"
    ops = inst.operands
    if red:
        ops = [ir.Sym("_"), *ops]
    half_add = op == "add" and (ty in HALF or ty in HALF2)
    if ty not in C_TYPE or ty in HALF or ty in HALF2 or SIZE.get(ty, 0) < 4:
        if not (op == "cas" and ty == "b16") and not half_add:
            raise fe.unsupported(inst)
    if len(ops) != (4 if op == "cas" else 3):
        raise fe.bad(inst, "wrong number of operands")
    d, a = ops[0], ops[1]
    ct = C_TYPE[ty]
    ptr = f"({ct} *){_addr(fe, a, space, inst)}"
    b = fe.src(ops[2], ty, inst)
    bits = 8 * SIZE[ty]
    builtin = {"add": "PS_AFETCH_ADD", "and": "PS_AFETCH_AND", "or": "PS_AFETCH_OR",
               "xor": "PS_AFETCH_XOR"}
    if half_add:
        r = f"ps_atom_add_{ty}({ptr}, {b})"
    elif op in builtin and ty in INT:
        r = f"{builtin[op]}({ptr}, {b})"
    elif op == "add" and ty in FLOAT:
        r = f"ps_atom_add_{ty}({ptr}, {b})"
    elif op == "exch" and ty in INT | FLOAT:
        ut = uint_of(SIZE[ty])
        r = fe.convert(f"PS_AEXCH(({C_TYPE[ut]} *){_addr(fe, a, space, inst)}, "
                       f"{fe.src(ops[2], ut, inst)})", ut, ty, inst)
    elif op in ("min", "max") and ty in INT - BITS | FLOAT:
        r = f"ps_atom_{op}_{ty}({ptr}, {b})"
    elif op in ("inc", "dec") and ty == "u32":
        r = f"ps_atom_{op}_u32({ptr}, {b})"
    elif op == "cas" and ty in BITS | INT | FLOAT:
        ut = uint_of(SIZE[ty])
        r = fe.convert(f"ps_atom_cas_u{bits}(({C_TYPE[ut]} *){_addr(fe, a, space, inst)}, "
                       f"{fe.src(ops[2], ut, inst)}, {fe.src(ops[3], ut, inst)})", ut, ty, inst)
    else:
        raise fe.unsupported(inst)
    if red:
        return f"(void){r};"
    return fe.dst(d, ty, r, inst)


# ---- 9.7.13 parallel synchronization and communication ----
def _bar(fe: Fe, inst: I) -> str:
    if cluster.is_cluster_barrier(inst):
        return cluster.barrier(fe, inst)
    mods = [m for m in inst.mods if m not in ("cta", "aligned")]
    ops = inst.operands
    if mods[:1] == ["warp"]:  # bar.warp.sync membermask: lanes of the warp converge
        return fe.form.bar_warp(fe, inst)
    kind = mods[0] if mods else "sync"
    if kind == "sync" and len(mods) == 1 and len(ops) in (1, 2):
        return fe.form.bar_sync(fe, inst, ops)
    if kind == "arrive" and len(mods) == 1 and len(ops) == 2:
        fe.context = True
        return f"ps_bar_arrive(ctx, {fe.src(ops[0], 'u32', inst)}, {fe.src(ops[1], 'u32', inst)});"
    if kind == "red" and len(mods) == 3 and len(ops) in (3, 4):
        op = {"popc": 0, "and": 1, "or": 2}.get(mods[1])
        if op is None:
            raise fe.unsupported(inst)
        ty = "u32" if op == 0 else "pred"
        return fe.form.bar_red(fe, inst, op, ty, ops, fe.src(ops[-1], "pred", inst))
    raise fe.unsupported(inst)


def _cp_async(fe: Fe, inst: I) -> str:
    """cp.async (PTX ISA 9.7.9.25): the copy is done at issue, which every observation the
    program may make (after cp.async.wait_group / wait_all and a barrier) agrees with."""
    if inst.mods[:1] != ("async",):
        raise fe.unsupported(inst)
    if inst.mods[1:2] == ("mbarrier",):
        return mbarrier.cp_async_arrive(fe, inst)
    kind = inst.mods[1] if len(inst.mods) > 1 else ""
    if kind in ("commit_group", "wait_group", "wait_all") and len(inst.mods) == 2:
        _nops(fe, inst, 1 if kind == "wait_group" else 0)
        return ";"
    mods = [m for m in inst.mods[1:] if not m.startswith(("L2::", "L1::"))]
    if mods not in (["ca", "shared", "global"], ["cg", "shared", "global"],
                    ["ca", "shared::cta", "global"], ["cg", "shared::cta", "global"]):
        raise fe.unsupported(inst)
    hint = "L2::cache_hint" in inst.mods
    ops = list(inst.operands)
    if hint:  # the trailing cache policy: a hint only
        if len(ops) < 4:
            raise fe.bad(inst, "missing the cache-policy operand")
        ops = ops[:-1]
    if len(ops) not in (3, 4):
        raise fe.bad(inst, f"expected 3 or 4 operands, got {len(ops)}")
    dst, src, size = ops[:3]
    if not isinstance(size, ir.Imm) or size.kind != "int" or size.value not in (4, 8, 16):
        raise fe.bad(inst, "cp-size must be 4, 8 or 16")
    if mods[0] == "cg" and size.value != 16:
        raise fe.bad(inst, "cp.async.cg copies 16 bytes")
    n = f"{size.value}u"
    if len(ops) == 4:
        extra = ops[3]
        if isinstance(extra, ir.Reg) and fe.reg_type(extra.name, inst) == "pred" \
                or isinstance(extra, ir.Neg):
            n = f"({fe.src(extra, 'pred', inst)} ? 0u : {size.value}u)"  # ignore-src
        else:
            n = fe.src(extra, "u32", inst)  # src-size: the rest is zero-filled
    return (f"ps_cp_async({fe.addr(dst, 'shared', inst)}, {fe.addr(src, 'global', inst)}, "
            f"{size.value}u, {n});")


def _createpolicy(fe: Fe, inst: I) -> str:
    """createpolicy (PTX ISA 9.7.9.18): an opaque 64-bit L2 cache policy that only
    .L2::cache_hint operands consume, as a hint; here it is 0 (no preference)."""
    if not inst.mods or inst.mods[-1] != "b64" or not inst.operands:
        raise fe.unsupported(inst)
    if inst.mods[0] not in ("fractional", "range", "cvt"):
        raise fe.unsupported(inst)
    return fe.dst(inst.operands[0], "b64", "((uint64_t)0)", inst)


def _fence(fe: Fe, inst: I) -> str:
    return "PS_FENCE();"


def _nop(fe: Fe, inst: I) -> str:
    return ";"


# the warp collectives: checked and read here, spelled by the function's form
# (collectives.Form: the wave primitives; targets/cpu_phase.PhaseForm: CPU phase kernels)
SHFL_MODES = {"up": 0, "down": 1, "bfly": 2, "idx": 3}


def _shfl(fe: Fe, inst: I) -> str:
    mods = [m for m in inst.mods if m != "sync"]
    if len(mods) != 2 or mods[0] not in SHFL_MODES or mods[1] != "b32":
        raise fe.unsupported(inst)
    ops = _nops(fe, inst, 4, 5)
    d = ops[0]
    dd, p = (d.first, d.second) if isinstance(d, ir.PredPair) else (d, None)
    return fe.form.shfl(fe, inst, SHFL_MODES[mods[0]], ops, dd, p)


def _vote(fe: Fe, inst: I) -> str:
    mods = [m for m in inst.mods if m != "sync"]
    ops = _nops(fe, inst, 2, 3)
    mask = fe.src(ops[2], "u32", inst) if len(ops) == 3 else "0xffffffffu"
    p = fe.src(ops[1], "pred", inst)
    code = fe.form.vote(fe, inst, mods, ops[0], p, mask)
    if code is None:
        raise fe.unsupported(inst)
    return code


def _activemask(fe: Fe, inst: I) -> str:
    (d,) = _nops(fe, inst, 1)
    return fe.form.activemask(fe, inst, d)


def _match(fe: Fe, inst: I) -> str:
    mods = [m for m in inst.mods if m != "sync"]
    d, a, mask = _nops(fe, inst, 3)
    code = fe.form.match(fe, inst, mods, d, a, fe.src(mask, "u32", inst))
    if code is None:
        raise fe.unsupported(inst)
    return code


def _elect(fe: Fe, inst: I) -> str:
    """elect.sync d|p, membermask (PTX ISA 9.7.13.13, sm_90): one leader among the lanes of
    membermask that execute it (pyshim: the lowest); d its lane id (or _), p true in it."""
    if inst.mods != ("sync",):
        raise fe.unsupported(inst)
    d, mask = _nops(fe, inst, 2)
    dd, p = (d.first, d.second) if isinstance(d, ir.PredPair) else (d, None)
    if type(dd) is ir.Reg and dd.name == "_":  # the sink, as the first of a pair
        dd = ir.Sym("_")
    return fe.form.elect(fe, inst, dd, p, fe.src(mask, "u32", inst))


REDUX_OPS = {"add": 0, "min": 1, "max": 2, "and": 3, "or": 4, "xor": 5}


def _redux(fe: Fe, inst: I) -> str:
    mods = [m for m in inst.mods if m != "sync"]
    if len(mods) != 2 or mods[0] not in REDUX_OPS or mods[1] not in ("u32", "s32", "b32"):
        raise fe.unsupported(inst)
    d, a, mask = _nops(fe, inst, 3)
    return fe.form.redux(fe, inst, REDUX_OPS[mods[0]], int(mods[1] == "s32"), d, a, mask)


# ---- 9.7.10 control flow ----
def _bra(fe: Fe, inst: I) -> str:
    (t,) = _nops(fe, inst, 1)
    if not isinstance(t, ir.Sym):
        raise fe.unsupported(inst, "indirect branch")
    if t.name not in fe.labels:
        raise fe.bad(inst, f"branch to undefined label {t.name}")
    return fe.form.goto(cname_label(t.name))


def _brx(fe: Fe, inst: I) -> str:
    """brx.idx{.uni} index, table (PTX ISA 9.7.10.3): a switch over the .branchtargets
    labels. An index past the table is undefined in PTX; here it traps."""
    if inst.mods not in (("idx",), ("idx", "uni")):
        raise fe.unsupported(inst)
    index, table = _nops(fe, inst, 2)
    if not isinstance(table, ir.Sym) or table.name not in fe.branch_targets:
        raise fe.bad(inst, "the second operand must name a .branchtargets table")
    labels = fe.branch_targets[table.name]
    for lab in labels:
        if lab not in fe.labels:
            raise fe.bad(inst, f"{table.name} names the undefined label {lab}")
    fe.context = True
    cases = " ".join(f"case {i}u: {fe.form.goto(cname_label(lab))}"
                     for i, lab in enumerate(labels))
    return (f"switch ({fe.src(index, 'u32', inst)}) {{ {cases} "
            f"default: {{ PS_TRAP(ctx); {fe.form.ret_stmt} }} }}")


def _ret(fe: Fe, inst: I) -> str:
    return fe.form.ret_stmt


def _exit(fe: Fe, inst: I) -> str:
    if not fe.fn.entry:
        raise fe.unsupported(inst, "exit inside a .func")
    return fe.form.ret_stmt


def _trap(fe: Fe, inst: I) -> str:
    fe.context = True
    return f"{{ PS_TRAP(ctx); {fe.form.ret_stmt} }}"


def _call(fe: Fe, inst: I) -> str:
    ops = list(inst.operands)
    rets: list[ir.Operand] = []
    if ops and isinstance(ops[0], ir.Args):
        rets = ops.pop(0).items
    if not ops:
        raise fe.bad(inst, "call without a target")
    target = ops.pop(0)
    args: list[ir.Operand] = []
    if ops and isinstance(ops[0], ir.Args):
        args = ops.pop(0).items
    if ops and not isinstance(target, ir.Reg):
        raise fe.bad(inst, "unexpected operands after the argument list")
    params = [_param_ptr(fe, inst, o) for o in [*rets, *args]]
    fe.context = True  # (the callee gets the context; an extern call's C reads it)
    if isinstance(target, ir.Sym):
        callee = fe.tr.functions.get(target.name)
        if callee is None:
            raise fe.bad(inst, f"call to undeclared function {target.name}")
        if callee.body is None:
            return fe.tr.target.extern_call(fe, inst, target.name, params, len(rets))
        if len(rets) != len(callee.returns) or len(args) != len(callee.params):
            raise fe.bad(inst, f"{target.name} takes {len(callee.params)} parameters and "
                               f"{len(callee.returns)} results")
        return f"{cname_fn(target.name)}({', '.join(['ctx', *params])});"
    if isinstance(target, ir.Reg):
        fnty = "void (*)(PS_CTX" + ", uint8_t *" * len(params) + ")"
        return (f"(({fnty})(uintptr_t){fe.src(target, 'u64', inst)})"
                f"({', '.join(['ctx', *params])});")
    raise fe.bad(inst, "bad call target")


def _param_ptr(fe: Fe, inst: I, op: ir.Operand) -> str:
    if isinstance(op, ir.Sym):
        v = fe.lookup(op.name)
        if v is None or v.space != "param":
            raise fe.unsupported(inst, f"call argument {op.name} is not a .param variable")
        return f"(uint8_t *){fe.var_cname(v)}"
    raise fe.unsupported(inst, "call arguments must be .param variables")


# the C operator of each integer binary op, as the EMIT rows below and the CPU's warp
# vectors (targets/cpu/warpvec.py) write it
INT_OPERATOR = {"add": "+", "sub": "-", "and": "&", "or": "|", "xor": "^"}
# 32-bit integer types
INT32 = frozenset(("b32", "u32", "s32"))

# How an instruction synchronises, declared by its EMIT row; the passes (classify_sync,
# liveness, regions) read the opcode sets derived below.
PLAIN = "plain"            # this thread alone
BARRIER = "barrier"        # the block's threads (bar, barrier)
COLLECTIVE = "collective"  # the warp's lanes (shfl, vote, ...; bar.warp.sync: sync_kind)
BRANCH = "branch"          # leaves the straight line (bra, brx, ret, exit)
LABEL = "label"            # an ir.Label, not an instruction: the fifth kind of a body item

Handler = Callable[[Fe, I], str]


def _rows(kind: str, handlers: dict[str, Handler]) -> dict[str, tuple[Handler, str]]:
    return {op: (h, kind) for op, h in handlers.items() if h is not None}


# opcode -> (handler, sync kind)
EMIT: dict[str, tuple[Handler, str]] = {
    **_rows(PLAIN, {
        "add": _add_sub(INT_OPERATOR["add"]), "sub": _add_sub(INT_OPERATOR["sub"]),
        "addc": _add_sub(INT_OPERATOR["add"]), "subc": _add_sub(INT_OPERATOR["sub"]), "mul": _mul, "mad": _mad, "madc": _mad, "mul24": _mul24,
        "mad24": _mul24, "div": _div, "rem": _div,
        "abs": _abs_neg, "neg": _abs_neg, "min": _min_max, "max": _min_max,
        "and": _logic(INT_OPERATOR["and"]), "or": _logic(INT_OPERATOR["or"]),
        "xor": _logic(INT_OPERATOR["xor"]), "not": _not, "cnot": _not,
        "shl": _shift, "shr": _shift, "setp": _setp, "set": _set, "selp": _selp,
        "slct": _slct, "fma": _fma, "sqrt": _unary_f, "rsqrt": _unary_f, "rcp": _unary_f,
        "sin": _unary_f, "cos": _unary_f, "ex2": _unary_f, "lg2": _unary_f, "tanh": _unary_f,
        "copysign": _copysign, "testp": _testp,
        "popc": _bitop, "clz": _bitop, "brev": _bitop, "bfind": _bitop, "bfe": _bfe,
        "bfi": _bfi, "fns": _fns, "bmsk": _bmsk_szext, "szext": _bmsk_szext, "cp": _cp_async,
        "prmt": _prmt, "lop3": _lop3, "shf": _shf, "dp4a": _dp, "dp2a": _dp, "sad": _sad,
        "vabsdiff4": _vabsdiff4,
        "mov": _mov, "ld": _ld, "ldu": _ld, "st": _st, "cvta": _cvta, "cvt": _cvt,
        "isspacep": _isspacep, "atom": _atom, "red": _atom, "membar": _fence, "fence": _fence,
        "trap": _trap, "call": _call,
        "nanosleep": _nop, "prefetch": _nop, "prefetchu": _nop, "pmevent": _nop,
        "griddepcontrol": _nop, "discard": _nop, "applypriority": _nop,
        "createpolicy": _createpolicy, **texture.EMIT,
        "mapa": cluster.mapa, "getctarank": cluster.getctarank,
    }),
    **_rows(BARRIER, {"bar": _bar, "barrier": _bar}),
    **_rows(COLLECTIVE, {"shfl": _shfl, "vote": _vote, "activemask": _activemask,
                         "match": _match, "redux": _redux, "elect": _elect}),
    **_rows(BRANCH, {"bra": _bra, "brx": _brx, "ret": _ret, "exit": _exit}),
}
# warp matrix instructions and mbarrier waits: collectives the CPU's phase form cannot
# complete, so their kernels run as fibers (targets/cpu/phase.PHASE_COLLECTIVES)
EMIT.update(_rows(COLLECTIVE, {**tensor.EMIT, "mbarrier": mbarrier.mbarrier}))
EMIT["cvt"] = (lowp.cvt(EMIT["cvt"][0]), EMIT["cvt"][1])  # + tf32 and FP8 pairs


def opcodes(*kinds: str) -> frozenset[str]:
    """The opcodes whose EMIT row declares one of `kinds`."""
    return frozenset(op for op, (_, k) in EMIT.items() if k in kinds)


BARRIERS = opcodes(BARRIER)
COLLECTIVES = opcodes(COLLECTIVE)
SYNC_OPCODES = BARRIERS | COLLECTIVES  # need the other threads of the block or warp


def sync_kind(inst: I) -> str:
    """One instruction's kind: its row's, except bar.warp.sync, which only the warp's lanes
    take part in (a collective)."""
    row = EMIT.get(inst.opcode)
    kind = row[1] if row is not None else PLAIN
    if kind == BARRIER and inst.mods[:1] == ("warp",):
        return COLLECTIVE
    return kind


def emit(fe: Fe, inst: I) -> str:
    row = EMIT.get(inst.opcode)
    if row is None:
        raise fe.unsupported(inst)
    code = row[0](fe, inst)
    if inst.pred is not None:
        cond = fe.src(ir.Reg(inst.pred), "pred", inst)
        return f"if ({'!' if inst.pred_neg else ''}{cond}) {{ {code} }}"
    return code
