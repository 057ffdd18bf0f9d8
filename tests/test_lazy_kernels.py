"""Lazy per-kernel translation of huge modules (issue 23 point 1, pyshim/kernels/lazy.py):
a module load indexes its kernels, each kernel is translated at first use with the
functions it calls, and all kernels of one loaded module share its variables."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import pytest

from pyshim.builders.components import build_all
from pyshim.paths import build_dir

pytestmark = pytest.mark.skipif(
    importlib.util.find_spec("pyshim.kernels.loader") is None,
    reason="pyshim.kernels.loader (the PTX translator) does not exist yet",
)

PTX = r""".version 7.5
.target sm_75
.address_size 64

.global .align 4 .u32 counter;
.global .align 4 .b8 table[16] = {1, 0, 0, 0, 2, 0, 0, 0, 3, 0, 0, 0, 4, 0, 0, 0};

.func (.param .b32 rv) twice(.param .b32 x)
{
    .reg .b32 %t<3>;
    ld.param.b32 %t1, [x];
    shl.b32 %t2, %t1, 1;
    st.param.b32 [rv], %t2;
    ret;
}

.func (.param .b32 rv) four(.param .b32 x)
{
    .reg .b32 %t<3>;
    ld.param.b32 %t1, [x];
    {
    .param .b32 p0;
    st.param.b32 [p0], %t1;
    .param .b32 r0;
    call.uni (r0), twice, (p0);
    ld.param.b32 %t2, [r0];
    }
    add.u32 %t2, %t2, %t2;
    st.param.b32 [rv], %t2;
    ret;
}

.func (.param .b32 rv) unrelated(.param .b32 x)
{
    .reg .b32 %t<2>;
    ld.param.b32 %t1, [x];
    st.param.b32 [rv], %t1;
    ret;
}

.visible .entry put(.param .u32 v)
{
    .reg .b32 %r<4>;
    ld.param.u32 %r1, [v];
    {
    .param .b32 p0;
    st.param.b32 [p0], %r1;
    .param .b32 r0;
    call.uni (r0), twice, (p0);
    ld.param.b32 %r2, [r0];
    }
    st.global.u32 [counter], %r2;
    ret;
}

.visible .entry get(.param .u64 out)
{
    .reg .b32 %r<5>;
    .reg .b64 %rd<3>;
    ld.param.u64 %rd1, [out];
    cvta.to.global.u64 %rd2, %rd1;
    ld.global.u32 %r1, [counter];
    ld.global.u32 %r3, [table+8];
    {
    .param .b32 p0;
    st.param.b32 [p0], %r1;
    .param .b32 r0;
    call.uni (r0), four, (p0);
    ld.param.b32 %r2, [r0];
    }
    add.u32 %r4, %r2, %r3;
    st.global.u32 [%rd2], %r4;
    ret;
}

.visible .entry idle(.param .u64 out)
{
    .reg .b32 %r<3>;
    .reg .b64 %rd<3>;
    ld.param.u64 %rd1, [out];
    cvta.to.global.u64 %rd2, %rd1;
    {
    .param .b32 p0;
    st.param.b32 [p0], %r1;
    .param .b32 r0;
    call.uni (r0), unrelated, (p0);
    ld.param.b32 %r2, [r0];
    }
    st.global.u32 [%rd2], %r2;
    ret;
}
"""

# a ctypes driver-API program: two loads of the module, globals before any launch,
# a global written by one kernel and read by another
SCRIPT = r'''
import ctypes, sys
lib = ctypes.CDLL(sys.argv[1])
ptx = open(sys.argv[2], "rb").read() + b"\0"
assert lib.cuInit(0) == 0
ctx = ctypes.c_void_p()
assert lib.cuDevicePrimaryCtxRetain(ctypes.byref(ctx), 0) == 0
assert lib.cuCtxSetCurrent(ctx) == 0
mods = [ctypes.c_void_p(), ctypes.c_void_p()]
for m in mods:
    rc = lib.cuModuleLoadData(ctypes.byref(m), ptx)
    assert rc == 0, f"cuModuleLoadData: {rc}"

def glob(mod, name):
    p, n = ctypes.c_uint64(), ctypes.c_size_t()
    rc = lib.cuModuleGetGlobal_v2(ctypes.byref(p), ctypes.byref(n), mod, name)
    assert rc == 0, f"cuModuleGetGlobal({name}): {rc}"
    return p.value, n.value

def u32(addr):
    v = ctypes.c_uint32()
    assert lib.cuMemcpyDtoH_v2(ctypes.byref(v), ctypes.c_uint64(addr), 4) == 0
    return v.value

def launch(mod, name, *args):
    fn = ctypes.c_void_p()
    rc = lib.cuModuleGetFunction(ctypes.byref(fn), mod, name)
    assert rc == 0, f"cuModuleGetFunction({name}): {rc}"
    params = (ctypes.c_void_p * len(args))(*[ctypes.addressof(a) for a in args])
    assert lib.cuLaunchKernel(fn, 1, 1, 1, 1, 1, 1, 0, None, params, None) == 0
    assert lib.cuCtxSynchronize() == 0

# before any launch: the variables exist, with their initial values
c0, size = glob(mods[0], b"counter")
c1, _ = glob(mods[1], b"counter")
assert size == 4 and c0 != c1, (size, c0, c1)
t0, tsize = glob(mods[0], b"table")
assert tsize == 16 and u32(t0 + 8) == 3
count = ctypes.c_uint()
assert lib.cuModuleGetFunctionCount(ctypes.byref(count), mods[0]) == 0 and count.value == 3
funcs = (ctypes.c_void_p * 3)()
assert lib.cuModuleEnumerateFunctions(funcs, 3, mods[0]) == 0
print("before-launch", flush=True)
seven = ctypes.c_uint32(7)
assert lib.cuMemcpyHtoD_v2(ctypes.c_uint64(c1), ctypes.byref(seven), 4) == 0
launch(mods[0], b"put", ctypes.c_uint32(21))
assert u32(c0) == 42, u32(c0)
assert u32(c1) == 7, "two loads of one module share a variable"
d = ctypes.c_uint64()
assert lib.cuMemAlloc_v2(ctypes.byref(d), 4) == 0
launch(mods[0], b"get", d)
assert u32(d.value) == 4 * 42 + 3, u32(d.value)
launch(mods[1], b"get", d)
assert u32(d.value) == 4 * 7 + 3, u32(d.value)
bad = ctypes.c_void_p()
assert lib.cuModuleGetFunction(ctypes.byref(bad), mods[0], b"nothere") != 0
print("PASS lazy", flush=True)
'''


@pytest.fixture(scope="module")
def libcuda() -> Path:
    build_all()
    return build_dir() / "lib" / "libcuda.so.1"


def run(libcuda: Path, tmp_path: Path, **env: str) -> tuple[subprocess.CompletedProcess[str],
                                                            list[str]]:
    (tmp_path / "m.ptx").write_text(PTX)
    (tmp_path / "host.py").write_text(SCRIPT)
    report = tmp_path / "report.raw"
    full = dict(os.environ, LD_LIBRARY_PATH=str(build_dir() / "cpu"), PYSHIM_BACKEND="cpu",
                PYSHIM_CACHE=str(tmp_path / "cache"), PYSHIM_REPORT=str(report), **env)
    out = subprocess.run([sys.executable, str(tmp_path / "host.py"), str(libcuda),
                          str(tmp_path / "m.ptx")], capture_output=True, text=True, env=full,
                         timeout=300)
    lines = report.read_text().splitlines() if report.exists() else []
    return out, [x for x in lines if x.startswith("kernel ")]


def test_lazy_module_translates_only_launched_kernels(libcuda: Path, tmp_path: Path) -> None:
    out, kernels = run(libcuda, tmp_path, PYSHIM_LAZY_MIN_LINES="1")
    assert out.returncode == 0, out.stdout + out.stderr
    assert "PASS lazy" in out.stdout
    translated = {x.split()[1] for x in kernels if x.split()[2] == "translated"}
    indexed = {x.split()[1] for x in kernels if x.split()[2] == "indexed"}
    assert indexed == {"put", "get", "idle"}, kernels
    # never idle (enumerated, never launched), never the whole module
    assert translated == {"put", "get"}, kernels


def test_eager_loading_when_asked(libcuda: Path, tmp_path: Path) -> None:
    out, kernels = run(libcuda, tmp_path, PYSHIM_LAZY_MIN_LINES="1",
                       CUDA_MODULE_LOADING="EAGER")
    assert out.returncode == 0, out.stdout + out.stderr
    assert "PASS lazy" in out.stdout
    assert not [x for x in kernels if "indexed" in x], kernels
    assert {x.split()[1] for x in kernels} == {"put", "get", "idle"}


def test_kernel_module_holds_its_callees_only() -> None:
    from pyshim.kernels.lazy import Index

    index = Index(PTX.encode())
    assert index.kernels == ["put", "get", "idle"]
    get = index.kernel_module("get")
    assert "four" in get and "twice" in get and "unrelated" not in get
    assert ".entry put" not in get and ".global .align 4 .u32 counter" in get
    data = index.data_module()
    assert "counter" in data and ".func" not in data and ".entry" not in data
    with pytest.raises(KeyError):
        index.kernel_module("twice")


def test_ordinary_modules_stay_eager(monkeypatch: pytest.MonkeyPatch) -> None:
    from pyshim.kernels import lazy

    monkeypatch.delenv("PYSHIM_LAZY_MIN_LINES", raising=False)
    monkeypatch.delenv("PYSHIM_LAZY_MIN_KERNELS", raising=False)
    assert not lazy.wanted(PTX, "cpu-wave64")
    big = PTX + "\n" * lazy.LAZY_MIN_LINES
    assert lazy.wanted(big, "cpu-wave64")
    assert not lazy.wanted(big, "hip-wave64:gfx942")  # AMD: eager this session
    monkeypatch.setenv("CUDA_MODULE_LOADING", "EAGER")
    assert not lazy.wanted(big, "cpu-wave64")


BAD = r'''
import ctypes, sys
lib = ctypes.CDLL(sys.argv[1])
ptx = open(sys.argv[2], "rb").read()
ptx = ptx.replace(b"shl.b32 %t2, %t1, 1;", b"bogus.b32 %t2, %t1, 1;") + b"\0"
assert lib.cuInit(0) == 0
ctx = ctypes.c_void_p()
assert lib.cuDevicePrimaryCtxRetain(ctypes.byref(ctx), 0) == 0
assert lib.cuCtxSetCurrent(ctx) == 0
mod = ctypes.c_void_p()
assert lib.cuModuleLoadData(ctypes.byref(mod), ptx) == 0  # indexed, not translated
fn = ctypes.c_void_p()
rc = lib.cuModuleGetFunction(ctypes.byref(fn), mod, b"put")  # calls the broken function
assert rc != 0, "a kernel that cannot be translated was returned"
rc = lib.cuModuleGetFunction(ctypes.byref(fn), mod, b"idle")
assert rc == 0, rc
print("PASS bad", rc, flush=True)
'''


def test_untranslatable_kernel_fails_at_first_use(libcuda: Path, tmp_path: Path) -> None:
    (tmp_path / "m.ptx").write_text(PTX)
    (tmp_path / "bad.py").write_text(BAD)
    full = dict(os.environ, LD_LIBRARY_PATH=str(build_dir() / "cpu"), PYSHIM_BACKEND="cpu",
                PYSHIM_CACHE=str(tmp_path / "cache"), PYSHIM_LAZY_MIN_LINES="1")
    out = subprocess.run([sys.executable, str(tmp_path / "bad.py"), str(libcuda),
                          str(tmp_path / "m.ptx")], capture_output=True, text=True, env=full,
                         timeout=300)
    assert out.returncode == 0, out.stdout + out.stderr
    assert "PASS bad" in out.stdout
    assert "bogus" in out.stderr  # the translator's message names the instruction


def test_entry_prototypes_are_declarations() -> None:
    # pyshim's PTX linker keeps `.entry k(...);` prototypes of one unit's kernels that another
    # unit declares (an -rdc=true program with the device runtime's unit); as kernels they
    # ran the next signature into the previous body and the skeleton stopped parsing
    from pyshim.kernels.lazy import Index
    from pyshim.ptx.frontend.parser import parse

    proto = ".entry put(.param .u32 v)\n;\n"
    index = Index(PTX.replace("\n.visible .entry", "\n" + proto + ".visible .entry", 1).encode())
    assert index.kernels == ["put", "get", "idle"]
    parse(index.skeleton())
    assert ".entry put" not in index.data_module()
