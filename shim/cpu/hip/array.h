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

#endif
