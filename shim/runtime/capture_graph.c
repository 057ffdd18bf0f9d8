/*
 * cudaStreamBeginCaptureToGraph: HIP's call takes edge data of its own layout; the only
 * edges these backends capture are full-completion ones (all-zero edge data), so other
 * edge data is refused by name and none is passed on. The legacy stream is HIP's NULL
 * stream; a _ptsz entry point reads NULL as the per-thread stream.
 */
#define __CUDA_API_VERSION_INTERNAL 1
#include <cuda_runtime_api.h>

#include "cuda_side.h"

static cudaError_t begin(const char *name, cudaStream_t stream, cudaGraph_t graph,
                         const cudaGraphNode_t *deps, const cudaGraphEdgeData *data, size_t n,
                         enum cudaStreamCaptureMode mode, int per_thread)
{
    PYSHIM_RT_STICKY_CHECK();
    for (size_t i = 0; data != NULL && i < n; i++)
        if (data[i].from_port != 0 || data[i].to_port != 0 || data[i].type != 0) {
            pyshim_rt_log("%s: edge data other than full completion (dependency %zu)", name, i);
            return (cudaError_t)pyshim_rt_note_unsupported(name);
        }
    if (stream == cudaStreamLegacy)
        stream = NULL;
    else if (stream == NULL && per_thread)
        stream = cudaStreamPerThread;
    int rc = pyshim_rt_hip_begin_capture_to_graph(stream, graph, (void *const *)deps, n,
                                                  (int)mode);
    return rc == 0 ? cudaSuccess : pyshim_rt_fail((cudaError_t)rc);
}

cudaError_t cudaStreamBeginCaptureToGraph(cudaStream_t stream, cudaGraph_t graph,
                                          const cudaGraphNode_t *dependencies,
                                          const cudaGraphEdgeData *dependencyData,
                                          size_t numDependencies, enum cudaStreamCaptureMode mode)
{
    return begin("cudaStreamBeginCaptureToGraph", stream, graph, dependencies, dependencyData,
                 numDependencies, mode, 0);
}

cudaError_t cudaStreamBeginCaptureToGraph_ptsz(cudaStream_t stream, cudaGraph_t graph,
                                               const cudaGraphNode_t *dependencies,
                                               const cudaGraphEdgeData *dependencyData,
                                               size_t numDependencies,
                                               enum cudaStreamCaptureMode mode)
{
    return begin("cudaStreamBeginCaptureToGraph_ptsz", stream, graph, dependencies,
                 dependencyData, numDependencies, mode, 1);
}
