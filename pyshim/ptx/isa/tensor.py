"""Warp-level matrix instructions: mma.sync, wmma.*, ldmatrix, stmatrix, movmatrix (PTX ISA
9.7.14 and 9.7.9.27-28).

Their semantics are whole-warp functions in preludes/mma.h; each lane builds a record of
its registers and hands it to the target's exchange (ps_warp_run, preludes/mma_cpu.h), so
the C here only marshals registers. On the CPU device their kernels run as phases or region
loops (targets/cpu/phase.py: the warp's lanes deposit their registers, the scheduler runs
the function once per warp), or as fibers where those cannot (passes/classify_sync.py). The preludes are added only to modules that use
these instructions (`prelude`), so every other module's C is unchanged.
On the hip targets mma.sync (AMD_FORMS), ldmatrix, stmatrix and movmatrix are per-lane calls
of preludes/mma_amd.h (MFMA / WMMA with the fragment permutation on ds_bpermute), and so is wmma.* for f16 and
bf16 (AMD_WMMA_SHAPES: its fragments laid out as mma.sync's m16n8k16 ones); the other wmma
types are refused there by name.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from pyshim.ptx import ir
from pyshim.ptx.isa.emitter import FunctionEmitter

Fe = FunctionEmitter
I = ir.Instruction  # noqa: E741

OPCODES = frozenset(("mma", "wmma", "ldmatrix", "stmatrix", "movmatrix"))

MT = {"f16": "PS_MT_F16", "bf16": "PS_MT_BF16", "tf32": "PS_MT_TF32", "f64": "PS_MT_F64",
      "s8": "PS_MT_S8", "u8": "PS_MT_U8", "s4": "PS_MT_S4", "u4": "PS_MT_U4", "b1": "PS_MT_B1",
      "e4m3": "PS_MT_E4M3", "e5m2": "PS_MT_E5M2", "f32": "PS_MT_F32", "s32": "PS_MT_S32"}
_SHAPE = re.compile(r"m(\d+)n(\d+)k(\d+)$")

# mma.sync shapes and input types (PTX ISA 9.7.14.5.14, "mma"), sm_80/sm_89 forms
MMA_FORMS: dict[tuple[int, int, int], frozenset[str]] = {
    (16, 8, 8): frozenset(("f16", "bf16", "tf32")),
    (16, 8, 16): frozenset(("f16", "bf16", "s8", "u8")),
    (16, 8, 4): frozenset(("tf32",)),
    (8, 8, 4): frozenset(("f64",)),
    (8, 8, 16): frozenset(("s8", "u8")),
    (16, 8, 32): frozenset(("s8", "u8", "s4", "u4", "e4m3", "e5m2")),
    (8, 8, 32): frozenset(("s4", "u4")),
    (16, 8, 64): frozenset(("s4", "u4")),
    (8, 8, 128): frozenset(("b1",)),
    (16, 8, 128): frozenset(("b1",)),
    (16, 8, 256): frozenset(("b1",)),
}
_BITS = {"f16": 16, "bf16": 16, "tf32": 32, "f64": 64, "s8": 8, "u8": 8, "s4": 4, "u4": 4,
         "b1": 1, "e4m3": 8, "e5m2": 8, "f32": 32, "s32": 32}


def uses_tensor(module: ir.Module) -> bool:
    """Whether the module needs these preludes (warp matrix instructions, elect.sync, the
    tf32 / FP8 conversions of lowp.py)."""
    from pyshim.ptx.isa import mbarrier
    from pyshim.ptx.isa.lowp import is_lowp

    return mbarrier.uses(module) or any(type(s) is ir.Instruction and (s.opcode in OPCODES or s.opcode == "elect"
                                              or s.opcode == "cvt" and is_lowp(s))
               for f in module.functions for s in f.body or ())


def _lowp_only(module: ir.Module) -> bool:
    """Whether the module's only instructions of this family are lowp.py's conversions."""
    from pyshim.ptx.isa import mbarrier

    return not mbarrier.uses(module) and not any(
        type(s) is ir.Instruction and (s.opcode in OPCODES or s.opcode == "elect")
        for f in module.functions for s in f.body or ())


def prelude(target, module: ir.Module) -> str:
    """The preludes a module using these instructions needs on `target` (after the target's)."""
    from pyshim.ptx.targets.base import prelude_text

    parts = ["/* ---- lowp.h ---- */", prelude_text("lowp.h")]
    # NVRTC cannot compile mma.h (vector extensions, __thread): conversions alone need only
    # lowp.h there; on the CPU and AMD targets the set stays as it was (their C unchanged)
    if target.name == "cuda" and _lowp_only(module):
        return "\n".join(parts)
    if _is_hip(target):  # mma.h's whole-warp functions are the CPU device's exchange
        return "\n".join(parts + ["/* ---- mma_amd.h ---- */", prelude_text("mma_amd.h")])
    parts += ["/* ---- mma.h ---- */", prelude_text("mma.h")]
    if target.name.startswith("cpu"):
        parts += ["/* ---- mma_cpu.h ---- */", prelude_text("mma_cpu.h"),
                  "/* ---- mbarrier_cpu.h ---- */", prelude_text("mbarrier_cpu.h")]
    return "\n".join(parts)


def _is_hip(target) -> bool:
    return target.name.startswith("hip")


# mma.sync forms lowered on the hip targets (preludes/mma_amd.h: MFMA / WMMA, or a dot
# product where the target has no matrix-core form): (m, n, k) -> input types
AMD_FORMS: dict[tuple[int, int, int], frozenset[str]] = {
    (16, 8, 8): frozenset(("f16", "bf16", "tf32")),
    (16, 8, 16): frozenset(("f16", "bf16", "s8", "u8")),
    (16, 8, 4): frozenset(("tf32",)),
    (8, 8, 4): frozenset(("f64",)),
    (8, 8, 16): frozenset(("s8", "u8")),
    (16, 8, 32): frozenset(("s8", "u8", "e4m3", "e5m2")),
}
_AMD_TY = {"f16": "PS_MX_F16", "bf16": "PS_MX_BF16", "tf32": "PS_MX_TF32", "s8": "PS_MX_S8",
           "u8": "PS_MX_S8", "f64": "PS_MX_F64", "e4m3": "PS_MX_FP8", "e5m2": "PS_MX_FP8"}
_AMD_FLAG = ("u8", "e5m2")  # per operand: unsigned, or (FP8) e5m2


def _mma_amd(fe: Fe, inst: I, m: int, k: int, types: tuple[str, str, str, str], sat: bool,
             ins: list[str], na: int, nb: int, d: ir.Operand) -> str:
    """mma.sync on a hip target: one call of the per-lane lowering in mma_amd.h"""
    dt, at, bt, ct = types
    if at not in AMD_FORMS.get((m, 8, k), ()):
        raise fe.unsupported(inst, f"m{m}n8k{k} .{at} on target {fe.tr.target.name} "
                                   "(no AMD lowering of this shape and type)")
    t = fe.new_tmp()
    nd = m * 8 * _BITS[dt] // 1024
    code = [f"{{ uint32_t {t}[{len(ins)}] = {{{', '.join(ins)}}}; uint32_t {t}o[{nd}];",
            f"ps_mma_amd({t}, {t}o, {_AMD_TY[at]}, {int(at in _AMD_FLAG)}, {int(bt in _AMD_FLAG)}, "
            f"{m}u, {k}u, {na}u, {nb}u, {int(ct == 'f16')}, {int(dt == 'f16')}, {int(sat)});"]
    code += _words_out(fe, inst, d, 64 if dt == "f64" else 32, lambda i: f"{t}o[{i}]")
    return " ".join(code + ["}"])


def _cpu_only(fe: Fe, inst: I) -> None:
    if not fe.tr.target.name.startswith("cpu"):
        raise fe.unsupported(inst, f"warp matrix instructions on target {fe.tr.target.name}")


def _items(op: ir.Operand) -> list:
    return list(op.items) if type(op) is ir.Vec else [op]


def _words_in(fe: Fe, inst: I, op: ir.Operand, bits: int) -> list[str]:
    """C expressions of the 32-bit words of a fragment operand."""
    out = []
    for item in _items(op):
        if bits == 64:
            v = fe.src(item, "b64", inst)
            out += [f"(uint32_t)({v})", f"(uint32_t)(({v}) >> 32)"]
        else:
            out.append(fe.src(item, "b32", inst))
    return out


def _words_out(fe: Fe, inst: I, op: ir.Operand, bits: int,
               word: Callable[[int], str]) -> list[str]:
    """The writes of a fragment operand from its 32-bit words, word(i) spelling word i."""
    out = []
    for i, item in enumerate(_items(op)):
        if type(item) is ir.Sym and item.name == "_":
            continue
        if bits == 64:
            out.append(fe.dst(item, "b64", f"((uint64_t){word(2 * i)} | "
                                           f"((uint64_t){word(2 * i + 1)} << 32))", inst))
        else:
            out.append(fe.dst(item, "b32", word(i), inst))
    return out


def _run(fe: Fe, inst: I, ins: list[str], fn: str, desc_type: str, desc: str,
         outs: Callable[[Callable[[int], str]], list[str]], addr: str | None = None) -> str:
    """A whole-warp function of mma.h: `ins` the thread's input words, `outs(word)` its
    output writes, word(i) spelling output word i of the warp's record (the form's
    spelling: a local record here, the block's records in a CPU phase body)."""
    if getattr(fe.form, "warp_fn", None) is not None:  # the CPU's phase form (cpu/phase.py)
        return fe.form.warp_fn(fe, inst, ins, fn, desc_type, desc, outs, addr)
    t = fe.new_tmp()
    code = [f"{{ ps_wrec {t};"]
    code += [f"{t}.in[{i}] = {w};" for i, w in enumerate(ins)]
    if addr is not None:
        code.append(f"{t}.addr = {addr};")
    code.append(f"static const {desc_type} {t}d = {{{desc}}};")
    code.append(f"ps_warp_run(ctx, {inst.site}u, &{t}, {fn}, &{t}d);")
    code += outs(lambda i: f"{t}.out[{i}]")
    code.append("}")
    return " ".join(code)


def _mma(fe: Fe, inst: I) -> str:
    hip = _is_hip(fe.tr.target)
    if not hip:
        _cpu_only(fe, inst)
    mods = [m for m in inst.mods if m not in ("sync", "aligned")]
    if "sp" in mods or any(m.startswith("kind") for m in mods):
        raise fe.unsupported(inst)
    shape = next((m for m in mods if _SHAPE.match(m)), None)
    if shape is None:
        raise fe.unsupported(inst, "no shape")
    m, n, k = (int(x) for x in _SHAPE.match(shape).groups())
    rest = [x for x in mods if x != shape]
    if rest[:2] != ["row", "col"]:
        # m8n8k4 .f16 (Volta's quad-pair shape) takes other layouts; not implemented
        raise fe.unsupported(inst, "layouts other than .row.col")
    rest = rest[2:]
    sat = "satfinite" in rest
    bop = 1 if "xor" in rest else 0
    if "and" in rest or "xor" in rest:
        if "popc" not in rest:
            raise fe.unsupported(inst)
    types = [x for x in rest if x in MT]
    extra = set(rest) - set(types) - {"satfinite", "and", "xor", "popc", "rn"}
    if extra or len(types) != 4:
        raise fe.unsupported(inst)
    dt, at, bt, ct = types
    if (m, n, k) not in MMA_FORMS or at not in MMA_FORMS[(m, n, k)]:
        raise fe.unsupported(inst, f"shape {shape} with .{at}")
    ints = at in ("s8", "u8", "s4", "u4", "b1")
    if ints and (dt, ct) != ("s32", "s32") or at in ("s8", "u8") and bt not in ("s8", "u8") \
            or at in ("s4", "u4") and bt not in ("s4", "u4") \
            or at in ("e4m3", "e5m2") and bt not in ("e4m3", "e5m2") \
            or at in ("f16", "bf16", "tf32", "f64", "b1") and bt != at:
        raise fe.unsupported(inst, "type combination")
    if at == "f64" and (dt, ct) != ("f64", "f64") or at in ("bf16", "tf32") and \
            (dt, ct) != ("f32", "f32") or at == "f16" and {dt, ct} - {"f16", "f32"} \
            or at in ("e4m3", "e5m2") and (dt, ct) not in (("f32", "f32"), ("f16", "f16")):
        raise fe.unsupported(inst, "type combination")
    d, a, b, c = (inst.operands if len(inst.operands) == 4 else
                  (None,) * 4)
    if d is None:
        raise fe.bad(inst, f"expected 4 operands, got {len(inst.operands)}")
    na = m * k * _BITS[at] // 1024
    nb = k * n * _BITS[bt] // 1024
    nc = m * n * _BITS[ct] // 1024
    nd = m * n * _BITS[dt] // 1024
    reg_bits = 64 if at == "f64" else 32
    ins_a = _words_in(fe, inst, a, reg_bits)
    ins_b = _words_in(fe, inst, b, reg_bits)
    ins_c = _words_in(fe, inst, c, 64 if ct == "f64" else 32)
    nout = len(_items(d)) * (2 if dt == "f64" else 1)
    if (len(ins_a), len(ins_b), len(ins_c), nout) != (na, nb, nc, nd):
        raise fe.bad(inst, f"fragments of {na}, {nb}, {nc} and {nd} words expected")
    if hip:
        return _mma_amd(fe, inst, m, k, (dt, at, bt, ct), sat, ins_a + ins_b + ins_c, na, nb, d)
    desc = (f"{m}, {n}, {k}, {MT[at]}, {MT[bt]}, {MT[ct]}, {MT[dt]}, {na}, {nb}, {nc}, "
            f"{int(sat)}, {bop}")
    return _run(fe, inst, ins_a + ins_b + ins_c, "ps_mma_warp", "ps_mma_desc", desc,
                lambda w: _words_out(fe, inst, d, 64 if dt == "f64" else 32, w))


def _ldm_shape(fe: Fe, inst: I, mods: list[str]) -> tuple[int, bool, str]:
    """(number of matrices, .trans, state space) of ldmatrix / stmatrix"""
    count = next((int(x[1:]) for x in mods if x in ("x1", "x2", "x4")), 0)
    trans = "trans" in mods
    space = "shared" if any(x.startswith("shared") for x in mods) else "generic"
    known = {"m8n8", "x1", "x2", "x4", "trans", "b16", "shared", "shared::cta"}
    if not count or "m8n8" not in mods or "b16" not in mods or set(mods) - known:
        raise fe.unsupported(inst)
    return count, trans, space


def _ldmatrix(fe: Fe, inst: I) -> str:
    hip = _is_hip(fe.tr.target)
    if not hip:
        _cpu_only(fe, inst)
    mods = [m for m in inst.mods if m not in ("sync", "aligned")]
    count, trans, space = _ldm_shape(fe, inst, mods)
    if len(inst.operands) != 2:
        raise fe.bad(inst, "expected 2 operands")
    d, p = inst.operands
    if len(_items(d)) != count:
        raise fe.bad(inst, f".x{count} takes {count} destination registers")
    if hip:  # a shuffle of the row addresses and a load (mma_amd.h)
        t = fe.new_tmp()
        return " ".join([f"{{ uint32_t {t}o[{count}]; ps_ldmatrix_amd({fe.addr(p, space, inst)}, "
                         f"{t}o, {count}u, {int(trans)});"]
                        + _words_out(fe, inst, d, 32, lambda i: f"{t}o[{i}]") + ["}"])
    return _run(fe, inst, [], "ps_ldmatrix_warp", "ps_ldm_desc", f"{count}, {int(trans)}",
                lambda w: _words_out(fe, inst, d, 32, w), addr=fe.addr(p, space, inst))


def _stmatrix(fe: Fe, inst: I) -> str:
    hip = _is_hip(fe.tr.target)
    if not hip:
        _cpu_only(fe, inst)
    mods = [m for m in inst.mods if m not in ("sync", "aligned")]
    count, trans, space = _ldm_shape(fe, inst, mods)
    if len(inst.operands) != 2:
        raise fe.bad(inst, "expected 2 operands")
    p, s = inst.operands
    ins = _words_in(fe, inst, s, 32)
    if len(ins) != count:
        raise fe.bad(inst, f".x{count} takes {count} source registers")
    if hip:
        t = fe.new_tmp()
        return (f"{{ uint32_t {t}[{count}] = {{{', '.join(ins)}}}; "
                f"ps_stmatrix_amd({fe.addr(p, space, inst)}, {t}, {count}u, {int(trans)}); }}")
    return _run(fe, inst, ins, "ps_stmatrix_warp", "ps_ldm_desc", f"{count}, {int(trans)}",
                lambda w: [], addr=fe.addr(p, space, inst))


def _movmatrix(fe: Fe, inst: I) -> str:
    hip = _is_hip(fe.tr.target)
    if not hip:
        _cpu_only(fe, inst)
    mods = [m for m in inst.mods if m not in ("sync", "aligned")]
    if mods != ["m8n8", "trans", "b16"]:
        raise fe.unsupported(inst)
    if len(inst.operands) != 2:
        raise fe.bad(inst, "expected 2 operands")
    d, a = inst.operands
    if hip:
        return fe.dst(d, "b32", f"ps_movmatrix_amd({fe.src(a, 'b32', inst)})", inst)
    return _run(fe, inst, [fe.src(a, "b32", inst)], "ps_movmatrix_warp", "ps_ldm_desc",
                "1, 1", lambda w: [fe.dst(d, "b32", w(0), inst)])


# wmma shapes (PTX ISA 9.7.14.4.1): (m, n, k) -> the fragment element types allowed
WMMA_SHAPES = {
    (16, 16, 16): ("f16", "bf16", "s8", "u8"), (32, 8, 16): ("f16", "bf16", "s8", "u8"),
    (8, 32, 16): ("f16", "bf16", "s8", "u8"), (16, 16, 8): ("tf32",), (8, 8, 4): ("f64",),
    (8, 8, 32): ("s4", "u4"),
}


def _wmma_dims(which: str, m: int, n: int, k: int) -> tuple[int, int]:
    return {"a": (m, k), "b": (k, n), "c": (m, n), "d": (m, n)}[which]


# wmma lowered on the hip targets (preludes/mma_amd.h: mma.sync's m16n8k16 per block):
# shapes, A/B element types, and the accumulator types each allows
AMD_WMMA_SHAPES = frozenset(((16, 16, 16), (32, 8, 16), (8, 32, 16)))
AMD_WMMA_ACC = {"f16": ("f16", "f32"), "bf16": ("f32",)}


def _wmma_amd_refuse(fe: Fe, inst: I, shape: str, ty: str) -> None:
    raise fe.unsupported(inst, f"wmma {shape} .{ty} on target {fe.tr.target.name} "
                               "(no AMD lowering of this shape and type)")


def _wmma(fe: Fe, inst: I) -> str:
    hip = _is_hip(fe.tr.target)
    if not hip:
        _cpu_only(fe, inst)
    mods = list(inst.mods)
    if not mods:
        raise fe.unsupported(inst)
    kind = mods[0]
    rest = [x for x in mods[1:] if x not in ("sync", "aligned")]
    shape = next((x for x in rest if _SHAPE.match(x)), None)
    if shape is None:
        raise fe.unsupported(inst, "no shape")
    m, n, k = (int(x) for x in _SHAPE.match(shape).groups())
    if (m, n, k) not in WMMA_SHAPES:
        raise fe.unsupported(inst, f"shape {shape}")
    rest = [x for x in rest if x != shape]
    if kind in ("load", "store"):
        which = rest[0] if rest else ""
        rest = rest[1:]
        layout = next((x for x in rest if x in ("row", "col")), None)
        space = next((x for x in rest if x in ("global", "shared", "shared::cta")), "generic")
        space = "shared" if space.startswith("shared") else space
        ty = rest[-1] if rest else ""
        if (kind == "load" and which not in ("a", "b", "c") or kind == "store" and which != "d"
                or layout is None or ty not in MT
                or set(rest) - {layout, ty, "global", "shared", "shared::cta"}):
            raise fe.unsupported(inst)
        if kind == "load":
            frag, p, *stride = inst.operands
        else:
            p, frag, *stride = inst.operands
        if len(stride) > 1:
            raise fe.bad(inst, "too many operands")
        rows, cols = _wmma_dims(which, m, n, k)
        col_major = layout == "col"
        st = fe.src(stride[0], "u32", inst) if stride else f"{rows if col_major else cols}u"
        bits = 64 if ty == "f64" else 32
        nwords = len(_items(frag)) * (2 if bits == 64 else 1)
        t = fe.new_tmp()
        if hip:
            return _wmma_ldst_amd(fe, inst, kind, which, (m, n, k), shape, ty, frag, p, space,
                                  st, col_major, nwords)
        # (the CPU's phase form stops every thread at each warp instruction's site, cpu/phase.py)
        sync = fe.form.warp_sync(fe, inst) + " " if hasattr(fe.form, "warp_sync") else ""
        fe.context = True  # (ps_laneid)
        if kind == "load":
            code = [f"{sync}{{ uint32_t {t}[{nwords}]; ps_wmma_load(ps_laneid(ctx), {t}, {nwords}u, "
                    f"{MT[ty]}, {rows}u, {cols}u, {fe.addr(p, space, inst)}, {st}, "
                    f"{int(col_major)});"]
            for i, item in enumerate(_items(frag)):
                if bits == 64:
                    code.append(fe.dst(item, "b64", f"((uint64_t){t}[{2 * i}] | "
                                                    f"((uint64_t){t}[{2 * i + 1}] << 32))", inst))
                else:
                    code.append(fe.dst(item, "b32", f"{t}[{i}]", inst))
            return " ".join(code + ["}"])
        words = _words_in(fe, inst, frag, bits)
        return (f"{sync}{{ uint32_t {t}[{nwords}] = {{{', '.join(words)}}}; "
                f"ps_wmma_store(ps_laneid(ctx), {t}, {nwords}u, {MT[ty]}, {rows}u, {cols}u, "
                f"{fe.addr(p, space, inst)}, {st}, {int(col_major)}); }}")
    if kind != "mma":
        raise fe.unsupported(inst)
    if len(rest) < 2 or rest[0] not in ("row", "col") or rest[1] not in ("row", "col"):
        raise fe.unsupported(inst)
    rest = rest[2:]
    sat = "satfinite" in rest
    types = [x for x in rest if x in MT]
    if set(rest) - set(types) - {"satfinite", "rn"}:
        raise fe.unsupported(inst)
    if len(types) == 2:  # f16 inputs: .dtype.ctype
        dt, ct = types
        at = bt = "f16"
    elif len(types) == 4:
        dt, at, bt, ct = types
    else:
        raise fe.unsupported(inst)
    if at not in WMMA_SHAPES[(m, n, k)] or at in ("b1",):
        raise fe.unsupported(inst, f"shape {shape} with .{at}")
    if len(inst.operands) != 4:
        raise fe.bad(inst, "expected 4 operands")
    d, a, b, c = inst.operands
    if hip and ((m, n, k) not in AMD_WMMA_SHAPES or bt != at
                or ct not in AMD_WMMA_ACC.get(at, ()) or dt not in AMD_WMMA_ACC.get(at, ())):
        _wmma_amd_refuse(fe, inst, shape, at)
    bits = 64 if at == "f64" else 32
    ins_a, ins_b = _words_in(fe, inst, a, bits), _words_in(fe, inst, b, bits)
    ins_c = _words_in(fe, inst, c, 64 if ct == "f64" else 32)
    nd = len(_items(d)) * (2 if dt == "f64" else 1)
    ins = ins_a + ins_b + ins_c
    if len(ins) > 32 or nd > 16:
        raise fe.bad(inst, "fragments larger than any wmma shape's")
    if hip:
        return _wmma_mma_amd(fe, inst, (m, n), (dt, at, ct), ins, len(ins_a), len(ins_b), nd, d)
    desc = (f"{m}, {n}, {k}, {MT[at]}, {MT[bt]}, {MT[ct]}, {MT[dt]}, {len(ins_a)}, "
            f"{len(ins_b)}, {len(ins_c)}, {nd}, {int(sat)}")
    return _run(fe, inst, ins, "ps_wmma_mma_warp", "ps_wmma_desc", desc,
                lambda w: _words_out(fe, inst, d, 64 if dt == "f64" else 32, w))


def _wmma_ldst_amd(fe: Fe, inst: I, kind: str, which: str, mnk: tuple[int, int, int],
                   shape: str, ty: str, frag: ir.Operand, p: ir.Operand, space: str, st: str,
                   col_major: bool, nwords: int) -> str:
    """wmma.load / wmma.store on a hip target: this lane's elements of the fragment
    (mma_amd.h's layout: mma.sync's m16n8k16 fragments)"""
    m, n, _ = mnk
    accs = AMD_WMMA_ACC["f16"]
    if mnk not in AMD_WMMA_SHAPES or (ty not in AMD_WMMA_ACC if which in "ab" else ty not in accs):
        _wmma_amd_refuse(fe, inst, shape, ty)
    bits = 32 if ty == "f32" else 16
    # the words the fragment's elements fill (A and B: at most their distinct words)
    need = {"a": m // 4, "b": n // 4}.get(which, m * n * bits // 1024)
    if nwords < need:
        raise fe.bad(inst, f"a {which} fragment of {need} words expected")
    t = fe.new_tmp()
    addr = fe.addr(p, space, inst)
    if kind == "load":
        code = [f"{{ uint32_t {t}[{nwords}]; ps_wmma_load_amd({t}, {nwords}u, "
                f"{'abc'.index(which)}, {bits}u, {m}u, {n}u, {addr}, {st}, {int(col_major)});"]
        code += [fe.dst(item, "b32", f"{t}[{i}]", inst) for i, item in enumerate(_items(frag))]
        return " ".join(code + ["}"])
    words = _words_in(fe, inst, frag, 32)
    return (f"{{ uint32_t {t}[{nwords}] = {{{', '.join(words)}}}; "
            f"ps_wmma_store_amd({t}, {nwords}u, {bits}u, {m}u, {n}u, {addr}, {st}, "
            f"{int(col_major)}); }}")


def _wmma_mma_amd(fe: Fe, inst: I, mn: tuple[int, int], types: tuple[str, str, str],
                  ins: list[str], na: int, nb: int, nd: int, d: ir.Operand) -> str:
    """wmma.mma on a hip target: one ps_mma_amd (m16n8k16) per 16 x 8 block of D"""
    (m, n), (dt, at, ct) = mn, types
    if na < m // 4 or nb < n // 4 or nd != m * n * (16 if dt == "f16" else 32) // 1024:
        raise fe.bad(inst, "fragments of another shape's size")
    t = fe.new_tmp()
    code = [f"{{ uint32_t {t}[{len(ins)}] = {{{', '.join(ins)}}}; uint32_t {t}o[{nd}];",
            f"ps_wmma_mma_amd({t}, {t}o, {_AMD_TY[at]}, {m}u, {n}u, {na}u, {nb}u, "
            f"{int(ct == 'f16')}, {int(dt == 'f16')});"]
    code += _words_out(fe, inst, d, 32, lambda i: f"{t}o[{i}]")
    return " ".join(code + ["}"])


EMIT: dict[str, Callable[[Fe, I], str]] = {
    "mma": _mma, "wmma": _wmma, "ldmatrix": _ldmatrix, "stmatrix": _stmatrix,
    "movmatrix": _movmatrix,
}
