/* pyshim PTX prelude, CPU device: the exchange behind mma.h's whole-warp functions.
 *
 * Phase kernels (the usual case: targets/cpu/phase.py) deposit each lane's registers
 * straight into its warp's ps_wwarp, and the phase scheduler runs the function once per warp
 * (ps_phase_warp_fn below). Kernels that still run as fibers (warp matrix instructions in a
 * callee, other synchronisation phases cannot express) use ps_warp_run: each lane deposits
 * the address of its record (on its own fiber stack) as a collective; the first lane of a
 * warp to resume finds the records of every lane that arrived (they are all still
 * suspended inside the same call, so the records are alive), computes the whole warp's
 * outputs into them and marks them done; the other lanes find their results waiting. On a
 * 64-wide wavefront each 32-lane half is its own CUDA warp. */
static __thread uint32_t ps_tls_win[32 * 32], ps_tls_wout[16 * 32];
static __thread uint8_t *ps_tls_waddr[32];

PS_FN void ps_warp_run(ps_tctx *c, uint32_t site, ps_wrec *r, ps_warp_fn fn, const void *desc) {
    ps_wrec *lanes[32] = {0};
    ps_wwarp w = {ps_tls_win, ps_tls_wout, ps_tls_waddr, 32u}, *W = &w;
    uint32_t mask = 0;
    r->done = 0;
    if (!c->sched) {  /* a lone thread (not a fiber): its warp is itself */
        lanes[ps_laneid(c)] = r;
    } else {
        uint64_t m64;
        uint64_t *vals = ps_collect(c, site, (uint64_t)(uintptr_t)r, &m64);
        if (r->done) return;
        uint32_t half = ps_half(c);
        for (uint32_t i = 0; i < 32; i++)
            if ((m64 >> (half + i)) & 1u) lanes[i] = (ps_wrec *)(uintptr_t)vals[half + i];
    }
    for (uint32_t l = 0; l < 32; l++) {
        if (!lanes[l]) continue;
        mask |= 1u << l;
        for (uint32_t i = 0; i < 32; i++) PS_W_IN(W, i, l) = lanes[l]->in[i];
        W->addr[l] = lanes[l]->addr;
    }
    fn(W, mask, desc);
    for (uint32_t l = 0; l < 32; l++) {
        if (!lanes[l]) continue;
        for (uint32_t i = 0; i < 16; i++) lanes[l]->out[i] = PS_W_OUT(W, i, l);
        lanes[l]->done = 1;
    }
}

/* ---- phase mode (targets/cpu/phase.py): the block's records, PS_WIN/PS_WOUT/PS_WADDR of
 * thread t, and the call-site records (ps_wcall, cpu.h) that the phase scheduler completes
 * once per 32-lane warp, through an adapter per whole-warp function ---- */
#define PS_WIN(c, t, i) ((c)->wrec->in[(uint64_t)(i) * (c)->wrec->stride + (t)])
#define PS_WOUT(c, t, i) ((c)->wrec->out[(uint64_t)(i) * (c)->wrec->stride + (t)])
#define PS_WADDR(c, t) ((c)->wrec->addr[t])
#define PS_PHASE_WARP(fn) \
    PS_FN void fn##_phase(ps_wwarp *b, uint32_t w0, uint32_t mask, const void *desc) { \
        ps_wwarp w = {b->in + w0, b->out + w0, b->addr + w0, b->stride}; \
        fn(&w, mask, desc); \
    }
PS_PHASE_WARP(ps_mma_warp)
PS_PHASE_WARP(ps_ldmatrix_warp)
PS_PHASE_WARP(ps_stmatrix_warp)
PS_PHASE_WARP(ps_movmatrix_warp)
PS_PHASE_WARP(ps_wmma_mma_warp)
#undef PS_PHASE_WARP

/* the block's records for n threads in one buffer (phase_kernel, region loops) */
PS_FN uint64_t ps_wblock_bytes(uint32_t n) { return (uint64_t)n * (48u * 4u + 8u) + 64u; }
PS_FN void ps_wblock_init(ps_wwarp *w, uint8_t *buf, uint32_t n) {
    w->in = (uint32_t *)buf;
    w->out = w->in + 32u * (uint64_t)n;
    w->addr = (uint8_t **)(void *)(w->out + 16u * (uint64_t)n);
    w->stride = n;
}

/* region loops (targets/cpu/regions.py): complete the whole-warp function that closes a
 * region. The region's threads can wait at nothing else (each region completes its own
 * collective before the next runs), so this is ps_phase_collectives without its search for
 * the lowest site and its per-thread dispatch on the kind of collective. */
PS_FN void ps_phase_warpfns(uint32_t n, uint32_t wave, uint8_t *state, ps_coll *coll,
                            struct ps_wwarp *warps) {
    for (uint32_t lo = 0; lo < n; lo += wave) {
        const uint32_t hi = lo + wave < n ? lo + wave : n;
        uint64_t mask = 0;
        for (uint32_t i = lo; i < hi; i++) mask |= (uint64_t)(state[i] == 2) << (i - lo);
        if (!mask) continue;
        const ps_wcall *call = (const ps_wcall *)(uintptr_t)coll[lo + __builtin_ctzll(mask)].val;
        for (uint32_t h = 0; h < wave && lo + h < hi; h += 32) {
            const uint32_t m32 = (uint32_t)(mask >> h);
            if (m32) call->run(warps, lo + h, m32, call->desc);
        }
        for (uint32_t i = lo; i < hi; i++) {
            if (!((mask >> (i - lo)) & 1u)) continue;
            coll[i].act = mask;
            state[i] = 0;
        }
    }
}
