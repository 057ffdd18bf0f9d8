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
#include <string.h>

#include "cuda_side.h"

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
        memset(&k, 0, sizeof k);
        k.func = p->kernel.func;
        k.gridDim = p->kernel.gridDim;
        k.blockDim = p->kernel.blockDim;
        k.sharedMemBytes = p->kernel.sharedMemBytes;
        k.kernelParams = p->kernel.kernelParams;
        k.extra = p->kernel.extra;
        return cudaGraphAddKernelNode(pGraphNode, graph, deps, n, &k);
    }
    case cudaGraphNodeTypeMemcpy:
        if (p->memcpy.flags != 0)
            return refused(call, "memcpy node flags", (int)p->type);
        return cudaGraphAddMemcpyNode(pGraphNode, graph, deps, n, &p->memcpy.copyParams);
    case cudaGraphNodeTypeMemset: {
        struct cudaMemsetParams m;
        memset(&m, 0, sizeof m);
        m.dst = p->memset.dst;
        m.pitch = p->memset.pitch;
        m.value = p->memset.value;
        m.elementSize = p->memset.elementSize;
        m.width = p->memset.width;
        m.height = p->memset.height;
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
