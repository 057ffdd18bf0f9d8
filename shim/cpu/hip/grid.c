/*
 * The grid executor. The thread that submits a launch (a stream's thread) runs its blocks
 * itself first, one at a time, timing them: a grid whose projected run time stays under
 * SOLO_NS never involves another thread (waking workers and waiting for them would cost
 * more than the blocks). A grid projected to run longer is published to a pool of worker
 * threads, created on first use; the submitter keeps running small chunks of a grid
 * projected under HELP_NS until every worker has joined, and then (or at once, for a
 * longer grid) waits. A published launch is a job in a FIFO; a worker
 * joins the first job with blocks left and pulls chunks of linear block indices from the
 * job's atomic counter until none are left, so the only lock taken per job per worker is
 * to join and to leave. Workers out of work, and a submitter waiting for its job, spin
 * briefly before sleeping (spin.c).
 *
 * Workers have big stacks (translated kernels keep static shared arrays and per-thread
 * contexts of a whole block on the stack) and their own 16-byte-aligned dynamic shared
 * buffer, grown to the largest launch seen; so does each submitting thread.
 */
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "internal.h"

#define CHUNKS_PER_WORKER 4
/* Projected run time below which the submitter runs a whole grid alone: about what waking
 * the pool's workers and collecting them costs on a busy machine. */
#define SOLO_NS 20000u
/* Projected run time up to which the submitter also helps once the pool has the grid: the
 * workers' wake-up is then a good part of the launch. */
#define HELP_NS 1000000u

typedef struct grid_job {
    const cpu_grid_job *job;
    uint64_t total;             /* blocks in the grid */
    uint64_t chunk;             /* blocks a worker takes per pull */
    _Atomic uint64_t next;      /* next block index to hand out */
    _Atomic int trap;           /* first nonzero trap code, or -signal for a fault */
    _Atomic uintptr_t fault_addr;
    _Atomic bool timed_out;     /* the watchdog ended it (PYSHIM_KERNEL_TIMEOUT) */
    _Atomic bool no_shared;     /* a thread could not allocate the dynamic shared buffer */
    _Atomic bool published;     /* in the pool's FIFO: the pool's threads run it too */
    _Atomic int joined;         /* workers that have joined it so far */
    _Atomic bool finished;      /* every block accounted for, no worker inside (set locked) */
    _Atomic uint64_t trap_block;
    uint64_t done;              /* blocks accounted for (lock held) */
    int active;                 /* workers inside the job (lock held) */
    bool submitter_sleeping;    /* (lock held) */
    double projected_ns;        /* the submitter's projection when it published the job */
    struct grid_job *next_job;
} grid_job;

static pthread_mutex_t pool_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t pool_work = PTHREAD_COND_INITIALIZER;
static pthread_cond_t pool_done = PTHREAD_COND_INITIALIZER;
static grid_job *jobs_head = NULL, *jobs_tail = NULL;
static pthread_once_t pool_once = PTHREAD_ONCE_INIT;
static int pool_size = 0;
static int pool_sleepers = 0;             /* workers waiting on pool_work (lock held) */
static _Atomic uint64_t pool_gen = 0;     /* counts publications: spinning workers watch it */

int cpu_grid_workers(void)
{
    return cpu_dev()->workers;
}

static grid_job *pick_job_locked(void)
{
    for (grid_job *j = jobs_head; j != NULL; j = j->next_job)
        if (atomic_load(&j->next) < j->total)
            return j;
    return NULL;
}

/* Takes every block left without running it (the launch has failed). */
static uint64_t skip_all(grid_job *j)
{
    uint64_t taken = 0;
    for (;;) {
        uint64_t start = atomic_fetch_add(&j->next, j->chunk);
        if (start >= j->total)
            return taken;
        taken += (start + j->chunk < j->total ? start + j->chunk : j->total) - start;
    }
}

static void record_trap(grid_job *j, int code, uint64_t block, uintptr_t addr)
{
    int expected = 0;
    if (atomic_compare_exchange_strong(&j->trap, &expected, code)) {
        atomic_store(&j->trap_block, block);
        atomic_store(&j->fault_addr, addr);
    }
}

/* Runs blocks [start, end) of `j` (the first one is `blk`) under a fault guard: a block
 * that faults is abandoned and fails the launch, the thread lives on. One sigsetjmp per
 * range, not per block (it is cheap, but blocks can be tiny). */
static void run_range(grid_job *j, pyshim_block blk, uint64_t start, uint64_t end)
{
    const cpu_grid_job *job = j->job;
    const pyshim_dim3 g = job->launch.grid;
    volatile uint64_t b = start;   /* read after a fault: which block it was */
    cpu_guard guard;
    if (sigsetjmp(guard.env, 0) != 0) {
        record_trap(j, -guard.sig, b, (uintptr_t)guard.addr);
        return;
    }
    cpu_guard_push_abortable(&guard, &j->timed_out);
    for (; b < end; b++) {
        if (atomic_load_explicit(&j->timed_out, memory_order_relaxed)) {
            record_trap(j, -cpu_timeout_signal(), b, 0);
            break;
        }
        if (atomic_load_explicit(&j->trap, memory_order_relaxed) != 0 ||
            atomic_load_explicit(&j->no_shared, memory_order_relaxed))
            break;   /* the launch fails: skip the rest */
        int rc = job->kernel->run_block(&job->launch, &blk, job->params);
        if (rc != 0)
            record_trap(j, rc, b, 0);
        if (++blk.ctaid.x == g.x) {
            blk.ctaid.x = 0;
            if (++blk.ctaid.y == g.y) {
                blk.ctaid.y = 0;
                blk.ctaid.z++;
            }
        }
    }
    cpu_guard_pop();
}

/* Grows a thread's dynamic shared buffer to what `job` needs; false when out of memory. */
static bool ensure_shared(const cpu_grid_job *job, void **shared, size_t *shared_cap)
{
    size_t need = job->launch.dyn_shared_bytes ? job->launch.dyn_shared_bytes : 16;
    if (need <= *shared_cap)
        return true;
    void *p = aligned_alloc(64, (need + 63) / 64 * 64);
    if (p == NULL)
        return false;
    free(*shared);
    *shared = p;
    *shared_cap = need;
    return true;
}

/* Runs blocks [start, end) with the block index divided out once and then counted up:
 * three 64-bit divisions per block cost as much as a small block's threads. */
static void run_blocks(grid_job *j, uint32_t smid, void *shared, uint64_t start, uint64_t end,
                       pyshim_cluster *cluster)
{
    const pyshim_dim3 g = j->job->launch.grid;
    pyshim_block blk = {
        .ctaid = {(uint32_t)(start % g.x), (uint32_t)(start / g.x % g.y),
                  (uint32_t)(start / ((uint64_t)g.x * g.y))},
        .smid = smid,
        .dyn_shared = shared,
        .cluster = cluster,
    };
    run_range(j, blk, start, end);
}

static bool job_failed(grid_job *j)
{
    return atomic_load_explicit(&j->trap, memory_order_relaxed) != 0 ||
           atomic_load_explicit(&j->no_shared, memory_order_relaxed) ||
           atomic_load_explicit(&j->timed_out, memory_order_relaxed);
}

/* Runs blocks of `j` until its counter runs out; returns how many this worker took. */
static uint64_t run_chunks(grid_job *j, uint32_t smid, void **shared, size_t *shared_cap)
{
    if (!ensure_shared(j->job, shared, shared_cap)) {
        atomic_store(&j->no_shared, true);
        return skip_all(j);
    }
    uint64_t taken = 0;
    for (;;) {
        uint64_t start = atomic_fetch_add(&j->next, j->chunk);
        if (start >= j->total)
            break;
        uint64_t end = start + j->chunk < j->total ? start + j->chunk : j->total;
        taken += end - start;
        run_blocks(j, smid, *shared, start, end, NULL);
    }
    return taken;
}

/* ---- the watchdog (PYSHIM_KERNEL_TIMEOUT=S): a launch running past S seconds is ended
 * with hipErrorLaunchTimeOut, as a GPU's display watchdog ends one. Its threads get the
 * timeout signal until they leave it (one that is between blocks ignores it and stops at
 * the next block). Off by default: abandoning a kernel mid-block can leave what it locked
 * (its own atomics, printf's lock) locked. */

static double timeout_s = 0;            /* 0: no watchdog */
static pthread_once_t timeout_once = PTHREAD_ONCE_INIT;
static pthread_mutex_t watch_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t watch_cond = PTHREAD_COND_INITIALIZER;
static pthread_t pool_threads[1024];

typedef struct watch {
    grid_job *job;
    pthread_t submitter;              /* runs blocks of every launch; the pool's once published */
    uint64_t deadline_ns;
    struct watch *next;
} watch;
static watch *watches = NULL;

static void *watchdog(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&watch_lock);
    for (;;) {
        uint64_t now = cpu_now_ns(), next = now + 1000000000ull;
        for (watch *w = watches; w != NULL; w = w->next) {
            if (now < w->deadline_ns) {
                if (w->deadline_ns < next)
                    next = w->deadline_ns;
                continue;
            }
            if (!atomic_exchange(&w->job->timed_out, true))
                cpu_log("kernel %s: ran past PYSHIM_KERNEL_TIMEOUT=%g s: ended",
                        w->job->job->kernel->name, timeout_s);
            pthread_kill(w->submitter, cpu_timeout_signal());
            if (atomic_load(&w->job->published))
                for (int i = 0; i < pool_size; i++)
                    pthread_kill(pool_threads[i], cpu_timeout_signal());
            if (now + 100000000ull < next)
                next = now + 100000000ull;   /* again, until the launch is over */
        }
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        uint64_t wait = next > now ? next - now : 0;
        ts.tv_sec += (time_t)(wait / 1000000000ull);
        ts.tv_nsec += (long)(wait % 1000000000ull);
        if (ts.tv_nsec >= 1000000000L) {
            ts.tv_sec++;
            ts.tv_nsec -= 1000000000L;
        }
        pthread_cond_timedwait(&watch_cond, &watch_lock, &ts);
    }
    return NULL;
}

static void read_timeout(void)
{
    const char *v = getenv("PYSHIM_KERNEL_TIMEOUT");
    if (v == NULL || *v == 0)
        return;
    char *end;
    double s = strtod(v, &end);
    if (*end != 0 || !(s > 0) || s > 1e6) {
        cpu_log("PYSHIM_KERNEL_TIMEOUT=%s: not a number of seconds > 0, ignored", v);
        return;
    }
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_destroy(&watch_cond);
    pthread_cond_init(&watch_cond, &ca);
    pthread_condattr_destroy(&ca);
    cpu_timeout_install();
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    pthread_t t;
    if (pthread_create(&t, &attr, watchdog, NULL) == 0)
        timeout_s = s;
    else
        cpu_log("PYSHIM_KERNEL_TIMEOUT: cannot start the watchdog thread");
    pthread_attr_destroy(&attr);
}

static void watch_start(watch *w, grid_job *j)
{
    pthread_once(&timeout_once, read_timeout);
    if (timeout_s <= 0)
        return;
    *w = (watch){.job = j, .submitter = pthread_self(),
                 .deadline_ns = cpu_now_ns() + (uint64_t)(timeout_s * 1e9)};
    pthread_mutex_lock(&watch_lock);
    w->next = watches;
    watches = w;
    pthread_cond_signal(&watch_cond);
    pthread_mutex_unlock(&watch_lock);
}

static void watch_end(watch *w)
{
    if (timeout_s <= 0)
        return;
    pthread_mutex_lock(&watch_lock);
    for (watch **p = &watches; *p != NULL; p = &(*p)->next)
        if (*p == w) {
            *p = w->next;
            break;
        }
    pthread_mutex_unlock(&watch_lock);
}

static bool pool_changed(const void *arg)
{
    return atomic_load_explicit(&pool_gen, memory_order_acquire) != *(const uint64_t *)arg;
}

/* With pool_lock held: a worker leaves `j` having run `taken` of its blocks. */
static void leave_job_locked(grid_job *j, uint64_t taken)
{
    j->done += taken;
    if (j->done == j->total && j->active == 0) {
        atomic_store_explicit(&j->finished, true, memory_order_release);
        if (j->submitter_sleeping)
            pthread_cond_broadcast(&pool_done);
    }
}

static void *pool_worker(void *arg)
{
    uint32_t smid = (uint32_t)(uintptr_t)arg;
    cpu_guard_prepare();
    void *shared = NULL;
    size_t shared_cap = 0;
    bool spun = false;
    /* after a long grid, launches are not coming back to back: sleep at once (a spinning
     * worker only takes the CPU the submitter and the caller need to go on) */
    bool after_long = false;
    pthread_mutex_lock(&pool_lock);
    for (;;) {
        grid_job *j = pick_job_locked();
        if (j == NULL) {
            uint64_t seen = atomic_load(&pool_gen);
            if (!spun && !after_long) {
                /* out of work: watch for the next launch a while before sleeping */
                pthread_mutex_unlock(&pool_lock);
                cpu_spin_until(pool_changed, &seen);
                pthread_mutex_lock(&pool_lock);
                spun = true;
            } else {
                pool_sleepers++;
                pthread_cond_wait(&pool_work, &pool_lock);
                pool_sleepers--;
                spun = false;
            }
            continue;
        }
        spun = false;
        after_long = j->projected_ns > (double)HELP_NS;
        j->active++;
        atomic_fetch_add(&j->joined, 1);
        pthread_mutex_unlock(&pool_lock);
        uint64_t taken = run_chunks(j, smid, &shared, &shared_cap);
        pthread_mutex_lock(&pool_lock);
        j->active--;
        leave_job_locked(j, taken);
    }
    return NULL;
}

/* Each worker on its own CPU, when there is one worker per CPU of the process's set (the
 * default; with fewer, processes that each pinned to the first CPUs would crowd them), unless
 * PYSHIM_CPU_PIN=0. Why: a launch wakes all workers from one thread, and the scheduler
 * tends to queue a woken thread on the waker's CPU; a kernel of a few milliseconds can then
 * run its workers on one CPU while another idles, until load balancing moves one: the kernel
 * benchmarks showed it as runs of twice the time, unpinned only (benchmarks/README.md,
 * "Figures behind the code"). */
static void pin_worker(pthread_t t, int i, int n)
{
    const char *env = getenv("PYSHIM_CPU_PIN");
    if (env != NULL && strcmp(env, "0") == 0)
        return;
    cpu_set_t allowed;
    if (sched_getaffinity(0, sizeof allowed, &allowed) != 0 || CPU_COUNT(&allowed) != n)
        return;
    for (int cpu = 0, k = 0; cpu < CPU_SETSIZE; cpu++) {
        if (!CPU_ISSET(cpu, &allowed))
            continue;
        if (k++ == i) {
            cpu_set_t one;
            CPU_ZERO(&one);
            CPU_SET(cpu, &one);
            (void)pthread_setaffinity_np(t, sizeof one, &one);  /* a hint: failure is fine */
            return;
        }
    }
}

static void start_pool(void)
{
    int n = cpu_grid_workers();
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    pthread_attr_setstacksize(&attr, CPU_KERNEL_STACK);
    for (int i = 0; i < n; i++) {
        pthread_t t;
        if (pool_size < (int)(sizeof pool_threads / sizeof pool_threads[0]) &&
            pthread_create(&t, &attr, pool_worker, (void *)(uintptr_t)i) == 0) {
            pin_worker(t, i, n);
            pool_threads[pool_size++] = t;
        } else
            cpu_log("cannot start kernel worker thread %d of %d", i, n);
    }
    pthread_attr_destroy(&attr);
}

/* The error a launch whose block returned trap code `code` fails with. A failed device
 * assert (`__assertfail`, after the kernel printed CUDA's message) returns
 * CPU_TRAP_ASSERT and is hipErrorAssert, as on a GPU, which cudart reports as
 * cudaErrorAssert; every other code (PTX `trap`, a failed check) is a launch failure. */
static hipError_t trap_error(int code)
{
    if (code < 0)
        return cpu_fault_error(-code);
    return code == CPU_TRAP_ASSERT ? hipErrorAssert : hipErrorLaunchFailure;
}

/* The log line of a failed launch: the kernel, the block, and for a fault its signal and
 * address (CUDA's sticky error follows from it). */
static hipError_t report_trap(const cpu_grid_job *job, int code, uint64_t b, uintptr_t addr)
{
    const pyshim_dim3 g = job->launch.grid;
    unsigned x = (unsigned)(b % g.x), y = (unsigned)(b / g.x % g.y),
             z = (unsigned)(b / ((uint64_t)g.x * g.y));
    hipError_t err = trap_error(code);
    if (code == -cpu_timeout_signal())
        cpu_log("kernel %s: block (%u,%u,%u) was running when the watchdog ended the launch "
                "(%s)", job->kernel->name, x, y, z, hipGetErrorName(err));
    else if (code < 0)
        cpu_log("kernel %s: block (%u,%u,%u) faulted: %s at address %p (%s)", job->kernel->name,
                x, y, z, cpu_fault_name(-code), (void *)addr, hipGetErrorName(err));
    else
        cpu_log("kernel %s: block (%u,%u,%u) trapped with code %d%s", job->kernel->name, x, y, z,
                code, code == PYSHIM_TRAP_DEADLOCK ? " (waits at a barrier that can never "
                                                     "complete)" : "");
    return err;
}

/* Puts `j` in the pool's FIFO and wakes workers that sleep. */
static void publish(grid_job *j)
{
    pthread_mutex_lock(&pool_lock);
    if (jobs_tail != NULL)
        jobs_tail->next_job = j;
    else
        jobs_head = j;
    jobs_tail = j;
    atomic_store(&j->published, true);
    atomic_fetch_add_explicit(&pool_gen, 1, memory_order_release);
    if (pool_sleepers > 0)
        pthread_cond_broadcast(&pool_work);
    pthread_mutex_unlock(&pool_lock);
}

static bool job_finished(const void *arg)
{
    return atomic_load_explicit(&((grid_job *)arg)->finished, memory_order_acquire);
}

/* The submitter's share of a launch: blocks one at a time while the grid's projected run
 * time (elapsed / blocks run * total) stays under SOLO_NS; past it the job is published and
 * the submitter runs small chunks until every worker has joined. Returns the blocks it
 * took. Projecting from the blocks run so far, not from the first alone, publishes a grid
 * whose first blocks were cheap as soon as the later ones show it is big. */
static uint64_t run_submitter(grid_job *j, void *shared, uint64_t t0)
{
    uint64_t taken = 0, step = 1;
    bool published = false;
    for (;;) {
        uint64_t start = atomic_fetch_add(&j->next, step);
        if (start >= j->total)
            break;
        uint64_t end = start + step < j->total ? start + step : j->total;
        taken += end - start;
        run_blocks(j, 0, shared, start, end, NULL);
        if (job_failed(j))
            return taken + skip_all(j);
        if (!published) {
            double projected = (double)(cpu_now_ns() - t0) * (double)j->total / (double)end;
            if (end < j->total && projected > (double)SOLO_NS) {
                pthread_once(&pool_once, start_pool);
                if (pool_size == 0)
                    continue;   /* no pool: the submitter runs the whole grid */
                j->projected_ns = projected;
                publish(j);
                published = true;
                /* a long grid runs on the pinned workers alone, as it always did: a chunk
                 * held by an extra, unpinned thread would only be a straggler there */
                if (projected > (double)HELP_NS)
                    break;
                step = j->chunk / 8 ? j->chunk / 8 : 1;
            }
        } else if (atomic_load(&j->joined) >= pool_size) {
            break;   /* every worker is on it: their CPUs are the machine's */
        }
    }
    return taken;
}

/* Takes `j` out of the pool's FIFO (lock held). */
static void unlink_job_locked(grid_job *j)
{
    grid_job **p = &jobs_head;
    jobs_tail = NULL;
    while (*p != NULL) {
        if (*p == j)
            *p = j->next_job;
        else {
            jobs_tail = *p;
            p = &(*p)->next_job;
        }
    }
}

/* ---- cooperative launches: every block on a thread of its own, all resident at once, so
 * that cooperative_groups' grid sync completes: it counts arrivals in a workspace the kernel
 * finds in %envreg1:%envreg2 and each block's first thread spins until the count is full.
 * A block that faults or traps would leave the others spinning forever, and so would the
 * watchdog's end of one: the others are then ended with the watchdog's signal, and the
 * launch fails with the first block's error. */

typedef struct coop_block {
    grid_job *j;
    uint64_t index;
    pyshim_cluster *cluster;    /* a cluster launch: the block's cluster, else NULL */
    uint32_t rank;              /* its %cluster_ctarank */
    pthread_t thread;           /* the resident thread running it */
    bool done;                  /* (coop_lock held) */
} coop_block;

static pthread_mutex_t coop_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t coop_cond = PTHREAD_COND_INITIALIZER;
static pthread_once_t coop_once = PTHREAD_ONCE_INIT;

/* Runs one block of a cooperative or cluster launch on the calling resident thread. */
static void run_task(coop_block *cb)
{
    static _Thread_local void *shared = NULL;
    static _Thread_local size_t cap = 0;
    grid_job *j = cb->j;
    if (!ensure_shared(j->job, &shared, &cap))
        atomic_store(&j->no_shared, true);
    else if (!job_failed(j))
        run_blocks(j, (uint32_t)(cb->index % (uint64_t)cpu_grid_workers()), shared, cb->index,
                   cb->index + 1, cb->cluster);
    /* the cluster's barrier tells a wait that this block's threads will arrive no more */
    if (cb->cluster != NULL)
        __atomic_store_n(&cb->cluster->exited[cb->rank], 1u, __ATOMIC_RELEASE);
    pthread_mutex_lock(&coop_lock);
    cb->done = true;
    j->done++;
    pthread_cond_broadcast(&coop_cond);
    pthread_mutex_unlock(&coop_lock);
}

/* ---- resident threads: the blocks that must all run at once (a cooperative launch's, a
 * cluster's) each get a thread of this pool, created on demand and kept, so that starting a
 * block is a wake-up, not a thread, and the thread-local buffers a translated kernel grows
 * (its shared window, its fibers' stacks) serve the next block instead of leaking with an
 * exited thread. A thread takes one block at a time. */
typedef struct resident {
    pthread_t thread;
    coop_block *task;           /* (res_lock held) NULL: idle */
    pthread_cond_t wake;
    struct resident *next_idle;
} resident;

static pthread_mutex_t res_lock = PTHREAD_MUTEX_INITIALIZER;
static resident *res_idle = NULL;

static void *resident_main(void *arg)
{
    resident *r = arg;
    cpu_guard_prepare();
    pthread_mutex_lock(&res_lock);
    for (;;) {
        while (r->task == NULL)
            pthread_cond_wait(&r->wake, &res_lock);
        coop_block *cb = r->task;
        pthread_mutex_unlock(&res_lock);
        run_task(cb);
        pthread_mutex_lock(&res_lock);
        r->task = NULL;
        r->next_idle = res_idle;
        res_idle = r;
    }
    return NULL;
}

/* Hands `cb` to an idle resident thread, or to a new one (res_lock held); false when no
 * thread could be started. */
static bool dispatch_locked(coop_block *cb)
{
    resident *r = res_idle;
    if (r != NULL) {
        res_idle = r->next_idle;
        r->task = cb;
        cb->thread = r->thread;
        pthread_cond_signal(&r->wake);
        return true;
    }
    r = calloc(1, sizeof *r);
    if (r == NULL)
        return false;
    pthread_cond_init(&r->wake, NULL);
    r->task = cb;
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    pthread_attr_setstacksize(&attr, CPU_KERNEL_STACK);
    int rc = pthread_create(&r->thread, &attr, resident_main, r);
    pthread_attr_destroy(&attr);
    if (rc != 0) {
        pthread_cond_destroy(&r->wake);
        free(r);
        return false;
    }
    cb->thread = r->thread;
    return true;
}

/* Runs blocks[0 .. n) each on a resident thread, all at once, and waits for them. A block
 * that faults or traps (or the watchdog) ends the others with the watchdog's signal: they may
 * be waiting for it. false: a thread could not be started (the ones started were ended). */
static bool run_together(grid_job *j, coop_block *blocks, uint64_t n)
{
    pthread_mutex_lock(&coop_lock);
    j->done = 0;
    pthread_mutex_unlock(&coop_lock);
    uint64_t started = 0;
    bool no_thread = false;
    pthread_mutex_lock(&res_lock);
    for (; started < n; started++) {
        blocks[started].j = j;
        blocks[started].done = false;
        if (!dispatch_locked(&blocks[started])) {
            no_thread = true;   /* the blocks started would wait for this one forever */
            atomic_store(&j->timed_out, true);
            break;
        }
    }
    pthread_mutex_unlock(&res_lock);
    pthread_mutex_lock(&coop_lock);
    while (j->done < started) {
        if (atomic_load(&j->trap) != 0 || atomic_load(&j->no_shared) ||
            atomic_load(&j->timed_out)) {
            /* a block failed (or the watchdog ended the launch): end the others, again
             * until they are gone (one between two blocks ignores the signal; a thread
             * that has moved on to another launch's block ignores it too, that launch's
             * job not being ended) */
            atomic_store(&j->timed_out, true);
            for (uint64_t i = 0; i < started; i++)
                if (!blocks[i].done)
                    pthread_kill(blocks[i].thread, cpu_timeout_signal());
        }
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        ts.tv_nsec += 10000000L;
        if (ts.tv_nsec >= 1000000000L) {
            ts.tv_sec++;
            ts.tv_nsec -= 1000000000L;
        }
        pthread_cond_timedwait(&coop_cond, &coop_lock, &ts);
    }
    pthread_mutex_unlock(&coop_lock);
    return !no_thread;
}

static void init_job(grid_job *j, const cpu_grid_job *job)
{
    const pyshim_dim3 g = job->launch.grid;
    *j = (grid_job){.job = job, .total = (uint64_t)g.x * g.y * g.z, .chunk = 1};
    atomic_init(&j->next, 0);
    atomic_init(&j->trap, 0);
    atomic_init(&j->trap_block, 0);
    atomic_init(&j->fault_addr, 0);
    atomic_init(&j->no_shared, false);
    atomic_init(&j->timed_out, false);
    atomic_init(&j->published, false);
    atomic_init(&j->joined, 0);
    atomic_init(&j->finished, false);
}

/* The error of a launch run by run_together (`no_thread`: a thread could not be started). */
static hipError_t together_error(const cpu_grid_job *job, grid_job *j, bool no_thread,
                                 const char *what, hipError_t too_large)
{
    if (no_thread) {
        cpu_log("kernel %s: cannot start a thread for each block of %s", job->kernel->name,
                what);
        return too_large;
    }
    if (atomic_load(&j->no_shared)) {
        cpu_log("kernel %s: cannot allocate %u bytes of dynamic shared memory",
                job->kernel->name, job->launch.dyn_shared_bytes);
        return hipErrorOutOfMemory;
    }
    int trap = atomic_load(&j->trap);
    if (trap == 0)
        return hipSuccess;
    return report_trap(job, trap, atomic_load(&j->trap_block), atomic_load(&j->fault_addr));
}

static hipError_t run_cooperative(const cpu_grid_job *job)
{
    pthread_once(&coop_once, cpu_timeout_install);
    _Alignas(16) uint32_t workspace[4] = {0};   /* cooperative_groups: size, arrival count */
    cpu_grid_job local = *job;
    local.launch.runtime_ctx = workspace;
    grid_job j;
    init_job(&j, &local);
    coop_block *blocks = calloc(j.total, sizeof *blocks);
    if (blocks == NULL)
        return hipErrorOutOfMemory;
    for (uint64_t i = 0; i < j.total; i++)
        blocks[i] = (coop_block){.index = i};
    watch w;
    watch_start(&w, &j);
    bool ok = run_together(&j, blocks, j.total);
    watch_end(&w);
    free(blocks);
    return together_error(job, &j, !ok, "a cooperative launch", hipErrorCooperativeLaunchTooLarge);
}

/* ---- cluster launches: the blocks of one cluster run at once, a resident thread each
 * (their barrier.cluster waits for all of them, and each reads the others' shared memory),
 * as many clusters at a time as there are workers for their blocks (at least one). Each
 * cluster's state (pyshim_cluster) is zeroed before it starts; the launch checked that the
 * grid is whole clusters of at most PYSHIM_MAX_CLUSTER blocks. */
static hipError_t run_clusters(const cpu_grid_job *job)
{
    pthread_once(&coop_once, cpu_timeout_install);
    const pyshim_dim3 g = job->launch.grid, c = job->launch.cluster, b = job->launch.block;
    const uint32_t size = c.x * c.y * c.z, threads = b.x * b.y * b.z;
    if (size == 0 || size > PYSHIM_MAX_CLUSTER)
        return hipErrorInvalidConfiguration;
    const uint64_t nclusters = (uint64_t)(g.x / c.x) * (g.y / c.y) * (g.z / c.z);
    uint64_t batch = (uint64_t)cpu_grid_workers() / size;
    batch = batch == 0 ? 1 : batch > nclusters ? nclusters : batch;
    grid_job j;
    init_job(&j, job);
    coop_block *blocks = calloc(batch * size, sizeof *blocks);
    pyshim_cluster *cl = calloc(batch, sizeof *cl);
    uint32_t *arrivals = calloc(batch * size * threads, sizeof *arrivals);
    if (blocks == NULL || cl == NULL || arrivals == NULL) {
        free(blocks);
        free(cl);
        free(arrivals);
        return hipErrorOutOfMemory;
    }
    watch w;
    watch_start(&w, &j);
    bool ok = true;
    for (uint64_t first = 0; first < nclusters && ok && !job_failed(&j); first += batch) {
        uint64_t count = nclusters - first < batch ? nclusters - first : batch;
        memset(cl, 0, batch * sizeof *cl);
        memset(arrivals, 0, batch * size * threads * sizeof *arrivals);
        uint64_t n = 0;
        for (uint64_t k = first; k < first + count; k++) {
            /* cluster k's place in the grid of clusters, then its blocks by rank */
            uint64_t kx = k % (g.x / c.x), ky = k / (g.x / c.x) % (g.y / c.y),
                     kz = k / ((uint64_t)(g.x / c.x) * (g.y / c.y));
            pyshim_cluster *one = &cl[k - first];
            one->thread_arrivals = arrivals + (k - first) * size * threads;
            uint32_t r = 0;
            for (uint32_t rz = 0; rz < c.z; rz++)
                for (uint32_t ry = 0; ry < c.y; ry++)
                    for (uint32_t rx = 0; rx < c.x; rx++, r++) {
                        uint64_t x = kx * c.x + rx, y = ky * c.y + ry, z = kz * c.z + rz;
                        blocks[n++] = (coop_block){.index = x + g.x * (y + g.y * z),
                                                   .cluster = one, .rank = r};
                    }
        }
        ok = run_together(&j, blocks, n);
    }
    watch_end(&w);
    free(blocks);
    free(cl);
    free(arrivals);
    return together_error(job, &j, !ok, "a cluster", hipErrorLaunchOutOfResources);
}

hipError_t cpu_grid_run(const cpu_grid_job *job)
{
    if (job->cooperative)
        return run_cooperative(job);
    if (job->launch.cluster.x != 0)
        return run_clusters(job);
    static _Thread_local void *shared = NULL;
    static _Thread_local size_t shared_cap = 0;
    const pyshim_dim3 g = job->launch.grid;
    grid_job j = {.job = job, .total = (uint64_t)g.x * g.y * g.z};
    int workers = cpu_grid_workers();
    j.chunk = j.total / ((uint64_t)(workers > 0 ? workers : 1) * CHUNKS_PER_WORKER);
    if (j.chunk == 0)
        j.chunk = 1;
    atomic_init(&j.next, 0);
    atomic_init(&j.trap, 0);
    atomic_init(&j.trap_block, 0);
    atomic_init(&j.fault_addr, 0);
    atomic_init(&j.no_shared, false);
    atomic_init(&j.timed_out, false);
    atomic_init(&j.published, false);
    atomic_init(&j.joined, 0);
    atomic_init(&j.finished, false);
    if (!ensure_shared(job, &shared, &shared_cap)) {
        cpu_log("kernel %s: cannot allocate %u bytes of dynamic shared memory",
                job->kernel->name, job->launch.dyn_shared_bytes);
        return hipErrorOutOfMemory;
    }
    cpu_guard_prepare();
    watch w;
    watch_start(&w, &j);
    uint64_t taken = run_submitter(&j, shared, cpu_now_ns());
    if (atomic_load(&j.published)) {
        pthread_mutex_lock(&pool_lock);
        leave_job_locked(&j, taken);
        pthread_mutex_unlock(&pool_lock);
        /* a thread spinning beside the workers takes their CPUs (each yield hands it back
         * and forth): spin only for a grid whose end is near */
        if (j.projected_ns <= (double)cpu_spin_ns())
            cpu_spin_until(job_finished, &j);
        pthread_mutex_lock(&pool_lock);
        while (!atomic_load(&j.finished)) {
            j.submitter_sleeping = true;
            pthread_cond_wait(&pool_done, &pool_lock);
        }
        unlink_job_locked(&j);
        pthread_mutex_unlock(&pool_lock);
    }
    watch_end(&w);
    if (atomic_load(&j.no_shared)) {
        cpu_log("kernel %s: cannot allocate %u bytes of dynamic shared memory",
                job->kernel->name, job->launch.dyn_shared_bytes);
        return hipErrorOutOfMemory;
    }
    int trap = atomic_load(&j.trap);
    if (trap == 0)
        return hipSuccess;
    return report_trap(job, trap, atomic_load(&j.trap_block), atomic_load(&j.fault_addr));
}
