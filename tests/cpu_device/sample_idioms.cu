// Idioms of NVIDIA's cuda-samples that failed on the CPU device, as a program of our own
// (tests/test_samples_idioms.py): `sample_idioms <clock|pool|graphmem>`, prints
// "PASS <mode>" and key=value lines, exits nonzero on failure.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>

#define CHECK(call)                                                                   \
    do {                                                                              \
        cudaError_t e_ = (call);                                                      \
        if (e_ != cudaSuccess) {                                                      \
            printf("FAIL %s:%d %s -> %s\n", __FILE__, __LINE__, #call,              \
                   cudaGetErrorName(e_));                                            \
            exit(1);                                                                  \
        }                                                                             \
    } while (0)

// simpleHyperQ / graphMemoryFootprint: spin for a number of clock() ticks computed from
// cudaDevAttrClockRate (kHz), the way those samples size a kernel's run time
__global__ void clock_block(clock_t *out, clock_t count) {
    unsigned int start = (unsigned int)clock();
    clock_t offset = 0;
    while (offset < count) offset = (clock_t)((unsigned int)clock() - start);
    out[0] = offset;
}

static int run_clock() {
    int rate = 0;
    CHECK(cudaDeviceGetAttribute(&rate, cudaDevAttrClockRate, 0));
    clock_t *d, h = 0;
    CHECK(cudaMalloc(&d, sizeof h));
    cudaEvent_t a, b;
    CHECK(cudaEventCreate(&a));
    CHECK(cudaEventCreate(&b));
    const float ms = 40.0f;
    clock_block<<<1, 1>>>(d, 0);   // the module loads (and is translated) outside the timing
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaEventRecord(a));
    clock_block<<<1, 1>>>(d, (clock_t)(ms * rate));
    CHECK(cudaEventRecord(b));
    CHECK(cudaEventSynchronize(b));
    CHECK(cudaMemcpy(&h, d, sizeof h, cudaMemcpyDeviceToHost));
    float elapsed = 0;
    CHECK(cudaEventElapsedTime(&elapsed, a, b));
    printf("clock_rate_khz=%d\nwaited_ms=%.1f\nticks_ok=%d\n", rate, elapsed,
           h >= (clock_t)(ms * rate));
    return 0;
}

__global__ void add_one(int *v, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) v[i] += 1;
}

__global__ void set_all(int *v, int n, int value) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) v[i] = value;
}

// streamOrderedAllocation: the default pool, its release threshold, cudaMallocAsync
static int run_pool() {
    int supported = 0;
    CHECK(cudaDeviceGetAttribute(&supported, cudaDevAttrMemoryPoolsSupported, 0));
    printf("pools_supported=%d\n", supported);
    if (!supported) return 1;
    cudaMemPool_t pool;
    CHECK(cudaDeviceGetDefaultMemPool(&pool, 0));
    unsigned long long threshold = ~0ull, back = 0;
    CHECK(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &threshold));
    CHECK(cudaMemPoolGetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &back));
    cudaStream_t s;
    CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    const int n = 1000;
    int host[n], ok = 1;
    for (int round = 0; round < 3; round++) {
        int *v;
        CHECK(cudaMallocAsync(&v, n * sizeof(int), s));
        CHECK(cudaMemsetAsync(v, 0, n * sizeof(int), s));
        add_one<<<(n + 127) / 128, 128, 0, s>>>(v, n);
        add_one<<<(n + 127) / 128, 128, 0, s>>>(v, n);
        CHECK(cudaMemcpyAsync(host, v, sizeof host, cudaMemcpyDeviceToHost, s));
        CHECK(cudaFreeAsync(v, s));
        CHECK(cudaStreamSynchronize(s));
        for (int i = 0; i < n; i++) ok &= host[i] == 2;
    }
    unsigned long long used = 1, high = 0;
    CHECK(cudaMemPoolGetAttribute(pool, cudaMemPoolAttrUsedMemCurrent, &used));
    CHECK(cudaMemPoolGetAttribute(pool, cudaMemPoolAttrUsedMemHigh, &high));
    printf("threshold_roundtrip=%d\nresults_ok=%d\nused_after=%llu\nused_high=%llu\n",
           back == threshold, ok, used, high);
    return 0;
}

// graphMemoryNodes / graphMemoryFootprint: allocation node -> kernel -> copy -> free node
static int run_graphmem() {
    cudaGraph_t g;
    CHECK(cudaGraphCreate(&g, 0));
    cudaMemAllocNodeParams ap;
    memset(&ap, 0, sizeof ap);
    ap.poolProps.allocType = cudaMemAllocationTypePinned;
    ap.poolProps.location.type = cudaMemLocationTypeDevice;
    ap.poolProps.location.id = 0;
    const int n = 256;
    ap.bytesize = n * sizeof(int);
    cudaGraphNode_t nalloc, nset, nkernel, ncopy, nfree;
    CHECK(cudaGraphAddMemAllocNode(&nalloc, g, NULL, 0, &ap));
    int *v = (int *)ap.dptr;
    int count = n, forty = 40;
    void *set_args[] = {&v, &count, &forty};
    cudaKernelNodeParams sp;
    memset(&sp, 0, sizeof sp);
    sp.func = (void *)set_all;
    sp.gridDim = dim3(2);
    sp.blockDim = dim3(128);
    sp.kernelParams = set_args;
    CHECK(cudaGraphAddKernelNode(&nset, g, &nalloc, 1, &sp));
    void *args[] = {&v, &count};
    cudaKernelNodeParams kp;
    memset(&kp, 0, sizeof kp);
    kp.func = (void *)add_one;
    kp.gridDim = dim3(2);
    kp.blockDim = dim3(128);
    kp.kernelParams = args;
    CHECK(cudaGraphAddKernelNode(&nkernel, g, &nset, 1, &kp));
    static int host[n];
    CHECK(cudaGraphAddMemcpyNode1D(&ncopy, g, &nkernel, 1, host, v, sizeof host,
                                   cudaMemcpyDeviceToHost));
    CHECK(cudaGraphAddMemFreeNode(&nfree, g, &ncopy, 1, v));
    cudaGraphExec_t ge;
    CHECK(cudaGraphInstantiate(&ge, g, 0));
    int ok = 1;
    for (int round = 0; round < 2; round++) {
        memset(host, 0, sizeof host);
        CHECK(cudaGraphLaunch(ge, 0));
        CHECK(cudaStreamSynchronize(0));
        for (int i = 0; i < n; i++) ok &= host[i] == 41;
    }
    unsigned long long used = 1, reserved = 0;
    CHECK(cudaDeviceGetGraphMemAttribute(0, cudaGraphMemAttrUsedMemCurrent, &used));
    CHECK(cudaDeviceGetGraphMemAttribute(0, cudaGraphMemAttrReservedMemCurrent, &reserved));
    printf("graph_results_ok=%d\ngraph_used_after=%llu\ngraph_reserved=%llu\n", ok, used,
           reserved);
    CHECK(cudaGraphExecDestroy(ge));
    CHECK(cudaGraphDestroy(g));
    return 0;
}

int main(int argc, char **argv) {
    if (argc < 2) return 2;
    int rc = !strcmp(argv[1], "clock") ? run_clock()
             : !strcmp(argv[1], "pool") ? run_pool()
             : !strcmp(argv[1], "graphmem") ? run_graphmem() : 2;
    if (rc == 0) printf("PASS %s\n", argv[1]);
    return rc;
}
