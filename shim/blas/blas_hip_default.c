/* Copies whose sides the caller may hold in either device or host memory (cuBLAS's
 * batched pointer arrays and what they point at are device memory on a GPU; a program
 * on the CPU device may hand host memory): hipMemcpyDefault infers each side, as CUDA's
 * unified addressing does. In a file of their own for the reason blas_hip.c gives. */
#include <hip/hip_runtime_api.h>

#include "blas_internal.h"

int pyshim_blas_read_after(void *host, const void *src, size_t bytes, void *stream)
{
    if (hipStreamSynchronize((hipStream_t)stream) != hipSuccess)
        return -1;
    return hipMemcpy(host, src, bytes, hipMemcpyDefault) == hipSuccess ? 0 : -1;
}

int pyshim_blas_copy_async(void *dst, const void *src, size_t bytes, void *stream)
{
    return hipMemcpyAsync(dst, src, bytes, hipMemcpyDefault, (hipStream_t)stream) == hipSuccess
               ? 0
               : -1;
}
