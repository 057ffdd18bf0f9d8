/* cuFFT's int plans over hipFFT's pointer plans, and the cuFFT entry points whose answer is
 * cuFFT's own (tables: cufft.shim). */
#include <pthread.h>
#include <stddef.h>

#include <cufftXt.h>

#include "cufft_rocm.h"
#include "randfft_internal.h"

/* Handles are slot + 1 (0 is never handed out, so a zeroed cufftHandle names no plan). A
 * freed slot is reused: cuFFT's own handles are small reused ints too. */
#define MAX_PLANS 4096
static void *plans[MAX_PLANS];
static pthread_mutex_t plans_lock = PTHREAD_MUTEX_INITIALIZER;

void *pyshim_fft_plan(int plan)
{
    void *h = NULL;
    if (plan < 1 || plan > MAX_PLANS)
        return NULL;
    pthread_mutex_lock(&plans_lock);
    h = plans[plan - 1];
    pthread_mutex_unlock(&plans_lock);
    return h;
}

int pyshim_fft_register(void *h)
{
    int out = -1;
    pthread_mutex_lock(&plans_lock);
    for (int i = 0; i < MAX_PLANS; i++) {
        if (!plans[i]) {
            plans[i] = h;
            out = i + 1;
            break;
        }
    }
    pthread_mutex_unlock(&plans_lock);
    return out;
}

void *pyshim_fft_release(int plan)
{
    void *h = NULL;
    if (plan < 1 || plan > MAX_PLANS)
        return NULL;
    pthread_mutex_lock(&plans_lock);
    h = plans[plan - 1];
    plans[plan - 1] = NULL;
    pthread_mutex_unlock(&plans_lock);
    return h;
}

PYSHIM_EXPORT cufftResult cufftDestroy(cufftHandle plan)
{
    void *h = pyshim_fft_release(plan);
    if (!h)
        return CUFFT_INVALID_PLAN;
    return hipfftDestroy(h) == 0 /* HIPFFT_SUCCESS */ ? CUFFT_SUCCESS : CUFFT_INTERNAL_ERROR;
}

PYSHIM_EXPORT cufftResult cufftGetVersion(int *version)
{
    if (!version)
        return CUFFT_INVALID_VALUE;
    *version = CUFFT_VERSION;
    return CUFFT_SUCCESS;
}

PYSHIM_EXPORT cufftResult cufftGetProperty(libraryPropertyType type, int *value)
{
    if (!value)
        return CUFFT_INVALID_VALUE;
    switch (type) {
    case MAJOR_VERSION: *value = CUFFT_VER_MAJOR; break;
    case MINOR_VERSION: *value = CUFFT_VER_MINOR; break;
    case PATCH_LEVEL: *value = CUFFT_VER_PATCH; break;
    default: return CUFFT_INVALID_TYPE;
    }
    return CUFFT_SUCCESS;
}

/* A callback is a device function compiled for NVIDIA GPUs (its address comes from
 * cudaMemcpyFromSymbol of a __device__ pointer): nothing pyshim can run inside hipFFT's
 * kernels, so it is refused by name, and the plan stays usable without it. */
PYSHIM_EXPORT cufftResult cufftXtSetCallback(cufftHandle plan, void **callback_routine,
                                             cufftXtCallbackType cb_type, void **caller_info)
{
    (void)callback_routine;
    (void)cb_type;
    (void)caller_info;
    if (!pyshim_fft_plan(plan))
        return CUFFT_INVALID_PLAN;
    pyshim_cufft_unsupported("cufftXtSetCallback");
    return CUFFT_NOT_SUPPORTED;
}

PYSHIM_EXPORT cufftResult cufftXtClearCallback(cufftHandle plan, cufftXtCallbackType cb_type)
{
    (void)cb_type;
    return pyshim_fft_plan(plan) ? CUFFT_SUCCESS : CUFFT_INVALID_PLAN;
}

PYSHIM_EXPORT cufftResult cufftXtSetCallbackSharedSize(cufftHandle plan,
                                                       cufftXtCallbackType cb_type,
                                                       size_t shared_size)
{
    (void)cb_type;
    (void)shared_size;
    if (!pyshim_fft_plan(plan))
        return CUFFT_INVALID_PLAN;
    pyshim_cufft_unsupported("cufftXtSetCallbackSharedSize");
    return CUFFT_NOT_SUPPORTED;
}
