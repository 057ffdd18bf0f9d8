/* OpenBLAS as shipped by PyPI scipy-openblas32: every symbol carries a `scipy_` prefix
 * (so it never clashes with another BLAS in the process) and integers are 32-bit.
 * f77blas.h declares unprefixed names through BLASFUNC, so BLASFUNC is redefined before
 * including it. The Fortran interface is used throughout: every argument is a pointer, so
 * one macro body serves real and complex precisions and host or device pointer mode alike.
 * (f77blas.h and lapack.h declare some LAPACK routines with different constness, so a
 * translation unit includes this header or blas_lapack.h, not both.) */
#ifndef PYSHIM_BLAS_OPENBLAS_H
#define PYSHIM_BLAS_OPENBLAS_H

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wold-style-declaration"
#include <openblas_config.h>
#undef BLASFUNC
#define BLASFUNC(FUNC) scipy_##FUNC##_
#include <f77blas.h>
#include <cblas.h>
#pragma GCC diagnostic pop

/* OB(saxpy) is scipy_saxpy_ */
#define OB(name) scipy_##name##_

#endif
