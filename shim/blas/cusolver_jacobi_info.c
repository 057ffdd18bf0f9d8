/* The Jacobi info objects of syevj and gesvdj (cusolver_jacobi_info.h). */
#include <stdlib.h>

#include "blas_internal.h"
#include "cusolver_jacobi_info.h"

cusolverStatus_t pyshim_jacobi_create(void **out, unsigned magic)
{
    if (!out)
        return CUSOLVER_STATUS_INVALID_VALUE;
    struct pyshim_jacobi_info *p = calloc(1, sizeof *p);
    if (!p)
        return CUSOLVER_STATUS_ALLOC_FAILED;
    *p = PYSHIM_JACOBI_DEFAULTS(magic);
    if (!pyshim_blas_object_add(p)) {
        free(p);
        return CUSOLVER_STATUS_ALLOC_FAILED;
    }
    *out = p;
    return CUSOLVER_STATUS_SUCCESS;
}

int pyshim_jacobi_bad(const void *info, unsigned magic)
{
    return !pyshim_blas_object_live(info) ||
           ((const struct pyshim_jacobi_info *)info)->magic != magic;
}

cusolverStatus_t pyshim_jacobi_destroy(void *info, unsigned magic)
{
    if (pyshim_jacobi_bad(info, magic))
        return CUSOLVER_STATUS_INVALID_VALUE;
    pyshim_blas_object_remove(info);
    JACOBI(info)->magic = 0;
    free(info);
    return CUSOLVER_STATUS_SUCCESS;
}

cusolverStatus_t pyshim_jacobi_set_tolerance(void *info, unsigned magic, double tolerance)
{
    if (pyshim_jacobi_bad(info, magic))
        return CUSOLVER_STATUS_INVALID_VALUE;
    JACOBI(info)->tolerance = tolerance;
    return CUSOLVER_STATUS_SUCCESS;
}

cusolverStatus_t pyshim_jacobi_set_max_sweeps(void *info, unsigned magic, int max_sweeps)
{
    if (pyshim_jacobi_bad(info, magic) || max_sweeps <= 0)
        return CUSOLVER_STATUS_INVALID_VALUE;
    JACOBI(info)->max_sweeps = max_sweeps;
    return CUSOLVER_STATUS_SUCCESS;
}

cusolverStatus_t pyshim_jacobi_set_sort(void *info, unsigned magic, int sort)
{
    if (pyshim_jacobi_bad(info, magic))
        return CUSOLVER_STATUS_INVALID_VALUE;
    JACOBI(info)->sort = sort != 0;
    return CUSOLVER_STATUS_SUCCESS;
}
