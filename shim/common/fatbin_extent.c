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

static uint16_t rd16(const uint8_t *p)
{
    uint16_t v;
    memcpy(&v, p, 2);
    return v;
}

/* Every read below goes through pyshim_common_safe_copy: the pointer we were handed may
 * be bad, and an image's own offsets (a corrupt or hostile one) may point anywhere. */

/* Container: u32 magic, u16 version, u16 header size, u64 size of the entries. 0 if the
 * claim is impossible (past PYSHIM_COMMON_MAX_IMAGE). */
static size_t container_size(const uint8_t *head16)
{
    uint64_t header = rd16(head16 + 6), body = rd64(head16 + 8);
    if (header < 16 || body > PYSHIM_COMMON_MAX_IMAGE || header + body > PYSHIM_COMMON_MAX_IMAGE)
        return 0;
    return (size_t)(header + body);
}

/* ELF64: the section header table is the last thing in files the toolchain writes; in
 * hand-made files section contents may follow it. Every offset and size is checked for
 * overflow and against PYSHIM_COMMON_MAX_IMAGE before anything is read through it; the
 * caller then copies the extent with a checked copy, so a claim past the mapped image is
 * an error, not a read of what lies beyond. */
static size_t elf_size(const uint8_t *p)
{
    uint8_t eh[64];
    if (pyshim_common_safe_copy(eh, p, sizeof eh) != 0 || eh[4] != 2) /* ELFCLASS64 */
        return 0;
    uint64_t shoff = rd64(eh + 0x28), phoff = rd64(eh + 0x20);
    uint64_t phentsize = rd16(eh + 0x36), phnum = rd16(eh + 0x38);
    uint64_t shentsize = rd16(eh + 0x3a), shnum = rd16(eh + 0x3c);
    const uint64_t cap = PYSHIM_COMMON_MAX_IMAGE;
    if (shoff > cap || phoff > cap)
        return 0;
    if (shnum != 0 && shentsize < 64)
        return 0;   /* too small for an Elf64_Shdr: not a real table */
    uint64_t end = 64;
    uint64_t sh_end = shoff + shentsize * shnum, ph_end = phoff + phentsize * phnum;
    if (sh_end > cap || ph_end > cap)
        return 0;
    if (sh_end > end)
        end = sh_end;
    if (ph_end > end)
        end = ph_end;
    for (uint64_t i = 0; i < shnum && shoff != 0; i++) {
        uint8_t sh[64];
        if (pyshim_common_safe_copy(sh, p + shoff + i * shentsize, sizeof sh) != 0)
            return 0;
        uint32_t type = rd32(sh + 4);
        uint64_t off = rd64(sh + 0x18), size = rd64(sh + 0x20);
        if (type == 8 /* SHT_NOBITS */)
            continue;
        if (off > cap || size > cap || off + size > cap)
            return 0;
        if (off + size > end)
            end = off + size;
    }
    return (size_t)end;
}

/* strlen of text that may run into unmapped memory: 0 if no NUL is found before it does,
 * or before the cap. */
static size_t safe_strlen(const char *p)
{
    char chunk[256];
    size_t n = 0;
    for (;;) {
        /* stop a chunk at a page boundary: the next page may be the unmapped one */
        size_t to_page = 4096 - ((uintptr_t)(p + n) & 4095u);
        size_t want = to_page < sizeof chunk ? to_page : sizeof chunk;
        if (n > PYSHIM_COMMON_MAX_IMAGE || pyshim_common_safe_copy(chunk, p + n, want) != 0)
            return 0;
        const char *z = memchr(chunk, 0, want);
        if (z != NULL)
            return n + (size_t)(z - chunk);
        n += want;
    }
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
    if (memcmp(head, "\177ELF", 4) == 0)
        return elf_size(p);
    /* PTX text: NUL-terminated */
    return safe_strlen((const char *)p);
}

enum pyshim_common_relocatable
pyshim_common_relocatable_copy(const void *data, uint8_t **out, size_t *size, size_t *units)
{
    const uint8_t *p = data;
    uint8_t head[24];
    if (p == NULL || pyshim_common_safe_copy(head, p, 4) != 0)
        return PYSHIM_COMMON_RELOC_NONE;
    if (rd32(head) != PYSHIM_COMMON_FATBIN_WRAPPER_MAGIC)
        return PYSHIM_COMMON_RELOC_NONE;
    if (pyshim_common_safe_copy(head, p, sizeof head) != 0 || rd32(head + 4) != 2)
        return PYSHIM_COMMON_RELOC_NONE;
    const uint8_t *const *aux;
    memcpy(&aux, head + 16, sizeof aux);
    const uint8_t *first;
    if (aux == NULL)
        return PYSHIM_COMMON_RELOC_NONE;
    if (pyshim_common_safe_copy(&first, aux, sizeof first) != 0) {
        pyshim_common_log("fat binary wrapper %p: its list of relocatable containers (%p) "
                          "is not readable", data, (const void *)aux);
        return PYSHIM_COMMON_RELOC_BAD;
    }
    if (first == NULL)
        return PYSHIM_COMMON_RELOC_NONE;
    size_t total = 0, n = 0;
    for (;; n++) {
        const uint8_t *c;
        uint8_t ch[16];
        if (n == MAX_RELOCATABLE || pyshim_common_safe_copy(&c, aux + n, sizeof c) != 0)
            return PYSHIM_COMMON_RELOC_BAD;
        if (c == NULL)
            break;
        size_t cs;
        if (pyshim_common_safe_copy(ch, c, sizeof ch) != 0 ||
            rd32(ch) != PYSHIM_COMMON_FATBIN_CONTAINER_MAGIC || (cs = container_size(ch)) == 0 ||
            cs > PYSHIM_COMMON_MAX_IMAGE - total)
            return PYSHIM_COMMON_RELOC_BAD;
        total += cs;
    }
    uint8_t *buf = malloc(total);
    if (buf == NULL)
        return PYSHIM_COMMON_RELOC_NO_MEMORY;
    size_t off = 0;
    for (size_t i = 0; i < n; i++) {
        const uint8_t *c;
        uint8_t ch[16];
        size_t s = 0;
        /* read again: the list is the caller's memory, it may change under us */
        if (pyshim_common_safe_copy(&c, aux + i, sizeof c) != 0 || c == NULL ||
            pyshim_common_safe_copy(ch, c, sizeof ch) != 0 || (s = container_size(ch)) == 0 ||
            s > total - off || pyshim_common_safe_copy(buf + off, c, s) != 0) {
            free(buf);
            pyshim_common_log("relocatable fat binary %zu claims %zu bytes that are not there",
                              i, s);
            return PYSHIM_COMMON_RELOC_BAD;
        }
        off += s;
    }
    *out = buf;
    *size = off;
    *units = n;
    return PYSHIM_COMMON_RELOC_OK;
}
