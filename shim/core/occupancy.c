/* Occupancy queries: the CUfunction (or CUkernel) is ours, so resolve it before asking HIP. */
#include "internal.h"

CUresult CUDAAPI cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(int *numBlocks,
                                                                     CUfunction func,
                                                                     int blockSize,
                                                                     size_t dynamicSMemSize,
                                                                     unsigned int flags)
{
    if (numBlocks == NULL || blockSize <= 0)
        return CUDA_ERROR_INVALID_VALUE;
    CUresult rc = pyshim_need_ctx();
    hipFunction_t f;
    if (rc == CUDA_SUCCESS)
        rc = pyshim_function_resolve(func, &f);
    if (rc != CUDA_SUCCESS)
        return rc;
    /* CU_OCCUPANCY_DEFAULT / DISABLE_CACHING_OVERRIDE equal hipOccupancyDefault / ... */
    return pyshim_cu_from_hip(hipModuleOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(
        numBlocks, f, blockSize, dynamicSMemSize, flags));
}

CUresult CUDAAPI cuOccupancyMaxActiveBlocksPerMultiprocessor(int *numBlocks, CUfunction func,
                                                             int blockSize,
                                                             size_t dynamicSMemSize)
{
    return cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(numBlocks, func, blockSize,
                                                                dynamicSMemSize, 0);
}

CUresult CUDAAPI cuOccupancyAvailableDynamicSMemPerBlock(size_t *dynamicSmemSize,
                                                         CUfunction func, int numBlocks,
                                                         int blockSize)
{
    if (dynamicSmemSize == NULL || numBlocks <= 0 || blockSize <= 0)
        return CUDA_ERROR_INVALID_VALUE;
    CUresult rc = pyshim_need_ctx();
    hipFunction_t f;
    if (rc == CUDA_SUCCESS)
        rc = pyshim_function_resolve(func, &f);
    if (rc != CUDA_SUCCESS)
        return rc;
    int static_bytes = 0;
    hipFuncGetAttribute(&static_bytes, HIP_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, f);
    CUcontext ctx = pyshim_current_ctx();
    const hipDeviceProp_t *p = pyshim_device_prop(ctx->device);
    if (p == NULL)
        return CUDA_ERROR_INVALID_DEVICE;
    /* what is left of one block's share of the multiprocessor's shared memory */
    size_t per_block = p->sharedMemPerMultiprocessor / (size_t)numBlocks;
    if (per_block > p->sharedMemPerBlock)
        per_block = p->sharedMemPerBlock;
    *dynamicSmemSize = per_block > (size_t)static_bytes ? per_block - (size_t)static_bytes : 0;
    return CUDA_SUCCESS;
}

CUresult CUDAAPI cuFuncSetSharedMemConfig(CUfunction hfunc, CUsharedconfig config)
{
    (void)config; /* bank width is not configurable on AMD GPUs or the CPU device */
    hipFunction_t f;
    return pyshim_function_resolve(hfunc, &f);
}
