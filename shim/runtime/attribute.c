/*
 * cudaDeviceGetAttribute. Attributes with a HIP counterpart (the generated value map) are
 * asked of HIP; the 70-odd that have none are answered from the device's cudaDeviceProp
 * (CUDA documents each of them as one of its fields) or, for features HIP has no notion
 * of, as 0, which is what CUDA reports for an absent feature. Values that are no
 * cudaDeviceAttr at all are cudaErrorInvalidValue.
 */
#define __CUDA_API_VERSION_INTERNAL 1
#include <cuda_runtime_api.h>
#include <stddef.h>
#include <string.h>

#include "common/device_identity.h"
#include "cuda_side.h"
#include "runtime_enums.h"

/* cudaDeviceAttr and common/device_identity.h number the identity's attributes alike */
#define SAME_NUMBER(cuda, ours) _Static_assert((int)cudaDevAttr##cuda == (int)PYSHIM_ATTR_##ours, #cuda)
SAME_NUMBER(MaxThreadsPerBlock, MAX_THREADS_PER_BLOCK);
SAME_NUMBER(MaxBlockDimZ, MAX_BLOCK_DIM_Z);
SAME_NUMBER(MaxGridDimZ, MAX_GRID_DIM_Z);
SAME_NUMBER(MaxSharedMemoryPerBlock, MAX_SHARED_MEMORY_PER_BLOCK);
SAME_NUMBER(TotalConstantMemory, TOTAL_CONSTANT_MEMORY);
SAME_NUMBER(WarpSize, WARP_SIZE);
SAME_NUMBER(MaxRegistersPerBlock, MAX_REGISTERS_PER_BLOCK);
SAME_NUMBER(MaxThreadsPerMultiProcessor, MAX_THREADS_PER_MULTIPROCESSOR);
SAME_NUMBER(ComputeCapabilityMajor, COMPUTE_CAPABILITY_MAJOR);
SAME_NUMBER(ComputeCapabilityMinor, COMPUTE_CAPABILITY_MINOR);
SAME_NUMBER(MaxSharedMemoryPerMultiprocessor, MAX_SHARED_MEMORY_PER_MULTIPROCESSOR);
SAME_NUMBER(MaxRegistersPerMultiprocessor, MAX_REGISTERS_PER_MULTIPROCESSOR);
SAME_NUMBER(MaxSharedMemoryPerBlockOptin, MAX_SHARED_MEMORY_PER_BLOCK_OPTIN);
SAME_NUMBER(MaxBlocksPerMultiprocessor, MAX_BLOCKS_PER_MULTIPROCESSOR);
SAME_NUMBER(ClusterLaunch, CLUSTER_LAUNCH);
#undef SAME_NUMBER

enum kind { INT, UINT, SIZE, ZERO };

struct from_prop {
    enum cudaDeviceAttr attr;
    enum kind kind;
    size_t offset; /* of the int / unsigned / size_t in cudaDeviceProp */
};

#define INT_FIELD(a, f) {a, INT, offsetof(struct cudaDeviceProp, f)}
#define UINT_FIELD(a, f) {a, UINT, offsetof(struct cudaDeviceProp, f)}
#define SIZE_FIELD(a, f) {a, SIZE, offsetof(struct cudaDeviceProp, f)}
#define ABSENT(a) {a, ZERO, 0}

static const struct from_prop table[] = {
    INT_FIELD(cudaDevAttrMaxTexture2DLayeredWidth, maxTexture2DLayered[0]),
    INT_FIELD(cudaDevAttrMaxTexture2DLayeredHeight, maxTexture2DLayered[1]),
    INT_FIELD(cudaDevAttrMaxTexture2DLayeredLayers, maxTexture2DLayered[2]),
    INT_FIELD(cudaDevAttrGlobalMemoryBusWidth, memoryBusWidth),
    INT_FIELD(cudaDevAttrMaxTexture1DLayeredWidth, maxTexture1DLayered[0]),
    INT_FIELD(cudaDevAttrMaxTexture1DLayeredLayers, maxTexture1DLayered[1]),
    INT_FIELD(cudaDevAttrMaxTexture2DGatherWidth, maxTexture2DGather[0]),
    INT_FIELD(cudaDevAttrMaxTexture2DGatherHeight, maxTexture2DGather[1]),
    INT_FIELD(cudaDevAttrMaxTexture3DWidthAlt, maxTexture3DAlt[0]),
    INT_FIELD(cudaDevAttrMaxTexture3DHeightAlt, maxTexture3DAlt[1]),
    INT_FIELD(cudaDevAttrMaxTexture3DDepthAlt, maxTexture3DAlt[2]),
    INT_FIELD(cudaDevAttrMaxTextureCubemapWidth, maxTextureCubemap),
    INT_FIELD(cudaDevAttrMaxTextureCubemapLayeredWidth, maxTextureCubemapLayered[0]),
    INT_FIELD(cudaDevAttrMaxTextureCubemapLayeredLayers, maxTextureCubemapLayered[1]),
    INT_FIELD(cudaDevAttrMaxSurface1DWidth, maxSurface1D),
    INT_FIELD(cudaDevAttrMaxSurface2DWidth, maxSurface2D[0]),
    INT_FIELD(cudaDevAttrMaxSurface2DHeight, maxSurface2D[1]),
    INT_FIELD(cudaDevAttrMaxSurface3DWidth, maxSurface3D[0]),
    INT_FIELD(cudaDevAttrMaxSurface3DHeight, maxSurface3D[1]),
    INT_FIELD(cudaDevAttrMaxSurface3DDepth, maxSurface3D[2]),
    INT_FIELD(cudaDevAttrMaxSurface1DLayeredWidth, maxSurface1DLayered[0]),
    INT_FIELD(cudaDevAttrMaxSurface1DLayeredLayers, maxSurface1DLayered[1]),
    INT_FIELD(cudaDevAttrMaxSurface2DLayeredWidth, maxSurface2DLayered[0]),
    INT_FIELD(cudaDevAttrMaxSurface2DLayeredHeight, maxSurface2DLayered[1]),
    INT_FIELD(cudaDevAttrMaxSurface2DLayeredLayers, maxSurface2DLayered[2]),
    INT_FIELD(cudaDevAttrMaxSurfaceCubemapWidth, maxSurfaceCubemap),
    INT_FIELD(cudaDevAttrMaxSurfaceCubemapLayeredWidth, maxSurfaceCubemapLayered[0]),
    INT_FIELD(cudaDevAttrMaxSurfaceCubemapLayeredLayers, maxSurfaceCubemapLayered[1]),
    INT_FIELD(cudaDevAttrMaxTexture2DLinearWidth, maxTexture2DLinear[0]),
    INT_FIELD(cudaDevAttrMaxTexture2DLinearHeight, maxTexture2DLinear[1]),
    INT_FIELD(cudaDevAttrMaxTexture2DLinearPitch, maxTexture2DLinear[2]),
    INT_FIELD(cudaDevAttrMaxTexture2DMipmappedWidth, maxTexture2DMipmap[0]),
    INT_FIELD(cudaDevAttrMaxTexture2DMipmappedHeight, maxTexture2DMipmap[1]),
    INT_FIELD(cudaDevAttrMaxTexture1DMipmappedWidth, maxTexture1DMipmap),
    SIZE_FIELD(cudaDevAttrMaxSharedMemoryPerBlockOptin, sharedMemPerBlockOptin),
    INT_FIELD(cudaDevAttrMaxPersistingL2CacheSize, persistingL2CacheMaxSize),
    INT_FIELD(cudaDevAttrMaxAccessPolicyWindowSize, accessPolicyMaxWindowSize),
    SIZE_FIELD(cudaDevAttrReservedSharedMemoryPerBlock, reservedSharedMemPerBlock),
    INT_FIELD(cudaDevAttrSparseCudaArraySupported, sparseCudaArraySupported),
    INT_FIELD(cudaDevAttrHostRegisterReadOnlySupported, hostRegisterReadOnlySupported),
    INT_FIELD(cudaDevAttrTimelineSemaphoreInteropSupported, timelineSemaphoreInteropSupported),
    INT_FIELD(cudaDevAttrGPUDirectRDMASupported, gpuDirectRDMASupported),
    UINT_FIELD(cudaDevAttrGPUDirectRDMAFlushWritesOptions, gpuDirectRDMAFlushWritesOptions),
    INT_FIELD(cudaDevAttrGPUDirectRDMAWritesOrdering, gpuDirectRDMAWritesOrdering),
    INT_FIELD(cudaDevAttrClusterLaunch, clusterLaunch),
    INT_FIELD(cudaDevAttrDeferredMappingCudaArraySupported, deferredMappingCudaArraySupported),
    INT_FIELD(cudaDevAttrIpcEventSupport, ipcEventSupported),
#if CUDART_VERSION >= 13000
    INT_FIELD(cudaDevAttrNumaConfig, deviceNumaConfig),
    INT_FIELD(cudaDevAttrNumaId, deviceNumaId),
    INT_FIELD(cudaDevAttrMpsEnabled, mpsEnabled),
    INT_FIELD(cudaDevAttrGpuPciDeviceId, gpuPciDeviceID),
    INT_FIELD(cudaDevAttrGpuPciSubsystemId, gpuPciSubsystemID),
    INT_FIELD(cudaDevAttrHostNumaMultinodeIpcSupported, hostNumaMultinodeIpcSupported),
#else /* 12.9's cudaDeviceProp has no such fields */
    ABSENT(cudaDevAttrNumaConfig),
    ABSENT(cudaDevAttrNumaId),
    ABSENT(cudaDevAttrMpsEnabled),
    ABSENT(cudaDevAttrGpuPciDeviceId),
    ABSENT(cudaDevAttrGpuPciSubsystemId),
    ABSENT(cudaDevAttrHostNumaMultinodeIpcSupported),
#endif
    /* CUDA 13 dropped deviceOverlap from cudaDeviceProp: copy/compute overlap is what
     * asyncEngineCount > 0 says */
    ABSENT(cudaDevAttrGpuOverlap),
    ABSENT(cudaDevAttrMaxTexture1DLinearWidth),
    ABSENT(cudaDevAttrCanFlushRemoteWrites),
    ABSENT(cudaDevAttrMemSyncDomainCount),
    ABSENT(cudaDevAttrD3D12CigSupported),
    ABSENT(cudaDevAttrVulkanCigSupported),
    ABSENT(cudaDevAttrHostNumaMemoryPoolsSupported),
#if CUDART_VERSION >= 13000
    ABSENT(cudaDevAttrHostMemoryPoolsSupported),
    ABSENT(cudaDevAttrOnlyPartialHostNativeAtomicSupported),
#endif
};

cudaError_t cudaDeviceGetAttribute(int *value, enum cudaDeviceAttr attr, int device)
{
    PYSHIM_RT_STICKY_CHECK();
    if (value == NULL)
        return pyshim_rt_fail(cudaErrorInvalidValue);
    int hip_attr = pyshim_cudaDeviceAttr_to_hipDeviceAttribute_t((int)attr);
    if (hip_attr != PYSHIM_RT_UNMAPPED) {
        int rc = pyshim_rt_hip_attribute(value, hip_attr, device);
        if (rc != cudaSuccess)
            return pyshim_rt_fail(rc);
        /* HIP's numbers as the NVIDIA identity presents them (compute capability, warp
         * size, limits); cudaGetDeviceProperties' fields are converted the same way */
        long long cuda = pyshim_identity_value((int)attr, *value);
        *value = cuda > 0x7fffffff ? 0x7fffffff : (int)cuda;
        return cudaSuccess;
    }
    const struct from_prop *row = NULL;
    for (size_t i = 0; i < sizeof table / sizeof table[0] && row == NULL; i++)
        if (table[i].attr == attr)
            row = &table[i];
    if (row == NULL)
        return (cudaError_t)pyshim_rt_note_unmapped("cudaDeviceGetAttribute", "attr",
                                                    (int)attr);
    struct cudaDeviceProp prop;
    /* not cudaGetDeviceProperties: CUDA 12's libcudart names it _v2 */
    int rc = pyshim_rt_device_properties(&prop, device);
    if (rc != cudaSuccess)
        return (cudaError_t)rc;
    const unsigned char *base = (const unsigned char *)&prop + row->offset;
    switch (row->kind) {
    case INT:
        memcpy(value, base, sizeof(int));
        break;
    case UINT: {
        unsigned u;
        memcpy(&u, base, sizeof u);
        *value = (int)u;
        break;
    }
    case SIZE: {
        size_t z;
        memcpy(&z, base, sizeof z);
        *value = z > 0x7fffffff ? 0x7fffffff : (int)z;
        break;
    }
    case ZERO:
        *value = attr == cudaDevAttrGpuOverlap ? prop.asyncEngineCount > 0 : 0;
        break;
    }
    return cudaSuccess;
}
