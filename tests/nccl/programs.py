"""The nvcc builds of the NCCL test programs (tests/nccl/*.cu) against NVIDIA's nccl.h and
pyshim's libnccl.so.2, cached by source digest under build/progs."""

from __future__ import annotations

import hashlib
import os
import subprocess
from pathlib import Path

import pytest

from pyshim.paths import build_dir

HERE = Path(__file__).parent


def nccl_program(name: str) -> Path:
    """tests/nccl/<name>.cu built (once per source), or the test skipped when NVIDIA's
    nccl.h cannot be had."""
    from pyshim.builders.components import build_all
    from pyshim.tables.fetch import FetchError, include_dir

    try:
        inc = include_dir("nccl2")   # NVIDIA's nccl.h from the pinned wheel
    except FetchError as exc:
        pytest.skip(f"NVIDIA's nccl.h is not available: {exc}")
    build_all(components=("cpu", "libcuda", "cudart", "jit", "nccl"))
    root = build_dir()
    src = HERE / f"{name}.cu"
    key = hashlib.sha256(src.read_bytes()).hexdigest()[:16]
    out = root / "progs" / f"{name}-{key}"
    if out.is_file():
        return out
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_suffix(f".{os.getpid()}.tmp")
    cmd = ["nvcc", "-O1", "-std=c++17", "-o", str(tmp), str(src), f"-I{inc}",
           f"-L{root / 'lib'}", "-l:libnccl.so.2", "-Xlinker", f"-rpath-link={root / 'cpu'}"]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr
    os.replace(tmp, out)
    return out
