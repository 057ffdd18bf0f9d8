/* The HIP calls of libcublas, in a file of their own: HIP's and CUDA's runtime headers
 * define the same vector types and cannot share a translation unit. */
#include <stdint.h>
#include <stdlib.h>
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

int pyshim_blas_copy_device(void *dst, size_t dpitch, const void *src, size_t spitch,
                            size_t width, size_t height, void *stream)
{
    hipError_t err = dpitch == width && spitch == width
                         ? hipMemcpyAsync(dst, src, width * height, hipMemcpyDeviceToDevice,
                                          (hipStream_t)stream)
                         : hipMemcpy2DAsync(dst, dpitch, src, spitch, width, height,
                                            hipMemcpyDeviceToDevice, (hipStream_t)stream);
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

/* cuSOLVER's 64-bit pivots <-> rocSOLVER's 32-bit ones, through host memory (after the
 * device is idle: the pivots are the result of work queued before). */
int pyshim_blas_widen_pivots(int64_t *dst, const int *src, int n)
{
    int *tmp = malloc((size_t)n * sizeof *tmp);
    int64_t *wide = malloc((size_t)n * sizeof *wide);
    int rc = -1;
    if (tmp && wide && hipDeviceSynchronize() == hipSuccess &&
        hipMemcpy(tmp, src, (size_t)n * sizeof *tmp, hipMemcpyDeviceToHost) == hipSuccess) {
        for (int i = 0; i < n; i++)
            wide[i] = tmp[i];
        rc = hipMemcpy(dst, wide, (size_t)n * sizeof *wide, hipMemcpyHostToDevice) == hipSuccess
                 ? 0 : -1;
    }
    free(tmp);
    free(wide);
    return rc;
}

int pyshim_blas_narrow_pivots(int *dst, const int64_t *src, int n)
{
    int64_t *wide = malloc((size_t)n * sizeof *wide);
    int *tmp = malloc((size_t)n * sizeof *tmp);
    int rc = -1;
    if (tmp && wide && hipDeviceSynchronize() == hipSuccess &&
        hipMemcpy(wide, src, (size_t)n * sizeof *wide, hipMemcpyDeviceToHost) == hipSuccess) {
        rc = 0;
        for (int i = 0; i < n; i++) {
            if (wide[i] < INT32_MIN || wide[i] > INT32_MAX)
                rc = -1;
            tmp[i] = (int)wide[i];
        }
        if (rc == 0)
            rc = hipMemcpy(dst, tmp, (size_t)n * sizeof *tmp, hipMemcpyHostToDevice) == hipSuccess
                     ? 0 : -1;
    }
    free(tmp);
    free(wide);
    return rc;
}

/* A small device result to the host, after the device's queued work. */
int pyshim_blas_read_back(void *host, const void *dev, size_t bytes)
{
    if (hipDeviceSynchronize() != hipSuccess)
        return -1;
    return hipMemcpy(host, dev, bytes, hipMemcpyDeviceToHost) == hipSuccess ? 0 : -1;
}

int pyshim_blas_fold_info(int *dev, int count, int not_converged)
{
    if (!dev || count <= 0)
        return 0;
    int *host = malloc(sizeof(int) * (size_t)count);
    if (!host)
        return -1;
    int rc = pyshim_blas_read_back(host, dev, sizeof(int) * (size_t)count);
    int changed = 0;
    for (int i = 0; rc == 0 && i < count; i++)
        if (host[i] > 0 && host[i] != not_converged) {
            host[i] = not_converged;
            changed = 1;
        }
    if (rc == 0 && changed &&
        hipMemcpy(dev, host, sizeof(int) * (size_t)count, hipMemcpyHostToDevice) != hipSuccess)
        rc = -1;
    free(host);
    return rc;
}
