/* rocBLAS level-1 extension API on the CPU device: axpy_ex, dot_ex, dotc_ex, nrm2_ex, rot_ex,
 * scal_ex (plain, _batched, _strided_batched; LP64 and _64) and the 16-bit haxpy, hdot,
 * bfdot families.
 *
 * When the data and execution types are one of f32/f64/c32/c64 (and the documented mixed
 * cases: real alpha for complex scal, real result for complex nrm2, real c/s for complex
 * rot), OpenBLAS runs the operation. f16/bf16 data with f32 execution runs as a loop in f32
 * (f64 accumulation for the reductions). Other combinations: rocblas_status_not_implemented. */
#include <math.h>
#include <string.h>

#include "blas_common.h"
#include "blas_half.h"
#include "blas_openblas.h"

/* one vector operand: pointer (or pointer array), type, increment, batch stride */
struct rb_v {
    const void *p;
    rocblas_datatype t;
    int64_t inc, stride;
};

static void *rb_vat(struct rb_v v, enum rb_form f, int64_t b)
{
    return (void *)rb_inst(v.p, f, b, v.stride, rb_dt_size(v.t));
}

/* buffer position of logical element i (BLAS: negative increments start at the far end) */
static int64_t rb_pos(int64_t i, int64_t n, int64_t inc)
{
    return inc > 0 ? i * inc : (n - 1 - i) * -inc;
}

static bool rb_half_type(rocblas_datatype t)
{
    return t == rocblas_datatype_f16_r || t == rocblas_datatype_bf16_r;
}

/* precision letter of a natively supported type, 0 otherwise */
static char rb_native(rocblas_datatype t)
{
    switch (t) {
    case rocblas_datatype_f32_r: return 's';
    case rocblas_datatype_f64_r: return 'd';
    case rocblas_datatype_f32_c: return 'c';
    case rocblas_datatype_f64_c: return 'z';
    default: return 0;
    }
}

#define RB_EX_PRELUDE(nb)                                                         \
    RB_CHECK_HANDLE;                                                              \
    if (n <= 0 || (nb) <= 0)                                                      \
        return rocblas_status_success;                                            \
    if (!rb_fits(n) || !rb_fits(x.inc))                                           \
        return rocblas_status_invalid_size

/* ---- axpy_ex ---- */
static rocblas_status rb_axpy_ex(rocblas_handle handle, enum rb_form f, int64_t n,
                                 const void *alpha, rocblas_datatype at, struct rb_v x,
                                 struct rb_v y, int64_t nb, rocblas_datatype ex)
{
    RB_EX_PRELUDE(nb);
    if (!alpha || !x.p || !y.p)
        return rocblas_status_invalid_pointer;
    if (!rb_fits(y.inc))
        return rocblas_status_invalid_size;
    char p = rb_native(ex);
    bool native = p && at == ex && x.t == ex && y.t == ex;
    bool half = ex == rocblas_datatype_f32_r && rb_half_type(x.t) && y.t == x.t &&
                (at == x.t || at == rocblas_datatype_f32_r);
    if (!native && !half)
        return rocblas_status_not_implemented;
    RB_ENTER(handle);
    int n_ = (int)n, ix = (int)x.inc, iy = (int)y.inc;
    for (int64_t b = 0; b < nb; b++) {
        void *xp = rb_vat(x, f, b), *yp = rb_vat(y, f, b), *al = (void *)alpha;
        if (half) {
            float a = rb_load_f32(alpha, at, 0);
            for (int64_t i = 0; i < n; i++) {
                int64_t px = rb_pos(i, n, x.inc), py = rb_pos(i, n, y.inc);
                rb_store_f32(yp, y.t, py, a * rb_load_f32(xp, x.t, px) + rb_load_f32(yp, y.t, py));
            }
            continue;
        }
        switch (p) {
        case 's': OB(saxpy)(&n_, al, xp, &ix, yp, &iy); break;
        case 'd': OB(daxpy)(&n_, al, xp, &ix, yp, &iy); break;
        case 'c': OB(caxpy)(&n_, al, xp, &ix, yp, &iy); break;
        default: OB(zaxpy)(&n_, al, xp, &ix, yp, &iy); break;
        }
    }
    return rocblas_status_success;
}

/* ---- dot_ex / dotc_ex ---- */
static rocblas_status rb_dot_ex(rocblas_handle handle, enum rb_form f, int64_t n, struct rb_v x,
                                struct rb_v y, int64_t nb, void *result, rocblas_datatype rt,
                                rocblas_datatype ex, bool conj)
{
    RB_CHECK_HANDLE;
    if (nb <= 0)
        return rocblas_status_success;
    if (!result)
        return rocblas_status_invalid_pointer;
    if (n > 0 && (!x.p || !y.p))
        return rocblas_status_invalid_pointer;
    if (!rb_fits(n) || !rb_fits(x.inc) || !rb_fits(y.inc))
        return rocblas_status_invalid_size;
    char p = rb_native(ex);
    bool native = p && x.t == ex && y.t == ex && rt == ex;
    bool half = ex == rocblas_datatype_f32_r && rb_half_type(x.t) && y.t == x.t && rt == x.t;
    if (!native && !half)
        return rocblas_status_not_implemented;
    RB_ENTER(handle);
    size_t rs = rb_dt_size(rt);
    int n_ = (int)n, ix = (int)x.inc, iy = (int)y.inc;
    for (int64_t b = 0; b < nb; b++) {
        void *r = (char *)result + (size_t)b * rs;
        if (n <= 0) {
            memset(r, 0, rs);
            continue;
        }
        const void *xp = rb_vat(x, f, b), *yp = rb_vat(y, f, b);
        if (half) {
            double acc = 0;
            for (int64_t i = 0; i < n; i++)
                acc += (double)rb_load_f32(xp, x.t, rb_pos(i, n, x.inc)) *
                       rb_load_f32(yp, y.t, rb_pos(i, n, y.inc));
            rb_store_f32(r, rt, 0, (float)acc);
            continue;
        }
        switch (p) {
        case 's': *(float *)r = scipy_cblas_sdot(n_, xp, ix, yp, iy); break;
        case 'd': *(double *)r = scipy_cblas_ddot(n_, xp, ix, yp, iy); break;
        case 'c':
            if (conj)
                scipy_cblas_cdotc_sub(n_, xp, ix, yp, iy, r);
            else
                scipy_cblas_cdotu_sub(n_, xp, ix, yp, iy, r);
            break;
        default:
            if (conj)
                scipy_cblas_zdotc_sub(n_, xp, ix, yp, iy, r);
            else
                scipy_cblas_zdotu_sub(n_, xp, ix, yp, iy, r);
            break;
        }
    }
    return rocblas_status_success;
}

/* ---- nrm2_ex ---- */
static rocblas_status rb_nrm2_ex(rocblas_handle handle, enum rb_form f, int64_t n, struct rb_v x,
                                 int64_t nb, void *result, rocblas_datatype rt,
                                 rocblas_datatype ex)
{
    RB_CHECK_HANDLE;
    if (nb <= 0)
        return rocblas_status_success;
    if (!result)
        return rocblas_status_invalid_pointer;
    if (n > 0 && x.inc > 0 && !x.p)
        return rocblas_status_invalid_pointer;
    if (!rb_fits(n) || !rb_fits(x.inc))
        return rocblas_status_invalid_size;
    char p = rb_native(x.t);
    bool native = p && ((p == 's' || p == 'c') ? ex == rocblas_datatype_f32_r && rt == ex
                                               : ex == rocblas_datatype_f64_r && rt == ex) &&
                  (x.t == ex || p == 'c' || p == 'z');
    bool half = ex == rocblas_datatype_f32_r && rb_half_type(x.t) && rt == x.t;
    if (!native && !half)
        return rocblas_status_not_implemented;
    RB_ENTER(handle);
    size_t rs = rb_dt_size(rt);
    int n_ = (int)n, ix = (int)x.inc;
    for (int64_t b = 0; b < nb; b++) {
        void *r = (char *)result + (size_t)b * rs;
        if (n <= 0 || x.inc <= 0) {
            memset(r, 0, rs);
            continue;
        }
        const void *xp = rb_vat(x, f, b);
        if (half) {
            double acc = 0;
            for (int64_t i = 0; i < n; i++) {
                double v = rb_load_f32(xp, x.t, i * x.inc);
                acc += v * v;
            }
            rb_store_f32(r, rt, 0, (float)sqrt(acc));
            continue;
        }
        switch (p) {
        case 's': *(float *)r = scipy_cblas_snrm2(n_, xp, ix); break;
        case 'd': *(double *)r = scipy_cblas_dnrm2(n_, xp, ix); break;
        case 'c': *(float *)r = scipy_cblas_scnrm2(n_, xp, ix); break;
        default: *(double *)r = scipy_cblas_dznrm2(n_, xp, ix); break;
        }
    }
    return rocblas_status_success;
}

/* ---- scal_ex ---- */
static rocblas_status rb_scal_ex(rocblas_handle handle, enum rb_form f, int64_t n,
                                 const void *alpha, rocblas_datatype at, struct rb_v x,
                                 int64_t nb, rocblas_datatype ex)
{
    RB_EX_PRELUDE(nb);
    if (x.inc <= 0)
        return rocblas_status_success;
    if (!alpha || !x.p)
        return rocblas_status_invalid_pointer;
    char p = rb_native(ex);
    /* native: all equal, or a real alpha scaling complex data */
    bool native = p && x.t == ex &&
                  (at == ex || (p == 'c' && at == rocblas_datatype_f32_r) ||
                   (p == 'z' && at == rocblas_datatype_f64_r));
    bool half = ex == rocblas_datatype_f32_r && rb_half_type(x.t) &&
                (at == x.t || at == rocblas_datatype_f32_r);
    if (!native && !half)
        return rocblas_status_not_implemented;
    RB_ENTER(handle);
    int n_ = (int)n, ix = (int)x.inc;
    bool real_alpha = at != ex;
    for (int64_t b = 0; b < nb; b++) {
        void *xp = rb_vat(x, f, b), *al = (void *)alpha;
        if (half) {
            float a = rb_load_f32(alpha, at, 0);
            for (int64_t i = 0; i < n; i++)
                rb_store_f32(xp, x.t, i * x.inc, a * rb_load_f32(xp, x.t, i * x.inc));
            continue;
        }
        switch (p) {
        case 's': OB(sscal)(&n_, al, xp, &ix); break;
        case 'd': OB(dscal)(&n_, al, xp, &ix); break;
        case 'c':
            if (real_alpha)
                OB(csscal)(&n_, al, xp, &ix);
            else
                OB(cscal)(&n_, al, xp, &ix);
            break;
        default:
            if (real_alpha)
                OB(zdscal)(&n_, al, xp, &ix);
            else
                OB(zscal)(&n_, al, xp, &ix);
            break;
        }
    }
    return rocblas_status_success;
}

/* ---- rot_ex ---- */
void scipy_crot_(const int *, void *, const int *, void *, const int *, const float *,
                 const void *);
void scipy_zrot_(const int *, void *, const int *, void *, const int *, const double *,
                 const void *);

static rocblas_status rb_rot_ex(rocblas_handle handle, enum rb_form f, int64_t n, struct rb_v x,
                                struct rb_v y, const void *c, const void *s,
                                rocblas_datatype cst, int64_t nb, rocblas_datatype ex)
{
    RB_EX_PRELUDE(nb);
    if (!c || !s || !x.p || !y.p)
        return rocblas_status_invalid_pointer;
    if (!rb_fits(y.inc))
        return rocblas_status_invalid_size;
    char p = rb_native(ex);
    bool cs_real = (p == 'c' && cst == rocblas_datatype_f32_r) ||
                   (p == 'z' && cst == rocblas_datatype_f64_r);
    bool native = p && x.t == ex && y.t == ex && (cst == ex || cs_real);
    bool half = ex == rocblas_datatype_f32_r && rb_half_type(x.t) && y.t == x.t && cst == x.t;
    if (!native && !half)
        return rocblas_status_not_implemented;
    RB_ENTER(handle);
    int n_ = (int)n, ix = (int)x.inc, iy = (int)y.inc;
    for (int64_t b = 0; b < nb; b++) {
        void *xp = rb_vat(x, f, b), *yp = rb_vat(y, f, b);
        if (half) {
            float cc = rb_load_f32(c, cst, 0), ss = rb_load_f32(s, cst, 0);
            for (int64_t i = 0; i < n; i++) {
                int64_t px = rb_pos(i, n, x.inc), py = rb_pos(i, n, y.inc);
                float xv = rb_load_f32(xp, x.t, px), yv = rb_load_f32(yp, y.t, py);
                rb_store_f32(xp, x.t, px, cc * xv + ss * yv);
                rb_store_f32(yp, y.t, py, cc * yv - ss * xv);
            }
            continue;
        }
        switch (p) {
        case 's': OB(srot)(&n_, xp, &ix, yp, &iy, (void *)c, (void *)s); break;
        case 'd': OB(drot)(&n_, xp, &ix, yp, &iy, (void *)c, (void *)s); break;
        case 'c':
            if (cs_real)
                OB(csrot)(&n_, xp, &ix, yp, &iy, (void *)c, (void *)s);
            else /* complex c: its real part is the cosine */
                scipy_crot_(&n_, xp, &ix, yp, &iy, (const float *)c, s);
            break;
        default:
            if (cs_real)
                OB(zdrot)(&n_, xp, &ix, yp, &iy, (void *)c, (void *)s);
            else
                scipy_zrot_(&n_, xp, &ix, yp, &iy, (const double *)c, s);
            break;
        }
    }
    return rocblas_status_success;
}

/* ---- entry points: gather arguments, name the form ---- */
#define RB_XV_P(x, T, inc) ((struct rb_v){x, T, inc, 0})
#define RB_XV_B(x, T, inc) ((struct rb_v){x, T, inc, 0})
#define RB_XV_S(x, T, inc) ((struct rb_v){x, T, inc, stride##x})
#define RB_XSTRIDE_P(x)
#define RB_XSTRIDE_B(x)
#define RB_XSTRIDE_S(x) , rocblas_stride stride##x
#define RB_FORM_OF_P RB_FORM_P
#define RB_FORM_OF_B RB_FORM_B
#define RB_FORM_OF_S RB_FORM_S
#define RB_EXNAME(op, F, W) RB_CAT5(rocblas_, op, RB_FSFX_##F, _ex, RB_WSFX_##W)
#define RB_EXNAME_NOEX(op, F, W) RB_CAT5(rocblas_, op, RB_FSFX_##F, , RB_WSFX_##W)

#define RB_AXPY_EX(F, W, unused)                                                               \
    RB_API rocblas_status RB_EXNAME(axpy, F, W)(                                               \
        rocblas_handle handle, RB_INT_##W n, const void *alpha, rocblas_datatype alpha_type,   \
        const void *x, rocblas_datatype x_type, RB_INT_##W incx RB_XSTRIDE_##F(x), void *y,    \
        rocblas_datatype y_type, RB_INT_##W incy RB_XSTRIDE_##F(y) RB_BC_##F(RB_INT_##W),      \
        rocblas_datatype execution_type)                                                       \
    {                                                                                          \
        return rb_axpy_ex(handle, RB_FORM_OF_##F, n, alpha, alpha_type,                        \
                          RB_XV_##F(x, x_type, incx), RB_XV_##F(y, y_type, incy), RB_NB_##F,   \
                          execution_type);                                                     \
    }
RB_EACH_FORM(RB_AXPY_EX, 0)

#define RB_DOT_EX(F, W, op, conj)                                                              \
    RB_API rocblas_status RB_EXNAME(op, F, W)(                                                 \
        rocblas_handle handle, RB_INT_##W n, const void *x, rocblas_datatype x_type,           \
        RB_INT_##W incx RB_XSTRIDE_##F(x), const void *y, rocblas_datatype y_type,             \
        RB_INT_##W incy RB_XSTRIDE_##F(y) RB_BC_##F(RB_INT_##W), void *result,                 \
        rocblas_datatype result_type, rocblas_datatype execution_type)                         \
    {                                                                                          \
        return rb_dot_ex(handle, RB_FORM_OF_##F, n, RB_XV_##F(x, x_type, incx),                \
                         RB_XV_##F(y, y_type, incy), RB_NB_##F, result, result_type,           \
                         execution_type, conj);                                                \
    }
RB_EACH_FORM(RB_DOT_EX, dot, false)
RB_EACH_FORM(RB_DOT_EX, dotc, true)

#define RB_NRM2_EX(F, W, unused)                                                               \
    RB_API rocblas_status RB_EXNAME(nrm2, F, W)(                                               \
        rocblas_handle handle, RB_INT_##W n, const void *x, rocblas_datatype x_type,           \
        RB_INT_##W incx RB_XSTRIDE_##F(x) RB_BC_##F(RB_INT_##W), void *results,                \
        rocblas_datatype result_type, rocblas_datatype execution_type)                         \
    {                                                                                          \
        return rb_nrm2_ex(handle, RB_FORM_OF_##F, n, RB_XV_##F(x, x_type, incx), RB_NB_##F,    \
                          results, result_type, execution_type);                               \
    }
RB_EACH_FORM(RB_NRM2_EX, 0)

#define RB_SCAL_EX(F, W, unused)                                                               \
    RB_API rocblas_status RB_EXNAME(scal, F, W)(                                               \
        rocblas_handle handle, RB_INT_##W n, const void *alpha, rocblas_datatype alpha_type,   \
        void *x, rocblas_datatype x_type, RB_INT_##W incx RB_XSTRIDE_##F(x)                    \
            RB_BC_##F(RB_INT_##W),                                                             \
        rocblas_datatype execution_type)                                                       \
    {                                                                                          \
        return rb_scal_ex(handle, RB_FORM_OF_##F, n, alpha, alpha_type,                        \
                          RB_XV_##F(x, x_type, incx), RB_NB_##F, execution_type);              \
    }
RB_EACH_FORM(RB_SCAL_EX, 0)

#define RB_ROT_EX(F, W, unused)                                                                \
    RB_API rocblas_status RB_EXNAME(rot, F, W)(                                                \
        rocblas_handle handle, RB_INT_##W n, void *x, rocblas_datatype x_type,                 \
        RB_INT_##W incx RB_XSTRIDE_##F(x), void *y, rocblas_datatype y_type,                   \
        RB_INT_##W incy RB_XSTRIDE_##F(y), const void *c, const void *s,                       \
        rocblas_datatype cs_type RB_BC_##F(RB_INT_##W), rocblas_datatype execution_type)       \
    {                                                                                          \
        return rb_rot_ex(handle, RB_FORM_OF_##F, n, RB_XV_##F(x, x_type, incx),                \
                         RB_XV_##F(y, y_type, incy), c, s, cs_type, RB_NB_##F,                 \
                         execution_type);                                                      \
    }
RB_EACH_FORM(RB_ROT_EX, 0)

/* ---- haxpy, hdot, bfdot: fixed 16-bit types ---- */
#define RB_HAXPY(F, W, unused)                                                                 \
    RB_API rocblas_status RB_EXNAME_NOEX(haxpy, F, W)(                                         \
        rocblas_handle handle, RB_INT_##W n, const rocblas_half *alpha,                        \
        RB_VEC_##F(const rocblas_half, x, RB_INT_##W),                                         \
        RB_VEC_##F(rocblas_half, y, RB_INT_##W) RB_BC_##F(RB_INT_##W))                         \
    {                                                                                          \
        const rocblas_datatype h_ = rocblas_datatype_f16_r;                                    \
        return rb_axpy_ex(handle, RB_FORM_OF_##F, n, alpha, h_, RB_XV_##F(x, h_, incx),        \
                          RB_XV_##F(y, h_, incy), RB_NB_##F, rocblas_datatype_f32_r);          \
    }
RB_EACH_FORM(RB_HAXPY, 0)

#define RB_HDOT(F, W, op, T, dt)                                                               \
    RB_API rocblas_status RB_EXNAME_NOEX(op, F, W)(                                            \
        rocblas_handle handle, RB_INT_##W n, RB_VEC_##F(const T, x, RB_INT_##W),               \
        RB_VEC_##F(const T, y, RB_INT_##W) RB_BC_##F(RB_INT_##W), T *result)                   \
    {                                                                                          \
        return rb_dot_ex(handle, RB_FORM_OF_##F, n, RB_XV_##F(x, dt, incx),                    \
                         RB_XV_##F(y, dt, incy), RB_NB_##F, result, dt,                        \
                         rocblas_datatype_f32_r, false);                                       \
    }
RB_EACH_FORM(RB_HDOT, hdot, rocblas_half, rocblas_datatype_f16_r)
RB_EACH_FORM(RB_HDOT, bfdot, rocblas_bfloat16, rocblas_datatype_bf16_r)
