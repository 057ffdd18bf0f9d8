"""Module and library loading in the shim (tests/shim/test_modules.c, linked with -lcuda):
lazy libraries with no context, globals, CUkernel as CUfunction, bad images as errors."""

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


def test_modules_and_libraries(tmp_path: Path) -> None:
    out = run_driver_program(tmp_path, "test_modules")
    # each refusal is explained on stderr, naming the thing
    assert "frobnicate" in out.stderr
    assert "no_such_kernel" in out.stderr
    assert "claims 65551 bytes that are not there" in out.stderr
    assert "is defined in more than one module (a.ptx, b.ptx)" in out.stderr


def test_library_management_and_capture_info(tmp_path: Path) -> None:
    """One image with a __device__ global loaded six times at once (the CPU device gave the
    third load hipErrorHostMemoryAlreadyRegistered), the cuLibrary* / cuKernel* family,
    parameter info from the PTX signature, and cuStreamGetCaptureInfo's three ABIs."""
    out = run_driver_program(tmp_path, "test_library_api")
    assert out.stdout.count("ok ") >= 30


def test_driver_calls_of_cuda_bindings_tests(tmp_path: Path) -> None:
    """cuda-bindings' own tests/test_cuda.py: cuGraphAddNode / cuGraphNodeSetParams /
    cuGraphExecNodeSetParams over the typed node calls (memset, memcpy: parameters read
    back and replaced, the exec apart from its graph), the global coredump settings with
    cuda.h's defaults, cuDeviceGetDevResource + cuDevSmResourceSplitByCount, cuMemPoolCreate,
    pointer attributes (access flags, pool, SYNC_MEMOPS read back as set), managed-memory
    advice and prefetches read back by cuMemRangeGetAttribute(s). All were
    CUDA_ERROR_NOT_SUPPORTED stubs before."""
    out = run_driver_program(tmp_path, "test_driver_extras")
    assert out.stdout.count("ok ") >= 60
    # a node type without a typed equivalent is refused by name
    assert "cuGraphAddNode for a conditional node" in out.stderr


def test_driver_entry_points_mapped_for_issue_21(tmp_path: Path) -> None:
    """Entry points the tables now count as mapped (cuStreamWaitValue32/64, cuMemcpyPeer
    and its async form, cuMemPrefetchAsync and cuMemAdvise by CUmemLocation, the
    location-addressed pool calls, cuCtxCreate's ABIs): each behaves as CUDA documents on the
    CPU device. The wait-value and pool calls were NOT_SUPPORTED stubs before, and
    cuCtxCreate_v3 / the CUDA 3.2 cuCtxCreate too."""
    out = run_driver_program(tmp_path, "test_driver_mapped")
    assert out.stdout.count("ok ") >= 28
