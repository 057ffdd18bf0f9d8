/*
 * Sobol direction vectors for the CPU device's rocRAND (cuRAND's
 * CURAND_DIRECTION_VECTORS_{32,64}_JOEKUO6 sets): computed here from S. Joe and F. Y. Kuo's
 * primitive polynomials and initial direction numbers (their file new-joe-kuo-6.21201, as
 * SciPy ships it in scipy/stats/_sobol_direction_numbers.npz). pyshim.build_randfft writes
 * those numbers beside this library as rocrand_joe_kuo6.bin (nothing of them is
 * committed); without the file the Sobol generators are refused.
 *
 * For a dimension with polynomial degree s, inner coefficients a and initial numbers m_k:
 * v_k = m_k << (W-1-k) for k < s, then v_k = v_{k-s} ^ (v_{k-s} >> s) ^ XOR of a_j v_{k-j};
 * the first dimension has m_k = 1 throughout (v_k = 2^(W-1-k)).
 */

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "data_file.h"
#include "sobol.h"

#define FILE_NAME "rocrand_joe_kuo6.bin"
#define MAGIC "PYSHIMJK"
#define MAX_M 18

static uint32_t *polys;   /* per dimension */
static uint32_t *minit;   /* per dimension, MAX_M */
static uint32_t ndims;
static unsigned int *dv32;
static unsigned long long *dv64;
static pthread_once_t once = PTHREAD_ONCE_INIT;

static void load(void)
{
    uint32_t n = 0;
    FILE *f = rr_data_open((const void *)&sobol_dimensions, FILE_NAME, MAGIC, &n);
    if (!f)
        return;
    if (n > 0 && n <= SOBOL_DIMENSIONS) {
        uint32_t *p = malloc(4 * (size_t)n), *m = malloc(4 * (size_t)n * MAX_M);
        unsigned int *v32 = malloc(sizeof *v32 * 32 * (size_t)n);
        unsigned long long *v64 = malloc(sizeof *v64 * 64 * (size_t)n);
        int ok = p && m && v32 && v64;
        for (uint32_t d = 0; ok && d < n; d++)
            ok = fread(&p[d], 4, 1, f) == 1 && fread(&m[d * MAX_M], 4, MAX_M, f) == MAX_M;
        if (ok) {
            polys = p;
            minit = m;
            dv32 = v32;
            dv64 = v64;
            ndims = n;
            for (uint32_t d = 0; d < n; d++) {
                sobol_vectors32(d, &dv32[d * 32]);
                sobol_vectors64(d, &dv64[d * 64]);
            }
        } else {
            free(p);
            free(m);
            free(v32);
            free(v64);
        }
    }
    fclose(f);
}

unsigned int sobol_dimensions(void)
{
    pthread_once(&once, load);
    return ndims;
}

#define VECTORS(NAME, T, W)                                                                 \
    void NAME(unsigned int dim, T *v)                                                       \
    {                                                                                       \
        if (dim == 0) {                                                                     \
            for (int k = 0; k < (W); k++)                                                   \
                v[k] = (T)1 << ((W) - 1 - k);                                               \
            return;                                                                         \
        }                                                                                   \
        uint32_t poly = polys[dim];                                                         \
        int s = 31 - __builtin_clz(poly); /* degree */                                      \
        uint32_t a = (poly >> 1) & ((1u << (s - 1)) - 1);                                   \
        for (int k = 0; k < s && k < (W); k++)                                              \
            v[k] = (T)minit[dim * MAX_M + k] << ((W) - 1 - k);                              \
        for (int k = s; k < (W); k++) {                                                     \
            T x = v[k - s] ^ (v[k - s] >> s);                                               \
            for (int j = 1; j < s; j++)                                                     \
                if ((a >> (s - 1 - j)) & 1)                                                 \
                    x ^= v[k - j];                                                          \
            v[k] = x;                                                                       \
        }                                                                                   \
    }

VECTORS(sobol_vectors32, unsigned int, 32)
VECTORS(sobol_vectors64, unsigned long long, 64)

const unsigned int *sobol_table32(void)
{
    return sobol_dimensions() ? dv32 : NULL;
}

const unsigned long long *sobol_table64(void)
{
    return sobol_dimensions() ? dv64 : NULL;
}

/* ---- scrambled Sobol (CURAND_RNG_QUASI_SCRAMBLED_SOBOL32/64, the SCRAMBLED_JOEKUO6
 * direction vectors and curandGetScrambleConstants32/64) ----
 * NVIDIA does not publish cuRAND's scrambled direction vectors or scramble constants, so
 * these are pyshim's own, documented here, and a scrambled sequence is not cuRAND's: a
 * linear matrix scramble (Matousek) of each dimension, then a digital shift. Dimension d's
 * numbers come from splitmix64 (Steele, Lea & Flood 2014) started at
 * (d + 1) * 0x9E3779B97F4A7C15 ^ 0x50595348494D5351 ("PYSHIMSQ"): its first W outputs are
 * the rows of a lower-triangular W x W binary matrix L with unit diagonal (row j, most
 * significant digit first, keeps the output's bits above digit j), the next one is the
 * shift. A scrambled direction vector is L v; the 64-bit constant is the shift, the
 * 32-bit one its upper half; 32-bit matrices take the outputs' upper halves. */

static uint64_t splitmix64(uint64_t *st)
{
    uint64_t z = (*st += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static uint64_t scramble_start(unsigned int dim)
{
    return ((uint64_t)dim + 1) * 0x9E3779B97F4A7C15ull ^ 0x50595348494D5351ull;
}

#define SCRAMBLED(NAME, PLAIN, T, W)                                                        \
    void NAME(unsigned int dim, T *v)                                                       \
    {                                                                                       \
        T rows[W], plain[W];                                                                \
        uint64_t st = scramble_start(dim);                                                  \
        for (int j = 0; j < (W); j++) {                                                     \
            T r = (T)(splitmix64(&st) >> (64 - (W)));                                       \
            T above = j == 0 ? 0 : (T) ~(T)0 << ((W) - j);                                  \
            rows[j] = (r & above) | (T)1 << ((W) - 1 - j);                                  \
        }                                                                                   \
        PLAIN(dim, plain);                                                                  \
        for (int k = 0; k < (W); k++) {                                                     \
            T y = 0;                                                                        \
            for (int j = 0; j < (W); j++)                                                   \
                y |= (T)(__builtin_parityll((unsigned long long)(rows[j] & plain[k]))) \
                     << ((W) - 1 - j);                                                      \
            v[k] = y;                                                                       \
        }                                                                                   \
    }

SCRAMBLED(sobol_scrambled_vectors32, sobol_vectors32, unsigned int, 32)
SCRAMBLED(sobol_scrambled_vectors64, sobol_vectors64, unsigned long long, 64)

unsigned long long sobol_scramble_constant64(unsigned int dim)
{
    uint64_t st = scramble_start(dim);
    for (int j = 0; j < 64; j++)
        (void)splitmix64(&st);
    return splitmix64(&st);
}

unsigned int sobol_scramble_constant32(unsigned int dim)
{
    return (unsigned int)(sobol_scramble_constant64(dim) >> 32);
}

static unsigned int *sv32, *sc32;
static unsigned long long *sv64, *sc64;
static pthread_once_t scrambled_once = PTHREAD_ONCE_INIT;

static void load_scrambled(void)
{
    unsigned int n = sobol_dimensions();
    if (!n)
        return;
    unsigned int *v32 = malloc(sizeof *v32 * 32 * (size_t)n), *c32 = malloc(sizeof *c32 * n);
    unsigned long long *v64 = malloc(sizeof *v64 * 64 * (size_t)n);
    unsigned long long *c64 = malloc(sizeof *c64 * n);
    if (!v32 || !c32 || !v64 || !c64) {
        free(v32);
        free(c32);
        free(v64);
        free(c64);
        return;
    }
    for (unsigned int d = 0; d < n; d++) {
        sobol_scrambled_vectors32(d, &v32[d * 32]);
        sobol_scrambled_vectors64(d, &v64[d * 64]);
        c64[d] = sobol_scramble_constant64(d);
        c32[d] = (unsigned int)(c64[d] >> 32);
    }
    sv32 = v32;
    sc32 = c32;
    sv64 = v64;
    sc64 = c64;
}

const unsigned int *sobol_scrambled_table32(void)
{
    pthread_once(&scrambled_once, load_scrambled);
    return sv32;
}

const unsigned long long *sobol_scrambled_table64(void)
{
    pthread_once(&scrambled_once, load_scrambled);
    return sv64;
}

const unsigned int *sobol_scramble_constants32(void)
{
    pthread_once(&scrambled_once, load_scrambled);
    return sc32;
}

const unsigned long long *sobol_scramble_constants64(void)
{
    pthread_once(&scrambled_once, load_scrambled);
    return sc64;
}
