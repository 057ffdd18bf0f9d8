/*
 * How many bytes a fat binary registered by nvcc's host code occupies: the
 * hooks hand us a bare pointer, and the translator must get exactly the image.
 * Mirrors shim/core/fatbin.c (libcudart does not link libcuda.so.1).
 */
#include <stdlib.h>
#include <string.h>

#include "internal.h"

static uint32_t rd32(const uint8_t *p)
{
    uint32_t v;
    memcpy(&v, p, 4);
    return v;
}

static uint64_t rd64(const uint8_t *p)
{
    uint64_t v;
    memcpy(&v, p, 8);
    return v;
}

/* Container: u32 magic, u16 version, u16 header size, u64 size of the entries. */
static size_t container_size(const uint8_t *p)
{
    uint16_t header;
    memcpy(&header, p + 6, 2);
    return (size_t)header + (size_t)rd64(p + 8);
}

/* ELF64: the section header table is the last thing in files the toolchain writes. */
static size_t elf_size(const uint8_t *p)
{
    if (p[4] != 2) /* ELFCLASS64 */
        return 0;
    uint64_t shoff = rd64(p + 0x28), phoff = rd64(p + 0x20);
    uint16_t phentsize, phnum, shentsize, shnum;
    memcpy(&phentsize, p + 0x36, 2);
    memcpy(&phnum, p + 0x38, 2);
    memcpy(&shentsize, p + 0x3a, 2);
    memcpy(&shnum, p + 0x3c, 2);
    uint64_t end = shoff + (uint64_t)shentsize * shnum;
    uint64_t ph_end = phoff + (uint64_t)phentsize * phnum;
    if (ph_end > end)
        end = ph_end;
    /* section contents may follow the header table in hand-made files */
    for (uint16_t i = 0; i < shnum && shoff != 0; i++) {
        const uint8_t *sh = p + shoff + (uint64_t)i * shentsize;
        uint32_t type = rd32(sh + 4);
        uint64_t off = rd64(sh + 0x18), size = rd64(sh + 0x20);
        if (type != 8 /* SHT_NOBITS */ && off + size > end)
            end = off + size;
    }
    return (size_t)end;
}

size_t pyshim_rt_image_extent(const void *data, const void **start)
{
    const uint8_t *p = data;
    if (p == NULL)
        return 0;
    *start = data;
    uint32_t magic = rd32(p);
    if (magic == PYSHIM_RT_FATBIN_WRAPPER_MAGIC) {
        /* __fatBinC_Wrapper_t: u32 magic, u32 version, const void *data, const void *aux */
        const uint8_t *container;
        memcpy(&container, p + 8, sizeof container);
        if (container == NULL || rd32(container) != PYSHIM_RT_FATBIN_CONTAINER_MAGIC)
            return 0;
        *start = container;
        return container_size(container);
    }
    if (magic == PYSHIM_RT_FATBIN_CONTAINER_MAGIC)
        return container_size(p);
    if (memcmp(p, "\177ELF", 4) == 0)
        return elf_size(p);
    /* PTX text: NUL-terminated */
    return strlen((const char *)p);
}

/* A v2 (device-linked, -rdc=true) wrapper's own container is a link stub without the
 * program's code; `aux` points at a NULL-terminated array of the relocatable containers
 * (one per translation unit) holding the PTX: those are what the translator gets, back to
 * back in one buffer (as shim/core/fatbin.c does). NULL if this is not such a wrapper. */
void *pyshim_rt_relocatable_copy(const void *data, size_t *size)
{
    const uint8_t *p = data;
    if (p == NULL || rd32(p) != PYSHIM_RT_FATBIN_WRAPPER_MAGIC || rd32(p + 4) != 2)
        return NULL;
    const uint8_t *const *aux;
    memcpy(&aux, p + 16, sizeof aux);
    if (aux == NULL || aux[0] == NULL)
        return NULL;
    size_t total = 0, n = 0;
    for (; aux[n] != NULL; n++) {
        if (rd32(aux[n]) != PYSHIM_RT_FATBIN_CONTAINER_MAGIC)
            return NULL;
        total += container_size(aux[n]);
    }
    uint8_t *buf = malloc(total);
    if (buf == NULL)
        return NULL;
    size_t off = 0;
    for (size_t i = 0; i < n; i++) {
        size_t s = container_size(aux[i]);
        memcpy(buf + off, aux[i], s);
        off += s;
    }
    *size = total;
    return buf;
}
