/*
 * __device__ and __constant__ variables by their host shadow (registered by
 * __cudaRegisterVar): the address comes from the translated module, the copy is an
 * ordinary runtime memcpy (cudaMemcpy / cudaMemcpyAsync of this library).
 */
#define __CUDA_API_VERSION_INTERNAL 1
#include <cuda_runtime_api.h>

#include "cuda_side.h"

/* The device address of [offset, offset + count) inside the symbol. */
static int locate(const void *symbol, size_t offset, size_t count, char **out)
{
    if (pyshim_rt_sticky_error != 0)
        return pyshim_rt_sticky_error;
    void *base = NULL;
    size_t size = 0;
    int rc = pyshim_rt_symbol(symbol, &base, &size);
    if (rc != cudaSuccess)
        return rc;
    if (offset > size || count > size - offset)
        return cudaErrorInvalidValue;
    *out = (char *)base + offset;
    return cudaSuccess;
}

static int to_kind_ok(enum cudaMemcpyKind kind)
{
    return kind == cudaMemcpyHostToDevice || kind == cudaMemcpyDeviceToDevice ||
           kind == cudaMemcpyDefault;
}

static int from_kind_ok(enum cudaMemcpyKind kind)
{
    return kind == cudaMemcpyDeviceToHost || kind == cudaMemcpyDeviceToDevice ||
           kind == cudaMemcpyDefault;
}

/* The device end of a symbol copy: checks the direction (`to`: into the symbol), then
 * locates the bytes. cudaSuccess, or the error the copy must fail with. */
static int symbol_end(int to, const void *symbol, size_t offset, size_t count,
                      enum cudaMemcpyKind kind, char **out)
{
    if (!(to ? to_kind_ok(kind) : from_kind_ok(kind)))
        return cudaErrorInvalidMemcpyDirection;
    return locate(symbol, offset, count, out);
}

/* One copy per entry point: the same checks, then the ordinary memcpy of its stream kind. */
#define TO_SYMBOL(copy)                                                                 \
    char *dev = NULL;                                                                   \
    int rc = symbol_end(1, symbol, offset, count, kind, &dev);                          \
    if (rc != cudaSuccess)                                                              \
        return pyshim_rt_fail(rc);                                                      \
    return copy
#define FROM_SYMBOL(copy)                                                               \
    char *dev = NULL;                                                                   \
    int rc = symbol_end(0, symbol, offset, count, kind, &dev);                          \
    if (rc != cudaSuccess)                                                              \
        return pyshim_rt_fail(rc);                                                      \
    return copy

cudaError_t cudaMemcpyToSymbol(const void *symbol, const void *src, size_t count, size_t offset,
                               enum cudaMemcpyKind kind)
{
    TO_SYMBOL(cudaMemcpy(dev, src, count, kind));
}

cudaError_t cudaMemcpyFromSymbol(void *dst, const void *symbol, size_t count, size_t offset,
                                 enum cudaMemcpyKind kind)
{
    FROM_SYMBOL(cudaMemcpy(dst, dev, count, kind));
}

cudaError_t cudaMemcpyToSymbolAsync(const void *symbol, const void *src, size_t count,
                                    size_t offset, enum cudaMemcpyKind kind, cudaStream_t stream)
{
    TO_SYMBOL(cudaMemcpyAsync(dev, src, count, kind, stream));
}

cudaError_t cudaMemcpyFromSymbolAsync(void *dst, const void *symbol, size_t count, size_t offset,
                                      enum cudaMemcpyKind kind, cudaStream_t stream)
{
    FROM_SYMBOL(cudaMemcpyAsync(dst, dev, count, kind, stream));
}

/* per-thread default stream variants: the same copies on the per-thread stream */
cudaError_t cudaMemcpyToSymbol_ptds(const void *symbol, const void *src, size_t count,
                                    size_t offset, enum cudaMemcpyKind kind)
{
    TO_SYMBOL(cudaMemcpy_ptds(dev, src, count, kind));
}

cudaError_t cudaMemcpyFromSymbol_ptds(void *dst, const void *symbol, size_t count, size_t offset,
                                      enum cudaMemcpyKind kind)
{
    FROM_SYMBOL(cudaMemcpy_ptds(dst, dev, count, kind));
}

cudaError_t cudaMemcpyToSymbolAsync_ptsz(const void *symbol, const void *src, size_t count,
                                         size_t offset, enum cudaMemcpyKind kind,
                                         cudaStream_t stream)
{
    TO_SYMBOL(cudaMemcpyAsync_ptsz(dev, src, count, kind, stream));
}

cudaError_t cudaMemcpyFromSymbolAsync_ptsz(void *dst, const void *symbol, size_t count,
                                           size_t offset, enum cudaMemcpyKind kind,
                                           cudaStream_t stream)
{
    FROM_SYMBOL(cudaMemcpyAsync_ptsz(dst, dev, count, kind, stream));
}

cudaError_t cudaGetSymbolAddress(void **devPtr, const void *symbol)
{
    if (devPtr == NULL)
        return pyshim_rt_fail(cudaErrorInvalidValue);
    char *p = NULL;
    int rc = locate(symbol, 0, 0, &p);
    if (rc != cudaSuccess)
        return pyshim_rt_fail(rc);
    *devPtr = p;
    return cudaSuccess;
}

cudaError_t cudaGetSymbolSize(size_t *size, const void *symbol)
{
    if (size == NULL)
        return pyshim_rt_fail(cudaErrorInvalidValue);
    PYSHIM_RT_STICKY_CHECK();
    void *base = NULL;
    int rc = pyshim_rt_symbol(symbol, &base, size);
    return rc != cudaSuccess ? pyshim_rt_fail(rc) : cudaSuccess;
}

/* symbol_end for the graph's symbol copy nodes (graph_symbol.c) */
int pyshim_rt_symbol_end(int to, const void *symbol, size_t offset, size_t count, int kind,
                         char **out)
{
    return symbol_end(to, symbol, offset, count, (enum cudaMemcpyKind)kind, out);
}
