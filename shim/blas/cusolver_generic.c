/* cuSOLVER's 64-bit generic API (cusolverDnX*: data types as cudaDataType, sizes int64_t,
 * separate device and host workspaces) on rocSOLVER's typed 32-bit routines: potrf,
 * potrs, getrf, getrs, geqrf, syevd/heevd, gesvd, geev (where the rocSOLVER has it), and
 * the params object they take.
 *
 * The data type picks the routine; a compute type other than the data type, a size
 * beyond 32 bits, or a type rocSOLVER has no routine for answers NOT_SUPPORTED. No
 * routine here needs a host workspace (0 bytes are asked for). cuSOLVER's 64-bit pivots
 * are narrowed/widened through host memory around rocSOLVER's 32-bit ones. */
#include <dlfcn.h>
#include <stdint.h>
#include <stdlib.h>
#include <cusolverDn.h>
#include <rocsolver/rocsolver.h>

#include "blas_internal.h"
#include "common/log.h"
#include "cusolver_enums.h"

#define STATUS(st) ((cusolverStatus_t)pyshim_cusolverStatus_t_from_rocblas_status(st))
#define FILL(u) ((rocblas_fill)pyshim_cublasFillMode_t_to_rocblas_fill(u))
#define OPER(t) ((rocblas_operation)pyshim_cublasOperation_t_to_rocblas_operation(t))
#define EVECT(j) ((rocblas_evect)pyshim_cusolverEigMode_t_to_rocblas_evect(j))

#define PARAMS_MAGIC 0x70617261u

struct cusolverDnParams {
    unsigned magic;
    cusolverAlgMode_t getrf_algo;
};

PYSHIM_EXPORT cusolverStatus_t cusolverDnCreateParams(cusolverDnParams_t *params)
{
    if (!params)
        return CUSOLVER_STATUS_INVALID_VALUE;
    struct cusolverDnParams *p = calloc(1, sizeof *p);
    if (!p)
        return CUSOLVER_STATUS_ALLOC_FAILED;
    p->magic = PARAMS_MAGIC;
    p->getrf_algo = CUSOLVER_ALG_0;
    if (!pyshim_blas_object_add(p)) {
        free(p);
        return CUSOLVER_STATUS_ALLOC_FAILED;
    }
    *params = p;
    return CUSOLVER_STATUS_SUCCESS;
}

PYSHIM_EXPORT cusolverStatus_t cusolverDnDestroyParams(cusolverDnParams_t params)
{
    if (!pyshim_blas_object_live(params) || params->magic != PARAMS_MAGIC)
        return CUSOLVER_STATUS_INVALID_VALUE;
    pyshim_blas_object_remove(params);
    params->magic = 0;
    free(params);
    return CUSOLVER_STATUS_SUCCESS;
}

/* Recorded; rocSOLVER has one algorithm per routine. */
PYSHIM_EXPORT cusolverStatus_t cusolverDnSetAdvOptions(cusolverDnParams_t params,
                                                       cusolverDnFunction_t function,
                                                       cusolverAlgMode_t algo)
{
    if (!pyshim_blas_object_live(params) || params->magic != PARAMS_MAGIC)
        return CUSOLVER_STATUS_INVALID_VALUE;
    if (function != CUSOLVERDN_GETRF || (algo != CUSOLVER_ALG_0 && algo != CUSOLVER_ALG_1))
        return CUSOLVER_STATUS_INVALID_VALUE;
    params->getrf_algo = algo;
    return CUSOLVER_STATUS_SUCCESS;
}

/* ---- checks shared by every routine ---- */

static int fits(int64_t v)
{
    return v >= INT32_MIN && v <= INT32_MAX;
}

/* the rocSOLVER precision of a cuSOLVER data type: 0 s, 1 d, 2 c, 3 z; -1 none */
static int precision(cudaDataType t)
{
    switch (t) {
    case CUDA_R_32F: return 0;
    case CUDA_R_64F: return 1;
    case CUDA_C_32F: return 2;
    case CUDA_C_64F: return 3;
    default: return -1;
    }
}

static size_t elem_size(int prec)
{
    static const size_t sizes[] = {4, 8, 8, 16};
    return sizes[prec];
}

/* the real type that goes with a precision (eigenvalues, singular values), its size, and
 * the complex one (geev's eigenvalues) */
static cudaDataType real_type(int prec)
{
    return prec == 0 || prec == 2 ? CUDA_R_32F : CUDA_R_64F;
}

static size_t real_size(int prec)
{
    return elem_size(prec == 0 || prec == 2 ? 0 : 1);
}

static cudaDataType complex_type(int prec)
{
    return prec == 0 || prec == 2 ? CUDA_C_32F : CUDA_C_64F;
}

static cusolverStatus_t check_types(cusolverDnParams_t params, cudaDataType data,
                                    cudaDataType compute, int *prec)
{
    if (params && (!pyshim_blas_object_live(params) || params->magic != PARAMS_MAGIC))
        return CUSOLVER_STATUS_INVALID_VALUE;
    *prec = precision(data);
    if (*prec < 0 || compute != data)
        return CUSOLVER_STATUS_NOT_SUPPORTED;
    return CUSOLVER_STATUS_SUCCESS;
}

/* One rocSOLVER call per precision: CALL(prefix, type) must be a macro expression. */
#define DISPATCH(prec, CALL)                                                                 \
    ((prec) == 0   ? CALL(s, float)                                                          \
     : (prec) == 1 ? CALL(d, double)                                                         \
     : (prec) == 2 ? CALL(c, rocblas_float_complex)                                          \
                   : CALL(z, rocblas_double_complex))

/* Device workspace as the handle's for one call; devInfo = 0 after routines without info. */
static rocblas_status ws_begin(rocblas_handle h, void *buf, size_t bytes)
{
    return rocblas_set_workspace(h, buf, buf ? bytes : 0);
}

static cusolverStatus_t finish(rocblas_handle h, rocblas_status st, int *info, int zero_info)
{
    rocblas_set_workspace(h, NULL, 0);
    if (st == rocblas_status_success && zero_info && info) {
        hipStream_t stream = NULL;
        rocblas_get_stream(h, &stream);
        if (pyshim_blas_zero_int(info, stream) != 0)
            return CUSOLVER_STATUS_EXECUTION_FAILED;
    }
    return STATUS(st);
}

static cusolverStatus_t query_end(rocblas_handle h, rocblas_status st, size_t *dev,
                                  size_t *host)
{
    size_t bytes = 0;
    st = pyshim_blas_query_end(h, st, &bytes);
    if (st != rocblas_status_success)
        return STATUS(st);
    if (!dev || !host)
        return CUSOLVER_STATUS_INVALID_VALUE;
    *dev = bytes;
    *host = 0;
    return CUSOLVER_STATUS_SUCCESS;
}

#define BEGIN_QUERY(h)                                                                       \
    do {                                                                                     \
        rocblas_status q_ = pyshim_blas_query_begin(h);                                      \
        if (q_ != rocblas_status_success)                                                    \
            return STATUS(q_);                                                               \
    } while (0)

/* ---- potrf, potrs ---- */

PYSHIM_EXPORT cusolverStatus_t cusolverDnXpotrf_bufferSize(
    cusolverDnHandle_t handle, cusolverDnParams_t params, cublasFillMode_t uplo, int64_t n,
    cudaDataType dataTypeA, const void *A, int64_t lda, cudaDataType computeType,
    size_t *workspaceInBytesOnDevice, size_t *workspaceInBytesOnHost)
{
    rocblas_handle h = (rocblas_handle)handle;
    int p;
    cusolverStatus_t cs = check_types(params, dataTypeA, computeType, &p);
    if (cs != CUSOLVER_STATUS_SUCCESS)
        return cs;
    if (!fits(n) || !fits(lda))
        return CUSOLVER_STATUS_NOT_SUPPORTED;
    BEGIN_QUERY(h);
#define CALL(x, T) rocsolver_##x##potrf(h, FILL(uplo), (int)n, (T *)A, (int)lda, NULL)
    rocblas_status st = DISPATCH(p, CALL);
#undef CALL
    return query_end(h, st, workspaceInBytesOnDevice, workspaceInBytesOnHost);
}

PYSHIM_EXPORT cusolverStatus_t cusolverDnXpotrf(
    cusolverDnHandle_t handle, cusolverDnParams_t params, cublasFillMode_t uplo, int64_t n,
    cudaDataType dataTypeA, void *A, int64_t lda, cudaDataType computeType,
    void *bufferOnDevice, size_t workspaceInBytesOnDevice, void *bufferOnHost,
    size_t workspaceInBytesOnHost, int *info)
{
    (void)bufferOnHost;
    (void)workspaceInBytesOnHost;
    rocblas_handle h = (rocblas_handle)handle;
    int p;
    cusolverStatus_t cs = check_types(params, dataTypeA, computeType, &p);
    if (cs != CUSOLVER_STATUS_SUCCESS)
        return cs;
    if (!fits(n) || !fits(lda))
        return CUSOLVER_STATUS_NOT_SUPPORTED;
    rocblas_status st = ws_begin(h, bufferOnDevice, workspaceInBytesOnDevice);
#define CALL(x, T) rocsolver_##x##potrf(h, FILL(uplo), (int)n, (T *)A, (int)lda, info)
    if (st == rocblas_status_success)
        st = DISPATCH(p, CALL);
#undef CALL
    return finish(h, st, info, 0);
}

PYSHIM_EXPORT cusolverStatus_t cusolverDnXpotrs(
    cusolverDnHandle_t handle, cusolverDnParams_t params, cublasFillMode_t uplo, int64_t n,
    int64_t nrhs, cudaDataType dataTypeA, const void *A, int64_t lda, cudaDataType dataTypeB,
    void *B, int64_t ldb, int *info)
{
    rocblas_handle h = (rocblas_handle)handle;
    int p;
    cusolverStatus_t cs = check_types(params, dataTypeA, dataTypeB, &p);
    if (cs != CUSOLVER_STATUS_SUCCESS)
        return cs;
    if (!fits(n) || !fits(nrhs) || !fits(lda) || !fits(ldb))
        return CUSOLVER_STATUS_NOT_SUPPORTED;
#define CALL(x, T) rocsolver_##x##potrs(h, FILL(uplo), (int)n, (int)nrhs, (T *)A, (int)lda, \
                                        (T *)B, (int)ldb)
    rocblas_status st = DISPATCH(p, CALL);
#undef CALL
    return finish(h, st, info, 1);
}

/* ---- getrf, getrs (64-bit pivots) ---- */

PYSHIM_EXPORT cusolverStatus_t cusolverDnXgetrf_bufferSize(
    cusolverDnHandle_t handle, cusolverDnParams_t params, int64_t m, int64_t n,
    cudaDataType dataTypeA, const void *A, int64_t lda, cudaDataType computeType,
    size_t *workspaceInBytesOnDevice, size_t *workspaceInBytesOnHost)
{
    rocblas_handle h = (rocblas_handle)handle;
    int p;
    cusolverStatus_t cs = check_types(params, dataTypeA, computeType, &p);
    if (cs != CUSOLVER_STATUS_SUCCESS)
        return cs;
    if (!fits(m) || !fits(n) || !fits(lda))
        return CUSOLVER_STATUS_NOT_SUPPORTED;
    BEGIN_QUERY(h);
#define CALL(x, T) rocsolver_##x##getrf(h, (int)m, (int)n, (T *)A, (int)lda, NULL, NULL)
    rocblas_status st = DISPATCH(p, CALL);
#undef CALL
    cs = query_end(h, st, workspaceInBytesOnDevice, workspaceInBytesOnHost);
    if (cs == CUSOLVER_STATUS_SUCCESS) /* room for rocSOLVER's 32-bit pivots */
        *workspaceInBytesOnDevice += (size_t)(m < n ? m : n) * sizeof(int) + 64;
    return cs;
}

PYSHIM_EXPORT cusolverStatus_t cusolverDnXgetrf(
    cusolverDnHandle_t handle, cusolverDnParams_t params, int64_t m, int64_t n,
    cudaDataType dataTypeA, void *A, int64_t lda, int64_t *ipiv, cudaDataType computeType,
    void *bufferOnDevice, size_t workspaceInBytesOnDevice, void *bufferOnHost,
    size_t workspaceInBytesOnHost, int *info)
{
    (void)bufferOnHost;
    (void)workspaceInBytesOnHost;
    rocblas_handle h = (rocblas_handle)handle;
    int p;
    cusolverStatus_t cs = check_types(params, dataTypeA, computeType, &p);
    if (cs != CUSOLVER_STATUS_SUCCESS)
        return cs;
    if (!fits(m) || !fits(n) || !fits(lda))
        return CUSOLVER_STATUS_NOT_SUPPORTED;
    int k = (int)(m < n ? m : n);
    int *piv32 = NULL;
    if (ipiv && k > 0 && pyshim_blas_device_alloc((void **)&piv32, (size_t)k * sizeof(int)))
        return CUSOLVER_STATUS_ALLOC_FAILED;
    rocblas_status st = ws_begin(h, bufferOnDevice, workspaceInBytesOnDevice);
    if (st == rocblas_status_success) {
        if (ipiv) {
#define CALL(x, T) rocsolver_##x##getrf(h, (int)m, (int)n, (T *)A, (int)lda, piv32, info)
            st = DISPATCH(p, CALL);
#undef CALL
        } else { /* cuSOLVER factors without pivoting when ipiv is NULL */
#define CALL(x, T) rocsolver_##x##getrf_npvt(h, (int)m, (int)n, (T *)A, (int)lda, info)
            st = DISPATCH(p, CALL);
#undef CALL
        }
    }
    if (st == rocblas_status_success && ipiv && k > 0 &&
        pyshim_blas_widen_pivots(ipiv, piv32, k) != 0)
        st = rocblas_status_internal_error;
    pyshim_blas_device_free(piv32);
    return finish(h, st, info, 0);
}

PYSHIM_EXPORT cusolverStatus_t cusolverDnXgetrs(
    cusolverDnHandle_t handle, cusolverDnParams_t params, cublasOperation_t trans, int64_t n,
    int64_t nrhs, cudaDataType dataTypeA, const void *A, int64_t lda, const int64_t *ipiv,
    cudaDataType dataTypeB, void *B, int64_t ldb, int *info)
{
    rocblas_handle h = (rocblas_handle)handle;
    int p;
    cusolverStatus_t cs = check_types(params, dataTypeA, dataTypeB, &p);
    if (cs != CUSOLVER_STATUS_SUCCESS)
        return cs;
    if (!fits(n) || !fits(nrhs) || !fits(lda) || !fits(ldb))
        return CUSOLVER_STATUS_NOT_SUPPORTED;
    int *piv32 = NULL;
    if (ipiv && n > 0) {
        if (pyshim_blas_device_alloc((void **)&piv32, (size_t)n * sizeof(int)))
            return CUSOLVER_STATUS_ALLOC_FAILED;
        if (pyshim_blas_narrow_pivots(piv32, ipiv, (int)n) != 0) {
            pyshim_blas_device_free(piv32);
            return CUSOLVER_STATUS_INVALID_VALUE;
        }
    }
#define CALL(x, T) rocsolver_##x##getrs(h, OPER(trans), (int)n, (int)nrhs, (T *)A, (int)lda, \
                                        piv32, (T *)B, (int)ldb)
    rocblas_status st = DISPATCH(p, CALL);
#undef CALL
    pyshim_blas_device_free(piv32);
    return finish(h, st, info, 1);
}

/* ---- geqrf ---- */

PYSHIM_EXPORT cusolverStatus_t cusolverDnXgeqrf_bufferSize(
    cusolverDnHandle_t handle, cusolverDnParams_t params, int64_t m, int64_t n,
    cudaDataType dataTypeA, const void *A, int64_t lda, cudaDataType dataTypeTau,
    const void *tau, cudaDataType computeType, size_t *workspaceInBytesOnDevice,
    size_t *workspaceInBytesOnHost)
{
    rocblas_handle h = (rocblas_handle)handle;
    int p;
    cusolverStatus_t cs = check_types(params, dataTypeA, computeType, &p);
    if (cs != CUSOLVER_STATUS_SUCCESS)
        return cs;
    if (dataTypeTau != dataTypeA)
        return CUSOLVER_STATUS_NOT_SUPPORTED;
    if (!fits(m) || !fits(n) || !fits(lda))
        return CUSOLVER_STATUS_NOT_SUPPORTED;
    BEGIN_QUERY(h);
#define CALL(x, T) rocsolver_##x##geqrf(h, (int)m, (int)n, (T *)A, (int)lda, (T *)tau)
    rocblas_status st = DISPATCH(p, CALL);
#undef CALL
    return query_end(h, st, workspaceInBytesOnDevice, workspaceInBytesOnHost);
}

PYSHIM_EXPORT cusolverStatus_t cusolverDnXgeqrf(
    cusolverDnHandle_t handle, cusolverDnParams_t params, int64_t m, int64_t n,
    cudaDataType dataTypeA, void *A, int64_t lda, cudaDataType dataTypeTau, void *tau,
    cudaDataType computeType, void *bufferOnDevice, size_t workspaceInBytesOnDevice,
    void *bufferOnHost, size_t workspaceInBytesOnHost, int *info)
{
    (void)bufferOnHost;
    (void)workspaceInBytesOnHost;
    rocblas_handle h = (rocblas_handle)handle;
    int p;
    cusolverStatus_t cs = check_types(params, dataTypeA, computeType, &p);
    if (cs != CUSOLVER_STATUS_SUCCESS)
        return cs;
    if (dataTypeTau != dataTypeA || !fits(m) || !fits(n) || !fits(lda))
        return CUSOLVER_STATUS_NOT_SUPPORTED;
    rocblas_status st = ws_begin(h, bufferOnDevice, workspaceInBytesOnDevice);
#define CALL(x, T) rocsolver_##x##geqrf(h, (int)m, (int)n, (T *)A, (int)lda, (T *)tau)
    if (st == rocblas_status_success)
        st = DISPATCH(p, CALL);
#undef CALL
    return finish(h, st, info, 1);
}

/* ---- syevd/heevd: E (n reals) is device scratch ---- */

static rocblas_status eig(rocblas_handle h, int p, cusolverEigMode_t jobz,
                          cublasFillMode_t uplo, int n, void *A, int lda, void *W, void *E,
                          int *info)
{
    switch (p) {
    case 0: return rocsolver_ssyevd(h, EVECT(jobz), FILL(uplo), n, A, lda, W, E, info);
    case 1: return rocsolver_dsyevd(h, EVECT(jobz), FILL(uplo), n, A, lda, W, E, info);
    case 2: return rocsolver_cheevd(h, EVECT(jobz), FILL(uplo), n, A, lda, W, E, info);
    default: return rocsolver_zheevd(h, EVECT(jobz), FILL(uplo), n, A, lda, W, E, info);
    }
}

PYSHIM_EXPORT cusolverStatus_t cusolverDnXsyevd_bufferSize(
    cusolverDnHandle_t handle, cusolverDnParams_t params, cusolverEigMode_t jobz,
    cublasFillMode_t uplo, int64_t n, cudaDataType dataTypeA, const void *A, int64_t lda,
    cudaDataType dataTypeW, const void *W, cudaDataType computeType,
    size_t *workspaceInBytesOnDevice, size_t *workspaceInBytesOnHost)
{
    rocblas_handle h = (rocblas_handle)handle;
    int p;
    cusolverStatus_t cs = check_types(params, dataTypeA, computeType, &p);
    if (cs != CUSOLVER_STATUS_SUCCESS)
        return cs;
    if (dataTypeW != real_type(p) || !fits(n) || !fits(lda))
        return CUSOLVER_STATUS_NOT_SUPPORTED;
    BEGIN_QUERY(h);
    rocblas_status st = eig(h, p, jobz, uplo, (int)n, (void *)A, (int)lda, (void *)W, NULL, NULL);
    return query_end(h, st, workspaceInBytesOnDevice, workspaceInBytesOnHost);
}

PYSHIM_EXPORT cusolverStatus_t cusolverDnXsyevd(
    cusolverDnHandle_t handle, cusolverDnParams_t params, cusolverEigMode_t jobz,
    cublasFillMode_t uplo, int64_t n, cudaDataType dataTypeA, void *A, int64_t lda,
    cudaDataType dataTypeW, void *W, cudaDataType computeType, void *bufferOnDevice,
    size_t workspaceInBytesOnDevice, void *bufferOnHost, size_t workspaceInBytesOnHost,
    int *info)
{
    (void)bufferOnHost;
    (void)workspaceInBytesOnHost;
    rocblas_handle h = (rocblas_handle)handle;
    int p;
    cusolverStatus_t cs = check_types(params, dataTypeA, computeType, &p);
    if (cs != CUSOLVER_STATUS_SUCCESS)
        return cs;
    if (dataTypeW != real_type(p) || !fits(n) || !fits(lda))
        return CUSOLVER_STATUS_NOT_SUPPORTED;
    void *E = NULL;
    if (n > 0 && pyshim_blas_device_alloc(&E, (size_t)n * real_size(p)))
        return CUSOLVER_STATUS_ALLOC_FAILED;
    rocblas_status st = ws_begin(h, bufferOnDevice, workspaceInBytesOnDevice);
    if (st == rocblas_status_success)
        st = eig(h, p, jobz, uplo, (int)n, A, (int)lda, W, E, info);
    pyshim_blas_device_free(E);
    return finish(h, st, info, 0);
}

/* ---- gesvd: E (min(m,n) reals) is device scratch ---- */

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

#define GESVD_CALL(x, T)                                                                     \
    rocsolver_##x##gesvd(h, svect(jobu), svect(jobvt), (int)m, (int)n, (T *)A, (int)lda, S,  \
                         (T *)U, (int)ldu, (T *)VT, (int)ldvt, E, rocblas_outofplace, info)

static cusolverStatus_t gesvd_types(cusolverDnParams_t params, cudaDataType a, cudaDataType s,
                                    cudaDataType u, cudaDataType vt, cudaDataType compute,
                                    int *p)
{
    cusolverStatus_t cs = check_types(params, a, compute, p);
    if (cs != CUSOLVER_STATUS_SUCCESS)
        return cs;
    if (s != real_type(*p) || u != a || vt != a)
        return CUSOLVER_STATUS_NOT_SUPPORTED;
    return CUSOLVER_STATUS_SUCCESS;
}

PYSHIM_EXPORT cusolverStatus_t cusolverDnXgesvd_bufferSize(
    cusolverDnHandle_t handle, cusolverDnParams_t params, signed char jobu, signed char jobvt,
    int64_t m, int64_t n, cudaDataType dataTypeA, const void *A, int64_t lda,
    cudaDataType dataTypeS, const void *S, cudaDataType dataTypeU, const void *U, int64_t ldu,
    cudaDataType dataTypeVT, const void *VT, int64_t ldvt, cudaDataType computeType,
    size_t *workspaceInBytesOnDevice, size_t *workspaceInBytesOnHost)
{
    rocblas_handle h = (rocblas_handle)handle;
    int p;
    cusolverStatus_t cs = gesvd_types(params, dataTypeA, dataTypeS, dataTypeU, dataTypeVT,
                                      computeType, &p);
    if (cs != CUSOLVER_STATUS_SUCCESS)
        return cs;
    if (!fits(m) || !fits(n) || !fits(lda) || !fits(ldu) || !fits(ldvt))
        return CUSOLVER_STATUS_NOT_SUPPORTED;
    void *E = NULL;
    int *info = NULL;
    (void)S;
    BEGIN_QUERY(h);
#define CALL(x, T)                                                                           \
    rocsolver_##x##gesvd(h, svect(jobu), svect(jobvt), (int)m, (int)n, (T *)A, (int)lda,     \
                         (void *)S, (T *)U, (int)ldu, (T *)VT, (int)ldvt, E,                  \
                         rocblas_outofplace, info)
    rocblas_status st = DISPATCH(p, CALL);
#undef CALL
    return query_end(h, st, workspaceInBytesOnDevice, workspaceInBytesOnHost);
}

PYSHIM_EXPORT cusolverStatus_t cusolverDnXgesvd(
    cusolverDnHandle_t handle, cusolverDnParams_t params, signed char jobu, signed char jobvt,
    int64_t m, int64_t n, cudaDataType dataTypeA, void *A, int64_t lda, cudaDataType dataTypeS,
    void *S, cudaDataType dataTypeU, void *U, int64_t ldu, cudaDataType dataTypeVT, void *VT,
    int64_t ldvt, cudaDataType computeType, void *bufferOnDevice,
    size_t workspaceInBytesOnDevice, void *bufferOnHost, size_t workspaceInBytesOnHost,
    int *info)
{
    (void)bufferOnHost;
    (void)workspaceInBytesOnHost;
    rocblas_handle h = (rocblas_handle)handle;
    int p;
    cusolverStatus_t cs = gesvd_types(params, dataTypeA, dataTypeS, dataTypeU, dataTypeVT,
                                      computeType, &p);
    if (cs != CUSOLVER_STATUS_SUCCESS)
        return cs;
    if (!fits(m) || !fits(n) || !fits(lda) || !fits(ldu) || !fits(ldvt))
        return CUSOLVER_STATUS_NOT_SUPPORTED;
    int64_t k = m < n ? m : n;
    void *E = NULL;
    if (k > 1 && pyshim_blas_device_alloc(&E, (size_t)k * real_size(p)))
        return CUSOLVER_STATUS_ALLOC_FAILED;
    rocblas_status st = ws_begin(h, bufferOnDevice, workspaceInBytesOnDevice);
    if (st == rocblas_status_success)
        st = DISPATCH(p, GESVD_CALL);
    pyshim_blas_device_free(E);
    return finish(h, st, info, 0);
}

/* ---- geev: general eigenproblem ----
 * ROCm 7.2's rocSOLVER (the pinned headers) has no geev; newer releases and the CPU
 * device's rocSOLVER export rocsolver_?geev, so the routine is looked up in the loaded
 * librocsolver at run time and refused by name where it is missing. Real matrices get
 * LAPACK's split eigenvalues (wr, wi: device scratch) interleaved into cuSOLVER's complex W
 * by two strided rocBLAS copies; VR/VL keep LAPACK's real-pair form, as cuSOLVER's do. */

typedef rocblas_status (*geev_real_fn)(rocblas_handle, rocblas_evect, rocblas_evect, int,
                                       void *, int, void *, void *, void *, int, void *, int,
                                       int *);
typedef rocblas_status (*geev_complex_fn)(rocblas_handle, rocblas_evect, rocblas_evect, int,
                                          void *, int, void *, void *, int, void *, int,
                                          void *, int *);

static void *geev_routine(int p)
{
    static const char *const names[] = {"rocsolver_sgeev", "rocsolver_dgeev",
                                        "rocsolver_cgeev", "rocsolver_zgeev"};
    void *lib = dlopen("librocsolver.so.0", RTLD_NOW | RTLD_NOLOAD);
    void *fn = lib ? dlsym(lib, names[p]) : NULL;
    if (lib)
        dlclose(lib); /* RTLD_NOLOAD took a reference to an already loaded library */
    if (!fn) {
        pyshim_blas_unsupported("cusolverDnXgeev");
        pyshim_common_log("cusolverDnXgeev: the backend's rocSOLVER has no %s (ROCm 7.2's "
                          "has no geev): CUSOLVER_STATUS_NOT_SUPPORTED", names[p]);
    }
    return fn;
}

/* the types and sizes checked (as gesvd_types does), then the backend's routine looked up */
static cusolverStatus_t geev_prepare(cusolverDnParams_t params, cudaDataType a,
                                     cudaDataType w, cudaDataType vl, cudaDataType vr,
                                     cudaDataType compute, int64_t n, int64_t lda,
                                     int64_t ldvl, int64_t ldvr, int *p, void **fn)
{
    cusolverStatus_t cs = check_types(params, a, compute, p);
    if (cs != CUSOLVER_STATUS_SUCCESS)
        return cs;
    if (w != complex_type(*p) || vl != a || vr != a)
        return CUSOLVER_STATUS_NOT_SUPPORTED;
    if (!fits(n) || !fits(lda) || !fits(ldvl) || !fits(ldvr))
        return CUSOLVER_STATUS_NOT_SUPPORTED;
    *fn = geev_routine(*p);
    return *fn ? CUSOLVER_STATUS_SUCCESS : CUSOLVER_STATUS_NOT_SUPPORTED;
}

static rocblas_status geev_call(rocblas_handle h, int p, void *fn, cusolverEigMode_t jobvl,
                                cusolverEigMode_t jobvr, int n, void *A, int lda, void *W,
                                void *scratch, void *VL, int ldvl, void *VR, int ldvr,
                                int *info)
{
    if (p < 2) { /* wr, wi: the first and second halves of scratch */
        void *wr = scratch, *wi = scratch ? (char *)scratch + real_size(p) * (size_t)n : NULL;
        rocblas_status st = ((geev_real_fn)fn)(h, EVECT(jobvl), EVECT(jobvr), n, A, lda, wr,
                                               wi, VL, ldvl, VR, ldvr, info);
        /* W's real parts from wr, then its imaginary parts from wi */
        for (int im = 0; W && n && im < 2 && st == rocblas_status_success; im++) {
            const void *part = im ? wi : wr;
            st = p == 0 ? rocblas_scopy(h, n, part, 1, (float *)W + im, 2)
                        : rocblas_dcopy(h, n, part, 1, (double *)W + im, 2);
        }
        return st;
    }
    return ((geev_complex_fn)fn)(h, EVECT(jobvl), EVECT(jobvr), n, A, lda, W, VL, ldvl, VR,
                                 ldvr, scratch, info);
}

PYSHIM_EXPORT cusolverStatus_t cusolverDnXgeev_bufferSize(
    cusolverDnHandle_t handle, cusolverDnParams_t params, cusolverEigMode_t jobvl,
    cusolverEigMode_t jobvr, int64_t n, cudaDataType dataTypeA, const void *A, int64_t lda,
    cudaDataType dataTypeW, const void *W, cudaDataType dataTypeVL, const void *VL,
    int64_t ldvl, cudaDataType dataTypeVR, const void *VR, int64_t ldvr,
    cudaDataType computeType, size_t *workspaceInBytesOnDevice, size_t *workspaceInBytesOnHost)
{
    rocblas_handle h = (rocblas_handle)handle;
    int p;
    void *fn;
    cusolverStatus_t cs = geev_prepare(params, dataTypeA, dataTypeW, dataTypeVL, dataTypeVR,
                                       computeType, n, lda, ldvl, ldvr, &p, &fn);
    if (cs != CUSOLVER_STATUS_SUCCESS)
        return cs;
    BEGIN_QUERY(h);
    rocblas_status st = geev_call(h, p, fn, jobvl, jobvr, (int)n, (void *)A, (int)lda, NULL,
                                  NULL, (void *)VL, (int)ldvl, (void *)VR, (int)ldvr, NULL);
    (void)W;
    return query_end(h, st, workspaceInBytesOnDevice, workspaceInBytesOnHost);
}

PYSHIM_EXPORT cusolverStatus_t cusolverDnXgeev(
    cusolverDnHandle_t handle, cusolverDnParams_t params, cusolverEigMode_t jobvl,
    cusolverEigMode_t jobvr, int64_t n, cudaDataType dataTypeA, void *A, int64_t lda,
    cudaDataType dataTypeW, void *W, cudaDataType dataTypeVL, void *VL, int64_t ldvl,
    cudaDataType dataTypeVR, void *VR, int64_t ldvr, cudaDataType computeType,
    void *bufferOnDevice, size_t workspaceInBytesOnDevice, void *bufferOnHost,
    size_t workspaceInBytesOnHost, int *info)
{
    (void)bufferOnHost;
    (void)workspaceInBytesOnHost;
    rocblas_handle h = (rocblas_handle)handle;
    int p;
    void *fn;
    cusolverStatus_t cs = geev_prepare(params, dataTypeA, dataTypeW, dataTypeVL, dataTypeVR,
                                       computeType, n, lda, ldvl, ldvr, &p, &fn);
    if (cs != CUSOLVER_STATUS_SUCCESS)
        return cs;
    /* wr + wi (real) or rwork (complex): 2n reals either way */
    void *scratch = NULL;
    if (n > 0 && pyshim_blas_device_alloc(&scratch, 2 * (size_t)n * real_size(p)))
        return CUSOLVER_STATUS_ALLOC_FAILED;
    rocblas_status st = ws_begin(h, bufferOnDevice, workspaceInBytesOnDevice);
    if (st == rocblas_status_success)
        st = geev_call(h, p, fn, jobvl, jobvr, (int)n, A, (int)lda, W, scratch, VL, (int)ldvl,
                       VR, (int)ldvr, info);
    pyshim_blas_device_free(scratch);
    return finish(h, st, info, 0);
}
