"""Defines the device-runtime syscalls a module declares `.extern` and NVIDIA's driver would
supply: the `__cuda_syscall_CGS_*` entries of cooperative groups.

libcudadevrt (linked by numba-cuda and by `nvcc -rdc` programs that call
`cudaCGGetIntrinsicHandle` / `cudaCGSynchronize`) carries PTX that ends in calls to these
externs; the real driver resolves them at load time. Here each gets a PTX body of our own,
written against the same grid-sync workspace nvcc's inline cooperative_groups code uses
(%envreg1:%envreg2, 0 outside a cooperative launch), so the existing barrier, atomics and
spin-wait machinery of every target runs them. A syscall with no body here stays an extern
and is refused by name as before.
"""

from __future__ import annotations

import copy
from functools import cache

from pyshim.ptx import ir

# The workspace is { u32 size; u32 barrier; } (cooperative_groups' grid_workspace). The
# barrier is nvcc's: every block's thread 0 adds 1, block 0 adds 0x80000000 - (blocks - 1),
# so the top bit flips exactly when the last block arrives; each waits for that flip.
# Outside a cooperative launch there is no workspace: the grid's handle is then 1 (never 0,
# which libcudadevrt's cudaCGSynchronize answers with 999 without syncing, a result numba
# ignores), and a sync on it traps, as nvcc's inline grid.sync() does here: the launch fails
# instead of running on unsynchronised.
_SYSCALLS_PTX = """
.version 6.0
.target sm_70
.address_size 64

.func (.param .b64 ps_ret) __cuda_syscall_CGS_get_intrinsic_handle (.param .b32 ps_scope)
{
    .reg .pred %p<2>;
    .reg .b32 %r<4>;
    .reg .b64 %rd<2>;
    ld.param.b32 %r1, [ps_scope];
    mov.u32 %r2, %envreg1;
    mov.u32 %r3, %envreg2;
    mov.b64 %rd1, {%r3, %r2};
    setp.eq.u64 %p1, %rd1, 0;
    @%p1 mov.u64 %rd1, 1;
    setp.ne.u32 %p1, %r1, 1;
    @%p1 mov.u64 %rd1, 0;
    st.param.b64 [ps_ret], %rd1;
    ret;
}

.func (.param .b32 ps_ret) __cuda_syscall_CGS_sync (.param .b64 ps_handle, .param .b32 ps_flags)
{
    .reg .pred %p<4>;
    .reg .b32 %r<16>;
    .reg .b64 %rd<3>;
    ld.param.b64 %rd1, [ps_handle];
    setp.eq.u64 %p1, %rd1, 0;
    @%p1 bra NO_HANDLE;
    setp.eq.u64 %p1, %rd1, 1;
    @%p1 trap;
    add.u64 %rd2, %rd1, 4;
    bar.sync 0;
    mov.u32 %r1, %tid.x;
    mov.u32 %r2, %tid.y;
    mov.u32 %r3, %tid.z;
    or.b32 %r4, %r1, %r2;
    or.b32 %r4, %r4, %r3;
    setp.ne.u32 %p2, %r4, 0;
    @%p2 bra DONE;
    mov.u32 %r5, %ctaid.x;
    mov.u32 %r6, %ctaid.y;
    mov.u32 %r7, %ctaid.z;
    or.b32 %r8, %r5, %r6;
    or.b32 %r8, %r8, %r7;
    mov.u32 %r9, %nctaid.x;
    mov.u32 %r10, %nctaid.y;
    mov.u32 %r11, %nctaid.z;
    mul.lo.u32 %r12, %r9, %r10;
    mul.lo.u32 %r12, %r12, %r11;
    sub.u32 %r13, 0x80000001, %r12;
    setp.ne.u32 %p3, %r8, 0;
    @%p3 mov.u32 %r13, 1;
    membar.gl;
    atom.global.add.u32 %r14, [%rd2], %r13;
SPIN:
    ld.volatile.global.u32 %r15, [%rd2];
    xor.b32 %r15, %r15, %r14;
    and.b32 %r15, %r15, 0x80000000;
    setp.eq.u32 %p3, %r15, 0;
    @%p3 bra SPIN;
    membar.gl;
DONE:
    bar.sync 0;
    mov.u32 %r1, 0;
    st.param.b32 [ps_ret], %r1;
    ret;
NO_HANDLE:
    mov.u32 %r1, 999;
    st.param.b32 [ps_ret], %r1;
    ret;
}
"""


@cache
def _definitions() -> dict[str, ir.Function]:
    from pyshim.ptx.frontend.parser import parse
    from pyshim.ptx.frontend.validate import validate

    module = parse(_SYSCALLS_PTX)
    validate(module)
    return {f.name: f for f in module.functions}


def run(module: ir.Module) -> ir.Module:
    defs = None
    for i, fn in enumerate(module.functions):
        if fn.body is not None or not fn.name.startswith("__cuda_syscall_"):
            continue
        defs = defs if defs is not None else _definitions()
        body = defs.get(fn.name)
        if body is None:
            continue
        if ([p.type for p in fn.params] != [p.type for p in body.params]
                or [r.type for r in fn.returns] != [r.type for r in body.returns]):
            continue  # another signature than the one implemented: leave it refused
        mine = copy.deepcopy(body)
        mine.tok = fn.tok
        module.functions[i] = mine
    return module
