// Errors the runtime must report without crashing, leaving the context usable: an invalid
// launch configuration, freeing a host pointer, an impossible allocation, a bad stream
// handle; then cudaDeviceReset and a fresh start. The bad launch never reaches a kernel,
// so no translator is needed. Prints "PASS error_paths" or a FAIL line.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cuda_runtime.h>

#define EXPECT(cond)                                                                     \
    do {                                                                                 \
        if (!(cond)) {                                                                   \
            std::printf("FAIL error_paths: %s at line %d\n", #cond, __LINE__);           \
            return 1;                                                                    \
        }                                                                                \
    } while (0)

__global__ void never_runs(int *p)
{
    p[threadIdx.x] = 1;
}

// the context still works: allocate, copy in, copy out
static bool context_usable()
{
    int in[64], out[64];
    for (int i = 0; i < 64; i++)
        in[i] = i * i;
    int *d = nullptr;
    if (cudaMalloc(&d, sizeof in) != cudaSuccess)
        return false;
    bool ok = cudaMemcpy(d, in, sizeof in, cudaMemcpyHostToDevice) == cudaSuccess &&
              cudaMemcpy(out, d, sizeof out, cudaMemcpyDeviceToHost) == cudaSuccess &&
              std::memcmp(in, out, sizeof in) == 0;
    return cudaFree(d) == cudaSuccess && ok;
}

int main()
{
    EXPECT(context_usable());

    // 1. a block larger than any device allows
    int *d = nullptr;
    EXPECT(cudaMalloc(&d, 4096) == cudaSuccess);
    never_runs<<<1, 4096>>>(d);
    cudaError_t launch = cudaGetLastError();
    std::printf("oversized block: %s\n", cudaGetErrorName(launch));
    EXPECT(launch != cudaSuccess);
    EXPECT(cudaGetLastError() == cudaSuccess); // not sticky
    never_runs<<<0, 32>>>(d);                  // an empty grid
    launch = cudaGetLastError();
    std::printf("empty grid: %s\n", cudaGetErrorName(launch));
    EXPECT(launch != cudaSuccess);
    EXPECT(cudaFree(d) == cudaSuccess);
    EXPECT(context_usable());

    // 2. cudaFree of a pointer that cudaMalloc never returned
    int *host = static_cast<int *>(std::malloc(256));
    cudaError_t freed = cudaFree(host);
    std::printf("cudaFree(host pointer): %s\n", cudaGetErrorName(freed));
    EXPECT(freed != cudaSuccess);
    std::free(host);
    cudaGetLastError();
    EXPECT(context_usable());

    // 3. an allocation no device can satisfy
    void *huge = nullptr;
    cudaError_t alloc = cudaMalloc(&huge, static_cast<size_t>(1) << 60);
    std::printf("cudaMalloc(2^60): %s\n", cudaGetErrorName(alloc));
    EXPECT(alloc == cudaErrorMemoryAllocation);
    cudaGetLastError();
    EXPECT(context_usable());

    // 4. a device that does not exist
    EXPECT(cudaSetDevice(9999) == cudaErrorInvalidDevice);
    cudaGetLastError();
    EXPECT(context_usable());

    // 5. reset the device: everything is released and CUDA starts again on next use
    EXPECT(cudaDeviceReset() == cudaSuccess);
    EXPECT(context_usable());
    EXPECT(cudaDeviceSynchronize() == cudaSuccess);

    std::printf("PASS error_paths\n");
    return 0;
}
