/*
 * The CPU device's rocRAND host API (rocrand.h, ROCm 7.2 ABI) with NVIDIA's cuRAND
 * sequences.
 *
 * A pseudorandom generator is THREADS states curand_init(seed, t, offset), t < THREADS,
 * as cuRAND documents for its legacy ordering: result n of a call comes from state
 * n mod THREADS, which gives it its (n / THREADS)-th value of the call (a distribution
 * that consumes k draws per g results takes them from one state, consecutively, as the
 * device functions curand_normal2 & co. do). Every state moves on by the same number of
 * draws, so successive calls continue the sequences. The per-state values are exactly
 * curand_kernel.h's (the differential test runs curand_init/curand in a translated kernel);
 * the host layout is NVIDIA's documented one and cannot be checked without an NVIDIA GPU.
 */
#include <math.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hip/hip_runtime_api.h>
#include <rocrand/rocrand.h>

#include "engines.h"

#define RR_API __attribute__((visibility("default")))
#define THREADS 4096

typedef struct {
    union {
        xorwow_state x;
        mrg_state m;
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
    engine *states;              /* THREADS of them, at states_pos; NULL until first use */
    unsigned long long states_pos;
};

static int is_pseudo(rocrand_rng_type t)
{
    return t == ROCRAND_RNG_PSEUDO_DEFAULT || t == ROCRAND_RNG_PSEUDO_XORWOW ||
           t == ROCRAND_RNG_PSEUDO_MRG32K3A || t == ROCRAND_RNG_PSEUDO_PHILOX4_32_10;
}

/* cuRAND's default seed */
#define DEFAULT_SEED 0ull

static rocrand_status create(rocrand_generator *g, rocrand_rng_type t, int host)
{
    if (!g)
        return ROCRAND_STATUS_OUT_OF_RANGE;
    if (!is_pseudo(t)) {
        /* MTGP32, MT19937, MRG31k3p, LFSR113, ThreeFry, Sobol: not on the CPU device yet */
        fprintf(stderr, "pyshim cpu device: rocRAND generator type %d is not implemented "
                        "(returns ROCRAND_STATUS_TYPE_ERROR)\n", (int)t);
        return ROCRAND_STATUS_TYPE_ERROR;
    }
    struct rocrand_generator_base_type *gen = calloc(1, sizeof *gen);
    if (!gen)
        return ROCRAND_STATUS_ALLOCATION_FAILED;
    gen->type = t == ROCRAND_RNG_PSEUDO_DEFAULT ? ROCRAND_RNG_PSEUDO_XORWOW : t;
    gen->seed = DEFAULT_SEED;
    gen->ordering = ROCRAND_ORDERING_PSEUDO_DEFAULT;
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

RR_API rocrand_status rocrand_destroy_generator(rocrand_generator generator)
{
    if (!generator)
        return ROCRAND_STATUS_NOT_CREATED;
    free(generator->states);
    free(generator);
    return ROCRAND_STATUS_SUCCESS;
}

static void invalidate(rocrand_generator g)
{
    free(g->states);
    g->states = NULL;
}

RR_API rocrand_status rocrand_set_seed(rocrand_generator generator, unsigned long long seed)
{
    if (!generator)
        return ROCRAND_STATUS_NOT_CREATED;
    generator->seed = seed;
    generator->offset = 0; /* cuRAND: setting the seed resets the offset */
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
    if (order < ROCRAND_ORDERING_PSEUDO_BEST || order > ROCRAND_ORDERING_PSEUDO_DYNAMIC)
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
    (void)dimensions;
    return generator ? ROCRAND_STATUS_TYPE_ERROR : ROCRAND_STATUS_NOT_CREATED;
}

RR_API rocrand_status rocrand_get_version(int *version)
{
    if (!version)
        return ROCRAND_STATUS_OUT_OF_RANGE;
    *version = ROCRAND_VERSION;
    return ROCRAND_STATUS_SUCCESS;
}

/* ---- the THREADS states ---------------------------------------------------------------- */

static rocrand_status states_at(rocrand_generator g, unsigned long long pos)
{
    if (g->states && g->states_pos == pos)
        return ROCRAND_STATUS_SUCCESS;
    if (!g->states) {
        g->states = malloc(sizeof(engine) * THREADS);
        if (!g->states)
            return ROCRAND_STATUS_ALLOCATION_FAILED;
        /* state t+1 is state t one subsequence on */
        for (int t = 0; t < THREADS; t++) {
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
        g->states_pos = 0;
    }
    if (pos < g->states_pos) {
        invalidate(g);
        return states_at(g, pos);
    }
    uint64_t n = pos - g->states_pos;
    for (int t = 0; t < THREADS && n; t++) {
        engine *e = &g->states[t];
        if (g->type == ROCRAND_RNG_PSEUDO_XORWOW)
            xorwow_skip(&e->u.x, n);
        else if (g->type == ROCRAND_RNG_PSEUDO_MRG32K3A)
            mrg_skip(&e->u.m, n);
        else
            e->u.p.pos += n;
    }
    g->states_pos = pos;
    return ROCRAND_STATUS_SUCCESS;
}

static inline uint32_t draw(rocrand_generator g, engine *e, int t)
{
    if (g->type == ROCRAND_RNG_PSEUDO_XORWOW)
        return xorwow_next(&e->u.x);
    if (g->type == ROCRAND_RNG_PSEUDO_MRG32K3A)
        return mrg_next(&e->u.m); /* callers of raw bits scale it (curand()) */
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
    return draw(g, e, t) * INV32D + (INV32D / 2.0);
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
    float s = sqrtf(-2.0f * logf(u));
    *a = sinf(v) * s;
    *b = cosf(v) * s;
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
 * thread, after the work already enqueued), then bring the states to the offset. */
static rocrand_status begin(rocrand_generator g, const void *out, size_t n)
{
    if (!g)
        return ROCRAND_STATUS_NOT_CREATED;
    if (!out && n)
        return ROCRAND_STATUS_OUT_OF_RANGE;
    if (!g->host && hipStreamSynchronize(g->stream) != hipSuccess)
        return ROCRAND_STATUS_LAUNCH_FAILURE;
    return states_at(g, g->offset);
}

/* Results in groups of `per` from one state, group q from state q % THREADS; `draws` per
 * group; `emit(e, t, dst, count)` writes one group (count < per for a short last one). */
#define GENERATE(g, out, n, per, draws, EMIT)                                               \
    do {                                                                                    \
        rocrand_status st_ = begin(g, out, n);                                              \
        if (st_ != ROCRAND_STATUS_SUCCESS)                                                  \
            return st_;                                                                     \
        size_t groups_ = ((n) + (per) - 1) / (per);                                         \
        size_t rounds_ = (groups_ + THREADS - 1) / THREADS;                                 \
        for (size_t j_ = 0; j_ < rounds_; j_++) {                                           \
            for (int t = 0; t < THREADS; t++) {                                             \
                size_t q_ = j_ * THREADS + (size_t)t;                                        \
                if (q_ >= groups_)                                                          \
                    break;                                                                  \
                engine *e = &(g)->states[t];                                                \
                size_t at = q_ * (per);                                                     \
                size_t count = (n) - at < (size_t)(per) ? (n) - at : (size_t)(per);          \
                (void)count;                                                                \
                EMIT;                                                                       \
            }                                                                               \
        }                                                                                   \
        /* every state moves on by the same number of draws: states a short last round  \
         * skipped catch up */                                                              \
        unsigned long long used_ = (unsigned long long)rounds_ * (draws);                   \
        size_t done_ = groups_ - (rounds_ ? (rounds_ - 1) * THREADS : 0);                   \
        for (size_t t_ = done_; rounds_ && t_ < THREADS; t_++) {                            \
            engine *e_ = &(g)->states[t_];                                                  \
            for (int k_ = 0; k_ < (draws); k_++)                                            \
                (void)draw(g, e_, (int)t_);                                                 \
        }                                                                                   \
        (g)->offset += used_;                                                               \
        (g)->states_pos = (g)->offset;                                                      \
        return ROCRAND_STATUS_SUCCESS;                                                      \
    } while (0)

RR_API rocrand_status rocrand_generate(rocrand_generator generator, unsigned int *output_data,
                                       size_t n)
{
    GENERATE(generator, output_data, n, 1, 1, output_data[at] = bits32(generator, e, t));
}

RR_API rocrand_status rocrand_generate_long_long(rocrand_generator generator,
                                                 unsigned long long *output_data, size_t n)
{
    (void)output_data;
    (void)n;
    /* 64-bit results come from the Sobol64 generators only */
    return generator ? ROCRAND_STATUS_TYPE_ERROR : ROCRAND_STATUS_NOT_CREATED;
}

RR_API rocrand_status rocrand_generate_char(rocrand_generator generator,
                                            unsigned char *output_data, size_t n)
{
    GENERATE(generator, output_data, n, 1, 1,
             output_data[at] = (unsigned char)bits32(generator, e, t));
}

RR_API rocrand_status rocrand_generate_short(rocrand_generator generator,
                                             unsigned short *output_data, size_t n)
{
    GENERATE(generator, output_data, n, 1, 1,
             output_data[at] = (unsigned short)bits32(generator, e, t));
}

RR_API rocrand_status rocrand_generate_uniform(rocrand_generator generator, float *output_data,
                                               size_t n)
{
    GENERATE(generator, output_data, n, 1, 1, output_data[at] = uniform_f(generator, e, t));
}

RR_API rocrand_status rocrand_generate_uniform_double(rocrand_generator generator,
                                                      double *output_data, size_t n)
{
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
        if (count > 1)                                                                      \
            output_data[at + 1] = (expr_b);                                                 \
    } while (0)

#define EMIT_NORMAL_D(expr_a, expr_b)                                                       \
    do {                                                                                    \
        double a_, b_;                                                                      \
        normal2_d(generator, e, t, &a_, &b_);                                               \
        output_data[at] = (expr_a);                                                         \
        if (count > 1)                                                                      \
            output_data[at + 1] = (expr_b);                                                 \
    } while (0)

RR_API rocrand_status rocrand_generate_normal(rocrand_generator generator, float *output_data,
                                              size_t n, float mean, float stddev)
{
    GENERATE(generator, output_data, n, 2, 2,
             EMIT_NORMAL_F(a_ * stddev + mean, b_ * stddev + mean));
}

RR_API rocrand_status rocrand_generate_normal_double(rocrand_generator generator,
                                                     double *output_data, size_t n, double mean,
                                                     double stddev)
{
    int k = generator ? draws_per_normal2_d(generator) : 4;
    GENERATE(generator, output_data, n, 2, k,
             EMIT_NORMAL_D(a_ * stddev + mean, b_ * stddev + mean));
}

RR_API rocrand_status rocrand_generate_log_normal(rocrand_generator generator,
                                                  float *output_data, size_t n, float mean,
                                                  float stddev)
{
    GENERATE(generator, output_data, n, 2, 2,
             EMIT_NORMAL_F(expf(a_ * stddev + mean), expf(b_ * stddev + mean)));
}

RR_API rocrand_status rocrand_generate_log_normal_double(rocrand_generator generator,
                                                         double *output_data, size_t n,
                                                         double mean, double stddev)
{
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

/* Poisson: inversion by sequential search for small lambda, one uniform double per
 * result (the draws a result takes are bounded by POISSON_DRAWS so every state moves on
 * alike); a rounded normal approximation for large lambda. */
#define POISSON_SMALL 64.0

static inline unsigned int poisson_one(rocrand_generator g, engine *e, int t, double lambda)
{
    if (lambda < POISSON_SMALL) {
        double u = uniform_d(g, e, t);
        double p = exp(-lambda), cdf = p;
        unsigned int k = 0;
        while (u > cdf && k < 1000) {
            k++;
            p *= lambda / k;
            cdf += p;
        }
        return k;
    }
    double a, b;
    normal2_d(g, e, t, &a, &b);
    double x = floor(lambda + sqrt(lambda) * a + 0.5);
    return x < 0 ? 0u : (unsigned int)x;
}

RR_API rocrand_status rocrand_generate_poisson(rocrand_generator generator,
                                               unsigned int *output_data, size_t n,
                                               double lambda)
{
    if (generator && !(lambda > 0))
        return ROCRAND_STATUS_OUT_OF_RANGE;
    int k = !generator ? 1
            : lambda < POISSON_SMALL ? uniform_d_draws(generator)
                                     : draws_per_normal2_d(generator);
    GENERATE(generator, output_data, n, 1, k,
             output_data[at] = poisson_one(generator, e, t, lambda));
}

RR_API rocrand_status rocrand_initialize_generator(rocrand_generator generator)
{
    if (!generator)
        return ROCRAND_STATUS_NOT_CREATED;
    return states_at(generator, generator->offset);
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

RR_API rocrand_status rocrand_get_direction_vectors32(const unsigned int **vectors,
                                                      const rocrand_direction_vector_set set)
{
    (void)vectors;
    (void)set;
    return ROCRAND_STATUS_TYPE_ERROR;
}

RR_API rocrand_status rocrand_get_direction_vectors64(const unsigned long long **vectors,
                                                      const rocrand_direction_vector_set set)
{
    (void)vectors;
    (void)set;
    return ROCRAND_STATUS_TYPE_ERROR;
}

RR_API rocrand_status rocrand_get_scramble_constants32(const unsigned int **constants)
{
    (void)constants;
    return ROCRAND_STATUS_TYPE_ERROR;
}

RR_API rocrand_status rocrand_get_scramble_constants64(const unsigned long long **constants)
{
    (void)constants;
    return ROCRAND_STATUS_TYPE_ERROR;
}
