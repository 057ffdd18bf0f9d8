"""API misuse fails like a GPU, never like a segfault (issue 19): real nvcc-built runtime and
driver API programs make the mistakes new users make (bogus, freed and past-the-end
pointers, forged handles, malformed images, kernels that fault) under the CPU device and
assert the code NVIDIA documents for each. A crash ends a program's output at the case that
crashed; every case prints PASS or FAIL."""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from pyshim.paths import REPO_DIR, build_dir

MISUSE = REPO_DIR / "tests" / "misuse"

pytestmark = pytest.mark.skipif(shutil.which("nvcc") is None, reason="nvcc is not installed")


@pytest.fixture(scope="module")
def root() -> Path:
    """build/ with lib/ (libcuda.so.1, libcudart.so.13) and cpu/ (the CPU device)."""
    from pyshim import build
    from pyshim.build_runtime import build_runtime

    build.build_all()
    build_runtime(build_dir() / "lib")
    return build_dir()


def nvcc(src: Path, *flags: str, out_flag: str = "-o") -> Path:
    key = hashlib.sha256(src.read_bytes() + repr(flags).encode()).hexdigest()[:16]
    out_dir = build_dir() / "misuse"
    out_dir.mkdir(parents=True, exist_ok=True)
    out = out_dir / f"{src.stem}-{key}{'.ptx' if '-ptx' in flags else ''}"
    if not out.exists():
        tmp = out.with_name(out.name + f".{os.getpid()}.tmp")
        proc = subprocess.run(["nvcc", "-O2", *flags, out_flag, str(tmp), str(src)],
                              capture_output=True, text=True, timeout=300)
        assert proc.returncode == 0, proc.stderr[-3000:]
        os.replace(tmp, out)
    return out


def run(exe: Path, root: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    e = {k: v for k, v in os.environ.items() if k not in ("LD_LIBRARY_PATH", "LD_PRELOAD")}
    e.update(LD_LIBRARY_PATH=f"{root / 'lib'}:{root / 'cpu'}", PYSHIM_BACKEND="cpu", **env)
    return subprocess.run([str(exe), *args], capture_output=True, text=True, timeout=300, env=e)


def assert_all_passed(proc: subprocess.CompletedProcess[str]) -> None:
    out = proc.stdout
    fails = [line for line in out.splitlines() if line.startswith("FAIL")]
    last = [line for line in out.splitlines() if line.startswith("case ")][-1:]
    assert proc.returncode == 0, (f"exit {proc.returncode} after {last}\n{fails}\n"
                                  + out[-2000:] + proc.stderr[-2000:])
    assert not fails, fails
    assert "ALL PASSED" in out


def test_runtime_api_misuse(root: Path) -> None:
    proc = run(nvcc(MISUSE / "rt_misuse.cu", "-cudart", "shared"), root)
    assert_all_passed(proc)
    # the cases this program exists for, by name (a renamed case must not vanish silently)
    for case in ("memcpy H2D to bogus: cudaErrorInvalidValue",
                 "memcpy D2H oversize: cudaErrorInvalidValue",
                 "memcpy D2D oversize: cudaErrorInvalidValue",
                 "memset oversize: cudaErrorInvalidValue",
                 "memcpy D2H from freed: cudaErrorInvalidValue",
                 "memcpy D2H to bogus host: cudaErrorInvalidValue",
                 "stream sync forged: cudaErrorInvalidResourceHandle",
                 "data intact"):
        assert f"PASS {case}" in proc.stdout, case
    # a pageable host pointer the process cannot read is named in the log
    assert "host memory the process cannot access" in proc.stderr


def test_driver_api_misuse(root: Path) -> None:
    ptx = nvcc(MISUSE / "scale.cu", "-ptx")
    exe = nvcc(MISUSE / "drv_misuse.cu", f"-L{root / 'lib'}", "-lcuda")
    proc = run(exe, root, str(ptx))
    assert_all_passed(proc)
    for case in ("HtoD to 0x1234: CUDA_ERROR_INVALID_VALUE",
                 "DtoH 4096 from 64: CUDA_ERROR_INVALID_VALUE",
                 "MemsetD32 bogus: CUDA_ERROR_INVALID_VALUE",
                 "CtxDestroy 0x1234: CUDA_ERROR_INVALID_CONTEXT",
                 "PointerGetAttribute 0x1234: CUDA_ERROR_INVALID_VALUE",
                 "ModuleLoadData ELF e_shoff=0x4141...: CUDA_ERROR_INVALID_IMAGE",
                 "ModuleLoadFatBinary wrapper bad aux: CUDA_ERROR_INVALID_IMAGE",
                 "LaunchKernel forged: CUDA_ERROR_INVALID_HANDLE",
                 "kernel result"):
        assert f"PASS {case}" in proc.stdout, case


@pytest.mark.parametrize("fault", ["dead", "null", "freed", "overrun"])
def test_kernel_fault_is_a_sticky_illegal_address(root: Path, fault: str) -> None:
    """A kernel storing to 0xdead00000000 (or NULL, freed memory, far past its allocation):
    cudaErrorIllegalAddress from the next synchronising call and after, the program's own
    signal handler and atexit cleanup still run, exit status 0. The log names the kernel,
    the block and the address."""
    proc = run(nvcc(MISUSE / "rt_kernel_fault.cu", "-cudart", "shared"), root, fault)
    assert_all_passed(proc)
    assert "cleanup ran" in proc.stdout
    assert "faulted: SIGSEGV at address" in proc.stderr, proc.stderr
    if fault in ("dead", "null"):
        assert "kernel _Z8store_toPi: block (3,0,0) faulted" in proc.stderr, proc.stderr
