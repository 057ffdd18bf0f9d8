// Runtime API end to end, without kernel execution: device queries, memory of every
// kind, streams and events, error codes and the last-error state, device reset, an
// unsupported call. Runs unchanged against NVIDIA's libcudart; prints one line per
// check and exits non-zero if any fails.
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <thread>

#include "../include/runtime_check.h"

__global__ void touch(int *p) { p[threadIdx.x] = 1; }

static void versions(void)
{
    int drv = 0, rt = 0;
    OK("driver version call", cudaDriverGetVersion(&drv));
    OK("runtime version call", cudaRuntimeGetVersion(&rt));
    printf("  driver %d runtime %d header %d\n", drv, rt, CUDART_VERSION);
    CHECK("runtime version is the header's", rt == CUDART_VERSION);
    CHECK("driver version >= runtime", drv >= rt);
}

static void driver_entry_point(void)
{
    int (*get_version)(int *) = NULL;
    cudaDriverEntryPointQueryResult status = cudaDriverEntryPointSymbolNotFound;
    cudaError_t e = cudaGetDriverEntryPointByVersion("cuDriverGetVersion", (void **)&get_version,
                                                     CUDART_VERSION, cudaEnableDefault, &status);
    if (e == cudaErrorNotSupported) { // no driver library next to this runtime
        printf("  entry point: no driver library\n");
        cudaGetLastError();
        return;
    }
    OK("driver entry point", e);
    CHECK("entry point found", status == cudaDriverEntryPointSuccess && get_version != NULL);
    int v = 0;
    if (get_version != NULL && get_version(&v) == 0)
        printf("  entry point cuDriverGetVersion -> %d\n", v);
    CHECK("driver version through the entry point", v >= CUDART_VERSION);
    void *none = NULL;
    OK("unknown entry point", cudaGetDriverEntryPointByVersion("cuNoSuchFunction", &none, CUDART_VERSION,
                                                               cudaEnableDefault, &status));
    CHECK("unknown entry point status", status == cudaDriverEntryPointSymbolNotFound && none == NULL);
}

static void device_queries(void)
{
    int n = 0, dev = -1;
    OK("device count", cudaGetDeviceCount(&n));
    CHECK("at least one device", n >= 1);
    OK("set device 0", cudaSetDevice(0));
    OK("get device", cudaGetDevice(&dev));
    CHECK("device is 0", dev == 0);
    cudaDeviceProp prop;
    memset(&prop, 0xab, sizeof prop);
    OK("device properties", cudaGetDeviceProperties(&prop, 0));
    printf("  name '%s' warp %d threads/block %d SMs %d mem %zu cc %d.%d\n", prop.name,
           prop.warpSize, prop.maxThreadsPerBlock, prop.multiProcessorCount,
           prop.totalGlobalMem, prop.major, prop.minor);
    CHECK("name is set", prop.name[0] != '\0' && strlen(prop.name) < sizeof prop.name);
    CHECK("global memory", prop.totalGlobalMem > 0);
    int warp = 0, threads = 0, sms = 0, dimx = 0;
    OK("attr warp", cudaDeviceGetAttribute(&warp, cudaDevAttrWarpSize, 0));
    OK("attr threads", cudaDeviceGetAttribute(&threads, cudaDevAttrMaxThreadsPerBlock, 0));
    OK("attr SMs", cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    OK("attr block dim x", cudaDeviceGetAttribute(&dimx, cudaDevAttrMaxBlockDimX, 0));
    CHECK("warp size agrees", warp == prop.warpSize && warp > 0);
    CHECK("threads/block agrees", threads == prop.maxThreadsPerBlock && threads > 0);
    CHECK("SM count agrees", sms == prop.multiProcessorCount && sms > 0);
    CHECK("block dim x agrees", dimx == prop.maxThreadsDim[0] && dimx > 0);
    // attributes HIP has no counterpart for are answered from the properties
    int optin = -1, bus = -1, layered = -1;
    OK("attr smem optin", cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, 0));
    OK("attr bus width", cudaDeviceGetAttribute(&bus, cudaDevAttrGlobalMemoryBusWidth, 0));
    OK("attr 2D layered", cudaDeviceGetAttribute(&layered, cudaDevAttrMaxTexture2DLayeredLayers, 0));
    printf("  smem optin %d bus %d 2D layers %d\n", optin, bus, layered);
    CHECK("smem optin agrees", optin == (int)prop.sharedMemPerBlockOptin);
    CHECK("bus width agrees", bus == prop.memoryBusWidth);
    CHECK("2D layered agrees", layered == prop.maxTexture2DLayered[2]);
    size_t limit = 0;
    OK("stack size limit", cudaDeviceGetLimit(&limit, cudaLimitStackSize));
    OK("printf fifo limit", cudaDeviceSetLimit(cudaLimitPrintfFifoSize, 1 << 20));
    CHECK("L2 fetch granularity limit is refused or answered",
          cudaDeviceGetLimit(&limit, cudaLimitMaxL2FetchGranularity) != cudaErrorUnknown);
    cudaGetLastError();
    int bogus = 0;
    CHECK("no such attribute", cudaDeviceGetAttribute(&bogus, (cudaDeviceAttr)100000, 0) == cudaErrorInvalidValue);
    cudaGetLastError();
#if CUDART_VERSION < 13000
    // fields CUDA 13 dropped from cudaDeviceProp: 12.x programs still read them
    int clock = 0;
    OK("attr clock rate", cudaDeviceGetAttribute(&clock, cudaDevAttrClockRate, 0));
    printf("  clockRate %d (attribute %d)\n", prop.clockRate, clock);
    CHECK("clock rate agrees", prop.clockRate == clock && clock > 0);
#endif
    int chosen = -1;
    cudaDeviceProp want;
    memset(&want, 0, sizeof want);
    want.major = 1;
    OK("choose device", cudaChooseDevice(&chosen, &want));
    CHECK("chosen device exists", chosen >= 0 && chosen < n);
    OK("init device", cudaInitDevice(0, 0, 0));
    CHECK("init bad device", cudaInitDevice(n, 0, 0) == cudaErrorInvalidDevice);
    cudaGetLastError();
    CHECK("props agree with device count", cudaGetDeviceProperties(&prop, n) == cudaErrorInvalidDevice);
    cudaGetLastError();
}

static void memory(void)
{
    const size_t n = 1 << 16;
    int *h = (int *)malloc(n * sizeof(int)), *back = (int *)malloc(n * sizeof(int));
    for (size_t i = 0; i < n; i++)
        h[i] = (int)(i * 2654435761u);
    int *d = NULL, *d2 = NULL;
    OK("cudaMalloc", cudaMalloc(&d, n * sizeof(int)));
    OK("cudaMalloc 2", cudaMalloc(&d2, n * sizeof(int)));
    OK("memcpy H2D", cudaMemcpy(d, h, n * sizeof(int), cudaMemcpyHostToDevice));
    OK("memcpy D2D", cudaMemcpy(d2, d, n * sizeof(int), cudaMemcpyDeviceToDevice));
    OK("memcpy D2H", cudaMemcpy(back, d2, n * sizeof(int), cudaMemcpyDeviceToHost));
    CHECK("round trip", memcmp(h, back, n * sizeof(int)) == 0);
    OK("memset", cudaMemset(d, 0x5a, n * sizeof(int)));
    OK("memcpy default kind", cudaMemcpy(back, d, n * sizeof(int), cudaMemcpyDefault));
    CHECK("memset value", back[0] == 0x5a5a5a5a && back[n - 1] == 0x5a5a5a5a);

    size_t free_b = 0, total_b = 0;
    OK("mem info", cudaMemGetInfo(&free_b, &total_b));
    CHECK("mem info sane", total_b > 0 && free_b <= total_b);

    int *ph = NULL, *pa = NULL, *m = NULL;
    OK("cudaMallocHost", cudaMallocHost((void **)&ph, 4096));
    OK("cudaHostAlloc", cudaHostAlloc((void **)&pa, 4096, cudaHostAllocDefault));
    ph[0] = 7;
    pa[0] = 9;
    OK("pinned H2D", cudaMemcpy(d, ph, 4, cudaMemcpyHostToDevice));
    OK("pinned D2H", cudaMemcpy(pa, d, 4, cudaMemcpyDeviceToHost));
    CHECK("pinned copy", pa[0] == 7);
    OK("cudaFreeHost", cudaFreeHost(ph));
    OK("cudaFreeHost 2", cudaFreeHost(pa));
    OK("cudaMallocManaged", cudaMallocManaged((void **)&m, 4096, cudaMemAttachGlobal));
    m[3] = 42;
#if CUDART_VERSION >= 13000
    cudaMemLocation dev0 = {cudaMemLocationTypeDevice, 0}, host = {cudaMemLocationTypeHost, 0};
    OK("advise read mostly", cudaMemAdvise(m, 4096, cudaMemAdviseSetReadMostly, dev0));
    OK("prefetch to device", cudaMemPrefetchAsync(m, 4096, dev0, 0, 0));
    OK("prefetch to host", cudaMemPrefetchAsync(m, 4096, host, 0, 0));
#else
    OK("advise read mostly", cudaMemAdvise(m, 4096, cudaMemAdviseSetReadMostly, 0));
    OK("prefetch to device", cudaMemPrefetchAsync(m, 4096, 0, 0));
    OK("prefetch to host", cudaMemPrefetchAsync(m, 4096, cudaCpuDeviceId, 0));
#endif
    OK("sync after prefetch", cudaDeviceSynchronize());
    OK("managed D2H", cudaMemcpy(back, m, 16, cudaMemcpyDefault));
    CHECK("managed visible", back[3] == 42);
    OK("free managed", cudaFree(m));

    void *pitched = NULL;
    size_t pitch = 0;
    OK("cudaMallocPitch", cudaMallocPitch(&pitched, &pitch, 100, 8));
    CHECK("pitch >= width", pitch >= 100);
    char rows[8][100], out[8][100];
    for (int r = 0; r < 8; r++)
        memset(rows[r], 'a' + r, 100);
    OK("memcpy2D H2D", cudaMemcpy2D(pitched, pitch, rows, 100, 100, 8, cudaMemcpyHostToDevice));
    OK("memcpy2D D2H", cudaMemcpy2D(out, 100, pitched, pitch, 100, 8, cudaMemcpyDeviceToHost));
    CHECK("memcpy2D", memcmp(rows, out, sizeof rows) == 0);
    OK("free pitched", cudaFree(pitched));
    OK("free", cudaFree(d));
    OK("free 2", cudaFree(d2));
    OK("free NULL", cudaFree(NULL));
    free(h);
    free(back);
}

static void streams_events(void)
{
    const size_t n = 1 << 20;
    char *h = NULL, *back = (char *)malloc(n);
    char *d = NULL;
    OK("pinned for async", cudaMallocHost((void **)&h, n));
    memset(h, 3, n);
    OK("malloc for async", cudaMalloc(&d, n));
    cudaStream_t s;
    cudaEvent_t a, b;
    OK("stream create", cudaStreamCreate(&s));
    OK("event create", cudaEventCreate(&a));
    OK("event create 2", cudaEventCreateWithFlags(&b, cudaEventDefault));
    OK("event record", cudaEventRecord(a, s));
    OK("memcpy async", cudaMemcpyAsync(d, h, n, cudaMemcpyHostToDevice, s));
    OK("memset async", cudaMemsetAsync(d + 16, 9, 16, s));
    OK("event record 2", cudaEventRecord(b, s));
    OK("event sync", cudaEventSynchronize(b));
    OK("stream sync", cudaStreamSynchronize(s));
    OK("stream query", cudaStreamQuery(s));
    OK("event query", cudaEventQuery(b));
    float ms = -1;
    OK("elapsed", cudaEventElapsedTime(&ms, a, b));
    CHECK("elapsed >= 0", ms >= 0);
    OK("memcpy async back", cudaMemcpyAsync(back, d, n, cudaMemcpyDeviceToHost, s));
    OK("stream sync 2", cudaStreamSynchronize(s));
    CHECK("async data", back[0] == 3 && back[16] == 9 && back[31] == 9 && back[32] == 3);
    OK("copy on legacy stream", cudaMemcpyAsync(d, h, 64, cudaMemcpyHostToDevice, cudaStreamLegacy));
    OK("copy on per-thread stream", cudaMemcpyAsync(back, d, 64, cudaMemcpyDeviceToHost, cudaStreamPerThread));
    OK("per-thread sync", cudaStreamSynchronize(cudaStreamPerThread));
    OK("device sync", cudaDeviceSynchronize());
#if CUDART_VERSION < 13000
    OK("thread sync (CUDA 12 name)", cudaThreadSynchronize());
    size_t stack = 0;
    OK("thread get limit (CUDA 12 name)", cudaThreadGetLimit(&stack, cudaLimitStackSize));
#endif
    OK("event destroy", cudaEventDestroy(a));
    OK("event destroy 2", cudaEventDestroy(b));
    OK("stream destroy", cudaStreamDestroy(s));
    OK("free async", cudaFree(d));
    OK("free pinned", cudaFreeHost(h));
    free(back);
}

static void errors(void)
{
    CHECK("clean start", cudaGetLastError() == cudaSuccess);
    CHECK("error name", strcmp(cudaGetErrorName(cudaErrorInvalidValue), "cudaErrorInvalidValue") == 0);
    CHECK("error string", strcmp(cudaGetErrorString(cudaErrorMemoryAllocation), "out of memory") == 0);
    CHECK("success name", strcmp(cudaGetErrorName(cudaSuccess), "cudaSuccess") == 0);

    void *p = NULL;
    cudaError_t e = cudaMalloc(&p, (size_t)1 << 62);
    printf("  impossible allocation -> %s\n", cudaGetErrorName(e));
    CHECK("impossible allocation", e == cudaErrorMemoryAllocation);
    CHECK("peek keeps it", cudaPeekAtLastError() == cudaErrorMemoryAllocation);
    CHECK("get returns it", cudaGetLastError() == cudaErrorMemoryAllocation);
    CHECK("and clears it", cudaGetLastError() == cudaSuccess);

    int *host = (int *)malloc(64);
    e = cudaFree(host);
    printf("  cudaFree(host pointer) -> %s\n", cudaGetErrorName(e));
    CHECK("free host pointer", e == cudaErrorInvalidValue);
    cudaGetLastError();
    free(host);

    touch<<<1, 2048>>>(NULL);
    e = cudaGetLastError();
    printf("  <<<1, 2048>>> -> %s\n", cudaGetErrorName(e));
    CHECK("invalid configuration", e == cudaErrorInvalidConfiguration);
    touch<<<dim3(1, 70000), 1>>>(NULL);
    CHECK("invalid grid", cudaGetLastError() == cudaErrorInvalidConfiguration);
    CHECK("cleared after get", cudaGetLastError() == cudaSuccess);

    e = cudaCtxResetPersistingL2Cache();
    printf("  cudaCtxResetPersistingL2Cache -> %s\n", cudaGetErrorName(e));
    CHECK("unsupported call", e == cudaErrorNotSupported || e == cudaSuccess);
    cudaCtxResetPersistingL2Cache();
    cudaGetLastError();
    cudaGraph_t graph = NULL;
    e = cudaGraphCreate(&graph, 0);
    printf("  cudaGraphCreate -> %s\n", cudaGetErrorName(e));
    CHECK("graph create", e == cudaSuccess || e == cudaErrorNotSupported);
    if (e == cudaSuccess)
        OK("graph destroy", cudaGraphDestroy(graph));
    cudaGetLastError();

    // the last error is per host thread
    cudaError_t in_thread = cudaSuccess, after_in_thread = cudaErrorUnknown;
    std::thread t([&] {
        void *q = NULL;
        cudaMalloc(&q, (size_t)1 << 62);
        in_thread = cudaPeekAtLastError();
    });
    t.join();
    after_in_thread = cudaPeekAtLastError();
    CHECK("error seen by its thread", in_thread == cudaErrorMemoryAllocation);
    CHECK("not by another thread", after_in_thread == cudaSuccess);

    int *d = NULL;
    OK("usable after errors", cudaMalloc(&d, 256));
    OK("free after errors", cudaFree(d));
}

static void reset(void)
{
    int *d = NULL;
    OK("malloc before reset", cudaMalloc(&d, 256));
    OK("device reset", cudaDeviceReset());
    OK("malloc after reset", cudaMalloc(&d, 256));
    int v = 5, back = 0;
    OK("copy after reset", cudaMemcpy(d, &v, sizeof v, cudaMemcpyHostToDevice));
    OK("copy back after reset", cudaMemcpy(&back, d, sizeof v, cudaMemcpyDeviceToHost));
    CHECK("data after reset", back == 5);
    OK("free after reset", cudaFree(d));
}

int main(void)
{
    versions();
    driver_entry_point();
    device_queries();
    memory();
    streams_events();
    errors();
    reset();
    printf("%s: %d failure(s)\n", failures ? "FAILED" : "ALL PASSED", failures);
    return failures ? 1 : 0;
}
