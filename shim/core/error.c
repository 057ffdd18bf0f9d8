/* CUresult <-> hipError_t, cuGetErrorName / cuGetErrorString. */
#include <string.h>

#include "internal.h"

struct err_entry {
    CUresult code;
    const char *name;
    const char *text;
};

static const struct err_entry errors[] = {
#define PYSHIM_ERR(code, text) {code, #code, text},
#include "error_names.inc"
#undef PYSHIM_ERR
};

#define NUM_ERRORS (sizeof errors / sizeof errors[0])

static const struct err_entry *find(CUresult code)
{
    for (size_t i = 0; i < NUM_ERRORS; i++)
        if (errors[i].code == code)
            return &errors[i];
    return NULL;
}

CUresult pyshim_cu_from_name(const char *name)
{
    for (size_t i = 0; name != NULL && i < NUM_ERRORS; i++)
        if (strcmp(errors[i].name, name) == 0)
            return errors[i].code;
    return CUDA_ERROR_UNKNOWN;
}

/* HIP keeps the runtime API's numbers: codes >= 100 and 1..8 coincide with CUresult;
 * the runtime-only codes below 100 have no driver twin and map to the nearest one. */
CUresult pyshim_cu_from_hip(hipError_t err)
{
    switch (err) {
    case hipSuccess:
        return CUDA_SUCCESS;
    case hipErrorInvalidConfiguration:
    case hipErrorInvalidPitchValue:
    case hipErrorInvalidDevicePointer:
    case hipErrorInvalidMemcpyDirection:
    case hipErrorMissingConfiguration:
        return CUDA_ERROR_INVALID_VALUE;
    case hipErrorInvalidSymbol:
        return CUDA_ERROR_NOT_FOUND;
    case hipErrorInsufficientDriver:
        return CUDA_ERROR_SYSTEM_DRIVER_MISMATCH;
    case hipErrorPriorLaunchFailure:
        return CUDA_ERROR_LAUNCH_FAILED;
    case hipErrorInvalidDeviceFunction:
        return CUDA_ERROR_INVALID_HANDLE;
    case hipErrorRuntimeMemory:
        return CUDA_ERROR_OUT_OF_MEMORY;
    case hipErrorContextIsDestroyed:
        /* HIP's answer to a stream/event handle that is not a live one (contexts are ours:
         * a destroyed CUcontext never reaches HIP); CUDA documents CUDA_ERROR_INVALID_HANDLE */
        return CUDA_ERROR_INVALID_HANDLE;
    default:
        break;
    }
    if (find((CUresult)err) != NULL)
        return (CUresult)err;
    return CUDA_ERROR_UNKNOWN;
}

CUresult CUDAAPI cuGetErrorName(CUresult error, const char **pStr)
{
    if (pStr == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    const struct err_entry *e = find(error);
    if (e == NULL) {
        *pStr = NULL;
        return CUDA_ERROR_INVALID_VALUE;
    }
    *pStr = e->name;
    return CUDA_SUCCESS;
}

CUresult CUDAAPI cuGetErrorString(CUresult error, const char **pStr)
{
    if (pStr == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    const struct err_entry *e = find(error);
    if (e == NULL) {
        *pStr = NULL;
        return CUDA_ERROR_INVALID_VALUE;
    }
    *pStr = e->text != NULL ? e->text : e->name;
    return CUDA_SUCCESS;
}
