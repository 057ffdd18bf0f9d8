/* Host conversions of the 16- and 8-bit floating types NCCL reduces (IEEE half, bfloat16,
 * OCP FP8 E4M3/E5M2), round-to-nearest-even. FP8 saturates to the largest finite value as
 * cuda_fp8.h's __nv_fp8_e4m3/__nv_fp8_e5m2 constructors do (__NV_SATFINITE). */
#ifndef PYSHIM_CPU_RCCL_MINIFLOAT_H
#define PYSHIM_CPU_RCCL_MINIFLOAT_H

#include <math.h>
#include <stdint.h>
#include <string.h>

static inline float mf_decode(uint32_t v, int ebits, int mbits, int bias, int has_inf)
{
    uint32_t sign = v >> (ebits + mbits), e = (v >> mbits) & ((1u << ebits) - 1u);
    uint32_t m = v & ((1u << mbits) - 1u);
    float r;
    if (e == (1u << ebits) - 1u && has_inf)
        r = m ? NAN : INFINITY;
    else if (e == (1u << ebits) - 1u && m == (1u << mbits) - 1u && !has_inf)
        r = NAN;   /* E4M3: S.1111.111 is the only NaN, the other top-exponent codes are finite */
    else if (e == 0)
        r = ldexpf((float)m, 1 - bias - mbits);
    else
        r = ldexpf((float)(m | (1u << mbits)), (int)e - bias - mbits);
    return sign ? -r : r;
}

/* `maxfin`: the largest finite magnitude's code (sign excluded); `nan`: the NaN code */
static inline uint32_t mf_encode(float f, int ebits, int mbits, int bias, int has_inf,
                                 uint32_t maxfin, uint32_t nan, int saturate)
{
    uint32_t sign = signbit(f) ? 1u << (ebits + mbits) : 0u;
    if (isnan(f))
        return nan;
    float a = fabsf(f);
    float maxv = mf_decode(maxfin, ebits, mbits, bias, has_inf);
    if (a == 0.0f)
        return sign;
    int e;
    frexpf(a, &e);                       /* a = x * 2^e, x in [0.5, 1) */
    int exp = e - 1;                     /* a in [2^exp, 2^(exp+1)) */
    int min_exp = 1 - bias;
    int scale = (exp < min_exp ? min_exp : exp) - mbits;
    float q = ldexpf(a, -scale);         /* the mantissa at this exponent, to round */
    float r = nearbyintf(q);             /* the default rounding mode: to nearest even */
    float val = ldexpf(r, scale);
    if (val > maxv || isinf(a))
        return saturate ? (sign | maxfin) : (sign | (((1u << ebits) - 1u) << mbits));
    uint32_t ri = (uint32_t)r;
    if (scale == min_exp - mbits && ri < (1u << mbits))
        return sign | ri;                /* subnormal */
    int ee = scale + mbits;
    if (ri >= (2u << mbits)) {           /* rounded up to the next binade */
        ri >>= 1;
        ee++;
    }
    return sign | ((uint32_t)(ee + bias) << mbits) | (ri & ((1u << mbits) - 1u));
}

static inline float half_to_float(uint16_t h) { return mf_decode(h, 5, 10, 15, 1); }
static inline uint16_t float_to_half(float f)
{
    /* IEEE half overflows to infinity (no saturation) */
    return (uint16_t)mf_encode(f, 5, 10, 15, 1, 0x7bffu, 0x7e00u, 0);
}

static inline float bf16_to_float(uint16_t b)
{
    uint32_t u = (uint32_t)b << 16;
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

static inline uint16_t float_to_bf16(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    if (isnan(f))
        return (uint16_t)((u >> 16) | 0x40u);
    u += 0x7fffu + ((u >> 16) & 1u);
    return (uint16_t)(u >> 16);
}

static inline float e4m3_to_float(uint8_t v) { return mf_decode(v, 4, 3, 7, 0); }
static inline uint8_t float_to_e4m3(float f)
{
    return (uint8_t)mf_encode(f, 4, 3, 7, 0, 0x7eu, 0x7fu, 1);
}
static inline float e5m2_to_float(uint8_t v) { return mf_decode(v, 5, 2, 15, 1); }
static inline uint8_t float_to_e5m2(float f)
{
    return (uint8_t)mf_encode(f, 5, 2, 15, 1, 0x7bu, 0x7fu, 1);
}

#endif
