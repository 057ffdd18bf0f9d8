"""The frame of the one-element-per-thread PTX kernels in the scoped-register tests
(test_ptx_scoped_regs.py, test_ptx_scoped_uniform.py): thread t loads the 32 bits of in[t],
runs the test's own instructions, and stores one register to out[t]."""

from __future__ import annotations


def per_thread_kernel(head: str, name: str, regs: str, body: str, store: str) -> str:
    """The kernel `name(.param .u64 in, .param .u64 out)` after the module header `head`:
    `regs` are its register declarations; `body` (PTX lines) may read %r0 (t) and %r1
    (in[t]) and must leave %rd2 (out) and %rd3 (t * 4) alone; `store` is the instruction
    that writes out[t] at [%rd5]."""
    return (f"{head}.visible .entry {name}(.param .u64 in, .param .u64 out)\n{{\n{regs}"
            "  ld.param.u64 %rd1, [in];\n"
            "  ld.param.u64 %rd2, [out];\n"
            "  mov.u32 %r0, %tid.x;\n"
            "  mul.wide.u32 %rd3, %r0, 4;\n"
            "  add.s64 %rd4, %rd1, %rd3;\n"
            "  ld.global.u32 %r1, [%rd4];\n"
            f"{body}"
            "  add.s64 %rd5, %rd2, %rd3;\n"
            f"  {store}\n"
            "  ret;\n"
            "}\n")
