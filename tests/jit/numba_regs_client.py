"""Run under `pyshim run` with numba-cuda: kernels compiled with max_registers (numba's
maxrregcount, given to nvJitLink) must report at most that many registers, and run."""

import numpy as np
from numba import cuda


def busy(x, a, b, c, d, e, g):
    i = cuda.grid(1)
    if i < x.size:
        x[i] = a * b + c * d - e / (g + 1.0) + a * c * e + b * d * g + (a - g) * (b - e)


for limit in (38, 24):
    k = cuda.jit(max_registers=limit)(busy).specialize(np.empty(32), *range(6))
    regs = k.get_regs_per_thread()
    assert 0 < regs <= limit, (limit, regs)
    x = np.zeros(32)
    k[1, 32](x, 1, 2, 3, 4, 5, 6)
    assert x[0] == 1 * 2 + 3 * 4 - 5 / 7.0 + 1 * 3 * 5 + 2 * 4 * 6 + (1 - 6) * (2 - 5), x[0]
    print(f"max_registers={limit}: {regs} registers, ran")
free = cuda.jit(busy).specialize(np.empty(32), *range(6)).get_regs_per_thread()
print(f"unbounded: {free} registers")
