/*
 * Device-wide entry points that are more than a forward: cudaGetDeviceProperties (CUDA's
 * layout, 13.0's or 12.9's, filled field by field from hipDeviceProp_tR0600 through the
 * generated offset map), the versions we emulate, cudaDeviceReset (also forgets loaded
 * modules and the sticky error), cudaMallocHost, cudaCreateChannelDesc, and the CUDA 12
 * names that CUDA 13 removed.
 */
#define __CUDA_API_VERSION_INTERNAL 1
#include <cuda_runtime_api.h>
#include <stddef.h>
#include <string.h>

#include "common/device_identity.h"
#include "cuda_side.h"

/* first pass over the generated map: every row checked against this header's layout */
#define PYSHIM_RT_PROP(cuda_off, hip_off, size, field)                                    \
    _Static_assert(offsetof(struct cudaDeviceProp, field) == (cuda_off) &&                 \
                       sizeof(((struct cudaDeviceProp *)0)->field) == (size),              \
                   "cudaDeviceProp." #field " is not where the tables say");
#include "runtime_devprop.inc"
#undef PYSHIM_RT_PROP

/* The NVIDIA identity's numbers in place of HIP's (the same rule as libcuda's
 * cuDeviceGetAttribute: common/device_identity.h) */
static void present_identity(struct cudaDeviceProp *p)
{
#define INT_AS(attr, field) p->field = (int)pyshim_identity_value(cudaDevAttr##attr, p->field)
#define SIZE_AS(attr, field)                                                               \
    p->field = (size_t)pyshim_identity_value(cudaDevAttr##attr, (long long)p->field)
    INT_AS(ComputeCapabilityMajor, major);
    INT_AS(ComputeCapabilityMinor, minor);
    INT_AS(WarpSize, warpSize);
    INT_AS(MaxThreadsPerBlock, maxThreadsPerBlock);
    INT_AS(MaxBlockDimX, maxThreadsDim[0]);
    INT_AS(MaxBlockDimY, maxThreadsDim[1]);
    INT_AS(MaxBlockDimZ, maxThreadsDim[2]);
    INT_AS(MaxGridDimX, maxGridSize[0]);
    INT_AS(MaxGridDimY, maxGridSize[1]);
    INT_AS(MaxGridDimZ, maxGridSize[2]);
    SIZE_AS(MaxSharedMemoryPerBlock, sharedMemPerBlock);
    SIZE_AS(TotalConstantMemory, totalConstMem);
    INT_AS(MaxRegistersPerBlock, regsPerBlock);
    INT_AS(MaxThreadsPerMultiProcessor, maxThreadsPerMultiProcessor);
    SIZE_AS(MaxSharedMemoryPerMultiprocessor, sharedMemPerMultiprocessor);
    INT_AS(MaxRegistersPerMultiprocessor, regsPerMultiprocessor);
    SIZE_AS(MaxSharedMemoryPerBlockOptin, sharedMemPerBlockOptin);
    INT_AS(MaxBlocksPerMultiprocessor, maxBlocksPerMultiProcessor);
    INT_AS(ClusterLaunch, clusterLaunch);
#undef INT_AS
#undef SIZE_AS
}

int pyshim_rt_device_properties(void *prop, int device)
{
    PYSHIM_RT_STICKY_CHECK();
    if (prop == NULL)
        return pyshim_rt_fail(cudaErrorInvalidValue);
    _Alignas(16) unsigned char hip[PYSHIM_RT_HIPPROP_SIZE + 64];
    memset(hip, 0, sizeof hip);
    int rc = pyshim_rt_hip_props(device, hip, sizeof hip);
    if (rc != cudaSuccess)
        return pyshim_rt_fail(rc);
    unsigned char *out = prop;
    memset(out, 0, PYSHIM_RT_DEVPROP_SIZE);
#define PYSHIM_RT_PROP(cuda_off, hip_off, size, field) memcpy(out + cuda_off, hip + hip_off, size);
#include "runtime_devprop.inc"
#undef PYSHIM_RT_PROP
    present_identity(prop);
    return cudaSuccess;
}

#if PYSHIM_CUDART_MAJOR == 12
/* CUDA 12's header renames cudaGetDeviceProperties to _v2 (the 12.x layout) */
cudaError_t cudaGetDeviceProperties_v2(struct cudaDeviceProp *prop, int device)
{
    _Static_assert(sizeof(struct cudaDeviceProp) == PYSHIM_RT_DEVPROP_SIZE,
                   "tables/cuda12.json's 12.9 cudaDeviceProp layout is not this header's");
    return (cudaError_t)pyshim_rt_device_properties(prop, device);
}
#else
cudaError_t cudaGetDeviceProperties(struct cudaDeviceProp *prop, int device)
{
    _Static_assert(sizeof(struct cudaDeviceProp) == PYSHIM_RT_DEVPROP_SIZE,
                   "tables/cuda12.json's cudaDeviceProp layout is not this header's");
    return (cudaError_t)pyshim_rt_device_properties(prop, device);
}
#endif

cudaError_t cudaDriverGetVersion(int *driverVersion)
{
    if (driverVersion == NULL)
        return pyshim_rt_fail(cudaErrorInvalidValue);
    *driverVersion = PYSHIM_RT_VERSION;
    return cudaSuccess;
}

cudaError_t cudaRuntimeGetVersion(int *runtimeVersion)
{
    if (runtimeVersion == NULL)
        return pyshim_rt_fail(cudaErrorInvalidValue);
    *runtimeVersion = PYSHIM_RT_VERSION;
    return cudaSuccess;
}

cudaError_t cudaDeviceReset(void)
{
    pyshim_rt_unload_all();
    int rc = pyshim_rt_hip_device_reset();
    pyshim_rt_clear_errors();
    return rc != cudaSuccess ? pyshim_rt_fail(rc) : cudaSuccess;
}

cudaError_t cudaMallocHost(void **ptr, size_t size)
{
    PYSHIM_RT_STICKY_CHECK();
    if (ptr == NULL)
        return pyshim_rt_fail(cudaErrorInvalidValue);
    int rc = pyshim_rt_hip_host_malloc(ptr, size);
    return rc != cudaSuccess ? pyshim_rt_fail(rc) : cudaSuccess;
}

/* The device closest to `prop`: CUDA ranks by compute capability; the first device that
 * reaches the requested major.minor, else device 0. */
cudaError_t cudaChooseDevice(int *device, const struct cudaDeviceProp *prop)
{
    PYSHIM_RT_STICKY_CHECK();
    if (device == NULL || prop == NULL)
        return pyshim_rt_fail(cudaErrorInvalidValue);
    int count = 0;
    int rc = pyshim_rt_hip_device_count(&count);
    if (rc != cudaSuccess)
        return pyshim_rt_fail(rc);
    *device = 0;
    for (int d = 0; d < count; d++) {
        struct cudaDeviceProp p;
        if (pyshim_rt_device_properties(&p, d) != cudaSuccess)
            continue;
        if (p.major > prop->major || (p.major == prop->major && p.minor >= prop->minor)) {
            *device = d;
            break;
        }
    }
    return cudaSuccess;
}

/* HIP initialises a device on first use, so what is left is the ordinal, the flags, and
 * deviceFlags applied to that device when cudaInitDeviceFlagsAreValid says so: HIP sets
 * flags on the current device, so the device is current for that call only. */
cudaError_t cudaInitDevice(int device, unsigned int deviceFlags, unsigned int flags)
{
    PYSHIM_RT_STICKY_CHECK();
    int count = 0;
    int rc = pyshim_rt_hip_device_count(&count);
    if (rc != cudaSuccess)
        return pyshim_rt_fail(rc);
    if (device < 0 || device >= count)
        return pyshim_rt_fail(cudaErrorInvalidDevice);
    /* flags' other bits are ignored, as NVIDIA's runtime ignores them */
    if (!(flags & cudaInitDeviceFlagsAreValid))
        return cudaSuccess;
    if ((deviceFlags & ~(unsigned)cudaDeviceMask) != 0) {
        pyshim_rt_log("cudaInitDevice: deviceFlags 0x%x", deviceFlags);
        return pyshim_rt_fail(cudaErrorInvalidValue);
    }
    int cur = 0;
    cudaError_t err = cudaGetDevice(&cur);
    if (err == cudaSuccess && cur != device)
        err = cudaSetDevice(device);
    if (err != cudaSuccess)
        return err;
    err = cudaSetDeviceFlags(deviceFlags);
    if (cur != device) {
        cudaError_t back = cudaSetDevice(cur);
        if (err == cudaSuccess)
            err = back;
    }
    return err;
}

struct cudaChannelFormatDesc cudaCreateChannelDesc(int x, int y, int z, int w,
                                                   enum cudaChannelFormatKind f)
{
    struct cudaChannelFormatDesc d = {x, y, z, w, f};
    return d;
}

#if PYSHIM_CUDART_MAJOR == 12
/* removed in CUDA 13; CUDA 12 programs still link them */
cudaError_t cudaThreadExit(void)
{
    return cudaDeviceReset();
}

cudaError_t cudaThreadSynchronize(void)
{
    return cudaDeviceSynchronize();
}

cudaError_t cudaThreadGetLimit(size_t *pValue, enum cudaLimit limit)
{
    return cudaDeviceGetLimit(pValue, limit);
}

cudaError_t cudaThreadSetLimit(enum cudaLimit limit, size_t value)
{
    return cudaDeviceSetLimit(limit, value);
}

cudaError_t cudaThreadGetCacheConfig(enum cudaFuncCache *pCacheConfig)
{
    return cudaDeviceGetCacheConfig(pCacheConfig);
}

cudaError_t cudaThreadSetCacheConfig(enum cudaFuncCache cacheConfig)
{
    return cudaDeviceSetCacheConfig(cacheConfig);
}

cudaError_t cudaEventElapsedTime_v2(float *ms, cudaEvent_t start, cudaEvent_t end)
{
    return cudaEventElapsedTime(ms, start, end);
}
#endif
