/*
 * cuMemcpyBatchAsync: a batch of pointer-to-pointer copies in stream order, each with the
 * attributes of the attrs[] entry whose range (attrsIdxs) covers it. The attributes are
 * checked as CUDA documents them; each copy is an ordinary asynchronous copy on the
 * stream (unified addressing: the direction is inferred). A copy whose source may only be
 * read during the call (CU_MEMCPY_SRC_ACCESS_ORDER_DURING_API_CALL, a stack buffer) is
 * complete before the call returns. HIP's hipMemcpyBatchAsync is CUDA 12.8's form, which
 * the CPU device lacks; CUDA 12.8's form (failIdx) is exported here too.
 */
#include <stdint.h>

#include "internal.h"

#undef cuMemcpyBatchAsync
CUresult CUDAAPI cuMemcpyBatchAsync(CUdeviceptr *dsts, CUdeviceptr *srcs, size_t *sizes,
                                    size_t count, CUmemcpyAttributes *attrs, size_t *attrsIdxs,
                                    size_t numAttrs, size_t *failIdx, CUstream hStream);
CUresult CUDAAPI cuMemcpyBatchAsync_ptsz(CUdeviceptr *dsts, CUdeviceptr *srcs, size_t *sizes,
                                         size_t count, CUmemcpyAttributes *attrs,
                                         size_t *attrsIdxs, size_t numAttrs, size_t *failIdx,
                                         CUstream hStream);

static CUresult refuse(const char *why)
{
    pyshim_log("cuMemcpyBatchAsync: %s", why);
    return CUDA_ERROR_INVALID_VALUE;
}

static CUresult check_attrs(size_t count, const CUmemcpyAttributes *attrs,
                            const size_t *idxs, size_t num)
{
    if (attrs == NULL || idxs == NULL || num == 0 || num > count)
        return refuse("attributes missing, or more attribute sets than copies");
    for (size_t k = 0; k < num; k++) {
        if ((k == 0 && idxs[0] != 0) || (k > 0 && idxs[k] <= idxs[k - 1]) || idxs[k] >= count)
            return refuse("attrsIdxs must start at 0, increase, and stay below count");
        CUmemcpySrcAccessOrder o = attrs[k].srcAccessOrder;
        if (o != CU_MEMCPY_SRC_ACCESS_ORDER_STREAM &&
            o != CU_MEMCPY_SRC_ACCESS_ORDER_DURING_API_CALL && o != CU_MEMCPY_SRC_ACCESS_ORDER_ANY)
            return refuse("an attribute set without a valid srcAccessOrder");
        if (attrs[k].flags & ~(unsigned)CU_MEMCPY_FLAG_PREFER_OVERLAP_WITH_COMPUTE)
            return refuse("unknown copy flags");
    }
    return CUDA_SUCCESS;
}

static CUresult batch(CUdeviceptr *dsts, CUdeviceptr *srcs, size_t *sizes, size_t count,
                      CUmemcpyAttributes *attrs, size_t *attrsIdxs, size_t numAttrs,
                      size_t *failIdx, CUstream hStream, int per_thread)
{
    if (failIdx != NULL)
        *failIdx = SIZE_MAX;   /* no one copy is to blame */
    if (count == 0 || dsts == NULL || srcs == NULL || sizes == NULL)
        return refuse("no copies, or NULL arrays");
    if (hStream == CU_STREAM_LEGACY || (hStream == NULL && !per_thread))
        return refuse("the legacy NULL stream is not allowed");
    CUresult rc = check_attrs(count, attrs, attrsIdxs, numAttrs);
    if (rc == CUDA_SUCCESS)
        rc = pyshim_need_ctx();
    if (rc != CUDA_SUCCESS)
        return rc;
    hipStream_t s = pyshim_hip_stream(hStream, per_thread);
    int during_call = 0;
    size_t k = 0;
    for (size_t i = 0; i < count; i++) {
        while (k + 1 < numAttrs && attrsIdxs[k + 1] <= i)
            k++;
        during_call |= attrs[k].srcAccessOrder == CU_MEMCPY_SRC_ACCESS_ORDER_DURING_API_CALL;
        if (sizes[i] == 0)
            continue;
        hipError_t err = hipMemcpyAsync((void *)(uintptr_t)dsts[i],
                                        (const void *)(uintptr_t)srcs[i], sizes[i],
                                        hipMemcpyDefault, s);
        if (err != hipSuccess) {
            if (failIdx != NULL)
                *failIdx = i;
            return pyshim_cu_from_hip(err);
        }
    }
    if (during_call)
        return pyshim_cu_from_hip(hipStreamSynchronize(s));
    return CUDA_SUCCESS;
}

CUresult CUDAAPI cuMemcpyBatchAsync_v2(CUdeviceptr *dsts, CUdeviceptr *srcs, size_t *sizes,
                                       size_t count, CUmemcpyAttributes *attrs,
                                       size_t *attrsIdxs, size_t numAttrs, CUstream hStream)
{
    return batch(dsts, srcs, sizes, count, attrs, attrsIdxs, numAttrs, NULL, hStream, 0);
}

CUresult CUDAAPI cuMemcpyBatchAsync_v2_ptsz(CUdeviceptr *dsts, CUdeviceptr *srcs,
                                            size_t *sizes, size_t count,
                                            CUmemcpyAttributes *attrs, size_t *attrsIdxs,
                                            size_t numAttrs, CUstream hStream)
{
    return batch(dsts, srcs, sizes, count, attrs, attrsIdxs, numAttrs, NULL, hStream, 1);
}

CUresult CUDAAPI cuMemcpyBatchAsync(CUdeviceptr *dsts, CUdeviceptr *srcs, size_t *sizes,
                                    size_t count, CUmemcpyAttributes *attrs, size_t *attrsIdxs,
                                    size_t numAttrs, size_t *failIdx, CUstream hStream)
{
    return batch(dsts, srcs, sizes, count, attrs, attrsIdxs, numAttrs, failIdx, hStream, 0);
}

CUresult CUDAAPI cuMemcpyBatchAsync_ptsz(CUdeviceptr *dsts, CUdeviceptr *srcs, size_t *sizes,
                                         size_t count, CUmemcpyAttributes *attrs,
                                         size_t *attrsIdxs, size_t numAttrs, size_t *failIdx,
                                         CUstream hStream)
{
    return batch(dsts, srcs, sizes, count, attrs, attrsIdxs, numAttrs, failIdx, hStream, 1);
}
