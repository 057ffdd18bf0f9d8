// cudaDeviceReset between kernel launches: everything the device held is released, and
// the next CUDA call starts again (modules load again, globals get their initial values).
// Prints "PASS device_reset" or a FAIL line.
#include <cstdio>
#include <cuda_runtime.h>

#define CHECK(call)                                                                      \
    do {                                                                                 \
        cudaError_t err_ = (call);                                                       \
        if (err_ != cudaSuccess) {                                                       \
            std::printf("FAIL device_reset: %s: %s (round %d)\n", #call,                 \
                        cudaGetErrorName(err_), round);                                  \
            return 1;                                                                    \
        }                                                                                \
    } while (0)

__device__ int launches = 100; // counts launches since the module was loaded

__global__ void squares(int *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = i * i;
    if (i == 0)
        launches += 1;
}

int main()
{
    const int n = 1000;
    int host[n];
    for (int round = 0; round < 3; round++) {
        int *d = nullptr;
        CHECK(cudaMalloc(&d, n * sizeof(int)));
        for (int k = 0; k < 2; k++)
            squares<<<(n + 127) / 128, 128>>>(d, n);
        CHECK(cudaGetLastError());
        CHECK(cudaMemcpy(host, d, sizeof host, cudaMemcpyDeviceToHost));
        for (int i = 0; i < n; i++) {
            if (host[i] != i * i) {
                std::printf("FAIL device_reset: out[%d] = %d in round %d\n", i, host[i], round);
                return 1;
            }
        }
        int count = 0;
        CHECK(cudaMemcpyFromSymbol(&count, launches, sizeof count));
        if (count != 102) { // two launches since the (re)load
            std::printf("FAIL device_reset: launches = %d in round %d, expected 102\n", count,
                        round);
            return 1;
        }
        CHECK(cudaFree(d));
        CHECK(cudaDeviceReset());
    }
    std::printf("PASS device_reset\n");
    return 0;
}
