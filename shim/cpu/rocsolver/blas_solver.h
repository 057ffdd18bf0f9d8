/* Shared plumbing of the CPU device's rocSOLVER files: argument-check macros in rocSOLVER's
 * order (values, sizes, then a size query returns before the pointer checks), LAPACK names
 * and LAPACK workspace handling. Include after blas_common.h and blas_lapack.h. */
#ifndef PYSHIM_BLAS_SOLVER_H
#define PYSHIM_BLAS_SOLVER_H

#include <stdlib.h>

/* rocSOLVER validates values and sizes before answering a size query (RS_QUERY_OR_ENTER) */
#define RS_CHECK_HANDLE                                                           \
    if (rb_bad_handle(handle))                                                    \
    return rocblas_status_invalid_handle
#define RS_CHECK(c, st)                                                           \
    if (c)                                                                        \
    return rocblas_status_##st
/* between the size checks and the pointer checks */
#define RS_QUERY_OR_ENTER(h)                                                      \
    do {                                                                          \
        if ((h)->size_query)                                                      \
            return rocblas_status_size_unchanged;                                 \
    } while (0)
#define RS_ENTER(h)                                                               \
    do {                                                                          \
        rocblas_status enter_ = rb_enter(h);                                      \
        if (enter_ != rocblas_status_success)                                     \
            return enter_;                                                        \
    } while (0)
#define V(p) ((void *)(p))

/* LAPACK routine names by precision letter: lapack.h spells the wrappers of routines with
 * character arguments (which may append hidden string lengths) scipy_LAPACK_*, the others
 * LAPACK_* */
#define LP(pre, name) LAPACK_##pre##name
#define LPC(pre, name) scipy_LAPACK_##pre##name
/* a LAPACK workspace query (lwork = -1) leaves the size in the first element */
static inline int rs_lwork_from(const void *w, int is_double)
{
    double v = is_double ? *(const double *)w : (double)*(const float *)w;
    return v < 1 ? 1 : (int)v + 1;
}

/* LAPACK drivers with a work array: query, allocate, run. CALL(X, w, lw) makes the call (X
 * is the precision letter or LAPACK name it needs). */
#define RS_WITH_WORK(T, dbl, CALL, X)                                                          \
    do {                                                                                       \
        T q_[1];                                                                               \
        int lw_ = -1;                                                                          \
        CALL(X, q_, &lw_);                                                                     \
        lw_ = rs_lwork_from(q_, dbl);                                                          \
        T *w_ = malloc(sizeof(T) * (size_t)lw_);                                               \
        if (!w_)                                                                               \
            return rocblas_status_memory_error;                                                \
        CALL(X, w_, &lw_);                                                                     \
        free(w_);                                                                              \
    } while (0)

/* plain-form routines below: one per precision */
#define RS_PLAIN(M) M(s, float, float, 0) M(d, double, double, 1) \
    M(c, rocblas_float_complex, float, 0) M(z, rocblas_double_complex, double, 1)

static inline char rs_svect(rocblas_svect v)
{
    return v == rocblas_svect_all ? 'A' : v == rocblas_svect_singular ? 'S'
         : v == rocblas_svect_overwrite ? 'O' : v == rocblas_svect_none ? 'N' : 0;
}

#endif
