"""Runtime and driver calls whose CUDA structs HIP lays out differently (stream attributes,
memset graph nodes, node types, cudaGraphInstantiateWithParams, memory pools and CUDA 13's
location-addressed pools, cudaMemRangeGetAttributes, cudaGraphKernelNodeSetParams,
cudaGraphAddNode): tests/runtime/rt_adapted.cu, built by
nvcc, checks what each call does on the CPU device, through pyshim's libcudart.so.13 and
through NVIDIA's static runtime (which calls libcuda's cuStreamGetAttribute,
cuGraphMemsetNodeGetParams, cuMemPoolCreate ...). Bad arguments get an error and a log line
naming the function."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

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
    assert "exec from before: 3 .. 5" in proc.stdout  # cudaGraphKernelNodeSetParams
    assert "generic nodes: 7 .. 0x1010101" in proc.stdout  # cudaGraphAddNode
    assert "cudaGraphAddNode: no typed call for this node type here (node type 13)" in proc.stderr
    assert "cudaStreamGetAttribute: attribute 2 is not a stream attribute" in proc.stderr
    assert "pool with a usage flag: cudaErrorNotSupported" in proc.stdout
    assert "cudaMemPoolCreate: usage flags" in proc.stderr


def test_adapted_calls_through_nvidias_static_runtime(libs: Path) -> None:  # noqa: F811
    proc = run(nvcc(SRC, INC, name="rt_adapted-static"), libs)
    _passed(proc)
    assert "row 0: deadbeef .. deadbeef, padding abababab" in proc.stdout
    assert "cuStreamGetAttribute: attribute 2 is not a stream attribute" in proc.stderr
    assert "exec from before: 3 .. 5" in proc.stdout  # cuGraphKernelNodeSetParams_v2
    assert "generic nodes: 7 .. 0x1010101" in proc.stdout  # cuGraphAddNode


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


def test_cuda12_abi_variants_are_implemented_where_cuda13s_are() -> None:
    """libcudart.so.12's symbols whose signature CUDA 13 changed (cudaGraphAddDependencies
    without edge data ...) and its _v2 edge-data forms were NOT_SUPPORTED stubs while the
    CUDA 13 ones forwarded; now a CUDA 12 ABI is a stub only where CUDA 13's twin is."""
    c12 = load_table("cuda12")
    d12, d13 = defined.runtime(12), defined.runtime(13)
    variants = sorted({*c12["signature_changed"], *c12["symbols_only_in_12"]})
    twin = {s: re.sub(r"_v2(?=$|_ptsz$)", "", s) for s in variants}
    behind = [s for s in variants if not d12.implemented(s) and d13.implemented(twin[s])]
    assert not behind, behind
    assert d12.implemented("cudaGraphAddDependencies")
    assert d12.implemented("cudaStreamUpdateCaptureDependencies_v2")


CUDA12_EDGES = r"""
import ctypes, sys
rt = ctypes.CDLL(sys.argv[1] + "/libcudart.so.12")
P = ctypes.c_void_p
g, a, b = P(), P(), P()
assert rt.cudaGraphCreate(ctypes.byref(g), 0) == 0
assert rt.cudaGraphAddEmptyNode(ctypes.byref(a), g, None, ctypes.c_size_t(0)) == 0
assert rt.cudaGraphAddEmptyNode(ctypes.byref(b), g, None, ctypes.c_size_t(0)) == 0
# CUDA 12's ABI: (graph, from, to, count), no edge data
add = rt.cudaGraphAddDependencies(g, ctypes.byref(a), ctypes.byref(b), ctypes.c_size_t(1))
n = ctypes.c_size_t(0)
edges = rt.cudaGraphGetEdges(g, None, None, ctypes.byref(n))
dep, nd = P(), ctypes.c_size_t(1)
deps = rt.cudaGraphNodeGetDependencies(b, ctypes.byref(dep), ctypes.byref(nd))
# the _v2 form with edge data: NULL edge data is the plain call
rm = rt.cudaGraphRemoveDependencies_v2(g, ctypes.byref(a), ctypes.byref(b), None,
                                       ctypes.c_size_t(1))
n2 = ctypes.c_size_t(7)
rt.cudaGraphGetEdges(g, None, None, ctypes.byref(n2))
print(add, edges, n.value, deps, nd.value, dep.value == a.value, rm, n2.value)
"""


def test_cuda12_graph_edges_on_libcudart12(libs: Path) -> None:  # noqa: F811
    proc = subprocess.run([sys.executable, "-c", CUDA12_EDGES, str(libs / "lib")],
                          capture_output=True, text=True, timeout=120, env=shim_env(libs))
    assert proc.returncode == 0, proc.stderr
    calls = {"cudaGraphAddDependencies": "hipGraphAddDependencies",
             "cudaGraphGetEdges": "hipGraphGetEdges",
             "cudaGraphNodeGetDependencies": "hipGraphNodeGetDependencies",
             "cudaGraphRemoveDependencies_v2": "hipGraphRemoveDependencies"}
    if "the HIP backend has no" in proc.stderr:
        # the CPU device's graphs run their nodes in order and keep no edges: the calls
        # reach HIP (a forwarding thunk, not the stub they were) and say what it lacks
        for call, hip in calls.items():
            assert f"{call} is not supported: the HIP backend has no {hip}" in proc.stderr
        assert proc.stdout.split()[:2] == ["801", "801"]  # cudaErrorNotSupported
    else:
        assert proc.stdout.split() == ["0", "0", "1", "0", "1", "True", "0", "0"], \
            proc.stdout + proc.stderr


CUDA12_BATCH3D = r"""
import ctypes, sys
rt = ctypes.CDLL(sys.argv[1] + "/libcudart.so.12")
S = ctypes.c_size_t


class Ptr(ctypes.Structure):  # the pointer operand; its locHint {type, id} left 0
    _fields_ = [("ptr", ctypes.c_void_p), ("rowLength", S), ("layerHeight", S),
                ("loc", ctypes.c_int * 2)]


class Arr(ctypes.Structure):
    _fields_ = [("array", ctypes.c_void_p), ("offset", S * 3)]


class U(ctypes.Union):
    _fields_ = [("ptr", Ptr), ("array", Arr)]


class Operand(ctypes.Structure):
    _fields_ = [("type", ctypes.c_int), ("op", U)]


class Op(ctypes.Structure):
    _fields_ = [("src", Operand), ("dst", Operand), ("extent", S * 3),
                ("srcAccessOrder", ctypes.c_int), ("flags", ctypes.c_uint)]


host = (ctypes.c_ubyte * 24)(*range(24))
back = (ctypes.c_ubyte * 24)()
dev = ctypes.c_void_p()
assert rt.cudaMalloc(ctypes.byref(dev), S(24)) == 0
stream = ctypes.c_void_p()
assert rt.cudaStreamCreateWithFlags(ctypes.byref(stream), 1) == 0
ops = (Op * 2)()
for op in ops:  # pointer to pointer, a 4 x 3 x 2 block of bytes, tightly packed
    op.src.type = op.dst.type = 1  # cudaMemcpyOperandTypePointer
    op.src.op.ptr.ptr = ctypes.addressof(host)
    op.dst.op.ptr.ptr = dev.value
    op.extent[:] = (4, 3, 2)
    op.srcAccessOrder = 1  # cudaMemcpySrcAccessOrderStream
ops[1].extent[2] = 0  # a zero extent: op 1 is refused
fail = S(7)
bad_op = rt.cudaMemcpy3DBatchAsync(S(2), ops, ctypes.byref(fail), ctypes.c_ulonglong(0), stream)
fail_op = fail.value
bad_flags = rt.cudaMemcpy3DBatchAsync(S(1), ops, ctypes.byref(fail), ctypes.c_ulonglong(1),
                                      stream)
fail_flags = fail.value
ok = rt.cudaMemcpy3DBatchAsync(S(1), ops, ctypes.byref(fail), ctypes.c_ulonglong(0), stream)
assert rt.cudaStreamSynchronize(stream) == 0
assert rt.cudaMemcpy(back, dev, S(24), 4) == 0
print(bad_op, fail_op, bad_flags, fail_flags == 2**64 - 1, ok, list(back) == list(host))
"""


def test_cuda12_3d_batch_reports_the_failing_op(libs: Path) -> None:  # noqa: F811
    """libcudart.so.12's cudaMemcpy3DBatchAsync is CUDA 12.8's ABI (a failIdx before the
    flags): it copies, and names the op it refused (SIZE_MAX: the batch as a whole)."""
    proc = subprocess.run([sys.executable, "-c", CUDA12_BATCH3D, str(libs / "lib")],
                          capture_output=True, text=True, timeout=120, env=shim_env(libs))
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == ["1", "1", "1", "True", "0", "True"], proc.stdout + proc.stderr
    assert "cudaMemcpy3DBatchAsync: a zero extent" in proc.stderr
