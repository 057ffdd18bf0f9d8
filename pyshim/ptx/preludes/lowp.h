/* pyshim PTX prelude: the conversions of tensor-core code (PTX ISA 9.7.9.21 cvt): tf32 and
 * the FP8 formats e4m3 / e5m2, two to a 16-bit register (x2). Plain C for every target. */

/* f32 -> tf32 (an f32 bit pattern with the low 13 mantissa bits zero): .rna rounds half
 * away from zero, .rn half to even; .satfinite clamps infinities and overflows to the
 * largest finite tf32 */
PS_FN uint32_t ps_f2tf32(float f, int rna, int satfinite) {
    uint32_t u = ps_f2u(f);
    if ((u & 0x7fffffffu) > 0x7f800000u) return 0x7fffffffu;  /* NaN */
    if ((u & 0x7fffffffu) != 0x7f800000u)
        u = (u + (rna ? 0x1000u : 0xfffu + ((u >> 13) & 1u))) & 0xffffe000u;
    if (satfinite && (u & 0x7fffffffu) >= 0x7f800000u) u = (u & 0x80000000u) | 0x7f7fe000u;
    return u;
}

/* f32 -> e4m3 (bias 7, no infinities, max 448) or e5m2 (bias 15, max 57344), round to
 * nearest even, .satfinite (NaN stays NaN, the rest clamps to the largest finite value);
 * .relu: negative results are +0 */
PS_FN uint32_t ps_f2fp8(float x, int e5m2, int relu) {
    const int mbits = e5m2 ? 2 : 3, bias = e5m2 ? 15 : 7;
    const uint32_t maxcode = e5m2 ? 0x7bu : 0x7eu, nan = 0x7fu;
    if (x != x) return nan;
    uint32_t sign = ps_f2u(x) >> 31 ? 0x80u : 0u;
    if (relu && sign) return 0u;
    float a = PS_FABSF(x);
    const float maxv = e5m2 ? 57344.0f : 448.0f;
    if (a >= maxv) return sign | maxcode;               /* also infinities */
    if (a == 0.0f) return sign;
    const int emin = 1 - bias;                           /* smallest normal exponent */
    int e;
    (void)__builtin_frexp((double)a, &e);          /* double: NVRTC maps only these */
    e -= 1;                                              /* a = 1.f * 2^e */
    if (e < emin) e = emin;                              /* subnormals: step 2^(emin-mbits) */
    float q = PS_RINTF((float)__builtin_ldexp((double)a, mbits - e));  /* exact; half to even */
    uint32_t code;
    if (e == emin && q < (float)(1 << mbits)) {
        code = (uint32_t)q;                              /* subnormal (or zero) */
    } else {
        if (q >= (float)(2 << mbits)) { q *= 0.5f; e += 1; }
        code = ((uint32_t)(e + bias) << mbits) | ((uint32_t)q - (1u << mbits));
    }
    if (code > maxcode) code = maxcode;
    return sign | code;
}

/* e4m3 / e5m2 -> f16 (exact); .relu: negative results are +0 */
PS_FN uint16_t ps_fp82h(uint32_t b, int e5m2, int relu) {
    uint16_t h;
    if (e5m2) {
        h = (uint16_t)(b << 8);
        if ((h & 0x7fffu) > 0x7c00u) h = 0x7fffu;
    } else {
        uint32_t s = (b >> 7) & 1u, e = (b >> 3) & 15u, m = b & 7u;
        if (e == 15u && m == 7u) h = 0x7fffu;
        else if (e == 0u) h = ps_f2h((float)m * 0x1p-9f);
        else h = (uint16_t)(((e + 8u) << 10) | (m << 7));
        if (s && h != 0x7fffu) h |= 0x8000u;
    }
    if (relu && (h & 0x8000u)) h = 0;
    return h;
}
