/* pyshim PTX prelude, CPU device: thread-block clusters (PTX ISA 9.7.13.4 barrier.cluster,
 * 9.7.9.22 mapa, 9.7.9.23 getctarank, the %cluster_* special registers). Only modules whose
 * kernels use them get this file.
 *
 * A cluster launch runs the blocks of one cluster at once, each on an OS thread of its own,
 * sharing one pyshim_cluster (pyshim_kernel_abi.h) through pyshim_block.cluster. Without one
 * (a plain launch) every block is a cluster of one block, as CUDA has it.
 *
 * Distributed shared memory: a block's shared window is its OS thread's (cpu.h); the block
 * publishes it in the cluster's table the first time one of its threads runs a cluster
 * instruction (its first barrier.cluster.arrive at the latest, and CUDA requires every block
 * of the cluster to have arrived before another reads its shared memory). A shared::cluster
 * address is a shared::cta offset with (rank + 1) << 24 above it (a window is at most 64 KiB,
 * and a shared::cta address, rank bits 0, is the block's own, as the PTX ISA says).
 *
 * barrier.cluster: a thread's arrive counts it in the cluster's total (its own count of
 * arrivals in thread_arrivals); its wait lets the block's other fibers run (kernels with
 * cluster barriers run as fibers, passes/classify_sync.py) until the total reaches its own
 * arrivals times the cluster's threads. A block that has exited with arrivals missing makes
 * a wait that can never complete: that is a deadlock trap, not a hang. */
#include <sched.h>

#define PS_CL_RANK_SHIFT 24
#define PS_CL_OFF_MASK ((1ull << PS_CL_RANK_SHIFT) - 1u)

/* a block in a cluster also has its shared window touched by the other blocks' threads:
 * atomics on it must be real ones there (cpu.h makes them plain on a block's own window) */
#undef PS_IN_SHARED
#define PS_IN_SHARED(p) (!ctx->block->cluster &&                                      \
                         (uint64_t)((uintptr_t)(p) - (uintptr_t)ctx->sh) < ctx->sh_size)

/* the cluster's shape: the launch's, or 1x1x1 (no explicit clusters) */
PS_FN uint32_t ps_cl_dim(const ps_tctx *c, int axis) {
    const pyshim_dim3 d = c->launch->cluster;
    if (d.x == 0) return 1u;
    return axis == 0 ? d.x : axis == 1 ? d.y : d.z;
}
PS_FN uint32_t ps_cl_ctaid(const ps_tctx *c, int axis) {
    uint32_t id = axis == 0 ? c->ctaid_x : axis == 1 ? c->ctaid_y : c->ctaid_z;
    return id % ps_cl_dim(c, axis);
}
PS_FN uint32_t ps_cl_id(const ps_tctx *c, int axis) {
    uint32_t id = axis == 0 ? c->ctaid_x : axis == 1 ? c->ctaid_y : c->ctaid_z;
    return id / ps_cl_dim(c, axis);
}
PS_FN uint32_t ps_cl_nid(const ps_tctx *c, int axis) {
    uint32_t n = axis == 0 ? c->nctaid_x : axis == 1 ? c->nctaid_y : c->nctaid_z;
    return n / ps_cl_dim(c, axis);
}
PS_FN uint32_t ps_cl_nrank(const ps_tctx *c) {
    return ps_cl_dim(c, 0) * ps_cl_dim(c, 1) * ps_cl_dim(c, 2);
}
PS_FN uint32_t ps_cl_rank(const ps_tctx *c) {
    return ps_cl_ctaid(c, 0) +
           ps_cl_dim(c, 0) * (ps_cl_ctaid(c, 1) + ps_cl_dim(c, 1) * ps_cl_ctaid(c, 2));
}
#define PS_CL_EXPLICIT(c) ((c)->launch->cluster.x != 0)

/* the block's cluster, its window published */
PS_FN pyshim_cluster *ps_cl_join(const ps_tctx *c) {
    pyshim_cluster *cl = c->block->cluster;
    if (!cl) return 0;
    uint32_t r = ps_cl_rank(c);
    if (__atomic_load_n(&cl->window[r], __ATOMIC_ACQUIRE) != c->sh && c->sh) {
        __atomic_store_n(&cl->window_size[r], c->sh_size, __ATOMIC_RELAXED);
        __atomic_store_n(&cl->window[r], c->sh, __ATOMIC_RELEASE);
    }
    return cl;
}

/* block r's shared window; one not yet published is awaited (its block runs now, and
 * publishes before any of its threads waits on anything) */
PS_FN uint8_t *ps_cl_window(ps_tctx *c, uint32_t r) {
    pyshim_cluster *cl = ps_cl_join(c);
    if (!cl || r == ps_cl_rank(c)) {
        if (r >= ps_cl_nrank(c)) PS_TRAP(c);
        return c->sh;
    }
    if (r >= ps_cl_nrank(c)) { PS_TRAP(c); return c->sh; }
    uint8_t *w;
    while ((w = __atomic_load_n(&cl->window[r], __ATOMIC_ACQUIRE)) == 0) {
        if (__atomic_load_n(&cl->exited[r], __ATOMIC_ACQUIRE)) { PS_TRAP(c); return c->sh; }
        sched_yield();
    }
    return w;
}

/* mapa.u64 (generic addresses): the same place in block r's window */
PS_FN uint64_t ps_mapa_generic(ps_tctx *c, uint64_t a, uint32_t r) {
    return (uint64_t)(uintptr_t)ps_cl_window(c, r) + (a - (uint64_t)(uintptr_t)c->sh);
}
/* mapa.shared::cluster: the shared::cluster address of that place in block r */
PS_FN uint64_t ps_mapa_shared(ps_tctx *c, uint64_t a, uint32_t r) {
    if (r >= ps_cl_nrank(c)) PS_TRAP(c);
    (void)ps_cl_join(c);
    return ((uint64_t)(r + 1u) << PS_CL_RANK_SHIFT) | (a & PS_CL_OFF_MASK);
}
/* what a shared::cluster address points to */
PS_FN uint8_t *ps_cl_ptr(ps_tctx *c, uint64_t a) {
    uint64_t hi = (a >> PS_CL_RANK_SHIFT) & 0xffu;
    return (hi ? ps_cl_window(c, (uint32_t)hi - 1u) : c->sh) + (a & PS_CL_OFF_MASK);
}
/* a shared::cluster address that must be the block's own (mbarrier objects: their updates
 * are plain read-modify-writes of one block's OS thread); another block's traps */
PS_FN uint8_t *ps_cl_own_ptr(ps_tctx *c, uint64_t a) {
    uint64_t hi = (a >> PS_CL_RANK_SHIFT) & 0xffu;
    if (hi && (uint32_t)hi - 1u != ps_cl_rank(c)) PS_TRAP(c);
    return c->sh + (a & PS_CL_OFF_MASK);
}
/* getctarank.shared::cluster */
PS_FN uint32_t ps_getctarank_shared(ps_tctx *c, uint64_t a) {
    uint64_t hi = (a >> PS_CL_RANK_SHIFT) & 0xffu;
    return hi ? (uint32_t)hi - 1u : ps_cl_rank(c);
}
/* getctarank (generic): the block whose window holds the address */
PS_FN uint32_t ps_getctarank_generic(ps_tctx *c, uint64_t a) {
    pyshim_cluster *cl = ps_cl_join(c);
    uint32_t own = ps_cl_rank(c);
    if (!cl) return own;
    for (uint32_t r = 0; r < ps_cl_nrank(c); r++) {
        uint8_t *w = r == own ? c->sh : ps_cl_window(c, r);
        uint64_t size = r == own ? c->sh_size
                                 : __atomic_load_n(&cl->window_size[r], __ATOMIC_RELAXED);
        if (a - (uint64_t)(uintptr_t)w < size) return r;
    }
    return own;
}

/* barrier.cluster.arrive */
PS_FN void ps_cl_arrive(ps_tctx *c) {
    pyshim_cluster *cl = ps_cl_join(c);
    if (!cl) {   /* a cluster of one: the block's own barrier at the wait */
        return;
    }
    uint32_t r = ps_cl_rank(c);
    cl->thread_arrivals[(uint64_t)r * c->nthreads + c->linear]++;
    __atomic_fetch_add(&cl->block_arrived[r], 1u, __ATOMIC_RELEASE);
    __atomic_fetch_add(&cl->arrived, 1u, __ATOMIC_RELEASE);
}

/* barrier.cluster.wait: returns once every thread of the cluster has arrived as often as
 * this one */
#define PS_CL_WAIT_SITE 0xffffffefu
PS_FN void ps_cl_wait(ps_tctx *c) {
    pyshim_cluster *cl = c->block->cluster;
    if (!cl) {   /* a cluster of one: every thread of the block */
        ps_bar_sync(c, PS_NBAR - 1u, 0u);
        return;
    }
    uint32_t r = ps_cl_rank(c), n = ps_cl_nrank(c);
    uint64_t mine = cl->thread_arrivals[(uint64_t)r * c->nthreads + c->linear];
    uint64_t want = mine * c->nthreads * n;
    while (__atomic_load_n(&cl->arrived, __ATOMIC_ACQUIRE) < want) {
        /* a block gone with arrivals missing can never complete this phase */
        for (uint32_t b = 0; b < n; b++)
            if (__atomic_load_n(&cl->exited[b], __ATOMIC_ACQUIRE) &&
                __atomic_load_n(&cl->block_arrived[b], __ATOMIC_ACQUIRE) < mine * c->nthreads) {
                *c->trap = PYSHIM_TRAP_DEADLOCK;
                return;
            }
        if (c->sched) {   /* the block's other threads may not have arrived yet */
            uint64_t mask;
            (void)ps_collect(c, PS_CL_WAIT_SITE, 0, &mask);
        }
        sched_yield();
    }
}
