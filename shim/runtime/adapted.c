/*
 * Runtime entry points whose CUDA structs HIP lays out differently, converted through
 * backend_adapt.c: memset graph nodes, a node's type, instantiation with parameters,
 * stream attributes, pool creation and CUDA 13's location-addressed device pools, and
 * cudaMemRangeGetAttributes (one cudaMemRangeGetAttribute per requested attribute).
 */
#define __CUDA_API_VERSION_INTERNAL 1
#include <cuda_runtime_api.h>
#include <stddef.h>
#include <string.h>

#include "cuda_side.h"

/* internal.h's plain copies must be CUDA's layouts */
_Static_assert(offsetof(struct cudaMemsetParams, pitch) == offsetof(struct pyshim_rt_memset, pitch) &&
               offsetof(struct cudaMemsetParams, value) == offsetof(struct pyshim_rt_memset, value) &&
               offsetof(struct cudaMemsetParams, elementSize) ==
                   offsetof(struct pyshim_rt_memset, element_size) &&
               offsetof(struct cudaMemsetParams, width) == offsetof(struct pyshim_rt_memset, width) &&
               offsetof(struct cudaMemsetParams, height) == offsetof(struct pyshim_rt_memset, height) &&
               sizeof(struct cudaMemsetParams) == sizeof(struct pyshim_rt_memset),
               "cudaMemsetParams");
_Static_assert(sizeof(cudaLaunchAttributeValue) == sizeof(union pyshim_rt_attr_value) &&
               offsetof(struct cudaAccessPolicyWindow, num_bytes) == sizeof(void *) &&
               offsetof(struct cudaAccessPolicyWindow, hitRatio) == 2 * sizeof(void *) &&
               offsetof(struct cudaAccessPolicyWindow, hitProp) == 2 * sizeof(void *) + 4 &&
               offsetof(struct cudaAccessPolicyWindow, missProp) == 2 * sizeof(void *) + 8,
               "cudaLaunchAttributeValue");

static void *hip_stream(cudaStream_t s, int per_thread)
{
    if (s == cudaStreamLegacy)
        return NULL;
    if (s == NULL && per_thread)
        return cudaStreamPerThread;
    return s;
}

static cudaError_t done(int rc)
{
    return rc == 0 ? cudaSuccess : pyshim_rt_fail(rc);
}

static cudaError_t refuse(const char *call, const char *why)
{
    pyshim_rt_log("%s: %s", call, why);
    return pyshim_rt_fail(cudaErrorInvalidValue);
}

/* ---------------------------------------------------------------- memset nodes */

cudaError_t cudaGraphAddMemsetNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
                                   const cudaGraphNode_t *pDependencies, size_t numDependencies,
                                   const struct cudaMemsetParams *pMemsetParams)
{
    PYSHIM_RT_STICKY_CHECK();
    if (pGraphNode == NULL || graph == NULL || pMemsetParams == NULL ||
        (numDependencies > 0 && pDependencies == NULL))
        return refuse("cudaGraphAddMemsetNode", "a NULL node, graph, parameters or dependencies");
    struct pyshim_rt_memset m;
    memcpy(&m, pMemsetParams, sizeof m);
    void *node = NULL;
    int rc = pyshim_rt_hip_graph_memset_node(&node, graph, (void *const *)pDependencies,
                                             numDependencies, &m);
    if (rc == 0)
        *pGraphNode = (cudaGraphNode_t)node;
    return done(rc);
}

cudaError_t cudaGraphMemsetNodeGetParams(cudaGraphNode_t node, struct cudaMemsetParams *pNodeParams)
{
    PYSHIM_RT_STICKY_CHECK();
    if (node == NULL || pNodeParams == NULL)
        return refuse("cudaGraphMemsetNodeGetParams", "a NULL node or output");
    struct pyshim_rt_memset m;
    int rc = pyshim_rt_hip_graph_memset_get(node, &m);
    if (rc == 0)
        memcpy(pNodeParams, &m, sizeof m);
    return done(rc);
}

cudaError_t cudaGraphMemsetNodeSetParams(cudaGraphNode_t node,
                                         const struct cudaMemsetParams *pNodeParams)
{
    PYSHIM_RT_STICKY_CHECK();
    if (node == NULL || pNodeParams == NULL)
        return refuse("cudaGraphMemsetNodeSetParams", "a NULL node or parameters");
    struct pyshim_rt_memset m;
    memcpy(&m, pNodeParams, sizeof m);
    return done(pyshim_rt_hip_graph_memset_set(node, &m));
}

cudaError_t cudaGraphExecMemsetNodeSetParams(cudaGraphExec_t hGraphExec, cudaGraphNode_t node,
                                             const struct cudaMemsetParams *pNodeParams)
{
    PYSHIM_RT_STICKY_CHECK();
    if (hGraphExec == NULL || node == NULL || pNodeParams == NULL)
        return refuse("cudaGraphExecMemsetNodeSetParams", "a NULL exec, node or parameters");
    struct pyshim_rt_memset m;
    memcpy(&m, pNodeParams, sizeof m);
    return done(pyshim_rt_hip_graph_exec_memset_set(hGraphExec, node, &m));
}

/* ---------------------------------------------------------------- node type, instantiate */

cudaError_t cudaGraphNodeGetType(cudaGraphNode_t node, enum cudaGraphNodeType *pType)
{
    PYSHIM_RT_STICKY_CHECK();
    if (node == NULL || pType == NULL)
        return refuse("cudaGraphNodeGetType", "a NULL node or output");
    int t = 0;
    int rc = pyshim_rt_hip_graph_node_type(node, &t);
    if (rc != 0)
        return done(rc);
    if (t >= 12 && t <= 13) {
        t = cudaGraphNodeTypeMemcpy;  /* HIP's symbol copies are CUDA's memcpy nodes */
    } else if (t < 0 || t > cudaGraphNodeTypeMemFree) {
        pyshim_rt_log("cudaGraphNodeGetType: HIP node type %d has no CUDA counterpart", t);
        return pyshim_rt_fail(cudaErrorNotSupported);
    }
    *pType = (enum cudaGraphNodeType)t;  /* 0..11: the same numbers */
    return cudaSuccess;
}

static cudaError_t instantiate(const char *call, cudaGraphExec_t *pGraphExec, cudaGraph_t graph,
                               cudaGraphInstantiateParams *p, int per_thread)
{
    PYSHIM_RT_STICKY_CHECK();
    if (pGraphExec == NULL || graph == NULL || p == NULL)
        return refuse(call, "a NULL exec, graph or parameters");
    void *exec = NULL, *err_node = NULL;
    int result = 0;
    int rc = pyshim_rt_hip_graph_instantiate(&exec, graph, p->flags,
                                             hip_stream(p->uploadStream, per_thread), &err_node,
                                             &result);
    p->errNode_out = (cudaGraphNode_t)err_node;
    p->result_out = (cudaGraphInstantiateResult)result;
    if (rc == 0)
        *pGraphExec = (cudaGraphExec_t)exec;
    return done(rc);
}

cudaError_t cudaGraphInstantiateWithParams(cudaGraphExec_t *pGraphExec, cudaGraph_t graph,
                                           cudaGraphInstantiateParams *instantiateParams)
{
    return instantiate("cudaGraphInstantiateWithParams", pGraphExec, graph, instantiateParams, 0);
}

cudaError_t cudaGraphInstantiateWithParams_ptsz(cudaGraphExec_t *pGraphExec, cudaGraph_t graph,
                                                cudaGraphInstantiateParams *instantiateParams)
{
    return instantiate("cudaGraphInstantiateWithParams_ptsz", pGraphExec, graph,
                       instantiateParams, 1);
}

/* ---------------------------------------------------------------- stream attributes */

static int stream_attr(cudaLaunchAttributeID attr)
{
    return attr == cudaLaunchAttributeAccessPolicyWindow ||
           attr == cudaLaunchAttributeSynchronizationPolicy ||
           attr == cudaLaunchAttributePriority || attr == cudaLaunchAttributeMemSyncDomain ||
           attr == cudaLaunchAttributeMemSyncDomainMap;
}

static cudaError_t get_attr(const char *call, cudaStream_t stream, cudaLaunchAttributeID attr,
                            cudaLaunchAttributeValue *value, int per_thread)
{
    PYSHIM_RT_STICKY_CHECK();
    if (value == NULL)
        return refuse(call, "a NULL output");
    if (!stream_attr(attr)) {
        pyshim_rt_log("%s: attribute %d is not a stream attribute", call, (int)attr);
        return pyshim_rt_fail(cudaErrorInvalidValue);
    }
    union pyshim_rt_attr_value v;
    int rc = pyshim_rt_hip_stream_get_attr(hip_stream(stream, per_thread), (int)attr, &v);
    if (rc == 0)
        memcpy(value, &v, sizeof v);
    return done(rc);
}

static cudaError_t set_attr(const char *call, cudaStream_t stream, cudaLaunchAttributeID attr,
                            const cudaLaunchAttributeValue *value, int per_thread)
{
    PYSHIM_RT_STICKY_CHECK();
    if (value == NULL)
        return refuse(call, "a NULL value");
    if (!stream_attr(attr)) {
        pyshim_rt_log("%s: attribute %d is not a stream attribute", call, (int)attr);
        return pyshim_rt_fail(cudaErrorInvalidValue);
    }
    union pyshim_rt_attr_value v;
    memcpy(&v, value, sizeof v);
    return done(pyshim_rt_hip_stream_set_attr(hip_stream(stream, per_thread), (int)attr, &v));
}

cudaError_t cudaStreamGetAttribute(cudaStream_t hStream, cudaLaunchAttributeID attr,
                                   cudaLaunchAttributeValue *value_out)
{
    return get_attr("cudaStreamGetAttribute", hStream, attr, value_out, 0);
}

cudaError_t cudaStreamGetAttribute_ptsz(cudaStream_t hStream, cudaLaunchAttributeID attr,
                                        cudaLaunchAttributeValue *value_out)
{
    return get_attr("cudaStreamGetAttribute_ptsz", hStream, attr, value_out, 1);
}

cudaError_t cudaStreamSetAttribute(cudaStream_t hStream, cudaLaunchAttributeID attr,
                                   const cudaLaunchAttributeValue *value)
{
    return set_attr("cudaStreamSetAttribute", hStream, attr, value, 0);
}

cudaError_t cudaStreamSetAttribute_ptsz(cudaStream_t hStream, cudaLaunchAttributeID attr,
                                        const cudaLaunchAttributeValue *value)
{
    return set_attr("cudaStreamSetAttribute_ptsz", hStream, attr, value, 1);
}

/* ---------------------------------------------------------------- memory pools */

cudaError_t cudaMemPoolCreate(cudaMemPool_t *memPool, const struct cudaMemPoolProps *poolProps)
{
    PYSHIM_RT_STICKY_CHECK();
    if (memPool == NULL || poolProps == NULL)
        return refuse("cudaMemPoolCreate", "a NULL pool or properties");
    if (poolProps->usage != 0) {
        /* cudaMemPoolCreateUsageHwDecompress: no decompression engine here */
        pyshim_rt_log("cudaMemPoolCreate: usage flags (hardware decompression) are not "
                      "supported");
        return pyshim_rt_fail(cudaErrorNotSupported);
    }
    struct pyshim_rt_pool_props p = {
        (int)poolProps->allocType, (int)poolProps->handleTypes, (int)poolProps->location.type,
        poolProps->location.id, poolProps->win32SecurityAttributes, poolProps->maxSize};
    void *pool = NULL;
    int rc = pyshim_rt_hip_pool_create(&pool, &p);
    if (rc == 0)
        *memPool = (cudaMemPool_t)pool;
    return done(rc);
}

#if CUDART_VERSION >= 13000
/* The device a CUDA 13 (location, type) pair names: a device's pinned pools are HIP's
 * device pools; pools of host or managed memory have no HIP counterpart. */
static cudaError_t pool_device(const char *call, const struct cudaMemLocation *loc,
                               enum cudaMemAllocationType type, int *device)
{
    if (loc == NULL)
        return refuse(call, "a NULL location");
    if (type == cudaMemAllocationTypeManaged || loc->type == cudaMemLocationTypeHost ||
        loc->type == cudaMemLocationTypeHostNuma) {
        pyshim_rt_log("%s: pools of host or managed memory have no HIP counterpart", call);
        return pyshim_rt_fail(cudaErrorNotSupported);
    }
    if (type != cudaMemAllocationTypePinned || loc->type != cudaMemLocationTypeDevice)
        return refuse(call, "not a device location with the pinned allocation type");
    int count = 0;
    int rc = pyshim_rt_hip_device_count(&count);
    if (rc != 0)
        return done(rc);
    if (loc->id < 0 || loc->id >= count)
        return pyshim_rt_fail(cudaErrorInvalidDevice);
    *device = loc->id;
    return cudaSuccess;
}

static cudaError_t get_pool(const char *call, cudaMemPool_t *memPool,
                            struct cudaMemLocation *location, enum cudaMemAllocationType type,
                            int is_default)
{
    PYSHIM_RT_STICKY_CHECK();
    if (memPool == NULL)
        return refuse(call, "a NULL output");
    int device = 0;
    cudaError_t err = pool_device(call, location, type, &device);
    if (err != cudaSuccess)
        return err;
    void *pool = NULL;
    int rc = pyshim_rt_hip_device_pool(&pool, device, is_default);
    if (rc == 0)
        *memPool = (cudaMemPool_t)pool;
    return done(rc);
}

cudaError_t cudaMemGetDefaultMemPool(cudaMemPool_t *memPool, struct cudaMemLocation *location,
                                     enum cudaMemAllocationType type)
{
    return get_pool("cudaMemGetDefaultMemPool", memPool, location, type, 1);
}

cudaError_t cudaMemGetMemPool(cudaMemPool_t *memPool, struct cudaMemLocation *location,
                              enum cudaMemAllocationType type)
{
    return get_pool("cudaMemGetMemPool", memPool, location, type, 0);
}

cudaError_t cudaMemSetMemPool(struct cudaMemLocation *location, enum cudaMemAllocationType type,
                              cudaMemPool_t memPool)
{
    PYSHIM_RT_STICKY_CHECK();
    if (memPool == NULL)
        return refuse("cudaMemSetMemPool", "a NULL pool");
    int device = 0;
    cudaError_t err = pool_device("cudaMemSetMemPool", location, type, &device);
    if (err != cudaSuccess)
        return err;
    return done(pyshim_rt_hip_set_device_pool(device, memPool));
}
#endif

/* ---------------------------------------------------------------- managed ranges */

cudaError_t cudaMemRangeGetAttributes(void **data, size_t *dataSizes,
                                      enum cudaMemRangeAttribute *attributes,
                                      size_t numAttributes, const void *devPtr, size_t count)
{
    PYSHIM_RT_STICKY_CHECK();
    if (numAttributes > 0 && (data == NULL || dataSizes == NULL || attributes == NULL))
        return refuse("cudaMemRangeGetAttributes", "a NULL array");
    /* CUDA fills each as cudaMemRangeGetAttribute would; the first failure is the result */
    for (size_t i = 0; i < numAttributes; i++) {
        if (data[i] == NULL)
            return refuse("cudaMemRangeGetAttributes", "a NULL data pointer");
        cudaError_t err = cudaMemRangeGetAttribute(data[i], dataSizes[i], attributes[i], devPtr,
                                                   count);
        if (err != cudaSuccess) {
            pyshim_rt_log("cudaMemRangeGetAttributes: attribute %zu (%d) failed", i,
                          (int)attributes[i]);
            return err;
        }
    }
    return cudaSuccess;
}
