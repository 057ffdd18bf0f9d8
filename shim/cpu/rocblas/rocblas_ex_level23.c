/* rocBLAS extension API of levels 2 and 3 on the CPU device: trsm_ex (+batched/strided;
 * the optional precomputed invA is a speed hint and is ignored), syrk_ex, and the
 * mixed-precision batched gemv family (hshgemv, hssgemv, tstgemv, tssgemv: f16/bf16 matrix
 * and x, f32 alpha/beta, y in the 16-bit type or f32), computed in f32, and geam_ex
 * (min-plus / plus-min products). */
#include <math.h>
#include <stdlib.h>

#include "blas_common.h"
#include "blas_half.h"
#include "blas_openblas.h"

/* ---- trsm_ex: dispatch on compute_type to the typed trsm ---- */
#define RB_TRSM_EX_CASES(sfx, ...)                                                             \
    switch (compute_type) {                                                                    \
    case rocblas_datatype_f32_r: return rocblas_strsm##sfx(__VA_ARGS__);                       \
    case rocblas_datatype_f64_r: return rocblas_dtrsm##sfx(__VA_ARGS__);                       \
    case rocblas_datatype_f32_c: return rocblas_ctrsm##sfx(__VA_ARGS__);                       \
    case rocblas_datatype_f64_c: return rocblas_ztrsm##sfx(__VA_ARGS__);                       \
    default: break;                                                                            \
    }                                                                                          \
    RB_CHECK_HANDLE;                                                                           \
    return rocblas_status_not_implemented

RB_API rocblas_status rocblas_trsm_ex(rocblas_handle handle, rocblas_side side, rocblas_fill uplo,
                                      rocblas_operation transA, rocblas_diagonal diag,
                                      rocblas_int m, rocblas_int n, const void *alpha,
                                      const void *A, rocblas_int lda, void *B, rocblas_int ldb,
                                      const void *invA, rocblas_int invA_size,
                                      rocblas_datatype compute_type)
{
    (void)invA;
    (void)invA_size;
    RB_TRSM_EX_CASES(, handle, side, uplo, transA, diag, m, n, alpha, A, lda, B, ldb);
}

RB_API rocblas_status rocblas_trsm_batched_ex(rocblas_handle handle, rocblas_side side,
                                              rocblas_fill uplo, rocblas_operation transA,
                                              rocblas_diagonal diag, rocblas_int m,
                                              rocblas_int n, const void *alpha, const void *A,
                                              rocblas_int lda, void *B, rocblas_int ldb,
                                              rocblas_int batch_count, const void *invA,
                                              rocblas_int invA_size,
                                              rocblas_datatype compute_type)
{
    (void)invA;
    (void)invA_size;
    RB_TRSM_EX_CASES(_batched, handle, side, uplo, transA, diag, m, n, alpha, A, lda, B, ldb,
                     batch_count);
}

RB_API rocblas_status rocblas_trsm_strided_batched_ex(
    rocblas_handle handle, rocblas_side side, rocblas_fill uplo, rocblas_operation transA,
    rocblas_diagonal diag, rocblas_int m, rocblas_int n, const void *alpha, const void *A,
    rocblas_int lda, rocblas_stride stride_A, void *B, rocblas_int ldb, rocblas_stride stride_B,
    rocblas_int batch_count, const void *invA, rocblas_int invA_size, rocblas_stride stride_invA,
    rocblas_datatype compute_type)
{
    (void)invA;
    (void)invA_size;
    (void)stride_invA;
    RB_TRSM_EX_CASES(_strided_batched, handle, side, uplo, transA, diag, m, n, alpha, A, lda,
                     stride_A, B, ldb, stride_B, batch_count);
}

/* ---- syrk_ex: same-type data dispatches to the typed syrk ---- */
RB_API rocblas_status rocblas_syrk_ex(rocblas_handle handle, rocblas_fill uplo,
                                      rocblas_operation transA, rocblas_int n, rocblas_int k,
                                      const void *alpha, const void *A, rocblas_datatype a_type,
                                      rocblas_int lda, const void *beta, void *C,
                                      rocblas_datatype c_type, rocblas_int ldc,
                                      rocblas_datatype execution_type)
{
    RB_CHECK_HANDLE;
    if (a_type != c_type || a_type != execution_type)
        return rocblas_status_not_implemented;
    switch (a_type) {
    case rocblas_datatype_f32_r:
        return rocblas_ssyrk(handle, uplo, transA, n, k, alpha, A, lda, beta, C, ldc);
    case rocblas_datatype_f64_r:
        return rocblas_dsyrk(handle, uplo, transA, n, k, alpha, A, lda, beta, C, ldc);
    case rocblas_datatype_f32_c:
        return rocblas_csyrk(handle, uplo, transA, n, k, alpha, A, lda, beta, C, ldc);
    case rocblas_datatype_f64_c:
        return rocblas_zsyrk(handle, uplo, transA, n, k, alpha, A, lda, beta, C, ldc);
    default:
        return rocblas_status_not_implemented;
    }
}

/* ---- mixed-precision gemv, batched forms only (as rocBLAS declares them) ---- */
static int64_t rb_vpos(int64_t i, int64_t n, int64_t inc)
{
    return inc > 0 ? i * inc : (n - 1 - i) * -inc;
}

static rocblas_status rb_gemv_mixed(rocblas_handle handle, enum rb_form f,
                                    rocblas_operation trans, int64_t m, int64_t n,
                                    const float *alpha, const void *A, rocblas_datatype at,
                                    int64_t lda, rocblas_stride sA, const void *x, int64_t incx,
                                    rocblas_stride sx, const float *beta, void *y,
                                    rocblas_datatype yt, int64_t incy, rocblas_stride sy,
                                    int64_t batch)
{
    RB_CHECK_HANDLE;
    char t = rb_op(trans);
    if (!t)
        return rocblas_status_invalid_value;
    if (m < 0 || n < 0 || lda < m || lda < 1 || !incx || !incy || batch < 0)
        return rocblas_status_invalid_size;
    if (!m || !n || !batch)
        return rocblas_status_success;
    if (!alpha || !beta || !A || !x || !y)
        return rocblas_status_invalid_pointer;
    if (!rb_fits(m) || !rb_fits(n))
        return rocblas_status_invalid_size;
    RB_ENTER(handle);
    int64_t lx = t == 'N' ? n : m, ly = t == 'N' ? m : n;
    float *wa = malloc(sizeof(float) * (size_t)(m * n + lx + ly));
    if (!wa)
        return rocblas_status_memory_error;
    float *wx = wa + m * n, *wy = wx + lx;
    int m_ = (int)m, n_ = (int)n, one = 1;
    char tt = t == 'C' ? 'T' : t; /* real data */
    size_t ea = rb_dt_size(at), ey = rb_dt_size(yt);
    for (int64_t b = 0; b < batch; b++) {
        const void *a = rb_inst(A, f, b, sA, ea), *xv = rb_inst(x, f, b, sx, ea);
        void *yv = (void *)rb_inst(y, f, b, sy, ey);
        rb_widen(a, at, lda, m, n, wa);
        for (int64_t i = 0; i < lx; i++)
            wx[i] = rb_load_f32(xv, at, rb_vpos(i, lx, incx));
        for (int64_t i = 0; i < ly; i++)
            wy[i] = *beta == 0.0f ? 0.0f : rb_load_f32(yv, yt, rb_vpos(i, ly, incy));
        OB(sgemv)(&tt, &m_, &n_, (float *)alpha, wa, &m_, wx, &one, (float *)beta, wy, &one);
        for (int64_t i = 0; i < ly; i++)
            rb_store_f32(yv, yt, rb_vpos(i, ly, incy), wy[i]);
    }
    free(wa);
    return rocblas_status_success;
}

/* name letters: <matrix/x type><compute f32 = s><y type>: h f16, t bf16, s f32 */
#define RB_MIXED_GEMV(F, W, pre, TA, TY, at, yt)                                               \
    RB_API rocblas_status RB_NAME(pre, gemv, F, W)(                                            \
        rocblas_handle handle, rocblas_operation trans, RB_INT_##W m, RB_INT_##W n,            \
        const float *alpha, RB_MAT_##F(const TA, A, RB_INT_##W),                               \
        RB_VEC_##F(const TA, x, RB_INT_##W), const float *beta,                                \
        RB_VEC_##F(TY, y, RB_INT_##W) RB_BC_##F(RB_INT_##W))                                   \
    {                                                                                          \
        return rb_gemv_mixed(handle, RB_FORM_##F, trans, m, n, alpha, A, at, ldA,             \
                             RB_MIXED_STRIDE_##F(A), x, incx, RB_MIXED_STRIDE_##F(x), beta,   \
                             (void *)y, yt, incy, RB_MIXED_STRIDE_##F(y), RB_NB_##F);          \
    }
#define RB_MIXED_STRIDE_B(v) 0
#define RB_MIXED_STRIDE_S(v) stride##v
#define RB_MIXED_FORMS(M, ...)                                                                 \
    M(B, L, __VA_ARGS__) M(S, L, __VA_ARGS__) M(B, W, __VA_ARGS__) M(S, W, __VA_ARGS__)
RB_MIXED_FORMS(RB_MIXED_GEMV, hsh, rocblas_half, rocblas_half, rocblas_datatype_f16_r,
               rocblas_datatype_f16_r)
RB_MIXED_FORMS(RB_MIXED_GEMV, hss, rocblas_half, float, rocblas_datatype_f16_r,
               rocblas_datatype_f32_r)
RB_MIXED_FORMS(RB_MIXED_GEMV, tst, rocblas_bfloat16, rocblas_bfloat16, rocblas_datatype_bf16_r,
               rocblas_datatype_bf16_r)
RB_MIXED_FORMS(RB_MIXED_GEMV, tss, rocblas_bfloat16, float, rocblas_datatype_bf16_r,
               rocblas_datatype_f32_r)

/* ---- geam_ex: gemm-shaped products over the (min, +) and (+, min) semirings ----
 *   min_plus: D = min(beta C, min_k alpha (A_ik + B_kj))
 *   plus_min: D = beta C + sum_k min(alpha A_ik, alpha B_kj)
 * f64, f32 and f16 with all types equal (f16 computed in f32). */
static double rb_ld_any(const void *p, rocblas_datatype t, int64_t i)
{
    return t == rocblas_datatype_f64_r ? ((const double *)p)[i] : rb_load_f32(p, t, i);
}

static void rb_st_any(void *p, rocblas_datatype t, int64_t i, double v)
{
    if (t == rocblas_datatype_f64_r)
        ((double *)p)[i] = v;
    else
        rb_store_f32(p, t, i, (float)v);
}

RB_API rocblas_status rocblas_geam_ex(rocblas_handle handle, rocblas_operation transA,
                                      rocblas_operation transB, rocblas_int m, rocblas_int n,
                                      rocblas_int k, const void *alpha, const void *A,
                                      rocblas_datatype a_type, rocblas_int lda, const void *B,
                                      rocblas_datatype b_type, rocblas_int ldb, const void *beta,
                                      const void *C, rocblas_datatype c_type, rocblas_int ldc,
                                      void *D, rocblas_datatype d_type, rocblas_int ldd,
                                      rocblas_datatype compute_type,
                                      rocblas_geam_ex_operation geam_ex_op)
{
    RB_CHECK_HANDLE;
    char ta = rb_op(transA), tb = rb_op(transB);
    if (!ta || !tb || (geam_ex_op != rocblas_geam_ex_operation_min_plus &&
                       geam_ex_op != rocblas_geam_ex_operation_plus_min))
        return rocblas_status_invalid_value;
    if (m < 0 || n < 0 || k < 0 || lda < (ta == 'N' ? m : k) || ldb < (tb == 'N' ? k : n) ||
        ldc < m || ldd < m || (C == D && ldc != ldd))
        return rocblas_status_invalid_size;
    if (!m || !n)
        return rocblas_status_success;
    bool same = a_type == b_type && a_type == c_type && a_type == d_type && a_type == compute_type;
    if (!same || (a_type != rocblas_datatype_f64_r && a_type != rocblas_datatype_f32_r &&
                  a_type != rocblas_datatype_f16_r))
        return rocblas_status_not_implemented;
    if (!alpha || !beta || !C || !D || (k && (!A || !B)))
        return rocblas_status_invalid_pointer;
    RB_ENTER(handle);
    rocblas_datatype t = a_type;
    double al = rb_ld_any(alpha, t, 0), be = rb_ld_any(beta, t, 0);
    bool minplus = geam_ex_op == rocblas_geam_ex_operation_min_plus;
    for (int64_t j = 0; j < n; j++)
        for (int64_t i = 0; i < m; i++) {
            double acc = minplus ? INFINITY : 0.0;
            for (int64_t p = 0; p < k; p++) {
                double a = rb_ld_any(A, t, ta == 'N' ? i + p * lda : p + i * lda);
                double b = rb_ld_any(B, t, tb == 'N' ? p + j * ldb : j + p * ldb);
                if (minplus)
                    acc = fmin(acc, al * (a + b));
                else
                    acc += fmin(al * a, al * b);
            }
            double c = be * rb_ld_any(C, t, i + j * ldc);
            rb_st_any(D, t, i + j * ldd, minplus ? fmin(c, acc) : c + acc);
        }
    return rocblas_status_success;
}
