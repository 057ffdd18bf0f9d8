/* pyshim PTX prelude, CPU device: the exchange behind mma.h's whole-warp functions.
 *
 * Kernels with warp matrix instructions run as fibers (passes/classify_sync.py). Each lane
 * deposits the address of its record (on its own fiber stack) as a collective; the first
 * lane of a warp to resume finds the records of every lane that arrived (they are all still
 * suspended inside the same call, so the records are alive), computes the whole warp's
 * outputs into them and marks them done; the other lanes find their results waiting. On a
 * 64-wide wavefront each 32-lane half is its own CUDA warp. */
PS_FN void ps_warp_run(ps_tctx *c, uint32_t site, ps_wrec *r, ps_warp_fn fn, const void *desc) {
    ps_wrec *lanes[32] = {0};
    r->done = 0;
    if (!c->sched) {  /* a lone thread (not a fiber): its warp is itself */
        lanes[ps_laneid(c)] = r;
        fn(lanes, desc);
        return;
    }
    uint64_t mask;
    uint64_t *vals = ps_collect(c, site, (uint64_t)(uintptr_t)r, &mask);
    if (r->done) return;
    uint32_t half = ps_half(c);
    for (uint32_t i = 0; i < 32; i++)
        if ((mask >> (half + i)) & 1u) lanes[i] = (ps_wrec *)(uintptr_t)vals[half + i];
    fn(lanes, desc);
    for (uint32_t i = 0; i < 32; i++)
        if (lanes[i]) lanes[i]->done = 1;
}
