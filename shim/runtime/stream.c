/*
 * Runtime calls whose arguments need more than a mechanical conversion: stream callbacks
 * (CUDA's callback receives the program's stream handle and a cudaError_t, through a
 * trampoline) and cudaPointerGetAttributes (a struct of another layout).
 */
#define __CUDA_API_VERSION_INTERNAL 1
#include <cuda_runtime_api.h>
#include <stdlib.h>

#include "common/capture_info.h"
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

/* cudaStreamGetCaptureInfo: CUDA 13's one (7 parameters), CUDA 12's _v2 (6) and _v3 (7),
 * over common/capture_info.c (shared with libcuda.so.1). Edges carry no data here (HIP's graphs have none), which CUDA reports as NULL. */
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
    struct pyshim_capture_info ci;
    int rc = pyshim_capture_info(stream, graph != NULL || deps != NULL || num_deps != NULL, &ci);
    if (rc == PYSHIM_CAPTURE_NO_GRAPH)
        return (cudaError_t)pyshim_rt_note_unsupported(
            "cudaStreamGetCaptureInfo (the backend does not report the capture's graph)");
    if (rc != 0)
        return pyshim_rt_fail(pyshim_rt_from_hip(rc));
    /* cudaStreamCaptureStatus and hipStreamCaptureStatus number None/Active/Invalidated
     * alike; cudaGraph_t and cudaGraphNode_t are HIP's handles in this library */
    *status = (enum cudaStreamCaptureStatus)ci.status;
    if (id != NULL)
        *id = ci.id;
    if (graph != NULL)
        *graph = (cudaGraph_t)ci.graph;
    if (deps != NULL)
        *deps = (const cudaGraphNode_t *)ci.deps;
    if (edges != NULL)
        *edges = NULL;
    if (num_deps != NULL)
        *num_deps = ci.num_deps;
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
