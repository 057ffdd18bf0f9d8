/* A cubin-shaped ELF holding named sections: how pyshim hands back images of its own
 * making (PTX where a cubin was asked for, the inputs of a cuLink* link) in the shape
 * callers and pyshim's own image-size code expect of a cubin. */
#ifndef PYSHIM_COMMON_ELF_WRITE_H
#define PYSHIM_COMMON_ELF_WRITE_H

#include <stddef.h>
#include <stdint.h>

#include "visibility.h"

struct pyshim_common_section {
    const char *name;
    const void *data;
    size_t size;
};

/* A 64-bit EM_CUDA executable in the CUDA 13 cubin ABI (EI_OSABI 0x41, the SM in e_flags
 * bits 8-15) with the sections given, each 8-byte aligned. Returns a malloc'd buffer
 * (NULL when out of memory) of *size bytes. */
PYSHIM_COMMON_HIDDEN uint8_t *pyshim_common_elf(const struct pyshim_common_section *sections,
                                                size_t n, unsigned sm, size_t *size);

#endif
