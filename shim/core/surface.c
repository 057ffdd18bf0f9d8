/*
 * Surface objects. HIP has no driver-API form (cuSurfObjectCreate), so the driver's
 * resource descriptor (an array: the only resource a surface is made of) becomes the
 * runtime's for hipCreateSurfaceObject. The descriptor each surface was made from is kept
 * for cuSurfObjectGetResourceDesc (HIP's runtime-level query answers in HIP's layout, and
 * the CPU device has none).
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

struct surface {
    CUsurfObject handle;
    CUDA_RESOURCE_DESC desc;
    struct surface *next;
};

static struct surface *surfaces;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

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
    struct surface *rec = calloc(1, sizeof *rec);
    if (rec == NULL)
        return CUDA_ERROR_OUT_OF_MEMORY;
    hipResourceDesc r;
    memset(&r, 0, sizeof r);
    r.resType = hipResourceTypeArray;
    r.res.array.array = (hipArray_t)pResDesc->res.array.hArray;
    hipSurfaceObject_t s = NULL;
    rc = pyshim_cu_from_hip(hipCreateSurfaceObject(&s, &r));
    if (rc != CUDA_SUCCESS) {
        free(rec);
        return rc;
    }
    rec->handle = (CUsurfObject)(uintptr_t)s;
    rec->desc = *pResDesc;
    pthread_mutex_lock(&lock);
    rec->next = surfaces;
    surfaces = rec;
    pthread_mutex_unlock(&lock);
    *pSurfObject = rec->handle;
    return CUDA_SUCCESS;
}

CUresult CUDAAPI cuSurfObjectDestroy(CUsurfObject surfObject)
{
    struct surface *gone = NULL;
    pthread_mutex_lock(&lock);
    for (struct surface **p = &surfaces; *p != NULL; p = &(*p)->next)
        if ((*p)->handle == surfObject) {
            gone = *p;
            *p = gone->next;
            break;
        }
    pthread_mutex_unlock(&lock);
    /* one the runtime made (cudaCreateSurfaceObject) has no record here: HIP judges it */
    free(gone);
    return pyshim_cu_from_hip(hipDestroySurfaceObject((hipSurfaceObject_t)(uintptr_t)surfObject));
}

CUresult CUDAAPI cuSurfObjectGetResourceDesc(CUDA_RESOURCE_DESC *pResDesc, CUsurfObject surfObject)
{
    if (pResDesc == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    CUresult rc = CUDA_ERROR_INVALID_HANDLE;
    pthread_mutex_lock(&lock);
    for (struct surface *s = surfaces; s != NULL; s = s->next)
        if (s->handle == surfObject) {
            *pResDesc = s->desc;
            rc = CUDA_SUCCESS;
            break;
        }
    pthread_mutex_unlock(&lock);
    return rc;
}
