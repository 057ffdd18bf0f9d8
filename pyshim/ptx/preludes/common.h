/* pyshim PTX prelude, shared by every target: exact-semantics helpers for PTX instructions
 * whose C equivalent is undefined or different (shifts past the width, division by zero,
 * float->int saturation, NaN rules, f16/bf16 rounding). Written in the common subset of C11
 * and HIP/CUDA C++; the target prelude defines PS_FN, the math macros and bool. */

/* ---- f32 .approx / .full forms: computed exactly (within every approximation's bounds)
 * unless the target prelude maps them to the instruction (cuda.h: the differential check
 * then compiles what nvcc would) ---- */
#ifndef PS_RCP_APPROXF
#define PS_RCP_APPROXF(x) (1.0f / (x))
#define PS_RSQRT_APPROXF(x) (1.0f / PS_SQRTF(x))
#define PS_SQRT_APPROXF(x) PS_SQRTF(x)
#define PS_DIV_APPROXF(a, b) ((a) / (b))
#define PS_DIV_FULLF(a, b) ((a) / (b))
#endif

/* ---- bit casts ---- */
PS_FN float ps_u2f(uint32_t u) { float f; __builtin_memcpy(&f, &u, 4); return f; }
PS_FN uint32_t ps_f2u(float f) { uint32_t u; __builtin_memcpy(&u, &f, 4); return u; }
PS_FN double ps_u2d(uint64_t u) { double f; __builtin_memcpy(&f, &u, 8); return f; }
PS_FN uint64_t ps_d2u(double f) { uint64_t u; __builtin_memcpy(&u, &f, 8); return u; }

/* ---- shifts: PTX clamps the amount; C leaves >= width undefined ---- */
PS_FN uint32_t ps_shl32(uint32_t a, uint32_t b) { return b > 31 ? 0 : a << b; }
PS_FN uint64_t ps_shl64(uint64_t a, uint32_t b) { return b > 63 ? 0 : a << b; }
PS_FN uint16_t ps_shl16(uint16_t a, uint32_t b) { return b > 15 ? 0 : (uint16_t)(a << b); }
PS_FN uint32_t ps_shr_u32(uint32_t a, uint32_t b) { return b > 31 ? 0 : a >> b; }
PS_FN uint64_t ps_shr_u64(uint64_t a, uint32_t b) { return b > 63 ? 0 : a >> b; }
PS_FN uint16_t ps_shr_u16(uint16_t a, uint32_t b) { return b > 15 ? 0 : (uint16_t)(a >> b); }
PS_FN int32_t ps_shr_s32(int32_t a, uint32_t b) { return a >> (b > 31 ? 31 : b); }
PS_FN int64_t ps_shr_s64(int64_t a, uint32_t b) { return a >> (b > 63 ? 63 : b); }
PS_FN int16_t ps_shr_s16(int16_t a, uint32_t b) { return (int16_t)(a >> (b > 15 ? 15 : b)); }

/* ---- division: x86 traps on /0 and INT_MIN/-1; PTX gives a value ---- */
PS_FN uint32_t ps_div_u32(uint32_t a, uint32_t b) { return b ? a / b : 0xffffffffu; }
PS_FN uint64_t ps_div_u64(uint64_t a, uint64_t b) { return b ? a / b : ~(uint64_t)0; }
PS_FN int32_t ps_div_s32(int32_t a, int32_t b) {
    if (!b) return a >= 0 ? -1 : 1;
    if (b == -1) return (int32_t)(0u - (uint32_t)a);
    return a / b;
}
PS_FN int64_t ps_div_s64(int64_t a, int64_t b) {
    if (!b) return a >= 0 ? -1 : 1;
    if (b == -1) return (int64_t)(0ull - (uint64_t)a);
    return a / b;
}
PS_FN uint32_t ps_rem_u32(uint32_t a, uint32_t b) { return b ? a % b : a; }
PS_FN uint64_t ps_rem_u64(uint64_t a, uint64_t b) { return b ? a % b : a; }
PS_FN int32_t ps_rem_s32(int32_t a, int32_t b) { return (!b) ? a : (b == -1 ? 0 : a % b); }
PS_FN int64_t ps_rem_s64(int64_t a, int64_t b) { return (!b) ? a : (b == -1 ? 0 : a % b); }

/* ---- high halves of products ---- */
PS_FN uint32_t ps_mulhi_u32(uint32_t a, uint32_t b) { return (uint32_t)(((uint64_t)a * b) >> 32); }
PS_FN int32_t ps_mulhi_s32(int32_t a, int32_t b) { return (int32_t)(((int64_t)a * b) >> 32); }
PS_FN uint64_t ps_mulhi_u64(uint64_t a, uint64_t b) {
    return (uint64_t)(((unsigned __int128)a * b) >> 64);
}
PS_FN int64_t ps_mulhi_s64(int64_t a, int64_t b) { return (int64_t)(((__int128)a * b) >> 64); }
PS_FN uint16_t ps_mulhi_u16(uint16_t a, uint16_t b) { return (uint16_t)(((uint32_t)a * b) >> 16); }
PS_FN int16_t ps_mulhi_s16(int16_t a, int16_t b) { return (int16_t)(((int32_t)a * b) >> 16); }
PS_FN int32_t ps_sext24(uint32_t a) { return (int32_t)(a << 8) >> 8; }
PS_FN uint32_t ps_mul24hi_u32(uint32_t a, uint32_t b) {
    return (uint32_t)(((uint64_t)(a & 0xffffff) * (b & 0xffffff)) >> 16);
}
PS_FN int32_t ps_mul24hi_s32(int32_t a, int32_t b) {
    return (int32_t)(((int64_t)ps_sext24((uint32_t)a) * ps_sext24((uint32_t)b)) >> 16);
}

/* ---- saturating integer add/sub (s32 only in PTX) ---- */
PS_FN int32_t ps_sat_s64_to_s32(int64_t v) {
    return v > 2147483647LL ? 2147483647 : (v < -2147483648LL ? (int32_t)0x80000000u : (int32_t)v);
}

/* ---- bit manipulation ---- */
PS_FN uint32_t ps_popc32(uint32_t a) { return (uint32_t)__builtin_popcount(a); }
PS_FN uint32_t ps_popc64(uint64_t a) { return (uint32_t)__builtin_popcountll(a); }
PS_FN uint32_t ps_clz32(uint32_t a) { return a ? (uint32_t)__builtin_clz(a) : 32u; }
PS_FN uint32_t ps_clz64(uint64_t a) { return a ? (uint32_t)__builtin_clzll(a) : 64u; }
PS_FN uint32_t ps_brev32(uint32_t a) {
    a = ((a >> 1) & 0x55555555u) | ((a & 0x55555555u) << 1);
    a = ((a >> 2) & 0x33333333u) | ((a & 0x33333333u) << 2);
    a = ((a >> 4) & 0x0f0f0f0fu) | ((a & 0x0f0f0f0fu) << 4);
    a = ((a >> 8) & 0x00ff00ffu) | ((a & 0x00ff00ffu) << 8);
    return (a >> 16) | (a << 16);
}
PS_FN uint64_t ps_brev64(uint64_t a) {
    return ((uint64_t)ps_brev32((uint32_t)a) << 32) | ps_brev32((uint32_t)(a >> 32));
}
/* bfind: position of the most significant non-sign bit, 0xffffffff if none */
PS_FN uint32_t ps_bfind_u32(uint32_t a) { return a ? 31u - (uint32_t)__builtin_clz(a) : 0xffffffffu; }
PS_FN uint32_t ps_bfind_u64(uint64_t a) { return a ? 63u - (uint32_t)__builtin_clzll(a) : 0xffffffffu; }
PS_FN uint32_t ps_bfind_s32(int32_t a) { return ps_bfind_u32(a < 0 ? ~(uint32_t)a : (uint32_t)a); }
PS_FN uint32_t ps_bfind_s64(int64_t a) { return ps_bfind_u64(a < 0 ? ~(uint64_t)a : (uint64_t)a); }
PS_FN uint32_t ps_bfe_u32(uint32_t a, uint32_t pos, uint32_t len) {
    pos &= 0xff; len &= 0xff;
    if (len == 0 || pos >= 32) return 0;
    uint32_t v = a >> pos;
    return len >= 32 ? v : v & ((1u << len) - 1u);
}
PS_FN int32_t ps_bfe_s32(int32_t a, uint32_t pos, uint32_t len) {
    pos &= 0xff; len &= 0xff;
    if (len == 0) return 0;
    uint32_t sbit = pos + len - 1 > 31 ? 31 : pos + len - 1;
    int sign = ((uint32_t)a >> sbit) & 1u;
    if (pos >= 32) return sign ? -1 : 0;
    uint32_t v = (uint32_t)a >> pos;
    if (pos + len >= 32 || len >= 32) return (int32_t)(sign ? (v | ~(0xffffffffu >> pos)) : v);
    uint32_t m = (1u << len) - 1u;
    return (int32_t)(sign ? (v | ~m) : (v & m));
}
PS_FN uint64_t ps_bfe_u64(uint64_t a, uint32_t pos, uint32_t len) {
    pos &= 0xff; len &= 0xff;
    if (len == 0 || pos >= 64) return 0;
    uint64_t v = a >> pos;
    return len >= 64 ? v : v & ((1ull << len) - 1ull);
}
PS_FN int64_t ps_bfe_s64(int64_t a, uint32_t pos, uint32_t len) {
    pos &= 0xff; len &= 0xff;
    if (len == 0) return 0;
    uint32_t sbit = pos + len - 1 > 63 ? 63 : pos + len - 1;
    int sign = ((uint64_t)a >> sbit) & 1u;
    if (pos >= 64) return sign ? -1 : 0;
    uint64_t v = (uint64_t)a >> pos;
    if (pos + len >= 64 || len >= 64) return (int64_t)(sign ? (v | ~(~0ull >> pos)) : v);
    uint64_t m = (1ull << len) - 1ull;
    return (int64_t)(sign ? (v | ~m) : (v & m));
}
PS_FN uint32_t ps_bfi_u32(uint32_t a, uint32_t b, uint32_t pos, uint32_t len) {
    pos &= 0xff; len &= 0xff;
    if (len == 0 || pos >= 32) return b;
    uint32_t m = (len >= 32 ? 0xffffffffu : ((1u << len) - 1u)) << pos;
    return (b & ~m) | ((a << pos) & m);
}
PS_FN uint64_t ps_bfi_u64(uint64_t a, uint64_t b, uint32_t pos, uint32_t len) {
    pos &= 0xff; len &= 0xff;
    if (len == 0 || pos >= 64) return b;
    uint64_t m = (len >= 64 ? ~0ull : ((1ull << len) - 1ull)) << pos;
    return (b & ~m) | ((a << pos) & m);
}
PS_FN uint32_t ps_prmt(uint32_t a, uint32_t b, uint32_t c) {
    uint64_t x = ((uint64_t)b << 32) | a;
    uint32_t d = 0;
    for (int i = 0; i < 4; i++) {
        uint32_t sel = (c >> (4 * i)) & 0xf;
        uint32_t byte = (uint32_t)(x >> (8 * (sel & 7))) & 0xff;
        if (sel & 8) byte = (byte & 0x80) ? 0xff : 0;
        d |= byte << (8 * i);
    }
    return d;
}
PS_FN uint32_t ps_shf_l(uint32_t a, uint32_t b, uint32_t n, int clamp) {
    n = clamp ? (n > 32 ? 32 : n) : (n & 31);
    uint64_t x = ((uint64_t)b << 32) | a;
    return (uint32_t)((x << n) >> 32);
}
PS_FN uint32_t ps_shf_r(uint32_t a, uint32_t b, uint32_t n, int clamp) {
    n = clamp ? (n > 32 ? 32 : n) : (n & 31);
    uint64_t x = ((uint64_t)b << 32) | a;
    return (uint32_t)(x >> n);
}
PS_FN int32_t ps_dp4a(uint32_t a, uint32_t b, int32_t c, int as, int bs) {
    int32_t acc = c;
    for (int i = 0; i < 4; i++) {
        int32_t x = as ? (int8_t)(a >> (8 * i)) : (int32_t)((a >> (8 * i)) & 0xff);
        int32_t y = bs ? (int8_t)(b >> (8 * i)) : (int32_t)((b >> (8 * i)) & 0xff);
        acc = (int32_t)((uint32_t)acc + (uint32_t)(x * y));
    }
    return acc;
}
PS_FN int32_t ps_dp2a(uint32_t a, uint32_t b, int32_t c, int as, int bs, int hi) {
    int32_t acc = c;
    for (int i = 0; i < 2; i++) {
        int32_t x = as ? (int16_t)(a >> (16 * i)) : (int32_t)((a >> (16 * i)) & 0xffff);
        uint32_t bb = (b >> (16 * hi + 8 * i)) & 0xff;
        int32_t y = bs ? (int8_t)bb : (int32_t)bb;
        acc = (int32_t)((uint32_t)acc + (uint32_t)(x * y));
    }
    return acc;
}

/* ---- floating point ---- */
PS_FN float ps_ftz(float x) { return (ps_f2u(x) & 0x7f800000u) == 0 ? ps_u2f(ps_f2u(x) & 0x80000000u) : x; }
PS_FN float ps_satf(float x) { return x != x ? 0.0f : (x < 0.0f ? 0.0f : (x > 1.0f ? 1.0f : x)); }
PS_FN double ps_satd(double x) { return x != x ? 0.0 : (x < 0.0 ? 0.0 : (x > 1.0 ? 1.0 : x)); }
PS_FN int ps_isnanf(float x) { return x != x; }
PS_FN int ps_isnand(double x) { return x != x; }
/* min/max: a NaN operand yields the other; -0 < +0 */
PS_FN float ps_minf(float a, float b) {
    if (a != a) return b != b ? ps_u2f(0x7fffffffu) : b;
    if (b != b) return a;
    if (a == b) return ps_u2f(ps_f2u(a) | ps_f2u(b));
    return a < b ? a : b;
}
PS_FN float ps_maxf(float a, float b) {
    if (a != a) return b != b ? ps_u2f(0x7fffffffu) : b;
    if (b != b) return a;
    if (a == b) return ps_u2f(ps_f2u(a) & ps_f2u(b));
    return a > b ? a : b;
}
PS_FN float ps_minf_nan(float a, float b) { return (a != a || b != b) ? ps_u2f(0x7fffffffu) : ps_minf(a, b); }
PS_FN float ps_maxf_nan(float a, float b) { return (a != a || b != b) ? ps_u2f(0x7fffffffu) : ps_maxf(a, b); }
PS_FN double ps_mind(double a, double b) {
    if (a != a) return b != b ? ps_u2d(0x7fffffffffffffffull) : b;
    if (b != b) return a;
    if (a == b) return ps_u2d(ps_d2u(a) | ps_d2u(b));
    return a < b ? a : b;
}
PS_FN double ps_maxd(double a, double b) {
    if (a != a) return b != b ? ps_u2d(0x7fffffffffffffffull) : b;
    if (b != b) return a;
    if (a == b) return ps_u2d(ps_d2u(a) & ps_d2u(b));
    return a > b ? a : b;
}
PS_FN int ps_testp_normal_f(float x) { uint32_t e = (ps_f2u(x) >> 23) & 0xff; return e != 0 && e != 0xff; }
PS_FN int ps_testp_sub_f(float x) { uint32_t u = ps_f2u(x); return ((u >> 23) & 0xff) == 0 && (u & 0x7fffff); }
PS_FN int ps_testp_normal_d(double x) { uint64_t e = (ps_d2u(x) >> 52) & 0x7ff; return e != 0 && e != 0x7ff; }
PS_FN int ps_testp_sub_d(double x) { uint64_t u = ps_d2u(x); return ((u >> 52) & 0x7ff) == 0 && (u & 0xfffffffffffffull); }
PS_FN int ps_isinff(float x) { return (ps_f2u(x) & 0x7fffffffu) == 0x7f800000u; }
PS_FN int ps_isinfd(double x) { return (ps_d2u(x) & 0x7fffffffffffffffull) == 0x7ff0000000000000ull; }

/* float -> integer: PTX saturates and maps NaN to 0 */
#define PS_F2I(name, T, lo, hi)                                              \
    PS_FN T name(double x) {                                                 \
        if (x != x) return 0;                                                \
        if (x <= (double)(lo)) return (T)(lo);                               \
        if (x >= (double)(hi)) return (T)(hi);                               \
        return (T)x;                                                         \
    }
PS_F2I(ps_d2s8, int8_t, -128, 127)
PS_F2I(ps_d2u8, uint8_t, 0, 255)
PS_F2I(ps_d2s16, int16_t, -32768, 32767)
PS_F2I(ps_d2u16, uint16_t, 0, 65535)
PS_F2I(ps_d2s32, int32_t, -2147483648.0, 2147483647)
PS_F2I(ps_d2u32, uint32_t, 0, 4294967295.0)
PS_FN int64_t ps_d2s64(double x) {
    if (x != x) return 0;
    if (x <= -9223372036854775808.0) return (int64_t)0x8000000000000000ull;
    if (x >= 9223372036854775808.0) return 0x7fffffffffffffffll;
    return (int64_t)x;
}
PS_FN uint64_t ps_d2u64(double x) {
    if (x != x || x <= 0.0) return 0;
    if (x >= 18446744073709551616.0) return ~0ull;
    return (uint64_t)x;
}

/* f64 -> f32 with a directed rounding (1 rz, 2 rm, 3 rp): round to nearest, then step one
 * ulp if that went the wrong way */
PS_FN float ps_d2f_dir(double x, int mode) {
    float r = (float)x;
    if (x != x || (double)r == x) return r;
    int rounded_up = (double)r > x;
    int want_up = mode == 3 || (mode == 1 && x < 0);
    if (rounded_up == want_up) return r;
    uint32_t u = ps_f2u(r);
    if (want_up) {
        if (r == 0.0f) u = 1u; else if (r > 0.0f) u += 1u; else u -= 1u;
    } else {
        if (r == 0.0f) u = 0x80000001u; else if (r > 0.0f) u -= 1u; else u += 1u;
    }
    return ps_u2f(u);
}

/* ---- f16 / bf16 (stored as their bits) ---- */
PS_FN float ps_h2f(uint16_t h) {
    uint32_t s = (uint32_t)(h & 0x8000) << 16, e = (h >> 10) & 0x1f, m = h & 0x3ff;
    if (e == 0x1f) return ps_u2f(s | 0x7f800000u | (m << 13));
    if (e == 0) {
        if (!m) return ps_u2f(s);
        float f = (float)m * (1.0f / 16777216.0f);
        return s ? -f : f;
    }
    return ps_u2f(s | ((e + 112) << 23) | (m << 13));
}
/* round a float to f16: mode 0 nearest-even, 1 rz, 2 rm, 3 rp */
PS_FN uint16_t ps_f2h_mode(float f, int mode) {
    uint32_t u = ps_f2u(f), s = (u >> 16) & 0x8000, a = u & 0x7fffffffu;
    if (a > 0x7f800000u) return 0x7fff;  /* NaN -> the canonical NaN */
    int neg = s != 0;
    int away = (mode == 2 && neg) || (mode == 3 && !neg);
    if (a == 0x7f800000u) return (uint16_t)(s | 0x7c00);
    if (a >= 0x47800000u)  /* >= 2^16: beyond the largest finite f16 */
        return (uint16_t)(s | ((mode == 0 || away) ? 0x7c00 : 0x7bff));
    if (a == 0) return (uint16_t)s;
    int e = (int)(a >> 23);
    uint32_t mant = e ? ((a & 0x7fffffu) | 0x800000u) : (a & 0x7fffffu);
    if (!e) e = 1;
    int normal = e - 127 >= -14;
    int shift = normal ? 13 : 13 + (-14 - (e - 127));
    uint32_t q, rem, half;
    if (shift > 30) { q = 0; rem = mant; half = 1u << 30; }
    else { q = mant >> shift; rem = mant & ((1u << shift) - 1u); half = 1u << (shift - 1); }
    uint32_t r = normal ? (((uint32_t)(e - 113) << 10) + q) : q;
    if (rem) {
        if (mode == 0) { if (rem > half || (rem == half && (r & 1))) r++; }
        else if (away) r++;
    }
    return (uint16_t)(s | r);
}
PS_FN uint16_t ps_f2h(float f) { return ps_f2h_mode(f, 0); }
PS_FN float ps_bf2f(uint16_t h) { return ps_u2f((uint32_t)h << 16); }
PS_FN uint16_t ps_f2bf_mode(float f, int mode) {
    uint32_t u = ps_f2u(f);
    if ((u & 0x7fffffffu) > 0x7f800000u) return 0x7fff;  /* canonical NaN */
    uint32_t rem = u & 0xffff, r = u >> 16;
    int neg = (u >> 31) != 0;
    if (rem) {
        if (mode == 0) { if (rem > 0x8000 || (rem == 0x8000 && (r & 1))) r++; }
        else if ((mode == 2 && neg) || (mode == 3 && !neg)) r++;
    }
    return (uint16_t)r;
}
PS_FN uint16_t ps_f2bf(float f) { return ps_f2bf_mode(f, 0); }
/* f64 -> f16 without double rounding: go through f32 rounded to odd */
PS_FN float ps_d2f_odd(double x) {
    float r = ps_d2f_dir(x, 1);
    if ((double)r != x && x == x && !ps_isinfd(x)) r = ps_u2f(ps_f2u(r) | 1u);
    return r;
}
PS_FN uint16_t ps_d2h_mode(double x, int mode) { return ps_f2h_mode(ps_d2f_odd(x), mode); }
PS_FN uint16_t ps_d2bf_mode(double x, int mode) { return ps_f2bf_mode(ps_d2f_odd(x), mode); }
PS_FN uint32_t ps_pack2(uint16_t lo, uint16_t hi) { return (uint32_t)lo | ((uint32_t)hi << 16); }
/* .relu on an f16 / a bf16 result: negative values become +0 (a NaN stays a NaN) */
PS_FN uint16_t ps_relu_h(uint16_t h) { return ((h & 0x7fff) > 0x7c00) ? h : ((h & 0x8000) ? 0 : h); }
PS_FN uint16_t ps_relu_bf(uint16_t h) { return ((h & 0x7fff) > 0x7f80) ? h : ((h & 0x8000) ? 0 : h); }
PS_FN int32_t ps_relu_s32(int32_t v) { return v < 0 ? 0 : v; }
/* .satfinite on a rounded f16 / bf16 result: an infinity (an overflow, or an infinite input)
 * becomes the largest finite value of its sign (MAX_NORM); a NaN stays a NaN */
PS_FN uint16_t ps_satfinite_h(uint16_t h) {
    return (h & 0x7fff) == 0x7c00 ? (uint16_t)((h & 0x8000) | 0x7bff) : h;
}
PS_FN uint16_t ps_satfinite_bf(uint16_t h) {
    return (h & 0x7fff) == 0x7f80 ? (uint16_t)((h & 0x8000) | 0x7f7f) : h;
}
PS_FN float ps_ftz_h(float x) { return (x > -6.103515625e-05f && x < 6.103515625e-05f) ? x * 0.0f : x; }

/* ---- bit-field helpers of sm_70+ (PTX ISA 9.7.8: fns, bmsk, szext) ---- */
PS_FN uint32_t ps_fns(uint32_t mask, uint32_t base, int32_t offset) {
    if (base > 31) return 0xffffffffu;  /* undefined in PTX: answer "not found" */
    if (offset == 0) return (mask >> base) & 1u ? base : 0xffffffffu;
    int32_t inc = offset > 0 ? 1 : -1;
    uint32_t count = offset > 0 ? (uint32_t)offset - 1u : (uint32_t)(-(int64_t)offset) - 1u;
    for (int32_t pos = (int32_t)base; pos >= 0 && pos < 32; pos += inc) {
        if ((mask >> pos) & 1u) {
            if (count == 0) return (uint32_t)pos;
            count--;
        }
    }
    return 0xffffffffu;
}
PS_FN uint32_t ps_bmsk(uint32_t a, uint32_t b, int clamp) {
    uint32_t a1 = a & 31u, b1 = b & 31u, sum = a1 + b1;
    uint32_t mask0 = ~0u << a1;
    int over = sum >= 32;
    if (clamp && a >= 32) { mask0 = 0; over = 1; }
    if (clamp && b >= 32) over = 1;
    uint32_t mask1 = over ? 0u : (b1 == 0 ? ~0u : ~0u << sum);
    return mask0 & ~mask1;
}
PS_FN uint32_t ps_szext(uint32_t a, uint32_t b, int clamp, int is_signed) {
    uint32_t b1 = b & 31u;
    int too_large = clamp && b >= 32;
    uint32_t mask = too_large ? 0u : ~0u << b1;
    int sign = !(b1 == 0 || too_large || !is_signed) && ((a >> ((b1 - 1u) & 31u)) & 1u);
    return (a & ~mask) | (sign ? mask : 0u);
}

/* ---- cp.async (sm_80): the copy completes at issue, so commit/wait are no-ops. Copies
 * cp_size bytes, of which only the first src_size come from src; the rest are zeros ---- */
PS_FN void ps_cp_async(uint8_t *dst, const uint8_t *src, uint32_t cp_size, uint32_t src_size) {
    for (uint32_t i = 0; i < cp_size; i++) dst[i] = i < src_size ? src[i] : 0;
}

/* ---- directed rounding (.rz 1, .rm 2, .rp 3) of + - * / fma sqrt rcp ----
 * f32: the operation in f64 with the sign of its exact residual (f64 holds f32 products
 * exactly, f64 fma/TwoSum give exact residuals for f32 operands), then a directed f64->f32
 * rounding that knows which side of the f64 value the exact result lies. f64 add/sub:
 * TwoSum; mul/div/sqrt/rcp: residual signs from scaled error-free forms (below); fma:
 * the C library's rounding modes on the CPU device, CUDA's intrinsics on NVIDIA (the
 * translator refuses f64 fma with directed rounding on AMD targets). */

/* the f32 nearest x = s + (tiny of sign esign), rounded in direction `mode` */
PS_FN float ps_f_dir(double s, int esign, int mode) {
    float r = (float)s;
    if (s != s) return r;
    int cmp = (double)r > s ? 1 : ((double)r < s ? -1 : -esign);  /* sign(r - x) */
    if (cmp == 0) return r;
    int neg = s < 0 || (s == 0 && esign < 0);
    int want_up = mode == 3 || (mode == 1 && neg);
    if ((cmp > 0) == want_up) return r;
    uint32_t u = ps_f2u(r);
    if (want_up) {
        if (r == 0.0f) u = 1u; else if (r > 0.0f) u += 1u; else u -= 1u;
    } else {
        if (r == 0.0f) u = 0x80000001u; else if (r > 0.0f) u -= 1u; else u += 1u;
    }
    return ps_u2f(u);
}
/* the f64 s (= RN(x)), moved one ulp where x = s + (tiny of sign esign) demands */
PS_FN double ps_d_dir(double s, int esign, int mode) {
    if (s != s || esign == 0) return s;
    int neg = s < 0 || (s == 0 && esign < 0);
    int want_up = mode == 3 || (mode == 1 && neg);
    if ((esign < 0) == want_up) {  /* s lies above x but we want x rounded up, or vice versa */
        return s;
    }
    uint64_t u = ps_d2u(s);
    if (want_up) {
        if (s == 0.0) u = 1u; else if (s > 0.0) u += 1u; else u -= 1u;
    } else {
        if (s == 0.0) u = 0x8000000000000001ull; else if (s > 0.0) u -= 1u; else u += 1u;
    }
    return ps_u2d(u);
}
PS_FN int ps_sgn(double e) { return (e > 0) - (e < 0); }
/* an exact zero sum is -0 when rounding down unless both addends are +0 (IEEE 754 6.3) */
PS_FN double ps_zero_sum(double s, double a, double b, int mode) {
    if (s == 0 && mode == 2 && !(a == 0 && b == 0 && !(ps_d2u(a) >> 63) && !(ps_d2u(b) >> 63)))
        return -0.0;
    return s;
}
/* TwoSum's error (Knuth): a + b == s + e exactly, for finite s */
PS_FN double ps_two_sum_err(double a, double b, double s) {
    double bv = s - a, av = s - bv;
    return (a - av) + (b - bv);
}
PS_FN float ps_rnd_add_f32(float a, float b, int mode) {
    double x = a, y = b, s = x + y;  /* no f64 overflow for f32 operands */
    if (s == 0) return (float)ps_zero_sum(s, x, y, mode);
    return ps_f_dir(s, ps_sgn(ps_two_sum_err(x, y, s)), mode);
}
PS_FN float ps_rnd_sub_f32(float a, float b, int mode) { return ps_rnd_add_f32(a, -b, mode); }
PS_FN float ps_rnd_mul_f32(float a, float b, int mode) { return ps_f_dir((double)a * b, 0, mode); }
PS_FN float ps_rnd_fma_f32(float a, float b, float c, int mode) {
    double p = (double)a * b, s = p + c;  /* the product is exact in f64 */
    if (s == 0) return (float)ps_zero_sum(s, p, c, mode);
    if (s != s || ps_isinfd(s)) return (float)s;
    return ps_f_dir(s, ps_sgn(ps_two_sum_err(p, c, s)), mode);
}
PS_FN float ps_rnd_div_f32(float a, float b, int mode) {
    double x = a, y = b, q = x / y;
    if (q != q || ps_isinfd(q) || q == 0 || ps_isinfd(x)) return (float)q;
    /* x - q*y is exact in an f64 fma; the exact quotient lies on its side of q (times sgn y) */
    return ps_f_dir(q, ps_sgn(PS_FMA(-q, y, x)) * ps_sgn(y), mode);
}
PS_FN float ps_rnd_rcp_f32(float a, int mode) { return ps_rnd_div_f32(1.0f, a, mode); }
PS_FN float ps_rnd_sqrt_f32(float a, int mode) {
    double x = a, q = PS_SQRT(x);
    if (q != q || ps_isinfd(q) || q == 0) return (float)q;
    return ps_f_dir(q, ps_sgn(PS_FMA(-q, q, x)), mode);
}
PS_FN double ps_rnd_add_f64(double a, double b, int mode) {
    double s = a + b;
    if (s == 0) return ps_zero_sum(s, a, b, mode);
    if (ps_isinfd(s) && !ps_isinfd(a) && !ps_isinfd(b))  /* overflow: x is beyond +-max */
        return ps_d_dir(s, s > 0 ? -1 : 1, mode);
    if (s != s || ps_isinfd(s)) return s;
    return ps_d_dir(s, ps_sgn(ps_two_sum_err(a, b, s)), mode);
}
PS_FN double ps_rnd_sub_f64(double a, double b, int mode) { return ps_rnd_add_f64(a, -b, mode); }
/* f64 mul/div/sqrt: the residual's sign from the operands' mantissas (frexp), where the
 * error-free forms cannot underflow, compared with the result scaled the same way; exact
 * for subnormal results too. fma f64 keeps the C library's rounding modes (CPU device). */
PS_FN double ps_dir_overflow(double s, int mode) { return ps_d_dir(s, s > 0 ? -1 : 1, mode); }
PS_FN int ps_finite(double x) { return x == x && !ps_isinfd(x); }
PS_FN double ps_rnd_mul_f64(double a, double b, int mode) {
    double s = a * b;
    if (!ps_finite(a) || !ps_finite(b) || a == 0 || b == 0) return s;
    if (ps_isinfd(s)) return ps_dir_overflow(s, mode);
    int ea, eb;
    double ma = __builtin_frexp(a, &ea), mb = __builtin_frexp(b, &eb);
    double p = ma * mb, pe = PS_FMA(ma, mb, -p);  /* ma*mb == p + pe exactly */
    double ss = __builtin_ldexp(s, -(ea + eb));   /* exact: s scaled next to p */
    return ps_d_dir(s, ps_sgn((p - ss) + pe), mode);  /* p - ss: Sterbenz, exact */
}
PS_FN double ps_rnd_div_f64(double a, double b, int mode) {
    double q = a / b;
    if (!ps_finite(a) || !ps_finite(b) || a == 0 || b == 0) return q;
    if (ps_isinfd(q)) return ps_dir_overflow(q, mode);
    int ea, eb;
    double ma = __builtin_frexp(a, &ea), mb = __builtin_frexp(b, &eb);
    double qs = __builtin_ldexp(q, eb - ea);
    /* sign(a/b - q) = sign(ma - qs*mb) * sign(mb); the fma rounds but keeps that sign */
    return ps_d_dir(q, ps_sgn(PS_FMA(-qs, mb, ma)) * ps_sgn(mb), mode);
}
PS_FN double ps_rnd_rcp_f64(double a, int mode) { return ps_rnd_div_f64(1.0, a, mode); }
PS_FN double ps_rnd_sqrt_f64(double a, int mode) {
    double q = PS_SQRT(a);
    if (!ps_finite(a) || a <= 0) return q;
    double as = a, qs = q;
    if (a < 0x1p-900) { as = a * 0x1p600; qs = q * 0x1p300; }  /* keep q*q clear of underflow */
    return ps_d_dir(q, ps_sgn(PS_FMA(-qs, qs, as)), mode);
}
#if defined(__CUDACC__)
PS_FN double ps_rnd_fma_f64(double a, double b, double c, int mode) {
    return mode == 1 ? __fma_rz(a, b, c) : mode == 2 ? __fma_rd(a, b, c) : __fma_ru(a, b, c);
}
#elif !defined(__HIP__)
#include <fenv.h>
/* volatile operands keep the operation between the two fesetround calls */
PS_FN double ps_rnd_fma_f64(double a, double b, double c, int mode) {
    volatile double x = a, y = b, z = c;
    int saved = fegetround();
    fesetround(mode == 1 ? FE_TOWARDZERO : mode == 2 ? FE_DOWNWARD : FE_UPWARD);
    volatile double r = fma(x, y, z);
    fesetround(saved);
    return r;
}
#endif
