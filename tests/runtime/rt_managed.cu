// __managed__ variables: host code reads and writes them directly (through the pointer
// __cudaInitModule has the runtime fill), kernels see the same storage.
#include <cuda_runtime.h>
#include <stdio.h>

__managed__ int mv[4];
__managed__ int initialised = 7;

__global__ void inc()
{
    mv[threadIdx.x] += threadIdx.x + 1 + initialised;
}

int main()
{
    for (int i = 0; i < 4; i++)
        mv[i] = 10 * (i + 1);
    inc<<<1, 4>>>();
    cudaError_t launch = cudaGetLastError();
    cudaError_t sync = cudaDeviceSynchronize();
    printf("launch %s sync %s: %d %d %d %d (initialised %d)\n", cudaGetErrorName(launch),
           cudaGetErrorName(sync), mv[0], mv[1], mv[2], mv[3], initialised);
    bool ok = launch == cudaSuccess && sync == cudaSuccess && initialised == 7;
    for (int i = 0; i < 4; i++)
        ok = ok && mv[i] == 10 * (i + 1) + i + 1 + 7;
    printf("%s managed\n", ok ? "PASS" : "FAIL");
    return ok ? 0 : 1;
}
