/*
 * cudaGraphKernelNodeGetParams: the node's launch as HIP holds it, with the translated
 * kernel named again by what the program knows (the host stub it registered, or the
 * cudaKernel_t record of a library kernel). The argument pointers are the node's own
 * copies, as CUDA's are.
 */
#define __CUDA_API_VERSION_INTERNAL 1
#include <cuda_runtime_api.h>
#include <string.h>

#include "cuda_side.h"

cudaError_t cudaGraphKernelNodeGetParams(cudaGraphNode_t node,
                                         struct cudaKernelNodeParams *pNodeParams)
{
    PYSHIM_RT_STICKY_CHECK();
    if (node == NULL || pNodeParams == NULL)
        return pyshim_rt_fail(cudaErrorInvalidValue);
    void *fn = NULL, **args = NULL, **extra = NULL;
    unsigned grid[3], block[3], shmem = 0;
    int rc = pyshim_rt_hip_graph_kernel_get(node, &fn, grid, block, &shmem, &args, &extra);
    if (rc != cudaSuccess) {
        pyshim_rt_log("cudaGraphKernelNodeGetParams: not a kernel node (%s)",
                      cudaGetErrorName((cudaError_t)rc));
        return pyshim_rt_fail(rc);
    }
    const struct pyshim_rt_func *f = pyshim_rt_func_by_hip(fn);
    if (f == NULL) {
        pyshim_rt_log("cudaGraphKernelNodeGetParams: the node's kernel was not launched by a "
                      "registered host stub");
        return pyshim_rt_fail(cudaErrorInvalidDeviceFunction);
    }
    memset(pNodeParams, 0, sizeof *pNodeParams);
    pNodeParams->func = f->stub != NULL ? (void *)f->stub : (void *)f;
    pNodeParams->gridDim = (dim3){grid[0], grid[1], grid[2]};
    pNodeParams->blockDim = (dim3){block[0], block[1], block[2]};
    pNodeParams->sharedMemBytes = shmem;
    pNodeParams->kernelParams = args;
    pNodeParams->extra = extra;
    return cudaSuccess;
}
