/*
 * cudaGraphAddNode (CUDA 12.2+'s one call for every node type): the tagged
 * cudaGraphNodeParams taken apart and handed to the typed call of its type, so each node
 * type behaves exactly as its own API does (the driver's cuGraphAddNode does the same in
 * shim/core/graph_node.c). Edge data, which HIP has no room for, must be NULL; types with
 * no typed call here (external semaphores, conditionals) and moved child graphs are
 * refused by name.
 */
#define __CUDA_API_VERSION_INTERNAL 1
#include <cuda_runtime_api.h>
#include <stddef.h>
#include <string.h>

#include "cuda_side.h"

/* cudaGraphNodeParams' kernel and memset members (the V2 structs of CUDA 12.2+) are their
 * typed calls' structs field for field, so they are copied whole; checked here. */
#define SAME_FIELD(a, b, f)                                                                  \
    (offsetof(struct a, f) == offsetof(struct b, f) &&                                     \
     sizeof(((struct a *)0)->f) == sizeof(((struct b *)0)->f))
_Static_assert(sizeof(struct cudaKernelNodeParamsV2) == sizeof(struct cudaKernelNodeParams) &&
                   SAME_FIELD(cudaKernelNodeParamsV2, cudaKernelNodeParams, func) &&
                   SAME_FIELD(cudaKernelNodeParamsV2, cudaKernelNodeParams, gridDim) &&
                   SAME_FIELD(cudaKernelNodeParamsV2, cudaKernelNodeParams, blockDim) &&
                   SAME_FIELD(cudaKernelNodeParamsV2, cudaKernelNodeParams, sharedMemBytes) &&
                   SAME_FIELD(cudaKernelNodeParamsV2, cudaKernelNodeParams, kernelParams) &&
                   SAME_FIELD(cudaKernelNodeParamsV2, cudaKernelNodeParams, extra),
               "cudaKernelNodeParamsV2");
_Static_assert(sizeof(struct cudaMemsetParamsV2) == sizeof(struct cudaMemsetParams) &&
                   SAME_FIELD(cudaMemsetParamsV2, cudaMemsetParams, dst) &&
                   SAME_FIELD(cudaMemsetParamsV2, cudaMemsetParams, pitch) &&
                   SAME_FIELD(cudaMemsetParamsV2, cudaMemsetParams, value) &&
                   SAME_FIELD(cudaMemsetParamsV2, cudaMemsetParams, elementSize) &&
                   SAME_FIELD(cudaMemsetParamsV2, cudaMemsetParams, width) &&
                   SAME_FIELD(cudaMemsetParamsV2, cudaMemsetParams, height),
               "cudaMemsetParamsV2");
#undef SAME_FIELD

static cudaError_t refused(const char *call, const char *why, int type)
{
    pyshim_rt_log("%s: %s (node type %d)", call, why, type);
    return pyshim_rt_fail(cudaErrorNotSupported);
}

static cudaError_t add_node(const char *call, cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
                            const cudaGraphNode_t *pDependencies,
                            const cudaGraphEdgeData *dependencyData, size_t numDependencies,
                            struct cudaGraphNodeParams *nodeParams)
{
    PYSHIM_RT_STICKY_CHECK();
    if (pGraphNode == NULL || graph == NULL || nodeParams == NULL) {
        pyshim_rt_log("%s: a NULL node, graph or parameters", call);
        return pyshim_rt_fail(cudaErrorInvalidValue);
    }
    if (dependencyData != NULL)
        return refused(call, "edge data has no HIP counterpart", (int)nodeParams->type);
    const cudaGraphNode_t *deps = pDependencies;
    size_t n = numDependencies;
    struct cudaGraphNodeParams *p = nodeParams;
    switch (p->type) {
    case cudaGraphNodeTypeKernel: {
        struct cudaKernelNodeParams k;
        memcpy(&k, &p->kernel, sizeof k);
        return cudaGraphAddKernelNode(pGraphNode, graph, deps, n, &k);
    }
    case cudaGraphNodeTypeMemcpy:
        if (p->memcpy.flags != 0)
            return refused(call, "memcpy node flags", (int)p->type);
        return cudaGraphAddMemcpyNode(pGraphNode, graph, deps, n, &p->memcpy.copyParams);
    case cudaGraphNodeTypeMemset: {
        struct cudaMemsetParams m;
        memcpy(&m, &p->memset, sizeof m);
        return cudaGraphAddMemsetNode(pGraphNode, graph, deps, n, &m);
    }
    case cudaGraphNodeTypeHost: {
        struct cudaHostNodeParams h = {p->host.fn, p->host.userData};
        return cudaGraphAddHostNode(pGraphNode, graph, deps, n, &h);
    }
    case cudaGraphNodeTypeGraph:
        if (p->graph.ownership != cudaGraphChildGraphOwnershipClone)
            return refused(call, "a child graph moved into its parent", (int)p->type);
        return cudaGraphAddChildGraphNode(pGraphNode, graph, deps, n, p->graph.graph);
    case cudaGraphNodeTypeEmpty: return cudaGraphAddEmptyNode(pGraphNode, graph, deps, n);
    case cudaGraphNodeTypeWaitEvent:
        return cudaGraphAddEventWaitNode(pGraphNode, graph, deps, n, p->eventWait.event);
    case cudaGraphNodeTypeEventRecord:
        return cudaGraphAddEventRecordNode(pGraphNode, graph, deps, n, p->eventRecord.event);
    case cudaGraphNodeTypeMemAlloc: {
        struct cudaMemAllocNodeParams a;
        memset(&a, 0, sizeof a);
        a.poolProps = p->alloc.poolProps;
        a.accessDescs = p->alloc.accessDescs;
        a.accessDescCount = p->alloc.accessDescCount;
        a.bytesize = p->alloc.bytesize;
        cudaError_t err = cudaGraphAddMemAllocNode(pGraphNode, graph, deps, n, &a);
        if (err == cudaSuccess)
            p->alloc.dptr = a.dptr;  /* an out field, as in the typed call */
        return err;
    }
    case cudaGraphNodeTypeMemFree:
        return cudaGraphAddMemFreeNode(pGraphNode, graph, deps, n, p->free.dptr);
    default:
        return refused(call, "no typed call for this node type here", (int)p->type);
    }
}

#if PYSHIM_CUDART_MAJOR == 12
/* CUDA 12's ABI: no edge data; its _v2 form has it (CUDA 13's plain one) */
cudaError_t cudaGraphAddNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
                             const cudaGraphNode_t *pDependencies, size_t numDependencies,
                             struct cudaGraphNodeParams *nodeParams)
{
    return add_node("cudaGraphAddNode", pGraphNode, graph, pDependencies, NULL, numDependencies,
                    nodeParams);
}

cudaError_t cudaGraphAddNode_v2(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
                                const cudaGraphNode_t *pDependencies,
                                const cudaGraphEdgeData *dependencyData, size_t numDependencies,
                                struct cudaGraphNodeParams *nodeParams)
{
    return add_node("cudaGraphAddNode_v2", pGraphNode, graph, pDependencies, dependencyData,
                    numDependencies, nodeParams);
}
#else
cudaError_t cudaGraphAddNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
                             const cudaGraphNode_t *pDependencies,
                             const cudaGraphEdgeData *dependencyData, size_t numDependencies,
                             struct cudaGraphNodeParams *nodeParams)
{
    return add_node("cudaGraphAddNode", pGraphNode, graph, pDependencies, dependencyData,
                    numDependencies, nodeParams);
}
#endif
