// Streams, asynchronous copies, events, elapsed time, stream waits and host functions.
// No kernels: runs without the PTX translator. Prints "PASS streams_events" or a FAIL line.
#include <atomic>
#include <cstdio>
#include <cstring>
#include <cuda_runtime.h>

#define CHECK(call)                                                                      \
    do {                                                                                 \
        cudaError_t err_ = (call);                                                       \
        if (err_ != cudaSuccess) {                                                       \
            std::printf("FAIL streams_events: %s: %s at line %d\n", #call,               \
                        cudaGetErrorName(err_), __LINE__);                               \
            return 1;                                                                    \
        }                                                                                \
    } while (0)

#define EXPECT(cond)                                                                     \
    do {                                                                                 \
        if (!(cond)) {                                                                   \
            std::printf("FAIL streams_events: %s at line %d\n", #cond, __LINE__);        \
            return 1;                                                                    \
        }                                                                                \
    } while (0)

static std::atomic<int> host_calls{0};
static int order[4];

static void CUDART_CB record_order(void *arg)
{
    int slot = host_calls.fetch_add(1);
    if (slot < 4)
        order[slot] = static_cast<int>(reinterpret_cast<intptr_t>(arg));
}

static void CUDART_CB stream_callback(cudaStream_t, cudaError_t status, void *arg)
{
    if (status == cudaSuccess)
        *static_cast<int *>(arg) = 42;
}

int main()
{
    const int n = 1 << 20;
    const size_t bytes = n * sizeof(float);
    float *h_in = nullptr, *h_out = nullptr;
    CHECK(cudaMallocHost(&h_in, bytes));
    CHECK(cudaMallocHost(&h_out, bytes));
    for (int i = 0; i < n; i++)
        h_in[i] = static_cast<float>(i) * 0.5f;
    std::memset(h_out, 0, bytes);

    cudaStream_t s1, s2;
    CHECK(cudaStreamCreate(&s1));
    CHECK(cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking));
    unsigned int flags = 0;
    CHECK(cudaStreamGetFlags(s2, &flags));
    EXPECT(flags == cudaStreamNonBlocking);

    float *d_a, *d_b;
    CHECK(cudaMalloc(&d_a, bytes));
    CHECK(cudaMalloc(&d_b, bytes));

    cudaEvent_t start, copied, stop;
    CHECK(cudaEventCreate(&start));
    CHECK(cudaEventCreate(&copied));
    CHECK(cudaEventCreate(&stop));

    // s1: H->D, then an event; s2 waits for it before copying D->D and back D->H
    CHECK(cudaEventRecord(start, s1));
    CHECK(cudaMemcpyAsync(d_a, h_in, bytes, cudaMemcpyHostToDevice, s1));
    CHECK(cudaLaunchHostFunc(s1, record_order, reinterpret_cast<void *>(1)));
    CHECK(cudaEventRecord(copied, s1));
    CHECK(cudaStreamWaitEvent(s2, copied, 0));
    CHECK(cudaLaunchHostFunc(s2, record_order, reinterpret_cast<void *>(2)));
    CHECK(cudaMemcpyAsync(d_b, d_a, bytes, cudaMemcpyDeviceToDevice, s2));
    CHECK(cudaMemcpyAsync(h_out, d_b, bytes, cudaMemcpyDeviceToHost, s2));
    CHECK(cudaEventRecord(stop, s2));
    int callback_value = 0;
    CHECK(cudaStreamAddCallback(s2, stream_callback, &callback_value, 0));
    CHECK(cudaStreamSynchronize(s2));
    CHECK(cudaEventSynchronize(stop));

    EXPECT(std::memcmp(h_in, h_out, bytes) == 0);
    EXPECT(host_calls.load() == 2);
    EXPECT(order[0] == 1 && order[1] == 2); // the wait ordered s2's host function after s1's
    EXPECT(callback_value == 42);
    EXPECT(cudaEventQuery(stop) == cudaSuccess);
    EXPECT(cudaStreamQuery(s1) == cudaSuccess);

    float ms = -1.0f;
    CHECK(cudaEventElapsedTime(&ms, start, stop));
    EXPECT(ms >= 0.0f);

    // async memset on a stream, checked through the legacy default stream
    CHECK(cudaMemsetAsync(d_a, 0, bytes, s1));
    CHECK(cudaStreamSynchronize(s1));
    CHECK(cudaMemcpy(h_out, d_a, bytes, cudaMemcpyDeviceToHost));
    for (int i = 0; i < n; i++)
        EXPECT(h_out[i] == 0.0f);

    // which device and id a stream has
    int stream_device = -1;
    unsigned long long id1 = 0, id2 = 0;
    CHECK(cudaStreamGetDevice(s1, &stream_device));
    EXPECT(stream_device == 0);
    CHECK(cudaStreamGetId(s1, &id1));
    CHECK(cudaStreamGetId(s2, &id2));
    EXPECT(id1 != id2);

    // stream priorities
    int least = 0, greatest = 0;
    CHECK(cudaDeviceGetStreamPriorityRange(&least, &greatest));
    cudaStream_t s3;
    CHECK(cudaStreamCreateWithPriority(&s3, cudaStreamDefault, greatest));
    CHECK(cudaStreamDestroy(s3));

    CHECK(cudaEventDestroy(start));
    CHECK(cudaEventDestroy(copied));
    CHECK(cudaEventDestroy(stop));
    CHECK(cudaStreamDestroy(s1));
    CHECK(cudaStreamDestroy(s2));
    CHECK(cudaFree(d_a));
    CHECK(cudaFree(d_b));
    CHECK(cudaFreeHost(h_in));
    CHECK(cudaFreeHost(h_out));
    std::printf("PASS streams_events (%.3f ms)\n", ms);
    return 0;
}
