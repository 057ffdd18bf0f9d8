/* rocsolver_?geev on the CPU device: eigenvalues and right/left eigenvectors of a general
 * matrix, through LAPACK's ?geev.
 *
 * ROCm 7.2's rocSOLVER headers (the pinned ones) do not declare geev; newer rocSOLVER
 * releases do, with the signatures below (real: wr/wi split eigenvalues; complex: a 2n-real
 * rwork from the caller). The CPU device provides them so pyshim's cusolverDnXgeev, which
 * looks rocsolver_?geev up at run time, has one; on a ROCm whose rocSOLVER lacks them it
 * refuses by name. */
#include <string.h>

#include "blas_common.h"
#include "blas_lapack.h"
#include <rocsolver/rocsolver.h>

#include "blas_solver.h"

/* One macro for the real and complex forms, which differ only in the eigenvalue arrays
 * (VALS: real wr, wi; complex w), the complex forms' caller workspace (RWORK, with its
 * trailing comma), the test that the caller gave them (GIVEN) and LAPACK's call (CALL). */
#define RS_GEEV_PARAMS(T, VALS, RWORK)                                                          \
    rocblas_handle handle, const rocblas_evect jobvl, const rocblas_evect jobvr,                \
        const rocblas_int n, T *A, const rocblas_int lda, RS_LIST VALS, T *VL,                  \
        const rocblas_int ldvl, T *VR, const rocblas_int ldvr, RS_LIST RWORK rocblas_int *info
#define RS_LIST(...) __VA_ARGS__
#define RS_GEEV(pre, T, R, VALS, RWORK, GIVEN, CALL)                                            \
    RB_API rocblas_status rocsolver_##pre##geev(RS_GEEV_PARAMS(T, VALS, RWORK));                \
    RB_API rocblas_status rocsolver_##pre##geev(RS_GEEV_PARAMS(T, VALS, RWORK))                 \
    {                                                                                           \
        RS_CHECK_HANDLE;                                                                        \
        char jl = rs_geev_job(jobvl), jr = rs_geev_job(jobvr);                                  \
        RS_CHECK(!jl || !jr, invalid_value);                                                    \
        RS_CHECK(n < 0 || lda < n || lda < 1 || ldvl < 1 || ldvr < 1 ||                         \
                     (jl == 'V' && ldvl < n) || (jr == 'V' && ldvr < n),                        \
                 invalid_size);                                                                 \
        RS_QUERY_OR_ENTER(handle);                                                              \
        RS_CHECK(!info || (n && (!A || !(GIVEN) || (jl == 'V' && !VL) || (jr == 'V' && !VR))), \
                 invalid_pointer);                                                              \
        RS_ENTER(handle);                                                                       \
        int n_ = n, la = lda, ll = ldvl, lr = ldvr, inf = 0;                                    \
        T one_l[1], one_r[1]; /* LAPACK wants a VL/VR even when not referenced */              \
        T *vl = jl == 'V' ? VL : one_l, *vr = jr == 'V' ? VR : one_r;                           \
        if (n_) {                                                                               \
            RS_WITH_WORK(T, sizeof(R) == 8, CALL, pre);                                         \
        }                                                                                       \
        *info = inf;                                                                            \
        return rocblas_status_success;                                                          \
    }
#define RS_GEEV_R_CALL(pre, w, lw)                                                              \
    scipy_LAPACK_##pre##geev(&jl, &jr, &n_, A, &la, wr, wi, vl, &ll, vr, &lr, w, lw, &inf)
#define RS_GEEV_C_CALL(pre, w_, lw)                                                             \
    scipy_LAPACK_##pre##geev(&jl, &jr, &n_, V(A), &la, V(w), V(vl), &ll, V(vr), &lr, V(w_),     \
                             lw, rwork, &inf)
#define RS_GEEV_REAL(pre, T) RS_GEEV(pre, T, T, (T *wr, T *wi), (), wr && wi, RS_GEEV_R_CALL)
#define RS_GEEV_COMPLEX(pre, T, R)                                                              \
    RS_GEEV(pre, T, R, (T *w), (R *rwork,), w && rwork, RS_GEEV_C_CALL)

static char rs_geev_job(rocblas_evect e)
{
    return e == rocblas_evect_original ? 'V' : e == rocblas_evect_none ? 'N' : 0;
}

RS_GEEV_REAL(s, float)
RS_GEEV_REAL(d, double)
RS_GEEV_COMPLEX(c, rocblas_float_complex, float)
RS_GEEV_COMPLEX(z, rocblas_double_complex, double)
