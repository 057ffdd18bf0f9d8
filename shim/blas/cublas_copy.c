/* cublasSet/GetVector and Set/GetMatrix (+Async): host<->device copies through HIP's
 * 2D copies, with cuBLAS's argument rules (documented statuses: INVALID_VALUE for bad
 * sizes, MAPPING_ERROR when the copy itself fails). */
#include <cublas_v2.h>

#include "blas_internal.h"

typedef enum { TO_HOST = 0, TO_DEVICE = 1 } direction;

static cublasStatus_t copy2d(void *dst, size_t dpitch, const void *src, size_t spitch,
                             size_t width, size_t height, direction dir, int async,
                             cudaStream_t stream)
{
    int rc = pyshim_blas_copy2d(dst, dpitch, src, spitch, width, height, dir == TO_DEVICE,
                                async, (void *)stream);
    return rc == 0 ? CUBLAS_STATUS_SUCCESS : CUBLAS_STATUS_MAPPING_ERROR;
}

static cublasStatus_t vector(int n, int elem, const void *x, int incx, void *y, int incy,
                             direction dir, int async, cudaStream_t stream)
{
    if (n < 0 || elem <= 0 || incx <= 0 || incy <= 0)
        return CUBLAS_STATUS_INVALID_VALUE;
    if (n == 0)
        return CUBLAS_STATUS_SUCCESS;
    if (!x || !y)
        return CUBLAS_STATUS_INVALID_VALUE;
    return copy2d(y, (size_t)incy * (size_t)elem, x, (size_t)incx * (size_t)elem,
                  (size_t)elem, (size_t)n, dir, async, stream);
}

static cublasStatus_t matrix(int rows, int cols, int elem, const void *a, int lda, void *b,
                             int ldb, direction dir, int async, cudaStream_t stream)
{
    if (rows < 0 || cols < 0 || elem <= 0 || lda <= 0 || ldb <= 0 || lda < rows ||
        ldb < rows)
        return CUBLAS_STATUS_INVALID_VALUE;
    if (rows == 0 || cols == 0)
        return CUBLAS_STATUS_SUCCESS;
    if (!a || !b)
        return CUBLAS_STATUS_INVALID_VALUE;
    return copy2d(b, (size_t)ldb * (size_t)elem, a, (size_t)lda * (size_t)elem,
                  (size_t)rows * (size_t)elem, (size_t)cols, dir, async, stream);
}

PYSHIM_EXPORT cublasStatus_t cublasSetVector(int n, int elemSize, const void *x, int incx,
                                             void *devicePtr, int incy)
{
    return vector(n, elemSize, x, incx, devicePtr, incy, TO_DEVICE, 0, NULL);
}

PYSHIM_EXPORT cublasStatus_t cublasGetVector(int n, int elemSize, const void *x, int incx,
                                             void *y, int incy)
{
    return vector(n, elemSize, x, incx, y, incy, TO_HOST, 0, NULL);
}

PYSHIM_EXPORT cublasStatus_t cublasSetVectorAsync(int n, int elemSize, const void *hostPtr,
                                                  int incx, void *devicePtr, int incy,
                                                  cudaStream_t stream)
{
    return vector(n, elemSize, hostPtr, incx, devicePtr, incy, TO_DEVICE, 1, stream);
}

PYSHIM_EXPORT cublasStatus_t cublasGetVectorAsync(int n, int elemSize, const void *devicePtr,
                                                  int incx, void *hostPtr, int incy,
                                                  cudaStream_t stream)
{
    return vector(n, elemSize, devicePtr, incx, hostPtr, incy, TO_HOST, 1, stream);
}

PYSHIM_EXPORT cublasStatus_t cublasSetMatrix(int rows, int cols, int elemSize, const void *A,
                                             int lda, void *B, int ldb)
{
    return matrix(rows, cols, elemSize, A, lda, B, ldb, TO_DEVICE, 0, NULL);
}

PYSHIM_EXPORT cublasStatus_t cublasGetMatrix(int rows, int cols, int elemSize, const void *A,
                                             int lda, void *B, int ldb)
{
    return matrix(rows, cols, elemSize, A, lda, B, ldb, TO_HOST, 0, NULL);
}

PYSHIM_EXPORT cublasStatus_t cublasSetMatrixAsync(int rows, int cols, int elemSize,
                                                  const void *A, int lda, void *B, int ldb,
                                                  cudaStream_t stream)
{
    return matrix(rows, cols, elemSize, A, lda, B, ldb, TO_DEVICE, 1, stream);
}

PYSHIM_EXPORT cublasStatus_t cublasGetMatrixAsync(int rows, int cols, int elemSize,
                                                  const void *A, int lda, void *B, int ldb,
                                                  cudaStream_t stream)
{
    return matrix(rows, cols, elemSize, A, lda, B, ldb, TO_HOST, 1, stream);
}
