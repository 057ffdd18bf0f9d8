"""numba.cuda kernels timed inside the client's own Python (run by benchmarks/numba_suite.py,
once under `pyshim run` and once under numba's simulator, NUMBA_ENABLE_CUDASIM=1). Imports
nothing of pyshim or of benchmarks/: it is what a numba user runs. Prints one JSON object:
{kernel: {"first_s", "warm_s", "n"}}; a wrong result exits 1 before anything is timed."""

import json
import statistics
import sys
import time

import numpy as np
from numba import cuda, float32

BLOCK = 256
TILE = 16


@cuda.jit
def saxpy(a, x, y, out):
    i = cuda.grid(1)
    if i < x.size:
        out[i] = a * x[i] + y[i]


@cuda.jit
def block_sum(x, out):
    buf = cuda.shared.array(BLOCK, float32)
    i = cuda.grid(1)
    t = cuda.threadIdx.x
    buf[t] = x[i] if i < x.size else float32(0)
    cuda.syncthreads()
    s = BLOCK // 2
    while s > 0:
        if t < s:
            buf[t] += buf[t + s]
        cuda.syncthreads()
        s //= 2
    if t == 0:
        out[cuda.blockIdx.x] = buf[0]


@cuda.jit
def matmul(a, b, c):
    sa = cuda.shared.array((TILE, TILE), float32)
    sb = cuda.shared.array((TILE, TILE), float32)
    row, col = cuda.grid(2)
    tx, ty = cuda.threadIdx.x, cuda.threadIdx.y
    acc = float32(0)
    for k0 in range(0, a.shape[1], TILE):
        sa[tx, ty] = a[row, k0 + ty]
        sb[tx, ty] = b[k0 + tx, col]
        cuda.syncthreads()
        for k in range(TILE):
            acc += sa[tx, k] * sb[k, ty]
        cuda.syncthreads()
    c[row, col] = acc


def cases(quick: bool):
    rng = np.random.default_rng(0)
    n = 2048 if quick else 16384
    x, y = rng.random(n, dtype=np.float32), rng.random(n, dtype=np.float32)
    out = np.zeros(n, np.float32)
    yield ("saxpy", n, lambda d: saxpy[(n + BLOCK - 1) // BLOCK, BLOCK](np.float32(2), *d),
           [x, y, out], 2, np.float32(2) * x + y)
    blocks = (n + BLOCK - 1) // BLOCK
    sums = np.zeros(blocks, np.float32)
    yield ("block_sum", n, lambda d: block_sum[blocks, BLOCK](*d), [x, sums], 1,
           x.reshape(blocks, BLOCK).sum(axis=1))
    m = 32 if quick else 64
    a, b = rng.random((m, m), dtype=np.float32), rng.random((m, m), dtype=np.float32)
    c = np.zeros((m, m), np.float32)
    yield ("matmul", m * m, lambda d: matmul[(m // TILE, m // TILE), (TILE, TILE)](*d),
           [a, b, c], 2, a @ b)


def main() -> int:
    quick = "--quick" in sys.argv
    repeats = 1 if quick else int(next((a.split("=")[1] for a in sys.argv
                                        if a.startswith("--repeats=")), 5))
    result = {}
    for name, n, launch, host, out_index, want in cases(quick):
        dev = [cuda.to_device(h) for h in host]
        t0 = time.perf_counter()
        launch(dev)  # compiles (numba), translates (pyshim) and runs
        cuda.synchronize()
        first = time.perf_counter() - t0
        got = dev[out_index].copy_to_host()
        if not np.allclose(got, want, rtol=1e-4, atol=1e-3):
            bad = int(np.sum(~np.isclose(got, want, rtol=1e-4, atol=1e-3)))
            print(f"{name}: {bad} of {got.size} values wrong", file=sys.stderr)
            return 1
        times = []
        for _ in range(repeats):
            t0 = time.perf_counter()
            launch(dev)
            cuda.synchronize()
            times.append(time.perf_counter() - t0)
        result[name] = {"first_s": first, "warm_s": statistics.median(times), "n": n}
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
