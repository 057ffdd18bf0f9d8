/*
 * cuDeviceGetAttribute: every CU_DEVICE_ATTRIBUTE_* answered from the backend's
 * hipDeviceProp_t (one query per device, cached), then passed through the NVIDIA device
 * identity (common/device_identity.h: compute capability, warp size, per-capability
 * limits). cudart asks for 111 of them at start-up and fails to initialise if any returns
 * an error, so attributes HIP has no field for get a documented constant (0 = "not
 * supported" is an accepted answer) rather than an error.
 */
#include <limits.h>

#include "common/device_identity.h"
#include "internal.h"

#define SAME_NUMBER(name)                                                                  \
    _Static_assert((int)CU_DEVICE_ATTRIBUTE_##name == (int)PYSHIM_ATTR_##name, #name)
SAME_NUMBER(MAX_THREADS_PER_BLOCK);
SAME_NUMBER(MAX_BLOCK_DIM_X);
SAME_NUMBER(MAX_BLOCK_DIM_Y);
SAME_NUMBER(MAX_BLOCK_DIM_Z);
SAME_NUMBER(MAX_GRID_DIM_X);
SAME_NUMBER(MAX_GRID_DIM_Y);
SAME_NUMBER(MAX_GRID_DIM_Z);
SAME_NUMBER(MAX_SHARED_MEMORY_PER_BLOCK);
SAME_NUMBER(TOTAL_CONSTANT_MEMORY);
SAME_NUMBER(WARP_SIZE);
SAME_NUMBER(MAX_REGISTERS_PER_BLOCK);
SAME_NUMBER(MAX_THREADS_PER_MULTIPROCESSOR);
SAME_NUMBER(COMPUTE_CAPABILITY_MAJOR);
SAME_NUMBER(COMPUTE_CAPABILITY_MINOR);
SAME_NUMBER(MAX_SHARED_MEMORY_PER_MULTIPROCESSOR);
SAME_NUMBER(MAX_REGISTERS_PER_MULTIPROCESSOR);
SAME_NUMBER(MAX_SHARED_MEMORY_PER_BLOCK_OPTIN);
SAME_NUMBER(MAX_BLOCKS_PER_MULTIPROCESSOR);
SAME_NUMBER(CLUSTER_LAUNCH);

static int clamp(size_t v)
{
    return v > INT_MAX ? INT_MAX : (int)v;
}

CUresult pyshim_device_attribute(int *value, CUdevice_attribute attrib, int device)
{
    const hipDeviceProp_t *p = pyshim_device_prop(device);
    if (p == NULL)
        return CUDA_ERROR_INVALID_DEVICE;
    int v;
    switch (attrib) {
    case CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK: v = p->maxThreadsPerBlock; break;
    case CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X: v = p->maxThreadsDim[0]; break;
    case CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y: v = p->maxThreadsDim[1]; break;
    case CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z: v = p->maxThreadsDim[2]; break;
    case CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X: v = p->maxGridSize[0]; break;
    case CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y: v = p->maxGridSize[1]; break;
    case CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z: v = p->maxGridSize[2]; break;
    case CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK: v = clamp(p->sharedMemPerBlock); break;
    case CU_DEVICE_ATTRIBUTE_TOTAL_CONSTANT_MEMORY: v = clamp(p->totalConstMem); break;
    case CU_DEVICE_ATTRIBUTE_WARP_SIZE: v = p->warpSize; break;
    case CU_DEVICE_ATTRIBUTE_MAX_PITCH: v = clamp(p->memPitch); break;
    case CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK: v = p->regsPerBlock; break;
    case CU_DEVICE_ATTRIBUTE_CLOCK_RATE: v = p->clockRate; break;
    case CU_DEVICE_ATTRIBUTE_TEXTURE_ALIGNMENT: v = clamp(p->textureAlignment); break;
    case CU_DEVICE_ATTRIBUTE_GPU_OVERLAP: v = p->deviceOverlap; break;
    case CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT: v = p->multiProcessorCount; break;
    case CU_DEVICE_ATTRIBUTE_KERNEL_EXEC_TIMEOUT: v = p->kernelExecTimeoutEnabled; break;
    case CU_DEVICE_ATTRIBUTE_INTEGRATED: v = p->integrated; break;
    case CU_DEVICE_ATTRIBUTE_CAN_MAP_HOST_MEMORY: v = p->canMapHostMemory; break;
    case CU_DEVICE_ATTRIBUTE_COMPUTE_MODE: v = p->computeMode; break;
    case CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE1D_WIDTH: v = p->maxTexture1D; break;
    case CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_WIDTH: v = p->maxTexture2D[0]; break;
    case CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_HEIGHT: v = p->maxTexture2D[1]; break;
    case CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE3D_WIDTH: v = p->maxTexture3D[0]; break;
    case CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE3D_HEIGHT: v = p->maxTexture3D[1]; break;
    case CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE3D_DEPTH: v = p->maxTexture3D[2]; break;
    case CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_LAYERED_WIDTH: v = p->maxTexture2DLayered[0]; break;
    case CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_LAYERED_HEIGHT: v = p->maxTexture2DLayered[1]; break;
    case CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_LAYERED_LAYERS: v = p->maxTexture2DLayered[2]; break;
    case CU_DEVICE_ATTRIBUTE_SURFACE_ALIGNMENT: v = clamp(p->surfaceAlignment); break;
    case CU_DEVICE_ATTRIBUTE_CONCURRENT_KERNELS: v = p->concurrentKernels; break;
    case CU_DEVICE_ATTRIBUTE_ECC_ENABLED: v = p->ECCEnabled; break;
    case CU_DEVICE_ATTRIBUTE_PCI_BUS_ID: v = p->pciBusID; break;
    case CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID: v = p->pciDeviceID; break;
    case CU_DEVICE_ATTRIBUTE_TCC_DRIVER: v = p->tccDriver; break;
    case CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE: v = p->memoryClockRate; break;
    case CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH: v = p->memoryBusWidth; break;
    case CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE: v = p->l2CacheSize; break;
    case CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR: v = p->maxThreadsPerMultiProcessor; break;
    case CU_DEVICE_ATTRIBUTE_ASYNC_ENGINE_COUNT: v = p->asyncEngineCount; break;
    case CU_DEVICE_ATTRIBUTE_UNIFIED_ADDRESSING: v = p->unifiedAddressing; break;
    case CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE1D_LAYERED_WIDTH: v = p->maxTexture1DLayered[0]; break;
    case CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE1D_LAYERED_LAYERS: v = p->maxTexture1DLayered[1]; break;
    case CU_DEVICE_ATTRIBUTE_CAN_TEX2D_GATHER: v = p->maxTexture2DGather[0] > 0; break;
    case CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_GATHER_WIDTH: v = p->maxTexture2DGather[0]; break;
    case CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_GATHER_HEIGHT: v = p->maxTexture2DGather[1]; break;
    case CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE3D_WIDTH_ALTERNATE: v = p->maxTexture3DAlt[0]; break;
    case CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE3D_HEIGHT_ALTERNATE: v = p->maxTexture3DAlt[1]; break;
    case CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE3D_DEPTH_ALTERNATE: v = p->maxTexture3DAlt[2]; break;
    case CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID: v = p->pciDomainID; break;
    case CU_DEVICE_ATTRIBUTE_TEXTURE_PITCH_ALIGNMENT: v = clamp(p->texturePitchAlignment); break;
    case CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURECUBEMAP_WIDTH: v = p->maxTextureCubemap; break;
    case CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURECUBEMAP_LAYERED_WIDTH: v = p->maxTextureCubemapLayered[0]; break;
    case CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURECUBEMAP_LAYERED_LAYERS: v = p->maxTextureCubemapLayered[1]; break;
    case CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE1D_WIDTH: v = p->maxSurface1D; break;
    case CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE2D_WIDTH: v = p->maxSurface2D[0]; break;
    case CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE2D_HEIGHT: v = p->maxSurface2D[1]; break;
    case CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE3D_WIDTH: v = p->maxSurface3D[0]; break;
    case CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE3D_HEIGHT: v = p->maxSurface3D[1]; break;
    case CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE3D_DEPTH: v = p->maxSurface3D[2]; break;
    case CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE1D_LAYERED_WIDTH: v = p->maxSurface1DLayered[0]; break;
    case CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE1D_LAYERED_LAYERS: v = p->maxSurface1DLayered[1]; break;
    case CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE2D_LAYERED_WIDTH: v = p->maxSurface2DLayered[0]; break;
    case CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE2D_LAYERED_HEIGHT: v = p->maxSurface2DLayered[1]; break;
    case CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE2D_LAYERED_LAYERS: v = p->maxSurface2DLayered[2]; break;
    case CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACECUBEMAP_WIDTH: v = p->maxSurfaceCubemap; break;
    case CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACECUBEMAP_LAYERED_WIDTH: v = p->maxSurfaceCubemapLayered[0]; break;
    case CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACECUBEMAP_LAYERED_LAYERS: v = p->maxSurfaceCubemapLayered[1]; break;
    case CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE1D_LINEAR_WIDTH: v = p->maxTexture1DLinear; break;
    case CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_LINEAR_WIDTH: v = p->maxTexture2DLinear[0]; break;
    case CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_LINEAR_HEIGHT: v = p->maxTexture2DLinear[1]; break;
    case CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_LINEAR_PITCH: v = p->maxTexture2DLinear[2]; break;
    case CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_MIPMAPPED_WIDTH: v = p->maxTexture2DMipmap[0]; break;
    case CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_MIPMAPPED_HEIGHT: v = p->maxTexture2DMipmap[1]; break;
    case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR: v = p->major; break;
    case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR: v = p->minor; break;
    case CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE1D_MIPMAPPED_WIDTH: v = p->maxTexture1DMipmap; break;
    case CU_DEVICE_ATTRIBUTE_STREAM_PRIORITIES_SUPPORTED: v = p->streamPrioritiesSupported; break;
    case CU_DEVICE_ATTRIBUTE_GLOBAL_L1_CACHE_SUPPORTED: v = p->globalL1CacheSupported; break;
    case CU_DEVICE_ATTRIBUTE_LOCAL_L1_CACHE_SUPPORTED: v = p->localL1CacheSupported; break;
    case CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR: v = clamp(p->sharedMemPerMultiprocessor); break;
    case CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_MULTIPROCESSOR: v = p->regsPerMultiprocessor; break;
    case CU_DEVICE_ATTRIBUTE_MANAGED_MEMORY: v = p->managedMemory; break;
    case CU_DEVICE_ATTRIBUTE_MULTI_GPU_BOARD: v = p->isMultiGpuBoard; break;
    case CU_DEVICE_ATTRIBUTE_MULTI_GPU_BOARD_GROUP_ID: v = p->multiGpuBoardGroupID; break;
    case CU_DEVICE_ATTRIBUTE_HOST_NATIVE_ATOMIC_SUPPORTED: v = p->hostNativeAtomicSupported; break;
    case CU_DEVICE_ATTRIBUTE_SINGLE_TO_DOUBLE_PRECISION_PERF_RATIO: v = p->singleToDoublePrecisionPerfRatio; break;
    case CU_DEVICE_ATTRIBUTE_PAGEABLE_MEMORY_ACCESS: v = p->pageableMemoryAccess; break;
    case CU_DEVICE_ATTRIBUTE_CONCURRENT_MANAGED_ACCESS: v = p->concurrentManagedAccess; break;
    case CU_DEVICE_ATTRIBUTE_COMPUTE_PREEMPTION_SUPPORTED: v = p->computePreemptionSupported; break;
    case CU_DEVICE_ATTRIBUTE_CAN_USE_HOST_POINTER_FOR_REGISTERED_MEM: v = p->canUseHostPointerForRegisteredMem; break;
    case CU_DEVICE_ATTRIBUTE_COOPERATIVE_LAUNCH: v = p->cooperativeLaunch; break;
    case CU_DEVICE_ATTRIBUTE_COOPERATIVE_MULTI_DEVICE_LAUNCH: v = p->cooperativeMultiDeviceLaunch; break;
    case CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN: v = clamp(p->sharedMemPerBlockOptin); break;
    case CU_DEVICE_ATTRIBUTE_HOST_REGISTER_SUPPORTED: v = p->hostRegisterSupported; break;
    case CU_DEVICE_ATTRIBUTE_PAGEABLE_MEMORY_ACCESS_USES_HOST_PAGE_TABLES: v = p->pageableMemoryAccessUsesHostPageTables; break;
    case CU_DEVICE_ATTRIBUTE_DIRECT_MANAGED_MEM_ACCESS_FROM_HOST: v = p->directManagedMemAccessFromHost; break;
    case CU_DEVICE_ATTRIBUTE_MAX_BLOCKS_PER_MULTIPROCESSOR: v = p->maxBlocksPerMultiProcessor; break;
    case CU_DEVICE_ATTRIBUTE_MAX_PERSISTING_L2_CACHE_SIZE: v = p->persistingL2CacheMaxSize; break;
    case CU_DEVICE_ATTRIBUTE_MAX_ACCESS_POLICY_WINDOW_SIZE: v = p->accessPolicyMaxWindowSize; break;
    case CU_DEVICE_ATTRIBUTE_RESERVED_SHARED_MEMORY_PER_BLOCK: v = clamp(p->reservedSharedMemPerBlock); break;
    case CU_DEVICE_ATTRIBUTE_SPARSE_CUDA_ARRAY_SUPPORTED: v = p->sparseHipArraySupported; break;
    case CU_DEVICE_ATTRIBUTE_READ_ONLY_HOST_REGISTER_SUPPORTED: v = p->hostRegisterReadOnlySupported; break;
    case CU_DEVICE_ATTRIBUTE_TIMELINE_SEMAPHORE_INTEROP_SUPPORTED: v = p->timelineSemaphoreInteropSupported; break;
    case CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED: v = p->memoryPoolsSupported; break;
    case CU_DEVICE_ATTRIBUTE_GPU_DIRECT_RDMA_SUPPORTED: v = p->gpuDirectRDMASupported; break;
    case CU_DEVICE_ATTRIBUTE_GPU_DIRECT_RDMA_FLUSH_WRITES_OPTIONS: v = (int)p->gpuDirectRDMAFlushWritesOptions; break;
    case CU_DEVICE_ATTRIBUTE_GPU_DIRECT_RDMA_WRITES_ORDERING: v = p->gpuDirectRDMAWritesOrdering; break;
    case CU_DEVICE_ATTRIBUTE_MEMPOOL_SUPPORTED_HANDLE_TYPES: v = (int)p->memoryPoolSupportedHandleTypes; break;
    case CU_DEVICE_ATTRIBUTE_CLUSTER_LAUNCH: v = p->clusterLaunch; break;
    case CU_DEVICE_ATTRIBUTE_DEFERRED_MAPPING_CUDA_ARRAY_SUPPORTED: v = p->deferredMappingHipArraySupported; break;
    case CU_DEVICE_ATTRIBUTE_IPC_EVENT_SUPPORTED: v = p->ipcEventSupported; break;
    case CU_DEVICE_ATTRIBUTE_UNIFIED_FUNCTION_POINTERS: v = p->unifiedFunctionPointers; break;
    case CU_DEVICE_ATTRIBUTE_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED:
    /* ROCm's (and the CPU device's) VMM exports POSIX file descriptors on Linux */
    case CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR_SUPPORTED: {
        int h = 0;
        v = hipDeviceGetAttribute(&h, hipDeviceAttributeVirtualMemoryManagementSupported,
                                  device) == hipSuccess ? h : 0;
        break;
    }
    case CU_DEVICE_ATTRIBUTE_HOST_NUMA_ID: {
        int h = -1;
        v = hipDeviceGetAttribute(&h, hipDeviceAttributeHostNumaId, device) == hipSuccess ? h : -1;
        break;
    }
    /* NVIDIA-only notions with no HIP field: report "absent" */
    case CU_DEVICE_ATTRIBUTE_NUMA_CONFIG: v = CU_DEVICE_NUMA_CONFIG_NONE; break;
    case CU_DEVICE_ATTRIBUTE_NUMA_ID: v = -1; break;
    case CU_DEVICE_ATTRIBUTE_MPS_ENABLED: v = 0; break;
    case CU_DEVICE_ATTRIBUTE_GPU_PCI_DEVICE_ID: v = 0; break;
    case CU_DEVICE_ATTRIBUTE_GPU_PCI_SUBSYSTEM_ID: v = 0; break;
    case CU_DEVICE_ATTRIBUTE_MEM_SYNC_DOMAIN_COUNT: v = 1; break;
    case CU_DEVICE_ATTRIBUTE_CAN_FLUSH_REMOTE_WRITES:
    case CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_WIN32_HANDLE_SUPPORTED:
    case CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_WIN32_KMT_HANDLE_SUPPORTED:
    case CU_DEVICE_ATTRIBUTE_GENERIC_COMPRESSION_SUPPORTED:
    case CU_DEVICE_ATTRIBUTE_GPU_DIRECT_RDMA_WITH_CUDA_VMM_SUPPORTED:
    case CU_DEVICE_ATTRIBUTE_CAN_USE_STREAM_MEM_OPS_V1:
    case CU_DEVICE_ATTRIBUTE_CAN_USE_64_BIT_STREAM_MEM_OPS_V1:
    case CU_DEVICE_ATTRIBUTE_CAN_USE_STREAM_WAIT_VALUE_NOR_V1:
    case CU_DEVICE_ATTRIBUTE_CAN_USE_64_BIT_STREAM_MEM_OPS:
    case CU_DEVICE_ATTRIBUTE_CAN_USE_STREAM_WAIT_VALUE_NOR:
    case CU_DEVICE_ATTRIBUTE_DMA_BUF_SUPPORTED:
    case CU_DEVICE_ATTRIBUTE_TENSOR_MAP_ACCESS_SUPPORTED:
    case CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_FABRIC_SUPPORTED:
    case CU_DEVICE_ATTRIBUTE_MULTICAST_SUPPORTED:
    case CU_DEVICE_ATTRIBUTE_D3D12_CIG_SUPPORTED:
    case CU_DEVICE_ATTRIBUTE_MEM_DECOMPRESS_ALGORITHM_MASK:
    case CU_DEVICE_ATTRIBUTE_MEM_DECOMPRESS_MAXIMUM_LENGTH:
    case CU_DEVICE_ATTRIBUTE_VULKAN_CIG_SUPPORTED:
    case CU_DEVICE_ATTRIBUTE_HOST_NUMA_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED:
    case CU_DEVICE_ATTRIBUTE_HOST_NUMA_MEMORY_POOLS_SUPPORTED:
    case CU_DEVICE_ATTRIBUTE_HOST_NUMA_MULTINODE_IPC_SUPPORTED:
    case CU_DEVICE_ATTRIBUTE_HOST_MEMORY_POOLS_SUPPORTED:
    case CU_DEVICE_ATTRIBUTE_HOST_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED:
    case CU_DEVICE_ATTRIBUTE_HOST_ALLOC_DMA_BUF_SUPPORTED:
    case CU_DEVICE_ATTRIBUTE_ONLY_PARTIAL_HOST_NATIVE_ATOMIC_SUPPORTED:
        v = 0;
        break;
    default:
        return CUDA_ERROR_INVALID_VALUE;
    }
    long long cuda = pyshim_identity_value((int)attrib, v);
    *value = cuda > INT_MAX ? INT_MAX : (int)cuda;
    return CUDA_SUCCESS;
}
