// What multi_device.cu and multi_ipc.cu share (CUDA C++; in tests/include so the programs' build
// cache key sees it): the fill kernel and the checksum that tests/test_cpu_device_multi.py
// recomputes (its `filled` and `checksum`), and CK, which ends main() with 1 after naming
// the failed runtime call.
#ifndef PYSHIM_TEST_MULTI_COMMON_H
#define PYSHIM_TEST_MULTI_COMMON_H

#include <cuda_runtime.h>
#include <stdio.h>

__global__ void fill(int *p, int n, int base)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        p[i] = base + i * 3;
}

static long long checksum(const int *p, int n)
{
    long long s = 0;
    for (int i = 0; i < n; i++)
        s += (long long)p[i] * (i % 7 + 1);
    return s;
}

#define CK(x)                                                                      \
    do {                                                                           \
        cudaError_t e_ = (x);                                                      \
        if (e_ != cudaSuccess) {                                                   \
            fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #x,              \
                    cudaGetErrorName(e_));                                         \
            return 1;                                                              \
        }                                                                          \
    } while (0)

#endif
