"""A held-out many-kernel CUDA program for the first-run benchmarks (issue 23): template
instances of two kernels (unrolled axpy, shared-memory sum) over four types, `units` unroll
factors each (240 kernels for units=30), and a main that launches one of them and checks
it, as a program that uses one op of a big library does."""

from __future__ import annotations

_HEAD = r"""#include <cstdio>
#include <cuda_runtime.h>
template <int U, typename T>
__global__ void axpy_u(T *y, const T *x, T a, int n)
{
    int i = (blockIdx.x * blockDim.x + threadIdx.x) * U;
#pragma unroll
    for (int j = 0; j < U; j++)
        if (i + j < n) y[i + j] = a * x[i + j] + y[i + j] * (T)(j + 1);
}
template <int U, typename T>
__global__ void sum_u(T *out, const T *x, int n)
{
    __shared__ T s[128];
    T acc = 0;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
        acc += x[i] * (T)U;
    s[threadIdx.x] = acc;
    __syncthreads();
    for (int w = blockDim.x / 2; w > 0; w >>= 1) {
        if (threadIdx.x < w) s[threadIdx.x] += s[threadIdx.x + w];
        __syncthreads();
    }
    if (threadIdx.x == 0) atomicAdd(out, s[0]);
}
"""

_MAIN = r"""
int main()
{
    const int n = 1 << 12;
    float *x, *y;
    cudaMallocManaged(&x, n * sizeof(float));
    cudaMallocManaged(&y, n * sizeof(float));
    for (int i = 0; i < n; i++) { x[i] = 1.0f; y[i] = 2.0f; }
    axpy_u<4, float><<<(n / 4 + 127) / 128, 128>>>(y, x, 3.0f, n);
    cudaError_t e = cudaDeviceSynchronize();
    int bad = 0;
    for (int i = 0; i < n; i++) bad += y[i] != 3.0f + 2.0f * (float)(i % 4 + 1);
    printf("%s: %d bad\n", e == cudaSuccess && !bad ? "PASS" : "FAIL", bad);
    return e != cudaSuccess || bad;
}
"""

TYPES = ("float", "double", "int", "unsigned")


def source(units: int = 30) -> str:
    out = [_HEAD]
    for u in range(1, units + 1):
        for t in TYPES:
            out.append(f"template __global__ void axpy_u<{u}, {t}>({t} *, const {t} *, {t}, "
                       "int);")
            out.append(f"template __global__ void sum_u<{u}, {t}>({t} *, const {t} *, int);")
    out.append(_MAIN)
    return "\n".join(out)


def kernels(units: int = 30) -> int:
    return 2 * len(TYPES) * units
