"""The CPU device: one C11 file per module, a `run_block` per kernel, `pyshim_module`.

Barrier- and collective-free kernels run as a plain loop over the block's threads with the
kernel body inlined; the others run every thread as a fiber (preludes/cpu.h).
"""

from __future__ import annotations

from pyshim.ptx import ir
from pyshim.ptx.function import cname_var
from pyshim.ptx.layout import param_layout, var_bytes
from pyshim.ptx.targets.base import Target


def c_string(s: str) -> str:
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


class CpuTarget(Target):
    prelude_files = ("cpu.h", "common.h", "atomics.h", "warp.h")
    extern_functions = frozenset(("vprintf", "__assertfail", "malloc", "free"))

    def __init__(self, wave_size: int = 64) -> None:
        self.wave_size = wave_size
        self.name = f"cpu-wave{wave_size}"

    def prelude(self) -> str:
        return super().prelude() + "\n#define PS_ALIGN(n) __attribute__((aligned(n)))\n"

    def kernel_param(self, fe, index: int, p: ir.Var) -> str:
        fe.scopes[0][p.name] = p
        return f"uint8_t *{cname_var(p.name)} = (uint8_t *)ctx->params[{index}];"

    def kernel(self, index: int, k: ir.Function, body: str) -> str:
        fiber = k.info.get("mode") == "fiber"
        inline = "" if fiber else "inline __attribute__((always_inline)) "
        static = k.info.get("shared_size", 0)
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
            maxnt = 1
            for d in k.directives.get("maxntid", []):
                maxnt *= d
            if "maxntid" not in k.directives:
                maxnt = 0
            req = (k.directives.get("reqntid", []) + [1, 1, 1])[:3] \
                if "reqntid" in k.directives else [0, 0, 0]
            minctas = (k.directives.get("minnctapersm") or [0])[0]
            descs.append(
                f"    {{{c_string(k.name)}, k{i}_run_block, {len(layout)}u, {total}u, "
                f"{f'k{i}_params' if layout else 'NULL'}, {k.info.get('shared_size', 0)}u, "
                f"{local}u, {maxnt}u, {{{req[0]}u, {req[1]}u, {req[2]}u}}, {minctas}u, "
                f"{min(regs, 255)}u}}")
        if descs:
            out.append("static const pyshim_kernel_desc ps_kernels[] = {\n"
                       + ",\n".join(descs) + "\n};")
        gl = []
        for v in tr.module.variables:
            if v.space in ("global", "const"):
                size = var_bytes(v)
                if v.dims and v.dims[0] == 0:
                    size = max(size, len(v.init or ()))
                gl.append(f"    {{{c_string(v.name)}, {cname_var(v.name)}, {size}u}}")
        if gl:
            out.append("static const pyshim_global_desc ps_globals[] = {\n"
                       + ",\n".join(gl) + "\n};")
        out.append(
            '__attribute__((visibility("default"))) const pyshim_module_desc pyshim_module = '
            f"{{PYSHIM_KABI_VERSION, {len(descs)}u, {'ps_kernels' if descs else 'NULL'}, "
            f"{len(gl)}u, {'ps_globals' if gl else 'NULL'}, {c_string(self.name)}}};")
        return "\n".join(out)
