"""ptx/passes/device_syscalls.py: the driver-supplied `__cuda_syscall_CGS_*` externs that
libcudadevrt's PTX calls get bodies of pyshim's own; one declared with another signature
stays an extern and is refused by name, as any unknown extern is. (Running them: the
libcudadevrt tests of test_cooperative.py and numba_usage.py in the client tier.)"""

from __future__ import annotations

import pytest

from pyshim.ptx.errors import PtxError
from pyshim.ptx.translate import translate

MODULE = """
.version 8.5
.target sm_86
.address_size 64
.extern .func (.param .b64 func_retval0) __cuda_syscall_CGS_get_intrinsic_handle
(
.param .b32 p0
)
;
.extern .func (.param .b32 func_retval0) __cuda_syscall_CGS_sync
(
.param .b64 p0,
.param %(flags)s p1
)
;
.visible .entry k(.param .u64 out)
{
.reg .b32 %%r<3>;
.reg .b64 %%rd<4>;
{
.param .b32 param0;
st.param.b32 [param0], 1;
.param .b64 retval0;
call.uni (retval0), __cuda_syscall_CGS_get_intrinsic_handle, (param0);
ld.param.b64 %%rd1, [retval0];
}
{
.param .b64 param0;
st.param.b64 [param0], %%rd1;
.param %(flags)s param1;
st.param%(flags)s [param1], 0;
.param .b32 retval0;
call.uni (retval0), __cuda_syscall_CGS_sync, (param0, param1);
ld.param.b32 %%r1, [retval0];
}
ld.param.u64 %%rd2, [out];
st.global.u32 [%%rd2], %%r1;
ret;
}
"""


@pytest.mark.parametrize("target", ["cpu-wave64", "cpu-wave32"])
def test_grid_syscalls_are_defined(target: str) -> None:
    src = translate(MODULE % {"flags": ".b32"}, target)
    assert "__cuda_syscall_CGS_sync" in src  # a function of the module now, not an extern


def test_a_syscall_of_another_signature_stays_refused() -> None:
    with pytest.raises(PtxError, match="__cuda_syscall_CGS_sync"):
        translate(MODULE % {"flags": ".b64"}, "cpu-wave64")
