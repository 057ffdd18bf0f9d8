"""Driver entry points that were NOT_SUPPORTED stubs behind mapped table rows
(cuStreamGetAttribute/SetAttribute, cuGraphMemsetNodeGetParams, cuMemPoolGetAccess,
cuCtxGetSharedMemConfig, cuMemcpy3DPeer and its async form): tests/shim/test_driver_adapted.c
against the shim's libcuda.so.1 on the CPU device, each checked by what it does."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent / "shim"))
from driver_program import run_driver_program  # noqa: E402


def test_driver_calls_that_were_stubs(tmp_path: Path) -> None:
    out = run_driver_program(tmp_path, "test_driver_adapted")
    assert out.stdout.count("ok ") == 23, out.stdout
    assert "cuStreamGetAttribute: attribute 2 is not a stream attribute" in out.stderr
    assert "cuMemcpy3DPeer: a NULL source or destination context" in out.stderr
