/*
 * The capture state of a stream, for cuStreamGetCaptureInfo (libcuda.so.1) and
 * cudaStreamGetCaptureInfo (libcudart): one query of HIP for both, in their every ABI.
 * Plain C types only, so the runtime's CUDA-side files can include it.
 */
#ifndef PYSHIM_COMMON_CAPTURE_INFO_H
#define PYSHIM_COMMON_CAPTURE_INFO_H

#include <stddef.h>

#include "visibility.h"

struct pyshim_capture_info {
    int status; /* hipStreamCaptureStatus: None/Active/Invalidated, numbered as CUDA's */
    unsigned long long id;
    void *graph;      /* the capture's hipGraph_t, NULL when the backend cannot say */
    const void *deps; /* const hipGraphNode_t *: the nodes the next one will depend on */
    size_t num_deps;
};

/* A backend whose HIP lacks hipStreamGetCaptureInfo_v2 knows the status and id only;
 * asking it for the graph of an active capture is this: */
#define PYSHIM_CAPTURE_NO_GRAPH (-1)

/* 0, the hipError_t of the query, or PYSHIM_CAPTURE_NO_GRAPH when want_graph (the caller
 * asked for the graph or its dependencies) cannot be answered. `hip_stream` is the
 * hipStream_t the caller resolved (legacy / per-thread already mapped). */
PYSHIM_COMMON_HIDDEN int pyshim_capture_info(void *hip_stream, int want_graph,
                                             struct pyshim_capture_info *out);

#endif
