/* cuSOLVER entry points that answer from cuSOLVER's own facts (versions) or keep state
 * rocBLAS has no place for (the math mode, recorded per handle). cusolverDnHandle_t is
 * the rocblas_handle itself. */
#include <cusolverDn.h>

#include "blas_internal.h"
#include "cusolver_enums.h"

#define STATUS(st) ((cusolverStatus_t)pyshim_cusolverStatus_t_from_rocblas_status(st))

PYSHIM_EXPORT cusolverStatus_t cusolverGetProperty(libraryPropertyType type, int *value)
{
    if (!value)
        return CUSOLVER_STATUS_INVALID_VALUE;
    switch (type) {
    case MAJOR_VERSION: *value = CUSOLVER_VER_MAJOR; return CUSOLVER_STATUS_SUCCESS;
    case MINOR_VERSION: *value = CUSOLVER_VER_MINOR; return CUSOLVER_STATUS_SUCCESS;
    case PATCH_LEVEL: *value = CUSOLVER_VER_PATCH; return CUSOLVER_STATUS_SUCCESS;
    }
    return CUSOLVER_STATUS_INVALID_VALUE;
}

PYSHIM_EXPORT cusolverStatus_t cusolverGetVersion(int *version)
{
    if (!version)
        return CUSOLVER_STATUS_INVALID_VALUE;
    *version = CUSOLVER_VERSION;
    return CUSOLVER_STATUS_SUCCESS;
}

PYSHIM_EXPORT cusolverStatus_t cusolverDnSetMathMode(cusolverDnHandle_t handle,
                                                     cusolverMathMode_t mode)
{
    rocblas_math_mode current;
    rocblas_status st = rocblas_get_math_mode((rocblas_handle)handle, &current);
    if (st != rocblas_status_success)
        return STATUS(st);
    if (mode != CUSOLVER_DEFAULT_MATH && mode != CUSOLVER_FP32_EMULATED_BF16X9_MATH)
        return CUSOLVER_STATUS_INVALID_VALUE;
    if (!pyshim_blas_handle_set(handle, PYSHIM_SLOT_CUSOLVER_MATH, (int)mode))
        return CUSOLVER_STATUS_ALLOC_FAILED;
    return CUSOLVER_STATUS_SUCCESS;
}

PYSHIM_EXPORT cusolverStatus_t cusolverDnGetMathMode(cusolverDnHandle_t handle,
                                                     cusolverMathMode_t *mode)
{
    rocblas_math_mode current;
    rocblas_status st = rocblas_get_math_mode((rocblas_handle)handle, &current);
    if (st != rocblas_status_success)
        return STATUS(st);
    if (!mode)
        return CUSOLVER_STATUS_INVALID_VALUE;
    *mode = (cusolverMathMode_t)pyshim_blas_handle_get(handle, PYSHIM_SLOT_CUSOLVER_MATH,
                                                       CUSOLVER_DEFAULT_MATH);
    return CUSOLVER_STATUS_SUCCESS;
}

PYSHIM_EXPORT cusolverStatus_t cusolverDnDestroy(cusolverDnHandle_t handle)
{
    rocblas_status st = rocblas_destroy_handle((rocblas_handle)handle);
    if (st == rocblas_status_success)
        pyshim_blas_handle_forget(handle);
    return STATUS(st);
}

PYSHIM_EXPORT unsigned long pyshim_cusolver_unsupported_count(const char *name)
{
    return pyshim_blas_unsupported_calls(name);
}
