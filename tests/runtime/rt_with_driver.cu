// libcudart.so.13 and libcuda.so.1 in one process: a runtime launch (translated by
// libcudart's embedded Python) and a driver-API module load of PTX text (translated by
// libcuda's) must share one interpreter and both run. argv[1]: a PTX file with
// extern "C" __global__ void scale(int *p, int n, int k); argv[2] "driver-first" loads the
// driver module (and so starts Python) before the first runtime launch.
#include <cuda.h>
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

__global__ void add_one(int *p, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        p[i] += 1;
}

#define RT(call)                                                                         \
    do {                                                                                 \
        cudaError_t e_ = (call);                                                         \
        if (e_ != cudaSuccess) {                                                         \
            printf("FAIL %s: %s\n", #call, cudaGetErrorName(e_));                      \
            return 1;                                                                    \
        }                                                                                \
    } while (0)
#define DRV(call)                                                                        \
    do {                                                                                 \
        CUresult r_ = (call);                                                            \
        if (r_ != CUDA_SUCCESS) {                                                        \
            const char *n_ = "?";                                                        \
            cuGetErrorName(r_, &n_);                                                     \
            printf("FAIL %s: %s\n", #call, n_);                                          \
            return 1;                                                                    \
        }                                                                                \
    } while (0)

int main(int argc, char **argv)
{
    if (argc < 2) {
        printf("usage: %s scale.ptx\n", argv[0]);
        return 2;
    }
    FILE *f = fopen(argv[1], "rb");
    if (f == NULL) {
        printf("FAIL cannot open %s\n", argv[1]);
        return 2;
    }
    static char ptx[1 << 20];
    size_t len = fread(ptx, 1, sizeof ptx - 1, f);
    fclose(f);
    ptx[len] = '\0';

    int driver_first = argc > 2 && strcmp(argv[2], "driver-first") == 0;
    const int n = 1000;
    int h[1000];
    for (int i = 0; i < n; i++)
        h[i] = i;
    int *d = NULL;
    RT(cudaMalloc(&d, n * sizeof(int)));
    RT(cudaMemcpy(d, h, n * sizeof(int), cudaMemcpyHostToDevice));

    DRV(cuInit(0));
    CUdevice dev;
    CUcontext ctx;
    DRV(cuDeviceGet(&dev, 0));
    DRV(cuDevicePrimaryCtxRetain(&ctx, dev));
    DRV(cuCtxSetCurrent(ctx));
    CUmodule mod;
    CUfunction scale;
    if (driver_first)
        DRV(cuModuleLoadData(&mod, ptx));
    add_one<<<(n + 127) / 128, 128>>>(d, n);
    RT(cudaGetLastError());
    RT(cudaDeviceSynchronize());
    if (!driver_first)
        DRV(cuModuleLoadData(&mod, ptx));
    DRV(cuModuleGetFunction(&scale, mod, "scale"));
    int nn = n, k = 3;
    void *args[] = {&d, &nn, &k};
    DRV(cuLaunchKernel(scale, (n + 63) / 64, 1, 1, 64, 1, 1, 0, NULL, args, NULL));
    DRV(cuCtxSynchronize());

    RT(cudaMemcpy(h, d, n * sizeof(int), cudaMemcpyDeviceToHost));
    for (int i = 0; i < n; i++)
        if (h[i] != (i + 1) * 3) {
            printf("FAIL element %d: %d, expected %d\n", i, h[i], (i + 1) * 3);
            return 1;
        }
    RT(cudaFree(d));
    DRV(cuModuleUnload(mod));
    printf("PASS runtime and driver kernels in one process\n");
    return 0;
}
