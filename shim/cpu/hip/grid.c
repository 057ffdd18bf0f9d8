/*
 * The grid executor: a pool of worker threads, created once on first launch, that run the
 * blocks of launches. A launch is a job in a FIFO; a worker joins the first job with blocks
 * left and pulls chunks of linear block indices from the job's atomic counter until none
 * are left, so the only lock taken per job per worker is to join and to leave.
 *
 * Workers have big stacks (translated kernels keep static shared arrays and per-thread
 * contexts of a whole block on the stack) and their own 16-byte-aligned dynamic shared
 * buffer, grown to the largest launch seen.
 */
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "internal.h"

#define CHUNKS_PER_WORKER 4

typedef struct grid_job {
    const cpu_grid_job *job;
    uint64_t total;             /* blocks in the grid */
    uint64_t chunk;             /* blocks taken per pull */
    _Atomic uint64_t next;      /* next block index to hand out */
    _Atomic int trap;           /* first nonzero trap code, or -signal for a fault */
    _Atomic uintptr_t fault_addr;
    _Atomic bool timed_out;     /* the watchdog ended it (PYSHIM_KERNEL_TIMEOUT) */
    _Atomic bool no_shared;     /* a worker could not allocate the dynamic shared buffer */
    _Atomic uint64_t trap_block;
    uint64_t done;              /* blocks accounted for (lock held) */
    int active;                 /* workers inside the job (lock held) */
    struct grid_job *next_job;
} grid_job;

static pthread_mutex_t pool_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t pool_work = PTHREAD_COND_INITIALIZER;
static pthread_cond_t pool_done = PTHREAD_COND_INITIALIZER;
static grid_job *jobs_head = NULL, *jobs_tail = NULL;
static pthread_once_t pool_once = PTHREAD_ONCE_INIT;
static int pool_size = 0;

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

/* Runs blocks of `j` until its counter runs out; returns how many this worker took. */
static uint64_t run_chunks(grid_job *j, uint32_t smid, void **shared, size_t *shared_cap)
{
    const cpu_grid_job *job = j->job;
    size_t need = job->launch.dyn_shared_bytes ? job->launch.dyn_shared_bytes : 16;
    if (need > *shared_cap) {
        void *p = aligned_alloc(64, (need + 63) / 64 * 64);
        if (p == NULL) {
            atomic_store(&j->no_shared, true);
            return skip_all(j);
        } else {
            free(*shared);
            *shared = p;
            *shared_cap = need;
        }
    }
    const pyshim_dim3 g = job->launch.grid;
    uint64_t taken = 0;
    for (;;) {
        uint64_t start = atomic_fetch_add(&j->next, j->chunk);
        if (start >= j->total)
            break;
        uint64_t end = start + j->chunk < j->total ? start + j->chunk : j->total;
        taken += end - start;
        /* the block index, divided out once per chunk and then counted up: three 64-bit
         * divisions per block cost as much as a small block's threads */
        pyshim_block blk = {
            .ctaid = {(uint32_t)(start % g.x), (uint32_t)(start / g.x % g.y),
                      (uint32_t)(start / ((uint64_t)g.x * g.y))},
            .smid = smid,
            .dyn_shared = *shared,
        };
        run_range(j, blk, start, end);
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
    pthread_t inline_thread;          /* a one-block grid's thread; else the pool's */
    bool is_inline;
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
            if (w->is_inline)
                pthread_kill(w->inline_thread, cpu_timeout_signal());
            else
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

static void watch_start(watch *w, grid_job *j, bool is_inline)
{
    pthread_once(&timeout_once, read_timeout);
    if (timeout_s <= 0)
        return;
    *w = (watch){.job = j, .inline_thread = pthread_self(), .is_inline = is_inline,
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

static void *pool_worker(void *arg)
{
    uint32_t smid = (uint32_t)(uintptr_t)arg;
    cpu_guard_prepare();
    void *shared = NULL;
    size_t shared_cap = 0;
    pthread_mutex_lock(&pool_lock);
    for (;;) {
        grid_job *j = pick_job_locked();
        if (j == NULL) {
            pthread_cond_wait(&pool_work, &pool_lock);
            continue;
        }
        j->active++;
        pthread_mutex_unlock(&pool_lock);
        uint64_t taken = run_chunks(j, smid, &shared, &shared_cap);
        pthread_mutex_lock(&pool_lock);
        j->done += taken;
        j->active--;
        if (j->done == j->total && j->active == 0)
            pthread_cond_broadcast(&pool_done);
    }
    return NULL;
}

/* Each worker on its own CPU, when there is one worker per CPU of the process's set (the
 * default; with fewer, processes that each pinned to the first CPUs would crowd them), unless
 * PYSHIM_CPU_PIN=0. Why: a launch wakes all workers from one thread, and the scheduler
 * tends to queue a woken thread on the waker's CPU; a kernel of a few milliseconds can then
 * run its workers on one CPU while another idles, until load balancing moves one. In eight
 * runs of the kernel benchmarks each on the 2-core CI machine, scan took 2.1-2.3 ms instead
 * of 1.1-1.2 in three unpinned runs (the C loop and PoCL beside it at their usual speed),
 * and in none pinned. */
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
        cpu_log("kernel %s: block (%u,%u,%u) trapped with code %d", job->kernel->name, x, y, z,
                code);
    return err;
}

/* A one-block grid runs on the calling (stream) thread: waking a worker and waiting for
 * it would cost more than most such blocks take. */
static hipError_t run_inline(const cpu_grid_job *job)
{
    static _Thread_local void *shared = NULL;
    static _Thread_local size_t shared_cap = 0;
    size_t need = job->launch.dyn_shared_bytes ? job->launch.dyn_shared_bytes : 16;
    if (need > shared_cap) {
        void *p = aligned_alloc(64, (need + 63) / 64 * 64);
        if (p == NULL) {
            cpu_log("kernel %s: cannot allocate %u bytes of dynamic shared memory",
                    job->kernel->name, job->launch.dyn_shared_bytes);
            return hipErrorOutOfMemory;
        }
        free(shared);
        shared = p;
        shared_cap = need;
    }
    pyshim_block blk = {.ctaid = {0, 0, 0}, .smid = 0, .dyn_shared = shared};
    cpu_guard_prepare();
    grid_job j = {.job = job, .total = 1, .chunk = 1};
    atomic_init(&j.trap, 0);
    atomic_init(&j.no_shared, false);
    atomic_init(&j.trap_block, 0);
    atomic_init(&j.fault_addr, 0);
    atomic_init(&j.timed_out, false);
    watch w;
    watch_start(&w, &j, true);
    run_range(&j, blk, 0, 1);
    watch_end(&w);
    int trap = atomic_load(&j.trap);
    return trap == 0 ? hipSuccess : report_trap(job, trap, 0, atomic_load(&j.fault_addr));
}

hipError_t cpu_grid_run(const cpu_grid_job *job)
{
    const pyshim_dim3 grid = job->launch.grid;
    if ((uint64_t)grid.x * grid.y * grid.z == 1)
        return run_inline(job);
    pthread_once(&pool_once, start_pool);
    if (pool_size == 0)
        return hipErrorOutOfMemory;
    const pyshim_dim3 g = job->launch.grid;
    grid_job j = {.job = job, .total = (uint64_t)g.x * g.y * g.z};
    j.chunk = j.total / ((uint64_t)pool_size * CHUNKS_PER_WORKER);
    if (j.chunk == 0)
        j.chunk = 1;
    atomic_init(&j.next, 0);
    atomic_init(&j.trap, 0);
    atomic_init(&j.trap_block, 0);
    atomic_init(&j.fault_addr, 0);
    atomic_init(&j.no_shared, false);
    atomic_init(&j.timed_out, false);
    watch w;
    watch_start(&w, &j, false);
    pthread_mutex_lock(&pool_lock);
    if (jobs_tail != NULL)
        jobs_tail->next_job = &j;
    else
        jobs_head = &j;
    jobs_tail = &j;
    pthread_cond_broadcast(&pool_work);
    while (j.done < j.total || j.active > 0)
        pthread_cond_wait(&pool_done, &pool_lock);
    grid_job **p = &jobs_head;
    jobs_tail = NULL;
    while (*p != NULL) {
        if (*p == &j)
            *p = j.next_job;
        else {
            jobs_tail = *p;
            p = &(*p)->next_job;
        }
    }
    pthread_mutex_unlock(&pool_lock);
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
