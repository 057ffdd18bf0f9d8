/* Context operations beyond the current-context stack: peer access, ids, flags, events,
 * and the pre-_v2 ABIs of push/pop/destroy. */
#include <pthread.h>

#include "internal.h"

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

/* Peer access is between devices in HIP: the context stands for its device. */
CUresult CUDAAPI cuCtxEnablePeerAccess(CUcontext peerContext, unsigned int Flags)
{
    CUresult rc = pyshim_need_ctx();
    if (rc != CUDA_SUCCESS)
        return rc;
    if (!pyshim_ctx_valid(peerContext))
        return CUDA_ERROR_INVALID_CONTEXT;
    return pyshim_cu_from_hip(hipDeviceEnablePeerAccess(peerContext->device, Flags));
}

CUresult CUDAAPI cuCtxDisablePeerAccess(CUcontext peerContext)
{
    CUresult rc = pyshim_need_ctx();
    if (rc != CUDA_SUCCESS)
        return rc;
    if (!pyshim_ctx_valid(peerContext))
        return CUDA_ERROR_INVALID_CONTEXT;
    return pyshim_cu_from_hip(hipDeviceDisablePeerAccess(peerContext->device));
}

/* ---- small context queries and operations ---- */

CUresult CUDAAPI cuCtxGetId(CUcontext ctx, unsigned long long *ctxId)
{
    if (ctxId == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    CUcontext c;
    CUresult rc = pyshim_ctx_resolve(ctx, &c);
    if (rc != CUDA_SUCCESS)
        return rc;
    static unsigned long long next_id = 1;
    pthread_mutex_lock(&lock);
    if (c->id == 0)
        c->id = next_id++;
    *ctxId = c->id;
    pthread_mutex_unlock(&lock);
    return CUDA_SUCCESS;
}

CUresult CUDAAPI cuCtxSetFlags(unsigned int flags)
{
    CUcontext c;
    CUresult rc = pyshim_ctx_resolve(NULL, &c);
    if (rc != CUDA_SUCCESS)
        return rc;
    c->flags = flags;
    return CUDA_SUCCESS;
}

CUresult CUDAAPI cuCtxResetPersistingL2Cache(void)
{
    /* neither backend has persisting L2 lines to reset */
    return pyshim_need_ctx();
}

/* The context's work is its device's null stream in HIP. */
CUresult CUDAAPI cuCtxRecordEvent(CUcontext hCtx, CUevent hEvent)
{
    CUresult rc = pyshim_ctx_resolve(hCtx, NULL);
    if (rc != CUDA_SUCCESS)
        return rc;
    if (hEvent == NULL)
        return CUDA_ERROR_INVALID_HANDLE;
    return pyshim_cu_from_hip(hipEventRecord((hipEvent_t)hEvent, NULL));
}

CUresult CUDAAPI cuCtxWaitEvent(CUcontext hCtx, CUevent hEvent)
{
    CUresult rc = pyshim_ctx_resolve(hCtx, NULL);
    if (rc != CUDA_SUCCESS)
        return rc;
    if (hEvent == NULL)
        return CUDA_ERROR_INVALID_HANDLE;
    return pyshim_cu_from_hip(hipStreamWaitEvent(NULL, (hipEvent_t)hEvent, 0));
}

#undef cuCtxPushCurrent
#undef cuCtxPopCurrent
CUresult CUDAAPI cuCtxPushCurrent(CUcontext ctx);
CUresult CUDAAPI cuCtxPopCurrent(CUcontext *pctx);

CUresult CUDAAPI cuCtxPushCurrent(CUcontext ctx)
{
    return cuCtxPushCurrent_v2(ctx);
}

CUresult CUDAAPI cuCtxPopCurrent(CUcontext *pctx)
{
    return cuCtxPopCurrent_v2(pctx);
}

/* Bank sizes are not configurable on current GPUs: four bytes, which HIP reports too
 * (hipSharedMemConfig numbers its values as CUsharedconfig does) */
CUresult CUDAAPI cuCtxGetSharedMemConfig(CUsharedconfig *pConfig)
{
    if (pConfig == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    CUresult rc = pyshim_need_ctx();
    if (rc != CUDA_SUCCESS)
        return rc;
    hipSharedMemConfig h = hipSharedMemBankSizeDefault;
    /* CUDA's call is current where HIP marks its twin deprecated */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
    rc = pyshim_cu_from_hip(hipCtxGetSharedMemConfig(&h));
#pragma GCC diagnostic pop
    if (rc == CUDA_SUCCESS)
        *pConfig = (CUsharedconfig)h;
    return rc;
}
