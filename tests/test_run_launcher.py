"""`pyshim run` itself: backend choice, environment, exit status and signal pass-through."""

from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from pyshim.commands import run as run_command
from pyshim.paths import build_dir
from pyshim.runner import launcher


def pyshim_run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "pyshim", "run", *args], capture_output=True,
                          text=True, timeout=300)


@pytest.fixture(scope="session")
def shim() -> Path:
    from pyshim.builders.components import build_all

    build_all()
    return build_dir()


def test_help_explains_backends() -> None:
    out = pyshim_run("--help")
    assert out.returncode == 0
    for word in ("--backend", "auto", "cpu", "hip", "PYSHIM_TRACE", "PROGRAM".lower()):
        assert word in out.stdout


def test_exit_status_passes_through(shim: Path) -> None:
    out = pyshim_run("--backend", "cpu", "sh", "-c", "exit 7")
    assert out.returncode == 7


def test_signal_passes_through(shim: Path) -> None:
    out = pyshim_run("--backend", "cpu", "--", "sh", "-c", "kill -TERM $$")
    assert out.returncode == -signal.SIGTERM


def test_program_sees_the_shim_environment(shim: Path) -> None:
    out = pyshim_run("--backend", "cpu", "sh", "-c",
                     'echo "$LD_LIBRARY_PATH|$LD_PRELOAD|$PYSHIM_BACKEND"')
    ld_path, preload, backend = out.stdout.strip().split("|")
    dirs = ld_path.split(":")
    assert dirs[0] == str(shim / "lib") and dirs[1] == str(shim / "cpu")
    assert preload.split(":")[0] == str(shim / "lib" / "libcuda.so.1")
    assert backend == "cpu"


def test_auto_without_a_gpu_says_so_once(shim: Path) -> None:
    if launcher.amd_gpu_visible():
        pytest.skip("an AMD GPU is visible here")
    out = pyshim_run("true")
    assert out.returncode == 0
    assert out.stderr.count("running on the CPU device") == 1


def test_notice_says_what_the_device_presents_itself_as(shim: Path) -> None:
    if launcher.amd_gpu_visible():
        pytest.skip("an AMD GPU is visible here")
    from pyshim.device.identity import default

    out = pyshim_run("true")
    assert f"compute capability {default().cc} " in out.stderr, out.stderr
    assert "warpSize 32" in out.stderr
    env = dict(os.environ, PYSHIM_DEVICE_CC="9.0")
    out = subprocess.run([sys.executable, "-m", "pyshim", "run", "true"], capture_output=True,
                         text=True, timeout=300, env=env)
    assert "compute capability 9.0 (Hopper" in out.stderr, out.stderr
    env["PYSHIM_DEVICE_CC"] = "9.4"  # gfx942's number is no NVIDIA capability
    out = subprocess.run([sys.executable, "-m", "pyshim", "run", "true"], capture_output=True,
                         text=True, timeout=300, env=env)
    assert "PYSHIM_DEVICE_CC=9.4 is not a compute capability" in out.stderr
    assert f"compute capability {default().cc} " in out.stderr


def test_hip_backend_without_rocm_is_a_clear_error() -> None:
    if launcher.amd_gpu_visible():
        pytest.skip("ROCm is present here")
    out = pyshim_run("--backend", "hip", "true")
    assert out.returncode == 127
    assert "libamdhip64.so.7" in out.stderr or "no AMD GPU" in out.stderr


def test_missing_program_is_a_clear_error() -> None:
    out = pyshim_run("--backend", "cpu", "/nonexistent/prog")
    assert out.returncode == 127
    assert "/nonexistent/prog" in out.stderr


def test_cudart_program_preloads_only_libcuda(shim: Path) -> None:
    env = launcher.program_env("cpu", None, {}, own_cudart=False)
    assert env["LD_PRELOAD"] == str(shim / "lib" / "libcuda.so.1")


def test_program_env_keeps_the_users_paths() -> None:
    env = launcher.program_env("cpu", None, {"LD_LIBRARY_PATH": "/mine", "LD_PRELOAD": "x.so"})
    assert env["LD_LIBRARY_PATH"].endswith(":/mine")
    assert env["LD_PRELOAD"].endswith("x.so")


def test_arguments_after_the_program_are_its_own() -> None:
    parser = argparse.ArgumentParser()
    run_command.configure(parser)
    args = parser.parse_args(["./app", "--backend", "x", "-v"])
    assert args.program == "./app" and args.args == ["--backend", "x", "-v"]
    assert args.backend == "auto"
    assert os.sep in args.program


def test_unsupported_calls_are_counted_in_the_report(shim: Path, tmp_path: Path) -> None:
    """An entry point with no mapping is logged once by name and counted at exit."""
    src = tmp_path / "unsupported.c"
    src.write_text(
        "#include <cuda.h>\n#include <stdio.h>\n"
        "int main(void) {\n"
        "    if (cuInit(0) != CUDA_SUCCESS) return 2;\n"
        "    for (int i = 0; i < 3; i++)\n"
        "        if (cuCheckpointProcessLock(1, NULL) != CUDA_ERROR_NOT_SUPPORTED) return 3;\n"
        "    puts(\"refused\");\n"
        "    return 0;\n"
        "}\n")
    from pyshim.builders.libcuda import cuda_include

    exe = tmp_path / "unsupported"
    subprocess.run(["cc", f"-I{cuda_include()}", str(src), "-o", str(exe),
                    f"-L{shim / 'lib'}", "-lcuda", "-Wl,--allow-shlib-undefined"], check=True)
    report = tmp_path / "report.json"
    out = subprocess.run([sys.executable, "-m", "pyshim", "run", "--backend", "cpu",
                          "--report", str(report), str(exe)],
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stdout + out.stderr
    assert out.stderr.count("cuCheckpointProcessLock is not supported") == 1, out.stderr
    # and one summary line at exit naming it
    assert "pyshim: 1 unsupported function(s) called 3 time(s)" in out.stderr, out.stderr
    doc = json.loads(report.read_text())
    assert [(u["name"], u["count"]) for u in doc["unsupported"]] == \
        [("cuCheckpointProcessLock", 3)]
    calls = {c["name"]: c["count"] for c in doc["calls"]}
    assert calls.get("cuInit") == 1 and calls.get("cuCheckpointProcessLock") == 3
