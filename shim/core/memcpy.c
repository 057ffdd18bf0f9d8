/*
 * Copies and fills. Each comes in up to three exported flavours: the legacy default
 * stream, `_ptds` (synchronous, per-thread default stream) and `_ptsz` (asynchronous,
 * per-thread default stream); they share one implementation with a `per_thread` flag.
 */
#include <string.h>

#include "internal.h"

#define DPTR(p) ((void *)(uintptr_t)(p))

static CUresult copy(void *dst, const void *src, size_t n, hipMemcpyKind kind, int per_thread)
{
    CUresult rc = pyshim_need_ctx();
    if (rc != CUDA_SUCCESS)
        return rc;
    if (n == 0)
        return CUDA_SUCCESS;
    if (per_thread)
        return pyshim_cu_from_hip(hipMemcpyWithStream(dst, src, n, kind, hipStreamPerThread));
    return pyshim_cu_from_hip(hipMemcpy(dst, src, n, kind));
}

static CUresult copy_async(void *dst, const void *src, size_t n, hipMemcpyKind kind,
                           CUstream stream, int per_thread)
{
    CUresult rc = pyshim_need_ctx();
    if (rc != CUDA_SUCCESS)
        return rc;
    if (n == 0)
        return CUDA_SUCCESS;
    return pyshim_cu_from_hip(
        hipMemcpyAsync(dst, src, n, kind, pyshim_hip_stream(stream, per_thread)));
}

/* name, legacy/ptds wrappers for synchronous copies */
#define SYNC_COPY(name, params, dst, src, n, kind)                 \
    CUresult CUDAAPI name params { return copy(dst, src, n, kind, 0); } \
    CUresult CUDAAPI name##_ptds params { return copy(dst, src, n, kind, 1); }
#define ASYNC_COPY(name, params, dst, src, n, kind)                                 \
    CUresult CUDAAPI name params { return copy_async(dst, src, n, kind, hStream, 0); } \
    CUresult CUDAAPI name##_ptsz params { return copy_async(dst, src, n, kind, hStream, 1); }

SYNC_COPY(cuMemcpyHtoD_v2, (CUdeviceptr dstDevice, const void *srcHost, size_t ByteCount),
          DPTR(dstDevice), srcHost, ByteCount, hipMemcpyHostToDevice)
SYNC_COPY(cuMemcpyDtoH_v2, (void *dstHost, CUdeviceptr srcDevice, size_t ByteCount), dstHost,
          DPTR(srcDevice), ByteCount, hipMemcpyDeviceToHost)
SYNC_COPY(cuMemcpyDtoD_v2, (CUdeviceptr dstDevice, CUdeviceptr srcDevice, size_t ByteCount),
          DPTR(dstDevice), DPTR(srcDevice), ByteCount, hipMemcpyDeviceToDevice)
SYNC_COPY(cuMemcpy, (CUdeviceptr dst, CUdeviceptr src, size_t ByteCount), DPTR(dst), DPTR(src),
          ByteCount, hipMemcpyDefault)
ASYNC_COPY(cuMemcpyHtoDAsync_v2,
           (CUdeviceptr dstDevice, const void *srcHost, size_t ByteCount, CUstream hStream),
           DPTR(dstDevice), srcHost, ByteCount, hipMemcpyHostToDevice)
ASYNC_COPY(cuMemcpyDtoHAsync_v2,
           (void *dstHost, CUdeviceptr srcDevice, size_t ByteCount, CUstream hStream), dstHost,
           DPTR(srcDevice), ByteCount, hipMemcpyDeviceToHost)
ASYNC_COPY(cuMemcpyDtoDAsync_v2,
           (CUdeviceptr dstDevice, CUdeviceptr srcDevice, size_t ByteCount, CUstream hStream),
           DPTR(dstDevice), DPTR(srcDevice), ByteCount, hipMemcpyDeviceToDevice)
ASYNC_COPY(cuMemcpyAsync, (CUdeviceptr dst, CUdeviceptr src, size_t ByteCount, CUstream hStream),
           DPTR(dst), DPTR(src), ByteCount, hipMemcpyDefault)

/* ---- 2D copies: CUDA_MEMCPY2D and hip_Memcpy2D have the same fields, but the memory
 * type enums differ (CU_MEMORYTYPE_ARRAY 3 / UNIFIED 4 vs hipMemoryTypeArray 10 /
 * hipMemoryTypeUnified 11) ---- */

static hipMemoryType memorytype_to_hip(CUmemorytype t)
{
    switch (t) {
    case CU_MEMORYTYPE_HOST: return hipMemoryTypeHost;
    case CU_MEMORYTYPE_DEVICE: return hipMemoryTypeDevice;
    case CU_MEMORYTYPE_ARRAY: return hipMemoryTypeArray;
    case CU_MEMORYTYPE_UNIFIED: return hipMemoryTypeUnified;
    default: return hipMemoryTypeUnregistered;
    }
}

static CUresult convert_2d(const CUDA_MEMCPY2D *c, hip_Memcpy2D *h)
{
    if (c == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    memset(h, 0, sizeof *h);
    h->srcArray = (hipArray_t)c->srcArray;
    h->dstArray = (hipArray_t)c->dstArray;
    h->srcXInBytes = c->srcXInBytes;
    h->srcY = c->srcY;
    h->srcMemoryType = memorytype_to_hip(c->srcMemoryType);
    h->srcHost = c->srcHost;
    h->srcDevice = DPTR(c->srcDevice);
    h->srcPitch = c->srcPitch;
    h->dstXInBytes = c->dstXInBytes;
    h->dstY = c->dstY;
    h->dstMemoryType = memorytype_to_hip(c->dstMemoryType);
    h->dstHost = c->dstHost;
    h->dstDevice = DPTR(c->dstDevice);
    h->dstPitch = c->dstPitch;
    h->WidthInBytes = c->WidthInBytes;
    h->Height = c->Height;
    return CUDA_SUCCESS;
}

static CUresult copy_2d(const CUDA_MEMCPY2D *c, CUstream stream, int async, int per_thread)
{
    hip_Memcpy2D h;
    CUresult rc = convert_2d(c, &h);
    if (rc == CUDA_SUCCESS)
        rc = pyshim_need_ctx();
    if (rc != CUDA_SUCCESS)
        return rc;
    if (!async && !per_thread)
        return pyshim_cu_from_hip(hipMemcpyParam2D(&h));
    hipError_t err = hipMemcpyParam2DAsync(&h, pyshim_hip_stream(stream, per_thread));
    if (err == hipSuccess && !async)
        err = hipStreamSynchronize(hipStreamPerThread);
    return pyshim_cu_from_hip(err);
}

CUresult CUDAAPI cuMemcpy2D_v2(const CUDA_MEMCPY2D *pCopy) { return copy_2d(pCopy, NULL, 0, 0); }
CUresult CUDAAPI cuMemcpy2D_v2_ptds(const CUDA_MEMCPY2D *pCopy) { return copy_2d(pCopy, NULL, 0, 1); }
CUresult CUDAAPI cuMemcpy2DUnaligned_v2(const CUDA_MEMCPY2D *pCopy) { return copy_2d(pCopy, NULL, 0, 0); }
CUresult CUDAAPI cuMemcpy2DUnaligned_v2_ptds(const CUDA_MEMCPY2D *pCopy) { return copy_2d(pCopy, NULL, 0, 1); }
CUresult CUDAAPI cuMemcpy2DAsync_v2(const CUDA_MEMCPY2D *pCopy, CUstream hStream) { return copy_2d(pCopy, hStream, 1, 0); }
CUresult CUDAAPI cuMemcpy2DAsync_v2_ptsz(const CUDA_MEMCPY2D *pCopy, CUstream hStream) { return copy_2d(pCopy, hStream, 1, 1); }

/* ---- fills ---- */

enum { FILL8 = 1, FILL16 = 2, FILL32 = 4 };

static CUresult fill_2d(CUdeviceptr dst, size_t pitch, unsigned int value, int width_bytes,
                        size_t width, size_t height, CUstream stream, int async, int per_thread)
{
    CUresult rc = pyshim_need_ctx();
    if (rc != CUDA_SUCCESS)
        return rc;
    if (height > 1 && pitch < width * (size_t)width_bytes)
        return CUDA_ERROR_INVALID_VALUE;
    hipStream_t s = pyshim_hip_stream(stream, per_thread);
    for (size_t row = 0; row < height; row++) {
        hipDeviceptr_t p = DPTR(dst + row * pitch);
        hipError_t err;
        switch (width_bytes) {
        case FILL8: err = hipMemsetD8Async(p, (unsigned char)value, width, s); break;
        case FILL16: err = hipMemsetD16Async(p, (unsigned short)value, width, s); break;
        default: err = hipMemsetD32Async(p, (int)value, width, s); break;
        }
        if (err != hipSuccess)
            return pyshim_cu_from_hip(err);
    }
    if (!async)
        return pyshim_cu_from_hip(hipStreamSynchronize(s));
    return CUDA_SUCCESS;
}

#define FILL(name, bytes, vtype)                                                              \
    CUresult CUDAAPI name(CUdeviceptr d, vtype v, size_t n)                                   \
    { return fill_2d(d, 0, v, bytes, n, 1, NULL, 0, 0); }                                     \
    CUresult CUDAAPI name##_ptds(CUdeviceptr d, vtype v, size_t n)                            \
    { return fill_2d(d, 0, v, bytes, n, 1, NULL, 0, 1); }
#define FILL_ASYNC(name, bytes, vtype)                                                        \
    CUresult CUDAAPI name(CUdeviceptr d, vtype v, size_t n, CUstream s)                       \
    { return fill_2d(d, 0, v, bytes, n, 1, s, 1, 0); }                                        \
    CUresult CUDAAPI name##_ptsz(CUdeviceptr d, vtype v, size_t n, CUstream s)                \
    { return fill_2d(d, 0, v, bytes, n, 1, s, 1, 1); }
#define FILL2D(name, bytes, vtype)                                                            \
    CUresult CUDAAPI name(CUdeviceptr d, size_t pitch, vtype v, size_t w, size_t h)           \
    { return fill_2d(d, pitch, v, bytes, w, h, NULL, 0, 0); }                                 \
    CUresult CUDAAPI name##_ptds(CUdeviceptr d, size_t pitch, vtype v, size_t w, size_t h)    \
    { return fill_2d(d, pitch, v, bytes, w, h, NULL, 0, 1); }
#define FILL2D_ASYNC(name, bytes, vtype)                                                      \
    CUresult CUDAAPI name(CUdeviceptr d, size_t pitch, vtype v, size_t w, size_t h, CUstream s) \
    { return fill_2d(d, pitch, v, bytes, w, h, s, 1, 0); }                                    \
    CUresult CUDAAPI name##_ptsz(CUdeviceptr d, size_t pitch, vtype v, size_t w, size_t h,    \
                                 CUstream s)                                                  \
    { return fill_2d(d, pitch, v, bytes, w, h, s, 1, 1); }

FILL(cuMemsetD8_v2, FILL8, unsigned char)
FILL(cuMemsetD16_v2, FILL16, unsigned short)
FILL(cuMemsetD32_v2, FILL32, unsigned int)
FILL_ASYNC(cuMemsetD8Async, FILL8, unsigned char)
FILL_ASYNC(cuMemsetD16Async, FILL16, unsigned short)
FILL_ASYNC(cuMemsetD32Async, FILL32, unsigned int)
FILL2D(cuMemsetD2D8_v2, FILL8, unsigned char)
FILL2D(cuMemsetD2D16_v2, FILL16, unsigned short)
FILL2D(cuMemsetD2D32_v2, FILL32, unsigned int)
FILL2D_ASYNC(cuMemsetD2D8Async, FILL8, unsigned char)
FILL2D_ASYNC(cuMemsetD2D16Async, FILL16, unsigned short)
FILL2D_ASYNC(cuMemsetD2D32Async, FILL32, unsigned int)
