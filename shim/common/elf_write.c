/* Cubin-shaped ELF files of pyshim's own making (elf_write.h). */
#include "elf_write.h"

#include <stdlib.h>
#include <string.h>

#include "bytes.h"

#define EM_CUDA 190
#define SHDR 64

static size_t align8(size_t n)
{
    return (n + 7) & ~(size_t)7;
}

uint8_t *pyshim_common_elf(const struct pyshim_common_section *sections, size_t n, unsigned sm,
                           size_t *size)
{
    /* layout: header, section contents, .shstrtab, section headers (null, each, strtab) */
    size_t strtab_size = 1 + sizeof ".shstrtab";
    for (size_t i = 0; i < n; i++)
        strtab_size += strlen(sections[i].name) + 1;
    size_t off = 64;
    for (size_t i = 0; i < n; i++)
        off = align8(off + sections[i].size);
    size_t strtab_off = off;
    size_t shoff = align8(strtab_off + strtab_size);
    size_t shnum = n + 2;
    size_t total = shoff + shnum * SHDR;
    if (shnum > 0xff00)
        return NULL;
    uint8_t *out = calloc(1, total);
    if (out == NULL)
        return NULL;
    memcpy(out, "\x7f" "ELF", 4);
    out[4] = 2;    /* ELFCLASS64 */
    out[5] = 1;    /* little-endian */
    out[6] = 1;    /* EV_CURRENT */
    out[7] = 0x41; /* CUDA 13's cubin ABI */
    out[8] = 8;
    pyshim_put16(out + 16, 2); /* ET_EXEC */
    pyshim_put16(out + 18, EM_CUDA);
    pyshim_put32(out + 20, 1);
    pyshim_put64(out + 40, shoff);
    pyshim_put32(out + 48, 0x06000000u | ((sm & 0xffu) << 8));
    pyshim_put16(out + 52, 64);
    pyshim_put16(out + 58, SHDR);
    pyshim_put16(out + 60, (uint16_t)shnum);
    pyshim_put16(out + 62, (uint16_t)(shnum - 1)); /* .shstrtab last */

    char *strtab = (char *)out + strtab_off;
    size_t name_at = 1;
    off = 64;
    for (size_t i = 0; i < n; i++) {
        memcpy(out + off, sections[i].data, sections[i].size);
        uint8_t *sh = out + shoff + (i + 1) * SHDR;
        size_t len = strlen(sections[i].name);
        memcpy(strtab + name_at, sections[i].name, len);
        pyshim_put32(sh + 0, (uint32_t)name_at);
        pyshim_put32(sh + 4, 1); /* SHT_PROGBITS */
        pyshim_put64(sh + 8, 2); /* SHF_ALLOC */
        pyshim_put64(sh + 24, off);
        pyshim_put64(sh + 32, sections[i].size);
        pyshim_put64(sh + 48, 8);
        name_at += len + 1;
        off = align8(off + sections[i].size);
    }
    memcpy(strtab + name_at, ".shstrtab", sizeof ".shstrtab");
    uint8_t *sh = out + shoff + (n + 1) * SHDR;
    pyshim_put32(sh + 0, (uint32_t)name_at);
    pyshim_put32(sh + 4, 3); /* SHT_STRTAB */
    pyshim_put64(sh + 24, strtab_off);
    pyshim_put64(sh + 32, strtab_size);
    pyshim_put64(sh + 48, 1);
    *size = total;
    return out;
}
