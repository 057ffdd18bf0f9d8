"""Per-function emission state: registers, variables in scope, operand and address reads.

Instruction emission itself lives in `instructions.py`; this class turns operands into C
expressions of an exact type and writes results back with PTX's conversion rules.
"""

from __future__ import annotations

import math
import re
import struct

from pyshim.ptx import ir
from pyshim.ptx.analysis import pointer_regs
from pyshim.ptx.errors import PtxError, UnsupportedInstruction
from pyshim.ptx.isa.collectives import Form
from pyshim.ptx.types import C_TYPE, FLOAT, SIZE

_RANGE = re.compile(r"(.*?)(\d+)$")

# special register -> (C expression over ctx, PTX type)
SPECIAL: dict[str, tuple[str, str]] = {
    "%tid.x": ("PS_TID_X(ctx)", "u32"), "%tid.y": ("PS_TID_Y(ctx)", "u32"),
    "%tid.z": ("PS_TID_Z(ctx)", "u32"),
    "%ntid.x": ("PS_NTID_X(ctx)", "u32"), "%ntid.y": ("PS_NTID_Y(ctx)", "u32"),
    "%ntid.z": ("PS_NTID_Z(ctx)", "u32"),
    "%ctaid.x": ("PS_CTAID_X(ctx)", "u32"), "%ctaid.y": ("PS_CTAID_Y(ctx)", "u32"),
    "%ctaid.z": ("PS_CTAID_Z(ctx)", "u32"),
    "%nctaid.x": ("PS_NCTAID_X(ctx)", "u32"), "%nctaid.y": ("PS_NCTAID_Y(ctx)", "u32"),
    "%nctaid.z": ("PS_NCTAID_Z(ctx)", "u32"),
    "%laneid": ("ps_laneid(ctx)", "u32"),
    "%warpid": ("(PS_LINEAR(ctx) >> 5)", "u32"),
    "%nwarpid": ("((PS_NTHREADS(ctx) + 31u) >> 5)", "u32"),
    "%smid": ("PS_SMID(ctx)", "u32"), "%nsmid": ("PS_NSMID(ctx)", "u32"),
    "%gridid": ("((uint64_t)0)", "u64"),
    "%clock": ("((uint32_t)ps_clock64())", "u32"),
    "%clock_hi": ("((uint32_t)(ps_clock64() >> 32))", "u32"),
    "%clock64": ("ps_clock64()", "u64"),
    "%globaltimer": ("ps_globaltimer(ctx)", "u64"),
    "%globaltimer_lo": ("((uint32_t)ps_globaltimer(ctx))", "u32"),
    "%globaltimer_hi": ("((uint32_t)(ps_globaltimer(ctx) >> 32))", "u32"),
    "%lanemask_eq": ("(1u << ps_laneid(ctx))", "u32"),
    "%lanemask_lt": ("((1u << ps_laneid(ctx)) - 1u)", "u32"),
    "%lanemask_le": ("((2u << ps_laneid(ctx)) - 1u)", "u32"),
    "%lanemask_gt": ("(~((2u << ps_laneid(ctx)) - 1u))", "u32"),
    "%lanemask_ge": ("(~((1u << ps_laneid(ctx)) - 1u))", "u32"),
    "%dynamic_smem_size": ("PS_DYN_SMEM(ctx)", "u32"),
    "%total_smem_size": ("((uint32_t)PS_DYN_OFF(ctx) + PS_DYN_SMEM(ctx))", "u32"),
}
# the special registers that are the thread's index, spelled by the form (a region loop's
# SIMD loop has them in its loop variables): register -> (the index, how it is used)
THREAD_INDEX: dict[str, tuple[str, str]] = {
    "%tid.x": ("TID_X", "{}"), "%tid.y": ("TID_Y", "{}"), "%tid.z": ("TID_Z", "{}"),
    "%warpid": ("LINEAR", "({} >> 5)"),
}
for _i in range(32):
    SPECIAL[f"%envreg{_i}"] = ("0u", "u32")
# cooperative_groups' grid sync finds its workspace here (high, low 32 bits of a pointer):
# the launch supplies it for a cooperative launch, 0 otherwise (grid.sync() then traps)
SPECIAL["%envreg1"] = ("PS_ENVREG1(ctx)", "u32")
SPECIAL["%envreg2"] = ("PS_ENVREG2(ctx)", "u32")
for _i in range(8):
    SPECIAL[f"%pm{_i}"] = ("0u", "u32")
    SPECIAL[f"%pm{_i}_64"] = ("((uint64_t)0)", "u64")
# the special registers that are the same for every thread of the block
UNIFORM_SPECIAL = frozenset(f"%{r}.{d}" for r in ("ctaid", "nctaid", "ntid") for d in "xyz")
# the others that SPECIAL reads from the thread's context (an instruction reading one sets
# fe.context; the thread's index is the form's, THREAD_INDEX)
CONTEXT_SPECIAL = frozenset(n for n, (c, _) in SPECIAL.items()
                            if "ctx" in c and n not in UNIFORM_SPECIAL and n not in THREAD_INDEX)


# predefined identifiers (PTX ISA 5.4.3.2) other than special registers
PREDEFINED: dict[str, tuple[str, str]] = {
    "WARP_SZ": ("((uint32_t)32u)", "u32"),  # CUDA's warp size, whatever the wavefront
}


# C names and range splits by register spelling: asked for tens of thousands of times per
# kernel, for a few hundred distinct registers (bounded: a long-lived translator worker
# meets the same %r1..%rN in every module)
_CNAMES: dict[str, str] = {}
_SPLITS: dict[str, tuple[str, int] | None] = {}
_MEMO_MAX = 1 << 16


def cname_reg(name: str) -> str:
    c = _CNAMES.get(name)
    if c is None:
        c = "r_" + name.lstrip("%")
        if len(_CNAMES) < _MEMO_MAX:
            _CNAMES[name] = c
    return c


def _range_split(name: str) -> tuple[str, int] | None:
    """("%r", 12) for "%r12": the range a register name would belong to."""
    try:
        return _SPLITS[name]
    except KeyError:
        pass
    m = _RANGE.match(name)
    hit = (m.group(1), int(m.group(2))) if m else None
    if len(_SPLITS) < _MEMO_MAX:
        _SPLITS[name] = hit
    return hit


def cname_ptr(name: str) -> str:
    """The pointer shadow of a 64-bit register (pointer_regs.py)."""
    return "p_" + name.lstrip("%")


def cname_var(name: str) -> str:
    return "v_" + name


def cname_fn(name: str) -> str:
    return "f_" + name


def cname_label(name: str) -> str:
    return "L_" + name


def float_literal(value: float, ty: str) -> str:
    if math.isfinite(value):
        if ty == "f32":
            value = struct.unpack("<f", struct.pack("<f", value))[0] if abs(value) < 3.5e38 \
                else value
            return f"{value.hex()}f"
        return value.hex()
    if ty == "f32":
        bits = struct.unpack("<I", struct.pack("<f", value))[0]
        return f"ps_u2f(0x{bits:08x}u)"
    bits = struct.unpack("<Q", struct.pack("<d", value))[0]
    return f"ps_u2d(0x{bits:016x}ull)"


class FunctionEmitter:
    """Emits one PTX function (or kernel body) as a C function body."""

    def __init__(self, translator, fn: ir.Function) -> None:  # translator: translate.Translator
        self.tr = translator
        self.fn = fn
        self.regs: dict[str, str] = {}          # exact register name -> type
        self.ranges: dict[str, tuple[str, int]] = {}  # "%r" -> (type, count)
        self.reg_cache: dict[str, str] = {}
        # register -> form.reg(creg(name)), kept and dropped with reg_cache (both follow
        # the declarations and the renaming scopes): a register's first read after its
        # write then needs neither call
        self.reg_expr: dict[str, str] = {}
        self.src_cache: dict[tuple[str, str], str] = {}
        self.imm_cache: dict[tuple, str] = {}
        self.dst_cache: dict[tuple[str, str], tuple[str, str, bool]] = {}
        self.scopes: list[dict[str, ir.Var]] = [{}]
        self.lines: list[str] = []
        self.tmp = 0
        self.labels: set[str] = set()
        self.branch_targets: dict[str, list[str]] = {}  # .branchtargets tables, for brx.idx
        # how the target runs this body (collectives.py): the wave primitives, or the CPU's
        # phases (registers spelled by placeholders the target's naming renders, records.py;
        # arrays in the per-thread context `L`; register declarations collected for its
        # struct as (C type, C names))
        self.form: Form = Form()
        self.phase_arrays: set[str] = set()
        self.phase_decls: list[tuple[str, tuple[str, ...]]] = []
        self.records: list = []  # records.Record, one per body line (translate.py body)
        self.deposit: str | None = None  # the instruction being emitted's deposit (records.py)
        # whether the instruction being emitted reads the thread's context other than through
        # the form (records.py Record.context): a handler that writes `ctx` itself sets it
        self.context = False
        self.phase_names: set[str] = set()  # the C names of phase-mode registers
        self.shared = False  # whether the body spells the block's shared window (shared_window)
        self.shadow: list[dict[str, tuple[str, str]]] = [{}]
        self._ptr_plan: pointer_regs.PointerPlan | None = None
        for p in fn.params:
            self.scopes[0][p.name] = p
        for p in fn.returns:
            self.scopes[0][p.name] = p

    def use_form(self, form: Form) -> None:
        self.form = form
        self.reg_expr.clear()

    def need(self, prelude: str) -> None:
        """The instruction being emitted calls functions of this prelude file (preludes/):
        the translator adds it, once, to the modules that use it and to no other, so a new
        instruction's prelude functions leave every other module's C unchanged."""
        if prelude not in self.tr.preludes:
            self.tr.preludes.append(prelude)

    # ---- errors --------------------------------------------------------------------------
    def unsupported(self, inst: ir.Instruction, why: str = "") -> UnsupportedInstruction:
        name = ".".join((inst.opcode, *inst.mods))
        msg = f"unsupported instruction {name}" + (f" ({why})" if why else "")
        return self.tr.error(UnsupportedInstruction, msg, inst.tok, self.fn.name)

    def bad(self, inst: ir.Instruction, why: str) -> PtxError:
        name = ".".join((inst.opcode, *inst.mods))
        return self.tr.error(PtxError, f"invalid {name}: {why}", inst.tok, self.fn.name)

    def new_tmp(self) -> str:
        self.tmp += 1
        return f"t{self.tmp}"

    # ---- registers -----------------------------------------------------------------------
    def declare_reg(self, v: ir.Var) -> str:
        ct = C_TYPE.get(v.type)
        if ct is None or v.vector != 1:
            raise self.tr.error(UnsupportedInstruction,
                                f"unsupported register type .{v.type} (vector {v.vector})",
                                v.tok, self.fn.name)
        self.src_cache.clear()
        self.dst_cache.clear()
        if self.form.phase:
            names = self.declare_phase_regs(v)
        elif not v.count and self._other_spelling(v.name):
            # inline asm's `{ .reg .u32 r0; ... }` in a kernel with `%r0`: a C block's `r_r0`
            # would hide the kernel's register inside the block
            self.tmp += 1
            names = [f"{cname_reg(v.name)}_s{self.tmp}"]
            self.shadow[-1][v.name] = (names[0], v.type)
            self.reg_cache.pop(v.name, None)
            self.reg_expr.pop(v.name, None)
        elif v.count:
            self.ranges[v.name] = (v.type, v.count)
            prefix = cname_reg(v.name)  # (cname_reg of each name, as one prefix)
            names = [f"{prefix}{i}" for i in range(v.count)]
            if self.reg_cache or self.reg_expr:
                for i in range(v.count):
                    self.reg_cache.pop(f"{v.name}{i}", None)
                    self.reg_expr.pop(f"{v.name}{i}", None)
        else:
            self.regs[v.name] = v.type
            self.reg_cache.pop(v.name, None)
            self.reg_expr.pop(v.name, None)
            names = [cname_reg(v.name)]
        if self.form.phase:
            self.phase_decls.extend((ct, tuple(names[i:i + 16]))
                                    for i in range(0, len(names), 16))
            return ""
        out = []
        for i in range(0, len(names), 16):
            out.append(f"{ct} {', '.join(names[i:i + 16])};")
        shadowed = self.pointer_plan().regs
        if shadowed and v.type in pointer_regs.REG64 and v.name not in self.shadow[-1]:
            concrete = [f"{v.name}{i}" for i in range(v.count)] if v.count else [v.name]
            ptrs = [cname_ptr(n) for n in concrete if n in shadowed]
            for i in range(0, len(ptrs), 16):
                out.append("uint8_t " + ", ".join(f"*{p}" for p in ptrs[i:i + 16]) + ";")
        return "\n".join(out)

    def pointer_plan(self) -> pointer_regs.PointerPlan:
        """The registers that get a pointer shadow (pointer_regs.py): CPU targets, and not
        in phase mode (whose registers live in a per-thread context across resumes)."""
        if self._ptr_plan is None:
            on = not self.form.phase and self.tr.target.name.startswith("cpu")
            self._ptr_plan = pointer_regs.plan(self.fn) if on else pointer_regs.PointerPlan()
        return self._ptr_plan

    def shadow_of(self, name: str, inst: ir.Instruction) -> str | None:
        """The C name of register `name`'s pointer shadow, if it has one in this scope."""
        if name not in self.pointer_plan().regs or name in SPECIAL:
            return None
        if self.creg(name) != cname_reg(name):
            return None  # renamed (another register has its C name): no shadow
        if self.reg_type(name, inst) not in pointer_regs.REG64:
            return None  # an inner-scope redeclaration of another width has none
        return cname_ptr(name)

    def shadow_write(self, name: str, cname: str, inst: ir.Instruction) -> tuple[str, str]:
        """(before, after): statements keeping register `name`'s shadow equal to its value
        around the write of it by `inst` (pointer_regs.py)."""
        p = self.shadow_of(name, inst)
        if p is None:
            return "", ""
        how = self.pointer_plan().defs.get(id(inst))
        if how is None or how[0] != name:
            return "", f" {p} = (uint8_t *)(uintptr_t){cname};"
        base = self.shadow_of(how[1], inst)
        if base is None:
            base = f"((uint8_t *)(uintptr_t){self.src(ir.Reg(how[1]), 'u64', inst)})"
        off = how[2]
        if off is None:
            return f"{p} = {base}; ", ""
        if isinstance(off, tuple):  # mad.wide: the 64-bit product of two 32-bit values
            ty, a, b = off
            wt = "int64_t" if ty == "s32" else "uint64_t"
            prod = f"({wt}){self.src(a, ty, inst)} * ({wt}){self.src(b, ty, inst)}"
            return f"{p} = {base} + (int64_t)({prod}); ", ""
        return f"{p} = {base} + {self.src(off, 's64', inst)}; ", ""

    def declare_phase_regs(self, v: ir.Var) -> list[str]:
        """Phase mode keeps all registers in one struct, so a register declared again in an
        inner scope gets its own member (r_p1_s3) for the extent of that scope; so does one
        whose C name another register has (inline asm's `r0` beside the kernel's `%r0`)."""
        concrete = [f"{v.name}{i}" for i in range(v.count)] if v.count else [v.name]
        out = []
        names, regs, cache, exprs = self.phase_names, self.regs, self.reg_cache, self.reg_expr
        for name in concrete:  # (thousands per kernel: `.reg .f32 %f<1729>`)
            if cache:
                cache.pop(name, None)
            if exprs:
                exprs.pop(name, None)
            c = cname_reg(name)
            if c in names:
                self.tmp += 1
                cname = f"{c}_s{self.tmp}"
                self.shadow[-1][name] = (cname, v.type)
                out.append(cname)
            else:
                names.add(c)
                regs[name] = v.type
                out.append(c)
        return out

    def _other_spelling(self, name: str) -> bool:
        """Whether another register of this function has name's C name (`r0`, `%r0`)."""
        other = name[1:] if name.startswith("%") else "%" + name
        if other in self.regs or self.is_scoped_reg(other):
            return True
        m = _range_split(other)
        r = self.ranges.get(m[0]) if m else None
        return r is not None and m is not None and m[1] < r[1]

    def is_scoped_reg(self, name: str) -> bool:
        """Whether `name` is a register renamed in a scope now open."""
        return any(name in scope for scope in self.shadow)

    def creg(self, name: str) -> str:
        """The C name of a register (inner-scope redeclarations in phase mode differ)."""
        shadow = self.shadow
        if len(shadow) == 1 and not shadow[0]:
            c = _CNAMES.get(name)  # (cname_reg's memo, without the call)
            return c if c is not None else cname_reg(name)
        for scope in reversed(shadow):
            hit = scope.get(name)
            if hit is not None:
                return hit[0]
        return cname_reg(name)

    def open_scope(self) -> None:
        self.scopes.append({})
        self.shadow.append({})

    def close_scope(self) -> None:
        if len(self.scopes) > 1:
            self.scopes.pop()
        if len(self.shadow) > 1 and self.shadow.pop():
            self.src_cache.clear()
            self.dst_cache.clear()
            self.reg_cache.clear()
            self.reg_expr.clear()

    def reg_type(self, name: str, inst: ir.Instruction) -> str:
        t = self.reg_cache.get(name)
        if t is not None:
            return t
        shadow = self.shadow
        if len(shadow) > 1 or shadow[0]:  # (no renamed registers: nothing to look up)
            for scope in reversed(shadow):
                hit = scope.get(name)
                if hit is not None:
                    self.reg_cache[name] = hit[1]
                    return hit[1]
        t = self.regs.get(name)
        if t is None:
            m = _range_split(name)
            if m:
                r = self.ranges.get(m[0])
                if r is not None and m[1] < r[1]:
                    t = r[0]
        if t is None:
            if name in SPECIAL:
                t = SPECIAL[name][1]
            else:
                raise self.bad(inst, f"undeclared register {name}")
        self.reg_cache[name] = t
        return t

    # ---- conversions ---------------------------------------------------------------------
    def convert(self, expr: str, src: str, dst: str, inst: ir.Instruction) -> str:
        sc, dc = C_TYPE[src], C_TYPE[dst]
        if sc == dc:
            return expr
        sf, df = src in FLOAT, dst in FLOAT
        if not sf and not df:
            if dst == "pred":
                return f"({expr} != 0)"
            return f"(({dc})({expr}))"
        if sf and df:
            raise self.bad(inst, f"a .{src} value used as .{dst}")
        if sf:  # float register read as bits
            bits = f"ps_f2u({expr})" if src == "f32" else f"ps_d2u({expr})"
            return f"(({dc}){bits})"
        if dst == "f32":
            return f"ps_u2f((uint32_t)({expr}))"
        return f"ps_u2d((uint64_t)({expr}))"

    # ---- operand reads -------------------------------------------------------------------
    def src(self, op: ir.Operand, ty: str, inst: ir.Instruction) -> str:
        """C expression for operand `op` read as PTX type `ty`."""
        to = type(op)
        if to is ir.Sym and (op.name in self.regs or self.is_scoped_reg(op.name)):
            op = ir.Reg(op.name)  # a register declared without '%' (nvcc: __$temp3)
            to = ir.Reg
        if to is ir.Reg:
            if op.name in CONTEXT_SPECIAL:
                self.context = True
            key = (op.name, ty)
            expr = self.src_cache.get(key)
            if expr is None:
                sp = SPECIAL.get(op.name)
                if sp is None and op.name.startswith("%reserved_smem_offset"):
                    sp = self.reserved_smem(op.name, inst)
                if sp is not None:
                    ti = THREAD_INDEX.get(op.name)
                    c = sp[0] if ti is None else ti[1].format(self.form.thread_index(ti[0]))
                    expr = self.convert(c, sp[1], ty, inst)
                else:
                    rt = self.reg_type(op.name, inst)
                    c = self.reg_expr.get(op.name)
                    if c is None:
                        c = self.reg_expr[op.name] = self.form.reg(self.creg(op.name))
                    expr = self.convert(c, rt, ty, inst)
                self.src_cache[key] = expr
            return expr
        if to is ir.Imm:
            key = (op.value, op.kind, op.bits, ty)
            if op.value == 0 and type(op.value) is float:
                key += (math.copysign(1.0, op.value),)  # -0.0 == 0.0, but its C is not
            expr = self.imm_cache.get(key)
            if expr is None:
                expr = self.imm_cache[key] = self.imm(op, ty, inst)
            return expr
        if type(op) is ir.Neg:
            return f"(!{self.src(op.reg, 'pred', inst)})"
        if type(op) is ir.Sym:
            expr, st = self.sym_value(op.name, inst)
            return self.convert(expr, st, ty, inst)
        if type(op) is ir.Addr and op.base is not None and type(op.base) is ir.Sym:
            expr, st = self.sym_value(op.base.name, inst)
            return self.convert(f"({expr} + {op.offset})", st, ty, inst)
        if type(op) is ir.Vec:
            return self.pack(op, ty, inst)
        raise self.bad(inst, "unexpected operand form")

    def reserved_smem(self, name: str, inst: ir.Instruction) -> tuple[str, str]:
        """%reserved_smem_offset_{begin,end,cap,0,1}: the module's reserved shared region
        (passes/layout_shared.py), two halves for the numbered offsets."""
        from pyshim.ptx.passes.layout_shared import RESERVED_SMEM

        base = self.tr.module.info.reserved_smem
        half = RESERVED_SMEM // 2
        value = None if base is None else {
            "begin": base, "end": base + RESERVED_SMEM, "cap": RESERVED_SMEM,
            "0": base, "1": base + half}.get(name[len("%reserved_smem_offset_"):])
        if value is None:
            raise self.bad(inst, f"unknown special register {name}")
        return f"((uint32_t){value}u)", "u32"

    def imm(self, op: ir.Imm, ty: str, inst: ir.Instruction) -> str:
        if ty in FLOAT:
            if op.bits:
                if op.kind == "f32":
                    value = struct.unpack("<f", struct.pack("<I", op.value & 0xFFFFFFFF))[0]
                else:
                    value = struct.unpack("<d", struct.pack("<Q", op.value & (2**64 - 1)))[0]
                if math.isnan(value):  # keep the exact NaN payload
                    if ty == "f32" and op.kind == "f32":
                        return f"ps_u2f(0x{op.value:08x}u)"
                    if ty == "f64" and op.kind == "f64":
                        return f"ps_u2d(0x{op.value:016x}ull)"
            else:
                value = float(op.value)
            return float_literal(value, ty)
        if ty == "pred":
            return "1" if op.value else "0"
        if op.kind != "int" and not op.bits:
            raise self.bad(inst, f"floating-point literal {op.value} used as .{ty}")
        size = SIZE[ty]
        v = int(op.value) & ((1 << (8 * size)) - 1)
        if size <= 4:
            return f"(({C_TYPE[ty]})0x{v:x}u)" if v > 9 else f"(({C_TYPE[ty]}){v}u)"
        return f"(({C_TYPE[ty]})0x{v:x}ull)"

    def pack(self, vec: ir.Vec, ty: str, inst: ir.Instruction) -> str:
        n = len(vec.items)
        total = SIZE.get(ty, 0)
        if n not in (2, 4) or total % n or total < 2:
            raise self.bad(inst, f"cannot pack {n} values into .{ty}")
        part = total // n
        pt = {1: "b8", 2: "b16", 4: "b32"}[part]
        wide = "uint64_t" if total == 8 else "uint32_t"
        terms = [f"(({wide}){self.src(item, pt, inst)} << {8 * part * i})"
                 for i, item in enumerate(vec.items)]
        bits = "(" + " | ".join(terms) + ")"
        return self.convert(bits, "b64" if total == 8 else "b32", ty, inst)

    def dst(self, op: ir.Operand, ty: str, expr: str, inst: ir.Instruction) -> str:
        """C statement storing `expr` (of PTX type `ty`) into destination `op`."""
        if type(op) is ir.Sym and (op.name in self.regs or self.is_scoped_reg(op.name)):
            op = ir.Reg(op.name)
        if type(op) is ir.Reg:
            key = (op.name, ty)
            hit = self.dst_cache.get(key)
            if hit is None:
                if op.name in SPECIAL:
                    raise self.bad(inst, f"cannot write special register {op.name}")
                rt = self.reg_type(op.name, inst)
                c = self.reg_expr.get(op.name)
                if c is None:
                    c = self.reg_expr[op.name] = self.form.reg(self.creg(op.name))
                hit = self.dst_cache[key] = (c, rt, C_TYPE[rt] == C_TYPE[ty])
            stmt = f"{hit[0]} = {expr};" if hit[2] else \
                f"{hit[0]} = {self.convert(expr, ty, hit[1], inst)};"
            plan = self._ptr_plan
            if op.name not in (plan or self.pointer_plan()).regs:
                return stmt  # no shadow (shadow_write's first test, without its calls)
            before, after = self.shadow_write(op.name, hit[0], inst)
            return before + stmt + after
        if type(op) is ir.Sym and op.name == "_":
            return f"(void)({expr});"
        if type(op) is ir.Vec:
            return self.unpack(op, ty, expr, inst)
        raise self.bad(inst, "destination must be a register")

    def unpack(self, vec: ir.Vec, ty: str, expr: str, inst: ir.Instruction) -> str:
        n = len(vec.items)
        total = SIZE.get(ty, 0)
        if n not in (2, 4) or total % n:
            raise self.bad(inst, f"cannot unpack .{ty} into {n} values")
        part = total // n
        pt = {1: "b8", 2: "b16", 4: "b32"}[part]
        bt = "b64" if total == 8 else "b32"
        t = self.new_tmp()
        out = [f"{{ {C_TYPE[bt]} {t} = {self.convert(expr, ty, bt, inst)};"]
        for i, item in enumerate(vec.items):
            if type(item) is ir.Sym and item.name == "_":
                continue
            out.append(self.dst(item, pt, f"({C_TYPE[pt]})({t} >> {8 * part * i})", inst))
        out.append("}")
        return " ".join(out)

    # ---- variables and addresses ---------------------------------------------------------
    def lookup(self, name: str) -> ir.Var | None:
        for scope in reversed(self.scopes):
            v = scope.get(name)
            if v is not None:
                return v
        return self.tr.module_vars.get(name)

    def shared_window(self) -> str:
        """The block's shared window, in C (a CPU thread loop sets it up only for a body that
        spells it)."""
        self.shared = True
        return "PS_SHARED(ctx)"

    def shared_offset(self, v: ir.Var) -> str:
        if v.linkage == "extern" or (v.dims and v.dims[0] == 0):
            self.context = True
            return "PS_DYN_OFF(ctx)"
        own = self.tr.kernel_shared.get(v.name) if self.tr.kernel_shared else None
        off = own if own is not None else self.tr.module.info.shared_common.get(v.name)
        if off is None:
            raise PtxError(f"shared variable {v.name} has no place in the shared window")
        return f"((uint64_t){off}u)"

    def sym_value(self, name: str, inst: ir.Instruction) -> tuple[str, str]:
        """The value of a symbol used as an operand: its address in its own state space."""
        v = self.lookup(name)
        if v is not None:
            if v.space == "shared":
                return self.shared_offset(v), "u64"
            if v.space == "reg":
                return self.form.reg(self.creg(v.name)), v.type
            return f"((uint64_t)(uintptr_t){self.var_ptr(v, inst)})", "u64"
        if name in self.tr.functions:
            f = self.tr.functions[name]
            if f.entry:
                return self.tr.target.kernel_address(self, inst, name), "u64"
            if f.body is None:
                raise self.unsupported(inst, f"address of external function {name}")
            return f"((uint64_t)(uintptr_t)&{cname_fn(name)})", "u64"
        if name in PREDEFINED:
            return PREDEFINED[name]
        raise self.bad(inst, f"unknown symbol {name}")

    def var_ptr(self, v: ir.Var, inst: ir.Instruction) -> str:
        """uint8_t* to the storage of a non-shared variable."""
        if v.space in ("global", "const") and v.linkage == "extern" and v.init is None \
                and v.name not in self.tr.defined_vars:
            raise self.unsupported(inst, f"external variable {v.name} (separate compilation)")
        return f"((uint8_t *){self.var_cname(v)})"

    def var_cname(self, v: ir.Var) -> str:
        """C name of a variable's storage (phase-mode kernels keep arrays in the per-thread
        context, which outlives the block function's frame)."""
        if v.name in self.phase_arrays:
            return f"L->{cname_var(v.name)}"
        return cname_var(v.name)

    def addr(self, op: ir.Operand, space: str, inst: ir.Instruction) -> str:
        """uint8_t* expression for an address operand in state space `space`."""
        if type(op) is not ir.Addr:
            if type(op) in (ir.Reg, ir.Sym):
                op = ir.Addr(op, 0)
            else:
                raise self.bad(inst, "expected an address [..]")
        off = f" + {op.offset}" if op.offset > 0 else (f" - {-op.offset}" if op.offset else "")
        base = op.base
        if base is None:
            if space == "shared":
                return f"({self.shared_window()} + {op.offset})"
            return f"((uint8_t *)(uintptr_t){op.offset & (2**64 - 1)}ull)"
        if type(base) is ir.Sym and (base.name in self.regs or self.is_scoped_reg(base.name)) \
                and self.lookup(base.name) is None:
            base = ir.Reg(base.name)
        if type(base) is ir.Sym:
            v = self.lookup(base.name)
            if v is None:
                raise self.bad(inst, f"unknown variable {base.name}")
            if v.space == "shared":
                return f"({self.shared_window()} + {self.shared_offset(v)}{off})"
            if v.space == "reg":
                return self.addr(ir.Addr(ir.Reg(v.name), op.offset), space, inst)
            return f"({self.var_ptr(v, inst)}{off})"
        rt = self.reg_type(base.name, inst) if base.name not in SPECIAL else "u64"
        if space != "shared" and (p := self.shadow_of(base.name, inst)) is not None:
            return f"({p}{off})"  # base pointer plus offset: a GEP the compiler can follow
        val = self.src(base, "u64" if SIZE.get(rt, 8) == 8 else "u32", inst)
        if space == "shared":
            return f"({self.shared_window()} + (uint64_t){val}{off})"
        return f"({self.form.address(self, val, base.name)}{off})"
