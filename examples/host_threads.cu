// Several host threads using CUDA at once, each with its own stream and buffers; CUDA is
// first touched from a worker thread, not from main. No kernels.
// Prints "PASS host_threads" or a FAIL line.
#include <cstdio>
#include <cstring>
#include <thread>
#include <vector>
#include <cuda_runtime.h>

static int worker(int id, int *failed)
{
    const int n = 1 << 16;
    std::vector<int> in(n), out(n, 0);
    for (int i = 0; i < n; i++)
        in[i] = id * 1000003 + i;
    cudaStream_t s;
    int *d = nullptr;
    if (cudaStreamCreate(&s) != cudaSuccess || cudaMalloc(&d, n * sizeof(int)) != cudaSuccess) {
        *failed = 1;
        return 1;
    }
    for (int round = 0; round < 20; round++) {
        in[round] = round + id;
        if (cudaMemcpyAsync(d, in.data(), n * sizeof(int), cudaMemcpyHostToDevice, s) != cudaSuccess ||
            cudaMemcpyAsync(out.data(), d, n * sizeof(int), cudaMemcpyDeviceToHost, s) != cudaSuccess ||
            cudaStreamSynchronize(s) != cudaSuccess || std::memcmp(in.data(), out.data(), n * sizeof(int)) != 0) {
            *failed = 1;
            return 1;
        }
    }
    int dev = -1;
    if (cudaGetDevice(&dev) != cudaSuccess || dev != 0)
        *failed = 1;
    cudaFree(d);
    cudaStreamDestroy(s);
    return 0;
}

int main()
{
    const int threads = 4;
    int failed[threads] = {0};
    std::vector<std::thread> pool;
    for (int t = 0; t < threads; t++)
        pool.emplace_back(worker, t, &failed[t]);
    for (auto &t : pool)
        t.join();
    for (int t = 0; t < threads; t++) {
        if (failed[t]) {
            std::printf("FAIL host_threads: thread %d\n", t);
            return 1;
        }
    }
    if (cudaDeviceSynchronize() != cudaSuccess) {
        std::printf("FAIL host_threads: cudaDeviceSynchronize from main\n");
        return 1;
    }
    std::printf("PASS host_threads\n");
    return 0;
}
