"""cvt to and from tf32, the FP8 pairs e4m3x2 / e5m2x2 and the FP6 pairs e2m3x2 / e3m2x2
(PTX ISA 9.7.9.21): what tensor-core and block-scaled kernels use around mma (elect.sync is a
collective row of isa/instructions.py).

`cvt` forms the base translator handles keep its code (so other modules' C is unchanged);
the tf32 / FP8 forms get preludes/lowp.h (with the tensor preludes, tensor.uses_tensor), the
FP6 forms preludes/fp6.h (fe.need): each only in the modules that use them.
"""

from __future__ import annotations

from collections.abc import Callable

from pyshim.ptx import ir
from pyshim.ptx.isa.emitter import FunctionEmitter

Fe = FunctionEmitter
I = ir.Instruction  # noqa: E741

FP8 = ("e4m3x2", "e5m2x2")
FP6 = ("e2m3x2", "e3m2x2")


def is_lowp(inst: I) -> bool:
    return inst.opcode == "cvt" and any(m == "tf32" or m in FP8 for m in inst.mods)


def cvt(fallback: Callable[[Fe, I], str]) -> Callable[[Fe, I], str]:
    def emit(fe: Fe, inst: I) -> str:
        if not is_lowp(inst) and not any(m in FP6 for m in inst.mods):
            return fallback(fe, inst)
        return _cvt(fe, inst)
    return emit


def _cvt(fe: Fe, inst: I) -> str:
    mods = list(inst.mods)
    dt, at = mods[-2], mods[-1]
    rest = set(mods[:-2])
    if dt == "tf32" and at == "f32":
        if not rest & {"rna", "rn"} or rest - {"rna", "rn", "satfinite"}:
            raise fe.unsupported(inst)
        d, a = _ops(fe, inst, 2)
        return fe.dst(d, "b32", f"ps_f2tf32({fe.src(a, 'f32', inst)}, "
                                f"{int('rna' in rest)}, {int('satfinite' in rest)})", inst)
    if dt in FP8 and at in ("f32", "f16x2"):
        # the ISA requires .rn.satfinite for these
        if rest - {"rn", "satfinite", "relu"} or not {"rn", "satfinite"} <= rest:
            raise fe.unsupported(inst)
        e5, relu = int(dt == "e5m2x2"), int("relu" in rest)
        if at == "f32":
            d, a, b = _ops(fe, inst, 3)
            hi, lo = fe.src(a, "f32", inst), fe.src(b, "f32", inst)
        else:
            d, a = _ops(fe, inst, 2)
            v = fe.src(a, "b32", inst)
            hi, lo = f"ps_h2f((uint16_t)({v} >> 16))", f"ps_h2f((uint16_t){v})"
        return fe.dst(d, "b16", f"(uint16_t)((ps_f2fp8({hi}, {e5}, {relu}) << 8) | "
                                f"ps_f2fp8({lo}, {e5}, {relu}))", inst)
    if dt == "f16x2" and at in FP8:
        if rest - {"rn", "relu"} or "rn" not in rest:
            raise fe.unsupported(inst)
        d, a = _ops(fe, inst, 2)
        v = fe.src(a, "b16", inst)
        e5, relu = int(at == "e5m2x2"), int("relu" in rest)
        return fe.dst(d, "b32", f"ps_pack2(ps_fp82h((uint32_t)({v} & 0xffu), {e5}, {relu}), "
                                f"ps_fp82h((uint32_t)(({v} >> 8) & 0xffu), {e5}, {relu}))",
                      inst)
    if dt in FP6 and at == "f32":
        # the ISA requires .rn.satfinite (sm_100a, PTX 8.6)
        if rest - {"rn", "satfinite", "relu"} or not {"rn", "satfinite"} <= rest:
            raise fe.unsupported(inst)
        fe.need("fp6.h")
        d, a, b = _ops(fe, inst, 3)
        e3, relu = int(dt == "e3m2x2"), int("relu" in rest)
        hi, lo = fe.src(a, "f32", inst), fe.src(b, "f32", inst)
        return fe.dst(d, "b16", f"(uint16_t)((ps_f2fp6({hi}, {e3}, {relu}) << 8) | "
                                f"ps_f2fp6({lo}, {e3}, {relu}))", inst)
    if dt == "f16x2" and at in FP6:
        if rest - {"rn", "relu"} or "rn" not in rest:
            raise fe.unsupported(inst)
        fe.need("fp6.h")
        d, a = _ops(fe, inst, 2)
        v = fe.src(a, "b16", inst)
        e3, relu = int(at == "e3m2x2"), int("relu" in rest)
        return fe.dst(d, "b32", f"ps_pack2(ps_fp62h((uint32_t){v}, {e3}, {relu}), "
                                f"ps_fp62h((uint32_t)({v} >> 8), {e3}, {relu}))", inst)
    raise fe.unsupported(inst)


def _ops(fe: Fe, inst: I, n: int) -> list[ir.Operand]:
    if len(inst.operands) != n:
        raise fe.bad(inst, f"expected {n} operands, got {len(inst.operands)}")
    return list(inst.operands)
