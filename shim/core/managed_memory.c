/* Managed memory: prefetch and advice. CUDA names the place with a CUmemLocation (12.2+)
 * or a CUdevice (older ABI, CU_DEVICE_CPU for the host); HIP with a device ordinal or
 * hipCpuDeviceId. */
#include "internal.h"

static CUresult prefetch(CUdeviceptr ptr, size_t count, int device, CUstream stream, int pt)
{
    CUresult rc = pyshim_need_ctx();
    if (rc != CUDA_SUCCESS)
        return rc;
    return pyshim_cu_from_hip(hipMemPrefetchAsync((const void *)(uintptr_t)ptr, count, device,
                                                  pyshim_hip_stream(stream, pt)));
}

static CUresult prefetch_location(CUdeviceptr ptr, size_t count, CUmemLocation loc,
                                  unsigned int flags, CUstream stream, int pt)
{
    if (flags != 0)
        return CUDA_ERROR_INVALID_VALUE;
    switch (loc.type) {
    case CU_MEM_LOCATION_TYPE_DEVICE:
        return prefetch(ptr, count, loc.id, stream, pt);
    case CU_MEM_LOCATION_TYPE_HOST:
    case CU_MEM_LOCATION_TYPE_HOST_NUMA:
    case CU_MEM_LOCATION_TYPE_HOST_NUMA_CURRENT:
        return prefetch(ptr, count, hipCpuDeviceId, stream, pt);
    default:
        return CUDA_ERROR_INVALID_VALUE;
    }
}

CUresult CUDAAPI cuMemPrefetchAsync_v2(CUdeviceptr devPtr, size_t count, CUmemLocation location,
                                       unsigned int flags, CUstream hStream)
{
    return prefetch_location(devPtr, count, location, flags, hStream, 0);
}

CUresult CUDAAPI cuMemPrefetchAsync_v2_ptsz(CUdeviceptr devPtr, size_t count,
                                            CUmemLocation location, unsigned int flags,
                                            CUstream hStream)
{
    return prefetch_location(devPtr, count, location, flags, hStream, 1);
}

/* the CUDA 8.0 ABI; cuda.h renames cuMemPrefetchAsync to _v2 */
#undef cuMemPrefetchAsync
CUresult CUDAAPI cuMemPrefetchAsync(CUdeviceptr devPtr, size_t count, CUdevice dstDevice,
                                    CUstream hStream);
CUresult CUDAAPI cuMemPrefetchAsync_ptsz(CUdeviceptr devPtr, size_t count, CUdevice dstDevice,
                                         CUstream hStream);

CUresult CUDAAPI cuMemPrefetchAsync(CUdeviceptr devPtr, size_t count, CUdevice dstDevice,
                                    CUstream hStream)
{
    return prefetch(devPtr, count, dstDevice == CU_DEVICE_CPU ? hipCpuDeviceId : dstDevice,
                    hStream, 0);
}

CUresult CUDAAPI cuMemPrefetchAsync_ptsz(CUdeviceptr devPtr, size_t count, CUdevice dstDevice,
                                         CUstream hStream)
{
    return prefetch(devPtr, count, dstDevice == CU_DEVICE_CPU ? hipCpuDeviceId : dstDevice,
                    hStream, 1);
}

static CUresult location_device(CUmemLocation loc, int *device)
{
    switch (loc.type) {
    case CU_MEM_LOCATION_TYPE_DEVICE:
        *device = loc.id;
        return CUDA_SUCCESS;
    case CU_MEM_LOCATION_TYPE_HOST:
    case CU_MEM_LOCATION_TYPE_HOST_NUMA:
    case CU_MEM_LOCATION_TYPE_HOST_NUMA_CURRENT:
        *device = hipCpuDeviceId;
        return CUDA_SUCCESS;
    default:
        return CUDA_ERROR_INVALID_VALUE;
    }
}

static CUresult advise(CUdeviceptr ptr, size_t count, CUmem_advise advice, int device)
{
    CUresult rc = pyshim_need_ctx();
    if (rc != CUDA_SUCCESS)
        return rc;
    /* CU_MEM_ADVISE_* 1..6 equal hipMemAdvise* 1..6 */
    if (advice < CU_MEM_ADVISE_SET_READ_MOSTLY || advice > CU_MEM_ADVISE_UNSET_ACCESSED_BY)
        return CUDA_ERROR_INVALID_VALUE;
    return pyshim_cu_from_hip(
        hipMemAdvise((const void *)(uintptr_t)ptr, count, (hipMemoryAdvise)advice, device));
}

CUresult CUDAAPI cuMemAdvise_v2(CUdeviceptr devPtr, size_t count, CUmem_advise advice,
                                CUmemLocation location)
{
    int device;
    CUresult rc = location_device(location, &device);
    return rc != CUDA_SUCCESS ? rc : advise(devPtr, count, advice, device);
}

/* the CUDA 8.0 ABI; cuda.h renames cuMemAdvise to _v2 */
#undef cuMemAdvise
CUresult CUDAAPI cuMemAdvise(CUdeviceptr devPtr, size_t count, CUmem_advise advice,
                             CUdevice device);
CUresult CUDAAPI cuMemAdvise(CUdeviceptr devPtr, size_t count, CUmem_advise advice,
                             CUdevice device)
{
    return advise(devPtr, count, advice, device == CU_DEVICE_CPU ? hipCpuDeviceId : device);
}

/* The plural form: each attribute as cuMemRangeGetAttribute answers it (HIP's array of
 * attributes is of another enum type, so the call is not forwarded whole). */
CUresult CUDAAPI cuMemRangeGetAttributes(void **data, size_t *dataSizes,
                                         CUmem_range_attribute *attributes,
                                         size_t numAttributes, CUdeviceptr devPtr, size_t count)
{
    if (numAttributes > 0 && (data == NULL || dataSizes == NULL || attributes == NULL))
        return CUDA_ERROR_INVALID_VALUE;
    for (size_t i = 0; i < numAttributes; i++) {
        CUresult rc = cuMemRangeGetAttribute(data[i], dataSizes[i], attributes[i], devPtr,
                                             count);
        if (rc != CUDA_SUCCESS)
            return rc;
    }
    return CUDA_SUCCESS;
}
