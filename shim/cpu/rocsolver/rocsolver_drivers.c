/* More rocSOLVER drivers on the CPU device, on LAPACK: gesv, posv, trtri, the out-of-place
 * and no-pivoting getri variants, sygst/hegst (+sygs2/hegs2), sygv/hegv, syevx/heevx,
 * sygvx/hegvx, gesdd (the SVD through gesvd), gesvdx, and the Jacobi-divide-and-conquer
 * entry points syevdj/heevdj, sygvdj/hegvdj (computed by syevd/sygvd). */
#include <string.h>

#include "blas_common.h"
#include "blas_lapack.h"
#include <rocsolver/rocsolver.h>

#include "blas_solver.h"

/* ---- linear systems ---- */
#define RS_GESV(pre, T, R, dbl)                                                                \
    RB_API rocblas_status rocsolver_##pre##gesv(rocblas_handle handle, const rocblas_int n,    \
                                                const rocblas_int nrhs, T *A,                  \
                                                const rocblas_int lda, rocblas_int *ipiv,      \
                                                T *B, const rocblas_int ldb, rocblas_int *info) \
    {                                                                                          \
        RS_CHECK_HANDLE;                                                                       \
        RS_CHECK(n < 0 || nrhs < 0 || lda < n || lda < 1 || ldb < n || ldb < 1, invalid_size); \
        RS_QUERY_OR_ENTER(handle);                                                             \
        RS_CHECK(!info || (n && (!A || !ipiv)) || (n && nrhs && !B), invalid_pointer);         \
        RS_ENTER(handle);                                                                      \
        int n_ = n, r_ = nrhs, la = lda, lb = ldb, inf = 0;                                    \
        if (n)                                                                                 \
            LP(pre, gesv)(&n_, &r_, V(A), &la, ipiv, V(B), &lb, &inf);                         \
        *info = inf;                                                                           \
        return rocblas_status_success;                                                         \
    }
RS_PLAIN(RS_GESV)

#define RS_POSV(pre, T, R, dbl)                                                                \
    RB_API rocblas_status rocsolver_##pre##posv(rocblas_handle handle, const rocblas_fill uplo, \
                                                const rocblas_int n, const rocblas_int nrhs,   \
                                                T *A, const rocblas_int lda, T *B,             \
                                                const rocblas_int ldb, rocblas_int *info)      \
    {                                                                                          \
        RS_CHECK_HANDLE;                                                                       \
        char u = rb_fill(uplo);                                                                \
        RS_CHECK(!u, invalid_value);                                                           \
        RS_CHECK(n < 0 || nrhs < 0 || lda < n || lda < 1 || ldb < n || ldb < 1, invalid_size); \
        RS_QUERY_OR_ENTER(handle);                                                             \
        RS_CHECK(!info || (n && !A) || (n && nrhs && !B), invalid_pointer);                    \
        RS_ENTER(handle);                                                                      \
        int n_ = n, r_ = nrhs, la = lda, lb = ldb, inf = 0;                                    \
        if (n)                                                                                 \
            LPC(pre, posv)(&u, &n_, &r_, V(A), &la, V(B), &lb, &inf);                          \
        *info = inf;                                                                           \
        return rocblas_status_success;                                                         \
    }
RS_PLAIN(RS_POSV)

#define RS_TRTRI(pre, T, R, dbl)                                                               \
    RB_API rocblas_status rocsolver_##pre##trtri(rocblas_handle handle, const rocblas_fill uplo, \
                                                 const rocblas_diagonal diag,                  \
                                                 const rocblas_int n, T *A,                    \
                                                 const rocblas_int lda, rocblas_int *info)     \
    {                                                                                          \
        RS_CHECK_HANDLE;                                                                       \
        char u = rb_fill(uplo), d = rb_diag(diag);                                             \
        RS_CHECK(!u || !d, invalid_value);                                                     \
        RS_CHECK(n < 0 || lda < n || lda < 1, invalid_size);                                   \
        RS_QUERY_OR_ENTER(handle);                                                             \
        RS_CHECK(!info || (n && !A), invalid_pointer);                                         \
        RS_ENTER(handle);                                                                      \
        int n_ = n, la = lda, inf = 0;                                                         \
        if (n)                                                                                 \
            LPC(pre, trtri)(&u, &d, &n_, V(A), &la, &inf);                                     \
        *info = inf;                                                                           \
        return rocblas_status_success;                                                         \
    }
RS_PLAIN(RS_TRTRI)

/* ---- getri variants: out of place (C = inverse from the LU in A) and without pivots ---- */
static void rs_copy_square(const void *a, int64_t lda, void *c, int64_t ldc, int64_t n,
                           size_t es)
{
    for (int64_t j = 0; j < n; j++)
        memmove((char *)c + (size_t)(j * ldc) * es, (const char *)a + (size_t)(j * lda) * es,
                (size_t)n * es);
}

#define RS_GETRI_MORE(pre, T, R, dbl)                                                          \
    RB_API rocblas_status rocsolver_##pre##getri_outofplace(                                   \
        rocblas_handle handle, const rocblas_int n, T *A, const rocblas_int lda,               \
        rocblas_int *ipiv, T *C, const rocblas_int ldc, rocblas_int *info)                     \
    {                                                                                          \
        RS_CHECK_HANDLE;                                                                       \
        RS_CHECK(n < 0 || lda < n || lda < 1 || ldc < n || ldc < 1, invalid_size);             \
        RS_QUERY_OR_ENTER(handle);                                                             \
        RS_CHECK(!info || (n && (!A || !ipiv || !C)), invalid_pointer);                        \
        RS_ENTER(handle);                                                                      \
        if (n)                                                                                 \
            rs_copy_square(A, lda, C, ldc, n, sizeof(T));                                      \
        return rocsolver_##pre##getri(handle, n, C, ldc, ipiv, info);                          \
    }                                                                                          \
    RB_API rocblas_status rocsolver_##pre##getri_npvt(rocblas_handle handle,                   \
                                                      const rocblas_int n, T *A,               \
                                                      const rocblas_int lda, rocblas_int *info) \
    {                                                                                          \
        RS_CHECK_HANDLE;                                                                       \
        RS_CHECK(n < 0 || lda < n || lda < 1, invalid_size);                                   \
        RS_QUERY_OR_ENTER(handle);                                                             \
        RS_CHECK(!info || (n && !A), invalid_pointer);                                         \
        /* no row interchanges: the identity permutation */                                   \
        rocblas_int *p = malloc(sizeof(rocblas_int) * (size_t)(n > 0 ? n : 1));                \
        if (!p)                                                                                \
            return rocblas_status_memory_error;                                                \
        for (rocblas_int i = 0; i < n; i++)                                                    \
            p[i] = i + 1;                                                                      \
        rocblas_status st = rocsolver_##pre##getri(handle, n, A, lda, p, info);                \
        free(p);                                                                               \
        return st;                                                                             \
    }                                                                                          \
    RB_API rocblas_status rocsolver_##pre##getri_npvt_outofplace(                              \
        rocblas_handle handle, const rocblas_int n, T *A, const rocblas_int lda, T *C,         \
        const rocblas_int ldc, rocblas_int *info)                                              \
    {                                                                                          \
        RS_CHECK_HANDLE;                                                                       \
        RS_CHECK(n < 0 || lda < n || lda < 1 || ldc < n || ldc < 1, invalid_size);             \
        RS_QUERY_OR_ENTER(handle);                                                             \
        RS_CHECK(!info || (n && (!A || !C)), invalid_pointer);                                 \
        RS_ENTER(handle);                                                                      \
        if (n)                                                                                 \
            rs_copy_square(A, lda, C, ldc, n, sizeof(T));                                      \
        return rocsolver_##pre##getri_npvt(handle, n, C, ldc, info);                           \
    }
RS_PLAIN(RS_GETRI_MORE)

/* ---- generalized symmetric-definite problems ---- */
static int rs_itype2(rocblas_eform f)
{
    return f == rocblas_eform_ax ? 1 : f == rocblas_eform_abx ? 2 : f == rocblas_eform_bax ? 3 : 0;
}
static char rs_jobz2(rocblas_evect e)
{
    return e == rocblas_evect_original ? 'V' : e == rocblas_evect_none ? 'N' : 0;
}

#define RS_SYGST(pre, T, name, lname)                                                          \
    RB_API rocblas_status rocsolver_##pre##name(                                               \
        rocblas_handle handle, const rocblas_eform itype, const rocblas_fill uplo,             \
        const rocblas_int n, T *A, const rocblas_int lda, T *B, const rocblas_int ldb)         \
    {                                                                                          \
        RS_CHECK_HANDLE;                                                                       \
        int it = rs_itype2(itype);                                                             \
        char u = rb_fill(uplo);                                                                \
        RS_CHECK(!it || !u, invalid_value);                                                    \
        RS_CHECK(n < 0 || lda < n || lda < 1 || ldb < n || ldb < 1, invalid_size);             \
        RS_QUERY_OR_ENTER(handle);                                                             \
        RS_CHECK(!n, success);                                                                 \
        RS_CHECK(!A || !B, invalid_pointer);                                                   \
        RS_ENTER(handle);                                                                      \
        int n_ = n, la = lda, lb = ldb, inf = 0;                                               \
        lname(&it, &u, &n_, V(A), &la, V(B), &lb, &inf);                                       \
        return rocblas_status_success;                                                         \
    }
RS_SYGST(s, float, sygst, scipy_LAPACK_ssygst)
RS_SYGST(d, double, sygst, scipy_LAPACK_dsygst)
RS_SYGST(c, rocblas_float_complex, hegst, scipy_LAPACK_chegst)
RS_SYGST(z, rocblas_double_complex, hegst, scipy_LAPACK_zhegst)
RS_SYGST(s, float, sygs2, scipy_LAPACK_ssygst)
RS_SYGST(d, double, sygs2, scipy_LAPACK_dsygst)
RS_SYGST(c, rocblas_float_complex, hegs2, scipy_LAPACK_chegst)
RS_SYGST(z, rocblas_double_complex, hegs2, scipy_LAPACK_zhegst)

#define RS_SYGV(pre, T, R, dbl, name, CALL)                                                    \
    RB_API rocblas_status rocsolver_##pre##name(                                               \
        rocblas_handle handle, const rocblas_eform itype, const rocblas_evect evect,           \
        const rocblas_fill uplo, const rocblas_int n, T *A, const rocblas_int lda, T *B,       \
        const rocblas_int ldb, R *D, R *E, rocblas_int *info)                                  \
    {                                                                                          \
        RS_CHECK_HANDLE;                                                                       \
        int it = rs_itype2(itype);                                                             \
        char jz = rs_jobz2(evect), u = rb_fill(uplo);                                          \
        RS_CHECK(!it || !jz || !u, invalid_value);                                             \
        RS_CHECK(n < 0 || lda < n || lda < 1 || ldb < n || ldb < 1, invalid_size);             \
        RS_QUERY_OR_ENTER(handle);                                                             \
        RS_CHECK(!info || (n && (!A || !B || !D || !E)), invalid_pointer);                     \
        RS_ENTER(handle);                                                                      \
        int n_ = n, la = lda, lb = ldb, inf = 0;                                               \
        if (n) {                                                                               \
            int lw = 64 * n_ + 2 * n_ + 1;                                                     \
            T *w = malloc(sizeof(T) * (size_t)lw);                                             \
            R *rw = malloc(sizeof(R) * (size_t)(3 * n_ + 1));                                  \
            if (w && rw)                                                                       \
                CALL;                                                                          \
            free(w);                                                                           \
            free(rw);                                                                          \
            if (!w || !rw)                                                                     \
                return rocblas_status_memory_error;                                            \
            memset(E, 0, sizeof(R) * (size_t)n);                                               \
        }                                                                                      \
        *info = inf;                                                                           \
        return rocblas_status_success;                                                         \
    }
#define RS_GV_R(p)                                                                             \
    scipy_LAPACK_##p##sygv(&it, &jz, &u, &n_, V(A), &la, V(B), &lb, D, V(w), &lw, &inf)
#define RS_GV_C(p)                                                                             \
    scipy_LAPACK_##p##hegv(&it, &jz, &u, &n_, V(A), &la, V(B), &lb, D, V(w), &lw, rw, &inf)
RS_SYGV(s, float, float, 0, sygv, RS_GV_R(s))
RS_SYGV(d, double, double, 1, sygv, RS_GV_R(d))
RS_SYGV(c, rocblas_float_complex, float, 0, hegv, RS_GV_C(c))
RS_SYGV(z, rocblas_double_complex, double, 1, hegv, RS_GV_C(z))

/* ---- syevx/heevx and sygvx/hegvx: selected eigenpairs with abstol and ifail ---- */
static char rs_range2(rocblas_erange r)
{
    return r == rocblas_erange_all ? 'A' : r == rocblas_erange_value ? 'V'
         : r == rocblas_erange_index ? 'I' : 0;
}
#define RS_EVX2_CHECKS(extra_values, extra_sizes, extra_ptrs)                                  \
    RS_CHECK_HANDLE;                                                                           \
    char jz = rs_jobz2(evect), rg = rs_range2(erange), u = rb_fill(uplo);                      \
    RS_CHECK(!jz || !rg || !u extra_values, invalid_value);                                    \
    RS_CHECK(n < 0 || lda < n || lda < 1 || ldz < 1 || (jz == 'V' && ldz < n) ||               \
                 (rg == 'V' && vl >= vu) ||                                                    \
                 (rg == 'I' && (il < 1 || iu < il - 1 || iu > n || (n > 0 && il > n)))         \
                     extra_sizes,                                                              \
             invalid_size);                                                                    \
    RS_QUERY_OR_ENTER(handle);                                                                 \
    RS_CHECK(!nev || !info || (n && (!A || !W || (jz == 'V' && (!Z || !ifail)))) extra_ptrs,   \
             invalid_pointer);                                                                 \
    RS_ENTER(handle)
#define RS_EVX2_RUN(T, R, dbl, CALL)                                                           \
    int n_ = n, la = lda, lz = ldz, il_ = il, iu_ = iu, m_ = 0, inf = 0;                       \
    if (n) {                                                                                   \
        int lw = 64 * n_ + 8 * n_ + 1;                                                         \
        T *w = malloc(sizeof(T) * (size_t)lw);                                                 \
        R *rw = malloc(sizeof(R) * (size_t)(7 * n_ + 1));                                      \
        int *iw = malloc(sizeof(int) * (size_t)(5 * n_ + 1));                                  \
        int *if_ = jz == 'V' ? ifail : iw + 0; /* LAPACK writes ifail only for jobz = V */   \
        if (w && rw && iw)                                                                     \
            CALL;                                                                              \
        free(w);                                                                               \
        free(rw);                                                                              \
        free(iw);                                                                              \
        if (!w || !rw || !iw)                                                                  \
            return rocblas_status_memory_error;                                                \
    }                                                                                          \
    *nev = m_;                                                                                 \
    *info = inf;                                                                               \
    return rocblas_status_success

#define RS_SYEVX(pre, T, R, dbl, name, CALL)                                                   \
    RB_API rocblas_status rocsolver_##pre##name(                                               \
        rocblas_handle handle, const rocblas_evect evect, const rocblas_erange erange,         \
        const rocblas_fill uplo, const rocblas_int n, T *A, const rocblas_int lda, const R vl,  \
        const R vu, const rocblas_int il, const rocblas_int iu, const R abstol,                \
        rocblas_int *nev, R *W, T *Z, const rocblas_int ldz, rocblas_int *ifail,               \
        rocblas_int *info)                                                                     \
    {                                                                                          \
        RS_EVX2_CHECKS(, , );                                                                  \
        RS_EVX2_RUN(T, R, dbl, CALL);                                                          \
    }
#define RS_EVX2_R(p)                                                                           \
    scipy_LAPACK_##p##syevx(&jz, &rg, &u, &n_, V(A), &la, &vl, &vu, &il_, &iu_, &abstol, &m_,  \
                            W, V(Z), &lz, V(w), &lw, iw, if_, &inf)
#define RS_EVX2_C(p)                                                                           \
    scipy_LAPACK_##p##heevx(&jz, &rg, &u, &n_, V(A), &la, &vl, &vu, &il_, &iu_, &abstol, &m_,  \
                            W, V(Z), &lz, V(w), &lw, rw, iw, if_, &inf)
RS_SYEVX(s, float, float, 0, syevx, RS_EVX2_R(s))
RS_SYEVX(d, double, double, 1, syevx, RS_EVX2_R(d))
RS_SYEVX(c, rocblas_float_complex, float, 0, heevx, RS_EVX2_C(c))
RS_SYEVX(z, rocblas_double_complex, double, 1, heevx, RS_EVX2_C(z))

#define RS_SYGVX(pre, T, R, dbl, name, CALL)                                                   \
    RB_API rocblas_status rocsolver_##pre##name(                                               \
        rocblas_handle handle, const rocblas_eform itype, const rocblas_evect evect,           \
        const rocblas_erange erange, const rocblas_fill uplo, const rocblas_int n, T *A,       \
        const rocblas_int lda, T *B, const rocblas_int ldb, const R vl, const R vu,            \
        const rocblas_int il, const rocblas_int iu, const R abstol, rocblas_int *nev, R *W,    \
        T *Z, const rocblas_int ldz, rocblas_int *ifail, rocblas_int *info)                    \
    {                                                                                          \
        int it = rs_itype2(itype);                                                             \
        RS_EVX2_CHECKS(|| !it, || ldb < n || ldb < 1, || (n && !B));                           \
        int lb = ldb;                                                                          \
        RS_EVX2_RUN(T, R, dbl, CALL);                                                          \
    }
#define RS_GVX2_R(p)                                                                           \
    scipy_LAPACK_##p##sygvx(&it, &jz, &rg, &u, &n_, V(A), &la, V(B), &lb, &vl, &vu, &il_,      \
                            &iu_, &abstol, &m_, W, V(Z), &lz, V(w), &lw, iw, if_, &inf)
#define RS_GVX2_C(p)                                                                           \
    scipy_LAPACK_##p##hegvx(&it, &jz, &rg, &u, &n_, V(A), &la, V(B), &lb, &vl, &vu, &il_,      \
                            &iu_, &abstol, &m_, W, V(Z), &lz, V(w), &lw, rw, iw, if_, &inf)
RS_SYGVX(s, float, float, 0, sygvx, RS_GVX2_R(s))
RS_SYGVX(d, double, double, 1, sygvx, RS_GVX2_R(d))
RS_SYGVX(c, rocblas_float_complex, float, 0, hegvx, RS_GVX2_C(c))
RS_SYGVX(z, rocblas_double_complex, double, 1, hegvx, RS_GVX2_C(z))

/* ---- gesdd: same decomposition as gesvd ---- */
#define RS_GESDD(pre, T, R, dbl)                                                               \
    RB_API rocblas_status rocsolver_##pre##gesdd(                                              \
        rocblas_handle handle, const rocblas_svect left_svect, const rocblas_svect right_svect, \
        const rocblas_int m, const rocblas_int n, T *A, const rocblas_int lda, R *S, T *U,     \
        const rocblas_int ldu, T *V, const rocblas_int ldv, rocblas_int *info)                 \
    {                                                                                          \
        RS_CHECK_HANDLE;                                                                       \
        int64_t mn = m < n ? m : n;                                                            \
        R *e = malloc(sizeof(R) * (size_t)(mn > 0 ? mn : 1));                                  \
        if (!e)                                                                                \
            return rocblas_status_memory_error;                                                \
        rocblas_status st = rocsolver_##pre##gesvd(handle, left_svect, right_svect, m, n, A,   \
                                                   lda, S, U, ldu, V, ldv, e,                  \
                                                   rocblas_outofplace, info);                  \
        free(e);                                                                               \
        return st;                                                                             \
    }
RS_PLAIN(RS_GESDD)

/* ---- gesvdx: selected singular values/vectors ---- */
static char rs_sjob(rocblas_svect v)
{
    return v == rocblas_svect_singular ? 'V' : v == rocblas_svect_none ? 'N' : 0;
}
static char rs_srange(rocblas_srange r)
{
    return r == rocblas_srange_all ? 'A' : r == rocblas_srange_value ? 'V'
         : r == rocblas_srange_index ? 'I' : 0;
}
#define RS_GESVDX(pre, T, R, dbl, CALL)                                                        \
    RB_API rocblas_status rocsolver_##pre##gesvdx(                                             \
        rocblas_handle handle, const rocblas_svect left_svect, const rocblas_svect right_svect, \
        const rocblas_srange srange, const rocblas_int m, const rocblas_int n, T *A,           \
        const rocblas_int lda, const R vl, const R vu, const rocblas_int il,                   \
        const rocblas_int iu, rocblas_int *nsv, R *S, T *U, const rocblas_int ldu, T *V,       \
        const rocblas_int ldv, rocblas_int *ifail, rocblas_int *info)                          \
    {                                                                                          \
        RS_CHECK_HANDLE;                                                                       \
        char ju = rs_sjob(left_svect), jv = rs_sjob(right_svect), rg = rs_srange(srange);      \
        RS_CHECK(!ju || !jv || !rg, invalid_value);                                            \
        int64_t mn = m < n ? m : n;                                                            \
        int64_t ns = rg == 'I' ? iu - il + 1 : mn;                                             \
        RS_CHECK(m < 0 || n < 0 || lda < m || lda < 1 || ldu < 1 || ldv < 1 ||                 \
                     (ju == 'V' && ldu < m) || (jv == 'V' && ldv < ns) ||                      \
                     (rg == 'V' && (vl < 0 || vl >= vu)) ||                                    \
                     (rg == 'I' && mn > 0 && (il < 1 || iu < il || iu > mn)),                  \
                 invalid_size);                                                                \
        RS_QUERY_OR_ENTER(handle);                                                             \
        RS_CHECK(!nsv || !info || (m && n && (!A || !S || !ifail)) ||                          \
                     (ju == 'V' && m && !U) || (jv == 'V' && n && !V),                         \
                 invalid_pointer);                                                             \
        RS_ENTER(handle);                                                                      \
        int m_ = m, n_ = n, la = lda, lu = ldu, lv = ldv, il_ = il, iu_ = iu, k_ = 0, inf = 0; \
        if (mn) {                                                                              \
            int mn_ = (int)mn;                                                                 \
            int lw = mn_ * (mn_ * 2 + 16 * mn_) + 4 * (m_ > n_ ? m_ : n_) + 64;               \
            int lrw = mn_ * (mn_ * 2 + 15 * mn_) + 1;                                          \
            T *w = malloc(sizeof(T) * (size_t)lw);                                             \
            R *rw = malloc(sizeof(R) * (size_t)lrw);                                           \
            int *iw = malloc(sizeof(int) * (size_t)(12 * mn_));                                \
            if (w && rw && iw) {                                                               \
                CALL;                                                                          \
                memcpy(ifail, iw, sizeof(int) * (size_t)mn_);                                  \
            }                                                                                  \
            free(w);                                                                           \
            free(rw);                                                                          \
            free(iw);                                                                          \
            if (!w || !rw || !iw)                                                              \
                return rocblas_status_memory_error;                                            \
        }                                                                                      \
        *nsv = k_;                                                                             \
        *info = inf;                                                                           \
        return rocblas_status_success;                                                         \
    }
#define RS_SVX_R(p)                                                                            \
    scipy_LAPACK_##p##gesvdx(&ju, &jv, &rg, &m_, &n_, V(A), &la, &vl, &vu, &il_, &iu_, &k_, S, \
                             V(U), &lu, V(V), &lv, V(w), &lw, iw, &inf)
#define RS_SVX_C(p)                                                                            \
    scipy_LAPACK_##p##gesvdx(&ju, &jv, &rg, &m_, &n_, V(A), &la, &vl, &vu, &il_, &iu_, &k_, S, \
                             V(U), &lu, V(V), &lv, V(w), &lw, rw, iw, &inf)
RS_GESVDX(s, float, float, 0, RS_SVX_R(s))
RS_GESVDX(d, double, double, 1, RS_SVX_R(d))
RS_GESVDX(c, rocblas_float_complex, float, 0, RS_SVX_C(c))
RS_GESVDX(z, rocblas_double_complex, double, 1, RS_SVX_C(z))

/* ---- syevdj/heevdj and sygvdj/hegvdj ---- */
#define RS_EVDJ(pre, T, R, evdj, evd, gvdj, gvd)                                               \
    RB_API rocblas_status rocsolver_##pre##evdj(rocblas_handle handle, const rocblas_evect evect, \
                                                const rocblas_fill uplo, const rocblas_int n,  \
                                                T *A, const rocblas_int lda, R *D,             \
                                                rocblas_int *info)                             \
    {                                                                                          \
        R *e = malloc(sizeof(R) * (size_t)(n > 0 ? n : 1));                                    \
        if (!e)                                                                                \
            return rocblas_status_memory_error;                                                \
        rocblas_status st = rocsolver_##pre##evd(handle, evect, uplo, n, A, lda, D, e, info);  \
        free(e);                                                                               \
        return st;                                                                             \
    }                                                                                          \
    RB_API rocblas_status rocsolver_##pre##gvdj(                                               \
        rocblas_handle handle, const rocblas_eform itype, const rocblas_evect evect,           \
        const rocblas_fill uplo, const rocblas_int n, T *A, const rocblas_int lda, T *B,       \
        const rocblas_int ldb, R *D, rocblas_int *info)                                        \
    {                                                                                          \
        R *e = malloc(sizeof(R) * (size_t)(n > 0 ? n : 1));                                    \
        if (!e)                                                                                \
            return rocblas_status_memory_error;                                                \
        rocblas_status st =                                                                    \
            rocsolver_##pre##gvd(handle, itype, evect, uplo, n, A, lda, B, ldb, D, e, info);   \
        free(e);                                                                               \
        return st;                                                                             \
    }
RS_EVDJ(s, float, float, syevdj, syevd, sygvdj, sygvd)
RS_EVDJ(d, double, double, syevdj, syevd, sygvdj, sygvd)
RS_EVDJ(c, rocblas_float_complex, float, heevdj, heevd, hegvdj, hegvd)
RS_EVDJ(z, rocblas_double_complex, double, heevdj, heevd, hegvdj, hegvd)
