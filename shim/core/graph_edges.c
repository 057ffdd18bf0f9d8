/*
 * A graph's edges through the driver API: CUDA 12.3 added edge data (ports and edge types
 * for programmatic dependent launch) to every call that adds or reads dependencies, and
 * CUDA 13's cuda.h names the _v2 forms by the plain names. HIP's calls carry no edge data:
 * the only edges these backends have are full-completion ones, whose edge data is all
 * zero. So an edge given with other data is refused by name, and a reader asking for edge
 * data gets zeros. The CUDA 11 forms (no edge data) are HIP's signatures: each is its _v2
 * form without edge data, so the two cannot drift apart.
 */
#include <stdio.h>
#include <string.h>

#include "internal.h"

#undef cuGraphAddDependencies
#undef cuGraphRemoveDependencies
#undef cuGraphGetEdges
#undef cuGraphNodeGetDependencies
#undef cuGraphNodeGetDependentNodes

CUresult CUDAAPI cuGraphAddDependencies(CUgraph hGraph, const CUgraphNode *from,
                                        const CUgraphNode *to, size_t numDependencies);
CUresult CUDAAPI cuGraphRemoveDependencies(CUgraph hGraph, const CUgraphNode *from,
                                           const CUgraphNode *to, size_t numDependencies);
CUresult CUDAAPI cuGraphGetEdges(CUgraph hGraph, CUgraphNode *from, CUgraphNode *to,
                                 size_t *numEdges);
CUresult CUDAAPI cuGraphNodeGetDependencies(CUgraphNode hNode, CUgraphNode *dependencies,
                                            size_t *numDependencies);
CUresult CUDAAPI cuGraphNodeGetDependentNodes(CUgraphNode hNode, CUgraphNode *dependentNodes,
                                              size_t *numDependentNodes);

CUresult pyshim_default_edges(const char *call, const char *edge, const CUgraphEdgeData *data,
                              size_t n)
{
    for (size_t i = 0; data != NULL && i < n; i++) {
        const CUgraphEdgeData *e = &data[i];
        if (e->from_port != 0 || e->to_port != 0 || e->type != 0) {
            char what[160];
            snprintf(what, sizeof what, "%s with non-default edge data (%s %zu: ports %u/%u, "
                     "type %u)", call, edge, i, e->from_port, e->to_port, e->type);
            pyshim_unsupported(what);
            return CUDA_ERROR_NOT_SUPPORTED;
        }
    }
    return CUDA_SUCCESS;
}

/* A reader's result: the edge data of its `*n` full-completion edges, when it asked for
 * them beside the node array they describe. */
static CUresult zero_edges(CUresult rc, const void *nodes, CUgraphEdgeData *data,
                           const size_t *n)
{
    if (rc == CUDA_SUCCESS && nodes != NULL && data != NULL && *n > 0)
        memset(data, 0, *n * sizeof *data);
    return rc;
}

CUresult CUDAAPI cuGraphAddDependencies_v2(CUgraph hGraph, const CUgraphNode *from,
                                           const CUgraphNode *to,
                                           const CUgraphEdgeData *edgeData,
                                           size_t numDependencies)
{
    CUresult rc = pyshim_default_edges("cuGraphAddDependencies_v2", "edge", edgeData,
                                       numDependencies);
    if (rc != CUDA_SUCCESS)
        return rc;
    return pyshim_cu_from_hip(hipGraphAddDependencies((hipGraph_t)hGraph,
                                                      (const hipGraphNode_t *)from,
                                                      (const hipGraphNode_t *)to,
                                                      numDependencies));
}

CUresult CUDAAPI cuGraphAddDependencies(CUgraph hGraph, const CUgraphNode *from,
                                        const CUgraphNode *to, size_t numDependencies)
{
    return cuGraphAddDependencies_v2(hGraph, from, to, NULL, numDependencies);
}

/* No edge with non-default data exists, so none can be removed (CUDA: invalid value) */
CUresult CUDAAPI cuGraphRemoveDependencies_v2(CUgraph hGraph, const CUgraphNode *from,
                                              const CUgraphNode *to,
                                              const CUgraphEdgeData *edgeData,
                                              size_t numDependencies)
{
    if (pyshim_default_edges("cuGraphRemoveDependencies_v2", "edge", edgeData,
                             numDependencies) != CUDA_SUCCESS)
        return CUDA_ERROR_INVALID_VALUE;
    return pyshim_cu_from_hip(hipGraphRemoveDependencies((hipGraph_t)hGraph,
                                                         (const hipGraphNode_t *)from,
                                                         (const hipGraphNode_t *)to,
                                                         numDependencies));
}

CUresult CUDAAPI cuGraphRemoveDependencies(CUgraph hGraph, const CUgraphNode *from,
                                           const CUgraphNode *to, size_t numDependencies)
{
    return cuGraphRemoveDependencies_v2(hGraph, from, to, NULL, numDependencies);
}

CUresult CUDAAPI cuGraphGetEdges_v2(CUgraph hGraph, CUgraphNode *from, CUgraphNode *to,
                                    CUgraphEdgeData *edgeData, size_t *numEdges)
{
    if (edgeData != NULL && from == NULL)
        return CUDA_ERROR_INVALID_VALUE;   /* edge data only beside the node arrays */
    return zero_edges(pyshim_cu_from_hip(hipGraphGetEdges((hipGraph_t)hGraph,
                                                          (hipGraphNode_t *)from,
                                                          (hipGraphNode_t *)to, numEdges)),
                      from, edgeData, numEdges);
}

CUresult CUDAAPI cuGraphGetEdges(CUgraph hGraph, CUgraphNode *from, CUgraphNode *to,
                                 size_t *numEdges)
{
    return cuGraphGetEdges_v2(hGraph, from, to, NULL, numEdges);
}

/* A node's dependencies or dependents: NAME_v2 on HIP's call, NAME (CUDA 11's) on it */
#define NODE_EDGES(NAME, HIP)                                                                \
    CUresult CUDAAPI NAME##_v2(CUgraphNode hNode, CUgraphNode *nodes,                        \
                               CUgraphEdgeData *edgeData, size_t *numNodes)                  \
    {                                                                                        \
        if (edgeData != NULL && nodes == NULL)                                               \
            return CUDA_ERROR_INVALID_VALUE;                                                 \
        return zero_edges(pyshim_cu_from_hip(HIP((hipGraphNode_t)hNode,                      \
                                                 (hipGraphNode_t *)nodes, numNodes)),        \
                          nodes, edgeData, numNodes);                                        \
    }                                                                                        \
    CUresult CUDAAPI NAME(CUgraphNode hNode, CUgraphNode *nodes, size_t *numNodes)           \
    {                                                                                        \
        return NAME##_v2(hNode, nodes, NULL, numNodes);                                      \
    }

NODE_EDGES(cuGraphNodeGetDependencies, hipGraphNodeGetDependencies)
NODE_EDGES(cuGraphNodeGetDependentNodes, hipGraphNodeGetDependentNodes)
