/* Error codes: the per-thread last error and HIP's names and descriptions. */
#include <stdarg.h>
#include <stdio.h>

#include "internal.h"

static _Thread_local hipError_t last_error = hipSuccess;

hipError_t cpu_ret(hipError_t err)
{
    if (err != hipSuccess)
        last_error = err;
    return err;
}

void cpu_log(const char *fmt, ...)
{
    char line[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    fprintf(stderr, "pyshim-cpu: %s\n", line);
}

hipError_t hipGetLastError(void)
{
    hipError_t err = last_error;
    last_error = hipSuccess;
    return err;
}

hipError_t hipPeekAtLastError(void)
{
    return last_error;
}

hipError_t hipExtGetLastError(void)
{
    return hipGetLastError();
}

/* Name and description per code; names are the enumerator spellings of hip_runtime_api.h. */
typedef struct error_text {
    hipError_t code;
    const char *name;
    const char *text;
} error_text;

#define E(code, text) {code, #code, text}
static const error_text errors[] = {
    E(hipSuccess, "no error"),
    E(hipErrorInvalidValue, "invalid argument"),
    E(hipErrorOutOfMemory, "out of memory"),
    E(hipErrorNotInitialized, "initialization error"),
    E(hipErrorDeinitialized, "driver shutting down"),
    E(hipErrorProfilerDisabled, "profiler disabled while using external profiling tool"),
    E(hipErrorProfilerNotInitialized, "profiler is not initialized"),
    E(hipErrorProfilerAlreadyStarted, "profiler already started"),
    E(hipErrorProfilerAlreadyStopped, "profiler already stopped"),
    E(hipErrorInvalidConfiguration, "invalid configuration argument"),
    E(hipErrorInvalidPitchValue, "invalid pitch argument"),
    E(hipErrorInvalidSymbol, "invalid device symbol"),
    E(hipErrorInvalidDevicePointer, "invalid device pointer"),
    E(hipErrorInvalidMemcpyDirection, "invalid copy direction for memcpy"),
    E(hipErrorInsufficientDriver, "driver version is insufficient for runtime version"),
    E(hipErrorMissingConfiguration, "__global__ function call is not configured"),
    E(hipErrorPriorLaunchFailure, "unspecified launch failure in prior launch"),
    E(hipErrorInvalidDeviceFunction, "invalid device function"),
    E(hipErrorNoDevice, "no ROCm-capable device is detected"),
    E(hipErrorInvalidDevice, "invalid device ordinal"),
    E(hipErrorInvalidImage, "device kernel image is invalid"),
    E(hipErrorInvalidContext, "invalid device context"),
    E(hipErrorContextAlreadyCurrent, "context is already current context"),
    E(hipErrorMapFailed, "mapping of buffer object failed"),
    E(hipErrorUnmapFailed, "unmapping of buffer object failed"),
    E(hipErrorArrayIsMapped, "array is mapped"),
    E(hipErrorAlreadyMapped, "resource already mapped"),
    E(hipErrorNoBinaryForGpu, "no kernel image is available for execution on the device"),
    E(hipErrorAlreadyAcquired, "resource already acquired"),
    E(hipErrorNotMapped, "resource not mapped"),
    E(hipErrorNotMappedAsArray, "resource not mapped as array"),
    E(hipErrorNotMappedAsPointer, "resource not mapped as pointer"),
    E(hipErrorECCNotCorrectable, "uncorrectable ECC error encountered"),
    E(hipErrorUnsupportedLimit, "limit is not supported on this architecture"),
    E(hipErrorContextAlreadyInUse, "exclusive-thread device already in use by a different thread"),
    E(hipErrorPeerAccessUnsupported, "peer access is not supported between these two devices"),
    E(hipErrorInvalidKernelFile, "invalid kernel file"),
    E(hipErrorInvalidGraphicsContext, "invalid OpenGL or DirectX context"),
    E(hipErrorInvalidSource, "device kernel image is invalid"),
    E(hipErrorFileNotFound, "file not found"),
    E(hipErrorSharedObjectSymbolNotFound, "shared object symbol not found"),
    E(hipErrorSharedObjectInitFailed, "shared object initialization failed"),
    E(hipErrorOperatingSystem, "OS call failed or operation not supported on this OS"),
    E(hipErrorInvalidHandle, "invalid resource handle"),
    E(hipErrorIllegalState, "the operation cannot be performed in the present state"),
    E(hipErrorNotFound, "named symbol not found"),
    E(hipErrorNotReady, "device not ready"),
    E(hipErrorIllegalAddress, "an illegal memory access was encountered"),
    E(hipErrorLaunchOutOfResources, "too many resources requested for launch"),
    E(hipErrorLaunchTimeOut, "the launch timed out and was terminated"),
    E(hipErrorPeerAccessAlreadyEnabled, "peer access is already enabled"),
    E(hipErrorPeerAccessNotEnabled, "peer access has not been enabled"),
    E(hipErrorSetOnActiveProcess, "cannot set while device is active in this process"),
    E(hipErrorContextIsDestroyed, "context is destroyed"),
    E(hipErrorAssert, "device-side assert triggered"),
    E(hipErrorHostMemoryAlreadyRegistered, "part or all of the requested memory range is already mapped"),
    E(hipErrorHostMemoryNotRegistered, "pointer does not correspond to a registered memory region"),
    E(hipErrorLaunchFailure, "unspecified launch failure"),
    /* HIP has no name for CUDA's 715; a kernel fault on an illegal instruction gives it */
    {CPU_ERROR_ILLEGAL_INSTRUCTION, "hipErrorIllegalInstruction", "an illegal instruction was encountered"},
    E(hipErrorCooperativeLaunchTooLarge, "too many blocks in cooperative launch"),
    E(hipErrorNotSupported, "operation not supported"),
    E(hipErrorStreamCaptureUnsupported, "operation not permitted when stream is capturing"),
    E(hipErrorStreamCaptureInvalidated, "operation failed due to a previous error during capture"),
    E(hipErrorStreamCaptureMerge, "operation would result in a merge of separate capture sequences"),
    E(hipErrorStreamCaptureUnmatched, "capture was not ended in the same stream as it began"),
    E(hipErrorStreamCaptureUnjoined, "capturing stream has unjoined work"),
    E(hipErrorStreamCaptureIsolation, "dependency created on uncaptured work in another stream"),
    E(hipErrorStreamCaptureImplicit, "operation would make the legacy stream depend on a capturing blocking stream"),
    E(hipErrorCapturedEvent, "operation not permitted on an event last recorded in a capturing stream"),
    E(hipErrorStreamCaptureWrongThread, "attempt to terminate a thread-local capture sequence from another thread"),
    E(hipErrorGraphExecUpdateFailure, "the graph update was not performed because it included changes which violated constraints specific to instantiated graph update"),
    E(hipErrorInvalidChannelDescriptor, "invalid channel descriptor"),
    E(hipErrorInvalidTexture, "invalid texture"),
    E(hipErrorUnknown, "unknown error"),
    E(hipErrorRuntimeMemory, "runtime memory call returned error"),
    E(hipErrorRuntimeOther, "runtime call other than memory returned error"),
    E(hipErrorTbd, "marker that more error codes are needed"),
};
#undef E

static const error_text *find_error(hipError_t code)
{
    for (size_t i = 0; i < sizeof errors / sizeof errors[0]; i++)
        if (errors[i].code == code)
            return &errors[i];
    return NULL;
}

const char *hipGetErrorName(hipError_t hip_error)
{
    const error_text *e = find_error(hip_error);
    return e ? e->name : "hipErrorUnknown";
}

const char *hipGetErrorString(hipError_t hipError)
{
    const error_text *e = find_error(hipError);
    return e ? e->text : "unknown error";
}

hipError_t hipDrvGetErrorName(hipError_t hipError, const char **errorString)
{
    const error_text *e = find_error(hipError);
    if (errorString == NULL)
        return cpu_ret(hipErrorInvalidValue);
    if (e == NULL) {
        *errorString = "hipErrorUnknown";
        return cpu_ret(hipErrorInvalidValue);
    }
    *errorString = e->name;
    return hipSuccess;
}

hipError_t hipDrvGetErrorString(hipError_t hipError, const char **errorString)
{
    const error_text *e = find_error(hipError);
    if (errorString == NULL)
        return cpu_ret(hipErrorInvalidValue);
    if (e == NULL) {
        *errorString = "unknown error";
        return cpu_ret(hipErrorInvalidValue);
    }
    *errorString = e->text;
    return hipSuccess;
}
