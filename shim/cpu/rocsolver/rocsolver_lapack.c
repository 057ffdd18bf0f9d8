/* rocSOLVER on the CPU device, on LAPACK from scipy-openblas32: getrf (+_npvt), getrs,
 * getri, potrf, potrs, potri, geqrf, orgqr/ungqr, ormqr/unmqr, gesvd, syev/heev,
 * syevd/heevd, sytrf and gels in s/d/c/z, plus the _batched/_strided_batched forms of
 * getrf, getrs and potrf.
 *
 * rocSOLVER has no user workspace argument: LAPACK's work arrays are allocated here, so a
 * device-memory size query reports no workspace (rocblas_status_size_unchanged). As in
 * rocSOLVER, a size query returns after the value and size checks and before the pointer
 * checks, so hipSOLVER-style `bufferSize` calls may pass null arrays. `info` and `ipiv` are
 * "device" pointers (host memory here); pivots are 1-based as in LAPACK. */
#include <complex.h>
#include <stdlib.h>
#include <string.h>

#include "blas_common.h"
#include "blas_lapack.h"
#include <rocsolver/rocsolver.h>

#include "blas_solver.h"

/* orgqr/ungqr etc.: real and complex spell them differently */
#define RS_ORG_s sorgqr
#define RS_ORG_d dorgqr
#define RS_ORG_c cungqr
#define RS_ORG_z zungqr

/* ---- LU ---- */
#define RS_GETRF(F, pre, T)                                                                    \
    RB_API rocblas_status RB_CAT5(rocsolver_, pre, getrf, RB_FSFX_##F, )(                      \
        rocblas_handle handle, const rocblas_int m, const rocblas_int n, RS_A_##F(T),          \
        rocblas_int *ipiv RS_PSTRIDE_##F, rocblas_int *info RB_BC_##F(const rocblas_int))      \
    {                                                                                          \
        RS_CHECK_HANDLE;                                                                       \
        RS_CHECK(m < 0 || n < 0 || lda < m || lda < 1 || RB_NB_##F < 0, invalid_size);         \
        RS_QUERY_OR_ENTER(handle);                                                             \
        RS_CHECK(!RB_NB_##F, success);                                                         \
        RS_CHECK((m && n && (!A || !ipiv)) || !info, invalid_pointer);                         \
        RS_ENTER(handle);                                                                      \
        int m_ = m, n_ = n, la = lda;                                                          \
        for (int64_t b = 0; b < RB_NB_##F; b++) {                                              \
            int inf = 0;                                                                       \
            if (m && n)                                                                        \
                LP(pre, getrf)(&m_, &n_, V(RB_AT_##F(A, b)), &la, RS_IPIV_##F(b), &inf);       \
            info[b] = inf;                                                                     \
        }                                                                                      \
        return rocblas_status_success;                                                         \
    }
/* forms: rocSOLVER's batched/strided LU shares one ipiv array with a stride */
#define RS_A_P(T) T *A, const rocblas_int lda
#define RS_A_B(T) T *const A[], const rocblas_int lda
#define RS_A_S(T) T *A, const rocblas_int lda, const rocblas_stride strideA
#define RS_PSTRIDE_P
#define RS_PSTRIDE_B , const rocblas_stride strideP
#define RS_PSTRIDE_S , const rocblas_stride strideP
#define RS_IPIV_P(b) ipiv
#define RS_IPIV_B(b) (ipiv + (b) * strideP)
#define RS_IPIV_S(b) (ipiv + (b) * strideP)
#define RS_FORMS(M, ...) M(P, __VA_ARGS__) M(B, __VA_ARGS__) M(S, __VA_ARGS__)
#define RS_PRECS(M, F) M(F, s, float) M(F, d, double) M(F, c, rocblas_float_complex) \
    M(F, z, rocblas_double_complex)
#define RS_ALL(M) RS_PRECS(M, P) RS_PRECS(M, B) RS_PRECS(M, S)
RS_ALL(RS_GETRF)

/* LU without pivoting (LAPACK has none): right-looking, unblocked */
#define RS_CT_s float
#define RS_CT_d double
#define RS_CT_c float _Complex
#define RS_CT_z double _Complex
#define RS_GETRF_NPVT(F, pre, T)                                                               \
    RB_API rocblas_status RB_CAT5(rocsolver_, pre, getrf_npvt, RB_FSFX_##F, )(                 \
        rocblas_handle handle, const rocblas_int m, const rocblas_int n, RS_A_##F(T),          \
        rocblas_int *info RB_BC_##F(const rocblas_int))                                        \
    {                                                                                          \
        RS_CHECK_HANDLE;                                                                       \
        RS_CHECK(m < 0 || n < 0 || lda < m || lda < 1 || RB_NB_##F < 0, invalid_size);         \
        RS_QUERY_OR_ENTER(handle);                                                             \
        RS_CHECK(!RB_NB_##F, success);                                                         \
        RS_CHECK((m && n && !A) || !info, invalid_pointer);                                    \
        RS_ENTER(handle);                                                                      \
        typedef RS_CT_##pre ct_;                                                               \
        for (int64_t b = 0; b < RB_NB_##F; b++) {                                              \
            ct_ *a = (ct_ *)RB_AT_##F(A, b);                                                   \
            int inf = 0;                                                                       \
            for (int64_t j = 0; j < (m < n ? m : n); j++) {                                    \
                ct_ p = a[j + j * lda];                                                        \
                if (p == 0) {                                                                  \
                    if (!inf)                                                                  \
                        inf = (int)j + 1;                                                      \
                    continue;                                                                  \
                }                                                                              \
                for (int64_t i = j + 1; i < m; i++)                                            \
                    a[i + j * lda] /= p;                                                       \
                for (int64_t c = j + 1; c < n; c++)                                            \
                    for (int64_t i = j + 1; i < m; i++)                                        \
                        a[i + c * lda] -= a[i + j * lda] * a[j + c * lda];                     \
            }                                                                                  \
            info[b] = inf;                                                                     \
        }                                                                                      \
        return rocblas_status_success;                                                         \
    }
RS_ALL(RS_GETRF_NPVT)

#define RS_B_P(T) T *B, const rocblas_int ldb
#define RS_B_B(T) T *const B[], const rocblas_int ldb
#define RS_B_S(T) T *B, const rocblas_int ldb, const rocblas_stride strideB
#define RS_GETRS(F, pre, T)                                                                    \
    RB_API rocblas_status RB_CAT5(rocsolver_, pre, getrs, RB_FSFX_##F, )(                      \
        rocblas_handle handle, const rocblas_operation trans, const rocblas_int n,             \
        const rocblas_int nrhs, RS_A_##F(T), const rocblas_int *ipiv RS_PSTRIDE_##F,           \
        RS_B_##F(T) RB_BC_##F(const rocblas_int))                                              \
    {                                                                                          \
        RS_CHECK_HANDLE;                                                                       \
        char t = rb_op(trans);                                                                 \
        RS_CHECK(!t, invalid_value);                                                           \
        RS_CHECK(n < 0 || nrhs < 0 || lda < n || lda < 1 || ldb < n || ldb < 1 ||              \
                     RB_NB_##F < 0, invalid_size);                                             \
        RS_QUERY_OR_ENTER(handle);                                                             \
        RS_CHECK(!n || !nrhs || !RB_NB_##F, success);                                          \
        RS_CHECK(!A || !ipiv || !B, invalid_pointer);                                          \
        RS_ENTER(handle);                                                                      \
        int n_ = n, r_ = nrhs, la = lda, lb = ldb, inf = 0;                                    \
        for (int64_t b = 0; b < RB_NB_##F; b++)                                                \
            LPC(pre, getrs)(&t, &n_, &r_, V(RB_AT_##F(A, b)), &la, (int *)RS_IPIV_##F(b),       \
                           V(RB_AT_##F(B, b)), &lb, &inf);                                     \
        return rocblas_status_success;                                                         \
    }
RS_ALL(RS_GETRS)

/* ---- Cholesky ---- */
#define RS_POTRF(F, pre, T)                                                                    \
    RB_API rocblas_status RB_CAT5(rocsolver_, pre, potrf, RB_FSFX_##F, )(                      \
        rocblas_handle handle, const rocblas_fill uplo, const rocblas_int n, RS_A_##F(T),      \
        rocblas_int *info RB_BC_##F(const rocblas_int))                                        \
    {                                                                                          \
        RS_CHECK_HANDLE;                                                                       \
        char u = rb_fill(uplo);                                                                \
        RS_CHECK(!u, invalid_value);                                                           \
        RS_CHECK(n < 0 || lda < n || lda < 1 || RB_NB_##F < 0, invalid_size);                  \
        RS_QUERY_OR_ENTER(handle);                                                             \
        RS_CHECK(!RB_NB_##F, success);                                                         \
        RS_CHECK((n && !A) || !info, invalid_pointer);                                         \
        RS_ENTER(handle);                                                                      \
        int n_ = n, la = lda;                                                                  \
        for (int64_t b = 0; b < RB_NB_##F; b++) {                                              \
            int inf = 0;                                                                       \
            if (n)                                                                             \
                LPC(pre, potrf)(&u, &n_, V(RB_AT_##F(A, b)), &la, &inf);                        \
            info[b] = inf;                                                                     \
        }                                                                                      \
        return rocblas_status_success;                                                         \
    }
RS_ALL(RS_POTRF)

#define RS_POTRS(pre, T, R, dbl)                                                               \
    RB_API rocblas_status rocsolver_##pre##potrs(rocblas_handle handle, const rocblas_fill uplo, \
                                                 const rocblas_int n, const rocblas_int nrhs,  \
                                                 T *A, const rocblas_int lda, T *B,            \
                                                 const rocblas_int ldb)                        \
    {                                                                                          \
        RS_CHECK_HANDLE;                                                                       \
        char u = rb_fill(uplo);                                                                \
        RS_CHECK(!u, invalid_value);                                                           \
        RS_CHECK(n < 0 || nrhs < 0 || lda < n || lda < 1 || ldb < n || ldb < 1, invalid_size); \
        RS_QUERY_OR_ENTER(handle);                                                             \
        RS_CHECK(!n || !nrhs, success);                                                        \
        RS_CHECK(!A || !B, invalid_pointer);                                                   \
        RS_ENTER(handle);                                                                      \
        int n_ = n, r_ = nrhs, la = lda, lb = ldb, inf = 0;                                    \
        LPC(pre, potrs)(&u, &n_, &r_, V(A), &la, V(B), &lb, &inf);                              \
        return rocblas_status_success;                                                         \
    }
RS_PLAIN(RS_POTRS)

#define RS_POTRI(pre, T, R, dbl)                                                               \
    RB_API rocblas_status rocsolver_##pre##potri(rocblas_handle handle, const rocblas_fill uplo, \
                                                 const rocblas_int n, T *A,                    \
                                                 const rocblas_int lda, rocblas_int *info)     \
    {                                                                                          \
        RS_CHECK_HANDLE;                                                                       \
        char u = rb_fill(uplo);                                                                \
        RS_CHECK(!u, invalid_value);                                                           \
        RS_CHECK(n < 0 || lda < n || lda < 1, invalid_size);                                   \
        RS_QUERY_OR_ENTER(handle);                                                             \
        RS_CHECK((n && !A) || !info, invalid_pointer);                                         \
        RS_ENTER(handle);                                                                      \
        int n_ = n, la = lda, inf = 0;                                                         \
        if (n)                                                                                 \
            LPC(pre, potri)(&u, &n_, V(A), &la, &inf);                                          \
        *info = inf;                                                                           \
        return rocblas_status_success;                                                         \
    }
RS_PLAIN(RS_POTRI)

#define RS_GETRI(pre, T, R, dbl)                                                               \
    RB_API rocblas_status rocsolver_##pre##getri(rocblas_handle handle, const rocblas_int n,   \
                                                 T *A, const rocblas_int lda,                  \
                                                 rocblas_int *ipiv, rocblas_int *info)         \
    {                                                                                          \
        RS_CHECK_HANDLE;                                                                       \
        RS_CHECK(n < 0 || lda < n || lda < 1, invalid_size);                                   \
        RS_QUERY_OR_ENTER(handle);                                                             \
        RS_CHECK((n && (!A || !ipiv)) || !info, invalid_pointer);                              \
        RS_ENTER(handle);                                                                      \
        int n_ = n, la = lda, inf = 0;                                                         \
        if (n) {                                                                               \
            RS_WITH_WORK(T, dbl, RS_GETRI_CALL, pre);                                          \
        }                                                                                      \
        *info = inf;                                                                           \
        return rocblas_status_success;                                                         \
    }
#define RS_GETRI_CALL(pre, w, lw) LP(pre, getri)(&n_, V(A), &la, ipiv, V(w), lw, &inf)
RS_PLAIN(RS_GETRI)

/* ---- QR ---- */
#define RS_GEQRF(pre, T, R, dbl)                                                               \
    RB_API rocblas_status rocsolver_##pre##geqrf(rocblas_handle handle, const rocblas_int m,   \
                                                 const rocblas_int n, T *A,                    \
                                                 const rocblas_int lda, T *ipiv)               \
    {                                                                                          \
        RS_CHECK_HANDLE;                                                                       \
        RS_CHECK(m < 0 || n < 0 || lda < m || lda < 1, invalid_size);                          \
        RS_QUERY_OR_ENTER(handle);                                                             \
        RS_CHECK(!m || !n, success);                                                           \
        RS_CHECK(!A || !ipiv, invalid_pointer);                                                \
        RS_ENTER(handle);                                                                      \
        int m_ = m, n_ = n, la = lda, inf = 0;                                                 \
        RS_WITH_WORK(T, dbl, RS_GEQRF_CALL, pre);                                                   \
        return rocblas_status_success;                                                         \
    }
#define RS_GEQRF_CALL(pre, w, lw) LP(pre, geqrf)(&m_, &n_, V(A), &la, V(ipiv), V(w), lw, &inf)
RS_PLAIN(RS_GEQRF)

#define RS_ORGQR(pre, T, R, dbl, name, lname)                                                  \
    RB_API rocblas_status rocsolver_##pre##name(rocblas_handle handle, const rocblas_int m,    \
                                                const rocblas_int n, const rocblas_int k,      \
                                                T *A, const rocblas_int lda, T *ipiv)          \
    {                                                                                          \
        RS_CHECK_HANDLE;                                                                       \
        RS_CHECK(m < 0 || n < 0 || n > m || k < 0 || k > n || lda < m || lda < 1,              \
                 invalid_size);                                                                \
        RS_QUERY_OR_ENTER(handle);                                                             \
        RS_CHECK(!n, success);                                                                 \
        RS_CHECK(!A || (k && !ipiv), invalid_pointer);                                         \
        RS_ENTER(handle);                                                                      \
        int m_ = m, n_ = n, k_ = k, la = lda, inf = 0;                                         \
        RS_WITH_WORK(T, dbl, RS_ORGQR_CALL, lname);                                                   \
        return rocblas_status_success;                                                         \
    }
#define RS_ORGQR_CALL(lname, w, lw) lname(&m_, &n_, &k_, V(A), &la, V(ipiv), V(w), lw, &inf)
RS_ORGQR(s, float, float, 0, orgqr, LAPACK_sorgqr)
RS_ORGQR(d, double, double, 1, orgqr, LAPACK_dorgqr)
RS_ORGQR(c, rocblas_float_complex, float, 0, ungqr, LAPACK_cungqr)
RS_ORGQR(z, rocblas_double_complex, double, 1, ungqr, LAPACK_zungqr)

#define RS_ORMQR(pre, T, R, dbl, name, lname, cplx)                                            \
    RB_API rocblas_status rocsolver_##pre##name(                                               \
        rocblas_handle handle, const rocblas_side side, const rocblas_operation trans,         \
        const rocblas_int m, const rocblas_int n, const rocblas_int k, T *A,                   \
        const rocblas_int lda, T *ipiv, T *C, const rocblas_int ldc)                           \
    {                                                                                          \
        RS_CHECK_HANDLE;                                                                       \
        char s = rb_side(side), t = rb_op(trans);                                              \
        RS_CHECK(!s || !t || (cplx ? t == 'T' : t == 'C'), invalid_value);                     \
        int64_t nq = s == 'L' ? m : n;                                                         \
        RS_CHECK(m < 0 || n < 0 || k < 0 || k > nq || lda < nq || lda < 1 || ldc < m ||        \
                     ldc < 1, invalid_size);                                                   \
        RS_QUERY_OR_ENTER(handle);                                                             \
        RS_CHECK(!m || !n || !k, success);                                                     \
        RS_CHECK(!A || !ipiv || !C, invalid_pointer);                                          \
        RS_ENTER(handle);                                                                      \
        int m_ = m, n_ = n, k_ = k, la = lda, lc = ldc, inf = 0;                               \
        RS_WITH_WORK(T, dbl, RS_ORMQR_CALL, lname);                                                   \
        return rocblas_status_success;                                                         \
    }
#define RS_ORMQR_CALL(lname, w, lw)                                                                   \
    lname(&s, &t, &m_, &n_, &k_, V(A), &la, V(ipiv), V(C), &lc, V(w), lw, &inf)
RS_ORMQR(s, float, float, 0, ormqr, scipy_LAPACK_sormqr, 0)
RS_ORMQR(d, double, double, 1, ormqr, scipy_LAPACK_dormqr, 0)
RS_ORMQR(c, rocblas_float_complex, float, 0, unmqr, scipy_LAPACK_cunmqr, 1)
RS_ORMQR(z, rocblas_double_complex, double, 1, unmqr, scipy_LAPACK_zunmqr, 1)

/* ---- least squares ---- */
#define RS_GELS(pre, T, R, dbl)                                                                \
    RB_API rocblas_status rocsolver_##pre##gels(                                               \
        rocblas_handle handle, rocblas_operation trans, const rocblas_int m,                   \
        const rocblas_int n, const rocblas_int nrhs, T *A, const rocblas_int lda, T *B,        \
        const rocblas_int ldb, rocblas_int *info)                                              \
    {                                                                                          \
        RS_CHECK_HANDLE;                                                                       \
        char t = rb_op(trans);                                                                 \
        RS_CHECK(!t, invalid_value);                                                           \
        RS_CHECK(m < 0 || n < 0 || nrhs < 0 || lda < m || lda < 1 || ldb < m || ldb < n ||     \
                     ldb < 1, invalid_size);                                                   \
        RS_QUERY_OR_ENTER(handle);                                                             \
        RS_CHECK(!info || (m && n && !A) || (nrhs && (m || n) && !B), invalid_pointer);        \
        RS_ENTER(handle);                                                                      \
        int m_ = m, n_ = n, r_ = nrhs, la = lda, lb = ldb, inf = 0;                            \
        RS_WITH_WORK(T, dbl, RS_GELS_CALL, pre);                                                    \
        *info = inf;                                                                           \
        return rocblas_status_success;                                                         \
    }
#define RS_GELS_CALL(pre, w, lw) LPC(pre, gels)(&t, &m_, &n_, &r_, V(A), &la, V(B), &lb, V(w), lw, &inf)
RS_PLAIN(RS_GELS)

/* ---- symmetric indefinite factorisation ---- */
#define RS_SYTRF(pre, T, R, dbl)                                                               \
    RB_API rocblas_status rocsolver_##pre##sytrf(rocblas_handle handle, const rocblas_fill uplo, \
                                                 const rocblas_int n, T *A,                    \
                                                 const rocblas_int lda, rocblas_int *ipiv,     \
                                                 rocblas_int *info)                            \
    {                                                                                          \
        RS_CHECK_HANDLE;                                                                       \
        char u = rb_fill(uplo);                                                                \
        RS_CHECK(!u, invalid_value);                                                           \
        RS_CHECK(n < 0 || lda < n || lda < 1, invalid_size);                                   \
        RS_QUERY_OR_ENTER(handle);                                                             \
        RS_CHECK((n && (!A || !ipiv)) || !info, invalid_pointer);                              \
        RS_ENTER(handle);                                                                      \
        int n_ = n, la = lda, inf = 0;                                                         \
        if (n)                                                                                 \
            RS_WITH_WORK(T, dbl, RS_SYTRF_CALL, pre);                                               \
        *info = inf;                                                                           \
        return rocblas_status_success;                                                         \
    }
#define RS_SYTRF_CALL(pre, w, lw) LPC(pre, sytrf)(&u, &n_, V(A), &la, ipiv, V(w), lw, &inf)
RS_PLAIN(RS_SYTRF)

/* ---- SVD: E receives the unconverged superdiagonal (LAPACK leaves it in work[1..]) ---- */
#define RS_GESVD(pre, T, R, dbl, cplx)                                                         \
    RB_API rocblas_status rocsolver_##pre##gesvd(                                              \
        rocblas_handle handle, const rocblas_svect left_svect, const rocblas_svect right_svect, \
        const rocblas_int m, const rocblas_int n, T *A, const rocblas_int lda, R *S, T *U,     \
        const rocblas_int ldu, T *V, const rocblas_int ldv, R *E,                              \
        const rocblas_workmode fast_alg, rocblas_int *info)                                    \
    {                                                                                          \
        RS_CHECK_HANDLE;                                                                       \
        char ju = rs_svect(left_svect), jv = rs_svect(right_svect);                            \
        RS_CHECK(!ju || !jv || (ju == 'O' && jv == 'O') ||                                     \
                     (fast_alg != rocblas_outofplace && fast_alg != rocblas_inplace),          \
                 invalid_value);                                                               \
        int64_t mn = m < n ? m : n;                                                            \
        RS_CHECK(m < 0 || n < 0 || lda < m || lda < 1 || ldu < 1 || ldv < 1 ||                 \
                     ((ju == 'A' || ju == 'S') && ldu < m) ||                                  \
                     (jv == 'A' && ldv < n) || (jv == 'S' && ldv < mn),                        \
                 invalid_size);                                                                \
        RS_QUERY_OR_ENTER(handle);                                                             \
        RS_CHECK(!info || (m && n && (!A || !S || (mn > 1 && !E))) ||                          \
                     ((ju == 'A' || ju == 'S') && m && !U) ||                                  \
                     ((jv == 'A' || jv == 'S') && n && !V),                                    \
                 invalid_pointer);                                                             \
        RS_ENTER(handle);                                                                      \
        int m_ = m, n_ = n, la = lda, lu = ldu, lv = ldv, inf = 0;                             \
        if (!m || !n) {                                                                        \
            *info = 0;                                                                         \
            return rocblas_status_success;                                                     \
        }                                                                                      \
        R *rw = cplx ? malloc(sizeof(R) * (size_t)(5 * mn + 1)) : NULL;                        \
        if (cplx && !rw)                                                                       \
            return rocblas_status_memory_error;                                                \
        T q_[1];                                                                               \
        int lw = -1;                                                                           \
        RS_GESVD_CALL_##cplx(pre, q_, &lw);                                                    \
        lw = rs_lwork_from(q_, dbl);                                                           \
        if (lw < 5 * mn + 1)                                                                   \
            lw = (int)(5 * mn + 1);                                                            \
        T *w = malloc(sizeof(T) * (size_t)lw);                                                 \
        if (!w) {                                                                              \
            free(rw);                                                                          \
            return rocblas_status_memory_error;                                                \
        }                                                                                      \
        RS_GESVD_CALL_##cplx(pre, w, &lw);                                                     \
        for (int64_t i = 0; i + 1 < mn; i++)                                                   \
            E[i] = cplx ? rw[i] : ((R *)w)[i + 1];                                             \
        free(w);                                                                               \
        free(rw);                                                                              \
        *info = inf;                                                                           \
        return rocblas_status_success;                                                         \
    }
#define RS_GESVD_CALL_0(pre, w, lw)                                                            \
    LPC(pre, gesvd)(&ju, &jv, &m_, &n_, V(A), &la, S, V(U), &lu, V(V), &lv, V(w), lw, &inf)
#define RS_GESVD_CALL_1(pre, w, lw)                                                            \
    LPC(pre, gesvd)(&ju, &jv, &m_, &n_, V(A), &la, S, V(U), &lu, V(V), &lv, V(w), lw, rw, &inf)
RS_GESVD(s, float, float, 0, 0)
RS_GESVD(d, double, double, 1, 0)
RS_GESVD(c, rocblas_float_complex, float, 0, 1)
RS_GESVD(z, rocblas_double_complex, double, 1, 1)

/* ---- symmetric/Hermitian eigenproblems: syev/heev, syevd/heevd ---- */
#define RS_EIG(pre, T, R, dbl, name, lname, cplx)                                              \
    RB_API rocblas_status rocsolver_##pre##name(                                               \
        rocblas_handle handle, const rocblas_evect evect, const rocblas_fill uplo,             \
        const rocblas_int n, T *A, const rocblas_int lda, R *D, R *E, rocblas_int *info)       \
    {                                                                                          \
        RS_CHECK_HANDLE;                                                                       \
        char u = rb_fill(uplo);                                                                \
        char jz = evect == rocblas_evect_original ? 'V' : evect == rocblas_evect_none ? 'N' : 0; \
        RS_CHECK(!u || !jz, invalid_value);                                                    \
        RS_CHECK(n < 0 || lda < n || lda < 1, invalid_size);                                   \
        RS_QUERY_OR_ENTER(handle);                                                             \
        RS_CHECK(!info || (n && (!A || !D || !E)), invalid_pointer);                           \
        RS_ENTER(handle);                                                                      \
        int n_ = n, la = lda, inf = 0;                                                         \
        if (n) {                                                                               \
            rocblas_status st_ = RS_EIG_RUN_##cplx(lname, T, R, dbl);                          \
            if (st_ != rocblas_status_success)                                                 \
                return st_;                                                                    \
            memset(E, 0, sizeof(R) * (size_t)n); /* tridiagonal workspace in rocSOLVER */     \
        }                                                                                      \
        *info = inf;                                                                           \
        return rocblas_status_success;                                                         \
    }
/* generous fixed workspaces cover syev/syevd/heev/heevd without a second query */
#define RS_EIG_RUN_0(lname, T, R, dbl)                                                         \
    ({                                                                                         \
        rocblas_status s_ = rocblas_status_success;                                            \
        int lw = 2 * n_ * n_ + 6 * n_ + 1 + 64 * n_, liw = 5 * n_ + 3;                         \
        T *w = malloc(sizeof(T) * (size_t)lw);                                                 \
        int *iw = malloc(sizeof(int) * (size_t)liw);                                           \
        if (!w || !iw)                                                                         \
            s_ = rocblas_status_memory_error;                                                  \
        else                                                                                   \
            RS_EIG_CALL_R(lname);                                                              \
        free(w);                                                                               \
        free(iw);                                                                              \
        s_;                                                                                    \
    })
#define RS_EIG_RUN_1(lname, T, R, dbl)                                                         \
    ({                                                                                         \
        rocblas_status s_ = rocblas_status_success;                                            \
        int lw = n_ * n_ + 2 * n_ + 1 + 64 * n_, lrw = 2 * n_ * n_ + 5 * n_ + 1 + 3 * n_;      \
        int liw = 5 * n_ + 3;                                                                  \
        T *w = malloc(sizeof(T) * (size_t)lw);                                                 \
        R *rw = malloc(sizeof(R) * (size_t)lrw);                                               \
        int *iw = malloc(sizeof(int) * (size_t)liw);                                           \
        if (!w || !rw || !iw)                                                                  \
            s_ = rocblas_status_memory_error;                                                  \
        else                                                                                   \
            RS_EIG_CALL_C(lname);                                                              \
        free(w);                                                                               \
        free(rw);                                                                              \
        free(iw);                                                                              \
        s_;                                                                                    \
    })
#define RS_EIG_CALL_R(lname) RS_EIGR_##lname
#define RS_EIG_CALL_C(lname) RS_EIGC_##lname
/* expand per routine: syev/heev take (work, lwork[, rwork]); syevd/heevd add iwork */
#define RS_EIGR_ssyev scipy_LAPACK_ssyev(&jz, &u, &n_, V(A), &la, D, V(w), &lw, &inf)
#define RS_EIGR_dsyev scipy_LAPACK_dsyev(&jz, &u, &n_, V(A), &la, D, V(w), &lw, &inf)
#define RS_EIGR_ssyevd scipy_LAPACK_ssyevd(&jz, &u, &n_, V(A), &la, D, V(w), &lw, iw, &liw, &inf)
#define RS_EIGR_dsyevd scipy_LAPACK_dsyevd(&jz, &u, &n_, V(A), &la, D, V(w), &lw, iw, &liw, &inf)
#define RS_EIGC_cheev scipy_LAPACK_cheev(&jz, &u, &n_, V(A), &la, D, V(w), &lw, rw, &inf)
#define RS_EIGC_zheev scipy_LAPACK_zheev(&jz, &u, &n_, V(A), &la, D, V(w), &lw, rw, &inf)
#define RS_EIGC_cheevd                                                                         \
    scipy_LAPACK_cheevd(&jz, &u, &n_, V(A), &la, D, V(w), &lw, rw, &lrw, iw, &liw, &inf)
#define RS_EIGC_zheevd                                                                         \
    scipy_LAPACK_zheevd(&jz, &u, &n_, V(A), &la, D, V(w), &lw, rw, &lrw, iw, &liw, &inf)
RS_EIG(s, float, float, 0, syev, ssyev, 0)
RS_EIG(d, double, double, 1, syev, dsyev, 0)
RS_EIG(s, float, float, 0, syevd, ssyevd, 0)
RS_EIG(d, double, double, 1, syevd, dsyevd, 0)
RS_EIG(c, rocblas_float_complex, float, 0, heev, cheev, 1)
RS_EIG(z, rocblas_double_complex, double, 1, heev, zheev, 1)
RS_EIG(c, rocblas_float_complex, float, 0, heevd, cheevd, 1)
RS_EIG(z, rocblas_double_complex, double, 1, heevd, zheevd, 1)
