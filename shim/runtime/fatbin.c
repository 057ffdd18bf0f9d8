/*
 * How many bytes a fat binary registered by nvcc's host code occupies: the hooks hand us
 * a bare pointer, and the translator must get exactly the image. The sizing is
 * shim/common/fatbin_extent.c, shared with libcuda.so.1 (which libcudart does not link).
 */
#include "common/fatbin_extent.h"
#include "internal.h"

size_t pyshim_rt_image_extent(const void *data, const void **start)
{
    return pyshim_common_image_extent(data, start);
}

/* NULL when `data` is not a v2 wrapper with relocatable containers, or they cannot be
 * copied: the caller then registers the wrapper's own container. */
void *pyshim_rt_relocatable_copy(const void *data, size_t *size)
{
    uint8_t *buf = NULL;
    size_t units = 0;
    if (pyshim_common_relocatable_copy(data, &buf, size, &units) != PYSHIM_COMMON_RELOC_OK)
        return NULL;
    return buf;
}
