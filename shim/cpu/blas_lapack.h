/* LAPACK from scipy-openblas32 (prefixed `scipy_`, 32-bit integers) through its lapack.h,
 * whose names come from LAPACK_GLOBAL. Hidden Fortran string lengths are passed by the
 * header's macros (LAPACK_dgetrf(...) etc.), so callers use those macros. */
#ifndef PYSHIM_BLAS_LAPACK_H
#define PYSHIM_BLAS_LAPACK_H

#define LAPACK_GLOBAL(lcname, UCNAME) scipy_##lcname##_
#include <lapack.h>

#endif
