/*
 * Runtime calls whose arguments need more than a mechanical conversion: stream callbacks
 * (CUDA's callback receives the program's stream handle and a cudaError_t, through a
 * trampoline) and cudaPointerGetAttributes (a struct of another layout).
 */
#define __CUDA_API_VERSION_INTERNAL 1
#include <cuda_runtime_api.h>
#include <stdlib.h>

#include "internal.h"

static cudaError_t fail(int rc)
{
    return (cudaError_t)pyshim_rt_record(rc);
}

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
    if (pyshim_rt_sticky_error != 0)
        return (cudaError_t)pyshim_rt_sticky_error;
    if (callback == NULL || flags != 0) /* CUDA reserves flags: must be 0 */
        return fail(cudaErrorInvalidValue);
    struct user_callback *cb = malloc(sizeof *cb);
    if (cb == NULL)
        return fail(cudaErrorMemoryAllocation);
    *cb = (struct user_callback){callback, stream, userData};
    void *hip = stream;
    if (stream == cudaStreamLegacy)
        hip = NULL;
    else if (stream == NULL && per_thread)
        hip = cudaStreamPerThread;
    int rc = pyshim_rt_hip_stream_callback(hip, call_user, cb, flags);
    if (rc != cudaSuccess) {
        free(cb);
        return fail(rc);
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
    if (pyshim_rt_sticky_error != 0)
        return (cudaError_t)pyshim_rt_sticky_error;
    if (attributes == NULL)
        return fail(cudaErrorInvalidValue);
    struct pyshim_rt_pointer_attrs a;
    int rc = pyshim_rt_hip_pointer_attrs(ptr, &a);
    if (rc != cudaSuccess)
        return fail(rc);
    attributes->type = (enum cudaMemoryType)a.type;
    attributes->device = a.device;
    attributes->devicePointer = a.device_pointer;
    attributes->hostPointer = a.host_pointer;
    return cudaSuccess;
}
