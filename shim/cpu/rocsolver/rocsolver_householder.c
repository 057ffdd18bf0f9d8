/* rocSOLVER Householder and panel auxiliaries on the CPU device, on LAPACK: lacgv, larfg,
 * larf, larft, larfb, lasr, labrd, latrd, lasyf. */
#include "blas_common.h"
#include "blas_lapack.h"
#include <rocsolver/rocsolver.h>

#include "blas_solver.h"

static char rs_direct(rocblas_direct d)
{
    return d == rocblas_forward_direction ? 'F' : d == rocblas_backward_direction ? 'B' : 0;
}
static char rs_storev(rocblas_storev s)
{
    return s == rocblas_column_wise ? 'C' : s == rocblas_row_wise ? 'R' : 0;
}

#define RS_LACGV(pre, T)                                                                       \
    RB_API rocblas_status rocsolver_##pre##lacgv(rocblas_handle handle, const rocblas_int n,   \
                                                 T *x, const rocblas_int incx)                 \
    {                                                                                          \
        RS_CHECK_HANDLE;                                                                       \
        RS_CHECK(n < 0 || !incx, invalid_size);                                                \
        RS_QUERY_OR_ENTER(handle);                                                             \
        RS_CHECK(!n, success);                                                                 \
        RS_CHECK(!x, invalid_pointer);                                                         \
        RS_ENTER(handle);                                                                      \
        int n_ = n, ix = incx;                                                                 \
        LP(pre, lacgv)(&n_, V(x), &ix);                                                        \
        return rocblas_status_success;                                                         \
    }
RS_LACGV(c, rocblas_float_complex)
RS_LACGV(z, rocblas_double_complex)

#define RS_LARFG(pre, T, R, dbl)                                                               \
    RB_API rocblas_status rocsolver_##pre##larfg(rocblas_handle handle, const rocblas_int n,   \
                                                 T *alpha, T *x, const rocblas_int incx,       \
                                                 T *tau)                                       \
    {                                                                                          \
        RS_CHECK_HANDLE;                                                                       \
        RS_CHECK(n < 0 || incx < 1, invalid_size);                                             \
        RS_QUERY_OR_ENTER(handle);                                                             \
        RS_CHECK(!n, success);                                                                 \
        RS_CHECK(!alpha || !tau || (n > 1 && !x), invalid_pointer);                            \
        RS_ENTER(handle);                                                                      \
        int n_ = n, ix = incx;                                                                 \
        LP(pre, larfg)(&n_, V(alpha), V(x), &ix, V(tau));                                      \
        return rocblas_status_success;                                                         \
    }
RS_PLAIN(RS_LARFG)

/* larf: A = H A or A H with H = I - alpha x x^H */
#define RS_LARF(pre, T, R, dbl)                                                                \
    RB_API rocblas_status rocsolver_##pre##larf(rocblas_handle handle, const rocblas_side side, \
                                                const rocblas_int m, const rocblas_int n, T *x, \
                                                const rocblas_int incx, const T *alpha, T *A,  \
                                                const rocblas_int lda)                         \
    {                                                                                          \
        RS_CHECK_HANDLE;                                                                       \
        char s = rb_side(side);                                                                \
        RS_CHECK(!s, invalid_value);                                                           \
        RS_CHECK(m < 0 || n < 0 || !incx || lda < m || lda < 1, invalid_size);                 \
        RS_QUERY_OR_ENTER(handle);                                                             \
        RS_CHECK(!m || !n, success);                                                           \
        RS_CHECK(!x || !alpha || !A, invalid_pointer);                                         \
        RS_ENTER(handle);                                                                      \
        int m_ = m, n_ = n, ix = incx, la = lda;                                               \
        T *w = malloc(sizeof(T) * (size_t)(s == 'L' ? n : m));                                 \
        if (!w)                                                                                \
            return rocblas_status_memory_error;                                                \
        LPC(pre, larf)(&s, &m_, &n_, V(x), &ix, V(alpha), V(A), &la, V(w));                    \
        free(w);                                                                               \
        return rocblas_status_success;                                                         \
    }
RS_PLAIN(RS_LARF)

#define RS_LARFT(pre, T, R, dbl)                                                               \
    RB_API rocblas_status rocsolver_##pre##larft(                                              \
        rocblas_handle handle, const rocblas_direct direct, const rocblas_storev storev,       \
        const rocblas_int n, const rocblas_int k, T *Vm, const rocblas_int ldv, T *tau, T *Tm, \
        const rocblas_int ldt)                                                                 \
    {                                                                                          \
        RS_CHECK_HANDLE;                                                                       \
        char d = rs_direct(direct), sv = rs_storev(storev);                                    \
        RS_CHECK(!d || !sv, invalid_value);                                                    \
        RS_CHECK(n < 0 || k < 1 || ldt < k || (sv == 'C' ? ldv < n : ldv < k) || ldv < 1,      \
                 invalid_size);                                                                \
        RS_QUERY_OR_ENTER(handle);                                                             \
        RS_CHECK(!n, success);                                                                 \
        RS_CHECK(!Vm || !tau || !Tm, invalid_pointer);                                         \
        RS_ENTER(handle);                                                                      \
        int n_ = n, k_ = k, lv = ldv, lt = ldt;                                                \
        LPC(pre, larft)(&d, &sv, &n_, &k_, V(Vm), &lv, V(tau), V(Tm), &lt);                    \
        return rocblas_status_success;                                                         \
    }
RS_PLAIN(RS_LARFT)

#define RS_LARFB(pre, T, R, dbl)                                                               \
    RB_API rocblas_status rocsolver_##pre##larfb(                                              \
        rocblas_handle handle, const rocblas_side side, const rocblas_operation trans,         \
        const rocblas_direct direct, const rocblas_storev storev, const rocblas_int m,         \
        const rocblas_int n, const rocblas_int k, T *Vm, const rocblas_int ldv, T *Tm,         \
        const rocblas_int ldt, T *A, const rocblas_int lda)                                    \
    {                                                                                          \
        RS_CHECK_HANDLE;                                                                       \
        char s = rb_side(side), t = rb_op(trans), d = rs_direct(direct), sv = rs_storev(storev); \
        RS_CHECK(!s || !t || !d || !sv, invalid_value);                                        \
        int64_t nq = s == 'L' ? m : n;                                                         \
        RS_CHECK(m < 0 || n < 0 || k < 1 || ldt < k || lda < m || lda < 1 ||                   \
                     (sv == 'C' ? ldv < nq : ldv < k) || ldv < 1,                              \
                 invalid_size);                                                                \
        RS_QUERY_OR_ENTER(handle);                                                             \
        RS_CHECK(!m || !n, success);                                                           \
        RS_CHECK(!Vm || !Tm || !A, invalid_pointer);                                           \
        RS_ENTER(handle);                                                                      \
        int m_ = m, n_ = n, k_ = k, lv = ldv, lt = ldt, la = lda;                              \
        int lw = (int)(s == 'L' ? n : m);                                                      \
        T *w = malloc(sizeof(T) * (size_t)lw * (size_t)k);                                     \
        if (!w)                                                                                \
            return rocblas_status_memory_error;                                                \
        LPC(pre, larfb)(&s, &t, &d, &sv, &m_, &n_, &k_, V(Vm), &lv, V(Tm), &lt, V(A), &la,      \
                        V(w), &lw);                                                            \
        free(w);                                                                               \
        return rocblas_status_success;                                                         \
    }
RS_PLAIN(RS_LARFB)

/* lasr: a sequence of plane rotations (real c, s) applied to A */
#define RS_LASR(pre, T, R, dbl)                                                                \
    RB_API rocblas_status rocsolver_##pre##lasr(                                               \
        rocblas_handle handle, const rocblas_side side, const rocblas_pivot pivot,             \
        const rocblas_direct direct, const rocblas_int m, const rocblas_int n, R *C, R *S,     \
        T *A, const rocblas_int lda)                                                           \
    {                                                                                          \
        RS_CHECK_HANDLE;                                                                       \
        char s = rb_side(side), d = rs_direct(direct);                                         \
        char p = pivot == rocblas_pivot_variable ? 'V' : pivot == rocblas_pivot_top ? 'T'      \
               : pivot == rocblas_pivot_bottom ? 'B' : 0;                                      \
        RS_CHECK(!s || !p || !d, invalid_value);                                               \
        RS_CHECK(m < 0 || n < 0 || lda < m || lda < 1, invalid_size);                          \
        RS_QUERY_OR_ENTER(handle);                                                             \
        RS_CHECK(!m || !n, success);                                                           \
        RS_CHECK(!C || !S || !A, invalid_pointer);                                             \
        RS_ENTER(handle);                                                                      \
        int m_ = m, n_ = n, la = lda;                                                          \
        scipy_##pre##lasr_(&s, &p, &d, &m_, &n_, C, S, V(A), &la);                                 \
        return rocblas_status_success;                                                         \
    }
RS_PLAIN(RS_LASR)

/* labrd: the first k steps of the bidiagonal reduction, with the X, Y panels */
#define RS_LABRD(pre, T, R, dbl)                                                               \
    RB_API rocblas_status rocsolver_##pre##labrd(                                              \
        rocblas_handle handle, const rocblas_int m, const rocblas_int n, const rocblas_int k,  \
        T *A, const rocblas_int lda, R *D, R *E, T *tauq, T *taup, T *X, const rocblas_int ldx, \
        T *Y, const rocblas_int ldy)                                                           \
    {                                                                                          \
        RS_CHECK_HANDLE;                                                                       \
        RS_CHECK(m < 0 || n < 0 || k < 0 || k > (m < n ? m : n) || lda < m || lda < 1 ||       \
                     ldx < m || ldx < 1 || ldy < n || ldy < 1,                                 \
                 invalid_size);                                                                \
        RS_QUERY_OR_ENTER(handle);                                                             \
        RS_CHECK(!m || !n || !k, success);                                                     \
        RS_CHECK(!A || !D || !E || !tauq || !taup || !X || !Y, invalid_pointer);               \
        RS_ENTER(handle);                                                                      \
        int m_ = m, n_ = n, k_ = k, la = lda, lx = ldx, ly = ldy;                              \
        scipy_##pre##labrd_(&m_, &n_, &k_, V(A), &la, D, E, V(tauq), V(taup), V(X), &lx, V(Y), &ly); \
        return rocblas_status_success;                                                         \
    }
RS_PLAIN(RS_LABRD)

/* latrd: k steps of the tridiagonal reduction with the W panel */
#define RS_LATRD(pre, T, R, dbl)                                                               \
    RB_API rocblas_status rocsolver_##pre##latrd(                                              \
        rocblas_handle handle, const rocblas_fill uplo, const rocblas_int n,                   \
        const rocblas_int k, T *A, const rocblas_int lda, R *E, T *tau, T *W,                  \
        const rocblas_int ldw)                                                                 \
    {                                                                                          \
        RS_CHECK_HANDLE;                                                                       \
        char u = rb_fill(uplo);                                                                \
        RS_CHECK(!u, invalid_value);                                                           \
        RS_CHECK(n < 0 || k < 0 || k > n || lda < n || lda < 1 || ldw < n || ldw < 1,          \
                 invalid_size);                                                                \
        RS_QUERY_OR_ENTER(handle);                                                             \
        RS_CHECK(!n || !k, success);                                                           \
        RS_CHECK(!A || !E || !tau || !W, invalid_pointer);                                     \
        RS_ENTER(handle);                                                                      \
        int n_ = n, k_ = k, la = lda, lw = ldw;                                                \
        scipy_##pre##latrd_(&u, &n_, &k_, V(A), &la, E, V(tau), V(W), &lw);                        \
        return rocblas_status_success;                                                         \
    }
RS_PLAIN(RS_LATRD)

/* lasyf: a panel of the Bunch-Kaufman factorization (kb columns done) */
#define RS_LASYF(pre, T, R, dbl)                                                               \
    RB_API rocblas_status rocsolver_##pre##lasyf(                                              \
        rocblas_handle handle, const rocblas_fill uplo, const rocblas_int n,                   \
        const rocblas_int nb, rocblas_int *kb, T *A, const rocblas_int lda, rocblas_int *ipiv, \
        rocblas_int *info)                                                                     \
    {                                                                                          \
        RS_CHECK_HANDLE;                                                                       \
        char u = rb_fill(uplo);                                                                \
        RS_CHECK(!u, invalid_value);                                                           \
        RS_CHECK(n < 0 || nb < 0 || lda < n || lda < 1, invalid_size);                         \
        RS_QUERY_OR_ENTER(handle);                                                             \
        RS_CHECK(!kb || !info || (n && (!A || !ipiv)), invalid_pointer);                       \
        RS_ENTER(handle);                                                                      \
        int n_ = n, nb_ = nb < 2 ? 2 : nb, la = lda, kb_ = 0, inf = 0;                         \
        if (n) {                                                                               \
            T *w = malloc(sizeof(T) * (size_t)n_ * (size_t)nb_);                               \
            if (!w)                                                                            \
                return rocblas_status_memory_error;                                            \
            scipy_##pre##lasyf_(&u, &n_, &nb_, &kb_, V(A), &la, ipiv, V(w), &n_, &inf);            \
            free(w);                                                                           \
        }                                                                                      \
        *kb = kb_;                                                                             \
        *info = inf;                                                                           \
        return rocblas_status_success;                                                         \
    }
RS_PLAIN(RS_LASYF)
