/*
 * cuMemPoolCreate: CUmemPoolProps has a `usage` field where hipMemPoolProps has reserved
 * bytes, so the properties are converted field by field (the enums share their values).
 * The other pool calls forward as generated thunks.
 */
#include <string.h>

#include "internal.h"

CUresult CUDAAPI cuMemPoolCreate(CUmemoryPool *pool, const CUmemPoolProps *poolProps)
{
    if (pool == NULL || poolProps == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    CUresult rc = pyshim_need_ctx();
    if (rc != CUDA_SUCCESS)
        return rc;
    if (poolProps->usage != 0) {
        /* CU_MEM_POOL_CREATE_USAGE_HW_DECOMPRESS: no decompression engine here */
        pyshim_unsupported("cuMemPoolCreate with a usage flag (hardware decompression)");
        return CUDA_ERROR_NOT_SUPPORTED;
    }
    hipMemPoolProps h;
    memset(&h, 0, sizeof h);
    h.allocType = (hipMemAllocationType)poolProps->allocType;
    h.handleTypes = (hipMemAllocationHandleType)poolProps->handleTypes;
    h.location.type = (hipMemLocationType)poolProps->location.type;
    h.location.id = poolProps->location.id;
    h.win32SecurityAttributes = poolProps->win32SecurityAttributes;
    h.maxSize = poolProps->maxSize;
    hipMemPool_t p = NULL;
    hipError_t err = hipMemPoolCreate(&p, &h);
    if (err == hipSuccess)
        *pool = (CUmemoryPool)p;
    return pyshim_cu_from_hip(err);
}

/* HIP writes its hipMemAccessFlags (the same values) through an enum of its own type. A
 * pool names its device, so no context need be current (as for cuMemPoolSetAccess):
 * NVIDIA's static cudart calls this before it has made one current. */
CUresult CUDAAPI cuMemPoolGetAccess(CUmemAccess_flags *flags, CUmemoryPool memPool,
                                    CUmemLocation *location)
{
    if (flags == NULL || memPool == NULL || location == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    CUresult rc = pyshim_check_init();
    if (rc != CUDA_SUCCESS)
        return rc;
    hipMemLocation loc;
    memset(&loc, 0, sizeof loc);
    loc.type = (hipMemLocationType)location->type;
    loc.id = location->id;
    hipMemAccessFlags h = hipMemAccessFlagsProtNone;
    rc = pyshim_cu_from_hip(hipMemPoolGetAccess(&h, (hipMemPool_t)memPool, &loc));
    if (rc == CUDA_SUCCESS)
        *flags = (CUmemAccess_flags)h;
    return rc;
}
