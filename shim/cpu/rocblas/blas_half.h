/* 16-bit floats (f16, bf16) for the CPU device's BLAS: conversions to and from f32, element
 * access by rocblas_datatype, and the batch-instance pointer of an operand. */
#ifndef PYSHIM_BLAS_HALF_H
#define PYSHIM_BLAS_HALF_H

#include <math.h>
#include <stdint.h>
#include <string.h>

#include <rocblas/rocblas.h>

/* ---- 16-bit float conversions ---- */
static inline float rb_half_to_float(uint16_t h)
{
    uint32_t sign = (uint32_t)(h & 0x8000u) << 16, exp = (h >> 10) & 0x1fu, man = h & 0x3ffu;
    uint32_t bits;
    if (exp == 0) {
        if (man == 0) {
            bits = sign;
        } else { /* subnormal: value = man * 2^-24 */
            float f = ldexpf((float)man, -24);
            return sign ? -f : f;
        }
    } else if (exp == 31) {
        bits = sign | 0x7f800000u | (man << 13);
    } else {
        bits = sign | ((exp + 112) << 23) | (man << 13);
    }
    float f;
    memcpy(&f, &bits, 4);
    return f;
}

static inline uint16_t rb_float_to_half(float f)
{
    uint32_t x;
    memcpy(&x, &f, 4);
    uint16_t sign = (uint16_t)((x >> 16) & 0x8000u);
    uint32_t ax = x & 0x7fffffffu;
    if (ax >= 0x7f800000u) /* inf or nan */
        return sign | 0x7c00u | (ax > 0x7f800000u ? 0x200u : 0);
    if (ax >= 0x477ff000u) /* rounds to >= 65520: overflow to inf */
        return sign | 0x7c00u;
    if (ax < 0x38800000u) { /* below the smallest normal half: subnormal or zero */
        float a;
        memcpy(&a, &ax, 4);
        return sign | (uint16_t)lrintf(a * 16777216.0f); /* units of 2^-24, nearest even */
    }
    uint32_t e = (ax >> 23) - 112, m = ax & 0x7fffffu;
    uint32_t h = (e << 10) | (m >> 13);
    uint32_t rest = m & 0x1fffu;
    if (rest > 0x1000u || (rest == 0x1000u && (h & 1u)))
        h++; /* a carry into the exponent is the correct rounding */
    return sign | (uint16_t)h;
}

static inline float rb_bf16_to_float(uint16_t h)
{
    uint32_t bits = (uint32_t)h << 16;
    float f;
    memcpy(&f, &bits, 4);
    return f;
}

static inline uint16_t rb_float_to_bf16(float f)
{
    uint32_t x;
    memcpy(&x, &f, 4);
    if ((x & 0x7fffffffu) > 0x7f800000u)
        return (uint16_t)((x >> 16) | 0x40u); /* quiet nan */
    x += 0x7fffu + ((x >> 16) & 1u);
    return (uint16_t)(x >> 16);
}

static inline size_t rb_dt_size(rocblas_datatype t)
{
    switch (t) {
    case rocblas_datatype_f16_r:
    case rocblas_datatype_bf16_r:
        return 2;
    case rocblas_datatype_f32_r:
        return 4;
    case rocblas_datatype_f64_r:
    case rocblas_datatype_f32_c:
        return 8;
    case rocblas_datatype_f64_c:
        return 16;
    default:
        return 0;
    }
}

static inline float rb_load_f32(const void *p, rocblas_datatype t, int64_t i)
{
    if (t == rocblas_datatype_f16_r)
        return rb_half_to_float(((const uint16_t *)p)[i]);
    if (t == rocblas_datatype_bf16_r)
        return rb_bf16_to_float(((const uint16_t *)p)[i]);
    return ((const float *)p)[i];
}

static inline void rb_store_f32(void *p, rocblas_datatype t, int64_t i, float v)
{
    if (t == rocblas_datatype_f16_r)
        ((uint16_t *)p)[i] = rb_float_to_half(v);
    else if (t == rocblas_datatype_bf16_r)
        ((uint16_t *)p)[i] = rb_float_to_bf16(v);
    else
        ((float *)p)[i] = v;
}

/* rows x cols block at src (leading dimension ld, type t) -> dense f32 (leading dim rows) */
static inline void rb_widen(const void *src, rocblas_datatype t, int64_t ld, int64_t rows,
                     int64_t cols, float *dst)
{
    for (int64_t j = 0; j < cols; j++)
        for (int64_t i = 0; i < rows; i++)
            dst[i + j * rows] = rb_load_f32(src, t, i + j * ld);
}

enum rb_form { RB_FORM_P, RB_FORM_B, RB_FORM_S };

static inline const void *rb_inst(const void *p, enum rb_form f, int64_t b, int64_t stride, size_t es)
{
    if (f == RB_FORM_B)
        return ((const void *const *)p)[b];
    if (f == RB_FORM_S)
        return (const char *)p + (size_t)(b * stride) * es;
    return p;
}

#endif
