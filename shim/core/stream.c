/* Streams: CUstream and hipStream_t are the same handle; only the special values differ. */
#include <stdlib.h>

#include "common/capture_info.h"
#include "internal.h"

hipStream_t pyshim_hip_stream(CUstream stream, int per_thread)
{
    if (stream == CU_STREAM_PER_THREAD)
        return hipStreamPerThread;
    if (stream == CU_STREAM_LEGACY)
        return NULL; /* HIP's null stream has the legacy semantics */
    if (stream == NULL && per_thread)
        return hipStreamPerThread;
    return (hipStream_t)stream;
}

CUresult CUDAAPI cuStreamCreate(CUstream *phStream, unsigned int Flags)
{
    if (phStream == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    CUresult rc = pyshim_need_ctx();
    if (rc != CUDA_SUCCESS)
        return rc;
    /* CU_STREAM_NON_BLOCKING == hipStreamNonBlocking */
    hipStream_t s = NULL;
    hipError_t err = hipStreamCreateWithFlags(&s, Flags);
    if (err != hipSuccess)
        return pyshim_cu_from_hip(err);
    *phStream = (CUstream)s;
    return CUDA_SUCCESS;
}

CUresult CUDAAPI cuStreamCreateWithPriority(CUstream *phStream, unsigned int flags, int priority)
{
    if (phStream == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    CUresult rc = pyshim_need_ctx();
    if (rc != CUDA_SUCCESS)
        return rc;
    hipStream_t s = NULL;
    hipError_t err = hipStreamCreateWithPriority(&s, flags, priority);
    if (err != hipSuccess)
        return pyshim_cu_from_hip(err);
    *phStream = (CUstream)s;
    return CUDA_SUCCESS;
}

CUresult CUDAAPI cuStreamDestroy_v2(CUstream hStream)
{
    CUresult rc = pyshim_need_ctx();
    if (rc != CUDA_SUCCESS)
        return rc;
    if (hStream == NULL || hStream == CU_STREAM_LEGACY || hStream == CU_STREAM_PER_THREAD)
        return CUDA_ERROR_INVALID_HANDLE;
    return pyshim_cu_from_hip(hipStreamDestroy((hipStream_t)hStream));
}

CUresult CUDAAPI cuCtxGetStreamPriorityRange(int *leastPriority, int *greatestPriority)
{
    CUresult rc = pyshim_need_ctx();
    if (rc != CUDA_SUCCESS)
        return rc;
    return pyshim_cu_from_hip(hipDeviceGetStreamPriorityRange(leastPriority, greatestPriority));
}

static CUresult synchronize(CUstream s, int pt)
{
    CUresult rc = pyshim_need_ctx();
    if (rc != CUDA_SUCCESS)
        return rc;
    return pyshim_cu_from_hip(hipStreamSynchronize(pyshim_hip_stream(s, pt)));
}

static CUresult query(CUstream s, int pt)
{
    CUresult rc = pyshim_need_ctx();
    if (rc != CUDA_SUCCESS)
        return rc;
    return pyshim_cu_from_hip(hipStreamQuery(pyshim_hip_stream(s, pt)));
}

static CUresult wait_event(CUstream s, CUevent e, unsigned int flags, int pt)
{
    CUresult rc = pyshim_need_ctx();
    if (rc != CUDA_SUCCESS)
        return rc;
    if (e == NULL)
        return CUDA_ERROR_INVALID_HANDLE;
    return pyshim_cu_from_hip(hipStreamWaitEvent(pyshim_hip_stream(s, pt), (hipEvent_t)e, flags));
}

static CUresult get_flags(CUstream s, unsigned int *flags, int pt)
{
    if (flags == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    CUresult rc = pyshim_need_ctx();
    if (rc != CUDA_SUCCESS)
        return rc;
    return pyshim_cu_from_hip(hipStreamGetFlags(pyshim_hip_stream(s, pt), flags));
}

static CUresult get_priority(CUstream s, int *priority, int pt)
{
    if (priority == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    CUresult rc = pyshim_need_ctx();
    if (rc != CUDA_SUCCESS)
        return rc;
    return pyshim_cu_from_hip(hipStreamGetPriority(pyshim_hip_stream(s, pt), priority));
}

static CUresult host_func(CUstream s, CUhostFn fn, void *data, int pt)
{
    if (fn == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    CUresult rc = pyshim_need_ctx();
    if (rc != CUDA_SUCCESS)
        return rc;
    return pyshim_cu_from_hip(hipLaunchHostFunc(pyshim_hip_stream(s, pt), fn, data));
}

/* A CUDA stream callback gets (CUstream, CUresult, void *): HIP's passes hipError_t. */
struct callback {
    CUstreamCallback fn;
    void *data;
    CUstream stream;
};

static void callback_trampoline(hipStream_t stream, hipError_t status, void *arg)
{
    (void)stream;
    struct callback *cb = arg;
    cb->fn(cb->stream, pyshim_cu_from_hip(status), cb->data);
    free(cb);
}

static CUresult add_callback(CUstream s, CUstreamCallback fn, void *data, unsigned int flags,
                             int pt)
{
    if (fn == NULL || flags != 0)
        return CUDA_ERROR_INVALID_VALUE;
    CUresult rc = pyshim_need_ctx();
    if (rc != CUDA_SUCCESS)
        return rc;
    struct callback *cb = malloc(sizeof *cb);
    if (cb == NULL)
        return CUDA_ERROR_OUT_OF_MEMORY;
    cb->fn = fn;
    cb->data = data;
    cb->stream = s;
    hipError_t err = hipStreamAddCallback(pyshim_hip_stream(s, pt), callback_trampoline, cb, 0);
    if (err != hipSuccess)
        free(cb);
    return pyshim_cu_from_hip(err);
}

CUresult CUDAAPI cuStreamSynchronize(CUstream s) { return synchronize(s, 0); }
CUresult CUDAAPI cuStreamSynchronize_ptsz(CUstream s) { return synchronize(s, 1); }
CUresult CUDAAPI cuStreamQuery(CUstream s) { return query(s, 0); }
CUresult CUDAAPI cuStreamQuery_ptsz(CUstream s) { return query(s, 1); }
CUresult CUDAAPI cuStreamWaitEvent(CUstream s, CUevent e, unsigned int f) { return wait_event(s, e, f, 0); }
CUresult CUDAAPI cuStreamWaitEvent_ptsz(CUstream s, CUevent e, unsigned int f) { return wait_event(s, e, f, 1); }
CUresult CUDAAPI cuStreamGetFlags(CUstream s, unsigned int *f) { return get_flags(s, f, 0); }
CUresult CUDAAPI cuStreamGetFlags_ptsz(CUstream s, unsigned int *f) { return get_flags(s, f, 1); }
CUresult CUDAAPI cuStreamGetPriority(CUstream s, int *p) { return get_priority(s, p, 0); }
CUresult CUDAAPI cuStreamGetPriority_ptsz(CUstream s, int *p) { return get_priority(s, p, 1); }
CUresult CUDAAPI cuLaunchHostFunc(CUstream s, CUhostFn fn, void *d) { return host_func(s, fn, d, 0); }
CUresult CUDAAPI cuLaunchHostFunc_ptsz(CUstream s, CUhostFn fn, void *d) { return host_func(s, fn, d, 1); }
CUresult CUDAAPI cuStreamAddCallback(CUstream s, CUstreamCallback fn, void *d, unsigned int f)
{
    return add_callback(s, fn, d, f, 0);
}
CUresult CUDAAPI cuStreamAddCallback_ptsz(CUstream s, CUstreamCallback fn, void *d, unsigned int f)
{
    return add_callback(s, fn, d, f, 1);
}

static CUresult stream_ctx(CUstream hStream, CUcontext *pctx, int pt);

CUresult CUDAAPI cuStreamGetCtx(CUstream hStream, CUcontext *pctx)
{
    return stream_ctx(hStream, pctx, 0);
}

/* A stream belongs to the context that was current when it was made; with one HIP device
 * per context that is the current context of its device. */
static CUresult stream_ctx(CUstream hStream, CUcontext *pctx, int pt)
{
    if (pctx == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    CUresult rc = pyshim_need_ctx();
    if (rc != CUDA_SUCCESS)
        return rc;
    int device = 0;
    hipError_t err = hipStreamGetDevice(pyshim_hip_stream(hStream, pt), &device);
    if (err != hipSuccess)
        return pyshim_cu_from_hip(err);
    CUcontext cur = pyshim_current_ctx();
    *pctx = cur->device == device ? cur : pyshim_primary_ctx(device);
    return CUDA_SUCCESS;
}

CUresult CUDAAPI cuStreamGetCtx_ptsz(CUstream hStream, CUcontext *pctx)
{
    return stream_ctx(hStream, pctx, 1);
}

CUresult CUDAAPI cuStreamGetCtx_v2(CUstream hStream, CUcontext *pCtx, CUgreenCtx *pGreenCtx)
{
    if (pGreenCtx != NULL)
        *pGreenCtx = NULL; /* no green contexts */
    return stream_ctx(hStream, pCtx, 0);
}

CUresult CUDAAPI cuStreamGetCtx_v2_ptsz(CUstream hStream, CUcontext *pCtx, CUgreenCtx *pGreenCtx)
{
    if (pGreenCtx != NULL)
        *pGreenCtx = NULL;
    return stream_ctx(hStream, pCtx, 1);
}

CUresult CUDAAPI cuStreamGetDevice_ptsz(CUstream hStream, CUdevice *device)
{
    if (device == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    CUresult rc = pyshim_need_ctx();
    if (rc != CUDA_SUCCESS)
        return rc;
    return pyshim_cu_from_hip(hipStreamGetDevice(pyshim_hip_stream(hStream, 1), device));
}

CUresult CUDAAPI cuStreamGetId_ptsz(CUstream hStream, unsigned long long *streamId)
{
    if (streamId == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    CUresult rc = pyshim_need_ctx();
    if (rc != CUDA_SUCCESS)
        return rc;
    return pyshim_cu_from_hip(hipStreamGetId(pyshim_hip_stream(hStream, 1), streamId));
}

CUresult CUDAAPI cuStreamIsCapturing_ptsz(CUstream hStream, CUstreamCaptureStatus *status)
{
    if (status == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    CUresult rc = pyshim_need_ctx();
    if (rc != CUDA_SUCCESS)
        return rc;
    /* CU_STREAM_CAPTURE_STATUS_* equal hipStreamCaptureStatus* */
    hipStreamCaptureStatus s = hipStreamCaptureStatusNone;
    hipError_t err = hipStreamIsCapturing(pyshim_hip_stream(hStream, 1), &s);
    *status = (CUstreamCaptureStatus)s;
    return pyshim_cu_from_hip(err);
}

/* cuStreamGetCaptureInfo in its three ABIs (CUDA 10.1's 3 parameters, 11.3's _v2 with the
 * graph and its dependencies, 12.3's _v3 adding edge data): one implementation over
 * common/capture_info.c, shared with the runtime. Edges carry no data here (HIP's graphs
 * have none), which CUDA reports as NULL. */
static CUresult capture_info(CUstream hStream, int per_thread, CUstreamCaptureStatus *status,
                             cuuint64_t *id, CUgraph *graph, const CUgraphNode **deps,
                             const CUgraphEdgeData **edges, size_t *num_deps)
{
    if (status == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    CUresult rc = pyshim_need_ctx();
    if (rc != CUDA_SUCCESS)
        return rc;
    /* the stream already names the per-thread stream for a _ptsz call */
    struct pyshim_capture_info ci;
    int err = pyshim_capture_info(pyshim_hip_stream(hStream, per_thread),
                                  graph != NULL || deps != NULL || num_deps != NULL, &ci);
    if (err == PYSHIM_CAPTURE_NO_GRAPH) {
        pyshim_unsupported("cuStreamGetCaptureInfo (the backend does not report the "
                           "capture's graph)");
        return CUDA_ERROR_NOT_SUPPORTED;
    }
    if (err != 0)
        return pyshim_cu_from_hip((hipError_t)err);
    /* CU_STREAM_CAPTURE_STATUS_* equal hipStreamCaptureStatus*; CUgraph, CUgraphNode are
     * HIP's handles in the shim (as cuGraphCreate returns them) */
    *status = (CUstreamCaptureStatus)ci.status;
    if (id != NULL)
        *id = ci.id;
    if (graph != NULL)
        *graph = (CUgraph)ci.graph;
    if (deps != NULL)
        *deps = (const CUgraphNode *)ci.deps;
    if (edges != NULL)
        *edges = NULL;
    if (num_deps != NULL)
        *num_deps = ci.num_deps;
    return CUDA_SUCCESS;
}

#undef cuStreamGetCaptureInfo
#undef cuStreamGetCaptureInfo_v2
CUresult CUDAAPI cuStreamGetCaptureInfo(CUstream hStream, CUstreamCaptureStatus *captureStatus_out,
                                        cuuint64_t *id_out);
CUresult CUDAAPI cuStreamGetCaptureInfo_ptsz(CUstream hStream,
                                             CUstreamCaptureStatus *captureStatus_out,
                                             cuuint64_t *id_out);
CUresult CUDAAPI cuStreamGetCaptureInfo_v2(CUstream hStream,
                                           CUstreamCaptureStatus *captureStatus_out,
                                           cuuint64_t *id_out, CUgraph *graph_out,
                                           const CUgraphNode **dependencies_out,
                                           size_t *numDependencies_out);
CUresult CUDAAPI cuStreamGetCaptureInfo_v2_ptsz(CUstream hStream,
                                                CUstreamCaptureStatus *captureStatus_out,
                                                cuuint64_t *id_out, CUgraph *graph_out,
                                                const CUgraphNode **dependencies_out,
                                                size_t *numDependencies_out);
CUresult CUDAAPI cuStreamGetCaptureInfo_v3_ptsz(CUstream hStream,
                                                CUstreamCaptureStatus *captureStatus_out,
                                                cuuint64_t *id_out, CUgraph *graph_out,
                                                const CUgraphNode **dependencies_out,
                                                const CUgraphEdgeData **edgeData_out,
                                                size_t *numDependencies_out);

CUresult CUDAAPI cuStreamGetCaptureInfo(CUstream hStream, CUstreamCaptureStatus *captureStatus_out,
                                        cuuint64_t *id_out)
{
    return capture_info(hStream, 0, captureStatus_out, id_out, NULL, NULL, NULL, NULL);
}

CUresult CUDAAPI cuStreamGetCaptureInfo_ptsz(CUstream hStream,
                                             CUstreamCaptureStatus *captureStatus_out,
                                             cuuint64_t *id_out)
{
    return capture_info(hStream, 1, captureStatus_out, id_out, NULL, NULL, NULL, NULL);
}

CUresult CUDAAPI cuStreamGetCaptureInfo_v2(CUstream hStream,
                                           CUstreamCaptureStatus *captureStatus_out,
                                           cuuint64_t *id_out, CUgraph *graph_out,
                                           const CUgraphNode **dependencies_out,
                                           size_t *numDependencies_out)
{
    return capture_info(hStream, 0, captureStatus_out, id_out, graph_out, dependencies_out,
                        NULL, numDependencies_out);
}

CUresult CUDAAPI cuStreamGetCaptureInfo_v2_ptsz(CUstream hStream,
                                                CUstreamCaptureStatus *captureStatus_out,
                                                cuuint64_t *id_out, CUgraph *graph_out,
                                                const CUgraphNode **dependencies_out,
                                                size_t *numDependencies_out)
{
    return capture_info(hStream, 1, captureStatus_out, id_out, graph_out, dependencies_out,
                        NULL, numDependencies_out);
}

CUresult CUDAAPI cuStreamGetCaptureInfo_v3(CUstream hStream,
                                           CUstreamCaptureStatus *captureStatus_out,
                                           cuuint64_t *id_out, CUgraph *graph_out,
                                           const CUgraphNode **dependencies_out,
                                           const CUgraphEdgeData **edgeData_out,
                                           size_t *numDependencies_out)
{
    return capture_info(hStream, 0, captureStatus_out, id_out, graph_out, dependencies_out,
                        edgeData_out, numDependencies_out);
}

CUresult CUDAAPI cuStreamGetCaptureInfo_v3_ptsz(CUstream hStream,
                                                CUstreamCaptureStatus *captureStatus_out,
                                                cuuint64_t *id_out, CUgraph *graph_out,
                                                const CUgraphNode **dependencies_out,
                                                const CUgraphEdgeData **edgeData_out,
                                                size_t *numDependencies_out)
{
    return capture_info(hStream, 1, captureStatus_out, id_out, graph_out, dependencies_out,
                        edgeData_out, numDependencies_out);
}
