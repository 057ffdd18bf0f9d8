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
    /* the CUctx_flags values; one scheduling policy at most */
    unsigned int sched = flags & CU_CTX_SCHED_MASK;
    if ((flags & ~(unsigned int)CU_CTX_FLAGS_MASK) != 0 ||
        (sched != CU_CTX_SCHED_AUTO && sched != CU_CTX_SCHED_SPIN &&
         sched != CU_CTX_SCHED_YIELD && sched != CU_CTX_SCHED_BLOCKING_SYNC)) {
        pyshim_log("cuCtxSetFlags(0x%x): not a combination of CUctx_flags values", flags);
        return CUDA_ERROR_INVALID_VALUE;
    }
    c->flags = flags;
    return CUDA_SUCCESS;
}

/* Execution affinity (an SM-count limit per context, CUDA 11.4): no backend can confine a
 * context's kernels to part of the device, so none is supported and every context has
 * all of its device's multiprocessors. */
CUresult CUDAAPI cuDeviceGetExecAffinitySupport(int *pi, CUexecAffinityType type, CUdevice dev)
{
    if (pi == NULL || (unsigned)type >= CU_EXEC_AFFINITY_TYPE_MAX)
        return CUDA_ERROR_INVALID_VALUE;
    CUresult rc = pyshim_check_init();
    if (rc != CUDA_SUCCESS)
        return rc;
    if (dev < 0 || dev >= pyshim_device_count())
        return CUDA_ERROR_INVALID_DEVICE;
    *pi = 0;
    return CUDA_SUCCESS;
}

CUresult CUDAAPI cuCtxGetExecAffinity(CUexecAffinityParam *pExecAffinity, CUexecAffinityType type)
{
    if (pExecAffinity == NULL || type != CU_EXEC_AFFINITY_TYPE_SM_COUNT)
        return CUDA_ERROR_INVALID_VALUE;
    CUcontext c;
    CUresult rc = pyshim_ctx_resolve(NULL, &c);
    if (rc != CUDA_SUCCESS)
        return rc;
    int sms = 0;
    rc = pyshim_device_attribute(&sms, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, c->device);
    if (rc != CUDA_SUCCESS)
        return rc;
    pExecAffinity->type = CU_EXEC_AFFINITY_TYPE_SM_COUNT;
    pExecAffinity->param.smCount.val = (unsigned int)sms;
    return CUDA_SUCCESS;
}

CUresult CUDAAPI cuCtxResetPersistingL2Cache(void)
{
    /* neither backend has persisting L2 lines to reset; the current context's, so one
     * must be current */
    return pyshim_ctx_resolve(NULL, NULL);
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
