"""Run under `pyshim run` with a Python that has cuda-core: device query, an NVRTC program
compiled to argv[1] (cubin or ptx) for the device's own arch, memory, a launch timed by
events, and the same launch captured in a graph and replayed."""

import sys

import numpy as np
from cuda.bindings import driver as dr
from cuda.core import Device, LaunchConfig, Program, ProgramOptions, launch

dev = Device()
dev.set_current()
cc = dev.compute_capability
print("device", dev.name, f"{cc.major}.{cc.minor}", dev.properties.multiprocessor_count)
s = dev.create_stream()
code = r"""
extern "C" __global__ void saxpy(float a, const float *x, float *y, size_t n) {
  size_t i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) y[i] = a * x[i] + y[i]; }
"""
prog = Program(code, "c++", ProgramOptions(arch=f"sm_{cc.major}{cc.minor}"))
k = prog.compile(sys.argv[1]).get_kernel("saxpy")
n = 1000
mr = dev.memory_resource
x, y = mr.allocate(n * 4, stream=s), mr.allocate(n * 4, stream=s)
hx, hy = np.arange(n, dtype=np.float32), np.ones(n, dtype=np.float32)
dr.cuMemcpyHtoD(int(x.handle), hx.ctypes.data, n * 4)
dr.cuMemcpyHtoD(int(y.handle), hy.ctypes.data, n * 4)
e0 = dev.create_event({"timing_enabled": True})
e1 = dev.create_event({"timing_enabled": True})
config = LaunchConfig(grid=(n + 127) // 128, block=128)
s.record(e0)
launch(s, config, k, np.float32(2.0), x, y, np.uint64(n))
s.record(e1)
s.sync()
out = np.empty(n, dtype=np.float32)
dr.cuMemcpyDtoH(out.ctypes.data, int(y.handle), n * 4)
assert np.allclose(out, 2 * hx + 1), out[:8]
print("launch ok", (e1 - e0) >= 0)
gb = s.create_graph_builder().begin_building()
launch(gb, config, k, np.float32(1.0), x, y, np.uint64(n))
graph = gb.end_building().complete()
graph.launch(s)
graph.launch(s)
s.sync()
dr.cuMemcpyDtoH(out.ctypes.data, int(y.handle), n * 4)
assert np.allclose(out, 4 * hx + 1), out[:8]
print("graph ok")
x.close()
y.close()
print("OK", sys.argv[1])
