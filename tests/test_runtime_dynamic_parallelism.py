"""Dynamic parallelism on the CPU device (issue #21 point 3): an nvcc -rdc=true -lcudadevrt
program (tests/runtime/rt_dynamic_parallelism.cu, compute_80 PTX, static and shared cudart)
whose kernels launch kernels with <<<>>>: a recursive quicksort in device-created streams, a
tree of grids computing from their parents' results, children scaling by factors their
parent computed (some fire-and-forget) and a tail launch summing after all of them (device
cudaMalloc/cudaFree, a tail launch of its own), two device streams ordered by a device
event, a bad configuration's error from cudaPeekAtLastError/cudaGetLastError (per thread),
device cudaGetDevice, and the nesting limit. The program checks every result against the
host's own computation of it; both wave modes. Device cudaMemcpyAsync/cudaMemsetAsync
(libcudadevrt's kernels) and a device printf (whose `$str` libcudadevrt has too). The translator side: libcudadevrt's
`__cuda_syscall_cnpv2*` calls on the CPU target, refused by name on hip targets, and
`pyshim check` no longer calls such kernels unsupported."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from pyshim.builders.components import build_all

SOURCE = Path(__file__).resolve().parent / "runtime" / "rt_dynamic_parallelism.cu"
FLAVOURS = {"static": [], "shared": ["-cudart", "shared"], "lazy": ["-DNO_DEVICE_COPIES"]}

pytestmark = pytest.mark.skipif(shutil.which("nvcc") is None, reason="nvcc is not installed")


@pytest.fixture(scope="module")
def programs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    build_all()
    out = tmp_path_factory.mktemp("dynpar")
    exes = {}
    for flavour, flags in FLAVOURS.items():
        exe = out / f"dynpar_{flavour}"
        proc = subprocess.run(["nvcc", "-O2", "-rdc=true", "-gencode",
                               "arch=compute_80,code=compute_80", *flags, "-o", str(exe),
                               str(SOURCE), "-lcudadevrt"],
                              capture_output=True, text=True, timeout=300)
        assert proc.returncode == 0, proc.stderr
        exes[flavour] = exe
    return exes


def run(exe: Path, *args: str, wave: str = "64", **extra: str
        ) -> tuple[dict[str, str], subprocess.CompletedProcess[str]]:
    env = dict(os.environ, PYSHIM_CPU_WAVE=wave, PYSHIM_CPU_WORKERS="2", **extra)
    proc = subprocess.run([sys.executable, "-m", "pyshim", "run", "--backend", "cpu", str(exe),
                           *args], capture_output=True, text=True, timeout=300, env=env)
    values = dict(line.split("=", 1) for line in proc.stdout.splitlines() if "=" in line)
    return values, proc


@pytest.mark.parametrize("wave", ["64", "32"])
@pytest.mark.parametrize("flavour", ["static", "shared"])
def test_kernels_launching_kernels(programs: dict[str, Path], flavour: str, wave: str) -> None:
    v, proc = run(programs[flavour], wave=wave)
    assert proc.returncode == 0 and "ALL PASSED" in proc.stdout, proc.stdout + proc.stderr
    assert "FAIL" not in proc.stdout
    assert int(v["sort_deepest"]) >= 3 and v["sort_launch_errors"] == "0"
    assert v["tree_wrong"] == "0" and v["scale_wrong"] == "0" and v["copy_wrong"] == "0"
    assert v["device_printf"] == v["want_printf"]  # a printf in an -rdc unit
    assert v["total"] == v["want_total"]
    assert v["bad_config_get"] == "cudaErrorInvalidConfiguration"
    assert v["other_thread"] == "cudaSuccess"
    assert v["depth_error"] == "cudaErrorLaunchMaxDepthExceeded"
    # CUDA nests 24 levels: the host's grid and 23 below it
    assert v["deepest"] == "23"
    # each refusal is logged with the kernel's name and why
    assert ("device-side launch of _Z4noopPi with grid (1,1,1) block (2048,1,1) shared 0 "
            "refused: cudaErrorInvalidConfiguration") in proc.stderr
    assert "launch of _Z4diveiPiS_S_ refused: cudaErrorLaunchMaxDepthExceeded" in proc.stderr


def kernel_rows(report: Path) -> dict[str, set[str]]:
    rows: dict[str, set[str]] = {}
    for line in report.read_text().splitlines():
        if line.startswith("kernel "):
            name, how = line.split()[1:3]
            rows.setdefault(name, set()).add(how)
    return rows


@pytest.mark.parametrize("wave", ["64", "32"])
def test_lazily_loaded_module(programs: dict[str, Path], tmp_path: Path, wave: str) -> None:
    # without libcudadevrt's tables of kernel addresses the module (more than 32 kernels
    # with libcudadevrt's) loads lazily: each kernel an object of its own with the kernels
    # it launches, whose variables are the module's
    report = tmp_path / "report.raw"
    v, proc = run(programs["lazy"], wave=wave, PYSHIM_REPORT=str(report),
                  PYSHIM_CACHE=str(tmp_path / "cache"))
    assert proc.returncode == 0 and "ALL PASSED" in proc.stdout, proc.stdout + proc.stderr
    rows = kernel_rows(report)
    assert {"indexed", "translated"} <= rows["_Z12scale_parentPiS_PxS_"], rows
    # launched only from device code: it ran from its parent's object, never on its own
    assert rows["_Z10total_tailPKiiPxPi"] == {"indexed"}, rows


def test_eagerly_loaded_module(programs: dict[str, Path], tmp_path: Path) -> None:
    report = tmp_path / "report.raw"
    v, proc = run(programs["static"], PYSHIM_REPORT=str(report),
                  PYSHIM_CACHE=str(tmp_path / "cache"))
    assert proc.returncode == 0 and "ALL PASSED" in proc.stdout, proc.stdout + proc.stderr
    assert not any("indexed" in how for how in kernel_rows(report).values())


def test_a_childs_fault_fails_the_hosts_launch(programs: dict[str, Path]) -> None:
    v, proc = run(programs["static"], "fault")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert v["fault_launch"] == "cudaSuccess"
    assert v["fault_sync"] == "cudaErrorIllegalAddress", proc.stdout + proc.stderr
    assert "_Z9bad_childPi" in proc.stderr


@pytest.mark.parametrize("flavour", ["static", "shared"])
def test_graph_replays_the_tree(programs: dict[str, Path], flavour: str) -> None:
    v, proc = run(programs[flavour], "graph")
    assert proc.returncode == 0 and "ALL PASSED" in proc.stdout, proc.stdout + proc.stderr
    assert v["graph_replays_right"] == "3"


def test_on_the_second_of_two_devices(programs: dict[str, Path]) -> None:
    v, proc = run(programs["static"], "3000", "1", PYSHIM_CPU_DEVICES="2")
    assert proc.returncode == 0 and "ALL PASSED" in proc.stdout, proc.stdout + proc.stderr
    assert v["device"] == v["host_device"] == "1"
    assert v["device_count"] == v["host_device_count"] == "2"


@pytest.mark.parametrize("size", ["1", "40", "5000"])
def test_quicksort_sizes(programs: dict[str, Path], size: str) -> None:
    # 1 and 40 keys: no child at all, one level; 5000: down to the depth cut-off
    v, proc = run(programs["static"], size)
    assert proc.returncode == 0 and "PASS quicksort sorted" in proc.stdout, \
        proc.stdout + proc.stderr
    assert "FAIL" not in proc.stdout


def test_check_calls_the_kernels_runnable(programs: dict[str, Path]) -> None:
    """`pyshim check` dry-runs the -rdc units linked, as the loader loads them: the
    device runtime's calls are libcudadevrt's functions, and its syscalls translate."""
    import json

    proc = subprocess.run([sys.executable, "-m", "pyshim", "check", "--json",
                           str(programs["static"])], capture_output=True, text=True,
                          timeout=600)
    assert proc.returncode == 0, proc.stderr
    binary = json.loads(proc.stdout)["binaries"][0]
    kernels = {k["name"]: k for k in binary["kernels"]}
    for name in ("_Z9quicksortPjiiiPiS0_", "_Z12scale_parentPiS_PxS_", "_Z4diveiPiS_S_",
                 "_Z13events_parentPiS_iiS_", "_Z13errors_kernelPiS_"):
        assert kernels[name]["translates"] is True, kernels[name]
    assert binary["verdict"] == "runs", binary["reasons"]
