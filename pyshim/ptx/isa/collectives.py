"""How a function body spells its synchronisation: the `Form` a target hands the emitter.

The instruction handlers (instructions.py) check an instruction and read its operands, then
call the form for the part that depends on how the target runs the function's threads:

- `Form` (every GPU target, and CPU kernels that are thread loops or fibers): a collective
  is one call of the intrinsic layer's wave primitive (`ps_shfl(ctx, site, ...)`, warp.h),
  a barrier `ps_bar_sync`, `return;` leaves the function, locals are C arrays;
- `targets/cpu_phase.PhaseForm` (CPU phase kernels): a thread deposits what it brings to a
  collective or barrier in its record, returns the site to the scheduler and resumes after
  it; registers and arrays live in the per-thread context.

A new warp collective: a handler that validates and reads operands, a method here that
emits the wave primitive's call, the primitive in preludes/warp.h (on top of each target's
wavefront primitives), and, where the CPU's phase scheduler can complete it, an override
in PhaseForm.
"""

from __future__ import annotations

from pyshim.ptx import ir


class Form:
    phase = False        # registers in a per-thread context, resumed after each sync site
    ret_stmt = "return;"

    def reg(self, cname: str) -> str:
        """How the body spells register `cname`: itself (a local of the function)."""
        return cname

    def thread_index(self, which: str) -> str:
        """How the body spells the thread's index `which` (TID_X, TID_Y, TID_Z, LINEAR)."""
        return f"PS_{which}(ctx)"

    def goto(self, label: str) -> str:
        """How the body spells a branch to label `label` (a C name)."""
        return f"goto {label};"

    def label(self, label: str) -> str:
        """How the body spells label `label` (a C name) where it is defined."""
        return label

    def address(self, fe, val: str, name: str) -> str:
        """How the body spells the address in register `name` (PTX name), read as `val`."""
        return f"(uint8_t *)(uintptr_t){val}"

    def local_array(self, fe, v: ir.Var, size: int, align: int) -> str:
        return f"PS_ALIGN({align}) uint8_t {fe.var_cname(v)}[{size}];"

    # ---- barriers (9.7.13.1) ----
    def bar_warp(self, fe, inst: ir.Instruction) -> str:
        return f"(void)ps_wave_ballot(ctx, {inst.site}u, 1);"

    def bar_sync(self, fe, inst: ir.Instruction, ops: list[ir.Operand]) -> str:
        cnt = fe.src(ops[1], "u32", inst) if len(ops) == 2 else "0u"
        return f"ps_bar_sync(ctx, {fe.src(ops[0], 'u32', inst)}, {cnt});"

    def bar_red(self, fe, inst: ir.Instruction, op: int, ty: str, ops: list[ir.Operand],
                p: str) -> str:
        cnt = fe.src(ops[2], "u32", inst) if len(ops) == 4 else "0u"
        return fe.dst(ops[0], ty, f"ps_bar_red(ctx, {fe.src(ops[1], 'u32', inst)}, {cnt}, "
                                  f"{op}, {p})", inst)

    # ---- warp collectives (9.7.8.6, 9.7.13.x) ----
    def shfl(self, fe, inst: ir.Instruction, mode: int, ops: list[ir.Operand],
             dd: ir.Operand, p: ir.Operand | None) -> str:
        args = ", ".join(fe.src(o, "u32", inst) for o in ops[1:4])
        t, v = fe.new_tmp(), fe.new_tmp()
        call = (f"ps_shfl(ctx, {inst.site}u, {mode}, {args}, "
                f"{'&' + v if p is not None else 'NULL'})")
        out = [f"{{ bool {v} = 0; uint32_t {t} = {call};", fe.dst(dd, "b32", t, inst)]
        if p is not None:
            out.append(fe.dst(p, "pred", v, inst))
        out.append("(void)" + v + "; }")
        return " ".join(out)

    def vote(self, fe, inst: ir.Instruction, mods: list[str], d: ir.Operand, p: str,
             mask: str) -> str | None:
        if mods == ["ballot", "b32"]:
            return fe.dst(d, "b32", f"ps_vote_ballot(ctx, {inst.site}u, {p}, {mask})", inst)
        if len(mods) == 2 and mods[0] in ("all", "any", "uni") and mods[1] == "pred":
            return fe.dst(d, "pred", f"ps_vote_{mods[0]}(ctx, {inst.site}u, {p}, {mask})",
                          inst)
        return None

    def activemask(self, fe, inst: ir.Instruction, d: ir.Operand) -> str:
        return fe.dst(d, "b32", f"ps_activemask(ctx, {inst.site}u)", inst)

    def elect(self, fe, inst: ir.Instruction, d: ir.Operand, p: ir.Operand | None,
              mask: str) -> str:
        return elected(fe, inst, d, p, f"ps_activemask(ctx, {inst.site}u)", mask)

    def match(self, fe, inst: ir.Instruction, mods: list[str], d: ir.Operand, a: ir.Operand,
              m: str) -> str | None:
        if mods == ["any", "b32"]:
            return fe.dst(d, "b32", f"ps_match_any32(ctx, {inst.site}u, "
                                    f"{fe.src(a, 'u32', inst)}, {m})", inst)
        if mods == ["any", "b64"]:
            return fe.dst(d, "b32", f"ps_match_any64(ctx, {inst.site}u, "
                                    f"{fe.src(a, 'u64', inst)}, {m})", inst)
        if mods == ["all", "b32"]:
            dd, p = (d.first, d.second) if isinstance(d, ir.PredPair) else (d, None)
            v, t = fe.new_tmp(), fe.new_tmp()
            out = [f"{{ bool {v} = 0; uint32_t {t} = ps_match_all32(ctx, {inst.site}u, "
                   f"{fe.src(a, 'u32', inst)}, {m}, &{v});", fe.dst(dd, "b32", t, inst)]
            if p is not None:
                out.append(fe.dst(p, "pred", v, inst))
            out.append(f"(void){v}; }}")
            return " ".join(out)
        return None

    def redux(self, fe, inst: ir.Instruction, op: int, signed: int, d: ir.Operand,
              a: ir.Operand, mask: ir.Operand) -> str:
        return fe.dst(d, "u32", f"ps_redux32(ctx, {inst.site}u, {op}, {signed}, "
                                f"{fe.src(a, 'u32', inst)}, {fe.src(mask, 'u32', inst)})", inst)


def elected(fe, inst: ir.Instruction, d: ir.Operand, p: ir.Operand | None, active: str,
            mask: str) -> str:
    """elect.sync's results from `active`, the warp's active lanes: the lowest of them in
    `mask` is the leader."""
    t = fe.new_tmp()
    out = [f"{{ uint32_t {t} = {active} & {mask};",
           f"{t} = {t} ? 31u - ps_clz32({t} & (0u - {t})) : 0u;", fe.dst(d, "b32", t, inst)]
    if p is not None:
        out.append(fe.dst(p, "pred", f"(ps_laneid(ctx) == {t})", inst))
    out.append("}")
    return " ".join(out)
