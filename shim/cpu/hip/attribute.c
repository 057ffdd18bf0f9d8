/* hipDeviceGetAttribute: every attribute is read from the device's hipDeviceProp_tR0600. */
#include "internal.h"

static int attribute(const cpu_device *d, hipDeviceAttribute_t attr, int *out)
{
    const hipDeviceProp_tR0600 *p = &d->props;
    int v;
    switch (attr) {
    case hipDeviceAttributeEccEnabled: v = p->ECCEnabled; break;
    case hipDeviceAttributeAccessPolicyMaxWindowSize: v = p->accessPolicyMaxWindowSize; break;
    case hipDeviceAttributeAsyncEngineCount: v = p->asyncEngineCount; break;
    case hipDeviceAttributeCanMapHostMemory: v = p->canMapHostMemory; break;
    case hipDeviceAttributeCanUseHostPointerForRegisteredMem:
        v = p->canUseHostPointerForRegisteredMem; break;
    case hipDeviceAttributeClockRate: v = p->clockRate; break;
    case hipDeviceAttributeComputeMode: v = p->computeMode; break;
    case hipDeviceAttributeComputePreemptionSupported: v = p->computePreemptionSupported; break;
    case hipDeviceAttributeConcurrentKernels: v = p->concurrentKernels; break;
    case hipDeviceAttributeConcurrentManagedAccess: v = p->concurrentManagedAccess; break;
    case hipDeviceAttributeCooperativeLaunch: v = p->cooperativeLaunch; break;
    case hipDeviceAttributeCooperativeMultiDeviceLaunch: v = p->cooperativeMultiDeviceLaunch; break;
    case hipDeviceAttributeDeviceOverlap: v = p->deviceOverlap; break;
    case hipDeviceAttributeDirectManagedMemAccessFromHost:
        v = p->directManagedMemAccessFromHost; break;
    case hipDeviceAttributeGlobalL1CacheSupported: v = p->globalL1CacheSupported; break;
    case hipDeviceAttributeHostNativeAtomicSupported: v = p->hostNativeAtomicSupported; break;
    case hipDeviceAttributeIntegrated: v = p->integrated; break;
    case hipDeviceAttributeIsMultiGpuBoard: v = p->isMultiGpuBoard; break;
    case hipDeviceAttributeKernelExecTimeout: v = p->kernelExecTimeoutEnabled; break;
    case hipDeviceAttributeL2CacheSize: v = p->l2CacheSize; break;
    case hipDeviceAttributeLocalL1CacheSupported: v = p->localL1CacheSupported; break;
    case hipDeviceAttributeLuid: v = 0; break;
    case hipDeviceAttributeLuidDeviceNodeMask: v = (int)p->luidDeviceNodeMask; break;
    case hipDeviceAttributeComputeCapabilityMajor: v = p->major; break;
    case hipDeviceAttributeComputeCapabilityMinor: v = p->minor; break;
    case hipDeviceAttributeManagedMemory: v = p->managedMemory; break;
    case hipDeviceAttributeMaxBlocksPerMultiProcessor: v = p->maxBlocksPerMultiProcessor; break;
    case hipDeviceAttributeMaxBlockDimX: v = p->maxThreadsDim[0]; break;
    case hipDeviceAttributeMaxBlockDimY: v = p->maxThreadsDim[1]; break;
    case hipDeviceAttributeMaxBlockDimZ: v = p->maxThreadsDim[2]; break;
    case hipDeviceAttributeMaxGridDimX: v = p->maxGridSize[0]; break;
    case hipDeviceAttributeMaxGridDimY: v = p->maxGridSize[1]; break;
    case hipDeviceAttributeMaxGridDimZ: v = p->maxGridSize[2]; break;
    case hipDeviceAttributeMaxSurface1D: v = p->maxSurface1D; break;
    case hipDeviceAttributeMaxSurface1DLayered: v = p->maxSurface1DLayered[0]; break;
    case hipDeviceAttributeMaxSurface2D: v = p->maxSurface2D[0]; break;
    case hipDeviceAttributeMaxSurface2DLayered: v = p->maxSurface2DLayered[0]; break;
    case hipDeviceAttributeMaxSurface3D: v = p->maxSurface3D[0]; break;
    case hipDeviceAttributeMaxSurfaceCubemap: v = p->maxSurfaceCubemap; break;
    case hipDeviceAttributeMaxSurfaceCubemapLayered: v = p->maxSurfaceCubemapLayered[0]; break;
    case hipDeviceAttributeMaxTexture1DWidth: v = p->maxTexture1D; break;
    case hipDeviceAttributeMaxTexture1DLayered: v = p->maxTexture1DLayered[0]; break;
    case hipDeviceAttributeMaxTexture1DLinear: v = p->maxTexture1DLinear; break;
    case hipDeviceAttributeMaxTexture1DMipmap: v = p->maxTexture1DMipmap; break;
    case hipDeviceAttributeMaxTexture2DWidth: v = p->maxTexture2D[0]; break;
    case hipDeviceAttributeMaxTexture2DHeight: v = p->maxTexture2D[1]; break;
    case hipDeviceAttributeMaxTexture2DGather: v = p->maxTexture2DGather[0]; break;
    case hipDeviceAttributeMaxTexture2DLayered: v = p->maxTexture2DLayered[0]; break;
    case hipDeviceAttributeMaxTexture2DLinear: v = p->maxTexture2DLinear[0]; break;
    case hipDeviceAttributeMaxTexture2DMipmap: v = p->maxTexture2DMipmap[0]; break;
    case hipDeviceAttributeMaxTexture3DWidth: v = p->maxTexture3D[0]; break;
    case hipDeviceAttributeMaxTexture3DHeight: v = p->maxTexture3D[1]; break;
    case hipDeviceAttributeMaxTexture3DDepth: v = p->maxTexture3D[2]; break;
    case hipDeviceAttributeMaxTexture3DAlt: v = p->maxTexture3DAlt[0]; break;
    case hipDeviceAttributeMaxTextureCubemap: v = p->maxTextureCubemap; break;
    case hipDeviceAttributeMaxTextureCubemapLayered: v = p->maxTextureCubemapLayered[0]; break;
    case hipDeviceAttributeMaxThreadsDim: v = p->maxThreadsDim[0]; break;
    case hipDeviceAttributeMaxThreadsPerBlock: v = p->maxThreadsPerBlock; break;
    case hipDeviceAttributeMaxThreadsPerMultiProcessor: v = p->maxThreadsPerMultiProcessor; break;
    case hipDeviceAttributeMaxPitch: v = (int)p->memPitch; break;
    case hipDeviceAttributeMemoryBusWidth: v = p->memoryBusWidth; break;
    case hipDeviceAttributeMemoryClockRate: v = p->memoryClockRate; break;
    case hipDeviceAttributeMultiGpuBoardGroupID: v = p->multiGpuBoardGroupID; break;
    case hipDeviceAttributeMultiprocessorCount: v = p->multiProcessorCount; break;
    case hipDeviceAttributePageableMemoryAccess: v = p->pageableMemoryAccess; break;
    case hipDeviceAttributePageableMemoryAccessUsesHostPageTables:
        v = p->pageableMemoryAccessUsesHostPageTables; break;
    case hipDeviceAttributePciBusId: v = p->pciBusID; break;
    case hipDeviceAttributePciDeviceId: v = p->pciDeviceID; break;
    case hipDeviceAttributePciDomainId: v = p->pciDomainID; break;
    case hipDeviceAttributePersistingL2CacheMaxSize: v = p->persistingL2CacheMaxSize; break;
    case hipDeviceAttributeMaxRegistersPerBlock: v = p->regsPerBlock; break;
    case hipDeviceAttributeMaxRegistersPerMultiprocessor: v = p->regsPerMultiprocessor; break;
    case hipDeviceAttributeReservedSharedMemPerBlock: v = (int)p->reservedSharedMemPerBlock; break;
    case hipDeviceAttributeMaxSharedMemoryPerBlock: v = (int)p->sharedMemPerBlock; break;
    case hipDeviceAttributeSharedMemPerBlockOptin: v = (int)p->sharedMemPerBlockOptin; break;
    case hipDeviceAttributeSharedMemPerMultiprocessor: v = (int)p->sharedMemPerMultiprocessor; break;
    case hipDeviceAttributeSingleToDoublePrecisionPerfRatio:
        v = p->singleToDoublePrecisionPerfRatio; break;
    case hipDeviceAttributeStreamPrioritiesSupported: v = p->streamPrioritiesSupported; break;
    case hipDeviceAttributeSurfaceAlignment: v = (int)p->surfaceAlignment; break;
    case hipDeviceAttributeTccDriver: v = p->tccDriver; break;
    case hipDeviceAttributeTextureAlignment: v = (int)p->textureAlignment; break;
    case hipDeviceAttributeTexturePitchAlignment: v = (int)p->texturePitchAlignment; break;
    /* Sizes above 2 GiB saturate, as ROCm does for int attributes. */
    case hipDeviceAttributeTotalConstantMemory:
        v = p->totalConstMem > 2147483647u ? 2147483647 : (int)p->totalConstMem; break;
    case hipDeviceAttributeTotalGlobalMem:
        v = p->totalGlobalMem > 2147483647u ? 2147483647 : (int)p->totalGlobalMem; break;
    case hipDeviceAttributeUnifiedAddressing: v = p->unifiedAddressing; break;
    case hipDeviceAttributeWarpSize: v = p->warpSize; break;
    case hipDeviceAttributeMemoryPoolsSupported: v = p->memoryPoolsSupported; break;
    case hipDeviceAttributeVirtualMemoryManagementSupported: v = 1; break;   /* vmm.c */
    case hipDeviceAttributeHostRegisterSupported: v = p->hostRegisterSupported; break;
    case hipDeviceAttributeMemoryPoolSupportedHandleTypes:
        v = (int)p->memoryPoolSupportedHandleTypes; break;
    case hipDeviceAttributeHostNumaId: v = -1; break;
    case hipDeviceAttributeClockInstructionRate: v = p->clockInstructionRate; break;
    case hipDeviceAttributeMaxSharedMemoryPerMultiprocessor:
        v = (int)p->maxSharedMemoryPerMultiProcessor; break;
    case hipDeviceAttributeHdpMemFlushCntl:
    case hipDeviceAttributeHdpRegFlushCntl: v = 0; break;
    case hipDeviceAttributeCooperativeMultiDeviceUnmatchedFunc:
    case hipDeviceAttributeCooperativeMultiDeviceUnmatchedGridDim:
    case hipDeviceAttributeCooperativeMultiDeviceUnmatchedBlockDim:
    case hipDeviceAttributeCooperativeMultiDeviceUnmatchedSharedMem: v = 0; break;
    case hipDeviceAttributeIsLargeBar: v = p->isLargeBar; break;
    case hipDeviceAttributeAsicRevision: v = p->asicRevision; break;
    case hipDeviceAttributeCanUseStreamWaitValue: v = 1; break;   /* stream_memop.c */
    case hipDeviceAttributeImageSupport: v = 0; break;
    case hipDeviceAttributePhysicalMultiProcessorCount: v = p->multiProcessorCount; break;
    case hipDeviceAttributeFineGrainSupport: v = 1; break;
    case hipDeviceAttributeWallClockRate: v = 1000000; break;   /* kHz: ns resolution */
    case hipDeviceAttributeNumberOfXccs: v = 1; break;
    case hipDeviceAttributeMaxAvailableVgprsPerThread: v = 512; break;
    case hipDeviceAttributePciChipId: v = d->wave == 64 ? 0x74a1 : 0x744c; break;
    default: return 1;
    }
    *out = v;
    return 0;
}

hipError_t hipDeviceGetAttribute(int *pi, hipDeviceAttribute_t attr, int deviceId)
{
    if (pi == NULL)
        return cpu_ret(hipErrorInvalidValue);
    if (cpu_check_device(deviceId))
        return cpu_ret(hipErrorInvalidDevice);
    if (attribute(cpu_dev_at(deviceId), attr, pi) != 0)
        return cpu_ret(hipErrorInvalidValue);
    return hipSuccess;
}
