/*
 * The HIP side of graph-node readers (the third libcudart file that includes HIP's
 * headers, beside backend.c and backend_adapt.c): a kernel node's launch as HIP holds it,
 * and stream capture into a graph the program gives.
 */
#include <hip/hip_runtime_api.h>

#include "internal.h"
#include "runtime_error_codes.h"

/* an older CPU device lacks it: the call then says so */
#pragma weak hipGraphKernelNodeGetParams

int pyshim_rt_hip_graph_kernel_get(void *node, void **fn, unsigned grid[3], unsigned block[3],
                                   unsigned *shmem, void ***args, void ***extra)
{
    if (hipGraphKernelNodeGetParams == NULL)
        return PYSHIM_RT_cudaErrorNotSupported;
    hipKernelNodeParams p;
    hipError_t err = hipGraphKernelNodeGetParams((hipGraphNode_t)node, &p);
    if (err != hipSuccess)
        return pyshim_rt_from_hip(err);
    *fn = p.func;
    grid[0] = p.gridDim.x, grid[1] = p.gridDim.y, grid[2] = p.gridDim.z;
    block[0] = p.blockDim.x, block[1] = p.blockDim.y, block[2] = p.blockDim.z;
    *shmem = p.sharedMemBytes;
    *args = p.kernelParams;
    *extra = p.extra;
    return 0;
}

#pragma weak hipStreamBeginCaptureToGraph

/* Capture into the program's graph after `deps`; the caller has checked the edge data is
 * all full-completion (HIP's edge data struct is laid out differently, so none is passed). */
int pyshim_rt_hip_begin_capture_to_graph(void *stream, void *graph, void *const *deps,
                                         size_t ndeps, int mode)
{
    if (hipStreamBeginCaptureToGraph == NULL)
        return PYSHIM_RT_cudaErrorNotSupported;
    return pyshim_rt_from_hip(hipStreamBeginCaptureToGraph(
        (hipStream_t)stream, (hipGraph_t)graph, (const hipGraphNode_t *)deps, NULL, ndeps,
        (hipStreamCaptureMode)mode));
}

#pragma weak hipGraphKernelNodeSetAttribute
#pragma weak hipGraphKernelNodeGetAttribute

/* A kernel node's launch attribute `id` (one HIP has: its number and its member of the
 * 64-byte value union are CUDA's); `value` is CUDA's union. */
int pyshim_rt_hip_kernel_node_attr(void *node, int set, int id, void *value)
{
    _Static_assert(sizeof(hipLaunchAttributeValue) == 64, "HIP's launch attribute value");
    if (hipGraphKernelNodeSetAttribute == NULL || hipGraphKernelNodeGetAttribute == NULL)
        return PYSHIM_RT_cudaErrorNotSupported;
    hipError_t err;
    if (set)
        err = hipGraphKernelNodeSetAttribute((hipGraphNode_t)node, (hipLaunchAttributeID)id,
                                             (const hipLaunchAttributeValue *)value);
    else
        err = hipGraphKernelNodeGetAttribute((hipGraphNode_t)node, (hipLaunchAttributeID)id,
                                             (hipLaunchAttributeValue *)value);
    return pyshim_rt_from_hip(err);
}
