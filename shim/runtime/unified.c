/*
 * Unified (managed) memory hints. CUDA 13 names the target with a cudaMemLocation where
 * HIP (and CUDA 12's original entry points) take a device ordinal, -1 meaning the host;
 * CUDA 12 exports both forms (the location one as _v2).
 */
#define __CUDA_API_VERSION_INTERNAL 1
#include <cuda_runtime_api.h>

#include "cuda_side.h"

/* A location as a device ordinal (-1 = host), or -2 if HIP cannot name it. */
static int location_device(struct cudaMemLocation loc)
{
    switch (loc.type) {
    case cudaMemLocationTypeDevice:
        return loc.id >= 0 ? loc.id : -2;
    case cudaMemLocationTypeHost:
    case cudaMemLocationTypeHostNuma:
    case cudaMemLocationTypeHostNumaCurrent:
        return cudaCpuDeviceId;
    default:
        return -2;
    }
}

static void *hip_stream(cudaStream_t s, int per_thread)
{
    if (s == cudaStreamLegacy)
        return NULL;
    if (s == NULL && per_thread)
        return (void *)cudaStreamPerThread;
    return s;
}

static cudaError_t prefetch(const void *ptr, size_t count, int device, cudaStream_t stream,
                            int per_thread)
{
    PYSHIM_RT_STICKY_CHECK();
    if (device < cudaCpuDeviceId)
        return pyshim_rt_fail(cudaErrorInvalidValue);
    int rc = pyshim_rt_hip_prefetch(ptr, count, device, hip_stream(stream, per_thread));
    return rc != cudaSuccess ? pyshim_rt_fail(rc) : cudaSuccess;
}

static cudaError_t advise(const void *ptr, size_t count, enum cudaMemoryAdvise advice,
                          int device)
{
    PYSHIM_RT_STICKY_CHECK();
    if (device < cudaCpuDeviceId)
        return pyshim_rt_fail(cudaErrorInvalidValue);
    int rc = pyshim_rt_hip_advise(ptr, count, (int)advice, device);
    return rc != cudaSuccess ? pyshim_rt_fail(rc) : cudaSuccess;
}

#if PYSHIM_CUDART_MAJOR == 12
cudaError_t cudaMemPrefetchAsync(const void *devPtr, size_t count, int dstDevice,
                                 cudaStream_t stream)
{
    return prefetch(devPtr, count, dstDevice, stream, 0);
}

cudaError_t cudaMemPrefetchAsync_ptsz(const void *devPtr, size_t count, int dstDevice,
                                      cudaStream_t stream)
{
    return prefetch(devPtr, count, dstDevice, stream, 1);
}

cudaError_t cudaMemPrefetchAsync_v2(const void *devPtr, size_t count,
                                    struct cudaMemLocation location, unsigned int flags,
                                    cudaStream_t stream)
{
    return flags != 0 ? pyshim_rt_fail(cudaErrorInvalidValue)
                      : prefetch(devPtr, count, location_device(location), stream, 0);
}

cudaError_t cudaMemPrefetchAsync_v2_ptsz(const void *devPtr, size_t count,
                                         struct cudaMemLocation location, unsigned int flags,
                                         cudaStream_t stream)
{
    return flags != 0 ? pyshim_rt_fail(cudaErrorInvalidValue)
                      : prefetch(devPtr, count, location_device(location), stream, 1);
}

cudaError_t cudaMemAdvise(const void *devPtr, size_t count, enum cudaMemoryAdvise advice,
                          int device)
{
    return advise(devPtr, count, advice, device);
}

cudaError_t cudaMemAdvise_v2(const void *devPtr, size_t count, enum cudaMemoryAdvise advice,
                             struct cudaMemLocation location)
{
    return advise(devPtr, count, advice, location_device(location));
}
#else
cudaError_t cudaMemPrefetchAsync(const void *devPtr, size_t count,
                                 struct cudaMemLocation location, unsigned int flags,
                                 cudaStream_t stream)
{
    return flags != 0 ? pyshim_rt_fail(cudaErrorInvalidValue)
                      : prefetch(devPtr, count, location_device(location), stream, 0);
}

cudaError_t cudaMemPrefetchAsync_ptsz(const void *devPtr, size_t count,
                                      struct cudaMemLocation location, unsigned int flags,
                                      cudaStream_t stream)
{
    return flags != 0 ? pyshim_rt_fail(cudaErrorInvalidValue)
                      : prefetch(devPtr, count, location_device(location), stream, 1);
}

cudaError_t cudaMemAdvise(const void *devPtr, size_t count, enum cudaMemoryAdvise advice,
                          struct cudaMemLocation location)
{
    return advise(devPtr, count, advice, location_device(location));
}
#endif
