/* Bit generators of the CPU device's rocRAND (see engines.h). */
#include <pthread.h>
#include <string.h>

#include "engines.h"

/* ---- XORWOW: the 160-bit linear part as a GF(2) matrix, stored by columns ------------ */

typedef struct {
    uint32_t col[160][5]; /* col[i] = M * e_i */
} gf2_matrix;

static void gf2_apply(const gf2_matrix *m, const uint32_t in[5], uint32_t out[5])
{
    uint32_t r[5] = {0, 0, 0, 0, 0};
    for (int w = 0; w < 5; w++) {
        uint32_t bits = in[w];
        while (bits) {
            int b = __builtin_ctz(bits);
            bits &= bits - 1;
            const uint32_t *c = m->col[w * 32 + b];
            for (int k = 0; k < 5; k++)
                r[k] ^= c[k];
        }
    }
    memcpy(out, r, sizeof r);
}

static void gf2_square(const gf2_matrix *a, gf2_matrix *out)
{
    for (int i = 0; i < 160; i++)
        gf2_apply(a, a->col[i], out->col[i]);
}

static void xorwow_linear_step(uint32_t v[5])
{
    uint32_t t = v[0] ^ (v[0] >> 2);
    v[0] = v[1];
    v[1] = v[2];
    v[2] = v[3];
    v[3] = v[4];
    v[4] = (v[4] ^ (v[4] << 4)) ^ (t ^ (t << 1));
}

/* jump[k] = M^(2^k), k < 64 for offsets; sub = M^(2^67), one subsequence */
static gf2_matrix xorwow_jump[64];
static gf2_matrix xorwow_sub;
static pthread_once_t xorwow_once = PTHREAD_ONCE_INIT;

static void xorwow_tables(void)
{
    for (int i = 0; i < 160; i++) {
        uint32_t v[5] = {0, 0, 0, 0, 0};
        v[i / 32] = 1u << (i % 32);
        xorwow_linear_step(v);
        memcpy(xorwow_jump[0].col[i], v, sizeof v);
    }
    for (int k = 1; k < 64; k++)
        gf2_square(&xorwow_jump[k - 1], &xorwow_jump[k]);
    gf2_matrix a, b;
    gf2_square(&xorwow_jump[63], &a); /* 2^64 */
    gf2_square(&a, &b);               /* 2^65 */
    gf2_square(&b, &a);               /* 2^66 */
    gf2_square(&a, &xorwow_sub);      /* 2^67 */
}

void xorwow_skip(xorwow_state *s, uint64_t n)
{
    pthread_once(&xorwow_once, xorwow_tables);
    s->d += 362437u * (uint32_t)n;
    for (int k = 0; n; k++, n >>= 1)
        if (n & 1)
            gf2_apply(&xorwow_jump[k], s->v, s->v);
}

void xorwow_next_subsequence(xorwow_state *s)
{
    pthread_once(&xorwow_once, xorwow_tables);
    gf2_apply(&xorwow_sub, s->v, s->v);
}

void xorwow_init(xorwow_state *s, uint64_t seed, uint64_t subsequence, uint64_t offset)
{
    pthread_once(&xorwow_once, xorwow_tables);
    /* curand_init's seeding: the 64-bit seed salted and spread over the published state */
    uint32_t s0 = (uint32_t)seed ^ 0xaad26b49u;
    uint32_t s1 = (uint32_t)(seed >> 32) ^ 0xf7dcefddu;
    uint32_t t0 = 1099087573u * s0;
    uint32_t t1 = 2591861531u * s1;
    s->d = 6615241u + t1 + t0;
    s->v[0] = 123456789u + t0;
    s->v[1] = 362436069u ^ t0;
    s->v[2] = 521288629u + t1;
    s->v[3] = 88675123u ^ t1;
    s->v[4] = 5783321u + t0;
    /* a subsequence is 2^67 steps: the Weyl counter moves by a multiple of 2^32 */
    for (uint64_t i = 0; i < subsequence; i++)
        gf2_apply(&xorwow_sub, s->v, s->v);
    xorwow_skip(s, offset);
}

/* ---- MRG32k3a: x_n = a12 x_{n-2} - a13 x_{n-3} mod m1, y_n = a21 y_{n-1} - a23 y_{n-3} mod m2 */

typedef uint64_t mat3[3][3];

static void mat3_mul(const mat3 a, const mat3 b, uint64_t m, mat3 out)
{
    mat3 r;
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) {
            unsigned __int128 acc = 0;
            for (int k = 0; k < 3; k++)
                acc += (unsigned __int128)a[i][k] * b[k][j];
            r[i][j] = (uint64_t)(acc % m);
        }
    memcpy(out, r, sizeof r);
}

static void mat3_apply(const mat3 a, uint32_t v[3], uint64_t m)
{
    uint64_t r[3];
    for (int i = 0; i < 3; i++) {
        unsigned __int128 acc = 0;
        for (int k = 0; k < 3; k++)
            acc += (unsigned __int128)a[i][k] * v[k];
        r[i] = (uint64_t)(acc % m);
    }
    for (int i = 0; i < 3; i++)
        v[i] = (uint32_t)r[i];
}

/* mrg1[k] = A1^(2^k), mrg2[k] = A2^(2^k), k < 128 (offsets < 2^64, subsequences 2^76 * s) */
static mat3 mrg1[128], mrg2[128];
static pthread_once_t mrg_once = PTHREAD_ONCE_INIT;

static void mrg_tables(void)
{
    /* the state (s[0], s[1], s[2]) = (x_{n-3}, x_{n-2}, x_{n-1}) moves to (x_{n-2}, x_{n-1}, x_n) */
    mat3 a1 = {{0, 1, 0}, {0, 0, 1}, {MRG_M1 - 810728u, 1403580u, 0}};
    mat3 a2 = {{0, 1, 0}, {0, 0, 1}, {MRG_M2 - 1370589u, 0, 527612u}};
    memcpy(mrg1[0], a1, sizeof a1);
    memcpy(mrg2[0], a2, sizeof a2);
    for (int k = 1; k < 128; k++) {
        mat3_mul(mrg1[k - 1], mrg1[k - 1], MRG_M1, mrg1[k]);
        mat3_mul(mrg2[k - 1], mrg2[k - 1], MRG_M2, mrg2[k]);
    }
}

static void mrg_jump(mrg_state *s, int base, uint64_t n)
{
    for (int k = 0; n; k++, n >>= 1)
        if (n & 1) {
            mat3_apply(mrg1[base + k], s->s1, MRG_M1);
            mat3_apply(mrg2[base + k], s->s2, MRG_M2);
        }
}

void mrg_skip(mrg_state *s, uint64_t n)
{
    pthread_once(&mrg_once, mrg_tables);
    mrg_jump(s, 0, n);
}

void mrg_init(mrg_state *s, uint64_t seed, uint64_t subsequence, uint64_t offset)
{
    pthread_once(&mrg_once, mrg_tables);
    for (int i = 0; i < 3; i++)
        s->s1[i] = s->s2[i] = 12345u;
    if (seed != 0) {
        uint64_t x1 = (uint32_t)seed ^ 0x55555555u;
        uint64_t x2 = (uint32_t)((seed >> 32) ^ 0xAAAAAAAAu);
        s->s1[0] = (uint32_t)((x1 * s->s1[0]) % MRG_M1);
        s->s1[1] = (uint32_t)((x2 * s->s1[1]) % MRG_M1);
        s->s1[2] = (uint32_t)((x1 * s->s1[2]) % MRG_M1);
        s->s2[0] = (uint32_t)((x2 * s->s2[0]) % MRG_M2);
        s->s2[1] = (uint32_t)((x1 * s->s2[1]) % MRG_M2);
        s->s2[2] = (uint32_t)((x2 * s->s2[2]) % MRG_M2);
    }
    /* a subsequence is 2^76 steps: A^(2^76 * subsequence) from the squares from 2^76 up */
    mrg_jump(s, 76, subsequence);
    mrg_jump(s, 0, offset);
}

/* ---- Philox4x32-10 (Salmon et al., "Parallel random numbers: as easy as 1, 2, 3") ----- */

void philox_block(uint64_t seed, uint64_t ctr_lo, uint64_t ctr_hi, uint32_t out[4])
{
    uint32_t c0 = (uint32_t)ctr_lo, c1 = (uint32_t)(ctr_lo >> 32);
    uint32_t c2 = (uint32_t)ctr_hi, c3 = (uint32_t)(ctr_hi >> 32);
    uint32_t k0 = (uint32_t)seed, k1 = (uint32_t)(seed >> 32);
    for (int r = 0; r < 10; r++) {
        uint64_t p0 = (uint64_t)0xD2511F53u * c0;
        uint64_t p1 = (uint64_t)0xCD9E8D57u * c2;
        uint32_t n0 = (uint32_t)(p1 >> 32) ^ c1 ^ k0;
        uint32_t n1 = (uint32_t)p1;
        uint32_t n2 = (uint32_t)(p0 >> 32) ^ c3 ^ k1;
        uint32_t n3 = (uint32_t)p0;
        c0 = n0;
        c1 = n1;
        c2 = n2;
        c3 = n3;
        k0 += 0x9E3779B9u;
        k1 += 0xBB67AE85u;
    }
    out[0] = c0;
    out[1] = c1;
    out[2] = c2;
    out[3] = c3;
}
