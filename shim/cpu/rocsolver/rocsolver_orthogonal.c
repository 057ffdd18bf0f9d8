/* rocSOLVER orthogonal factorizations on the CPU device, on LAPACK: gelqf/geqlf/gerqf, the
 * generation and application of their Q (orglq/orgql/unglq/ungql, ormlq/ormql/unmlq/unmql,
 * ormbr/unmbr), and the unblocked variants rocSOLVER exposes separately (geqr2, gelq2, geql2,
 * gerq2, org2r/orgl2/org2l, orm2r/orml2/orm2l, getf2, potf2, gebd2, sytd2/hetd2, sytf2),
 * which compute the same factorization as the blocked routine. */
#include "blas_common.h"
#include "blas_lapack.h"
#include <rocsolver/rocsolver.h>

#include "blas_solver.h"

/* ---- A = factor * Q-ish: (m, n, A, lda, tau) ---- */
#define RS_GEXXF(pre, T, name, lname, dbl)                                                     \
    RB_API rocblas_status rocsolver_##pre##name(rocblas_handle handle, const rocblas_int m,   \
                                                const rocblas_int n, T *A,                     \
                                                const rocblas_int lda, T *ipiv)                \
    {                                                                                          \
        RS_CHECK_HANDLE;                                                                       \
        RS_CHECK(m < 0 || n < 0 || lda < m || lda < 1, invalid_size);                          \
        RS_QUERY_OR_ENTER(handle);                                                             \
        RS_CHECK(!m || !n, success);                                                           \
        RS_CHECK(!A || !ipiv, invalid_pointer);                                                \
        RS_ENTER(handle);                                                                      \
        int m_ = m, n_ = n, la = lda, inf = 0;                                                 \
        RS_WITH_WORK(T, dbl, RS_GEXXF_CALL, lname);                                            \
        return rocblas_status_success;                                                         \
    }
#define RS_GEXXF_CALL(lname, w, lw) lname(&m_, &n_, V(A), &la, V(ipiv), V(w), lw, &inf)
#define RS_GEXXF_ALL(name, lp)                                                                 \
    RS_GEXXF(s, float, name, LAPACK_s##lp, 0)                                                  \
    RS_GEXXF(d, double, name, LAPACK_d##lp, 1)                                                 \
    RS_GEXXF(c, rocblas_float_complex, name, LAPACK_c##lp, 0)                                  \
    RS_GEXXF(z, rocblas_double_complex, name, LAPACK_z##lp, 1)
RS_GEXXF_ALL(gelqf, gelqf)
RS_GEXXF_ALL(geqlf, geqlf)
RS_GEXXF_ALL(gerqf, gerqf)
RS_GEXXF_ALL(geqr2, geqrf)
RS_GEXXF_ALL(gelq2, gelqf)
RS_GEXXF_ALL(geql2, geqlf)
RS_GEXXF_ALL(gerq2, gerqf)

/* ---- generate Q: (m, n, k, A, lda, tau); SHAPE_OK encodes LAPACK's m/n/k constraint ---- */
#define RS_ORGXX(pre, T, name, lname, dbl, shape_ok)                                           \
    RB_API rocblas_status rocsolver_##pre##name(rocblas_handle handle, const rocblas_int m,   \
                                                const rocblas_int n, const rocblas_int k,      \
                                                T *A, const rocblas_int lda, T *ipiv)          \
    {                                                                                          \
        RS_CHECK_HANDLE;                                                                       \
        RS_CHECK(m < 0 || n < 0 || k < 0 || !(shape_ok) || lda < m || lda < 1, invalid_size);  \
        RS_QUERY_OR_ENTER(handle);                                                             \
        RS_CHECK(!m || !n, success);                                                           \
        RS_CHECK(!A || (k && !ipiv), invalid_pointer);                                         \
        RS_ENTER(handle);                                                                      \
        int m_ = m, n_ = n, k_ = k, la = lda, inf = 0;                                         \
        RS_WITH_WORK(T, dbl, RS_ORGXX_CALL, lname);                                            \
        return rocblas_status_success;                                                         \
    }
#define RS_ORGXX_CALL(lname, w, lw) lname(&m_, &n_, &k_, V(A), &la, V(ipiv), V(w), lw, &inf)
#define RS_ORGXX_ALL(rname, cname, lr, lc, shape_ok)                                           \
    RS_ORGXX(s, float, rname, LAPACK_s##lr, 0, shape_ok)                                       \
    RS_ORGXX(d, double, rname, LAPACK_d##lr, 1, shape_ok)                                      \
    RS_ORGXX(c, rocblas_float_complex, cname, LAPACK_c##lc, 0, shape_ok)                       \
    RS_ORGXX(z, rocblas_double_complex, cname, LAPACK_z##lc, 1, shape_ok)
#define RS_SHAPE_QR (n <= m && k <= n)
#define RS_SHAPE_LQ (m <= n && k <= m)
RS_ORGXX_ALL(orglq, unglq, orglq, unglq, RS_SHAPE_LQ)
RS_ORGXX_ALL(orgql, ungql, orgql, ungql, RS_SHAPE_QR)
RS_ORGXX_ALL(org2r, ung2r, orgqr, ungqr, RS_SHAPE_QR)
RS_ORGXX_ALL(orgl2, ungl2, orglq, unglq, RS_SHAPE_LQ)
RS_ORGXX_ALL(org2l, ung2l, orgql, ungql, RS_SHAPE_QR)

/* ---- apply Q: (side, trans, m, n, k, A, lda, tau, C, ldc); LDA_MIN is LAPACK's bound ---- */
#define RS_ORMXX(pre, T, name, lname, dbl, cplx, lda_min)                                      \
    RB_API rocblas_status rocsolver_##pre##name(                                               \
        rocblas_handle handle, const rocblas_side side, const rocblas_operation trans,         \
        const rocblas_int m, const rocblas_int n, const rocblas_int k, T *A,                   \
        const rocblas_int lda, T *ipiv, T *C, const rocblas_int ldc)                           \
    {                                                                                          \
        RS_CHECK_HANDLE;                                                                       \
        char s = rb_side(side), t = rb_op(trans);                                              \
        RS_CHECK(!s || !t || (cplx ? t == 'T' : t == 'C'), invalid_value);                     \
        int64_t nq = s == 'L' ? m : n;                                                         \
        RS_CHECK(m < 0 || n < 0 || k < 0 || k > nq || lda < (lda_min) || lda < 1 || ldc < m || \
                     ldc < 1, invalid_size);                                                   \
        RS_QUERY_OR_ENTER(handle);                                                             \
        RS_CHECK(!m || !n || !k, success);                                                     \
        RS_CHECK(!A || !ipiv || !C, invalid_pointer);                                          \
        RS_ENTER(handle);                                                                      \
        int m_ = m, n_ = n, k_ = k, la = lda, lc = ldc, inf = 0;                               \
        RS_WITH_WORK(T, dbl, RS_ORMXX_CALL, lname);                                            \
        return rocblas_status_success;                                                         \
    }
#define RS_ORMXX_CALL(lname, w, lw)                                                            \
    lname(&s, &t, &m_, &n_, &k_, V(A), &la, V(ipiv), V(C), &lc, V(w), lw, &inf)
#define RS_ORMXX_ALL(rname, cname, lr, lc, lda_min)                                            \
    RS_ORMXX(s, float, rname, scipy_LAPACK_s##lr, 0, 0, lda_min)                               \
    RS_ORMXX(d, double, rname, scipy_LAPACK_d##lr, 1, 0, lda_min)                              \
    RS_ORMXX(c, rocblas_float_complex, cname, scipy_LAPACK_c##lc, 0, 1, lda_min)               \
    RS_ORMXX(z, rocblas_double_complex, cname, scipy_LAPACK_z##lc, 1, 1, lda_min)
RS_ORMXX_ALL(ormlq, unmlq, ormlq, unmlq, k)
RS_ORMXX_ALL(ormql, unmql, ormql, unmql, nq)
RS_ORMXX_ALL(orm2r, unm2r, ormqr, unmqr, nq)
RS_ORMXX_ALL(orml2, unml2, ormlq, unmlq, k)
RS_ORMXX_ALL(orm2l, unm2l, ormql, unmql, nq)

/* ---- ormbr/unmbr: apply the Q or P of gebrd ---- */
#define RS_ORMBR(pre, T, name, lname, dbl, cplx)                                               \
    RB_API rocblas_status rocsolver_##pre##name(                                               \
        rocblas_handle handle, const rocblas_storev storev, const rocblas_side side,           \
        const rocblas_operation trans, const rocblas_int m, const rocblas_int n,               \
        const rocblas_int k, T *A, const rocblas_int lda, T *ipiv, T *C, const rocblas_int ldc) \
    {                                                                                          \
        RS_CHECK_HANDLE;                                                                       \
        char v = storev == rocblas_column_wise ? 'Q' : storev == rocblas_row_wise ? 'P' : 0;   \
        char s = rb_side(side), t = rb_op(trans);                                              \
        RS_CHECK(!v || !s || !t || (cplx ? t == 'T' : t == 'C'), invalid_value);               \
        int64_t nq = s == 'L' ? m : n, lmin = v == 'Q' ? nq : (nq < k ? nq : k);               \
        RS_CHECK(m < 0 || n < 0 || k < 0 || lda < lmin || lda < 1 || ldc < m || ldc < 1,       \
                 invalid_size);                                                                \
        RS_QUERY_OR_ENTER(handle);                                                             \
        RS_CHECK(!m || !n || !k, success);                                                     \
        RS_CHECK(!A || !ipiv || !C, invalid_pointer);                                          \
        RS_ENTER(handle);                                                                      \
        int m_ = m, n_ = n, k_ = k, la = lda, lc = ldc, inf = 0;                               \
        RS_WITH_WORK(T, dbl, RS_ORMBR_CALL, lname);                                            \
        return rocblas_status_success;                                                         \
    }
#define RS_ORMBR_CALL(lname, w, lw)                                                            \
    lname(&v, &s, &t, &m_, &n_, &k_, V(A), &la, V(ipiv), V(C), &lc, V(w), lw, &inf)
RS_ORMBR(s, float, ormbr, scipy_LAPACK_sormbr, 0, 0)
RS_ORMBR(d, double, ormbr, scipy_LAPACK_dormbr, 1, 0)
RS_ORMBR(c, rocblas_float_complex, unmbr, scipy_LAPACK_cunmbr, 0, 1)
RS_ORMBR(z, rocblas_double_complex, unmbr, scipy_LAPACK_zunmbr, 1, 1)

/* ---- unblocked variants that forward to the blocked routine ---- */
#define RS_FWD_GETF2(pre, T, R, dbl)                                                           \
    RB_API rocblas_status rocsolver_##pre##getf2(rocblas_handle handle, const rocblas_int m,   \
                                                 const rocblas_int n, T *A,                    \
                                                 const rocblas_int lda, rocblas_int *ipiv,     \
                                                 rocblas_int *info)                            \
    {                                                                                          \
        return rocsolver_##pre##getrf(handle, m, n, A, lda, ipiv, info);                       \
    }                                                                                          \
    RB_API rocblas_status rocsolver_##pre##getf2_npvt(rocblas_handle handle,                   \
                                                      const rocblas_int m, const rocblas_int n, \
                                                      T *A, const rocblas_int lda,             \
                                                      rocblas_int *info)                       \
    {                                                                                          \
        return rocsolver_##pre##getrf_npvt(handle, m, n, A, lda, info);                        \
    }                                                                                          \
    RB_API rocblas_status rocsolver_##pre##potf2(rocblas_handle handle,                        \
                                                 const rocblas_fill uplo, const rocblas_int n, \
                                                 T *A, const rocblas_int lda,                  \
                                                 rocblas_int *info)                            \
    {                                                                                          \
        return rocsolver_##pre##potrf(handle, uplo, n, A, lda, info);                          \
    }                                                                                          \
    RB_API rocblas_status rocsolver_##pre##gebd2(rocblas_handle handle, const rocblas_int m,   \
                                                 const rocblas_int n, T *A,                    \
                                                 const rocblas_int lda, R *D, R *E, T *tauq,   \
                                                 T *taup)                                      \
    {                                                                                          \
        return rocsolver_##pre##gebrd(handle, m, n, A, lda, D, E, tauq, taup);                 \
    }                                                                                          \
    RB_API rocblas_status rocsolver_##pre##sytf2(rocblas_handle handle,                        \
                                                 const rocblas_fill uplo, const rocblas_int n, \
                                                 T *A, const rocblas_int lda,                  \
                                                 rocblas_int *ipiv, rocblas_int *info)         \
    {                                                                                          \
        return rocsolver_##pre##sytrf(handle, uplo, n, A, lda, ipiv, info);                    \
    }
RS_PLAIN(RS_FWD_GETF2)

#define RS_FWD_TD2(pre, T, R, td2, trd)                                                        \
    RB_API rocblas_status rocsolver_##pre##td2(rocblas_handle handle, const rocblas_fill uplo, \
                                               const rocblas_int n, T *A,                      \
                                               const rocblas_int lda, R *D, R *E, T *tau)      \
    {                                                                                          \
        return rocsolver_##pre##trd(handle, uplo, n, A, lda, D, E, tau);                       \
    }
RS_FWD_TD2(s, float, float, sytd2, sytrd)
RS_FWD_TD2(d, double, double, sytd2, sytrd)
RS_FWD_TD2(c, rocblas_float_complex, float, hetd2, hetrd)
RS_FWD_TD2(z, rocblas_double_complex, double, hetd2, hetrd)
