/*
 * CUDA 13's batched managed-memory operations and the 3D copies (also in CUDA 12.8's ABI),
 * each op this library's own single call in stream order (the batch runs in stream order as a whole; CUDA leaves the
 * order within it open, so issuing the ops in list order is one of the allowed orders):
 *  - cudaMemPrefetchBatchAsync: cudaMemPrefetchAsync per range, to the prefetchLocs[k]
 *    whose index range covers it;
 *  - cudaMemDiscardBatchAsync: the ranges' contents become indeterminate. Nothing has to be
 *    freed or moved for that on an in-order backend: the ranges are checked (managed memory,
 *    within its allocation) and left as they are, which is one of the values an
 *    indeterminate read may give;
 *  - cudaMemDiscardAndPrefetchBatchAsync: both, as CUDA defines it;
 *  - cudaMemcpy3DBatchAsync: each cudaMemcpy3DBatchOp as a cudaMemcpy3DParms for
 *    cudaMemcpy3DAsync (pointer operands as pitched pointers, array operands at their
 *    element offset).
 */
#define __CUDA_API_VERSION_INTERNAL 1
#include <cuda_runtime_api.h>
#include <stdint.h>
#include <string.h>

#include "cuda_side.h"

#undef cudaMemPrefetchBatchAsync
#undef cudaMemDiscardBatchAsync
#undef cudaMemDiscardAndPrefetchBatchAsync
#undef cudaMemcpy3DBatchAsync
#undef cudaMemPrefetchAsync
#undef cudaMemcpy3DAsync

static cudaError_t refuse(const char *fn, const char *why)
{
    pyshim_rt_log("%s: %s", fn, why);
    return pyshim_rt_fail(cudaErrorInvalidValue);
}

/* The stream a batch runs on; legacy NULL is refused (returns 0). */
static int batch_stream(cudaStream_t *s, int per_thread)
{
    if (*s == cudaStreamLegacy || (*s == NULL && !per_thread))
        return 0;
    if (*s == NULL)
        *s = cudaStreamPerThread;
    return 1;
}

#if PYSHIM_CUDART_MAJOR >= 13 /* the managed-memory batches are CUDA 13's */

/* A range CUDA lets a batch discard or prefetch: managed memory, start and last byte in
 * one managed allocation. */
static int managed_range(const void *p, size_t n)
{
    struct cudaPointerAttributes a, b;
    if (p == NULL || n == 0 || cudaPointerGetAttributes(&a, p) != cudaSuccess ||
        a.type != cudaMemoryTypeManaged)
        return 0;
    const char *last = (const char *)p + (n - 1);
    if (cudaPointerGetAttributes(&b, last) != cudaSuccess || b.type != cudaMemoryTypeManaged)
        return 0;
    return 1;
}

static cudaError_t check_ranges(const char *fn, void **dptrs, size_t *sizes, size_t count)
{
    if (count == 0 || dptrs == NULL || sizes == NULL)
        return refuse(fn, "no ranges, or NULL arrays");
    for (size_t i = 0; i < count; i++) {
        if (!managed_range(dptrs[i], sizes[i])) {
            pyshim_rt_log("%s: range %zu (%p, %zu bytes) is not managed memory", fn, i,
                          dptrs[i], sizes[i]);
            cudaGetLastError(); /* the pointer query's own error is not the batch's */
            return pyshim_rt_fail(cudaErrorInvalidValue);
        }
    }
    return cudaSuccess;
}

static cudaError_t check_locations(const char *fn, size_t count, struct cudaMemLocation *locs,
                                   size_t *idxs, size_t num)
{
    if (locs == NULL || idxs == NULL || num == 0 || num > count)
        return refuse(fn, "locations missing, or more locations than ranges");
    for (size_t k = 0; k < num; k++)
        if ((k == 0 && idxs[0] != 0) || (k > 0 && idxs[k] <= idxs[k - 1]) || idxs[k] >= count)
            return refuse(fn, "prefetchLocIdxs must start at 0, increase, and stay below count");
    return cudaSuccess;
}

static cudaError_t prefetch_all(void **dptrs, size_t *sizes, size_t count,
                                struct cudaMemLocation *locs, size_t *idxs, size_t num,
                                cudaStream_t s)
{
    size_t k = 0;
    for (size_t i = 0; i < count; i++) {
        while (k + 1 < num && idxs[k + 1] <= i)
            k++;
        cudaError_t err = cudaMemPrefetchAsync(dptrs[i], sizes[i], locs[k], 0, s);
        if (err != cudaSuccess)
            return err;
    }
    return cudaSuccess;
}

static cudaError_t prefetch_batch(const char *fn, int discard, void **dptrs, size_t *sizes,
                                  size_t count, struct cudaMemLocation *locs, size_t *idxs,
                                  size_t num, unsigned long long flags, cudaStream_t s,
                                  int per_thread)
{
    PYSHIM_RT_STICKY_CHECK();
    if (flags != 0)
        return refuse(fn, "flags must be 0");
    if (!batch_stream(&s, per_thread))
        return refuse(fn, "the legacy NULL stream is not allowed");
    cudaError_t err = check_ranges(fn, dptrs, sizes, count);
    if (err == cudaSuccess)
        err = check_locations(fn, count, locs, idxs, num);
    (void)discard; /* discarded contents are indeterminate: keeping them is allowed */
    return err != cudaSuccess ? err : prefetch_all(dptrs, sizes, count, locs, idxs, num, s);
}

static cudaError_t discard_batch(void **dptrs, size_t *sizes, size_t count,
                                 unsigned long long flags, cudaStream_t s, int per_thread)
{
    PYSHIM_RT_STICKY_CHECK();
    const char *fn = "cudaMemDiscardBatchAsync";
    if (flags != 0)
        return refuse(fn, "flags must be 0");
    if (!batch_stream(&s, per_thread))
        return refuse(fn, "the legacy NULL stream is not allowed");
    return check_ranges(fn, dptrs, sizes, count);
}

cudaError_t cudaMemPrefetchBatchAsync(void **dptrs, size_t *sizes, size_t count,
                                      struct cudaMemLocation *prefetchLocs,
                                      size_t *prefetchLocIdxs, size_t numPrefetchLocs,
                                      unsigned long long flags, cudaStream_t stream)
{
    return prefetch_batch("cudaMemPrefetchBatchAsync", 0, dptrs, sizes, count, prefetchLocs,
                          prefetchLocIdxs, numPrefetchLocs, flags, stream, 0);
}

cudaError_t cudaMemPrefetchBatchAsync_ptsz(void **dptrs, size_t *sizes, size_t count,
                                           struct cudaMemLocation *prefetchLocs,
                                           size_t *prefetchLocIdxs, size_t numPrefetchLocs,
                                           unsigned long long flags, cudaStream_t stream)
{
    return prefetch_batch("cudaMemPrefetchBatchAsync", 0, dptrs, sizes, count, prefetchLocs,
                          prefetchLocIdxs, numPrefetchLocs, flags, stream, 1);
}

cudaError_t cudaMemDiscardAndPrefetchBatchAsync(void **dptrs, size_t *sizes, size_t count,
                                                struct cudaMemLocation *prefetchLocs,
                                                size_t *prefetchLocIdxs,
                                                size_t numPrefetchLocs,
                                                unsigned long long flags, cudaStream_t stream)
{
    return prefetch_batch("cudaMemDiscardAndPrefetchBatchAsync", 1, dptrs, sizes, count,
                          prefetchLocs, prefetchLocIdxs, numPrefetchLocs, flags, stream, 0);
}

cudaError_t cudaMemDiscardAndPrefetchBatchAsync_ptsz(void **dptrs, size_t *sizes, size_t count,
                                                     struct cudaMemLocation *prefetchLocs,
                                                     size_t *prefetchLocIdxs,
                                                     size_t numPrefetchLocs,
                                                     unsigned long long flags,
                                                     cudaStream_t stream)
{
    return prefetch_batch("cudaMemDiscardAndPrefetchBatchAsync", 1, dptrs, sizes, count,
                          prefetchLocs, prefetchLocIdxs, numPrefetchLocs, flags, stream, 1);
}

cudaError_t cudaMemDiscardBatchAsync(void **dptrs, size_t *sizes, size_t count,
                                     unsigned long long flags, cudaStream_t stream)
{
    return discard_batch(dptrs, sizes, count, flags, stream, 0);
}

cudaError_t cudaMemDiscardBatchAsync_ptsz(void **dptrs, size_t *sizes, size_t count,
                                          unsigned long long flags, cudaStream_t stream)
{
    return discard_batch(dptrs, sizes, count, flags, stream, 1);
}

#endif

/* ---- 3D copies (CUDA 12.8's ABI reports the failing op in failIdx, 13's does not) ---- */

/* Bytes per element of an array (its channel descriptor), 0 if it is not one. */
static size_t element_bytes(cudaArray_const_t a)
{
    struct cudaChannelFormatDesc d;
    struct cudaExtent e;
    unsigned int f;
    if (cudaArrayGetInfo(&d, &e, &f, (cudaArray_t)a) != cudaSuccess)
        return 0;
    return (size_t)(d.x + d.y + d.z + d.w) / 8;
}

/* One operand into the parameters of cudaMemcpy3DAsync; elem is the copy's element size. */
static int operand(const struct cudaMemcpy3DOperand *o, const struct cudaExtent *ext,
                   size_t elem, int is_src, struct cudaMemcpy3DParms *p)
{
    if (o->type == cudaMemcpyOperandTypePointer) {
        size_t row = o->op.ptr.rowLength, layer = o->op.ptr.layerHeight;
        if ((row != 0 && row < ext->width) || (layer != 0 && layer < ext->height) ||
            o->op.ptr.ptr == NULL)
            return 0;
        size_t pitch = (row ? row : ext->width) * elem;
        struct cudaPitchedPtr pp = {.ptr = o->op.ptr.ptr, .pitch = pitch, .xsize = pitch,
                                    .ysize = layer ? layer : ext->height};
        if (is_src)
            p->srcPtr = pp;
        else
            p->dstPtr = pp;
        return 1;
    }
    if (o->type == cudaMemcpyOperandTypeArray) {
        if (o->op.array.array == NULL)
            return 0;
        /* cudaMemcpy3DParms gives array positions in elements, as the operand does */
        struct cudaPos pos = {.x = o->op.array.offset.x, .y = o->op.array.offset.y,
                              .z = o->op.array.offset.z};
        if (is_src) {
            p->srcArray = o->op.array.array;
            p->srcPos = pos;
        } else {
            p->dstArray = o->op.array.array;
            p->dstPos = pos;
        }
        return 1;
    }
    return 0;
}

static cudaError_t copy_3d_batch(size_t n, struct cudaMemcpy3DBatchOp *ops, size_t *fail,
                                 unsigned long long flags, cudaStream_t s, int per_thread)
{
    size_t unused;
    if (fail == NULL)
        fail = &unused;
    *fail = SIZE_MAX; /* an error of the batch as a whole */
    PYSHIM_RT_STICKY_CHECK();
    const char *fn = "cudaMemcpy3DBatchAsync";
    if (flags != 0)
        return refuse(fn, "flags must be 0");
    if (n == 0 || ops == NULL)
        return refuse(fn, "no copies");
    if (!batch_stream(&s, per_thread))
        return refuse(fn, "the legacy NULL stream is not allowed");
    int during_call = 0;
    for (size_t i = 0; i < n; i++) {
        const struct cudaMemcpy3DBatchOp *op = &ops[i];
        *fail = i;
        enum cudaMemcpySrcAccessOrder o = op->srcAccessOrder;
        if (o != cudaMemcpySrcAccessOrderStream && o != cudaMemcpySrcAccessOrderDuringApiCall &&
            o != cudaMemcpySrcAccessOrderAny)
            return refuse(fn, "a copy without a valid srcAccessOrder");
        if (op->flags & ~(unsigned)cudaMemcpyFlagPreferOverlapWithCompute)
            return refuse(fn, "unknown copy flags");
        if (op->extent.width == 0 || op->extent.height == 0 || op->extent.depth == 0)
            return refuse(fn, "a zero extent");
    }
    for (size_t i = 0; i < n; i++) {
        const struct cudaMemcpy3DBatchOp *op = &ops[i];
        *fail = i;
        int sa = op->src.type == cudaMemcpyOperandTypeArray;
        int da = op->dst.type == cudaMemcpyOperandTypeArray;
        size_t elem = 1; /* pointer to pointer: bytes */
        if (sa || da) {
            size_t se = sa ? element_bytes(op->src.op.array.array) : 0;
            size_t de = da ? element_bytes(op->dst.op.array.array) : 0;
            if ((sa && se == 0) || (da && de == 0))
                return refuse(fn, "an array operand that is not an array");
            if (sa && da && se != de)
                return refuse(fn, "array to array copies need one element size");
            elem = sa ? se : de;
        }
        struct cudaMemcpy3DParms p;
        memset(&p, 0, sizeof p);
        if (!operand(&op->src, &op->extent, elem, 1, &p) ||
            !operand(&op->dst, &op->extent, elem, 0, &p))
            return refuse(fn, "an operand of unknown type, NULL, or rows/layers below the extent");
        /* cudaMemcpy3DParms counts the extent in the array's elements when an array takes
         * part, in bytes otherwise: the batch op's own convention */
        p.extent = op->extent;
        p.kind = cudaMemcpyDefault;
        cudaError_t err = cudaMemcpy3DAsync(&p, s);
        if (err != cudaSuccess)
            return err;
        during_call |= op->srcAccessOrder == cudaMemcpySrcAccessOrderDuringApiCall;
    }
    *fail = SIZE_MAX;
    return during_call ? cudaStreamSynchronize(s) : cudaSuccess;
}

#if PYSHIM_CUDART_MAJOR >= 13
cudaError_t cudaMemcpy3DBatchAsync(size_t numOps, struct cudaMemcpy3DBatchOp *opList,
                                   unsigned long long flags, cudaStream_t stream)
{
    return copy_3d_batch(numOps, opList, NULL, flags, stream, 0);
}

cudaError_t cudaMemcpy3DBatchAsync_ptsz(size_t numOps, struct cudaMemcpy3DBatchOp *opList,
                                        unsigned long long flags, cudaStream_t stream)
{
    return copy_3d_batch(numOps, opList, NULL, flags, stream, 1);
}
#else
cudaError_t cudaMemcpy3DBatchAsync(size_t numOps, struct cudaMemcpy3DBatchOp *opList,
                                   size_t *failIdx, unsigned long long flags,
                                   cudaStream_t stream)
{
    return copy_3d_batch(numOps, opList, failIdx, flags, stream, 0);
}

cudaError_t cudaMemcpy3DBatchAsync_ptsz(size_t numOps, struct cudaMemcpy3DBatchOp *opList,
                                        size_t *failIdx, unsigned long long flags,
                                        cudaStream_t stream)
{
    return copy_3d_batch(numOps, opList, failIdx, flags, stream, 1);
}
#endif
