/* Host emulation of the primitives preludes/mma_amd.h is written on (lane id, ds_bpermute,
 * the MFMA / WMMA instructions), so that the prelude's own lowering code runs here, one
 * cooperative context per lane, and tests/test_ptx_mma_amd.py checks it against numpy.
 *
 * The matrix instructions are emulated from AMD's documented per-lane layouts (AMD Matrix
 * Instruction Calculator, --register-layout, CDNA3 / RDNA3 / RDNA4), written here as
 * element -> (lane, register) maps, the opposite direction of the prelude's lowering:
 *   4x4x4_16b f16/bf16/i8, 4x4x1_16b f32: block b, A[i][k] at lane 4b + i, element k of the
 *     lane's packed operand; B[k][n] at lane 4b + n, element k; D[i][n] at lane 4b + n, reg i;
 *   WMMA gfx11: A[m][k] at lane m AND lane m + 16 (checked equal: the ISA requires both),
 *     element k; B[k][n] the same with n; D[m][n] at lane n + 16 (m % 2), reg m / 2;
 *   WMMA gfx12: A[m][k] f16/bf16 at lane m + 16 ((k / 4) % 2), element 4 (k / 8) + k % 4;
 *     iu8 at lane m + 16 (k / 8), element k % 8; D[m][n] at lane n + 16 (m / 8), reg m % 8.
 * Products of f16 / bf16 / tf32 inputs are exact in f32 and summed in f32 in k order
 * (the instructions' internal order is not documented; the tests allow any order).
 *
 * Built by the test with -DPS_MX_WAVE=32|64 -DPS_MX_GFX12=0|1. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ucontext.h>

#define PS_MX_EMU 1
#define PS_FN static inline __attribute__((unused))

enum { OP_NONE, OP_PERM, OP_MFMA_F16, OP_MFMA_BF16, OP_MFMA_F32, OP_MFMA_I8, OP_WMMA_F16,
       OP_WMMA_BF16, OP_WMMA_IU8 };

struct lane_state {
    int op;
    uint32_t v, src;               /* perm */
    uint32_t a[8], b[8];           /* matrix operands */
    uint32_t d[8];                 /* accumulator in, result out */
    int sa, sb;
};

static ucontext_t sched_ctx, lane_ctx[64];
static struct lane_state st[64];
static uint32_t cur_lane;
static int failed;
static char fail_msg[256];

static void fail(const char *m) {
    if (!failed) snprintf(fail_msg, sizeof fail_msg, "%s", m);
    failed = 1;
}

/* every lane reaches the same primitive in the same order (the lowering has no divergence):
 * a lane records its operands and yields; when all have, the scheduler performs it */
static void arrive(void) { swapcontext(&lane_ctx[cur_lane], &sched_ctx); }

PS_FN uint32_t PS_MX_LANE(void) { return cur_lane; }
PS_FN uint32_t ps_mx_perm(uint32_t v, uint32_t lane) {
    st[cur_lane].op = OP_PERM;
    st[cur_lane].v = v;
    st[cur_lane].src = lane;
    arrive();
    return st[cur_lane].v;
}

static float u2f(uint32_t u) { float f; memcpy(&f, &u, 4); return f; }
static uint32_t f2u(float f) { uint32_t u; memcpy(&u, &f, 4); return u; }
static float h2f(uint32_t h) { uint16_t b = (uint16_t)h; _Float16 x; memcpy(&x, &b, 2); return (float)x; }

/* element i of a lane's packed operand words (w bits each) */
static uint32_t elem(const uint32_t *words, uint32_t i, uint32_t w) {
    uint32_t per = 32 / w;
    return w == 32 ? words[i] : (words[i / per] >> ((i % per) * w)) & ((1u << w) - 1u);
}
static float fval(int op, uint32_t x) {
    if (op == OP_MFMA_F16 || op == OP_WMMA_F16) return h2f(x);
    if (op == OP_MFMA_BF16 || op == OP_WMMA_BF16) return u2f(x << 16);
    return u2f(x);
}

static void do_mfma4(int op) {
    const uint32_t K = op == OP_MFMA_F32 ? 1 : 4, w = op == OP_MFMA_F32 ? 32 : op == OP_MFMA_I8 ? 8 : 16;
    uint32_t res[64][4];
    for (uint32_t blk = 0; blk < 16; blk++)
        for (uint32_t i = 0; i < 4; i++)
            for (uint32_t n = 0; n < 4; n++) {
                const struct lane_state *la = &st[4 * blk + i], *lb = &st[4 * blk + n];
                const struct lane_state *ld = lb;
                if (op == OP_MFMA_I8) {
                    int32_t acc = (int32_t)ld->d[i];
                    for (uint32_t k = 0; k < K; k++)
                        acc += (int32_t)(int8_t)elem(la->a, k, w) * (int32_t)(int8_t)elem(lb->b, k, w);
                    res[4 * blk + n][i] = (uint32_t)acc;
                } else {
                    float acc = u2f(ld->d[i]);
                    for (uint32_t k = 0; k < K; k++)
                        acc += fval(op, elem(la->a, k, w)) * fval(op, elem(lb->b, k, w));
                    res[4 * blk + n][i] = f2u(acc);
                }
            }
    for (uint32_t l = 0; l < 64; l++) memcpy(st[l].d, res[l], 16);
}

static void do_wmma(int op) {
    const uint32_t w = op == OP_WMMA_IU8 ? 8 : 16;
    uint32_t A[16][16], B[16][16];
    for (uint32_t m = 0; m < 16; m++)
        for (uint32_t k = 0; k < 16; k++) {
            uint32_t la, ia;
            if (!PS_MX_GFX12) {
                la = m; ia = k;
                if (elem(st[m].a, k, w) != elem(st[m + 16].a, k, w) ||
                    elem(st[m].b, k, w) != elem(st[m + 16].b, k, w))
                    fail("WMMA gfx11: lanes 16..31 do not repeat lanes 0..15");
            } else if (w == 16) {
                la = m + 16 * ((k / 4) % 2); ia = 4 * (k / 8) + k % 4;
            } else {
                la = m + 16 * (k / 8); ia = k % 8;
            }
            A[m][k] = elem(st[la].a, ia, w);
            B[k][m] = elem(st[la].b, ia, w);  /* B[k][n]: the same map with n for m */
        }
    uint32_t res[32][8];
    for (uint32_t m = 0; m < 16; m++)
        for (uint32_t n = 0; n < 16; n++) {
            uint32_t lane = PS_MX_GFX12 ? n + 16 * (m / 8) : n + 16 * (m % 2);
            uint32_t reg = PS_MX_GFX12 ? m % 8 : m / 2;
            if (op == OP_WMMA_IU8) {
                int32_t acc = (int32_t)st[lane].d[reg];
                for (uint32_t k = 0; k < 16; k++) {
                    int32_t x = st[0].sa ? (int32_t)(int8_t)A[m][k] : (int32_t)A[m][k];
                    int32_t y = st[0].sb ? (int32_t)(int8_t)B[k][n] : (int32_t)B[k][n];
                    acc += x * y;
                }
                res[lane][reg] = (uint32_t)acc;
            } else {
                float acc = u2f(st[lane].d[reg]);
                for (uint32_t k = 0; k < 16; k++) acc += fval(op, A[m][k]) * fval(op, B[k][n]);
                res[lane][reg] = f2u(acc);
            }
        }
    for (uint32_t l = 0; l < 32; l++) memcpy(st[l].d, res[l], 32);
}

static void matrix_op(int op, const uint32_t *a, const uint32_t *b, uint32_t nw, void *d,
                      uint32_t nd, int sa, int sb) {
    struct lane_state *s = &st[cur_lane];
    s->op = op;
    memcpy(s->a, a, 4 * nw);
    memcpy(s->b, b, 4 * nw);
    memcpy(s->d, d, 4 * nd);
    s->sa = sa;
    s->sb = sb;
    arrive();
    memcpy(d, st[cur_lane].d, 4 * nd);
}

#if PS_MX_WAVE == 64
PS_FN void ps_mx_mfma4_f16(const uint32_t *a, const uint32_t *b, float *d) { matrix_op(OP_MFMA_F16, a, b, 2, d, 4, 1, 1); }
PS_FN void ps_mx_mfma4_bf16(const uint32_t *a, const uint32_t *b, float *d) { matrix_op(OP_MFMA_BF16, a, b, 2, d, 4, 1, 1); }
PS_FN void ps_mx_mfma4_f32(const uint32_t *a, const uint32_t *b, float *d) { matrix_op(OP_MFMA_F32, a, b, 1, d, 4, 1, 1); }
PS_FN void ps_mx_mfma4_i8(const uint32_t *a, const uint32_t *b, int32_t *d) { matrix_op(OP_MFMA_I8, a, b, 1, d, 4, 1, 1); }
#else
#define WW (PS_MX_GFX12 ? 4 : 8)
#define WI (PS_MX_GFX12 ? 2 : 4)
PS_FN void ps_mx_wmma_f16(const uint32_t *a, const uint32_t *b, float *d) { matrix_op(OP_WMMA_F16, a, b, WW, d, 8, 1, 1); }
PS_FN void ps_mx_wmma_bf16(const uint32_t *a, const uint32_t *b, float *d) { matrix_op(OP_WMMA_BF16, a, b, WW, d, 8, 1, 1); }
PS_FN void ps_mx_wmma_iu8(int sa, const uint32_t *a, int sb, const uint32_t *b, int32_t *d) { matrix_op(OP_WMMA_IU8, a, b, WI, d, 8, sa, sb); }
#endif

#include "../../pyshim/ptx/preludes/mma_amd.h"

/* ---- the scheduler ---- */
struct job {
    int kind;  /* 0 mma, 1 ldmatrix, 2 stmatrix, 3 movmatrix */
    int ty, ua, ub, c16, d16, sat;
    uint32_t M, K, na, nb, nin, nout, count;
    const uint32_t *in;
    uint32_t *out;
    const uint8_t *const *addrs;
};
static struct job J;
static int finished[64];

/* a wmma program, as each lane runs it: load A, B and C, mma, store D (each 32-lane half of a
 * wave64 stores its own D) */
struct wjob {
    int ty, c16, d16, col[4];       /* col: A, B, C, D column-major */
    uint32_t M, N, na, nb, nc, nd;
    const uint8_t *p[3];            /* A, B, C */
    uint8_t *d[2];
    uint32_t ld[4];
};
static struct wjob W;

static void wmma_lane(void) {
    uint32_t in[32], out[8];
    const uint32_t cb = W.c16 ? 16u : 32u, db = W.d16 ? 16u : 32u;
    ps_wmma_load_amd(in, W.na, 0, 16u, W.M, W.N, W.p[0], W.ld[0], W.col[0]);
    ps_wmma_load_amd(in + W.na, W.nb, 1, 16u, W.M, W.N, W.p[1], W.ld[1], W.col[1]);
    ps_wmma_load_amd(in + W.na + W.nb, W.nc, 2, cb, W.M, W.N, W.p[2], W.ld[2], W.col[2]);
    ps_wmma_mma_amd(in, out, W.ty, W.M, W.N, W.na, W.nb, W.c16, W.d16);
    ps_wmma_store_amd(out, W.nd, db, W.M, W.N, W.d[cur_lane / 32u], W.ld[3], W.col[3]);
}

static void lane_main(void) {
    uint32_t l = cur_lane;
    if (J.kind == 0)
        ps_mma_amd(J.in + l * J.nin, J.out + l * J.nout, J.ty, J.ua, J.ub, J.M, J.K, J.na, J.nb,
                   J.c16, J.d16, J.sat);
    else if (J.kind == 1)
        ps_ldmatrix_amd(J.addrs[l], J.out + l * J.count, J.count, J.sat);
    else if (J.kind == 4)
        wmma_lane();
    else if (J.kind == 2)
        ps_stmatrix_amd((uint8_t *)J.addrs[l], J.in + l * J.count, J.count, J.sat);
    else
        J.out[l] = ps_movmatrix_amd(J.in[l]);
    finished[l] = 1;
    st[l].op = OP_NONE;
    swapcontext(&lane_ctx[l], &sched_ctx);
}

static int run_wave(void) {
    static char stacks[64][256 * 1024];
    failed = 0;
    for (uint32_t l = 0; l < PS_MX_WAVE; l++) {
        getcontext(&lane_ctx[l]);
        lane_ctx[l].uc_stack.ss_sp = stacks[l];
        lane_ctx[l].uc_stack.ss_size = sizeof stacks[l];
        lane_ctx[l].uc_link = &sched_ctx;
        makecontext(&lane_ctx[l], lane_main, 0);
        finished[l] = 0;
    }
    for (;;) {
        for (uint32_t l = 0; l < PS_MX_WAVE; l++) {
            cur_lane = l;
            swapcontext(&sched_ctx, &lane_ctx[l]);
        }
        int op = st[0].op, done = finished[0];
        for (uint32_t l = 1; l < PS_MX_WAVE; l++)
            if (st[l].op != op || finished[l] != done) {
                fail("lanes reached different primitives");
                return -1;
            }
        if (done) break;
        if (op == OP_PERM) {
            uint32_t v[64];
            for (uint32_t l = 0; l < PS_MX_WAVE; l++) v[l] = st[l].v;
            for (uint32_t l = 0; l < PS_MX_WAVE; l++) st[l].v = v[st[l].src % PS_MX_WAVE];
        } else if (op >= OP_MFMA_F16 && op <= OP_MFMA_I8) {
            do_mfma4(op);
        } else {
            do_wmma(op);
        }
    }
    return failed ? -1 : 0;
}

extern "C" int emu_mma(int ty, int ua, int ub, uint32_t M, uint32_t K, uint32_t na,
                       uint32_t nb, uint32_t nc, uint32_t nd, int c16, int d16, int sat,
                       const uint32_t *in, uint32_t *out) {
    J = (struct job){0, ty, ua, ub, c16, d16, sat, M, K, na, nb, na + nb + nc, nd, 0, in, out, 0};
    return run_wave();
}

extern "C" int emu_ldmatrix(uint32_t count, int trans, const uint8_t *const *addrs,
                            uint32_t *out) {
    J = (struct job){1, 0, 0, 0, 0, 0, trans, 0, 0, 0, 0, 0, 0, count, 0, out, addrs};
    return run_wave();
}

extern "C" int emu_stmatrix(uint32_t count, int trans, const uint8_t *const *addrs,
                            const uint32_t *in) {
    J = (struct job){2, 0, 0, 0, 0, 0, trans, 0, 0, 0, 0, 0, 0, count, in, 0, addrs};
    return run_wave();
}

extern "C" int emu_movmatrix(const uint32_t *in, uint32_t *out) {
    J = (struct job){3, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, in, out, 0};
    return run_wave();
}

extern "C" int emu_wmma(int ty, uint32_t M, uint32_t N, int c16, int d16, const int *col,
                        const uint32_t *words, const uint8_t *const *in, uint8_t *const *d,
                        const uint32_t *ld) {
    W = (struct wjob){ty, c16, d16, {col[0], col[1], col[2], col[3]}, M, N, words[0], words[1],
                      words[2], words[3], {in[0], in[1], in[2]}, {d[0], d[1]},
                      {ld[0], ld[1], ld[2], ld[3]}};
    J = (struct job){4, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
    return run_wave();
}

extern "C" int emu_wave(void) { return PS_MX_WAVE; }
extern "C" const char *emu_error(void) { return fail_msg; }
