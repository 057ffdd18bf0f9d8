/* cuSOLVER dense solvers whose devInfo (or workspace, or scratch) has no rocSOLVER
 * counterpart, so the tables cannot map them argument by argument: getrs, potrs, geqrf,
 * orgqr/ungqr, ormqr/unmqr, syevd/heevd, gesvd, and the geqrf/gesvd size queries.
 *
 * devInfo is written as cuSOLVER does: 0 when the routine ran (rocSOLVER reports bad
 * arguments through its status, which becomes CUSOLVER_STATUS_INVALID_VALUE); routines
 * that have rocSOLVER's info argument pass devInfo straight through. The user's workspace
 * becomes the handle's rocBLAS workspace for the call; scratch rocSOLVER needs beyond it
 * (the off-diagonal of syevd/gesvd) is allocated on the device for the call. */
#include <cusolverDn.h>
#include <stdint.h>
#include <rocsolver/rocsolver.h>

#include "blas_internal.h"
#include "cusolver_enums.h"

#define STATUS(st) ((cusolverStatus_t)pyshim_cusolverStatus_t_from_rocblas_status(st))
#define FILL(u) ((rocblas_fill)pyshim_cublasFillMode_t_to_rocblas_fill(u))
#define OPER(t) ((rocblas_operation)pyshim_cublasOperation_t_to_rocblas_operation(t))
#define SIDE(s) ((rocblas_side)pyshim_cublasSideMode_t_to_rocblas_side(s))
#define EVECT(j) ((rocblas_evect)pyshim_cusolverEigMode_t_to_rocblas_evect(j))

/* Run `call` with the user's workspace as the handle's, then give the handle its own back. */
static rocblas_status with_workspace(rocblas_handle h, void *work, int lwork, size_t elem,
                                     rocblas_status (*call)(void *), void *ctx)
{
    if (lwork < 0)
        return rocblas_status_invalid_size;
    size_t bytes = work ? (size_t)lwork * elem : 0;
    rocblas_status st = rocblas_set_workspace(h, work, bytes);
    if (st != rocblas_status_success)
        return st;
    st = call(ctx);
    rocblas_set_workspace(h, NULL, 0);
    return st;
}

/* devInfo = 0 after a routine that ran, on the handle's stream (device memory). */
static cusolverStatus_t done(rocblas_handle h, rocblas_status st, int *dev_info)
{
    if (st == rocblas_status_success && dev_info) {
        hipStream_t stream = NULL;
        rocblas_get_stream(h, &stream);
        if (pyshim_blas_zero_int(dev_info, stream) != 0)
            return CUSOLVER_STATUS_EXECUTION_FAILED;
    }
    return STATUS(st);
}

static rocblas_svect svect(signed char job)
{
    switch (job) {
    case 'A': case 'a': return rocblas_svect_all;
    case 'S': case 's': return rocblas_svect_singular;
    case 'O': case 'o': return rocblas_svect_overwrite;
    case 'N': case 'n': return rocblas_svect_none;
    }
    return (rocblas_svect)-1; /* rocSOLVER rejects it: INVALID_VALUE */
}

/* ---- getrs, potrs: no workspace, no info in rocSOLVER ---- */

#define GETRS_POTRS(P, T, R)                                                                 \
    PYSHIM_EXPORT cusolverStatus_t cusolverDn##P##getrs(                                     \
        cusolverDnHandle_t handle, cublasOperation_t trans, int n, int nrhs, const T *A,     \
        int lda, const int *devIpiv, T *B, int ldb, int *devInfo)                            \
    {                                                                                        \
        rocblas_handle h = (rocblas_handle)handle;                                           \
        rocblas_status st = R##getrs(h, OPER(trans), n, nrhs, (void *)A, lda, devIpiv,       \
                                     (void *)B, ldb);                                        \
        return done(h, st, devInfo);                                                         \
    }                                                                                        \
    PYSHIM_EXPORT cusolverStatus_t cusolverDn##P##potrs(                                     \
        cusolverDnHandle_t handle, cublasFillMode_t uplo, int n, int nrhs, const T *A,       \
        int lda, T *B, int ldb, int *devInfo)                                                \
    {                                                                                        \
        rocblas_handle h = (rocblas_handle)handle;                                           \
        rocblas_status st = R##potrs(h, FILL(uplo), n, nrhs, (void *)A, lda, (void *)B, ldb); \
        return done(h, st, devInfo);                                                         \
    }

GETRS_POTRS(S, float, rocsolver_s)
GETRS_POTRS(D, double, rocsolver_d)
GETRS_POTRS(C, cuComplex, rocsolver_c)
GETRS_POTRS(Z, cuDoubleComplex, rocsolver_z)

/* ---- geqrf, orgqr/ungqr, ormqr/unmqr: the user's workspace, no info ---- */

struct qr_args {
    rocblas_handle h;
    rocblas_side side;
    rocblas_operation trans;
    int m, n, k, lda, ldc;
    void *A, *tau, *C;
};

#define QR(P, T, R, ORG, ORM)                                                                \
    static rocblas_status P##geqrf_call(void *p)                                             \
    {                                                                                        \
        struct qr_args *a = p;                                                               \
        return R##geqrf(a->h, a->m, a->n, a->A, a->lda, a->tau);                             \
    }                                                                                        \
    static rocblas_status P##ORG##_call(void *p)                                             \
    {                                                                                        \
        struct qr_args *a = p;                                                               \
        return R##ORG(a->h, a->m, a->n, a->k, a->A, a->lda, a->tau);                         \
    }                                                                                        \
    static rocblas_status P##ORM##_call(void *p)                                             \
    {                                                                                        \
        struct qr_args *a = p;                                                               \
        return R##ORM(a->h, a->side, a->trans, a->m, a->n, a->k, a->A, a->lda, a->tau,       \
                      a->C, a->ldc);                                                         \
    }                                                                                        \
    PYSHIM_EXPORT cusolverStatus_t cusolverDn##P##geqrf(cusolverDnHandle_t handle, int m,    \
                                                        int n, T *A, int lda, T *TAU,        \
                                                        T *Workspace, int Lwork,             \
                                                        int *devInfo)                        \
    {                                                                                        \
        struct qr_args a = {.h = (rocblas_handle)handle, .m = m, .n = n, .lda = lda,         \
                            .A = A, .tau = TAU};                                             \
        return done(a.h, with_workspace(a.h, Workspace, Lwork, sizeof(T), P##geqrf_call, &a), \
                    devInfo);                                                                \
    }                                                                                        \
    PYSHIM_EXPORT cusolverStatus_t cusolverDn##P##ORG(cusolverDnHandle_t handle, int m,      \
                                                      int n, int k, T *A, int lda,           \
                                                      const T *tau, T *work, int lwork,      \
                                                      int *info)                             \
    {                                                                                        \
        struct qr_args a = {.h = (rocblas_handle)handle, .m = m, .n = n, .k = k,             \
                            .lda = lda, .A = A, .tau = (void *)tau};                         \
        return done(a.h, with_workspace(a.h, work, lwork, sizeof(T), P##ORG##_call, &a),     \
                    info);                                                                   \
    }                                                                                        \
    PYSHIM_EXPORT cusolverStatus_t cusolverDn##P##ORM(                                       \
        cusolverDnHandle_t handle, cublasSideMode_t side, cublasOperation_t trans, int m,    \
        int n, int k, const T *A, int lda, const T *tau, T *C, int ldc, T *work, int lwork,  \
        int *devInfo)                                                                        \
    {                                                                                        \
        struct qr_args a = {.h = (rocblas_handle)handle, .side = SIDE(side),                 \
                            .trans = OPER(trans), .m = m, .n = n, .k = k, .lda = lda,        \
                            .ldc = ldc, .A = (void *)A, .tau = (void *)tau, .C = C};         \
        return done(a.h, with_workspace(a.h, work, lwork, sizeof(T), P##ORM##_call, &a),     \
                    devInfo);                                                                \
    }

QR(S, float, rocsolver_s, orgqr, ormqr)
QR(D, double, rocsolver_d, orgqr, ormqr)
QR(C, cuComplex, rocsolver_c, ungqr, unmqr)
QR(Z, cuDoubleComplex, rocsolver_z, ungqr, unmqr)

/* ---- syevd/heevd and gesvd: rocSOLVER's info is devInfo; E is scratch ---- */

struct eig_args {
    rocblas_handle h;
    rocblas_evect evect;
    rocblas_fill uplo;
    rocblas_svect left, right;
    int m, n, lda, ldu, ldv;
    void *A, *W, *E, *U, *V;
    int *info;
};

#define EIG(P, T, RT, R, EV, GE)                                                             \
    static rocblas_status P##EV##_call(void *p)                                              \
    {                                                                                        \
        struct eig_args *a = p;                                                              \
        return R##EV(a->h, a->evect, a->uplo, a->n, a->A, a->lda, a->W, a->E, a->info);      \
    }                                                                                        \
    static rocblas_status P##gesvd_call(void *p)                                             \
    {                                                                                        \
        struct eig_args *a = p;                                                              \
        return R##gesvd(a->h, a->left, a->right, a->m, a->n, a->A, a->lda, a->W, a->U,       \
                        a->ldu, a->V, a->ldv, a->E, rocblas_outofplace, a->info);            \
    }                                                                                        \
    PYSHIM_EXPORT cusolverStatus_t cusolverDn##P##EV(cusolverDnHandle_t handle,              \
                                                     cusolverEigMode_t jobz,                 \
                                                     cublasFillMode_t uplo, int n, T *A,     \
                                                     int lda, RT *W, T *work, int lwork,     \
                                                     int *info)                              \
    {                                                                                        \
        struct eig_args a = {.h = (rocblas_handle)handle, .evect = EVECT(jobz),              \
                             .uplo = FILL(uplo), .n = n, .lda = lda, .A = A, .W = W,         \
                             .info = info};                                                  \
        if (n > 0 && pyshim_blas_device_alloc(&a.E, (size_t)n * sizeof(RT)) != 0)            \
            return CUSOLVER_STATUS_ALLOC_FAILED;                                             \
        rocblas_status st = with_workspace(a.h, work, lwork, sizeof(T), P##EV##_call, &a);   \
        pyshim_blas_device_free(a.E);                                                        \
        return STATUS(st);                                                                   \
    }                                                                                        \
    PYSHIM_EXPORT cusolverStatus_t cusolverDn##P##gesvd(                                     \
        cusolverDnHandle_t handle, signed char jobu, signed char jobvt, int m, int n, T *A,  \
        int lda, RT *S, T *U, int ldu, T *VT, int ldvt, T *work, int lwork, RT *rwork,       \
        int *info)                                                                           \
    {                                                                                        \
        (void)rwork; /* cuSOLVER's copy of the superdiagonal: rocSOLVER has its own E */     \
        struct eig_args a = {.h = (rocblas_handle)handle, .left = svect(jobu),               \
                             .right = svect(jobvt), .m = m, .n = n, .lda = lda, .ldu = ldu,  \
                             .ldv = ldvt, .A = A, .W = S, .U = U, .V = VT, .info = info};    \
        int k = m < n ? m : n;                                                               \
        if (k > 1 && pyshim_blas_device_alloc(&a.E, (size_t)k * sizeof(RT)) != 0)           \
            return CUSOLVER_STATUS_ALLOC_FAILED;                                             \
        rocblas_status st = with_workspace(a.h, work, lwork, sizeof(T), P##gesvd_call, &a);  \
        pyshim_blas_device_free(a.E);                                                        \
        return STATUS(st);                                                                   \
    }

EIG(S, float, float, rocsolver_s, syevd, gesvd)
EIG(D, double, double, rocsolver_d, syevd, gesvd)
EIG(C, cuComplex, float, rocsolver_c, heevd, gesvd)
EIG(Z, cuDoubleComplex, double, rocsolver_z, heevd, gesvd)

/* gesvd_bufferSize takes only the shape: query rocSOLVER for the largest job (all vectors) */
#define GESVD_BUFFER(P, T, R)                                                                \
    PYSHIM_EXPORT cusolverStatus_t cusolverDn##P##gesvd_bufferSize(cusolverDnHandle_t handle, \
                                                                   int m, int n, int *lwork) \
    {                                                                                        \
        rocblas_handle h = (rocblas_handle)handle;                                           \
        if (!lwork)                                                                          \
            return CUSOLVER_STATUS_INVALID_VALUE;                                            \
        size_t bytes = 0;                                                                    \
        rocblas_status st = pyshim_blas_query_begin(h);                                      \
        if (st != rocblas_status_success)                                                    \
            return STATUS(st);                                                               \
        int ld = m > 1 ? m : 1, ldv = n > 1 ? n : 1;                                         \
        st = R##gesvd(h, rocblas_svect_all, rocblas_svect_all, m, n, NULL, ld, NULL, NULL,   \
                      ld, NULL, ldv, NULL, rocblas_outofplace, NULL);                        \
        st = pyshim_blas_query_end(h, st, &bytes);                                           \
        if (st != rocblas_status_success)                                                    \
            return STATUS(st);                                                               \
        *lwork = (int)((bytes + sizeof(T) - 1) / sizeof(T));                                 \
        return CUSOLVER_STATUS_SUCCESS;                                                      \
    }

GESVD_BUFFER(S, float, rocsolver_s)
GESVD_BUFFER(D, double, rocsolver_d)
GESVD_BUFFER(C, cuComplex, rocsolver_c)
GESVD_BUFFER(Z, cuDoubleComplex, rocsolver_z)

/* geqrf_bufferSize: the size depends on the shape alone, and cuSOLVER answers whatever
 * lda says (CuPy's qr passes lda = n for an m x n matrix with m > n); rocSOLVER would
 * refuse lda < m, so the query uses the leading dimension the routine itself will get at
 * least (m). A and tau are not read by the query. */
#define GEQRF_BUFFER(P, T, R)                                                                \
    PYSHIM_EXPORT cusolverStatus_t cusolverDn##P##geqrf_bufferSize(                          \
        cusolverDnHandle_t handle, int m, int n, T *A, int lda, int *lwork)                  \
    {                                                                                        \
        (void)lda;                                                                           \
        rocblas_handle h = (rocblas_handle)handle;                                           \
        if (!lwork)                                                                          \
            return CUSOLVER_STATUS_INVALID_VALUE;                                            \
        size_t bytes = 0;                                                                    \
        rocblas_status st = pyshim_blas_query_begin(h);                                      \
        if (st != rocblas_status_success)                                                    \
            return STATUS(st);                                                               \
        st = R##geqrf(h, m, n, (void *)A, m > 1 ? m : 1, NULL);                              \
        st = pyshim_blas_query_end(h, st, &bytes);                                           \
        if (st != rocblas_status_success)                                                    \
            return STATUS(st);                                                               \
        size_t elems = (bytes + sizeof(T) - 1) / sizeof(T);                                  \
        *lwork = elems > INT32_MAX ? INT32_MAX : (int)elems;                                 \
        return CUSOLVER_STATUS_SUCCESS;                                                      \
    }

GEQRF_BUFFER(S, float, rocsolver_s)
GEQRF_BUFFER(D, double, rocsolver_d)
GEQRF_BUFFER(C, cuComplex, rocsolver_c)
GEQRF_BUFFER(Z, cuDoubleComplex, rocsolver_z)

/* potrsBatched: d_info is one int for the whole batch (cuSOLVER: 0 or -i) */
#define POTRS_BATCHED(P, T, RT, R)                                                           \
    PYSHIM_EXPORT cusolverStatus_t cusolverDn##P##potrsBatched(                              \
        cusolverDnHandle_t handle, cublasFillMode_t uplo, int n, int nrhs, T *A[], int lda,  \
        T *B[], int ldb, int *d_info, int batchSize)                                         \
    {                                                                                        \
        rocblas_handle h = (rocblas_handle)handle;                                           \
        rocblas_status st = R##potrs_batched(h, FILL(uplo), n, nrhs, (RT *const *)A, lda,    \
                                             (RT *const *)B, ldb, batchSize);                \
        return done(h, st, d_info);                                                          \
    }

POTRS_BATCHED(S, float, float, rocsolver_s)
POTRS_BATCHED(D, double, double, rocsolver_d)
POTRS_BATCHED(C, cuComplex, rocblas_float_complex, rocsolver_c)
POTRS_BATCHED(Z, cuDoubleComplex, rocblas_double_complex, rocsolver_z)
