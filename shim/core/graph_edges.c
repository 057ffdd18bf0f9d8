/*
 * A graph's edges through the driver API: CUDA 12.3 added edge data (ports and edge types
 * for programmatic dependent launch) to every call that adds or reads dependencies, and
 * CUDA 13's cuda.h names the _v2 forms by the plain names. HIP's calls carry no edge data:
 * the only edges these backends have are full-completion ones, whose edge data is all
 * zero. So an edge given with other data is refused by name, and a reader asking for edge
 * data gets zeros. The CUDA 11 forms (no edge data) are HIP's signatures.
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

/* Non-default edge data has no HIP counterpart: refused, naming the call. */
static CUresult default_edges(const char *call, const CUgraphEdgeData *data, size_t n)
{
    for (size_t i = 0; data != NULL && i < n; i++) {
        const CUgraphEdgeData *e = &data[i];
        if (e->from_port != 0 || e->to_port != 0 || e->type != 0) {
            char what[160];
            snprintf(what, sizeof what, "%s with non-default edge data (edge %zu: ports %u/%u, "
                     "type %u)", call, i, e->from_port, e->to_port, e->type);
            pyshim_unsupported(what);
            return CUDA_ERROR_NOT_SUPPORTED;
        }
    }
    return CUDA_SUCCESS;
}

/* The edge data of `n` full-completion edges, when the caller asked for it. */
static void zero_edges(CUgraphEdgeData *data, size_t n)
{
    if (data != NULL && n > 0)
        memset(data, 0, n * sizeof *data);
}

CUresult CUDAAPI cuGraphAddDependencies(CUgraph hGraph, const CUgraphNode *from,
                                        const CUgraphNode *to, size_t numDependencies)
{
    return pyshim_cu_from_hip(hipGraphAddDependencies((hipGraph_t)hGraph,
                                                      (const hipGraphNode_t *)from,
                                                      (const hipGraphNode_t *)to,
                                                      numDependencies));
}

CUresult CUDAAPI cuGraphAddDependencies_v2(CUgraph hGraph, const CUgraphNode *from,
                                           const CUgraphNode *to,
                                           const CUgraphEdgeData *edgeData,
                                           size_t numDependencies)
{
    CUresult rc = default_edges("cuGraphAddDependencies_v2", edgeData, numDependencies);
    if (rc != CUDA_SUCCESS)
        return rc;
    return cuGraphAddDependencies(hGraph, from, to, numDependencies);
}

CUresult CUDAAPI cuGraphRemoveDependencies(CUgraph hGraph, const CUgraphNode *from,
                                           const CUgraphNode *to, size_t numDependencies)
{
    return pyshim_cu_from_hip(hipGraphRemoveDependencies((hipGraph_t)hGraph,
                                                         (const hipGraphNode_t *)from,
                                                         (const hipGraphNode_t *)to,
                                                         numDependencies));
}

/* No edge with non-default data exists, so none can be removed (CUDA: invalid value) */
CUresult CUDAAPI cuGraphRemoveDependencies_v2(CUgraph hGraph, const CUgraphNode *from,
                                              const CUgraphNode *to,
                                              const CUgraphEdgeData *edgeData,
                                              size_t numDependencies)
{
    if (default_edges("cuGraphRemoveDependencies_v2", edgeData, numDependencies) !=
        CUDA_SUCCESS)
        return CUDA_ERROR_INVALID_VALUE;
    return cuGraphRemoveDependencies(hGraph, from, to, numDependencies);
}

CUresult CUDAAPI cuGraphGetEdges(CUgraph hGraph, CUgraphNode *from, CUgraphNode *to,
                                 size_t *numEdges)
{
    return pyshim_cu_from_hip(hipGraphGetEdges((hipGraph_t)hGraph, (hipGraphNode_t *)from,
                                               (hipGraphNode_t *)to, numEdges));
}

CUresult CUDAAPI cuGraphGetEdges_v2(CUgraph hGraph, CUgraphNode *from, CUgraphNode *to,
                                    CUgraphEdgeData *edgeData, size_t *numEdges)
{
    if (edgeData != NULL && from == NULL)
        return CUDA_ERROR_INVALID_VALUE;   /* edge data only beside the node arrays */
    CUresult rc = cuGraphGetEdges(hGraph, from, to, numEdges);
    if (rc == CUDA_SUCCESS && from != NULL)
        zero_edges(edgeData, *numEdges);
    return rc;
}

CUresult CUDAAPI cuGraphNodeGetDependencies(CUgraphNode hNode, CUgraphNode *dependencies,
                                            size_t *numDependencies)
{
    return pyshim_cu_from_hip(hipGraphNodeGetDependencies((hipGraphNode_t)hNode,
                                                          (hipGraphNode_t *)dependencies,
                                                          numDependencies));
}

CUresult CUDAAPI cuGraphNodeGetDependencies_v2(CUgraphNode hNode, CUgraphNode *dependencies,
                                               CUgraphEdgeData *edgeData,
                                               size_t *numDependencies)
{
    if (edgeData != NULL && dependencies == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    CUresult rc = cuGraphNodeGetDependencies(hNode, dependencies, numDependencies);
    if (rc == CUDA_SUCCESS && dependencies != NULL)
        zero_edges(edgeData, *numDependencies);
    return rc;
}

CUresult CUDAAPI cuGraphNodeGetDependentNodes(CUgraphNode hNode, CUgraphNode *dependentNodes,
                                              size_t *numDependentNodes)
{
    return pyshim_cu_from_hip(hipGraphNodeGetDependentNodes((hipGraphNode_t)hNode,
                                                            (hipGraphNode_t *)dependentNodes,
                                                            numDependentNodes));
}

CUresult CUDAAPI cuGraphNodeGetDependentNodes_v2(CUgraphNode hNode, CUgraphNode *dependentNodes,
                                                 CUgraphEdgeData *edgeData,
                                                 size_t *numDependentNodes)
{
    if (edgeData != NULL && dependentNodes == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    CUresult rc = cuGraphNodeGetDependentNodes(hNode, dependentNodes, numDependentNodes);
    if (rc == CUDA_SUCCESS && dependentNodes != NULL)
        zero_edges(edgeData, *numDependentNodes);
    return rc;
}
