/*
 * CUDA arrays (cuArray*, cudaMallocArray, cudaMalloc3DArray) and the copies into and out of
 * them. An array is plain device memory with packed rows (array.h), so every copy with an
 * array end is the strided copy memcpy.c already makes, and a texture reads it directly.
 */
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "common/handle_set.h"

static pyshim_handle_set array_handles = PYSHIM_HANDLE_SET_INIT;

/* CUDA_ARRAY3D_* flags a CPU array accepts: layered, surface load/store, cubemap,
 * texture gather (none changes the layout here). */
static const unsigned known_flags = hipArrayLayered | hipArraySurfaceLoadStore |
                                    hipArrayCubemap | hipArrayTextureGather;

bool cpu_array_valid(hipArray_const_t a)
{
    return a != NULL && pyshim_handles_contains(&array_handles, a);
}

unsigned cpu_format_bytes(hipArray_Format format)
{
    switch (format) {
    case HIP_AD_FORMAT_UNSIGNED_INT8:
    case HIP_AD_FORMAT_SIGNED_INT8: return 1;
    case HIP_AD_FORMAT_UNSIGNED_INT16:
    case HIP_AD_FORMAT_SIGNED_INT16:
    case HIP_AD_FORMAT_HALF: return 2;
    case HIP_AD_FORMAT_UNSIGNED_INT32:
    case HIP_AD_FORMAT_SIGNED_INT32:
    case HIP_AD_FORMAT_FLOAT: return 4;
    default: return 0;
    }
}

hipError_t cpu_channel_format(const hipChannelFormatDesc *d, hipArray_Format *format,
                              unsigned *channels)
{
    int bits = d->x;
    unsigned n = (d->x > 0) + (d->y > 0) + (d->z > 0) + (d->w > 0);
    /* channels are the leading ones, all of one width; three are not an array format */
    if (n == 0 || n == 3 || (d->y && d->y != bits) || (d->z && d->z != bits) ||
        (d->w && d->w != bits) || (d->y == 0 && (d->z || d->w)) || (d->z == 0 && d->w))
        return hipErrorInvalidChannelDescriptor;
    switch (d->f) {
    case hipChannelFormatKindSigned:
        *format = bits == 8 ? HIP_AD_FORMAT_SIGNED_INT8 : bits == 16 ? HIP_AD_FORMAT_SIGNED_INT16
                  : bits == 32 ? HIP_AD_FORMAT_SIGNED_INT32 : 0;
        break;
    case hipChannelFormatKindUnsigned:
        *format = bits == 8 ? HIP_AD_FORMAT_UNSIGNED_INT8
                  : bits == 16 ? HIP_AD_FORMAT_UNSIGNED_INT16
                  : bits == 32 ? HIP_AD_FORMAT_UNSIGNED_INT32 : 0;
        break;
    case hipChannelFormatKindFloat:
        *format = bits == 16 ? HIP_AD_FORMAT_HALF : bits == 32 ? HIP_AD_FORMAT_FLOAT : 0;
        break;
    default: *format = 0;
    }
    if (*format == 0)
        return hipErrorInvalidChannelDescriptor;
    *channels = n;
    return hipSuccess;
}

hipChannelFormatDesc cpu_array_channel_desc(hipArray_const_t a)
{
    hipChannelFormatDesc d = {0, 0, 0, 0, hipChannelFormatKindNone};
    int bits = (int)cpu_format_bytes(a->format) * 8;
    d.x = bits;
    d.y = a->channels > 1 ? bits : 0;
    d.z = a->channels > 2 ? bits : 0;
    d.w = a->channels > 3 ? bits : 0;
    switch (a->format) {
    case HIP_AD_FORMAT_SIGNED_INT8:
    case HIP_AD_FORMAT_SIGNED_INT16:
    case HIP_AD_FORMAT_SIGNED_INT32: d.f = hipChannelFormatKindSigned; break;
    case HIP_AD_FORMAT_HALF:
    case HIP_AD_FORMAT_FLOAT: d.f = hipChannelFormatKindFloat; break;
    default: d.f = hipChannelFormatKindUnsigned;
    }
    return d;
}

static hipError_t create(hipArray_t *out, hipArray_Format format, unsigned channels,
                         size_t width, size_t height, size_t depth, unsigned flags,
                         const char *fn)
{
    if (out == NULL)
        return hipErrorInvalidValue;
    unsigned bytes = cpu_format_bytes(format);
    if (bytes == 0 || (channels != 1 && channels != 2 && channels != 4)) {
        cpu_log("%s: format 0x%x with %u channels is not an array format", fn,
                (unsigned)format, channels);
        return hipErrorInvalidValue;
    }
    if (width == 0 || (flags & ~known_flags) || (depth && !height && !(flags & hipArrayLayered))) {
        cpu_log("%s: bad extent %zux%zux%zu or flags 0x%x", fn, width, height, depth, flags);
        return hipErrorInvalidValue;
    }
    struct hipArray *a = calloc(1, sizeof *a);
    if (a == NULL)
        return hipErrorOutOfMemory;
    a->format = format;
    a->channels = channels;
    a->elem_bytes = bytes * channels;
    a->width = width;
    a->height = height;
    a->depth = depth;
    a->flags = flags;
    a->pitch = width * a->elem_bytes;
    a->slice = a->pitch * (height ? height : 1);
    size_t total = a->slice * (depth ? depth : 1);
    if (total / a->slice != (depth ? depth : 1) || hipMalloc((void **)&a->data, total) != hipSuccess) {
        free(a);
        return hipErrorOutOfMemory;
    }
    memset(a->data, 0, total);
    if (!pyshim_handles_add(&array_handles, a)) {
        hipFree(a->data);
        free(a);
        return hipErrorOutOfMemory;
    }
    *out = a;
    return hipSuccess;
}

static hipError_t destroy(hipArray_t a, const char *fn)
{
    if (a == NULL || !pyshim_handles_remove(&array_handles, a)) {
        cpu_log("%s: %p is not an array", fn, (void *)a);
        return hipErrorInvalidHandle;
    }
    hipError_t err = hipDeviceSynchronize(); /* work in flight may still read it */
    hipFree(a->data);
    free(a);
    return err;
}

/* The array format of a runtime allocation's channel description (none: invalid). */
static hipError_t desc_format(const hipChannelFormatDesc *desc, hipArray_Format *format,
                              unsigned *channels)
{
    return desc == NULL ? hipErrorInvalidValue : cpu_channel_format(desc, format, channels);
}

hipError_t hipArrayCreate(hipArray_t *pHandle, const HIP_ARRAY_DESCRIPTOR *d)
{
    if (d == NULL)
        return cpu_ret(hipErrorInvalidValue);
    return cpu_ret(create(pHandle, d->Format, d->NumChannels, d->Width, d->Height, 0, 0,
                          "hipArrayCreate"));
}

hipError_t hipArray3DCreate(hipArray_t *array, const HIP_ARRAY3D_DESCRIPTOR *d)
{
    if (d == NULL)
        return cpu_ret(hipErrorInvalidValue);
    return cpu_ret(create(array, d->Format, d->NumChannels, d->Width, d->Height, d->Depth,
                          d->Flags, "hipArray3DCreate"));
}

hipError_t hipArrayDestroy(hipArray_t array)
{
    return cpu_ret(destroy(array, "hipArrayDestroy"));
}

hipError_t hipFreeArray(hipArray_t array)
{
    return cpu_ret(destroy(array, "hipFreeArray"));
}

hipError_t hipMallocArray(hipArray_t *array, const hipChannelFormatDesc *desc, size_t width,
                          size_t height, unsigned int flags)
{
    hipArray_Format format;
    unsigned channels;
    hipError_t err = desc_format(desc, &format, &channels);
    if (err != hipSuccess)
        return cpu_ret(err);
    return cpu_ret(create(array, format, channels, width, height, 0, flags, "hipMallocArray"));
}

hipError_t hipMalloc3DArray(hipArray_t *array, const struct hipChannelFormatDesc *desc,
                            struct hipExtent extent, unsigned int flags)
{
    hipArray_Format format;
    unsigned channels;
    hipError_t err = desc_format(desc, &format, &channels);
    if (err != hipSuccess)
        return cpu_ret(err);
    return cpu_ret(create(array, format, channels, extent.width, extent.height, extent.depth,
                          flags, "hipMalloc3DArray"));
}

/* A getter's checks: somewhere to write, then an array to describe. */
static hipError_t array_to_read(const void *out, hipArray_const_t a)
{
    if (out == NULL)
        return hipErrorInvalidValue;
    return cpu_array_valid(a) ? hipSuccess : hipErrorInvalidHandle;
}

hipError_t hipArray3DGetDescriptor(HIP_ARRAY3D_DESCRIPTOR *out, hipArray_t a)
{
    hipError_t err = array_to_read(out, a);
    if (err != hipSuccess)
        return cpu_ret(err);
    out->Width = a->width;
    out->Height = a->height;
    out->Depth = a->depth;
    out->Format = a->format;
    out->NumChannels = a->channels;
    out->Flags = a->flags;
    return cpu_ret(hipSuccess);
}

/* The 2D descriptor is the 3D one's leading fields. */
hipError_t hipArrayGetDescriptor(HIP_ARRAY_DESCRIPTOR *out, hipArray_t a)
{
    HIP_ARRAY3D_DESCRIPTOR d;
    hipError_t err = out == NULL ? hipErrorInvalidValue : hipArray3DGetDescriptor(&d, a);
    if (err == hipSuccess)
        *out = (HIP_ARRAY_DESCRIPTOR){.Width = d.Width, .Height = d.Height, .Format = d.Format,
                                      .NumChannels = d.NumChannels};
    return cpu_ret(err);
}

hipError_t hipArrayGetInfo(hipChannelFormatDesc *desc, hipExtent *extent, unsigned int *flags,
                           hipArray_t a)
{
    if (!cpu_array_valid(a))
        return cpu_ret(hipErrorInvalidHandle);
    if (desc != NULL)
        *desc = cpu_array_channel_desc(a);
    if (extent != NULL)
        *extent = (hipExtent){a->width, a->height, a->depth};
    if (flags != NULL)
        *flags = a->flags;
    return cpu_ret(hipSuccess);
}

hipError_t hipGetChannelDesc(hipChannelFormatDesc *desc, hipArray_const_t a)
{
    hipError_t err = array_to_read(desc, a);
    if (err != hipSuccess)
        return cpu_ret(err);
    *desc = cpu_array_channel_desc(a);
    return cpu_ret(hipSuccess);
}

/* ---- copies with an array end: 2D copies at a byte offset into the packed rows ---- */

/* One end of a 2D copy: an array at a byte offset and row, or memory and its pitch. */
struct copy_end {
    bool is_array;
    hipArray_const_t array;
    size_t x_bytes, y;
    const void *ptr;
    size_t pitch;
};

static struct copy_end array_end(hipArray_const_t a, size_t x_bytes, size_t y)
{
    return (struct copy_end){.is_array = true, .array = a, .x_bytes = x_bytes, .y = y};
}

static struct copy_end memory_end(const void *ptr, size_t pitch)
{
    return (struct copy_end){.ptr = ptr, .pitch = pitch};
}

/* An array end becomes its packed rows at the offset, once the copy is known to fit. */
static hipError_t resolve_end(struct copy_end *e, size_t width, size_t height, const char *fn)
{
    if (!e->is_array)
        return hipSuccess;
    hipArray_const_t a = e->array;
    if (!cpu_array_valid(a)) {
        cpu_log("%s: %p is not an array", fn, (const void *)a);
        return hipErrorInvalidHandle;
    }
    size_t rows = a->height ? a->height : 1;
    if (e->x_bytes + width > a->pitch || e->y + height > rows) {
        cpu_log("%s: %zu bytes x %zu rows at (%zu, %zu) leave the array (%zu x %zu)", fn,
                width, height, e->x_bytes, e->y, a->pitch, rows);
        return hipErrorInvalidValue;
    }
    e->ptr = a->data + e->y * a->pitch + e->x_bytes;
    e->pitch = a->pitch;
    return hipSuccess;
}

/* Every 2D copy with an array end, in whichever direction: the strided copy of memcpy.c,
 * on `stream` when `async`. */
static hipError_t copy_2d(struct copy_end dst, struct copy_end src, size_t width,
                          size_t height, hipMemcpyKind kind, bool async, hipStream_t stream,
                          const char *fn)
{
    hipError_t err = resolve_end(&dst, width, height, fn);
    if (err == hipSuccess)
        err = resolve_end(&src, width, height, fn);
    if (err != hipSuccess)
        return cpu_ret(err);
    if (async)
        return hipMemcpy2DAsync((void *)dst.ptr, dst.pitch, src.ptr, src.pitch, width, height,
                                kind, stream);
    return hipMemcpy2D((void *)dst.ptr, dst.pitch, src.ptr, src.pitch, width, height, kind);
}

hipError_t hipMemcpy2DToArray(hipArray_t dst, size_t wOffset, size_t hOffset, const void *src,
                              size_t spitch, size_t width, size_t height, hipMemcpyKind kind)
{
    return copy_2d(array_end(dst, wOffset, hOffset), memory_end(src, spitch), width, height,
                   kind == hipMemcpyHostToHost ? hipMemcpyHostToDevice : kind, false, NULL,
                   "hipMemcpy2DToArray");
}

hipError_t hipMemcpy2DToArrayAsync(hipArray_t dst, size_t wOffset, size_t hOffset,
                                   const void *src, size_t spitch, size_t width, size_t height,
                                   hipMemcpyKind kind, hipStream_t stream)
{
    return copy_2d(array_end(dst, wOffset, hOffset), memory_end(src, spitch), width, height,
                   kind, true, stream, "hipMemcpy2DToArrayAsync");
}

hipError_t hipMemcpy2DFromArray(void *dst, size_t dpitch, hipArray_const_t src, size_t wOffset,
                                size_t hOffset, size_t width, size_t height, hipMemcpyKind kind)
{
    return copy_2d(memory_end(dst, dpitch), array_end(src, wOffset, hOffset), width, height,
                   kind, false, NULL, "hipMemcpy2DFromArray");
}

hipError_t hipMemcpy2DFromArrayAsync(void *dst, size_t dpitch, hipArray_const_t src,
                                     size_t wOffset, size_t hOffset, size_t width,
                                     size_t height, hipMemcpyKind kind, hipStream_t stream)
{
    return copy_2d(memory_end(dst, dpitch), array_end(src, wOffset, hOffset), width, height,
                   kind, true, stream, "hipMemcpy2DFromArrayAsync");
}

hipError_t hipMemcpy2DArrayToArray(hipArray_t dst, size_t wOffsetDst, size_t hOffsetDst,
                                   hipArray_const_t src, size_t wOffsetSrc, size_t hOffsetSrc,
                                   size_t width, size_t height, hipMemcpyKind kind)
{
    (void)kind; /* both ends are device memory */
    return copy_2d(array_end(dst, wOffsetDst, hOffsetDst), array_end(src, wOffsetSrc, hOffsetSrc),
                   width, height, hipMemcpyDeviceToDevice, false, NULL,
                   "hipMemcpy2DArrayToArray");
}

/* The 1D forms (deprecated in CUDA) run row by row from (wOffset, hOffset) onwards. */
static hipError_t linear_span(hipArray_const_t a, size_t wOffset, size_t hOffset, size_t count,
                              char **out, const char *fn)
{
    if (!cpu_array_valid(a)) {
        cpu_log("%s: %p is not an array", fn, (const void *)a);
        return hipErrorInvalidHandle;
    }
    size_t rows = a->height ? a->height : 1, depth = a->depth ? a->depth : 1;
    size_t start = hOffset * a->pitch + wOffset;
    if (wOffset > a->pitch || hOffset > rows || start + count > a->slice * depth) {
        cpu_log("%s: %zu bytes at (%zu, %zu) leave the array", fn, count, wOffset, hOffset);
        return hipErrorInvalidValue;
    }
    *out = a->data + start;
    return hipSuccess;
}

hipError_t hipMemcpyToArray(hipArray_t dst, size_t wOffset, size_t hOffset, const void *src,
                            size_t count, hipMemcpyKind kind)
{
    char *d;
    hipError_t err = linear_span(dst, wOffset, hOffset, count, &d, "hipMemcpyToArray");
    return err != hipSuccess ? cpu_ret(err) : hipMemcpy(d, src, count, kind);
}

hipError_t hipMemcpyFromArray(void *dst, hipArray_const_t src, size_t wOffset, size_t hOffset,
                              size_t count, hipMemcpyKind kind)
{
    char *s;
    hipError_t err = linear_span(src, wOffset, hOffset, count, &s, "hipMemcpyFromArray");
    return err != hipSuccess ? cpu_ret(err) : hipMemcpy(dst, s, count, kind);
}

/* The memory a copy descriptor's array end starts at, and its pitch and slice (memcpy.c). */
hipError_t cpu_array_side(hipArray_const_t a, const void **base, size_t *pitch, size_t *rows,
                          const char *fn)
{
    if (!cpu_array_valid(a)) {
        cpu_log("%s: %p is not an array", fn, (const void *)a);
        return hipErrorInvalidHandle;
    }
    *base = a->data;
    *pitch = a->pitch;
    *rows = a->height ? a->height : 1;
    return hipSuccess;
}

static bool span_fits(size_t at, size_t n, size_t size)
{
    return at <= size && n <= size - at;
}

hipError_t cpu_array_fits(hipArray_const_t a, size_t x, size_t y, size_t z, size_t w_bytes,
                          size_t h, size_t d, const char *fn)
{
    if (w_bytes == 0 || h == 0 || d == 0)
        return hipSuccess;
    size_t rows = a->height ? a->height : 1, slices = a->depth ? a->depth : 1;
    if (span_fits(x, w_bytes, a->pitch) && span_fits(y, h, rows) && span_fits(z, d, slices))
        return hipSuccess;
    cpu_log("%s: %zu bytes x %zu rows x %zu slices at (%zu, %zu, %zu) leave the array "
            "(%zu x %zu x %zu)", fn, w_bytes, h, d, x, y, z, a->pitch, rows, slices);
    return hipErrorInvalidValue;
}

/* ---- mipmapped arrays: one array per level, each dimension halved (at least 1) ---- */

#define MAX_LEVELS 32

typedef struct mipmap {
    hipMipmappedArray pub;   /* HIP's public struct, first: the handle points to it */
    unsigned levels;
    hipArray_t level[MAX_LEVELS];
} mipmap;

static pyshim_handle_set mipmap_handles = PYSHIM_HANDLE_SET_INIT;

static size_t halve(size_t n, unsigned times)
{
    if (n == 0)
        return 0;
    n >>= times;
    return n ? n : 1;
}

static hipError_t mipmap_destroy(hipMipmappedArray_t h, const char *fn)
{
    if (h == NULL || !pyshim_handles_remove(&mipmap_handles, h)) {
        cpu_log("%s: %p is not a mipmapped array", fn, (void *)h);
        return hipErrorInvalidHandle;
    }
    mipmap *m = (mipmap *)h;
    for (unsigned i = 0; i < m->levels; i++)
        destroy(m->level[i], fn);
    free(m);
    return hipSuccess;
}

static hipError_t mipmap_create(hipMipmappedArray_t *out, hipArray_Format format,
                                unsigned channels, size_t w, size_t h, size_t d,
                                unsigned flags, unsigned levels, const char *fn)
{
    if (out == NULL || levels == 0) {
        cpu_log("%s: no handle or no levels", fn);
        return hipErrorInvalidValue;
    }
    size_t largest = w > h ? w : h;
    largest = largest > d ? largest : d;
    unsigned possible = 1;
    while (possible < MAX_LEVELS && (largest >> possible) > 0)
        possible++;
    if (levels > possible) {
        cpu_log("%s: %u levels for a largest extent of %zu (at most %u)", fn, levels, largest,
                possible);
        return hipErrorInvalidValue;
    }
    mipmap *m = calloc(1, sizeof *m);
    if (m == NULL)
        return hipErrorOutOfMemory;
    hipError_t err = hipSuccess;
    for (unsigned i = 0; i < levels && err == hipSuccess; i++) {
        err = create(&m->level[i], format, channels, halve(w, i), halve(h, i),
                     (flags & hipArrayLayered) ? d : halve(d, i), flags, fn);
        if (err == hipSuccess)
            m->levels = i + 1;
    }
    if (err == hipSuccess && !pyshim_handles_add(&mipmap_handles, m))
        err = hipErrorOutOfMemory;
    if (err != hipSuccess) {
        for (unsigned i = 0; i < m->levels; i++)
            destroy(m->level[i], fn);
        free(m);
        return err;
    }
    m->pub.data = m->level[0]->data;
    m->pub.desc = cpu_array_channel_desc(m->level[0]);
    m->pub.width = (unsigned)w;
    m->pub.height = (unsigned)h;
    m->pub.depth = (unsigned)d;
    m->pub.min_mipmap_level = 0;
    m->pub.max_mipmap_level = levels - 1;
    m->pub.flags = flags;
    m->pub.format = format;
    m->pub.num_channels = channels;
    *out = &m->pub;
    return hipSuccess;
}

unsigned cpu_mipmap_levels(hipMipmappedArray_const_t h)
{
    return h != NULL && pyshim_handles_contains(&mipmap_handles, h) ? ((const mipmap *)h)->levels
                                                                    : 0;
}

hipError_t cpu_mipmap_level(hipArray_t *out, hipMipmappedArray_const_t h, unsigned level,
                            const char *fn)
{
    if (out == NULL)
        return hipErrorInvalidValue;
    if (h == NULL || !pyshim_handles_contains(&mipmap_handles, h)) {
        cpu_log("%s: %p is not a mipmapped array", fn, (const void *)h);
        return hipErrorInvalidHandle;
    }
    const mipmap *m = (const mipmap *)h;
    if (level >= m->levels) {
        cpu_log("%s: level %u of %u", fn, level, m->levels);
        return hipErrorInvalidValue;
    }
    *out = m->level[level];
    return hipSuccess;
}

hipError_t hipMipmappedArrayCreate(hipMipmappedArray_t *pHandle,
                                   HIP_ARRAY3D_DESCRIPTOR *d, unsigned int numMipmapLevels)
{
    if (d == NULL)
        return cpu_ret(hipErrorInvalidValue);
    return cpu_ret(mipmap_create(pHandle, d->Format, d->NumChannels, d->Width, d->Height,
                                 d->Depth, d->Flags, numMipmapLevels, "hipMipmappedArrayCreate"));
}

hipError_t hipMallocMipmappedArray(hipMipmappedArray_t *mipmappedArray,
                                   const struct hipChannelFormatDesc *desc,
                                   struct hipExtent extent, unsigned int numLevels,
                                   unsigned int flags)
{
    hipArray_Format format;
    unsigned channels;
    hipError_t err = desc_format(desc, &format, &channels);
    if (err != hipSuccess)
        return cpu_ret(err);
    return cpu_ret(mipmap_create(mipmappedArray, format, channels, extent.width, extent.height,
                                 extent.depth, flags, numLevels, "hipMallocMipmappedArray"));
}

hipError_t hipMipmappedArrayDestroy(hipMipmappedArray_t hMipmappedArray)
{
    return cpu_ret(mipmap_destroy(hMipmappedArray, "hipMipmappedArrayDestroy"));
}

hipError_t hipFreeMipmappedArray(hipMipmappedArray_t mipmappedArray)
{
    return cpu_ret(mipmap_destroy(mipmappedArray, "hipFreeMipmappedArray"));
}

hipError_t hipMipmappedArrayGetLevel(hipArray_t *pLevelArray, hipMipmappedArray_t h,
                                     unsigned int level)
{
    return cpu_ret(cpu_mipmap_level(pLevelArray, h, level, "hipMipmappedArrayGetLevel"));
}

hipError_t hipGetMipmappedArrayLevel(hipArray_t *levelArray,
                                     hipMipmappedArray_const_t mipmappedArray, unsigned int level)
{
    return cpu_ret(cpu_mipmap_level(levelArray, mipmappedArray, level,
                                    "hipGetMipmappedArrayLevel"));
}
