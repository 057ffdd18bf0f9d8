"""Runtime and driver calls whose CUDA structs HIP lays out differently (stream attributes,
memset graph nodes, node types, cudaGraphInstantiateWithParams, memory pools and CUDA 13's
location-addressed pools, cudaMemRangeGetAttributes): tests/runtime/rt_adapted.cu, built by
nvcc, checks what each call does on the CPU device, through pyshim's libcudart.so.13 and
through NVIDIA's static runtime (which calls libcuda's cuStreamGetAttribute,
cuGraphMemsetNodeGetParams, cuMemPoolCreate ...). Bad arguments get an error and a log line
naming the function."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from test_runtime_programs import libs, nvcc, run, shim_env  # noqa: F401  (libs: a fixture)

from pyshim.codegen import defined
from pyshim.codegen.common import load_table
from pyshim.paths import REPO_DIR

SRC = REPO_DIR / "tests" / "runtime" / "rt_adapted.cu"
INC = f"-I{REPO_DIR / 'tests' / 'include'}"


def _passed(proc: subprocess.CompletedProcess[str]) -> None:
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-2000:]
    assert "FAIL" not in proc.stdout and "PASS adapted" in proc.stdout


def test_adapted_calls_on_pyshims_runtime(libs: Path) -> None:  # noqa: F811
    proc = run(nvcc(SRC, INC, "-cudart", "shared", name="rt_adapted-shared"), libs)
    _passed(proc)
    assert "row 0: deadbeef .. deadbeef, padding abababab" in proc.stdout
    assert "read mostly 1, preferred location 0" in proc.stdout
    assert "cudaStreamGetAttribute: attribute 2 is not a stream attribute" in proc.stderr
    assert "pool with a usage flag: cudaErrorNotSupported" in proc.stdout
    assert "cudaMemPoolCreate: usage flags" in proc.stderr


def test_adapted_calls_through_nvidias_static_runtime(libs: Path) -> None:  # noqa: F811
    proc = run(nvcc(SRC, INC, name="rt_adapted-static"), libs)
    _passed(proc)
    assert "row 0: deadbeef .. deadbeef, padding abababab" in proc.stdout
    assert "cuStreamGetAttribute: attribute 2 is not a stream attribute" in proc.stderr


NULL_ARGS = r"""
import ctypes, sys
rt = ctypes.CDLL(sys.argv[1] + "/libcudart.so.13")
cu = ctypes.CDLL(sys.argv[1] + "/libcuda.so.1")
assert cu.cuInit(0) == 0
dev, ctx = ctypes.c_int(), ctypes.c_void_p()
assert cu.cuDeviceGet(ctypes.byref(dev), 0) == 0
assert cu.cuDevicePrimaryCtxRetain(ctypes.byref(ctx), dev) == 0
assert cu.cuCtxSetCurrent(ctx) == 0
out = {
    "cudaStreamSetAttribute": rt.cudaStreamSetAttribute(None, 8, None),
    "cudaStreamGetAttribute": rt.cudaStreamGetAttribute(None, 8, None),
    "cudaGraphMemsetNodeGetParams": rt.cudaGraphMemsetNodeGetParams(None, None),
    "cudaGraphNodeGetType": rt.cudaGraphNodeGetType(None, None),
    "cudaMemRangeGetAttributes": rt.cudaMemRangeGetAttributes(None, None, None,
                                                             ctypes.c_size_t(1), None,
                                                             ctypes.c_size_t(0)),
    "cudaMemGetMemPool": rt.cudaMemGetMemPool(ctypes.byref(ctypes.c_void_p()), None, 1),
    "cuStreamSetAttribute": cu.cuStreamSetAttribute(None, 8, None),
    "cuStreamGetAttribute": cu.cuStreamGetAttribute(None, 99, ctypes.create_string_buffer(64)),
    "cuGraphMemsetNodeGetParams": cu.cuGraphMemsetNodeGetParams(None, None),
}
print(out)
"""


def test_bad_arguments_are_errors_that_name_the_function(libs: Path) -> None:  # noqa: F811
    proc = subprocess.run([sys.executable, "-c", NULL_ARGS, str(libs / "lib")],
                          capture_output=True, text=True, timeout=120, env=shim_env(libs))
    assert proc.returncode == 0, proc.stderr
    got = eval(proc.stdout.strip().splitlines()[-1])  # a dict literal this test printed
    assert all(v == 1 for v in got.values()), got  # cudaErrorInvalidValue / CUDA_ERROR_INVALID_VALUE
    for name in ("cudaStreamSetAttribute", "cudaGraphMemsetNodeGetParams", "cudaGraphNodeGetType",
                 "cudaMemRangeGetAttributes", "cudaMemGetMemPool", "cuStreamGetAttribute"):
        assert f"{name}:" in proc.stderr, (name, proc.stderr)


@pytest.mark.xfail(strict=True, reason="libcudart.so.12's CUDA-12-ABI variants of the symbols "
                   "whose signature CUDA 13 changed (cudaGraphAddDependencies, "
                   "cudaGraphNodeGetDependencies, cudaStreamUpdateCaptureDependencies, the "
                   "_v2 edge-data forms, ...) are generated NOT_SUPPORTED stubs: the generator "
                   "thunks only CUDA 13's ABI")
def test_cuda12_abi_variants_are_implemented() -> None:
    c12 = load_table("cuda12")
    d = defined.runtime(12)
    variants = sorted({*c12["signature_changed"], *c12["symbols_only_in_12"]})
    stubs = [s for s in variants if not d.implemented(s)]
    assert not stubs, stubs
