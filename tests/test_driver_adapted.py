"""Driver entry points that were NOT_SUPPORTED stubs behind mapped table rows
(cuStreamGetAttribute/SetAttribute, cuGraphMemsetNodeGetParams, cuMemPoolGetAccess,
cuCtxGetSharedMemConfig, cuMemcpy3DPeer and its async form): tests/shim/test_driver_adapted.c
against the shim's libcuda.so.1 on the CPU device, each checked by what it does."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from pyshim.builders.components import build_all
from pyshim.builders.libcuda import cuda_include
from pyshim.paths import REPO_DIR, build_dir


def test_driver_calls_that_were_stubs(tmp_path: Path) -> None:
    build_all()
    lib = build_dir() / "lib"
    exe = tmp_path / "test_driver_adapted"
    cmd = ["cc", "-std=c11", "-Wall", "-Wextra", "-Werror", f"-I{cuda_include()}",
           str(REPO_DIR / "tests" / "shim" / "test_driver_adapted.c"), "-o", str(exe),
           f"-L{lib}", "-lcuda", "-Wl,--allow-shlib-undefined"]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    out = subprocess.run([sys.executable, "-m", "pyshim", "run", "--backend", "cpu", str(exe)],
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stdout + out.stderr
    assert "PASS: 0 failure(s)" in out.stdout
    assert out.stdout.count("ok ") == 23, out.stdout
    assert "cuStreamGetAttribute: attribute 2 is not a stream attribute" in out.stderr
    assert "cuMemcpy3DPeer: a NULL source or destination context" in out.stderr
