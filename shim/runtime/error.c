/*
 * CUDA's error state. Every failing runtime call leaves its code as the calling thread's
 * last error: cudaGetLastError returns and clears it, cudaPeekAtLastError only returns it.
 * A sticky error (the context is corrupt: illegal address, launch failure ...) is
 * process-wide: every later call returns it, cudaGetLastError does not clear it, only
 * cudaDeviceReset does. Names and strings are CUDA's, generated from the enum's constants.
 */
#define __CUDA_API_VERSION_INTERNAL 1
#include <cuda_runtime_api.h>

#include "internal.h"
#include "runtime_enums.h"

volatile int pyshim_rt_sticky_error;
static __thread int last_error;

static int is_sticky(int err)
{
    switch (err) {
    case cudaErrorIllegalAddress:
    case cudaErrorLaunchTimeout:
    case cudaErrorAssert:
    case cudaErrorHardwareStackError:
    case cudaErrorIllegalInstruction:
    case cudaErrorMisalignedAddress:
    case cudaErrorInvalidAddressSpace:
    case cudaErrorInvalidPc:
    case cudaErrorLaunchFailure:
        return 1;
    default:
        return 0;
    }
}

int pyshim_rt_record(int err)
{
    if (err != cudaSuccess) {
        last_error = err;
        if (is_sticky(err))
            pyshim_rt_sticky_error = err;
    }
    return err;
}

int pyshim_rt_from_hip(int hip_err)
{
    /* ROCm (and the CPU device, which follows it) answers a stream or event handle that is
     * not a live one with hipErrorContextIsDestroyed; CUDA documents
     * cudaErrorInvalidResourceHandle, and the runtime API has no contexts to destroy */
    if (hip_err == 709)   /* hipErrorContextIsDestroyed (HIP's headers are not included here) */
        return cudaErrorInvalidResourceHandle;
    return pyshim_cudaError_t_from_hipError_t(hip_err);
}

void pyshim_rt_clear_errors(void)
{
    pyshim_rt_sticky_error = 0;
    last_error = cudaSuccess;
}

cudaError_t cudaGetLastError(void)
{
    if (pyshim_rt_sticky_error != 0)
        return (cudaError_t)pyshim_rt_sticky_error;
    int err = last_error;
    last_error = cudaSuccess;
    return (cudaError_t)err;
}

cudaError_t cudaPeekAtLastError(void)
{
    if (pyshim_rt_sticky_error != 0)
        return (cudaError_t)pyshim_rt_sticky_error;
    return (cudaError_t)last_error;
}

struct error_row {
    int value;
    const char *name, *text;
};

static const struct error_row rows[] = {
#define PYSHIM_RT_ERROR(value, name, text) {value, name, text},
#include "runtime_errors.inc"
#undef PYSHIM_RT_ERROR
};

static const struct error_row *find(cudaError_t error)
{
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++)
        if (rows[i].value == (int)error)
            return &rows[i];
    return NULL;
}

const char *cudaGetErrorName(cudaError_t error)
{
    const struct error_row *r = find(error);
    return r != NULL ? r->name : "unrecognized error code";
}

const char *cudaGetErrorString(cudaError_t error)
{
    const struct error_row *r = find(error);
    return r != NULL ? r->text : "unrecognized error code";
}
