"""Cooperative launches and grid-wide sync on the CPU device (issue #21 point 3): an
nvcc-built program (tests/cpu_device/cooperative.cu, static and shared cudart) runs a kernel
whose rounds read what other blocks wrote the round before, separated by
cooperative_groups' `this_grid().sync()`, at grid sizes up to the occupancy limit, through
cudaLaunchCooperativeKernel, cudaLaunchKernelEx (cooperative attribute) and
cuLaunchCooperativeKernel; one block more than the limit is
cudaErrorCooperativeLaunchTooLarge with a log line, and grid.sync() in a plain launch traps
(CUDA's behaviour: it has no grid workspace)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from pyshim.builders.components import build_all

SOURCE = Path(__file__).resolve().parent / "cpu_device" / "cooperative.cu"
FLAVOURS = {"static": [], "shared": ["-cudart", "shared"]}

pytestmark = pytest.mark.skipif(shutil.which("nvcc") is None, reason="nvcc is not installed")


@pytest.fixture(scope="module")
def programs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    build_all()
    out = tmp_path_factory.mktemp("cooperative")
    exes = {}
    for flavour, flags in FLAVOURS.items():
        exe = out / f"cooperative_{flavour}"
        proc = subprocess.run(["nvcc", "-O2", "-Wno-deprecated-declarations", *flags,
                               "-o", str(exe), str(SOURCE)],
                              capture_output=True, text=True, timeout=300)
        assert proc.returncode == 0, proc.stderr
        exes[flavour] = exe
    return exes


def run(exe: Path, *args: str, wave: str = "64", workers: str = "2"
        ) -> tuple[dict[str, str], subprocess.CompletedProcess[str]]:
    env = dict(os.environ, PYSHIM_CPU_WAVE=wave, PYSHIM_CPU_WORKERS=workers)
    proc = subprocess.run([sys.executable, "-m", "pyshim", "run", "--backend", "cpu", str(exe),
                           *args], capture_output=True, text=True, timeout=180, env=env)
    values = dict(line.split("=", 1) for line in proc.stdout.splitlines() if "=" in line)
    return values, proc


@pytest.mark.parametrize("wave", ["64", "32"])
@pytest.mark.parametrize("flavour", list(FLAVOURS))
@pytest.mark.parametrize("mode", ["runtime", "ex"])
def test_grid_sync_at_the_occupancy_limit(programs: dict[str, Path], flavour: str, mode: str,
                                          wave: str) -> None:
    v, proc = run(programs[flavour], mode, wave=wave)
    assert proc.returncode == 0 and f"PASS {mode}" in proc.stdout, proc.stdout + proc.stderr
    assert v["cooperative_attr"] == "1"
    assert v["blocks"] == v["limit"] and int(v["limit"]) >= 2
    assert v["wrong"] == "0" and v["sum_ok"] == "1"


@pytest.mark.parametrize("blocks", ["1", "2", "7"])
def test_grid_sync_below_the_limit(programs: dict[str, Path], blocks: str) -> None:
    v, proc = run(programs["static"], "runtime", blocks)
    assert proc.returncode == 0 and "PASS runtime" in proc.stdout, proc.stdout + proc.stderr
    assert v["blocks"] == blocks and v["wrong"] == "0"


def test_grid_sync_with_more_blocks_than_cores(programs: dict[str, Path]) -> None:
    # 4 multiprocessors' worth of resident blocks (every block a thread) on this machine
    v, proc = run(programs["static"], "runtime", workers="4")
    assert proc.returncode == 0 and "PASS runtime" in proc.stdout, proc.stdout + proc.stderr
    assert int(v["limit"]) >= 4 * 2


def test_driver_cooperative_launch(programs: dict[str, Path]) -> None:
    v, proc = run(programs["static"], "driver")
    assert proc.returncode == 0 and "PASS driver" in proc.stdout, proc.stdout + proc.stderr
    assert v["driver_result"] == "0"


@pytest.mark.parametrize("flavour", list(FLAVOURS))
def test_one_block_past_the_limit_is_refused(programs: dict[str, Path], flavour: str) -> None:
    v, proc = run(programs[flavour], "too_large")
    assert proc.returncode == 0 and "PASS too_large" in proc.stdout, proc.stdout + proc.stderr
    assert v["launch"] == "cudaErrorCooperativeLaunchTooLarge"
    assert "cooperative launch of _Z13rounds_kernel" in proc.stderr
    assert f"at most {v['limit']} blocks" in proc.stderr


def test_grid_sync_in_a_plain_launch_traps(programs: dict[str, Path]) -> None:
    v, proc = run(programs["static"], "not_cooperative")
    assert proc.returncode == 0 and "PASS not_cooperative" in proc.stdout, proc.stderr
    assert v["plain_launch"] == "cudaSuccess"
    assert v["plain_sync"] == "cudaErrorLaunchFailure"


def test_a_fault_while_others_wait_in_grid_sync_ends_the_launch(programs: dict[str, Path]
                                                                 ) -> None:
    v, proc = run(programs["static"], "fault")
    assert proc.returncode == 0 and "PASS fault" in proc.stdout, proc.stdout + proc.stderr
    assert v["fault_launch"] == "cudaSuccess"
    assert v["fault_sync"] == "cudaErrorIllegalAddress"
    assert "block (0,0,0) faulted: SIGSEGV" in proc.stderr


@pytest.fixture(scope="module")
def devrt_program(tmp_path_factory: pytest.TempPathFactory) -> Path:
    build_all()
    exe = tmp_path_factory.mktemp("cooperative_devrt") / "cooperative_devrt"
    proc = subprocess.run(["nvcc", "-O2", "-rdc=true", "-o", str(exe),
                           str(SOURCE.with_name("cooperative_devrt.cu")), "-lcudadevrt"],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    return exe


@pytest.mark.parametrize("wave", ["64", "32"])
def test_grid_sync_through_libcudadevrt(devrt_program: Path, wave: str) -> None:
    """cudaCGGetIntrinsicHandle / cudaCGSynchronize from libcudadevrt (what numba-cuda's
    this_grid().sync() links): its PTX calls the driver's __cuda_syscall_CGS_* entries,
    which pyshim defines (ptx/passes/device_syscalls.py); they were refused, so the module
    did not load (CUDA_ERROR_INVALID_PTX)."""
    v, proc = run(devrt_program, "5", wave=wave)
    assert proc.returncode == 0 and "PASS" in proc.stdout, proc.stdout + proc.stderr
    assert v["launch"] == "cudaSuccess" and v["sync_errors"] == "0" and v["wrong"] == "0"


def test_libcudadevrt_grid_sync_in_a_plain_launch_traps(devrt_program: Path) -> None:
    """No workspace outside a cooperative launch: cudaCGSynchronize traps (as the inline
    grid.sync() does) rather than returning an error numba never reads and running on."""
    v, proc = run(devrt_program, "2", "plain")
    assert proc.returncode == 0 and "PASS plain" in proc.stdout, proc.stdout + proc.stderr
    assert v["plain_launch"] == "cudaSuccess"
    assert v["plain_sync"] == "cudaErrorLaunchFailure"
