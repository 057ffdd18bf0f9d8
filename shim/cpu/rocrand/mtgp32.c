/*
 * MTGP32 for the CPU device's rocRAND host generator, with cuRAND's sequences.
 *
 * The algorithm is curand_mtgp32_kernel.h's curand(curandStateMtgp32_t *) (para_rec and
 * temper over a 1024-word ring) and the seeding is curand_mtgp32_host.h's
 * curandMakeMTGP32KernelState (mtgp32_init_state of parameter set i with seed
 * (seed ^ seed >> 32) + i + 1). The 200 parameter sets are NVIDIA's copy of the MTGPDC
 * tables, curand_mtgp32dc_p_11213.h: pyshim.builders.randfft writes them beside this
 * library from the installed header as rocrand_mtgp32_11213.bin (nothing of them is
 * committed); without the file MTGP32 is refused.
 *
 * A round computes the 256 threads' values in thread order: thread t writes word
 * t + offset + 351 and reads words up to t + offset + pos with pos <= 93 in every set, so
 * no thread reads what another writes in the same round and the order is the GPU's.
 */

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "data_file.h"
#include "mtgp32.h"

#define FILE_NAME "rocrand_mtgp32_11213.bin"
#define MAGIC "PYSHIMMT"
#define SETS 200
#define MEXP 11213
#define N 351 /* MTGPDC_N */
#define MASK (MTGP32_WORDS - 1)

typedef struct {
    uint32_t mexp, pos, sh1, sh2;
    uint32_t tbl[16], tmp_tbl[16], flt_tmp_tbl[16];
    uint32_t mask;
} params;

static params *sets;
static pthread_once_t once = PTHREAD_ONCE_INIT;

static void load(void)
{
    uint32_t n = 0;
    FILE *f = rr_data_open((const void *)&mtgp32_available, FILE_NAME, MAGIC, &n);
    if (!f)
        return;
    params *p = malloc(sizeof *p * SETS);
    int ok = p && n == SETS && fread(p, sizeof *p, SETS, f) == SETS;
    for (int i = 0; ok && i < SETS; i++)
        ok = p[i].mexp == MEXP && p[i].pos >= 1 && p[i].pos + MTGP32_THREADS <= N &&
             p[i].sh1 < 32 && p[i].sh2 < 32;
    fclose(f);
    if (ok)
        sets = p;
    else
        free(p);
}

int mtgp32_available(void)
{
    pthread_once(&once, load);
    return sets != NULL;
}

void mtgp32_block_init(mtgp32_block *blk, int b, unsigned long long seed)
{
    const params *p = &sets[b];
    seed ^= seed >> 32;
    uint32_t *st = blk->s, s0 = (uint32_t)seed + (uint32_t)b + 1u;
    int size = (int)(p->mexp / 32 + 1);
    uint32_t hidden = p->tbl[4] ^ (p->tbl[8] << 16), tmp = hidden;
    tmp += tmp >> 16;
    tmp += tmp >> 8;
    memset(st, 0, sizeof blk->s);
    memset(st, (int)(tmp & 0xff), sizeof(uint32_t) * (size_t)size);
    st[0] = s0;
    st[1] = hidden;
    for (int i = 1; i < size; i++)
        st[i] ^= 1812433253u * (st[i - 1] ^ (st[i - 1] >> 30)) + (uint32_t)i;
    blk->offset = 0;
    blk->set = b;
    blk->rounds = 0;
}

void mtgp32_block_round(mtgp32_block *blk)
{
    const params *p = &sets[blk->set];
    uint32_t *s = blk->s;
    int off = blk->offset, pos = (int)p->pos;
    for (int t = 0; t < MTGP32_THREADS; t++) {
        /* para_rec */
        uint32_t x = (s[(t + off) & MASK] & p->mask) ^ s[(t + off + 1) & MASK];
        x ^= x << p->sh1;
        uint32_t y = x ^ (s[(t + off + pos) & MASK] >> p->sh2);
        uint32_t r = y ^ p->tbl[y & 0x0f];
        s[(t + off + N) & MASK] = r;
        /* temper */
        uint32_t u = s[(t + off + pos - 1) & MASK];
        u ^= u >> 16;
        u ^= u >> 8;
        blk->last[t] = r ^ p->tmp_tbl[u & 0x0f];
    }
    blk->offset = (off + MTGP32_THREADS) & MASK;
    blk->rounds++;
}
