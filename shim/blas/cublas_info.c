/* cuBLAS entry points that answer from cuBLAS's own facts: status names and strings,
 * library and CUDA versions (those of the headers we emulate). */
#include <cublas_v2.h>
#include <cuda_runtime_api.h>

#include "blas_internal.h"

PYSHIM_EXPORT const char *cublasGetStatusName(cublasStatus_t status)
{
    switch (status) {
#define NAME(s) case s: return #s;
    NAME(CUBLAS_STATUS_SUCCESS)
    NAME(CUBLAS_STATUS_NOT_INITIALIZED)
    NAME(CUBLAS_STATUS_ALLOC_FAILED)
    NAME(CUBLAS_STATUS_INVALID_VALUE)
    NAME(CUBLAS_STATUS_ARCH_MISMATCH)
    NAME(CUBLAS_STATUS_MAPPING_ERROR)
    NAME(CUBLAS_STATUS_EXECUTION_FAILED)
    NAME(CUBLAS_STATUS_INTERNAL_ERROR)
    NAME(CUBLAS_STATUS_NOT_SUPPORTED)
    NAME(CUBLAS_STATUS_LICENSE_ERROR)
#undef NAME
    }
    return "<unknown>";
}

PYSHIM_EXPORT const char *cublasGetStatusString(cublasStatus_t status)
{
    switch (status) {
    case CUBLAS_STATUS_SUCCESS: return "success";
    case CUBLAS_STATUS_NOT_INITIALIZED: return "the library was not initialized";
    case CUBLAS_STATUS_ALLOC_FAILED: return "the resource allocation failed";
    case CUBLAS_STATUS_INVALID_VALUE: return "an invalid numeric value was used as an argument";
    case CUBLAS_STATUS_ARCH_MISMATCH: return "an absent device architectural feature is required";
    case CUBLAS_STATUS_MAPPING_ERROR: return "an access to GPU memory space failed";
    case CUBLAS_STATUS_EXECUTION_FAILED: return "the GPU program failed to execute";
    case CUBLAS_STATUS_INTERNAL_ERROR: return "an internal operation failed";
    case CUBLAS_STATUS_NOT_SUPPORTED: return "the functionality requested is not supported";
    case CUBLAS_STATUS_LICENSE_ERROR: return "error detected trying to check the license";
    }
    return "unknown error";
}

PYSHIM_EXPORT cublasStatus_t cublasGetProperty(libraryPropertyType type, int *value)
{
    if (!value)
        return CUBLAS_STATUS_INVALID_VALUE;
    switch (type) {
    case MAJOR_VERSION: *value = CUBLAS_VER_MAJOR; return CUBLAS_STATUS_SUCCESS;
    case MINOR_VERSION: *value = CUBLAS_VER_MINOR; return CUBLAS_STATUS_SUCCESS;
    case PATCH_LEVEL: *value = CUBLAS_VER_PATCH; return CUBLAS_STATUS_SUCCESS;
    }
    return CUBLAS_STATUS_INVALID_VALUE;
}

/* The tables find no rocBLAS twin (rocBLAS reports a string): the version we emulate,
 * after the handle is checked as cuBLAS does. */
PYSHIM_EXPORT cublasStatus_t cublasGetVersion_v2(cublasHandle_t handle, int *version)
{
    rocblas_pointer_mode mode;
    if (rocblas_get_pointer_mode((rocblas_handle)handle, &mode) != rocblas_status_success)
        return CUBLAS_STATUS_NOT_INITIALIZED;
    if (!version)
        return CUBLAS_STATUS_INVALID_VALUE;
    *version = CUBLAS_VERSION;
    return CUBLAS_STATUS_SUCCESS;
}

PYSHIM_EXPORT size_t cublasGetCudartVersion(void)
{
    return CUDART_VERSION;
}

/* the rocBLAS pointer counter: used by tests and reports */
PYSHIM_EXPORT unsigned long pyshim_cublas_unsupported_count(const char *name)
{
    return pyshim_blas_unsupported_calls(name);
}
