"""The harness of the C programs in tests/shim/: built against the shim's libcuda.so.1
(-lcuda), run on the CPU device under `pyshim run`, and held to their own verdict. The test
files that run them (test_shim_modules.py, test_driver_adapted.py) make their assertions on
the output this returns."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from pyshim.builders.components import build_all
from pyshim.builders.libcuda import cuda_include
from pyshim.paths import REPO_DIR, build_dir


def run_driver_program(tmp_path: Path, name: str) -> subprocess.CompletedProcess[str]:
    """tests/shim/<name>.c compiled with -Wall -Wextra -Werror and run; fails the test unless
    it compiled, exited 0 and printed `PASS: 0 failure(s)`."""
    build_all()
    lib = build_dir() / "lib"
    exe = tmp_path / name
    cmd = ["cc", "-std=c11", "-Wall", "-Wextra", "-Werror", f"-I{cuda_include()}",
           str(REPO_DIR / "tests" / "shim" / f"{name}.c"), "-o", str(exe), f"-L{lib}",
           "-lcuda", "-Wl,--allow-shlib-undefined"]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    out = subprocess.run([sys.executable, "-m", "pyshim", "run", "--backend", "cpu", str(exe)],
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stdout + out.stderr
    assert "PASS: 0 failure(s)" in out.stdout
    return out
