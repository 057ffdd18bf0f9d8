/*
 * The 1D copies with CUDA arrays that HIP has no call for (deprecated in CUDA, still used):
 * cudaMemcpyToArrayAsync, cudaMemcpyFromArrayAsync, cudaMemcpyArrayToArray. CUDA reads the
 * array as its rows of width * element-size bytes, one after the other: `count` bytes from
 * (wOffset bytes, hOffset rows) run on into the next rows. Each copy is split at row ends
 * into the 2D array copies this library maps (cudaMemcpy2D{To,From}ArrayAsync,
 * cudaMemcpy2DArrayToArray): the rest of the first row, the whole rows, the head of the last.
 */
#define __CUDA_API_VERSION_INTERNAL 1
#include <cuda_runtime_api.h>

#include "cuda_side.h"

#undef cudaMemcpyToArrayAsync
#undef cudaMemcpyFromArrayAsync
#undef cudaMemcpyArrayToArray
#undef cudaMemcpy2DToArrayAsync
#undef cudaMemcpy2DFromArrayAsync
#undef cudaMemcpy2DArrayToArray

#pragma GCC diagnostic ignored "-Wdeprecated-declarations"

/* An array's row length in bytes and its row count, or 0 if it is not an array. */
static int array_rows(cudaArray_const_t a, size_t *row_bytes, size_t *rows)
{
    struct cudaChannelFormatDesc d;
    struct cudaExtent e;
    unsigned int f;
    if (a == NULL || cudaArrayGetInfo(&d, &e, &f, (cudaArray_t)a) != cudaSuccess) {
        cudaGetLastError();
        return 0;
    }
    *row_bytes = e.width * (size_t)((d.x + d.y + d.z + d.w) / 8);
    *rows = e.height ? e.height : 1;
    return *row_bytes != 0;
}

/* Whether `count` bytes from (w, h) stay inside the array's rows. */
static cudaError_t span_check(const char *fn, cudaArray_const_t a, size_t w, size_t h,
                              size_t count, size_t *row_bytes)
{
    size_t rows;
    if (!array_rows(a, row_bytes, &rows)) {
        pyshim_rt_log("%s: %p is not an array", fn, (const void *)a);
        return pyshim_rt_fail(cudaErrorInvalidResourceHandle);
    }
    if (w > *row_bytes || h >= rows || (h * *row_bytes + w) + count > rows * *row_bytes) {
        pyshim_rt_log("%s: %zu bytes at (%zu, %zu) leave the array (%zu x %zu bytes)", fn,
                      count, w, h, *row_bytes, rows);
        return pyshim_rt_fail(cudaErrorInvalidValue);
    }
    return cudaSuccess;
}

/* Memory <-> array, split at the array's row ends; to_array chooses the direction. */
static cudaError_t linear_copy(const char *fn, int to_array, cudaArray_t arr, size_t w, size_t h,
                               char *mem, size_t count, enum cudaMemcpyKind kind,
                               cudaStream_t s)
{
    PYSHIM_RT_STICKY_CHECK();
    size_t row;
    cudaError_t err = span_check(fn, arr, w, h, count, &row);
    if (err != cudaSuccess)
        return err;
    while (count > 0 && err == cudaSuccess) {
        size_t width, height;
        if (w == 0 && count >= row) {
            width = row; /* whole rows in one 2D copy */
            height = count / row;
        } else {
            width = count < row - w ? count : row - w;
            height = 1;
        }
        if (to_array)
            err = cudaMemcpy2DToArrayAsync(arr, w, h, mem, width, width, height, kind, s);
        else
            err = cudaMemcpy2DFromArrayAsync(mem, width, arr, w, h, width, height, kind, s);
        mem += width * height;
        count -= width * height;
        if (height > 1) {
            h += height;
            continue;
        }
        w += width;
        if (w == row) {
            w = 0;
            h++;
        }
    }
    return err;
}

cudaError_t cudaMemcpyToArrayAsync(cudaArray_t dst, size_t wOffset, size_t hOffset,
                                   const void *src, size_t count, enum cudaMemcpyKind kind,
                                   cudaStream_t stream)
{
    return linear_copy("cudaMemcpyToArrayAsync", 1, dst, wOffset, hOffset, (char *)src, count,
                       kind, stream);
}

cudaError_t cudaMemcpyToArrayAsync_ptsz(cudaArray_t dst, size_t wOffset, size_t hOffset,
                                        const void *src, size_t count,
                                        enum cudaMemcpyKind kind, cudaStream_t stream)
{
    return linear_copy("cudaMemcpyToArrayAsync", 1, dst, wOffset, hOffset, (char *)src, count,
                       kind, stream == NULL ? cudaStreamPerThread : stream);
}

cudaError_t cudaMemcpyFromArrayAsync(void *dst, cudaArray_const_t src, size_t wOffset,
                                     size_t hOffset, size_t count, enum cudaMemcpyKind kind,
                                     cudaStream_t stream)
{
    return linear_copy("cudaMemcpyFromArrayAsync", 0, (cudaArray_t)src, wOffset, hOffset,
                       (char *)dst, count, kind, stream);
}

cudaError_t cudaMemcpyFromArrayAsync_ptsz(void *dst, cudaArray_const_t src, size_t wOffset,
                                          size_t hOffset, size_t count,
                                          enum cudaMemcpyKind kind, cudaStream_t stream)
{
    return linear_copy("cudaMemcpyFromArrayAsync", 0, (cudaArray_t)src, wOffset, hOffset,
                       (char *)dst, count, kind, stream == NULL ? cudaStreamPerThread : stream);
}

/* Array to array: pieces end where either array's row ends; whole rows go together when
 * both sides start rows of one length. */
static cudaError_t array_to_array(cudaArray_t dst, size_t wd, size_t hd, cudaArray_const_t src,
                                  size_t ws, size_t hs, size_t count, enum cudaMemcpyKind kind)
{
    PYSHIM_RT_STICKY_CHECK();
    const char *fn = "cudaMemcpyArrayToArray";
    if (kind != cudaMemcpyDeviceToDevice && kind != cudaMemcpyDefault) {
        pyshim_rt_log("%s: arrays are device memory: kind %d", fn, (int)kind);
        return pyshim_rt_fail(cudaErrorInvalidMemcpyDirection);
    }
    size_t rd, rs;
    cudaError_t err = span_check(fn, dst, wd, hd, count, &rd);
    if (err == cudaSuccess)
        err = span_check(fn, src, ws, hs, count, &rs);
    while (count > 0 && err == cudaSuccess) {
        size_t width, height = 1;
        if (wd == 0 && ws == 0 && rd == rs && count >= rd) {
            width = rd;
            height = count / rd;
        } else {
            width = count;
            if (rd - wd < width)
                width = rd - wd;
            if (rs - ws < width)
                width = rs - ws;
        }
        err = cudaMemcpy2DArrayToArray(dst, wd, hd, src, ws, hs, width, height,
                                       cudaMemcpyDeviceToDevice);
        count -= width * height;
        if (height > 1) {
            hd += height;
            hs += height;
            continue;
        }
        wd += width;
        ws += width;
        if (wd == rd) {
            wd = 0;
            hd++;
        }
        if (ws == rs) {
            ws = 0;
            hs++;
        }
    }
    return err;
}

cudaError_t cudaMemcpyArrayToArray(cudaArray_t dst, size_t wOffsetDst, size_t hOffsetDst,
                                   cudaArray_const_t src, size_t wOffsetSrc, size_t hOffsetSrc,
                                   size_t count, enum cudaMemcpyKind kind)
{
    return array_to_array(dst, wOffsetDst, hOffsetDst, src, wOffsetSrc, hOffsetSrc, count, kind);
}

/* The per-thread-default-stream form: the copy is synchronous either way, and a
 * synchronous copy is ordered after the per-thread stream's work as after the legacy one's. */
cudaError_t cudaMemcpyArrayToArray_ptds(cudaArray_t dst, size_t wOffsetDst, size_t hOffsetDst,
                                        cudaArray_const_t src, size_t wOffsetSrc,
                                        size_t hOffsetSrc, size_t count,
                                        enum cudaMemcpyKind kind)
{
    return array_to_array(dst, wOffsetDst, hOffsetDst, src, wOffsetSrc, hOffsetSrc, count, kind);
}
