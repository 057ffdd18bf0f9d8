/* pyshim PTX prelude, AMD GPUs: mma.sync and ldmatrix on the matrix cores (MFMA on CDNA
 * gfx90a/gfx942, wave64; WMMA on RDNA3 gfx11 and RDNA4 gfx12, wave32).
 *
 * Written per lane on four primitives, so that the same code runs on a GPU and, in the
 * tests (tests/amd_mma/), on the host against an emulation of exactly these primitives:
 *   PS_MX_LANE()            the lane's index in the wavefront
 *   ps_mx_perm(v, lane)     v of another lane (ds_bpermute)
 *   ps_mx_mfma4_* / ps_mx_wmma_*  one matrix instruction, per-lane operands and results
 * PS_MX_WAVE (32 | 64) and PS_MX_GFX12 (0 | 1) pick the instruction family.
 *
 * The AMD operand layouts used (AMD Matrix Instruction Calculator, ROCm/
 * amd_matrix_instruction_calculator, --register-layout for CDNA3 and RDNA3/RDNA4; CDNA3 ISA
 * guide section 7 "Matrix Arithmetic Instructions"):
 *   v_mfma_*_4x4x4_16b_{f16,bf16,i8}, v_mfma_f32_4x4x1_16b_f32: 16 independent blocks of
 *     four lanes, block b = lanes 4b..4b+3; A[i][k] in lane 4b+i, B[k][n] in lane 4b+n
 *     (k along the packed elements of the lane's registers), D[i][n] in lane 4b+n, register i.
 *   v_wmma_*_16x16x16 (gfx11): A[m][k] in lane m and m+16 (both), word k/2 (f16, bf16) or
 *     k/4 (iu8); B[k][n] likewise in lane n; D[m][n] in lane n + 16 (m % 2), register m / 2.
 *   v_wmma_*_16x16x16 (gfx12): A[m][k] in lane m + 16 ((k / 4) % 2), word 2 (k / 8) + (k % 4) / 2
 *     (f16, bf16), lane m + 16 (k / 8), word (k % 8) / 4 (iu8); D[m][n] in lane n + 16 (m / 8),
 *     register m % 8.
 *
 * Why these instruction shapes. On wave64 two CUDA warps share a wavefront and either may be
 * elsewhere (the warps of a wavefront diverge independently), so a warp's mma must read only
 * its own 32 lanes: the 4x4 16-block forms keep every block inside one half-wave. They do
 * an m16n8 tile with no wasted products (8 blocks of 4x4 per warp, K/4 instructions); the
 * single-block 16x16x16 form has 4x the peak rate but spans both halves (it would need both
 * warps converged) and would waste half its columns on n = 8. On wave32 a wavefront is one
 * warp: one 16x16x16 WMMA per 16 k, columns 8..15 zero.
 * The products are computed with a zero accumulator and C is added in the NVIDIA layout
 * afterwards (one more rounding, within the k + 1 roundings the tests allow): no shuffles
 * of C in, and integer .satfinite clamps the exact 64-bit sum.
 * Each operand is computed as D' = B^T A^T (AMD lane = a row of D, register = a column):
 * then every D word comes back from one of two (MFMA) or four (WMMA) candidate registers,
 * half the shuffles of the untransposed form.
 *
 * FP8 (e4m3, e5m2) is converted exactly to f16 after the shuffles and runs on the f16
 * instructions (the FP8 MFMAs of gfx942 are single-block 16x16x32 / 32x32x16 forms, which
 * span both warps of a wavefront).
 * Without a matrix-core form, a per-lane dot product over shuffled fragments (correct,
 * slower): f64 everywhere (v_mfma_f64_4x4x4_4b's blocks span the four 16-lane groups, so
 * not within one warp's half), tf32 on RDNA (no f32 WMMA), u8 on CDNA (the i8 MFMA is
 * signed only). */

#ifndef PS_MX_EMU
#define PS_MX_WAVE PS_WAVE_WIDTH
#if defined(__GFX12__)
#define PS_MX_GFX12 1
#else
#define PS_MX_GFX12 0
#endif
#define PS_MX_LANE() PS_WAVE_LANE(0)
PS_FN uint32_t ps_mx_perm(uint32_t v, uint32_t lane) {
    return (uint32_t)__builtin_amdgcn_ds_bpermute((int)(lane << 2), (int)v);
}
typedef float ps_v4f __attribute__((ext_vector_type(4)));
typedef int ps_v4i __attribute__((ext_vector_type(4)));
typedef float ps_v8f __attribute__((ext_vector_type(8)));
typedef int ps_v8i __attribute__((ext_vector_type(8)));
#if PS_MX_WAVE == 64
typedef _Float16 ps_v4h __attribute__((ext_vector_type(4)));
typedef short ps_v4s __attribute__((ext_vector_type(4)));
PS_FN void ps_mx_mfma4_f16(const uint32_t *a, const uint32_t *b, float *d) {
    ps_v4h va, vb; ps_v4f vc;
    __builtin_memcpy(&va, a, 8); __builtin_memcpy(&vb, b, 8); __builtin_memcpy(&vc, d, 16);
    vc = __builtin_amdgcn_mfma_f32_4x4x4f16(va, vb, vc, 0, 0, 0);
    __builtin_memcpy(d, &vc, 16);
}
PS_FN void ps_mx_mfma4_bf16(const uint32_t *a, const uint32_t *b, float *d) {
    ps_v4s va, vb; ps_v4f vc;
    __builtin_memcpy(&va, a, 8); __builtin_memcpy(&vb, b, 8); __builtin_memcpy(&vc, d, 16);
    vc = __builtin_amdgcn_mfma_f32_4x4x4bf16_1k(va, vb, vc, 0, 0, 0);
    __builtin_memcpy(d, &vc, 16);
}
PS_FN void ps_mx_mfma4_f32(const uint32_t *a, const uint32_t *b, float *d) {
    ps_v4f vc; float fa, fb;
    __builtin_memcpy(&fa, a, 4); __builtin_memcpy(&fb, b, 4); __builtin_memcpy(&vc, d, 16);
    vc = __builtin_amdgcn_mfma_f32_4x4x1f32(fa, fb, vc, 0, 0, 0);
    __builtin_memcpy(d, &vc, 16);
}
PS_FN void ps_mx_mfma4_i8(const uint32_t *a, const uint32_t *b, int32_t *d) {
    ps_v4i vc;
    __builtin_memcpy(&vc, d, 16);
    vc = __builtin_amdgcn_mfma_i32_4x4x4i8((int)a[0], (int)b[0], vc, 0, 0, 0);
    __builtin_memcpy(d, &vc, 16);
}
#else
#if PS_MX_GFX12
typedef _Float16 ps_vwh __attribute__((ext_vector_type(8)));
typedef short ps_vws __attribute__((ext_vector_type(8)));
typedef int ps_vwi __attribute__((ext_vector_type(2)));
#define PS_MX_WMMA(name) __builtin_amdgcn_wmma_##name##_w32_gfx12
#else
typedef _Float16 ps_vwh __attribute__((ext_vector_type(16)));
typedef short ps_vws __attribute__((ext_vector_type(16)));
typedef int ps_vwi __attribute__((ext_vector_type(4)));
#define PS_MX_WMMA(name) __builtin_amdgcn_wmma_##name##_w32
#endif
PS_FN void ps_mx_wmma_f16(const uint32_t *a, const uint32_t *b, float *d) {
    ps_vwh va, vb; ps_v8f vc;
    __builtin_memcpy(&va, a, sizeof va); __builtin_memcpy(&vb, b, sizeof vb);
    __builtin_memcpy(&vc, d, 32);
    vc = PS_MX_WMMA(f32_16x16x16_f16)(va, vb, vc);
    __builtin_memcpy(d, &vc, 32);
}
PS_FN void ps_mx_wmma_bf16(const uint32_t *a, const uint32_t *b, float *d) {
    ps_vws va, vb; ps_v8f vc;
    __builtin_memcpy(&va, a, sizeof va); __builtin_memcpy(&vb, b, sizeof vb);
    __builtin_memcpy(&vc, d, 32);
    vc = PS_MX_WMMA(f32_16x16x16_bf16)(va, vb, vc);
    __builtin_memcpy(d, &vc, 32);
}
PS_FN void ps_mx_wmma_iu8(int sa, const uint32_t *a, int sb, const uint32_t *b, int32_t *d) {
    ps_vwi va, vb; ps_v8i vc;
    __builtin_memcpy(&va, a, sizeof va); __builtin_memcpy(&vb, b, sizeof vb);
    __builtin_memcpy(&vc, d, 32);
    /* the signedness operands must be constants: one call per combination */
    if (sa && sb) vc = PS_MX_WMMA(i32_16x16x16_iu8)(true, va, true, vb, vc, false);
    else if (sa) vc = PS_MX_WMMA(i32_16x16x16_iu8)(true, va, false, vb, vc, false);
    else if (sb) vc = PS_MX_WMMA(i32_16x16x16_iu8)(false, va, true, vb, vc, false);
    else vc = PS_MX_WMMA(i32_16x16x16_iu8)(false, va, false, vb, vc, false);
    __builtin_memcpy(d, &vc, 32);
}
#endif
#endif /* !PS_MX_EMU */

enum { PS_MX_F16 = 0, PS_MX_BF16, PS_MX_TF32, PS_MX_S8, PS_MX_F64, PS_MX_FP8 };

/* FP8 (PTX ISA 5.2.5.1) -> f16 bits, exact: e4m3's range (2^-9 .. 448) and e5m2 (the upper
 * byte of an f16) fit in f16, so FP8 mma runs on the f16 matrix instructions */
PS_FN uint32_t ps_mx_fp8_h(uint32_t b, int e5m2) {
    b &= 0xffu;
    if (e5m2) return b << 8;
    uint32_t s = (b & 0x80u) << 8, e = (b >> 3) & 15u, m = b & 7u;
    if (e == 15u && m == 7u) return s | 0x7e00u;
    if (e == 0u) {
        if (m == 0u) return s;
        uint32_t p = m >= 4u ? 2u : m >= 2u ? 1u : 0u;  /* m * 2^-9 = 1.x * 2^(p - 9) */
        return s | ((p + 6u) << 10) | ((m << (10u - p)) & 0x3ffu);
    }
    return s | ((e + 8u) << 10) | (m << 7);
}
/* an FP8 word (4 elements) as two f16 words */
PS_FN void ps_mx_fp8x4_h(uint32_t w, int e5m2, uint32_t *out) {
    out[0] = ps_mx_fp8_h(w, e5m2) | (ps_mx_fp8_h(w >> 8, e5m2) << 16);
    out[1] = ps_mx_fp8_h(w >> 16, e5m2) | (ps_mx_fp8_h(w >> 24, e5m2) << 16);
}

/* word `reg` (< n) of the fragment w[] of lane `lane`: one shuffle per candidate register,
 * since the lanes reading one source lane may want different registers of it */
PS_FN uint32_t ps_mx_pull(const uint32_t *w, uint32_t n, uint32_t lane, uint32_t reg) {
    uint32_t out = 0;
    for (uint32_t r = 0; r < n; r++) {
        uint32_t v = ps_mx_perm(w[r], lane);
        out = r == reg ? v : out;
    }
    return out;
}

PS_FN float ps_mx_u2f(uint32_t u) { float f; __builtin_memcpy(&f, &u, 4); return f; }
PS_FN uint32_t ps_mx_f2u(float f) { uint32_t u; __builtin_memcpy(&u, &f, 4); return u; }
PS_FN float ps_mx_h2f(uint32_t h) {
    uint16_t b = (uint16_t)h; _Float16 x; __builtin_memcpy(&x, &b, 2); return (float)x;
}
PS_FN uint32_t ps_mx_f2h(float f) {
    _Float16 x = (_Float16)f; uint16_t b; __builtin_memcpy(&b, &x, 2); return b;
}

/* NVIDIA fragments (PTX ISA "Matrix Fragments for mma.m16n8k*", groupID g = lane >> 2,
 * t = lane & 3, e elements per 32-bit register): A[r][k] is in lane 4 (r % 8) + (k % 4e) / e,
 * register (M == 16 ? r / 8 + 2 (k / 4e) : k / 4e); B[k][n] in lane 4 n + (k % 4e) / e,
 * register k / 4e; accumulator element j of lane (g, t) is D[g + 8 (j >> 1)][2 t + (j & 1)]. */
PS_FN uint32_t ps_mx_a_lane(uint32_t r, uint32_t k, uint32_t e) { return 4u * (r & 7u) + (k % (4u * e)) / e; }

/* the A word of row r, k .. k + e - 1 (r / 8 known only at run time: two candidates) */
PS_FN uint32_t ps_mx_a_word(const uint32_t *A, uint32_t M, uint32_t half, uint32_t r,
                            uint32_t k, uint32_t e) {
    uint32_t c = k / (4u * e), src = half | ps_mx_a_lane(r, k, e);
    if (M == 16) return ps_mx_pull(A + 2 * c, 2, src, (r >> 3) & 1u);
    return ps_mx_perm(A[c], src);
}
PS_FN uint32_t ps_mx_b_word(const uint32_t *B, uint32_t half, uint32_t n, uint32_t k,
                            uint32_t e) {
    return ps_mx_perm(B[k / (4u * e)], half | (4u * n + (k % (4u * e)) / e));
}

#if PS_MX_WAVE == 64
/* P = A B on the 4x4 16-block MFMA: in a half-wave, block b (lanes 4b..4b+3) computes the
 * tile rows 4 (b >> 1) .., columns 4 (b & 1) .. of D; P[j] as the NVIDIA accumulator layout */
PS_FN void ps_mx_prod_mfma(const uint32_t *A, const uint32_t *B, int ty, int e5a, int e5b,
                           uint32_t M, uint32_t K, float *pf, int32_t *pi) {
    const uint32_t wl = PS_MX_LANE(), half = wl & 32u, l = wl & 31u, b = l >> 2, q = l & 3u;
    const uint32_t R = 4u * (b >> 1) + q, n = 4u * (b & 1u) + q;
    const uint32_t e = ty == PS_MX_TF32 ? 1u : ty == PS_MX_S8 || ty == PS_MX_FP8 ? 4u : 2u;
    const uint32_t ka = ty == PS_MX_TF32 ? 1u : 4u, words = ka / e ? ka / e : 1u;
    float acc[4] = {0, 0, 0, 0};
    int32_t acci[4] = {0, 0, 0, 0};
    for (uint32_t s = 0; s < K / ka; s++) {
        uint32_t oa[2] = {0, 0}, ob[2] = {0, 0};
        for (uint32_t j = 0; j < words; j++) {
            uint32_t k = s * ka + j * e;
            oa[j] = ps_mx_b_word(B, half, n, k, e);          /* AMD A = B^T: column n of B */
            ob[j] = ps_mx_a_word(A, M, half, R & (M - 1), k, e); /* AMD B = A^T: row R of A */
        }
        if (ty == PS_MX_FP8) {  /* AMD A holds B's elements, AMD B A's */
            uint32_t ha[2], hb[2];
            ps_mx_fp8x4_h(oa[0], e5b, ha);
            ps_mx_fp8x4_h(ob[0], e5a, hb);
            ps_mx_mfma4_f16(ha, hb, acc);
        } else if (ty == PS_MX_F16) ps_mx_mfma4_f16(oa, ob, acc);
        else if (ty == PS_MX_BF16) ps_mx_mfma4_bf16(oa, ob, acc);
        else if (ty == PS_MX_S8) ps_mx_mfma4_i8(oa, ob, acci);
        else {
            oa[0] &= 0xffffe000u;  /* tf32: the tensor core reads 10 mantissa bits */
            ob[0] &= 0xffffe000u;
            ps_mx_mfma4_f32(oa, ob, acc);
        }
    }
    /* back: D[r][c] is in block 2 (r / 4) + c / 4, lane r % 4, register c % 4 */
    uint32_t accw[4];
    for (uint32_t i = 0; i < 4; i++) accw[i] = ty == PS_MX_S8 ? (uint32_t)acci[i] : ps_mx_f2u(acc[i]);
    const uint32_t g = l >> 2, t = l & 3u;
    for (uint32_t j = 0; j < (M == 16 ? 4u : 2u); j++) {
        uint32_t r = g + 8u * (j >> 1), c = 2u * t + (j & 1u);
        uint32_t src = half | (4u * (2u * (r >> 2) + (c >> 2)) + (r & 3u));
        uint32_t cand[2] = {accw[j & 1u], accw[2 + (j & 1u)]};
        uint32_t v = ps_mx_pull(cand, 2, src, t & 1u);
        if (ty == PS_MX_S8) pi[j] = (int32_t)v; else pf[j] = ps_mx_u2f(v);
    }
}
#else
/* P = A B on one 16x16x16 WMMA per 16 k (columns 8.., and rows M.. zero) */
PS_FN void ps_mx_prod_wmma(const uint32_t *A, const uint32_t *B, int ty, int ua, int ub,
                           uint32_t M, uint32_t K, float *pf, int32_t *pi) {
    const uint32_t l = PS_MX_LANE() & 31u, r16 = l & 15u, hi = l >> 4;
    const uint32_t e = ty == PS_MX_S8 || ty == PS_MX_FP8 ? 4u : 2u;
    const uint32_t words = ty == PS_MX_S8 ? (PS_MX_GFX12 ? 2u : 4u) : (PS_MX_GFX12 ? 4u : 8u);
    float acc[8] = {0, 0, 0, 0, 0, 0, 0, 0};
    int32_t acci[8] = {0, 0, 0, 0, 0, 0, 0, 0};
    for (uint32_t k0 = 0; k0 < K; k0 += 16) {
        uint32_t oa[8], ob[8];
        for (uint32_t w = 0; w < words; w++) {
            uint32_t k;  /* the first k of word w of this lane */
            if (ty == PS_MX_S8) k = PS_MX_GFX12 ? 8u * hi + 4u * w : 4u * w;
            else k = PS_MX_GFX12 ? 8u * (w >> 1) + 4u * hi + 2u * (w & 1u) : 2u * w;
            k += k0;
            uint32_t kk = k < K ? k : 0u;
            if (ty == PS_MX_FP8) kk &= ~3u;
            uint32_t va = ps_mx_b_word(B, 0, r16 & 7u, kk, e);      /* AMD A = B^T */
            uint32_t vb = ps_mx_a_word(A, M, 0, r16 & (M - 1), kk, e); /* AMD B = A^T */
            if (ty == PS_MX_FP8) {  /* the f16 pair k, k + 1 of the FP8 word of k & ~3 */
                uint32_t h[2];
                ps_mx_fp8x4_h(va, ub, h);
                va = h[(k >> 1) & 1u];
                ps_mx_fp8x4_h(vb, ua, h);
                vb = h[(k >> 1) & 1u];
            }
            oa[w] = k < K && r16 < 8u ? va : 0u;
            ob[w] = k < K && r16 < M ? vb : 0u;
        }
        if (ty == PS_MX_F16 || ty == PS_MX_FP8) ps_mx_wmma_f16(oa, ob, acc);
        else if (ty == PS_MX_BF16) ps_mx_wmma_bf16(oa, ob, acc);
        else ps_mx_wmma_iu8(!ub, oa, !ua, ob, acci);
    }
    /* back: D[r][c] (c < 8) is in lane r + 16 (c % 2), register c / 2 (gfx11), or in lane r,
     * register c (gfx12) */
    uint32_t accw[8];
    for (uint32_t i = 0; i < 8; i++) accw[i] = ty == PS_MX_S8 ? (uint32_t)acci[i] : ps_mx_f2u(acc[i]);
    const uint32_t g = l >> 2, t = l & 3u;
    for (uint32_t j = 0; j < (M == 16 ? 4u : 2u); j++) {
        uint32_t r = g + 8u * (j >> 1), v;
        if (PS_MX_GFX12) {
            uint32_t cand[4] = {accw[j & 1u], accw[2 + (j & 1u)], accw[4 + (j & 1u)],
                                accw[6 + (j & 1u)]};
            v = ps_mx_pull(cand, 4, r, t);
        } else {
            v = ps_mx_pull(accw, 4, r + 16u * (j & 1u), t);
        }
        if (ty == PS_MX_S8) pi[j] = (int32_t)v; else pf[j] = ps_mx_u2f(v);
    }
}
#endif

/* the dot-product fallback: each lane computes its own accumulator elements from shuffled
 * rows of A and columns of B (f64: the fused chain in k order from C, as the CPU device) */
PS_FN void ps_mx_prod_dot(const uint32_t *A, const uint32_t *B, const uint32_t *C, int ty,
                          int ua, int ub, uint32_t M, uint32_t K, float *pf, int32_t *pi,
                          uint32_t *out64) {
    const uint32_t wl = PS_MX_LANE(), half = wl & (PS_MX_WAVE == 64 ? 32u : 0u), l = wl & 31u;
    const uint32_t g = l >> 2, t = l & 3u;
    if (ty == PS_MX_F64) {  /* m8n8k4: A[g][k] in lane 4g + k, B[k][n] in lane 4n + k */
        for (uint32_t j = 0; j < 2; j++) {
            uint32_t c = 2u * t + j;
            uint64_t cu = (uint64_t)C[2 * j] | ((uint64_t)C[2 * j + 1] << 32);
            double acc;
            __builtin_memcpy(&acc, &cu, 8);
            for (uint32_t k = 0; k < 4; k++) {
                uint32_t sa = half | (4u * g + k), sb = half | (4u * c + k);
                uint64_t au = (uint64_t)ps_mx_perm(A[0], sa) | ((uint64_t)ps_mx_perm(A[1], sa) << 32);
                uint64_t bu = (uint64_t)ps_mx_perm(B[0], sb) | ((uint64_t)ps_mx_perm(B[1], sb) << 32);
                double a, b;
                __builtin_memcpy(&a, &au, 8);
                __builtin_memcpy(&b, &bu, 8);
                acc = __builtin_fma(a, b, acc);
            }
            uint64_t du;
            __builtin_memcpy(&du, &acc, 8);
            out64[2 * j] = (uint32_t)du;
            out64[2 * j + 1] = (uint32_t)(du >> 32);
        }
        return;
    }
    const uint32_t e = ty == PS_MX_S8 ? 4u : ty == PS_MX_TF32 ? 1u : 2u, w = 32u / e;
    for (uint32_t j = 0; j < (M == 16 ? 4u : 2u); j++) {
        uint32_t r = g + 8u * (j >> 1), c = 2u * t + (j & 1u);
        float acc = 0.0f;
        int32_t acci = 0;
        for (uint32_t k = 0; k < K; k += e) {
            /* r / 8 is j >> 1 here, known: one shuffle per word */
            uint32_t ci = k / (4u * e);
            uint32_t aw = ps_mx_perm(A[M == 16 ? (r >> 3) + 2u * ci : ci], half | ps_mx_a_lane(r, k, e));
            uint32_t bw = ps_mx_b_word(B, half, c, k, e);
            for (uint32_t s = 0; s < e; s++) {
                uint32_t x = w == 32 ? aw : (aw >> (s * w)) & ((1u << w) - 1u);
                uint32_t y = w == 32 ? bw : (bw >> (s * w)) & ((1u << w) - 1u);
                if (ty == PS_MX_S8) {
                    int32_t xi = ua ? (int32_t)x : (int32_t)(int8_t)x;
                    int32_t yi = ub ? (int32_t)y : (int32_t)(int8_t)y;
                    acci += xi * yi;
                } else if (ty == PS_MX_TF32) {
                    acc += ps_mx_u2f(x & 0xffffe000u) * ps_mx_u2f(y & 0xffffe000u);
                } else if (ty == PS_MX_BF16) {
                    acc += ps_mx_u2f(x << 16) * ps_mx_u2f(y << 16);
                } else {
                    acc += ps_mx_h2f(x) * ps_mx_h2f(y);
                }
            }
        }
        pf[j] = acc;
        pi[j] = acci;
    }
}

/* mma.sync for this lane: in = A, B, C words (tensor.py's order), out = D words.
 * ty: PS_MX_*; ua, ub: u8 operands (FP8: e5m2 operands); c16, d16: f16 accumulators; sat: .satfinite */
PS_FN void ps_mma_amd(const uint32_t *in, uint32_t *out, int ty, int ua, int ub, uint32_t M,
                      uint32_t K, uint32_t na, uint32_t nb, int c16, int d16, int sat) {
    const uint32_t *A = in, *B = in + na, *C = in + na + nb;
    float pf[4] = {0, 0, 0, 0};
    int32_t pi[4] = {0, 0, 0, 0};
    if (ty == PS_MX_F64) {
        ps_mx_prod_dot(A, B, C, ty, ua, ub, M, K, pf, pi, out);
        return;
    }
#if PS_MX_WAVE == 64
    if (ty == PS_MX_S8 && (ua || ub)) ps_mx_prod_dot(A, B, C, ty, ua, ub, M, K, pf, pi, 0);
    else ps_mx_prod_mfma(A, B, ty, ua, ub, M, K, pf, pi);
#else
    if (ty == PS_MX_TF32) ps_mx_prod_dot(A, B, C, ty, ua, ub, M, K, pf, pi, 0);
    else ps_mx_prod_wmma(A, B, ty, ua, ub, M, K, pf, pi);
#endif
    const uint32_t ne = M == 16 ? 4u : 2u;
    if (ty == PS_MX_S8) {
        for (uint32_t j = 0; j < ne; j++) {
            int64_t v = (int64_t)(int32_t)C[j] + pi[j];
            if (sat) v = v > 2147483647 ? 2147483647 : v < -2147483647 - 1 ? -2147483647 - 1 : v;
            out[j] = (uint32_t)v;
        }
        return;
    }
    float d[4];
    for (uint32_t j = 0; j < ne; j++) {
        float c = c16 ? ps_mx_h2f(C[j >> 1] >> (16 * (j & 1u))) : ps_mx_u2f(C[j]);
        d[j] = c + pf[j];
    }
    if (d16) {
        for (uint32_t j = 0; j < ne / 2; j++)
            out[j] = ps_mx_f2h(d[2 * j]) | (ps_mx_f2h(d[2 * j + 1]) << 16);
    } else {
        for (uint32_t j = 0; j < ne; j++) out[j] = ps_mx_f2u(d[j]);
    }
}

/* ldmatrix .m8n8 .b16 (PTX ISA 9.7.9.27): matrix j's row r is at the address lane 8 j + r
 * holds; lane l gets the word l & 3 of row l >> 2 (.trans: the halves are elements
 * (2 (l & 3) + h, l >> 2)): a shuffle of the row addresses, then a load */
PS_FN void ps_ldmatrix_amd(const uint8_t *addr, uint32_t *out, uint32_t count, int trans) {
    const uint32_t wl = PS_MX_LANE(), half = wl & (PS_MX_WAVE == 64 ? 32u : 0u), l = wl & 31u;
    const uint64_t a = (uint64_t)(uintptr_t)addr;
    for (uint32_t j = 0; j < count; j++) {
        if (!trans) {
            uint32_t src = half | (8u * j + (l >> 2));
            uint64_t p = (uint64_t)ps_mx_perm((uint32_t)a, src) |
                         ((uint64_t)ps_mx_perm((uint32_t)(a >> 32), src) << 32);
            uint32_t v;
            __builtin_memcpy(&v, (const uint8_t *)(uintptr_t)p + 4u * (l & 3u), 4);
            out[j] = v;
        } else {
            uint32_t v = 0;
            for (uint32_t h = 0; h < 2; h++) {
                uint32_t src = half | (8u * j + 2u * (l & 3u) + h);
                uint64_t p = (uint64_t)ps_mx_perm((uint32_t)a, src) |
                             ((uint64_t)ps_mx_perm((uint32_t)(a >> 32), src) << 32);
                uint16_t x;
                __builtin_memcpy(&x, (const uint8_t *)(uintptr_t)p + 2u * (l >> 2), 2);
                v |= (uint32_t)x << (16 * h);
            }
            out[j] = v;
        }
    }
}

/* the row address lane `src` (of this warp) holds */
PS_FN uint8_t *ps_mx_addr_of(const uint8_t *addr, uint32_t src) {
    const uint64_t a = (uint64_t)(uintptr_t)addr;
    return (uint8_t *)(uintptr_t)((uint64_t)ps_mx_perm((uint32_t)a, src) |
                                  ((uint64_t)ps_mx_perm((uint32_t)(a >> 32), src) << 32));
}

/* stmatrix .m8n8 .b16 (PTX ISA 9.7.9.28): the inverse of ldmatrix; each lane stores its own
 * words at the row addresses other lanes hold */
PS_FN void ps_stmatrix_amd(uint8_t *addr, const uint32_t *in, uint32_t count, int trans) {
    const uint32_t wl = PS_MX_LANE(), half = wl & (PS_MX_WAVE == 64 ? 32u : 0u), l = wl & 31u;
    for (uint32_t j = 0; j < count; j++) {
        if (!trans) {
            uint8_t *p = ps_mx_addr_of(addr, half | (8u * j + (l >> 2)));
            __builtin_memcpy(p + 4u * (l & 3u), &in[j], 4);
        } else {
            for (uint32_t h = 0; h < 2; h++) {
                uint8_t *p = ps_mx_addr_of(addr, half | (8u * j + 2u * (l & 3u) + h));
                uint16_t x = (uint16_t)(in[j] >> (16 * h));
                __builtin_memcpy(p + 2u * (l >> 2), &x, 2);
            }
        }
    }
}

/* movmatrix.sync.aligned.m8n8.trans.b16 (PTX ISA 9.7.14.5.17): element (r, c) of the result
 * is element (c, r) of the source, which lane 4 c + r / 2 holds in half r % 2 */
PS_FN uint32_t ps_movmatrix_amd(uint32_t v) {
    const uint32_t wl = PS_MX_LANE(), half = wl & (PS_MX_WAVE == 64 ? 32u : 0u), l = wl & 31u;
    uint32_t out = 0;
    for (uint32_t h = 0; h < 2; h++) {
        uint32_t row = 2u * (l & 3u) + h, col = l >> 2;  /* the source element (row, col) */
        uint32_t w = ps_mx_perm(v, half | (4u * row + (col >> 1)));
        out |= ((w >> (16u * (col & 1u))) & 0xffffu) << (16u * h);
    }
    return out;
}

/* ---- wmma (PTX ISA 9.7.14.4), f16 and bf16: the fragments are opaque to programs, so here
 * they are mma.sync's m16n8k16 fragments (A: four words per 16 rows, m8 the words of rows
 * 0-7 alone; B: two words per 8 columns; C and D: one m16n8 accumulator per 16 x 8 block,
 * row blocks outer, m8 its rows 0-7 alone), wmma.load / wmma.store this lane's own elements
 * of them, and wmma.mma one ps_mma_amd per block. Word i of an A or B fragment past its
 * distinct words (the ISA gives f16 fragments twice the registers the elements need) is
 * word i mod their count. ---- */

/* (row, col) of 16-bit element i of this lane's A (which 0) or B (1) fragment, or of
 * accumulator element i (2), of an M x N x 16 wmma */
PS_FN void ps_wmma_at_amd(int which, uint32_t M, uint32_t N, uint32_t lane, uint32_t i,
                          uint32_t *row, uint32_t *col) {
    const uint32_t g = lane >> 2, t = lane & 3u, h = i & 1u;
    if (which == 0) {
        const uint32_t w = (i / 2u) % (M / 4u), blk = M == 8 ? 0u : w / 4u,
                       r = M == 8 ? 2u * w : w % 4u;
        *row = 16u * blk + g + 8u * (r & 1u);
        *col = 2u * t + h + 8u * (r >> 1);
    } else if (which == 1) {
        const uint32_t w = (i / 2u) % (N / 4u);
        *row = 2u * t + h + 8u * (w & 1u);
        *col = 8u * (w >> 1) + g;
    } else {
        const uint32_t ec = M == 8 ? 2u : 4u, blk = i / ec, j = i % ec;
        *row = 16u * (blk / (N / 8u)) + g + 8u * (j >> 1);
        *col = 8u * (blk % (N / 8u)) + 2u * t + (j & 1u);
    }
}

/* wmma.load: `words` words of `bits`-bit elements; `stride` in elements, `col_major` how
 * memory holds the matrix */
PS_FN void ps_wmma_load_amd(uint32_t *w, uint32_t words, int which, uint32_t bits, uint32_t M,
                            uint32_t N, const uint8_t *p, uint32_t stride, int col_major) {
    const uint32_t lane = PS_MX_LANE() & 31u, per = 32u / bits;
    for (uint32_t i = 0; i < words; i++) {
        uint32_t v = 0;
        for (uint32_t e = 0; e < per; e++) {
            uint32_t row, col, x = 0;
            ps_wmma_at_amd(which, M, N, lane, i * per + e, &row, &col);
            const uint64_t at = col_major ? (uint64_t)col * stride + row
                                          : (uint64_t)row * stride + col;
            __builtin_memcpy(&x, p + at * (bits / 8u), bits / 8u);
            v |= x << (bits * e);
        }
        w[i] = v;
    }
}

/* wmma.store of a D fragment */
PS_FN void ps_wmma_store_amd(const uint32_t *w, uint32_t words, uint32_t bits, uint32_t M,
                             uint32_t N, uint8_t *p, uint32_t stride, int col_major) {
    const uint32_t lane = PS_MX_LANE() & 31u, per = 32u / bits;
    for (uint32_t i = 0; i < words; i++)
        for (uint32_t e = 0; e < per; e++) {
            uint32_t row, col;
            ps_wmma_at_amd(2, M, N, lane, i * per + e, &row, &col);
            const uint64_t at = col_major ? (uint64_t)col * stride + row
                                          : (uint64_t)row * stride + col;
            const uint32_t x = w[i] >> (bits * e);
            __builtin_memcpy(p + at * (bits / 8u), &x, bits / 8u);
        }
}

/* wmma.mma: in = A (na words), B (nb), C; ty PS_MX_F16 / PS_MX_BF16; c16, d16: f16
 * accumulators. The m8 shape's blocks get zero rows 8-15 (A and C), whose results are
 * dropped. */
PS_FN void ps_wmma_mma_amd(const uint32_t *in, uint32_t *out, int ty, uint32_t M, uint32_t N,
                           uint32_t na, uint32_t nb, int c16, int d16) {
    const uint32_t *A = in, *B = in + na, *C = in + na + nb;
    const uint32_t nbn = N / 8u, nm = M == 8 ? 1u : M / 16u, ec = M == 8 ? 2u : 4u;
    const uint32_t cw = c16 ? ec / 2u : ec, dw = d16 ? ec / 2u : ec;
    for (uint32_t mb = 0; mb < nm; mb++)
        for (uint32_t nk = 0; nk < nbn; nk++) {
            uint32_t x[10] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0}, o[4];
            if (M == 8) {
                x[0] = A[0];
                x[2] = A[1];
            } else {
                for (uint32_t r = 0; r < 4; r++) x[r] = A[4 * mb + r];
            }
            x[4] = B[2 * nk];
            x[5] = B[2 * nk + 1];
            const uint32_t blk = mb * nbn + nk;
            for (uint32_t j = 0; j < cw; j++) x[6 + j] = C[blk * cw + j];
            ps_mma_amd(x, o, ty, 0, 0, 16u, 16u, 4u, 2u, c16, d16, 0);
            for (uint32_t j = 0; j < dw; j++) out[blk * dw + j] = o[j];
        }
}
