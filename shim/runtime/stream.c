/*
 * Runtime calls whose arguments need more than a mechanical conversion: stream callbacks
 * (CUDA's callback receives the program's stream handle and a cudaError_t, through a
 * trampoline) and cudaPointerGetAttributes (a struct of another layout).
 */
#define __CUDA_API_VERSION_INTERNAL 1
#include <cuda_runtime_api.h>
#include <stdlib.h>

#include "cuda_side.h"

struct user_callback {
    cudaStreamCallback_t fn;
    cudaStream_t stream; /* as the program named it */
    void *data;
};

static void call_user(void *ctx, int status)
{
    struct user_callback cb = *(struct user_callback *)ctx;
    free(ctx);
    cb.fn(cb.stream, (cudaError_t)status, cb.data);
}

static cudaError_t add_callback(cudaStream_t stream, cudaStreamCallback_t callback,
                                void *userData, unsigned int flags, int per_thread)
{
    PYSHIM_RT_STICKY_CHECK();
    if (callback == NULL || flags != 0) /* CUDA reserves flags: must be 0 */
        return pyshim_rt_fail(cudaErrorInvalidValue);
    struct user_callback *cb = malloc(sizeof *cb);
    if (cb == NULL)
        return pyshim_rt_fail(cudaErrorMemoryAllocation);
    *cb = (struct user_callback){callback, stream, userData};
    void *hip = stream;
    if (stream == cudaStreamLegacy)
        hip = NULL;
    else if (stream == NULL && per_thread)
        hip = cudaStreamPerThread;
    int rc = pyshim_rt_hip_stream_callback(hip, call_user, cb, flags);
    if (rc != cudaSuccess) {
        free(cb);
        return pyshim_rt_fail(rc);
    }
    return cudaSuccess;
}

cudaError_t cudaStreamAddCallback(cudaStream_t stream, cudaStreamCallback_t callback,
                                  void *userData, unsigned int flags)
{
    return add_callback(stream, callback, userData, flags, 0);
}

cudaError_t cudaStreamAddCallback_ptsz(cudaStream_t stream, cudaStreamCallback_t callback,
                                       void *userData, unsigned int flags)
{
    return add_callback(stream, callback, userData, flags, 1);
}

cudaError_t cudaPointerGetAttributes(struct cudaPointerAttributes *attributes, const void *ptr)
{
    PYSHIM_RT_STICKY_CHECK();
    if (attributes == NULL)
        return pyshim_rt_fail(cudaErrorInvalidValue);
    struct pyshim_rt_pointer_attrs a;
    int rc = pyshim_rt_hip_pointer_attrs(ptr, &a);
    if (rc != cudaSuccess)
        return pyshim_rt_fail(rc);
    attributes->type = (enum cudaMemoryType)a.type;
    attributes->device = a.device;
    attributes->devicePointer = a.device_pointer;
    attributes->hostPointer = a.host_pointer;
    return cudaSuccess;
}

/* cudaStreamGetCaptureInfo: CUDA 13's one (7 parameters), CUDA 12's _v2 (6) and _v3 (7).
 * Edges carry no data here (HIP's graphs have none), which CUDA reports as NULL. */
static cudaError_t capture_info(cudaStream_t stream, int per_thread,
                                enum cudaStreamCaptureStatus *status, unsigned long long *id,
                                cudaGraph_t *graph, const cudaGraphNode_t **deps,
                                const cudaGraphEdgeData **edges, size_t *num_deps)
{
    PYSHIM_RT_STICKY_CHECK();
    if (status == NULL)
        return pyshim_rt_fail(cudaErrorInvalidValue);
    if (stream == cudaStreamLegacy)
        stream = NULL;
    else if (stream == NULL && per_thread)
        stream = cudaStreamPerThread;
    int st = 0, have_graph = 0;
    unsigned long long cid = 0;
    void *g = NULL;
    const void *d = NULL;
    size_t n = 0;
    int rc = pyshim_rt_hip_capture_info(stream, &st, &cid, &g, &d, &n, &have_graph);
    if (rc != cudaSuccess)
        return pyshim_rt_fail(rc);
    if (!have_graph && st == cudaStreamCaptureStatusActive &&
        (graph != NULL || deps != NULL || num_deps != NULL))
        return (cudaError_t)pyshim_rt_note_unsupported(
            "cudaStreamGetCaptureInfo (the backend does not report the capture's graph)");
    *status = (enum cudaStreamCaptureStatus)st;
    if (id != NULL)
        *id = cid;
    if (graph != NULL)
        *graph = (cudaGraph_t)g;
    if (deps != NULL)
        *deps = (const cudaGraphNode_t *)d;
    if (edges != NULL)
        *edges = NULL;
    if (num_deps != NULL)
        *num_deps = n;
    return cudaSuccess;
}

#if PYSHIM_CUDART_MAJOR == 12
cudaError_t cudaStreamGetCaptureInfo_v2(cudaStream_t stream,
                                        enum cudaStreamCaptureStatus *captureStatus_out,
                                        unsigned long long *id_out, cudaGraph_t *graph_out,
                                        const cudaGraphNode_t **dependencies_out,
                                        size_t *numDependencies_out)
{
    return capture_info(stream, 0, captureStatus_out, id_out, graph_out, dependencies_out,
                        NULL, numDependencies_out);
}

cudaError_t cudaStreamGetCaptureInfo_v2_ptsz(cudaStream_t stream,
                                             enum cudaStreamCaptureStatus *captureStatus_out,
                                             unsigned long long *id_out, cudaGraph_t *graph_out,
                                             const cudaGraphNode_t **dependencies_out,
                                             size_t *numDependencies_out);
cudaError_t cudaStreamGetCaptureInfo_v2_ptsz(cudaStream_t stream,
                                             enum cudaStreamCaptureStatus *captureStatus_out,
                                             unsigned long long *id_out, cudaGraph_t *graph_out,
                                             const cudaGraphNode_t **dependencies_out,
                                             size_t *numDependencies_out)
{
    return capture_info(stream, 1, captureStatus_out, id_out, graph_out, dependencies_out,
                        NULL, numDependencies_out);
}

cudaError_t cudaStreamGetCaptureInfo_v3(cudaStream_t stream,
                                        enum cudaStreamCaptureStatus *captureStatus_out,
                                        unsigned long long *id_out, cudaGraph_t *graph_out,
                                        const cudaGraphNode_t **dependencies_out,
                                        const cudaGraphEdgeData **edgeData_out,
                                        size_t *numDependencies_out)
{
    return capture_info(stream, 0, captureStatus_out, id_out, graph_out, dependencies_out,
                        edgeData_out, numDependencies_out);
}

cudaError_t cudaStreamGetCaptureInfo_v3_ptsz(cudaStream_t stream,
                                             enum cudaStreamCaptureStatus *captureStatus_out,
                                             unsigned long long *id_out, cudaGraph_t *graph_out,
                                             const cudaGraphNode_t **dependencies_out,
                                             const cudaGraphEdgeData **edgeData_out,
                                             size_t *numDependencies_out);
cudaError_t cudaStreamGetCaptureInfo_v3_ptsz(cudaStream_t stream,
                                             enum cudaStreamCaptureStatus *captureStatus_out,
                                             unsigned long long *id_out, cudaGraph_t *graph_out,
                                             const cudaGraphNode_t **dependencies_out,
                                             const cudaGraphEdgeData **edgeData_out,
                                             size_t *numDependencies_out)
{
    return capture_info(stream, 1, captureStatus_out, id_out, graph_out, dependencies_out,
                        edgeData_out, numDependencies_out);
}
#else
cudaError_t cudaStreamGetCaptureInfo(cudaStream_t stream,
                                     enum cudaStreamCaptureStatus *captureStatus_out,
                                     unsigned long long *id_out, cudaGraph_t *graph_out,
                                     const cudaGraphNode_t **dependencies_out,
                                     const cudaGraphEdgeData **edgeData_out,
                                     size_t *numDependencies_out)
{
    return capture_info(stream, 0, captureStatus_out, id_out, graph_out, dependencies_out,
                        edgeData_out, numDependencies_out);
}

cudaError_t cudaStreamGetCaptureInfo_ptsz(cudaStream_t stream,
                                          enum cudaStreamCaptureStatus *captureStatus_out,
                                          unsigned long long *id_out, cudaGraph_t *graph_out,
                                          const cudaGraphNode_t **dependencies_out,
                                          const cudaGraphEdgeData **edgeData_out,
                                          size_t *numDependencies_out);
cudaError_t cudaStreamGetCaptureInfo_ptsz(cudaStream_t stream,
                                          enum cudaStreamCaptureStatus *captureStatus_out,
                                          unsigned long long *id_out, cudaGraph_t *graph_out,
                                          const cudaGraphNode_t **dependencies_out,
                                          const cudaGraphEdgeData **edgeData_out,
                                          size_t *numDependencies_out)
{
    return capture_info(stream, 1, captureStatus_out, id_out, graph_out, dependencies_out,
                        edgeData_out, numDependencies_out);
}
#endif
