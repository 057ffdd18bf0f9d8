/*
 * Texture and surface objects. A handle points to a `pyshim_image` (pyshim_kernel_abi.h)
 * first and the descriptors it was made from after it: the translated kernel's tex, tld4,
 * suld and sust read the image through the 64-bit handle CUDA passes as a kernel
 * parameter, and the getters give the descriptors back. The driver's and the runtime's
 * descriptors are kept in the driver's form (the runtime's converts both ways).
 */
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "common/handle_set.h"
#include "pyshim_kernel_abi.h"

struct __hip_texture {
    pyshim_image img;
    HIP_RESOURCE_DESC res;
    HIP_TEXTURE_DESC tex;
    bool has_view;
    HIP_RESOURCE_VIEW_DESC view;
    pyshim_image *levels;   /* a mipmapped texture's level images (img.level), else NULL */
};

struct __hip_surface {
    pyshim_image img;
    hipResourceDesc res;
};

static pyshim_handle_set texture_handles = PYSHIM_HANDLE_SET_INIT;
static pyshim_handle_set surface_handles = PYSHIM_HANDLE_SET_INIT;

/* The image of an array: its elements and shape (sampling state left as it is). */
static hipError_t array_image(hipArray_const_t a, pyshim_image *img, const char *fn)
{
    if (!cpu_array_valid(a)) {
        cpu_log("%s: %p is not an array", fn, (const void *)a);
        return hipErrorInvalidHandle;
    }
    img->data = a->data;
    img->format = a->format;
    img->channels = a->channels;
    img->elem_bytes = a->elem_bytes;
    img->width = a->width;
    img->height = img->depth = 1;
    img->dims = 1;
    if (a->height) {
        img->height = a->height;
        img->dims = 2;
    }
    if (a->depth) {
        img->depth = a->depth;
        img->dims = a->height ? 3 : 2; /* a layered 1D array: layers are rows */
        if (!a->height)
            img->height = a->depth;
    }
    img->pitch = a->pitch;
    img->slice = a->slice;
    return hipSuccess;
}

/* The image a driver resource descriptor names (sampling state left zero); a mipmapped
 * array's is its level 0. */
static hipError_t image_of(const HIP_RESOURCE_DESC *r, pyshim_image *img, const char *fn)
{
    memset(img, 0, sizeof *img);
    img->magic = PYSHIM_IMAGE_MAGIC;
    img->width = img->height = img->depth = 1;
    unsigned bytes;
    hipArray_t base;
    hipError_t err;
    switch (r->resType) {
    case HIP_RESOURCE_TYPE_ARRAY: return array_image(r->res.array.hArray, img, fn);
    case HIP_RESOURCE_TYPE_MIPMAPPED_ARRAY:
        err = cpu_mipmap_level(&base, r->res.mipmap.hMipmappedArray, 0, fn);
        return err != hipSuccess ? err : array_image(base, img, fn);
    case HIP_RESOURCE_TYPE_LINEAR:
        bytes = cpu_format_bytes(r->res.linear.format) * r->res.linear.numChannels;
        if (bytes == 0 || r->res.linear.devPtr == NULL)
            break;
        img->data = r->res.linear.devPtr;
        img->format = r->res.linear.format;
        img->channels = r->res.linear.numChannels;
        img->elem_bytes = bytes;
        img->width = r->res.linear.sizeInBytes / bytes;
        img->dims = 1;
        img->pitch = img->slice = r->res.linear.sizeInBytes;
        return hipSuccess;
    case HIP_RESOURCE_TYPE_PITCH2D:
        bytes = cpu_format_bytes(r->res.pitch2D.format) * r->res.pitch2D.numChannels;
        if (bytes == 0 || r->res.pitch2D.devPtr == NULL ||
            r->res.pitch2D.pitchInBytes < r->res.pitch2D.width * bytes)
            break;
        img->data = r->res.pitch2D.devPtr;
        img->format = r->res.pitch2D.format;
        img->channels = r->res.pitch2D.numChannels;
        img->elem_bytes = bytes;
        img->width = r->res.pitch2D.width;
        img->height = r->res.pitch2D.height;
        img->dims = 2;
        img->pitch = r->res.pitch2D.pitchInBytes;
        img->slice = img->pitch * img->height;
        return hipSuccess;
    default: break;
    }
    cpu_log("%s: bad resource descriptor (type %d)", fn, (int)r->resType);
    return hipErrorInvalidValue;
}

/* The driver's form of a runtime resource descriptor. */
static hipError_t driver_res(const hipResourceDesc *in, HIP_RESOURCE_DESC *out)
{
    memset(out, 0, sizeof *out);
    out->resType = (HIPresourcetype)in->resType;
    hipArray_Format f;
    unsigned n;
    switch (in->resType) {
    case hipResourceTypeArray: out->res.array.hArray = in->res.array.array; return hipSuccess;
    case hipResourceTypeMipmappedArray:
        out->res.mipmap.hMipmappedArray = in->res.mipmap.mipmap;
        return hipSuccess;
    case hipResourceTypeLinear:
        if (cpu_channel_format(&in->res.linear.desc, &f, &n) != hipSuccess)
            return hipErrorInvalidChannelDescriptor;
        out->res.linear.devPtr = in->res.linear.devPtr;
        out->res.linear.format = f;
        out->res.linear.numChannels = n;
        out->res.linear.sizeInBytes = in->res.linear.sizeInBytes;
        return hipSuccess;
    case hipResourceTypePitch2D:
        if (cpu_channel_format(&in->res.pitch2D.desc, &f, &n) != hipSuccess)
            return hipErrorInvalidChannelDescriptor;
        out->res.pitch2D.devPtr = in->res.pitch2D.devPtr;
        out->res.pitch2D.format = f;
        out->res.pitch2D.numChannels = n;
        out->res.pitch2D.width = in->res.pitch2D.width;
        out->res.pitch2D.height = in->res.pitch2D.height;
        out->res.pitch2D.pitchInBytes = in->res.pitch2D.pitchInBytes;
        return hipSuccess;
    default: return hipErrorInvalidValue;
    }
}

static hipChannelFormatDesc channel_desc(hipArray_Format f, unsigned n)
{
    struct hipArray a = {.format = f, .channels = n};
    return cpu_array_channel_desc(&a);
}

/* The runtime's form of a driver resource descriptor. */
static void runtime_res(const HIP_RESOURCE_DESC *in, hipResourceDesc *out)
{
    memset(out, 0, sizeof *out);
    out->resType = (enum hipResourceType)in->resType;
    switch (in->resType) {
    case HIP_RESOURCE_TYPE_ARRAY: out->res.array.array = in->res.array.hArray; break;
    case HIP_RESOURCE_TYPE_MIPMAPPED_ARRAY:
        out->res.mipmap.mipmap = in->res.mipmap.hMipmappedArray;
        break;
    case HIP_RESOURCE_TYPE_LINEAR:
        out->res.linear.devPtr = in->res.linear.devPtr;
        out->res.linear.desc = channel_desc(in->res.linear.format, in->res.linear.numChannels);
        out->res.linear.sizeInBytes = in->res.linear.sizeInBytes;
        break;
    case HIP_RESOURCE_TYPE_PITCH2D:
        out->res.pitch2D.devPtr = in->res.pitch2D.devPtr;
        out->res.pitch2D.desc = channel_desc(in->res.pitch2D.format,
                                             in->res.pitch2D.numChannels);
        out->res.pitch2D.width = in->res.pitch2D.width;
        out->res.pitch2D.height = in->res.pitch2D.height;
        out->res.pitch2D.pitchInBytes = in->res.pitch2D.pitchInBytes;
        break;
    default: break;
    }
}

static bool integer_format(unsigned f)
{
    return f != HIP_AD_FORMAT_HALF && f != HIP_AD_FORMAT_FLOAT;
}

/* CUDA promotes only 8- and 16-bit integers to [0,1] / [-1,1] floats: a 32-bit integer
 * texture reads its elements whatever the flags say (the driver API's CU_TRSF_READ_AS_INTEGER
 * note), and CUDA's static runtime leaves that flag clear for them (stereoDisparity). */
static bool promoted_format(unsigned f)
{
    return integer_format(f) && f != HIP_AD_FORMAT_UNSIGNED_INT32 &&
           f != HIP_AD_FORMAT_SIGNED_INT32;
}

/* A mipmapped texture's level images: each level's array with the sampling state of the
 * level-0 image already in o->img, and the level-of-detail state of t. */
static hipError_t mip_levels(struct __hip_texture *o, hipMipmappedArray_const_t m,
                             const HIP_TEXTURE_DESC *t, const char *fn)
{
    unsigned n = cpu_mipmap_levels(m);
    if ((unsigned)t->mipmapFilterMode > HIP_TR_FILTER_MODE_LINEAR) {
        cpu_log("%s: bad mipmap filter mode %d", fn, (int)t->mipmapFilterMode);
        return hipErrorInvalidValue;
    }
    o->levels = calloc(n, sizeof *o->levels);
    if (o->levels == NULL)
        return hipErrorOutOfMemory;
    for (unsigned i = 0; i < n; i++) {
        hipArray_t a;
        o->levels[i] = o->img;
        hipError_t err = cpu_mipmap_level(&a, m, i, fn);
        if (err == hipSuccess)
            err = array_image(a, &o->levels[i], fn);
        if (err != hipSuccess) {
            free(o->levels);
            return err;
        }
    }
    o->img.levels = n;
    /* an integer read is a point read between levels too */
    bool ints = integer_format(o->img.format) && !o->img.read_float;
    o->img.mip_filter = ints ? HIP_TR_FILTER_MODE_POINT : (uint32_t)t->mipmapFilterMode;
    o->img.lod_bias = t->mipmapLevelBias;
    o->img.lod_min = t->minMipmapLevelClamp;
    o->img.lod_max = t->maxMipmapLevelClamp;
    o->img.level = o->levels;
    return hipSuccess;
}

static hipError_t tex_create(hipTextureObject_t *out, const HIP_RESOURCE_DESC *r,
                             const HIP_TEXTURE_DESC *t, const HIP_RESOURCE_VIEW_DESC *v,
                             const char *fn)
{
    if (out == NULL || r == NULL || t == NULL)
        return hipErrorInvalidValue;
    struct __hip_texture *o = calloc(1, sizeof *o);
    if (o == NULL)
        return hipErrorOutOfMemory;
    hipError_t err = image_of(r, &o->img, fn);
    if (err != hipSuccess) {
        free(o);
        return err;
    }
    for (int i = 0; i < 3; i++) {
        if ((unsigned)t->addressMode[i] > HIP_TR_ADDRESS_MODE_BORDER ||
            (unsigned)t->filterMode > HIP_TR_FILTER_MODE_LINEAR) {
            free(o);
            cpu_log("%s: bad address or filter mode", fn);
            return hipErrorInvalidValue;
        }
        o->img.address[i] = (uint32_t)t->addressMode[i];
    }
    o->img.filter = (uint32_t)t->filterMode;
    o->img.normalized = (t->flags & HIP_TRSF_NORMALIZED_COORDINATES) != 0;
    /* CUDA wraps and mirrors normalized coordinates only: unnormalized ones clamp */
    for (int i = 0; i < 3 && !o->img.normalized; i++)
        if (o->img.address[i] == HIP_TR_ADDRESS_MODE_WRAP ||
            o->img.address[i] == HIP_TR_ADDRESS_MODE_MIRROR)
            o->img.address[i] = HIP_TR_ADDRESS_MODE_CLAMP;
    o->img.srgb = (t->flags & HIP_TRSF_SRGB) != 0;
    o->img.read_float = promoted_format(o->img.format) && !(t->flags & HIP_TRSF_READ_AS_INTEGER);
    /* CUDA filters only what it reads as floats: an integer read is always a point read */
    if (integer_format(o->img.format) && !o->img.read_float)
        o->img.filter = HIP_TR_FILTER_MODE_POINT;
    memcpy(o->img.border, t->borderColor, sizeof o->img.border);
    if (r->resType == HIP_RESOURCE_TYPE_MIPMAPPED_ARRAY) {
        err = mip_levels(o, r->res.mipmap.hMipmappedArray, t, fn);
        if (err != hipSuccess) {
            free(o);
            return err;
        }
    }
    o->res = *r;
    o->tex = *t;
    if (v != NULL) {
        o->has_view = true;
        o->view = *v;
    }
    if (!pyshim_handles_add(&texture_handles, o)) {
        free(o);
        return hipErrorOutOfMemory;
    }
    *out = o;
    return hipSuccess;
}

static struct __hip_texture *tex_of(hipTextureObject_t t, const char *fn)
{
    if (t == NULL || !pyshim_handles_contains(&texture_handles, t)) {
        cpu_log("%s: %p is not a texture object", fn, (void *)t);
        return NULL;
    }
    return t;
}

hipError_t hipTexObjectCreate(hipTextureObject_t *pTexObject, const HIP_RESOURCE_DESC *pResDesc,
                              const HIP_TEXTURE_DESC *pTexDesc,
                              const HIP_RESOURCE_VIEW_DESC *pResViewDesc)
{
    return cpu_ret(tex_create(pTexObject, pResDesc, pTexDesc, pResViewDesc,
                              "hipTexObjectCreate"));
}

hipError_t hipCreateTextureObject(hipTextureObject_t *pTexObject, const hipResourceDesc *pResDesc,
                                  const hipTextureDesc *pTexDesc,
                                  const struct hipResourceViewDesc *pResViewDesc)
{
    if (pResDesc == NULL || pTexDesc == NULL)
        return cpu_ret(hipErrorInvalidValue);
    HIP_RESOURCE_DESC r;
    hipError_t err = driver_res(pResDesc, &r);
    if (err != hipSuccess)
        return cpu_ret(err);
    HIP_TEXTURE_DESC t;
    memset(&t, 0, sizeof t);
    for (int i = 0; i < 3; i++)
        t.addressMode[i] = (HIPaddress_mode)pTexDesc->addressMode[i];
    t.filterMode = (HIPfilter_mode)pTexDesc->filterMode;
    t.flags = (pTexDesc->readMode == hipReadModeElementType ? HIP_TRSF_READ_AS_INTEGER : 0) |
              (pTexDesc->normalizedCoords ? HIP_TRSF_NORMALIZED_COORDINATES : 0) |
              (pTexDesc->sRGB ? HIP_TRSF_SRGB : 0);
    t.maxAnisotropy = pTexDesc->maxAnisotropy;
    t.mipmapFilterMode = (HIPfilter_mode)pTexDesc->mipmapFilterMode;
    t.mipmapLevelBias = pTexDesc->mipmapLevelBias;
    t.minMipmapLevelClamp = pTexDesc->minMipmapLevelClamp;
    t.maxMipmapLevelClamp = pTexDesc->maxMipmapLevelClamp;
    memcpy(t.borderColor, pTexDesc->borderColor, sizeof t.borderColor);
    /* the runtime's view descriptor has the driver's layout */
    return cpu_ret(tex_create(pTexObject, &r, &t, (const HIP_RESOURCE_VIEW_DESC *)pResViewDesc,
                              "hipCreateTextureObject"));
}

static hipError_t tex_destroy(hipTextureObject_t t, const char *fn)
{
    if (tex_of(t, fn) == NULL || !pyshim_handles_remove(&texture_handles, t))
        return hipErrorInvalidValue;
    free(((struct __hip_texture *)t)->levels);
    free(t);
    return hipSuccess;
}

hipError_t hipTexObjectDestroy(hipTextureObject_t texObject)
{
    return cpu_ret(tex_destroy(texObject, "hipTexObjectDestroy"));
}

hipError_t hipDestroyTextureObject(hipTextureObject_t textureObject)
{
    return cpu_ret(tex_destroy(textureObject, "hipDestroyTextureObject"));
}

/* The texture object a getter describes; NULL (invalid value) for a bad handle, logged,
 * or no place to write to. */
static struct __hip_texture *tex_to_read(const void *out, hipTextureObject_t t, const char *fn)
{
    struct __hip_texture *o = tex_of(t, fn);
    return out == NULL ? NULL : o;
}

hipError_t hipTexObjectGetResourceDesc(HIP_RESOURCE_DESC *pResDesc, hipTextureObject_t texObject)
{
    struct __hip_texture *o = tex_to_read(pResDesc, texObject, "hipTexObjectGetResourceDesc");
    if (o == NULL)
        return cpu_ret(hipErrorInvalidValue);
    *pResDesc = o->res;
    return cpu_ret(hipSuccess);
}

hipError_t hipGetTextureObjectResourceDesc(hipResourceDesc *pResDesc,
                                           hipTextureObject_t textureObject)
{
    struct __hip_texture *o = tex_to_read(pResDesc, textureObject,
                                          "hipGetTextureObjectResourceDesc");
    if (o == NULL)
        return cpu_ret(hipErrorInvalidValue);
    runtime_res(&o->res, pResDesc);
    return cpu_ret(hipSuccess);
}

hipError_t hipTexObjectGetTextureDesc(HIP_TEXTURE_DESC *pTexDesc, hipTextureObject_t texObject)
{
    struct __hip_texture *o = tex_to_read(pTexDesc, texObject, "hipTexObjectGetTextureDesc");
    if (o == NULL)
        return cpu_ret(hipErrorInvalidValue);
    *pTexDesc = o->tex;
    return cpu_ret(hipSuccess);
}

hipError_t hipTexObjectGetResourceViewDesc(HIP_RESOURCE_VIEW_DESC *pResViewDesc,
                                           hipTextureObject_t texObject)
{
    struct __hip_texture *o = tex_to_read(pResViewDesc, texObject,
                                          "hipTexObjectGetResourceViewDesc");
    if (o == NULL)
        return cpu_ret(hipErrorInvalidValue);
    if (!o->has_view)
        return cpu_ret(hipErrorInvalidValue);
    *pResViewDesc = o->view;
    return cpu_ret(hipSuccess);
}

/* The runtime's forms: hipCreateTextureObject's conversion undone (the view descriptor has
 * the driver's layout in both APIs). */
hipError_t hipGetTextureObjectTextureDesc(hipTextureDesc *pTexDesc,
                                          hipTextureObject_t textureObject)
{
    struct __hip_texture *o = tex_to_read(pTexDesc, textureObject,
                                          "hipGetTextureObjectTextureDesc");
    if (o == NULL)
        return cpu_ret(hipErrorInvalidValue);
    const HIP_TEXTURE_DESC *t = &o->tex;
    memset(pTexDesc, 0, sizeof *pTexDesc);
    for (int i = 0; i < 3; i++)
        pTexDesc->addressMode[i] = (enum hipTextureAddressMode)t->addressMode[i];
    pTexDesc->filterMode = (enum hipTextureFilterMode)t->filterMode;
    pTexDesc->readMode = (t->flags & HIP_TRSF_READ_AS_INTEGER) ? hipReadModeElementType
                                                               : hipReadModeNormalizedFloat;
    pTexDesc->sRGB = (t->flags & HIP_TRSF_SRGB) != 0;
    memcpy(pTexDesc->borderColor, t->borderColor, sizeof pTexDesc->borderColor);
    pTexDesc->normalizedCoords = (t->flags & HIP_TRSF_NORMALIZED_COORDINATES) != 0;
    pTexDesc->maxAnisotropy = t->maxAnisotropy;
    pTexDesc->mipmapFilterMode = (enum hipTextureFilterMode)t->mipmapFilterMode;
    pTexDesc->mipmapLevelBias = t->mipmapLevelBias;
    pTexDesc->minMipmapLevelClamp = t->minMipmapLevelClamp;
    pTexDesc->maxMipmapLevelClamp = t->maxMipmapLevelClamp;
    return cpu_ret(hipSuccess);
}

hipError_t hipGetTextureObjectResourceViewDesc(struct hipResourceViewDesc *pResViewDesc,
                                               hipTextureObject_t textureObject)
{
    struct __hip_texture *o = tex_to_read(pResViewDesc, textureObject,
                                          "hipGetTextureObjectResourceViewDesc");
    if (o == NULL || !o->has_view)
        return cpu_ret(hipErrorInvalidValue);
    _Static_assert(sizeof(struct hipResourceViewDesc) <= sizeof(HIP_RESOURCE_VIEW_DESC),
                   "the runtime's view descriptor is a prefix of the driver's");
    memcpy(pResViewDesc, &o->view, sizeof *pResViewDesc);
    return cpu_ret(hipSuccess);
}

/* ---- surfaces: an array made with the load/store flag, addressed in bytes by x ---- */

hipError_t hipCreateSurfaceObject(hipSurfaceObject_t *pSurfObject, const hipResourceDesc *pResDesc)
{
    if (pSurfObject == NULL || pResDesc == NULL)
        return cpu_ret(hipErrorInvalidValue);
    if (pResDesc->resType != hipResourceTypeArray) {
        cpu_log("hipCreateSurfaceObject: a surface is made from an array (resource type %d)",
                (int)pResDesc->resType);
        return cpu_ret(hipErrorInvalidValue);
    }
    HIP_RESOURCE_DESC r;
    hipError_t err = driver_res(pResDesc, &r);
    if (err != hipSuccess)
        return cpu_ret(err);
    struct __hip_surface *o = calloc(1, sizeof *o);
    if (o == NULL)
        return cpu_ret(hipErrorOutOfMemory);
    err = image_of(&r, &o->img, "hipCreateSurfaceObject");
    /* No check of hipArraySurfaceLoadStore: NVIDIA's driver makes surfaces of arrays
     * without CUDA_ARRAY3D_SURFACE_LDST too (mipmapped arrays' levels, which have no way
     * to ask for it through cudaMallocMipmappedArray's default flags, are written so by
     * cuda-samples' bindlessTexture), and a CPU array is host memory either way. */
    if (err == hipSuccess && !pyshim_handles_add(&surface_handles, o))
        err = hipErrorOutOfMemory;
    if (err != hipSuccess) {
        free(o);
        return cpu_ret(err);
    }
    o->res = *pResDesc;
    *pSurfObject = o;
    return cpu_ret(hipSuccess);
}

hipError_t hipDestroySurfaceObject(hipSurfaceObject_t surfaceObject)
{
    if (surfaceObject == NULL || !pyshim_handles_remove(&surface_handles, surfaceObject)) {
        cpu_log("hipDestroySurfaceObject: %p is not a surface object", (void *)surfaceObject);
        return cpu_ret(hipErrorInvalidValue);
    }
    free(surfaceObject);
    return cpu_ret(hipSuccess);
}
