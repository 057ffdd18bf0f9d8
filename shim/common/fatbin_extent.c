/* Sizes of fat binaries, ELF files and PTX text behind a bare pointer (fatbin_extent.h). */
#define _GNU_SOURCE /* process_vm_readv */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#include "fatbin_extent.h"
#include "log.h"

/* more relocatable containers than this means `aux` is not what we think it is */
#define MAX_RELOCATABLE 65536

/* The kernel copies from our own address space and reports EFAULT for a container header
 * that claims more than exists or a bad pointer. */
int pyshim_common_safe_copy(void *dst, const void *src, size_t n)
{
    struct iovec local = {dst, n}, remote = {(void *)(uintptr_t)src, n};
    ssize_t got = process_vm_readv(getpid(), &local, 1, &remote, 1, 0);
    if (got == (ssize_t)n)
        return 0;
    if (got < 0 && errno == ENOSYS) { /* no such syscall (old kernels, some sandboxes) */
        memcpy(dst, src, n);
        return 0;
    }
    return -1;
}

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

size_t pyshim_common_image_extent(const void *data, const void **start)
{
    const uint8_t *p = data;
    if (p == NULL)
        return 0;
    *start = data;
    uint8_t head[16];
    if (pyshim_common_safe_copy(head, p, 4) != 0)
        return 0;
    uint32_t magic = rd32(head);
    if (magic == PYSHIM_COMMON_FATBIN_WRAPPER_MAGIC) {
        /* __fatBinC_Wrapper_t: u32 magic, u32 version, const void *data, const void *aux */
        const uint8_t *container;
        if (pyshim_common_safe_copy(head, p, 16) != 0)
            return 0;
        memcpy(&container, head + 8, sizeof container);
        if (container == NULL || pyshim_common_safe_copy(head, container, 16) != 0 ||
            rd32(head) != PYSHIM_COMMON_FATBIN_CONTAINER_MAGIC)
            return 0;
        *start = container;
        return container_size(head);
    }
    if (magic == PYSHIM_COMMON_FATBIN_CONTAINER_MAGIC)
        return pyshim_common_safe_copy(head, p, 16) == 0 ? container_size(head) : 0;
    if (memcmp(p, "\177ELF", 4) == 0)
        return elf_size(p);
    /* PTX text: NUL-terminated */
    return strlen((const char *)p);
}

enum pyshim_common_relocatable
pyshim_common_relocatable_copy(const void *data, uint8_t **out, size_t *size, size_t *units)
{
    const uint8_t *p = data;
    uint8_t head[4];
    if (p == NULL || pyshim_common_safe_copy(head, p, sizeof head) != 0)
        return PYSHIM_COMMON_RELOC_NONE;
    if (rd32(p) != PYSHIM_COMMON_FATBIN_WRAPPER_MAGIC || rd32(p + 4) != 2)
        return PYSHIM_COMMON_RELOC_NONE;
    const uint8_t *const *aux;
    memcpy(&aux, p + 16, sizeof aux);
    if (aux == NULL || aux[0] == NULL)
        return PYSHIM_COMMON_RELOC_NONE;
    size_t total = 0, n = 0;
    for (; n < MAX_RELOCATABLE && aux[n] != NULL; n++) {
        if (rd32(aux[n]) != PYSHIM_COMMON_FATBIN_CONTAINER_MAGIC)
            return PYSHIM_COMMON_RELOC_BAD;
        total += container_size(aux[n]);
    }
    if (n == MAX_RELOCATABLE)
        return PYSHIM_COMMON_RELOC_BAD;
    uint8_t *buf = malloc(total);
    if (buf == NULL)
        return PYSHIM_COMMON_RELOC_NO_MEMORY;
    size_t off = 0;
    for (size_t i = 0; i < n; i++) {
        size_t s = container_size(aux[i]);
        if (pyshim_common_safe_copy(buf + off, aux[i], s) != 0) {
            free(buf);
            pyshim_common_log("relocatable fat binary %zu claims %zu bytes that are not there",
                              i, s);
            return PYSHIM_COMMON_RELOC_BAD;
        }
        off += s;
    }
    *out = buf;
    *size = total;
    *units = n;
    return PYSHIM_COMMON_RELOC_OK;
}
