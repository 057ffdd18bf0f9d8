/* pyshim PTX prelude for the CPU device: plain C11, x86-64.
 *
 * A block runs either as a plain loop over its threads (kernels without barriers or warp
 * collectives) or as fibers: each thread a fiber with its own small stack and a hand-written
 * x86-64 context switch (never ucontext: it makes a signal-mask syscall at every switch,
 * whose cost benchmarks/README.md records).
 * The scheduler runs fibers until each blocks on a barrier or collective; when none can
 * run it completes the collectives (per wavefront, per call site), then the barriers. */
#define _GNU_SOURCE 1
#include <stdbool.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <time.h>
#include <sched.h>
#include <sys/mman.h>
#include "pyshim_kernel_abi.h"

#if !defined(__x86_64__)
#error "pyshim CPU kernels: fibers are implemented for x86-64 only"
#endif

#define PS_FN static inline __attribute__((unused))
#define PS_DEVICE static
#define PS_CTX ps_tctx *ctx

typedef struct ps_sched ps_sched;
typedef struct ps_tctx {
    uint32_t tid_x, tid_y, tid_z, linear;
    /* block-uniform values copied out of the launch, so that a kernel's stores (through
     * pointers the compiler cannot tell apart from the launch record) do not force a
     * reload per thread: the thread loop keeps them in registers */
    uint32_t ntid_x, ntid_y, ntid_z, ctaid_x, ctaid_y, ctaid_z, nctaid_x, nctaid_y, nctaid_z;
    const pyshim_launch *launch;
    const pyshim_block *block;
    void *const *params;
    uint8_t *sh;          /* the block's shared window: static variables, then dynamic */
    uint64_t dyn_off;     /* offset of the .extern .shared window in it */
    uint64_t sh_size;
    ps_sched *sched;      /* NULL when the block runs as a plain loop */
    int *trap;
    uint32_t nthreads;
    struct ps_coll *coll; /* phase mode: per-thread collective records */
    struct ps_wwarp *wrec; /* phase mode: the block's warp-matrix records (mma_cpu.h) */
} ps_tctx;

/* phase mode: what a thread brings to a warp collective, and what it gets back */
typedef struct ps_coll {
    uint64_t val;          /* the value (permute) or predicate (ballot) */
    uint64_t res;          /* the value read, or the 64-bit ballot */
    uint64_t act;          /* the wavefront lanes that took part */
    uint32_t src;          /* source lane of a permute; PS_COLL_BALLOT for a ballot */
    uint32_t valid;        /* shfl's in-range predicate, kept across the collective */
} ps_coll;
#define PS_COLL_BALLOT 0xffffffffu   /* res = ballot of val != 0 */
#define PS_COLL_MATCH 0xfffffffeu    /* res = lanes whose val equals this one */
#define PS_COLL_REDUX 0xffffff00u    /* + 2 * op + signed: res = reduction over the warp */
#define PS_COLL_BARRED 0xfffffffdu   /* at a bar.red: res = popc, act = and | or << 1 */
#define PS_COLL_WARPFN 0xfffffffcu   /* a whole-warp function (mma.h): val = its ps_wcall */
#define PS_PHASE_COLL 0x80000000u
/* a whole-warp function's call site: `run` completes it for the warp of the block whose
 * first thread is w0, from the block's records (mma_cpu.h) */
typedef struct ps_wcall {
    void (*run)(struct ps_wwarp *b, uint32_t w0, uint32_t mask, const void *desc);
    const void *desc;
} ps_wcall;

/* ---- math (libm) ---- */
#define PS_SQRTF(x) sqrtf(x)
#define PS_SQRT(x) sqrt(x)
#define PS_FMAF(a, b, c) fmaf(a, b, c)
#define PS_FMA(a, b, c) fma(a, b, c)
#define PS_SINF(x) sinf(x)
#define PS_COSF(x) cosf(x)
#define PS_EX2F(x) exp2f(x)
#define PS_LG2F(x) log2f(x)
#define PS_EX2(x) exp2(x)
#define PS_LG2(x) log2(x)
#define PS_TANHF(x) tanhf(x)
#define PS_RINTF(x) rintf(x)
#define PS_RINT(x) rint(x)
#define PS_FLOORF(x) floorf(x)
#define PS_FLOOR(x) floor(x)
#define PS_CEILF(x) ceilf(x)
#define PS_CEIL(x) ceil(x)
#define PS_TRUNCF(x) truncf(x)
#define PS_TRUNC(x) trunc(x)
#define PS_FABSF(x) fabsf(x)
#define PS_FABS(x) fabs(x)
#define PS_COPYSIGNF(a, b) copysignf(a, b)
#define PS_COPYSIGN(a, b) copysign(a, b)

/* ---- special registers ---- */
#define PS_TID_X(c) ((c)->tid_x)
#define PS_TID_Y(c) ((c)->tid_y)
#define PS_TID_Z(c) ((c)->tid_z)
#define PS_NTID_X(c) ((c)->ntid_x)
#define PS_NTID_Y(c) ((c)->ntid_y)
#define PS_NTID_Z(c) ((c)->ntid_z)
#define PS_CTAID_X(c) ((c)->ctaid_x)
#define PS_CTAID_Y(c) ((c)->ctaid_y)
#define PS_CTAID_Z(c) ((c)->ctaid_z)
#define PS_NCTAID_X(c) ((c)->nctaid_x)
#define PS_NCTAID_Y(c) ((c)->nctaid_y)
#define PS_NCTAID_Z(c) ((c)->nctaid_z)
#define PS_LINEAR(c) ((c)->linear)
#define PS_NTHREADS(c) ((c)->nthreads)
#define PS_SMID(c) ((c)->block->smid)
#define PS_NSMID(c) ((c)->launch->num_sms)
#define PS_WAVE_SIZE(c) ((c)->launch->warp_size ? (c)->launch->warp_size : 32u)
#define PS_WAVE_LANE(c) ((c)->linear % PS_WAVE_SIZE(c))
#define PS_SHARED(c) ((c)->sh)
#define PS_DYN_OFF(c) ((c)->dyn_off)
#define PS_DYN_SMEM(c) ((c)->launch->dyn_shared_bytes)
/* Called by volatile/acquire loads of global memory, the loads spin-waits are made of:
 * every 64th gives the CPU away, so a waiting block cannot starve the one it waits for
 * (a cooperative launch's blocks are threads, possibly more of them than cores). */
static __thread uint32_t ps_spin_count;
PS_FN void ps_spin_hint(void) { if ((++ps_spin_count & 63u) == 0) sched_yield(); }
/* %envreg1:%envreg2: a cooperative launch's grid-sync workspace (launch->runtime_ctx) */
#define PS_ENVREG1(c) ((uint32_t)((uint64_t)(uintptr_t)(c)->launch->runtime_ctx >> 32))
#define PS_ENVREG2(c) ((uint32_t)(uintptr_t)(c)->launch->runtime_ctx)
#define PS_TRAP(c) (*(c)->trap = 1)

/* ---- atomics (atomics.h uses these) ----
 * A block runs on one OS thread: the executor (shim/cpu/grid.c) hands whole blocks to its
 * workers, and loop, phase and fiber modes switch threads only at barriers and collectives,
 * never inside an instruction. So an atom/red on the block's own shared window needs no
 * atomicity: it is a plain read-modify-write (no lock prefix, no CAS loop). Any other
 * address (global, or a generic one outside the window) may be touched by blocks on other
 * workers: a real atomic. The test is on the address, so generic addresses into shared
 * memory qualify too; `ctx` is the context every generated kernel and function has. */
#define PS_IN_SHARED(p) ((uint64_t)((uintptr_t)(p) - (uintptr_t)ctx->sh) < ctx->sh_size)
#define PS_SH_RMW(p, v, op, atomic) __extension__({                                  \
    __typeof__(p) ps_q_ = (p);                                                       \
    __typeof__(*ps_q_) ps_v_ = (v), ps_o_;                                           \
    if (PS_IN_SHARED(ps_q_)) { ps_o_ = *ps_q_; *ps_q_ = ps_o_ op ps_v_; }            \
    else ps_o_ = atomic(ps_q_, ps_v_, __ATOMIC_SEQ_CST);                             \
    ps_o_; })
#define PS_AFETCH_ADD(p, v) PS_SH_RMW(p, v, +, __atomic_fetch_add)
#define PS_AFETCH_AND(p, v) PS_SH_RMW(p, v, &, __atomic_fetch_and)
#define PS_AFETCH_OR(p, v) PS_SH_RMW(p, v, |, __atomic_fetch_or)
#define PS_AFETCH_XOR(p, v) PS_SH_RMW(p, v, ^, __atomic_fetch_xor)
#define PS_AEXCH(p, v) __extension__({                                               \
    __typeof__(p) ps_q_ = (p);                                                       \
    __typeof__(*ps_q_) ps_v_ = (v), ps_o_;                                           \
    if (PS_IN_SHARED(ps_q_)) { ps_o_ = *ps_q_; *ps_q_ = ps_v_; }                     \
    else ps_o_ = __atomic_exchange_n(ps_q_, ps_v_, __ATOMIC_SEQ_CST);                \
    ps_o_; })
#define PS_ALOAD(p) __atomic_load_n(p, __ATOMIC_RELAXED)
#define PS_ACAS_WEAK(p, expected, nv) \
    __atomic_compare_exchange_n(p, expected, nv, 1, __ATOMIC_SEQ_CST, __ATOMIC_RELAXED)
#define PS_FENCE() __atomic_thread_fence(__ATOMIC_SEQ_CST)
/* the compare-and-swap helpers of atomics.h (float add, min, max, inc, dec, cas): on the
 * shared window, one plain read-modify-write computing the same new value */
#define PS_SH_CALL(fn, p, b, newval) __extension__({                                 \
    __typeof__(p) ps_q_ = (p);                                                       \
    __typeof__(*ps_q_) b_ = (b), old;                                                \
    if (PS_IN_SHARED(ps_q_)) { old = *ps_q_; *ps_q_ = (newval); }                    \
    else old = (fn)(ps_q_, b_);                                                      \
    old; })
#define ps_atom_add_f32(p, b) PS_SH_CALL(ps_atom_add_f32, p, b, old + b_)
#define ps_atom_add_f64(p, b) PS_SH_CALL(ps_atom_add_f64, p, b, old + b_)
#define ps_atom_min_u32(p, b) PS_SH_CALL(ps_atom_min_u32, p, b, b_ < old ? b_ : old)
#define ps_atom_max_u32(p, b) PS_SH_CALL(ps_atom_max_u32, p, b, b_ > old ? b_ : old)
#define ps_atom_min_s32(p, b) PS_SH_CALL(ps_atom_min_s32, p, b, b_ < old ? b_ : old)
#define ps_atom_max_s32(p, b) PS_SH_CALL(ps_atom_max_s32, p, b, b_ > old ? b_ : old)
#define ps_atom_inc_u32(p, b) PS_SH_CALL(ps_atom_inc_u32, p, b, old >= b_ ? 0u : old + 1u)
#define ps_atom_dec_u32(p, b) \
    PS_SH_CALL(ps_atom_dec_u32, p, b, (old == 0u || old > b_) ? b_ : old - 1u)
#define ps_atom_cas_u32(p, cmp, nv) __extension__({                                  \
    uint32_t *ps_q_ = (p), ps_c_ = (cmp), ps_n_ = (nv), ps_o_;                       \
    if (PS_IN_SHARED(ps_q_)) { ps_o_ = *ps_q_; if (ps_o_ == ps_c_) *ps_q_ = ps_n_; } \
    else ps_o_ = (ps_atom_cas_u32)(ps_q_, ps_c_, ps_n_);                             \
    ps_o_; })

PS_FN uint64_t ps_clock64(void) { return __builtin_ia32_rdtsc(); }
PS_FN uint64_t ps_globaltimer(const ps_tctx *c) {
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    (void)c;
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}
/* CUDA's device assert: its message on stderr, then the launch fails with trap code
 * PYSHIM_TRAP_ASSERT (hipErrorAssert, reported by cudart as cudaErrorAssert) */
PS_FN void ps_assertfail(const ps_tctx *c, uint64_t msg, uint64_t file, uint32_t line,
                         uint64_t func) {
    fprintf(stderr, "%s:%u: %s: block: [%u,%u,%u], thread: [%u,%u,%u] Assertion `%s` failed.\n",
            file ? (const char *)(uintptr_t)file : "?", line,
            func ? (const char *)(uintptr_t)func : "?", PS_CTAID_X(c), PS_CTAID_Y(c),
            PS_CTAID_Z(c), PS_TID_X(c), PS_TID_Y(c), PS_TID_Z(c),
            msg ? (const char *)(uintptr_t)msg : "?");
    *c->trap = PYSHIM_TRAP_ASSERT;
}
PS_FN int ps_vprintf(const ps_tctx *c, uint64_t fmt, uint64_t args) {
    if (!c->launch->vprintf) return -1;
    return c->launch->vprintf(c->launch, (const char *)(uintptr_t)fmt,
                              (const void *)(uintptr_t)args);
}

/* ---- the block's shared window: one per worker thread, grown on demand; page-aligned,
 * so that a .shared variable's .align (numba's alignment=256) holds for its address ---- */
static __thread uint8_t *ps_tls_shared;
static __thread uint64_t ps_tls_shared_size;
PS_FN uint8_t *ps_shared_window(uint64_t size) {
    if (size > ps_tls_shared_size) {
        free(ps_tls_shared);
        uint64_t sz = (size + 4095) & ~4095ull;
        ps_tls_shared = (uint8_t *)aligned_alloc(4096, sz);
        ps_tls_shared_size = ps_tls_shared ? sz : 0;
    }
    return ps_tls_shared;
}

/* per-thread contexts of phase-mode kernels: one buffer per worker thread, grown on demand */
static __thread uint8_t *ps_tls_phase;
static __thread uint64_t ps_tls_phase_size;
PS_FN void *ps_phase_buffer(uint64_t size) {
    if (size > ps_tls_phase_size) {
        free(ps_tls_phase);
        uint64_t sz = (size + 4095) & ~4095ull;
        ps_tls_phase = (uint8_t *)aligned_alloc(4096, sz); /* as the shared window */
        ps_tls_phase_size = ps_tls_phase ? sz : 0;
    }
    return ps_tls_phase;
}

/* ps_ctx_init for a kernel that names no shared memory: no window (a generic address is
 * then never in it) and no thread-local lookup per block */
PS_FN void ps_ctx_init_unshared(ps_tctx *c, const pyshim_launch *l, const pyshim_block *b,
                                void *const *params, int *trap) {
    memset(c, 0, sizeof *c);
    c->launch = l;
    c->block = b;
    c->params = params;
    c->trap = trap;
    c->nthreads = l->block.x * l->block.y * l->block.z;
    c->ntid_x = l->block.x; c->ntid_y = l->block.y; c->ntid_z = l->block.z;
    c->ctaid_x = b->ctaid.x; c->ctaid_y = b->ctaid.y; c->ctaid_z = b->ctaid.z;
    c->nctaid_x = l->grid.x; c->nctaid_y = l->grid.y; c->nctaid_z = l->grid.z;
}

PS_FN int ps_ctx_init(ps_tctx *c, const pyshim_launch *l, const pyshim_block *b,
                      void *const *params, uint64_t static_shared, int *trap) {
    ps_ctx_init_unshared(c, l, b, params, trap);
    c->dyn_off = (static_shared + 15) & ~15ull;
    c->sh_size = c->dyn_off + l->dyn_shared_bytes;
    c->sh = ps_shared_window(c->sh_size ? c->sh_size : 16);
    return c->sh ? 0 : 2;
}

/* match.sync: the wavefront lanes taking part whose value equals v */
PS_FN uint64_t ps_coll_match(const ps_coll *coll, uint32_t lo, uint32_t hi, uint64_t mask,
                             uint64_t v) {
    uint64_t m = 0;
    for (uint32_t j = lo; j < hi; j++)
        if (((mask >> (j - lo)) & 1u) && coll[j].val == v) m |= 1ull << (j - lo);
    return m;
}

/* redux.sync over the lanes taking part in thread i's 32-lane warp; kind = 2 * op + signed,
 * op 0 add 1 min 2 max 3 and 4 or 5 xor */
PS_FN uint64_t ps_coll_redux(const ps_coll *coll, uint32_t lo, uint32_t hi, uint64_t mask,
                             uint32_t i, uint32_t kind) {
    uint32_t op = kind >> 1, sgn = kind & 1u, acc = 0;
    int first = 1;
    uint32_t w0 = lo + ((i - lo) & ~31u), w1 = w0 + 32 < hi ? w0 + 32 : hi;
    for (uint32_t j = w0; j < w1; j++) {
        if (!((mask >> (j - lo)) & 1u)) continue;
        uint32_t v = (uint32_t)coll[j].val;
        if (first) { acc = v; first = 0; continue; }
        switch (op) {
        case 0: acc += v; break;
        case 1: acc = sgn ? ((int32_t)v < (int32_t)acc ? v : acc) : (v < acc ? v : acc); break;
        case 2: acc = sgn ? ((int32_t)v > (int32_t)acc ? v : acc) : (v > acc ? v : acc); break;
        case 3: acc &= v; break;
        case 4: acc |= v; break;
        default: acc ^= v; break;
        }
    }
    return acc;
}

/* phase mode: release the block barrier, reducing the bar.red predicates of the threads
 * that wait at one */
PS_FN void ps_phase_barrier(uint32_t n, uint8_t *state, ps_coll *coll) {
    uint32_t popc = 0, all = 1, any = 0, red = 0;
    for (uint32_t i = 0; i < n; i++)
        if (state[i] == 1 && coll[i].src == PS_COLL_BARRED) {
            red = 1;
            popc += coll[i].val != 0;
            all &= coll[i].val != 0;
            any |= coll[i].val != 0;
        }
    for (uint32_t i = 0; i < n; i++) {
        if (state[i] != 1) continue;
        if (red) { coll[i].res = popc; coll[i].act = all | (any << 1); }
        state[i] = 0;
    }
}

/* ---- region loops: how many threads wait at each region, from their region counters
 * (after a SIMD region loop, where threads cannot share a counter) ---- */
PS_FN void ps_recount(const uint32_t *pc, uint32_t n, uint32_t *cnt, uint32_t nc) {
    memset(cnt, 0, (size_t)nc * sizeof *cnt);
    for (uint32_t i = 0; i < n; i++)
        if (pc[i] < nc) cnt[pc[i]]++;
}

/* ---- thread loops: a block's guard check (targets/cpu_guards.py) in 64-bit arithmetic
 * that notes overflow (the block then runs the full body), and whether a value range fits
 * a 32-bit type ---- */
PS_FN int64_t ps_cadd(int64_t a, int64_t b, int *ovf) {
    int64_t r;
    *ovf |= __builtin_add_overflow(a, b, &r);
    return r;
}
PS_FN int64_t ps_cmul(int64_t a, int64_t b, int *ovf) {
    int64_t r;
    *ovf |= __builtin_mul_overflow(a, b, &r);
    return r;
}
PS_FN int ps_aff_s32(int64_t lo, int64_t hi) { return lo >= INT32_MIN && hi <= INT32_MAX; }
PS_FN int ps_aff_u31(int64_t lo, int64_t hi) { return lo >= 0 && hi <= INT32_MAX; }

/* ---- prefetch a later block's footprint (targets/cpu_prefetch.py): an access of `width`
 * bytes at p + cx * x + cy * y + cz * z over the block's box of thread indices, row by row
 * along x. Nothing when a row spans more than 16 KB (a strided pattern, left to the
 * hardware) or the box has more than 64 rows. The addresses are integers until prefetched:
 * a hint at a wrong address (past the grid's end) costs a wasted line, never a fault ---- */
PS_FN void ps_prefetch_box(uint64_t p, int64_t cx, int64_t cy, int64_t cz,
                           const int64_t box[3], int64_t width, int write) {
    const int64_t ax = cx < 0 ? -cx : cx;
    if (box[0] < 0 || box[1] < 0 || box[2] < 0 || ax > 16384 || width <= 0) return;
    const int64_t span = ax * box[0] + width;
    const int64_t ny = cy ? box[1] + 1 : 1, nz = cz ? box[2] + 1 : 1;
    if (span > 16384 || ny * nz > 64) return;
    const uint64_t start = p + (uint64_t)(cx < 0 ? cx * box[0] : 0);
    for (int64_t z = 0; z < nz; z++)
        for (int64_t y = 0; y < ny; y++) {
            const uint64_t row = start + (uint64_t)(cy * y) + (uint64_t)(cz * z);
            for (uint64_t a = row & ~63ull; a < row + (uint64_t)span; a += 64) {
                if (write) __builtin_prefetch((const void *)(uintptr_t)a, 1, 3);
                else __builtin_prefetch((const void *)(uintptr_t)a, 0, 3);
            }
        }
}

/* ---- region loops' warp vectors (targets/cpu_warpvec.py): a register of a warp's 32
 * lanes; comparisons give 0 or all ones per lane ---- */
typedef uint32_t ps_v32u __attribute__((vector_size(128)));
typedef int32_t ps_v32i __attribute__((vector_size(128)));
static const ps_v32u ps_iota32 __attribute__((unused)) = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16,
                                  17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31};

/* ---- region loops: a value of one of two lanes; both loads happen in the caller, so a
 * vectorised loop reads two contiguous vectors and blends them (a conditional expression
 * of two array elements becomes a gather through a selected address) ---- */
PS_FN uint32_t ps_pick32(bool c, uint32_t a, uint32_t b) { return c ? a : b; }

/* ---- region loops: complete a shuffle for the threads that reached it this round (sep ==
 * ep): each reads its source lane's value if that lane took part, else 0 (what NVIDIA's
 * GPUs return; out of range, the source lane is the thread's own) ---- */
PS_FN void ps_shfl_complete(uint32_t n, uint32_t wave, uint32_t ep,
                            const uint32_t *restrict sep, const uint32_t *restrict src,
                            const uint32_t *restrict val, uint32_t *restrict res) {
    for (uint32_t i = 0; i < n; i++) {
        if (sep[i] != ep) continue;
        uint32_t s = (i & ~(wave - 1u)) + src[i];  /* wave: 32 or 64 */
        res[i] = (src[i] < wave && s < n && sep[s] == ep) ? val[s] : 0u;
    }
}

/* ---- phase mode: complete the collectives the threads wait at (per wavefront, the lowest
 * call site first); returns whether any completed ---- */
PS_FN int ps_phase_collectives(uint32_t n, uint32_t wave, uint8_t *state, const uint32_t *resume,
                               ps_coll *coll, struct ps_wwarp *warps) {
    int any = 0;
    for (uint32_t lo = 0; lo < n; lo += wave) {
        uint32_t hi = lo + wave < n ? lo + wave : n, site = 0xffffffffu;
        for (uint32_t i = lo; i < hi; i++)
            if (state[i] == 2 && resume[i] < site) site = resume[i];
        if (site == 0xffffffffu) continue;
        uint64_t mask = 0, ballot = 0;
        for (uint32_t i = lo; i < hi; i++)
            if (state[i] == 2 && resume[i] == site) {
                mask |= 1ull << (i - lo);
                if (coll[i].val) ballot |= 1ull << (i - lo);
            }
        uint32_t first = lo + (uint32_t)__builtin_ctzll(mask);
        if (coll[first].src == PS_COLL_WARPFN) {
            /* each 32-lane half of the wavefront is its own CUDA warp */
            const ps_wcall *call = (const ps_wcall *)(uintptr_t)coll[first].val;
            for (uint32_t h = 0; h < wave && lo + h < hi; h += 32) {
                uint32_t m32 = (uint32_t)(mask >> h);
                if (m32) call->run(warps, lo + h, m32, call->desc);
            }
        }
        for (uint32_t i = lo; i < hi; i++) {
            if (!((mask >> (i - lo)) & 1u)) continue;
            ps_coll *c = &coll[i];
            if (c->src == PS_COLL_WARPFN) ;
            else if (c->src == PS_COLL_BALLOT) c->res = ballot;
            else if (c->src == PS_COLL_MATCH) c->res = ps_coll_match(coll, lo, hi, mask, c->val);
            else if (c->src >= PS_COLL_REDUX)
                c->res = ps_coll_redux(coll, lo, hi, mask, i, c->src - PS_COLL_REDUX);
            else c->res = (c->src < 64 && ((mask >> c->src) & 1u)) ? coll[lo + c->src].val : 0;
            c->act = mask;
            state[i] = 0;
        }
        any = 1;
    }
    return any;
}

/* ---- fibers ---- */
void ps_swap(void **save_sp, void *to_sp);
__asm__(
    ".text\n"
    ".globl ps_swap\n.hidden ps_swap\n.type ps_swap,@function\n"
    "ps_swap:\n"
    "  pushq %rbp\n  pushq %rbx\n  pushq %r12\n  pushq %r13\n  pushq %r14\n  pushq %r15\n"
    "  movq %rsp, (%rdi)\n"
    "  movq %rsi, %rsp\n"
    "  popq %r15\n  popq %r14\n  popq %r13\n  popq %r12\n  popq %rbx\n  popq %rbp\n"
    "  ret\n"
    ".size ps_swap, .-ps_swap\n"
    ".globl ps_fiber_start\n.hidden ps_fiber_start\n.type ps_fiber_start,@function\n"
    "ps_fiber_start:\n"
    "  movq %r12, %rdi\n"
    "  call ps_fiber_main\n"
    "  ud2\n"
    ".size ps_fiber_start, .-ps_fiber_start\n");
void ps_fiber_start(void);

enum { PS_RUN = 0, PS_AT_BAR = 1, PS_AT_COLL = 2, PS_DONE = 3 };
#define PS_NBAR 16
#define PS_STACK (256u * 1024u)

typedef struct ps_fiber {
    void *sp;
    int state;
    uint32_t bar;
    uint32_t site;
    uint32_t par;          /* which snapshot buffer holds this fiber's collective result */
    uint64_t val;          /* value deposited at a collective */
    ps_tctx ctx;
} ps_fiber;

struct ps_sched {
    void *main_sp;
    ps_fiber *f;
    uint32_t n, live, wave, nwaves;
    void (*body)(ps_tctx *);
    uint64_t *snap[2];     /* per thread: the values of the last two completed collectives */
    uint64_t *partmask;    /* per wave x 2: lanes that took part */
    uint32_t *wgen;        /* per wave: completed collectives */
    uint32_t arrived[PS_NBAR], expect[PS_NBAR];
    uint32_t waiting[PS_NBAR];    /* fibers blocked at each barrier */
    uint32_t coll_waiting;        /* fibers blocked at warp collectives */
    uint32_t red_popc[PS_NBAR], red_and[PS_NBAR], red_or[PS_NBAR];
    uint32_t res_popc[PS_NBAR], res_and[PS_NBAR], res_or[PS_NBAR];
};

/* per worker thread: fibers, stacks and scheduler arrays, reused by every block */
static __thread ps_fiber *ps_tls_fibers;
static __thread uint8_t *ps_tls_stacks;
static __thread uint64_t *ps_tls_words;
static __thread uint32_t ps_tls_cap;

__attribute__((used, visibility("hidden"))) void ps_fiber_main(ps_fiber *f) {
    ps_sched *s = f->ctx.sched;
    s->body(&f->ctx);
    f->state = PS_DONE;
    s->live--;
    ps_swap(&f->sp, s->main_sp);
    __builtin_unreachable();
}

PS_FN int ps_fibers_reserve(uint32_t n) {
    if (n <= ps_tls_cap) return 0;
    if (ps_tls_stacks) munmap(ps_tls_stacks, (size_t)ps_tls_cap * PS_STACK);
    free(ps_tls_fibers);
    free(ps_tls_words);
    ps_tls_cap = 0;
    ps_tls_fibers = (ps_fiber *)calloc(n, sizeof(ps_fiber));
    ps_tls_words = (uint64_t *)calloc((size_t)n * 6 + 16, sizeof(uint64_t));
    void *st = mmap(NULL, (size_t)n * PS_STACK, PROT_READ | PROT_WRITE,
                    MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (!ps_tls_fibers || !ps_tls_words || st == MAP_FAILED) return 2;
    ps_tls_stacks = (uint8_t *)st;
    ps_tls_cap = n;
    return 0;
}

/* Completes, per wavefront, the collective at the lowest call site that lanes wait at. */
PS_FN int ps_release_collectives(ps_sched *s) {
    int any = 0;
    if (!s->coll_waiting) return 0;
    for (uint32_t w = 0; w < s->nwaves; w++) {
        uint32_t lo = w * s->wave, hi = lo + s->wave < s->n ? lo + s->wave : s->n;
        uint32_t site = 0xffffffffu;
        for (uint32_t i = lo; i < hi; i++)
            if (s->f[i].state == PS_AT_COLL && s->f[i].site < site) site = s->f[i].site;
        if (site == 0xffffffffu) continue;
        uint32_t par = s->wgen[w] & 1u;
        uint64_t mask = 0;
        for (uint32_t i = lo; i < hi; i++) {
            ps_fiber *f = &s->f[i];
            if (f->state == PS_AT_COLL && f->site == site) {
                mask |= 1ull << (i - lo);
                s->snap[par][i] = f->val;
                f->par = par;
                f->state = PS_RUN;
                s->coll_waiting--;
            }
        }
        s->partmask[w * 2 + par] = mask;
        s->wgen[w]++;
        any = 1;
    }
    return any;
}

PS_FN int ps_release_barriers(ps_sched *s) {
    int any = 0;
    for (uint32_t b = 0; b < PS_NBAR; b++) {
        uint32_t waiting = s->waiting[b];
        if (!waiting) continue;
        int ready = s->expect[b] ? s->arrived[b] >= s->expect[b] : waiting == s->live;
        if (!ready) continue;
        s->res_popc[b] = s->red_popc[b];
        s->res_and[b] = s->red_and[b];
        s->res_or[b] = s->red_or[b];
        s->red_popc[b] = 0; s->red_and[b] = 1; s->red_or[b] = 0;
        s->arrived[b] = 0; s->expect[b] = 0; s->waiting[b] = 0;
        for (uint32_t i = 0; i < s->n; i++)
            if (s->f[i].state == PS_AT_BAR && s->f[i].bar == b) s->f[i].state = PS_RUN;
        any = 1;
    }
    return any;
}

/* Runs every thread of the block as a fiber; returns 0, the trap code, or 3 on deadlock. */
PS_FN int ps_run_fibers(const ps_tctx *proto, void (*body)(ps_tctx *)) {
    uint32_t n = proto->nthreads;
    if (n == 0) return 0;
    if (ps_fibers_reserve(n)) return 2;
    ps_sched s;
    memset(&s, 0, sizeof s);
    s.f = ps_tls_fibers;
    s.n = s.live = n;
    s.body = body;
    s.wave = PS_WAVE_SIZE(proto);
    s.nwaves = (n + s.wave - 1) / s.wave;
    s.snap[0] = ps_tls_words;
    s.snap[1] = ps_tls_words + n;
    s.partmask = ps_tls_words + 2 * (size_t)n;
    s.wgen = (uint32_t *)(ps_tls_words + 4 * (size_t)n + 8);
    memset(s.wgen, 0, sizeof(uint32_t) * s.nwaves);
    for (uint32_t b = 0; b < PS_NBAR; b++) s.red_and[b] = 1;
    const pyshim_launch *l = proto->launch;
    uint32_t i = 0;
    for (uint32_t z = 0; z < l->block.z; z++)
        for (uint32_t y = 0; y < l->block.y; y++)
            for (uint32_t x = 0; x < l->block.x; x++, i++) {
                ps_fiber *f = &s.f[i];
                f->ctx = *proto;
                f->ctx.tid_x = x; f->ctx.tid_y = y; f->ctx.tid_z = z;
                f->ctx.linear = i;
                f->ctx.sched = &s;
                f->state = PS_RUN;
                /* stagger the stack tops: stacks PS_STACK apart would all map to the same
                 * cache sets, and every switch would miss */
                uintptr_t top = ((uintptr_t)(ps_tls_stacks + (size_t)(i + 1) * PS_STACK
                                             - ((size_t)i * 1088u) % 65536u)) & ~(uintptr_t)15;
                void **sp = (void **)(top - 72);
                sp[0] = 0; sp[1] = 0; sp[2] = 0; sp[3] = f; sp[4] = 0; sp[5] = 0;
                sp[6] = (void *)ps_fiber_start;
                f->sp = sp;
            }
    for (;;) {
        for (i = 0; i < n; i++) {
            if (s.f[i].state != PS_RUN) continue;
            ps_swap(&s.main_sp, s.f[i].sp);
            if (*proto->trap) return *proto->trap;
        }
        if (s.live == 0) return 0;
        if (ps_release_collectives(&s)) continue;
        if (ps_release_barriers(&s)) continue;
        return 3;  /* deadlock: threads wait for a barrier or collective that cannot complete */
    }
}

PS_FN void ps_yield(ps_tctx *c, int state) {
    ps_fiber *f = &c->sched->f[c->linear];
    f->state = state;
    ps_swap(&f->sp, c->sched->main_sp);
}

/* ---- the wavefront primitives (see warp.h) ---- */
PS_FN uint64_t *ps_collect(ps_tctx *c, uint32_t site, uint64_t v, uint64_t *mask) {
    ps_sched *s = c->sched;
    ps_fiber *f = &s->f[c->linear];
    f->val = v;
    f->site = site;
    s->coll_waiting++;
    ps_yield(c, PS_AT_COLL);
    *mask = s->partmask[(c->linear / s->wave) * 2 + f->par];
    return s->snap[f->par] + (c->linear / s->wave) * s->wave;
}
PS_FN uint32_t ps_wave_permute(ps_tctx *c, uint32_t site, uint32_t v, uint32_t lane) {
    if (!c->sched) return v;
    uint64_t mask;
    uint64_t *vals = ps_collect(c, site, v, &mask);
    return (lane < 64 && ((mask >> lane) & 1u)) ? (uint32_t)vals[lane] : 0u;
}
PS_FN uint64_t ps_wave_ballot(ps_tctx *c, uint32_t site, int p) {
    if (!c->sched) return p ? 1ull << PS_WAVE_LANE(c) : 0;
    uint64_t mask, out = 0;
    uint64_t *vals = ps_collect(c, site, (uint64_t)(p != 0), &mask);
    for (uint32_t l = 0; l < 64; l++)
        if (((mask >> l) & 1u) && vals[l]) out |= 1ull << l;
    return out;
}

/* ---- block barriers: bar.sync / bar.arrive / bar.red (PTX ISA 9.7.13.1) ---- */
PS_FN void ps_bar_sync(ps_tctx *c, uint32_t id, uint32_t count) {
    if (!c->sched) return;
    ps_sched *s = c->sched;
    id %= PS_NBAR;
    s->arrived[id]++;
    s->waiting[id]++;
    if (count) s->expect[id] = count;
    s->f[c->linear].bar = id;
    ps_yield(c, PS_AT_BAR);
}
PS_FN void ps_bar_arrive(ps_tctx *c, uint32_t id, uint32_t count) {
    if (!c->sched) return;
    id %= PS_NBAR;
    c->sched->arrived[id]++;
    if (count) c->sched->expect[id] = count;
}
PS_FN uint32_t ps_bar_red(ps_tctx *c, uint32_t id, uint32_t count, int op, bool p) {
    if (!c->sched) return op == 0 ? (uint32_t)p : (uint32_t)p;
    ps_sched *s = c->sched;
    id %= PS_NBAR;
    s->red_popc[id] += p;
    s->red_and[id] &= p;
    s->red_or[id] |= p;
    ps_bar_sync(c, id, count);
    return op == 0 ? s->res_popc[id] : (op == 1 ? s->res_and[id] : s->res_or[id]);
}

