"""The embedded translator inside processes that already run Python: the same Python
(cffi attaches to the running interpreter), another Python (a translator subprocess is
used), and the subprocess forced by PYSHIM_TRANSLATOR=subprocess."""

from __future__ import annotations

import glob
import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import pytest

from pyshim.builders.components import build_all
from pyshim.builders.libcuda import cuda_include
from pyshim.paths import REPO_DIR, build_dir

pytestmark = pytest.mark.skipif(
    importlib.util.find_spec("pyshim.kernels.loader") is None,
    reason="pyshim.kernels.loader (the PTX translator) does not exist yet",
)

# a ctypes driver-API program: load PTX, launch, check (the host is a Python process)
SCRIPT = r'''
import ctypes, sys
lib = ctypes.CDLL(sys.argv[1])
ptx = b""".version 7.0
.target sm_75
.address_size 64
.visible .entry k(.param .u64 p)
{
    .reg .b32 %r<3>;
    .reg .b64 %rd<4>;
    ld.param.u64 %rd1, [p];
    mov.u32 %r1, %tid.x;
    mul.lo.u32 %r2, %r1, %r1;
    cvta.to.global.u64 %rd2, %rd1;
    mul.wide.u32 %rd3, %r1, 4;
    add.s64 %rd2, %rd2, %rd3;
    st.global.u32 [%rd2], %r2;
    ret;
}
"""
assert lib.cuInit(0) == 0
ctx = ctypes.c_void_p()
assert lib.cuDevicePrimaryCtxRetain(ctypes.byref(ctx), 0) == 0
assert lib.cuCtxSetCurrent(ctx) == 0
mod = ctypes.c_void_p()
rc = lib.cuModuleLoadData(ctypes.byref(mod), ptx)
assert rc == 0, f"cuModuleLoadData: {rc}"
bad = ctypes.c_void_p()
rc = lib.cuModuleLoadData(ctypes.byref(bad), b".version 7.0\n.target sm_75\n.entry x() { bogus; }")
assert rc != 0, "malformed PTX loaded"
fn = ctypes.c_void_p()
assert lib.cuModuleGetFunction(ctypes.byref(fn), mod, b"k") == 0
d = ctypes.c_uint64()
assert lib.cuMemAlloc_v2(ctypes.byref(d), 256) == 0
params = (ctypes.c_void_p * 1)(ctypes.cast(ctypes.byref(d), ctypes.c_void_p))
assert lib.cuLaunchKernel(fn, 1, 1, 1, 64, 1, 1, 0, None, params, None) == 0
out = (ctypes.c_uint32 * 64)()
assert lib.cuMemcpyDtoH_v2(out, d, 256) == 0
assert list(out) == [i * i for i in range(64)], list(out)
print("PASS python host")
'''


@pytest.fixture(scope="module")
def libcuda() -> Path:
    build_all()
    return build_dir() / "lib" / "libcuda.so.1"


def run_host(python: str, libcuda: Path, tmp_path: Path, prefix: str = "", **env: str
             ) -> subprocess.CompletedProcess[str]:
    script = tmp_path / "host.py"
    script.write_text(prefix + SCRIPT)
    full = dict(os.environ, LD_LIBRARY_PATH=str(build_dir() / "cpu"), PYSHIM_BACKEND="cpu",
                PYSHIM_TRACE="1", **env)
    return subprocess.run([python, str(script), str(libcuda)], capture_output=True, text=True,
                          env=full, timeout=300)


def test_same_python_embeds_in_the_running_interpreter(libcuda: Path, tmp_path: Path) -> None:
    out = run_host(sys.executable, libcuda, tmp_path)
    assert out.returncode == 0, out.stdout + out.stderr
    assert "PASS python host" in out.stdout
    assert "subprocess" not in out.stderr


def test_forced_translator_subprocess(libcuda: Path, tmp_path: Path) -> None:
    out = run_host(sys.executable, libcuda, tmp_path, PYSHIM_TRANSLATOR="subprocess")
    assert out.returncode == 0, out.stdout + out.stderr
    assert "PASS python host" in out.stdout
    assert "bogus" in out.stderr  # the worker's error message reaches the log


# appended to SCRIPT: the translator workers alive under this process, then one killed
WORKERS = r'''
import glob, os, signal, time
def workers():
    kids = set()
    for f in glob.glob(f"/proc/{os.getpid()}/task/*/children"):
        kids.update(int(k) for k in open(f).read().split())
    return [k for k in kids
            if b"pyshim.embed.worker" in open(f"/proc/{k}/cmdline", "rb").read()]
alive = workers()
print("WORKERS", len(alive))
os.kill(alive[0], signal.SIGKILL)
time.sleep(0.2)
again = ctypes.c_void_p()
rc = lib.cuModuleLoadData(ctypes.byref(again), ptx.replace(b"entry k(", b"entry k2("))
assert rc == 0, f"cuModuleLoadData after the worker died: {rc}"
print("WORKERS", len(workers()))
'''


def test_translator_subprocess_is_kept_and_replaced(libcuda: Path, tmp_path: Path) -> None:
    """One worker serves every module (a fresh Python per module cost 0.5-1 s before any
    translation); one that dies is replaced at the next module."""
    script = tmp_path / "host.py"
    script.write_text(SCRIPT + WORKERS)
    env = dict(os.environ, LD_LIBRARY_PATH=str(build_dir() / "cpu"), PYSHIM_BACKEND="cpu",
               PYSHIM_TRANSLATOR="subprocess")
    out = subprocess.run([sys.executable, str(script), str(libcuda)], capture_output=True,
                         text=True, env=env, timeout=300)
    assert out.returncode == 0, out.stdout + out.stderr
    assert "PASS python host" in out.stdout
    assert out.stdout.count("WORKERS 1") == 2, out.stdout


FORK = r'''
import os
pid = os.fork()
if pid == 0:  # the child translates with a worker of its own
    child = ctypes.c_void_p()
    rc = lib.cuModuleLoadData(ctypes.byref(child), ptx.replace(b"entry k(", b"entry kc("))
    os._exit(0 if rc == 0 else 1)
_, status = os.waitpid(pid, 0)
assert status == 0, f"module load in a forked child: {status}"
after = ctypes.c_void_p()
rc = lib.cuModuleLoadData(ctypes.byref(after), ptx.replace(b"entry k(", b"entry kp("))
assert rc == 0, f"module load in the parent after the fork: {rc}"
print("FORK OK")
'''


def test_translator_subprocess_across_fork(libcuda: Path, tmp_path: Path) -> None:
    """A forked child does not talk to its parent's worker (the two would mix their
    requests on one pipe): it starts its own; the parent's keeps serving the parent."""
    script = tmp_path / "host.py"
    script.write_text(SCRIPT + FORK)
    env = dict(os.environ, LD_LIBRARY_PATH=str(build_dir() / "cpu"), PYSHIM_BACKEND="cpu",
               PYSHIM_TRANSLATOR="subprocess")
    out = subprocess.run([sys.executable, str(script), str(libcuda)], capture_output=True,
                         text=True, env=env, timeout=300)
    assert out.returncode == 0, out.stdout + out.stderr
    assert "FORK OK" in out.stdout


def test_python_without_cffi_gets_a_translator_subprocess(libcuda: Path, tmp_path: Path
                                                         ) -> None:
    """A virtualenv of our Python without cffi (a user's venv): cffi cannot start in it, so
    the translator runs in a subprocess, decided once and said in one line."""
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    python = str(venv / "bin" / "python")
    probe = subprocess.run([python, "-c", "import _cffi_backend"], capture_output=True)
    assert probe.returncode != 0, "the fresh virtualenv can import cffi"
    out = run_host(python, libcuda, tmp_path)
    assert out.returncode == 0, out.stdout + out.stderr
    assert "PASS python host" in out.stdout
    assert out.stderr.count("cannot import _cffi_backend") == 1, out.stderr
    assert "Failed to initialize" not in out.stderr  # cffi never tried


def test_host_whose_pyshim_is_another_package(libcuda: Path, tmp_path: Path) -> None:
    """The program's Python already has a `pyshim` that is not ours: the init code fails
    (cffi says why), and that module and every later one translate in a subprocess."""
    prefix = "import sys, types; sys.modules['pyshim'] = types.ModuleType('pyshim')\n"
    out = run_host(sys.executable, libcuda, tmp_path, prefix=prefix)
    assert out.returncode == 0, out.stdout + out.stderr
    assert "PASS python host" in out.stdout
    assert out.stderr.count("did not start: it runs in a subprocess") == 1, out.stderr


def _other_python() -> str | None:
    mine = f"{sys.version_info.major}.{sys.version_info.minor}"
    for cand in sorted(glob.glob("/root/.pyenv/versions/3.*/bin/python3")) + sorted(
            glob.glob("/usr/bin/python3.[0-9]*")):
        if mine not in cand and not cand.endswith("-config"):
            return cand
    return None


def test_another_python_gets_a_translator_subprocess(libcuda: Path, tmp_path: Path) -> None:
    other = _other_python()
    if other is None:
        pytest.skip("no Python of another version on this machine")
    out = run_host(other, libcuda, tmp_path)
    assert out.returncode == 0, out.stdout + out.stderr
    assert "translating in a subprocess" in out.stderr


def test_foreign_pythonhome_uses_the_subprocess(libcuda: Path, tmp_path: Path) -> None:
    """A PYTHONHOME for another Python would abort an embedded interpreter at start-up:
    the translator runs in a subprocess instead, and the program never notices."""
    exe = tmp_path / "driver_ptx"
    cmd = ["cc", "-std=c11", f"-I{cuda_include()}",
           str(REPO_DIR / "examples" / "driver_ptx.c"), "-o", str(exe), f"-L{libcuda.parent}",
           "-lcuda", "-Wl,--allow-shlib-undefined"]
    subprocess.run(cmd, check=True)
    env = dict(os.environ, LD_LIBRARY_PATH=f"{libcuda.parent}:{build_dir() / 'cpu'}",
               PYSHIM_BACKEND="cpu", PYSHIM_TRACE="1", PYTHONHOME=str(tmp_path / "nowhere"))
    out = subprocess.run([str(exe)], capture_output=True, text=True, env=env, timeout=300)
    assert out.returncode == 0, out.stdout + out.stderr
    assert "PASS driver_ptx" in out.stdout
    assert "is not this Python's: translating in a subprocess" in out.stderr
