/* The four 8-bit float formats of hipDataType, from their definitions:
 *
 *   OCP E4M3 (HIP_R_8F_E4M3 = CUDA_R_8F_E4M3): bias 7, no infinity, S.1111.111 is NaN,
 *       largest 448;
 *   OCP E5M2 (HIP_R_8F_E5M2 = CUDA_R_8F_E5M2): bias 15, IEEE-like (S.11111.00 infinite,
 *       S.11111.xx NaN), largest 57344;
 *   E4M3 FNUZ / E5M2 FNUZ (gfx942's): bias 8 / 16, no infinity and no negative zero, 0x80
 *       the only NaN, largest 240 / 57344.
 *
 * A conversion to fp8 rounds to nearest, ties to even, and saturates as cuBLASLt documents
 * for its fp8 outputs: a finite value or an infinity beyond the largest finite one becomes
 * that largest value of its sign; NaN stays NaN. */
#include <math.h>

#include "hipblaslt_cpu.h"

struct lt_fp8_format {
    int bias, mbits;
    unsigned maxcode; /* the largest finite magnitude's code */
    bool fnuz;
};

static bool lt_fp8_format(int type, struct lt_fp8_format *f)
{
    switch (type) {
    case PS_HIP_R_8F_E4M3: *f = (struct lt_fp8_format){7, 3, 0x7e, false}; return true;
    case PS_HIP_R_8F_E5M2: *f = (struct lt_fp8_format){15, 2, 0x7b, false}; return true;
    case PS_HIP_R_8F_E4M3_FNUZ: *f = (struct lt_fp8_format){8, 3, 0x7f, true}; return true;
    case PS_HIP_R_8F_E5M2_FNUZ: *f = (struct lt_fp8_format){16, 2, 0x7f, true}; return true;
    default: return false;
    }
}

bool lt_is_fp8(int type)
{
    struct lt_fp8_format f;
    return lt_fp8_format(type, &f);
}

double lt_fp8_decode(uint8_t v, int type)
{
    struct lt_fp8_format f;
    if (!lt_fp8_format(type, &f))
        return NAN;
    unsigned mag = v & 0x7fu, mmask = (1u << f.mbits) - 1;
    unsigned e = mag >> f.mbits, m = mag & mmask, emax = 0x7fu >> f.mbits;
    double sign = (v & 0x80u) ? -1.0 : 1.0;
    if (f.fnuz && v == 0x80)
        return NAN;
    if (!f.fnuz && f.mbits == 3 && mag == 0x7f)
        return NAN;
    if (!f.fnuz && f.mbits == 2 && e == emax)
        return m ? NAN : sign * INFINITY;
    if (e == 0)
        return sign * ldexp((double)m, 1 - f.bias - f.mbits);
    return sign * ldexp((double)(m | (mmask + 1)), (int)e - f.bias - f.mbits);
}

uint8_t lt_fp8_encode(double x, int type)
{
    struct lt_fp8_format f;
    if (!lt_fp8_format(type, &f))
        return 0;
    if (isnan(x))
        return f.fnuz ? 0x80 : 0x7f;
    unsigned sign = signbit(x) ? 0x80u : 0u;
    double a = fabs(x);
    double maxv = lt_fp8_decode((uint8_t)f.maxcode, type);
    unsigned code;
    if (a >= maxv) {
        code = f.maxcode;
    } else {
        int emin = 1 - f.bias; /* the smallest normal's exponent */
        int e;
        frexp(a, &e);
        e -= 1; /* a = 1.xxx * 2^e */
        if (a == 0.0 || e < emin)
            e = emin; /* subnormal: the quantum is that of the smallest normal binade */
        /* nearbyint rounds ties to even in the default rounding mode */
        unsigned q = (unsigned)nearbyint(ldexp(a, f.mbits - e));
        /* q < 2^mbits is a subnormal (field 0); q == 2^(mbits+1) carried into the next
         * binade, which the field arithmetic below handles as it stands */
        if (q >> f.mbits == 0)
            code = q;
        else
            code = ((unsigned)(e + f.bias) << f.mbits) + (q - (1u << f.mbits));
        if (code > f.maxcode)
            code = f.maxcode;
    }
    if (f.fnuz && code == 0)
        return 0; /* no negative zero */
    return (uint8_t)(sign | code);
}
