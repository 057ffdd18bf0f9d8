/* pyshim PTX prelude: warp-level matrix instructions (PTX ISA 9.7.14 "Warp-level matrix
 * multiply-accumulate", 9.7.9 ldmatrix / stmatrix / movmatrix), written as functions of the
 * whole warp's fragments.
 *
 * Each lane brings its input registers and an address; a target's exchange (mma_cpu.h on
 * the CPU device) gathers the warp's into one ps_wwarp (register by register, lane by lane)
 * with the mask of the lanes that arrived (a lane that did not: its fragment reads as zeros
 * and gets no result), and the function computes every lane's outputs. The fragment layouts are
 * the ISA manual's: groupID g = lane >> 2, threadID_in_group t = lane & 3, and for an
 * element i of a fragment register r (e elements per 32-bit register):
 *   A[m16]:  row g + 8 (r & 1), col t e + i + (K / 2)(r >> 1)     (m8: row g)
 *   B:       row t e + i + (K / 2) r, col g
 *   C, D:    row g + 8 (j >> 1), col 2 t + (j & 1) for the j-th accumulator element
 * which is each of the manual's per-shape figures (m16n8k4/k8/k16/k32/k64/k128/k256,
 * m8n8k4 f64, m8n8k16/k32/k128) in one formula.
 *
 * Accumulation (what the tests check against): floating-point inputs (f16, bf16, tf32,
 * e4m3, e5m2) are products exact in f32, summed into the f32 accumulator in k order
 * starting from C, one rounding per addition; an f16 accumulator is computed in f32 and
 * rounded once to f16 at the end; f64 is a chain of fused multiply-adds in k order; integer
 * mma is exact (64-bit sums), wrapping to 32 bits, or clamped with .satfinite. */

typedef struct ps_wrec {
    uint32_t in[32];       /* A, then B, then C registers (32-bit words) */
    uint32_t out[16];      /* D registers */
    uint8_t *addr;         /* ldmatrix / stmatrix: this lane's row address */
    uint32_t done;         /* set once the warp's result is in out[] */
    uint32_t pad;
} ps_wrec;

/* A warp's records as the whole-warp functions read them: word i of lane l is
 * PS_W_IN(w, i, l), at in[i * stride + l], so a fragment register over the warp is one
 * contiguous row (for m16n8k16 f16 the A register r over the 32 lanes is an 8 x 8 block of
 * A, row-major). The CPU's phase form keeps these rows for the whole block (stride = its
 * thread count), so lanes in lockstep deposit a register with one vector store. `mask`: the
 * lanes that arrived. */
typedef struct ps_wwarp {
    uint32_t *in;          /* 32 rows */
    uint32_t *out;         /* 16 rows */
    uint8_t **addr;        /* one row */
    uint64_t stride;
} ps_wwarp;
#define PS_W_IN(w, i, l) ((w)->in[(uint64_t)(i) * (w)->stride + (l)])
#define PS_W_OUT(w, i, l) ((w)->out[(uint64_t)(i) * (w)->stride + (l)])

typedef void (*ps_warp_fn)(ps_wwarp *w, uint32_t mask, const void *desc);

PS_FN int ps_lane_in(const ps_wwarp *w, uint32_t mask, uint32_t l, uint32_t *words,
                     uint32_t n) {
    if (!((mask >> l) & 1u)) return 0;
    for (uint32_t i = 0; i < n; i++) words[i] = PS_W_IN(w, i, l);
    return 1;
}

enum {
    PS_MT_F16 = 0, PS_MT_BF16, PS_MT_TF32, PS_MT_F64, PS_MT_S8, PS_MT_U8, PS_MT_S4, PS_MT_U4,
    PS_MT_B1, PS_MT_E4M3, PS_MT_E5M2, PS_MT_F32, PS_MT_S32
};

typedef struct ps_mma_desc {
    uint16_t m, n, k;      /* shape */
    uint8_t a, b, c, d;    /* PS_MT_* of A, B, C, D */
    uint8_t na, nb, nc;    /* words of A, B, C (D has nc) */
    uint8_t sat;           /* .satfinite (integer: clamp to s32) */
    uint8_t bop;           /* b1: 0 .and.popc, 1 .xor.popc */
} ps_mma_desc;

PS_FN uint32_t ps_mt_bits(int t) {
    switch (t) {
    case PS_MT_F16: case PS_MT_BF16: return 16;
    case PS_MT_TF32: case PS_MT_F32: case PS_MT_S32: return 32;
    case PS_MT_F64: return 64;
    case PS_MT_S4: case PS_MT_U4: return 4;
    case PS_MT_B1: return 1;
    default: return 8;
    }
}

/* FP8 (PTX ISA 5.2.5.1): e4m3 has no infinities and one NaN encoding per sign; e5m2 is the
 * upper byte of an f16 */
PS_FN float ps_e4m3_to_f(uint32_t b) {
    uint32_t s = (b >> 7) & 1u, e = (b >> 3) & 15u, m = b & 7u;
    float v;
    if (e == 15u && m == 7u) v = ps_u2f(0x7fffffffu);
    else if (e == 0u) v = (float)m * 0x1p-9f;
    else v = ps_u2f(((e + 120u) << 23) | (m << 20));
    return s ? -v : v;
}
PS_FN float ps_e5m2_to_f(uint32_t b) { return ps_h2f((uint16_t)(b << 8)); }

/* element `i` of a fragment of `w`-bit elements held in words[] */
PS_FN uint32_t ps_frag_bits(const uint32_t *words, uint32_t i, uint32_t w) {
    uint32_t e = 32u / w;
    return (words[i / e] >> ((i % e) * w)) & (w == 32 ? 0xffffffffu : ((1u << w) - 1u));
}

PS_FN float ps_mt_float(int t, uint32_t v) {
    switch (t) {
    case PS_MT_F16: return ps_h2f((uint16_t)v);
    case PS_MT_BF16: return ps_bf2f((uint16_t)v);
    case PS_MT_TF32: return ps_u2f(v & 0xffffe000u);  /* the tensor core reads 10 mantissa bits */
    case PS_MT_E4M3: return ps_e4m3_to_f(v);
    case PS_MT_E5M2: return ps_e5m2_to_f(v);
    default: return ps_u2f(v);
    }
}
PS_FN int32_t ps_mt_int(int t, uint32_t v) {
    switch (t) {
    case PS_MT_S8: return (int32_t)(int8_t)v;
    case PS_MT_S4: return (int32_t)(v << 28) >> 28;
    default: return (int32_t)v;
    }
}

/* n raw elements of type t -> floats (one loop per type, so each vectorises) */
PS_FN void ps_mt_decode(int t, const uint32_t *in, float *out, uint32_t n) {
    switch (t) {
    case PS_MT_F16: for (uint32_t i = 0; i < n; i++) out[i] = ps_h2f((uint16_t)in[i]); break;
    case PS_MT_BF16: for (uint32_t i = 0; i < n; i++) out[i] = ps_u2f(in[i] << 16); break;
    case PS_MT_TF32: for (uint32_t i = 0; i < n; i++) out[i] = ps_u2f(in[i] & 0xffffe000u); break;
    default: for (uint32_t i = 0; i < n; i++) out[i] = ps_mt_float(t, in[i]); break;
    }
}

/* the (row, col) of element i of a lane's A fragment, B fragment (row = k, col = n) and
 * accumulator */
PS_FN void ps_mma_a_at(const ps_mma_desc *d, uint32_t lane, uint32_t i, uint32_t *row,
                       uint32_t *col) {
    uint32_t w = ps_mt_bits(d->a), e = w >= 32 ? 1u : 32u / w, r = i / e, s = i % e;
    *row = (lane >> 2) + (d->m == 16 ? 8u * (r & 1u) : 0u);
    *col = (lane & 3u) * e + s + (d->k / 2u) * (d->m == 16 ? r >> 1 : 0u);
}
PS_FN void ps_mma_b_at(const ps_mma_desc *d, uint32_t lane, uint32_t i, uint32_t *row,
                       uint32_t *col) {
    uint32_t w = ps_mt_bits(d->b), e = w >= 32 ? 1u : 32u / w, r = i / e, s = i % e;
    *row = (lane & 3u) * e + s + (d->k / 2u) * r;
    *col = lane >> 2;
}
PS_FN void ps_mma_c_at(uint32_t lane, uint32_t j, uint32_t *row, uint32_t *col) {
    *row = (lane >> 2) + 8u * (j >> 1);
    *col = 2u * (lane & 3u) + (j & 1u);
}

PS_FN uint64_t ps_word64(const uint32_t *w, uint32_t i) {
    return (uint64_t)w[2 * i] | ((uint64_t)w[2 * i + 1] << 32);
}

/* ---- the whole warp's m16n8k8 / m16n8k16 f16 and bf16 mma (f16 or f32 accumulator), all
 * 32 lanes present: the fragments as dense tiles, then a rank-1 update per k over rows of 8
 * (vector extensions: clang and gcc make AVX2 / AVX-512 of them where the kernel compiler's
 * target has them, SSE otherwise). The same sums in the same order as ps_mma_warp's
 * general loop: C[m][n] + A[m][0] B[0][n] + A[m][1] B[1][n] + ..., each product exact in
 * f32, then rounded once per addition (no contraction: -ffp-contract=off, and fma would
 * differ from it for bf16 products beyond f32's range). */
typedef float ps_v8f __attribute__((vector_size(32)));

/* ps_h2f without branches (the same value for every input), so its loops vectorise */
PS_FN float ps_h2f_sel(uint32_t h) {
    uint32_t s = (h & 0x8000u) << 16, e = (h >> 10) & 0x1fu, m = h & 0x3ffu;
    uint32_t sub = ps_f2u((float)m * (1.0f / 16777216.0f)) | s;
    uint32_t big = s | 0x7f800000u | (m << 13), normal = s | ((e + 112u) << 23) | (m << 13);
    return ps_u2f(e == 0x1fu ? big : e == 0u ? sub : normal);
}

/* f16 -> f32 for the tiles: F16C's conversion where the compiler has it (the same value:
 * a signalling NaN comes out quiet, as the first addition would make it anyway) */
PS_FN float ps_h2f_tile(uint32_t h) {
#if defined(__clang__) && defined(__F16C__)
    uint16_t u = (uint16_t)h;
    _Float16 x;
    __builtin_memcpy(&x, &u, 2);
    return (float)x;
#else
    return ps_h2f_sel(h);
#endif
}

/* The fragments over the warp are dense blocks already: A register r (rows 8 (r & 1),
 * columns 8 (r >> 1)) and B register r (B^T rows g, columns 8 r) are 8 x 8 row-major
 * blocks of 16-bit elements; C registers 2 h and 2 h + 1, interleaved, are rows 8 h to
 * 8 h + 7 of C. Each block is converted whole into a contiguous buffer first (one vector
 * conversion per 16 elements) and then moved by rows: converting straight into A's
 * columns made the compiler scatter. The update runs k outermost with the 16 rows'
 * accumulators side by side: with m outermost each row's 16 additions were one dependent
 * chain (the adder's latency, not its throughput, set the pace). */
#if defined(__clang__) && defined(__F16C__)
typedef _Float16 ps_v16h __attribute__((vector_size(32)));
typedef float ps_v16f __attribute__((vector_size(64)));
#endif
PS_FN __attribute__((always_inline)) void
ps_mma_f16_cvt64(const uint32_t *src, float *dst, const int bf) {
#if defined(__clang__) && defined(__F16C__)
    /* whole vectors: element by element, clang converted 4 at a time and stored them in
     * pieces that the wider loads after them could not forward from */
    if (!bf) {
        for (uint32_t q = 0; q < 4; q++) {
            ps_v16h x;
            __builtin_memcpy(&x, src + 8 * q, sizeof x);
            const ps_v16f y = __builtin_convertvector(x, ps_v16f);
            __builtin_memcpy(dst + 16 * q, &y, sizeof y);
        }
        return;
    }
#endif
    uint16_t h[64];
    __builtin_memcpy(h, src, sizeof h);
    for (uint32_t e = 0; e < 64; e++)
        dst[e] = bf ? ps_u2f((uint32_t)h[e] << 16) : ps_h2f_tile(h[e]);
}

PS_FN __attribute__((always_inline)) void
ps_mma_f16_tile(ps_wwarp *W, const uint32_t K, const int bf, const int cf16, const int df16) {
    const uint32_t na = K / 4u, nb = K / 8u;
    const uint64_t st = W->stride;
    const uint32_t *in = W->in;
    uint32_t *out = W->out;
    float A[16][16], B[16][8] __attribute__((aligned(32)));
    float C[16][8] __attribute__((aligned(32)));
    float f[64] __attribute__((aligned(32)));
#pragma GCC unroll 4
    for (uint32_t r = 0; r < na; r++) {
        ps_mma_f16_cvt64(in + r * st, f, bf);
        const uint32_t rb = 8u * (r & 1u), cb = 8u * (r >> 1);
#pragma GCC unroll 8
        for (uint32_t g = 0; g < 8; g++) __builtin_memcpy(&A[rb + g][cb], f + 8 * g, 32);
    }
#pragma GCC unroll 2
    for (uint32_t r = 0; r < nb; r++) {
        ps_mma_f16_cvt64(in + (na + r) * st, f, bf);
#pragma GCC unroll 8
        for (uint32_t c = 0; c < 8; c++)
#pragma GCC unroll 8
            for (uint32_t g = 0; g < 8; g++) B[8u * r + c][g] = f[8 * g + c];
    }
    float *Cf = &C[0][0];
    if (cf16) {
        for (uint32_t w = 0; w < 2; w++) ps_mma_f16_cvt64(in + (na + nb + w) * st, Cf + 64 * w, 0);
    } else {
        for (uint32_t w = 0; w < 2; w++) {
            const uint32_t *c0 = in + (na + nb + 2 * w) * st, *c1 = c0 + st;
            for (uint32_t l = 0; l < 32; l++) {
                Cf[64 * w + 2 * l] = ps_u2f(c0[l]);
                Cf[64 * w + 2 * l + 1] = ps_u2f(c1[l]);
            }
        }
    }
    ps_v8f acc[16];
#pragma GCC unroll 16
    for (uint32_t m = 0; m < 16; m++) __builtin_memcpy(&acc[m], C[m], sizeof acc[m]);
    for (uint32_t k = 0; k < K; k++) {
        ps_v8f b;
        __builtin_memcpy(&b, B[k], sizeof b);
#pragma GCC unroll 16
        for (uint32_t m = 0; m < 16; m++) {
            const float a = A[m][k];
            acc[m] = acc[m] + (ps_v8f){a, a, a, a, a, a, a, a} * b;
        }
    }
#pragma GCC unroll 16
    for (uint32_t m = 0; m < 16; m++) __builtin_memcpy(C[m], &acc[m], sizeof acc[m]);
    if (df16) {
        for (uint32_t w = 0; w < 2; w++)
            for (uint32_t l = 0; l < 32; l++)
                out[w * st + l] = (uint32_t)ps_f2h(Cf[64 * w + 2 * l])
                                  | ((uint32_t)ps_f2h(Cf[64 * w + 2 * l + 1]) << 16);
    } else {
        for (uint32_t w = 0; w < 2; w++) {
            uint32_t *d0 = out + 2 * w * st, *d1 = d0 + st;
            for (uint32_t l = 0; l < 32; l++) {
                d0[l] = ps_f2u(Cf[64 * w + 2 * l]);
                d1[l] = ps_f2u(Cf[64 * w + 2 * l + 1]);
            }
        }
    }
}

/* whether ps_mma_f16_tile did this mma */
PS_FN int ps_mma_fast(ps_wwarp *W, uint32_t mask, const ps_mma_desc *d) {
    if (mask != 0xffffffffu || d->m != 16 || (d->k != 16 && d->k != 8)
        || (d->a != PS_MT_F16 && d->a != PS_MT_BF16) || d->b != d->a
        || (d->c != PS_MT_F32 && d->c != PS_MT_F16) || (d->d != PS_MT_F32 && d->d != PS_MT_F16))
        return 0;
    const int bf = d->a == PS_MT_BF16, cf = d->c == PS_MT_F16, df = d->d == PS_MT_F16;
    /* one instance per combination, each with constant loop bounds */
#define PS_MMA_TILE(K, B, CF, DF) if (d->k == K && bf == B && cf == CF && df == DF) \
        { ps_mma_f16_tile(W, K, B, CF, DF); return 1; }
    PS_MMA_TILE(16, 0, 0, 0) PS_MMA_TILE(16, 0, 1, 1) PS_MMA_TILE(16, 0, 1, 0)
    PS_MMA_TILE(16, 0, 0, 1) PS_MMA_TILE(8, 0, 0, 0) PS_MMA_TILE(8, 0, 1, 1)
    PS_MMA_TILE(8, 0, 1, 0) PS_MMA_TILE(8, 0, 0, 1) PS_MMA_TILE(16, 1, 0, 0)
    PS_MMA_TILE(8, 1, 0, 0)
#undef PS_MMA_TILE
    return 0;
}

/* mma.sync.aligned for one warp */
PS_FN void ps_mma_warp(ps_wwarp *W, uint32_t mask, const void *dp) {
    const ps_mma_desc *d = (const ps_mma_desc *)dp;
    const uint32_t nin = (uint32_t)d->na + d->nb + d->nc;
    uint32_t rin[32];
    if (ps_mma_fast(W, mask, d)) return;
    const uint32_t M = d->m, N = 8, K = d->k;
    const uint32_t ea = M * K / 32u, eb = K * N / 32u, ec = M * N / 32u;
    const uint32_t wa = ps_mt_bits(d->a), wb = ps_mt_bits(d->b);
    if (d->a == PS_MT_F64) {
        double A[8][4] = {{0}}, B[4][8] = {{0}}, C[8][8] = {{0}};
        for (uint32_t l = 0; l < 32; l++) {
            if (!ps_lane_in(W, mask, l, rin, nin)) continue;
            uint32_t row, col;
            ps_mma_a_at(d, l, 0, &row, &col);
            A[row][col] = ps_u2d(ps_word64(rin, 0));
            ps_mma_b_at(d, l, 0, &row, &col);
            B[row][col] = ps_u2d(ps_word64(rin + d->na, 0));
            for (uint32_t j = 0; j < ec; j++) {
                ps_mma_c_at(l, j, &row, &col);
                C[row][col] = ps_u2d(ps_word64(rin + d->na + d->nb, j));
            }
        }
        for (uint32_t i = 0; i < 8; i++)
            for (uint32_t k = 0; k < 4; k++)
                for (uint32_t j = 0; j < 8; j++) C[i][j] = fma(A[i][k], B[k][j], C[i][j]);
        for (uint32_t l = 0; l < 32; l++) {
            if (!((mask >> l) & 1u)) continue;
            for (uint32_t j = 0; j < ec; j++) {
                uint32_t row, col;
                ps_mma_c_at(l, j, &row, &col);
                uint64_t u = ps_d2u(C[row][col]);
                PS_W_OUT(W, 2 * j, l) = (uint32_t)u;
                PS_W_OUT(W, 2 * j + 1, l) = (uint32_t)(u >> 32);
            }
        }
        return;
    }
    if (d->a == PS_MT_B1) {
        /* rows of A and columns of B as bit strings: D = C + popc(A_row op B_col) */
        uint32_t A[16][8] = {{0}}, B[8][8] = {{0}};
        int32_t C[16][8] = {{0}};
        for (uint32_t l = 0; l < 32; l++) {
            if (!ps_lane_in(W, mask, l, rin, nin)) continue;
            for (uint32_t i = 0; i < ea; i++) {
                uint32_t row, col;
                ps_mma_a_at(d, l, i, &row, &col);
                A[row][col >> 5] |= ps_frag_bits(rin, i, 1) << (col & 31u);
            }
            for (uint32_t i = 0; i < eb; i++) {
                uint32_t row, col;
                ps_mma_b_at(d, l, i, &row, &col);
                B[col][row >> 5] |= ps_frag_bits(rin + d->na, i, 1) << (row & 31u);
            }
            for (uint32_t j = 0; j < ec; j++) {
                uint32_t row, col;
                ps_mma_c_at(l, j, &row, &col);
                C[row][col] = (int32_t)rin[d->na + d->nb + j];
            }
        }
        for (uint32_t i = 0; i < M; i++)
            for (uint32_t j = 0; j < N; j++) {
                uint32_t acc = (uint32_t)C[i][j];
                for (uint32_t w = 0; w < K / 32u; w++)
                    acc += ps_popc32(d->bop ? (A[i][w] ^ B[j][w]) : (A[i][w] & B[j][w]));
                C[i][j] = (int32_t)acc;
            }
        for (uint32_t l = 0; l < 32; l++) {
            if (!((mask >> l) & 1u)) continue;
            for (uint32_t j = 0; j < ec; j++) {
                uint32_t row, col;
                ps_mma_c_at(l, j, &row, &col);
                PS_W_OUT(W, j, l) = (uint32_t)C[row][col];
            }
        }
        return;
    }
    if (d->a <= PS_MT_U4 && d->a >= PS_MT_S8) {
        int32_t A[16][64] = {{0}}, B[64][8] = {{0}};
        int64_t C[16][8] = {{0}};
        for (uint32_t l = 0; l < 32; l++) {
            if (!ps_lane_in(W, mask, l, rin, nin)) continue;
            for (uint32_t i = 0; i < ea; i++) {
                uint32_t row, col;
                ps_mma_a_at(d, l, i, &row, &col);
                A[row][col] = ps_mt_int(d->a, ps_frag_bits(rin, i, wa));
            }
            for (uint32_t i = 0; i < eb; i++) {
                uint32_t row, col;
                ps_mma_b_at(d, l, i, &row, &col);
                B[row][col] = ps_mt_int(d->b, ps_frag_bits(rin + d->na, i, wb));
            }
            for (uint32_t j = 0; j < ec; j++) {
                uint32_t row, col;
                ps_mma_c_at(l, j, &row, &col);
                C[row][col] = (int32_t)rin[d->na + d->nb + j];
            }
        }
        /* |a b| < 2^16 per product, at most 64 of them: the sums are exact in 64 bits */
        for (uint32_t i = 0; i < M; i++)
            for (uint32_t k = 0; k < K; k++)
                for (uint32_t j = 0; j < N; j++) C[i][j] += (int64_t)A[i][k] * B[k][j];
        for (uint32_t l = 0; l < 32; l++) {
            if (!((mask >> l) & 1u)) continue;
            for (uint32_t j = 0; j < ec; j++) {
                uint32_t row, col;
                ps_mma_c_at(l, j, &row, &col);
                int64_t v = C[row][col];
                PS_W_OUT(W, j, l) = d->sat ? (uint32_t)ps_sat_s64_to_s32(v) : (uint32_t)v;
            }
        }
        return;
    }
    /* floating point: f16, bf16, tf32, e4m3, e5m2 (K <= 32): the raw elements first, then
     * one decoding loop per matrix (the type switch outside the loops) */
    uint32_t RA[16 * 32] = {0}, RB[32 * 8] = {0};
    float A[16][32], B[32][8], C[16][8] = {{0}};
    for (uint32_t l = 0; l < 32; l++) {
        if (!ps_lane_in(W, mask, l, rin, nin)) continue;
        for (uint32_t i = 0; i < ea; i++) {
            uint32_t row, col;
            ps_mma_a_at(d, l, i, &row, &col);
            RA[row * 32 + col] = ps_frag_bits(rin, i, wa);
        }
        for (uint32_t i = 0; i < eb; i++) {
            uint32_t row, col;
            ps_mma_b_at(d, l, i, &row, &col);
            RB[row * 8 + col] = ps_frag_bits(rin + d->na, i, wb);
        }
        for (uint32_t j = 0; j < ec; j++) {
            uint32_t row, col;
            ps_mma_c_at(l, j, &row, &col);
            const uint32_t *cw = rin + d->na + d->nb;
            C[row][col] = d->c == PS_MT_F16 ? ps_h2f((uint16_t)(cw[j / 2] >> (16 * (j & 1))))
                                            : ps_u2f(cw[j]);
        }
    }
    ps_mt_decode(d->a, &RA[0], &A[0][0], 16 * 32);
    ps_mt_decode(d->b, &RB[0], &B[0][0], 32 * 8);
    for (uint32_t i = 0; i < M; i++)
        for (uint32_t k = 0; k < K; k++)
            for (uint32_t j = 0; j < N; j++) C[i][j] += A[i][k] * B[k][j];
    for (uint32_t l = 0; l < 32; l++) {
        if (!((mask >> l) & 1u)) continue;
        if (d->d == PS_MT_F16) PS_W_OUT(W, 0, l) = PS_W_OUT(W, 1, l) = 0;
        for (uint32_t j = 0; j < ec; j++) {
            uint32_t row, col;
            ps_mma_c_at(l, j, &row, &col);
            if (d->d == PS_MT_F16)
                PS_W_OUT(W, j / 2, l) |= (uint32_t)ps_f2h(C[row][col]) << (16 * (j & 1));
            else
                PS_W_OUT(W, j, l) = ps_f2u(C[row][col]);
        }
    }
}

/* ldmatrix / stmatrix .m8n8 .b16 (PTX ISA 9.7.9.27, 9.7.9.28): matrix j's row r is at the
 * address lane 8 j + r gives; lane l holds, in register j, the 32-bit word l & 3 of row
 * l >> 2 (.trans: halves h = 0, 1 are elements (2 (l & 3) + h, l >> 2)). desc: the number
 * of matrices, .trans */
typedef struct ps_ldm_desc { uint8_t count, trans; } ps_ldm_desc;

PS_FN void ps_ldmatrix_warp(ps_wwarp *W, uint32_t mask, const void *dp) {
    const ps_ldm_desc *d = (const ps_ldm_desc *)dp;
    for (uint32_t l = 0; l < 32; l++) {
        if (!((mask >> l) & 1u)) continue;
        for (uint32_t j = 0; j < d->count; j++) {
            if (!d->trans) {
                const uint32_t s = 8 * j + (l >> 2);
                uint32_t v = 0;
                if ((mask >> s) & 1u) __builtin_memcpy(&v, W->addr[s] + 4 * (l & 3u), 4);
                PS_W_OUT(W, j, l) = v;
            } else {
                uint32_t v = 0;
                for (uint32_t h = 0; h < 2; h++) {
                    const uint32_t s = 8 * j + 2 * (l & 3u) + h;
                    uint16_t x = 0;
                    if ((mask >> s) & 1u) __builtin_memcpy(&x, W->addr[s] + 2 * (l >> 2), 2);
                    v |= (uint32_t)x << (16 * h);
                }
                PS_W_OUT(W, j, l) = v;
            }
        }
    }
}

PS_FN void ps_stmatrix_warp(ps_wwarp *W, uint32_t mask, const void *dp) {
    const ps_ldm_desc *d = (const ps_ldm_desc *)dp;
    for (uint32_t l = 0; l < 32; l++) {
        if (!((mask >> l) & 1u)) continue;
        for (uint32_t j = 0; j < d->count; j++) {
            if (!d->trans) {
                const uint32_t s = 8 * j + (l >> 2);
                if ((mask >> s) & 1u) __builtin_memcpy(W->addr[s] + 4 * (l & 3u), &PS_W_IN(W, j, l), 4);
            } else {
                for (uint32_t h = 0; h < 2; h++) {
                    const uint32_t s = 8 * j + 2 * (l & 3u) + h;
                    uint16_t x = (uint16_t)(PS_W_IN(W, j, l) >> (16 * h));
                    if ((mask >> s) & 1u) __builtin_memcpy(W->addr[s] + 2 * (l >> 2), &x, 2);
                }
            }
        }
    }
}

/* movmatrix.sync.aligned.m8n8.trans.b16 (PTX ISA 9.7.14.5.17): the transpose of an 8x8
 * matrix held in the ldmatrix fragment layout */
PS_FN void ps_movmatrix_warp(ps_wwarp *W, uint32_t mask, const void *dp) {
    (void)dp;
    for (uint32_t l = 0; l < 32; l++) {
        if (!((mask >> l) & 1u)) continue;
        uint32_t v = 0;
        for (uint32_t h = 0; h < 2; h++) {
            uint32_t row = 2 * (l & 3u) + h, col = l >> 2;   /* element (row, col) of the source */
            const uint32_t s = 4 * row + col / 2;
            uint32_t x = ((mask >> s) & 1u) ? (PS_W_IN(W, 0, s) >> (16 * (col & 1u))) & 0xffffu : 0u;
            v |= x << (16 * h);
        }
        PS_W_OUT(W, 0, l) = v;
    }
}

/* wmma (PTX ISA 9.7.14.4): the fragments are opaque to programs, so pyshim picks the layout:
 * element e of a lane holding E elements of an R x C matrix is element (l E + e) mod (R C)
 * in row-major order (A and B fragments of f16 hold the matrix twice, as NVIDIA's do).
 * wmma.load and wmma.store need no other lane; wmma.mma gathers the warp's fragments. */
typedef struct ps_wmma_desc {
    uint16_t m, n, k;
    uint8_t a, b, c, d, na, nb, nc, nd, sat;
} ps_wmma_desc;

PS_FN uint32_t ps_wmma_elems(uint32_t words, int t) {
    uint32_t w = ps_mt_bits(t);
    return w == 64 ? words / 2 : words * (32u / w);
}

/* element e of the fragment of lane `lane`: its (row, col) in an R x C matrix */
PS_FN void ps_wmma_at(uint32_t lane, uint32_t e, uint32_t E, uint32_t R, uint32_t C,
                      uint32_t *row, uint32_t *col) {
    uint32_t lin = (lane * E + e) % (R * C);
    *row = lin / C;
    *col = lin % C;
}

PS_FN uint64_t ps_wmma_elem_get(const uint32_t *w, uint32_t e, int t) {
    uint32_t b = ps_mt_bits(t);
    if (b == 64) return ps_word64(w, e);
    return ps_frag_bits(w, e, b);
}
PS_FN void ps_wmma_elem_put(uint32_t *w, uint32_t e, int t, uint64_t v) {
    uint32_t b = ps_mt_bits(t);
    if (b == 64) { w[2 * e] = (uint32_t)v; w[2 * e + 1] = (uint32_t)(v >> 32); return; }
    uint32_t per = 32u / b, sh = (e % per) * b;
    uint32_t mask = b == 32 ? 0xffffffffu : ((1u << b) - 1u);
    w[e / per] = (w[e / per] & ~(mask << sh)) | (((uint32_t)v & mask) << sh);
}

/* wmma.load / wmma.store for this lane: `col_major` says how memory holds the matrix,
 * `stride` is in elements */
PS_FN void ps_wmma_load(uint32_t lane, uint32_t *w, uint32_t words, int t, uint32_t R,
                        uint32_t C, const uint8_t *p, uint32_t stride, int col_major) {
    uint32_t E = ps_wmma_elems(words, t), bits = ps_mt_bits(t);
    for (uint32_t i = 0; i < words; i++) w[i] = 0;
    for (uint32_t e = 0; e < E; e++) {
        uint32_t row, col;
        ps_wmma_at(lane, e, E, R, C, &row, &col);
        uint64_t idx = col_major ? (uint64_t)col * stride + row : (uint64_t)row * stride + col;
        uint64_t v = 0;
        if (bits >= 8) __builtin_memcpy(&v, p + idx * (bits / 8), bits / 8);
        else v = (p[idx * bits / 8] >> ((idx * bits) % 8)) & ((1u << bits) - 1u);
        ps_wmma_elem_put(w, e, t, v);
    }
}
PS_FN void ps_wmma_store(uint32_t lane, const uint32_t *w, uint32_t words, int t, uint32_t R,
                         uint32_t C, uint8_t *p, uint32_t stride, int col_major) {
    uint32_t E = ps_wmma_elems(words, t), bits = ps_mt_bits(t);
    for (uint32_t e = 0; e < E; e++) {
        uint32_t row, col;
        ps_wmma_at(lane, e, E, R, C, &row, &col);
        uint64_t idx = col_major ? (uint64_t)col * stride + row : (uint64_t)row * stride + col;
        uint64_t v = ps_wmma_elem_get(w, e, t);
        __builtin_memcpy(p + idx * (bits / 8), &v, bits / 8);
    }
}

PS_FN void ps_wmma_mma_warp(ps_wwarp *W, uint32_t mask, const void *dp) {
    const ps_wmma_desc *d = (const ps_wmma_desc *)dp;
    const uint32_t nin = (uint32_t)d->na + d->nb + d->nc;
    uint32_t rin[32];
    const uint32_t M = d->m, N = d->n, K = d->k;
    const uint32_t Ea = ps_wmma_elems(d->na, d->a), Eb = ps_wmma_elems(d->nb, d->b),
                   Ec = ps_wmma_elems(d->nc, d->c), Ed = ps_wmma_elems(d->nd, d->d);
    const int fp = d->a == PS_MT_F16 || d->a == PS_MT_BF16 || d->a == PS_MT_TF32;
    const int f64 = d->a == PS_MT_F64;
    /* up to 32 x 16 (A), 16 x 32 (B), 32 x 32 (C) */
    static __thread double A[32 * 16], B[16 * 32], C[32 * 32];
    static __thread int64_t IA[32 * 32], IB[32 * 32], IC[32 * 32];
    float FA[32 * 16], FB[16 * 32], FC[32 * 32];
    for (uint32_t i = 0; i < M * K; i++) { FA[i] = 0; A[i] = 0; IA[i] = 0; }
    for (uint32_t i = 0; i < K * N; i++) { FB[i] = 0; B[i] = 0; IB[i] = 0; }
    for (uint32_t i = 0; i < M * N; i++) { FC[i] = 0; C[i] = 0; IC[i] = 0; }
    for (uint32_t l = 0; l < 32; l++) {
        if (!ps_lane_in(W, mask, l, rin, nin)) continue;
        const uint32_t *wa = rin, *wb = rin + d->na, *wc = rin + d->na + d->nb;
        for (uint32_t e = 0; e < Ea; e++) {
            uint32_t row, col;
            ps_wmma_at(l, e, Ea, M, K, &row, &col);
            uint64_t v = ps_wmma_elem_get(wa, e, d->a);
            if (fp) FA[row * K + col] = ps_mt_float(d->a, (uint32_t)v);
            else if (f64) A[row * K + col] = ps_u2d(v);
            else IA[row * K + col] = ps_mt_int(d->a, (uint32_t)v);
        }
        for (uint32_t e = 0; e < Eb; e++) {
            uint32_t row, col;
            ps_wmma_at(l, e, Eb, K, N, &row, &col);
            uint64_t v = ps_wmma_elem_get(wb, e, d->b);
            if (fp) FB[row * N + col] = ps_mt_float(d->b, (uint32_t)v);
            else if (f64) B[row * N + col] = ps_u2d(v);
            else IB[row * N + col] = ps_mt_int(d->b, (uint32_t)v);
        }
        for (uint32_t e = 0; e < Ec; e++) {
            uint32_t row, col;
            ps_wmma_at(l, e, Ec, M, N, &row, &col);
            uint64_t v = ps_wmma_elem_get(wc, e, d->c);
            if (fp) FC[row * N + col] = d->c == PS_MT_F16 ? ps_h2f((uint16_t)v) : ps_u2f((uint32_t)v);
            else if (f64) C[row * N + col] = ps_u2d(v);
            else IC[row * N + col] = (int32_t)(uint32_t)v;
        }
    }
    for (uint32_t i = 0; i < M; i++)
        for (uint32_t k = 0; k < K; k++) {
            if (fp) for (uint32_t j = 0; j < N; j++) FC[i * N + j] += FA[i * K + k] * FB[k * N + j];
            else if (f64) for (uint32_t j = 0; j < N; j++)
                C[i * N + j] = fma(A[i * K + k], B[k * N + j], C[i * N + j]);
            else for (uint32_t j = 0; j < N; j++) IC[i * N + j] += IA[i * K + k] * IB[k * N + j];
        }
    for (uint32_t l = 0; l < 32; l++) {
        if (!((mask >> l) & 1u)) continue;
        uint32_t rout[16] = {0};
        for (uint32_t e = 0; e < Ed; e++) {
            uint32_t row, col;
            ps_wmma_at(l, e, Ed, M, N, &row, &col);
            uint64_t v;
            if (fp) v = d->d == PS_MT_F16 ? ps_f2h(FC[row * N + col]) : ps_f2u(FC[row * N + col]);
            else if (f64) v = ps_d2u(C[row * N + col]);
            else v = d->sat ? (uint32_t)ps_sat_s64_to_s32(IC[row * N + col])
                            : (uint32_t)IC[row * N + col];
            ps_wmma_elem_put(rout, e, d->d, v);
        }
        for (uint32_t i = 0; i < d->nd; i++) PS_W_OUT(W, i, l) = rout[i];
    }
}
