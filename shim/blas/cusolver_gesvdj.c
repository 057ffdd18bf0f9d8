/* cuSOLVER's Jacobi SVD (gesvdj, gesvdjBatched) and its gesvdjInfo object on rocSOLVER's
 * gesvdj / gesvdj_strided_batched. cuSOLVER returns V, rocSOLVER V**H (as LAPACK's VT):
 * rocSOLVER writes V**H into device scratch and rocBLAS's geam conjugate-transposes it
 * into the caller's V, on the same stream. The info object carries tolerance and sweep
 * limit in, residual and executed sweeps out (read back after the call, as cuSOLVER's
 * Get functions read host values). rocSOLVER always sorts the singular values in
 * decreasing order, which is cuSOLVER's default; an unsorted request is accepted. */
#include <stdlib.h>
#include <string.h>
#include <cusolverDn.h>
#include <rocsolver/rocsolver.h>

#include "blas_internal.h"
#include "cusolver_jacobi_info.h"
#include "cusolver_enums.h"

#define STATUS(st) ((cusolverStatus_t)pyshim_cusolverStatus_t_from_rocblas_status(st))
#define GESVDJ_MAGIC 0x67737664u

PYSHIM_EXPORT cusolverStatus_t cusolverDnCreateGesvdjInfo(gesvdjInfo_t *info)
{
    void *p = NULL;
    cusolverStatus_t st = pyshim_jacobi_create(info ? &p : NULL, GESVDJ_MAGIC);
    if (st == CUSOLVER_STATUS_SUCCESS)
        *info = p;
    return st;
}

static int bad(gesvdjInfo_t info)
{
    return pyshim_jacobi_bad(info, GESVDJ_MAGIC);
}

PYSHIM_EXPORT cusolverStatus_t cusolverDnDestroyGesvdjInfo(gesvdjInfo_t info)
{
    return pyshim_jacobi_destroy(info, GESVDJ_MAGIC);
}

PYSHIM_EXPORT cusolverStatus_t cusolverDnXgesvdjSetTolerance(gesvdjInfo_t info, double tolerance)
{
    return pyshim_jacobi_set_tolerance(info, GESVDJ_MAGIC, tolerance);
}

PYSHIM_EXPORT cusolverStatus_t cusolverDnXgesvdjSetMaxSweeps(gesvdjInfo_t info, int max_sweeps)
{
    return pyshim_jacobi_set_max_sweeps(info, GESVDJ_MAGIC, max_sweeps);
}

PYSHIM_EXPORT cusolverStatus_t cusolverDnXgesvdjSetSortEig(gesvdjInfo_t info, int sort_svd)
{
    return pyshim_jacobi_set_sort(info, GESVDJ_MAGIC, sort_svd);
}

PYSHIM_EXPORT cusolverStatus_t cusolverDnXgesvdjGetResidual(cusolverDnHandle_t handle,
                                                            gesvdjInfo_t info, double *residual)
{
    if (!handle)
        return CUSOLVER_STATUS_NOT_INITIALIZED;
    if (bad(info) || !residual)
        return CUSOLVER_STATUS_INVALID_VALUE;
    *residual = JACOBI(info)->residual;
    return CUSOLVER_STATUS_SUCCESS;
}

PYSHIM_EXPORT cusolverStatus_t cusolverDnXgesvdjGetSweeps(cusolverDnHandle_t handle,
                                                          gesvdjInfo_t info, int *executed_sweeps)
{
    if (!handle)
        return CUSOLVER_STATUS_NOT_INITIALIZED;
    if (bad(info) || !executed_sweeps)
        return CUSOLVER_STATUS_INVALID_VALUE;
    *executed_sweeps = JACOBI(info)->sweeps;
    return CUSOLVER_STATUS_SUCCESS;
}

/* C (rows x cols, ldc) := A**H where A is cols x rows (lda), on the handle's stream */
#define CONJ_T(P, RT, REAL, G)                                                               \
    static rocblas_status P##conj_t(rocblas_handle h, int rows, int cols, const void *A,     \
                                    int lda, void *C, int ldc)                               \
    {                                                                                        \
        rocblas_pointer_mode mode;                                                           \
        rocblas_get_pointer_mode(h, &mode);                                                  \
        rocblas_set_pointer_mode(h, rocblas_pointer_mode_host);                              \
        RT one, zero;                                                                        \
        memset(&one, 0, sizeof one);                                                         \
        memset(&zero, 0, sizeof zero);                                                       \
        *(REAL *)&one = 1; /* the real part comes first */                                   \
        rocblas_status st = G(h, rocblas_operation_conjugate_transpose, rocblas_operation_none, \
                              rows, cols, &one, A, lda, &zero, C, ldc, C, ldc);              \
        rocblas_set_pointer_mode(h, mode);                                                   \
        return st;                                                                           \
    }

CONJ_T(S, float, float, rocblas_sgeam)
CONJ_T(D, double, double, rocblas_dgeam)
CONJ_T(C, rocblas_float_complex, float, rocblas_cgeam)
CONJ_T(Z, rocblas_double_complex, double, rocblas_zgeam)

static int max1(int v)
{
    return v > 1 ? v : 1;
}

#define GESVDJ(P, T, RT, R)                                                                  \
    PYSHIM_EXPORT cusolverStatus_t cusolverDn##P##gesvdj_bufferSize(                         \
        cusolverDnHandle_t handle, cusolverEigMode_t jobz, int econ, int m, int n,           \
        const T *A, int lda, const RT *S, const T *U, int ldu, const T *V, int ldv,          \
        int *lwork, gesvdjInfo_t params)                                                     \
    {                                                                                        \
        (void)A, (void)S, (void)U, (void)ldu, (void)V, (void)ldv;                            \
        rocblas_handle h = (rocblas_handle)handle;                                           \
        if (!lwork || (params && bad(params)))                                               \
            return CUSOLVER_STATUS_INVALID_VALUE;                                            \
        int k = m < n ? m : n;                                                               \
        rocblas_svect sv = jobz == CUSOLVER_EIG_MODE_VECTOR                                  \
                               ? (econ ? rocblas_svect_singular : rocblas_svect_all)         \
                               : rocblas_svect_none;                                         \
        size_t bytes = 0;                                                                    \
        rocblas_status st = pyshim_blas_query_begin(h);                                      \
        if (st != rocblas_status_success)                                                    \
            return STATUS(st);                                                               \
        st = R##gesvdj(h, sv, sv, m, n, NULL, max1(lda), 0, NULL, 100, NULL, NULL, NULL,     \
                       max1(m), NULL, max1(econ ? k : n), NULL);                             \
        st = pyshim_blas_query_end(h, st, &bytes);                                           \
        if (st != rocblas_status_success)                                                    \
            return STATUS(st);                                                               \
        *lwork = (int)((bytes + sizeof(T) - 1) / sizeof(T));                                 \
        return CUSOLVER_STATUS_SUCCESS;                                                      \
    }                                                                                        \
    PYSHIM_EXPORT cusolverStatus_t cusolverDn##P##gesvdj(                                    \
        cusolverDnHandle_t handle, cusolverEigMode_t jobz, int econ, int m, int n, T *A,     \
        int lda, RT *S, T *U, int ldu, T *V, int ldv, T *work, int lwork, int *info,         \
        gesvdjInfo_t params)                                                                 \
    {                                                                                        \
        rocblas_handle h = (rocblas_handle)handle;                                           \
        struct pyshim_jacobi_info defaults = PYSHIM_JACOBI_DEFAULTS(GESVDJ_MAGIC);       \
        struct pyshim_jacobi_info *p = params ? JACOBI(params) : &defaults;              \
        if ((params && bad(params)) || lwork < 0 || m < 0 || n < 0)                          \
            return CUSOLVER_STATUS_INVALID_VALUE;                                            \
        int k = m < n ? m : n, vec = jobz == CUSOLVER_EIG_MODE_VECTOR;                       \
        int vcols = econ ? k : n; /* V is n x vcols; rocSOLVER's V**H is vcols x n */        \
        if (vec && (ldu < max1(m) || ldv < max1(n)))                                         \
            return CUSOLVER_STATUS_INVALID_VALUE;                                            \
        rocblas_svect sv = vec ? (econ ? rocblas_svect_singular : rocblas_svect_all)         \
                               : rocblas_svect_none;                                         \
        void *vh = NULL, *residual = NULL;                                                   \
        int *sweeps = NULL;                                                                  \
        if ((vec && k > 0 && pyshim_blas_device_alloc(&vh, (size_t)vcols * n * sizeof(T))) || \
            pyshim_blas_device_alloc(&residual, sizeof(double)) ||                           \
            pyshim_blas_device_alloc((void **)&sweeps, sizeof(int))) {                       \
            pyshim_blas_device_free(vh);                                                     \
            pyshim_blas_device_free(residual);                                               \
            pyshim_blas_device_free(sweeps);                                                 \
            return CUSOLVER_STATUS_ALLOC_FAILED;                                             \
        }                                                                                    \
        rocblas_status st = rocblas_set_workspace(h, work, work ? (size_t)lwork * sizeof(T)  \
                                                                : 0);                        \
        if (st == rocblas_status_success)                                                    \
            st = R##gesvdj(h, sv, sv, m, n, (void *)A, lda, (RT)p->tolerance, residual,      \
                           p->max_sweeps, sweeps, S, (void *)U, ldu, vh, max1(vcols), info); \
        rocblas_set_workspace(h, NULL, 0);                                                   \
        if (st == rocblas_status_success && pyshim_blas_fold_info(info, 1, k + 1))           \
            st = rocblas_status_internal_error;                                              \
        if (st == rocblas_status_success && vec && k > 0)                                    \
            st = P##conj_t(h, n, vcols, vh, max1(vcols), (void *)V, ldv);                   \
        if (st == rocblas_status_success && k > 0) {                                         \
            RT res = 0;                                                                      \
            if (pyshim_blas_read_back(&res, residual, sizeof res) ||                         \
                pyshim_blas_read_back(&p->sweeps, sweeps, sizeof p->sweeps))                 \
                st = rocblas_status_internal_error;                                          \
            p->residual = res;                                                               \
        } else {                                                                             \
            int idle;                                                                        \
            pyshim_blas_read_back(&idle, sweeps, sizeof idle);                               \
        }                                                                                    \
        pyshim_blas_device_free(vh);                                                         \
        pyshim_blas_device_free(residual);                                                   \
        pyshim_blas_device_free(sweeps);                                                     \
        return STATUS(st);                                                                   \
    }                                                                                        \
    PYSHIM_EXPORT cusolverStatus_t cusolverDn##P##gesvdjBatched_bufferSize(                  \
        cusolverDnHandle_t handle, cusolverEigMode_t jobz, int m, int n, const T *A, int lda, \
        const RT *S, const T *U, int ldu, const T *V, int ldv, int *lwork,                   \
        gesvdjInfo_t params, int batchSize)                                                  \
    {                                                                                        \
        (void)A, (void)S, (void)U, (void)V;                                                  \
        rocblas_handle h = (rocblas_handle)handle;                                           \
        if (!lwork || (params && bad(params)) || batchSize < 0)                              \
            return CUSOLVER_STATUS_INVALID_VALUE;                                            \
        rocblas_svect sv = jobz == CUSOLVER_EIG_MODE_VECTOR ? rocblas_svect_all              \
                                                            : rocblas_svect_none;            \
        size_t bytes = 0;                                                                    \
        rocblas_status st = pyshim_blas_query_begin(h);                                      \
        if (st != rocblas_status_success)                                                    \
            return STATUS(st);                                                               \
        st = R##gesvdj_strided_batched(h, sv, sv, m, n, NULL, max1(lda),                     \
                                       (rocblas_stride)lda * n, 0, NULL, 100, NULL, NULL,    \
                                       m < n ? m : n, NULL, max1(ldu), (rocblas_stride)ldu * m, \
                                       NULL, max1(ldv), (rocblas_stride)ldv * n, NULL,       \
                                       batchSize);                                           \
        st = pyshim_blas_query_end(h, st, &bytes);                                           \
        if (st != rocblas_status_success)                                                    \
            return STATUS(st);                                                               \
        *lwork = (int)((bytes + sizeof(T) - 1) / sizeof(T));                                 \
        return CUSOLVER_STATUS_SUCCESS;                                                      \
    }                                                                                        \
    PYSHIM_EXPORT cusolverStatus_t cusolverDn##P##gesvdjBatched(                             \
        cusolverDnHandle_t handle, cusolverEigMode_t jobz, int m, int n, T *A, int lda,      \
        RT *S, T *U, int ldu, T *V, int ldv, T *work, int lwork, int *info,                  \
        gesvdjInfo_t params, int batchSize)                                                  \
    {                                                                                        \
        rocblas_handle h = (rocblas_handle)handle;                                           \
        struct pyshim_jacobi_info defaults = PYSHIM_JACOBI_DEFAULTS(GESVDJ_MAGIC);       \
        struct pyshim_jacobi_info *p = params ? JACOBI(params) : &defaults;              \
        if ((params && bad(params)) || lwork < 0 || batchSize < 0 || m < 0 || n < 0)         \
            return CUSOLVER_STATUS_INVALID_VALUE;                                            \
        int k = m < n ? m : n, vec = jobz == CUSOLVER_EIG_MODE_VECTOR;                       \
        if (vec && (ldu < max1(m) || ldv < max1(n)))                                         \
            return CUSOLVER_STATUS_INVALID_VALUE;                                            \
        rocblas_svect sv = vec ? rocblas_svect_all : rocblas_svect_none;                     \
        size_t b = (size_t)(batchSize > 0 ? batchSize : 1);                                  \
        void *vh = NULL, *residual = NULL;                                                   \
        int *sweeps = NULL;                                                                  \
        if ((vec && k > 0 && pyshim_blas_device_alloc(&vh, b * n * n * sizeof(T))) ||        \
            pyshim_blas_device_alloc(&residual, b * sizeof(double)) ||                       \
            pyshim_blas_device_alloc((void **)&sweeps, b * sizeof(int))) {                   \
            pyshim_blas_device_free(vh);                                                     \
            pyshim_blas_device_free(residual);                                               \
            pyshim_blas_device_free(sweeps);                                                 \
            return CUSOLVER_STATUS_ALLOC_FAILED;                                             \
        }                                                                                    \
        rocblas_status st = rocblas_set_workspace(h, work, work ? (size_t)lwork * sizeof(T)  \
                                                                : 0);                        \
        if (st == rocblas_status_success)                                                    \
            st = R##gesvdj_strided_batched(                                                  \
                h, sv, sv, m, n, (void *)A, lda, (rocblas_stride)lda * n, (RT)p->tolerance,  \
                residual, p->max_sweeps, sweeps, S, k, (void *)U, max1(ldu),                 \
                (rocblas_stride)ldu * m, vh, max1(n), (rocblas_stride)n * n, info,           \
                batchSize);                                                                  \
        rocblas_set_workspace(h, NULL, 0);                                                   \
        if (st == rocblas_status_success && pyshim_blas_fold_info(info, batchSize, k + 1))   \
            st = rocblas_status_internal_error;                                              \
        for (int i = 0; st == rocblas_status_success && vec && k > 0 && i < batchSize; i++)  \
            st = P##conj_t(h, n, n, (T *)vh + (size_t)i * n * n, max1(n),                    \
                           V + (size_t)i * ldv * n, ldv);                                    \
        int idle; /* the scratch outlives the queued work */                                 \
        pyshim_blas_read_back(&idle, sweeps, sizeof idle);                                   \
        pyshim_blas_device_free(vh);                                                         \
        pyshim_blas_device_free(residual);                                                   \
        pyshim_blas_device_free(sweeps);                                                     \
        return STATUS(st);                                                                   \
    }

GESVDJ(S, float, float, rocsolver_s)
GESVDJ(D, double, double, rocsolver_d)
GESVDJ(C, cuComplex, float, rocsolver_c)
GESVDJ(Z, cuDoubleComplex, double, rocsolver_z)
