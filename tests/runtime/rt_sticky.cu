// A kernel that traps corrupts the context: CUDA reports cudaErrorLaunchFailure from the
// next synchronising call, and from every call after it (cudaGetLastError does not clear
// a sticky error) until cudaDeviceReset, after which the device works again.
#include <cuda_runtime.h>
#include <stdio.h>

static int failures = 0;
#define EXPECT(name, got, want)                                                        \
    do {                                                                               \
        cudaError_t g_ = (got);                                                        \
        printf("%s %s: %s\n", g_ == (want) ? "PASS" : "FAIL", name, cudaGetErrorName(g_)); \
        failures += g_ != (want);                                                      \
    } while (0)

__global__ void boom()
{
    if (threadIdx.x == 0)
        __trap();
}

__global__ void fill(int *p)
{
    p[threadIdx.x] = threadIdx.x;
}

int main()
{
    int *d = NULL;
    EXPECT("malloc", cudaMalloc(&d, 64 * sizeof(int)), cudaSuccess);
    boom<<<1, 32>>>();
    cudaDeviceSynchronize();
    EXPECT("last error is the trap", cudaGetLastError(), cudaErrorLaunchFailure);
    EXPECT("still there after get", cudaGetLastError(), cudaErrorLaunchFailure);
    EXPECT("peek", cudaPeekAtLastError(), cudaErrorLaunchFailure);
    EXPECT("later calls fail", cudaMalloc(&d, 64), cudaErrorLaunchFailure);
    EXPECT("memcpy fails", cudaMemcpy(d, d, 4, cudaMemcpyDeviceToDevice), cudaErrorLaunchFailure);
    EXPECT("reset", cudaDeviceReset(), cudaSuccess);
    EXPECT("clean after reset", cudaGetLastError(), cudaSuccess);
    EXPECT("malloc after reset", cudaMalloc(&d, 64 * sizeof(int)), cudaSuccess);
    fill<<<1, 64>>>(d);
    EXPECT("launch after reset", cudaGetLastError(), cudaSuccess);
    EXPECT("sync after reset", cudaDeviceSynchronize(), cudaSuccess);
    int h[64] = {0};
    EXPECT("copy back", cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost), cudaSuccess);
    int ok = 1;
    for (int i = 0; i < 64; i++)
        ok &= h[i] == i;
    printf("%s data after reset\n", ok ? "PASS" : "FAIL");
    failures += !ok;
    printf("%s: %d failure(s)\n", failures ? "FAILED" : "ALL PASSED", failures);
    return failures ? 1 : 0;
}
