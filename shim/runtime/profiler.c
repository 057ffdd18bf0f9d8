/*
 * cuda_profiler_api.h: no profiler is attached to the shim, and NVIDIA's runtime returns
 * success when none is, so programs that bracket a region keep running.
 */
#define __CUDA_API_VERSION_INTERNAL 1
#include <cuda_runtime_api.h> /* cuda_profiler_api.h is not in the runtime wheels */

#include "cuda_side.h"

cudaError_t cudaProfilerStart(void)
{
    return pyshim_rt_sticky_error != 0 ? (cudaError_t)pyshim_rt_sticky_error : cudaSuccess;
}

cudaError_t cudaProfilerStop(void)
{
    return pyshim_rt_sticky_error != 0 ? (cudaError_t)pyshim_rt_sticky_error : cudaSuccess;
}
