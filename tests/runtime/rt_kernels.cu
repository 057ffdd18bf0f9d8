// Runtime calls that need translated kernels: <<<>>> and cudaLaunchKernel, __device__ and
// __constant__ symbols, kernel attributes, launches on streams, relaunch after
// cudaDeviceReset. Self-checking; runs unchanged against NVIDIA's libcudart.
#include <cuda_runtime.h>
#include <stdio.h>
#include <string.h>

#include "../include/runtime_check.h"

__device__ int counter;
__constant__ float coef[4];

__global__ void poly(const float *x, float *y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float v = x[i];
        y[i] = coef[0] + v * (coef[1] + v * (coef[2] + v * coef[3]));
        atomicAdd(&counter, 1);
    }
}

static int run_poly(const char *what, cudaStream_t s, int explicit_launch)
{
    const int n = 1000;
    float hx[1000], hy[1000];
    for (int i = 0; i < n; i++)
        hx[i] = (float)i / n;
    const float c[4] = {1.0f, 2.0f, -0.5f, 0.25f};
    float *x = NULL, *y = NULL;
    int zero = 0, count = -1;
    if (cudaMalloc(&x, n * sizeof(float)) != cudaSuccess ||
        cudaMalloc(&y, n * sizeof(float)) != cudaSuccess)
        return 0;
    cudaMemcpy(x, hx, sizeof hx, cudaMemcpyHostToDevice);
    cudaError_t e = cudaMemcpyToSymbol(coef, c, sizeof c);
    if (e != cudaSuccess)
        printf("  cudaMemcpyToSymbol -> %s\n", cudaGetErrorName(e));
    cudaMemcpyToSymbol(counter, &zero, sizeof zero);
    int nn = n;
    if (explicit_launch == 1) {
        void *args[] = {&x, &y, &nn};
        e = cudaLaunchKernel((const void *)poly, dim3(8), dim3(128), args, 0, s);
    } else if (explicit_launch == 3) {
        cudaKernel_t k = NULL;
        e = cudaGetKernel(&k, poly);
        void *args[] = {&x, &y, &nn};
        if (e == cudaSuccess)
            e = cudaLaunchKernel((const void *)k, dim3(8), dim3(128), args, 0, s);
    } else if (explicit_launch == 2) {
        cudaLaunchAttribute attr[1];
        attr[0].id = cudaLaunchAttributePriority;
        attr[0].val.priority = 0;
        cudaLaunchConfig_t config = {};
        config.gridDim = dim3(8);
        config.blockDim = dim3(128);
        config.stream = s;
        config.attrs = attr;
        config.numAttrs = 1;
        e = cudaLaunchKernelEx(&config, poly, (const float *)x, y, nn);
    } else {
        poly<<<8, 128, 0, s>>>(x, y, nn);
        e = cudaGetLastError();
    }
    if (e != cudaSuccess)
        printf("  launch (%s) -> %s\n", what, cudaGetErrorName(e));
    cudaStreamSynchronize(s);
    cudaMemcpy(hy, y, sizeof hy, cudaMemcpyDeviceToHost);
    cudaMemcpyFromSymbol(&count, counter, sizeof count);
    int good = e == cudaSuccess && count == n;
    for (int i = 0; i < n && good; i++) {
        float v = hx[i], want = c[0] + v * (c[1] + v * (c[2] + v * c[3]));
        good = hy[i] > want - 1e-5f && hy[i] < want + 1e-5f;
    }
    cudaFree(x);
    cudaFree(y);
    return good;
}

int main(void)
{
    CHECK("<<<>>> on the default stream", run_poly("<<<>>>", 0, 0));
    CHECK("cudaLaunchKernel", run_poly("cudaLaunchKernel", 0, 1));
    CHECK("cudaLaunchKernelEx", run_poly("cudaLaunchKernelEx", 0, 2));
    CHECK("cudaGetKernel + cudaLaunchKernel", run_poly("cudaGetKernel", 0, 3));
    cudaStream_t s;
    OK("stream", cudaStreamCreate(&s));
    CHECK("<<<>>> on a stream", run_poly("stream", s, 0));
    CHECK("<<<>>> on the per-thread stream", run_poly("per-thread", cudaStreamPerThread, 0));
    OK("stream destroy", cudaStreamDestroy(s));

    size_t size = 0;
    OK("symbol size", cudaGetSymbolSize(&size, coef));
    CHECK("symbol size is 16", size == 16);
    int *pc = NULL, count = -1;
    OK("symbol address", cudaGetSymbolAddress((void **)&pc, counter));
    OK("copy via address", cudaMemcpy(&count, pc, sizeof count, cudaMemcpyDeviceToHost));
    CHECK("address holds the counter", count == 1000);
    float big[8] = {0};
    CHECK("copy past the symbol", cudaMemcpyToSymbol(coef, big, sizeof big) == cudaErrorInvalidValue);
    CHECK("last error after it", cudaGetLastError() == cudaErrorInvalidValue);
    CHECK("unknown symbol", cudaGetSymbolSize(&size, &failures) == cudaErrorInvalidSymbol);
    cudaGetLastError();

    cudaFuncAttributes a;
    memset(&a, 0, sizeof a);
    OK("func attributes", cudaFuncGetAttributes(&a, (const void *)poly));
    printf("  maxThreadsPerBlock %d numRegs %d\n", a.maxThreadsPerBlock, a.numRegs);
    CHECK("max threads", a.maxThreadsPerBlock > 0);
    OK("func set attribute",
       cudaFuncSetAttribute((const void *)poly, cudaFuncAttributeMaxDynamicSharedMemorySize, 1024));
    const char *kname = NULL;
    OK("func name", cudaFuncGetName(&kname, (const void *)poly));
    CHECK("func name is the device name", kname != NULL && strcmp(kname, "_Z4polyPKfPfi") == 0);
    CHECK("attributes of a non-kernel",
          cudaFuncGetAttributes(&a, (const void *)run_poly) == cudaErrorInvalidDeviceFunction);
    cudaGetLastError();

    int blocks = 0, min_grid = 0, best_block = 0;
    OK("occupancy", cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, poly, 128, 0));
    OK("potential block size", cudaOccupancyMaxPotentialBlockSize(&min_grid, &best_block, poly));
    printf("  occupancy %d blocks of 128; suggested block %d grid %d\n", blocks, best_block,
           min_grid);
    CHECK("occupancy > 0", blocks > 0 && best_block > 0 && min_grid > 0);

    OK("device reset", cudaDeviceReset());
    CHECK("launch after reset", run_poly("after reset", 0, 0));
    printf("%s: %d failure(s)\n", failures ? "FAILED" : "ALL PASSED", failures);
    return failures ? 1 : 0;
}
