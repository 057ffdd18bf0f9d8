/* cuSOLVER's Jacobi eigensolver (syevj/heevj) and its syevjInfo object on rocSOLVER's
 * syevj/heevj. The info object carries the tolerance, sweep limit and sorting in, and
 * the residual and executed sweeps out: rocSOLVER writes those to device memory, which is
 * read back after the call (cuSOLVER's Get functions read host values). */
#include <stdlib.h>
#include <cusolverDn.h>
#include <rocsolver/rocsolver.h>

#include "blas_internal.h"
#include "cusolver_jacobi_info.h"
#include "cusolver_enums.h"

#define STATUS(st) ((cusolverStatus_t)pyshim_cusolverStatus_t_from_rocblas_status(st))
#define FILL(u) ((rocblas_fill)pyshim_cublasFillMode_t_to_rocblas_fill(u))
#define EVECT(j) ((rocblas_evect)pyshim_cusolverEigMode_t_to_rocblas_evect(j))
#define INFO_MAGIC 0x7379656au

PYSHIM_EXPORT cusolverStatus_t cusolverDnCreateSyevjInfo(syevjInfo_t *info)
{
    void *p = NULL;
    cusolverStatus_t st = pyshim_jacobi_create(info ? &p : NULL, INFO_MAGIC);
    if (st == CUSOLVER_STATUS_SUCCESS)
        *info = p;
    return st;
}

static int bad(syevjInfo_t info)
{
    return pyshim_jacobi_bad(info, INFO_MAGIC);
}

PYSHIM_EXPORT cusolverStatus_t cusolverDnDestroySyevjInfo(syevjInfo_t info)
{
    return pyshim_jacobi_destroy(info, INFO_MAGIC);
}

PYSHIM_EXPORT cusolverStatus_t cusolverDnXsyevjSetTolerance(syevjInfo_t info, double tolerance)
{
    return pyshim_jacobi_set_tolerance(info, INFO_MAGIC, tolerance);
}

PYSHIM_EXPORT cusolverStatus_t cusolverDnXsyevjSetMaxSweeps(syevjInfo_t info, int max_sweeps)
{
    return pyshim_jacobi_set_max_sweeps(info, INFO_MAGIC, max_sweeps);
}

PYSHIM_EXPORT cusolverStatus_t cusolverDnXsyevjSetSortEig(syevjInfo_t info, int sort_eig)
{
    return pyshim_jacobi_set_sort(info, INFO_MAGIC, sort_eig);
}

PYSHIM_EXPORT cusolverStatus_t cusolverDnXsyevjGetResidual(cusolverDnHandle_t handle,
                                                           syevjInfo_t info, double *residual)
{
    (void)handle;
    if (bad(info) || !residual)
        return CUSOLVER_STATUS_INVALID_VALUE;
    *residual = JACOBI(info)->residual;
    return CUSOLVER_STATUS_SUCCESS;
}

PYSHIM_EXPORT cusolverStatus_t cusolverDnXsyevjGetSweeps(cusolverDnHandle_t handle,
                                                         syevjInfo_t info, int *executed_sweeps)
{
    (void)handle;
    if (bad(info) || !executed_sweeps)
        return CUSOLVER_STATUS_INVALID_VALUE;
    *executed_sweeps = JACOBI(info)->sweeps;
    return CUSOLVER_STATUS_SUCCESS;
}

/* Device scratch for rocSOLVER's residual (one real) and sweep count, read back after. */
struct outs {
    void *residual;
    int *sweeps;
};

static int outs_alloc(struct outs *o)
{
    o->residual = NULL;
    o->sweeps = NULL;
    return pyshim_blas_device_alloc(&o->residual, sizeof(double)) ||
           pyshim_blas_device_alloc((void **)&o->sweeps, sizeof(int));
}

static void outs_free(struct outs *o)
{
    pyshim_blas_device_free(o->residual);
    pyshim_blas_device_free(o->sweeps);
}

#define SYEVJ(P, T, RT, R, EV)                                                               \
    PYSHIM_EXPORT cusolverStatus_t cusolverDn##P##EV##_bufferSize(                           \
        cusolverDnHandle_t handle, cusolverEigMode_t jobz, cublasFillMode_t uplo, int n,     \
        const T *A, int lda, const RT *W, int *lwork, syevjInfo_t params)                   \
    {                                                                                        \
        rocblas_handle h = (rocblas_handle)handle;                                           \
        if (!lwork || (params && bad(params)))                                               \
            return CUSOLVER_STATUS_INVALID_VALUE;                                            \
        size_t bytes = 0;                                                                    \
        rocblas_status st = pyshim_blas_query_begin(h);                                      \
        if (st != rocblas_status_success)                                                    \
            return STATUS(st);                                                               \
        st = R##EV(h, rocblas_esort_ascending, EVECT(jobz), FILL(uplo), n, (void *)A, lda,   \
                   0, NULL, 100, NULL, (RT *)W, NULL);                                       \
        st = pyshim_blas_query_end(h, st, &bytes);                                           \
        if (st != rocblas_status_success)                                                    \
            return STATUS(st);                                                               \
        *lwork = (int)((bytes + sizeof(T) - 1) / sizeof(T));                                 \
        return CUSOLVER_STATUS_SUCCESS;                                                      \
    }                                                                                        \
    PYSHIM_EXPORT cusolverStatus_t cusolverDn##P##EV(                                        \
        cusolverDnHandle_t handle, cusolverEigMode_t jobz, cublasFillMode_t uplo, int n,     \
        T *A, int lda, RT *W, T *work, int lwork, int *info, syevjInfo_t params)             \
    {                                                                                        \
        rocblas_handle h = (rocblas_handle)handle;                                           \
        struct pyshim_jacobi_info defaults = PYSHIM_JACOBI_DEFAULTS(INFO_MAGIC);         \
        struct pyshim_jacobi_info *p = params ? JACOBI(params) : &defaults;              \
        if ((params && bad(params)) || lwork < 0)                                            \
            return CUSOLVER_STATUS_INVALID_VALUE;                                            \
        struct outs o;                                                                       \
        if (outs_alloc(&o)) {                                                                \
            outs_free(&o);                                                                   \
            return CUSOLVER_STATUS_ALLOC_FAILED;                                             \
        }                                                                                    \
        rocblas_status st = rocblas_set_workspace(h, work, work ? (size_t)lwork * sizeof(T)  \
                                                                : 0);                        \
        if (st == rocblas_status_success)                                                    \
            st = R##EV(h, p->sort ? rocblas_esort_ascending : rocblas_esort_none,            \
                       EVECT(jobz), FILL(uplo), n, (void *)A, lda, (RT)p->tolerance,         \
                       o.residual, p->max_sweeps, o.sweeps, W, info);                        \
        rocblas_set_workspace(h, NULL, 0);                                                   \
        if (st == rocblas_status_success && pyshim_blas_fold_info(info, 1, n + 1))           \
            st = rocblas_status_internal_error;                                              \
        if (st == rocblas_status_success && n > 0) {                                         \
            RT residual = 0;                                                                 \
            if (pyshim_blas_read_back(&residual, o.residual, sizeof residual) ||             \
                pyshim_blas_read_back(&p->sweeps, o.sweeps, sizeof p->sweeps))               \
                st = rocblas_status_internal_error;                                          \
            p->residual = residual;                                                          \
        }                                                                                    \
        outs_free(&o);                                                                       \
        return STATUS(st);                                                                   \
    }

SYEVJ(S, float, float, rocsolver_s, syevj)
SYEVJ(D, double, double, rocsolver_d, syevj)
SYEVJ(C, cuComplex, float, rocsolver_c, heevj)
SYEVJ(Z, cuDoubleComplex, double, rocsolver_z, heevj)

/* syevjBatched/heevjBatched: batchSize matrices lda*n apart (eigenvalues n apart) on
 * rocSOLVER's strided-batched Jacobi solver; info is batchSize ints, one per matrix, as in
 * both libraries. cuSOLVER keeps no residual or sweep count for the batched form, so the
 * per-matrix ones rocSOLVER writes go to scratch. */
static cusolverStatus_t batch_scratch(int batch, size_t real, void **residual, int **sweeps)
{
    *residual = NULL;
    *sweeps = NULL;
    size_t b = (size_t)(batch > 0 ? batch : 1);
    if (pyshim_blas_device_alloc(residual, b * real) ||
        pyshim_blas_device_alloc((void **)sweeps, b * sizeof(int))) {
        pyshim_blas_device_free(*residual);
        pyshim_blas_device_free(*sweeps);
        return CUSOLVER_STATUS_ALLOC_FAILED;
    }
    return CUSOLVER_STATUS_SUCCESS;
}

#define SYEVJ_BATCHED(P, T, RT, R, EV)                                                       \
    PYSHIM_EXPORT cusolverStatus_t cusolverDn##P##EV##Batched_bufferSize(                    \
        cusolverDnHandle_t handle, cusolverEigMode_t jobz, cublasFillMode_t uplo, int n,     \
        const T *A, int lda, const RT *W, int *lwork, syevjInfo_t params, int batchSize)     \
    {                                                                                        \
        rocblas_handle h = (rocblas_handle)handle;                                           \
        if (!lwork || (params && bad(params)))                                               \
            return CUSOLVER_STATUS_INVALID_VALUE;                                            \
        size_t bytes = 0;                                                                    \
        rocblas_status st = pyshim_blas_query_begin(h);                                      \
        if (st != rocblas_status_success)                                                    \
            return STATUS(st);                                                               \
        st = R##EV##_strided_batched(h, rocblas_esort_ascending, EVECT(jobz), FILL(uplo), n, \
                                     (void *)A, lda, (rocblas_stride)lda * n, 0, NULL, 100,  \
                                     NULL, (RT *)W, n, NULL, batchSize);                     \
        st = pyshim_blas_query_end(h, st, &bytes);                                           \
        if (st != rocblas_status_success)                                                    \
            return STATUS(st);                                                               \
        *lwork = (int)((bytes + sizeof(T) - 1) / sizeof(T));                                 \
        return CUSOLVER_STATUS_SUCCESS;                                                      \
    }                                                                                        \
    PYSHIM_EXPORT cusolverStatus_t cusolverDn##P##EV##Batched(                               \
        cusolverDnHandle_t handle, cusolverEigMode_t jobz, cublasFillMode_t uplo, int n,     \
        T *A, int lda, RT *W, T *work, int lwork, int *info, syevjInfo_t params,             \
        int batchSize)                                                                       \
    {                                                                                        \
        rocblas_handle h = (rocblas_handle)handle;                                           \
        struct pyshim_jacobi_info defaults = PYSHIM_JACOBI_DEFAULTS(INFO_MAGIC);         \
        struct pyshim_jacobi_info *p = params ? JACOBI(params) : &defaults;              \
        if ((params && bad(params)) || lwork < 0 || batchSize < 0)                           \
            return CUSOLVER_STATUS_INVALID_VALUE;                                            \
        void *residual;                                                                      \
        int *sweeps;                                                                         \
        cusolverStatus_t cs = batch_scratch(batchSize, sizeof(RT), &residual, &sweeps);      \
        if (cs != CUSOLVER_STATUS_SUCCESS)                                                   \
            return cs;                                                                       \
        rocblas_status st = rocblas_set_workspace(h, work, work ? (size_t)lwork * sizeof(T)  \
                                                                : 0);                        \
        if (st == rocblas_status_success)                                                    \
            st = R##EV##_strided_batched(                                                    \
                h, p->sort ? rocblas_esort_ascending : rocblas_esort_none, EVECT(jobz),      \
                FILL(uplo), n, (void *)A, lda, (rocblas_stride)lda * n, (RT)p->tolerance,    \
                residual, p->max_sweeps, sweeps, W, n, info, batchSize);                     \
        rocblas_set_workspace(h, NULL, 0);                                                   \
        if (st == rocblas_status_success && pyshim_blas_fold_info(info, batchSize, n + 1))   \
            st = rocblas_status_internal_error;                                              \
        /* the scratch outlives the queued work: freed once the device is idle */            \
        int idle;                                                                            \
        pyshim_blas_read_back(&idle, sweeps, sizeof idle);                                   \
        pyshim_blas_device_free(residual);                                                   \
        pyshim_blas_device_free(sweeps);                                                     \
        return STATUS(st);                                                                   \
    }

SYEVJ_BATCHED(S, float, float, rocsolver_s, syevj)
SYEVJ_BATCHED(D, double, double, rocsolver_d, syevj)
SYEVJ_BATCHED(C, cuComplex, float, rocsolver_c, heevj)
SYEVJ_BATCHED(Z, cuDoubleComplex, double, rocsolver_z, heevj)
