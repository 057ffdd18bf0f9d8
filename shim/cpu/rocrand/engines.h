/*
 * The CPU device's rocRAND: the bit generators, with cuRAND's device-API semantics
 * (curand_init(seed, subsequence, offset) then curand()), so that the host generators
 * built on them (generator.c) give NVIDIA's sequences.
 *
 * Skip-ahead matrices are computed here from each generator's definition (the XORWOW
 * step as a GF(2) matrix, MRG32k3a's two recurrences as 3x3 matrices mod m1, m2) by
 * repeated squaring, never taken from a table.
 */
#ifndef PYSHIM_CPU_ROCRAND_ENGINES_H
#define PYSHIM_CPU_ROCRAND_ENGINES_H

#include <stdint.h>

typedef struct {
    uint32_t v[5];
    uint32_t d;
} xorwow_state;

typedef struct {
    uint32_t s1[3];
    uint32_t s2[3];
} mrg_state;

/* XORWOW: the state of curand_init(seed, subsequence, offset). */
void xorwow_init(xorwow_state *s, uint64_t seed, uint64_t subsequence, uint64_t offset);
/* Advance by one subsequence (2^67 steps). */
void xorwow_next_subsequence(xorwow_state *s);
/* Advance by n steps (the GF(2) jump plus the Weyl counter). */
void xorwow_skip(xorwow_state *s, uint64_t n);

static inline uint32_t xorwow_next(xorwow_state *s)
{
    uint32_t t = s->v[0] ^ (s->v[0] >> 2);
    s->v[0] = s->v[1];
    s->v[1] = s->v[2];
    s->v[2] = s->v[3];
    s->v[3] = s->v[4];
    s->v[4] = (s->v[4] ^ (s->v[4] << 4)) ^ (t ^ (t << 1));
    s->d += 362437u;
    return s->v[4] + s->d;
}

#define MRG_M1 4294967087u
#define MRG_M2 4294944443u

void mrg_init(mrg_state *s, uint64_t seed, uint64_t subsequence, uint64_t offset);
void mrg_skip(mrg_state *s, uint64_t n);

/* One MRG32k3a draw in (0, m1], as curand_MRG32k3a computes it. */
static inline uint32_t mrg_next(mrg_state *s)
{
    uint64_t p1 = ((uint64_t)1403580u * s->s1[1] + (uint64_t)810728u * (MRG_M1 - s->s1[0])) % MRG_M1;
    s->s1[0] = s->s1[1];
    s->s1[1] = s->s1[2];
    s->s1[2] = (uint32_t)p1;
    uint64_t p2 = ((uint64_t)527612u * s->s2[2] + (uint64_t)1370589u * (MRG_M2 - s->s2[0])) % MRG_M2;
    s->s2[0] = s->s2[1];
    s->s2[1] = s->s2[2];
    s->s2[2] = (uint32_t)p2;
    uint32_t p5 = (uint32_t)p1 - (uint32_t)p2;
    return p1 <= p2 ? p5 + MRG_M1 : p5;
}

/* Philox4x32-10: the four words of block `ctr` (128-bit: lo, hi) under key `seed`. */
void philox_block(uint64_t seed, uint64_t ctr_lo, uint64_t ctr_hi, uint32_t out[4]);

#endif
