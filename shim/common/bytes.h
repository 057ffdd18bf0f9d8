/* Little-endian stores and loads of the fields of the binary formats pyshim writes and reads
 * (ELF, fat binary containers), whatever the host's byte order. */
#ifndef PYSHIM_COMMON_BYTES_H
#define PYSHIM_COMMON_BYTES_H

#include <stdint.h>

static inline void pyshim_put16(uint8_t *p, uint16_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
}

static inline void pyshim_put32(uint8_t *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

static inline uint32_t pyshim_get32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static inline void pyshim_put64(uint8_t *p, uint64_t v)
{
    for (int i = 0; i < 8; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

#endif
