/*
 * How many bytes a module image occupies when all we are handed is a pointer (the
 * driver's cuModuleLoadData, the runtime's __cudaRegisterFatBinary): the translator must
 * get exactly the image. Reads through pointers that may be bad fail instead of crashing.
 */
#ifndef PYSHIM_COMMON_FATBIN_EXTENT_H
#define PYSHIM_COMMON_FATBIN_EXTENT_H

#include <stddef.h>
#include <stdint.h>

#include "visibility.h"

/* __fatBinC_Wrapper_t (nvcc's host code) and the fat binary container it points at */
#define PYSHIM_COMMON_FATBIN_WRAPPER_MAGIC 0x466243B1u
#define PYSHIM_COMMON_FATBIN_CONTAINER_MAGIC 0xBA55ED50u
/* larger than any real module image: a header that claims more is corrupt */
#define PYSHIM_COMMON_MAX_IMAGE ((uint64_t)1 << 34)

/* memcpy that returns -1 instead of crashing when `src` is not readable for `n` bytes. */
PYSHIM_COMMON_HIDDEN int pyshim_common_safe_copy(void *dst, const void *src, size_t n);

/* Size in bytes of the image `data` points at (fatbin wrapper, container, ELF, PTX text)
 * and in *start the pointer to pass on (the container for a wrapper); 0 if it is not
 * recognised. */
PYSHIM_COMMON_HIDDEN size_t pyshim_common_image_extent(const void *data, const void **start);

enum pyshim_common_relocatable {
    PYSHIM_COMMON_RELOC_NONE,      /* not a v2 wrapper with relocatable containers */
    PYSHIM_COMMON_RELOC_OK,        /* *out, *size and *units are set */
    PYSHIM_COMMON_RELOC_BAD,       /* a container is not one, or is not all there */
    PYSHIM_COMMON_RELOC_NO_MEMORY,
};

/* A v2 (device-linked, -rdc=true) wrapper's own container is a link stub without the
 * program's code; its `aux` points at a NULL-terminated array of the relocatable
 * containers (one per translation unit) that hold the PTX. Those are what the translator
 * gets: copied back to back into one malloc'ed buffer *out of *size bytes; *units is how
 * many there were. */
PYSHIM_COMMON_HIDDEN enum pyshim_common_relocatable
pyshim_common_relocatable_copy(const void *data, uint8_t **out, size_t *size, size_t *units);

#endif
