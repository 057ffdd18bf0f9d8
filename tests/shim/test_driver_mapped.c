/*
 * Driver entry points the tables now map (issue #21 point 6), each through the shim's
 * libcuda.so.1 on the CPU device: stream wait-value operations (a wait that holds the stream
 * until the host writes the word, the comparisons, 64-bit values, bad flags), peer copies
 * between contexts, prefetches and advice by CUmemLocation, pools by CUmemLocation, and
 * every cuCtxCreate ABI.
 * Prints ok/FAIL lines; exit status 1 if any failed.
 */
#define _POSIX_C_SOURCE 200809L
#include <cuda.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "expect.h"

/* the older ABIs cuda.h renames away */
#undef cuCtxCreate
CUresult CUDAAPI cuCtxCreate(CUcontext *pctx, unsigned int flags, CUdevice dev);
CUresult CUDAAPI cuCtxCreate_v2(CUcontext *pctx, unsigned int flags, CUdevice dev);
CUresult CUDAAPI cuCtxCreate_v3(CUcontext *pctx, CUexecAffinityParam *paramsArray, int numParams,
                                unsigned int flags, CUdevice dev);
#undef cuStreamWaitValue32
CUresult CUDAAPI cuStreamWaitValue32(CUstream s, CUdeviceptr a, cuuint32_t v, unsigned int f);

static void pause_ms(int ms)
{
    struct timespec ts = {0, ms * 1000000L};
    nanosleep(&ts, NULL);
}

static void wait_values(void)
{
    CUstream s;
    cuStreamCreate(&s, CU_STREAM_NON_BLOCKING);
    volatile uint64_t *host;
    cuMemAllocHost((void **)&host, 64);
    memset((void *)host, 0, 64);
    CUdeviceptr word = (CUdeviceptr)(uintptr_t)host, marker = word + 32;

    /* held until the host writes 5 or more: the memset queued behind it waits too */
    CUresult rc = cuStreamWaitValue32_v2(s, word, 5, CU_STREAM_WAIT_VALUE_GEQ);
    EXPECT(rc == CUDA_SUCCESS, "cuStreamWaitValue32(GEQ) -> %d", rc);
    cuMemsetD32Async(marker, 0x77, 1, s);
    pause_ms(20);
    EXPECT(cuStreamQuery(s) == CUDA_ERROR_NOT_READY && ((volatile uint32_t *)host)[8] == 0,
           "the stream waits while the word is 0");
    ((volatile uint32_t *)host)[0] = 9;
    rc = cuStreamSynchronize(s);
    EXPECT(rc == CUDA_SUCCESS && ((volatile uint32_t *)host)[8] == 0x77,
           "released by the host's write of 9 >= 5, then the memset ran");

    /* comparisons already true: EQ, AND (bits in common), NOR (~(v | x) != 0), the
     * CUDA 8 symbol and a FLUSH request */
    EXPECT(cuStreamWaitValue32_v2(s, word, 9, CU_STREAM_WAIT_VALUE_EQ) == CUDA_SUCCESS &&
               cuStreamWaitValue32_v2(s, word, 8, CU_STREAM_WAIT_VALUE_AND) == CUDA_SUCCESS &&
               cuStreamWaitValue32_v2(s, word, 0, CU_STREAM_WAIT_VALUE_NOR) == CUDA_SUCCESS &&
               cuStreamWaitValue32(s, word, 1, CU_STREAM_WAIT_VALUE_GEQ |
                                                   CU_STREAM_WAIT_VALUE_FLUSH) == CUDA_SUCCESS &&
               cuStreamSynchronize(s) == CUDA_SUCCESS,
           "EQ / AND / NOR / GEQ|FLUSH waits that hold complete");

    /* 64-bit: a value above 32 bits must match whole */
    host[2] = (1ull << 40) + 3;
    rc = cuStreamWaitValue64_v2(s, word + 16, (1ull << 40) + 3, CU_STREAM_WAIT_VALUE_EQ);
    EXPECT(rc == CUDA_SUCCESS && cuStreamSynchronize(s) == CUDA_SUCCESS,
           "cuStreamWaitValue64(EQ, 2^40 + 3) -> %d", rc);
    rc = cuStreamWaitValue64_v2(s, word + 16, 3, CU_STREAM_WAIT_VALUE_EQ);
    pause_ms(20);
    EXPECT(rc == CUDA_SUCCESS && cuStreamQuery(s) == CUDA_ERROR_NOT_READY,
           "a 64-bit EQ on the low word alone holds");
    host[2] = 3;
    EXPECT(cuStreamSynchronize(s) == CUDA_SUCCESS, "released when all 64 bits match");

    EXPECT(cuStreamWaitValue32_v2(s, word, 1, 0x40) == CUDA_ERROR_INVALID_VALUE,
           "unknown wait flags: CUDA_ERROR_INVALID_VALUE");
    cuStreamDestroy(s);
    cuMemFreeHost((void *)host);
}

static void peer_copies(CUcontext ctx)
{
    enum { N = 4096 };
    CUdeviceptr a, b;
    cuMemAlloc(&a, N);
    cuMemAlloc(&b, N);
    static unsigned char src[N], dst[N];
    for (int i = 0; i < N; i++)
        src[i] = (unsigned char)(i * 7);
    cuMemcpyHtoD(a, src, N);
    CUresult rc = cuMemcpyPeer(b, ctx, a, ctx, N);
    cuMemcpyDtoH(dst, b, N);
    EXPECT(rc == CUDA_SUCCESS && memcmp(src, dst, N) == 0, "cuMemcpyPeer -> %d", rc);
    cuMemsetD8(b, 0, N);
    CUstream s;
    cuStreamCreate(&s, 0);
    rc = cuMemcpyPeerAsync(b, ctx, a, ctx, N, s);
    cuStreamSynchronize(s);
    cuMemcpyDtoH(dst, b, N);
    EXPECT(rc == CUDA_SUCCESS && memcmp(src, dst, N) == 0, "cuMemcpyPeerAsync -> %d", rc);
    EXPECT(cuMemcpyPeer(b, (CUcontext)(uintptr_t)0x1234, a, ctx, N) == CUDA_ERROR_INVALID_CONTEXT,
           "a garbage context: CUDA_ERROR_INVALID_CONTEXT");
    cuStreamDestroy(s);
    cuMemFree(a);
    cuMemFree(b);
}

static void prefetch_and_advice(void)
{
    CUdeviceptr m;
    CUresult rc = cuMemAllocManaged(&m, 1 << 16, CU_MEM_ATTACH_GLOBAL);
    EXPECT(rc == CUDA_SUCCESS, "cuMemAllocManaged -> %d", rc);
    CUmemLocation dev = {.type = CU_MEM_LOCATION_TYPE_DEVICE, .id = 0};
    CUmemLocation host = {.type = CU_MEM_LOCATION_TYPE_HOST, .id = 0};
    CUmemLocation bad = {.type = (CUmemLocationType)77, .id = 0};
    rc = cuMemPrefetchAsync_v2(m, 1 << 16, dev, 0, NULL);
    EXPECT(rc == CUDA_SUCCESS, "cuMemPrefetchAsync(device location) -> %d", rc);
    rc = cuMemPrefetchAsync_v2(m, 1 << 16, host, 0, NULL);
    EXPECT(rc == CUDA_SUCCESS, "cuMemPrefetchAsync(host location) -> %d", rc);
    EXPECT(cuMemPrefetchAsync_v2(m, 1 << 16, bad, 0, NULL) == CUDA_ERROR_INVALID_VALUE,
           "an unknown location type: CUDA_ERROR_INVALID_VALUE");
    rc = cuMemAdvise_v2(m, 1 << 16, CU_MEM_ADVISE_SET_PREFERRED_LOCATION, dev);
    int where = -5;
    cuMemRangeGetAttribute(&where, sizeof where, CU_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION, m,
                           1 << 16);
    EXPECT(rc == CUDA_SUCCESS && where == 0, "cuMemAdvise(preferred: device 0) read back %d",
           where);
    EXPECT(cuCtxSynchronize() == CUDA_SUCCESS, "synchronised");
    cuMemFree(m);
}

static void location_pools(void)
{
    CUmemLocation dev0 = {.type = CU_MEM_LOCATION_TYPE_DEVICE, .id = 0};
    CUmemLocation dev9 = {.type = CU_MEM_LOCATION_TYPE_DEVICE, .id = 9};
    CUmemLocation host = {.type = CU_MEM_LOCATION_TYPE_HOST, .id = 0};
    CUmemoryPool def = NULL, by_dev = NULL, cur = NULL, made = NULL;
    CUresult rc = cuMemGetDefaultMemPool(&def, &dev0, CU_MEM_ALLOCATION_TYPE_PINNED);
    cuDeviceGetDefaultMemPool(&by_dev, 0);
    EXPECT(rc == CUDA_SUCCESS && def != NULL && def == by_dev,
           "cuMemGetDefaultMemPool(device 0) is cuDeviceGetDefaultMemPool(0)");
    rc = cuMemGetMemPool(&cur, &dev0, CU_MEM_ALLOCATION_TYPE_PINNED);
    EXPECT(rc == CUDA_SUCCESS && cur == def, "the current pool is the default one");
    CUmemPoolProps props = {.allocType = CU_MEM_ALLOCATION_TYPE_PINNED,
                            .location = {.type = CU_MEM_LOCATION_TYPE_DEVICE, .id = 0}};
    EXPECT(cuMemPoolCreate(&made, &props) == CUDA_SUCCESS, "cuMemPoolCreate");
    rc = cuMemSetMemPool(&dev0, CU_MEM_ALLOCATION_TYPE_PINNED, made);
    cur = NULL;
    cuMemGetMemPool(&cur, &dev0, CU_MEM_ALLOCATION_TYPE_PINNED);
    CUmemoryPool by_dev_cur = NULL;
    cuDeviceGetMemPool(&by_dev_cur, 0);
    EXPECT(rc == CUDA_SUCCESS && cur == made && by_dev_cur == made,
           "cuMemSetMemPool: read back by both calls");
    /* an allocation on the stream comes from the pool set */
    CUdeviceptr p = 0;
    cuMemAllocAsync(&p, 4096, NULL);
    cuStreamSynchronize(NULL);
    size_t used = 0;
    cuMemPoolGetAttribute(made, CU_MEMPOOL_ATTR_USED_MEM_CURRENT, &used);
    EXPECT(p != 0 && used >= 4096, "cuMemAllocAsync drew %zu bytes from the pool set", used);
    cuMemFreeAsync(p, NULL);
    cuStreamSynchronize(NULL);
    cuMemSetMemPool(&dev0, CU_MEM_ALLOCATION_TYPE_PINNED, def);
    cuMemPoolDestroy(made);
    EXPECT(cuMemGetDefaultMemPool(&cur, &host, CU_MEM_ALLOCATION_TYPE_PINNED) ==
               CUDA_ERROR_NOT_SUPPORTED, "a host pool: CUDA_ERROR_NOT_SUPPORTED");
    EXPECT(cuMemGetMemPool(&cur, &dev0, CU_MEM_ALLOCATION_TYPE_MANAGED) == CUDA_ERROR_NOT_SUPPORTED,
           "a managed pool: CUDA_ERROR_NOT_SUPPORTED");
    EXPECT(cuMemGetMemPool(&cur, &dev9, CU_MEM_ALLOCATION_TYPE_PINNED) == CUDA_ERROR_INVALID_DEVICE,
           "device 9: CUDA_ERROR_INVALID_DEVICE");
    EXPECT(cuMemGetDefaultMemPool(&cur, NULL, CU_MEM_ALLOCATION_TYPE_PINNED) ==
                   CUDA_ERROR_INVALID_VALUE &&
               cuMemSetMemPool(&dev0, CU_MEM_ALLOCATION_TYPE_INVALID, def) ==
                   CUDA_ERROR_INVALID_VALUE,
           "no location / an invalid type: CUDA_ERROR_INVALID_VALUE");
}

static void contexts(CUdevice dev)
{
    CUcontext c1 = NULL, c2 = NULL, c3 = NULL, c4 = NULL, cur = NULL;
    EXPECT(cuCtxCreate_v4(&c4, NULL, 0, dev) == CUDA_SUCCESS && c4 != NULL,
           "cuCtxCreate_v4(no parameters)");
    cuCtxGetCurrent(&cur);
    EXPECT(cur == c4, "the new context is current");
    EXPECT(cuCtxCreate_v3(&c3, NULL, 0, 0, dev) == CUDA_SUCCESS && c3 != NULL,
           "cuCtxCreate_v3(no affinity)");
    CUexecAffinityParam p = {.type = CU_EXEC_AFFINITY_TYPE_SM_COUNT, .param.smCount.val = 1};
    CUcontext none = NULL;
    EXPECT(cuCtxCreate_v3(&none, &p, 1, 0, dev) == CUDA_ERROR_UNSUPPORTED_EXEC_AFFINITY &&
               none == NULL,
           "cuCtxCreate_v3(an SM count): CUDA_ERROR_UNSUPPORTED_EXEC_AFFINITY");
    EXPECT(cuCtxCreate_v2(&c2, 0, dev) == CUDA_SUCCESS && c2 != NULL, "cuCtxCreate_v2");
    EXPECT(cuCtxCreate(&c1, 0, dev) == CUDA_SUCCESS && c1 != NULL, "cuCtxCreate (CUDA 3.2)");
    EXPECT(cuCtxCreate_v4(&none, NULL, 0, 99) == CUDA_ERROR_INVALID_DEVICE,
           "a bad device: CUDA_ERROR_INVALID_DEVICE");
    CUcontext all[4] = {c1, c2, c3, c4};
    for (int i = 0; i < 4; i++)
        EXPECT(cuCtxDestroy(all[i]) == CUDA_SUCCESS, "cuCtxDestroy #%d", i);
}

int main(void)
{
    CUdevice dev;
    CUcontext ctx;
    if (cuInit(0) != CUDA_SUCCESS || cuDeviceGet(&dev, 0) != CUDA_SUCCESS ||
        cuDevicePrimaryCtxRetain(&ctx, dev) != CUDA_SUCCESS || cuCtxSetCurrent(ctx) != CUDA_SUCCESS) {
        printf("FAIL: no device\n");
        return 1;
    }
    wait_values();
    peer_copies(ctx);
    prefetch_and_advice();
    location_pools();
    contexts(dev);
    cuCtxSetCurrent(ctx);
    printf("PASS: %d failure(s)\n", failures);
    return failures != 0;
}
