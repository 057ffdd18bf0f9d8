"""Prints the IR back as PTX-like text (for PYSHIM_DUMP_IR and error messages)."""

from __future__ import annotations

from dataclasses import fields

from pyshim.ptx import ir


def format_operand(op: ir.Operand) -> str:
    if isinstance(op, ir.Reg | ir.Sym):
        return op.name
    if isinstance(op, ir.Imm):
        if op.bits:
            return ("0f%08X" if op.kind == "f32" else "0d%016X") % op.value
        return str(op.value)
    if isinstance(op, ir.Addr):
        base = format_operand(op.base) if op.base is not None else ""
        off = f"+{op.offset}" if op.offset and base else (str(op.offset) if not base else "")
        return f"[{base}{off}]"
    if isinstance(op, ir.Vec):
        return "{" + ", ".join(format_operand(i) for i in op.items) + "}"
    if isinstance(op, ir.Args):
        return "(" + ", ".join(format_operand(i) for i in op.items) + ")"
    if isinstance(op, ir.PredPair):
        return f"{op.first.name}|{op.second.name}"
    if isinstance(op, ir.Neg):
        return "!" + op.reg.name
    return repr(op)


def format_instruction(inst: ir.Instruction) -> str:
    guard = f"@{'!' if inst.pred_neg else ''}{inst.pred} " if inst.pred else ""
    name = ".".join((inst.opcode, *inst.mods))
    ops = ", ".join(format_operand(o) for o in inst.operands)
    return f"{guard}{name} {ops};".replace(" ;", ";")


def format_module(m: ir.Module) -> str:
    out = [f".version {m.version}", f".target {', '.join(m.target)}",
           f".address_size {m.address_size}", f"// info: {_short(m.info)}"]
    for v in m.variables:
        out.append(f".{v.space} .{v.type} {v.name}{''.join(f'[{d}]' for d in v.dims)};")
    for f in m.functions:
        kind = ".entry" if f.entry else ".func"
        out.append(f"{kind} {f.name}  // info: {_short(f.info)}")
        for s in f.body or []:
            if isinstance(s, ir.Instruction):
                site = f"  // site {s.site}" if s.site else ""
                out.append(f"\t{format_instruction(s)}{site}")
            elif isinstance(s, ir.Label):
                out.append(f"{s.name}:")
            elif isinstance(s, ir.Var):
                cnt = f"<{s.count}>" if s.count else ""
                out.append(f"\t.{s.space} .{s.type} {s.name}{cnt};")
            elif isinstance(s, ir.Scope):
                out.append("\t{" if s.open else "\t}")
            elif isinstance(s, ir.BranchTargets):
                out.append(f"{s.name}: .branchtargets {', '.join(s.labels)};")
    return "\n".join(out)


def _short(info: ir.ModulePlan | ir.FunctionPlan) -> str:
    items = sorted((f.name, getattr(info, f.name)) for f in fields(info))
    return ", ".join(f"{k}={v!r}"[:80] for k, v in items)
