/* rocSOLVER reductions and auxiliaries on the CPU device, on LAPACK: gebrd (bidiagonal),
 * sytrd/hetrd (tridiagonal), orgbr/ungbr, orgtr/ungtr, ormtr/unmtr, lauum, laswp, and the
 * batched/strided forms of potrs. */
#include "blas_common.h"
#include "blas_lapack.h"
#include <rocsolver/rocsolver.h>

#include "blas_solver.h"

/* ---- gebrd: A = Q B P^H ---- */
#define RS_GEBRD(pre, T, R, dbl)                                                               \
    RB_API rocblas_status rocsolver_##pre##gebrd(rocblas_handle handle, const rocblas_int m,   \
                                                 const rocblas_int n, T *A,                    \
                                                 const rocblas_int lda, R *D, R *E, T *tauq,   \
                                                 T *taup)                                      \
    {                                                                                          \
        RS_CHECK_HANDLE;                                                                       \
        RS_CHECK(m < 0 || n < 0 || lda < m || lda < 1, invalid_size);                          \
        RS_QUERY_OR_ENTER(handle);                                                             \
        RS_CHECK(!m || !n, success);                                                           \
        RS_CHECK(!A || !D || !tauq || !taup || ((m < n ? m : n) > 1 && !E), invalid_pointer);  \
        RS_ENTER(handle);                                                                      \
        int m_ = m, n_ = n, la = lda, inf = 0;                                                 \
        RS_WITH_WORK(T, dbl, RS_GEBRD_CALL, pre);                                              \
        return rocblas_status_success;                                                         \
    }
#define RS_GEBRD_CALL(pre, w, lw)                                                              \
    LP(pre, gebrd)(&m_, &n_, V(A), &la, D, E, V(tauq), V(taup), V(w), lw, &inf)
RS_PLAIN(RS_GEBRD)

/* ---- orgbr/ungbr: Q or P^H of gebrd ---- */
#define RS_ORGBR(pre, T, R, dbl, name, lname)                                                  \
    RB_API rocblas_status rocsolver_##pre##name(                                               \
        rocblas_handle handle, const rocblas_storev storev, const rocblas_int m,               \
        const rocblas_int n, const rocblas_int k, T *A, const rocblas_int lda, T *ipiv)        \
    {                                                                                          \
        RS_CHECK_HANDLE;                                                                       \
        char v = storev == rocblas_column_wise ? 'Q' : storev == rocblas_row_wise ? 'P' : 0;   \
        RS_CHECK(!v, invalid_value);                                                           \
        bool bad = v == 'Q' ? (n > m || n < (m < k ? m : k)) : (m > n || m < (n < k ? n : k)); \
        RS_CHECK(m < 0 || n < 0 || k < 0 || lda < m || lda < 1 || bad, invalid_size);         \
        RS_QUERY_OR_ENTER(handle);                                                             \
        RS_CHECK(!m || !n, success);                                                           \
        RS_CHECK(!A || (k && !ipiv), invalid_pointer);                                         \
        RS_ENTER(handle);                                                                      \
        int m_ = m, n_ = n, k_ = k, la = lda, inf = 0;                                         \
        RS_WITH_WORK(T, dbl, RS_ORGBR_CALL, lname);                                            \
        return rocblas_status_success;                                                         \
    }
#define RS_ORGBR_CALL(lname, w, lw) lname(&v, &m_, &n_, &k_, V(A), &la, V(ipiv), V(w), lw, &inf)
RS_ORGBR(s, float, float, 0, orgbr, scipy_LAPACK_sorgbr)
RS_ORGBR(d, double, double, 1, orgbr, scipy_LAPACK_dorgbr)
RS_ORGBR(c, rocblas_float_complex, float, 0, ungbr, scipy_LAPACK_cungbr)
RS_ORGBR(z, rocblas_double_complex, double, 1, ungbr, scipy_LAPACK_zungbr)

/* ---- sytrd/hetrd: A = Q T Q^H with T tridiagonal (D, E) ---- */
#define RS_SYTRD(pre, T, R, dbl, name, lname)                                                  \
    RB_API rocblas_status rocsolver_##pre##name(rocblas_handle handle, const rocblas_fill uplo, \
                                                const rocblas_int n, T *A,                     \
                                                const rocblas_int lda, R *D, R *E, T *tau)     \
    {                                                                                          \
        RS_CHECK_HANDLE;                                                                       \
        char u = rb_fill(uplo);                                                                \
        RS_CHECK(!u, invalid_value);                                                           \
        RS_CHECK(n < 0 || lda < n || lda < 1, invalid_size);                                   \
        RS_QUERY_OR_ENTER(handle);                                                             \
        RS_CHECK(!n, success);                                                                 \
        RS_CHECK(!A || !D || (n > 1 && (!E || !tau)), invalid_pointer);                        \
        RS_ENTER(handle);                                                                      \
        int n_ = n, la = lda, inf = 0;                                                         \
        RS_WITH_WORK(T, dbl, RS_SYTRD_CALL, lname);                                            \
        return rocblas_status_success;                                                         \
    }
#define RS_SYTRD_CALL(lname, w, lw) lname(&u, &n_, V(A), &la, D, E, V(tau), V(w), lw, &inf)
RS_SYTRD(s, float, float, 0, sytrd, scipy_LAPACK_ssytrd)
RS_SYTRD(d, double, double, 1, sytrd, scipy_LAPACK_dsytrd)
RS_SYTRD(c, rocblas_float_complex, float, 0, hetrd, scipy_LAPACK_chetrd)
RS_SYTRD(z, rocblas_double_complex, double, 1, hetrd, scipy_LAPACK_zhetrd)

/* ---- orgtr/ungtr and ormtr/unmtr: the Q of sytrd/hetrd ---- */
#define RS_ORGTR(pre, T, R, dbl, name, lname)                                                  \
    RB_API rocblas_status rocsolver_##pre##name(rocblas_handle handle, const rocblas_fill uplo, \
                                                const rocblas_int n, T *A,                     \
                                                const rocblas_int lda, T *ipiv)                \
    {                                                                                          \
        RS_CHECK_HANDLE;                                                                       \
        char u = rb_fill(uplo);                                                                \
        RS_CHECK(!u, invalid_value);                                                           \
        RS_CHECK(n < 0 || lda < n || lda < 1, invalid_size);                                   \
        RS_QUERY_OR_ENTER(handle);                                                             \
        RS_CHECK(!n, success);                                                                 \
        RS_CHECK(!A || (n > 1 && !ipiv), invalid_pointer);                                     \
        RS_ENTER(handle);                                                                      \
        int n_ = n, la = lda, inf = 0;                                                         \
        RS_WITH_WORK(T, dbl, RS_ORGTR_CALL, lname);                                            \
        return rocblas_status_success;                                                         \
    }
#define RS_ORGTR_CALL(lname, w, lw) lname(&u, &n_, V(A), &la, V(ipiv), V(w), lw, &inf)
RS_ORGTR(s, float, float, 0, orgtr, scipy_LAPACK_sorgtr)
RS_ORGTR(d, double, double, 1, orgtr, scipy_LAPACK_dorgtr)
RS_ORGTR(c, rocblas_float_complex, float, 0, ungtr, scipy_LAPACK_cungtr)
RS_ORGTR(z, rocblas_double_complex, double, 1, ungtr, scipy_LAPACK_zungtr)

#define RS_ORMTR(pre, T, R, dbl, name, lname, cplx)                                            \
    RB_API rocblas_status rocsolver_##pre##name(                                               \
        rocblas_handle handle, const rocblas_side side, const rocblas_fill uplo,               \
        const rocblas_operation trans, const rocblas_int m, const rocblas_int n, T *A,         \
        const rocblas_int lda, T *ipiv, T *C, const rocblas_int ldc)                           \
    {                                                                                          \
        RS_CHECK_HANDLE;                                                                       \
        char s = rb_side(side), u = rb_fill(uplo), t = rb_op(trans);                           \
        RS_CHECK(!s || !u || !t || (cplx ? t == 'T' : t == 'C'), invalid_value);               \
        int64_t nq = s == 'L' ? m : n;                                                         \
        RS_CHECK(m < 0 || n < 0 || lda < nq || lda < 1 || ldc < m || ldc < 1, invalid_size);   \
        RS_QUERY_OR_ENTER(handle);                                                             \
        RS_CHECK(!m || !n, success);                                                           \
        RS_CHECK(!A || !C || (nq > 1 && !ipiv), invalid_pointer);                              \
        RS_ENTER(handle);                                                                      \
        int m_ = m, n_ = n, la = lda, lc = ldc, inf = 0;                                       \
        RS_WITH_WORK(T, dbl, RS_ORMTR_CALL, lname);                                            \
        return rocblas_status_success;                                                         \
    }
#define RS_ORMTR_CALL(lname, w, lw)                                                            \
    lname(&s, &u, &t, &m_, &n_, V(A), &la, V(ipiv), V(C), &lc, V(w), lw, &inf)
RS_ORMTR(s, float, float, 0, ormtr, scipy_LAPACK_sormtr, 0)
RS_ORMTR(d, double, double, 1, ormtr, scipy_LAPACK_dormtr, 0)
RS_ORMTR(c, rocblas_float_complex, float, 0, unmtr, scipy_LAPACK_cunmtr, 1)
RS_ORMTR(z, rocblas_double_complex, double, 1, unmtr, scipy_LAPACK_zunmtr, 1)

/* ---- lauum: U U^H or L^H L in place ---- */
#define RS_LAUUM(pre, T, R, dbl)                                                               \
    RB_API rocblas_status rocsolver_##pre##lauum(rocblas_handle handle, const rocblas_fill uplo, \
                                                 const rocblas_int n, T *A,                    \
                                                 const rocblas_int lda)                        \
    {                                                                                          \
        RS_CHECK_HANDLE;                                                                       \
        char u = rb_fill(uplo);                                                                \
        RS_CHECK(!u, invalid_value);                                                           \
        RS_CHECK(n < 0 || lda < n || lda < 1, invalid_size);                                   \
        RS_QUERY_OR_ENTER(handle);                                                             \
        RS_CHECK(!n, success);                                                                 \
        RS_CHECK(!A, invalid_pointer);                                                         \
        RS_ENTER(handle);                                                                      \
        int n_ = n, la = lda, inf = 0;                                                         \
        LPC(pre, lauum)(&u, &n_, V(A), &la, &inf);                                             \
        return rocblas_status_success;                                                         \
    }
RS_PLAIN(RS_LAUUM)

/* ---- laswp: row interchanges k1..k2 of ipiv (1-based) ---- */
#define RS_LASWP(pre, T, R, dbl)                                                               \
    RB_API rocblas_status rocsolver_##pre##laswp(rocblas_handle handle, const rocblas_int n,   \
                                                 T *A, const rocblas_int lda,                  \
                                                 const rocblas_int k1, const rocblas_int k2,   \
                                                 const rocblas_int *ipiv,                      \
                                                 const rocblas_int incx)                       \
    {                                                                                          \
        RS_CHECK_HANDLE;                                                                       \
        RS_CHECK(n < 0 || lda < 1 || !incx || k1 < 1 || k2 < k1, invalid_size);                \
        RS_QUERY_OR_ENTER(handle);                                                             \
        RS_CHECK(!n, success);                                                                 \
        RS_CHECK(!A || !ipiv, invalid_pointer);                                                \
        RS_ENTER(handle);                                                                      \
        int n_ = n, la = lda, a_ = k1, b_ = k2, ix = incx;                                     \
        LP(pre, laswp)(&n_, V(A), &la, &a_, &b_, ipiv, &ix);                                   \
        return rocblas_status_success;                                                         \
    }
RS_PLAIN(RS_LASWP)

/* ---- potrs, batched and strided ---- */
#define RS_POTRS_BATCH(F, pre, T)                                                              \
    RB_API rocblas_status RB_CAT5(rocsolver_, pre, potrs, RB_FSFX_##F, )(                      \
        rocblas_handle handle, const rocblas_fill uplo, const rocblas_int n,                   \
        const rocblas_int nrhs, RS_BA_##F(T, A), const rocblas_int lda RS_BS_##F(A),           \
        RS_BA_##F(T, B), const rocblas_int ldb RS_BS_##F(B), const rocblas_int batch_count)    \
    {                                                                                          \
        RS_CHECK_HANDLE;                                                                       \
        char u = rb_fill(uplo);                                                                \
        RS_CHECK(!u, invalid_value);                                                           \
        RS_CHECK(n < 0 || nrhs < 0 || lda < n || lda < 1 || ldb < n || ldb < 1 ||              \
                     batch_count < 0, invalid_size);                                           \
        RS_QUERY_OR_ENTER(handle);                                                             \
        RS_CHECK(!n || !nrhs || !batch_count, success);                                        \
        RS_CHECK(!A || !B, invalid_pointer);                                                   \
        RS_ENTER(handle);                                                                      \
        int n_ = n, r_ = nrhs, la = lda, lb = ldb, inf = 0;                                    \
        for (int64_t b = 0; b < batch_count; b++)                                              \
            LPC(pre, potrs)(&u, &n_, &r_, V(RB_AT_##F(A, b)), &la, V(RB_AT_##F(B, b)), &lb,    \
                            &inf);                                                             \
        return rocblas_status_success;                                                         \
    }
#define RS_BA_B(T, X) T *const X[]
#define RS_BA_S(T, X) T *X
#define RS_BS_B(X)
#define RS_BS_S(X) , const rocblas_stride stride##X
#define RS_POTRS_FORMS(F)                                                                      \
    RS_POTRS_BATCH(F, s, float) RS_POTRS_BATCH(F, d, double)                                   \
    RS_POTRS_BATCH(F, c, rocblas_float_complex) RS_POTRS_BATCH(F, z, rocblas_double_complex)
RS_POTRS_FORMS(B)
RS_POTRS_FORMS(S)
