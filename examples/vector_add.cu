// The first end-to-end program: query the device, allocate, copy, launch a kernel, check.
// Self-checking: prints "PASS vector_add" and exits 0, or "FAIL vector_add: ..." and 1.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#define CHECK(call)                                                                      \
    do {                                                                                 \
        cudaError_t err_ = (call);                                                       \
        if (err_ != cudaSuccess) {                                                       \
            std::printf("FAIL vector_add: %s: %s (%s)\n", #call, cudaGetErrorName(err_), \
                        cudaGetErrorString(err_));                                       \
            return 1;                                                                    \
        }                                                                                \
    } while (0)

__global__ void vector_add(const float *a, const float *b, float *c, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        c[i] = a[i] + b[i];
}

int main()
{
    int count = 0;
    CHECK(cudaGetDeviceCount(&count));
    if (count < 1) {
        std::printf("FAIL vector_add: no device\n");
        return 1;
    }
    cudaDeviceProp prop;
    CHECK(cudaGetDeviceProperties(&prop, 0));
    int warp = 0, sms = 0;
    CHECK(cudaDeviceGetAttribute(&warp, cudaDevAttrWarpSize, 0));
    CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    std::printf("device 0: %s, %d SMs, warp %d, %zu MiB, max %d threads/block\n", prop.name, sms,
                warp, prop.totalGlobalMem >> 20, prop.maxThreadsPerBlock);
    if (warp != prop.warpSize || sms != prop.multiProcessorCount || prop.maxThreadsPerBlock < 256) {
        std::printf("FAIL vector_add: inconsistent device properties\n");
        return 1;
    }

    const int n = 1000003; // not a multiple of the block size: tests the bounds check
    const size_t bytes = n * sizeof(float);
    float *a = static_cast<float *>(std::malloc(bytes));
    float *b = static_cast<float *>(std::malloc(bytes));
    float *c = static_cast<float *>(std::malloc(bytes));
    for (int i = 0; i < n; i++) {
        a[i] = std::sin(static_cast<float>(i));
        b[i] = 0.25f * static_cast<float>(i % 977);
        c[i] = -1.0f;
    }
    float *da, *db, *dc;
    CHECK(cudaMalloc(&da, bytes));
    CHECK(cudaMalloc(&db, bytes));
    CHECK(cudaMalloc(&dc, bytes));
    CHECK(cudaMemcpy(da, a, bytes, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(db, b, bytes, cudaMemcpyHostToDevice));

    const int block = 256;
    vector_add<<<(n + block - 1) / block, block>>>(da, db, dc, n);
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaMemcpy(c, dc, bytes, cudaMemcpyDeviceToHost));

    for (int i = 0; i < n; i++) {
        if (c[i] != a[i] + b[i]) {
            std::printf("FAIL vector_add: c[%d] = %g, expected %g\n", i, c[i], a[i] + b[i]);
            return 1;
        }
    }
    CHECK(cudaFree(da));
    CHECK(cudaFree(db));
    CHECK(cudaFree(dc));
    std::free(a);
    std::free(b);
    std::free(c);
    std::printf("PASS vector_add\n");
    return 0;
}
