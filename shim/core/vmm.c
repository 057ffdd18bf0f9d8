/*
 * The virtual memory management calls whose arguments need more than a cast: the
 * allocation properties. CUmemAllocationProp and hipMemAllocationProp agree field by field
 * (HIP names requestedHandleTypes in a union and lacks allocFlags.reserved), so the fields
 * are copied by name; the enums agree in value (checked below), so they pass as they are.
 * The rest of the API (reserve, map, access, export) is thunked from the tables.
 */
#include <string.h>

#include "internal.h"

_Static_assert(CU_MEM_ALLOCATION_TYPE_PINNED == (int)hipMemAllocationTypePinned, "type");
_Static_assert(CU_MEM_LOCATION_TYPE_DEVICE == (int)hipMemLocationTypeDevice, "location");
_Static_assert(CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR ==
                   (int)hipMemHandleTypePosixFileDescriptor, "handle type");
_Static_assert(CU_MEM_ALLOC_GRANULARITY_RECOMMENDED ==
                   (int)hipMemAllocationGranularityRecommended, "granularity");

static void prop_to_hip(const CUmemAllocationProp *c, hipMemAllocationProp *h)
{
    memset(h, 0, sizeof *h);
    h->type = (hipMemAllocationType)c->type;
    h->requestedHandleTypes = (hipMemAllocationHandleType)c->requestedHandleTypes;
    h->location.type = (hipMemLocationType)c->location.type;
    h->location.id = c->location.id;
    h->win32HandleMetaData = c->win32HandleMetaData;
    h->allocFlags.compressionType = c->allocFlags.compressionType;
    h->allocFlags.gpuDirectRDMACapable = c->allocFlags.gpuDirectRDMACapable;
    h->allocFlags.usage = c->allocFlags.usage;
}

static void prop_from_hip(const hipMemAllocationProp *h, CUmemAllocationProp *c)
{
    memset(c, 0, sizeof *c);
    c->type = (CUmemAllocationType)h->type;
    c->requestedHandleTypes = (CUmemAllocationHandleType)h->requestedHandleTypes;
    c->location.type = (CUmemLocationType)h->location.type;
    c->location.id = h->location.id;
    c->win32HandleMetaData = h->win32HandleMetaData;
    c->allocFlags.compressionType = h->allocFlags.compressionType;
    c->allocFlags.gpuDirectRDMACapable = h->allocFlags.gpuDirectRDMACapable;
    c->allocFlags.usage = h->allocFlags.usage;
}

CUresult CUDAAPI cuMemCreate(CUmemGenericAllocationHandle *handle, size_t size,
                             const CUmemAllocationProp *prop, unsigned long long flags)
{
    if (handle == NULL || prop == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    hipMemAllocationProp h;
    prop_to_hip(prop, &h);
    hipMemGenericAllocationHandle_t out = NULL;
    hipError_t err = hipMemCreate(&out, size, &h, flags);
    if (err == hipSuccess)
        *handle = (CUmemGenericAllocationHandle)(uintptr_t)out;
    return pyshim_cu_from_hip(err);
}

CUresult CUDAAPI cuMemGetAllocationGranularity(size_t *granularity,
                                               const CUmemAllocationProp *prop,
                                               CUmemAllocationGranularity_flags option)
{
    if (granularity == NULL || prop == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    hipMemAllocationProp h;
    prop_to_hip(prop, &h);
    return pyshim_cu_from_hip(
        hipMemGetAllocationGranularity(granularity, &h, (hipMemAllocationGranularity_flags)option));
}

CUresult CUDAAPI cuMemGetAllocationPropertiesFromHandle(CUmemAllocationProp *prop,
                                                        CUmemGenericAllocationHandle handle)
{
    if (prop == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    hipMemAllocationProp h;
    hipError_t err = hipMemGetAllocationPropertiesFromHandle(
        &h, (hipMemGenericAllocationHandle_t)(uintptr_t)handle);
    if (err == hipSuccess)
        prop_from_hip(&h, prop);
    return pyshim_cu_from_hip(err);
}
