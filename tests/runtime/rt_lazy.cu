// Many kernels in one module, as ggml's template files have: the CPU device loads such a
// module lazily (a data object first, each kernel on its first use). Launches through
// <<<>>>, cudaLaunchKernel and cudaFuncGetAttributes of kernels no launch has translated
// yet, one late in the module, all sharing the module's __device__ variable.
// Self-checking; runs unchanged against NVIDIA's libcudart.
#include <cuda_runtime.h>
#include <stdio.h>

#include "../include/runtime_check.h"

__device__ int total;

template <int K>
__global__ void add_k(int *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        out[i] += K * (i + 1);
        atomicAdd(&total, K);
    }
}

#define INST(K) template __global__ void add_k<K>(int *, int);
#define INST8(B) INST(B + 0) INST(B + 1) INST(B + 2) INST(B + 3) INST(B + 4) INST(B + 5) \
    INST(B + 6) INST(B + 7)
INST8(0)
INST8(8)

int main(void)
{
    const int n = 100;
    int *d = NULL, host[100];
    OK("cudaMalloc", cudaMalloc(&d, n * sizeof(int)));
    OK("cudaMemset", cudaMemset(d, 0, n * sizeof(int)));
    int zero = 0, nn = n;
    OK("cudaMemcpyToSymbol", cudaMemcpyToSymbol(total, &zero, sizeof zero));
    struct cudaFuncAttributes attr;
    OK("cudaFuncGetAttributes (untranslated)", cudaFuncGetAttributes(&attr, add_k<11>));
    void *args[] = {&d, &nn};
    OK("cudaLaunchKernel (late kernel)",
       cudaLaunchKernel((const void *)add_k<15>, dim3(1), dim3(128), args, 0, 0));
    add_k<2><<<1, 128>>>(d, n);
    OK("launch (<<<>>>)", cudaGetLastError());
    OK("cudaLaunchKernel (translated one again)",
       cudaLaunchKernel((const void *)add_k<15>, dim3(1), dim3(128), args, 0, 0));
    OK("cudaDeviceSynchronize", cudaDeviceSynchronize());
    OK("cudaMemcpy", cudaMemcpy(host, d, sizeof host, cudaMemcpyDeviceToHost));
    int good = 1, sum = -1;
    for (int i = 0; i < n; i++)
        good &= host[i] == 32 * (i + 1);
    CHECK("results", good);
    OK("cudaMemcpyFromSymbol", cudaMemcpyFromSymbol(&sum, total, sizeof sum));
    CHECK("one __device__ variable for every kernel", sum == 32 * n);
    if (failures == 0)
        printf("ALL PASSED\n");
    return failures != 0;
}
