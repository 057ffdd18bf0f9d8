/* Stream capture state over HIP (capture_info.h). Edges carry no data here (HIP's graphs
 * have none), which CUDA reports as NULL: the callers write that themselves. */
#include <hip/hip_runtime_api.h>

#include "capture_info.h"

#pragma weak hipStreamGetCaptureInfo_v2

int pyshim_capture_info(void *hip_stream, int want_graph, struct pyshim_capture_info *out)
{
    hipStreamCaptureStatus st = hipStreamCaptureStatusNone;
    unsigned long long id = 0;
    hipGraph_t graph = NULL;
    const hipGraphNode_t *deps = NULL;
    size_t n = 0;
    hipError_t err;
    int have_graph = hipStreamGetCaptureInfo_v2 != NULL;
    if (have_graph)
        err = hipStreamGetCaptureInfo_v2((hipStream_t)hip_stream, &st, &id, &graph, &deps, &n);
    else
        err = hipStreamGetCaptureInfo((hipStream_t)hip_stream, &st, &id);
    if (err != hipSuccess)
        return (int)err;
    if (!have_graph && st == hipStreamCaptureStatusActive && want_graph)
        return PYSHIM_CAPTURE_NO_GRAPH;
    out->status = (int)st;
    out->id = id;
    out->graph = graph;
    out->deps = (const void *)deps;
    out->num_deps = n;
    return 0;
}
