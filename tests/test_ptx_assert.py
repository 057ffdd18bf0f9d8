"""Device assert (`__assertfail`) on the CPU device: CUDA's message on stderr and the launch
fails with cudaErrorAssert (trap code 710), the context usable for the next launch."""

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.skipif(shutil.which("nvcc") is None, reason="nvcc not on PATH")
SRC = Path(__file__).parent / "ptx" / "device_assert.cu"


@pytest.mark.parametrize("wave", ["64", "32"])
def test_device_assert_reports_like_cuda(tmp_path: Path, wave: str) -> None:
    exe = tmp_path / "device_assert"
    subprocess.run(["nvcc", "-O2", "-o", str(exe), str(SRC)], check=True)
    import os

    env = dict(os.environ, PYSHIM_CPU_WAVE=wave)
    out = subprocess.run([sys.executable, "-m", "pyshim", "run", "--backend", "cpu", str(exe)],
                         capture_output=True, text=True, timeout=300, env=env)
    assert out.returncode == 0, out.stdout + out.stderr
    assert "ok=cudaSuccess assert=cudaErrorAssert" in out.stdout
    # CUDA's format: file:line: function: block: [x,y,z], thread: [x,y,z] Assertion `e` failed.
    assert ("device_assert.cu:3: void check(int): block: [0,0,0], thread: [5,0,0] "
            "Assertion `threadIdx.x < n` failed.") in out.stderr, out.stderr
    assert "thread: [4,0,0]" not in out.stderr
