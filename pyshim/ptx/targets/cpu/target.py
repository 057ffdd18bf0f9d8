"""The CPU device: one C11 file per module, a `run_block` per kernel, `pyshim_module`.

How a block runs (passes/classify_sync.py and passes/regions.py decide):
- no barriers or collectives: a plain loop over the block's threads, the body inlined, the
  parameters and launch geometry set up once per block (loop_kernel);
- barriers and warp collectives at the top level of the body, unguarded: region loops
  (targets/cpu/regions.py), one loop over the threads per stretch between synchronisation
  points, branches between regions per thread;
- other barriers and collectives: phases (each thread runs to its next barrier or
  collective, registers in a per-thread context, a resume switch; phase_kernel);
- the rest (sync in callees, bar.arrive, counts): every thread a fiber (preludes/cpu.h).
"""

from __future__ import annotations

from pyshim.ptx import ir
from pyshim.ptx.isa.collectives import Form
from pyshim.ptx.isa.emitter import cname_reg, cname_var
from pyshim.ptx.isa.instructions import SYNC_OPCODES
from pyshim.ptx.layout import param_layout, var_bytes
from pyshim.ptx.passes import classify_sync
from pyshim.ptx.targets.base import Target
from pyshim.ptx.targets.cpu import devrt
from pyshim.ptx.targets.cpu import guards as cpu_guards
from pyshim.ptx.targets.cpu import prefetch as cpu_prefetch
from pyshim.ptx.targets.cpu.phase import PhaseForm, PhaseNaming
from pyshim.ptx.targets.cpu.regions import param_copies, region_kernel, word


def c_string(s: str) -> str:
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


class CpuTarget(Target):
    prelude_files = ("cpu.h", "common.h", "atomics.h", "warp.h")
    extern_functions = frozenset(("vprintf", "__assertfail", "malloc", "free"))
    assert_message = True
    phase_mode = True
    device_runtime = True
    region_loops = True
    # how each kernel's threads run (loop, phases, region loops, fibers) and its region plan
    passes = (("classify_sync", classify_sync.run),)

    def __init__(self, wave_size: int = 64) -> None:
        self.wave_size = wave_size
        self.name = f"cpu-wave{wave_size}"

    def prelude(self) -> str:
        return super().prelude() + "\n#define PS_ALIGN(n) __attribute__((aligned(n)))\n"

    def extern_call(self, fe, inst: ir.Instruction, name: str, params: list[str],
                    nrets: int) -> str:
        if name in devrt.FUNCTIONS and devrt.signature_matches(fe.tr.functions[name], name):
            return devrt.call(fe, inst, name, params)
        return super().extern_call(fe, inst, name, params, nrets)

    def kernel_ref(self, tr, name: str) -> str | None:
        # the kernel's descriptor: the device runtime finds the child's parameters and its
        # function handle from it (and refuses a pointer that is no descriptor of the module)
        kernels = tr.module.kernels
        index = next((i for i, k in enumerate(kernels) if k.name == name), None)
        if index is None:  # an entry without a body here: nothing to launch
            return None
        decl = f"static const pyshim_kernel_desc ps_kernels[{len(kernels)}];"
        if decl not in tr.declarations:
            tr.declarations.append(decl)
        return f"&ps_kernels[{index}]"

    def body_form(self, k: ir.Function) -> Form:
        if k.info.mode == "phase" and self.phase_mode:
            return PhaseForm()
        return Form()

    def kernel_param(self, fe, index: int, p: ir.Var) -> str:
        fe.scopes[0][p.name] = p
        if _loop_mode(fe.fn, fe) or fe.form.phase:
            # the thread loop copies the parameters once per block into a local buffer no
            # kernel store can alias, so gcc hoists their loads out of the loop
            off = param_layout(fe.fn.params)[0][index][0]
            return f"uint8_t *{cname_var(p.name)} = ps_pb + {off};"
        return f"uint8_t *{cname_var(p.name)} = (uint8_t *)ctx->params[{index}];"

    def kernel(self, index: int, k: ir.Function, body: str, fe=None) -> str:
        if fe is not None and fe.form.phase:
            if k.info.regions and self.region_loops:
                code = region_kernel(index, k, body, fe)
                if code is not None:
                    return code
            return self.phase_kernel(index, k, body, fe)
        if _loop_mode(k, fe):
            return self.loop_kernel(index, k, body, fe)
        fiber = k.info.mode in ("fiber", "phase")  # phase kernels as fibers: +fibers
        inline = "" if fiber else "inline __attribute__((always_inline)) "
        static = k.info.shared_size
        out = [f"/* kernel {k.name}: {'fibers' if fiber else 'thread loop'} */",
               f"static {inline}void k{index}_body(PS_CTX) {{", body, "}",
               f"static int k{index}_run_block(const pyshim_launch *l, const pyshim_block *b,"
               " void *const *params) {",
               "    int trap = 0;",
               "    ps_tctx c;",
               f"    if (ps_ctx_init(&c, l, b, params, {static}u, &trap)) return 2;"]
        if fiber:
            out.append(f"    return ps_run_fibers(&c, k{index}_body);")
        else:
            out += ["    uint32_t i = 0;",
                    "    for (uint32_t z = 0; z < l->block.z; z++)",
                    "        for (uint32_t y = 0; y < l->block.y; y++)",
                    "            for (uint32_t x = 0; x < l->block.x; x++, i++) {",
                    "                c.tid_x = x; c.tid_y = y; c.tid_z = z; c.linear = i;",
                    f"                k{index}_body(&c);",
                    "                if (trap) return trap;",
                    "            }",
                    "    return 0;"]
        out.append("}")
        return "\n".join(out)

    def loop_kernel(self, index: int, k: ir.Function, body: str, fe=None) -> str:
        """A kernel without barriers or collectives: one loop over the block's threads.

        What is uniform over the block is set up once, outside the loop: the parameters
        (copied into a local buffer, see kernel_param), the launch geometry (copied into the
        context by ps_ctx_init) and the trap check, so the loop body is the kernel's own
        arithmetic. `ret`/`exit` return from the inlined body, i.e. go to the next thread.

        For clang the x loop is marked `omp simd` (CPU_FLAGS has -fopenmp-simd): threads of a
        kernel without barriers or collectives may run in lockstep, as a warp's lanes do, so
        the compiler needs no runtime alias checks between threads (with addresses as base
        pointer + offset, pointer_regs.py, it vectorizes the loop; stencil and saxpy run
        faster than without the mark: benchmarks/README.md). What cannot run in lockstep is
        not vectorized at all: atomics, volatile accesses, calls (printf, traps through the
        context). One vector of threads per step (interleave 1): blocks are often only 16 or
        32 threads wide, and interleaved vectors would leave them to the scalar tail. Not for
        gcc 12: it cannot see the addresses as affine under -fwrapv and the mark makes it
        gather and scatter (saxpy more than twice as slow).

        A block that provably takes none of the kernel's opening guards (cpu/guards.py)
        runs a copy of the body without them, so without masks. A kernel that names no
        shared memory skips the per-block shared window (a thread-local lookup per block).
        """
        static = k.info.shared_size
        fn = "static inline __attribute__((always_inline))"

        def threads(call: str, indent: str = "    ") -> list[str]:
            return [indent + x for x in [
                "i = 0;",
                "for (uint32_t z = 0; z < nz; z++)",
                "    for (uint32_t y = 0; y < ny; y++) {",
                "        c.tid_y = y; c.tid_z = z;",
                "#ifdef __clang__",
                '        _Pragma("omp simd") _Pragma("clang loop interleave_count(1)")',
                "#endif",
                "        for (uint32_t x = 0; x < nx; x++) {",
                "            c.tid_x = x; c.linear = i + x;",
                f"            {call}",
                "        }",
                "        i += nx;",
                "    }"]]

        guards = cpu_guards.plan(k)
        recs = fe.records if fe is not None else None
        fast = cpu_guards.fast_body(recs, body, guards) if guards and recs else None
        out = [f"/* kernel {k.name}: thread loop */",
               f"{fn} void k{index}_body(PS_CTX, uint8_t *ps_pb) {{", "(void)ps_pb;", body, "}"]
        if fast is not None:
            # a block where no thread takes the opening's guards runs an unmasked copy
            # (cpu/guards.py)
            out += [f"{fn} void k{index}_fast(PS_CTX, uint8_t *ps_pb) {{", "(void)ps_pb;",
                    fast, "}"]
        out += [f"static int k{index}_run_block(const pyshim_launch *l, const pyshim_block *b,"
                " void *const *params) {",
                "    int trap = 0;",
                "    ps_tctx c;",
                f"    if (ps_ctx_init(&c, l, b, params, {static}u, &trap)) return 2;"
                if static or _uses_shared(k, fe) else
                "    ps_ctx_init_unshared(&c, l, b, params, &trap);",
                *param_copies(k),
                *cpu_prefetch.lines(k),
                "    const uint32_t nx = c.ntid_x, ny = c.ntid_y, nz = c.ntid_z;",
                "    uint32_t i;"]
        if fast is not None:
            out += ["    const int64_t ps_box[3] = {(int64_t)nx - 1, (int64_t)ny - 1,"
                    " (int64_t)nz - 1};",
                    *guards.setup,
                    f"    if (nx && ny && nz && {guards.condition}) {{",
                    *threads(f"k{index}_fast(&c, ps_pb);", indent="        "),
                    "        return trap;",
                    "    }"]
        out += [*threads(f"k{index}_body(&c, ps_pb);"), "    return trap;", "}"]
        return "\n".join(out)

    def phase_kernel(self, index: int, k: ir.Function, body: str, fe) -> str:
        """A barrier kernel as phases: k{i}_body runs one thread up to its next barrier."""
        sites = [s.site for s in k.body or () if type(s) is ir.Instruction
                 and s.opcode in SYNC_OPCODES]
        regs, local, moved = _phase_locals(k, list(dict.fromkeys(fe.phase_decls)))
        regs = regs or ["char unused;"]
        arrays = [f"PS_ALIGN({a}) uint8_t {cname_var(n)}[{sz}];"
                  for n, (sz, a) in fe.form.array_sizes.items()]
        cases = " ".join(f"case {s}u: goto ps_at_{s};" for s in sites)
        naming = PhaseNaming(moved, f"switch (resume) {{ {cases} default: break; }}")
        static = k.info.shared_size
        # warp matrix instructions (cpu/phase.py warp_fn): the block's records
        wrec = bool(fe.form.warp_fns)
        wb = "ps_wblock_bytes(n)" if wrec else "0"
        return "\n".join([
            f"/* kernel {k.name}: phases between barriers */",
            f"typedef struct k{index}_regs {{", *regs, f"}} k{index}_regs;",
            f"typedef struct k{index}_thread {{ k{index}_regs r;", *arrays,
            f"}} k{index}_thread;",
            f"static inline __attribute__((always_inline)) uint32_t k{index}_body(PS_CTX, "
            f"k{index}_thread *restrict L, uint32_t resume, uint8_t *ps_pb) {{",
            "(void)ps_pb;",
            "/* registers live at a resume point stay in the per-thread context L->r (restrict:"
            " nothing the kernel can address points into it); the others are locals */",
            *local,
            naming.render(body),
            "return 0;",
            "}",
            f"static int k{index}_run_block(const pyshim_launch *lp, const pyshim_block *b,"
            " void *const *params) {",
            "    int trap = 0;",
            "    ps_tctx c;",
            f"    if (ps_ctx_init(&c, lp, b, params, {static}u, &trap)) return 2;",
            *param_copies(k),
            "    uint32_t n = c.nthreads, live = n, wave = PS_WAVE_SIZE(&c);",
            f"    uint64_t tbytes = ((uint64_t)n * sizeof(k{index}_thread) + 63) & ~63ull;",
            "    uint64_t cbytes = ((uint64_t)n * (sizeof(ps_coll) + 5) + 63) & ~63ull;",
            f"    uint8_t *buf = (uint8_t *)ps_phase_buffer(tbytes + cbytes + {wb});",
            "    if (!buf) return 2;",
            *(["    ps_wwarp ps_wb;", "    ps_wblock_init(&ps_wb, buf + tbytes + cbytes, n);",
               "    c.wrec = &ps_wb;"] if wrec else []),
            f"    k{index}_thread *T = (k{index}_thread *)buf;",
            "    ps_coll *coll = (ps_coll *)(buf + tbytes);",
            "    uint32_t *resume = (uint32_t *)(coll + n);",
            "    uint8_t *state = (uint8_t *)(resume + n);  /* 0 run 1 barrier 2 collective 3 done */",
            "    memset(resume, 0, (size_t)n * 4);",
            "    memset(state, 0, n);",
            "    memset(coll, 0, (size_t)n * sizeof(ps_coll));",
            "    c.coll = coll;",
            "    while (live) {",
            "        uint32_t i = 0;",
            "        for (uint32_t z = 0; z < lp->block.z; z++)",
            "            for (uint32_t y = 0; y < lp->block.y; y++)",
            "                for (uint32_t x = 0; x < lp->block.x; x++, i++) {",
            "                    if (state[i]) continue;",
            "                    c.tid_x = x; c.tid_y = y; c.tid_z = z; c.linear = i;",
            f"                    uint32_t r = k{index}_body(&c, &T[i], resume[i], ps_pb);",
            "                    if (trap) return trap;",
            "                    if (!r) { state[i] = 3; live--; }",
            "                    else if (r & PS_PHASE_COLL) { state[i] = 2; resume[i] = r & ~PS_PHASE_COLL; }",
            "                    else { state[i] = 1; resume[i] = r; }",
            "                }",
            "        if (!live) break;",
            "        if (ps_phase_collectives(n, wave, state, resume, coll, c.wrec)) continue;",
            "        ps_phase_barrier(n, state, coll);",
            "    }",
            "    return 0;",
            "}"])

    def module_descriptor(self, tr, kernels: list[ir.Function]) -> str:
        out = ["/* ---- module descriptor ---- */"]
        descs = []
        for i, k in enumerate(kernels):
            layout, total = param_layout(k.params)
            if layout:
                rows = ", ".join(f"{{{o}u, {s}u, {a}u, 0u}}" for o, s, a in layout)
                out.append(f"static const pyshim_param_desc k{i}_params[] = {{{rows}}};")
            local = sum(var_bytes(s) for s in k.body or () if type(s) is ir.Var
                        and s.space == "local")
            regs = sum(max(s.count, 1) for s in k.body or () if type(s) is ir.Var
                       and s.space == "reg")
            # .maxnreg N (maxrregcount, numba's max_registers) bounds what NVIDIA reports
            if k.directives.get("maxnreg"):
                regs = min(regs, k.directives["maxnreg"][0])
            # a kernel lifted from SASS: the cubin's own count, as the driver reports it
            if k.directives.get("cubin_regs"):
                regs = k.directives["cubin_regs"][0]
            if "cubin_local" in k.directives:
                local = k.directives["cubin_local"][0]
            maxnt = 1
            for d in k.directives.get("maxntid", []):
                maxnt *= d
            if "maxntid" not in k.directives:
                maxnt = 0
            req = (k.directives.get("reqntid", []) + [1, 1, 1])[:3] \
                if "reqntid" in k.directives else [0, 0, 0]
            minctas = (k.directives.get("minnctapersm") or [0])[0]
            # __cluster_dims__ (.reqnctapercluster) and .explicitcluster: written only for a
            # kernel that has them (the fields default to zero), so other descriptors' C
            # stays what it was
            cluster = ""
            if "reqnctapercluster" in k.directives or "explicitcluster" in k.directives:
                cdims = (k.directives.get("reqnctapercluster", []) + [1, 1, 1])[:3] \
                    if k.directives.get("reqnctapercluster") else [0, 0, 0]
                cluster = (f", {{{cdims[0]}u, {cdims[1]}u, {cdims[2]}u}}, "
                           f"{int('explicitcluster' in k.directives)}u")
            descs.append(
                f"    {{{c_string(k.name)}, k{i}_run_block, {len(layout)}u, {total}u, "
                f"{f'k{i}_params' if layout else 'NULL'}, {k.info.shared_size}u, "
                f"{local}u, {maxnt}u, {{{req[0]}u, {req[1]}u, {req[2]}u}}, {minctas}u, "
                f"{min(regs, 255)}u{cluster}}}")
        if descs:
            out.append("static const pyshim_kernel_desc ps_kernels[] = {\n"
                       + ",\n".join(descs) + "\n};")
        gl = []
        for v in tr.module.variables:
            if v.space in ("global", "const") and not getattr(tr, "bind_globals", False):
                size = var_bytes(v)
                if v.dims and v.dims[0] == 0:
                    size = max(size, len(v.init or ()))
                gl.append(f"    {{{c_string(v.name)}, {cname_var(v.name)}, {size}u}}")
        gl += [f"    {{{c_string(n)}, {addr}, {size}u}}"
               for n, addr, size in getattr(tr, "extra_globals", ())]
        if gl:
            out.append("static const pyshim_global_desc ps_globals[] = {\n"
                       + ",\n".join(gl) + "\n};")
        out.append(
            '__attribute__((visibility("default"))) const pyshim_module_desc pyshim_module = '
            f"{{PYSHIM_KABI_VERSION, {len(descs)}u, {'ps_kernels' if descs else 'NULL'}, "
            f"{len(gl)}u, {'ps_globals' if gl else 'NULL'}, {c_string(self.name)}}};")
        return "\n".join(out)


def _uses_shared(k: ir.Function, fe) -> bool:
    """Whether thread-loop kernel k needs the block's shared window (cpu.h): its body spells
    it (FunctionEmitter.shared_window) or declares shared memory."""
    return ((fe is not None and fe.shared)
            or any(type(s) is ir.Var and s.space == "shared" for s in k.body or ()))


def _loop_mode(k: ir.Function, fe) -> bool:
    """Whether kernel k runs as the plain thread loop (no barriers or collectives)."""
    return k.info.mode not in ("fiber", "phase") and not (fe is not None
                                                                  and fe.form.phase)


def _phase_locals(k: ir.Function, decls: list[tuple[str, tuple[str, ...]]]
                  ) -> tuple[list[str], list[str], set[str]]:
    """Phase mode: registers not live at any resume point (passes/liveness.py) become locals
    of the phase function instead of members of the per-thread context. Returns the
    context's member declarations, the local declarations and the registers moved."""
    live = k.info.phase_live
    every = [f"{ct} {', '.join(names)};" for ct, names in decls]
    if live is None or not all(word(x) for _, names in decls for x in names):
        return every, [], set()
    keep = {cname_reg(n) for n in live}
    members, local, moved = [], [], set()
    for ct, names in decls:
        kept = [x for x in names if x in keep]
        gone = [x for x in names if x not in keep]
        if kept:
            members.append(f"{ct} {', '.join(kept)};")
        if gone:
            local.append(f"{ct} {', '.join(gone)};")
            moved.update(gone)
    return members, local, moved
