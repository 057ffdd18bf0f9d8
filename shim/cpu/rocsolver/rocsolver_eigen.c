/* rocSOLVER eigen- and singular-value drivers on the CPU device, on LAPACK:
 * sygvd/hegvd (generalized), syevdx/heevdx and sygvdx/hegvdx (subsets by value or index,
 * through LAPACK's ?syevx/?sygvx), and the Jacobi-method entry points syevj/heevj
 * (+batched/strided), sygvj/hegvj, gesvdj (+batched/strided). The Jacobi routines compute
 * the same decomposition with LAPACK's divide-and-conquer / QR drivers: they report a
 * residual of 0 and one sweep, and return eigenvalues in ascending order (which satisfies
 * both rocblas_esort values). */
#include <string.h>

#include "blas_common.h"
#include "blas_lapack.h"
#include <rocsolver/rocsolver.h>

#include "blas_solver.h"

static char rs_jobz(rocblas_evect e)
{
    return e == rocblas_evect_original ? 'V' : e == rocblas_evect_none ? 'N' : 0;
}
static int rs_itype(rocblas_eform f)
{
    return f == rocblas_eform_ax ? 1 : f == rocblas_eform_abx ? 2 : f == rocblas_eform_bax ? 3 : 0;
}
static char rs_range(rocblas_erange r)
{
    return r == rocblas_erange_all ? 'A' : r == rocblas_erange_value ? 'V'
         : r == rocblas_erange_index ? 'I' : 0;
}

/* ---- sygvd/hegvd: A x = lambda B x (and the two product forms) ---- */
#define RS_SYGVD(pre, T, R, dbl, name, CALL)                                                   \
    RB_API rocblas_status rocsolver_##pre##name(                                               \
        rocblas_handle handle, const rocblas_eform itype, const rocblas_evect evect,           \
        const rocblas_fill uplo, const rocblas_int n, T *A, const rocblas_int lda, T *B,       \
        const rocblas_int ldb, R *D, R *E, rocblas_int *info)                                  \
    {                                                                                          \
        RS_CHECK_HANDLE;                                                                       \
        int it = rs_itype(itype);                                                              \
        char jz = rs_jobz(evect), u = rb_fill(uplo);                                           \
        RS_CHECK(!it || !jz || !u, invalid_value);                                             \
        RS_CHECK(n < 0 || lda < n || lda < 1 || ldb < n || ldb < 1, invalid_size);             \
        RS_QUERY_OR_ENTER(handle);                                                             \
        RS_CHECK(!info || (n && (!A || !B || !D || !E)), invalid_pointer);                     \
        RS_ENTER(handle);                                                                      \
        int n_ = n, la = lda, lb = ldb, inf = 0;                                               \
        if (n) {                                                                               \
            /* LAPACK's documented minimum workspaces for jobz = 'V' cover 'N' too */         \
            int lw = 2 * n_ * n_ + 6 * n_ + 1, lrw = 2 * n_ * n_ + 5 * n_ + 1;                 \
            int liw = 5 * n_ + 3;                                                              \
            T *w = malloc(sizeof(T) * (size_t)lw);                                             \
            R *rw = malloc(sizeof(R) * (size_t)lrw);                                           \
            int *iw = malloc(sizeof(int) * (size_t)liw);                                       \
            if (w && rw && iw)                                                                 \
                CALL;                                                                          \
            free(w);                                                                           \
            free(rw);                                                                          \
            free(iw);                                                                          \
            if (!w || !rw || !iw)                                                              \
                return rocblas_status_memory_error;                                            \
            memset(E, 0, sizeof(R) * (size_t)n);                                               \
        }                                                                                      \
        *info = inf;                                                                           \
        return rocblas_status_success;                                                         \
    }
#define RS_GVD_R(p)                                                                            \
    scipy_LAPACK_##p##sygvd(&it, &jz, &u, &n_, V(A), &la, V(B), &lb, D, V(w), &lw, iw, &liw,   \
                            &inf)
#define RS_GVD_C(p)                                                                            \
    scipy_LAPACK_##p##hegvd(&it, &jz, &u, &n_, V(A), &la, V(B), &lb, D, V(w), &lw, rw, &lrw,   \
                            iw, &liw, &inf)
RS_SYGVD(s, float, float, 0, sygvd, RS_GVD_R(s))
RS_SYGVD(d, double, double, 1, sygvd, RS_GVD_R(d))
RS_SYGVD(c, rocblas_float_complex, float, 0, hegvd, RS_GVD_C(c))
RS_SYGVD(z, rocblas_double_complex, double, 1, hegvd, RS_GVD_C(z))

/* ---- syevdx/heevdx and sygvdx/hegvdx: selected eigenpairs ---- */
#define RS_EVX_BODY(T, R, dbl, QUERY_AND_RUN)                                                  \
    {                                                                                          \
        int n_ = n, la = lda, lz = ldz, il_ = il, iu_ = iu, m_ = 0, inf = 0;                   \
        R abstol = 0;                                                                          \
        if (n) {                                                                               \
            R *rw = malloc(sizeof(R) * (size_t)(7 * n_ + 1));                                  \
            int *iw = malloc(sizeof(int) * (size_t)(5 * n_ + 1));                              \
            int *ifail = malloc(sizeof(int) * (size_t)n_);                                     \
            T q_[1];                                                                           \
            int lw = -1;                                                                       \
            T *w = NULL;                                                                       \
            if (rw && iw && ifail) {                                                           \
                T *w_ = q_;                                                                    \
                QUERY_AND_RUN(w_);                                                             \
                lw = rs_lwork_from(q_, dbl);                                                   \
                if (lw < 8 * n_)                                                               \
                    lw = 8 * n_;                                                               \
                w = malloc(sizeof(T) * (size_t)lw);                                            \
                if (w)                                                                         \
                    QUERY_AND_RUN(w);                                                          \
            }                                                                                  \
            free(rw);                                                                          \
            free(iw);                                                                          \
            free(ifail);                                                                       \
            if (!w)                                                                            \
                return rocblas_status_memory_error;                                            \
            free(w);                                                                           \
        }                                                                                      \
        *nev = m_;                                                                             \
        *info = inf;                                                                           \
        return rocblas_status_success;                                                         \
    }
#define RS_EVX_CHECKS(extra_values, extra_sizes, extra_ptrs)                                   \
    RS_CHECK_HANDLE;                                                                           \
    char jz = rs_jobz(evect), rg = rs_range(erange), u = rb_fill(uplo);                        \
    RS_CHECK(!jz || !rg || !u extra_values, invalid_value);                                    \
    RS_CHECK(n < 0 || lda < n || lda < 1 || ldz < 1 || (jz == 'V' && ldz < n) ||               \
                 (rg == 'V' && vl >= vu) ||                                                    \
                 (rg == 'I' && (il < 1 || iu < il - 1 || iu > n || (n > 0 && il > n)))         \
                     extra_sizes,                                                              \
             invalid_size);                                                                    \
    RS_QUERY_OR_ENTER(handle);                                                                 \
    RS_CHECK(!nev || !info || (n && (!A || !W || (jz == 'V' && !Z))) extra_ptrs,               \
             invalid_pointer);                                                                 \
    RS_ENTER(handle)

#define RS_SYEVDX(pre, T, R, dbl, name, RUN)                                                   \
    RB_API rocblas_status rocsolver_##pre##name(                                               \
        rocblas_handle handle, const rocblas_evect evect, const rocblas_erange erange,         \
        const rocblas_fill uplo, const rocblas_int n, T *A, const rocblas_int lda, const R vl,  \
        const R vu, const rocblas_int il, const rocblas_int iu, rocblas_int *nev, R *W, T *Z,  \
        const rocblas_int ldz, rocblas_int *info)                                              \
    {                                                                                          \
        RS_EVX_CHECKS(, , );                                                                   \
        RS_EVX_BODY(T, R, dbl, RUN)                                                            \
    }
#define RS_EVX_R_s(w) RS_EVX_R(s, w)
#define RS_EVX_R_d(w) RS_EVX_R(d, w)
#define RS_EVX_C_c(w) RS_EVX_C(c, w)
#define RS_EVX_C_z(w) RS_EVX_C(z, w)
#define RS_EVX_R(p, w)                                                                         \
    scipy_LAPACK_##p##syevx(&jz, &rg, &u, &n_, V(A), &la, &vl, &vu, &il_, &iu_, &abstol, &m_,  \
                            W, V(Z), &lz, V(w), &lw, iw, ifail, &inf)
#define RS_EVX_C(p, w)                                                                         \
    scipy_LAPACK_##p##heevx(&jz, &rg, &u, &n_, V(A), &la, &vl, &vu, &il_, &iu_, &abstol, &m_,  \
                            W, V(Z), &lz, V(w), &lw, rw, iw, ifail, &inf)
RS_SYEVDX(s, float, float, 0, syevdx, RS_EVX_R_s)
RS_SYEVDX(d, double, double, 1, syevdx, RS_EVX_R_d)
RS_SYEVDX(c, rocblas_float_complex, float, 0, heevdx, RS_EVX_C_c)
RS_SYEVDX(z, rocblas_double_complex, double, 1, heevdx, RS_EVX_C_z)

#define RS_SYGVDX(pre, T, R, dbl, name, RUN)                                                   \
    RB_API rocblas_status rocsolver_##pre##name(                                               \
        rocblas_handle handle, const rocblas_eform itype, const rocblas_evect evect,           \
        const rocblas_erange erange, const rocblas_fill uplo, const rocblas_int n, T *A,       \
        const rocblas_int lda, T *B, const rocblas_int ldb, const R vl, const R vu,            \
        const rocblas_int il, const rocblas_int iu, rocblas_int *nev, R *W, T *Z,              \
        const rocblas_int ldz, rocblas_int *info)                                              \
    {                                                                                          \
        int it = rs_itype(itype);                                                              \
        RS_EVX_CHECKS(|| !it, || ldb < n || ldb < 1, || (n && !B));                            \
        int lb = ldb;                                                                          \
        RS_EVX_BODY(T, R, dbl, RUN)                                                            \
    }
#define RS_GVX_R_s(w) RS_GVX_R(s, w)
#define RS_GVX_R_d(w) RS_GVX_R(d, w)
#define RS_GVX_C_c(w) RS_GVX_C(c, w)
#define RS_GVX_C_z(w) RS_GVX_C(z, w)
#define RS_GVX_R(p, w)                                                                         \
    scipy_LAPACK_##p##sygvx(&it, &jz, &rg, &u, &n_, V(A), &la, V(B), &lb, &vl, &vu, &il_,      \
                            &iu_, &abstol, &m_, W, V(Z), &lz, V(w), &lw, iw, ifail, &inf)
#define RS_GVX_C(p, w)                                                                         \
    scipy_LAPACK_##p##hegvx(&it, &jz, &rg, &u, &n_, V(A), &la, V(B), &lb, &vl, &vu, &il_,      \
                            &iu_, &abstol, &m_, W, V(Z), &lz, V(w), &lw, rw, iw, ifail, &inf)
RS_SYGVDX(s, float, float, 0, sygvdx, RS_GVX_R_s)
RS_SYGVDX(d, double, double, 1, sygvdx, RS_GVX_R_d)
RS_SYGVDX(c, rocblas_float_complex, float, 0, hegvdx, RS_GVX_C_c)
RS_SYGVDX(z, rocblas_double_complex, double, 1, hegvdx, RS_GVX_C_z)

/* ---- Jacobi entry points on the LAPACK drivers ---- */
#define RS_JACOBI_OUT(residual, n_sweeps, n)                                                   \
    do {                                                                                       \
        *(residual) = 0;                                                                       \
        *(n_sweeps) = (n) > 1 ? 1 : 0;                                                         \
    } while (0)

#define RS_SYEVJ(pre, T, R, dbl, name, evd)                                                    \
    RB_API rocblas_status rocsolver_##pre##name(                                               \
        rocblas_handle handle, const rocblas_esort esort, const rocblas_evect evect,           \
        const rocblas_fill uplo, const rocblas_int n, T *A, const rocblas_int lda,             \
        const R abstol, R *residual, const rocblas_int max_sweeps, rocblas_int *n_sweeps,      \
        R *W, rocblas_int *info)                                                               \
    {                                                                                          \
        RS_CHECK_HANDLE;                                                                       \
        (void)abstol;                                                                          \
        RS_CHECK(esort != rocblas_esort_none && esort != rocblas_esort_ascending,              \
                 invalid_value);                                                               \
        RS_CHECK(max_sweeps <= 0, invalid_size);                                               \
        RS_CHECK(!handle->size_query && (!residual || !n_sweeps), invalid_pointer);            \
        R *e = malloc(sizeof(R) * (size_t)(n > 0 ? n : 1));                                    \
        if (!e)                                                                                \
            return rocblas_status_memory_error;                                                \
        rocblas_status st = evd(handle, evect, uplo, n, A, lda, W, e, info);                   \
        free(e);                                                                               \
        if (st == rocblas_status_success)                                                      \
            RS_JACOBI_OUT(residual, n_sweeps, n);                                              \
        return st;                                                                             \
    }
RS_SYEVJ(s, float, float, 0, syevj, rocsolver_ssyevd)
RS_SYEVJ(d, double, double, 1, syevj, rocsolver_dsyevd)
RS_SYEVJ(c, rocblas_float_complex, float, 0, heevj, rocsolver_cheevd)
RS_SYEVJ(z, rocblas_double_complex, double, 1, heevj, rocsolver_zheevd)

/* batched (pointer array) and strided forms: residual, n_sweeps and info per instance */
#define RS_SYEVJ_BATCH(F, pre, T, R, name, evd)                                                \
    RB_API rocblas_status RB_CAT5(rocsolver_, pre, name, RB_FSFX_##F, )(                       \
        rocblas_handle handle, const rocblas_esort esort, const rocblas_evect evect,           \
        const rocblas_fill uplo, const rocblas_int n, RS_JA_##F(T), const rocblas_int lda      \
            RS_JAS_##F,                                                                        \
        const R abstol, R *residual, const rocblas_int max_sweeps, rocblas_int *n_sweeps,      \
        R *W, const rocblas_stride strideW, rocblas_int *info, const rocblas_int batch_count)  \
    {                                                                                          \
        RS_CHECK_HANDLE;                                                                       \
        (void)abstol;                                                                          \
        RS_CHECK(esort != rocblas_esort_none && esort != rocblas_esort_ascending,              \
                 invalid_value);                                                               \
        RS_CHECK(n < 0 || lda < n || lda < 1 || max_sweeps <= 0 || batch_count < 0,            \
                 invalid_size);                                                                \
        RS_QUERY_OR_ENTER(handle);                                                             \
        RS_CHECK(!batch_count, success);                                                       \
        RS_CHECK(!residual || !n_sweeps || !info || (n && (!A || !W)), invalid_pointer);       \
        R *e = malloc(sizeof(R) * (size_t)(n > 0 ? n : 1));                                    \
        if (!e)                                                                                \
            return rocblas_status_memory_error;                                                \
        for (int64_t b = 0; b < batch_count; b++) {                                            \
            rocblas_status st = evd(handle, evect, uplo, n, RB_AT_##F(A, b), lda,              \
                                    W + b * strideW, e, info + b);                             \
            if (st != rocblas_status_success) {                                                \
                free(e);                                                                       \
                return st;                                                                     \
            }                                                                                  \
            RS_JACOBI_OUT(residual + b, n_sweeps + b, n);                                      \
        }                                                                                      \
        free(e);                                                                               \
        return rocblas_status_success;                                                         \
    }
#define RS_JA_B(T) T *const A[]
#define RS_JA_S(T) T *A
#define RS_JAS_B
#define RS_JAS_S , const rocblas_stride strideA
#define RS_SYEVJ_FORMS(F)                                                                      \
    RS_SYEVJ_BATCH(F, s, float, float, syevj, rocsolver_ssyevd)                                \
    RS_SYEVJ_BATCH(F, d, double, double, syevj, rocsolver_dsyevd)                              \
    RS_SYEVJ_BATCH(F, c, rocblas_float_complex, float, heevj, rocsolver_cheevd)                \
    RS_SYEVJ_BATCH(F, z, rocblas_double_complex, double, heevj, rocsolver_zheevd)
RS_SYEVJ_FORMS(B)
RS_SYEVJ_FORMS(S)

#define RS_SYGVJ(pre, T, R, dbl, name, gvd)                                                    \
    RB_API rocblas_status rocsolver_##pre##name(                                               \
        rocblas_handle handle, const rocblas_eform itype, const rocblas_evect evect,           \
        const rocblas_fill uplo, const rocblas_int n, T *A, const rocblas_int lda, T *B,       \
        const rocblas_int ldb, const R abstol, R *residual, const rocblas_int max_sweeps,      \
        rocblas_int *n_sweeps, R *W, rocblas_int *info)                                        \
    {                                                                                          \
        RS_CHECK_HANDLE;                                                                       \
        (void)abstol;                                                                          \
        RS_CHECK(max_sweeps <= 0, invalid_size);                                               \
        RS_CHECK(!handle->size_query && (!residual || !n_sweeps), invalid_pointer);            \
        R *e = malloc(sizeof(R) * (size_t)(n > 0 ? n : 1));                                    \
        if (!e)                                                                                \
            return rocblas_status_memory_error;                                                \
        rocblas_status st = gvd(handle, itype, evect, uplo, n, A, lda, B, ldb, W, e, info);    \
        free(e);                                                                               \
        if (st == rocblas_status_success)                                                      \
            RS_JACOBI_OUT(residual, n_sweeps, n);                                              \
        return st;                                                                             \
    }
RS_SYGVJ(s, float, float, 0, sygvj, rocsolver_ssygvd)
RS_SYGVJ(d, double, double, 1, sygvj, rocsolver_dsygvd)
RS_SYGVJ(c, rocblas_float_complex, float, 0, hegvj, rocsolver_chegvd)
RS_SYGVJ(z, rocblas_double_complex, double, 1, hegvj, rocsolver_zhegvd)

/* gesvdj: the SVD by LAPACK's gesvd (plain, batched and strided forms) */
#define RS_GESVDJ(F, pre, T, R)                                                                \
    RB_API rocblas_status RB_CAT5(rocsolver_, pre, gesvdj, RB_FSFX_##F, )(                     \
        rocblas_handle handle, const rocblas_svect left_svect, const rocblas_svect right_svect, \
        const rocblas_int m, const rocblas_int n, RS_JA_##F(T), const rocblas_int lda          \
            RS_JAS_##F,                                                                        \
        const R abstol, R *residual, const rocblas_int max_sweeps, rocblas_int *n_sweeps,      \
        R *S RS_GS_##F(S), T *U, const rocblas_int ldu RS_GS_##F(U), T *V,                     \
        const rocblas_int ldv RS_GS_##F(V), rocblas_int *info RB_BC_##F(const rocblas_int))    \
    {                                                                                          \
        RS_CHECK_HANDLE;                                                                       \
        (void)abstol;                                                                          \
        RS_CHECK(max_sweeps <= 0 || RB_NB_##F < 0, invalid_size);                              \
        if (!handle->size_query) {                                                             \
            RS_CHECK(RB_NB_##F == 0, success);                                                 \
            RS_CHECK(!residual || !n_sweeps || !info || (m && n && !A), invalid_pointer);     \
        }                                                                                      \
        int64_t mn = m < n ? m : n;                                                            \
        R *e = malloc(sizeof(R) * (size_t)(mn > 0 ? mn : 1));                                  \
        if (!e)                                                                                \
            return rocblas_status_memory_error;                                                \
        for (int64_t b = 0; b < (handle->size_query ? 1 : RB_NB_##F); b++) {                  \
            rocblas_status st = rocsolver_##pre##gesvd(                                        \
                handle, left_svect, right_svect, m, n,                                         \
                handle->size_query ? NULL : RB_AT_##F(A, b), lda,                              \
                RS_GAT_##F(S, b), RS_GAT_##F(U, b), ldu, RS_GAT_##F(V, b), ldv, e,             \
                rocblas_outofplace, handle->size_query ? NULL : info + b);                     \
            if (st != rocblas_status_success) {                                                \
                free(e);                                                                       \
                return st;                                                                     \
            }                                                                                  \
            RS_JACOBI_OUT(residual + b, n_sweeps + b, mn);                                     \
        }                                                                                      \
        free(e);                                                                               \
        return rocblas_status_success;                                                         \
    }
#define RS_JA_P(T) T *A
#define RS_JAS_P
#define RS_GS_P(X)
#define RS_GS_B(X) , const rocblas_stride stride##X
#define RS_GS_S(X) , const rocblas_stride stride##X
#define RS_GAT_P(X, b) (X)
#define RS_GAT_B(X, b) ((X) ? (X) + (b) * stride##X : NULL)
#define RS_GAT_S(X, b) ((X) ? (X) + (b) * stride##X : NULL)
#define RS_GESVDJ_FORMS(F)                                                                     \
    RS_GESVDJ(F, s, float, float) RS_GESVDJ(F, d, double, double)                              \
    RS_GESVDJ(F, c, rocblas_float_complex, float) RS_GESVDJ(F, z, rocblas_double_complex, double)
RS_GESVDJ_FORMS(P)
RS_GESVDJ_FORMS(B)
RS_GESVDJ_FORMS(S)
