/*
 * Element-wise reductions of every ncclDataType_t: n elements at offset `off` of each
 * source, combined in rank order, written to every destination. Low-precision types are
 * combined in float and rounded back to their type after each step, as a ring of NCCL
 * kernels rounds at each hop; integers wrap. ncclAvg is NCCL's: floating types multiply
 * each input by 1/nranks (rounded to the type) and sum, integers sum and divide.
 */
#include <stddef.h>
#include <stdint.h>

#include "minifloat.h"
#include "rccl_abi.h"
#include "reduce.h"

#define CHUNK 512

#define S_LD(x) ((int64_t)(x))
#define S_ADD(a, b) ((int64_t)((uint64_t)(a) + (uint64_t)(b)))
#define S_MUL(a, b) ((int64_t)((uint64_t)(a) * (uint64_t)(b)))
#define U_LD(x) ((uint64_t)(x))
#define U_ADD(a, b) ((a) + (b))
#define U_MUL(a, b) ((a) * (b))
#define F_LD(x) (x)
#define F_ADD(a, b) ((a) + (b))
#define F_MUL(a, b) ((a) * (b))

/* acc[j] = EXPR of x (acc[j]) and v (source k's element, scaled when PreMulSum/avg asks) */
#define COMBINE(ACC, LD, ST, MUL, EXPR)                                                     \
    for (size_t j = 0; j < m; j++) {                                                        \
        ACC x = acc[j], v = scale ? LD(ST(MUL(LD(s[j]), f))) : LD(s[j]);                    \
        acc[j] = LD(ST(EXPR));                                                              \
    }

#define DEFINE(NAME, T, ACC, LD, ST, ADD, MUL, IS_FLOAT)                                   \
    static void NAME(int op, const rc_reduce_args *a)                                       \
    {                                                                                       \
        ACC acc[CHUNK], sc[RC_REDUCE_MAX_SRC];                                              \
        int mode = a->scalars != NULL ? 1 : op == RC_OP_AVG ? (IS_FLOAT ? 2 : 3) : 0;       \
        for (int k = 0; k < a->nsrc; k++)                                                   \
            sc[k] = mode == 1 ? LD(*(const T *)a->scalars[k])                               \
                  : mode == 2 ? LD(ST((ACC)1 / (ACC)a->navg)) : (ACC)1;                     \
        if (mode == 1 || mode == 2)                                                         \
            op = RC_OP_SUM;                                                                 \
        if (mode == 3)                                                                      \
            op = RC_OP_SUM;                                                                 \
        for (size_t b = 0; b < a->n; b += CHUNK) {                                          \
            size_t m = a->n - b < CHUNK ? a->n - b : CHUNK;                                 \
            for (int k = 0; k < a->nsrc; k++) {                                             \
                const T *s = (const T *)a->srcs[k] + a->off + b;                            \
                ACC f = sc[k];                                                              \
                bool scale = mode == 1 || mode == 2;                                        \
                if (k == 0) {                                                               \
                    for (size_t j = 0; j < m; j++)                                          \
                        acc[j] = scale ? LD(ST(MUL(LD(s[j]), f))) : LD(s[j]);               \
                    continue;                                                               \
                }                                                                           \
                /* one loop per op: the switch stays out of the element loop */             \
                switch (op) {                                                               \
                case RC_OP_PROD: COMBINE(ACC, LD, ST, MUL, MUL(x, v)); break;               \
                case RC_OP_MAX: COMBINE(ACC, LD, ST, MUL, v > x ? v : x); break;            \
                case RC_OP_MIN: COMBINE(ACC, LD, ST, MUL, v < x ? v : x); break;            \
                default: COMBINE(ACC, LD, ST, MUL, ADD(x, v)); break;                       \
                }                                                                           \
            }                                                                               \
            if (mode == 3)                                                                  \
                for (size_t j = 0; j < m; j++)                                              \
                    acc[j] = LD(ST(acc[j])) / (ACC)a->navg;                                 \
            for (int d = 0; d < a->ndst; d++) {                                             \
                T *o = (T *)a->dsts[d] + a->off + b;                                        \
                for (size_t j = 0; j < m; j++)                                              \
                    o[j] = ST(acc[j]);                                                      \
            }                                                                               \
        }                                                                                   \
    }

#define ST_I8(x) ((int8_t)(x))
#define ST_U8(x) ((uint8_t)(x))
#define ST_I32(x) ((int32_t)(x))
#define ST_U32(x) ((uint32_t)(x))
#define ST_I64(x) ((int64_t)(x))
#define ST_U64(x) ((uint64_t)(x))
#define ST_F(x) ((float)(x))
#define ST_D(x) ((double)(x))

DEFINE(red_i8, int8_t, int64_t, S_LD, ST_I8, S_ADD, S_MUL, 0)
DEFINE(red_u8, uint8_t, uint64_t, U_LD, ST_U8, U_ADD, U_MUL, 0)
DEFINE(red_i32, int32_t, int64_t, S_LD, ST_I32, S_ADD, S_MUL, 0)
DEFINE(red_u32, uint32_t, uint64_t, U_LD, ST_U32, U_ADD, U_MUL, 0)
DEFINE(red_i64, int64_t, int64_t, S_LD, ST_I64, S_ADD, S_MUL, 0)
DEFINE(red_u64, uint64_t, uint64_t, U_LD, ST_U64, U_ADD, U_MUL, 0)
DEFINE(red_f32, float, float, F_LD, ST_F, F_ADD, F_MUL, 1)
DEFINE(red_f64, double, double, F_LD, ST_D, F_ADD, F_MUL, 1)
DEFINE(red_f16, uint16_t, float, half_to_float, float_to_half, F_ADD, F_MUL, 1)
DEFINE(red_bf16, uint16_t, float, bf16_to_float, float_to_bf16, F_ADD, F_MUL, 1)
DEFINE(red_e4m3, uint8_t, float, e4m3_to_float, float_to_e4m3, F_ADD, F_MUL, 1)
DEFINE(red_e5m2, uint8_t, float, e5m2_to_float, float_to_e5m2, F_ADD, F_MUL, 1)

/* Two sources, one destination, in the element's own type: one pass instead of rc_reduce's
 * three through its accumulator (a ring step reduces every received segment this way, so
 * it runs at memory speed as gloo's own gloo::sum does). W is the type the arithmetic wraps
 * in (the unsigned type of the width: ST_* of rc_reduce's 64-bit result keeps the same low
 * bits); comparisons are of the values, as rc_reduce's of the widened ones. */
#define DEFINE2(NAME, T, W)                                                                 \
    static void NAME(int op, T *c, const T *a, const T *b, size_t n)                        \
    {                                                                                       \
        switch (op) {                                                                       \
        case RC_OP_PROD:                                                                    \
            for (size_t i = 0; i < n; i++)                                                  \
                c[i] = (T)((W)a[i] * (W)b[i]);                                              \
            break;                                                                          \
        case RC_OP_MAX:                                                                     \
            for (size_t i = 0; i < n; i++)                                                  \
                c[i] = b[i] > a[i] ? b[i] : a[i];                                           \
            break;                                                                          \
        case RC_OP_MIN:                                                                     \
            for (size_t i = 0; i < n; i++)                                                  \
                c[i] = b[i] < a[i] ? b[i] : a[i];                                           \
            break;                                                                          \
        default:                                                                            \
            for (size_t i = 0; i < n; i++)                                                  \
                c[i] = (T)((W)a[i] + (W)b[i]);                                              \
            break;                                                                          \
        }                                                                                   \
    }

/* uint8_t operands promote to int, whose product of two bytes cannot overflow */
DEFINE2(red2_i8, int8_t, uint8_t)
DEFINE2(red2_u8, uint8_t, uint8_t)
DEFINE2(red2_i32, int32_t, uint32_t)
DEFINE2(red2_u32, uint32_t, uint32_t)
DEFINE2(red2_i64, int64_t, uint64_t)
DEFINE2(red2_u64, uint64_t, uint64_t)
DEFINE2(red2_f32, float, float)
DEFINE2(red2_f64, double, double)

void rc_reduce2(int type, int op, void *c, const void *a, const void *b, size_t n)
{
    switch (type) {
    case ncclInt8: red2_i8(op, c, a, b, n); return;
    case ncclUint8: red2_u8(op, c, a, b, n); return;
    case ncclInt32: red2_i32(op, c, a, b, n); return;
    case ncclUint32: red2_u32(op, c, a, b, n); return;
    case ncclInt64: red2_i64(op, c, a, b, n); return;
    case ncclUint64: red2_u64(op, c, a, b, n); return;
    case ncclFloat32: red2_f32(op, c, a, b, n); return;
    case ncclFloat64: red2_f64(op, c, a, b, n); return;
    default: {   /* half, bfloat16, FP8: combined in float and rounded back */
        void *dst[1] = {c};
        const void *src[2] = {a, b};
        rc_reduce_args ra = {dst, 1, src, 2, 0, n, NULL, 2};
        rc_reduce(type, op, &ra);
    }
    }
}

void rc_reduce(int type, int op, const rc_reduce_args *a)
{
    static void (*const fns[])(int, const rc_reduce_args *) = {
        red_i8, red_u8, red_i32, red_u32, red_i64, red_u64, red_f16, red_f32, red_f64,
        red_bf16, red_e4m3, red_e5m2,
    };
    fns[type](op, a);
}
