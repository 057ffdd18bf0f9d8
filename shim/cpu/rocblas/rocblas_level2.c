/* rocBLAS level 2 on the CPU device: gemv, gbmv, symv/hemv, sbmv/hbmv, spmv/hpmv,
 * trmv/trsv, tbmv/tbsv, tpmv/tpsv, ger/geru/gerc, syr/her, syr2/her2, spr/hpr, spr2/hpr2
 * (and the complex-symmetric csymv/csyr/cspr/csyr2 rocBLAS also declares), each in the
 * plain, _batched and _strided_batched forms and LP64 and _64 widths.
 *
 * rocBLAS's argument-check order: invalid handle, invalid enum value, invalid size
 * (negative dimension, leading dimension too small, zero increment, negative batch count),
 * quick return for empty problems, null scalar pointers, (host mode) quick return when
 * alpha == 0 and beta == 1, then null array pointers. One macro per argument shape;
 * OpenBLAS's Fortran interface does the arithmetic. */
#include "blas_common.h"
#include "blas_openblas.h"

/* KARGS/AARGS below are parenthesised argument lists, opened by RB_X */
#define RB_X(...) __VA_ARGS__
#define RB_INVALID_IF(c, st)                                                      \
    if (c)                                                                        \
    return rocblas_status_##st
/* the loop over batch instances; body sees b and the int copies made by the caller */
#define RB_FOR_BATCH(F) for (int64_t b = 0; b < RB_NB_##F; b++)

/* ---- gemv: y = alpha op(A) x + beta y ---- */
#define RB_GEMV(F, W, pre, T, fn)                                                              \
    RB_API rocblas_status RB_NAME(pre, gemv, F, W)(                                            \
        rocblas_handle handle, rocblas_operation trans, RB_INT_##W m, RB_INT_##W n,            \
        const T *alpha, RB_MAT_##F(const T, A, RB_INT_##W), RB_VEC_##F(const T, x, RB_INT_##W), \
        const T *beta, RB_VEC_##F(T, y, RB_INT_##W) RB_BC_##F(RB_INT_##W))                     \
    {                                                                                          \
        RB_CHECK_HANDLE;                                                                       \
        char t = rb_op(trans);                                                                 \
        RB_INVALID_IF(!t, invalid_value);                                                      \
        RB_INVALID_IF(m < 0 || n < 0 || ldA < RB_MAX(1, m) || !incx || !incy ||                \
                          RB_NB_##F < 0, invalid_size);                                        \
        if (!m || !n || !RB_NB_##F)                                                            \
            return rocblas_status_success;                                                     \
        RB_INVALID_IF(!alpha || !beta, invalid_pointer);                                       \
        if (RB_HOST_ZERO(handle, pre, alpha) && RB_HOST_ONE(handle, pre, beta))                \
            return rocblas_status_success;                                                     \
        RB_INVALID_IF(!y || (!RB_HOST_ZERO(handle, pre, alpha) && (!A || !x)), invalid_pointer); \
        RB_NEED_FIT(m); RB_NEED_FIT(n); RB_NEED_FIT(ldA); RB_NEED_FIT(incx); RB_NEED_FIT(incy); \
        RB_ENTER(handle);                                                                      \
        int m_ = (int)m, n_ = (int)n, la = (int)ldA, ix = (int)incx, iy = (int)incy;           \
        RB_FOR_BATCH(F)                                                                        \
        fn(&t, &m_, &n_, (void *)alpha, (void *)RB_AT_##F(A, b), &la,                          \
           (void *)RB_AT_##F(x, b), &ix, (void *)beta, (void *)RB_AT_##F(y, b), &iy);          \
        return rocblas_status_success;                                                         \
    }
RB_EACH_FORM(RB_GEMV, s, float, OB(sgemv))
RB_EACH_FORM(RB_GEMV, d, double, OB(dgemv))
RB_EACH_FORM(RB_GEMV, c, rocblas_float_complex, OB(cgemv))
RB_EACH_FORM(RB_GEMV, z, rocblas_double_complex, OB(zgemv))

/* ---- gbmv: banded, kl sub- and ku super-diagonals ---- */
#define RB_GBMV(F, W, pre, T, fn)                                                              \
    RB_API rocblas_status RB_NAME(pre, gbmv, F, W)(                                            \
        rocblas_handle handle, rocblas_operation trans, RB_INT_##W m, RB_INT_##W n,            \
        RB_INT_##W kl, RB_INT_##W ku, const T *alpha, RB_MAT_##F(const T, A, RB_INT_##W),      \
        RB_VEC_##F(const T, x, RB_INT_##W), const T *beta,                                     \
        RB_VEC_##F(T, y, RB_INT_##W) RB_BC_##F(RB_INT_##W))                                    \
    {                                                                                          \
        RB_CHECK_HANDLE;                                                                       \
        char t = rb_op(trans);                                                                 \
        RB_INVALID_IF(!t, invalid_value);                                                      \
        RB_INVALID_IF(m < 0 || n < 0 || kl < 0 || ku < 0 || ldA < kl + ku + 1 || !incx ||      \
                          !incy || RB_NB_##F < 0, invalid_size);                               \
        if (!m || !n || !RB_NB_##F)                                                            \
            return rocblas_status_success;                                                     \
        RB_INVALID_IF(!alpha || !beta, invalid_pointer);                                       \
        if (RB_HOST_ZERO(handle, pre, alpha) && RB_HOST_ONE(handle, pre, beta))                \
            return rocblas_status_success;                                                     \
        RB_INVALID_IF(!y || (!RB_HOST_ZERO(handle, pre, alpha) && (!A || !x)), invalid_pointer); \
        RB_NEED_FIT(m); RB_NEED_FIT(n); RB_NEED_FIT(kl); RB_NEED_FIT(ku); RB_NEED_FIT(ldA);    \
        RB_NEED_FIT(incx); RB_NEED_FIT(incy);                                                  \
        RB_ENTER(handle);                                                                      \
        int m_ = (int)m, n_ = (int)n, kl_ = (int)kl, ku_ = (int)ku, la = (int)ldA;             \
        int ix = (int)incx, iy = (int)incy;                                                    \
        RB_FOR_BATCH(F)                                                                        \
        fn(&t, &m_, &n_, &kl_, &ku_, (void *)alpha, (void *)RB_AT_##F(A, b), &la,              \
           (void *)RB_AT_##F(x, b), &ix, (void *)beta, (void *)RB_AT_##F(y, b), &iy);          \
        return rocblas_status_success;                                                         \
    }
RB_EACH_FORM(RB_GBMV, s, float, OB(sgbmv))
RB_EACH_FORM(RB_GBMV, d, double, OB(dgbmv))
RB_EACH_FORM(RB_GBMV, c, rocblas_float_complex, OB(cgbmv))
RB_EACH_FORM(RB_GBMV, z, rocblas_double_complex, OB(zgbmv))

/* ---- symv/hemv (full storage), sbmv/hbmv (band, k), spmv/hpmv (packed) ----
 * KPARAM/KARG add the band width k; AP selects a packed operand. */
#define RB_SYMV_BODY(F, W, pre, T, fn, sizebad, KARGS, AARGS)                                  \
    {                                                                                          \
        RB_CHECK_HANDLE;                                                                       \
        char u = rb_fill(uplo);                                                                \
        RB_INVALID_IF(!u, invalid_value);                                                      \
        RB_INVALID_IF(n < 0 || (sizebad) || !incx || !incy || RB_NB_##F < 0, invalid_size);    \
        if (!n || !RB_NB_##F)                                                                  \
            return rocblas_status_success;                                                     \
        RB_INVALID_IF(!alpha || !beta, invalid_pointer);                                       \
        if (RB_HOST_ZERO(handle, pre, alpha) && RB_HOST_ONE(handle, pre, beta))                \
            return rocblas_status_success;                                                     \
        RB_INVALID_IF(!y || (!RB_HOST_ZERO(handle, pre, alpha) && (!A || !x)), invalid_pointer); \
        RB_NEED_FIT(n); RB_NEED_FIT(incx); RB_NEED_FIT(incy);                                  \
        RB_ENTER(handle);                                                                      \
        int n_ = (int)n, ix = (int)incx, iy = (int)incy;                                       \
        RB_FOR_BATCH(F)                                                                        \
        fn(&u, &n_ RB_X KARGS, (void *)alpha, (void *)RB_AT_##F(A, b) RB_X AARGS,                        \
           (void *)RB_AT_##F(x, b), &ix, (void *)beta, (void *)RB_AT_##F(y, b), &iy);          \
        return rocblas_status_success;                                                         \
    }
#define RB_SYMV(F, W, pre, op, T, fn)                                                          \
    RB_API rocblas_status RB_NAME(pre, op, F, W)(                                              \
        rocblas_handle handle, rocblas_fill uplo, RB_INT_##W n, const T *alpha,                \
        RB_MAT_##F(const T, A, RB_INT_##W), RB_VEC_##F(const T, x, RB_INT_##W), const T *beta, \
        RB_VEC_##F(T, y, RB_INT_##W) RB_BC_##F(RB_INT_##W))                                    \
    RB_SYMV_BODY(F, W, pre, T, fn, ldA < RB_MAX(1, n) || !rb_fits(ldA), (),                   \
                 (, &(int){(int)ldA}))
#define RB_SBMV(F, W, pre, op, T, fn)                                                          \
    RB_API rocblas_status RB_NAME(pre, op, F, W)(                                              \
        rocblas_handle handle, rocblas_fill uplo, RB_INT_##W n, RB_INT_##W k, const T *alpha,  \
        RB_MAT_##F(const T, A, RB_INT_##W), RB_VEC_##F(const T, x, RB_INT_##W), const T *beta, \
        RB_VEC_##F(T, y, RB_INT_##W) RB_BC_##F(RB_INT_##W))                                    \
    RB_SYMV_BODY(F, W, pre, T, fn, k < 0 || ldA < k + 1 || !rb_fits(ldA) || !rb_fits(k),      \
                 (, &(int){(int)k}), (, &(int){(int)ldA}))
#define RB_SPMV(F, W, pre, op, T, fn)                                                          \
    RB_API rocblas_status RB_NAME(pre, op, F, W)(                                              \
        rocblas_handle handle, rocblas_fill uplo, RB_INT_##W n, const T *alpha,                \
        RB_PTR_##F(const T, A), RB_VEC_##F(const T, x, RB_INT_##W), const T *beta,             \
        RB_VEC_##F(T, y, RB_INT_##W) RB_BC_##F(RB_INT_##W))                                    \
    RB_SYMV_BODY(F, W, pre, T, fn, 0, (), ())
RB_EACH_FORM(RB_SYMV, s, symv, float, OB(ssymv))
RB_EACH_FORM(RB_SYMV, d, symv, double, OB(dsymv))
RB_EACH_FORM(RB_SYMV, c, symv, rocblas_float_complex, OB(csymv))
RB_EACH_FORM(RB_SYMV, z, symv, rocblas_double_complex, OB(zsymv))
RB_EACH_FORM(RB_SYMV, c, hemv, rocblas_float_complex, OB(chemv))
RB_EACH_FORM(RB_SYMV, z, hemv, rocblas_double_complex, OB(zhemv))
RB_EACH_FORM(RB_SBMV, s, sbmv, float, OB(ssbmv))
RB_EACH_FORM(RB_SBMV, d, sbmv, double, OB(dsbmv))
RB_EACH_FORM(RB_SBMV, c, hbmv, rocblas_float_complex, OB(chbmv))
RB_EACH_FORM(RB_SBMV, z, hbmv, rocblas_double_complex, OB(zhbmv))
RB_EACH_FORM(RB_SPMV, s, spmv, float, OB(sspmv))
RB_EACH_FORM(RB_SPMV, d, spmv, double, OB(dspmv))
RB_EACH_FORM(RB_SPMV, c, hpmv, rocblas_float_complex, OB(chpmv))
RB_EACH_FORM(RB_SPMV, z, hpmv, rocblas_double_complex, OB(zhpmv))

/* ---- triangular: trmv/trsv (full), tbmv/tbsv (band), tpmv/tpsv (packed) ---- */
#define RB_TRMV_BODY(F, W, T, fn, sizebad, KARGS, AARGS)                                       \
    {                                                                                          \
        RB_CHECK_HANDLE;                                                                       \
        char u = rb_fill(uplo), t = rb_op(transA), d = rb_diag(diag);                          \
        RB_INVALID_IF(!u || !t || !d, invalid_value);                                          \
        RB_INVALID_IF(n < 0 || (sizebad) || !incx || RB_NB_##F < 0, invalid_size);             \
        if (!n || !RB_NB_##F)                                                                  \
            return rocblas_status_success;                                                     \
        RB_INVALID_IF(!A || !x, invalid_pointer);                                              \
        RB_NEED_FIT(n); RB_NEED_FIT(incx);                                                     \
        RB_ENTER(handle);                                                                      \
        int n_ = (int)n, ix = (int)incx;                                                       \
        RB_FOR_BATCH(F)                                                                        \
        fn(&u, &t, &d, &n_ RB_X KARGS, (void *)RB_AT_##F(A, b) RB_X AARGS, (void *)RB_AT_##F(x, b), &ix); \
        return rocblas_status_success;                                                         \
    }
#define RB_TRMV(F, W, pre, op, T, fn)                                                          \
    RB_API rocblas_status RB_NAME(pre, op, F, W)(                                              \
        rocblas_handle handle, rocblas_fill uplo, rocblas_operation transA,                    \
        rocblas_diagonal diag, RB_INT_##W n, RB_MAT_##F(const T, A, RB_INT_##W),               \
        RB_VEC_##F(T, x, RB_INT_##W) RB_BC_##F(RB_INT_##W))                                    \
    RB_TRMV_BODY(F, W, T, fn, ldA < RB_MAX(1, n) || !rb_fits(ldA), (), (, &(int){(int)ldA}))
#define RB_TBMV(F, W, pre, op, T, fn)                                                          \
    RB_API rocblas_status RB_NAME(pre, op, F, W)(                                              \
        rocblas_handle handle, rocblas_fill uplo, rocblas_operation transA,                    \
        rocblas_diagonal diag, RB_INT_##W n, RB_INT_##W k, RB_MAT_##F(const T, A, RB_INT_##W), \
        RB_VEC_##F(T, x, RB_INT_##W) RB_BC_##F(RB_INT_##W))                                    \
    RB_TRMV_BODY(F, W, T, fn, k < 0 || ldA < k + 1 || !rb_fits(ldA) || !rb_fits(k),           \
                 (, &(int){(int)k}), (, &(int){(int)ldA}))
#define RB_TPMV(F, W, pre, op, T, fn)                                                          \
    RB_API rocblas_status RB_NAME(pre, op, F, W)(                                              \
        rocblas_handle handle, rocblas_fill uplo, rocblas_operation transA,                    \
        rocblas_diagonal diag, RB_INT_##W n, RB_PTR_##F(const T, A),                           \
        RB_VEC_##F(T, x, RB_INT_##W) RB_BC_##F(RB_INT_##W))                                    \
    RB_TRMV_BODY(F, W, T, fn, 0, (), ())
#define RB_TRI_FAMILY(M, op, fnop)                                                             \
    RB_EACH_FORM(M, s, op, float, OB(s##fnop))                                                 \
    RB_EACH_FORM(M, d, op, double, OB(d##fnop))                                                \
    RB_EACH_FORM(M, c, op, rocblas_float_complex, OB(c##fnop))                                 \
    RB_EACH_FORM(M, z, op, rocblas_double_complex, OB(z##fnop))
RB_TRI_FAMILY(RB_TRMV, trmv, trmv)
RB_TRI_FAMILY(RB_TRMV, trsv, trsv)
RB_TRI_FAMILY(RB_TBMV, tbmv, tbmv)
RB_TRI_FAMILY(RB_TBMV, tbsv, tbsv)
RB_TRI_FAMILY(RB_TPMV, tpmv, tpmv)
RB_TRI_FAMILY(RB_TPMV, tpsv, tpsv)

/* ---- rank-1 and rank-2 updates ---- */
#define RB_GER(F, W, pre, op, T, fn)                                                           \
    RB_API rocblas_status RB_NAME(pre, op, F, W)(                                              \
        rocblas_handle handle, RB_INT_##W m, RB_INT_##W n, const T *alpha,                     \
        RB_VEC_##F(const T, x, RB_INT_##W), RB_VEC_##F(const T, y, RB_INT_##W),                \
        RB_MAT_##F(T, A, RB_INT_##W) RB_BC_##F(RB_INT_##W))                                    \
    {                                                                                          \
        RB_CHECK_HANDLE;                                                                       \
        RB_INVALID_IF(m < 0 || n < 0 || !incx || !incy || ldA < RB_MAX(1, m) ||                \
                          RB_NB_##F < 0, invalid_size);                                        \
        if (!m || !n || !RB_NB_##F)                                                            \
            return rocblas_status_success;                                                     \
        RB_INVALID_IF(!alpha, invalid_pointer);                                                \
        if (RB_HOST_ZERO(handle, pre, alpha))                                                  \
            return rocblas_status_success;                                                     \
        RB_INVALID_IF(!x || !y || !A, invalid_pointer);                                        \
        RB_NEED_FIT(m); RB_NEED_FIT(n); RB_NEED_FIT(ldA); RB_NEED_FIT(incx); RB_NEED_FIT(incy); \
        RB_ENTER(handle);                                                                      \
        int m_ = (int)m, n_ = (int)n, la = (int)ldA, ix = (int)incx, iy = (int)incy;           \
        RB_FOR_BATCH(F)                                                                        \
        fn(&m_, &n_, (void *)alpha, (void *)RB_AT_##F(x, b), &ix, (void *)RB_AT_##F(y, b),      \
           &iy, (void *)RB_AT_##F(A, b), &la);                                                 \
        return rocblas_status_success;                                                         \
    }
RB_EACH_FORM(RB_GER, s, ger, float, OB(sger))
RB_EACH_FORM(RB_GER, d, ger, double, OB(dger))
RB_EACH_FORM(RB_GER, c, geru, rocblas_float_complex, OB(cgeru))
RB_EACH_FORM(RB_GER, z, geru, rocblas_double_complex, OB(zgeru))
RB_EACH_FORM(RB_GER, c, gerc, rocblas_float_complex, OB(cgerc))
RB_EACH_FORM(RB_GER, z, gerc, rocblas_double_complex, OB(zgerc))

/* syr/her (S is alpha's type, ap its precision letter), full or packed storage */
#define RB_SYR_BODY(F, W, ap, fn, sizebad, YARGS, AARGS)                                       \
    {                                                                                          \
        RB_CHECK_HANDLE;                                                                       \
        char u = rb_fill(uplo);                                                                \
        RB_INVALID_IF(!u, invalid_value);                                                      \
        RB_INVALID_IF(n < 0 || !incx || (sizebad) || RB_NB_##F < 0, invalid_size);             \
        if (!n || !RB_NB_##F)                                                                  \
            return rocblas_status_success;                                                     \
        RB_INVALID_IF(!alpha, invalid_pointer);                                                \
        if (RB_HOST_ZERO(handle, ap, alpha))                                                   \
            return rocblas_status_success;                                                     \
        RB_INVALID_IF(!x || !A YARGS((|| !y), ()), invalid_pointer);                               \
        RB_NEED_FIT(n); RB_NEED_FIT(incx);                                                     \
        RB_ENTER(handle);                                                                      \
        int n_ = (int)n, ix = (int)incx;                                                       \
        RB_FOR_BATCH(F)                                                                        \
        fn(&u, &n_, (void *)alpha, (void *)RB_AT_##F(x, b), &ix                                \
           YARGS((, (void *)RB_AT_##F(y, b), &(int){(int)incy}), ()),                         \
           (void *)RB_AT_##F(A, b) RB_X AARGS);                                                     \
        return rocblas_status_success;                                                         \
    }
#define RB_WITH_Y(yes, no) RB_X yes
#define RB_NO_Y(yes, no) RB_X no
#define RB_SYR(F, W, pre, op, T, S, ap, fn)                                                    \
    RB_API rocblas_status RB_NAME(pre, op, F, W)(                                              \
        rocblas_handle handle, rocblas_fill uplo, RB_INT_##W n, const S *alpha,                \
        RB_VEC_##F(const T, x, RB_INT_##W), RB_MAT_##F(T, A, RB_INT_##W) RB_BC_##F(RB_INT_##W)) \
    RB_SYR_BODY(F, W, ap, fn, ldA < RB_MAX(1, n) || !rb_fits(ldA), RB_NO_Y,                   \
                (, &(int){(int)ldA}))
#define RB_SPR(F, W, pre, op, T, S, ap, fn)                                                    \
    RB_API rocblas_status RB_NAME(pre, op, F, W)(                                              \
        rocblas_handle handle, rocblas_fill uplo, RB_INT_##W n, const S *alpha,                \
        RB_VEC_##F(const T, x, RB_INT_##W), RB_PTR_##F(T, A) RB_BC_##F(RB_INT_##W))            \
    RB_SYR_BODY(F, W, ap, fn, 0, RB_NO_Y, ())
#define RB_SYR2(F, W, pre, op, T, S, ap, fn)                                                   \
    RB_API rocblas_status RB_NAME(pre, op, F, W)(                                              \
        rocblas_handle handle, rocblas_fill uplo, RB_INT_##W n, const S *alpha,                \
        RB_VEC_##F(const T, x, RB_INT_##W), RB_VEC_##F(const T, y, RB_INT_##W),                \
        RB_MAT_##F(T, A, RB_INT_##W) RB_BC_##F(RB_INT_##W))                                    \
    RB_SYR_BODY(F, W, ap, fn, !incy || ldA < RB_MAX(1, n) || !rb_fits(ldA) || !rb_fits(incy), \
                RB_WITH_Y, (, &(int){(int)ldA}))
#define RB_SPR2(F, W, pre, op, T, S, ap, fn)                                                   \
    RB_API rocblas_status RB_NAME(pre, op, F, W)(                                              \
        rocblas_handle handle, rocblas_fill uplo, RB_INT_##W n, const S *alpha,                \
        RB_VEC_##F(const T, x, RB_INT_##W), RB_VEC_##F(const T, y, RB_INT_##W),                \
        RB_PTR_##F(T, A) RB_BC_##F(RB_INT_##W))                                                \
    RB_SYR_BODY(F, W, ap, fn, !incy || !rb_fits(incy), RB_WITH_Y, ())

#define RB_UPD_FAMILY(M, sym, her)                                                             \
    RB_EACH_FORM(M, s, sym, float, float, s, OB(s##sym))                                       \
    RB_EACH_FORM(M, d, sym, double, double, d, OB(d##sym))                                     \
    RB_EACH_FORM(M, c, her, rocblas_float_complex, HER_ALPHA_c, HER_AP_c, OB(c##her))          \
    RB_EACH_FORM(M, z, her, rocblas_double_complex, HER_ALPHA_z, HER_AP_z, OB(z##her))
/* her/hpr take a real alpha; her2/hpr2 a complex one */
#define HER_ALPHA_c float
#define HER_ALPHA_z double
#define HER_AP_c s
#define HER_AP_z d
RB_UPD_FAMILY(RB_SYR, syr, her)
RB_UPD_FAMILY(RB_SPR, spr, hpr)
#undef HER_ALPHA_c
#undef HER_ALPHA_z
#undef HER_AP_c
#undef HER_AP_z
#define HER_ALPHA_c rocblas_float_complex
#define HER_ALPHA_z rocblas_double_complex
#define HER_AP_c c
#define HER_AP_z z
RB_UPD_FAMILY(RB_SYR2, syr2, her2)
RB_UPD_FAMILY(RB_SPR2, spr2, hpr2)
/* complex symmetric (not Hermitian) variants rocBLAS also declares */
RB_EACH_FORM(RB_SYR, c, syr, rocblas_float_complex, rocblas_float_complex, c, OB(csyr))
RB_EACH_FORM(RB_SYR, z, syr, rocblas_double_complex, rocblas_double_complex, z, OB(zsyr))
RB_EACH_FORM(RB_SPR, c, spr, rocblas_float_complex, rocblas_float_complex, c, OB(cspr))
RB_EACH_FORM(RB_SPR, z, spr, rocblas_double_complex, rocblas_double_complex, z, OB(zspr))
RB_EACH_FORM(RB_SYR2, c, syr2, rocblas_float_complex, rocblas_float_complex, c, OB(csyr2))
RB_EACH_FORM(RB_SYR2, z, syr2, rocblas_double_complex, rocblas_double_complex, z, OB(zsyr2))
