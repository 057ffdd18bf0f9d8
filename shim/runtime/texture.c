/*
 * Texture and surface objects of the shared runtime. The generated struct adapter does not
 * cover these descriptors (unions), and none is needed: CUDA's cudaResourceDesc,
 * cudaTextureDesc and cudaResourceViewDesc start with HIP's fields in HIP's order, with the
 * same enum values for what HIP knows (backend.c passes them on).
 */
#define __CUDA_API_VERSION_INTERNAL 1
#include <cuda_runtime_api.h>
#include <string.h>

#include "cuda_side.h"

cudaError_t cudaCreateTextureObject(cudaTextureObject_t *pTexObject,
                                    const struct cudaResourceDesc *pResDesc,
                                    const struct cudaTextureDesc *pTexDesc,
                                    const struct cudaResourceViewDesc *pResViewDesc)
{
    if (pTexObject == NULL || pResDesc == NULL || pTexDesc == NULL)
        return pyshim_rt_fail(cudaErrorInvalidValue);
    void *h = NULL;
    int rc = pyshim_rt_hip_create_texture(&h, pResDesc, pTexDesc, pResViewDesc);
    if (rc != cudaSuccess)
        return pyshim_rt_fail(rc);
    *pTexObject = (cudaTextureObject_t)(uintptr_t)h;
    return cudaSuccess;
}

cudaError_t cudaCreateSurfaceObject(cudaSurfaceObject_t *pSurfObject,
                                    const struct cudaResourceDesc *pResDesc)
{
    if (pSurfObject == NULL || pResDesc == NULL)
        return pyshim_rt_fail(cudaErrorInvalidValue);
    void *h = NULL;
    int rc = pyshim_rt_hip_create_surface(&h, pResDesc);
    if (rc != cudaSuccess)
        return pyshim_rt_fail(rc);
    *pSurfObject = (cudaSurfaceObject_t)(uintptr_t)h;
    return cudaSuccess;
}

cudaError_t cudaGetTextureObjectResourceDesc(struct cudaResourceDesc *pResDesc,
                                             cudaTextureObject_t texObject)
{
    if (pResDesc == NULL)
        return pyshim_rt_fail(cudaErrorInvalidValue);
    memset(pResDesc, 0, sizeof *pResDesc); /* CUDA's fields after HIP's stay zero */
    int rc = pyshim_rt_hip_texture_resource(pResDesc, (void *)(uintptr_t)texObject);
    return rc != cudaSuccess ? pyshim_rt_fail(rc) : cudaSuccess;
}

/* CUDA's texture descriptor continues after HIP's fields (disableTrilinearOptimization,
 * seamlessCubemap): HIP was never given them, so they read back as zero. */
cudaError_t cudaGetTextureObjectTextureDesc(struct cudaTextureDesc *pTexDesc,
                                            cudaTextureObject_t texObject)
{
    PYSHIM_RT_STICKY_CHECK();
    if (pTexDesc == NULL)
        return pyshim_rt_fail(cudaErrorInvalidValue);
    memset(pTexDesc, 0, sizeof *pTexDesc);
    int rc = pyshim_rt_hip_texture_desc(pTexDesc, (void *)(uintptr_t)texObject);
    return rc != cudaSuccess ? pyshim_rt_fail(rc) : cudaSuccess;
}

cudaError_t cudaGetTextureObjectResourceViewDesc(struct cudaResourceViewDesc *pResViewDesc,
                                                 cudaTextureObject_t texObject)
{
    PYSHIM_RT_STICKY_CHECK();
    if (pResViewDesc == NULL)
        return pyshim_rt_fail(cudaErrorInvalidValue);
    memset(pResViewDesc, 0, sizeof *pResViewDesc);
    int rc = pyshim_rt_hip_texture_view(pResViewDesc, (void *)(uintptr_t)texObject);
    return rc != cudaSuccess ? pyshim_rt_fail(rc) : cudaSuccess;
}
