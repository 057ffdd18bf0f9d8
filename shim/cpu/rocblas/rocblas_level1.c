/* rocBLAS level 1 on the CPU device: axpy, scal, copy, swap, dot/dotu/dotc, nrm2, asum,
 * amax/amin, rot/rotg/rotm/rotmg, each in its plain, _batched and _strided_batched forms
 * and LP64 and _64 widths (RB_EACH_FORM), for every precision rocBLAS declares.
 *
 * Argument checks follow rocBLAS's order: invalid handle, then quick return (level 1 has
 * no invalid sizes: n <= 0 or batch_count <= 0 is a successful no-op, and reductions then
 * write 0), then null pointers. */
#include <string.h>

#include "blas_common.h"
#include "blas_openblas.h"

/* ---- y = alpha x + y ---- */
#define RB_AXPY(F, W, pre, T, fn)                                                              \
    RB_API rocblas_status RB_NAME(pre, axpy, F, W)(                                            \
        rocblas_handle handle, RB_INT_##W n, const T *alpha, RB_VEC_##F(const T, x, RB_INT_##W), \
        RB_VEC_##F(T, y, RB_INT_##W) RB_BC_##F(RB_INT_##W))                                    \
    {                                                                                          \
        RB_CHECK_HANDLE;                                                                       \
        if (n <= 0 || RB_NB_##F <= 0)                                                          \
            return rocblas_status_success;                                                     \
        if (!alpha || !x || !y)                                                                \
            return rocblas_status_invalid_pointer;                                             \
        RB_NEED_FIT(n);                                                                        \
        RB_NEED_FIT(incx);                                                                     \
        RB_NEED_FIT(incy);                                                                     \
        RB_ENTER(handle);                                                                      \
        int n_ = (int)n, ix = (int)incx, iy = (int)incy;                                       \
        for (int64_t b = 0; b < RB_NB_##F; b++)                                                \
            fn(&n_, (void *)alpha, (void *)RB_AT_##F(x, b), &ix, (void *)RB_AT_##F(y, b), &iy); \
        return rocblas_status_success;                                                         \
    }
RB_EACH_FORM(RB_AXPY, s, float, OB(saxpy))
RB_EACH_FORM(RB_AXPY, d, double, OB(daxpy))
RB_EACH_FORM(RB_AXPY, c, rocblas_float_complex, OB(caxpy))
RB_EACH_FORM(RB_AXPY, z, rocblas_double_complex, OB(zaxpy))

/* ---- x = alpha x (incx <= 0 is a no-op, as in BLAS) ---- */
#define RB_SCAL(F, W, pre, T, S, fn)                                                           \
    RB_API rocblas_status RB_NAME(pre, scal, F, W)(                                            \
        rocblas_handle handle, RB_INT_##W n, const S *alpha,                                   \
        RB_VEC_##F(T, x, RB_INT_##W) RB_BC_##F(RB_INT_##W))                                    \
    {                                                                                          \
        RB_CHECK_HANDLE;                                                                       \
        if (n <= 0 || incx <= 0 || RB_NB_##F <= 0)                                             \
            return rocblas_status_success;                                                     \
        if (!alpha || !x)                                                                      \
            return rocblas_status_invalid_pointer;                                             \
        RB_NEED_FIT(n);                                                                        \
        RB_NEED_FIT(incx);                                                                     \
        RB_ENTER(handle);                                                                      \
        int n_ = (int)n, ix = (int)incx;                                                       \
        for (int64_t b = 0; b < RB_NB_##F; b++)                                                \
            fn(&n_, (void *)alpha, (void *)RB_AT_##F(x, b), &ix);                              \
        return rocblas_status_success;                                                         \
    }
RB_EACH_FORM(RB_SCAL, s, float, float, OB(sscal))
RB_EACH_FORM(RB_SCAL, d, double, double, OB(dscal))
RB_EACH_FORM(RB_SCAL, c, rocblas_float_complex, rocblas_float_complex, OB(cscal))
RB_EACH_FORM(RB_SCAL, z, rocblas_double_complex, rocblas_double_complex, OB(zscal))
RB_EACH_FORM(RB_SCAL, cs, rocblas_float_complex, float, OB(csscal))
RB_EACH_FORM(RB_SCAL, zd, rocblas_double_complex, double, OB(zdscal))

/* ---- copy and swap: two vectors, no scalar ---- */
#define RB_TWOVEC(F, W, pre, op, TX, T, fn)                                                    \
    RB_API rocblas_status RB_NAME(pre, op, F, W)(                                              \
        rocblas_handle handle, RB_INT_##W n, RB_VEC_##F(TX, x, RB_INT_##W),                    \
        RB_VEC_##F(T, y, RB_INT_##W) RB_BC_##F(RB_INT_##W))                                    \
    {                                                                                          \
        RB_CHECK_HANDLE;                                                                       \
        if (n <= 0 || RB_NB_##F <= 0)                                                          \
            return rocblas_status_success;                                                     \
        if (!x || !y)                                                                          \
            return rocblas_status_invalid_pointer;                                             \
        RB_NEED_FIT(n);                                                                        \
        RB_NEED_FIT(incx);                                                                     \
        RB_NEED_FIT(incy);                                                                     \
        RB_ENTER(handle);                                                                      \
        int n_ = (int)n, ix = (int)incx, iy = (int)incy;                                       \
        for (int64_t b = 0; b < RB_NB_##F; b++)                                                \
            fn(&n_, (void *)RB_AT_##F(x, b), &ix, (void *)RB_AT_##F(y, b), &iy);               \
        return rocblas_status_success;                                                         \
    }
RB_EACH_FORM(RB_TWOVEC, s, copy, const float, float, OB(scopy))
RB_EACH_FORM(RB_TWOVEC, d, copy, const double, double, OB(dcopy))
RB_EACH_FORM(RB_TWOVEC, c, copy, const rocblas_float_complex, rocblas_float_complex, OB(ccopy))
RB_EACH_FORM(RB_TWOVEC, z, copy, const rocblas_double_complex, rocblas_double_complex, OB(zcopy))
RB_EACH_FORM(RB_TWOVEC, s, swap, float, float, OB(sswap))
RB_EACH_FORM(RB_TWOVEC, d, swap, double, double, OB(dswap))
RB_EACH_FORM(RB_TWOVEC, c, swap, rocblas_float_complex, rocblas_float_complex, OB(cswap))
RB_EACH_FORM(RB_TWOVEC, z, swap, rocblas_double_complex, rocblas_double_complex, OB(zswap))

/* ---- reductions: one adaptor per precision turns OpenBLAS's CBLAS call into
 * "write the result through a pointer" ---- */
static void k_sdot(int n, const void *x, int ix, const void *y, int iy, void *r)
{
    *(float *)r = scipy_cblas_sdot(n, x, ix, y, iy);
}
static void k_ddot(int n, const void *x, int ix, const void *y, int iy, void *r)
{
    *(double *)r = scipy_cblas_ddot(n, x, ix, y, iy);
}
static void k_cdotu(int n, const void *x, int ix, const void *y, int iy, void *r)
{
    scipy_cblas_cdotu_sub(n, x, ix, y, iy, r);
}
static void k_zdotu(int n, const void *x, int ix, const void *y, int iy, void *r)
{
    scipy_cblas_zdotu_sub(n, x, ix, y, iy, r);
}
static void k_cdotc(int n, const void *x, int ix, const void *y, int iy, void *r)
{
    scipy_cblas_cdotc_sub(n, x, ix, y, iy, r);
}
static void k_zdotc(int n, const void *x, int ix, const void *y, int iy, void *r)
{
    scipy_cblas_zdotc_sub(n, x, ix, y, iy, r);
}

#define RB_DOT(F, W, pre, op, T, fn)                                                           \
    RB_API rocblas_status RB_NAME(pre, op, F, W)(                                              \
        rocblas_handle handle, RB_INT_##W n, RB_VEC_##F(const T, x, RB_INT_##W),               \
        RB_VEC_##F(const T, y, RB_INT_##W) RB_BC_##F(RB_INT_##W), T *result)                   \
    {                                                                                          \
        RB_CHECK_HANDLE;                                                                       \
        if (RB_NB_##F <= 0)                                                                    \
            return rocblas_status_success;                                                     \
        if (!result)                                                                           \
            return rocblas_status_invalid_pointer;                                             \
        if (n > 0 && (!x || !y))                                                               \
            return rocblas_status_invalid_pointer;                                             \
        RB_NEED_FIT(n);                                                                        \
        RB_NEED_FIT(incx);                                                                     \
        RB_NEED_FIT(incy);                                                                     \
        RB_ENTER(handle);                                                                      \
        for (int64_t b = 0; b < RB_NB_##F; b++) {                                              \
            if (n <= 0)                                                                        \
                memset(&result[b], 0, sizeof(T));                                              \
            else                                                                               \
                fn((int)n, RB_AT_##F(x, b), (int)incx, RB_AT_##F(y, b), (int)incy, &result[b]); \
        }                                                                                      \
        return rocblas_status_success;                                                         \
    }

RB_EACH_FORM(RB_DOT, s, dot, float, k_sdot)
RB_EACH_FORM(RB_DOT, d, dot, double, k_ddot)
RB_EACH_FORM(RB_DOT, c, dotu, rocblas_float_complex, k_cdotu)
RB_EACH_FORM(RB_DOT, z, dotu, rocblas_double_complex, k_zdotu)
RB_EACH_FORM(RB_DOT, c, dotc, rocblas_float_complex, k_cdotc)
RB_EACH_FORM(RB_DOT, z, dotc, rocblas_double_complex, k_zdotc)

/* nrm2 and asum: real result; incx <= 0 gives 0 as in BLAS */
#define RB_K_NORM(name, R, cfn)                                                   \
    static void name(int n, const void *x, int ix, void *r)                       \
    {                                                                             \
        *(R *)r = cfn(n, x, ix);                                                  \
    }
RB_K_NORM(k_snrm2, float, scipy_cblas_snrm2)
RB_K_NORM(k_dnrm2, double, scipy_cblas_dnrm2)
RB_K_NORM(k_scnrm2, float, scipy_cblas_scnrm2)
RB_K_NORM(k_dznrm2, double, scipy_cblas_dznrm2)
RB_K_NORM(k_sasum, float, scipy_cblas_sasum)
RB_K_NORM(k_dasum, double, scipy_cblas_dasum)
RB_K_NORM(k_scasum, float, scipy_cblas_scasum)
RB_K_NORM(k_dzasum, double, scipy_cblas_dzasum)

/* iamax/iamin: 1-based index of the first extreme |re|+|im|, 0 for an empty vector */
#define RB_K_IAM(name, cfn)                                                       \
    static int64_t name(int n, const void *x, int ix)                             \
    {                                                                             \
        return (int64_t)cfn(n, x, ix) + 1;                                        \
    }
RB_K_IAM(k_isamax, scipy_cblas_isamax)
RB_K_IAM(k_idamax, scipy_cblas_idamax)
RB_K_IAM(k_icamax, scipy_cblas_icamax)
RB_K_IAM(k_izamax, scipy_cblas_izamax)
RB_K_IAM(k_isamin, scipy_cblas_isamin)
RB_K_IAM(k_idamin, scipy_cblas_idamin)
RB_K_IAM(k_icamin, scipy_cblas_icamin)
RB_K_IAM(k_izamin, scipy_cblas_izamin)

/* RES is the result type; `compute` stores instance b's value in result[b] (an empty vector
 * or a non-positive increment gives 0) */
#define RB_REDUCE(F, W, pre, op, T, RES, compute)                                       \
    RB_API rocblas_status RB_NAME(pre, op, F, W)(                                              \
        rocblas_handle handle, RB_INT_##W n,                                                   \
        RB_VEC_##F(const T, x, RB_INT_##W) RB_BC_##F(RB_INT_##W), RES *result)                 \
    {                                                                                          \
        RB_CHECK_HANDLE;                                                                       \
        if (RB_NB_##F <= 0)                                                                    \
            return rocblas_status_success;                                                     \
        if (!result)                                                                           \
            return rocblas_status_invalid_pointer;                                             \
        if (n > 0 && incx > 0 && !x)                                                           \
            return rocblas_status_invalid_pointer;                                             \
        RB_NEED_FIT(n);                                                                        \
        RB_NEED_FIT(incx);                                                                     \
        RB_ENTER(handle);                                                                      \
        for (int64_t b = 0; b < RB_NB_##F; b++) {                                              \
            if (n <= 0 || incx <= 0)                                                           \
                result[b] = (RES)0;                                                            \
            else                                                                               \
                compute;                                                                       \
        }                                                                                      \
        return rocblas_status_success;                                                         \
    }
#define RB_NORM_FAMILY(F, W, pre, op, T, R, k)                                                 \
    RB_REDUCE(F, W, pre, op, T, R, k((int)n, RB_AT_##F(x, b), (int)incx, &result[b]))
#define RB_IAM_FAMILY(F, W, pre, op, T, k)                                                     \
    RB_REDUCE(F, W, pre, op, T, RB_INT_##W,                                                    \
              result[b] = (RB_INT_##W)k((int)n, RB_AT_##F(x, b), (int)incx))
RB_EACH_FORM(RB_NORM_FAMILY, s, nrm2, float, float, k_snrm2)
RB_EACH_FORM(RB_NORM_FAMILY, d, nrm2, double, double, k_dnrm2)
RB_EACH_FORM(RB_NORM_FAMILY, sc, nrm2, rocblas_float_complex, float, k_scnrm2)
RB_EACH_FORM(RB_NORM_FAMILY, dz, nrm2, rocblas_double_complex, double, k_dznrm2)
RB_EACH_FORM(RB_NORM_FAMILY, s, asum, float, float, k_sasum)
RB_EACH_FORM(RB_NORM_FAMILY, d, asum, double, double, k_dasum)
RB_EACH_FORM(RB_NORM_FAMILY, sc, asum, rocblas_float_complex, float, k_scasum)
RB_EACH_FORM(RB_NORM_FAMILY, dz, asum, rocblas_double_complex, double, k_dzasum)
RB_EACH_FORM(RB_IAM_FAMILY, is, amax, float, k_isamax)
RB_EACH_FORM(RB_IAM_FAMILY, id, amax, double, k_idamax)
RB_EACH_FORM(RB_IAM_FAMILY, ic, amax, rocblas_float_complex, k_icamax)
RB_EACH_FORM(RB_IAM_FAMILY, iz, amax, rocblas_double_complex, k_izamax)
RB_EACH_FORM(RB_IAM_FAMILY, is, amin, float, k_isamin)
RB_EACH_FORM(RB_IAM_FAMILY, id, amin, double, k_idamin)
RB_EACH_FORM(RB_IAM_FAMILY, ic, amin, rocblas_float_complex, k_icamin)
RB_EACH_FORM(RB_IAM_FAMILY, iz, amin, rocblas_double_complex, k_izamin)

/* ---- plane rotations ---- */
/* LAPACK's complex rotation with a real cosine (c/zrot); not in f77blas.h */
void scipy_crot_(const int *, void *, const int *, void *, const int *, const float *,
                 const void *);
void scipy_zrot_(const int *, void *, const int *, void *, const int *, const double *,
                 const void *);

#define RB_ROT(F, W, pre, T, C, S, fn)                                                         \
    RB_API rocblas_status RB_NAME(pre, rot, F, W)(                                             \
        rocblas_handle handle, RB_INT_##W n, RB_VEC_##F(T, x, RB_INT_##W),                     \
        RB_VEC_##F(T, y, RB_INT_##W), const C *c, const S *s RB_BC_##F(RB_INT_##W))            \
    {                                                                                          \
        RB_CHECK_HANDLE;                                                                       \
        if (n <= 0 || RB_NB_##F <= 0)                                                          \
            return rocblas_status_success;                                                     \
        if (!c || !s || !x || !y)                                                              \
            return rocblas_status_invalid_pointer;                                             \
        RB_NEED_FIT(n);                                                                        \
        RB_NEED_FIT(incx);                                                                     \
        RB_NEED_FIT(incy);                                                                     \
        RB_ENTER(handle);                                                                      \
        int n_ = (int)n, ix = (int)incx, iy = (int)incy;                                       \
        for (int64_t b = 0; b < RB_NB_##F; b++)                                                \
            fn(&n_, (void *)RB_AT_##F(x, b), &ix, (void *)RB_AT_##F(y, b), &iy, (void *)c,      \
               (void *)s);                                                                     \
        return rocblas_status_success;                                                         \
    }
RB_EACH_FORM(RB_ROT, s, float, float, float, OB(srot))
RB_EACH_FORM(RB_ROT, d, double, double, double, OB(drot))
RB_EACH_FORM(RB_ROT, c, rocblas_float_complex, float, rocblas_float_complex, scipy_crot_)
RB_EACH_FORM(RB_ROT, z, rocblas_double_complex, double, rocblas_double_complex, scipy_zrot_)
RB_EACH_FORM(RB_ROT, cs, rocblas_float_complex, float, float, OB(csrot))
RB_EACH_FORM(RB_ROT, zd, rocblas_double_complex, double, double, OB(zdrot))

/* rotg: a, b, c, s are scalars (one per batch instance) */
#define RB_ROTG(F, W, pre, T, R, fn)                                                           \
    RB_API rocblas_status RB_NAME(pre, rotg, F, W)(                                            \
        rocblas_handle handle, RB_PTR_##F(T, a), RB_PTR_##F(T, b), RB_PTR_##F(R, c),           \
        RB_PTR_##F(T, s) RB_BC_##F(RB_INT_##W))                                                \
    {                                                                                          \
        RB_CHECK_HANDLE;                                                                       \
        if (RB_NB_##F <= 0)                                                                    \
            return rocblas_status_success;                                                     \
        if (!a || !b || !c || !s)                                                              \
            return rocblas_status_invalid_pointer;                                             \
        RB_ENTER(handle);                                                                      \
        for (int64_t i = 0; i < RB_NB_##F; i++)                                                \
            fn((void *)RB_AT_##F(a, i), (void *)RB_AT_##F(b, i), (void *)RB_AT_##F(c, i),       \
               (void *)RB_AT_##F(s, i));                                                       \
        return rocblas_status_success;                                                         \
    }
RB_EACH_FORM(RB_ROTG, s, float, float, OB(srotg))
RB_EACH_FORM(RB_ROTG, d, double, double, OB(drotg))
RB_EACH_FORM(RB_ROTG, c, rocblas_float_complex, float, OB(crotg))
RB_EACH_FORM(RB_ROTG, z, rocblas_double_complex, double, OB(zrotg))

/* rotm: the modified rotation; flag param[0] == -2 is the identity */
#define RB_ROTM(F, W, pre, T, fn)                                                              \
    RB_API rocblas_status RB_NAME(pre, rotm, F, W)(                                            \
        rocblas_handle handle, RB_INT_##W n, RB_VEC_##F(T, x, RB_INT_##W),                     \
        RB_VEC_##F(T, y, RB_INT_##W), RB_PTR_##F(const T, param) RB_BC_##F(RB_INT_##W))        \
    {                                                                                          \
        RB_CHECK_HANDLE;                                                                       \
        if (n <= 0 || RB_NB_##F <= 0)                                                          \
            return rocblas_status_success;                                                     \
        if (!param || !x || !y)                                                                \
            return rocblas_status_invalid_pointer;                                             \
        RB_NEED_FIT(n);                                                                        \
        RB_NEED_FIT(incx);                                                                     \
        RB_NEED_FIT(incy);                                                                     \
        RB_ENTER(handle);                                                                      \
        int n_ = (int)n, ix = (int)incx, iy = (int)incy;                                       \
        for (int64_t b = 0; b < RB_NB_##F; b++)                                                \
            fn(&n_, (void *)RB_AT_##F(x, b), &ix, (void *)RB_AT_##F(y, b), &iy,                \
               (void *)RB_AT_##F(param, b));                                                   \
        return rocblas_status_success;                                                         \
    }
RB_EACH_FORM(RB_ROTM, s, float, OB(srotm))
RB_EACH_FORM(RB_ROTM, d, double, OB(drotm))

#define RB_ROTMG(F, W, pre, T, fn)                                                             \
    RB_API rocblas_status RB_NAME(pre, rotmg, F, W)(                                           \
        rocblas_handle handle, RB_PTR_##F(T, d1), RB_PTR_##F(T, d2), RB_PTR_##F(T, x1),        \
        RB_PTR_##F(const T, y1), RB_PTR_##F(T, param) RB_BC_##F(RB_INT_##W))                   \
    {                                                                                          \
        RB_CHECK_HANDLE;                                                                       \
        if (RB_NB_##F <= 0)                                                                    \
            return rocblas_status_success;                                                     \
        if (!d1 || !d2 || !x1 || !y1 || !param)                                                \
            return rocblas_status_invalid_pointer;                                             \
        RB_ENTER(handle);                                                                      \
        for (int64_t b = 0; b < RB_NB_##F; b++)                                                \
            fn((void *)RB_AT_##F(d1, b), (void *)RB_AT_##F(d2, b), (void *)RB_AT_##F(x1, b),    \
               (void *)RB_AT_##F(y1, b), (void *)RB_AT_##F(param, b));                         \
        return rocblas_status_success;                                                         \
    }
RB_EACH_FORM(RB_ROTMG, s, float, OB(srotmg))
RB_EACH_FORM(RB_ROTMG, d, double, OB(drotmg))
