/* cuSOLVER's iterative-refinement solvers (cusolverDn<t1><t2>gesv/gels and the expert
 * cusolverDnIRSXgesv/gels with their params/infos objects) on rocSOLVER's gesv and gels.
 *
 * cuSOLVER factors in the lower precision t2 and refines towards t1; when it judges the
 * lower precision not worth it, it factors in t1 and reports iter = -1. rocSOLVER has no
 * mixed precision, so every call is that documented fallback: the factorization and the
 * solve run in the main precision t1, A holds its factors afterwards ("garbage" in
 * cuSOLVER's words), and iter is -1, or 0 where t2 is t1 (no refinement was asked for).
 *
 * gesv solves in X (B copied there first); gels (m >= n) solves in a copy of B kept in the
 * workspace ahead of rocSOLVER's own, then copies its first n rows to X. lwork_bytes from
 * the _bufferSize forms covers both. */
#include <stdint.h>
#include <stdlib.h>
#include <cusolverDn.h>
#include <rocsolver/rocsolver.h>

#include "blas_internal.h"
#include "cusolver_enums.h"

#define STATUS(st) ((cusolverStatus_t)pyshim_cusolverStatus_t_from_rocblas_status(st))

enum { PREC_S, PREC_D, PREC_C, PREC_Z };

static const size_t ELEM[] = {4, 8, 8, 16};

static rocblas_status gesv_of(int prec, rocblas_handle h, int n, int nrhs, void *A, int lda,
                              int *ipiv, void *B, int ldb, int *info)
{
    switch (prec) {
    case PREC_S: return rocsolver_sgesv(h, n, nrhs, A, lda, ipiv, B, ldb, info);
    case PREC_D: return rocsolver_dgesv(h, n, nrhs, A, lda, ipiv, B, ldb, info);
    case PREC_C: return rocsolver_cgesv(h, n, nrhs, A, lda, ipiv, B, ldb, info);
    default: return rocsolver_zgesv(h, n, nrhs, A, lda, ipiv, B, ldb, info);
    }
}

static rocblas_status gels_of(int prec, rocblas_handle h, int m, int n, int nrhs, void *A,
                              int lda, void *B, int ldb, int *info)
{
    rocblas_operation op = rocblas_operation_none;
    switch (prec) {
    case PREC_S: return rocsolver_sgels(h, op, m, n, nrhs, A, lda, B, ldb, info);
    case PREC_D: return rocsolver_dgels(h, op, m, n, nrhs, A, lda, B, ldb, info);
    case PREC_C: return rocsolver_cgels(h, op, m, n, nrhs, A, lda, B, ldb, info);
    default: return rocsolver_zgels(h, op, m, n, nrhs, A, lda, B, ldb, info);
    }
}

static int max1(int v)
{
    return v > 1 ? v : 1;
}

/* the copy of B that gels works on, rounded so rocSOLVER's part stays aligned */
static size_t gels_copy_bytes(int prec, int m, int nrhs)
{
    size_t b = (size_t)max1(m) * (size_t)(nrhs > 0 ? nrhs : 0) * ELEM[prec];
    return (b + 255) & ~(size_t)255;
}

static void *stream_of(rocblas_handle h)
{
    hipStream_t s = NULL;
    rocblas_get_stream(h, &s);
    return s;
}

static cusolverStatus_t query(rocblas_handle h, rocblas_status st, size_t extra, size_t *out)
{
    size_t bytes = 0;
    st = pyshim_blas_query_end(h, st, &bytes);
    if (st != rocblas_status_success)
        return STATUS(st);
    *out = bytes + extra;
    return CUSOLVER_STATUS_SUCCESS;
}

static cusolverStatus_t gesv_size(int prec, cusolverDnHandle_t handle, int n, int nrhs,
                                  int ldda, int lddx, size_t *lwork_bytes)
{
    rocblas_handle h = (rocblas_handle)handle;
    if (!lwork_bytes || n < 0 || nrhs < 0)
        return CUSOLVER_STATUS_INVALID_VALUE;
    rocblas_status st = pyshim_blas_query_begin(h);
    if (st != rocblas_status_success)
        return STATUS(st);
    st = gesv_of(prec, h, n, nrhs, NULL, max1(ldda), NULL, NULL, max1(lddx), NULL);
    return query(h, st, 0, lwork_bytes);
}

static cusolverStatus_t gels_size(int prec, cusolverDnHandle_t handle, int m, int n,
                                  int nrhs, int ldda, size_t *lwork_bytes)
{
    rocblas_handle h = (rocblas_handle)handle;
    if (!lwork_bytes || m < 0 || n < 0 || n > m || nrhs < 0)
        return CUSOLVER_STATUS_INVALID_VALUE;
    rocblas_status st = pyshim_blas_query_begin(h);
    if (st != rocblas_status_success)
        return STATUS(st);
    st = gels_of(prec, h, m, n, nrhs, NULL, max1(ldda), NULL, max1(m), NULL);
    return query(h, st, gels_copy_bytes(prec, m, nrhs), lwork_bytes);
}

static cusolverStatus_t gesv_run(int prec, int refined, cusolverDnHandle_t handle, int n,
                                 int nrhs, void *dA, int ldda, int *dipiv, void *dB, int lddb,
                                 void *dX, int lddx, void *work, size_t lwork_bytes, int *iter,
                                 int *d_info)
{
    rocblas_handle h = (rocblas_handle)handle;
    if (n < 0 || nrhs < 0 || ldda < max1(n) || lddb < max1(n) || lddx < max1(n) || !iter ||
        (n > 0 && (!dA || !dipiv || (nrhs > 0 && (!dB || !dX)))))
        return CUSOLVER_STATUS_INVALID_VALUE;
    size_t elem = ELEM[prec];
    if (n > 0 && nrhs > 0 && (dX != dB || lddx != lddb) &&
        pyshim_blas_copy_device(dX, (size_t)lddx * elem, dB, (size_t)lddb * elem,
                                (size_t)n * elem, (size_t)nrhs, stream_of(h)) != 0)
        return CUSOLVER_STATUS_EXECUTION_FAILED;
    rocblas_status st = rocblas_set_workspace(h, work, work ? lwork_bytes : 0);
    if (st == rocblas_status_success)
        st = gesv_of(prec, h, n, nrhs, dA, ldda, dipiv, dX, lddx, d_info);
    rocblas_set_workspace(h, NULL, 0);
    if (st == rocblas_status_success)
        *iter = refined ? -1 : 0;
    return STATUS(st);
}

static cusolverStatus_t gels_run(int prec, int refined, cusolverDnHandle_t handle, int m,
                                 int n, int nrhs, void *dA, int ldda, void *dB, int lddb,
                                 void *dX, int lddx, void *work, size_t lwork_bytes, int *iter,
                                 int *d_info)
{
    rocblas_handle h = (rocblas_handle)handle;
    if (m < 0 || n < 0 || n > m || nrhs < 0 || ldda < max1(m) || lddb < max1(m) ||
        lddx < max1(n) || !iter || (m > 0 && !dA) || (m > 0 && nrhs > 0 && (!dB || !dX)))
        return CUSOLVER_STATUS_INVALID_VALUE;
    size_t elem = ELEM[prec];
    size_t copy = gels_copy_bytes(prec, m, nrhs);
    if (lwork_bytes < copy || (copy && !work))
        return CUSOLVER_STATUS_INVALID_VALUE;
    void *stream = stream_of(h);
    int ldw = max1(m);
    if (m > 0 && nrhs > 0 &&
        pyshim_blas_copy_device(work, (size_t)ldw * elem, dB, (size_t)lddb * elem,
                                (size_t)m * elem, (size_t)nrhs, stream) != 0)
        return CUSOLVER_STATUS_EXECUTION_FAILED;
    char *rest = (char *)work + copy;
    size_t rest_bytes = lwork_bytes - copy;
    rocblas_status st = rocblas_set_workspace(h, rest_bytes ? rest : NULL, rest_bytes);
    if (st == rocblas_status_success)
        st = gels_of(prec, h, m, n, nrhs, dA, ldda, work, ldw, d_info);
    rocblas_set_workspace(h, NULL, 0);
    if (st != rocblas_status_success)
        return STATUS(st);
    if (n > 0 && nrhs > 0 &&
        pyshim_blas_copy_device(dX, (size_t)lddx * elem, work, (size_t)ldw * elem,
                                (size_t)n * elem, (size_t)nrhs, stream) != 0)
        return CUSOLVER_STATUS_EXECUTION_FAILED;
    *iter = refined ? -1 : 0;
    return CUSOLVER_STATUS_SUCCESS;
}

/* P: main precision letter, L: lowest, T: the main type, PREC: its rocSOLVER precision */
#define IRS(P, L, T, PREC)                                                                   \
    PYSHIM_EXPORT cusolverStatus_t cusolverDn##P##L##gesv_bufferSize(                        \
        cusolverDnHandle_t handle, cusolver_int_t n, cusolver_int_t nrhs, T *dA,             \
        cusolver_int_t ldda, cusolver_int_t *dipiv, T *dB, cusolver_int_t lddb, T *dX,       \
        cusolver_int_t lddx, void *dWorkspace, size_t *lwork_bytes)                          \
    {                                                                                        \
        (void)dA, (void)dipiv, (void)dB, (void)lddb, (void)dX, (void)dWorkspace;             \
        return gesv_size(PREC, handle, n, nrhs, ldda, lddx, lwork_bytes);                    \
    }                                                                                        \
    PYSHIM_EXPORT cusolverStatus_t cusolverDn##P##L##gesv(                                   \
        cusolverDnHandle_t handle, cusolver_int_t n, cusolver_int_t nrhs, T *dA,             \
        cusolver_int_t ldda, cusolver_int_t *dipiv, T *dB, cusolver_int_t lddb, T *dX,       \
        cusolver_int_t lddx, void *dWorkspace, size_t lwork_bytes, cusolver_int_t *iter,     \
        cusolver_int_t *d_info)                                                              \
    {                                                                                        \
        return gesv_run(PREC, #P[0] != #L[0], handle, n, nrhs, dA, ldda, dipiv, dB, lddb,    \
                        dX, lddx, dWorkspace, lwork_bytes, iter, d_info);                    \
    }                                                                                        \
    PYSHIM_EXPORT cusolverStatus_t cusolverDn##P##L##gels_bufferSize(                        \
        cusolverDnHandle_t handle, cusolver_int_t m, cusolver_int_t n, cusolver_int_t nrhs,  \
        T *dA, cusolver_int_t ldda, T *dB, cusolver_int_t lddb, T *dX, cusolver_int_t lddx,  \
        void *dWorkspace, size_t *lwork_bytes)                                               \
    {                                                                                        \
        (void)dA, (void)dB, (void)lddb, (void)dX, (void)lddx, (void)dWorkspace;              \
        return gels_size(PREC, handle, m, n, nrhs, ldda, lwork_bytes);                       \
    }                                                                                        \
    PYSHIM_EXPORT cusolverStatus_t cusolverDn##P##L##gels(                                   \
        cusolverDnHandle_t handle, cusolver_int_t m, cusolver_int_t n, cusolver_int_t nrhs,  \
        T *dA, cusolver_int_t ldda, T *dB, cusolver_int_t lddb, T *dX, cusolver_int_t lddx,  \
        void *dWorkspace, size_t lwork_bytes, cusolver_int_t *iter, cusolver_int_t *d_info)  \
    {                                                                                        \
        return gels_run(PREC, #P[0] != #L[0], handle, m, n, nrhs, dA, ldda, dB, lddb, dX,    \
                        lddx, dWorkspace, lwork_bytes, iter, d_info);                        \
    }

IRS(Z, Z, cuDoubleComplex, PREC_Z)
IRS(Z, C, cuDoubleComplex, PREC_Z)
IRS(Z, K, cuDoubleComplex, PREC_Z)
IRS(Z, E, cuDoubleComplex, PREC_Z)
IRS(Z, Y, cuDoubleComplex, PREC_Z)
IRS(C, C, cuComplex, PREC_C)
IRS(C, E, cuComplex, PREC_C)
IRS(C, K, cuComplex, PREC_C)
IRS(C, Y, cuComplex, PREC_C)
IRS(D, D, double, PREC_D)
IRS(D, S, double, PREC_D)
IRS(D, H, double, PREC_D)
IRS(D, B, double, PREC_D)
IRS(D, X, double, PREC_D)
IRS(S, S, float, PREC_S)
IRS(S, H, float, PREC_S)
IRS(S, B, float, PREC_S)
IRS(S, X, float, PREC_S)

/* ---- the expert API: params and infos objects ---- */

#define IRS_PARAMS_MAGIC 0x69727370u
#define IRS_INFOS_MAGIC 0x69727369u

struct cusolverDnIRSParams {
    unsigned magic;
    cusolverPrecType_t main, lowest;
    cusolverIRSRefinement_t solver;
    double tol, tol_inner;
    int maxiters, maxiters_inner, fallback;
};

struct cusolverDnIRSInfos {
    unsigned magic;
    int niters, outer_niters, maxiters;
};

static int params_ok(const struct cusolverDnIRSParams *p)
{
    return pyshim_blas_object_live(p) && p->magic == IRS_PARAMS_MAGIC;
}

static int infos_ok(const struct cusolverDnIRSInfos *p)
{
    return pyshim_blas_object_live(p) && p->magic == IRS_INFOS_MAGIC;
}

static void *object_new(size_t bytes)
{
    void *p = calloc(1, bytes);
    if (p && !pyshim_blas_object_add(p)) {
        free(p);
        return NULL;
    }
    return p;
}

PYSHIM_EXPORT cusolverStatus_t cusolverDnIRSParamsCreate(cusolverDnIRSParams_t *params_ptr)
{
    if (!params_ptr)
        return CUSOLVER_STATUS_INVALID_VALUE;
    struct cusolverDnIRSParams *p = object_new(sizeof *p);
    if (!p)
        return CUSOLVER_STATUS_ALLOC_FAILED;
    /* cuSOLVER's defaults: no precisions yet, classical refinement, 50 iterations */
    *p = (struct cusolverDnIRSParams){.magic = IRS_PARAMS_MAGIC, .solver = CUSOLVER_IRS_REFINE_CLASSICAL,
                                      .maxiters = 50, .maxiters_inner = 50, .fallback = 1};
    *params_ptr = p;
    return CUSOLVER_STATUS_SUCCESS;
}

PYSHIM_EXPORT cusolverStatus_t cusolverDnIRSParamsDestroy(cusolverDnIRSParams_t params)
{
    if (!params_ok(params))
        return CUSOLVER_STATUS_INVALID_VALUE;
    pyshim_blas_object_remove(params);
    params->magic = 0;
    free(params);
    return CUSOLVER_STATUS_SUCCESS;
}

#define PARAMS_SET(NAME, TYPE, FIELD)                                                        \
    PYSHIM_EXPORT cusolverStatus_t cusolverDnIRSParams##NAME(cusolverDnIRSParams_t params,   \
                                                             TYPE v)                         \
    {                                                                                        \
        if (!params_ok(params))                                                              \
            return CUSOLVER_STATUS_INVALID_VALUE;                                            \
        params->FIELD = v;                                                                   \
        return CUSOLVER_STATUS_SUCCESS;                                                      \
    }

PARAMS_SET(SetRefinementSolver, cusolverIRSRefinement_t, solver)
PARAMS_SET(SetSolverMainPrecision, cusolverPrecType_t, main)
PARAMS_SET(SetSolverLowestPrecision, cusolverPrecType_t, lowest)
PARAMS_SET(SetTol, double, tol)
PARAMS_SET(SetTolInner, double, tol_inner)
PARAMS_SET(SetMaxIters, cusolver_int_t, maxiters)
PARAMS_SET(SetMaxItersInner, cusolver_int_t, maxiters_inner)

PYSHIM_EXPORT cusolverStatus_t cusolverDnIRSParamsSetSolverPrecisions(
    cusolverDnIRSParams_t params, cusolverPrecType_t solver_main_precision,
    cusolverPrecType_t solver_lowest_precision)
{
    if (!params_ok(params))
        return CUSOLVER_STATUS_INVALID_VALUE;
    params->main = solver_main_precision;
    params->lowest = solver_lowest_precision;
    return CUSOLVER_STATUS_SUCCESS;
}

PYSHIM_EXPORT cusolverStatus_t cusolverDnIRSParamsGetMaxIters(cusolverDnIRSParams_t params,
                                                              cusolver_int_t *maxiters)
{
    if (!params_ok(params) || !maxiters)
        return CUSOLVER_STATUS_INVALID_VALUE;
    *maxiters = params->maxiters;
    return CUSOLVER_STATUS_SUCCESS;
}

PYSHIM_EXPORT cusolverStatus_t cusolverDnIRSParamsEnableFallback(cusolverDnIRSParams_t params)
{
    if (!params_ok(params))
        return CUSOLVER_STATUS_INVALID_VALUE;
    params->fallback = 1;
    return CUSOLVER_STATUS_SUCCESS;
}

PYSHIM_EXPORT cusolverStatus_t cusolverDnIRSParamsDisableFallback(cusolverDnIRSParams_t params)
{
    if (!params_ok(params))
        return CUSOLVER_STATUS_INVALID_VALUE;
    params->fallback = 0;
    return CUSOLVER_STATUS_SUCCESS;
}

PYSHIM_EXPORT cusolverStatus_t cusolverDnIRSInfosCreate(cusolverDnIRSInfos_t *infos_ptr)
{
    if (!infos_ptr)
        return CUSOLVER_STATUS_INVALID_VALUE;
    struct cusolverDnIRSInfos *p = object_new(sizeof *p);
    if (!p)
        return CUSOLVER_STATUS_ALLOC_FAILED;
    p->magic = IRS_INFOS_MAGIC;
    *infos_ptr = p;
    return CUSOLVER_STATUS_SUCCESS;
}

PYSHIM_EXPORT cusolverStatus_t cusolverDnIRSInfosDestroy(cusolverDnIRSInfos_t infos)
{
    if (!infos_ok(infos))
        return CUSOLVER_STATUS_INVALID_VALUE;
    pyshim_blas_object_remove(infos);
    infos->magic = 0;
    free(infos);
    return CUSOLVER_STATUS_SUCCESS;
}

#define INFOS_GET(NAME, FIELD)                                                               \
    PYSHIM_EXPORT cusolverStatus_t cusolverDnIRSInfos##NAME(cusolverDnIRSInfos_t infos,      \
                                                            cusolver_int_t *out)             \
    {                                                                                        \
        if (!infos_ok(infos) || !out)                                                        \
            return CUSOLVER_STATUS_INVALID_VALUE;                                            \
        *out = infos->FIELD;                                                                 \
        return CUSOLVER_STATUS_SUCCESS;                                                      \
    }

INFOS_GET(GetNiters, niters)
INFOS_GET(GetOuterNiters, outer_niters)
INFOS_GET(GetMaxIters, maxiters)

/* No refinement runs, so there is no residual history to keep: asking for one is refused
 * (cuSOLVER's NOT_SUPPORTED, logged), never answered with made-up norms. */
PYSHIM_EXPORT cusolverStatus_t cusolverDnIRSInfosRequestResidual(cusolverDnIRSInfos_t infos)
{
    if (!infos_ok(infos))
        return CUSOLVER_STATUS_INVALID_VALUE;
    pyshim_blas_unsupported("cusolverDnIRSInfosRequestResidual");
    return CUSOLVER_STATUS_NOT_SUPPORTED;
}

PYSHIM_EXPORT cusolverStatus_t cusolverDnIRSInfosGetResidualHistory(cusolverDnIRSInfos_t infos,
                                                                    void **residual_history)
{
    if (!infos_ok(infos) || !residual_history)
        return CUSOLVER_STATUS_INVALID_VALUE;
    pyshim_blas_unsupported("cusolverDnIRSInfosGetResidualHistory");
    return CUSOLVER_STATUS_NOT_SUPPORTED;
}

/* the rocSOLVER precision of the params' main precision; -1 for none */
static int main_prec(const struct cusolverDnIRSParams *p)
{
    switch (p->main) {
    case CUSOLVER_R_32F: return PREC_S;
    case CUSOLVER_R_64F: return PREC_D;
    case CUSOLVER_C_32F: return PREC_C;
    case CUSOLVER_C_64F: return PREC_Z;
    default: return -1;
    }
}

static cusolverStatus_t expert_prec(cusolverDnIRSParams_t params, int *prec)
{
    if (!params_ok(params))
        return CUSOLVER_STATUS_INVALID_VALUE;
    *prec = main_prec(params);
    /* cuSOLVER: the main precision must be set before a solve */
    return *prec < 0 ? CUSOLVER_STATUS_IRS_PARAMS_INVALID_PREC : CUSOLVER_STATUS_SUCCESS;
}

static cusolverStatus_t expert_done(cusolverStatus_t st, cusolverDnIRSParams_t params,
                                    cusolverDnIRSInfos_t infos, int *niters)
{
    if (st == CUSOLVER_STATUS_SUCCESS && infos) {
        infos->niters = *niters;
        infos->outer_niters = *niters;
        infos->maxiters = params->maxiters;
    }
    return st;
}

PYSHIM_EXPORT cusolverStatus_t cusolverDnIRSXgesv_bufferSize(cusolverDnHandle_t handle,
                                                             cusolverDnIRSParams_t params,
                                                             cusolver_int_t n,
                                                             cusolver_int_t nrhs,
                                                             size_t *lwork_bytes)
{
    int prec;
    cusolverStatus_t st = expert_prec(params, &prec);
    if (st != CUSOLVER_STATUS_SUCCESS)
        return st;
    return gesv_size(prec, handle, n, nrhs, n, n, lwork_bytes);
}

PYSHIM_EXPORT cusolverStatus_t cusolverDnIRSXgesv(
    cusolverDnHandle_t handle, cusolverDnIRSParams_t gesv_irs_params,
    cusolverDnIRSInfos_t gesv_irs_infos, cusolver_int_t n, cusolver_int_t nrhs, void *dA,
    cusolver_int_t ldda, void *dB, cusolver_int_t lddb, void *dX, cusolver_int_t lddx,
    void *dWorkspace, size_t lwork_bytes, cusolver_int_t *niters, cusolver_int_t *d_info)
{
    int prec;
    cusolverStatus_t st = expert_prec(gesv_irs_params, &prec);
    if (st != CUSOLVER_STATUS_SUCCESS)
        return st;
    if (gesv_irs_infos && !infos_ok(gesv_irs_infos))
        return CUSOLVER_STATUS_INVALID_VALUE;
    /* the expert API takes no pivot array: rocSOLVER's goes on the device for the call */
    int *ipiv = NULL;
    if (n > 0 && pyshim_blas_device_alloc((void **)&ipiv, (size_t)n * sizeof *ipiv) != 0)
        return CUSOLVER_STATUS_ALLOC_FAILED;
    int refined = gesv_irs_params->lowest != gesv_irs_params->main;
    st = gesv_run(prec, refined, handle, n, nrhs, dA, ldda, ipiv, dB, lddb, dX, lddx,
                  dWorkspace, lwork_bytes, niters, d_info);
    if (ipiv) {
        /* freed only once the queued solve is done with it */
        int idle;
        pyshim_blas_read_back(&idle, ipiv, sizeof idle);
        pyshim_blas_device_free(ipiv);
    }
    return expert_done(st, gesv_irs_params, gesv_irs_infos, niters);
}

PYSHIM_EXPORT cusolverStatus_t cusolverDnIRSXgels_bufferSize(cusolverDnHandle_t handle,
                                                             cusolverDnIRSParams_t params,
                                                             cusolver_int_t m,
                                                             cusolver_int_t n,
                                                             cusolver_int_t nrhs,
                                                             size_t *lwork_bytes)
{
    int prec;
    cusolverStatus_t st = expert_prec(params, &prec);
    if (st != CUSOLVER_STATUS_SUCCESS)
        return st;
    return gels_size(prec, handle, m, n, nrhs, m, lwork_bytes);
}

PYSHIM_EXPORT cusolverStatus_t cusolverDnIRSXgels(
    cusolverDnHandle_t handle, cusolverDnIRSParams_t gels_irs_params,
    cusolverDnIRSInfos_t gels_irs_infos, cusolver_int_t m, cusolver_int_t n,
    cusolver_int_t nrhs, void *dA, cusolver_int_t ldda, void *dB, cusolver_int_t lddb,
    void *dX, cusolver_int_t lddx, void *dWorkspace, size_t lwork_bytes,
    cusolver_int_t *niters, cusolver_int_t *d_info)
{
    int prec;
    cusolverStatus_t st = expert_prec(gels_irs_params, &prec);
    if (st != CUSOLVER_STATUS_SUCCESS)
        return st;
    if (gels_irs_infos && !infos_ok(gels_irs_infos))
        return CUSOLVER_STATUS_INVALID_VALUE;
    int refined = gels_irs_params->lowest != gels_irs_params->main;
    st = gels_run(prec, refined, handle, m, n, nrhs, dA, ldda, dB, lddb, dX, lddx, dWorkspace,
                  lwork_bytes, niters, d_info);
    return expert_done(st, gels_irs_params, gels_irs_infos, niters);
}
