/*
 * Copies and memsets, as stream commands. Every variant becomes one strided 3D copy or one
 * strided 3D fill. Synchronous variants run on the legacy NULL stream (or the per-thread
 * stream for _spt) and wait for their command. An asynchronous copy that touches memory
 * the device does not know (pageable host memory) also completes before returning, as
 * CUDA's staging of pageable transfers does, so the caller may reuse the buffer at once.
 */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "internal.h"

typedef struct copy_op {
    char *dst;
    const char *src;
    size_t dpitch, spitch;       /* bytes between rows */
    size_t dslice, sslice;       /* bytes between slices */
    size_t width, height, depth; /* width in bytes */
} copy_op;

typedef struct fill_op {
    char *dst;
    size_t pitch, slice;
    size_t width, height, depth; /* width in elements */
    uint32_t value;
    unsigned elem;               /* 1, 2 or 4 bytes */
    size_t given_pitch;          /* a memset node's pitch as given (read back by GetParams) */
} fill_op;

static void run_copy(cpu_cmd *c)
{
    const copy_op *op = (const copy_op *)c->payload;
    if (op->height == 1 && op->depth == 1) {
        memmove(op->dst, op->src, op->width);
        return;
    }
    for (size_t z = 0; z < op->depth; z++)
        for (size_t y = 0; y < op->height; y++)
            memmove(op->dst + z * op->dslice + y * op->dpitch,
                    op->src + z * op->sslice + y * op->spitch, op->width);
}

static void fill_row(char *dst, size_t n, uint32_t value, unsigned elem)
{
    if (elem == 1) {
        memset(dst, (int)(value & 0xff), n);
    } else if (elem == 2) {
        uint16_t v = (uint16_t)value;
        for (size_t i = 0; i < n; i++)
            memcpy(dst + 2 * i, &v, 2);
    } else {
        for (size_t i = 0; i < n; i++)
            memcpy(dst + 4 * i, &value, 4);
    }
}

static void run_fill(cpu_cmd *c)
{
    const fill_op *op = (const fill_op *)c->payload;
    for (size_t z = 0; z < op->depth; z++)
        for (size_t y = 0; y < op->height; y++)
            fill_row(op->dst + z * op->slice + y * op->pitch, op->width, op->value, op->elem);
}

/* Runs a copy through pageable host memory on the calling thread, after the work before it
 * on `s`, with a fault guard: host memory the process cannot access is an error code, as
 * NVIDIA's driver reports a pageable copy it cannot stage, never a crash. */
static hipError_t run_guarded(cpu_cmd *c, struct ihipStream_t *s)
{
    if (!cpu_stream_idle_for_inline(s)) {
        cpu_cmd *mark = cpu_cmd_new(NULL, 0);
        uint64_t seq;
        if (mark == NULL) {
            free(c);
            return hipErrorOutOfMemory;
        }
        hipError_t err = cpu_stream_enqueue(s, mark, &seq);
        if (err == hipSuccess)
            err = cpu_stream_wait_seq(s, seq);
        if (err != hipSuccess) {
            free(c);
            return err;
        }
    }
    cpu_guard g;
    cpu_guard_prepare();
    if (sigsetjmp(g.env, 0) == 0) {
        cpu_guard_push(&g);
        c->run(c);
        cpu_guard_pop();
    } else {
        cpu_log("copy: %s at address %p: host memory the process cannot access",
                cpu_fault_name(g.sig), g.addr);
        free(c);
        return hipErrorInvalidValue;
    }
    free(c);
    return cpu_sticky_error();
}

/* Enqueues a copy or fill on the stream named by `stream`; waits when `sync`. A `pageable`
 * one runs guarded on the calling thread (unless the stream is being captured). */
static hipError_t submit(cpu_cmd_fn run, const void *op, size_t op_size, hipStream_t stream,
                         bool spt, bool sync, bool pageable)
{
    struct ihipStream_t *s;
    hipError_t err = cpu_stream_resolve(stream, spt, &s);
    if (err != hipSuccess)
        return err;
    cpu_cmd *c = cpu_cmd_new(run, op_size);
    if (c == NULL)
        return hipErrorOutOfMemory;
    memcpy(c->payload, op, op_size);
    if (pageable && !cpu_stream_capturing(s))
        return run_guarded(c, s);
    if (sync && cpu_stream_idle_for_inline(s)) {
        run(c);
        free(c);
        return cpu_sticky_error();
    }
    uint64_t seq;
    err = cpu_stream_enqueue(s, c, &seq);
    if (err != hipSuccess || !sync)
        return err;
    return cpu_stream_wait_seq(s, seq);
}

static bool valid_kind(hipMemcpyKind kind)
{
    return (kind >= hipMemcpyHostToHost && kind <= hipMemcpyDefault) ||
           kind == hipMemcpyDeviceToDeviceNoCU;
}

/* Bytes from the first to the last one a strided access touches; false on overflow. */
static bool span_of(size_t width, size_t height, size_t depth, size_t pitch, size_t slice,
                    size_t *out)
{
    size_t a, b;
    if (__builtin_mul_overflow(depth - 1, slice, &a) ||
        __builtin_mul_overflow(height - 1, pitch, &b) || __builtin_add_overflow(a, b, &a) ||
        __builtin_add_overflow(a, width, &a))
        return false;
    *out = a;
    return true;
}

/* Which sides of a copy of this kind may be pageable host memory (cudaMemcpyDefault:
 * either, as NVIDIA's driver infers a side the device does not know to be host memory). */
static void host_sides(hipMemcpyKind kind, bool *src_host, bool *dst_host)
{
    *src_host = kind == hipMemcpyHostToHost || kind == hipMemcpyHostToDevice ||
                kind == hipMemcpyDefault;
    *dst_host = kind == hipMemcpyHostToHost || kind == hipMemcpyDeviceToHost ||
                kind == hipMemcpyDefault;
}

/* hipSuccess for a copy to do, or the error; *empty when there is nothing to copy,
 * *pageable when a side is host memory the device does not know. Every device side must
 * lie inside one live allocation. */
/* A device range: known to the map now, or (for work that runs later, after the graph
 * launch that allocates it) memory a graph allocation node holds. */
static hipError_t check_device_side(const void *p, size_t len, bool host_ok, bool *pageable,
                                    bool deferred)
{
    hipError_t err = cpu_mem_check_range(p, len, host_ok, pageable);
    if (err == hipErrorInvalidValue && deferred && cpu_graph_mem_held(p, len))
        err = hipSuccess;
    return err;
}

static hipError_t check_copy(const copy_op *op, hipMemcpyKind kind, bool *empty, bool *pageable,
                             bool deferred)
{
    *empty = false;
    *pageable = false;
    if (!valid_kind(kind))
        return hipErrorInvalidMemcpyDirection;
    if (op->width == 0 || op->height == 0 || op->depth == 0) {
        *empty = true;
        return hipSuccess;
    }
    if (op->dst == NULL || op->src == NULL)
        return hipErrorInvalidValue;
    if ((op->height > 1 || op->depth > 1) && (op->width > op->dpitch || op->width > op->spitch))
        return hipErrorInvalidPitchValue;
    size_t sspan, dspan;
    if (!span_of(op->width, op->height, op->depth, op->spitch, op->sslice, &sspan) ||
        !span_of(op->width, op->height, op->depth, op->dpitch, op->dslice, &dspan))
        return hipErrorInvalidValue;
    bool src_host, dst_host, sp, dp;
    host_sides(kind, &src_host, &dst_host);
    hipError_t err = check_device_side(op->src, sspan, src_host, &sp, deferred);
    if (err == hipSuccess)
        err = check_device_side(op->dst, dspan, dst_host, &dp, deferred);
    if (err != hipSuccess)
        return err;
    *pageable = sp || dp;
    return hipSuccess;
}

static hipError_t copy3d(const copy_op *op, hipMemcpyKind kind, hipStream_t stream, bool spt,
                         bool sync)
{
    bool empty, pageable;
    hipError_t err = check_copy(op, kind, &empty, &pageable, !sync);
    if (err != hipSuccess || empty)
        return err;
    return submit(run_copy, op, sizeof *op, stream, spt, sync || pageable, pageable);
}

static hipError_t copy1d(void *dst, const void *src, size_t n, hipMemcpyKind kind,
                         hipStream_t stream, bool spt, bool sync)
{
    copy_op op = {dst, src, n, n, n, n, n, 1, 1};
    return copy3d(&op, kind, stream, spt, sync);
}

static hipError_t copy2d(void *dst, size_t dpitch, const void *src, size_t spitch,
                         size_t width, size_t height, hipMemcpyKind kind, hipStream_t stream,
                         bool spt, bool sync)
{
    copy_op op = {dst, src, dpitch, spitch, 0, 0, width, height, 1};
    return copy3d(&op, kind, stream, spt, sync);
}

hipError_t hipMemcpy(void *dst, const void *src, size_t sizeBytes, hipMemcpyKind kind)
{
    return cpu_ret(copy1d(dst, src, sizeBytes, kind, NULL, false, true));
}

hipError_t hipMemcpy_spt(void *dst, const void *src, size_t sizeBytes, hipMemcpyKind kind)
{
    return cpu_ret(copy1d(dst, src, sizeBytes, kind, NULL, true, true));
}

hipError_t hipMemcpyWithStream(void *dst, const void *src, size_t sizeBytes, hipMemcpyKind kind,
                               hipStream_t stream)
{
    return cpu_ret(copy1d(dst, src, sizeBytes, kind, stream, false, true));
}

hipError_t hipMemcpyAsync(void *dst, const void *src, size_t sizeBytes, hipMemcpyKind kind,
                          hipStream_t stream)
{
    return cpu_ret(copy1d(dst, src, sizeBytes, kind, stream, false, false));
}

hipError_t hipMemcpyAsync_spt(void *dst, const void *src, size_t sizeBytes, hipMemcpyKind kind,
                              hipStream_t stream)
{
    return cpu_ret(copy1d(dst, src, sizeBytes, kind, stream, true, false));
}

hipError_t hipMemcpyHtoD(hipDeviceptr_t dst, const void *src, size_t sizeBytes)
{
    return cpu_ret(copy1d(dst, src, sizeBytes, hipMemcpyHostToDevice, NULL, false, true));
}

hipError_t hipMemcpyDtoH(void *dst, hipDeviceptr_t src, size_t sizeBytes)
{
    return cpu_ret(copy1d(dst, src, sizeBytes, hipMemcpyDeviceToHost, NULL, false, true));
}

hipError_t hipMemcpyDtoD(hipDeviceptr_t dst, hipDeviceptr_t src, size_t sizeBytes)
{
    return cpu_ret(copy1d(dst, src, sizeBytes, hipMemcpyDeviceToDevice, NULL, false, true));
}

hipError_t hipMemcpyHtoDAsync(hipDeviceptr_t dst, const void *src, size_t sizeBytes,
                              hipStream_t stream)
{
    return cpu_ret(copy1d(dst, src, sizeBytes, hipMemcpyHostToDevice, stream, false, false));
}

hipError_t hipMemcpyDtoHAsync(void *dst, hipDeviceptr_t src, size_t sizeBytes, hipStream_t stream)
{
    return cpu_ret(copy1d(dst, src, sizeBytes, hipMemcpyDeviceToHost, stream, false, false));
}

hipError_t hipMemcpyDtoDAsync(hipDeviceptr_t dst, hipDeviceptr_t src, size_t sizeBytes,
                              hipStream_t stream)
{
    return cpu_ret(copy1d(dst, src, sizeBytes, hipMemcpyDeviceToDevice, stream, false, false));
}

hipError_t hipMemcpyPeer(void *dst, int dstDeviceId, const void *src, int srcDeviceId,
                         size_t sizeBytes)
{
    if (cpu_check_device(dstDeviceId) || cpu_check_device(srcDeviceId))
        return cpu_ret(hipErrorInvalidDevice);
    return cpu_ret(copy1d(dst, src, sizeBytes, hipMemcpyDeviceToDevice, NULL, false, true));
}

hipError_t hipMemcpyPeerAsync(void *dst, int dstDeviceId, const void *src, int srcDevice,
                              size_t sizeBytes, hipStream_t stream)
{
    if (cpu_check_device(dstDeviceId) || cpu_check_device(srcDevice))
        return cpu_ret(hipErrorInvalidDevice);
    return cpu_ret(copy1d(dst, src, sizeBytes, hipMemcpyDeviceToDevice, stream, false, false));
}

hipError_t hipMemcpy2D(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width,
                       size_t height, hipMemcpyKind kind)
{
    return cpu_ret(copy2d(dst, dpitch, src, spitch, width, height, kind, NULL, false, true));
}

hipError_t hipMemcpy2D_spt(void *dst, size_t dpitch, const void *src, size_t spitch,
                           size_t width, size_t height, hipMemcpyKind kind)
{
    return cpu_ret(copy2d(dst, dpitch, src, spitch, width, height, kind, NULL, true, true));
}

hipError_t hipMemcpy2DAsync(void *dst, size_t dpitch, const void *src, size_t spitch,
                            size_t width, size_t height, hipMemcpyKind kind, hipStream_t stream)
{
    return cpu_ret(copy2d(dst, dpitch, src, spitch, width, height, kind, stream, false, false));
}

hipError_t hipMemcpy2DAsync_spt(void *dst, size_t dpitch, const void *src, size_t spitch,
                                size_t width, size_t height, hipMemcpyKind kind,
                                hipStream_t stream)
{
    return cpu_ret(copy2d(dst, dpitch, src, spitch, width, height, kind, stream, true, false));
}

/* The address one side of a hip_Memcpy2D names, by its memory type; an array end brings
 * its own pitch (and rows per slice, for 3D copies). */
static hipError_t param2d_side(hipMemoryType type, const void *host, const void *dev,
                               hipArray_t array, const void **out, size_t *pitch,
                               size_t *rows)
{
    switch (type) {
    case hipMemoryTypeHost: *out = host; return hipSuccess;
    case hipMemoryTypeDevice:
    case hipMemoryTypeUnified:
    case hipMemoryTypeManaged: *out = dev; return hipSuccess;
    case hipMemoryTypeArray: return cpu_array_side(array, out, pitch, rows, "hipMemcpyParam2D");
    default: return hipErrorInvalidValue;
    }
}

/* The copy kind a descriptor's two memory types amount to (unified: either, as Default). */
static hipMemcpyKind kind_of(hipMemoryType src, hipMemoryType dst)
{
    if (src == hipMemoryTypeUnified || dst == hipMemoryTypeUnified)
        return hipMemcpyDefault;
    bool sh = src == hipMemoryTypeHost, dh = dst == hipMemoryTypeHost;
    return sh ? (dh ? hipMemcpyHostToHost : hipMemcpyHostToDevice)
              : (dh ? hipMemcpyDeviceToHost : hipMemcpyDeviceToDevice);
}

static hipError_t memcpy_param2d(const hip_Memcpy2D *p, hipStream_t stream, bool sync)
{
    if (p == NULL)
        return hipErrorInvalidValue;
    const void *src, *dst;
    size_t spitch = p->srcPitch ? p->srcPitch : p->WidthInBytes;
    size_t dpitch = p->dstPitch ? p->dstPitch : p->WidthInBytes;
    size_t srows = 0, drows = 0;
    hipError_t err = param2d_side(p->srcMemoryType, p->srcHost, p->srcDevice, p->srcArray, &src,
                                  &spitch, &srows);
    if (err == hipSuccess)
        err = param2d_side(p->dstMemoryType, p->dstHost, p->dstDevice, p->dstArray, &dst,
                           &dpitch, &drows);
    if (err == hipSuccess && p->srcMemoryType == hipMemoryTypeArray)
        err = cpu_array_fits(p->srcArray, p->srcXInBytes, p->srcY, 0, p->WidthInBytes,
                             p->Height, 1, "hipMemcpyParam2D");
    if (err == hipSuccess && p->dstMemoryType == hipMemoryTypeArray)
        err = cpu_array_fits(p->dstArray, p->dstXInBytes, p->dstY, 0, p->WidthInBytes,
                             p->Height, 1, "hipMemcpyParam2D");
    if (err != hipSuccess)
        return err;
    if (src == NULL || dst == NULL)
        return p->WidthInBytes == 0 || p->Height == 0 ? hipSuccess : hipErrorInvalidValue;
    copy_op op = {(char *)dst + p->dstY * dpitch + p->dstXInBytes,
                  (const char *)src + p->srcY * spitch + p->srcXInBytes,
                  dpitch, spitch, 0, 0, p->WidthInBytes, p->Height, 1};
    return copy3d(&op, kind_of(p->srcMemoryType, p->dstMemoryType), stream, false, sync);
}

hipError_t hipDrvMemcpy2DUnaligned(const hip_Memcpy2D *pCopy)
{
    return cpu_ret(memcpy_param2d(pCopy, NULL, true));
}

hipError_t hipMemcpyParam2D(const hip_Memcpy2D *pCopy)
{
    return cpu_ret(memcpy_param2d(pCopy, NULL, true));
}

hipError_t hipMemcpyParam2DAsync(const hip_Memcpy2D *pCopy, hipStream_t stream)
{
    return cpu_ret(memcpy_param2d(pCopy, stream, false));
}

/* One end of a hipMemcpy3DParms: an array (positions in its elements) or a pitched
 * pointer (positions in bytes). */
static hipError_t side_3d(hipArray_t a, const hipPitchedPtr *pp, hipPos pos, hipExtent ext,
                          size_t elem, const char **at, size_t *pitch, size_t *slice)
{
    if (a != NULL) {
        const void *base;
        size_t rows;
        hipError_t err = cpu_array_side(a, &base, pitch, &rows, "hipMemcpy3D");
        if (err == hipSuccess)
            err = cpu_array_fits(a, pos.x * elem, pos.y, pos.z, ext.width * elem, ext.height,
                                 ext.depth, "hipMemcpy3D");
        if (err != hipSuccess)
            return err;
        *slice = *pitch * rows;
        *at = (const char *)base + pos.z * *slice + pos.y * *pitch + pos.x * elem;
        return hipSuccess;
    }
    *pitch = pp->pitch;
    *slice = pp->pitch * pp->ysize;
    *at = pp->ptr == NULL ? NULL
          : (const char *)pp->ptr + pos.z * *slice + pos.y * pp->pitch + pos.x;
    return hipSuccess;
}

/* The strided copy a hipMemcpy3DParms describes: with an array end, the extent's width is
 * in that array's elements, else in bytes. */
static hipError_t copy_op_3d(const struct hipMemcpy3DParms *p, copy_op *op_out)
{
    if (p == NULL)
        return hipErrorInvalidValue;
    hipArray_t arr = p->srcArray != NULL ? p->srcArray : p->dstArray;
    size_t elem = 1;
    if (arr != NULL) {
        if (!cpu_array_valid(arr)) {
            cpu_log("hipMemcpy3D: %p is not an array", (void *)arr);
            return hipErrorInvalidHandle;
        }
        elem = arr->elem_bytes;
    }
    const char *s, *d;
    size_t spitch, sslice, dpitch, dslice;
    hipError_t err = side_3d(p->srcArray, &p->srcPtr, p->srcPos, p->extent, elem, &s, &spitch,
                             &sslice);
    if (err == hipSuccess)
        err = side_3d(p->dstArray, &p->dstPtr, p->dstPos, p->extent, elem, &d, &dpitch,
                      &dslice);
    if (err != hipSuccess)
        return err;
    copy_op op = {(char *)d, s, dpitch, spitch, dslice, sslice,
                  p->extent.width * elem, p->extent.height, p->extent.depth};
    if (s == NULL || d == NULL)
        op.dst = NULL;   /* reported as invalid unless the extent is empty */
    *op_out = op;
    return hipSuccess;
}

static hipError_t memcpy3d(const struct hipMemcpy3DParms *p, hipStream_t stream, bool spt,
                           bool sync)
{
    copy_op op;
    hipError_t err = copy_op_3d(p, &op);
    return err != hipSuccess ? err : copy3d(&op, p->kind, stream, spt, sync);
}

/* ---- commands for graph nodes: the same checks, no stream ---- */

/* an empty copy node: a command of its own kind, so its node type stays "memcpy" */
static void run_copy_empty(cpu_cmd *c)
{
    (void)c;
}

static hipError_t copy_cmd(const copy_op *op, hipMemcpyKind kind, cpu_cmd **out)
{
    bool empty, pageable;
    hipError_t err = check_copy(op, kind, &empty, &pageable, true);
    if (err != hipSuccess)
        return err;
    cpu_cmd *c = cpu_cmd_new(empty ? run_copy_empty : run_copy, sizeof *op);
    if (c == NULL)
        return hipErrorOutOfMemory;
    memcpy(c->payload, op, sizeof *op);
    *out = c;
    return hipSuccess;
}

hipError_t cpu_copy3d_cmd(const struct hipMemcpy3DParms *p, cpu_cmd **out)
{
    copy_op op;
    hipError_t err = copy_op_3d(p, &op);
    return err != hipSuccess ? err : copy_cmd(&op, p->kind, out);
}

hipError_t cpu_copy1d_cmd(void *dst, const void *src, size_t n, hipMemcpyKind kind,
                          cpu_cmd **out)
{
    copy_op op = {dst, src, n, n, n, n, n, 1, 1};
    return copy_cmd(&op, kind, out);
}

hipError_t hipMemcpy3D(const struct hipMemcpy3DParms *p)
{
    return cpu_ret(memcpy3d(p, NULL, false, true));
}

hipError_t hipMemcpy3D_spt(const struct hipMemcpy3DParms *p)
{
    return cpu_ret(memcpy3d(p, NULL, true, true));
}

hipError_t hipMemcpy3DAsync(const struct hipMemcpy3DParms *p, hipStream_t stream)
{
    return cpu_ret(memcpy3d(p, stream, false, false));
}

hipError_t hipMemcpy3DAsync_spt(const hipMemcpy3DParms *p, hipStream_t stream)
{
    return cpu_ret(memcpy3d(p, stream, true, false));
}

/* The strided copy cuMemcpy3D's descriptor describes: each side by memory type, with its
 * own pitch and height. A missing side is an error unless the extent is empty (then *empty:
 * there is nothing to copy). */
static hipError_t drv_copy_op(const HIP_MEMCPY3D *p, copy_op *op_out, bool *empty)
{
    if (p == NULL)
        return hipErrorInvalidValue;
    const void *src, *dst;
    size_t spitch = p->srcPitch ? p->srcPitch : p->WidthInBytes;
    size_t dpitch = p->dstPitch ? p->dstPitch : p->WidthInBytes;
    size_t srows = p->srcHeight ? p->srcHeight : p->Height;
    size_t drows = p->dstHeight ? p->dstHeight : p->Height;
    hipError_t err = param2d_side(p->srcMemoryType, p->srcHost, p->srcDevice, p->srcArray, &src,
                                  &spitch, &srows);
    if (err == hipSuccess)
        err = param2d_side(p->dstMemoryType, p->dstHost, p->dstDevice, p->dstArray, &dst,
                           &dpitch, &drows);
    if (err == hipSuccess && p->srcMemoryType == hipMemoryTypeArray)
        err = cpu_array_fits(p->srcArray, p->srcXInBytes, p->srcY, p->srcZ, p->WidthInBytes,
                             p->Height, p->Depth, "hipDrvMemcpy3D");
    if (err == hipSuccess && p->dstMemoryType == hipMemoryTypeArray)
        err = cpu_array_fits(p->dstArray, p->dstXInBytes, p->dstY, p->dstZ, p->WidthInBytes,
                             p->Height, p->Depth, "hipDrvMemcpy3D");
    if (err != hipSuccess)
        return err;
    size_t sslice = spitch * srows;
    size_t dslice = dpitch * drows;
    *empty = false;
    if (src == NULL || dst == NULL) {
        *empty = p->WidthInBytes == 0 || p->Height == 0 || p->Depth == 0;
        return *empty ? hipSuccess : hipErrorInvalidValue;
    }
    copy_op op = {(char *)dst + p->dstZ * dslice + p->dstY * dpitch + p->dstXInBytes,
                  (const char *)src + p->srcZ * sslice + p->srcY * spitch + p->srcXInBytes,
                  dpitch, spitch, dslice, sslice, p->WidthInBytes, p->Height, p->Depth};
    *op_out = op;
    return hipSuccess;
}

static hipError_t drv_memcpy3d(const HIP_MEMCPY3D *p, hipStream_t stream, bool sync)
{
    copy_op op;
    bool empty;
    hipError_t err = drv_copy_op(p, &op, &empty);
    if (err != hipSuccess || empty)
        return err;
    return copy3d(&op, kind_of(p->srcMemoryType, p->dstMemoryType), stream, false, sync);
}

/* A driver-API copy node's command: the copy, then the descriptor it was made from
 * (cuGraphMemcpyNodeGetParams reads it back). Its own run functions tell it apart. */
typedef struct drv_copy_payload {
    copy_op op;
    HIP_MEMCPY3D desc;
} drv_copy_payload;

static void run_drv_copy(cpu_cmd *c)
{
    run_copy(c); /* reads the copy_op at the payload's start */
}

static void run_drv_copy_empty(cpu_cmd *c)
{
    (void)c;
}

/* A graph node's copy from cuMemcpy3D's descriptor (cuGraphAddMemcpyNode). */
hipError_t cpu_drv_copy3d_cmd(const HIP_MEMCPY3D *p, cpu_cmd **out)
{
    drv_copy_payload pl;
    memset(&pl, 0, sizeof pl);
    bool empty;
    hipError_t err = drv_copy_op(p, &pl.op, &empty);
    if (err != hipSuccess)
        return err;
    if (!empty) {
        bool none, pageable;
        err = check_copy(&pl.op, kind_of(p->srcMemoryType, p->dstMemoryType), &none, &pageable,
                         true);
        if (err != hipSuccess)
            return err;
        empty = none;
    }
    pl.desc = *p;
    cpu_cmd *c = cpu_cmd_new(empty ? run_drv_copy_empty : run_drv_copy, sizeof pl);
    if (c == NULL)
        return hipErrorOutOfMemory;
    memcpy(c->payload, &pl, sizeof pl);
    *out = c;
    return hipSuccess;
}

bool cpu_cmd_drv_copy_desc(const cpu_cmd *c, HIP_MEMCPY3D *out)
{
    if (c->run != run_drv_copy && c->run != run_drv_copy_empty)
        return false;
    if (out != NULL)
        memcpy(out, c->payload + offsetof(drv_copy_payload, desc), sizeof *out);
    return true;
}

hipError_t hipDrvMemcpy3D(const HIP_MEMCPY3D *pCopy)
{
    return cpu_ret(drv_memcpy3d(pCopy, NULL, true));
}

hipError_t hipDrvMemcpy3DAsync(const HIP_MEMCPY3D *pCopy, hipStream_t stream)
{
    return cpu_ret(drv_memcpy3d(pCopy, stream, false));
}

/* ---- memsets ---- */

/* A memset's target is device memory: inside one live allocation the device knows (a
 * pageable host pointer is hipErrorInvalidValue, as cudaMemset answers). */
static hipError_t check_fill(const fill_op *op, bool deferred)
{
    if (op->dst == NULL)
        return hipErrorInvalidValue;
    size_t row;
    if (__builtin_mul_overflow(op->width, (size_t)op->elem, &row))
        return hipErrorInvalidValue;
    if ((op->height > 1 || op->depth > 1) && row > op->pitch)
        return hipErrorInvalidPitchValue;
    size_t span;
    bool pageable;
    if (!span_of(row, op->height, op->depth, op->pitch, op->slice, &span))
        return hipErrorInvalidValue;
    return check_device_side(op->dst, span, false, &pageable, deferred);
}

static hipError_t fill(void *dst, size_t pitch, size_t slice, size_t width, size_t height,
                       size_t depth, uint32_t value, unsigned elem, hipStream_t stream,
                       bool spt, bool sync)
{
    if (width == 0 || height == 0 || depth == 0)
        return hipSuccess;
    fill_op op = {dst, pitch, slice, width, height, depth, value, elem, 0};
    hipError_t err = check_fill(&op, !sync);
    if (err != hipSuccess)
        return err;
    return submit(run_fill, &op, sizeof op, stream, spt, sync, false);
}

/* an empty memset node: a command of its own kind, so it can be given new parameters */
static void run_fill_empty(cpu_cmd *c)
{
    (void)c;
}

hipError_t cpu_memset_cmd(const hipMemsetParams *p, cpu_cmd **out)
{
    if (p == NULL || (p->elementSize != 1 && p->elementSize != 2 && p->elementSize != 4))
        return hipErrorInvalidValue;
    size_t pitch = p->height > 1 ? p->pitch : p->width * p->elementSize;
    fill_op op = {p->dst, pitch, 0, p->width, p->height, 1, p->value, p->elementSize, p->pitch};
    bool empty = p->width == 0 || p->height == 0;
    hipError_t err = empty ? hipSuccess : check_fill(&op, true);
    if (err != hipSuccess)
        return err;
    cpu_cmd *c = cpu_cmd_new(empty ? run_fill_empty : run_fill, sizeof op);
    if (c == NULL)
        return hipErrorOutOfMemory;
    memcpy(c->payload, &op, sizeof op);
    *out = c;
    return hipSuccess;
}

bool cpu_cmd_is_copy(const cpu_cmd *c)
{
    return c->run == run_copy || c->run == run_copy_empty || cpu_cmd_drv_copy_desc(c, NULL);
}

bool cpu_cmd_is_fill(const cpu_cmd *c)
{
    return c->run == run_fill || c->run == run_fill_empty;
}

void cpu_memset_params(const cpu_cmd *c, hipMemsetParams *out)
{
    fill_op op;
    memcpy(&op, c->payload, sizeof op);
    memset(out, 0, sizeof *out);
    out->dst = op.dst;
    out->pitch = op.given_pitch;
    out->value = op.value;
    out->elementSize = op.elem;
    out->width = op.width;
    out->height = op.height;
}

#define FILL1D(dst, n, v, elem, stream, spt, sync) \
    fill(dst, (n) * (elem), 0, n, 1, 1, v, elem, stream, spt, sync)

hipError_t hipMemset(void *dst, int value, size_t sizeBytes)
{
    return cpu_ret(FILL1D(dst, sizeBytes, (uint32_t)value, 1, NULL, false, true));
}

hipError_t hipMemset_spt(void *dst, int value, size_t sizeBytes)
{
    return cpu_ret(FILL1D(dst, sizeBytes, (uint32_t)value, 1, NULL, true, true));
}

hipError_t hipMemsetAsync(void *dst, int value, size_t sizeBytes, hipStream_t stream)
{
    return cpu_ret(FILL1D(dst, sizeBytes, (uint32_t)value, 1, stream, false, false));
}

hipError_t hipMemsetAsync_spt(void *dst, int value, size_t sizeBytes, hipStream_t stream)
{
    return cpu_ret(FILL1D(dst, sizeBytes, (uint32_t)value, 1, stream, true, false));
}

hipError_t hipMemsetD8(hipDeviceptr_t dest, unsigned char value, size_t count)
{
    return cpu_ret(FILL1D(dest, count, value, 1, NULL, false, true));
}

hipError_t hipMemsetD8Async(hipDeviceptr_t dest, unsigned char value, size_t count,
                            hipStream_t stream)
{
    return cpu_ret(FILL1D(dest, count, value, 1, stream, false, false));
}

hipError_t hipMemsetD16(hipDeviceptr_t dest, unsigned short value, size_t count)
{
    return cpu_ret(FILL1D(dest, count, value, 2, NULL, false, true));
}

hipError_t hipMemsetD16Async(hipDeviceptr_t dest, unsigned short value, size_t count,
                             hipStream_t stream)
{
    return cpu_ret(FILL1D(dest, count, value, 2, stream, false, false));
}

hipError_t hipMemsetD32(hipDeviceptr_t dest, int value, size_t count)
{
    return cpu_ret(FILL1D(dest, count, (uint32_t)value, 4, NULL, false, true));
}

hipError_t hipMemsetD32Async(hipDeviceptr_t dst, int value, size_t count, hipStream_t stream)
{
    return cpu_ret(FILL1D(dst, count, (uint32_t)value, 4, stream, false, false));
}

hipError_t hipMemset2D(void *dst, size_t pitch, int value, size_t width, size_t height)
{
    return cpu_ret(fill(dst, pitch, 0, width, height, 1, (uint32_t)value, 1, NULL, false, true));
}

hipError_t hipMemset2D_spt(void *dst, size_t pitch, int value, size_t width, size_t height)
{
    return cpu_ret(fill(dst, pitch, 0, width, height, 1, (uint32_t)value, 1, NULL, true, true));
}

hipError_t hipMemset2DAsync(void *dst, size_t pitch, int value, size_t width, size_t height,
                            hipStream_t stream)
{
    return cpu_ret(fill(dst, pitch, 0, width, height, 1, (uint32_t)value, 1, stream, false,
                        false));
}

hipError_t hipMemset2DAsync_spt(void *dst, size_t pitch, int value, size_t width, size_t height,
                                hipStream_t stream)
{
    return cpu_ret(fill(dst, pitch, 0, width, height, 1, (uint32_t)value, 1, stream, true,
                        false));
}

static hipError_t fill3d(hipPitchedPtr p, int value, hipExtent e, hipStream_t stream, bool spt,
                         bool sync)
{
    return fill(p.ptr, p.pitch, p.pitch * p.ysize, e.width, e.height, e.depth, (uint32_t)value, 1,
                stream, spt, sync);
}

hipError_t hipMemset3D(hipPitchedPtr pitchedDevPtr, int value, hipExtent extent)
{
    return cpu_ret(fill3d(pitchedDevPtr, value, extent, NULL, false, true));
}

hipError_t hipMemset3D_spt(hipPitchedPtr pitchedDevPtr, int value, hipExtent extent)
{
    return cpu_ret(fill3d(pitchedDevPtr, value, extent, NULL, true, true));
}

hipError_t hipMemset3DAsync(hipPitchedPtr pitchedDevPtr, int value, hipExtent extent,
                            hipStream_t stream)
{
    return cpu_ret(fill3d(pitchedDevPtr, value, extent, stream, false, false));
}

hipError_t hipMemset3DAsync_spt(hipPitchedPtr pitchedDevPtr, int value, hipExtent extent,
                                hipStream_t stream)
{
    return cpu_ret(fill3d(pitchedDevPtr, value, extent, stream, true, false));
}

hipError_t hipMemsetD2D8(hipDeviceptr_t dst, size_t dstPitch, unsigned char value, size_t width,
                         size_t height)
{
    return cpu_ret(fill(dst, dstPitch, 0, width, height, 1, value, 1, NULL, false, true));
}

hipError_t hipMemsetD2D8Async(hipDeviceptr_t dst, size_t dstPitch, unsigned char value,
                              size_t width, size_t height, hipStream_t stream)
{
    return cpu_ret(fill(dst, dstPitch, 0, width, height, 1, value, 1, stream, false, false));
}

hipError_t hipMemsetD2D16(hipDeviceptr_t dst, size_t dstPitch, unsigned short value,
                          size_t width, size_t height)
{
    return cpu_ret(fill(dst, dstPitch, 0, width, height, 1, value, 2, NULL, false, true));
}

hipError_t hipMemsetD2D16Async(hipDeviceptr_t dst, size_t dstPitch, unsigned short value,
                               size_t width, size_t height, hipStream_t stream)
{
    return cpu_ret(fill(dst, dstPitch, 0, width, height, 1, value, 2, stream, false, false));
}

hipError_t hipMemsetD2D32(hipDeviceptr_t dst, size_t dstPitch, unsigned int value, size_t width,
                          size_t height)
{
    return cpu_ret(fill(dst, dstPitch, 0, width, height, 1, value, 4, NULL, false, true));
}

hipError_t hipMemsetD2D32Async(hipDeviceptr_t dst, size_t dstPitch, unsigned int value,
                               size_t width, size_t height, hipStream_t stream)
{
    return cpu_ret(fill(dst, dstPitch, 0, width, height, 1, value, 4, stream, false, false));
}
