// Kernels launched from several host threads at once, each on its own stream, with the
// module's first use (translation, loading) racing between the threads.
// Prints "PASS thread_launches" or a FAIL line.
#include <atomic>
#include <cstdio>
#include <thread>
#include <vector>
#include <cuda_runtime.h>

__global__ void affine(const int *in, int *out, int n, int a, int b)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = a * in[i] + b;
}

static std::atomic<int> ready{0};

static void worker(int id, int threads, int *failed)
{
    const int n = 50000;
    std::vector<int> in(n), out(n);
    for (int i = 0; i < n; i++)
        in[i] = i - id;
    cudaStream_t s;
    int *d_in = nullptr, *d_out = nullptr;
    if (cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking) != cudaSuccess ||
        cudaMalloc(&d_in, n * sizeof(int)) != cudaSuccess ||
        cudaMalloc(&d_out, n * sizeof(int)) != cudaSuccess) {
        *failed = 1;
        return;
    }
    cudaMemcpyAsync(d_in, in.data(), n * sizeof(int), cudaMemcpyHostToDevice, s);
    ready.fetch_add(1);
    while (ready.load() < threads) // every thread's first launch at the same moment
        std::this_thread::yield();
    for (int round = 0; round < 5; round++) {
        affine<<<(n + 255) / 256, 256, 0, s>>>(d_in, d_out, n, id + 2, round);
        if (cudaGetLastError() != cudaSuccess) {
            *failed = 2;
            return;
        }
        cudaMemcpyAsync(out.data(), d_out, n * sizeof(int), cudaMemcpyDeviceToHost, s);
        if (cudaStreamSynchronize(s) != cudaSuccess) {
            *failed = 3;
            return;
        }
        for (int i = 0; i < n; i++) {
            if (out[i] != (id + 2) * in[i] + round) {
                *failed = 4;
                return;
            }
        }
    }
    cudaFree(d_in);
    cudaFree(d_out);
    cudaStreamDestroy(s);
}

int main()
{
    const int threads = 4;
    int failed[threads] = {0};
    std::vector<std::thread> pool;
    for (int t = 0; t < threads; t++)
        pool.emplace_back(worker, t, threads, &failed[t]);
    for (auto &t : pool)
        t.join();
    for (int t = 0; t < threads; t++) {
        if (failed[t]) {
            std::printf("FAIL thread_launches: thread %d (step %d)\n", t, failed[t]);
            return 1;
        }
    }
    std::printf("PASS thread_launches\n");
    return 0;
}
