/* rocBLAS level 3 on the CPU device: gemm, gemmt, symm/hemm, syrk/herk, syr2k/her2k,
 * syrkx/herkx, trmm (rocBLAS's out-of-place form: C = alpha op(A) B), trsm, trtri, geam and
 * dgmm, each in the plain, _batched and _strided_batched forms and LP64 and _64 widths.
 *
 * OpenBLAS does the arithmetic where it has the routine (gemm, gemmt, symm, hemm, syrk,
 * herk, syr2k, her2k, trmm, trsm, trtri); syrkx/herkx are gemmt with op(B) transposed;
 * geam and dgmm are element loops here (they are memory-bound). Leading dimensions given to
 * OpenBLAS are raised to 1 when the matrix is empty, since its argument check rejects 0
 * where rocBLAS accepts it. */
#include <complex.h>
#include <string.h>

#include "blas_common.h"
#include "blas_openblas.h"

#define RB_INVALID_IF(c, st)                                                      \
    if (c)                                                                        \
    return rocblas_status_##st
#define RB_FOR_BATCH(F) for (int64_t b = 0; b < RB_NB_##F; b++)
#define RB_LD(v) ((int)((v) < 1 ? 1 : (v)))
#define RB_X(...) __VA_ARGS__
#define RB_ROWS(t, a, b) ((t) == 'N' ? (a) : (b))

/* ---- gemm and gemmt ---- */
#define RB_GEMM(F, W, pre, T, fn)                                                              \
    RB_API rocblas_status RB_NAME(pre, gemm, F, W)(                                            \
        rocblas_handle handle, rocblas_operation transA, rocblas_operation transB,             \
        RB_INT_##W m, RB_INT_##W n, RB_INT_##W k, const T *alpha,                              \
        RB_MAT_##F(const T, A, RB_INT_##W), RB_MAT_##F(const T, B, RB_INT_##W), const T *beta, \
        RB_MAT_##F(T, C, RB_INT_##W) RB_BC_##F(RB_INT_##W))                                    \
    {                                                                                          \
        RB_CHECK_HANDLE;                                                                       \
        char ta = rb_op(transA), tb = rb_op(transB);                                           \
        RB_INVALID_IF(!ta || !tb, invalid_value);                                              \
        RB_INVALID_IF(m < 0 || n < 0 || k < 0 || RB_NB_##F < 0 ||                              \
                          ldA < RB_ROWS(ta, m, k) || ldB < RB_ROWS(tb, k, n) || ldC < m,       \
                      invalid_size);                                                           \
        if (!m || !n || !RB_NB_##F)                                                            \
            return rocblas_status_success;                                                     \
        RB_INVALID_IF(!alpha || !beta, invalid_pointer);                                       \
        bool az_ = !k || RB_HOST_ZERO(handle, pre, alpha);                                     \
        if (az_ && RB_HOST_ONE(handle, pre, beta))                                             \
            return rocblas_status_success;                                                     \
        RB_INVALID_IF(!C || (!az_ && (!A || !B)), invalid_pointer);                            \
        RB_NEED_FIT(m); RB_NEED_FIT(n); RB_NEED_FIT(k);                                        \
        RB_NEED_FIT(ldA); RB_NEED_FIT(ldB); RB_NEED_FIT(ldC);                                  \
        RB_ENTER(handle);                                                                      \
        int m_ = (int)m, n_ = (int)n, k_ = (int)k;                                             \
        int la = RB_LD(ldA), lb = RB_LD(ldB), lc = RB_LD(ldC);                                 \
        RB_FOR_BATCH(F)                                                                        \
        fn(&ta, &tb, &m_, &n_, &k_, (void *)alpha, (void *)RB_AT_##F(A, b), &la,               \
           (void *)RB_AT_##F(B, b), &lb, (void *)beta, (void *)RB_AT_##F(C, b), &lc);          \
        return rocblas_status_success;                                                         \
    }
RB_EACH_FORM(RB_GEMM, s, float, OB(sgemm))
RB_EACH_FORM(RB_GEMM, d, double, OB(dgemm))
RB_EACH_FORM(RB_GEMM, c, rocblas_float_complex, OB(cgemm))
RB_EACH_FORM(RB_GEMM, z, rocblas_double_complex, OB(zgemm))

#define RB_GEMMT(F, W, pre, T, fn)                                                             \
    RB_API rocblas_status RB_NAME(pre, gemmt, F, W)(                                           \
        rocblas_handle handle, rocblas_fill uplo, rocblas_operation transA,                    \
        rocblas_operation transB, RB_INT_##W n, RB_INT_##W k, const T *alpha,                  \
        RB_MAT_##F(const T, A, RB_INT_##W), RB_MAT_##F(const T, B, RB_INT_##W), const T *beta, \
        RB_MAT_##F(T, C, RB_INT_##W) RB_BC_##F(RB_INT_##W))                                    \
    {                                                                                          \
        RB_CHECK_HANDLE;                                                                       \
        char u = rb_fill(uplo), ta = rb_op(transA), tb = rb_op(transB);                       \
        RB_INVALID_IF(!u || !ta || !tb, invalid_value);                                        \
        RB_INVALID_IF(n < 0 || k < 0 || RB_NB_##F < 0 || ldA < RB_ROWS(ta, n, k) ||            \
                          ldB < RB_ROWS(tb, k, n) || ldC < n,                                  \
                      invalid_size);                                                           \
        if (!n || !RB_NB_##F)                                                                  \
            return rocblas_status_success;                                                     \
        RB_INVALID_IF(!alpha || !beta, invalid_pointer);                                       \
        bool az_ = !k || RB_HOST_ZERO(handle, pre, alpha);                                     \
        if (az_ && RB_HOST_ONE(handle, pre, beta))                                             \
            return rocblas_status_success;                                                     \
        RB_INVALID_IF(!C || (!az_ && (!A || !B)), invalid_pointer);                            \
        RB_NEED_FIT(n); RB_NEED_FIT(k); RB_NEED_FIT(ldA); RB_NEED_FIT(ldB); RB_NEED_FIT(ldC);  \
        RB_ENTER(handle);                                                                      \
        int n_ = (int)n, k_ = (int)k, la = RB_LD(ldA), lb = RB_LD(ldB), lc = RB_LD(ldC);       \
        RB_FOR_BATCH(F)                                                                        \
        fn(&u, &ta, &tb, &n_, &k_, (void *)alpha, (void *)RB_AT_##F(A, b), &la,                \
           (void *)RB_AT_##F(B, b), &lb, (void *)beta, (void *)RB_AT_##F(C, b), &lc);          \
        return rocblas_status_success;                                                         \
    }
RB_EACH_FORM(RB_GEMMT, s, float, OB(sgemmt))
RB_EACH_FORM(RB_GEMMT, d, double, OB(dgemmt))
RB_EACH_FORM(RB_GEMMT, c, rocblas_float_complex, OB(cgemmt))
RB_EACH_FORM(RB_GEMMT, z, rocblas_double_complex, OB(zgemmt))

/* ---- symm/hemm ---- */
#define RB_SYMM(F, W, pre, op, T, fn)                                                          \
    RB_API rocblas_status RB_NAME(pre, op, F, W)(                                              \
        rocblas_handle handle, rocblas_side side, rocblas_fill uplo, RB_INT_##W m,             \
        RB_INT_##W n, const T *alpha, RB_MAT_##F(const T, A, RB_INT_##W),                      \
        RB_MAT_##F(const T, B, RB_INT_##W), const T *beta,                                     \
        RB_MAT_##F(T, C, RB_INT_##W) RB_BC_##F(RB_INT_##W))                                    \
    {                                                                                          \
        RB_CHECK_HANDLE;                                                                       \
        char s = rb_side(side), u = rb_fill(uplo);                                             \
        RB_INVALID_IF(!s || !u, invalid_value);                                                \
        RB_INVALID_IF(m < 0 || n < 0 || RB_NB_##F < 0 || ldA < (s == 'L' ? m : n) ||           \
                          ldB < m || ldC < m,                                                  \
                      invalid_size);                                                           \
        if (!m || !n || !RB_NB_##F)                                                            \
            return rocblas_status_success;                                                     \
        RB_INVALID_IF(!alpha || !beta, invalid_pointer);                                       \
        bool az_ = RB_HOST_ZERO(handle, pre, alpha);                                           \
        if (az_ && RB_HOST_ONE(handle, pre, beta))                                             \
            return rocblas_status_success;                                                     \
        RB_INVALID_IF(!C || (!az_ && (!A || !B)), invalid_pointer);                            \
        RB_NEED_FIT(m); RB_NEED_FIT(n); RB_NEED_FIT(ldA); RB_NEED_FIT(ldB); RB_NEED_FIT(ldC);  \
        RB_ENTER(handle);                                                                      \
        int m_ = (int)m, n_ = (int)n, la = RB_LD(ldA), lb = RB_LD(ldB), lc = RB_LD(ldC);       \
        RB_FOR_BATCH(F)                                                                        \
        fn(&s, &u, &m_, &n_, (void *)alpha, (void *)RB_AT_##F(A, b), &la,                      \
           (void *)RB_AT_##F(B, b), &lb, (void *)beta, (void *)RB_AT_##F(C, b), &lc);          \
        return rocblas_status_success;                                                         \
    }
RB_EACH_FORM(RB_SYMM, s, symm, float, OB(ssymm))
RB_EACH_FORM(RB_SYMM, d, symm, double, OB(dsymm))
RB_EACH_FORM(RB_SYMM, c, symm, rocblas_float_complex, OB(csymm))
RB_EACH_FORM(RB_SYMM, z, symm, rocblas_double_complex, OB(zsymm))
RB_EACH_FORM(RB_SYMM, c, hemm, rocblas_float_complex, OB(chemm))
RB_EACH_FORM(RB_SYMM, z, hemm, rocblas_double_complex, OB(zhemm))

/* ---- rank-k updates. TOK(t) says which transposes the routine accepts; S is the
 * type of alpha (AL) and beta (BE) with their precision letters. ---- */
#define RB_TOK_REAL(t) ((t) != 0)
#define RB_TOK_SYM(t) ((t) == 'N' || (t) == 'T')
#define RB_TOK_HER(t) ((t) == 'N' || (t) == 'C')
#define RB_SYRK(F, W, pre, op, T, SA, SB, al, be, tok, fn)                                     \
    RB_API rocblas_status RB_NAME(pre, op, F, W)(                                              \
        rocblas_handle handle, rocblas_fill uplo, rocblas_operation transA, RB_INT_##W n,      \
        RB_INT_##W k, const SA *alpha, RB_MAT_##F(const T, A, RB_INT_##W), const SB *beta,     \
        RB_MAT_##F(T, C, RB_INT_##W) RB_BC_##F(RB_INT_##W))                                    \
    {                                                                                          \
        RB_CHECK_HANDLE;                                                                       \
        char u = rb_fill(uplo), t = rb_op(transA);                                             \
        RB_INVALID_IF(!u || !tok(t), invalid_value);                                           \
        RB_INVALID_IF(n < 0 || k < 0 || RB_NB_##F < 0 || ldA < RB_ROWS(t, n, k) || ldC < n,    \
                      invalid_size);                                                           \
        if (!n || !RB_NB_##F)                                                                  \
            return rocblas_status_success;                                                     \
        RB_INVALID_IF(!alpha || !beta, invalid_pointer);                                       \
        bool az_ = !k || RB_HOST_ZERO(handle, al, alpha);                                      \
        if (az_ && RB_HOST_ONE(handle, be, beta))                                              \
            return rocblas_status_success;                                                     \
        RB_INVALID_IF(!C || (!az_ && !A), invalid_pointer);                                    \
        RB_NEED_FIT(n); RB_NEED_FIT(k); RB_NEED_FIT(ldA); RB_NEED_FIT(ldC);                    \
        RB_ENTER(handle);                                                                      \
        int n_ = (int)n, k_ = (int)k, la = RB_LD(ldA), lc = RB_LD(ldC);                        \
        RB_FOR_BATCH(F)                                                                        \
        fn(&u, &t, &n_, &k_, (void *)alpha, (void *)RB_AT_##F(A, b), &la, (void *)beta,        \
           (void *)RB_AT_##F(C, b), &lc);                                                      \
        return rocblas_status_success;                                                         \
    }
RB_EACH_FORM(RB_SYRK, s, syrk, float, float, float, s, s, RB_TOK_REAL, OB(ssyrk))
RB_EACH_FORM(RB_SYRK, d, syrk, double, double, double, d, d, RB_TOK_REAL, OB(dsyrk))
RB_EACH_FORM(RB_SYRK, c, syrk, rocblas_float_complex, rocblas_float_complex,
             rocblas_float_complex, c, c, RB_TOK_SYM, OB(csyrk))
RB_EACH_FORM(RB_SYRK, z, syrk, rocblas_double_complex, rocblas_double_complex,
             rocblas_double_complex, z, z, RB_TOK_SYM, OB(zsyrk))
RB_EACH_FORM(RB_SYRK, c, herk, rocblas_float_complex, float, float, s, s, RB_TOK_HER, OB(cherk))
RB_EACH_FORM(RB_SYRK, z, herk, rocblas_double_complex, double, double, d, d, RB_TOK_HER,
             OB(zherk))

/* syr2k/her2k: fn is the BLAS routine; syrkx/herkx: C = alpha op(A) op(B)^T (^H) + beta C on
 * one triangle, which is gemmt with the second operand transposed. */
static inline char rb_flip(char t, bool herm)
{
    return t == 'N' ? (herm ? 'C' : 'T') : 'N';
}
#define RB_CALL_2K(F, T, fn, u, t, herm)                                                             \
    fn(&u, &t, &n_, &k_, (void *)alpha, (void *)RB_AT_##F(A, b), &la,                          \
       (void *)RB_AT_##F(B, b), &lb, (void *)beta, (void *)RB_AT_##F(C, b), &lc)
#define RB_CALL_KX(F, T, fn, u, t, herm)                                                             \
    fn(&u, &t, &(char){rb_flip(t, herm)}, &n_, &k_, (void *)alpha, (void *)RB_AT_##F(A, b),   \
       &la, (void *)RB_AT_##F(B, b), &lb, (void *)beta_full, (void *)RB_AT_##F(C, b), &lc);    \
    if (herm)                                                                                  \
        rb_zero_imag_diag((void *)RB_AT_##F(C, b), n_, lc, sizeof(T) == 16)
/* Hermitian results have a real diagonal (herk semantics) */
static void rb_zero_imag_diag(void *c, int n, int ldc, bool dbl)
{
    for (int i = 0; i < n; i++) {
        if (dbl)
            ((double *)c)[2 * ((size_t)i * ldc + i) + 1] = 0.0;
        else
            ((float *)c)[2 * ((size_t)i * ldc + i) + 1] = 0.0f;
    }
}
#define RB_SYR2K(F, W, pre, op, T, SB, al, be, tok, herm, CALL, fn)                            \
    RB_API rocblas_status RB_NAME(pre, op, F, W)(                                              \
        rocblas_handle handle, rocblas_fill uplo, rocblas_operation trans, RB_INT_##W n,       \
        RB_INT_##W k, const T *alpha, RB_MAT_##F(const T, A, RB_INT_##W),                      \
        RB_MAT_##F(const T, B, RB_INT_##W), const SB *beta,                                    \
        RB_MAT_##F(T, C, RB_INT_##W) RB_BC_##F(RB_INT_##W))                                    \
    {                                                                                          \
        RB_CHECK_HANDLE;                                                                       \
        char u = rb_fill(uplo), t = rb_op(trans);                                              \
        RB_INVALID_IF(!u || !tok(t), invalid_value);                                           \
        RB_INVALID_IF(n < 0 || k < 0 || RB_NB_##F < 0 || ldA < RB_ROWS(t, n, k) ||             \
                          ldB < RB_ROWS(t, n, k) || ldC < n,                                   \
                      invalid_size);                                                           \
        if (!n || !RB_NB_##F)                                                                  \
            return rocblas_status_success;                                                     \
        RB_INVALID_IF(!alpha || !beta, invalid_pointer);                                       \
        bool az_ = !k || RB_HOST_ZERO(handle, al, alpha);                                      \
        if (az_ && RB_HOST_ONE(handle, be, beta))                                              \
            return rocblas_status_success;                                                     \
        RB_INVALID_IF(!C || (!az_ && (!A || !B)), invalid_pointer);                            \
        RB_NEED_FIT(n); RB_NEED_FIT(k); RB_NEED_FIT(ldA); RB_NEED_FIT(ldB); RB_NEED_FIT(ldC);  \
        RB_ENTER(handle);                                                                      \
        int n_ = (int)n, k_ = (int)k, la = RB_LD(ldA), lb = RB_LD(ldB), lc = RB_LD(ldC);       \
        /* gemmt needs beta in C's type; a Hermitian beta is real */                          \
        T beta_full[1];                                                                        \
        memset(beta_full, 0, sizeof beta_full);                                                \
        memcpy(beta_full, beta, sizeof(SB));                                                   \
        (void)beta_full;                                                                       \
        RB_FOR_BATCH(F) { CALL(F, T, fn, u, t, herm); }                                              \
        return rocblas_status_success;                                                         \
    }
#define RB_K2_FAMILY(sym, her, CALL, fs, fh)                                                   \
    RB_EACH_FORM(RB_SYR2K, s, sym, float, float, s, s, RB_TOK_REAL, false, CALL, OB(s##fs))   \
    RB_EACH_FORM(RB_SYR2K, d, sym, double, double, d, d, RB_TOK_REAL, false, CALL, OB(d##fs)) \
    RB_EACH_FORM(RB_SYR2K, c, sym, rocblas_float_complex, rocblas_float_complex, c, c,         \
                 RB_TOK_SYM, false, CALL, OB(c##fs))                                           \
    RB_EACH_FORM(RB_SYR2K, z, sym, rocblas_double_complex, rocblas_double_complex, z, z,       \
                 RB_TOK_SYM, false, CALL, OB(z##fs))                                           \
    RB_EACH_FORM(RB_SYR2K, c, her, rocblas_float_complex, float, c, s, RB_TOK_HER, true, CALL, \
                 OB(c##fh))                                                                    \
    RB_EACH_FORM(RB_SYR2K, z, her, rocblas_double_complex, double, z, d, RB_TOK_HER, true,     \
                 CALL, OB(z##fh))
RB_K2_FAMILY(syr2k, her2k, RB_CALL_2K, syr2k, her2k)
RB_K2_FAMILY(syrkx, herkx, RB_CALL_KX, gemmt, gemmt)

/* ---- trsm (in place) and trmm (rocBLAS: C = alpha op(A) B, B and C may alias) ---- */
#define RB_TRSM(F, W, pre, T, fn)                                                              \
    RB_API rocblas_status RB_NAME(pre, trsm, F, W)(                                            \
        rocblas_handle handle, rocblas_side side, rocblas_fill uplo, rocblas_operation transA, \
        rocblas_diagonal diag, RB_INT_##W m, RB_INT_##W n, const T *alpha,                     \
        RB_MAT_##F(const T, A, RB_INT_##W), RB_MAT_##F(T, B, RB_INT_##W) RB_BC_##F(RB_INT_##W)) \
    {                                                                                          \
        RB_CHECK_HANDLE;                                                                       \
        char s = rb_side(side), u = rb_fill(uplo), t = rb_op(transA), d = rb_diag(diag);       \
        RB_INVALID_IF(!s || !u || !t || !d, invalid_value);                                    \
        RB_INVALID_IF(m < 0 || n < 0 || RB_NB_##F < 0 || ldA < (s == 'L' ? m : n) || ldB < m,  \
                      invalid_size);                                                           \
        if (!m || !n || !RB_NB_##F)                                                            \
            return rocblas_status_success;                                                     \
        RB_INVALID_IF(!alpha || !B, invalid_pointer);                                          \
        RB_INVALID_IF(!RB_HOST_ZERO(handle, pre, alpha) && !A, invalid_pointer);               \
        RB_NEED_FIT(m); RB_NEED_FIT(n); RB_NEED_FIT(ldA); RB_NEED_FIT(ldB);                    \
        RB_ENTER(handle);                                                                      \
        int m_ = (int)m, n_ = (int)n, la = RB_LD(ldA), lb = RB_LD(ldB);                        \
        RB_FOR_BATCH(F)                                                                        \
        fn(&s, &u, &t, &d, &m_, &n_, (void *)alpha, (void *)RB_AT_##F(A, b), &la,              \
           (void *)RB_AT_##F(B, b), &lb);                                                      \
        return rocblas_status_success;                                                         \
    }
RB_EACH_FORM(RB_TRSM, s, float, OB(strsm))
RB_EACH_FORM(RB_TRSM, d, double, OB(dtrsm))
RB_EACH_FORM(RB_TRSM, c, rocblas_float_complex, OB(ctrsm))
RB_EACH_FORM(RB_TRSM, z, rocblas_double_complex, OB(ztrsm))

/* copy an m x n column-major block (memmove: B and C may be the same matrix) */
static void rb_copy_block(const void *src, int64_t lds, void *dst, int64_t ldd, int64_t m,
                          int64_t n, size_t es)
{
    if (src == dst && lds == ldd)
        return;
    for (int64_t j = 0; j < n; j++)
        memmove((char *)dst + (size_t)(j * ldd) * es, (const char *)src + (size_t)(j * lds) * es,
                (size_t)m * es);
}

#define RB_TRMM(F, W, pre, T, fn)                                                              \
    RB_API rocblas_status RB_NAME(pre, trmm, F, W)(                                            \
        rocblas_handle handle, rocblas_side side, rocblas_fill uplo, rocblas_operation transA, \
        rocblas_diagonal diag, RB_INT_##W m, RB_INT_##W n, const T *alpha,                     \
        RB_MAT_##F(const T, A, RB_INT_##W), RB_MAT_##F(const T, B, RB_INT_##W),                \
        RB_MAT_##F(T, C, RB_INT_##W) RB_BC_##F(RB_INT_##W))                                    \
    {                                                                                          \
        RB_CHECK_HANDLE;                                                                       \
        char s = rb_side(side), u = rb_fill(uplo), t = rb_op(transA), d = rb_diag(diag);       \
        RB_INVALID_IF(!s || !u || !t || !d, invalid_value);                                    \
        RB_INVALID_IF(m < 0 || n < 0 || RB_NB_##F < 0 || ldA < (s == 'L' ? m : n) ||           \
                          ldB < m || ldC < m,                                                  \
                      invalid_size);                                                           \
        if (!m || !n || !RB_NB_##F)                                                            \
            return rocblas_status_success;                                                     \
        RB_INVALID_IF(!alpha || !C, invalid_pointer);                                          \
        RB_INVALID_IF(!RB_HOST_ZERO(handle, pre, alpha) && (!A || !B), invalid_pointer);       \
        RB_NEED_FIT(m); RB_NEED_FIT(n); RB_NEED_FIT(ldA); RB_NEED_FIT(ldB); RB_NEED_FIT(ldC);  \
        RB_ENTER(handle);                                                                      \
        int m_ = (int)m, n_ = (int)n, la = RB_LD(ldA), lc = RB_LD(ldC);                        \
        RB_FOR_BATCH(F)                                                                        \
        {                                                                                      \
            if (rb_zero_##pre(alpha)) {                                                        \
                for (int64_t j = 0; j < n; j++)                                                \
                    memset(RB_AT_##F(C, b) + j * ldC, 0, (size_t)m * sizeof(T));               \
                continue;                                                                      \
            }                                                                                  \
            rb_copy_block(RB_AT_##F(B, b), ldB, RB_AT_##F(C, b), ldC, m, n, sizeof(T));        \
            fn(&s, &u, &t, &d, &m_, &n_, (void *)alpha, (void *)RB_AT_##F(A, b), &la,          \
               (void *)RB_AT_##F(C, b), &lc);                                                  \
        }                                                                                      \
        return rocblas_status_success;                                                         \
    }
RB_EACH_FORM(RB_TRMM, s, float, OB(strmm))
RB_EACH_FORM(RB_TRMM, d, double, OB(dtrmm))
RB_EACH_FORM(RB_TRMM, c, rocblas_float_complex, OB(ctrmm))
RB_EACH_FORM(RB_TRMM, z, rocblas_double_complex, OB(ztrmm))

/* ---- trtri: invA = inverse of the triangular A (out of place); LP64 only in rocBLAS ---- */
static void rb_copy_triangle(const void *src, int64_t lds, void *dst, int64_t ldd, int64_t n,
                             char uplo, size_t es)
{
    for (int64_t j = 0; j < n; j++) {
        int64_t lo = uplo == 'U' ? 0 : j, hi = uplo == 'U' ? j + 1 : n;
        memmove((char *)dst + (size_t)(j * ldd + lo) * es,
                (const char *)src + (size_t)(j * lds + lo) * es, (size_t)(hi - lo) * es);
    }
}
#define RB_TRTRI(F, W, pre, T, fn)                                                             \
    RB_API rocblas_status RB_NAME(pre, trtri, F, W)(                                           \
        rocblas_handle handle, rocblas_fill uplo, rocblas_diagonal diag, RB_INT_##W n,         \
        RB_MAT_##F(const T, A, RB_INT_##W), RB_MAT_##F(T, invA, RB_INT_##W)                    \
            RB_BC_##F(RB_INT_##W))                                                             \
    {                                                                                          \
        RB_CHECK_HANDLE;                                                                       \
        char u = rb_fill(uplo), d = rb_diag(diag);                                             \
        RB_INVALID_IF(!u || !d, invalid_value);                                                \
        RB_INVALID_IF(n < 0 || ldA < n || ldinvA < n || RB_NB_##F < 0, invalid_size);          \
        if (!n || !RB_NB_##F)                                                                  \
            return rocblas_status_success;                                                     \
        RB_INVALID_IF(!A || !invA, invalid_pointer);                                           \
        RB_NEED_FIT(n); RB_NEED_FIT(ldinvA);                                                   \
        RB_ENTER(handle);                                                                      \
        int n_ = (int)n, li = RB_LD(ldinvA), info = 0;                                         \
        RB_FOR_BATCH(F)                                                                        \
        {                                                                                      \
            rb_copy_triangle(RB_AT_##F(A, b), ldA, RB_AT_##F(invA, b), ldinvA, n, u, sizeof(T)); \
            fn(&u, &d, &n_, (void *)RB_AT_##F(invA, b), &li, &info);                           \
        }                                                                                      \
        return rocblas_status_success;                                                         \
    }
RB_EACH_FORM_LP64(RB_TRTRI, s, float, OB(strtri))
RB_EACH_FORM_LP64(RB_TRTRI, d, double, OB(dtrtri))
RB_EACH_FORM_LP64(RB_TRTRI, c, rocblas_float_complex, OB(ctrtri))
RB_EACH_FORM_LP64(RB_TRTRI, z, rocblas_double_complex, OB(ztrtri))

/* ---- geam: C = alpha op(A) + beta op(B); dgmm: C = A diag(x) or diag(x) A ----
 * element loops in C99 complex arithmetic (rocBLAS complex = two packed reals) */
#define RB_CT_s float
#define RB_CT_d double
#define RB_CT_c float _Complex
#define RB_CT_z double _Complex
#define RB_CONJ_s(v) (v)
#define RB_CONJ_d(v) (v)
#define RB_CONJ_c(v) conjf(v)
#define RB_CONJ_z(v) conj(v)
#define RB_OPEL(pre, M, ld, t, i, j)                                                           \
    ((t) == 'N' ? (M)[(i) + (j) * (ld)]                                                        \
                : (t) == 'T' ? (M)[(j) + (i) * (ld)] : RB_CONJ_##pre((M)[(j) + (i) * (ld)]))

#define RB_GEAM(F, W, pre, T)                                                                  \
    RB_API rocblas_status RB_NAME(pre, geam, F, W)(                                            \
        rocblas_handle handle, rocblas_operation transA, rocblas_operation transB,             \
        RB_INT_##W m, RB_INT_##W n, const T *alpha, RB_MAT_##F(const T, A, RB_INT_##W),        \
        const T *beta, RB_MAT_##F(const T, B, RB_INT_##W),                                     \
        RB_MAT_##F(T, C, RB_INT_##W) RB_BC_##F(RB_INT_##W))                                    \
    {                                                                                          \
        RB_CHECK_HANDLE;                                                                       \
        char ta = rb_op(transA), tb = rb_op(transB);                                           \
        RB_INVALID_IF(!ta || !tb, invalid_value);                                              \
        RB_INVALID_IF(m < 0 || n < 0 || RB_NB_##F < 0 || ldA < RB_ROWS(ta, m, n) ||            \
                          ldB < RB_ROWS(tb, m, n) || ldC < m,                                  \
                      invalid_size);                                                           \
        if (!m || !n || !RB_NB_##F)                                                            \
            return rocblas_status_success;                                                     \
        RB_INVALID_IF(!alpha || !beta || !C, invalid_pointer);                                 \
        RB_ENTER(handle);                                                                      \
        typedef RB_CT_##pre ct_;                                                               \
        ct_ al = *(const ct_ *)alpha, be = *(const ct_ *)beta;                                 \
        RB_INVALID_IF((al != 0 && !A) || (be != 0 && !B), invalid_pointer);                    \
        RB_FOR_BATCH(F)                                                                        \
        {                                                                                      \
            const ct_ *a_ = (const ct_ *)RB_AT_##F(A, b), *b_ = (const ct_ *)RB_AT_##F(B, b);  \
            ct_ *c_ = (ct_ *)RB_AT_##F(C, b);                                                  \
            for (int64_t j = 0; j < n; j++)                                                    \
                for (int64_t i = 0; i < m; i++) {                                              \
                    ct_ v = 0;                                                                 \
                    if (al != 0)                                                               \
                        v += al * RB_OPEL(pre, a_, ldA, ta, i, j);                             \
                    if (be != 0)                                                               \
                        v += be * RB_OPEL(pre, b_, ldB, tb, i, j);                             \
                    c_[i + j * ldC] = v;                                                       \
                }                                                                              \
        }                                                                                      \
        return rocblas_status_success;                                                         \
    }
RB_EACH_FORM(RB_GEAM, s, float)
RB_EACH_FORM(RB_GEAM, d, double)
RB_EACH_FORM(RB_GEAM, c, rocblas_float_complex)
RB_EACH_FORM(RB_GEAM, z, rocblas_double_complex)

#define RB_DGMM(F, W, pre, T)                                                                  \
    RB_API rocblas_status RB_NAME(pre, dgmm, F, W)(                                            \
        rocblas_handle handle, rocblas_side side, RB_INT_##W m, RB_INT_##W n,                  \
        RB_MAT_##F(const T, A, RB_INT_##W), RB_VEC_##F(const T, x, RB_INT_##W),                \
        RB_MAT_##F(T, C, RB_INT_##W) RB_BC_##F(RB_INT_##W))                                    \
    {                                                                                          \
        RB_CHECK_HANDLE;                                                                       \
        char s = rb_side(side);                                                                \
        RB_INVALID_IF(!s, invalid_value);                                                      \
        RB_INVALID_IF(m < 0 || n < 0 || RB_NB_##F < 0 || ldA < m || ldC < m, invalid_size);    \
        if (!m || !n || !RB_NB_##F)                                                            \
            return rocblas_status_success;                                                     \
        RB_INVALID_IF(!A || !x || !C, invalid_pointer);                                        \
        RB_ENTER(handle);                                                                      \
        typedef RB_CT_##pre ct_;                                                               \
        int64_t len = s == 'L' ? m : n;                                                        \
        /* BLAS convention: a negative increment walks x from its far end */                  \
        int64_t x0 = incx < 0 ? -(len - 1) * incx : 0;                                         \
        RB_FOR_BATCH(F)                                                                        \
        {                                                                                      \
            const ct_ *a_ = (const ct_ *)RB_AT_##F(A, b), *x_ = (const ct_ *)RB_AT_##F(x, b);  \
            ct_ *c_ = (ct_ *)RB_AT_##F(C, b);                                                  \
            for (int64_t j = 0; j < n; j++)                                                    \
                for (int64_t i = 0; i < m; i++)                                                \
                    c_[i + j * ldC] = a_[i + j * ldA] * x_[x0 + (s == 'L' ? i : j) * incx];    \
        }                                                                                      \
        return rocblas_status_success;                                                         \
    }
RB_EACH_FORM(RB_DGMM, s, float)
RB_EACH_FORM(RB_DGMM, d, double)
RB_EACH_FORM(RB_DGMM, c, rocblas_float_complex)
RB_EACH_FORM(RB_DGMM, z, rocblas_double_complex)
