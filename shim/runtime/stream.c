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
