/* cuBLAS's batched LAPACK-like routines on rocSOLVER's batched ones: getrfBatched,
 * getrsBatched, getriBatched (out of place) and gelsBatched. The tables find no rocBLAS
 * counterpart (they live in rocSOLVER). cuBLAS's pivots are batch arrays of n ints
 * (rocSOLVER's stride n); a NULL pivot array means no pivoting. getrsBatched and
 * gelsBatched report bad arguments in a host `info` (0 or -i), as cuBLAS does. */
#include <cublas_v2.h>
#include <rocsolver/rocsolver.h>

#include "blas_internal.h"
#include "cublas_enums.h"

#define STATUS(st) ((cublasStatus_t)pyshim_cublasStatus_t_from_rocblas_status(st))
#define OPER(t) ((rocblas_operation)pyshim_cublasOperation_t_to_rocblas_operation(t))

/* host info for the routines that take one: the first bad argument, 1-based, negated */
static cublasStatus_t host_info(int *info, int bad)
{
    if (info)
        *info = -bad;
    return bad ? CUBLAS_STATUS_INVALID_VALUE : CUBLAS_STATUS_SUCCESS;
}

#define BATCHED(P, T, RT, R)                                                                     \
    PYSHIM_EXPORT cublasStatus_t cublas##P##getrfBatched(cublasHandle_t handle, int n,       \
                                                         T *const A[], int lda, int *P_,     \
                                                         int *info, int batchSize)           \
    {                                                                                        \
        rocblas_handle h = (rocblas_handle)handle;                                           \
        if (!P_)                                                                             \
            return STATUS(R##getrf_npvt_batched(h, n, n, (RT *const *)A, lda, info,        \
                                                batchSize));                                 \
        return STATUS(R##getrf_batched(h, n, n, (RT *const *)A, lda, P_, n, info,          \
                                       batchSize));                                          \
    }                                                                                        \
    PYSHIM_EXPORT cublasStatus_t cublas##P##getrsBatched(                                    \
        cublasHandle_t handle, cublasOperation_t trans, int n, int nrhs, const T *const A[],  \
        int lda, const int *devIpiv, T *const B[], int ldb, int *info, int batchSize)        \
    {                                                                                        \
        int bad = trans != CUBLAS_OP_N && trans != CUBLAS_OP_T && trans != CUBLAS_OP_C ? 2   \
                  : n < 0                                                    ? 3            \
                  : nrhs < 0                                                 ? 4            \
                  : lda < (n > 1 ? n : 1)                                    ? 6            \
                  : ldb < (n > 1 ? n : 1)                                    ? 9            \
                  : batchSize < 0                                            ? 11           \
                                                                             : 0;           \
        if (bad)                                                                             \
            return host_info(info, bad);                                                     \
        rocblas_status st = R##getrs_batched((rocblas_handle)handle, OPER(trans), n, nrhs,   \
                                             (RT *const *)A, lda, devIpiv, n,              \
                                             (RT *const *)B, ldb, batchSize);              \
        if (st == rocblas_status_success)                                                    \
            host_info(info, 0);                                                              \
        return STATUS(st);                                                                   \
    }                                                                                        \
    PYSHIM_EXPORT cublasStatus_t cublas##P##getriBatched(                                    \
        cublasHandle_t handle, int n, const T *const A[], int lda, const int *P_,            \
        T *const C[], int ldc, int *info, int batchSize)                                     \
    {                                                                                        \
        rocblas_handle h = (rocblas_handle)handle;                                           \
        if (!P_)                                                                             \
            return STATUS(R##getri_npvt_outofplace_batched(h, n, (RT *const *)A, lda,      \
                                                           (RT *const *)C, ldc, info,      \
                                                           batchSize));                      \
        return STATUS(R##getri_outofplace_batched(h, n, (RT *const *)A, lda, (int *)P_, n, \
                                                  (RT *const *)C, ldc, info, batchSize));  \
    }                                                                                        \
    PYSHIM_EXPORT cublasStatus_t cublas##P##gelsBatched(                                     \
        cublasHandle_t handle, cublasOperation_t trans, int m, int n, int nrhs,              \
        T *const Aarray[], int lda, T *const Carray[], int ldc, int *info,                   \
        int *devInfoArray, int batchSize)                                                    \
    {                                                                                        \
        /* cuBLAS: overdetermined (m >= n), no transpose */                                  \
        int bad = trans != CUBLAS_OP_N                       ? 2                             \
                  : m < 0                                    ? 3                             \
                  : n < 0 || n > m                           ? 4                             \
                  : nrhs < 0                                 ? 5                             \
                  : lda < (m > 1 ? m : 1)                    ? 7                             \
                  : ldc < (m > 1 ? m : 1)                    ? 9                             \
                  : batchSize < 0                            ? 12                            \
                                                             : 0;                            \
        if (bad)                                                                             \
            return host_info(info, bad);                                                     \
        rocblas_status st = R##gels_batched((rocblas_handle)handle, OPER(trans), m, n, nrhs, \
                                            (RT *const *)Aarray, lda,                      \
                                            (RT *const *)Carray, ldc, devInfoArray,        \
                                            batchSize);                                      \
        if (st == rocblas_status_success)                                                    \
            host_info(info, 0);                                                              \
        return STATUS(st);                                                                   \
    }

BATCHED(S, float, float, rocsolver_s)
BATCHED(D, double, double, rocsolver_d)
BATCHED(C, cuComplex, rocblas_float_complex, rocsolver_c)
BATCHED(Z, cuDoubleComplex, rocblas_double_complex, rocsolver_z)
