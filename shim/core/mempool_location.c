/*
 * CUDA 13's location-addressed pool calls: cuMemGetDefaultMemPool / cuMemGetMemPool /
 * cuMemSetMemPool name a CUmemLocation and an allocation type where HIP's calls take a
 * device ordinal. A device's pinned pools are HIP's device pools; pools of host memory or
 * of managed memory do not exist in HIP: refused by name.
 */
#include "internal.h"

/* The device a (location, type) pair names, or an error (logged when it is a real
 * location HIP has no pool for). */
static CUresult pool_device(const CUmemLocation *loc, CUmemAllocationType type, const char *fn,
                            int *device)
{
    if (loc == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    if (type != CU_MEM_ALLOCATION_TYPE_PINNED && type != CU_MEM_ALLOCATION_TYPE_MANAGED)
        return CUDA_ERROR_INVALID_VALUE;
    switch (loc->type) {
    case CU_MEM_LOCATION_TYPE_DEVICE: break;
    case CU_MEM_LOCATION_TYPE_HOST:
    case CU_MEM_LOCATION_TYPE_HOST_NUMA:
        pyshim_log("%s: pools of host memory have no HIP counterpart", fn);
        return CUDA_ERROR_NOT_SUPPORTED;
    case CU_MEM_LOCATION_TYPE_NONE:
        if (type == CU_MEM_ALLOCATION_TYPE_MANAGED)
            break;
        return CUDA_ERROR_INVALID_VALUE;
    default: return CUDA_ERROR_INVALID_VALUE;
    }
    if (type == CU_MEM_ALLOCATION_TYPE_MANAGED) {
        pyshim_log("%s: pools of managed memory have no HIP counterpart", fn);
        return CUDA_ERROR_NOT_SUPPORTED;
    }
    int count = 0;
    CUresult rc = cuDeviceGetCount(&count);
    if (rc != CUDA_SUCCESS)
        return rc;
    if (loc->id < 0 || loc->id >= count)
        return CUDA_ERROR_INVALID_DEVICE;
    *device = loc->id;
    return CUDA_SUCCESS;
}

CUresult CUDAAPI cuMemGetDefaultMemPool(CUmemoryPool *pool_out, CUmemLocation *location,
                                        CUmemAllocationType type)
{
    int dev = 0;
    if (pool_out == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    CUresult rc = pool_device(location, type, "cuMemGetDefaultMemPool", &dev);
    if (rc != CUDA_SUCCESS)
        return rc;
    return pyshim_cu_from_hip(hipDeviceGetDefaultMemPool((hipMemPool_t *)pool_out, dev));
}

CUresult CUDAAPI cuMemGetMemPool(CUmemoryPool *pool, CUmemLocation *location,
                                 CUmemAllocationType type)
{
    int dev = 0;
    if (pool == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    CUresult rc = pool_device(location, type, "cuMemGetMemPool", &dev);
    if (rc != CUDA_SUCCESS)
        return rc;
    return pyshim_cu_from_hip(hipDeviceGetMemPool((hipMemPool_t *)pool, dev));
}

CUresult CUDAAPI cuMemSetMemPool(CUmemLocation *location, CUmemAllocationType type,
                                 CUmemoryPool pool)
{
    int dev = 0;
    if (pool == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    CUresult rc = pool_device(location, type, "cuMemSetMemPool", &dev);
    if (rc != CUDA_SUCCESS)
        return rc;
    return pyshim_cu_from_hip(hipDeviceSetMemPool(dev, (hipMemPool_t)pool));
}
