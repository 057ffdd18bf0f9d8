"""Dynamic parallelism in the translator (ptx/targets/cpu/devrt.py, preludes/cdp_cpu.h):
libcudadevrt's `__cuda_syscall_cnpv2*` externs become calls of the device runtime in the
launch record, with their arguments as the runtime reads them (a dim3 as x | y << 32, z)
and their results at their widths, from the calling thread (loops and phases, both wave
modes); a kernel's address is its descriptor; a syscall of another signature stays refused
by name; targets without a device runtime refuse by name. (Running real children: the nvcc
program of test_runtime_dynamic_parallelism.py on the CPU device.)"""

from __future__ import annotations

import ctypes
from pathlib import Path

import numpy as np
import pytest
from ptx.harness import DEVRT, KernelDesc, build

from pyshim.ptx.errors import PtxError
from pyshim.ptx.translate import translate

DECLS = """
.version 8.5
.target sm_80
.address_size 64
.extern .func (.param .b64 func_retval0) __cuda_syscall_cnpv2GetParameterBufferV2
(.param .b64 p0, .param .align 4 .b8 p1[12], .param .align 4 .b8 p2[12], .param .b32 p3);
.extern .func (.param .b32 func_retval0) __cuda_syscall_cnpv2LaunchDeviceV2
(.param .b64 p0, .param %(stream)s p1);
.extern .func (.param .b32 func_retval0) __cuda_syscall_cnpv2GetLastError ();
.visible .entry child(.param .u64 out, .param .u32 v)
{
ret;
}
"""

# each thread asks for a buffer for `child` with grid (tid + 2, 3, 4), block (32, 1, 1),
# 16 bytes of shared memory, writes its value into it, launches it fire-and-forget and reads
# its last error; then stores what it got: the kernel's address, the buffer, both results
PARENT = """
.visible .entry parent(.param .u64 out)
{
.reg .b32 %%r<8>;
.reg .b64 %%rd<8>;
mov.u64 %%rd1, child;
mov.u32 %%r1, %%tid.x;
add.u32 %%r2, %%r1, 2;
{
.param .b64 param0;
st.param.b64 [param0], %%rd1;
.param .align 4 .b8 param1[12];
st.param.b32 [param1], %%r2;
st.param.b32 [param1+4], 3;
st.param.b32 [param1+8], 4;
.param .align 4 .b8 param2[12];
st.param.b32 [param2], 32;
st.param.b32 [param2+4], 1;
st.param.b32 [param2+8], 1;
.param .b32 param3;
st.param.b32 [param3], 16;
.param .b64 retval0;
call.uni (retval0), __cuda_syscall_cnpv2GetParameterBufferV2, (param0, param1, param2, param3);
ld.param.b64 %%rd2, [retval0];
}
st.u32 [%%rd2+8], %%r2;
%(sync)s
{
.param .b64 param0;
st.param.b64 [param0], %%rd2;
.param %(stream)s param1;
st.param%(stream)s [param1], 4;
.param .b32 retval0;
call.uni (retval0), __cuda_syscall_cnpv2LaunchDeviceV2, (param0, param1);
ld.param.b32 %%r3, [retval0];
}
{
.param .b32 retval0;
call.uni (retval0), __cuda_syscall_cnpv2GetLastError, ();
ld.param.b32 %%r4, [retval0];
}
ld.param.u64 %%rd3, [out];
mul.wide.u32 %%rd4, %%r1, 32;
add.u64 %%rd5, %%rd3, %%rd4;
st.global.u64 [%%rd5], %%rd1;
st.global.u64 [%%rd5+8], %%rd2;
st.global.u32 [%%rd5+16], %%r3;
st.global.u32 [%%rd5+20], %%r4;
ret;
}
"""


def module(sync: bool, stream: str = ".b64") -> str:
    fill = {"sync": "bar.sync 0;" if sync else "", "stream": stream}
    return DECLS % fill + PARENT % fill


@pytest.mark.parametrize("wave", [64, 32])
@pytest.mark.parametrize("sync", [False, True], ids=["loop", "barrier"])
def test_syscalls_reach_the_runtime(tmp_path: Path, wave: int, sync: bool) -> None:
    m = build(module(sync), f"cpu-wave{wave}", tmp_path)
    threads = 3
    buffers = [ctypes.create_string_buffer(64) for _ in range(threads)]
    calls: list[tuple[int, int, list[int]]] = []
    nargs = {1: 6, 2: 2, 3: 0}

    def devrt(_launch, _block, thread, op, args):
        calls.append((thread, op, [args[i] for i in range(nargs[op])]))
        if op == 1:
            return ctypes.addressof(buffers[thread])
        return 100 + thread if op == 2 else 200 + op + thread

    fn = DEVRT(devrt)
    out = np.zeros(threads * 4, dtype=np.uint64)
    m.launch("parent", (1,), (threads,), [out], warp_size=wave, devrt=fn)
    kernels = m.desc.kernels
    child = ctypes.addressof(kernels.contents) + ctypes.sizeof(KernelDesc) * [
        kernels[i].name for i in range(m.desc.num_kernels)].index(b"child")
    rows = out.reshape(threads, 4)
    for t in range(threads):
        mine = [c for c in calls if c[0] == t]
        assert [c[1] for c in mine] == [1, 2, 3], calls
        assert mine[0][2] == [child, (t + 2) | 3 << 32, 4, 32 | 1 << 32, 1, 16]
        assert mine[1][2] == [ctypes.addressof(buffers[t]), 4]
        assert int(rows[t, 0]) == child and int(rows[t, 1]) == ctypes.addressof(buffers[t])
        assert int(rows[t, 2]) & 0xFFFFFFFF == 100 + t
        assert int(rows[t, 2]) >> 32 == 200 + 3 + t
        # the kernel wrote its value into the buffer it was given
        assert int.from_bytes(buffers[t].raw[8:12], "little") == t + 2


PROBE = """
.visible .entry probe(.param .u64 out)
{
.reg .b32 %r<4>;
.reg .b64 %rd<4>;
mov.u64 %rd1, child;
{
.param .b64 param0;
st.param.b64 [param0], %rd1;
.param .align 4 .b8 param1[12];
st.param.b32 [param1], 1;
st.param.b32 [param1+4], 1;
st.param.b32 [param1+8], 1;
.param .align 4 .b8 param2[12];
st.param.b32 [param2], 1;
st.param.b32 [param2+4], 1;
st.param.b32 [param2+8], 1;
.param .b32 param3;
st.param.b32 [param3], 0;
.param .b64 retval0;
call.uni (retval0), __cuda_syscall_cnpv2GetParameterBufferV2, (param0, param1, param2, param3);
ld.param.b64 %rd2, [retval0];
}
{
.param .b64 param0;
st.param.b64 [param0], %rd2;
.param .b64 param1;
st.param.b64 [param1], 0;
.param .b32 retval0;
call.uni (retval0), __cuda_syscall_cnpv2LaunchDeviceV2, (param0, param1);
ld.param.b32 %r1, [retval0];
}
ld.param.u64 %rd3, [out];
st.global.u64 [%rd3], %rd2;
st.global.u32 [%rd3+8], %r1;
ret;
}
"""


def test_without_a_runtime_there_is_no_buffer(tmp_path: Path) -> None:
    # a launch record with no device runtime (a harness's): a NULL buffer, and a launch
    # answers CNP error 2, which libcudadevrt reports as cudaErrorStartupFailure
    m = build(DECLS % {"stream": ".b64"} + PROBE, "cpu-wave64", tmp_path)
    out = np.full(2, 0xAAAAAAAAAAAAAAAA, dtype=np.uint64)
    m.launch("probe", (1,), (1,), [out])
    assert int(out[0]) == 0 and int(out[1]) & 0xFFFFFFFF == 2


def test_only_modules_that_launch_get_the_prelude() -> None:
    plain = DECLS % {"stream": ".b64"}
    src = translate(plain, "cpu-wave64")
    assert "ps_cdp" not in src and "static const pyshim_kernel_desc ps_kernels[1];" not in src
    src = translate(module(False), "cpu-wave64")
    assert "ps_cdp(ctx, PYSHIM_DEVRT_LAUNCH" in src
    assert "static const pyshim_kernel_desc ps_kernels[2];" in src


def test_a_syscall_of_another_signature_stays_refused() -> None:
    stats: dict = {}
    translate(module(False, stream=".b32"), "cpu-wave64", stats=stats)
    assert "call to external function __cuda_syscall_cnpv2LaunchDeviceV2" in \
        stats["unsupported"]["parent"]


@pytest.mark.parametrize("target", ["hip-wave64", "hip-wave32"])
def test_gpu_targets_refuse_by_name(target: str) -> None:
    stats: dict = {}
    translate(module(False), target, stats=stats)
    why = stats["unsupported"]["parent"]
    assert "dynamic parallelism" in why and target in why, why


def test_gpu_target_names_the_launch_when_the_module_cannot_load() -> None:
    # libcudadevrt's globals hold addresses, which GPU targets do not relocate: the module
    # fails as a whole, and says it is for the device runtime
    src = module(False).replace(".visible .entry child", ".global .align 8 .u64 table = "
                                "generic(tab0);\n.global .align 4 .b8 tab0[4];\n"
                                ".visible .entry child")
    src = src.replace("{\nret;\n}", """{
{
.param .b64 param0;
st.param.b64 [param0], 0;
.param .b64 param1;
st.param.b64 [param1], 0;
.param .b32 retval0;
call.uni (retval0), __cuda_syscall_cnpv2LaunchDeviceV2, (param0, param1);
}
ret;
}""", 1)
    with pytest.raises(PtxError, match="dynamic parallelism: child calls "
                                       "__cuda_syscall_cnpv2LaunchDeviceV2"):
        translate(src, "hip-wave64")


def test_a_kernel_that_cannot_run_says_why_when_it_is_launched(tmp_path: Path, capfd) -> None:
    # libcuda refuses a host launch of it by name; a launch from device code reaches the
    # stub itself, which says why once and traps (the parent's launch then fails)
    src = """
.version 8.5
.target sm_80
.address_size 64
.extern .func (.param .b32 func_retval0) __cuda_syscall_cnpv2DeviceGetAttribute
(.param .b64 p0, .param .b32 p1, .param .b32 p2);
.visible .entry k(.param .u64 out)
{
.reg .b32 %r<2>;
.reg .b64 %rd<2>;
ld.param.u64 %rd1, [out];
{
.param .b64 param0;
st.param.b64 [param0], %rd1;
.param .b32 param1;
st.param.b32 [param1], 1;
.param .b32 param2;
st.param.b32 [param2], 0;
.param .b32 retval0;
call.uni (retval0), __cuda_syscall_cnpv2DeviceGetAttribute, (param0, param1, param2);
ld.param.b32 %r1, [retval0];
}
ret;
}
.visible .entry fine() { ret; }
"""
    m = build(src, "cpu-wave64", tmp_path)
    out = np.zeros(1, dtype=np.uint64)
    with pytest.raises(RuntimeError, match="returned 1"):
        m.launch("k", (1,), (4,), [out])
    with pytest.raises(RuntimeError, match="returned 1"):
        m.launch("k", (1,), (4,), [out])
    err = capfd.readouterr().err
    assert err.count("pyshim: kernel k cannot run:") == 1, err
    assert "__cuda_syscall_cnpv2DeviceGetAttribute" in err
    m.launch("fine", (1,), (1,), [])
    # GPU targets' stubs stay as they were
    assert "ps_said" not in translate(src, "hip-wave64")
