"""PTX -> C (CPU device) or HIP/CUDA source.

    source = translate(ptx_text, target="cpu-wave64")

The Translator walks the IR once; per-instruction C comes from `isa.instructions.emit`, and
everything target-specific (preludes, kernel entry points, the module descriptor, extern
functions, the Form a kernel's barriers and collectives take) from a `targets.base.Target`
subclass.
"""

from __future__ import annotations

import gc
import struct
import time

from pyshim.ptx import ir, passes
from pyshim.ptx.errors import PtxError, UnsupportedInstruction
from pyshim.ptx.fingerprint import TRANSLATOR_VERSION, translator_fingerprint
from pyshim.ptx.frontend.parser import parse
from pyshim.ptx.frontend.validate import validate
from pyshim.ptx.isa import instructions, tensor, texture
from pyshim.ptx.isa.emitter import FunctionEmitter, cname_fn, cname_label, cname_var
from pyshim.ptx.isa.records import DECL, LABEL, MARK, SCOPE, Record, point
from pyshim.ptx.layout import param_layout, var_align, var_bytes
from pyshim.ptx.targets import get_target
from pyshim.ptx.targets.base import Target, prelude_text
from pyshim.ptx.types import SIZE

# TRANSLATOR_VERSION (bump it there) and translator_fingerprint live in fingerprint.py


class Translator:
    def __init__(self, module: ir.Module, target: Target) -> None:
        self.module = module
        self.target = target
        self.functions = {f.name: f for f in module.functions}
        self.module_vars = {v.name: v for v in module.variables}
        self.defined_vars = {v.name for v in module.variables if v.linkage != "extern"}
        self.kernel_shared: dict[str, int] | None = None
        # lazy per-kernel objects (pyshim/kernels/lazy.py): the module's variables live in
        # its data object; this object reads their addresses from a binding table
        self.bind_globals = False
        # more entries of the module descriptor's globals: (name, C address, size)
        self.extra_globals: list[tuple[str, str, int]] = []
        self.extra_defs: list[str] = []  # the C definitions of their storage
        self.stats = {"instructions": 0, "functions": 0, "kernels": 0}
        # kernels that cannot be translated -> why (they trap; libcuda refuses to launch them)
        self.unsupported: dict[str, str] = {}
        self.preludes: list[str] = []  # prelude files the handlers asked for (fe.need)
        self.declarations: list[str] = []  # C declarations before the functions (targets add)

    def error(self, cls: type[PtxError], message: str, tok: int, function: str) -> PtxError:
        src = self.module.source
        if src is not None:
            return src.error(cls, message, tok, function)
        return cls(message, function=function)

    # ---- the module ----------------------------------------------------------------------
    def translate(self) -> str:
        t = self.target
        if self.module.address_size != 64:
            raise UnsupportedInstruction(".address_size 32 (pyshim translates 64-bit PTX only)")
        out = [t.prelude(), "", "/* ---- module variables ---- */"]
        if tensor.uses_tensor(self.module):  # only these modules: the others' C is unchanged
            out.insert(1, tensor.prelude(t, self.module))
        if texture.uses(self.module):
            out.insert(1, texture.prelude(t))
        declared_at = len(out)
        relocs: list[str] = []
        bound = [v for v in self.module.variables if v.space in ("global", "const")]
        if self.bind_globals and bound:
            out.append(self.binding_table(bound))
        for v in self.module.variables:
            if v.space in ("global", "const"):
                if not self.bind_globals:
                    out.append(self.global_var(v, relocs))
            elif v.space not in ("shared",):
                raise self.error(UnsupportedInstruction,
                                 f"module-scope .{v.space} variable {v.name}", v.tok, "")
        if relocs:
            try:
                out.append(t.relocations(relocs))
            except UnsupportedInstruction:
                # libcudadevrt's globals fail first on a target without a device runtime:
                # name what the program needs instead
                self.refuse_device_runtime()
                raise
        funcs = [f for f in self.module.functions if not f.entry and f.body is not None]
        out.append("/* ---- functions ---- */")
        for f in funcs:
            out.append(t.function_prototype(self.signature(f)) + ";")
        failed: dict[str, UnsupportedInstruction] = {}  # functions not translated -> why
        for f in funcs:
            self.kernel_shared = None
            fe = FunctionEmitter(self, f)
            try:
                body = self.body(fe, f)
            except UnsupportedInstruction as e:
                # only the kernels that call it fail (at launch); this body traps
                failed[f.name] = e
                body = "PS_TRAP(ctx);"
            out.append(t.function_definition(self.signature(f), body))
            self.stats["functions"] += 1
        kernels = []
        first: UnsupportedInstruction | None = None
        for i, k in enumerate(self.module.kernels):
            why = _failed_callee(k, self.functions, failed)
            if why is None:
                try:
                    out.append(self.kernel(i, k))
                except UnsupportedInstruction as e:
                    why = e
            if why is not None:
                # a kernel pyshim cannot translate fails alone, at launch, naming the
                # instruction (self.unsupported reaches libcuda); the module's other
                # kernels load and run
                self.unsupported[k.name] = str(why)
                first = first or why
                out.append(self.stub_kernel(i, k))
            kernels.append(k)
            self.stats["kernels"] += 1
        if first is not None and len(self.unsupported) == len(kernels):
            raise first  # nothing in it can run: the module fails to load, as before
        if self.unsupported:
            self.stats["unsupported"] = dict(self.unsupported)
        # what variables and bodies named before its definition (the kernel table, for
        # kernels' addresses)
        out[declared_at:declared_at] = self.declarations
        for name in reversed(self.preludes):  # after the target's, before the tensor ones
            out.insert(1, f"/* ---- {name} ---- */\n{prelude_text(name)}")
        out += self.extra_defs
        out.append(t.module_descriptor(self, kernels))
        return "\n".join(out) + "\n"

    def refuse_device_runtime(self) -> None:
        """On a target without CUDA's device runtime (dynamic parallelism), raise naming the
        first function that calls one of its syscalls, if there is one."""
        if self.target.device_runtime:
            return
        calls = [(f.name, c) for f in self.module.functions for c in f.info.calls
                 if c.startswith("__cuda_syscall_cnp")]
        if calls:  # a launch first: what the program came for
            caller, callee = min(calls, key=lambda fc: "LaunchDevice" not in fc[1])
            raise UnsupportedInstruction(
                f"dynamic parallelism: {caller} calls {callee} (CUDA's device runtime), "
                f"which target {self.target.name} does not have", function=caller)

    def kernel(self, i: int, k: ir.Function) -> str:
        t = self.target
        self.kernel_shared = k.info.shared
        fe = FunctionEmitter(self, k)
        fe.use_form(t.body_form(k))
        pre = [t.kernel_param(fe, j, p) for j, p in enumerate(k.params)]
        body = self.body(fe, k, pre)
        return t.kernel(i, k, body, fe)

    def stub_kernel(self, i: int, k: ir.Function) -> str:
        """A kernel that traps: what libcuda would run if it did not refuse the launch."""
        k.info.mode = "loop"
        k.info.regions = None
        self.kernel_shared = {}
        fe = FunctionEmitter(self, k)
        fe.use_form(self.target.body_form(k))
        pre = [self.target.kernel_param(fe, j, p) for j, p in enumerate(k.params)]
        body = ["PS_TRAP(ctx); return;"]
        if self.target.device_runtime:
            # launched from device code it has no libcuda to refuse it: it says why, once
            from pyshim.ptx.targets.cpu.target import c_string

            why = " ".join(f"pyshim: kernel {k.name} cannot run: "
                           f"{self.unsupported.get(k.name, '')}".split())
            body.insert(0, "{ static int ps_said; if (!__atomic_exchange_n(&ps_said, 1, "
                           f"__ATOMIC_RELAXED)) fputs({c_string(why)[:-1]}\\n\", stderr); }}")
        return self.target.kernel(i, k, "\n".join([*pre, *body]), fe)

    def signature(self, f: ir.Function) -> str:
        params = ["PS_CTX"] + [f"uint8_t *{cname_var(p.name)}" for p in f.returns + f.params]
        return f"{cname_fn(f.name)}({', '.join(params)})"

    def binding_table(self, bound: list[ir.Var]) -> str:
        """The slots libcuda fills with the addresses of the data object's variables."""
        from pyshim.ptx.targets.cpu.target import c_string

        names = "".join(v.name + "\0" for v in bound)
        literal = '"' + "".join(c_string(v.name)[1:-1] + "\\000" for v in bound) + '"'
        out = [f"static uint8_t *ps_bind[{len(bound)}];",
               f"static char ps_bind_names[] = {literal};"]
        out += [f"#define {cname_var(v.name)} (ps_bind[{i}])" for i, v in enumerate(bound)]
        self.extra_globals += [("pyshim:bind-slots", "ps_bind", 8 * len(bound)),
                               ("pyshim:bind-names", "ps_bind_names",
                                len(names.encode()) + 1)]
        return "\n".join(out)

    def global_var(self, v: ir.Var, relocs: list[str]) -> str:
        size = var_bytes(v)
        if v.dims and v.dims[0] == 0:
            size = max(size, len(v.init or ()) * SIZE.get(v.type, 1))
        align = var_align(v)
        data = self.initializer(v, relocs) if v.init else b""
        data = data + bytes(max(0, size - len(data)))
        body = ""
        if data.strip(b"\0"):
            body = " = {" + ",".join(str(b) for b in data) + "}"
        return self.target.global_storage(cname_var(v.name), align, max(size, 1), body)

    def initializer(self, v: ir.Var, relocs: list[str]) -> bytes:
        elem = SIZE.get(v.type, 1)
        out = bytearray()
        fmt_int = {1: "<B", 2: "<H", 4: "<I", 8: "<Q"}
        for item in v.init or ():
            if isinstance(item, ir.Imm):
                if v.type == "f32" and not item.bits:
                    out += struct.pack("<f", float(item.value))
                elif v.type == "f64" and not item.bits:
                    out += struct.pack("<d", float(item.value))
                elif item.kind not in ("int",) and not item.bits:
                    raise self.error(PtxError, f"float initializer for .{v.type} {v.name}",
                                     v.tok, "")
                else:
                    mask = (1 << (8 * elem)) - 1
                    out += struct.pack(fmt_int[elem], int(item.value) & mask)
            elif isinstance(item, ir.Sym | ir.Addr):
                sym = item if isinstance(item, ir.Sym) else item.base
                off = 0 if isinstance(item, ir.Sym) else item.offset
                if not isinstance(sym, ir.Sym) or elem != 8:
                    raise self.error(UnsupportedInstruction,
                                     f"address initializer in {v.name}", v.tok, "")
                if sym.name in self.module_vars:
                    target = f"(uint8_t *){cname_var(sym.name)} + {off}"
                elif (sym.name in self.functions and self.functions[sym.name].entry
                      and self.functions[sym.name].body is not None):
                    # a table of kernels (libcudadevrt's memset/memcpy kernels per type)
                    ref = self.target.kernel_ref(self, sym.name)
                    if ref is None:
                        raise self.error(UnsupportedInstruction,
                                         f"initializer of {v.name} names kernel {sym.name} "
                                         f"(dynamic parallelism) on target {self.target.name}",
                                         v.tok, "")
                    target = f"(uint8_t *){ref} + {off}"
                elif sym.name in self.functions and self.functions[sym.name].body is not None:
                    target = f"(uint8_t *)&{cname_fn(sym.name)} + {off}"
                else:
                    raise self.error(UnsupportedInstruction,
                                     f"initializer of {v.name} names {sym.name}", v.tok, "")
                relocs.append(f"{{ uint64_t a = (uint64_t)(uintptr_t)({target}); "
                              f"__builtin_memcpy({cname_var(v.name)} + {len(out)}, &a, 8); }}")
                out += bytes(8)
            else:
                raise self.error(PtxError, f"bad initializer in {v.name}", v.tok, "")
        return bytes(out)

    # ---- function bodies -----------------------------------------------------------------
    def body(self, fe: FunctionEmitter, f: ir.Function, pre: list[str] | None = None) -> str:
        """The function's body: its records (fe.records, records.py), one per line, and
        their templates joined (the C itself, unless the form spells registers and
        synchronisation points by placeholders for the target to render)."""
        recs = fe.records = [Record(MARK, x) for x in pre or []]
        recs.append(Record(MARK, "uint32_t ps_cc = 0; (void)ps_cc;"))
        if fe.form.phase:
            recs.append(Record(MARK, point("@resume")))  # resume after the parameter pointers
        body = f.body or []
        fe.labels = {s.name for s in body if type(s) is ir.Label}
        fe.branch_targets = {s.name: s.labels for s in body if type(s) is ir.BranchTargets}
        emit = instructions.emit
        rows = instructions.EMIT  # (sync_kind inline: its row's kind, bar.warp a collective)
        plain, barrier, collective = instructions.PLAIN, instructions.BARRIER, \
            instructions.COLLECTIVE
        creg, written, append = fe.creg, ir.written, recs.append
        plan = f.info.regions if fe.form.phase else None
        starts = plan.labels if plan is not None else frozenset()
        n = 0
        for s in body:
            ts = type(s)
            if ts is ir.Instruction:
                n += 1
                fe.deposit = None
                fe.context = False
                try:
                    code = emit(fe, s)
                except PtxError as e:
                    src = self.module.source
                    if src is not None and not e.line:
                        line, col = src.position(s.tok)
                        e.locate(line=line, col=col, text=src.line_text(line), function=f.name)
                    raise
                except (KeyError, IndexError, ValueError, TypeError, AttributeError) as e:
                    raise self.error(PtxError, f"malformed instruction {s.opcode} ({e!r})",
                                     s.tok, f.name) from None
                row = rows.get(s.opcode)
                kind = row[1] if row is not None else plain
                if kind == barrier and s.mods[:1] == ("warp",):
                    kind = collective
                append(Record(kind, code, s.site, fe.deposit, None, fe.context,
                              None if s.pred is None else (creg(s.pred), s.pred_neg),
                              () if plan is None else tuple(map(creg, written(s)))))
            elif ts is ir.Label:
                if s.name in starts:
                    recs.append(Record(MARK, point(f"@region:{cname_label(s.name)}")))
                recs.append(Record(LABEL, f"{fe.form.label(cname_label(s.name))}: ;",
                                   label=cname_label(s.name)))
            elif ts is ir.Var:
                recs.append(Record(DECL, self.local_decl(fe, s)))
            elif ts is ir.Scope:
                if s.open:
                    fe.open_scope()
                    recs.append(Record(SCOPE, "{"))
                else:
                    fe.close_scope()
                    recs.append(Record(SCOPE, "}"))
        self.stats["instructions"] += n
        return "\n".join([r.template for r in recs])

    def local_decl(self, fe: FunctionEmitter, v: ir.Var) -> str:
        if v.space == "reg":
            return fe.declare_reg(v)
        fe.scopes[-1][v.name] = v
        if v.space == "shared":
            return f"/* .shared {v.name} */"
        if v.space in ("local", "param"):
            size = max(var_bytes(v), 1)
            return fe.form.local_array(fe, v, size, var_align(v))
        if v.space in ("global", "const"):
            raise self.error(UnsupportedInstruction,
                             f"function-scope .{v.space} variable {v.name}", v.tok, fe.fn.name)
        raise self.error(UnsupportedInstruction, f".{v.space} variable {v.name}", v.tok,
                         fe.fn.name)


def _failed_callee(k: ir.Function, functions: dict[str, ir.Function],
                   failed: dict[str, UnsupportedInstruction]) -> UnsupportedInstruction | None:
    """Why kernel k cannot run if a function it calls (transitively) was not translated."""
    if not failed:
        return None
    seen, todo = set(), list(k.info.calls)
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        if name in failed:
            return failed[name]
        f = functions.get(name)
        if f is not None:
            todo += f.info.calls
    return None


def translate_module(module: ir.Module, target: str | Target = "cpu-wave64") -> str:
    tgt = get_target(target) if isinstance(target, str) else target
    module = passes.run(module, tgt)
    return Translator(module, tgt).translate()


def translate(ptx: str | bytes, target: str | Target = "cpu-wave64",
              stats: dict | None = None, bind_globals: bool = False,
              marker: tuple[str, str] | None = None, parsed: ir.Module | None = None) -> str:
    """PTX text -> source for `target` (raises PtxError / UnsupportedInstruction).
    `parsed`: the caller's parse of `ptx` (which it also reads), not parsed again; its
    parse time is then the caller's to count."""
    if isinstance(ptx, bytes):
        ptx = ptx.decode("utf-8", errors="replace")
    # the cyclic collector stays off for the whole translation, as the parser keeps it off
    # while the IR is built: the passes and the emitter make no cycles either, and the
    # collections their allocations trigger scan the module's IR each time (about 8% of
    # the unrolled grid-stride case, benchmarks/README.md)
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        return _translate(ptx, target, stats, bind_globals, marker, parsed)
    finally:
        if was_enabled:
            gc.enable()


def _translate(ptx: str, target: str | Target, stats: dict | None, bind_globals: bool,
               marker: tuple[str, str] | None, parsed: ir.Module | None) -> str:
    t0 = time.perf_counter()
    module = parse(ptx) if parsed is None else parsed
    validate(module)  # what ptxas refuses must not become C that crashes
    t1 = time.perf_counter()
    tgt = get_target(target) if isinstance(target, str) else target
    module = passes.run(module, tgt)
    tr = Translator(module, tgt)
    tr.bind_globals = bind_globals
    if marker is not None:  # (name, text): a descriptor global holding that text
        from pyshim.ptx.targets.cpu.target import c_string

        tr.extra_defs.append(f"static char ps_marker[] = {c_string(marker[1])};")
        tr.extra_globals.append((marker[0], "ps_marker", len(marker[1].encode()) + 1))
    out = tr.translate()
    if stats is not None:
        stats.update(tr.stats)
        stats["lines"] = ptx.count("\n") + 1
        stats["parse_seconds"] = t1 - t0
        stats["seconds"] = time.perf_counter() - t0
        # how the CPU device runs each kernel (targets with no such plan: none)
        stats["kernel_modes"] = {k.name: k.info.mode for k in module.kernels
                                 if k.info.mode is not None}
    return out


__all__ = ["TRANSLATOR_VERSION", "param_layout", "translate", "translate_module",
           "translator_fingerprint"]
