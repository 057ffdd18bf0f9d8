"""Runtime/driver API groups by real nvcc-built programs on the CPU device, through our
libcudart and (where both agree) NVIDIA's static runtime over our libcuda: a graph's shape
(edges, roots, dependencies, clones, DOT, per-exec enabling, node destruction; the driver's
edge-data _v2 forms), symbol copy nodes, kernel node parameters read back, per-kernel bank
size and available shared memory, batched copies."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from test_runtime_programs import RT_DIR, assert_passed, libs, nvcc, run  # noqa: F401 (libs: a fixture)

pytestmark = pytest.mark.skipif(shutil.which("nvcc") is None, reason="nvcc is not installed")


@pytest.mark.parametrize("cudart", ["shared", "static"])
def test_graph_topology(libs: Path, tmp_path: Path, cudart: str) -> None:  # noqa: F811
    exe = nvcc(RT_DIR / "rt_graph_topology.cu", "-cudart", cudart,
               name=f"rt_graph_topology_{cudart}")
    dot = tmp_path / "g.dot"
    proc = run(exe, libs, str(dot))
    assert_passed(proc)
    assert "(5 + 3) * 2 = 16" in proc.stdout
    assert "duplicate edge: cudaErrorInvalidValue" in proc.stdout
    assert "captured: 4 nodes, 4 edges, 1 roots" in proc.stdout
    text = dot.read_text()
    # two kernel vertices, named, and the one edge between them
    assert text.count("KERNEL") == 2 and "_Z3addPii" in text and "_Z5scalePii" in text
    assert text.count("->") == 1


@pytest.mark.parametrize("cudart", ["shared", "static"])
def test_graph_symbol_copy_nodes(libs: Path, cudart: str) -> None:  # noqa: F811
    """cudaGraph*MemcpyNode*ToSymbol/FromSymbol (graph_symbol.c on our runtime; NVIDIA's
    resolves the variable itself and reaches our cuGraph*MemcpyNode* calls)."""
    exe = nvcc(RT_DIR / "rt_graph_symbol.cu", "-cudart", cudart,
               name=f"rt_graph_symbol_{cudart}")
    proc = run(exe, libs)
    assert_passed(proc)
    assert "out2[0] = 108, out2[8] = 9" in proc.stdout
    assert "to symbol, device to host: cudaErrorInvalidMemcpyDirection" in proc.stdout


def test_func_bank_size_and_available_shared_memory(libs: Path) -> None:  # noqa: F811
    """cudaFuncSetSharedMemConfig, cudaOccupancyAvailableDynamicSMemPerBlock by host stub
    (func_config.c). Our runtime only: NVIDIA's static one hands a host function and a bad
    bank size to the driver, whose answers differ (see the report of this change)."""
    exe = nvcc(RT_DIR / "rt_func_config.cu", "-cudart", "shared", name="rt_func_config")
    proc = run(exe, libs)
    assert_passed(proc)
    line = next(ln for ln in proc.stdout.splitlines() if ln.startswith("limits "))
    words = line.split()
    per_sm, optin, static, one, four = (int(words[i]) for i in (1, 2, 4, 6, 7))
    # the documented arithmetic over the presented limits
    assert one == min(per_sm, optin) - static
    assert four == min(per_sm // 4, optin) - static
    assert "not a kernel: cudaErrorInvalidDeviceFunction" in proc.stdout


@pytest.mark.parametrize("cudart", ["shared", "static"])
def test_graph_kernel_node_params_read_back(libs: Path, cudart: str) -> None:  # noqa: F811
    """cudaGraphKernelNodeGetParams (graph_kernel_node.c over hipGraphKernelNodeGetParams;
    NVIDIA's runtime reaches cuGraphKernelNodeGetParams_v2, graph_kernel_params.c)."""
    exe = nvcc(RT_DIR / "rt_graph_kernel_node.cu", "-cudart", cudart,
               name=f"rt_graph_kernel_node_{cudart}")
    proc = run(exe, libs)
    assert_passed(proc)
    assert "a = 2.5" in proc.stdout
    assert "empty node: cudaErrorInvalidValue" in proc.stdout


@pytest.mark.parametrize("cudart", ["shared", "static"])
def test_memcpy_batch(libs: Path, cudart: str) -> None:  # noqa: F811
    """cudaMemcpyBatchAsync (memcpy_batch.c on our runtime; NVIDIA's reaches
    cuMemcpyBatchAsync_v2, shim/core/memcpy_batch.c)."""
    exe = nvcc(RT_DIR / "rt_memcpy_batch.cu", "-cudart", cudart, name=f"rt_memcpy_batch_{cudart}")
    proc = run(exe, libs)
    assert_passed(proc)
    assert "ra[255] = 255, rb[255] = 745" in proc.stdout
    assert "legacy stream: cudaErrorInvalidValue" in proc.stdout


@pytest.mark.parametrize("cudart", ["shared", "static"])
def test_texture_1d_linear_max_width(libs: Path, cudart: str) -> None:  # noqa: F811
    """cudaDeviceGetTexture1DLinearMaxWidth (direct to the CPU device's
    hipDeviceGetTexture1DLinearMaxWidth) and cuDeviceGetTexture1DLinearMaxWidth
    (texture_limits.c): the same element gets the same width by either API."""
    exe = nvcc(RT_DIR / "rt_texture_limits.cu", "-cudart", cudart, f"-L{libs / 'lib'}", "-lcuda",
               name=f"rt_texture_limits_{cudart}")
    proc = run(exe, libs)
    assert_passed(proc)
    line = next(ln for ln in proc.stdout.splitlines() if ln.startswith("widths "))
    assert int(line.split()[2]) > 0
    assert "NV12: 1" in proc.stdout and "bad device: 101" in proc.stdout


@pytest.mark.parametrize("cudart", ["shared", "static"])
def test_stream_update_capture_dependencies(libs: Path, cudart: str) -> None:  # noqa: F811
    """cudaStreamUpdateCaptureDependencies (adapter to the CPU device's
    hipStreamUpdateCaptureDependencies, stream.c; NVIDIA's runtime reaches
    cuStreamUpdateCaptureDependencies_v2, capture_deps.c) and the dependency set read back
    by cudaStreamGetCaptureInfo; cudaStreamBeginCaptureToGraph (the CPU device's
    hipStreamBeginCaptureToGraph) records into the program's graph."""
    exe = nvcc(RT_DIR / "rt_capture_deps.cu", "-cudart", cudart, name=f"rt_capture_deps_{cudart}")
    proc = run(exe, libs)
    assert_passed(proc)
    assert "after set A, add B: 2 dependencies" in proc.stdout
    assert "captured: 4 nodes, 3 edges, 2 roots" in proc.stdout
    assert "values 10 11 12 13" in proc.stdout
    assert "into my graph: same 1, 2 nodes, 1 edges" in proc.stdout


@pytest.mark.parametrize("cudart", ["shared", "static"])
def test_array_linear_copies(libs: Path, cudart: str) -> None:  # noqa: F811
    """cudaMemcpyToArrayAsync, cudaMemcpyFromArrayAsync, cudaMemcpyArrayToArray (array_copy.c:
    row-spanning 1D copies split into the CPU device's 2D array copies; NVIDIA's runtime
    reaches libcuda's 2D copies)."""
    exe = nvcc(RT_DIR / "rt_array_copy.cu", "-cudart", cudart, name=f"rt_array_copy_{cudart}")
    proc = run(exe, libs, *(["ours"] if cudart == "shared" else []))
    assert_passed(proc)
    assert "wrong bytes: A 0, B 0" in proc.stdout
    if cudart == "shared":  # NVIDIA's runtime over libcuda lets this copy through
        assert "past the last row: cudaErrorInvalidValue" in proc.stdout


@pytest.mark.parametrize("cudart", ["shared", "static"])
def test_texture_object_descriptors(libs: Path, cudart: str) -> None:  # noqa: F811
    """cudaGetTextureObjectTextureDesc / ResourceViewDesc (texture.c over the CPU device's
    hipGetTextureObject*Desc; NVIDIA's runtime reaches cuTexObjectGet*Desc)."""
    exe = nvcc(RT_DIR / "rt_texture_desc.cu", "-cudart", cudart,
               name=f"rt_texture_desc_{cudart}")
    proc = run(exe, libs, *(["ours"] if cudart == "shared" else []))
    assert_passed(proc)
    assert "view: format 22 4 x 2" in proc.stdout  # cudaResViewFormatFloat1
    assert "no view: cudaErrorInvalidValue" in proc.stdout
    assert "wrapped fetch: 11" in proc.stdout


def test_memory_batches(libs: Path) -> None:  # noqa: F811
    """cudaMemPrefetchBatchAsync, cudaMemDiscardBatchAsync, cudaMemDiscardAndPrefetchBatchAsync,
    cudaMemcpy3DBatchAsync (memory_batch.c). Our runtime only: NVIDIA's reaches libcuda's
    cuMem*BatchAsync, which libcuda does not implement."""
    exe = nvcc(RT_DIR / "rt_memory_batch.cu", "-cudart", "shared", name="rt_memory_batch")
    proc = run(exe, libs)
    assert_passed(proc)
    assert "last prefetch: 0 0 -1" in proc.stdout
    assert "3D batch: 0 wrong in the array, 0 wrong in the block, back[2][3][5] = 235" \
        in proc.stdout
    assert "discard of cudaMalloc memory: cudaErrorInvalidValue" in proc.stdout


@pytest.mark.parametrize("cudart", ["shared", "static"])
def test_init_device(libs: Path, cudart: str) -> None:  # noqa: F811
    """cudaInitDevice (device.c: deviceFlags applied through cudaSetDeviceFlags)."""
    exe = nvcc(RT_DIR / "rt_device_init.cu", "-cudart", cudart, name=f"rt_device_init_{cudart}")
    proc = run(exe, libs)
    assert_passed(proc)
    assert "flags after init: 0x4" in proc.stdout
    assert "unknown device flags: cudaErrorInvalidValue" in proc.stdout


@pytest.mark.parametrize("cudart", ["shared", "static"])
def test_func_param_info(libs: Path, cudart: str) -> None:  # noqa: F811
    """cudaFuncGetParamInfo (launch.c: the translator's parameter layout of the host stub's
    kernel; NVIDIA's runtime reaches cuFuncGetParamInfo)."""
    exe = nvcc(RT_DIR / "rt_param_info.cu", "-cudart", cudart, name=f"rt_param_info_{cudart}")
    proc = run(exe, libs)
    assert_passed(proc)
    # char, double, pointer, float3, short, a 16-aligned 20-byte struct (padded to 32)
    assert "layout: 0:1 8:8 16:8 24:12 36:2 48:32" in proc.stdout
    assert "past the last: cudaErrorInvalidValue" in proc.stdout


def test_graph_kernel_node_attributes(libs: Path) -> None:  # noqa: F811
    """cudaGraphKernelNode{Set,Get}Attribute (graph_kernel_node.c over the CPU device's
    hipGraphKernelNode{Set,Get}Attribute, which keeps them in the node's launch; the
    cooperative one is applied when the node runs). Our runtime only: NVIDIA's reaches
    libcuda's cuGraphKernelNode{Set,Get}Attribute, a driver entry point of its own."""
    exe = nvcc(RT_DIR / "rt_graph_node_attrs.cu", "-cudart", "shared", name="rt_graph_node_attrs")
    proc = run(exe, libs)
    assert_passed(proc)
    assert ("node a: priority 3, window 1024 bytes hit 0.625 props 2/1, cooperative 1, "
            "domain 1") in proc.stdout
    assert "cooperative, 2^20 blocks: cudaErrorCooperativeLaunchTooLarge" in proc.stdout
    assert "node b after copy: priority 3" in proc.stdout


@pytest.mark.parametrize("cudart", ["shared", "static"])
def test_func_by_symbol(libs: Path, cudart: str) -> None:  # noqa: F811
    """cudaGetFuncBySymbol (launch.c, register.c: libcuda loads the kernel's fat binary too
    and names the kernel's CUfunction), used with cuFuncGetName, cuFuncGetAttribute and
    cuLaunchKernel."""
    exe = nvcc(RT_DIR / "rt_func_by_symbol.cu", "-cudart", cudart, f"-L{libs / 'lib'}", "-lcuda",
               name=f"rt_func_by_symbol_{cudart}")
    proc = run(exe, libs)
    assert_passed(proc)
    assert "driver name: _Z4axpyfPKfPfi" in proc.stdout
    assert "y[999] = 1999" in proc.stdout
    assert "host function: cudaErrorInvalidDeviceFunction" in proc.stdout


@pytest.mark.parametrize("cudart", ["shared", "static"])
def test_logs(libs: Path, tmp_path: Path, cudart: str) -> None:  # noqa: F811
    """cudaLogs* (logs.c: libcuda's cuLogs*, shim/core/logs.c, as NVIDIA's runtime reads
    them): callbacks, iterators, dumps to memory and to a file."""
    exe = nvcc(RT_DIR / "rt_logs.cu", "-cudart", cudart, f"-L{libs / 'lib'}", "-lcuda",
               name=f"rt_logs_{cudart}")
    path = tmp_path / "log.txt"
    proc = run(exe, libs, str(path))
    assert_passed(proc)
    assert "refused call: 1, callback calls: 1" in proc.stdout
    assert "cuFuncSetBlockShape" in path.read_text()
    assert "current(NULL): cudaErrorInvalidValue" in proc.stdout
