/*
 * Graph nodes whose parameters hold shim objects or differ in layout from HIP's: kernel
 * nodes (a CUfunction/CUkernel of ours becomes the translated kernel's hipFunction_t),
 * memcpy nodes (CUDA_MEMCPY3D -> HIP_MEMCPY3D) and memset nodes (fields in another order).
 * The other graph calls forward as generated thunks.
 */
#include <string.h>

#include "internal.h"

static CUresult kernel_params(const CUDA_KERNEL_NODE_PARAMS *c, hipKernelNodeParams *h)
{
    if (c == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    hipFunction_t f;
    /* CUDA 12: `kern` (a CUkernel) takes precedence over `func` when set */
    CUresult rc = pyshim_function_resolve(c->kern ? (CUfunction)c->kern : c->func, &f);
    if (rc != CUDA_SUCCESS)
        return rc;
    memset(h, 0, sizeof *h);
    h->func = (void *)f;
    h->gridDim = (dim3){c->gridDimX, c->gridDimY, c->gridDimZ};
    h->blockDim = (dim3){c->blockDimX, c->blockDimY, c->blockDimZ};
    h->sharedMemBytes = c->sharedMemBytes;
    h->kernelParams = c->kernelParams;
    h->extra = c->extra;
    return CUDA_SUCCESS;
}

CUresult CUDAAPI cuGraphAddKernelNode_v2(CUgraphNode *phGraphNode, CUgraph hGraph,
                                         const CUgraphNode *dependencies,
                                         size_t numDependencies,
                                         const CUDA_KERNEL_NODE_PARAMS *nodeParams)
{
    if (phGraphNode == NULL || hGraph == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    hipKernelNodeParams h;
    CUresult rc = pyshim_need_ctx();
    if (rc == CUDA_SUCCESS)
        rc = kernel_params(nodeParams, &h);
    if (rc != CUDA_SUCCESS)
        return rc;
    return pyshim_cu_from_hip(hipGraphAddKernelNode((hipGraphNode_t *)phGraphNode,
                                                    (hipGraph_t)hGraph,
                                                    (const hipGraphNode_t *)dependencies,
                                                    numDependencies, &h));
}

CUresult CUDAAPI cuGraphExecKernelNodeSetParams_v2(CUgraphExec hGraphExec, CUgraphNode hNode,
                                                   const CUDA_KERNEL_NODE_PARAMS *nodeParams)
{
    hipKernelNodeParams h;
    CUresult rc = kernel_params(nodeParams, &h);
    if (rc != CUDA_SUCCESS)
        return rc;
    return pyshim_cu_from_hip(hipGraphExecKernelNodeSetParams((hipGraphExec_t)hGraphExec,
                                                              (hipGraphNode_t)hNode, &h));
}

/* CUDA 11's form: HIP's signature, the result enums have the same values */
#undef cuGraphExecUpdate
CUresult CUDAAPI cuGraphExecUpdate(CUgraphExec hGraphExec, CUgraph hGraph,
                                   CUgraphNode *hErrorNode_out,
                                   CUgraphExecUpdateResult *updateResult_out)
{
    return pyshim_cu_from_hip(hipGraphExecUpdate((hipGraphExec_t)hGraphExec, (hipGraph_t)hGraph,
                                                 (hipGraphNode_t *)hErrorNode_out,
                                                 (hipGraphExecUpdateResult *)updateResult_out));
}

/* CUDA 12's form: one result struct (CU_GRAPH_EXEC_UPDATE_* share HIP's values) */
CUresult CUDAAPI cuGraphExecUpdate_v2(CUgraphExec hGraphExec, CUgraph hGraph,
                                      CUgraphExecUpdateResultInfo *resultInfo)
{
    if (resultInfo == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    hipGraphNode_t node = NULL;
    hipGraphExecUpdateResult result = hipGraphExecUpdateError;
    hipError_t err = hipGraphExecUpdate((hipGraphExec_t)hGraphExec, (hipGraph_t)hGraph, &node,
                                        &result);
    resultInfo->result = (CUgraphExecUpdateResult)result;
    resultInfo->errorNode = (CUgraphNode)node;
    resultInfo->errorFromNode = NULL;
    return pyshim_cu_from_hip(err);
}

CUresult CUDAAPI cuGraphKernelNodeSetParams_v2(CUgraphNode hNode,
                                               const CUDA_KERNEL_NODE_PARAMS *nodeParams)
{
    hipKernelNodeParams h;
    CUresult rc = kernel_params(nodeParams, &h);
    if (rc != CUDA_SUCCESS)
        return rc;
    return pyshim_cu_from_hip(hipGraphKernelNodeSetParams((hipGraphNode_t)hNode, &h));
}

CUresult CUDAAPI cuGraphAddMemcpyNode(CUgraphNode *phGraphNode, CUgraph hGraph,
                                      const CUgraphNode *dependencies, size_t numDependencies,
                                      const CUDA_MEMCPY3D *copyParams, CUcontext ctx)
{
    if (phGraphNode == NULL || hGraph == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    HIP_MEMCPY3D h;
    CUcontext resolved = NULL;
    CUresult rc = pyshim_ctx_resolve(ctx, &resolved);
    if (rc == CUDA_SUCCESS)
        rc = pyshim_memcpy3d_to_hip(copyParams, &h);
    if (rc != CUDA_SUCCESS)
        return rc;
    /* the context was validated above and its device made current; HIP's context
     * argument is deprecated along with its context API */
    return pyshim_cu_from_hip(hipDrvGraphAddMemcpyNode(
        (hipGraphNode_t *)phGraphNode, (hipGraph_t)hGraph, (const hipGraphNode_t *)dependencies,
        numDependencies, &h, NULL));
}

CUresult CUDAAPI cuGraphAddMemsetNode(CUgraphNode *phGraphNode, CUgraph hGraph,
                                      const CUgraphNode *dependencies, size_t numDependencies,
                                      const CUDA_MEMSET_NODE_PARAMS *memsetParams,
                                      CUcontext ctx)
{
    if (phGraphNode == NULL || hGraph == NULL || memsetParams == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    CUcontext resolved = NULL;
    CUresult rc = pyshim_ctx_resolve(ctx, &resolved);
    if (rc != CUDA_SUCCESS)
        return rc;
    hipMemsetParams h;
    memset(&h, 0, sizeof h);
    h.dst = (void *)(uintptr_t)memsetParams->dst;
    h.pitch = memsetParams->pitch;
    h.value = memsetParams->value;
    h.elementSize = memsetParams->elementSize;
    h.width = memsetParams->width;
    h.height = memsetParams->height;
    return pyshim_cu_from_hip(hipDrvGraphAddMemsetNode(
        (hipGraphNode_t *)phGraphNode, (hipGraph_t)hGraph, (const hipGraphNode_t *)dependencies,
        numDependencies, &h, NULL));
}

/* CUDA_GRAPH_INSTANTIATE_PARAMS has its fields in another order than HIP's struct; an
 * upload (CUDA_GRAPH_INSTANTIATE_FLAG_UPLOAD) only moves work ahead of the first launch, so
 * instantiating without it gives the same graph. */
CUresult CUDAAPI cuGraphInstantiateWithParams(CUgraphExec *phGraphExec, CUgraph hGraph,
                                              CUDA_GRAPH_INSTANTIATE_PARAMS *instantiateParams)
{
    if (phGraphExec == NULL || hGraph == NULL || instantiateParams == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    CUresult rc = pyshim_need_ctx();
    if (rc != CUDA_SUCCESS)
        return rc;
    unsigned long long flags =
        instantiateParams->flags & ~(cuuint64_t)CUDA_GRAPH_INSTANTIATE_FLAG_UPLOAD;
    rc = pyshim_cu_from_hip(
        hipGraphInstantiateWithFlags((hipGraphExec_t *)phGraphExec, (hipGraph_t)hGraph, flags));
    instantiateParams->hErrNode_out = NULL;
    instantiateParams->result_out =
        rc == CUDA_SUCCESS ? CUDA_GRAPH_INSTANTIATE_SUCCESS : CUDA_GRAPH_INSTANTIATE_ERROR;
    return rc;
}

CUresult CUDAAPI cuGraphInstantiateWithParams_ptsz(CUgraphExec *phGraphExec, CUgraph hGraph,
                                                   CUDA_GRAPH_INSTANTIATE_PARAMS *instantiateParams)
{
    return cuGraphInstantiateWithParams(phGraphExec, hGraph, instantiateParams);
}
