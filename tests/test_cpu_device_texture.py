"""CUDA arrays, texture and surface objects on the CPU device (issue #21 point 1): an
nvcc-built program (tests/cpu_device/texture.cu, static cudart, so every call goes through
the driver API as on a GPU) copies into and out of arrays and samples textures; each mode
checks its values against the host's own computation of CUDA's documented arithmetic."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from pyshim.builders.components import build_all
from pyshim.paths import build_dir

SOURCE = Path(__file__).resolve().parent / "cpu_device" / "texture.cu"

pytestmark = pytest.mark.skipif(shutil.which("nvcc") is None, reason="nvcc is not installed")


@pytest.fixture(scope="module")
def program(tmp_path_factory: pytest.TempPathFactory) -> Path:
    build_all()
    exe = tmp_path_factory.mktemp("texture") / "texture"
    proc = subprocess.run(["nvcc", "-O2", "-o", str(exe), str(SOURCE),
                           f"-L{build_dir() / 'lib'}", "-lcuda"],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    return exe


def run(exe: Path, mode: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "pyshim", "run", "--backend", "cpu", str(exe),
                           mode], capture_output=True, text=True, timeout=180)


@pytest.mark.parametrize("mode", ["arrays"])
def test_mode(program: Path, mode: str) -> None:
    proc = run(program, mode)
    assert proc.returncode == 0 and f"PASS {mode}" in proc.stdout, proc.stdout + proc.stderr
