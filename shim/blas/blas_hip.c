/* The HIP calls of libcublas, in a file of their own: HIP's and CUDA's runtime headers
 * define the same vector types and cannot share a translation unit. */
#include <hip/hip_runtime_api.h>

#include "blas_internal.h"

int pyshim_blas_copy2d(void *dst, size_t dpitch, const void *src, size_t spitch,
                       size_t width, size_t height, int to_device, int async, void *stream)
{
    hipMemcpyKind kind = to_device ? hipMemcpyHostToDevice : hipMemcpyDeviceToHost;
    hipError_t err;
    if (dpitch == width && spitch == width)
        err = async ? hipMemcpyAsync(dst, src, width * height, kind, (hipStream_t)stream)
                    : hipMemcpy(dst, src, width * height, kind);
    else
        err = async ? hipMemcpy2DAsync(dst, dpitch, src, spitch, width, height, kind,
                                       (hipStream_t)stream)
                    : hipMemcpy2D(dst, dpitch, src, spitch, width, height, kind);
    return err == hipSuccess ? 0 : -1;
}

int pyshim_blas_zero_int(int *dev, void *stream)
{
    return hipMemsetAsync(dev, 0, sizeof *dev, (hipStream_t)stream) == hipSuccess ? 0 : -1;
}

int pyshim_blas_device_alloc(void **ptr, size_t bytes)
{
    *ptr = NULL;
    return hipMalloc(ptr, bytes) == hipSuccess ? 0 : -1;
}

void pyshim_blas_device_free(void *ptr)
{
    if (ptr)
        hipFree(ptr);
}
