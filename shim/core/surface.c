/*
 * Surface objects. HIP has no driver-API form (cuSurfObjectCreate), so the driver's
 * resource descriptor (an array: the only resource a surface is made of) becomes the
 * runtime's for hipCreateSurfaceObject.
 */
#include <string.h>

#include "internal.h"

CUresult CUDAAPI cuSurfObjectCreate(CUsurfObject *pSurfObject, const CUDA_RESOURCE_DESC *pResDesc)
{
    if (pSurfObject == NULL || pResDesc == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    if (pResDesc->resType != CU_RESOURCE_TYPE_ARRAY) {
        pyshim_log("cuSurfObjectCreate: a surface is made from an array (resource type %d)",
                   (int)pResDesc->resType);
        return CUDA_ERROR_INVALID_VALUE;
    }
    CUresult rc = pyshim_need_ctx();
    if (rc != CUDA_SUCCESS)
        return rc;
    hipResourceDesc r;
    memset(&r, 0, sizeof r);
    r.resType = hipResourceTypeArray;
    r.res.array.array = (hipArray_t)pResDesc->res.array.hArray;
    hipSurfaceObject_t s = NULL;
    rc = pyshim_cu_from_hip(hipCreateSurfaceObject(&s, &r));
    if (rc == CUDA_SUCCESS)
        *pSurfObject = (CUsurfObject)(uintptr_t)s;
    return rc;
}

CUresult CUDAAPI cuSurfObjectDestroy(CUsurfObject surfObject)
{
    return pyshim_cu_from_hip(hipDestroySurfaceObject((hipSurfaceObject_t)(uintptr_t)surfObject));
}
