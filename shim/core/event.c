/* Events: CUevent and hipEvent_t are the same handle; the flag values coincide. */
#include "internal.h"

CUresult CUDAAPI cuEventCreate(CUevent *phEvent, unsigned int Flags)
{
    if (phEvent == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    CUresult rc = pyshim_need_ctx();
    if (rc != CUDA_SUCCESS)
        return rc;
    hipEvent_t e = NULL;
    hipError_t err = hipEventCreateWithFlags(&e, Flags);
    if (err != hipSuccess)
        return pyshim_cu_from_hip(err);
    *phEvent = (CUevent)e;
    return CUDA_SUCCESS;
}

CUresult CUDAAPI cuEventDestroy_v2(CUevent hEvent)
{
    if (hEvent == NULL)
        return CUDA_ERROR_INVALID_HANDLE;
    CUresult rc = pyshim_need_ctx();
    if (rc != CUDA_SUCCESS)
        return rc;
    return pyshim_cu_from_hip(hipEventDestroy((hipEvent_t)hEvent));
}

static CUresult record(CUevent e, CUstream s, int pt)
{
    if (e == NULL)
        return CUDA_ERROR_INVALID_HANDLE;
    CUresult rc = pyshim_need_ctx();
    if (rc != CUDA_SUCCESS)
        return rc;
    return pyshim_cu_from_hip(hipEventRecord((hipEvent_t)e, pyshim_hip_stream(s, pt)));
}

CUresult CUDAAPI cuEventRecord(CUevent e, CUstream s) { return record(e, s, 0); }
CUresult CUDAAPI cuEventRecord_ptsz(CUevent e, CUstream s) { return record(e, s, 1); }
CUresult CUDAAPI cuEventRecordWithFlags(CUevent e, CUstream s, unsigned int flags)
{
    (void)flags; /* CU_EVENT_RECORD_EXTERNAL only matters inside graphs */
    return record(e, s, 0);
}
CUresult CUDAAPI cuEventRecordWithFlags_ptsz(CUevent e, CUstream s, unsigned int flags)
{
    (void)flags;
    return record(e, s, 1);
}

CUresult CUDAAPI cuEventQuery(CUevent hEvent)
{
    if (hEvent == NULL)
        return CUDA_ERROR_INVALID_HANDLE;
    CUresult rc = pyshim_need_ctx();
    if (rc != CUDA_SUCCESS)
        return rc;
    return pyshim_cu_from_hip(hipEventQuery((hipEvent_t)hEvent));
}

CUresult CUDAAPI cuEventSynchronize(CUevent hEvent)
{
    if (hEvent == NULL)
        return CUDA_ERROR_INVALID_HANDLE;
    CUresult rc = pyshim_need_ctx();
    if (rc != CUDA_SUCCESS)
        return rc;
    return pyshim_cu_from_hip(hipEventSynchronize((hipEvent_t)hEvent));
}

CUresult CUDAAPI cuEventElapsedTime_v2(float *pMilliseconds, CUevent hStart, CUevent hEnd)
{
    if (pMilliseconds == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    if (hStart == NULL || hEnd == NULL)
        return CUDA_ERROR_INVALID_HANDLE;
    CUresult rc = pyshim_need_ctx();
    if (rc != CUDA_SUCCESS)
        return rc;
    return pyshim_cu_from_hip(
        hipEventElapsedTime(pMilliseconds, (hipEvent_t)hStart, (hipEvent_t)hEnd));
}

/* the pre-12.8 ABI; cuda.h renames cuEventElapsedTime to _v2 */
#undef cuEventElapsedTime
CUresult CUDAAPI cuEventElapsedTime(float *pMilliseconds, CUevent hStart, CUevent hEnd);
CUresult CUDAAPI cuEventElapsedTime(float *pMilliseconds, CUevent hStart, CUevent hEnd)
{
    return cuEventElapsedTime_v2(pMilliseconds, hStart, hEnd);
}
