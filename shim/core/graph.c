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
    if (rc == CUDA_SUCCESS)
        rc = pyshim_function_refused(c->kern ? (CUfunction)c->kern : c->func);
    if (rc != CUDA_SUCCESS)
        return rc;
    /* cuGraphKernelNodeGetParams names the kernel back by the handle given */
    pyshim_graph_kernel_note(f, c->kern ? (CUfunction)c->kern : c->func, c->kern != NULL);
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

/* CUDA 12's instantiation with parameters (cuda.core's): CUDA_GRAPH_INSTANTIATE_PARAMS and
 * hipGraphInstantiateParams hold the same fields in another order; the result codes are
 * numbered alike. */
#pragma weak hipGraphInstantiateWithParams
static CUresult instantiate_with_params(CUgraphExec *phGraphExec, CUgraph hGraph,
                                        CUDA_GRAPH_INSTANTIATE_PARAMS *p, int per_thread)
{
    if (phGraphExec == NULL || hGraph == NULL || p == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    CUresult rc = pyshim_need_ctx();
    if (rc != CUDA_SUCCESS)
        return rc;
    if (hipGraphInstantiateWithParams == NULL) {
        pyshim_unsupported("cuGraphInstantiateWithParams (the backend has no "
                           "hipGraphInstantiateWithParams)");
        return CUDA_ERROR_NOT_SUPPORTED;
    }
    hipGraphInstantiateParams h;
    memset(&h, 0, sizeof h);
    h.flags = p->flags;
    h.uploadStream = pyshim_hip_stream(p->hUploadStream, per_thread);
    hipGraphExec_t exec = NULL;
    hipError_t err = hipGraphInstantiateWithParams(&exec, (hipGraph_t)hGraph, &h);
    p->hErrNode_out = (CUgraphNode)h.errNode_out;
    p->result_out = (CUgraphInstantiateResult)h.result_out;
    if (err == hipSuccess)
        *phGraphExec = (CUgraphExec)exec;
    return pyshim_cu_from_hip(err);
}

CUresult CUDAAPI cuGraphInstantiateWithParams(CUgraphExec *phGraphExec, CUgraph hGraph,
                                              CUDA_GRAPH_INSTANTIATE_PARAMS *instantiateParams)
{
    return instantiate_with_params(phGraphExec, hGraph, instantiateParams, 0);
}

CUresult CUDAAPI cuGraphInstantiateWithParams_ptsz(CUgraphExec *phGraphExec, CUgraph hGraph,
                                                   CUDA_GRAPH_INSTANTIATE_PARAMS *instantiateParams);
CUresult CUDAAPI cuGraphInstantiateWithParams_ptsz(CUgraphExec *phGraphExec, CUgraph hGraph,
                                                   CUDA_GRAPH_INSTANTIATE_PARAMS *instantiateParams)
{
    return instantiate_with_params(phGraphExec, hGraph, instantiateParams, 1);
}
