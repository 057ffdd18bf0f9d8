// Which PTX of a multi-arch fat binary runs: as on NVIDIA's driver, the newest written for
// an architecture the device has. Built with compute_75 and compute_90 PTX; the kernel
// says which one it was compiled as. Prints "arch N" (the __CUDA_ARCH__ that ran).
#include <cuda_runtime.h>
#include <stdio.h>

__global__ void which(int *out)
{
#ifdef __CUDA_ARCH__
    *out = __CUDA_ARCH__;
#endif
}

int main(void)
{
    int *d = NULL, h = -1;
    if (cudaMalloc(&d, sizeof(int)) != cudaSuccess)
        return 1;
    which<<<1, 1>>>(d);
    cudaError_t e = cudaMemcpy(&h, d, sizeof h, cudaMemcpyDeviceToHost);
    printf("arch %d (%s)\n", h, cudaGetErrorName(e));
    return e != cudaSuccess;
}
