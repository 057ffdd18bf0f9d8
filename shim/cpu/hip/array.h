/* CUDA arrays on the CPU device: shared by array.c, memcpy.c and texture.c. */
#ifndef PYSHIM_CPU_ARRAY_H
#define PYSHIM_CPU_ARRAY_H

#include <stdbool.h>
#include <stddef.h>

#include "internal.h"

/* An array is device memory in row-major order, rows packed (pitch = width x element):
 * what a copy, a texture and a surface all address. */
struct hipArray {
    char *data;
    hipArray_Format format;
    unsigned channels;
    unsigned elem_bytes;          /* one element, every channel */
    size_t width, height, depth;  /* as created: 0 for a missing dimension */
    unsigned flags;               /* CUDA_ARRAY3D_* / cudaArray* flags */
    size_t pitch, slice;
};

/* Whether `a` is a live array this device made. */
bool cpu_array_valid(hipArray_const_t a);
/* The bytes of one element of `format` (0: not a format). */
unsigned cpu_format_bytes(hipArray_Format format);
/* The array format and channel count a runtime channel descriptor names. */
hipError_t cpu_channel_format(const hipChannelFormatDesc *d, hipArray_Format *format,
                              unsigned *channels);
/* The runtime channel descriptor of an array. */
hipChannelFormatDesc cpu_array_channel_desc(hipArray_const_t a);

/* The memory a copy descriptor's array end starts at, its pitch and rows per slice. */
hipError_t cpu_array_side(hipArray_const_t a, const void **base, size_t *pitch, size_t *rows,
                          const char *fn);

/* Level `level` of a mipmapped array (invalid handle / invalid value, logged, naming fn),
 * and how many levels it has (0: not a mipmapped array). */
hipError_t cpu_mipmap_level(hipArray_t *out, hipMipmappedArray_const_t m, unsigned level,
                            const char *fn);
unsigned cpu_mipmap_levels(hipMipmappedArray_const_t m);

/* Whether a copy of w_bytes x h rows x d slices at byte x, row y, slice z stays inside `a`
 * (else a log line naming `fn` and hipErrorInvalidValue, as CUDA's array copies check). */
hipError_t cpu_array_fits(hipArray_const_t a, size_t x, size_t y, size_t z, size_t w_bytes,
                          size_t h, size_t d, const char *fn);

#endif
