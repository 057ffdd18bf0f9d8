/*
 * PTX wrapped as a cubin-shaped ELF. pyshim's loader finds the fat binary container in any
 * ELF (it searches for the container magic), and a caller that checks for an ELF cubin
 * (the \x7fELF magic, e_machine EM_CUDA) sees one. The container layout is the one
 * pyshim/binary/fatbin.py parses (notes/cuda-driver-contract.md, "Fat binaries").
 */
#include "ptx_image.h"

#include <stdlib.h>
#include <string.h>

#include "common/bytes.h"
#include "common/elf_write.h"
#include "common/fatbin_extent.h"

#define ENTRY_HEADER 64
#define KIND_PTX 1
#define FLAG_64BIT 0x1
#define FLAG_LINUX 0x10

unsigned pyshim_arch_number(const char *arch)
{
    if (arch == NULL)
        return 0;
    const char *p = strchr(arch, '_');
    if (p == NULL)
        return 0;
    unsigned n = 0;
    for (p++; *p >= '0' && *p <= '9'; p++)
        n = n * 10 + (unsigned)(*p - '0');
    return n;
}

/* the PTX ISA version of `.version X.Y` (0.0 when absent: the loader then reads the text) */
static void isa_version(const char *ptx, size_t len, unsigned *major, unsigned *minor)
{
    *major = *minor = 0;
    const char *end = ptx + len;
    for (const char *p = ptx; p + 8 < end; p++) {
        if (memcmp(p, ".version", 8) != 0)
            continue;
        p += 8;
        while (p < end && (*p == ' ' || *p == '\t'))
            p++;
        while (p < end && *p >= '0' && *p <= '9')
            *major = *major * 10 + (unsigned)(*p++ - '0');
        if (p < end && *p == '.')
            for (p++; p < end && *p >= '0' && *p <= '9'; p++)
                *minor = *minor * 10 + (unsigned)(*p - '0');
        return;
    }
}

uint8_t *pyshim_ptx_elf(const char *ptx, size_t len, unsigned sm, size_t *size)
{
    while (len > 0 && ptx[len - 1] == '\0')
        len--;
    size_t payload = (len + 1 + 7) & ~(size_t)7; /* NUL-terminated, padded to 8 */
    size_t container = 16 + ENTRY_HEADER + payload;
    uint8_t *c = calloc(1, container);
    if (c == NULL)
        return NULL;
    /* the fat binary container with one PTX entry */
    pyshim_put32(c, PYSHIM_COMMON_FATBIN_CONTAINER_MAGIC);
    pyshim_put16(c + 4, 1);
    pyshim_put16(c + 6, 16);
    pyshim_put64(c + 8, ENTRY_HEADER + payload);
    uint8_t *e = c + 16;
    unsigned major, minor;
    isa_version(ptx, len, &major, &minor);
    pyshim_put16(e + 0x00, KIND_PTX);
    pyshim_put16(e + 0x02, 0x0101);
    pyshim_put32(e + 0x04, ENTRY_HEADER);
    pyshim_put32(e + 0x08, (uint32_t)payload);
    pyshim_put16(e + 0x18, (uint16_t)minor);
    pyshim_put16(e + 0x1a, (uint16_t)major);
    pyshim_put32(e + 0x1c, sm);
    pyshim_put64(e + 0x28, FLAG_64BIT | FLAG_LINUX);
    pyshim_put64(e + 0x38, payload);
    memcpy(e + ENTRY_HEADER, ptx, len);
    struct pyshim_common_section fatbin = {".nv_fatbin", c, container};
    uint8_t *out = pyshim_common_elf(&fatbin, 1, sm, size);
    free(c);
    return out;
}
