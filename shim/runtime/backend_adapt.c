/*
 * The HIP side of the runtime entry points whose CUDA structs HIP lays out differently
 * (memset nodes, stream attributes, pool properties, instantiation parameters): beside
 * backend.c, the other file of libcudart that includes HIP's headers. Callers pass CUDA's
 * fields in internal.h's plain structs; results are cudaError_t values.
 */
#include <hip/hip_runtime_api.h>
#include <string.h>

#include "internal.h"
#include "runtime_error_codes.h"

#pragma GCC diagnostic ignored "-Wdeprecated-declarations"

/* any ROCm has them; a CPU device older than this library may not */
#pragma weak hipGraphMemsetNodeGetParams

static int rt(hipError_t err)
{
    return err == hipSuccess ? 0 : pyshim_rt_from_hip(err);
}

static hipMemsetParams to_hip_memset(const struct pyshim_rt_memset *m)
{
    hipMemsetParams h;
    memset(&h, 0, sizeof h);
    h.dst = m->dst;
    h.pitch = m->pitch;
    h.value = m->value;
    h.elementSize = m->element_size;
    h.width = m->width;
    h.height = m->height;
    return h;
}

int pyshim_rt_hip_graph_memset_node(void **node, void *graph, void *const *deps, size_t ndeps,
                                    const struct pyshim_rt_memset *m)
{
    hipMemsetParams h = to_hip_memset(m);
    return rt(hipGraphAddMemsetNode((hipGraphNode_t *)node, (hipGraph_t)graph,
                                    (const hipGraphNode_t *)deps, ndeps, &h));
}

int pyshim_rt_hip_graph_memset_get(void *node, struct pyshim_rt_memset *m)
{
    if (hipGraphMemsetNodeGetParams == NULL)
        return PYSHIM_RT_cudaErrorNotSupported;
    hipMemsetParams h;
    int rc = rt(hipGraphMemsetNodeGetParams((hipGraphNode_t)node, &h));
    if (rc != 0)
        return rc;
    m->dst = h.dst;
    m->pitch = h.pitch;
    m->value = h.value;
    m->element_size = h.elementSize;
    m->width = h.width;
    m->height = h.height;
    return 0;
}

int pyshim_rt_hip_graph_memset_set(void *node, const struct pyshim_rt_memset *m)
{
    hipMemsetParams h = to_hip_memset(m);
    return rt(hipGraphMemsetNodeSetParams((hipGraphNode_t)node, &h));
}

int pyshim_rt_hip_graph_exec_memset_set(void *exec, void *node, const struct pyshim_rt_memset *m)
{
    hipMemsetParams h = to_hip_memset(m);
    return rt(hipGraphExecMemsetNodeSetParams((hipGraphExec_t)exec, (hipGraphNode_t)node, &h));
}

int pyshim_rt_hip_graph_node_type(void *node, int *type)
{
    hipGraphNodeType t = hipGraphNodeTypeEmpty;
    int rc = rt(hipGraphNodeGetType((hipGraphNode_t)node, &t));
    if (rc == 0)
        *type = (int)t;
    return rc;
}

int pyshim_rt_hip_graph_instantiate(void **exec, void *graph, unsigned long long flags,
                                    void *stream, void **err_node, int *result)
{
    hipGraphInstantiateParams p;
    memset(&p, 0, sizeof p);
    p.flags = flags;
    p.uploadStream = (hipStream_t)stream;
    int rc = rt(hipGraphInstantiateWithParams((hipGraphExec_t *)exec, (hipGraph_t)graph, &p));
    *err_node = p.errNode_out;
    /* cudaGraphInstantiateResult numbers its first values as HIP does */
    *result = rc == 0 ? 0 : (int)p.result_out;
    return rc;
}

int pyshim_rt_hip_stream_get_attr(void *stream, int attr, union pyshim_rt_attr_value *v)
{
    hipLaunchAttributeValue h;
    memset(&h, 0, sizeof h);
    int rc = rt(hipStreamGetAttribute((hipStream_t)stream, (hipLaunchAttributeID)attr, &h));
    if (rc != 0)
        return rc;
    memset(v, 0, sizeof *v);
    switch (attr) {
    case hipLaunchAttributeAccessPolicyWindow:
        v->window.base_ptr = h.accessPolicyWindow.base_ptr;
        v->window.num_bytes = h.accessPolicyWindow.num_bytes;
        v->window.hit_ratio = h.accessPolicyWindow.hitRatio;
        v->window.hit_prop = (int)h.accessPolicyWindow.hitProp;
        v->window.miss_prop = (int)h.accessPolicyWindow.missProp;
        break;
    case hipLaunchAttributeSynchronizationPolicy: v->sync_policy = (int)h.syncPolicy; break;
    case hipLaunchAttributePriority: v->priority = h.priority; break;
    case hipLaunchAttributeMemSyncDomain: v->domain = (int)h.memSyncDomain; break;
    case hipLaunchAttributeMemSyncDomainMap:
        v->domain_map.default_ = h.memSyncDomainMap.default_;
        v->domain_map.remote = h.memSyncDomainMap.remote;
        break;
    default: break;
    }
    return 0;
}

int pyshim_rt_hip_stream_set_attr(void *stream, int attr, const union pyshim_rt_attr_value *v)
{
    hipLaunchAttributeValue h;
    memset(&h, 0, sizeof h);
    switch (attr) {
    case hipLaunchAttributeAccessPolicyWindow:
        h.accessPolicyWindow.base_ptr = v->window.base_ptr;
        h.accessPolicyWindow.num_bytes = v->window.num_bytes;
        h.accessPolicyWindow.hitRatio = v->window.hit_ratio;
        h.accessPolicyWindow.hitProp = (hipAccessProperty)v->window.hit_prop;
        h.accessPolicyWindow.missProp = (hipAccessProperty)v->window.miss_prop;
        break;
    case hipLaunchAttributeSynchronizationPolicy:
        h.syncPolicy = (hipSynchronizationPolicy)v->sync_policy;
        break;
    case hipLaunchAttributePriority: h.priority = v->priority; break;
    case hipLaunchAttributeMemSyncDomain:
        h.memSyncDomain = (hipLaunchMemSyncDomain)v->domain;
        break;
    case hipLaunchAttributeMemSyncDomainMap:
        h.memSyncDomainMap.default_ = v->domain_map.default_;
        h.memSyncDomainMap.remote = v->domain_map.remote;
        break;
    default: return PYSHIM_RT_cudaErrorInvalidValue;
    }
    return rt(hipStreamSetAttribute((hipStream_t)stream, (hipLaunchAttributeID)attr, &h));
}

int pyshim_rt_hip_pool_create(void **pool, const struct pyshim_rt_pool_props *p)
{
    hipMemPoolProps h;
    memset(&h, 0, sizeof h);
    /* the enums share their values */
    h.allocType = (hipMemAllocationType)p->alloc_type;
    h.handleTypes = (hipMemAllocationHandleType)p->handle_types;
    h.location.type = (hipMemLocationType)p->location_type;
    h.location.id = p->location_id;
    h.win32SecurityAttributes = p->win32;
    h.maxSize = p->max_size;
    return rt(hipMemPoolCreate((hipMemPool_t *)pool, &h));
}

int pyshim_rt_hip_device_pool(void **pool, int device, int is_default)
{
    hipMemPool_t p = NULL;
    int rc = rt(is_default ? hipDeviceGetDefaultMemPool(&p, device)
                           : hipDeviceGetMemPool(&p, device));
    if (rc == 0)
        *pool = p;
    return rc;
}

int pyshim_rt_hip_set_device_pool(int device, void *pool)
{
    return rt(hipDeviceSetMemPool(device, (hipMemPool_t)pool));
}
