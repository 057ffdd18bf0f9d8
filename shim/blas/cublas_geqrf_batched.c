/* cuBLAS's geqrfBatched on rocSOLVER's geqrf_batched. cuBLAS hands one tau vector per
 * matrix (TauArray, a device array of device pointers); the pinned rocSOLVER has no
 * pointer-array form of tau (only a strided one), so the reflectors' scalars land in one
 * strided scratch array and are copied out to each TauArray[i] on the handle's stream.
 * Bad arguments are reported in the host `info` (0 or -i, i the 1-based position of the
 * first bad one), as cuBLAS does; nothing is queued then. */
#include <stdlib.h>
#include <cublas_v2.h>
#include <rocsolver/rocsolver.h>

#include "blas_internal.h"
#include "cublas_enums.h"

#define STATUS(st) ((cublasStatus_t)pyshim_cublasStatus_t_from_rocblas_status(st))

enum { TYPE_S, TYPE_D, TYPE_C, TYPE_Z };

static rocblas_status call(int type, rocblas_handle h, int m, int n, void *const A[], int lda,
                           void *tau, rocblas_stride stride, int batch)
{
    switch (type) {
    case TYPE_S:
        return rocsolver_sgeqrf_batched(h, m, n, (float *const *)A, lda, tau, stride, batch);
    case TYPE_D:
        return rocsolver_dgeqrf_batched(h, m, n, (double *const *)A, lda, tau, stride, batch);
    case TYPE_C:
        return rocsolver_cgeqrf_batched(h, m, n, (rocblas_float_complex *const *)A, lda, tau,
                                        stride, batch);
    default:
        return rocsolver_zgeqrf_batched(h, m, n, (rocblas_double_complex *const *)A, lda, tau,
                                        stride, batch);
    }
}

static cublasStatus_t geqrf_batched(cublasHandle_t handle, int m, int n, void *const A[],
                                    int lda, void *const tau_array[], int *info, int batch,
                                    size_t value_size, int type)
{
    if (!handle)
        return CUBLAS_STATUS_NOT_INITIALIZED;
    int bad = m < 0                   ? 2
              : n < 0                 ? 3
              : lda < (m > 1 ? m : 1) ? 5
              : batch < 0             ? 8
                                      : 0;
    if (info)
        *info = -bad;
    if (bad)
        return CUBLAS_STATUS_INVALID_VALUE;
    int k = m < n ? m : n;
    if (batch == 0 || k == 0)
        return CUBLAS_STATUS_SUCCESS;
    if (!A || !tau_array)
        return CUBLAS_STATUS_INVALID_VALUE;
    rocblas_handle h = (rocblas_handle)handle;
    hipStream_t stream;
    rocblas_status st = rocblas_get_stream(h, &stream);
    if (st != rocblas_status_success)
        return STATUS(st);
    /* the destinations, read once the work queued before (which may fill TauArray) ran */
    void **taus = malloc((size_t)batch * sizeof *taus);
    if (!taus)
        return CUBLAS_STATUS_ALLOC_FAILED;
    if (pyshim_blas_read_after(taus, tau_array, (size_t)batch * sizeof *taus, stream) != 0) {
        free(taus);
        return CUBLAS_STATUS_EXECUTION_FAILED;
    }
    size_t bytes = (size_t)k * value_size;
    void *scratch;
    if (pyshim_blas_device_alloc(&scratch, bytes * (size_t)batch) != 0) {
        free(taus);
        return CUBLAS_STATUS_ALLOC_FAILED;
    }
    st = call(type, h, m, n, A, lda, scratch, k, batch);
    cublasStatus_t out = STATUS(st);
    for (int i = 0; st == rocblas_status_success && i < batch; i++)
        if (pyshim_blas_copy_async(taus[i], (char *)scratch + (size_t)i * bytes, bytes,
                                   stream) != 0) {
            out = CUBLAS_STATUS_EXECUTION_FAILED;
            break;
        }
    /* hipFree waits for the device, so the copies above have read the scratch */
    pyshim_blas_device_free(scratch);
    free(taus);
    return out;
}

#define GEQRF_BATCHED(P, T)                                                               \
    PYSHIM_EXPORT cublasStatus_t cublas##P##geqrfBatched(cublasHandle_t handle, int m, int n, \
                                                         T *const Aarray[], int lda,         \
                                                         T *const TauArray[], int *info,     \
                                                         int batchSize)                      \
    {                                                                                        \
        return geqrf_batched(handle, m, n, (void *const *)Aarray, lda,                      \
                             (void *const *)TauArray, info, batchSize, sizeof(T), TYPE_##P);   \
    }

GEQRF_BATCHED(S, float)
GEQRF_BATCHED(D, double)
GEQRF_BATCHED(C, cuComplex)
GEQRF_BATCHED(Z, cuDoubleComplex)
