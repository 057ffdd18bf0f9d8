/*
 * cudaMemcpyBatchAsync: a batch of pointer-to-pointer copies in stream order, each with the
 * attributes of the attrs[] entry whose range (attrsIdxs) covers it, checked as CUDA
 * documents them; each copy is this library's cudaMemcpyAsync (cudaMemcpyDefault: unified
 * addressing infers the direction). Copies whose source may be read only during the call
 * (cudaMemcpySrcAccessOrderDuringApiCall: a stack buffer) are complete when it returns.
 * CUDA 12.8/12.9 export the form with failIdx; CUDA 13 dropped it.
 */
#define __CUDA_API_VERSION_INTERNAL 1
#include <cuda_runtime_api.h>
#include <stdint.h>

#include "cuda_side.h"

#undef cudaMemcpyBatchAsync

static cudaError_t refuse(const char *why)
{
    pyshim_rt_log("cudaMemcpyBatchAsync: %s", why);
    return pyshim_rt_fail(cudaErrorInvalidValue);
}

static cudaError_t batch(void *const *dsts, const void *const *srcs, const size_t *sizes,
                         size_t count, struct cudaMemcpyAttributes *attrs, size_t *idxs,
                         size_t num, size_t *failIdx, cudaStream_t stream, int per_thread)
{
    PYSHIM_RT_STICKY_CHECK();
    if (failIdx != NULL)
        *failIdx = SIZE_MAX;   /* no one copy is to blame */
    if (count == 0 || dsts == NULL || srcs == NULL || sizes == NULL)
        return refuse("no copies, or NULL arrays");
    if (stream == cudaStreamLegacy || (stream == NULL && !per_thread))
        return refuse("the legacy NULL stream is not allowed");
    if (attrs == NULL || idxs == NULL || num == 0 || num > count)
        return refuse("attributes missing, or more attribute sets than copies");
    for (size_t k = 0; k < num; k++) {
        if ((k == 0 && idxs[0] != 0) || (k > 0 && idxs[k] <= idxs[k - 1]) || idxs[k] >= count)
            return refuse("attrsIdxs must start at 0, increase, and stay below count");
        enum cudaMemcpySrcAccessOrder o = attrs[k].srcAccessOrder;
        if (o != cudaMemcpySrcAccessOrderStream && o != cudaMemcpySrcAccessOrderDuringApiCall &&
            o != cudaMemcpySrcAccessOrderAny)
            return refuse("an attribute set without a valid srcAccessOrder");
        if (attrs[k].flags & ~(unsigned)cudaMemcpyFlagPreferOverlapWithCompute)
            return refuse("unknown copy flags");
    }
    if (stream == NULL)
        stream = cudaStreamPerThread;
    int during_call = 0;
    size_t k = 0;
    for (size_t i = 0; i < count; i++) {
        while (k + 1 < num && idxs[k + 1] <= i)
            k++;
        during_call |= attrs[k].srcAccessOrder == cudaMemcpySrcAccessOrderDuringApiCall;
        if (sizes[i] == 0)
            continue;
        cudaError_t err = cudaMemcpyAsync(dsts[i], srcs[i], sizes[i], cudaMemcpyDefault, stream);
        if (err != cudaSuccess) {
            if (failIdx != NULL)
                *failIdx = i;
            return err;
        }
    }
    return during_call ? cudaStreamSynchronize(stream) : cudaSuccess;
}

#if PYSHIM_CUDART_MAJOR >= 13
cudaError_t cudaMemcpyBatchAsync(void *const *dsts, const void *const *srcs,
                                 const size_t *sizes, size_t count,
                                 struct cudaMemcpyAttributes *attrs, size_t *attrsIdxs,
                                 size_t numAttrs, cudaStream_t stream)
{
    return batch(dsts, srcs, sizes, count, attrs, attrsIdxs, numAttrs, NULL, stream, 0);
}

cudaError_t cudaMemcpyBatchAsync_ptsz(void *const *dsts, const void *const *srcs,
                                      const size_t *sizes, size_t count,
                                      struct cudaMemcpyAttributes *attrs, size_t *attrsIdxs,
                                      size_t numAttrs, cudaStream_t stream)
{
    return batch(dsts, srcs, sizes, count, attrs, attrsIdxs, numAttrs, NULL, stream, 1);
}
#else
cudaError_t cudaMemcpyBatchAsync(void **dsts, void **srcs, size_t *sizes, size_t count,
                                 struct cudaMemcpyAttributes *attrs, size_t *attrsIdxs,
                                 size_t numAttrs, size_t *failIdx, cudaStream_t stream)
{
    return batch(dsts, (const void *const *)srcs, sizes, count, attrs, attrsIdxs, numAttrs,
                 failIdx, stream, 0);
}

cudaError_t cudaMemcpyBatchAsync_ptsz(void **dsts, void **srcs, size_t *sizes, size_t count,
                                      struct cudaMemcpyAttributes *attrs, size_t *attrsIdxs,
                                      size_t numAttrs, size_t *failIdx, cudaStream_t stream)
{
    return batch(dsts, (const void *const *)srcs, sizes, count, attrs, attrsIdxs, numAttrs,
                 failIdx, stream, 1);
}
#endif
