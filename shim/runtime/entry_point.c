/*
 * cudaGetDriverEntryPoint[ByVersion]: the driver API functions a program or library asks
 * the runtime for by name are the CUDA driver's, i.e. pyshim's libcuda.so.1, resolved with
 * its cuGetProcAddress_v2 (whose flags and status values are numbered as the runtime's).
 * HIP's own entry-point query knows only HIP names. libcuda.so.1 is opened on first use:
 * a program that never asks runs without it.
 */
#define _GNU_SOURCE
#define __CUDA_API_VERSION_INTERNAL 1
#include <cuda_runtime_api.h>
#include <dlfcn.h>
#include <pthread.h>

#include "cuda_side.h"

typedef int (*get_proc_fn)(const char *symbol, void **pfn, int cudaVersion,
                           unsigned long long flags, int *symbolStatus);

static pthread_once_t once = PTHREAD_ONCE_INIT;
static get_proc_fn get_proc;

static void open_driver(void)
{
    void *lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_GLOBAL);
    if (lib == NULL) {
        pyshim_rt_log("cudaGetDriverEntryPoint: cannot open libcuda.so.1: %s", dlerror());
        return;
    }
    get_proc = (get_proc_fn)dlsym(lib, "cuGetProcAddress_v2");
    if (get_proc == NULL)
        pyshim_rt_log("cudaGetDriverEntryPoint: libcuda.so.1 has no cuGetProcAddress_v2");
}

static cudaError_t entry_point(const char *symbol, void **funcPtr, unsigned int version,
                               unsigned long long flags,
                               enum cudaDriverEntryPointQueryResult *status)
{
    PYSHIM_RT_STICKY_CHECK();
    if (symbol == NULL || funcPtr == NULL)
        return (cudaError_t)pyshim_rt_record(cudaErrorInvalidValue);
    pthread_once(&once, open_driver);
    if (get_proc == NULL)
        return (cudaError_t)pyshim_rt_note_unsupported("cudaGetDriverEntryPoint");
    int found = 0;
    *funcPtr = NULL;
    int rc = get_proc(symbol, funcPtr, (int)version, flags, &found);
    if (status != NULL)
        *status = (enum cudaDriverEntryPointQueryResult)found;
    if (rc == 500 /* CUDA_ERROR_NOT_FOUND: reported through *status */ && status != NULL)
        return cudaSuccess;
    return rc == 0 ? cudaSuccess : (cudaError_t)pyshim_rt_record(rc == 1 ? cudaErrorInvalidValue
                                                                         : cudaErrorSymbolNotFound);
}

cudaError_t cudaGetDriverEntryPoint(const char *symbol, void **funcPtr, unsigned long long flags,
                                    enum cudaDriverEntryPointQueryResult *driverStatus)
{
    return entry_point(symbol, funcPtr, PYSHIM_RT_VERSION, flags, driverStatus);
}

cudaError_t cudaGetDriverEntryPointByVersion(const char *symbol, void **funcPtr,
                                             unsigned int cudaVersion, unsigned long long flags,
                                             enum cudaDriverEntryPointQueryResult *driverStatus)
{
    return entry_point(symbol, funcPtr, cudaVersion, flags, driverStatus);
}

/* the per-thread variants differ only in the default of flags, which callers pass */
cudaError_t cudaGetDriverEntryPoint_ptsz(const char *symbol, void **funcPtr,
                                         unsigned long long flags,
                                         enum cudaDriverEntryPointQueryResult *driverStatus)
{
    return entry_point(symbol, funcPtr, PYSHIM_RT_VERSION, flags, driverStatus);
}

cudaError_t cudaGetDriverEntryPointByVersion_ptsz(const char *symbol, void **funcPtr,
                                                  unsigned int cudaVersion,
                                                  unsigned long long flags,
                                                  enum cudaDriverEntryPointQueryResult *status)
{
    return entry_point(symbol, funcPtr, cudaVersion, flags, status);
}
