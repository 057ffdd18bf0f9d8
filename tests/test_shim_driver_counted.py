"""Driver entry points implemented in the shim with no HIP target, run through the shim's
libcuda.so.1 on the CPU device (tests/shim/test_driver_counted.c): the pre-CUDA-4.0
launches, the driver's error log, per-context coredump settings, and the small context,
module and kernel calls. tables/tested.toml names these tests for the entry points they
show, which is what lets `pyshim tables stats` count them (issue #21 point 6)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent / "shim"))
from driver_program import run_driver_program  # noqa: E402

pytestmark = pytest.mark.skipif(
    importlib.util.find_spec("pyshim.kernels.loader") is None,
    reason="pyshim.kernels.loader (the PTX translator) does not exist yet",
)


def test_driver_entry_points_counted_for_issue_21(tmp_path: Path) -> None:
    out = run_driver_program(tmp_path, "test_driver_counted")
    assert out.stdout.count("ok ") >= 60
    # the refusals are explained on stderr, naming the call and the function
    assert "cuLaunchGrid(axpy): no block shape was set" in out.stderr
    assert "cuParamSetSize(shape, 4097): the parameter space is 4096 bytes" in out.stderr
    assert "cuCtxSetFlags(0x100): not a combination of CUctx_flags values" in out.stderr
