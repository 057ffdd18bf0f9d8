"""Texture and surface instructions (PTX ISA 9.7.10): tex, tld4, txq, suld.b, sust.b, suq on
the CPU device, over the pyshim_image a texture or surface handle points to (the sampling
in preludes/texture_cpu.h). The parser gives the image operand as two: the handle and the
coordinate vector. Other targets refuse them by name."""

from __future__ import annotations

from pyshim.ptx import ir
from pyshim.ptx.isa.emitter import FunctionEmitter

Fe = FunctionEmitter
I = ir.Instruction  # noqa: E741

OPCODES = frozenset(("tex", "tld4", "txq", "suld", "sust", "suq"))
_DIMS = {"1d": 1, "2d": 2, "3d": 3}
_SURF_MODE = {"trap": 0, "clamp": 1, "zero": 2}
_QUERY = {"width": 0, "height": 1, "depth": 2}
_BYTES = {"b8": 1, "b16": 2, "b32": 4, "b64": 8}


def uses(module: ir.Module) -> bool:
    return any(type(s) is ir.Instruction and s.opcode in OPCODES
               for f in module.functions for s in f.body or ())


def prelude(target) -> str:
    from pyshim.ptx.targets.base import prelude_text

    return "/* ---- texture_cpu.h ---- */\n" + prelude_text("texture_cpu.h")


def _cpu(fe: Fe, inst: I) -> None:
    if not fe.tr.target.name.startswith("cpu"):
        raise fe.unsupported(inst, f"texture and surface instructions on target {fe.tr.target.name}")


def _items(fe: Fe, inst: I, op: ir.Operand, n: int) -> list:
    if type(op) is not ir.Vec or len(op.items) < n:
        raise fe.bad(inst, f"expected a vector of at least {n} elements")
    return list(op.items)


def _handle(fe: Fe, inst: I, op: ir.Operand) -> str:
    if type(op) is not ir.Reg:
        raise fe.unsupported(inst, "texture references (only texture objects in a register)")
    return fe.src(op, "b64", inst)


def _store4(fe: Fe, inst: I, dst: ir.Operand, ty: str, call: str) -> str:
    t = fe.new_tmp()
    outs = _items(fe, inst, dst, 4)
    cty = "u32" if ty == "f32" else ty
    parts = [f"ps_v4 {t} = {call};"]
    for k, d in enumerate(outs):
        if type(d) is ir.Sym and d.name == "_":
            continue
        expr = f"ps_bitsf({t}.w[{k}])" if ty == "f32" else f"{t}.w[{k}]"
        parts.append(fe.dst(d, ty if ty == "f32" else cty, expr, inst))
    return "{ " + " ".join(parts) + " }"


def _tex_layered(fe: Fe, inst: I) -> str:
    """tex.a1d / tex.a2d (layer index first, an s32) and tex.cube (a direction), float
    coordinates."""
    mods = list(inst.mods)
    if len(mods) != 4 or mods[1] != "v4" or mods[2] not in ("f32", "s32", "u32") or \
            mods[3] != "f32" or len(inst.operands) != 3:
        raise fe.unsupported(inst)
    d, h, c = inst.operands
    hd = _handle(fe, inst, h)
    if mods[0] == "cube":
        xyz = [fe.src(v, "f32", inst) for v in _items(fe, inst, c, 3)[:3]]
        return _store4(fe, inst, d, mods[2], f"ps_tex_cube({hd}, {', '.join(xyz)})")
    dims = 1 if mods[0] == "a1d" else 2
    items = _items(fe, inst, c, dims + 1)
    layer = fe.src(items[0], "s32", inst)
    x = fe.src(items[1], "f32", inst)
    y = fe.src(items[2], "f32", inst) if dims == 2 else "0.0f"
    return _store4(fe, inst, d, mods[2], f"ps_tex_layer({hd}, {dims}, {layer}, {x}, {y})")


def _tex_mip(fe: Fe, inst: I, lod: str) -> str:
    """tex.level.geom.v4.dtype.f32 d, [h, {c}], lod and tex.grad.geom.v4.dtype.f32 d,
    [h, {c}], {dPdx}, {dPdy} (geom 1d/2d/3d): a mipmapped texture at an explicit level of
    detail or the one the derivatives give."""
    mods = list(inst.mods)[1:]
    if len(mods) != 4 or mods[0] not in _DIMS or mods[1] != "v4" or \
            mods[2] not in ("f32", "s32", "u32") or mods[3] != "f32" or \
            len(inst.operands) != (4 if lod == "level" else 5):
        raise fe.unsupported(inst)
    dims = _DIMS[mods[0]]
    d, h, c = inst.operands[:3]
    coords = _items(fe, inst, c, dims)
    xs = [fe.src(coords[k], "f32", inst) if k < dims else "0.0f" for k in range(3)]
    hd = _handle(fe, inst, h)
    if lod == "level":
        call = f"ps_tex_lod({hd}, {', '.join(xs)}, {fe.src(inst.operands[3], 'f32', inst)})"
    else:
        grads = []
        for g in inst.operands[3:]:
            items = _items(fe, inst, g, dims)
            grads += [fe.src(items[k], "f32", inst) if k < dims else "0.0f" for k in range(3)]
        call = f"ps_tex_grad({hd}, {dims}, {', '.join(xs)}, {', '.join(grads)})"
    return _store4(fe, inst, d, mods[2], call)


def tex(fe: Fe, inst: I) -> str:
    """tex{.base}.geom.v4.dtype.ctype d, [h, {c}]: geom 1d/2d/3d, dtype f32/s32/u32, ctype
    f32/s32 (.base: level 0 of a mipmapped texture, as without it); .level and .grad in
    _tex_mip."""
    _cpu(fe, inst)
    mods = list(inst.mods)
    if mods[:1] in (["level"], ["grad"]):
        return _tex_mip(fe, inst, mods[0])
    if mods[:1] == ["base"]:
        mods = mods[1:]
    if mods[:1] in (["a1d"], ["a2d"], ["cube"]):
        if mods != list(inst.mods):
            raise fe.unsupported(inst)
        return _tex_layered(fe, inst)
    if len(mods) != 4 or mods[0] not in _DIMS or mods[1] != "v4" or \
            mods[2] not in ("f32", "s32", "u32") or mods[3] not in ("f32", "s32"):
        raise fe.unsupported(inst)
    if len(inst.operands) != 3:
        raise fe.unsupported(inst, "only tex d, [handle, {coordinates}]")
    dims = _DIMS[mods[0]]
    d, h, c = inst.operands
    coords = _items(fe, inst, c, dims)
    ctype = mods[3]
    xs = [fe.src(coords[k], ctype, inst) if k < dims else ("0.0f" if ctype == "f32" else "0")
          for k in range(3)]
    fn = "ps_tex" if ctype == "f32" else "ps_tex_i"
    return _store4(fe, inst, d, mods[2], f"{fn}({_handle(fe, inst, h)}, {', '.join(xs)})")


def tld4(fe: Fe, inst: I) -> str:
    """tld4.comp.2d.v4.dtype.f32 d, [h, {x, y}]."""
    _cpu(fe, inst)
    mods = list(inst.mods)
    if len(mods) != 5 or mods[0] not in "rgba" or mods[1] != "2d" or mods[2] != "v4" or \
            mods[3] not in ("f32", "s32", "u32") or mods[4] != "f32" or len(inst.operands) != 3:
        raise fe.unsupported(inst)
    d, h, c = inst.operands
    xy = _items(fe, inst, c, 2)
    comp = "rgba".index(mods[0])
    call = (f"ps_tld4({_handle(fe, inst, h)}, {comp}, {fe.src(xy[0], 'f32', inst)}, "
            f"{fe.src(xy[1], 'f32', inst)})")
    return _store4(fe, inst, d, mods[3], call)


def _query(fe: Fe, inst: I) -> str:
    _cpu(fe, inst)
    mods = list(inst.mods)
    if len(mods) != 2 or mods[0] not in _QUERY or mods[1] != "b32" or len(inst.operands) != 2:
        raise fe.unsupported(inst)
    d, h = inst.operands
    return fe.dst(d, "b32", f"ps_image_query({_handle(fe, inst, h)}, {_QUERY[mods[0]]})", inst)


txq = _query
suq = _query


def _surf_form(fe: Fe, inst: I) -> tuple[int, int, str, int]:
    """dims, vector width, element type, out-of-range mode of suld.b / sust.b."""
    mods = list(inst.mods)
    if not mods or mods[0] != "b":
        raise fe.unsupported(inst, "only the unformatted .b forms")
    mods = mods[1:]
    mode = 0
    if mods and mods[-1] in _SURF_MODE:
        mode = _SURF_MODE[mods.pop()]
    if mods and mods[0] in _DIMS:
        dims = _DIMS[mods.pop(0)]
    else:
        raise fe.unsupported(inst)
    vec = 1
    if mods and mods[0] in ("v2", "v4"):
        vec = int(mods.pop(0)[1])
    if len(mods) != 1 or mods[0] not in _BYTES:
        raise fe.unsupported(inst)
    return dims, vec, mods[0], mode


def _surf_addr(fe: Fe, inst: I, h: ir.Operand, c: ir.Operand, dims: int, nbytes: int,
               mode: int) -> str:
    coords = _items(fe, inst, c, dims)
    xs = [fe.src(coords[k], "s32", inst) if k < dims else "0" for k in range(3)]
    return f"ps_surf_at({_handle(fe, inst, h)}, {mode}, {nbytes}u, {', '.join(xs)})"


def suld(fe: Fe, inst: I) -> str:
    _cpu(fe, inst)
    dims, vec, ty, mode = _surf_form(fe, inst)
    if len(inst.operands) != 3:
        raise fe.unsupported(inst)
    d, h, c = inst.operands
    size = _BYTES[ty]
    outs = _items(fe, inst, d, vec) if type(d) is ir.Vec else [d]
    p = fe.new_tmp()
    cty = {1: "uint8_t", 2: "uint16_t", 4: "uint32_t", 8: "uint64_t"}[size]
    parts = [f"char *{p} = {_surf_addr(fe, inst, h, c, dims, size * vec, mode)};"]
    for k, o in enumerate(outs):
        v = fe.new_tmp()
        parts.append(f"{cty} {v} = 0; if ({p} != NULL) memcpy(&{v}, {p} + {k * size}, {size});")
        parts.append(fe.dst(o, ty if size > 1 else "b16", v, inst))
    return "{ " + " ".join(parts) + " }"


def sust(fe: Fe, inst: I) -> str:
    _cpu(fe, inst)
    dims, vec, ty, mode = _surf_form(fe, inst)
    if len(inst.operands) != 3:
        raise fe.unsupported(inst)
    h, c, vals = inst.operands
    size = _BYTES[ty]
    ins = _items(fe, inst, vals, vec) if type(vals) is ir.Vec else [vals]
    if len(ins) != vec:
        raise fe.bad(inst, f"expected {vec} values")
    p = fe.new_tmp()
    cty = {1: "uint8_t", 2: "uint16_t", 4: "uint32_t", 8: "uint64_t"}[size]
    parts = [f"char *{p} = {_surf_addr(fe, inst, h, c, dims, size * vec, mode)};",
             f"if ({p} != NULL) {{"]
    for k, o in enumerate(ins):
        v = fe.new_tmp()
        parts.append(f"{cty} {v} = ({cty}){fe.src(o, ty if size > 1 else 'b16', inst)}; "
                     f"memcpy({p} + {k * size}, &{v}, {size});")
    parts.append("}")
    return "{ " + " ".join(parts) + " }"


EMIT = {"tex": tex, "tld4": tld4, "txq": txq, "suld": suld, "sust": sust, "suq": suq}
