/* pyshim PTX prelude, CPU device: mbarrier (PTX ISA 9.7.13.15) on the block's fibers.
 *
 * The 64-bit object in shared memory: bits 0-20 the pending arrivals of the current phase,
 * 21-41 the expected arrivals, 42-62 the pending transaction count (signed), bit 63 the
 * phase parity. A block runs on one OS thread and fibers switch only at collectives, so the
 * updates are plain read-modify-writes. A wait that finds its phase incomplete lets the other
 * fibers run (the spin loop around try_wait / test_wait then sees the arrivals). */
#define PS_MB_CNT(v, sh) ((uint32_t)(((v) >> (sh)) & 0x1fffffu))
PS_FN uint64_t ps_mb_pack(uint32_t pending, uint32_t expected, int32_t tx, uint32_t phase) {
    return (uint64_t)(pending & 0x1fffffu) | ((uint64_t)(expected & 0x1fffffu) << 21) |
           ((uint64_t)((uint32_t)tx & 0x1fffffu) << 42) | ((uint64_t)(phase & 1u) << 63);
}
PS_FN int32_t ps_mb_tx(uint64_t v) { return (int32_t)((uint32_t)(v >> 42) << 11) >> 11; }

PS_FN void ps_mb_init(uint8_t *p, uint32_t count) {
    uint64_t v = ps_mb_pack(count, count, 0, 0);
    __builtin_memcpy(p, &v, 8);
}
/* arrive (count arrivals, drop: also fewer expected from now on, tx: expect_tx bytes first);
 * returns the state token: the phase arrived at */
PS_FN uint64_t ps_mb_arrive(uint8_t *p, uint32_t count, int drop, int32_t tx) {
    uint64_t v;
    __builtin_memcpy(&v, p, 8);
    uint32_t pending = PS_MB_CNT(v, 0), expected = PS_MB_CNT(v, 21), phase = (uint32_t)(v >> 63);
    int32_t t = ps_mb_tx(v) + tx;
    uint64_t token = (uint64_t)phase << 63;
    pending = pending > count ? pending - count : 0;
    if (drop) expected = expected > count ? expected - count : 0;
    if (pending == 0 && t == 0) { phase ^= 1u; pending = expected; }
    v = ps_mb_pack(pending, expected, t, phase);
    __builtin_memcpy(p, &v, 8);
    return token;
}
PS_FN void ps_mb_tx_add(uint8_t *p, int32_t tx) {  /* expect_tx (+) / complete_tx (-) */
    uint64_t v;
    __builtin_memcpy(&v, p, 8);
    uint32_t pending = PS_MB_CNT(v, 0), expected = PS_MB_CNT(v, 21), phase = (uint32_t)(v >> 63);
    int32_t t = ps_mb_tx(v) + tx;
    if (pending == 0 && t == 0) { phase ^= 1u; pending = expected; }
    v = ps_mb_pack(pending, expected, t, phase);
    __builtin_memcpy(p, &v, 8);
}
/* whether the phase of `parity` has completed; if not, the thread steps aside as at a warp
 * collective (the scheduler runs the others, then lets it look again; a fiber yielding as
 * runnable would end the scheduler's round as a deadlock). Every wait is the same
 * collective, numbered above every real call site: the scheduler completes a wavefront's
 * lowest site first, so a lane waiting for a later phase at an earlier site would be
 * released again and again while lanes at a later wait, whose phase is complete, starve. */
#define PS_MB_WAIT_SITE 0xfffffff0u
PS_FN bool ps_mb_wait(ps_tctx *c, uint8_t *p, uint32_t parity) {
    uint64_t v;
    __builtin_memcpy(&v, p, 8);
    static __thread uint32_t fruitless;  /* waits in a row that found nothing new */
    if ((uint32_t)(v >> 63) != (parity & 1u)) { fruitless = 0; return true; }
    if (++fruitless > (1u << 22)) {  /* nothing can complete it (a GPU would hang): trap */
        fruitless = 0;
        PS_TRAP(c);
        return true;
    }
    if (c->sched) {
        uint64_t mask;
        (void)ps_collect(c, PS_MB_WAIT_SITE, 0, &mask);
    }
    return false;
}
