/*
 * Helpers for the files that implement CUDA entry points (they include cuda_runtime_api.h
 * first): CUDA's error discipline in two lines.
 */
#ifndef PYSHIM_RUNTIME_CUDA_SIDE_H
#define PYSHIM_RUNTIME_CUDA_SIDE_H

#include "internal.h"

/* A sticky error poisons every later call until cudaDeviceReset (CUDA's semantics).
 * A thread's first call also initialises the driver and gives the thread a current
 * context, as NVIDIA's runtime does (driver_init.c, context.c). */
#define PYSHIM_RT_STICKY_CHECK()                                           \
    do {                                                                   \
        if (__builtin_expect(!pyshim_rt_thread_bound, 0))                  \
            pyshim_rt_thread_init();                                       \
        if (__builtin_expect(pyshim_rt_sticky_error != 0, 0))              \
            return (cudaError_t)pyshim_rt_sticky_error;                    \
    } while (0)

/* Leave an error as the calling thread's last error and return it. */
static inline cudaError_t pyshim_rt_fail(int rc)
{
    return (cudaError_t)pyshim_rt_record(rc);
}

#endif
