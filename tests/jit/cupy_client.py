"""Run under `pyshim run` with CuPy (no CUPY_COMPILE_WITH_PTX): elementwise kernels and a
user ElementwiseKernel, which CuPy compiles with NVRTC into cubins for the device's arch."""

import cupy as cp

x = cp.arange(1000, dtype=cp.float32)
y = x * 2 + 1
assert float(y[10]) == 21.0
sq = cp.ElementwiseKernel("float32 a", "float32 b", "b = a * a", "sq")
assert float(sq(x)[3]) == 9.0
z = cp.sin(x) ** 2 + cp.cos(x) ** 2
assert abs(float(z[123]) - 1.0) < 1e-5
print("cupy elementwise ok")
