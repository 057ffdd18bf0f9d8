"""cuda-python used as its users use it: cuda.bindings.driver, cuda.bindings.runtime (a static
cudart inside) and cuda.core (device query, an NVRTC program, memory, launch, events,
graphs). Run by the client's own Python under `pyshim run` (tests/real_clients/run.py
cuda-usage); every check compares against a numpy reference computed here."""

import numpy as np
import pytest
from cuda.bindings import driver, nvrtc, runtime

SAXPY = r"""
extern "C" __global__ void saxpy(float a, const float *x, float *y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + y[i];
}
"""
N = 4096


def ok(result):
    err, *rest = result if isinstance(result, tuple) else (result,)
    if isinstance(err, driver.CUresult):
        assert err == driver.CUresult.CUDA_SUCCESS, err
    elif isinstance(err, runtime.cudaError_t):
        assert err == runtime.cudaError_t.cudaSuccess, err
    else:
        assert err == nvrtc.nvrtcResult.NVRTC_SUCCESS, err
    return rest[0] if len(rest) == 1 else rest


@pytest.fixture(scope="module")
def device():
    ok(driver.cuInit(0))
    dev = ok(driver.cuDeviceGet(0))
    ctx = ok(driver.cuDevicePrimaryCtxRetain(dev))
    ok(driver.cuCtxSetCurrent(ctx))
    yield dev
    ok(driver.cuDevicePrimaryCtxRelease(dev))


def cc(dev):
    a = driver.CUdevice_attribute
    major = ok(driver.cuDeviceGetAttribute(a.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev))
    minor = ok(driver.cuDeviceGetAttribute(a.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev))
    return major, minor


def compile_saxpy(dev, target: str) -> bytes:
    major, minor = cc(dev)
    prog = ok(nvrtc.nvrtcCreateProgram(SAXPY.encode(), b"saxpy.cu", 0, [], []))
    arch = f"--gpu-architecture={target}_{major}{minor}".encode()
    ok(nvrtc.nvrtcCompileProgram(prog, 1, [arch]))
    if target == "compute":
        size = ok(nvrtc.nvrtcGetPTXSize(prog))
        buf = b" " * size
        ok(nvrtc.nvrtcGetPTX(prog, buf))
    else:
        size = ok(nvrtc.nvrtcGetCUBINSize(prog))
        buf = b" " * size
        ok(nvrtc.nvrtcGetCUBIN(prog, buf))
    return buf


def test_driver_device_query(device):
    assert ok(driver.cuDeviceGetCount()) >= 1
    name = ok(driver.cuDeviceGetName(64, device))
    assert name.strip(b"\0")
    a = driver.CUdevice_attribute
    assert ok(driver.cuDeviceGetAttribute(a.CU_DEVICE_ATTRIBUTE_WARP_SIZE, device)) == 32
    assert cc(device)[0] >= 5
    assert ok(driver.cuDeviceTotalMem(device)) > 0


@pytest.mark.parametrize("target", ["compute", "sm"])
def test_driver_nvrtc_launch(device, target):
    """An NVRTC program (PTX, and the cubin for the device's own arch that users ask for),
    loaded and launched through the driver API."""
    image = compile_saxpy(device, target)
    mod = ok(driver.cuModuleLoadData(image))
    fn = ok(driver.cuModuleGetFunction(mod, b"saxpy"))
    x = np.arange(N, dtype=np.float32)
    y = np.full(N, 3.0, dtype=np.float32)
    dx = ok(driver.cuMemAlloc(x.nbytes))
    dy = ok(driver.cuMemAlloc(y.nbytes))
    ok(driver.cuMemcpyHtoD(dx, x, x.nbytes))
    ok(driver.cuMemcpyHtoD(dy, y, y.nbytes))
    stream = ok(driver.cuStreamCreate(0))
    args = (np.array([2.0], dtype=np.float32), np.array([int(dx)], dtype=np.uint64),
            np.array([int(dy)], dtype=np.uint64), np.array([N], dtype=np.int32))
    ptrs = np.array([a.ctypes.data for a in args], dtype=np.uint64)
    ok(driver.cuLaunchKernel(fn, N // 256, 1, 1, 256, 1, 1, 0, stream, ptrs.ctypes.data, 0))
    ok(driver.cuStreamSynchronize(stream))
    out = np.empty_like(y)
    ok(driver.cuMemcpyDtoH(out, dy, out.nbytes))
    np.testing.assert_allclose(out, 2.0 * x + 3.0)
    for p in (dx, dy):
        ok(driver.cuMemFree(p))
    ok(driver.cuStreamDestroy(stream))
    ok(driver.cuModuleUnload(mod))


def test_runtime_memory_streams_events():
    assert ok(runtime.cudaGetDeviceCount()) >= 1
    props = ok(runtime.cudaGetDeviceProperties(0))
    assert props.warpSize == 32
    x = np.arange(N, dtype=np.int32)
    d = ok(runtime.cudaMalloc(x.nbytes))
    stream = ok(runtime.cudaStreamCreate())
    start, stop = ok(runtime.cudaEventCreate()), ok(runtime.cudaEventCreate())
    ok(runtime.cudaEventRecord(start, stream))
    ok(runtime.cudaMemcpyAsync(d, x.ctypes.data, x.nbytes,
                               runtime.cudaMemcpyKind.cudaMemcpyHostToDevice, stream))
    ok(runtime.cudaMemsetAsync(d, 0, 16, stream))
    ok(runtime.cudaEventRecord(stop, stream))
    ok(runtime.cudaEventSynchronize(stop))
    assert ok(runtime.cudaEventElapsedTime(start, stop)) >= 0.0
    out = np.empty_like(x)
    ok(runtime.cudaMemcpy(out.ctypes.data, d, x.nbytes,
                          runtime.cudaMemcpyKind.cudaMemcpyDeviceToHost))
    want = x.copy()
    want[:4] = 0
    np.testing.assert_array_equal(out, want)
    ok(runtime.cudaFree(d))
    ok(runtime.cudaStreamDestroy(stream))


def _to_device(dev, stream, host):
    buf = dev.allocate(host.nbytes, stream=stream)
    stream.sync()
    ok(driver.cuMemcpyHtoD(int(buf.handle), host, host.nbytes))
    return buf


def _to_host(buf, like):
    out = np.empty_like(like)
    ok(driver.cuMemcpyDtoH(out, int(buf.handle), out.nbytes))
    return out


def _core_kernel(dev):
    from cuda.core import Program, ProgramOptions

    prog = Program(SAXPY, "c++", ProgramOptions(arch=f"sm_{dev.arch}"))
    return prog.compile("cubin").get_kernel("saxpy")


def test_core_device_program_launch_events():
    from cuda.core import Device, LaunchConfig, launch

    dev = Device(0)
    dev.set_current()
    assert dev.properties.warp_size == 32
    assert dev.compute_capability.major >= 5
    kernel = _core_kernel(dev)
    stream = dev.create_stream()
    x = np.arange(N, dtype=np.float32)
    bx, by = _to_device(dev, stream, x), _to_device(dev, stream, np.ones(N, np.float32))
    e0 = stream.record(options={"timing_enabled": True})
    launch(stream, LaunchConfig(grid=N // 128, block=128), kernel, np.float32(0.5), bx, by,
           np.int32(N))
    e1 = stream.record(options={"timing_enabled": True})
    stream.sync()
    assert (e1 - e0) >= 0.0
    np.testing.assert_allclose(_to_host(by, x), 0.5 * x + 1.0)


def test_core_graph():
    from cuda.core import Device, LaunchConfig, launch

    dev = Device(0)
    dev.set_current()
    kernel = _core_kernel(dev)
    stream = dev.create_stream()
    x = np.arange(N, dtype=np.float32)
    bx, by = _to_device(dev, stream, x), _to_device(dev, stream, np.zeros(N, np.float32))
    gb = stream.create_graph_builder().begin_building()
    for _ in range(3):
        launch(gb, LaunchConfig(grid=N // 128, block=128), kernel, np.float32(1.0), bx, by,
               np.int32(N))
    graph = gb.end_building().complete()
    graph.upload(stream)
    graph.launch(stream)
    stream.sync()
    np.testing.assert_allclose(_to_host(by, x), 3.0 * x)
