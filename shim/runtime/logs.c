/*
 * cudaLogs* (CUDA 12.9+): the driver's error log, read through libcuda.so.1's cuLogs* as
 * NVIDIA's runtime reads it. One log, one implementation (shim/core/logs.c): pyshim's own
 * log lines of libcuda, the registered callbacks, iterators as sequence numbers. The types
 * are the driver's under other names (cudaLogIterator is CUlogIterator, the callback has
 * CUlogsCallback's parameters), and the results the driver gives here (success, invalid
 * value, out of memory, file errors) have the same numbers as cudaError_t values.
 */
#define __CUDA_API_VERSION_INTERNAL 1
#include <cuda_runtime_api.h>

#include "cuda_side.h"

#if PYSHIM_CUDART_MAJOR >= 13 /* 12.9's headers do not declare them */

static cudaError_t result(const char *fn, int driver_rc)
{
    if (driver_rc == 0)
        return cudaSuccess;
    pyshim_rt_log("%s: the driver's log answered %d", fn, driver_rc);
    return pyshim_rt_fail(driver_rc);
}

/* The driver call, or NULL (logged) when libcuda.so.1 has no log. */
#define DRIVER(fn, field)                                                                    \
    do {                                                                                     \
        PYSHIM_RT_STICKY_CHECK();                                                            \
        if (pyshim_rt_driver.field == NULL) {                                                \
            pyshim_rt_log("%s: libcuda.so.1 has no cuLogs* to read", fn);                    \
            return pyshim_rt_fail(cudaErrorNotSupported);                                    \
        }                                                                                    \
    } while (0)

cudaError_t cudaLogsRegisterCallback(cudaLogsCallback_t callbackFunc, void *userData,
                                     cudaLogsCallbackHandle *callback_out)
{
    DRIVER("cudaLogsRegisterCallback", logs_register);
    return result("cudaLogsRegisterCallback",
                  pyshim_rt_driver.logs_register((void *)callbackFunc, userData,
                                                 (void **)callback_out));
}

cudaError_t cudaLogsUnregisterCallback(cudaLogsCallbackHandle callback)
{
    DRIVER("cudaLogsUnregisterCallback", logs_unregister);
    return result("cudaLogsUnregisterCallback", pyshim_rt_driver.logs_unregister(callback));
}

cudaError_t cudaLogsCurrent(cudaLogIterator *iterator_out, unsigned int flags)
{
    DRIVER("cudaLogsCurrent", logs_current);
    return result("cudaLogsCurrent", pyshim_rt_driver.logs_current(iterator_out, flags));
}

cudaError_t cudaLogsDumpToFile(cudaLogIterator *iterator, const char *pathToFile,
                               unsigned int flags)
{
    DRIVER("cudaLogsDumpToFile", logs_to_file);
    return result("cudaLogsDumpToFile",
                  pyshim_rt_driver.logs_to_file(iterator, pathToFile, flags));
}

cudaError_t cudaLogsDumpToMemory(cudaLogIterator *iterator, char *buffer, size_t *size,
                                 unsigned int flags)
{
    DRIVER("cudaLogsDumpToMemory", logs_to_memory);
    return result("cudaLogsDumpToMemory",
                  pyshim_rt_driver.logs_to_memory(iterator, buffer, size, flags));
}

#endif
