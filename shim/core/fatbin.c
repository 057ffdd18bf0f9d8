/*
 * How many bytes an image passed to cuLibraryLoadData / cuModuleLoadData occupies: the
 * driver API hands us a bare pointer, and the translator must get exactly the image.
 */
#define _GNU_SOURCE /* process_vm_readv */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#include "internal.h"

/* memcpy that fails instead of crashing when `src` is not readable for `n` bytes (a
 * container header that claims more than exists, a bad pointer): the kernel copies
 * from our own address space and reports EFAULT. */
static int safe_copy(void *dst, const void *src, size_t n)
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

/* A v2 (device-linked, -rdc=true) wrapper's container is a link stub without the
 * program's code; `aux` points at a NULL-terminated array of the relocatable containers
 * (one per translation unit) that hold the PTX. Those are what must be translated. */
#define MAX_RELOCATABLE 65536

static CUresult copy_relocatable(const uint8_t *const *aux, uint8_t **out, size_t *size)
{
    size_t total = 0, n = 0;
    for (; n < MAX_RELOCATABLE && aux[n] != NULL; n++) {
        if (rd32(aux[n]) != PYSHIM_FATBIN_CONTAINER_MAGIC)
            return CUDA_ERROR_INVALID_IMAGE;
        total += container_size(aux[n]);
    }
    if (n == MAX_RELOCATABLE)
        return CUDA_ERROR_INVALID_IMAGE;
    if (n > 1)
        pyshim_log("an -rdc=true program with %zu translation units: their PTX is passed "
                   "back to back; kernels outside the first may not be found", n);
    uint8_t *buf = malloc(total);
    if (buf == NULL)
        return CUDA_ERROR_OUT_OF_MEMORY;
    size_t off = 0;
    for (size_t i = 0; i < n; i++) {
        size_t s = container_size(aux[i]);
        if (safe_copy(buf + off, aux[i], s) != 0) {
            free(buf);
            pyshim_log("relocatable fat binary %zu claims %zu bytes that are not there", i, s);
            return CUDA_ERROR_INVALID_IMAGE;
        }
        off += s;
    }
    *out = buf;
    *size = total;
    return CUDA_SUCCESS;
}

CUresult pyshim_image_copy(const void *data, uint8_t **out, size_t *size)
{
    const uint8_t *p = data;
    uint8_t head[4];
    if (p == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    if (safe_copy(head, p, sizeof head) != 0)
        return CUDA_ERROR_INVALID_VALUE;
    if (rd32(p) == PYSHIM_FATBIN_WRAPPER_MAGIC && rd32(p + 4) == 2) {
        const uint8_t *const *aux;
        memcpy(&aux, p + 16, sizeof aux);
        if (aux != NULL && aux[0] != NULL)
            return copy_relocatable(aux, out, size);
    }
    const void *start = NULL;
    size_t n = pyshim_image_extent(data, &start);
    if (n == 0)
        return CUDA_ERROR_INVALID_IMAGE;
    if (n > ((size_t)1 << 34))
        return CUDA_ERROR_INVALID_IMAGE;
    uint8_t *buf = malloc(n + 1);
    if (buf == NULL)
        return CUDA_ERROR_OUT_OF_MEMORY;
    if (safe_copy(buf, start, n) != 0) {
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
    const uint8_t *p = data;
    if (p == NULL)
        return 0;
    *start = data;
    uint8_t head[16];
    if (safe_copy(head, p, 4) != 0)
        return 0;
    uint32_t magic = rd32(head);
    if (magic == PYSHIM_FATBIN_WRAPPER_MAGIC) {
        /* __fatBinC_Wrapper_t: u32 magic, u32 version, const void *data, const void *aux */
        const uint8_t *container;
        if (safe_copy(head, p, 16) != 0)
            return 0;
        memcpy(&container, head + 8, sizeof container);
        if (container == NULL || safe_copy(head, container, 16) != 0 ||
            rd32(head) != PYSHIM_FATBIN_CONTAINER_MAGIC)
            return 0;
        *start = container;
        return container_size(head);
    }
    if (magic == PYSHIM_FATBIN_CONTAINER_MAGIC)
        return safe_copy(head, p, 16) == 0 ? container_size(head) : 0;
    if (memcmp(p, "\177ELF", 4) == 0)
        return elf_size(p);
    /* PTX text: NUL-terminated */
    return strlen((const char *)p);
}
