/*
 * Per-kernel queries and settings by host stub that need no HIP call of their own: the
 * shared-memory bank size (not configurable on AMD GPUs or the CPU device: accepted for
 * known kernels, as CUDA 12+ does on GPUs without configurable banks) and the dynamic
 * shared memory left for numBlocks blocks per multiprocessor, from the limits the device
 * presents (the same arithmetic as the driver's cuOccupancyAvailableDynamicSMemPerBlock).
 */
#define __CUDA_API_VERSION_INTERNAL 1
#include <cuda_runtime_api.h>

#include "cuda_side.h"

cudaError_t cudaFuncSetSharedMemConfig(const void *func, enum cudaSharedMemConfig config)
{
    PYSHIM_RT_STICKY_CHECK();
    if (pyshim_rt_func_by_stub(func) == NULL) {
        pyshim_rt_log("cudaFuncSetSharedMemConfig: %p is not a registered kernel", func);
        return pyshim_rt_fail(cudaErrorInvalidDeviceFunction);
    }
    if ((int)config < (int)cudaSharedMemBankSizeDefault ||
        (int)config > (int)cudaSharedMemBankSizeEightByte) {
        pyshim_rt_log("cudaFuncSetSharedMemConfig: no bank size %d", (int)config);
        return pyshim_rt_fail(cudaErrorInvalidValue);
    }
    return cudaSuccess;
}

cudaError_t cudaOccupancyAvailableDynamicSMemPerBlock(size_t *dynamicSmemSize, const void *func,
                                                      int numBlocks, int blockSize)
{
    PYSHIM_RT_STICKY_CHECK();
    if (dynamicSmemSize == NULL || numBlocks <= 0 || blockSize <= 0)
        return pyshim_rt_fail(cudaErrorInvalidValue);
    struct cudaFuncAttributes a;
    cudaError_t err = cudaFuncGetAttributes(&a, func);   /* unknown stubs fail here */
    if (err != cudaSuccess)
        return err;
    if (blockSize > a.maxThreadsPerBlock)
        return pyshim_rt_fail(cudaErrorInvalidValue);
    int dev = 0, per_sm = 0, optin = 0;
    err = cudaGetDevice(&dev);
    if (err == cudaSuccess)
        err = cudaDeviceGetAttribute(&per_sm, cudaDevAttrMaxSharedMemoryPerMultiprocessor, dev);
    if (err == cudaSuccess)
        err = cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev);
    if (err != cudaSuccess)
        return err;
    size_t per_block = (size_t)per_sm / (size_t)numBlocks;
    if (per_block > (size_t)optin)
        per_block = (size_t)optin;
    *dynamicSmemSize = per_block > a.sharedSizeBytes ? per_block - a.sharedSizeBytes : 0;
    return cudaSuccess;
}
