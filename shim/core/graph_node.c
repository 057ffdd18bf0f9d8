/*
 * CUDA 12's polymorphic graph-node calls (cuGraphAddNode, cuGraphNodeSetParams,
 * cuGraphExecNodeSetParams): one CUgraphNodeParams tagged by node type, taken apart and
 * handed to the typed call of that type, so each node type behaves exactly as its own
 * API does (and a type the backend lacks fails with that call's own error and log line).
 * Types without a typed equivalent here (external semaphores, batch mem-ops,
 * conditionals) are refused by name.
 */
#include <stdio.h>
#include <string.h>

#include "internal.h"

static CUresult unsupported_type(const char *call, CUgraphNodeType type)
{
    static const char *names[] = {"kernel", "memcpy", "memset", "host", "graph", "empty",
                                  "wait event", "event record", "external semaphore signal",
                                  "external semaphore wait", "mem alloc", "mem free",
                                  "batch mem op", "conditional"};
    char what[128];
    unsigned t = (unsigned)type;
    if (t < sizeof names / sizeof names[0])
        snprintf(what, sizeof what, "%s for a %s node", call, names[t]);
    else
        snprintf(what, sizeof what, "%s for node type %u", call, t);
    pyshim_unsupported(what);
    return CUDA_ERROR_NOT_SUPPORTED;
}

/* CUDA_KERNEL_NODE_PARAMS_v3 (the union's) and _v2 (the typed calls') hold the same fields */
static void kernel_v2(const CUDA_KERNEL_NODE_PARAMS_v3 *k, CUDA_KERNEL_NODE_PARAMS_v2 *out)
{
    memset(out, 0, sizeof *out);
    out->func = k->func;
    out->gridDimX = k->gridDimX;
    out->gridDimY = k->gridDimY;
    out->gridDimZ = k->gridDimZ;
    out->blockDimX = k->blockDimX;
    out->blockDimY = k->blockDimY;
    out->blockDimZ = k->blockDimZ;
    out->sharedMemBytes = k->sharedMemBytes;
    out->kernelParams = k->kernelParams;
    out->extra = k->extra;
    out->kern = k->kern;
    out->ctx = k->ctx;
}

static void memset_v1(const CUDA_MEMSET_NODE_PARAMS_v2 *m, CUDA_MEMSET_NODE_PARAMS *out)
{
    memset(out, 0, sizeof *out);
    out->dst = m->dst;
    out->pitch = m->pitch;
    out->value = m->value;
    out->elementSize = m->elementSize;
    out->width = m->width;
    out->height = m->height;
}

static CUresult add_node(CUgraphNode *phGraphNode, CUgraph hGraph, const CUgraphNode *deps,
                         size_t ndeps, CUgraphNodeParams *p)
{
    if (phGraphNode == NULL || hGraph == NULL || p == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    switch (p->type) {
    case CU_GRAPH_NODE_TYPE_KERNEL: {
        CUDA_KERNEL_NODE_PARAMS_v2 k;
        kernel_v2(&p->kernel, &k);
        return cuGraphAddKernelNode_v2(phGraphNode, hGraph, deps, ndeps, &k);
    }
    case CU_GRAPH_NODE_TYPE_MEMCPY:
        if (p->memcpy.flags != 0 || p->memcpy.reserved != 0)
            return CUDA_ERROR_INVALID_VALUE;
        return cuGraphAddMemcpyNode(phGraphNode, hGraph, deps, ndeps, &p->memcpy.copyParams,
                                    p->memcpy.copyCtx);
    case CU_GRAPH_NODE_TYPE_MEMSET: {
        CUDA_MEMSET_NODE_PARAMS m;
        memset_v1(&p->memset, &m);
        return cuGraphAddMemsetNode(phGraphNode, hGraph, deps, ndeps, &m, p->memset.ctx);
    }
    case CU_GRAPH_NODE_TYPE_HOST: {
        CUDA_HOST_NODE_PARAMS h = {p->host.fn, p->host.userData};
        return cuGraphAddHostNode(phGraphNode, hGraph, deps, ndeps, &h);
    }
    case CU_GRAPH_NODE_TYPE_GRAPH:
        /* the typed call clones the child; moving it in has no typed equivalent */
        if (p->graph.ownership != CU_GRAPH_CHILD_GRAPH_OWNERSHIP_CLONE)
            return unsupported_type("cuGraphAddNode (CU_GRAPH_CHILD_GRAPH_OWNERSHIP_MOVE)",
                                    p->type);
        return cuGraphAddChildGraphNode(phGraphNode, hGraph, deps, ndeps, p->graph.graph);
    case CU_GRAPH_NODE_TYPE_EMPTY:
        return cuGraphAddEmptyNode(phGraphNode, hGraph, deps, ndeps);
    case CU_GRAPH_NODE_TYPE_WAIT_EVENT:
        return cuGraphAddEventWaitNode(phGraphNode, hGraph, deps, ndeps, p->eventWait.event);
    case CU_GRAPH_NODE_TYPE_EVENT_RECORD:
        return cuGraphAddEventRecordNode(phGraphNode, hGraph, deps, ndeps,
                                         p->eventRecord.event);
    case CU_GRAPH_NODE_TYPE_MEM_ALLOC: {
        CUDA_MEM_ALLOC_NODE_PARAMS_v1 a;
        memset(&a, 0, sizeof a);
        a.poolProps = p->alloc.poolProps;
        a.accessDescs = p->alloc.accessDescs;
        a.accessDescCount = p->alloc.accessDescCount;
        a.bytesize = p->alloc.bytesize;
        CUresult rc = cuGraphAddMemAllocNode(phGraphNode, hGraph, deps, ndeps, &a);
        if (rc == CUDA_SUCCESS)
            p->alloc.dptr = a.dptr; /* "out: address of the allocation" */
        return rc;
    }
    case CU_GRAPH_NODE_TYPE_MEM_FREE:
        return cuGraphAddMemFreeNode(phGraphNode, hGraph, deps, ndeps, p->free.dptr);
    default:
        return unsupported_type("cuGraphAddNode", p->type);
    }
}

/* CUDA 12.2's form, without edge data */
#undef cuGraphAddNode
CUresult CUDAAPI cuGraphAddNode(CUgraphNode *phGraphNode, CUgraph hGraph,
                                const CUgraphNode *dependencies, size_t numDependencies,
                                CUgraphNodeParams *nodeParams);
CUresult CUDAAPI cuGraphAddNode(CUgraphNode *phGraphNode, CUgraph hGraph,
                                const CUgraphNode *dependencies, size_t numDependencies,
                                CUgraphNodeParams *nodeParams)
{
    return add_node(phGraphNode, hGraph, dependencies, numDependencies, nodeParams);
}

/* CUDA 12.3's: edge data per dependency. Only full-completion edges (all zero, what NULL
 * means) exist on these backends; programmatic ports are refused by name. */
CUresult CUDAAPI cuGraphAddNode_v2(CUgraphNode *phGraphNode, CUgraph hGraph,
                                   const CUgraphNode *dependencies,
                                   const CUgraphEdgeData *dependencyData,
                                   size_t numDependencies, CUgraphNodeParams *nodeParams)
{
    for (size_t i = 0; dependencyData != NULL && i < numDependencies; i++) {
        const CUgraphEdgeData *e = &dependencyData[i];
        if (e->from_port != 0 || e->to_port != 0 || e->type != 0) {
            pyshim_unsupported("cuGraphAddNode_v2 with non-default edge data (ports/types)");
            return CUDA_ERROR_NOT_SUPPORTED;
        }
    }
    return add_node(phGraphNode, hGraph, dependencies, numDependencies, nodeParams);
}

CUresult CUDAAPI cuGraphNodeSetParams(CUgraphNode hNode, CUgraphNodeParams *nodeParams)
{
    CUgraphNodeParams *p = nodeParams;
    if (hNode == NULL || p == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    switch (p->type) {
    case CU_GRAPH_NODE_TYPE_KERNEL: {
        CUDA_KERNEL_NODE_PARAMS_v2 k;
        kernel_v2(&p->kernel, &k);
        return cuGraphKernelNodeSetParams_v2(hNode, &k);
    }
    case CU_GRAPH_NODE_TYPE_MEMCPY:
        return cuGraphMemcpyNodeSetParams(hNode, &p->memcpy.copyParams);
    case CU_GRAPH_NODE_TYPE_MEMSET: {
        CUDA_MEMSET_NODE_PARAMS m;
        memset_v1(&p->memset, &m);
        return cuGraphMemsetNodeSetParams(hNode, &m);
    }
    case CU_GRAPH_NODE_TYPE_HOST: {
        CUDA_HOST_NODE_PARAMS h = {p->host.fn, p->host.userData};
        return cuGraphHostNodeSetParams(hNode, &h);
    }
    case CU_GRAPH_NODE_TYPE_EMPTY:
        return CUDA_SUCCESS; /* nothing to set; the backend checks the node on use */
    case CU_GRAPH_NODE_TYPE_WAIT_EVENT:
        return cuGraphEventWaitNodeSetEvent(hNode, p->eventWait.event);
    case CU_GRAPH_NODE_TYPE_EVENT_RECORD:
        return cuGraphEventRecordNodeSetEvent(hNode, p->eventRecord.event);
    case CU_GRAPH_NODE_TYPE_MEM_ALLOC:
    case CU_GRAPH_NODE_TYPE_MEM_FREE:
        /* "Modifying parameters is not supported for node types MEM_ALLOC and MEM_FREE" */
        return CUDA_ERROR_INVALID_VALUE;
    default:
        return unsupported_type("cuGraphNodeSetParams", p->type);
    }
}

CUresult CUDAAPI cuGraphExecNodeSetParams(CUgraphExec hGraphExec, CUgraphNode hNode,
                                          CUgraphNodeParams *nodeParams)
{
    CUgraphNodeParams *p = nodeParams;
    if (hGraphExec == NULL || hNode == NULL || p == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    switch (p->type) {
    case CU_GRAPH_NODE_TYPE_KERNEL: {
        CUDA_KERNEL_NODE_PARAMS_v2 k;
        kernel_v2(&p->kernel, &k);
        return cuGraphExecKernelNodeSetParams_v2(hGraphExec, hNode, &k);
    }
    case CU_GRAPH_NODE_TYPE_MEMCPY:
        return cuGraphExecMemcpyNodeSetParams(hGraphExec, hNode, &p->memcpy.copyParams,
                                              p->memcpy.copyCtx);
    case CU_GRAPH_NODE_TYPE_MEMSET: {
        CUDA_MEMSET_NODE_PARAMS m;
        memset_v1(&p->memset, &m);
        return cuGraphExecMemsetNodeSetParams(hGraphExec, hNode, &m, p->memset.ctx);
    }
    case CU_GRAPH_NODE_TYPE_HOST: {
        CUDA_HOST_NODE_PARAMS h = {p->host.fn, p->host.userData};
        return cuGraphExecHostNodeSetParams(hGraphExec, hNode, &h);
    }
    case CU_GRAPH_NODE_TYPE_GRAPH:
        return cuGraphExecChildGraphNodeSetParams(hGraphExec, hNode, p->graph.graph);
    case CU_GRAPH_NODE_TYPE_WAIT_EVENT:
        return cuGraphExecEventWaitNodeSetEvent(hGraphExec, hNode, p->eventWait.event);
    case CU_GRAPH_NODE_TYPE_EVENT_RECORD:
        return cuGraphExecEventRecordNodeSetEvent(hGraphExec, hNode, p->eventRecord.event);
    case CU_GRAPH_NODE_TYPE_MEM_ALLOC:
    case CU_GRAPH_NODE_TYPE_MEM_FREE:
        return CUDA_ERROR_INVALID_VALUE;
    default:
        return unsupported_type("cuGraphExecNodeSetParams", p->type);
    }
}

/* ---- the typed copy/memset node setters the polymorphic calls reach ---- */

static CUmemorytype cu_memtype(hipMemoryType t)
{
    switch (t) {
    case hipMemoryTypeHost: return CU_MEMORYTYPE_HOST;
    case hipMemoryTypeDevice: return CU_MEMORYTYPE_DEVICE;
    case hipMemoryTypeUnified: return CU_MEMORYTYPE_UNIFIED;
    case hipMemoryTypeArray: return CU_MEMORYTYPE_ARRAY;
    default: return (CUmemorytype)0;
    }
}

/* the inverse of pyshim_memcpy3d_to_hip */
static void memcpy3d_from_hip(const HIP_MEMCPY3D *h, CUDA_MEMCPY3D *c)
{
    memset(c, 0, sizeof *c);
    c->srcArray = (CUarray)h->srcArray;
    c->dstArray = (CUarray)h->dstArray;
    c->srcXInBytes = h->srcXInBytes;
    c->srcY = h->srcY;
    c->srcZ = h->srcZ;
    c->srcLOD = h->srcLOD;
    c->srcMemoryType = cu_memtype(h->srcMemoryType);
    c->srcHost = h->srcHost;
    c->srcDevice = (CUdeviceptr)(uintptr_t)h->srcDevice;
    c->srcPitch = h->srcPitch;
    c->srcHeight = h->srcHeight;
    c->dstXInBytes = h->dstXInBytes;
    c->dstY = h->dstY;
    c->dstZ = h->dstZ;
    c->dstLOD = h->dstLOD;
    c->dstMemoryType = cu_memtype(h->dstMemoryType);
    c->dstHost = h->dstHost;
    c->dstDevice = (CUdeviceptr)(uintptr_t)h->dstDevice;
    c->dstPitch = h->dstPitch;
    c->dstHeight = h->dstHeight;
    c->WidthInBytes = h->WidthInBytes;
    c->Height = h->Height;
    c->Depth = h->Depth;
}

static hipMemsetParams hip_memset(const CUDA_MEMSET_NODE_PARAMS *m)
{
    hipMemsetParams h;
    memset(&h, 0, sizeof h);
    h.dst = (void *)(uintptr_t)m->dst;
    h.pitch = m->pitch;
    h.value = m->value;
    h.elementSize = m->elementSize;
    h.width = m->width;
    h.height = m->height;
    return h;
}

CUresult CUDAAPI cuGraphMemcpyNodeGetParams(CUgraphNode hNode, CUDA_MEMCPY3D *nodeParams)
{
    if (hNode == NULL || nodeParams == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    HIP_MEMCPY3D h;
    hipError_t err = hipDrvGraphMemcpyNodeGetParams((hipGraphNode_t)hNode, &h);
    if (err == hipSuccess)
        memcpy3d_from_hip(&h, nodeParams);
    return pyshim_cu_from_hip(err);
}

CUresult CUDAAPI cuGraphMemcpyNodeSetParams(CUgraphNode hNode, const CUDA_MEMCPY3D *nodeParams)
{
    if (hNode == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    HIP_MEMCPY3D h;
    CUresult rc = pyshim_memcpy3d_to_hip(nodeParams, &h);
    if (rc != CUDA_SUCCESS)
        return rc;
    return pyshim_cu_from_hip(hipDrvGraphMemcpyNodeSetParams((hipGraphNode_t)hNode, &h));
}

CUresult CUDAAPI cuGraphExecMemcpyNodeSetParams(CUgraphExec hGraphExec, CUgraphNode hNode,
                                                const CUDA_MEMCPY3D *copyParams, CUcontext ctx)
{
    if (hGraphExec == NULL || hNode == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    CUcontext resolved = NULL;
    HIP_MEMCPY3D h;
    CUresult rc = pyshim_ctx_resolve(ctx, &resolved);
    if (rc == CUDA_SUCCESS)
        rc = pyshim_memcpy3d_to_hip(copyParams, &h);
    if (rc != CUDA_SUCCESS)
        return rc;
    return pyshim_cu_from_hip(hipDrvGraphExecMemcpyNodeSetParams(
        (hipGraphExec_t)hGraphExec, (hipGraphNode_t)hNode, &h, NULL));
}

CUresult CUDAAPI cuGraphMemsetNodeSetParams(CUgraphNode hNode,
                                            const CUDA_MEMSET_NODE_PARAMS *nodeParams)
{
    if (hNode == NULL || nodeParams == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    hipMemsetParams h = hip_memset(nodeParams);
    return pyshim_cu_from_hip(hipGraphMemsetNodeSetParams((hipGraphNode_t)hNode, &h));
}

CUresult CUDAAPI cuGraphMemsetNodeGetParams(CUgraphNode hNode, CUDA_MEMSET_NODE_PARAMS *nodeParams)
{
    if (hNode == NULL || nodeParams == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    hipMemsetParams h;
    CUresult rc = pyshim_cu_from_hip(hipGraphMemsetNodeGetParams((hipGraphNode_t)hNode, &h));
    if (rc != CUDA_SUCCESS)
        return rc;
    memset(nodeParams, 0, sizeof *nodeParams);
    nodeParams->dst = (CUdeviceptr)(uintptr_t)h.dst;
    nodeParams->pitch = h.pitch;
    nodeParams->value = h.value;
    nodeParams->elementSize = h.elementSize;
    nodeParams->width = h.width;
    nodeParams->height = h.height;
    return CUDA_SUCCESS;
}

CUresult CUDAAPI cuGraphExecMemsetNodeSetParams(CUgraphExec hGraphExec, CUgraphNode hNode,
                                                const CUDA_MEMSET_NODE_PARAMS *memsetParams,
                                                CUcontext ctx)
{
    if (hGraphExec == NULL || hNode == NULL || memsetParams == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    CUcontext resolved = NULL;
    CUresult rc = pyshim_ctx_resolve(ctx, &resolved);
    if (rc != CUDA_SUCCESS)
        return rc;
    hipMemsetParams h = hip_memset(memsetParams);
    /* the context was validated above; HIP's context argument is deprecated */
    return pyshim_cu_from_hip(hipDrvGraphExecMemsetNodeSetParams(
        (hipGraphExec_t)hGraphExec, (hipGraphNode_t)hNode, &h, NULL));
}

/* HIP numbers node types as CUDA does up to memory-free (11); its symbol copies are copies */
CUresult CUDAAPI cuGraphNodeGetType(CUgraphNode hNode, CUgraphNodeType *type)
{
    if (hNode == NULL || type == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    hipGraphNodeType h;
    hipError_t err = hipGraphNodeGetType((hipGraphNode_t)hNode, &h);
    if (err != hipSuccess)
        return pyshim_cu_from_hip(err);
    if (h == hipGraphNodeTypeMemcpyFromSymbol || h == hipGraphNodeTypeMemcpyToSymbol)
        *type = CU_GRAPH_NODE_TYPE_MEMCPY;
    else if (h == hipGraphNodeTypeBatchMemOp)
        *type = CU_GRAPH_NODE_TYPE_BATCH_MEM_OP;
    else if ((int)h <= (int)hipGraphNodeTypeMemFree)
        *type = (CUgraphNodeType)h;
    else
        return unsupported_type("cuGraphNodeGetType (a HIP node type CUDA lacks)", (CUgraphNodeType)h);
    return CUDA_SUCCESS;
}
