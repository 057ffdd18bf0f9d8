/*
 * What the generated thunks (build/.../runtime_thunks_<major>.c) need. Included after
 * cuda_runtime_api.h and runtime_enums.h; a thunk only checks, converts and calls.
 */
#ifndef PYSHIM_RUNTIME_RT_THUNK_H
#define PYSHIM_RUNTIME_RT_THUNK_H

#include "cuda_side.h"

#define PYSHIM_WEAK __attribute__((weak, visibility("default")))
/* HIP targets: NULL at run time when the backend does not define them */
#define PYSHIM_WEAK_IMPORT __attribute__((weak))

#define PYSHIM_RT_ENTER() PYSHIM_RT_STICKY_CHECK()

static inline cudaError_t pyshim_rt_hip_result(int hip_err)
{
    if (__builtin_expect(hip_err == 0, 1))
        return cudaSuccess;
    return (cudaError_t)pyshim_rt_record(pyshim_rt_from_hip(hip_err));
}

static inline cudaError_t pyshim_rt_unsupported(const char *symbol)
{
    return (cudaError_t)pyshim_rt_note_unsupported(symbol);
}

/* The backend lacks the HIP function this symbol maps to. */
static inline cudaError_t pyshim_rt_missing(const char *symbol, const char *hip_name)
{
    return (cudaError_t)pyshim_rt_note_missing(symbol, hip_name);
}

/* An enum argument with no HIP counterpart: cudaErrorInvalidValue, logged once per value. */
static inline cudaError_t pyshim_rt_unmapped(const char *symbol, const char *param, int value)
{
    return (cudaError_t)pyshim_rt_note_unmapped(symbol, param, value);
}

/* An argument HIP has no room for, given a value other than "none": not supported. */
static inline cudaError_t pyshim_rt_unsupported_arg(const char *symbol, const char *param)
{
    pyshim_rt_log("%s: a non-empty %s has no HIP counterpart", symbol, param);
    return (cudaError_t)pyshim_rt_note_unsupported(symbol);
}

/* CUDA's special stream handles in HIP's terms: the legacy stream is HIP's NULL stream,
 * the per-thread one is the same value (2) in both; a _ptsz/_ptds entry point reads NULL
 * as the per-thread stream. */
static inline cudaStream_t pyshim_rt_stream(cudaStream_t s, int per_thread)
{
    if (s == cudaStreamLegacy)
        return NULL;
    if (s == NULL && per_thread)
        return cudaStreamPerThread;
    return s;
}

#endif
