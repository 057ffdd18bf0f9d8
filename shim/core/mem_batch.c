/*
 * Batched managed-memory operations (CUDA 12.8): cuMemPrefetchBatchAsync,
 * cuMemDiscardBatchAsync, cuMemDiscardAndPrefetchBatchAsync. The whole batch is checked
 * before anything is enqueued (a bad operation enqueues none), then each prefetch is a
 * cuMemPrefetchAsync on the stream, so the batch runs in stream order. A discard only
 * says the contents are no longer needed: reading a discarded range gives "an
 * indeterminate value", and keeping the bytes is one such value, so after its checks a
 * discard enqueues nothing (no backend pyshim drives migrates pages it could skip).
 */
#include "internal.h"

/* cuda.h's per-thread-stream variants, which it declares only under
 * CUDA_API_PER_THREAD_DEFAULT_STREAM */
CUresult CUDAAPI cuMemPrefetchBatchAsync_ptsz(CUdeviceptr *dptrs, size_t *sizes, size_t count,
                                              CUmemLocation *prefetchLocs,
                                              size_t *prefetchLocIdxs, size_t numPrefetchLocs,
                                              unsigned long long flags, CUstream hStream);
CUresult CUDAAPI cuMemDiscardBatchAsync_ptsz(CUdeviceptr *dptrs, size_t *sizes, size_t count,
                                             unsigned long long flags, CUstream hStream);
CUresult CUDAAPI cuMemDiscardAndPrefetchBatchAsync_ptsz(
    CUdeviceptr *dptrs, size_t *sizes, size_t count, CUmemLocation *prefetchLocs,
    size_t *prefetchLocIdxs, size_t numPrefetchLocs, unsigned long long flags,
    CUstream hStream);
CUresult CUDAAPI cuMemPrefetchAsync_v2_ptsz(CUdeviceptr devPtr, size_t count,
                                            CUmemLocation location, unsigned int flags,
                                            CUstream hStream);

static CUresult refuse(const char *fn, const char *why, size_t i)
{
    pyshim_log("%s: %s (operation %zu)", fn, why, i);
    return CUDA_ERROR_INVALID_VALUE;
}

/* The checks every batch call makes: its arrays, flags, stream, and that each range lies
 * in one managed allocation. */
static CUresult check_ranges(const char *fn, CUdeviceptr *dptrs, size_t *sizes, size_t count,
                             unsigned long long flags, CUstream stream, int pt)
{
    CUresult rc = pyshim_need_ctx();
    if (rc != CUDA_SUCCESS)
        return rc;
    if (count == 0 || dptrs == NULL || sizes == NULL || flags != 0)
        return refuse(fn, "needs a non-empty batch and flags 0", 0);
    /* "Must not be legacy NULL stream" (NULL is the per-thread stream in _ptsz) */
    if (stream == CU_STREAM_LEGACY || (stream == NULL && !pt))
        return refuse(fn, "the legacy NULL stream is not allowed", 0);
    for (size_t i = 0; i < count; i++) {
        hipPointerAttribute_t a;
        void *p = (void *)(uintptr_t)dptrs[i];
        if (sizes[i] == 0)
            return refuse(fn, "a range of 0 bytes", i);
        if (hipPointerGetAttributes(&a, p) != hipSuccess || !a.isManaged)
            return refuse(fn, "the range is not managed memory", i);
        hipDeviceptr_t base = NULL;
        size_t len = 0;
        if (hipMemGetAddressRange(&base, &len, (hipDeviceptr_t)p) != hipSuccess ||
            dptrs[i] + sizes[i] > (CUdeviceptr)(uintptr_t)base + len)
            return refuse(fn, "the range runs past its allocation", i);
    }
    return CUDA_SUCCESS;
}

/* prefetchLocIdxs: starts at 0, strictly increasing, each below count; at most count. */
static CUresult check_locations(const char *fn, size_t count, const CUmemLocation *locs,
                                const size_t *idxs, size_t n)
{
    if (locs == NULL || idxs == NULL || n == 0 || n > count)
        return refuse(fn, "needs 1 to count prefetch locations", 0);
    for (size_t k = 0; k < n; k++) {
        if ((k == 0 && idxs[0] != 0) || (k > 0 && idxs[k] <= idxs[k - 1]) || idxs[k] >= count)
            return refuse(fn, "prefetchLocIdxs must start at 0 and increase below count", k);
        int ok = locs[k].type == CU_MEM_LOCATION_TYPE_HOST ||
                 locs[k].type == CU_MEM_LOCATION_TYPE_HOST_NUMA ||
                 locs[k].type == CU_MEM_LOCATION_TYPE_HOST_NUMA_CURRENT ||
                 (locs[k].type == CU_MEM_LOCATION_TYPE_DEVICE && locs[k].id >= 0 &&
                  locs[k].id < pyshim_device_count());
        if (!ok)
            return refuse(fn, "a prefetch location that is no device or host", k);
    }
    return CUDA_SUCCESS;
}

static CUresult prefetch_batch(const char *fn, CUdeviceptr *dptrs, size_t *sizes, size_t count,
                               CUmemLocation *locs, size_t *idxs, size_t n,
                               unsigned long long flags, CUstream stream, int pt)
{
    CUresult rc = check_ranges(fn, dptrs, sizes, count, flags, stream, pt);
    if (rc == CUDA_SUCCESS)
        rc = check_locations(fn, count, locs, idxs, n);
    size_t k = 0;
    for (size_t i = 0; i < count && rc == CUDA_SUCCESS; i++) {
        while (k + 1 < n && idxs[k + 1] <= i)
            k++;
        rc = pt ? cuMemPrefetchAsync_v2_ptsz(dptrs[i], sizes[i], locs[k], 0, stream)
                : cuMemPrefetchAsync_v2(dptrs[i], sizes[i], locs[k], 0, stream);
    }
    return rc;
}

CUresult CUDAAPI cuMemPrefetchBatchAsync(CUdeviceptr *dptrs, size_t *sizes, size_t count,
                                         CUmemLocation *prefetchLocs, size_t *prefetchLocIdxs,
                                         size_t numPrefetchLocs, unsigned long long flags,
                                         CUstream hStream)
{
    return prefetch_batch("cuMemPrefetchBatchAsync", dptrs, sizes, count, prefetchLocs,
                          prefetchLocIdxs, numPrefetchLocs, flags, hStream, 0);
}

CUresult CUDAAPI cuMemPrefetchBatchAsync_ptsz(CUdeviceptr *dptrs, size_t *sizes, size_t count,
                                              CUmemLocation *prefetchLocs,
                                              size_t *prefetchLocIdxs, size_t numPrefetchLocs,
                                              unsigned long long flags, CUstream hStream)
{
    return prefetch_batch("cuMemPrefetchBatchAsync", dptrs, sizes, count, prefetchLocs,
                          prefetchLocIdxs, numPrefetchLocs, flags, hStream, 1);
}

CUresult CUDAAPI cuMemDiscardBatchAsync(CUdeviceptr *dptrs, size_t *sizes, size_t count,
                                        unsigned long long flags, CUstream hStream)
{
    return check_ranges("cuMemDiscardBatchAsync", dptrs, sizes, count, flags, hStream, 0);
}

CUresult CUDAAPI cuMemDiscardBatchAsync_ptsz(CUdeviceptr *dptrs, size_t *sizes, size_t count,
                                             unsigned long long flags, CUstream hStream)
{
    return check_ranges("cuMemDiscardBatchAsync", dptrs, sizes, count, flags, hStream, 1);
}

CUresult CUDAAPI cuMemDiscardAndPrefetchBatchAsync(CUdeviceptr *dptrs, size_t *sizes,
                                                   size_t count, CUmemLocation *prefetchLocs,
                                                   size_t *prefetchLocIdxs,
                                                   size_t numPrefetchLocs,
                                                   unsigned long long flags, CUstream hStream)
{
    return prefetch_batch("cuMemDiscardAndPrefetchBatchAsync", dptrs, sizes, count,
                          prefetchLocs, prefetchLocIdxs, numPrefetchLocs, flags, hStream, 0);
}

CUresult CUDAAPI cuMemDiscardAndPrefetchBatchAsync_ptsz(
    CUdeviceptr *dptrs, size_t *sizes, size_t count, CUmemLocation *prefetchLocs,
    size_t *prefetchLocIdxs, size_t numPrefetchLocs, unsigned long long flags, CUstream hStream)
{
    return prefetch_batch("cuMemDiscardAndPrefetchBatchAsync", dptrs, sizes, count,
                          prefetchLocs, prefetchLocIdxs, numPrefetchLocs, flags, hStream, 1);
}
