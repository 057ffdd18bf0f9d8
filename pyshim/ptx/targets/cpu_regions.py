"""The CPU device's region loops: a phase-mode kernel run as one loop over the block's
threads per region (the code between two synchronisation points), PoCL-style."""

from __future__ import annotations

import re

from pyshim.ptx import ir
from pyshim.ptx.function import cname_label
from pyshim.ptx.layout import param_layout
from pyshim.ptx.passes.regions import exit_labels
from pyshim.ptx.targets.base import RESUME_MARK

_BARRIER = re.compile(r"\{ return (\d+)u; \} ps_at_\1: ;")
REG = re.compile(r"L->r\.(\w+)")
DECL = re.compile(r"^([A-Za-z_][\w ]*?) (\w+(?:, \w+)*);$")


def param_copies(k: ir.Function) -> list[str]:
    """run_block lines copying the kernel's parameters into the local buffer ps_pb."""
    layout, total = param_layout(k.params)
    return [f"    PS_ALIGN(16) uint8_t ps_pb[{max(total, 1)}];",
            *(f"    memcpy(ps_pb + {o}, params[{j}], {s});"
              for j, (o, s, _a) in enumerate(layout) if s)]



def region_kernel(index: int, k: ir.Function, body: str, fe) -> str | None:
    """A phase-mode kernel whose barriers every thread reaches in order
    (passes/regions.py) as region loops: the code between two barriers runs as one loop
    over the block's threads, then the next region's loop, with no resume switch and no
    scheduler. Registers used in one region only are plain locals; those used in several
    (live across a barrier) are per-thread arrays, one per register (struct of arrays).
    A thread that returns is marked done and skipped by the later regions (PTX: exited
    threads no longer take part in barriers). Returns None, and the caller falls back to
    phases, when the body is not in the shape this expects."""
    if fe.phase_array_sizes or RESUME_MARK not in body:
        return None
    prologue, code = body.split(RESUME_MARK, 1)
    parts = _BARRIER.split(code)
    regions = parts[0::2]
    if len(regions) != k.info["regions"] + 1 or any("ps_at_" in r for r in regions):
        return None
    types: dict[str, str] = {}
    for line in fe.phase_decls:
        m = DECL.match(line.strip())
        if not m:
            return None
        for name in m.group(2).split(", "):
            types[name] = m.group(1)
    used = [set(REG.findall(r)) for r in regions]
    if any(n not in types for u in used for n in u):
        return None
    crossing = sorted(n for n in types if sum(n in u for u in used) > 1)
    cross = set(crossing)
    local = [f"    {types[n]} {n};" for n in types if n not in cross]

    def reg(m: re.Match) -> str:
        n = m.group(1)
        return f"ps_s_{n}[ps_i]" if n in cross else n

    loops = []
    exits = False
    exit_gotos = [f"goto {cname_label(n)};" for n in exit_labels(k.body or [])]
    for j, r in enumerate(regions):
        exited = exits  # whether threads may have exited in an earlier region
        r = REG.sub(reg, r)
        for g in exit_gotos:  # a branch to `ret` past later barriers: this thread is done
            if g in r:
                exits = True
                r = r.replace(g, f"goto ps_exit_{j};")
        if "return 0;" in r:
            exits = True
            r = r.replace("return 0;", f"goto ps_exit_{j};")
        if re.search(r"\breturn\b", r):
            return None
        loops += [f"    /* region {j} */",
                  "    ps_i = 0;",
                  "    for (uint32_t z = 0; z < nz; z++)",
                  "        for (uint32_t y = 0; y < ny; y++) {",
                  "            c.tid_y = y; c.tid_z = z;",
                  "            for (uint32_t x = 0; x < nx; x++, ps_i++) {",
                  "                if (ps_done[ps_i]) continue;" if exited else "",
                  "                c.tid_x = x; c.linear = ps_i;",
                  r,
                  f"                goto ps_next_{j};",
                  f"                ps_exit_{j}: ps_done[ps_i] = 1;",
                  f"                ps_next_{j}: ;",
                  "            }",
                  "        }",
                  "    if (trap) return trap;"]
    static = k.info.get("shared_size", 0)
    arrays = []
    for n in crossing:
        # restrict: the kernel cannot address these arrays (they are the pyshim's own)
        arrays += [f"    {types[n]} *restrict ps_s_{n} = ({types[n]} *)(ps_buf + ps_off);",
                   f"    ps_off += ((uint64_t)n * sizeof({types[n]}) + 63) & ~63ull;"]
    return "\n".join([
        f"/* kernel {k.name}: phases between barriers, as {len(regions)} region loops */",
        f"static int k{index}_run_block(const pyshim_launch *lp, const pyshim_block *b,"
        " void *const *params) {",
        "    int trap = 0;",
        "    ps_tctx c;",
        f"    if (ps_ctx_init(&c, lp, b, params, {static}u, &trap)) return 2;",
        *param_copies(k),
        "    ps_tctx *ctx = &c;",
        "    const uint32_t nx = c.ntid_x, ny = c.ntid_y, nz = c.ntid_z, n = c.nthreads;",
        "    uint32_t ps_i;",
        prologue,
        *local,
        "    uint64_t ps_size = 64;",
        *(f"    ps_size += ((uint64_t)n * sizeof({types[nm]}) + 63) & ~63ull;"
          for nm in crossing),
        "    uint8_t *ps_buf = (uint8_t *)ps_phase_buffer(ps_size + n);",
        "    if (!ps_buf) return 2;",
        "    uint64_t ps_off = 0;",
        *arrays,
        "    uint8_t *ps_done = ps_buf + ps_off;",
        f"    memset(ps_done, 0, n);{'' if exits else ' /* no thread exits early */'}",
        *loops,
        "    return 0;",
        "}"])
