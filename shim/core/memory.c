/* Allocation and pointer queries. CUdeviceptr is an integer; HIP uses void pointers. */
#include <string.h>

#include "internal.h"

#define DPTR(p) ((void *)(uintptr_t)(p))

CUresult CUDAAPI cuMemAlloc_v2(CUdeviceptr *dptr, size_t bytesize)
{
    if (dptr == NULL || bytesize == 0)
        return CUDA_ERROR_INVALID_VALUE;
    CUresult rc = pyshim_need_ctx();
    if (rc != CUDA_SUCCESS)
        return rc;
    void *p = NULL;
    hipError_t err = hipMalloc(&p, bytesize);
    if (err != hipSuccess)
        return pyshim_cu_from_hip(err);
    *dptr = (CUdeviceptr)(uintptr_t)p;
    return CUDA_SUCCESS;
}

CUresult CUDAAPI cuMemFree_v2(CUdeviceptr dptr)
{
    CUresult rc = pyshim_need_ctx();
    if (rc != CUDA_SUCCESS)
        return rc;
    return pyshim_cu_from_hip(hipFree(DPTR(dptr)));
}

CUresult CUDAAPI cuMemAllocPitch_v2(CUdeviceptr *dptr, size_t *pPitch, size_t WidthInBytes,
                                    size_t Height, unsigned int ElementSizeBytes)
{
    if (dptr == NULL || pPitch == NULL || WidthInBytes == 0 || Height == 0)
        return CUDA_ERROR_INVALID_VALUE;
    if (ElementSizeBytes != 4 && ElementSizeBytes != 8 && ElementSizeBytes != 16)
        return CUDA_ERROR_INVALID_VALUE;
    CUresult rc = pyshim_need_ctx();
    if (rc != CUDA_SUCCESS)
        return rc;
    void *p = NULL;
    hipError_t err = hipMallocPitch(&p, pPitch, WidthInBytes, Height);
    if (err != hipSuccess)
        return pyshim_cu_from_hip(err);
    *dptr = (CUdeviceptr)(uintptr_t)p;
    return CUDA_SUCCESS;
}

CUresult CUDAAPI cuMemAllocManaged(CUdeviceptr *dptr, size_t bytesize, unsigned int flags)
{
    if (dptr == NULL || bytesize == 0)
        return CUDA_ERROR_INVALID_VALUE;
    CUresult rc = pyshim_need_ctx();
    if (rc != CUDA_SUCCESS)
        return rc;
    /* CU_MEM_ATTACH_GLOBAL/HOST equal hipMemAttachGlobal/Host */
    void *p = NULL;
    hipError_t err = hipMallocManaged(&p, bytesize, flags);
    if (err != hipSuccess)
        return pyshim_cu_from_hip(err);
    *dptr = (CUdeviceptr)(uintptr_t)p;
    return CUDA_SUCCESS;
}

CUresult CUDAAPI cuMemHostAlloc(void **pp, size_t bytesize, unsigned int Flags)
{
    if (pp == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    CUresult rc = pyshim_need_ctx();
    if (rc != CUDA_SUCCESS)
        return rc;
    /* CU_MEMHOSTALLOC_PORTABLE/DEVICEMAP/WRITECOMBINED equal hipHostMalloc's 1/2/4 */
    return pyshim_cu_from_hip(hipHostMalloc(pp, bytesize, Flags));
}

CUresult CUDAAPI cuMemAllocHost_v2(void **pp, size_t bytesize)
{
    return cuMemHostAlloc(pp, bytesize, 0);
}

CUresult CUDAAPI cuMemFreeHost(void *p)
{
    CUresult rc = pyshim_need_ctx();
    if (rc != CUDA_SUCCESS)
        return rc;
    return pyshim_cu_from_hip(hipHostFree(p));
}

CUresult CUDAAPI cuMemHostRegister_v2(void *p, size_t bytesize, unsigned int Flags)
{
    CUresult rc = pyshim_need_ctx();
    if (rc != CUDA_SUCCESS)
        return rc;
    return pyshim_cu_from_hip(hipHostRegister(p, bytesize, Flags));
}

CUresult CUDAAPI cuMemHostUnregister(void *p)
{
    CUresult rc = pyshim_need_ctx();
    if (rc != CUDA_SUCCESS)
        return rc;
    return pyshim_cu_from_hip(hipHostUnregister(p));
}

CUresult CUDAAPI cuMemHostGetDevicePointer_v2(CUdeviceptr *pdptr, void *p, unsigned int Flags)
{
    if (pdptr == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    CUresult rc = pyshim_need_ctx();
    if (rc != CUDA_SUCCESS)
        return rc;
    void *d = NULL;
    hipError_t err = hipHostGetDevicePointer(&d, p, Flags);
    if (err != hipSuccess)
        return pyshim_cu_from_hip(err);
    *pdptr = (CUdeviceptr)(uintptr_t)d;
    return CUDA_SUCCESS;
}

CUresult CUDAAPI cuMemHostGetFlags(unsigned int *pFlags, void *p)
{
    CUresult rc = pyshim_need_ctx();
    if (rc != CUDA_SUCCESS)
        return rc;
    return pyshim_cu_from_hip(hipHostGetFlags(pFlags, p));
}

CUresult CUDAAPI cuMemGetAddressRange_v2(CUdeviceptr *pbase, size_t *psize, CUdeviceptr dptr)
{
    CUresult rc = pyshim_need_ctx();
    if (rc != CUDA_SUCCESS)
        return rc;
    hipDeviceptr_t base = NULL;
    size_t size = 0;
    hipError_t err = hipMemGetAddressRange(&base, &size, DPTR(dptr));
    if (err != hipSuccess)
        return pyshim_cu_from_hip(err);
    if (pbase != NULL)
        *pbase = (CUdeviceptr)(uintptr_t)base;
    if (psize != NULL)
        *psize = size;
    return CUDA_SUCCESS;
}

/* ---- pointer attributes ---- */

/* NVIDIA's driver answers CU_MEMORYTYPE_DEVICE for managed memory (IS_MANAGED tells it
 * apart) and never CU_MEMORYTYPE_UNIFIED; numba-cuda's managed arrays depend on that. */
static CUmemorytype memorytype_from_hip(enum hipMemoryType t)
{
    switch (t) {
    case hipMemoryTypeHost: return CU_MEMORYTYPE_HOST;
    case hipMemoryTypeDevice: return CU_MEMORYTYPE_DEVICE;
    case hipMemoryTypeManaged: return CU_MEMORYTYPE_DEVICE;
    case hipMemoryTypeArray: return CU_MEMORYTYPE_ARRAY;
    case hipMemoryTypeUnified: return CU_MEMORYTYPE_DEVICE;
    default: return (CUmemorytype)0;
    }
}

/* One attribute asked of the backend; memory it does not know answers zero (NULL). */
static CUresult backend_attribute(void *data, size_t size, hipPointer_attribute attribute,
                                  int known, CUdeviceptr ptr)
{
    memset(data, 0, size);
    if (!known)
        return CUDA_SUCCESS;
    return pyshim_cu_from_hip(hipPointerGetAttribute(data, attribute, DPTR(ptr)));
}

static CUresult pointer_attribute(void *data, CUpointer_attribute attribute,
                                  const hipPointerAttribute_t *a, int known, CUdeviceptr ptr)
{
    switch (attribute) {
    case CU_POINTER_ATTRIBUTE_CONTEXT:
        *(CUcontext *)data = known ? pyshim_primary_ctx(a->device) : NULL;
        return CUDA_SUCCESS;
    case CU_POINTER_ATTRIBUTE_MEMORY_TYPE:
        *(unsigned int *)data = known ? (unsigned int)memorytype_from_hip(a->type) : 0;
        return CUDA_SUCCESS;
    case CU_POINTER_ATTRIBUTE_DEVICE_POINTER:
        *(CUdeviceptr *)data = known ? (CUdeviceptr)(uintptr_t)a->devicePointer : 0;
        return CUDA_SUCCESS;
    case CU_POINTER_ATTRIBUTE_HOST_POINTER:
        *(void **)data = known ? a->hostPointer : NULL;
        return CUDA_SUCCESS;
    case CU_POINTER_ATTRIBUTE_IS_MANAGED:
        *(int *)data = known ? a->isManaged : 0;
        return CUDA_SUCCESS;
    case CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL:
        *(int *)data = known ? a->device : -2;
        return CUDA_SUCCESS;
    case CU_POINTER_ATTRIBUTE_SYNC_MEMOPS:
        if (!known) {
            *(int *)data = 1;
            return CUDA_SUCCESS;
        }
        return backend_attribute(data, sizeof(int), HIP_POINTER_ATTRIBUTE_SYNC_MEMOPS, known,
                                 ptr);
    case CU_POINTER_ATTRIBUTE_BUFFER_ID:
        *(unsigned long long *)data = known ? (unsigned long long)ptr : 0;
        return CUDA_SUCCESS;
    case CU_POINTER_ATTRIBUTE_MAPPED:
        *(int *)data = known;
        return CUDA_SUCCESS;
    /* what only the backend knows about the allocation (IPC, RDMA, access, its pool) */
    case CU_POINTER_ATTRIBUTE_IS_LEGACY_CUDA_IPC_CAPABLE:
        return backend_attribute(data, sizeof(int), HIP_POINTER_ATTRIBUTE_IS_LEGACY_HIP_IPC_CAPABLE,
                                 known, ptr);
    case CU_POINTER_ATTRIBUTE_IS_GPU_DIRECT_RDMA_CAPABLE:
        return backend_attribute(data, sizeof(int),
                                 HIP_POINTER_ATTRIBUTE_IS_GPU_DIRECT_RDMA_CAPABLE, known, ptr);
    case CU_POINTER_ATTRIBUTE_ACCESS_FLAGS:
        return backend_attribute(data, sizeof(int), HIP_POINTER_ATTRIBUTE_ACCESS_FLAGS, known,
                                 ptr);
    case CU_POINTER_ATTRIBUTE_MEMPOOL_HANDLE:
        return backend_attribute(data, sizeof(void *), HIP_POINTER_ATTRIBUTE_MEMPOOL_HANDLE,
                                 known, ptr);
    case CU_POINTER_ATTRIBUTE_ALLOWED_HANDLE_TYPES: {
        /* a bitmask in an unsigned long long (HIP answers an int) */
        int mask = 0;
        CUresult rc = backend_attribute(&mask, sizeof mask,
                                        HIP_POINTER_ATTRIBUTE_ALLOWED_HANDLE_TYPES, known, ptr);
        if (rc == CUDA_SUCCESS)
            *(unsigned long long *)data = (unsigned int)mask;
        return rc;
    }
    case CU_POINTER_ATTRIBUTE_RANGE_START_ADDR:
    case CU_POINTER_ATTRIBUTE_RANGE_SIZE: {
        hipDeviceptr_t base = NULL;
        size_t size = 0;
        if (!known || hipMemGetAddressRange(&base, &size, DPTR(ptr)) != hipSuccess) {
            base = NULL;
            size = 0;
        }
        if (attribute == CU_POINTER_ATTRIBUTE_RANGE_SIZE)
            *(size_t *)data = size;
        else
            *(CUdeviceptr *)data = (CUdeviceptr)(uintptr_t)base;
        return CUDA_SUCCESS;
    }
    default:
        return CUDA_ERROR_INVALID_VALUE;
    }
}

static int query(CUdeviceptr ptr, hipPointerAttribute_t *a)
{
    return hipPointerGetAttributes(a, DPTR(ptr)) == hipSuccess &&
           a->type != hipMemoryTypeUnregistered;
}

CUresult CUDAAPI cuPointerGetAttribute(void *data, CUpointer_attribute attribute,
                                       CUdeviceptr ptr)
{
    if (data == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    CUresult rc = pyshim_check_init();
    if (rc != CUDA_SUCCESS)
        return rc;
    hipPointerAttribute_t a = {0};
    /* NVIDIA documents CUDA_ERROR_INVALID_VALUE for a pointer no context allocated, mapped
     * or registered, whatever the attribute (cuPointerGetAttributes, plural, answers such
     * a pointer with defaults instead) */
    if (!query(ptr, &a))
        return CUDA_ERROR_INVALID_VALUE;
    return pointer_attribute(data, attribute, &a, 1, ptr);
}

CUresult CUDAAPI cuPointerGetAttributes(unsigned int numAttributes,
                                        CUpointer_attribute *attributes, void **data,
                                        CUdeviceptr ptr)
{
    if (attributes == NULL || data == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    CUresult rc = pyshim_check_init();
    if (rc != CUDA_SUCCESS)
        return rc;
    hipPointerAttribute_t a = {0};
    int known = query(ptr, &a);
    for (unsigned int i = 0; i < numAttributes; i++) {
        if (data[i] == NULL)
            continue;
        /* an attribute we cannot answer is left as the "not applicable" answer */
        pointer_attribute(data[i], attributes[i], &a, known, ptr);
    }
    return CUDA_SUCCESS;
}

/* ---- stream-ordered allocation: the per-thread-stream variants ---- */

CUresult CUDAAPI cuMemAllocAsync_ptsz(CUdeviceptr *dptr, size_t bytesize, CUstream hStream)
{
    if (dptr == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    CUresult rc = pyshim_need_ctx();
    if (rc != CUDA_SUCCESS)
        return rc;
    void *p = NULL;
    hipError_t err = hipMallocAsync(&p, bytesize, pyshim_hip_stream(hStream, 1));
    if (err == hipSuccess)
        *dptr = (CUdeviceptr)(uintptr_t)p;
    return pyshim_cu_from_hip(err);
}

CUresult CUDAAPI cuMemFreeAsync_ptsz(CUdeviceptr dptr, CUstream hStream)
{
    CUresult rc = pyshim_need_ctx();
    if (rc != CUDA_SUCCESS)
        return rc;
    return pyshim_cu_from_hip(hipFreeAsync(DPTR(dptr), pyshim_hip_stream(hStream, 1)));
}

/* ---- peer copies: CUDA names contexts, HIP devices ---- */

static CUresult peer_copy(CUdeviceptr dst, CUcontext dst_ctx, CUdeviceptr src, CUcontext src_ctx,
                          size_t n, CUstream stream, int async, int pt)
{
    CUresult rc = pyshim_need_ctx();
    if (rc != CUDA_SUCCESS)
        return rc;
    if (!pyshim_ctx_valid(dst_ctx) || !pyshim_ctx_valid(src_ctx))
        return CUDA_ERROR_INVALID_CONTEXT;
    hipError_t err;
    if (async || pt)
        err = hipMemcpyPeerAsync(DPTR(dst), dst_ctx->device, DPTR(src), src_ctx->device, n,
                                 pyshim_hip_stream(stream, pt));
    else
        err = hipMemcpyPeer(DPTR(dst), dst_ctx->device, DPTR(src), src_ctx->device, n);
    if (err == hipSuccess && !async && pt)
        err = hipStreamSynchronize(hipStreamPerThread);
    return pyshim_cu_from_hip(err);
}

CUresult CUDAAPI cuMemcpyPeer(CUdeviceptr dstDevice, CUcontext dstContext, CUdeviceptr srcDevice,
                              CUcontext srcContext, size_t ByteCount)
{
    return peer_copy(dstDevice, dstContext, srcDevice, srcContext, ByteCount, NULL, 0, 0);
}

CUresult CUDAAPI cuMemcpyPeer_ptds(CUdeviceptr dstDevice, CUcontext dstContext,
                                   CUdeviceptr srcDevice, CUcontext srcContext, size_t ByteCount)
{
    return peer_copy(dstDevice, dstContext, srcDevice, srcContext, ByteCount, NULL, 0, 1);
}

CUresult CUDAAPI cuMemcpyPeerAsync(CUdeviceptr dstDevice, CUcontext dstContext,
                                   CUdeviceptr srcDevice, CUcontext srcContext, size_t ByteCount,
                                   CUstream hStream)
{
    return peer_copy(dstDevice, dstContext, srcDevice, srcContext, ByteCount, hStream, 1, 0);
}

CUresult CUDAAPI cuMemcpyPeerAsync_ptsz(CUdeviceptr dstDevice, CUcontext dstContext,
                                        CUdeviceptr srcDevice, CUcontext srcContext,
                                        size_t ByteCount, CUstream hStream)
{
    return peer_copy(dstDevice, dstContext, srcDevice, srcContext, ByteCount, hStream, 1, 1);
}
