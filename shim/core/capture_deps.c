/*
 * cuStreamUpdateCaptureDependencies: CUDA 13's cuda.h names the _v2 form (with edge data)
 * by the plain name; HIP's call is CUDA 11's form. HIP captures only full-completion
 * edges, whose edge data is all zero, so other edge data is refused by name (graph_edges.c's
 * rule for the graph calls).
 */
#include "internal.h"

#undef cuStreamUpdateCaptureDependencies
#undef cuStreamUpdateCaptureDependencies_v2
CUresult CUDAAPI cuStreamUpdateCaptureDependencies(CUstream hStream, CUgraphNode *dependencies,
                                                   size_t numDependencies, unsigned int flags);
CUresult CUDAAPI cuStreamUpdateCaptureDependencies_ptsz(CUstream hStream,
                                                        CUgraphNode *dependencies,
                                                        size_t numDependencies,
                                                        unsigned int flags);
CUresult CUDAAPI cuStreamUpdateCaptureDependencies_v2(CUstream hStream, CUgraphNode *dependencies,
                                                      const CUgraphEdgeData *dependencyData,
                                                      size_t numDependencies, unsigned int flags);
CUresult CUDAAPI cuStreamUpdateCaptureDependencies_v2_ptsz(CUstream hStream,
                                                           CUgraphNode *dependencies,
                                                           const CUgraphEdgeData *dependencyData,
                                                           size_t numDependencies,
                                                           unsigned int flags);

static CUresult update(CUstream s, CUgraphNode *deps, const CUgraphEdgeData *data, size_t n,
                       unsigned flags, int pt)
{
    CUresult rc = pyshim_need_ctx();
    if (rc != CUDA_SUCCESS)
        return rc;
    rc = pyshim_default_edges("cuStreamUpdateCaptureDependencies", "dependency", data, n);
    if (rc != CUDA_SUCCESS)
        return rc;
    return pyshim_cu_from_hip(hipStreamUpdateCaptureDependencies(
        pyshim_hip_stream(s, pt), (hipGraphNode_t *)deps, n, flags));
}

CUresult CUDAAPI cuStreamUpdateCaptureDependencies(CUstream hStream, CUgraphNode *dependencies,
                                                   size_t numDependencies, unsigned int flags)
{
    return update(hStream, dependencies, NULL, numDependencies, flags, 0);
}

CUresult CUDAAPI cuStreamUpdateCaptureDependencies_ptsz(CUstream hStream,
                                                        CUgraphNode *dependencies,
                                                        size_t numDependencies,
                                                        unsigned int flags)
{
    return update(hStream, dependencies, NULL, numDependencies, flags, 1);
}

CUresult CUDAAPI cuStreamUpdateCaptureDependencies_v2(CUstream hStream, CUgraphNode *dependencies,
                                                      const CUgraphEdgeData *dependencyData,
                                                      size_t numDependencies, unsigned int flags)
{
    return update(hStream, dependencies, dependencyData, numDependencies, flags, 0);
}

CUresult CUDAAPI cuStreamUpdateCaptureDependencies_v2_ptsz(CUstream hStream,
                                                           CUgraphNode *dependencies,
                                                           const CUgraphEdgeData *dependencyData,
                                                           size_t numDependencies,
                                                           unsigned int flags)
{
    return update(hStream, dependencies, dependencyData, numDependencies, flags, 1);
}

/* cuStreamBeginCaptureToGraph: the same rule for the edge data of the initial dependencies;
 * HIP's edge data is laid out differently, so none is passed on. */
static CUresult begin_to_graph(CUstream s, CUgraph g, const CUgraphNode *deps,
                               const CUgraphEdgeData *data, size_t n, CUstreamCaptureMode mode,
                               int pt)
{
    CUresult rc = pyshim_need_ctx();
    if (rc != CUDA_SUCCESS)
        return rc;
    rc = pyshim_default_edges("cuStreamBeginCaptureToGraph", "dependency", data, n);
    if (rc != CUDA_SUCCESS)
        return rc;
    return pyshim_cu_from_hip(hipStreamBeginCaptureToGraph(
        pyshim_hip_stream(s, pt), (hipGraph_t)g, (const hipGraphNode_t *)deps, NULL, n,
        (hipStreamCaptureMode)mode));
}

#undef cuStreamBeginCaptureToGraph
CUresult CUDAAPI cuStreamBeginCaptureToGraph_ptsz(CUstream hStream, CUgraph hGraph,
                                                  const CUgraphNode *dependencies,
                                                  const CUgraphEdgeData *dependencyData,
                                                  size_t numDependencies,
                                                  CUstreamCaptureMode mode);

CUresult CUDAAPI cuStreamBeginCaptureToGraph(CUstream hStream, CUgraph hGraph,
                                             const CUgraphNode *dependencies,
                                             const CUgraphEdgeData *dependencyData,
                                             size_t numDependencies, CUstreamCaptureMode mode)
{
    return begin_to_graph(hStream, hGraph, dependencies, dependencyData, numDependencies, mode,
                          0);
}

CUresult CUDAAPI cuStreamBeginCaptureToGraph_ptsz(CUstream hStream, CUgraph hGraph,
                                                  const CUgraphNode *dependencies,
                                                  const CUgraphEdgeData *dependencyData,
                                                  size_t numDependencies,
                                                  CUstreamCaptureMode mode)
{
    return begin_to_graph(hStream, hGraph, dependencies, dependencyData, numDependencies, mode,
                          1);
}
