/* cuSOLVER's reductions to condensed form and their orthogonal factors, whose devInfo
 * rocSOLVER does not take: gebrd, orgbr/ungbr, sytrd/hetrd, orgtr/ungtr, ormtr/unmtr,
 * lauum. rocSOLVER reports bad arguments through its status (INVALID_VALUE here), so
 * devInfo is 0 after every routine that ran, written on the handle's stream.
 *
 * orgbr's `side` names which factor is generated (LEFT: Q, RIGHT: P**T): rocSOLVER names
 * the same choice by its Householder vectors' storage (column-wise for Q, row-wise for P). */
#include <cusolverDn.h>
#include <rocsolver/rocsolver.h>

#include "blas_internal.h"
#include "cusolver_enums.h"

#define STATUS(st) ((cusolverStatus_t)pyshim_cusolverStatus_t_from_rocblas_status(st))
#define FILL(u) ((rocblas_fill)pyshim_cublasFillMode_t_to_rocblas_fill(u))
#define OPER(t) ((rocblas_operation)pyshim_cublasOperation_t_to_rocblas_operation(t))
#define SIDE(s) ((rocblas_side)pyshim_cublasSideMode_t_to_rocblas_side(s))

/* the user's workspace (lwork elements) as the handle's for the call */
static rocblas_status ws_set(rocblas_handle h, void *work, int lwork, size_t elem)
{
    if (lwork < 0)
        return rocblas_status_invalid_size;
    return rocblas_set_workspace(h, work, work ? (size_t)lwork * elem : 0);
}

static cusolverStatus_t ws_done(rocblas_handle h, rocblas_status st, int *dev_info)
{
    rocblas_set_workspace(h, NULL, 0);
    if (st == rocblas_status_success && dev_info) {
        hipStream_t stream = NULL;
        rocblas_get_stream(h, &stream);
        if (pyshim_blas_zero_int(dev_info, stream) != 0)
            return CUSOLVER_STATUS_EXECUTION_FAILED;
    }
    return STATUS(st);
}

static rocblas_storev storev_of(cublasSideMode_t side)
{
    return side == CUBLAS_SIDE_LEFT    ? rocblas_column_wise
           : side == CUBLAS_SIDE_RIGHT ? rocblas_row_wise
                                       : (rocblas_storev)-1; /* rocSOLVER: INVALID_VALUE */
}

/* lwork in elements from one rocSOLVER size query (`call` an expression using h) */
#define QUERY_LWORK(h, T, lwork, call)                                                       \
    do {                                                                                     \
        if (!(lwork))                                                                        \
            return CUSOLVER_STATUS_INVALID_VALUE;                                            \
        size_t bytes_ = 0;                                                                   \
        rocblas_status q_ = pyshim_blas_query_begin(h);                                      \
        if (q_ != rocblas_status_success)                                                    \
            return STATUS(q_);                                                               \
        q_ = pyshim_blas_query_end(h, (call), &bytes_);                                      \
        if (q_ != rocblas_status_success)                                                    \
            return STATUS(q_);                                                               \
        *(lwork) = (int)((bytes_ + sizeof(T) - 1) / sizeof(T));                              \
        return CUSOLVER_STATUS_SUCCESS;                                                      \
    } while (0)

/* gebrd_bufferSize takes only the shape */
#define GEBRD_LAUUM(P, T, RT, R)                                                             \
    PYSHIM_EXPORT cusolverStatus_t cusolverDn##P##gebrd_bufferSize(cusolverDnHandle_t handle, \
                                                                   int m, int n, int *Lwork) \
    {                                                                                        \
        rocblas_handle h = (rocblas_handle)handle;                                           \
        QUERY_LWORK(h, T, Lwork, R##gebrd(h, m, n, NULL, m > 1 ? m : 1, NULL, NULL, NULL,    \
                                          NULL));                                            \
    }                                                                                        \
    PYSHIM_EXPORT cusolverStatus_t cusolverDn##P##gebrd(                                     \
        cusolverDnHandle_t handle, int m, int n, T *A, int lda, RT *D, RT *E, T *TAUQ,       \
        T *TAUP, T *Work, int Lwork, int *devInfo)                                           \
    {                                                                                        \
        rocblas_handle h = (rocblas_handle)handle;                                           \
        rocblas_status st = ws_set(h, Work, Lwork, sizeof(T));                               \
        if (st == rocblas_status_success)                                                    \
            st = R##gebrd(h, m, n, (void *)A, lda, D, E, (void *)TAUQ, (void *)TAUP);        \
        return ws_done(h, st, devInfo);                                                      \
    }                                                                                        \
    PYSHIM_EXPORT cusolverStatus_t cusolverDn##P##lauum(cusolverDnHandle_t handle,           \
                                                        cublasFillMode_t uplo, int n, T *A,  \
                                                        int lda, T *work, int lwork,         \
                                                        int *devInfo)                        \
    {                                                                                        \
        rocblas_handle h = (rocblas_handle)handle;                                           \
        rocblas_status st = ws_set(h, work, lwork, sizeof(T));                               \
        if (st == rocblas_status_success)                                                    \
            st = R##lauum(h, FILL(uplo), n, (void *)A, lda);                                 \
        return ws_done(h, st, devInfo);                                                      \
    }

GEBRD_LAUUM(S, float, float, rocsolver_s)
GEBRD_LAUUM(D, double, double, rocsolver_d)
GEBRD_LAUUM(C, cuComplex, float, rocsolver_c)
GEBRD_LAUUM(Z, cuDoubleComplex, double, rocsolver_z)

/* ORGBR: orgbr|ungbr, TRD: sytrd|hetrd, ORGTR: orgtr|ungtr, ORMTR: ormtr|unmtr */
#define TRIDIAG(P, T, RT, R, ORGBR, TRD, ORGTR, ORMTR)                                       \
    PYSHIM_EXPORT cusolverStatus_t cusolverDn##P##ORGBR##_bufferSize(                        \
        cusolverDnHandle_t handle, cublasSideMode_t side, int m, int n, int k, const T *A,   \
        int lda, const T *tau, int *lwork)                                                   \
    {                                                                                        \
        rocblas_handle h = (rocblas_handle)handle;                                           \
        QUERY_LWORK(h, T, lwork, R##ORGBR(h, storev_of(side), m, n, k, (void *)A, lda,       \
                                          (void *)tau));                                     \
    }                                                                                        \
    PYSHIM_EXPORT cusolverStatus_t cusolverDn##P##ORGBR(                                     \
        cusolverDnHandle_t handle, cublasSideMode_t side, int m, int n, int k, T *A,         \
        int lda, const T *tau, T *work, int lwork, int *info)                                \
    {                                                                                        \
        rocblas_handle h = (rocblas_handle)handle;                                           \
        rocblas_status st = ws_set(h, work, lwork, sizeof(T));                               \
        if (st == rocblas_status_success)                                                    \
            st = R##ORGBR(h, storev_of(side), m, n, k, (void *)A, lda, (void *)tau);         \
        return ws_done(h, st, info);                                                         \
    }                                                                                        \
    PYSHIM_EXPORT cusolverStatus_t cusolverDn##P##TRD(cusolverDnHandle_t handle,             \
                                                      cublasFillMode_t uplo, int n, T *A,    \
                                                      int lda, RT *d, RT *e, T *tau,         \
                                                      T *work, int lwork, int *info)         \
    {                                                                                        \
        rocblas_handle h = (rocblas_handle)handle;                                           \
        rocblas_status st = ws_set(h, work, lwork, sizeof(T));                               \
        if (st == rocblas_status_success)                                                    \
            st = R##TRD(h, FILL(uplo), n, (void *)A, lda, d, e, (void *)tau);                \
        return ws_done(h, st, info);                                                         \
    }                                                                                        \
    PYSHIM_EXPORT cusolverStatus_t cusolverDn##P##ORGTR(                                     \
        cusolverDnHandle_t handle, cublasFillMode_t uplo, int n, T *A, int lda,              \
        const T *tau, T *work, int lwork, int *info)                                         \
    {                                                                                        \
        rocblas_handle h = (rocblas_handle)handle;                                           \
        rocblas_status st = ws_set(h, work, lwork, sizeof(T));                               \
        if (st == rocblas_status_success)                                                    \
            st = R##ORGTR(h, FILL(uplo), n, (void *)A, lda, (void *)tau);                    \
        return ws_done(h, st, info);                                                         \
    }                                                                                        \
    PYSHIM_EXPORT cusolverStatus_t cusolverDn##P##ORMTR(                                     \
        cusolverDnHandle_t handle, cublasSideMode_t side, cublasFillMode_t uplo,             \
        cublasOperation_t trans, int m, int n, T *A, int lda, T *tau, T *C, int ldc,         \
        T *work, int lwork, int *info)                                                       \
    {                                                                                        \
        rocblas_handle h = (rocblas_handle)handle;                                           \
        rocblas_status st = ws_set(h, work, lwork, sizeof(T));                               \
        if (st == rocblas_status_success)                                                    \
            st = R##ORMTR(h, SIDE(side), FILL(uplo), OPER(trans), m, n, (void *)A, lda,      \
                          (void *)tau, (void *)C, ldc);                                      \
        return ws_done(h, st, info);                                                         \
    }

TRIDIAG(S, float, float, rocsolver_s, orgbr, sytrd, orgtr, ormtr)
TRIDIAG(D, double, double, rocsolver_d, orgbr, sytrd, orgtr, ormtr)
TRIDIAG(C, cuComplex, float, rocsolver_c, ungbr, hetrd, ungtr, unmtr)
TRIDIAG(Z, cuDoubleComplex, double, rocsolver_z, ungbr, hetrd, ungtr, unmtr)
