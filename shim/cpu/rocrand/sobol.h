/* Sobol direction vectors (Joe & Kuo, new-joe-kuo-6): see sobol.c. */
#ifndef PYSHIM_CPU_ROCRAND_SOBOL_H
#define PYSHIM_CPU_ROCRAND_SOBOL_H

#include <stdint.h>

/* cuRAND's JOEKUO6 sets have 20,000 dimensions */
#define SOBOL_DIMENSIONS 20000

/* How many dimensions are available (0: the direction-number file is missing). */
unsigned int sobol_dimensions(void);
/* The 32 (64) direction vectors of dimension `dim` (0-based, < sobol_dimensions()). */
void sobol_vectors32(unsigned int dim, unsigned int *v);
void sobol_vectors64(unsigned int dim, unsigned long long *v);
/* Every dimension's vectors, dimension-major: cuRAND's curandDirectionVectors32_t rows. */
const unsigned int *sobol_table32(void);
const unsigned long long *sobol_table64(void);

/* Scrambled Sobol: pyshim's own scramble (cuRAND's is not published; see sobol.c):
 * dimension `dim`'s scrambled direction vectors and digital shift, and every dimension's,
 * as the SCRAMBLED_JOEKUO6 sets and curandGetScrambleConstants32/64 hand them out (NULL
 * without the direction-number file). */
void sobol_scrambled_vectors32(unsigned int dim, unsigned int *v);
void sobol_scrambled_vectors64(unsigned int dim, unsigned long long *v);
unsigned int sobol_scramble_constant32(unsigned int dim);
unsigned long long sobol_scramble_constant64(unsigned int dim);
const unsigned int *sobol_scrambled_table32(void);
const unsigned long long *sobol_scrambled_table64(void);
const unsigned int *sobol_scramble_constants32(void);
const unsigned long long *sobol_scramble_constants64(void);

#endif
