/*
 * The CPU device's rocRAND host API (rocrand.h, ROCm 7.2 ABI) with NVIDIA's cuRAND
 * sequences.
 *
 * A pseudorandom generator is THREADS states curand_init(seed, t, 0), t < THREADS, read
 * as cuRAND documents for its legacy ordering: result n of the sequence comes from state
 * n mod THREADS, its (n / THREADS)-th value; the offset is a position in that sequence and
 * each call moves it on (GENERATE). A distribution that takes k draws per g results takes
 * them from one state, consecutively, as the device functions curand_normal2 & co. do.
 * The per-state values are exactly curand_kernel.h's (the differential test runs
 * curand_init/curand/curand_normal2... in a translated kernel); the host layout is
 * NVIDIA's documented one and cannot be checked without an NVIDIA GPU.
 */
#include <math.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hip/hip_runtime_api.h>
#include <rocrand/rocrand.h>

#include "engines.h"
#include "mtgp32.h"
#include "sobol.h"

#define RR_API __attribute__((visibility("default")))
#define THREADS 4096

typedef struct {
    union {
        xorwow_state x;
        mrg_state m;
        mt19937_state *mt; /* MT19937: one stream, state 0 only */
        struct {
            uint64_t pos;      /* next draw's position in the subsequence */
            uint64_t have;     /* 1 + the index of the block in `block`, 0 for none */
            uint32_t block[4];
        } p;
    } u;
} engine;

struct rocrand_generator_base_type {
    rocrand_rng_type type;
    unsigned long long seed;
    unsigned long long offset; /* per-state position of the next draw */
    rocrand_ordering ordering;
    hipStream_t stream;
    int host;
    unsigned int dims;           /* quasi-random generators */
    engine *states;              /* THREADS of them (1 for MT19937); NULL until first use */
    uint64_t *spos;              /* each state's next draw */
    engine *origin;              /* the states at draw 0, kept for seeks backwards */
    mtgp32_block *mtgp;          /* MTGP32: MTGP32_BLOCKS blocks; NULL until first use */
};

static int is_pseudo(rocrand_rng_type t)
{
    return t == ROCRAND_RNG_PSEUDO_DEFAULT || t == ROCRAND_RNG_PSEUDO_XORWOW ||
           t == ROCRAND_RNG_PSEUDO_MRG32K3A || t == ROCRAND_RNG_PSEUDO_PHILOX4_32_10 ||
           t == ROCRAND_RNG_PSEUDO_MT19937 || t == ROCRAND_RNG_PSEUDO_MTGP32;
}

static int is_quasi(rocrand_rng_type t)
{
    return t == ROCRAND_RNG_QUASI_DEFAULT || t == ROCRAND_RNG_QUASI_SOBOL32 ||
           t == ROCRAND_RNG_QUASI_SOBOL64 || t == ROCRAND_RNG_QUASI_SCRAMBLED_SOBOL32 ||
           t == ROCRAND_RNG_QUASI_SCRAMBLED_SOBOL64;
}

/* cuRAND's default seed */
#define DEFAULT_SEED 0ull

static rocrand_status create(rocrand_generator *g, rocrand_rng_type t, int host)
{
    if (!g)
        return ROCRAND_STATUS_OUT_OF_RANGE;
    if (is_quasi(t) && !sobol_dimensions()) {
        fprintf(stderr, "pyshim cpu device: no Sobol direction numbers beside librocrand.so.1 "
                        "(rocrand_joe_kuo6.bin; rebuild with SciPy installed): the Sobol "
                        "generators return ROCRAND_STATUS_TYPE_ERROR\n");
        return ROCRAND_STATUS_TYPE_ERROR;
    }
    if (t == ROCRAND_RNG_PSEUDO_MTGP32 && !mtgp32_available()) {
        fprintf(stderr, "pyshim cpu device: no MTGP32 parameter sets beside librocrand.so.1 "
                        "(rocrand_mtgp32_11213.bin, from cuRAND's curand_mtgp32dc_p_11213.h "
                        "at build time): MTGP32 returns ROCRAND_STATUS_TYPE_ERROR\n");
        return ROCRAND_STATUS_TYPE_ERROR;
    }
    if (!is_pseudo(t) && !is_quasi(t)) {
        /* MRG31k3p, LFSR113, ThreeFry */
        fprintf(stderr, "pyshim cpu device: rocRAND generator type %d is not implemented "
                        "(returns ROCRAND_STATUS_TYPE_ERROR)\n", (int)t);
        return ROCRAND_STATUS_TYPE_ERROR;
    }
    struct rocrand_generator_base_type *gen = calloc(1, sizeof *gen);
    if (!gen)
        return ROCRAND_STATUS_ALLOCATION_FAILED;
    gen->type = t == ROCRAND_RNG_PSEUDO_DEFAULT ? ROCRAND_RNG_PSEUDO_XORWOW
                : t == ROCRAND_RNG_QUASI_DEFAULT ? ROCRAND_RNG_QUASI_SOBOL32 : t;
    gen->seed = DEFAULT_SEED;
    gen->dims = 1;
    gen->ordering = is_quasi(t) ? ROCRAND_ORDERING_QUASI_DEFAULT : ROCRAND_ORDERING_PSEUDO_DEFAULT;
    gen->host = host;
    *g = gen;
    return ROCRAND_STATUS_SUCCESS;
}

RR_API rocrand_status rocrand_create_generator(rocrand_generator *generator,
                                               rocrand_rng_type rng_type)
{
    return create(generator, rng_type, 0);
}

RR_API rocrand_status rocrand_create_generator_host(rocrand_generator *generator,
                                                    rocrand_rng_type rng_type)
{
    return create(generator, rng_type, 1);
}

RR_API rocrand_status rocrand_create_generator_host_blocking(rocrand_generator *generator,
                                                             rocrand_rng_type rng_type)
{
    return create(generator, rng_type, 1);
}

static void invalidate(rocrand_generator g);

RR_API rocrand_status rocrand_destroy_generator(rocrand_generator generator)
{
    if (!generator)
        return ROCRAND_STATUS_NOT_CREATED;
    invalidate(generator);
    free(generator);
    return ROCRAND_STATUS_SUCCESS;
}

/* MT19937 is one sequential stream (no cheap skip-ahead): results in order from state 0 */
static int nstates(rocrand_generator g)
{
    return g->type == ROCRAND_RNG_PSEUDO_MT19937 ? 1 : THREADS;
}

static void invalidate(rocrand_generator g)
{
    if (g->states && g->type == ROCRAND_RNG_PSEUDO_MT19937)
        free(g->states[0].u.mt);
    free(g->states);
    free(g->spos);
    free(g->origin);
    free(g->mtgp);
    g->mtgp = NULL;
    g->states = NULL;
    g->spos = NULL;
    g->origin = NULL;
}

RR_API rocrand_status rocrand_set_seed(rocrand_generator generator, unsigned long long seed)
{
    if (!generator)
        return ROCRAND_STATUS_NOT_CREATED;
    if (is_quasi(generator->type))
        return ROCRAND_STATUS_TYPE_ERROR;
    /* the states start over from the offset, which the seed leaves alone (rocrand.h) */
    generator->seed = seed;
    invalidate(generator);
    return ROCRAND_STATUS_SUCCESS;
}

RR_API rocrand_status rocrand_set_seed_uint4(rocrand_generator generator, uint4 seed)
{
    (void)seed;
    return generator ? ROCRAND_STATUS_TYPE_ERROR : ROCRAND_STATUS_NOT_CREATED;
}

RR_API rocrand_status rocrand_set_offset(rocrand_generator generator, unsigned long long offset)
{
    if (!generator)
        return ROCRAND_STATUS_NOT_CREATED;
    generator->offset = offset;
    return ROCRAND_STATUS_SUCCESS;
}

RR_API rocrand_status rocrand_set_ordering(rocrand_generator generator, rocrand_ordering order)
{
    if (!generator)
        return ROCRAND_STATUS_NOT_CREATED;
    if (is_quasi(generator->type) ? order != ROCRAND_ORDERING_QUASI_DEFAULT
                                  : order < ROCRAND_ORDERING_PSEUDO_BEST ||
                                        order > ROCRAND_ORDERING_PSEUDO_DYNAMIC)
        return ROCRAND_STATUS_OUT_OF_RANGE;
    generator->ordering = order; /* every pseudo ordering gives the legacy layout here */
    return ROCRAND_STATUS_SUCCESS;
}

RR_API rocrand_status rocrand_set_stream(rocrand_generator generator, hipStream_t stream)
{
    if (!generator)
        return ROCRAND_STATUS_NOT_CREATED;
    generator->stream = stream;
    return ROCRAND_STATUS_SUCCESS;
}

RR_API rocrand_status rocrand_set_quasi_random_generator_dimensions(rocrand_generator generator,
                                                                    unsigned int dimensions)
{
    if (!generator)
        return ROCRAND_STATUS_NOT_CREATED;
    if (!is_quasi(generator->type))
        return ROCRAND_STATUS_TYPE_ERROR;
    if (dimensions < 1 || dimensions > sobol_dimensions())
        return ROCRAND_STATUS_OUT_OF_RANGE;
    generator->dims = dimensions;
    return ROCRAND_STATUS_SUCCESS;
}

RR_API rocrand_status rocrand_get_version(int *version)
{
    if (!version)
        return ROCRAND_STATUS_OUT_OF_RANGE;
    *version = ROCRAND_VERSION;
    return ROCRAND_STATUS_SUCCESS;
}

/* ---- the THREADS states ---------------------------------------------------------------- */

/* Every state at draw 0 (the first use, and after a seek backwards). The chain state t+1 =
 * state t one subsequence on is computed once per seed and kept (`origin`). */
static rocrand_status states_reset(rocrand_generator g)
{
    size_t ns = (size_t)nstates(g);
    if (!g->states) {
        g->states = malloc(sizeof(engine) * ns);
        g->spos = malloc(sizeof(uint64_t) * ns);
        if (!g->states || !g->spos) {
            free(g->states);
            free(g->spos);
            g->states = NULL;
            g->spos = NULL;
            return ROCRAND_STATUS_ALLOCATION_FAILED;
        }
        if (g->type == ROCRAND_RNG_PSEUDO_MT19937) {
            g->states[0].u.mt = malloc(sizeof(mt19937_state));
            if (!g->states[0].u.mt) {
                free(g->states);
                free(g->spos);
                g->states = NULL;
                g->spos = NULL;
                return ROCRAND_STATUS_ALLOCATION_FAILED;
            }
        }
    }
    if (g->type == ROCRAND_RNG_PSEUDO_MT19937) {
        mt19937_init(g->states[0].u.mt, g->seed);
    } else if (g->origin) {
        memcpy(g->states, g->origin, sizeof(engine) * ns);
    } else {
        for (size_t t = 0; t < ns; t++) {
            engine *e = &g->states[t];
            if (g->type == ROCRAND_RNG_PSEUDO_XORWOW) {
                if (t == 0) {
                    xorwow_init(&e->u.x, g->seed, 0, 0);
                } else {
                    e->u.x = g->states[t - 1].u.x;
                    xorwow_next_subsequence(&e->u.x);
                }
            } else if (g->type == ROCRAND_RNG_PSEUDO_MRG32K3A) {
                mrg_init(&e->u.m, g->seed, (uint64_t)t, 0);
            } else {
                e->u.p.pos = 0;
                e->u.p.have = 0;
            }
        }
        g->origin = malloc(sizeof(engine) * ns);
        if (g->origin)
            memcpy(g->origin, g->states, sizeof(engine) * ns);
    }
    memset(g->spos, 0, sizeof(uint64_t) * ns);
    return ROCRAND_STATUS_SUCCESS;
}

static inline uint32_t draw(rocrand_generator g, engine *e, int t);

/* Bring state t forward to draw `pos` (never backwards: states_prepare resets first). */
static inline void state_seek(rocrand_generator g, int t, uint64_t pos)
{
    engine *e = &g->states[t];
    uint64_t n = pos - g->spos[t];
    if (n <= 64 || g->type == ROCRAND_RNG_PSEUDO_MT19937) {
        while (n--)
            (void)draw(g, e, t);
    } else if (g->type == ROCRAND_RNG_PSEUDO_XORWOW) {
        xorwow_skip(&e->u.x, n);
    } else if (g->type == ROCRAND_RNG_PSEUDO_MRG32K3A) {
        mrg_skip(&e->u.m, n);
    } else {
        e->u.p.pos += n;
    }
    g->spos[t] = pos;
}

/* The states for groups [g0, g0 + groups) of `draws` draws each: group G is state
 * G % ns at draw (G / ns) * draws. States only move forward; one that would have to go
 * back makes every state start over from draw 0. */
static rocrand_status states_prepare(rocrand_generator g, uint64_t g0, uint64_t groups,
                                     int draws)
{
    if (!g->states) {
        rocrand_status st = states_reset(g);
        if (st != ROCRAND_STATUS_SUCCESS)
            return st;
    }
    uint64_t ns = (uint64_t)nstates(g);
    uint64_t first = ns < groups ? ns : groups;
    for (uint64_t i = 0; i < first; i++) {
        uint64_t G = g0 + i;
        if (g->spos[G % ns] > (G / ns) * (uint64_t)draws)
            return states_reset(g);
    }
    return ROCRAND_STATUS_SUCCESS;
}

static inline uint32_t draw(rocrand_generator g, engine *e, int t)
{
    if (g->type == ROCRAND_RNG_PSEUDO_XORWOW)
        return xorwow_next(&e->u.x);
    if (g->type == ROCRAND_RNG_PSEUDO_MRG32K3A)
        return mrg_next(&e->u.m); /* callers of raw bits scale it (curand()) */
    if (g->type == ROCRAND_RNG_PSEUDO_MT19937)
        return mt19937_next(e->u.mt);
    uint64_t pos = e->u.p.pos++;
    if (e->u.p.have != (pos >> 2) + 1) {
        philox_block(g->seed, pos >> 2, (uint64_t)t, e->u.p.block);
        e->u.p.have = (pos >> 2) + 1;
    }
    return e->u.p.block[pos & 3];
}

/* curand() for each engine: MRG32k3a's draw scaled to 32 bits */
static inline uint32_t bits32(rocrand_generator g, engine *e, int t)
{
    uint32_t v = draw(g, e, t);
    if (g->type == ROCRAND_RNG_PSEUDO_MRG32K3A)
        return (uint32_t)((double)v * 1.000000048662);
    return v;
}

#define INV32F 2.3283064e-10f
#define INV32D 2.3283064365386963e-10
#define INV53D 1.1102230246251565e-16
#define MRG_NORM 2.3283065498378288e-10
#define TWO_PI_F 6.2831855f

static inline float uniform_f(rocrand_generator g, engine *e, int t)
{
    if (g->type == ROCRAND_RNG_PSEUDO_MRG32K3A)
        return (float)(draw(g, e, t) * MRG_NORM);
    return draw(g, e, t) * INV32F + (INV32F / 2.0f);
}

/* draws one uniform double takes from an engine */
static int uniform_d_draws(rocrand_generator g)
{
    return g->type == ROCRAND_RNG_PSEUDO_XORWOW ? 2 : 1;
}

static inline double uniform_d(rocrand_generator g, engine *e, int t)
{
    if (g->type == ROCRAND_RNG_PSEUDO_MRG32K3A)
        return draw(g, e, t) * MRG_NORM;
    if (g->type == ROCRAND_RNG_PSEUDO_XORWOW) {
        uint64_t x = draw(g, e, t), y = draw(g, e, t);
        uint64_t z = x ^ (y << (53 - 32));
        return z * INV53D + (INV53D / 2.0);
    }
    /* curand_uniform_double of a 32-bit draw: a whole 2^-32 on top, not half */
    return draw(g, e, t) * INV32D + INV32D;
}

static inline void normal2_f(rocrand_generator g, engine *e, int t, float *a, float *b)
{
    float u, v;
    if (g->type == ROCRAND_RNG_PSEUDO_MRG32K3A) {
        u = uniform_f(g, e, t);
        v = uniform_f(g, e, t) * TWO_PI_F;
    } else {
        uint32_t x = draw(g, e, t), y = draw(g, e, t);
        u = x * INV32F + (INV32F / 2);
        v = y * (INV32F * TWO_PI_F) + ((INV32F * TWO_PI_F) / 2);
    }
    float s = sqrtf(-2.0f * logf(u)), sn, cs;
    sincosf(v, &sn, &cs); /* glibc: the values of sinf and cosf, computed together */
    *a = sn * s;
    *b = cs * s;
}

static inline void normal2_d(rocrand_generator g, engine *e, int t, double *a, double *b)
{
    double u, v;
    if (g->type == ROCRAND_RNG_PSEUDO_MRG32K3A) {
        u = uniform_d(g, e, t);
        v = uniform_d(g, e, t) * 2.0;
    } else {
        uint64_t x0 = draw(g, e, t), x1 = draw(g, e, t);
        uint64_t y0 = draw(g, e, t), y1 = draw(g, e, t);
        uint64_t zx = x0 ^ (x1 << (53 - 32)), zy = y0 ^ (y1 << (53 - 32));
        u = zx * INV53D + (INV53D / 2.0);
        v = zy * (INV53D * 2.0) + INV53D;
    }
    double s = sqrt(-2.0 * log(u));
    *a = sin(M_PI * v) * s;
    *b = cos(M_PI * v) * s;
}

static int draws_per_normal2_d(rocrand_generator g)
{
    return g->type == ROCRAND_RNG_PSEUDO_MRG32K3A ? 2 : 4;
}

/* Wait for the generator's stream (the CPU device runs library calls on the calling
 * thread, after the work already enqueued). */
static rocrand_status begin(rocrand_generator g, const void *out, size_t n)
{
    if (!g)
        return ROCRAND_STATUS_NOT_CREATED;
    if (!out && n)
        return ROCRAND_STATUS_OUT_OF_RANGE;
    if (!g->host && hipStreamSynchronize(g->stream) != hipSuccess)
        return ROCRAND_STATUS_LAUNCH_FAILURE;
    return ROCRAND_STATUS_SUCCESS;
}

/* The generator's results form one sequence: result r is in group r / per (a group:
 * `per` results from `draws` consecutive draws of one state, as curand_normal2 & co. take
 * them), group G comes from state G % THREADS at its draw (G / THREADS) * draws, and a call
 * of n results starts at the offset and moves it on by n: "if offset = 100, the first
 * number generated is the 100th of the sequence", and a call of THREADS * k results from
 * offset 0 is every state's first k values in turn (cuRAND's legacy layout). */
#define GENERATE(g, out, n, per, draws, EMIT)                                               \
    do {                                                                                    \
        rocrand_status st_ = begin(g, out, n);                                              \
        if (st_ != ROCRAND_STATUS_SUCCESS)                                                  \
            return st_;                                                                     \
        if ((per) > 1 && ((n) % (per) || (g)->offset % (per)))                              \
            return ROCRAND_STATUS_LENGTH_NOT_MULTIPLE; /* Box-Muller: pairs */              \
        uint64_t ns_ = (uint64_t)nstates(g);                                                \
        uint64_t g0_ = (g)->offset / (per), groups_ = (n) / (per);                          \
        st_ = states_prepare(g, g0_, groups_, draws);                                       \
        if (st_ != ROCRAND_STATUS_SUCCESS)                                                  \
            return st_;                                                                     \
        /* state and draw of group g0_ + q_, stepped without dividing */                  \
        int t = (int)(g0_ % ns_);                                                           \
        uint64_t want_ = (g0_ / ns_) * (uint64_t)(draws);                                   \
        uint64_t *spos_ = (g)->spos;                                                        \
        for (uint64_t q_ = 0; q_ < groups_; q_++) {                                         \
            if (spos_[t] != want_)                                                          \
                state_seek(g, t, want_);                                                    \
            engine *e = &(g)->states[t];                                                    \
            size_t at = (size_t)q_ * (per);                                                 \
            EMIT;                                                                           \
            spos_[t] = want_ + (uint64_t)(draws);                                           \
            if (++t == (int)ns_) {                                                          \
                t = 0;                                                                      \
                want_ += (uint64_t)(draws);                                                 \
            }                                                                               \
        }                                                                                   \
        (g)->offset += (n);                                                                 \
        return ROCRAND_STATUS_SUCCESS;                                                      \
    } while (0)

/* ---- MTGP32: MTGP32_BLOCKS blocks of MTGP32_THREADS threads, the kernel shape of the
 * cuRAND host generator; each result is one curand() of one thread (the device functions
 * for MTGP32 take one draw per value: curand_uniform, curand_normal by the inverse CDF,
 * curand_poisson). The result at position n of the sequence is thread n % 256 of block
 * (n / 256) % 64 in its round n / 16384: a grid-stride loop's order, with each round of a
 * block what one curand() call of its 256 threads returns. The per-block values are
 * exactly curand_kernel.h's (tests/randfft/prog_curand.cu runs curand() on
 * curandMakeMTGP32KernelState's states in a translated kernel); that NVIDIA's library
 * uses 64 blocks laid out so is our reading and cannot be checked without an NVIDIA GPU. */

static rocrand_status mtgp_ready(rocrand_generator g)
{
    if (g->mtgp)
        return ROCRAND_STATUS_SUCCESS;
    g->mtgp = malloc(sizeof(mtgp32_block) * MTGP32_BLOCKS);
    if (!g->mtgp)
        return ROCRAND_STATUS_ALLOCATION_FAILED;
    for (int b = 0; b < MTGP32_BLOCKS; b++)
        mtgp32_block_init(&g->mtgp[b], b, g->seed);
    return ROCRAND_STATUS_SUCCESS;
}

/* The 256 values of block b's round r (a block only steps forward: one asked for an
 * earlier round starts that block over from the seed). */
static const uint32_t *mtgp_round(rocrand_generator g, int b, uint64_t r)
{
    mtgp32_block *blk = &g->mtgp[b];
    if (blk->rounds > r + 1)
        mtgp32_block_init(blk, b, g->seed);
    while (blk->rounds < r + 1)
        mtgp32_block_round(blk);
    return blk->last;
}

#define MTGP(g, out, n, EMIT)                                                               \
    do {                                                                                    \
        rocrand_status st_ = begin(g, out, n);                                              \
        if (st_ == ROCRAND_STATUS_SUCCESS)                                                  \
            st_ = mtgp_ready(g);                                                            \
        if (st_ != ROCRAND_STATUS_SUCCESS)                                                  \
            return st_;                                                                     \
        uint64_t i_ = (g)->offset, end_ = (g)->offset + (n);                                \
        size_t at = 0;                                                                      \
        while (i_ < end_) {                                                                 \
            uint64_t chunk_ = i_ / MTGP32_THREADS;                                          \
            unsigned t_ = (unsigned)(i_ % MTGP32_THREADS);                                  \
            const uint32_t *v_ = mtgp_round(g, (int)(chunk_ % MTGP32_BLOCKS),               \
                                            chunk_ / MTGP32_BLOCKS);                        \
            for (; t_ < MTGP32_THREADS && i_ < end_; t_++, i_++, at++) {                    \
                uint32_t x = v_[t_];                                                        \
                EMIT;                                                                       \
            }                                                                               \
        }                                                                                   \
        (g)->offset = end_;                                                                 \
        return ROCRAND_STATUS_SUCCESS;                                                      \
    } while (0)

#define IS_MTGP(g) ((g) && (g)->type == ROCRAND_RNG_PSEUDO_MTGP32)

/* the scrambled generators: pyshim's scrambled direction vectors and shifts (sobol.c) */
#define IS_SCRAMBLED(g)                                                                     \
    ((g)->type == ROCRAND_RNG_QUASI_SCRAMBLED_SOBOL32 ||                                    \
     (g)->type == ROCRAND_RNG_QUASI_SCRAMBLED_SOBOL64)

/* ---- Sobol: n / dims results per dimension, dimension-major, from the generator's
 * offset on (cuRAND's quasi-random layout); element k of a dimension is the XOR of the
 * direction vectors picked by the bits of k's Gray code ------------------------------- */

static rocrand_status quasi_begin(rocrand_generator g, const void *out, size_t n)
{
    if (!out && n)
        return ROCRAND_STATUS_OUT_OF_RANGE;
    if (n % g->dims)
        return ROCRAND_STATUS_LENGTH_NOT_MULTIPLE;
    if (!g->host && hipStreamSynchronize(g->stream) != hipSuccess)
        return ROCRAND_STATUS_LAUNCH_FAILURE;
    return ROCRAND_STATUS_SUCCESS;
}

#define QUASI(g, out, n, W, T, EMIT)                                                        \
    do {                                                                                    \
        rocrand_status st_ = quasi_begin(g, out, n);                                        \
        if (st_ != ROCRAND_STATUS_SUCCESS)                                                  \
            return st_;                                                                     \
        size_t per_ = (n) / (g)->dims;                                                      \
        int scr_ = IS_SCRAMBLED(g);                                                         \
        for (unsigned int d_ = 0; d_ < (g)->dims; d_++) {                                   \
            T v_[W], x = 0;                                                                 \
            if ((W) == 32 && scr_) {                                                        \
                sobol_scrambled_vectors32(d_, (void *)v_);                                  \
                x = (T)sobol_scramble_constant32(d_);                                       \
            } else if ((W) == 32) {                                                         \
                sobol_vectors32(d_, (void *)v_);                                            \
            } else if (scr_) {                                                              \
                sobol_scrambled_vectors64(d_, (void *)v_);                                  \
                x = (T)sobol_scramble_constant64(d_);                                       \
            } else {                                                                        \
                sobol_vectors64(d_, (void *)v_);                                            \
            }                                                                               \
            unsigned long long k_ = (g)->offset, gray_ = k_ ^ (k_ >> 1);                    \
            for (int b_ = 0; b_ < (W) && gray_; b_++, gray_ >>= 1)                          \
                if (gray_ & 1)                                                              \
                    x ^= v_[b_];                                                            \
            for (size_t i_ = 0; i_ < per_; i_++) {                                          \
                size_t at = (size_t)d_ * per_ + i_;                                         \
                EMIT;                                                                       \
                int z_ = __builtin_ctzll(~k_);                                              \
                x ^= v_[z_ < (W) ? z_ : (W) - 1];                                           \
                k_++;                                                                       \
            }                                                                               \
        }                                                                                   \
        (g)->offset += per_;                                                                \
        return ROCRAND_STATUS_SUCCESS;                                                      \
    } while (0)

#define IS64(g)                                                                             \
    ((g)->type == ROCRAND_RNG_QUASI_SOBOL64 || (g)->type == ROCRAND_RNG_QUASI_SCRAMBLED_SOBOL64)
#define QUASI_ANY(g, out, n, EMIT32, EMIT64)                                                \
    do {                                                                                    \
        if (IS64(g))                                                                        \
            QUASI(g, out, n, 64, unsigned long long, EMIT64);                               \
        QUASI(g, out, n, 32, unsigned int, EMIT32);                                         \
    } while (0)

/* The standard normal quantile: Acklam's rational approximation refined by two Halley
 * steps on erfc (double precision throughout). cuRAND computes the same quantile with
 * erfcinv, so results agree to rounding. */
static double normal_quantile(double p)
{
    static const double a[] = {-3.969683028665376e+01, 2.209460984245205e+02,
                               -2.759285104469687e+02, 1.383577518672690e+02,
                               -3.066479806614716e+01, 2.506628277459239e+00};
    static const double b[] = {-5.447609879822406e+01, 1.615858368580409e+02,
                               -1.556989798598866e+02, 6.680131188771972e+01,
                               -1.328068155288572e+01};
    static const double c[] = {-7.784894002430293e-03, -3.223964580411365e-01,
                               -2.400758277161838e+00, -2.549732539343734e+00,
                               4.374664141464968e+00, 2.938163982698783e+00};
    static const double d[] = {7.784695709041462e-03, 3.224671290700398e-01,
                               2.445134137142996e+00, 3.754408661907416e+00};
    double x;
    if (p < 0.02425) {
        double q = sqrt(-2 * log(p));
        x = (((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) /
            ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1);
    } else if (p > 1 - 0.02425) {
        double q = sqrt(-2 * log(1 - p));
        x = -(((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) /
            ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1);
    } else {
        double q = p - 0.5, r = q * q;
        x = (((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) * q /
            (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1);
    }
    for (int i = 0; i < 2; i++) {
        double e = 0.5 * erfc(-x / M_SQRT2) - p;
        double u = e * sqrt(2 * M_PI) * exp(x * x / 2);
        x = x - u / (1 + x * u / 2);
    }
    return x;
}

/* curand_normal_static.h's _curand_normal_icdf_double of a 32-bit (64-bit: its top 53
 * bits) value: CURAND_SQRT2 erfcinv(2p) for the midpoint p of x, mirrored for the upper
 * half so it keeps its precision. CURAND_SQRT2 is minus the square root of 2
 * (curand_globals.h), so this is the standard normal quantile of p. The float versions take
 * the top 32 bits of a 64-bit value, as _curand_normal_icdf does; they compute in double,
 * so agree with erfcinvf to rounding. */
static inline double icdf32(unsigned int x)
{
    if (x > 0x80000000u)
        return -normal_quantile((0xffffffffu - x) * INV32D + INV32D / 2);
    return normal_quantile(x * INV32D + INV32D / 2);
}

static inline double icdf64(unsigned long long x)
{
    x >>= 11;
    if (x > 0x10000000000000ull)
        return -normal_quantile((0x1fffffffffffffull - x) * INV53D + INV53D / 2);
    return normal_quantile(x * INV53D + INV53D / 2);
}

#define ICDF32F(x) ((float)icdf32(x))
#define ICDF64F(x) ((float)icdf32((unsigned int)((x) >> 32)))

RR_API rocrand_status rocrand_generate(rocrand_generator generator, unsigned int *output_data,
                                       size_t n)
{
    if (generator && IS64(generator))
        return ROCRAND_STATUS_TYPE_ERROR;
    if (generator && is_quasi(generator->type))
        QUASI(generator, output_data, n, 32, unsigned int, output_data[at] = x);
    if (IS_MTGP(generator))
        MTGP(generator, output_data, n, output_data[at] = x);
    GENERATE(generator, output_data, n, 1, 1, output_data[at] = bits32(generator, e, t));
}

RR_API rocrand_status rocrand_generate_long_long(rocrand_generator generator,
                                                 unsigned long long *output_data, size_t n)
{
    if (!generator)
        return ROCRAND_STATUS_NOT_CREATED;
    /* 64-bit results come from the Sobol64 generators only */
    if (!IS64(generator))
        return ROCRAND_STATUS_TYPE_ERROR;
    QUASI(generator, output_data, n, 64, unsigned long long, output_data[at] = x);
}

RR_API rocrand_status rocrand_generate_char(rocrand_generator generator,
                                            unsigned char *output_data, size_t n)
{
    if (IS_MTGP(generator))
        MTGP(generator, output_data, n, output_data[at] = (unsigned char)x);
    GENERATE(generator, output_data, n, 1, 1,
             output_data[at] = (unsigned char)bits32(generator, e, t));
}

RR_API rocrand_status rocrand_generate_short(rocrand_generator generator,
                                             unsigned short *output_data, size_t n)
{
    if (IS_MTGP(generator))
        MTGP(generator, output_data, n, output_data[at] = (unsigned short)x);
    GENERATE(generator, output_data, n, 1, 1,
             output_data[at] = (unsigned short)bits32(generator, e, t));
}

RR_API rocrand_status rocrand_generate_uniform(rocrand_generator generator, float *output_data,
                                               size_t n)
{
    if (generator && is_quasi(generator->type))
        QUASI_ANY(generator, output_data, n, output_data[at] = x * INV32F + INV32F / 2.0f,
                  output_data[at] = (unsigned int)(x >> 32) * INV32F + INV32F / 2.0f);
    if (IS_MTGP(generator))
        MTGP(generator, output_data, n, output_data[at] = x * INV32F + INV32F / 2.0f);
    GENERATE(generator, output_data, n, 1, 1, output_data[at] = uniform_f(generator, e, t));
}

RR_API rocrand_status rocrand_generate_uniform_double(rocrand_generator generator,
                                                      double *output_data, size_t n)
{
    if (generator && is_quasi(generator->type))
        QUASI_ANY(generator, output_data, n, output_data[at] = x * INV32D + INV32D,
                  output_data[at] = (x >> 11) * INV53D + INV53D / 2.0);
    if (IS_MTGP(generator))
        MTGP(generator, output_data, n, output_data[at] = x * INV32D + INV32D);
    int k = generator ? uniform_d_draws(generator) : 1;
    GENERATE(generator, output_data, n, 1, k, output_data[at] = uniform_d(generator, e, t));
}

RR_API rocrand_status rocrand_generate_uniform_half(rocrand_generator generator,
                                                    half *output_data, size_t n)
{
    (void)output_data;
    (void)n;
    return generator ? ROCRAND_STATUS_TYPE_ERROR : ROCRAND_STATUS_NOT_CREATED;
}

#define EMIT_NORMAL_F(expr_a, expr_b)                                                       \
    do {                                                                                    \
        float a_, b_;                                                                       \
        normal2_f(generator, e, t, &a_, &b_);                                               \
        output_data[at] = (expr_a);                                                         \
        output_data[at + 1] = (expr_b);                                                     \
    } while (0)

#define EMIT_NORMAL_D(expr_a, expr_b)                                                       \
    do {                                                                                    \
        double a_, b_;                                                                      \
        normal2_d(generator, e, t, &a_, &b_);                                               \
        output_data[at] = (expr_a);                                                         \
        output_data[at + 1] = (expr_b);                                                     \
    } while (0)

RR_API rocrand_status rocrand_generate_normal(rocrand_generator generator, float *output_data,
                                              size_t n, float mean, float stddev)
{
    if (generator && is_quasi(generator->type))
        QUASI_ANY(generator, output_data, n,
                  output_data[at] = ICDF32F(x) * stddev + mean,
                  output_data[at] = ICDF64F(x) * stddev + mean);
    if (IS_MTGP(generator))
        MTGP(generator, output_data, n, output_data[at] = ICDF32F(x) * stddev + mean);
    GENERATE(generator, output_data, n, 2, 2,
             EMIT_NORMAL_F(a_ * stddev + mean, b_ * stddev + mean));
}

RR_API rocrand_status rocrand_generate_normal_double(rocrand_generator generator,
                                                     double *output_data, size_t n, double mean,
                                                     double stddev)
{
    if (generator && is_quasi(generator->type))
        QUASI_ANY(generator, output_data, n, output_data[at] = icdf32(x) * stddev + mean,
                  output_data[at] = icdf64(x) * stddev + mean);
    if (IS_MTGP(generator))
        MTGP(generator, output_data, n, output_data[at] = icdf32(x) * stddev + mean);
    int k = generator ? draws_per_normal2_d(generator) : 4;
    GENERATE(generator, output_data, n, 2, k,
             EMIT_NORMAL_D(a_ * stddev + mean, b_ * stddev + mean));
}

RR_API rocrand_status rocrand_generate_log_normal(rocrand_generator generator,
                                                  float *output_data, size_t n, float mean,
                                                  float stddev)
{
    if (generator && is_quasi(generator->type))
        QUASI_ANY(generator, output_data, n,
                  output_data[at] = expf(ICDF32F(x) * stddev + mean),
                  output_data[at] = expf(ICDF64F(x) * stddev + mean));
    if (IS_MTGP(generator))
        MTGP(generator, output_data, n, output_data[at] = expf(ICDF32F(x) * stddev + mean));
    GENERATE(generator, output_data, n, 2, 2,
             EMIT_NORMAL_F(expf(a_ * stddev + mean), expf(b_ * stddev + mean)));
}

RR_API rocrand_status rocrand_generate_log_normal_double(rocrand_generator generator,
                                                         double *output_data, size_t n,
                                                         double mean, double stddev)
{
    if (generator && is_quasi(generator->type))
        QUASI_ANY(generator, output_data, n,
                  output_data[at] = exp(icdf32(x) * stddev + mean),
                  output_data[at] = exp(icdf64(x) * stddev + mean));
    if (IS_MTGP(generator))
        MTGP(generator, output_data, n, output_data[at] = exp(icdf32(x) * stddev + mean));
    int k = generator ? draws_per_normal2_d(generator) : 4;
    GENERATE(generator, output_data, n, 2, k,
             EMIT_NORMAL_D(exp(a_ * stddev + mean), exp(b_ * stddev + mean)));
}

RR_API rocrand_status rocrand_generate_normal_half(rocrand_generator generator,
                                                   half *output_data, size_t n, half mean,
                                                   half stddev)
{
    (void)output_data;
    (void)n;
    (void)mean;
    (void)stddev;
    return generator ? ROCRAND_STATUS_TYPE_ERROR : ROCRAND_STATUS_NOT_CREATED;
}

RR_API rocrand_status rocrand_generate_log_normal_half(rocrand_generator generator,
                                                       half *output_data, size_t n, half mean,
                                                       half stddev)
{
    return rocrand_generate_normal_half(generator, output_data, n, mean, stddev);
}

/* Poisson: curand_poisson.h's _curand_poisson of one 32-bit draw (curand() of the
 * state), for every generator. Below lambda 1000 it is Fishman's inversion (ITR) in steps
 * of e^-500 on the uniform x 2^-32 + 2^-33 that excludes 1: exact, one draw per result,
 * so the host layout stays one state per result column. Above, the inverse-CDF normal,
 * rounded (a Sobol64 draw: its top 53 bits). It is the device function curand_poisson
 * for MTGP32 and the Sobol states, and the host's for both; for XORWOW, Philox and MRG32k3a curand_poisson is Knuth's method below 64 and a
 * gamma-rejection method to 4000, taking a varying number of draws, whose host layout
 * cuRAND does not document, so the host generator gives _curand_poisson(curand(&state))
 * there (tests/randfft/prog_curand.cu checks exactly that against a translated kernel). */
static unsigned int poisson_itr(double u, double lambda)
{
    double p = 1.0, q = 1.0;
    unsigned int k = 0;
    int pw = 0;
    do {
        double l = lambda > (double)(pw + 500) ? exp(-500.0) : exp((double)pw - lambda);
        p *= l;
        q *= l;
        pw += 500;
        while (u > q) {
            k++;
            p *= lambda / (double)k;
            q += p;
        }
    } while ((double)pw < lambda);
    return k;
}

static unsigned int poisson_of_draw(uint32_t x, double lambda)
{
    if (lambda >= 1000)
        return (unsigned int)((sqrt(lambda) * icdf32(x)) + lambda + 0.5);
    return poisson_itr(x * INV32D + INV32D / 2.0, lambda);
}

/* a 64-bit draw (Sobol64): its top 53 bits, the uniform's offset 2^-55 as in
 * _curand_uniform_double_excluding_one */
static unsigned int poisson_of_draw64(unsigned long long x, double lambda)
{
    if (lambda >= 1000)
        return (unsigned int)((sqrt(lambda) * icdf64(x)) + lambda + 0.5);
    return poisson_itr((x >> 11) * INV53D + INV53D / 4.0, lambda);
}

RR_API rocrand_status rocrand_generate_poisson(rocrand_generator generator,
                                               unsigned int *output_data, size_t n,
                                               double lambda)
{
    if (generator && !(lambda > 0))
        return ROCRAND_STATUS_OUT_OF_RANGE;
    if (generator && is_quasi(generator->type))
        QUASI_ANY(generator, output_data, n, output_data[at] = poisson_of_draw(x, lambda),
                  output_data[at] = poisson_of_draw64(x, lambda));
    if (IS_MTGP(generator))
        MTGP(generator, output_data, n, output_data[at] = poisson_of_draw(x, lambda));
    GENERATE(generator, output_data, n, 1, 1,
             output_data[at] = poisson_of_draw(bits32(generator, e, t), lambda));
}

RR_API rocrand_status rocrand_initialize_generator(rocrand_generator generator)
{
    if (!generator)
        return ROCRAND_STATUS_NOT_CREATED;
    if (is_quasi(generator->type) || generator->states)
        return ROCRAND_STATUS_SUCCESS;
    if (generator->type == ROCRAND_RNG_PSEUDO_MTGP32)
        return mtgp_ready(generator);
    return states_reset(generator);
}

/* ---- discrete distributions, quasi-random tables: not on the CPU device yet ------------ */

RR_API rocrand_status rocrand_create_poisson_distribution(double lambda,
                                                          rocrand_discrete_distribution *d)
{
    (void)lambda;
    (void)d;
    return ROCRAND_STATUS_TYPE_ERROR;
}

RR_API rocrand_status rocrand_create_discrete_distribution(const double *probabilities,
                                                           unsigned int size,
                                                           unsigned int offset,
                                                           rocrand_discrete_distribution *d)
{
    (void)probabilities;
    (void)size;
    (void)offset;
    (void)d;
    return ROCRAND_STATUS_TYPE_ERROR;
}

RR_API rocrand_status rocrand_destroy_discrete_distribution(rocrand_discrete_distribution d)
{
    (void)d;
    return ROCRAND_STATUS_OUT_OF_RANGE;
}

/* the Joe-Kuo sets, and pyshim's own scrambled sets and constants (cuRAND's are not
 * published: sobol.c says what they are) */
RR_API rocrand_status rocrand_get_direction_vectors32(const unsigned int **vectors,
                                                      const rocrand_direction_vector_set set)
{
    if (!vectors)
        return ROCRAND_STATUS_OUT_OF_RANGE;
    const unsigned int *t = set == ROCRAND_DIRECTION_VECTORS_32_JOEKUO6 ? sobol_table32()
                            : set == ROCRAND_SCRAMBLED_DIRECTION_VECTORS_32_JOEKUO6
                                ? sobol_scrambled_table32()
                                : NULL;
    if (!t)
        return ROCRAND_STATUS_OUT_OF_RANGE;
    *vectors = t;
    return ROCRAND_STATUS_SUCCESS;
}

RR_API rocrand_status rocrand_get_direction_vectors64(const unsigned long long **vectors,
                                                      const rocrand_direction_vector_set set)
{
    if (!vectors)
        return ROCRAND_STATUS_OUT_OF_RANGE;
    const unsigned long long *t = set == ROCRAND_DIRECTION_VECTORS_64_JOEKUO6 ? sobol_table64()
                                  : set == ROCRAND_SCRAMBLED_DIRECTION_VECTORS_64_JOEKUO6
                                      ? sobol_scrambled_table64()
                                      : NULL;
    if (!t)
        return ROCRAND_STATUS_OUT_OF_RANGE;
    *vectors = t;
    return ROCRAND_STATUS_SUCCESS;
}

RR_API rocrand_status rocrand_get_scramble_constants32(const unsigned int **constants)
{
    if (!constants)
        return ROCRAND_STATUS_OUT_OF_RANGE;
    if (!sobol_scramble_constants32())
        return ROCRAND_STATUS_TYPE_ERROR;
    *constants = sobol_scramble_constants32();
    return ROCRAND_STATUS_SUCCESS;
}

RR_API rocrand_status rocrand_get_scramble_constants64(const unsigned long long **constants)
{
    if (!constants)
        return ROCRAND_STATUS_OUT_OF_RANGE;
    if (!sobol_scramble_constants64())
        return ROCRAND_STATUS_TYPE_ERROR;
    *constants = sobol_scramble_constants64();
    return ROCRAND_STATUS_SUCCESS;
}
