/*
 * cuStreamWaitValue32/64: HIP's form takes a mask as well (the value compared is
 * (*addr & mask)); CUDA compares the whole word, so the mask is all ones. The comparison
 * flags have the same values (GEQ/EQ/AND/NOR = hipStreamWaitValueGte/Eq/And/Nor);
 * CU_STREAM_WAIT_VALUE_FLUSH only orders remote writes before the wait, which a wait on
 * this backend's memory already sees: it is accepted and dropped.
 */
#include "internal.h"

#define COMPARE_MASK 0x3u

static CUresult check_flags(unsigned flags)
{
    return (flags & ~(COMPARE_MASK | (unsigned)CU_STREAM_WAIT_VALUE_FLUSH)) ? CUDA_ERROR_INVALID_VALUE
                                                                             : CUDA_SUCCESS;
}

static CUresult wait32(CUstream s, CUdeviceptr addr, cuuint32_t value, unsigned flags, int pt)
{
    CUresult rc = pyshim_need_ctx();
    if (rc == CUDA_SUCCESS)
        rc = check_flags(flags);
    if (rc != CUDA_SUCCESS)
        return rc;
    return pyshim_cu_from_hip(hipStreamWaitValue32(pyshim_hip_stream(s, pt),
                                                   (void *)(uintptr_t)addr, value,
                                                   flags & COMPARE_MASK, 0xffffffffu));
}

static CUresult wait64(CUstream s, CUdeviceptr addr, cuuint64_t value, unsigned flags, int pt)
{
    CUresult rc = pyshim_need_ctx();
    if (rc == CUDA_SUCCESS)
        rc = check_flags(flags);
    if (rc != CUDA_SUCCESS)
        return rc;
    return pyshim_cu_from_hip(hipStreamWaitValue64(pyshim_hip_stream(s, pt),
                                                   (void *)(uintptr_t)addr, value,
                                                   flags & COMPARE_MASK, ~(uint64_t)0));
}

/* cuda.h renames cuStreamWaitValue32/64 to their _v2 (CUDA 11.7+) symbols; the CUDA 8.0
 * ones have the same arguments */
#undef cuStreamWaitValue32
#undef cuStreamWaitValue64
CUresult CUDAAPI cuStreamWaitValue32(CUstream s, CUdeviceptr a, cuuint32_t v, unsigned int f);
CUresult CUDAAPI cuStreamWaitValue32_ptsz(CUstream s, CUdeviceptr a, cuuint32_t v, unsigned int f);
CUresult CUDAAPI cuStreamWaitValue64(CUstream s, CUdeviceptr a, cuuint64_t v, unsigned int f);
CUresult CUDAAPI cuStreamWaitValue64_ptsz(CUstream s, CUdeviceptr a, cuuint64_t v, unsigned int f);
CUresult CUDAAPI cuStreamWaitValue32_v2_ptsz(CUstream s, CUdeviceptr a, cuuint32_t v,
                                             unsigned int f);
CUresult CUDAAPI cuStreamWaitValue64_v2_ptsz(CUstream s, CUdeviceptr a, cuuint64_t v,
                                             unsigned int f);

CUresult CUDAAPI cuStreamWaitValue32(CUstream s, CUdeviceptr a, cuuint32_t v, unsigned int f)
{
    return wait32(s, a, v, f, 0);
}

CUresult CUDAAPI cuStreamWaitValue32_ptsz(CUstream s, CUdeviceptr a, cuuint32_t v, unsigned int f)
{
    return wait32(s, a, v, f, 1);
}

CUresult CUDAAPI cuStreamWaitValue32_v2(CUstream s, CUdeviceptr a, cuuint32_t v, unsigned int f)
{
    return wait32(s, a, v, f, 0);
}

CUresult CUDAAPI cuStreamWaitValue32_v2_ptsz(CUstream s, CUdeviceptr a, cuuint32_t v,
                                             unsigned int f)
{
    return wait32(s, a, v, f, 1);
}

CUresult CUDAAPI cuStreamWaitValue64(CUstream s, CUdeviceptr a, cuuint64_t v, unsigned int f)
{
    return wait64(s, a, v, f, 0);
}

CUresult CUDAAPI cuStreamWaitValue64_ptsz(CUstream s, CUdeviceptr a, cuuint64_t v, unsigned int f)
{
    return wait64(s, a, v, f, 1);
}

CUresult CUDAAPI cuStreamWaitValue64_v2(CUstream s, CUdeviceptr a, cuuint64_t v, unsigned int f)
{
    return wait64(s, a, v, f, 0);
}

CUresult CUDAAPI cuStreamWaitValue64_v2_ptsz(CUstream s, CUdeviceptr a, cuuint64_t v,
                                             unsigned int f)
{
    return wait64(s, a, v, f, 1);
}
