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
    from pyshim.builders.components import build_all
    from pyshim.builders.runtime import build_runtime

    build_all()
    build_runtime(build_dir() / "lib")
    return build_dir()


def nvcc(src: Path, *flags: str, out_flag: str = "-o") -> Path:
    # the programs' shared headers (tests/include) are inputs too
    headers = b"".join(h.read_bytes() for h in sorted((REPO_DIR / "tests" / "include").glob("*.h")))
    key = hashlib.sha256(src.read_bytes() + headers + repr(flags).encode()).hexdigest()[:16]
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
                 "LinkDestroy forged: CUDA_ERROR_INVALID_HANDLE",
                 "LinkDestroy stale: CUDA_ERROR_INVALID_HANDLE",
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


@pytest.mark.parametrize("grid", ["spin1", "spin64"])
def test_kernel_watchdog_ends_a_kernel_that_never_returns(root: Path, grid: str) -> None:
    """PYSHIM_KERNEL_TIMEOUT=1: a kernel spinning forever (one block on the stream's thread,
    64 on the pool) ends with cudaErrorLaunchTimeout, sticky, and the program exits."""
    exe = nvcc(MISUSE / "rt_kernel_fault.cu", "-cudart", "shared")
    proc = run(exe, root, grid, PYSHIM_KERNEL_TIMEOUT="1")
    assert_all_passed(proc)
    assert "PASS sync reports the fault: cudaErrorLaunchTimeout" in proc.stdout
    assert "ran past PYSHIM_KERNEL_TIMEOUT=1 s" in proc.stderr, proc.stderr


ARENA_PROBE = r"""
import ctypes, sys
hip = ctypes.CDLL(sys.argv[1])
ptrs = []
for size in (40, 40, 1000, 3 << 20):
    p = ctypes.c_void_p()
    assert hip.hipMalloc(ctypes.byref(p), ctypes.c_size_t(size)) == 0
    ptrs.append((p.value, size))
heap = [line.split()[0] for line in open("/proc/self/maps") if line.rstrip().endswith("[heap]")]
for lo_hi in heap:
    lo, hi = (int(x, 16) for x in lo_hi.split("-"))
    assert not any(lo <= p < hi for p, _ in ptrs), "device memory in the process heap"
assert all(p % 256 == 0 for p, _ in ptrs)
# what a numba test did: store 24 bytes past a 40-byte allocation (harmless on a GPU,
# whose allocations are rounded up); glibc's heap must not notice
first = ptrs[0][0]
ctypes.memset(first, 0x55, 64)
for p, _ in ptrs:
    assert hip.hipFree(ctypes.c_void_p(p)) == 0
junk = [bytearray(n) for n in range(1, 4000, 7)]
del junk
p = ctypes.c_void_p()
assert hip.hipMalloc(ctypes.byref(p), ctypes.c_size_t(40)) == 0
assert hip.hipFree(p) == 0
print("arena ok")
"""


def test_device_memory_lives_outside_the_heap_rounded_up(root: Path) -> None:
    """Device allocations come from the device's own mapping, rounded up as a GPU driver's
    are: a store 24 bytes past a 40-byte allocation (a numba-cuda test does it) used to
    overwrite glibc's chunk header and abort the process at the next free."""
    import sys

    proc = subprocess.run([sys.executable, "-c", ARENA_PROBE,
                           str(root / "cpu" / "libamdhip64.so.7")],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "arena ok" in proc.stdout


def test_program_keeps_its_own_segv_handler_for_host_faults(root: Path) -> None:
    """pyshim's fault handler takes only faults of kernel code: a SIGSEGV handler the
    program installed before CUDA started still gets a fault of its host code after
    kernels ran (it recovers with siglongjmp and the device keeps working)."""
    proc = run(nvcc(MISUSE / "rt_kernel_fault.cu", "-cudart", "shared"), root, "hostfault")
    assert_all_passed(proc)
    assert "PASS program's SIGSEGV handler got the host fault" in proc.stdout
    assert "faulted" not in proc.stderr, proc.stderr
