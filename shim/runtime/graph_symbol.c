/*
 * Copy nodes whose device end is a __device__/__constant__ variable named by its host
 * shadow: the shadow means nothing to HIP, so the variable's address is found here (as
 * cudaMemcpyToSymbol does, symbol.c) and the node is an ordinary 1D copy node, made or
 * changed by this library's own 1D calls. CUDA checks the direction and the bounds when
 * the node is made or changed, and so does this.
 */
#define __CUDA_API_VERSION_INTERNAL 1
#include <cuda_runtime_api.h>

#include "cuda_side.h"

/* The two ends of a copy between a symbol and `host` (the source when `to`, else the
 * destination), or the error the call fails with (logged, naming the call). One function
 * for both directions, so To and From check the same things. */
static cudaError_t ends(const char *call, int to, const void *symbol, const void *host,
                        size_t offset, size_t count, enum cudaMemcpyKind kind, void **dst,
                        const void **src)
{
    PYSHIM_RT_STICKY_CHECK();
    char *dev = NULL;
    int rc = pyshim_rt_symbol_end(to, symbol, offset, count, (int)kind, &dev);
    if (rc != cudaSuccess) {
        pyshim_rt_log("%s: symbol %p, %zu bytes at offset %zu, kind %d: %s", call, symbol,
                      count, offset, (int)kind, cudaGetErrorName((cudaError_t)rc));
        return pyshim_rt_fail(rc);
    }
    *dst = to ? dev : (void *)host;
    *src = to ? host : dev;
    return cudaSuccess;
}

cudaError_t cudaGraphAddMemcpyNodeToSymbol(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
                                           const cudaGraphNode_t *pDependencies,
                                           size_t numDependencies, const void *symbol,
                                           const void *src, size_t count, size_t offset,
                                           enum cudaMemcpyKind kind)
{
    void *d = NULL;
    const void *s = NULL;
    cudaError_t rc = ends(__func__, 1, symbol, src, offset, count, kind, &d, &s);
    return rc != cudaSuccess ? rc : cudaGraphAddMemcpyNode1D(pGraphNode, graph, pDependencies,
                                                             numDependencies, d, s, count, kind);
}

cudaError_t cudaGraphAddMemcpyNodeFromSymbol(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
                                             const cudaGraphNode_t *pDependencies,
                                             size_t numDependencies, void *dst,
                                             const void *symbol, size_t count, size_t offset,
                                             enum cudaMemcpyKind kind)
{
    void *d = NULL;
    const void *s = NULL;
    cudaError_t rc = ends(__func__, 0, symbol, dst, offset, count, kind, &d, &s);
    return rc != cudaSuccess ? rc : cudaGraphAddMemcpyNode1D(pGraphNode, graph, pDependencies,
                                                             numDependencies, d, s, count, kind);
}

cudaError_t cudaGraphMemcpyNodeSetParamsToSymbol(cudaGraphNode_t node, const void *symbol,
                                                 const void *src, size_t count, size_t offset,
                                                 enum cudaMemcpyKind kind)
{
    void *d = NULL;
    const void *s = NULL;
    cudaError_t rc = ends(__func__, 1, symbol, src, offset, count, kind, &d, &s);
    return rc != cudaSuccess ? rc : cudaGraphMemcpyNodeSetParams1D(node, d, s, count, kind);
}

cudaError_t cudaGraphMemcpyNodeSetParamsFromSymbol(cudaGraphNode_t node, void *dst,
                                                   const void *symbol, size_t count,
                                                   size_t offset, enum cudaMemcpyKind kind)
{
    void *d = NULL;
    const void *s = NULL;
    cudaError_t rc = ends(__func__, 0, symbol, dst, offset, count, kind, &d, &s);
    return rc != cudaSuccess ? rc : cudaGraphMemcpyNodeSetParams1D(node, d, s, count, kind);
}

cudaError_t cudaGraphExecMemcpyNodeSetParamsToSymbol(cudaGraphExec_t hGraphExec,
                                                     cudaGraphNode_t node, const void *symbol,
                                                     const void *src, size_t count,
                                                     size_t offset, enum cudaMemcpyKind kind)
{
    void *d = NULL;
    const void *s = NULL;
    cudaError_t rc = ends(__func__, 1, symbol, src, offset, count, kind, &d, &s);
    return rc != cudaSuccess ? rc
                             : cudaGraphExecMemcpyNodeSetParams1D(hGraphExec, node, d, s, count,
                                                                  kind);
}

cudaError_t cudaGraphExecMemcpyNodeSetParamsFromSymbol(cudaGraphExec_t hGraphExec,
                                                       cudaGraphNode_t node, void *dst,
                                                       const void *symbol, size_t count,
                                                       size_t offset, enum cudaMemcpyKind kind)
{
    void *d = NULL;
    const void *s = NULL;
    cudaError_t rc = ends(__func__, 0, symbol, dst, offset, count, kind, &d, &s);
    return rc != cudaSuccess ? rc
                             : cudaGraphExecMemcpyNodeSetParams1D(hGraphExec, node, d, s, count,
                                                                  kind);
}
