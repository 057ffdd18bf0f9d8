/*
 * cuStreamGetAttribute / cuStreamSetAttribute: CUDA's launch-attribute union in HIP's.
 * The attribute numbers are the same; the access-policy window orders its fields
 * differently (CUDA: base, bytes, ratio, hit, miss; HIP: base, hit, ratio, miss, bytes),
 * so each value is copied field by field.
 */
#include <string.h>

#include "internal.h"

static CUresult to_hip(CUstreamAttrID attr, const CUstreamAttrValue *v, hipLaunchAttributeValue *h)
{
    memset(h, 0, sizeof *h);
    switch (attr) {
    case CU_LAUNCH_ATTRIBUTE_ACCESS_POLICY_WINDOW:
        h->accessPolicyWindow.base_ptr = v->accessPolicyWindow.base_ptr;
        h->accessPolicyWindow.num_bytes = v->accessPolicyWindow.num_bytes;
        h->accessPolicyWindow.hitRatio = v->accessPolicyWindow.hitRatio;
        h->accessPolicyWindow.hitProp = (hipAccessProperty)v->accessPolicyWindow.hitProp;
        h->accessPolicyWindow.missProp = (hipAccessProperty)v->accessPolicyWindow.missProp;
        return CUDA_SUCCESS;
    case CU_LAUNCH_ATTRIBUTE_SYNCHRONIZATION_POLICY:
        h->syncPolicy = (hipSynchronizationPolicy)v->syncPolicy;
        return CUDA_SUCCESS;
    case CU_LAUNCH_ATTRIBUTE_PRIORITY: h->priority = v->priority; return CUDA_SUCCESS;
    case CU_LAUNCH_ATTRIBUTE_MEM_SYNC_DOMAIN:
        h->memSyncDomain = (hipLaunchMemSyncDomain)v->memSyncDomain;
        return CUDA_SUCCESS;
    case CU_LAUNCH_ATTRIBUTE_MEM_SYNC_DOMAIN_MAP:
        h->memSyncDomainMap.default_ = v->memSyncDomainMap.default_;
        h->memSyncDomainMap.remote = v->memSyncDomainMap.remote;
        return CUDA_SUCCESS;
    default: return CUDA_ERROR_INVALID_VALUE;
    }
}

static void from_hip(CUstreamAttrID attr, const hipLaunchAttributeValue *h, CUstreamAttrValue *v)
{
    memset(v, 0, sizeof *v);
    switch (attr) {
    case CU_LAUNCH_ATTRIBUTE_ACCESS_POLICY_WINDOW:
        v->accessPolicyWindow.base_ptr = h->accessPolicyWindow.base_ptr;
        v->accessPolicyWindow.num_bytes = h->accessPolicyWindow.num_bytes;
        v->accessPolicyWindow.hitRatio = h->accessPolicyWindow.hitRatio;
        v->accessPolicyWindow.hitProp = (CUaccessProperty)h->accessPolicyWindow.hitProp;
        v->accessPolicyWindow.missProp = (CUaccessProperty)h->accessPolicyWindow.missProp;
        break;
    case CU_LAUNCH_ATTRIBUTE_SYNCHRONIZATION_POLICY:
        v->syncPolicy = (CUsynchronizationPolicy)h->syncPolicy;
        break;
    case CU_LAUNCH_ATTRIBUTE_PRIORITY: v->priority = h->priority; break;
    case CU_LAUNCH_ATTRIBUTE_MEM_SYNC_DOMAIN:
        v->memSyncDomain = (CUlaunchMemSyncDomain)h->memSyncDomain;
        break;
    case CU_LAUNCH_ATTRIBUTE_MEM_SYNC_DOMAIN_MAP:
        v->memSyncDomainMap.default_ = h->memSyncDomainMap.default_;
        v->memSyncDomainMap.remote = h->memSyncDomainMap.remote;
        break;
    default: break;
    }
}

static CUresult get_attr(const char *call, CUstream s, CUstreamAttrID attr, CUstreamAttrValue *out,
                         int pt)
{
    if (out == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    CUresult rc = pyshim_need_ctx();
    if (rc != CUDA_SUCCESS)
        return rc;
    CUstreamAttrValue probe;
    memset(&probe, 0, sizeof probe);
    hipLaunchAttributeValue h;
    if (to_hip(attr, &probe, &h) != CUDA_SUCCESS) {
        pyshim_log("%s: attribute %d is not a stream attribute", call, (int)attr);
        return CUDA_ERROR_INVALID_VALUE;
    }
    rc = pyshim_cu_from_hip(hipStreamGetAttribute(pyshim_hip_stream(s, pt),
                                                  (hipLaunchAttributeID)attr, &h));
    if (rc == CUDA_SUCCESS)
        from_hip(attr, &h, out);
    return rc;
}

static CUresult set_attr(const char *call, CUstream s, CUstreamAttrID attr,
                         const CUstreamAttrValue *value, int pt)
{
    if (value == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    CUresult rc = pyshim_need_ctx();
    if (rc != CUDA_SUCCESS)
        return rc;
    hipLaunchAttributeValue h;
    if (to_hip(attr, value, &h) != CUDA_SUCCESS) {
        pyshim_log("%s: attribute %d is not a stream attribute", call, (int)attr);
        return CUDA_ERROR_INVALID_VALUE;
    }
    return pyshim_cu_from_hip(hipStreamSetAttribute(pyshim_hip_stream(s, pt),
                                                    (hipLaunchAttributeID)attr, &h));
}

CUresult CUDAAPI cuStreamGetAttribute(CUstream hStream, CUstreamAttrID attr,
                                      CUstreamAttrValue *value_out)
{
    return get_attr("cuStreamGetAttribute", hStream, attr, value_out, 0);
}

CUresult CUDAAPI cuStreamGetAttribute_ptsz(CUstream hStream, CUstreamAttrID attr,
                                           CUstreamAttrValue *value_out)
{
    return get_attr("cuStreamGetAttribute_ptsz", hStream, attr, value_out, 1);
}

CUresult CUDAAPI cuStreamSetAttribute(CUstream hStream, CUstreamAttrID attr,
                                      const CUstreamAttrValue *value)
{
    return set_attr("cuStreamSetAttribute", hStream, attr, value, 0);
}

CUresult CUDAAPI cuStreamSetAttribute_ptsz(CUstream hStream, CUstreamAttrID attr,
                                           const CUstreamAttrValue *value)
{
    return set_attr("cuStreamSetAttribute_ptsz", hStream, attr, value, 1);
}
