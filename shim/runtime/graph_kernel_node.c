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

/* cudaGraphKernelNode{Get,Set}Attribute: the attributes HIP's kernel nodes keep (access
 * policy window, cooperative, priority, memory-sync domain and map) through HIP, with
 * their CUDA numbers and union members; the others (cluster shapes, scheduling and carveout
 * hints, device-updatable nodes) are no kernel-node state any backend keeps: refused by
 * name. */
_Static_assert(sizeof(cudaLaunchAttributeValue) == 64, "CUDA's launch attribute value");
_Static_assert(cudaLaunchAttributeAccessPolicyWindow == 1 && cudaLaunchAttributeCooperative == 2 &&
                   cudaLaunchAttributePriority == 8 && cudaLaunchAttributeMemSyncDomainMap == 9 &&
                   cudaLaunchAttributeMemSyncDomain == 10,
               "HIP numbers these launch attributes as CUDA does");

static cudaError_t node_attr(const char *fn, cudaGraphNode_t node, cudaLaunchAttributeID attr,
                             int set, void *value)
{
    PYSHIM_RT_STICKY_CHECK();
    if (node == NULL || value == NULL)
        return pyshim_rt_fail(cudaErrorInvalidValue);
    switch (attr) {
    case cudaLaunchAttributeAccessPolicyWindow:
    case cudaLaunchAttributeCooperative:
    case cudaLaunchAttributePriority:
    case cudaLaunchAttributeMemSyncDomainMap:
    case cudaLaunchAttributeMemSyncDomain:
        break;
    default:
        pyshim_rt_log("%s: launch attribute %d is not kept by the backend's kernel nodes", fn,
                      (int)attr);
        return pyshim_rt_fail(cudaErrorNotSupported);
    }
    int rc = pyshim_rt_hip_kernel_node_attr(node, set, (int)attr, value);
    return rc != cudaSuccess ? pyshim_rt_fail(rc) : cudaSuccess;
}

cudaError_t cudaGraphKernelNodeSetAttribute(cudaGraphNode_t hNode, cudaLaunchAttributeID attr,
                                            const cudaLaunchAttributeValue *value)
{
    /* HIP only reads the value it is given to set */
    return node_attr("cudaGraphKernelNodeSetAttribute", hNode, attr, 1, (void *)value);
}

cudaError_t cudaGraphKernelNodeGetAttribute(cudaGraphNode_t hNode, cudaLaunchAttributeID attr,
                                            cudaLaunchAttributeValue *value_out)
{
    return node_attr("cudaGraphKernelNodeGetAttribute", hNode, attr, 0, value_out);
}
