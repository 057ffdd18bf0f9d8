/*
 * 3D copies (cudaMemcpy3D of pitched memory). CUDA_MEMCPY3D has a reserved pointer after
 * srcArray that HIP_MEMCPY3D lacks, and the memory-type enums differ, so the descriptor
 * is converted field by field (a CUarray is the backend's hipArray_t).
 */
#include <string.h>

#include "internal.h"

#define DPTR(p) ((void *)(uintptr_t)(p))

static hipMemoryType memtype(CUmemorytype t)
{
    switch (t) {
    case CU_MEMORYTYPE_HOST: return hipMemoryTypeHost;
    case CU_MEMORYTYPE_DEVICE: return hipMemoryTypeDevice;
    case CU_MEMORYTYPE_UNIFIED: return hipMemoryTypeUnified;
    case CU_MEMORYTYPE_ARRAY: return hipMemoryTypeArray;
    default: return hipMemoryTypeUnregistered;
    }
}

CUresult pyshim_memcpy3d_to_hip(const CUDA_MEMCPY3D *c, HIP_MEMCPY3D *h)
{
    if (c == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    memset(h, 0, sizeof *h);
    h->srcArray = (hipArray_t)c->srcArray;
    h->dstArray = (hipArray_t)c->dstArray;
    h->srcXInBytes = c->srcXInBytes;
    h->srcY = c->srcY;
    h->srcZ = c->srcZ;
    h->srcLOD = c->srcLOD;
    h->srcMemoryType = memtype(c->srcMemoryType);
    h->srcHost = c->srcHost;
    h->srcDevice = DPTR(c->srcDevice);
    h->srcPitch = c->srcPitch;
    h->srcHeight = c->srcHeight;
    h->dstXInBytes = c->dstXInBytes;
    h->dstY = c->dstY;
    h->dstZ = c->dstZ;
    h->dstLOD = c->dstLOD;
    h->dstMemoryType = memtype(c->dstMemoryType);
    h->dstHost = c->dstHost;
    h->dstDevice = DPTR(c->dstDevice);
    h->dstPitch = c->dstPitch;
    h->dstHeight = c->dstHeight;
    h->WidthInBytes = c->WidthInBytes;
    h->Height = c->Height;
    h->Depth = c->Depth;
    return CUDA_SUCCESS;
}

static CUresult copy_3d(const CUDA_MEMCPY3D *c, CUstream stream, int async, int pt)
{
    HIP_MEMCPY3D h;
    CUresult rc = pyshim_memcpy3d_to_hip(c, &h);
    if (rc == CUDA_SUCCESS)
        rc = pyshim_need_ctx();
    if (rc != CUDA_SUCCESS)
        return rc;
    if (!async && !pt)
        return pyshim_cu_from_hip(hipDrvMemcpy3D(&h));
    hipError_t err = hipDrvMemcpy3DAsync(&h, pyshim_hip_stream(stream, pt));
    if (err == hipSuccess && !async)
        err = hipStreamSynchronize(hipStreamPerThread);
    return pyshim_cu_from_hip(err);
}

CUresult CUDAAPI cuMemcpy3D_v2(const CUDA_MEMCPY3D *pCopy) { return copy_3d(pCopy, NULL, 0, 0); }
CUresult CUDAAPI cuMemcpy3D_v2_ptds(const CUDA_MEMCPY3D *pCopy) { return copy_3d(pCopy, NULL, 0, 1); }
CUresult CUDAAPI cuMemcpy3DAsync_v2(const CUDA_MEMCPY3D *pCopy, CUstream hStream)
{
    return copy_3d(pCopy, hStream, 1, 0);
}
CUresult CUDAAPI cuMemcpy3DAsync_v2_ptsz(const CUDA_MEMCPY3D *pCopy, CUstream hStream)
{
    return copy_3d(pCopy, hStream, 1, 1);
}

/* A peer copy names a context per side; with one device every valid context is its own,
 * so the copy is the plain 3D copy of the same fields once both contexts check out. */
static CUresult copy_3d_peer(const CUDA_MEMCPY3D_PEER *p, CUstream stream, int async, int pt)
{
    if (p == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    CUcontext src = NULL, dst = NULL;
    if (p->srcContext == NULL || p->dstContext == NULL) {
        pyshim_log("cuMemcpy3DPeer: a NULL source or destination context");
        return CUDA_ERROR_INVALID_CONTEXT;
    }
    CUresult rc = pyshim_ctx_resolve(p->srcContext, &src);
    if (rc == CUDA_SUCCESS)
        rc = pyshim_ctx_resolve(p->dstContext, &dst);
    if (rc != CUDA_SUCCESS)
        return rc;
    CUDA_MEMCPY3D c;
    memset(&c, 0, sizeof c);
    c.srcXInBytes = p->srcXInBytes;
    c.srcY = p->srcY;
    c.srcZ = p->srcZ;
    c.srcLOD = p->srcLOD;
    c.srcMemoryType = p->srcMemoryType;
    c.srcHost = p->srcHost;
    c.srcDevice = p->srcDevice;
    c.srcArray = p->srcArray;
    c.srcPitch = p->srcPitch;
    c.srcHeight = p->srcHeight;
    c.dstXInBytes = p->dstXInBytes;
    c.dstY = p->dstY;
    c.dstZ = p->dstZ;
    c.dstLOD = p->dstLOD;
    c.dstMemoryType = p->dstMemoryType;
    c.dstHost = p->dstHost;
    c.dstDevice = p->dstDevice;
    c.dstArray = p->dstArray;
    c.dstPitch = p->dstPitch;
    c.dstHeight = p->dstHeight;
    c.WidthInBytes = p->WidthInBytes;
    c.Height = p->Height;
    c.Depth = p->Depth;
    return copy_3d(&c, stream, async, pt);
}

CUresult CUDAAPI cuMemcpy3DPeer(const CUDA_MEMCPY3D_PEER *pCopy)
{
    return copy_3d_peer(pCopy, NULL, 0, 0);
}
CUresult CUDAAPI cuMemcpy3DPeer_ptds(const CUDA_MEMCPY3D_PEER *pCopy)
{
    return copy_3d_peer(pCopy, NULL, 0, 1);
}
CUresult CUDAAPI cuMemcpy3DPeerAsync(const CUDA_MEMCPY3D_PEER *pCopy, CUstream hStream)
{
    return copy_3d_peer(pCopy, hStream, 1, 0);
}
CUresult CUDAAPI cuMemcpy3DPeerAsync_ptsz(const CUDA_MEMCPY3D_PEER *pCopy, CUstream hStream)
{
    return copy_3d_peer(pCopy, hStream, 1, 1);
}
