"""The CPU device's phase form of a kernel body (collectives.Form for phase kernels).

A phase kernel's k{i}_body runs one thread until its next barrier or warp collective: the
thread deposits what it brings in its collective record (`ctx->coll[PS_LINEAR(ctx)]`),
returns the site to the scheduler (targets/cpu/target.py phase_kernel, cpu.h), which completes the
barrier or collective once every thread has arrived, and resumes at `ps_at_<site>` to read
the result. Registers live in the context copy `L->r`, arrays in the per-thread context
(both outlive the return), so `return 0;` leaves the thread.

The form writes templates (isa/records.py) whose points say what region loops
(targets/cpu/regions.py) spell otherwise, so that they render the body instead of reading
its C: the thread's collective record ("@pc"), a shuffle's deposit and result
(SHFL_POINTS), bar.red's resume ("@red:<site>"), besides the registers, the thread's index
("@tid:"), branches, labels, returns, addresses and the warp matrix records ("@w:").
"""

from __future__ import annotations

from pyshim.ptx import ir
from pyshim.ptx.isa import records
from pyshim.ptx.isa.collectives import Form, elected
from pyshim.ptx.isa.emitter import SPECIAL
from pyshim.ptx.targets.base import REGION_MARK
from pyshim.ptx.types import C_TYPE

# this thread's collective record: a point the naming spells (a phase kernel's
# `ctx->coll[PS_LINEAR(ctx)]`, a region loop's `coll[ps_i]`)
PC = records.point("@pc")
THREAD_RECORD = "ctx->coll[PS_LINEAR(ctx)]"
# the warp collectives this form (and cpu.h's ps_phase_collectives) completes; a kernel with
# any other collective (mbarrier) runs as fibers
PHASE_COLLECTIVES = frozenset(("shfl", "vote", "activemask", "match", "redux", "elect",
                               "mma", "wmma", "ldmatrix", "stmatrix", "movmatrix"))
# the warp matrix instructions among them: whole-warp functions (preludes/mma.h); a thread
# deposits its registers in the block's records (PS_WIN, mma_cpu.h) and its call site
WARP_FNS = frozenset(("mma", "wmma", "ldmatrix", "stmatrix", "movmatrix"))
VOTE_OPS = {"all": 0, "any": 1, "uni": 2, "ballot": 3}


# a shuffle's points (PhaseForm.shfl), each "<kind>:<site>": in its deposit, the call that
# finds the source lane (its opening, up to the mode) and the openings of the statements
# storing the value ("@dval" ... "@dend", the value between), the source lane and whether
# it is in range; as the thread resumes, its result and that range check
SHFL_POINTS = frozenset(("@dlane", "@dval", "@dend", "@dsrc", "@dok", "@sres", "@sok"))


def shfl_point(kind: str, record: str) -> str:
    """A shuffle's point `kind` where the thread's collective record is `record`."""
    return {"@dlane": "ps_shfl_lane(ctx, ", "@dval": f"{record}.val = ", "@dend": ";",
            "@dsrc": f"{record}.src = ", "@dok": f"{record}.valid = ",
            "@sres": f"(uint32_t){record}.res", "@sok": f"({record}.valid != 0)"}[kind]


def _as_is(fe, op: ir.Operand, inst: ir.Instruction) -> str | None:
    """The C name of register `op` when its 32-bit read is the register as it stands (no
    conversion, not a special register), else None."""
    if (type(op) is not ir.Reg or op.name in SPECIAL
            or op.name.startswith("%reserved_smem_offset")):
        return None
    return fe.creg(op.name) if C_TYPE[fe.reg_type(op.name, inst)] == C_TYPE["u32"] else None


def _yield(inst: ir.Instruction, deposit: str) -> str:
    """Record what this thread brings to the collective, stop; resume here (the point's
    spelling: PhaseNaming; region loops complete it after the region instead)."""
    return f"{{ {deposit} " + records.point(f"@coll:{inst.site}")


def _ballot(inst: ir.Instruction, pred: str) -> str:
    return _yield(inst, f"{PC}.val = ({pred}) != 0; {PC}.src = PS_COLL_BALLOT;")


def _ballot_halves(fe) -> tuple[str, str]:
    """The ballot's and the active lanes' halves for this thread's warp (ps_half reads its
    context, as the thread resumes)."""
    fe.context = True
    return (f"(uint32_t)({PC}.res >> ps_half(ctx))", f"(uint32_t)({PC}.act >> ps_half(ctx))")


class PhaseNaming(records.Naming):
    """A phase kernel's spelling of its body: registers in the context copy `L->r` (those in
    `local`, live at no resume point, as locals), each synchronisation point a return to the
    scheduler and the label it resumes at."""

    def __init__(self, local: frozenset[str] | set[str] = frozenset(), resume: str = "") -> None:
        self.local = local
        self.resume = resume

    def reg(self, name: str) -> str:
        return name if name in self.local else "L->r." + name

    def point(self, what: str) -> str:
        kind, _, arg = what.partition(":")
        if kind == "@pc":
            return THREAD_RECORD
        if kind == "@bar":
            return f"{{ return {arg}u; }} ps_at_{arg}: ;"
        if kind == "@coll":
            return f"return {arg}u | PS_PHASE_COLL; }} ps_at_{arg}: ;"
        if kind == "@red":  # bar.red's barrier, which reduces its deposits (bar_red)
            return f"return {arg}u; }} ps_at_{arg}: ;"
        if kind in SHFL_POINTS:  # a shuffle's deposit and result, in the thread's record
            return shfl_point(kind, THREAD_RECORD)
        if kind == "@tid":
            return f"PS_{arg}(ctx)"
        if kind == "@goto":
            return f"goto {arg};"
        if kind == "@l":
            return arg
        if kind == "@region":
            return REGION_MARK
        if kind == "@resume":
            return self.resume
        if kind == "@ret":
            return "return 0;"
        if kind == "@addr":  # the address in a register
            return "(uint8_t *)(uintptr_t)" + self.reg(arg)
        if kind == "@w":  # a warp matrix instruction's records (warp_fn)
            what, _, row = arg.partition(":")
            return ("PS_WADDR(ctx, PS_LINEAR(ctx))" if what == "addr"
                    else f"PS_W{what.upper()}(ctx, PS_LINEAR(ctx), {row})")
        return super().point(what)


class PhaseForm(Form):
    phase = True
    # the thread leaves the kernel (PhaseNaming: back to the scheduler; region loops: the
    # region's exit), a point so that a body's returns are all known to its records
    ret_stmt = records.point("@ret")

    def reg(self, cname: str) -> str:
        return records.reg(cname)

    def thread_index(self, which: str) -> str:
        return records.point(f"@tid:{which}")  # (a SIMD region loop's loop variables)

    def goto(self, label: str) -> str:
        return records.point(f"@goto:{label}")  # (region loops redirect it)

    def label(self, label: str) -> str:
        return records.point(f"@l:{label}")  # (region loops' copies rename it)

    def address(self, fe, val: str, name: str) -> str:
        cname = fe.creg(name)
        if val == records.reg(cname):  # (SIMD region loops may spell it base + offset)
            return records.point(f"@addr:{cname}")
        return super().address(fe, val, name)

    def __init__(self) -> None:
        # arrays of the per-thread context: name -> (size, alignment), the largest of the
        # scopes that declare it
        self.array_sizes: dict[str, tuple[int, int]] = {}
        # the whole-warp functions (mma.h) the body calls (warp_fn): the block then keeps
        # the warp matrix records (mma_cpu.h)
        self.warp_fns: set[str] = set()
        # their call sites: a region loop closed by one completes it by mma_cpu.h's
        # ps_phase_warpfns (no other collective can wait there)
        self.warp_sites: set[int] = set()

    def local_array(self, fe, v: ir.Var, size: int, align: int) -> str:
        fe.phase_arrays.add(v.name)
        old = self.array_sizes.get(v.name, (0, 1))
        self.array_sizes[v.name] = (max(old[0], size), max(old[1], align))
        return ""

    def bar_warp(self, fe, inst: ir.Instruction) -> str:
        return _ballot(inst, "1")

    def bar_sync(self, fe, inst: ir.Instruction, ops: list[ir.Operand]) -> str:
        if len(ops) != 1:
            return super().bar_sync(fe, inst, ops)
        # save the registers, report this barrier, resume here next phase
        return records.point(f"@bar:{inst.site}")

    def bar_red(self, fe, inst: ir.Instruction, op: int, ty: str, ops: list[ir.Operand],
                p: str) -> str:
        if len(ops) != 3:
            return super().bar_red(fe, inst, op, ty, ops, p)
        # a barrier whose release also reduces the predicates (cpu.h)
        result = [f"(uint32_t){PC}.res", f"(({PC}.act & 1u) != 0)",
                  f"(({PC}.act & 2u) != 0)"][op]
        return (f"{{ {PC}.val = ({p}) != 0; {PC}.src = PS_COLL_BARRED; "
                + records.point(f"@red:{inst.site}") + f" {PC}.src = 0; "
                + fe.dst(ops[0], ty, result, inst))

    def shfl(self, fe, inst: ir.Instruction, mode: int, ops: list[ir.Operand],
             dd: ir.Operand, p: ir.Operand | None) -> str:
        a, b, c = (fe.src(o, "u32", inst) for o in ops[1:4])
        t, v = fe.new_tmp(), fe.new_tmp()
        fe.deposit = _as_is(fe, ops[1], inst)  # (region loops may read its own array)
        pt = {x: records.point(f"{x}:{inst.site}") for x in SHFL_POINTS}
        code = [_yield(inst, f"bool {v} = 0; uint32_t {t} = {pt['@dlane']}{mode}, {b}, {c}, "
                             f"&{v}); {pt['@dval']}{a}{pt['@dend']} {pt['@dsrc']}{t}; "
                             f"{pt['@dok']}{v};"),
                fe.dst(dd, "b32", pt["@sres"], inst)]
        if p is not None:
            code.append(fe.dst(p, "pred", pt["@sok"], inst))
        return " ".join(code)

    def vote(self, fe, inst: ir.Instruction, mods: list[str], d: ir.Operand, p: str,
             mask: str) -> str | None:
        if not mods or mods[0] not in VOTE_OPS:
            return super().vote(fe, inst, mods, d, p, mask)
        yes, act = _ballot_halves(fe)
        ty = "b32" if mods[0] == "ballot" else "pred"
        if mods != [mods[0], "b32" if ty == "b32" else "pred"]:
            raise fe.unsupported(inst)
        return (_ballot(inst, p) + " "
                + fe.dst(d, ty, f"ps_vote_result({VOTE_OPS[mods[0]]}, {yes}, {act}, "
                                f"{mask})", inst))

    def activemask(self, fe, inst: ir.Instruction, d: ir.Operand) -> str:
        _, act = _ballot_halves(fe)
        return _ballot(inst, "1") + " " + fe.dst(d, "b32", act, inst)

    def elect(self, fe, inst: ir.Instruction, d: ir.Operand, p: ir.Operand | None,
              mask: str) -> str:
        _, act = _ballot_halves(fe)
        return _ballot(inst, "1") + " " + elected(fe, inst, d, p, act, mask)

    def match(self, fe, inst: ir.Instruction, mods: list[str], d: ir.Operand, a: ir.Operand,
              m: str) -> str | None:
        if mods not in (["any", "b32"], ["any", "b64"], ["all", "b32"], ["all", "b64"]):
            return super().match(fe, inst, mods, d, a, m)
        val = fe.src(a, "u64" if mods[1] == "b64" else "u32", inst)
        code = [_yield(inst, f"{PC}.val = (uint64_t){val}; {PC}.src = PS_COLL_MATCH;")]
        fe.context = True  # (ps_half)
        eq = f"((uint32_t)({PC}.res >> ps_half(ctx)) & {m})"
        if mods[0] == "any":
            return " ".join(code + [fe.dst(d, "b32", eq, inst)])
        dd, p = (d.first, d.second) if isinstance(d, ir.PredPair) else (d, None)
        act = f"((uint32_t)({PC}.act >> ps_half(ctx)) & {m})"
        t = fe.new_tmp()
        code += [f"{{ bool {t} = {eq} == {act};", fe.dst(dd, "b32", f"({t} ? {eq} : 0u)", inst)]
        if p is not None:
            code.append(fe.dst(p, "pred", t, inst))
        return " ".join(code + ["}"])

    def warp_fn(self, fe, inst: ir.Instruction, ins: list[str], fn: str, desc_type: str,
                desc: str, outs, addr: str | None) -> str:
        """A whole-warp function of mma.h (isa/tensor.py _run): the thread's input registers
        and address into the block's records, the call site into its collective record; the
        scheduler runs `fn` once per warp (cpu.h ps_phase_collectives); the outputs read back
        from the records when the thread resumes."""
        self.warp_fns.add(fn)
        self.warp_sites.add(inst.site)
        t = fe.new_tmp()
        dep = [f"{records.point(f'@w:in:{i}')} = {w};" for i, w in enumerate(ins)]
        if addr is not None:
            dep.append(f"{records.point('@w:addr')} = (uint8_t *)({addr});")
        dep += [f"static const {desc_type} {t}d = {{{desc}}};",
                f"static const ps_wcall {t}c = {{{fn}_phase, &{t}d}};",
                f"{PC}.val = (uint64_t)(uintptr_t)&{t}c; {PC}.src = PS_COLL_WARPFN;"]
        # output word i: the thread's row i of the block's records
        got = " ".join(outs(lambda i: records.point(f"@w:out:{i}")))
        return _yield(inst, " ".join(dep)) + (" " + got if got else "")

    def warp_sync(self, fe, inst: ir.Instruction) -> str:
        """A warp instruction that needs no other lane (wmma.load / wmma.store) still stops
        at its site: every site of a phase kernel is a resume point."""
        return _ballot(inst, "1")

    def redux(self, fe, inst: ir.Instruction, op: int, signed: int, d: ir.Operand,
              a: ir.Operand, mask: ir.Operand) -> str:
        # mask: the lanes that take part are the ones that arrive
        kind = 2 * op + signed
        return (_yield(inst, f"{PC}.val = {fe.src(a, 'u32', inst)}; "
                             f"{PC}.src = PS_COLL_REDUX + {kind}u;") + " "
                + fe.dst(d, "u32", f"(uint32_t){PC}.res", inst))
