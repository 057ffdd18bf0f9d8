/*
 * Primary contexts: one per device, created by cuInit (context.c) and valid from then on,
 * retained and released by cudart and driver-API programs. Releasing the last reference
 * keeps the context usable: cudart may still call into it while it shuts down.
 */
#include <pthread.h>

#include "internal.h"

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

CUresult CUDAAPI cuDevicePrimaryCtxRetain(CUcontext *pctx, CUdevice dev)
{
    if (pctx == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    CUresult rc = pyshim_check_init();
    if (rc != CUDA_SUCCESS)
        return rc;
    CUcontext ctx = pyshim_primary_ctx(dev);
    if (ctx == NULL)
        return CUDA_ERROR_INVALID_DEVICE;
    pthread_mutex_lock(&lock);
    ctx->retain_count++;
    pthread_mutex_unlock(&lock);
    *pctx = ctx;
    return CUDA_SUCCESS;
}

CUresult CUDAAPI cuDevicePrimaryCtxRelease_v2(CUdevice dev)
{
    CUresult rc = pyshim_check_init();
    if (rc != CUDA_SUCCESS)
        return rc;
    CUcontext ctx = pyshim_primary_ctx(dev);
    if (ctx == NULL)
        return CUDA_ERROR_INVALID_DEVICE;
    pthread_mutex_lock(&lock);
    if (ctx->retain_count > 0)
        ctx->retain_count--;
    pthread_mutex_unlock(&lock);
    /* the context stays valid: cudart may still use it while it shuts down */
    return CUDA_SUCCESS;
}

CUresult CUDAAPI cuDevicePrimaryCtxReset_v2(CUdevice dev)
{
    CUresult rc = pyshim_check_init();
    if (rc != CUDA_SUCCESS)
        return rc;
    CUcontext ctx = pyshim_primary_ctx(dev);
    if (ctx == NULL)
        return CUDA_ERROR_INVALID_DEVICE;
    int cur = 0;
    hipGetDevice(&cur);
    hipSetDevice(dev);
    pyshim_modules_unload_device(dev);
    hipError_t err = hipDeviceReset();
    hipSetDevice(cur);
    return pyshim_cu_from_hip(err);
}

CUresult CUDAAPI cuDevicePrimaryCtxGetState(CUdevice dev, unsigned int *flags, int *active)
{
    CUresult rc = pyshim_check_init();
    if (rc != CUDA_SUCCESS)
        return rc;
    CUcontext ctx = pyshim_primary_ctx(dev);
    if (ctx == NULL)
        return CUDA_ERROR_INVALID_DEVICE;
    if (flags == NULL || active == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    *flags = ctx->flags;
    *active = ctx->retain_count > 0;
    return CUDA_SUCCESS;
}

CUresult CUDAAPI cuDevicePrimaryCtxSetFlags_v2(CUdevice dev, unsigned int flags)
{
    CUresult rc = pyshim_check_init();
    if (rc != CUDA_SUCCESS)
        return rc;
    CUcontext ctx = pyshim_primary_ctx(dev);
    if (ctx == NULL)
        return CUDA_ERROR_INVALID_DEVICE;
    ctx->flags = flags;
    return CUDA_SUCCESS;
}

/* The pre-11.0 ABIs (same arguments); cuda.h renames these names to _v2. */
#undef cuDevicePrimaryCtxRelease
#undef cuDevicePrimaryCtxReset
#undef cuDevicePrimaryCtxSetFlags
CUresult CUDAAPI cuDevicePrimaryCtxRelease(CUdevice dev);
CUresult CUDAAPI cuDevicePrimaryCtxReset(CUdevice dev);
CUresult CUDAAPI cuDevicePrimaryCtxSetFlags(CUdevice dev, unsigned int flags);

CUresult CUDAAPI cuDevicePrimaryCtxRelease(CUdevice dev)
{
    return cuDevicePrimaryCtxRelease_v2(dev);
}

CUresult CUDAAPI cuDevicePrimaryCtxReset(CUdevice dev)
{
    return cuDevicePrimaryCtxReset_v2(dev);
}

CUresult CUDAAPI cuDevicePrimaryCtxSetFlags(CUdevice dev, unsigned int flags)
{
    return cuDevicePrimaryCtxSetFlags_v2(dev, flags);
}
