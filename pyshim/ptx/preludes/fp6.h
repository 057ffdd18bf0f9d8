/* pyshim PTX prelude: the FP6 formats e2m3 / e3m2 (PTX ISA 5.2.5.1, cvt 9.7.9.21), two to a
 * 16-bit register (x2), each in the low 6 bits of its byte. Plain C for every target; the
 * translator adds it only to modules whose cvt uses these formats (FunctionEmitter.need). */

/* f32 -> e2m3 (bias 1, max 7.5) or e3m2 (bias 3, max 28): round to nearest even; the formats
 * have no infinities and no NaN, so .satfinite clamps overflows and infinities to the largest
 * finite value of their sign and NaN to +MAX_NORM; .relu: negative results are +0 */
PS_FN uint32_t ps_f2fp6(float x, int e3m2, int relu) {
    const int mbits = e3m2 ? 2 : 3, bias = e3m2 ? 3 : 1;
    const float maxv = e3m2 ? 28.0f : 7.5f;
    if (x != x) return 0x1fu;
    uint32_t sign = ps_f2u(x) >> 31 ? 0x20u : 0u;
    if (relu && sign) return 0u;
    float a = PS_FABSF(x);
    if (a >= maxv) return sign | 0x1fu;
    if (a == 0.0f) return sign;
    const int emin = 1 - bias;                           /* smallest normal exponent */
    /* the double frexp/ldexp, which every target spells (NVRTC has no float builtins);
     * exact: a * 2^(mbits - e) lies in [2^mbits, 2^(mbits+1)) or is a subnormal's mantissa */
    int e;
    (void)__builtin_frexp((double)a, &e);
    e -= 1;                                              /* a = 1.f * 2^e */
    if (e < emin) e = emin;                              /* subnormals: step 2^(emin-mbits) */
    float q = PS_RINTF((float)__builtin_ldexp((double)a, mbits - e));  /* half to even */
    uint32_t code;
    if (e == emin && q < (float)(1 << mbits)) {
        code = (uint32_t)q;                              /* subnormal (or zero) */
    } else {
        if (q >= (float)(2 << mbits)) { q *= 0.5f; e += 1; }
        code = ((uint32_t)(e + bias) << mbits) | ((uint32_t)q - (1u << mbits));
    }
    if (code > 0x1fu) code = 0x1fu;
    return sign | code;
}

/* e2m3 / e3m2 (the low 6 bits of b) -> f16, exact; .relu: negative results are +0 */
PS_FN uint16_t ps_fp62h(uint32_t b, int e3m2, int relu) {
    const uint32_t mbits = e3m2 ? 2u : 3u, bias = e3m2 ? 3u : 1u;
    uint32_t s = (b >> 5) & 1u, e = (b & 0x1fu) >> mbits, m = b & ((1u << mbits) - 1u);
    uint16_t h;
    if (e == 0u) h = ps_f2h((float)m * (e3m2 ? 0x1p-4f : 0x1p-3f));  /* m 2^(1-bias-mbits) */
    else h = (uint16_t)(((e - bias + 15u) << 10) | (m << (10u - mbits)));
    if (s) h |= 0x8000u;
    if (relu && (h & 0x8000u)) h = 0;
    return h;
}
