/*
 * The runtime's side of the driver's current context. NVIDIA's runtime makes the primary
 * context of its current device current for the driver API in every thread it is used
 * from (on the thread's first runtime call, and on cudaSetDevice), so code that mixes the
 * two APIs (NCCL, cuBLAS-style libraries, ggml) finds cuCtxGetCurrent naming that context
 * and cuMemAlloc landing on that device. pyshim's runtime drives HIP directly, so it does
 * the same through libcuda's public entry points, when there is a libcuda (driver_init.c).
 * A context the thread already has (set through the driver API) is kept, as CUDA keeps it.
 */
#define __CUDA_API_VERSION_INTERNAL 1
#include <cuda_runtime_api.h>

#include "cuda_side.h"

/* the default TLS model: initial-exec would put all of this library's 1.3 KB of TLS into
 * the static block, which a dlopen (Python frameworks load us that way) may not have */
_Thread_local int pyshim_rt_thread_bound;

/* One retain per device for the life of the process, as NVIDIA's runtime holds it. */
#define RETAINED_MAX 1024
static void *retained[RETAINED_MAX];

static void *primary_ctx(int device)
{
    void *ctx = NULL;
    if (device >= 0 && device < RETAINED_MAX) {
        ctx = __atomic_load_n(&retained[device], __ATOMIC_ACQUIRE);
        if (ctx != NULL)
            return ctx;
    }
    if (pyshim_rt_driver.primary_retain(&ctx, device) != 0 || ctx == NULL)
        return NULL;
    if (device >= 0 && device < RETAINED_MAX) {
        void *none = NULL;
        /* another thread retained it first: give back ours (the same context) */
        if (!__atomic_compare_exchange_n(&retained[device], &none, ctx, 0, __ATOMIC_ACQ_REL,
                                         __ATOMIC_ACQUIRE))
            pyshim_rt_driver.primary_release(device);
    }
    return ctx;
}

/* cudaError_t of making `device`'s primary context the thread's current context. */
static int make_primary_current(int device)
{
    if (!pyshim_rt_driver.present)
        return cudaSuccess;
    void *ctx = primary_ctx(device);
    if (ctx == NULL) {
        pyshim_rt_log("cudaSetDevice: the driver has no primary context for device %d", device);
        return cudaErrorInvalidDevice;
    }
    if (pyshim_rt_driver.ctx_set_current(ctx) != 0) {
        pyshim_rt_log("cudaSetDevice: cuCtxSetCurrent failed for device %d", device);
        return cudaErrorInvalidDevice;
    }
    return cudaSuccess;
}

void pyshim_rt_thread_init(void)
{
    pyshim_rt_thread_bound = 1;
    if (!__atomic_load_n(&pyshim_rt_driver_ready, __ATOMIC_ACQUIRE))
        pyshim_rt_driver_init();
    if (!pyshim_rt_driver.present)
        return;
    void *cur = NULL;
    if (pyshim_rt_driver.ctx_get_current(&cur) != 0 || cur != NULL)
        return;
    int device = 0;
    if (pyshim_rt_hip_get_device(&device) != cudaSuccess)
        return;
    if (make_primary_current(device) != cudaSuccess)
        pyshim_rt_log("the runtime could not make device %d's primary context current", device);
}

cudaError_t cudaSetDevice(int device)
{
    PYSHIM_RT_STICKY_CHECK();
    int rc = pyshim_rt_hip_set_device(device);
    if (rc != cudaSuccess)
        return pyshim_rt_fail(rc);
    rc = make_primary_current(device);
    return rc != cudaSuccess ? pyshim_rt_fail(rc) : cudaSuccess;
}
