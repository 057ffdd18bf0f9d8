"""A kernel whose body pyshim cannot translate fails alone (issue 18 point 2): the module
loads, its other kernels run, the kernel itself fails at launch with
CUDA_ERROR_NOT_SUPPORTED and a log line naming the instruction, and `pyshim check` counts
per kernel. Before, one unsupported instruction made the whole module fail to load."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from pyshim.builders.components import build_all
from pyshim.paths import build_dir

PTX = r""".version 7.5
.target sm_80
.address_size 64

.func (.param .b32 rv) broken(.param .b32 x)
{
    .reg .b32 %t<3>;
    ld.param.b32 %t1, [x];
    bogus.b32 %t2, %t1, 1;
    st.param.b32 [rv], %t2;
    ret;
}

.visible .entry good(.param .u64 out)
{
    .reg .b32 %r<2>; .reg .b64 %rd<2>;
    ld.param.u64 %rd1, [out];
    mov.u32 %r1, 42;
    st.global.u32 [%rd1], %r1;
    ret;
}

.visible .entry bad(.param .u64 out)
{
    .reg .b32 %r<3>; .reg .b64 %rd<2>;
    ld.param.u64 %rd1, [out];
    mov.u32 %r1, 7;
    tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%rd1], 32;
    st.global.u32 [%rd1], %r1;
    ret;
}

.visible .entry calls_broken(.param .u64 out)
{
    .reg .b32 %r<3>; .reg .b64 %rd<2>;
    ld.param.u64 %rd1, [out];
    mov.u32 %r1, 7;
    {
    .param .b32 p0;
    st.param.b32 [p0], %r1;
    .param .b32 r0;
    call.uni (r0), broken, (p0);
    ld.param.b32 %r2, [r0];
    }
    st.global.u32 [%rd1], %r2;
    ret;
}
"""

SCRIPT = r'''
import ctypes, sys
lib = ctypes.CDLL(sys.argv[1])
ptx = open(sys.argv[2], "rb").read() + b"\0"
assert lib.cuInit(0) == 0
ctx = ctypes.c_void_p()
assert lib.cuDevicePrimaryCtxRetain(ctypes.byref(ctx), 0) == 0
assert lib.cuCtxSetCurrent(ctx) == 0
mod = ctypes.c_void_p()
rc = lib.cuModuleLoadData(ctypes.byref(mod), ptx)
assert rc == 0, f"cuModuleLoadData: {rc}"
d = ctypes.c_uint64()
assert lib.cuMemAlloc_v2(ctypes.byref(d), 4) == 0

def launch(name):
    fn = ctypes.c_void_p()
    rc = lib.cuModuleGetFunction(ctypes.byref(fn), mod, name)
    assert rc == 0, f"cuModuleGetFunction({name}): {rc}"
    arg = ctypes.c_uint64(d.value)
    params = (ctypes.c_void_p * 1)(ctypes.addressof(arg))
    return lib.cuLaunchKernel(fn, 1, 1, 1, 1, 1, 1, 0, None, params, None)

def value():
    v = ctypes.c_uint32()
    assert lib.cuMemcpyDtoH_v2(ctypes.byref(v), d, 4) == 0
    return v.value

assert launch(b"good") == 0 and lib.cuCtxSynchronize() == 0 and value() == 42
zero = ctypes.c_uint32(0)
assert lib.cuMemcpyHtoD_v2(d, ctypes.byref(zero), 4) == 0
for name in (b"bad", b"calls_broken"):
    rc = launch(name)
    assert rc == 801, f"{name}: {rc}"  # CUDA_ERROR_NOT_SUPPORTED
    assert lib.cuCtxSynchronize() == 0  # refused, not failed: nothing sticky
    assert value() == 0, "a refused kernel ran"
assert launch(b"good") == 0 and lib.cuCtxSynchronize() == 0 and value() == 42
print("PASS per-kernel", flush=True)
'''


def test_translator_reports_per_kernel() -> None:
    from pyshim.ptx.translate import translate

    stats: dict = {}
    src = translate(PTX, "cpu-wave64", stats)
    assert set(stats["unsupported"]) == {"bad", "calls_broken"}
    assert "tcgen05.alloc" in stats["unsupported"]["bad"]
    assert "bogus" in stats["unsupported"]["calls_broken"]
    assert '"good"' in src  # still in the module descriptor, with the others


def test_a_module_with_no_translatable_kernel_still_fails_to_load() -> None:
    from pyshim.ptx.errors import UnsupportedInstruction
    from pyshim.ptx.translate import translate

    only_bad = PTX.split(".visible .entry good")[0] + ".visible .entry bad" + \
        PTX.split(".visible .entry bad")[1].split(".visible .entry calls_broken")[0]
    with pytest.raises(UnsupportedInstruction, match="tcgen05"):
        translate(only_bad, "cpu-wave64")


def test_check_counts_per_kernel() -> None:
    from pyshim.check.translate_probe import dry_run

    out = dry_run(PTX)
    assert out.translates is True
    bad = dict(out.kernel_errors)
    assert set(bad) == {"bad", "calls_broken"} and "tcgen05" in bad["bad"]


@pytest.fixture(scope="module")
def libcuda() -> Path:
    build_all()
    return build_dir() / "lib" / "libcuda.so.1"


@pytest.mark.parametrize("lazy", (False, True), ids=("eager", "lazy"))
def test_only_the_kernel_fails(libcuda: Path, tmp_path: Path, lazy: bool) -> None:
    (tmp_path / "m.ptx").write_text(PTX)
    (tmp_path / "host.py").write_text(SCRIPT)
    env = dict(os.environ, LD_LIBRARY_PATH=str(build_dir() / "cpu"), PYSHIM_BACKEND="cpu",
               PYSHIM_CACHE=str(tmp_path / "cache"))
    if lazy:
        env["PYSHIM_LAZY_MIN_LINES"] = "1"
    out = subprocess.run([sys.executable, str(tmp_path / "host.py"), str(libcuda),
                          str(tmp_path / "m.ptx")], capture_output=True, text=True, env=env,
                         timeout=300)
    if lazy:  # lazily the kernel is translated alone at cuModuleGetFunction, and fails there
        assert "cuModuleGetFunction(b'bad'): 218" in out.stderr, out.stdout + out.stderr
        return
    assert out.returncode == 0, out.stdout + out.stderr
    assert "PASS per-kernel" in out.stdout
    assert "tcgen05.alloc" in out.stderr and "bogus" in out.stderr  # named in the log
