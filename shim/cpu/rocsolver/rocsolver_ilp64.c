/* rocSOLVER's ILP64 (_64) entry points on the CPU device: getrf/getf2 (+npvt), getrs,
 * potrf/potf2, potrs, geqrf/geqr2, larfg, larf, lacgv. LAPACK here has 32-bit integers, so
 * sizes must fit in 32 bits (otherwise rocblas_status_invalid_size) and 64-bit pivot and
 * info arrays are converted around a call of the LP64 routine. The _batched and
 * _strided_batched _64 forms are generated from these by pyshim.builders.cpu_blas. */
#include <stdlib.h>

#include "blas_common.h"
#include <rocsolver/rocsolver.h>

#define RS_FIT(v)                                                                 \
    if (!rb_fits(v))                                                              \
    return rocblas_status_invalid_size

static int64_t rs_min64(int64_t a, int64_t b)
{
    return a < b ? a : b;
}

/* copy a 32-bit pivot/info array out to 64 bits */
static void rs_widen_ints(const rocblas_int *src, int64_t *dst, int64_t n)
{
    for (int64_t i = 0; i < n; i++)
        dst[i] = src[i];
}

#define RS_GETRF64(pre, T, name, lp64)                                                         \
    RB_API rocblas_status rocsolver_##pre##name##_64(rocblas_handle handle, const int64_t m,   \
                                                     const int64_t n, T *A, const int64_t lda, \
                                                     int64_t *ipiv, int64_t *info)             \
    {                                                                                          \
        RS_FIT(m);                                                                             \
        RS_FIT(n);                                                                             \
        RS_FIT(lda);                                                                           \
        int64_t k = m > 0 && n > 0 ? rs_min64(m, n) : 0;                                       \
        rocblas_int *p32 = malloc(sizeof(rocblas_int) * (size_t)(k + 1)), inf = 0;             \
        if (!p32)                                                                              \
            return rocblas_status_memory_error;                                                \
        rocblas_status st =                                                                    \
            lp64(handle, (rocblas_int)m, (rocblas_int)n, A, (rocblas_int)lda,                  \
                 ipiv ? p32 : NULL, info ? &inf : NULL);                                       \
        if (st == rocblas_status_success) {                                                    \
            rs_widen_ints(p32, ipiv, k);                                                       \
            *info = inf;                                                                       \
        }                                                                                      \
        free(p32);                                                                             \
        return st;                                                                             \
    }
#define RS_GETRF64_ALL(name)                                                                   \
    RS_GETRF64(s, float, name, rocsolver_sgetrf)                                               \
    RS_GETRF64(d, double, name, rocsolver_dgetrf)                                              \
    RS_GETRF64(c, rocblas_float_complex, name, rocsolver_cgetrf)                               \
    RS_GETRF64(z, rocblas_double_complex, name, rocsolver_zgetrf)
RS_GETRF64_ALL(getrf)
RS_GETRF64_ALL(getf2)

/* routines with only an info output: (lp64 args..., info) */
#define RS_INFO64(pre, T, name, lp64)                                                          \
    RB_API rocblas_status rocsolver_##pre##name##_64(rocblas_handle handle, const int64_t m,   \
                                                     const int64_t n, T *A, const int64_t lda, \
                                                     int64_t *info)                            \
    {                                                                                          \
        RS_FIT(m);                                                                             \
        RS_FIT(n);                                                                             \
        RS_FIT(lda);                                                                           \
        rocblas_int inf = 0;                                                                   \
        rocblas_status st = lp64(handle, (rocblas_int)m, (rocblas_int)n, A, (rocblas_int)lda,  \
                                 info ? &inf : NULL);                                          \
        if (st == rocblas_status_success)                                                      \
            *info = inf;                                                                       \
        return st;                                                                             \
    }
#define RS_NPVT64_ALL(name)                                                                    \
    RS_INFO64(s, float, name, rocsolver_sgetrf_npvt)                                           \
    RS_INFO64(d, double, name, rocsolver_dgetrf_npvt)                                          \
    RS_INFO64(c, rocblas_float_complex, name, rocsolver_cgetrf_npvt)                           \
    RS_INFO64(z, rocblas_double_complex, name, rocsolver_zgetrf_npvt)
RS_NPVT64_ALL(getrf_npvt)
RS_NPVT64_ALL(getf2_npvt)

#define RS_POTRF64(pre, T, name)                                                               \
    RB_API rocblas_status rocsolver_##pre##name##_64(rocblas_handle handle,                    \
                                                     const rocblas_fill uplo, const int64_t n, \
                                                     T *A, const int64_t lda, int64_t *info)   \
    {                                                                                          \
        RS_FIT(n);                                                                             \
        RS_FIT(lda);                                                                           \
        rocblas_int inf = 0;                                                                   \
        rocblas_status st = rocsolver_##pre##potrf(handle, uplo, (rocblas_int)n, A,            \
                                                   (rocblas_int)lda, info ? &inf : NULL);      \
        if (st == rocblas_status_success)                                                      \
            *info = inf;                                                                       \
        return st;                                                                             \
    }
#define RS_POTRF64_ALL(name)                                                                   \
    RS_POTRF64(s, float, name) RS_POTRF64(d, double, name)                                     \
    RS_POTRF64(c, rocblas_float_complex, name) RS_POTRF64(z, rocblas_double_complex, name)
RS_POTRF64_ALL(potrf)
RS_POTRF64_ALL(potf2)

#define RS_GETRS64(pre, T)                                                                     \
    RB_API rocblas_status rocsolver_##pre##getrs_64(                                           \
        rocblas_handle handle, const rocblas_operation trans, const int64_t n,                 \
        const int64_t nrhs, T *A, const int64_t lda, const int64_t *ipiv, T *B,                \
        const int64_t ldb)                                                                     \
    {                                                                                          \
        RS_FIT(n);                                                                             \
        RS_FIT(nrhs);                                                                          \
        RS_FIT(lda);                                                                           \
        RS_FIT(ldb);                                                                           \
        rocblas_int *p32 = malloc(sizeof(rocblas_int) * (size_t)(n > 0 ? n : 1));              \
        if (!p32)                                                                              \
            return rocblas_status_memory_error;                                                \
        for (int64_t i = 0; ipiv && i < n; i++)                                                \
            p32[i] = (rocblas_int)ipiv[i];                                                     \
        rocblas_status st = rocsolver_##pre##getrs(handle, trans, (rocblas_int)n,              \
                                                   (rocblas_int)nrhs, A, (rocblas_int)lda,     \
                                                   ipiv ? p32 : NULL, B, (rocblas_int)ldb);    \
        free(p32);                                                                             \
        return st;                                                                             \
    }
RS_GETRS64(s, float)
RS_GETRS64(d, double)
RS_GETRS64(c, rocblas_float_complex)
RS_GETRS64(z, rocblas_double_complex)

#define RS_POTRS64(pre, T)                                                                     \
    RB_API rocblas_status rocsolver_##pre##potrs_64(                                           \
        rocblas_handle handle, const rocblas_fill uplo, const int64_t n, const int64_t nrhs,   \
        T *A, const int64_t lda, T *B, const int64_t ldb)                                      \
    {                                                                                          \
        RS_FIT(n);                                                                             \
        RS_FIT(nrhs);                                                                          \
        RS_FIT(lda);                                                                           \
        RS_FIT(ldb);                                                                           \
        return rocsolver_##pre##potrs(handle, uplo, (rocblas_int)n, (rocblas_int)nrhs, A,      \
                                      (rocblas_int)lda, B, (rocblas_int)ldb);                  \
    }
RS_POTRS64(s, float)
RS_POTRS64(d, double)
RS_POTRS64(c, rocblas_float_complex)
RS_POTRS64(z, rocblas_double_complex)

#define RS_GEQRF64(pre, T, name)                                                               \
    RB_API rocblas_status rocsolver_##pre##name##_64(rocblas_handle handle, const int64_t m,   \
                                                     const int64_t n, T *A, const int64_t lda, \
                                                     T *ipiv)                                  \
    {                                                                                          \
        RS_FIT(m);                                                                             \
        RS_FIT(n);                                                                             \
        RS_FIT(lda);                                                                           \
        return rocsolver_##pre##geqrf(handle, (rocblas_int)m, (rocblas_int)n, A,               \
                                      (rocblas_int)lda, ipiv);                                 \
    }
#define RS_GEQRF64_ALL(name)                                                                   \
    RS_GEQRF64(s, float, name) RS_GEQRF64(d, double, name)                                     \
    RS_GEQRF64(c, rocblas_float_complex, name) RS_GEQRF64(z, rocblas_double_complex, name)
RS_GEQRF64_ALL(geqrf)
RS_GEQRF64_ALL(geqr2)

#define RS_HH64(pre, T)                                                                        \
    RB_API rocblas_status rocsolver_##pre##larfg_64(rocblas_handle handle, const int64_t n,    \
                                                    T *alpha, T *x, const int64_t incx,        \
                                                    T *tau)                                    \
    {                                                                                          \
        RS_FIT(n);                                                                             \
        RS_FIT(incx);                                                                          \
        return rocsolver_##pre##larfg(handle, (rocblas_int)n, alpha, x, (rocblas_int)incx,     \
                                      tau);                                                    \
    }                                                                                          \
    RB_API rocblas_status rocsolver_##pre##larf_64(rocblas_handle handle,                      \
                                                   const rocblas_side side, const int64_t m,   \
                                                   const int64_t n, T *x, const int64_t incx,  \
                                                   const T *alpha, T *A, const int64_t lda)    \
    {                                                                                          \
        RS_FIT(m);                                                                             \
        RS_FIT(n);                                                                             \
        RS_FIT(incx);                                                                          \
        RS_FIT(lda);                                                                           \
        return rocsolver_##pre##larf(handle, side, (rocblas_int)m, (rocblas_int)n, x,          \
                                     (rocblas_int)incx, alpha, A, (rocblas_int)lda);           \
    }
RS_HH64(s, float)
RS_HH64(d, double)
RS_HH64(c, rocblas_float_complex)
RS_HH64(z, rocblas_double_complex)

#define RS_LACGV64(pre, T)                                                                     \
    RB_API rocblas_status rocsolver_##pre##lacgv_64(rocblas_handle handle, const int64_t n,    \
                                                    T *x, const int64_t incx)                  \
    {                                                                                          \
        RS_FIT(n);                                                                             \
        RS_FIT(incx);                                                                          \
        return rocsolver_##pre##lacgv(handle, (rocblas_int)n, x, (rocblas_int)incx);           \
    }
RS_LACGV64(c, rocblas_float_complex)
RS_LACGV64(z, rocblas_double_complex)
