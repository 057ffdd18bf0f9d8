/* LAPACK from scipy-openblas32 (prefixed `scipy_`, 32-bit integers) through its lapack.h,
 * whose names come from LAPACK_GLOBAL. Hidden Fortran string lengths are passed by the
 * header's macros (LAPACK_dgetrf(...) etc.), so callers use those macros. */
#ifndef PYSHIM_BLAS_LAPACK_H
#define PYSHIM_BLAS_LAPACK_H

#define LAPACK_GLOBAL(lcname, UCNAME) scipy_##lcname##_
#include <lapack.h>

/* LAPACK auxiliaries the library exports but lapack.h does not declare (Fortran interface;
 * single-character arguments need no hidden length). Matrices are void * so one
 * declaration list serves the four precisions. */
#define PYSHIM_LAPACK_AUX(p, R)                                                                \
    void scipy_##p##lasr_(const char *side, const char *pivot, const char *direct,             \
                          const int *m, const int *n, const R *c, const R *s, void *a,         \
                          const int *lda);                                                     \
    void scipy_##p##labrd_(const int *m, const int *n, const int *nb, void *a, const int *lda, \
                           R *d, R *e, void *tauq, void *taup, void *x, const int *ldx,        \
                           void *y, const int *ldy);                                           \
    void scipy_##p##latrd_(const char *uplo, const int *n, const int *nb, void *a,             \
                           const int *lda, R *e, void *tau, void *w, const int *ldw);          \
    void scipy_##p##lasyf_(const char *uplo, const int *n, const int *nb, int *kb, void *a,    \
                           const int *lda, int *ipiv, void *w, const int *ldw, int *info);
PYSHIM_LAPACK_AUX(s, float)
PYSHIM_LAPACK_AUX(d, double)
PYSHIM_LAPACK_AUX(c, float)
PYSHIM_LAPACK_AUX(z, double)

#endif
