/* cuRAND entry points whose answer is cuRAND's own, not rocRAND's (tables: curand.shim). */
#include <stddef.h>

#include <curand.h>

#include "curand_rocm.h"
#include "randfft_internal.h"

/* rocrand_status values (rocrand.h cannot share a translation unit with curand.h) */
enum { ROCRAND_SUCCESS = 0, ROCRAND_TYPE_ERROR = 103, ROCRAND_OUT_OF_RANGE = 104 };

/* the version of the curand.h the tables were generated from */
PYSHIM_EXPORT curandStatus_t curandGetVersion(int *version)
{
    if (!version)
        return CURAND_STATUS_OUT_OF_RANGE;
    *version = CURAND_VERSION;
    return CURAND_STATUS_SUCCESS;
}

PYSHIM_EXPORT curandStatus_t curandGetProperty(libraryPropertyType type, int *value)
{
    if (!value)
        return CURAND_STATUS_OUT_OF_RANGE;
    switch (type) {
    case MAJOR_VERSION: *value = CURAND_VER_MAJOR; break;
    case MINOR_VERSION: *value = CURAND_VER_MINOR; break;
    case PATCH_LEVEL: *value = CURAND_VER_PATCH; break;
    default: return CURAND_STATUS_OUT_OF_RANGE;
    }
    return CURAND_STATUS_SUCCESS;
}

static curandStatus_t from_rocrand(int st)
{
    switch (st) {
    case ROCRAND_SUCCESS: return CURAND_STATUS_SUCCESS;
    case ROCRAND_OUT_OF_RANGE: return CURAND_STATUS_OUT_OF_RANGE;
    case ROCRAND_TYPE_ERROR: return CURAND_STATUS_TYPE_ERROR;
    default: return CURAND_STATUS_INTERNAL_ERROR;
    }
}

/* rocRAND hands out the same tables as a flat array: cuRAND's rows of 32 (64) words are
 * that array viewed by dimension. */
PYSHIM_EXPORT curandStatus_t curandGetDirectionVectors32(curandDirectionVectors32_t *vectors[],
                                                         curandDirectionVectorSet_t set)
{
    const unsigned int *flat = NULL;
    if (!vectors)
        return CURAND_STATUS_OUT_OF_RANGE;
    /* the direction-vector-set values are identical (tables: enums.json) */
    int st = rocrand_get_direction_vectors32((void *)&flat, (int)set);
    if (st == ROCRAND_SUCCESS)
        *vectors = (curandDirectionVectors32_t *)flat;
    return from_rocrand(st);
}

PYSHIM_EXPORT curandStatus_t curandGetDirectionVectors64(curandDirectionVectors64_t *vectors[],
                                                         curandDirectionVectorSet_t set)
{
    const unsigned long long *flat = NULL;
    if (!vectors)
        return CURAND_STATUS_OUT_OF_RANGE;
    int st = rocrand_get_direction_vectors64((void *)&flat, (int)set);
    if (st == ROCRAND_SUCCESS)
        *vectors = (curandDirectionVectors64_t *)flat;
    return from_rocrand(st);
}

PYSHIM_EXPORT curandStatus_t curandGetScrambleConstants32(unsigned int **constants)
{
    const unsigned int *c = NULL;
    if (!constants)
        return CURAND_STATUS_OUT_OF_RANGE;
    int st = rocrand_get_scramble_constants32((void *)&c);
    if (st == ROCRAND_SUCCESS)
        *constants = (unsigned int *)c;
    return from_rocrand(st);
}

PYSHIM_EXPORT curandStatus_t curandGetScrambleConstants64(unsigned long long **constants)
{
    const unsigned long long *c = NULL;
    if (!constants)
        return CURAND_STATUS_OUT_OF_RANGE;
    int st = rocrand_get_scramble_constants64((void *)&c);
    if (st == ROCRAND_SUCCESS)
        *constants = (unsigned long long *)c;
    return from_rocrand(st);
}
