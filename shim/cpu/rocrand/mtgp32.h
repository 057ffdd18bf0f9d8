/* MTGP32 (Saito & Matsumoto's Mersenne Twister for Graphic Processors, exponent 11213) as
 * cuRAND's host generator runs it: see mtgp32.c. */
#ifndef PYSHIM_CPU_ROCRAND_MTGP32_H
#define PYSHIM_CPU_ROCRAND_MTGP32_H

#include <stdint.h>

#define MTGP32_BLOCKS 64   /* the host generator's blocks: one parameter set each */
#define MTGP32_THREADS 256 /* results of one block per round (MTGPDC_FLOOR_2P) */
#define MTGP32_WORDS 1024  /* MTGP32_STATE_SIZE */

typedef struct {
    uint32_t s[MTGP32_WORDS];
    int offset;
    int set;            /* the parameter set (curandStateMtgp32's pIdx) */
    uint64_t rounds;    /* rounds computed since the seed */
    uint32_t last[MTGP32_THREADS]; /* the outputs of round rounds - 1 */
} mtgp32_block;

/* Whether the parameter sets were found beside the library (rocrand_mtgp32_11213.bin). */
int mtgp32_available(void);
/* curandMakeMTGP32KernelState's state of block b for the generator's seed. */
void mtgp32_block_init(mtgp32_block *blk, int b, unsigned long long seed);
/* One round: what curand(state) returns to threads 0..255 of the block, into blk->last. */
void mtgp32_block_round(mtgp32_block *blk);

#endif
