/*
 * The tables the build writes beside librocrand.so.1 (Sobol's direction numbers, MTGP32's
 * parameter sets: read at build time from their published sources, never committed):
 * opened next to the library itself, wherever it was loaded from.
 */
#ifndef PYSHIM_CPU_ROCRAND_DATA_FILE_H
#define PYSHIM_CPU_ROCRAND_DATA_FILE_H

#include <stdint.h>
#include <stdio.h>

/* The file `name` in the folder of the library holding `in_lib`, positioned after its
 * 8-byte `magic` and uint32 count (*count), or NULL when it is missing or not ours. */
FILE *rr_data_open(const void *in_lib, const char *name, const char magic[8], uint32_t *count);

#endif
