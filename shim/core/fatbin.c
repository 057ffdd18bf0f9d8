/*
 * How many bytes an image passed to cuLibraryLoadData / cuModuleLoadData occupies: the
 * driver API hands us a bare pointer, and the translator must get exactly the image. The
 * sizing is shim/common/fatbin_extent.c (shared with libcudart); this file turns its
 * answers into CUresult.
 */
#include <stdlib.h>
#include <string.h>

#include "common/fatbin_extent.h"
#include "internal.h"

/* larger than any real module: a container header that claims this is corrupt */
#define MAX_IMAGE_BYTES ((size_t)1 << 34)

CUresult pyshim_image_copy(const void *data, uint8_t **out, size_t *size)
{
    if (data == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    uint8_t head[4];
    if (pyshim_common_safe_copy(head, data, sizeof head) != 0)
        return CUDA_ERROR_INVALID_VALUE;
    size_t units = 0;
    switch (pyshim_common_relocatable_copy(data, out, size, &units)) {
    case PYSHIM_COMMON_RELOC_OK:
        (void)units; /* the loader links the units' PTX (pyshim/kernels/ptx_link.py) */
        return CUDA_SUCCESS;
    case PYSHIM_COMMON_RELOC_BAD:
        return CUDA_ERROR_INVALID_IMAGE;
    case PYSHIM_COMMON_RELOC_NO_MEMORY:
        return CUDA_ERROR_OUT_OF_MEMORY;
    case PYSHIM_COMMON_RELOC_NONE:
        break;
    }
    const void *start = NULL;
    size_t n = pyshim_image_extent(data, &start);
    if (n == 0 || n > MAX_IMAGE_BYTES)
        return CUDA_ERROR_INVALID_IMAGE;
    uint8_t *buf = malloc(n + 1);
    if (buf == NULL)
        return CUDA_ERROR_OUT_OF_MEMORY;
    if (pyshim_common_safe_copy(buf, start, n) != 0) {
        free(buf);
        pyshim_log("module image at %p claims %zu bytes that are not there", start, n);
        return CUDA_ERROR_INVALID_IMAGE;
    }
    buf[n] = 0; /* PTX text stays NUL-terminated */
    *out = buf;
    *size = n;
    return CUDA_SUCCESS;
}

size_t pyshim_image_extent(const void *data, const void **start)
{
    return pyshim_common_image_extent(data, start);
}
