"""Run under `pyshim run` with numba-cuda: a kernel compiled with numba's defaults (LTO
through nvJitLink into a cubin), and one linked with a PTX file of our own (argv[1])."""

import sys

import numpy as np
from numba import cuda


@cuda.jit
def saxpy(a, x, y, out):
    i = cuda.grid(1)
    if i < x.size:
        out[i] = a * x[i] + y[i]


n = 1000
x = np.arange(n, dtype=np.float32)
y = np.ones(n, dtype=np.float32)
out = np.zeros_like(x)
saxpy[(n + 127) // 128, 128](np.float32(2), x, y, out)
assert np.allclose(out, 2 * x + 1), out[:5]
print("lto kernel ok")

triple = cuda.declare_device("triple", "int32(int32)")


@cuda.jit(link=[sys.argv[1]])
def use_ptx(r, a):
    i = cuda.grid(1)
    if i < r.size:
        r[i] = triple(a[i])


a = np.arange(10, dtype=np.int32)
r = np.zeros_like(a)
use_ptx[1, 32](r, a)
assert (r == 3 * a).all(), r
print("linked ptx ok")
