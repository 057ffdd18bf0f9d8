/* rocSOLVER tridiagonal and bidiagonal eigen/singular-value routines on the CPU device, on
 * LAPACK: sterf, steqr, stedc, stebz, stein, bdsqr, bdsvdx. D and E are real in every precision;
 * the complex variants carry complex eigen/singular vectors. */
#include <string.h>

#include "blas_common.h"
#include "blas_lapack.h"
#include <rocsolver/rocsolver.h>

#include "blas_solver.h"

/* evect -> LAPACK compz: original (vectors of the matrix that was reduced, given in C),
 * tridiagonal (vectors of the tridiagonal matrix itself), none */
static char rs_compz(rocblas_evect e)
{
    return e == rocblas_evect_original ? 'V' : e == rocblas_evect_tridiagonal ? 'I'
         : e == rocblas_evect_none ? 'N' : 0;
}

#define RS_STERF(pre, R)                                                                       \
    RB_API rocblas_status rocsolver_##pre##sterf(rocblas_handle handle, const rocblas_int n,   \
                                                 R *D, R *E, rocblas_int *info)                \
    {                                                                                          \
        RS_CHECK_HANDLE;                                                                       \
        RS_CHECK(n < 0, invalid_size);                                                         \
        RS_QUERY_OR_ENTER(handle);                                                             \
        RS_CHECK(!info || (n && !D) || (n > 1 && !E), invalid_pointer);                        \
        RS_ENTER(handle);                                                                      \
        int n_ = n, inf = 0;                                                                   \
        if (n)                                                                                 \
            LP(pre, sterf)(&n_, D, E, &inf);                                                   \
        *info = inf;                                                                           \
        return rocblas_status_success;                                                         \
    }
RS_STERF(s, float)
RS_STERF(d, double)

/* steqr and stedc share their argument list; RUN makes the LAPACK call */
#define RS_STEXX(pre, T, R, name, RUN)                                                         \
    RB_API rocblas_status rocsolver_##pre##name(rocblas_handle handle, const rocblas_evect evect, \
                                                const rocblas_int n, R *D, R *E, T *C,         \
                                                const rocblas_int ldc, rocblas_int *info)      \
    {                                                                                          \
        RS_CHECK_HANDLE;                                                                       \
        char cz = rs_compz(evect);                                                             \
        RS_CHECK(!cz, invalid_value);                                                          \
        RS_CHECK(n < 0 || ldc < 1 || (cz != 'N' && ldc < n), invalid_size);                    \
        RS_QUERY_OR_ENTER(handle);                                                             \
        RS_CHECK(!info || (n && !D) || (n > 1 && !E) || (n && cz != 'N' && !C),                \
                 invalid_pointer);                                                             \
        RS_ENTER(handle);                                                                      \
        int n_ = n, lc = ldc, inf = 0;                                                         \
        if (n) {                                                                               \
            rocblas_status st_ = RUN;                                                          \
            if (st_ != rocblas_status_success)                                                 \
                return st_;                                                                    \
        }                                                                                      \
        *info = inf;                                                                           \
        return rocblas_status_success;                                                         \
    }

/* steqr: work of 2n-2 reals */
#define RS_STEQR_RUN(pre, R)                                                                   \
    ({                                                                                         \
        R *w = malloc(sizeof(R) * (size_t)(2 * n_ + 1));                                       \
        if (w)                                                                                 \
            LPC(pre, steqr)(&cz, &n_, D, E, V(C), &lc, w, &inf);                               \
        free(w);                                                                               \
        w ? rocblas_status_success : rocblas_status_memory_error;                              \
    })
RS_STEXX(s, float, float, steqr, RS_STEQR_RUN(s, float))
RS_STEXX(d, double, double, steqr, RS_STEQR_RUN(d, double))
RS_STEXX(c, rocblas_float_complex, float, steqr, RS_STEQR_RUN(c, float))
RS_STEXX(z, rocblas_double_complex, double, steqr, RS_STEQR_RUN(z, double))

/* stedc: LAPACK's documented workspace bounds (compz = 'I' needs the most) */
#define RS_STEDC_RUN_R(pre, R)                                                                 \
    ({                                                                                         \
        int lw = 1 + 4 * n_ + n_ * n_ + 64 * n_, liw = 3 + 5 * n_;                             \
        R *w = malloc(sizeof(R) * (size_t)lw);                                                 \
        int *iw = malloc(sizeof(int) * (size_t)liw);                                           \
        if (w && iw)                                                                           \
            LPC(pre, stedc)(&cz, &n_, D, E, V(C), &lc, w, &lw, iw, &liw, &inf);                \
        free(w);                                                                               \
        free(iw);                                                                              \
        w && iw ? rocblas_status_success : rocblas_status_memory_error;                        \
    })
#define RS_STEDC_RUN_C(pre, T, R)                                                              \
    ({                                                                                         \
        int lw = n_ * n_ + 1, lrw = 1 + 4 * n_ + 2 * n_ * n_ + 64 * n_, liw = 3 + 5 * n_;      \
        T *w = malloc(sizeof(T) * (size_t)lw);                                                 \
        R *rw = malloc(sizeof(R) * (size_t)lrw);                                               \
        int *iw = malloc(sizeof(int) * (size_t)liw);                                           \
        if (w && rw && iw)                                                                     \
            LPC(pre, stedc)(&cz, &n_, D, E, V(C), &lc, V(w), &lw, rw, &lrw, iw, &liw, &inf);   \
        free(w);                                                                               \
        free(rw);                                                                              \
        free(iw);                                                                              \
        w && rw && iw ? rocblas_status_success : rocblas_status_memory_error;                  \
    })
RS_STEXX(s, float, float, stedc, RS_STEDC_RUN_R(s, float))
RS_STEXX(d, double, double, stedc, RS_STEDC_RUN_R(d, double))
RS_STEXX(c, rocblas_float_complex, float, stedc, RS_STEDC_RUN_C(c, rocblas_float_complex, float))
RS_STEXX(z, rocblas_double_complex, double, stedc,
         RS_STEDC_RUN_C(z, rocblas_double_complex, double))

/* ---- stebz: selected eigenvalues by bisection ---- */
#define RS_STEBZ(pre, R)                                                                       \
    RB_API rocblas_status rocsolver_##pre##stebz(                                              \
        rocblas_handle handle, const rocblas_erange erange, const rocblas_eorder eorder,       \
        const rocblas_int n, const R vl, const R vu, const rocblas_int il,                     \
        const rocblas_int iu, const R abstol, R *D, R *E, rocblas_int *nev,                    \
        rocblas_int *nsplit, R *W, rocblas_int *iblock, rocblas_int *isplit,                   \
        rocblas_int *info)                                                                     \
    {                                                                                          \
        RS_CHECK_HANDLE;                                                                       \
        char rg = erange == rocblas_erange_all ? 'A' : erange == rocblas_erange_value ? 'V'    \
                : erange == rocblas_erange_index ? 'I' : 0;                                    \
        char od = eorder == rocblas_eorder_blocks ? 'B' : eorder == rocblas_eorder_entire ? 'E' \
                : 0;                                                                           \
        RS_CHECK(!rg || !od, invalid_value);                                                   \
        RS_CHECK(n < 0 || (rg == 'V' && vl >= vu) ||                                           \
                     (rg == 'I' && n > 0 && (il < 1 || iu < il || iu > n)),                    \
                 invalid_size);                                                                \
        RS_QUERY_OR_ENTER(handle);                                                             \
        RS_CHECK(!nev || !nsplit || !info ||                                                   \
                     (n && (!D || !W || !iblock || !isplit)) || (n > 1 && !E),                 \
                 invalid_pointer);                                                             \
        RS_ENTER(handle);                                                                      \
        int n_ = n, il_ = il, iu_ = iu, m_ = 0, ns = 0, inf = 0;                               \
        if (n) {                                                                               \
            R *w = malloc(sizeof(R) * (size_t)(4 * n_));                                       \
            int *iw = malloc(sizeof(int) * (size_t)(3 * n_));                                  \
            if (w && iw)                                                                       \
                LPC(pre, stebz)(&rg, &od, &n_, &vl, &vu, &il_, &iu_, &abstol, D, E, &m_, &ns,  \
                                W, iblock, isplit, w, iw, &inf);                               \
            free(w);                                                                           \
            free(iw);                                                                          \
            if (!w || !iw)                                                                     \
                return rocblas_status_memory_error;                                            \
        }                                                                                      \
        *nev = m_;                                                                             \
        *nsplit = ns;                                                                          \
        *info = inf;                                                                           \
        return rocblas_status_success;                                                         \
    }
RS_STEBZ(s, float)
RS_STEBZ(d, double)

/* ---- stein: eigenvectors of selected eigenvalues by inverse iteration ---- */
#define RS_STEIN(pre, T, R)                                                                    \
    RB_API rocblas_status rocsolver_##pre##stein(                                              \
        rocblas_handle handle, const rocblas_int n, R *D, R *E, rocblas_int *nev, R *W,        \
        rocblas_int *iblock, rocblas_int *isplit, T *Z, const rocblas_int ldz,                 \
        rocblas_int *ifail, rocblas_int *info)                                                 \
    {                                                                                          \
        RS_CHECK_HANDLE;                                                                       \
        RS_CHECK(n < 0 || ldz < 1 || ldz < n, invalid_size);                                   \
        RS_QUERY_OR_ENTER(handle);                                                             \
        RS_CHECK(!info || (n && (!D || !nev || !W || !iblock || !isplit || !Z || !ifail)) ||   \
                     (n > 1 && !E),                                                            \
                 invalid_pointer);                                                             \
        RS_ENTER(handle);                                                                      \
        int n_ = n, lz = ldz, inf = 0;                                                         \
        if (n) {                                                                               \
            RS_CHECK(*nev < 0 || *nev > n, invalid_size);                                      \
            int m_ = *nev;                                                                     \
            R *w = malloc(sizeof(R) * (size_t)(5 * n_));                                       \
            int *iw = malloc(sizeof(int) * (size_t)n_);                                        \
            if (w && iw)                                                                       \
                LP(pre, stein)(&n_, D, E, &m_, W, iblock, isplit, V(Z), &lz, w, iw, ifail,     \
                               &inf);                                                          \
            free(w);                                                                           \
            free(iw);                                                                          \
            if (!w || !iw)                                                                     \
                return rocblas_status_memory_error;                                            \
        }                                                                                      \
        *info = inf;                                                                           \
        return rocblas_status_success;                                                         \
    }
RS_STEIN(s, float, float)
RS_STEIN(d, double, double)
RS_STEIN(c, rocblas_float_complex, float)
RS_STEIN(z, rocblas_double_complex, double)

/* ---- bdsqr: SVD of a bidiagonal matrix, optionally updating V^H, U and C ---- */
#define RS_BDSQR(pre, T, R)                                                                    \
    RB_API rocblas_status rocsolver_##pre##bdsqr(                                              \
        rocblas_handle handle, const rocblas_fill uplo, const rocblas_int n,                   \
        const rocblas_int nv, const rocblas_int nu, const rocblas_int nc, R *D, R *E, T *Vt,   \
        const rocblas_int ldv, T *U, const rocblas_int ldu, T *C, const rocblas_int ldc,       \
        rocblas_int *info)                                                                     \
    {                                                                                          \
        RS_CHECK_HANDLE;                                                                       \
        char u = rb_fill(uplo);                                                                \
        RS_CHECK(!u, invalid_value);                                                           \
        RS_CHECK(n < 0 || nv < 0 || nu < 0 || nc < 0 || ldu < 1 || ldv < 1 || ldc < 1 ||       \
                     (nv && ldv < n) || ldu < nu || (nc && ldc < n),                           \
                 invalid_size);                                                                \
        RS_QUERY_OR_ENTER(handle);                                                             \
        RS_CHECK(!info || (n && !D) || (n > 1 && !E) || (n && nv && !Vt) || (nu && n && !U) || \
                     (nc && n && !C),                                                          \
                 invalid_pointer);                                                             \
        RS_ENTER(handle);                                                                      \
        int n_ = n, nv_ = nv, nu_ = nu, nc_ = nc, lv = ldv, lu = ldu, lc = ldc, inf = 0;       \
        if (n) {                                                                               \
            R *w = malloc(sizeof(R) * (size_t)(4 * n_ + 1));                                   \
            if (w)                                                                             \
                LPC(pre, bdsqr)(&u, &n_, &nv_, &nu_, &nc_, D, E, V(Vt), &lv, V(U), &lu, V(C),  \
                                &lc, w, &inf);                                                 \
            free(w);                                                                           \
            if (!w)                                                                            \
                return rocblas_status_memory_error;                                            \
        }                                                                                      \
        *info = inf;                                                                           \
        return rocblas_status_success;                                                         \
    }
RS_BDSQR(s, float, float)
RS_BDSQR(d, double, double)
RS_BDSQR(c, rocblas_float_complex, float)
RS_BDSQR(z, rocblas_double_complex, double)

/* ---- bdsvdx: selected singular values (and vectors) of a bidiagonal matrix ---- */
#define RS_BDSVDX(pre, R)                                                                      \
    RB_API rocblas_status rocsolver_##pre##bdsvdx(                                             \
        rocblas_handle handle, const rocblas_fill uplo, const rocblas_svect svect,             \
        const rocblas_srange srange, const rocblas_int n, R *D, R *E, const R vl, const R vu,  \
        const rocblas_int il, const rocblas_int iu, rocblas_int *nsv, R *S, R *Z,              \
        const rocblas_int ldz, rocblas_int *ifail, rocblas_int *info)                          \
    {                                                                                          \
        RS_CHECK_HANDLE;                                                                       \
        char u = rb_fill(uplo);                                                                \
        char jz = svect == rocblas_svect_singular ? 'V' : svect == rocblas_svect_none ? 'N' : 0; \
        char rg = srange == rocblas_srange_all ? 'A' : srange == rocblas_srange_value ? 'V'    \
                : srange == rocblas_srange_index ? 'I' : 0;                                    \
        RS_CHECK(!u || !jz || !rg, invalid_value);                                             \
        RS_CHECK(n < 0 || ldz < 1 || (jz == 'V' && ldz < 2 * n) ||                             \
                     (rg == 'V' && (vl < 0 || vl >= vu)) ||                                    \
                     (rg == 'I' && n > 0 && (il < 1 || iu < il || iu > n)),                    \
                 invalid_size);                                                                \
        RS_QUERY_OR_ENTER(handle);                                                             \
        RS_CHECK(!nsv || !info || (n && (!D || !S || !ifail)) || (n > 1 && !E) ||              \
                     (n && jz == 'V' && !Z),                                                   \
                 invalid_pointer);                                                             \
        RS_ENTER(handle);                                                                      \
        int n_ = n, il_ = il, iu_ = iu, lz = ldz, ns = 0, inf = 0;                             \
        if (n) {                                                                               \
            R *w = malloc(sizeof(R) * (size_t)(14 * n_));                                      \
            int *iw = malloc(sizeof(int) * (size_t)(12 * n_));                                 \
            if (w && iw) {                                                                     \
                LPC(pre, bdsvdx)(&u, &jz, &rg, &n_, D, E, &vl, &vu, &il_, &iu_, &ns, S, Z,     \
                                 &lz, w, iw, &inf);                                            \
                memcpy(ifail, iw, sizeof(int) * (size_t)n_);                                   \
            }                                                                                  \
            free(w);                                                                           \
            free(iw);                                                                          \
            if (!w || !iw)                                                                     \
                return rocblas_status_memory_error;                                            \
        }                                                                                      \
        *nsv = ns;                                                                             \
        *info = inf;                                                                           \
        return rocblas_status_success;                                                         \
    }
RS_BDSVDX(s, float)
RS_BDSVDX(d, double)
