/*
 * Streams: an in-order queue of commands and a worker thread per stream, so work is truly
 * asynchronous to the host and streams run concurrently. One scheduler lock and condition
 * cover every queue and event; commands are coarse (a copy, a whole grid), so the lock is
 * never hot, and one broadcast per completion lets every kind of waiter (device
 * synchronisation, event waits, cross-stream dependencies) share one mechanism. A thread
 * synchronising with one stream has a condition of its own (seq_cond, below).
 *
 * Legacy default-stream semantics: a command on the NULL stream waits for all work already
 * enqueued on blocking streams, and a command on a blocking stream waits for all work
 * already enqueued on the NULL stream; hipStreamNonBlocking streams take part in neither.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "internal.h"
#include "graph_internal.h"

pthread_mutex_t cpu_sched_lock = PTHREAD_MUTEX_INITIALIZER;
pthread_cond_t cpu_sched_cond = PTHREAD_COND_INITIALIZER;
/* Where a thread synchronising with one stream (cpu_stream_wait_seq) sleeps: woken when a
 * stream reaches the sequence number someone waits for, not by every completion as
 * cpu_sched_cond is. Why: a program that queues many short commands and synchronises once
 * (NCCL calls, a loop of small kernels) would otherwise wake its waiting thread after each
 * command, and on a machine with few cores that thread takes the CPU from the worker and
 * from the threads the command itself waits for (gloo's socket thread). */
static pthread_cond_t seq_cond = PTHREAD_COND_INITIALIZER;

/* One legacy stream per device, as CUDA has one per context: it synchronises with that
 * device's blocking streams only, so work of one device never waits behind another's. A
 * device's legacy stream gets its worker thread when first used. */
static struct ihipStream_t null_streams[CPU_MAX_DEVICES];
static bool null_started[CPU_MAX_DEVICES];
static pthread_mutex_t null_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_once_t null_once = PTHREAD_ONCE_INIT;
static struct ihipStream_t *live_streams = NULL;   /* created streams with a worker */
static hipError_t sticky = hipSuccess;
static unsigned long long next_stream_id = 1;
static pthread_key_t spt_key;
static pyshim_handle_set stream_handles = PYSHIM_HANDLE_SET_INIT;   /* created, not destroyed */
/* The thread's per-thread default stream of each device (heap: its key's destructor frees
 * it when the thread exits), made when first used. */
static _Thread_local struct ihipStream_t **spt_streams = NULL;
/* Set on a stream's worker thread: host functions and callbacks run there, and a wait for
 * the device from one of them would wait for itself. */
static _Thread_local bool on_worker = false;

static hipError_t refuse_wait_on_worker(void)
{
    cpu_log("a HIP call that waits for the device was made from a stream callback or host "
            "function; it would wait for itself (CUDA forbids API calls there)");
    return hipErrorNotSupported;
}

uint64_t cpu_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

hipError_t cpu_sticky_error(void)
{
    pthread_mutex_lock(&cpu_sched_lock);
    hipError_t e = sticky;
    pthread_mutex_unlock(&cpu_sched_lock);
    return e;
}

void cpu_set_sticky_error(hipError_t err)
{
    pthread_mutex_lock(&cpu_sched_lock);
    if (sticky == hipSuccess)
        sticky = err;
    pthread_mutex_unlock(&cpu_sched_lock);
}

void cpu_clear_sticky_error(void)
{
    pthread_mutex_lock(&cpu_sched_lock);
    sticky = hipSuccess;
    pthread_mutex_unlock(&cpu_sched_lock);
}

/* Commands with small payloads (a launch's arguments, a copy, an event record) come from a
 * free list and go back to it after they ran: a launch allocates nothing. The blocks are
 * malloc's, so code that frees a command that never ran with free() stays correct. */
#define CACHED_PAYLOAD 448
#define CACHE_MAX 256
static pthread_mutex_t cache_lock = PTHREAD_MUTEX_INITIALIZER;
static cpu_cmd *cache_head = NULL;
static int cache_n = 0;

cpu_cmd *cpu_cmd_new(cpu_cmd_fn run, size_t payload_size)
{
    bool cached = payload_size <= CACHED_PAYLOAD;
    cpu_cmd *c = NULL;
    if (cached) {
        pthread_mutex_lock(&cache_lock);
        c = cache_head;
        if (c != NULL) {
            cache_head = c->next;
            cache_n--;
        }
        pthread_mutex_unlock(&cache_lock);
    }
    if (c == NULL)
        c = malloc(sizeof *c + (cached ? CACHED_PAYLOAD : payload_size));
    if (c != NULL) {
        memset(c, 0, sizeof *c + payload_size);
        c->run = run;
        c->payload_size = payload_size;
        c->cached = cached;
    }
    return c;
}

/* The memory of a command that is done with (ran, or never will). */
static void cmd_dispose(cpu_cmd *c)
{
    if (c->cached) {
        pthread_mutex_lock(&cache_lock);
        if (cache_n < CACHE_MAX) {
            c->next = cache_head;
            cache_head = c;
            cache_n++;
            c = NULL;
        }
        pthread_mutex_unlock(&cache_lock);
    }
    free(c);
}

cpu_cmd *cpu_cmd_clone(const cpu_cmd *c)
{
    cpu_cmd *copy = malloc(sizeof *c + c->payload_size);
    if (copy == NULL)
        return NULL;
    memcpy(copy, c, sizeof *c + c->payload_size);
    copy->next = NULL;
    copy->cached = false;   /* allocated to its exact size */
    copy->stream = NULL;
    copy->deps = NULL;
    copy->num_deps = 0;
    copy->seq = 0;
    if (copy->fixup != NULL)
        copy->fixup(copy);
    return copy;
}

void cpu_cmd_free(cpu_cmd *c)
{
    if (c == NULL)
        return;
    pthread_mutex_lock(&cpu_sched_lock);
    if (c->wait_event != NULL)
        cpu_event_release_locked(c->wait_event);
    if (c->release != NULL)
        c->release(c);
    pthread_mutex_unlock(&cpu_sched_lock);
    free(c->deps);
    cmd_dispose(c);
}

bool cpu_stream_capturing(struct ihipStream_t *s)
{
    pthread_mutex_lock(&cpu_sched_lock);
    bool capturing = s->capture != NULL;
    pthread_mutex_unlock(&cpu_sched_lock);
    return capturing;
}

static void free_stream_locked(struct ihipStream_t *s)
{
    s->magic = 0;
    if (s->thread_started)
        pthread_cond_destroy(&s->wake);
    free(s);
}

static void stream_unref_locked(struct ihipStream_t *s)
{
    if (!s->is_null && --s->refs == 0)
        free_stream_locked(s);
}

static bool deps_ready_locked(const cpu_cmd *c)
{
    for (int i = 0; i < c->num_deps; i++)
        if (c->deps[i].stream->completed < c->deps[i].seq)
            return false;
    return c->wait_event == NULL || c->wait_event->gen_done >= c->wait_gen;
}

static void unlink_live_locked(struct ihipStream_t *s)
{
    for (struct ihipStream_t **p = &live_streams; *p != NULL; p = &(*p)->next_live)
        if (*p == s) {
            *p = s->next_live;
            return;
        }
}

static bool has_work(const void *arg)
{
    const struct ihipStream_t *s = arg;
    return __atomic_load_n(&s->head, __ATOMIC_ACQUIRE) != NULL ||
           __atomic_load_n(&s->destroyed, __ATOMIC_ACQUIRE);
}

/* Commands in flight on every stream, for a device synchronisation's spin. */
static uint64_t inflight = 0;
/* How long the last command any stream ran took: a waiter spins only after short ones (a
 * spinning waiter beside a long kernel's workers only takes CPU time from them). */
static uint64_t last_run_ns = 0;

bool cpu_expect_short_wait(void)
{
    return __atomic_load_n(&last_run_ns, __ATOMIC_RELAXED) <= cpu_spin_ns();
}

static void *stream_worker(void *arg)
{
    struct ihipStream_t *s = arg;
    on_worker = true;
    pthread_mutex_lock(&cpu_sched_lock);
    for (;;) {
        if (s->head == NULL && !s->destroyed) {
            /* out of work: watch for the next command a while before sleeping */
            pthread_mutex_unlock(&cpu_sched_lock);
            cpu_spin_until(has_work, s);
            pthread_mutex_lock(&cpu_sched_lock);
            while (s->head == NULL && !s->destroyed) {
                s->worker_sleeping = true;
                pthread_cond_wait(&s->wake, &cpu_sched_lock);
                s->worker_sleeping = false;
            }
        }
        if (s->head == NULL)
            break;   /* destroyed and drained */
        cpu_cmd *c = s->head;
        while (!deps_ready_locked(c))
            pthread_cond_wait(&cpu_sched_cond, &cpu_sched_lock);
        pthread_mutex_unlock(&cpu_sched_lock);
        if (c->run != NULL) {   /* a pure wait has nothing to run */
            uint64_t t0 = cpu_now_ns();
            c->run(c);
            __atomic_store_n(&last_run_ns, cpu_now_ns() - t0, __ATOMIC_RELAXED);
        }
        pthread_mutex_lock(&cpu_sched_lock);
        __atomic_store_n(&s->head, c->next, __ATOMIC_RELEASE);
        if (s->head == NULL)
            s->tail = NULL;
        __atomic_store_n(&s->completed, c->seq, __ATOMIC_RELEASE);
        __atomic_sub_fetch(&inflight, 1, __ATOMIC_RELEASE);
        if (s->wait_seq != 0 && c->seq >= s->wait_seq) {
            s->wait_seq = 0;   /* the woken waiters that still wait set it again */
            pthread_cond_broadcast(&seq_cond);
        }
        for (int i = 0; i < c->num_deps; i++)
            stream_unref_locked(c->deps[i].stream);
        if (c->wait_event != NULL)
            cpu_event_release_locked(c->wait_event);
        if (c->release != NULL)
            c->release(c);
        free(c->deps);
        cmd_dispose(c);
        pthread_cond_broadcast(&cpu_sched_cond);
    }
    unlink_live_locked(s);
    stream_unref_locked(s);
    pthread_cond_broadcast(&cpu_sched_cond);
    pthread_mutex_unlock(&cpu_sched_lock);
    return NULL;
}

static hipError_t start_worker(struct ihipStream_t *s)
{
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    /* Host callbacks run on this thread, and so do single-block grids (grid.c): give it
     * a kernel worker's stack. */
    pthread_attr_setstacksize(&attr, CPU_KERNEL_STACK);
    pthread_cond_init(&s->wake, NULL);
    s->thread_started = true;
    int rc = pthread_create(&s->thread, &attr, stream_worker, s);
    pthread_attr_destroy(&attr);
    return rc == 0 ? hipSuccess : hipErrorOutOfMemory;
}

static void spt_exit(void *arg);

static void init_null_stream(void)
{
    for (int d = 0; d < CPU_MAX_DEVICES; d++) {
        struct ihipStream_t *n = &null_streams[d];
        memset(n, 0, sizeof *n);
        n->magic = CPU_MAGIC_STREAM;
        n->is_null = true;
        n->refs = 1;
        n->device = d;
    }
    pthread_key_create(&spt_key, spt_exit);
}

/* The legacy stream of `dev`, its worker started. */
static struct ihipStream_t *null_stream_of(int dev)
{
    pthread_once(&null_once, init_null_stream);
    struct ihipStream_t *n = &null_streams[dev];
    if (!__atomic_load_n(&null_started[dev], __ATOMIC_ACQUIRE)) {
        pthread_mutex_lock(&null_lock);
        if (!null_started[dev]) {
            if (start_worker(n) != hipSuccess)
                cpu_log("cannot start the NULL stream's worker thread (device %d)", dev);
            __atomic_store_n(&null_started[dev], true, __ATOMIC_RELEASE);
        }
        pthread_mutex_unlock(&null_lock);
    }
    return n;
}

static hipError_t stream_create(struct ihipStream_t **out, unsigned flags, int priority)
{
    pthread_once(&null_once, init_null_stream);
    struct ihipStream_t *s = calloc(1, sizeof *s);
    if (s == NULL)
        return hipErrorOutOfMemory;
    s->magic = CPU_MAGIC_STREAM;
    s->flags = flags;
    s->priority = priority;
    s->device = cpu_current_device();
    s->refs = 2;   /* the user's handle and the worker */
    pthread_mutex_lock(&cpu_sched_lock);
    s->id = next_stream_id++;
    s->next_live = live_streams;
    live_streams = s;
    pthread_mutex_unlock(&cpu_sched_lock);
    if (!pyshim_handles_add(&stream_handles, s) || start_worker(s) != hipSuccess) {
        pyshim_handles_remove(&stream_handles, s);
        pthread_mutex_lock(&cpu_sched_lock);
        unlink_live_locked(s);
        pthread_mutex_unlock(&cpu_sched_lock);
        free(s);
        return hipErrorOutOfMemory;
    }
    *out = s;
    return hipSuccess;
}

static void stream_destroy(struct ihipStream_t *s)
{
    pthread_mutex_lock(&cpu_sched_lock);
    /* pending work still runs; the worker frees what is left */
    __atomic_store_n(&s->destroyed, true, __ATOMIC_RELEASE);
    pthread_cond_signal(&s->wake);
    stream_unref_locked(s);
    pthread_cond_broadcast(&cpu_sched_cond);
    pthread_mutex_unlock(&cpu_sched_lock);
}

/* The per-thread default stream dies with its thread. */
static void spt_exit(void *arg)
{
    struct ihipStream_t **streams = arg;
    for (int d = 0; d < CPU_MAX_DEVICES; d++)
        if (streams[d] != NULL) {
            pyshim_handles_remove(&stream_handles, streams[d]);
            stream_destroy(streams[d]);
        }
    free(streams);
}

static hipError_t per_thread_stream(struct ihipStream_t **out)
{
    if (spt_streams == NULL) {
        spt_streams = calloc(CPU_MAX_DEVICES, sizeof *spt_streams);
        if (spt_streams == NULL)
            return hipErrorOutOfMemory;
        pthread_setspecific(spt_key, spt_streams);
    }
    int dev = cpu_current_device();
    if (spt_streams[dev] == NULL) {
        hipError_t err = stream_create(&spt_streams[dev], hipStreamDefault, 0);
        if (err != hipSuccess)
            return err;
    }
    *out = spt_streams[dev];
    return hipSuccess;
}

hipError_t cpu_stream_resolve(hipStream_t handle, bool spt, struct ihipStream_t **out)
{
    pthread_once(&null_once, init_null_stream);
    if (handle == hipStreamPerThread || (handle == NULL && spt))
        return per_thread_stream(out);
    if (handle == NULL || handle == hipStreamLegacy) {
        *out = null_stream_of(cpu_current_device());
        return hipSuccess;
    }
    /* ROCm's answer for a stream that is not (or no longer) alive */
    if (!pyshim_handles_contains(&stream_handles, handle))
        return hipErrorContextIsDestroyed;
    *out = handle;
    return hipSuccess;
}

static bool busy(const struct ihipStream_t *s)
{
    return s->completed < s->enqueued;
}

/* A stream the legacy stream of `dev` synchronises with. */
static bool blocking_on(const struct ihipStream_t *t, int dev)
{
    return !(t->flags & hipStreamNonBlocking) && t->device == dev;
}

hipError_t cpu_stream_enqueue(struct ihipStream_t *s, cpu_cmd *cmd, uint64_t *seq)
{
    pthread_mutex_lock(&cpu_sched_lock);
    if (s->capture != NULL) {
        /* Recorded, not run: sequence number 0 is "already complete" to any waiter. */
        bool ok = cpu_graph_append(s->capture, cmd);
        /* work captured on one stream is a chain: each node depends on the previous one */
        bool edges = true;
        if (ok && s->capture_last != NULL)
            edges = cpu_graph_edge_add(s->capture, s->capture_last, cmd);
        for (int j = 0; ok && j < s->num_joins; j++)
            if (s->capture_joins[j] != s->capture_last)
                edges = cpu_graph_edge_add(s->capture, s->capture_joins[j], cmd) && edges;
        if (!edges)
            cpu_log("stream capture: out of memory for an edge (the node is kept)");
        if (ok) {
            s->capture_last = cmd;
            s->num_joins = 0;
        }
        pthread_mutex_unlock(&cpu_sched_lock);
        if (seq != NULL)
            *seq = 0;
        if (!ok)
            free(cmd);
        return ok ? hipSuccess : hipErrorOutOfMemory;
    }
    int n = 0;
    struct ihipStream_t *legacy = &null_streams[s->device];   /* s's device's */
    if (s->is_null) {
        for (struct ihipStream_t *t = live_streams; t != NULL; t = t->next_live)
            n += blocking_on(t, s->device) && busy(t);
    } else if (!(s->flags & hipStreamNonBlocking)) {
        n = busy(legacy);
    }
    if (n > 0) {
        cmd->deps = calloc((size_t)n, sizeof *cmd->deps);
        if (cmd->deps == NULL) {
            pthread_mutex_unlock(&cpu_sched_lock);
            free(cmd);
            return hipErrorOutOfMemory;
        }
        if (s->is_null) {
            for (struct ihipStream_t *t = live_streams; t != NULL; t = t->next_live)
                if (blocking_on(t, s->device) && busy(t)) {
                    t->refs++;
                    cmd->deps[cmd->num_deps++] = (struct cpu_dep){t, t->enqueued};
                }
        } else {
            cmd->deps[cmd->num_deps++] = (struct cpu_dep){legacy, legacy->enqueued};
        }
    }
    cmd->stream = s;
    cmd->seq = ++s->enqueued;
    __atomic_add_fetch(&inflight, 1, __ATOMIC_RELAXED);
    if (s->tail != NULL)
        s->tail->next = cmd;
    else
        __atomic_store_n(&s->head, cmd, __ATOMIC_RELEASE);
    s->tail = cmd;
    if (seq != NULL)
        *seq = cmd->seq;
    /* only the stream's worker waits for new work (completions broadcast cpu_sched_cond) */
    if (s->worker_sleeping)
        pthread_cond_signal(&s->wake);
    pthread_mutex_unlock(&cpu_sched_lock);
    return hipSuccess;
}

bool cpu_stream_idle_for_inline(struct ihipStream_t *s)
{
    pthread_mutex_lock(&cpu_sched_lock);
    bool idle = !busy(s) && s->capture == NULL;
    if (idle && s->is_null) {
        for (struct ihipStream_t *t = live_streams; t != NULL && idle; t = t->next_live)
            idle = !blocking_on(t, s->device) || !busy(t);
    } else if (idle && !(s->flags & hipStreamNonBlocking)) {
        idle = !busy(&null_streams[s->device]);
    }
    pthread_mutex_unlock(&cpu_sched_lock);
    return idle;
}

static bool stream_busy(struct ihipStream_t *s)
{
    pthread_mutex_lock(&cpu_sched_lock);
    bool b = busy(s);
    pthread_mutex_unlock(&cpu_sched_lock);
    return b;
}

typedef struct seq_wait {
    const struct ihipStream_t *s;
    uint64_t seq;
} seq_wait;

static bool seq_reached(const void *arg)
{
    const seq_wait *w = arg;
    return __atomic_load_n(&w->s->completed, __ATOMIC_ACQUIRE) >= w->seq;
}

hipError_t cpu_stream_wait_seq(struct ihipStream_t *s, uint64_t seq)
{
    if (on_worker)
        return refuse_wait_on_worker();
    /* a synchronize right after a short kernel: catch its completion without sleeping */
    if (cpu_expect_short_wait())
        cpu_spin_until(seq_reached, &(seq_wait){s, seq});
    pthread_mutex_lock(&cpu_sched_lock);
    while (s->completed < seq) {
        if (s->wait_seq == 0 || seq < s->wait_seq)
            s->wait_seq = seq;
        pthread_cond_wait(&seq_cond, &cpu_sched_lock);
    }
    hipError_t err = sticky;
    pthread_mutex_unlock(&cpu_sched_lock);
    cpu_printf_flush();
    return err;
}

hipError_t cpu_stream_wait_idle(struct ihipStream_t *s)
{
    if (cpu_stream_capturing(s))
        return hipErrorStreamCaptureUnsupported;
    if (s->is_null && !cpu_stream_idle_for_inline(s)) {
        /* The legacy stream also waits for the blocking streams: a no-op command on it
         * carries exactly those dependencies. */
        cpu_cmd *c = cpu_cmd_new(NULL, 0);
        uint64_t seq;
        if (c == NULL)
            return hipErrorOutOfMemory;
        if (on_worker) {
            free(c);
            return refuse_wait_on_worker();
        }
        hipError_t err = cpu_stream_enqueue(s, c, &seq);
        return err != hipSuccess ? err : cpu_stream_wait_seq(s, seq);
    }
    pthread_mutex_lock(&cpu_sched_lock);
    uint64_t target = s->enqueued;
    pthread_mutex_unlock(&cpu_sched_lock);
    return cpu_stream_wait_seq(s, target);
}

/* Any stream busy; with dev >= 0, of that device only. */
static bool any_busy_locked(int dev)
{
    for (int d = 0; d < cpu_device_count(); d++)
        if ((dev < 0 || d == dev) && busy(&null_streams[d]))
            return true;
    for (struct ihipStream_t *t = live_streams; t != NULL; t = t->next_live)
        if ((dev < 0 || t->device == dev) && busy(t))
            return true;
    return false;
}

static bool nothing_inflight(const void *arg)
{
    (void)arg;
    return __atomic_load_n(&inflight, __ATOMIC_ACQUIRE) == 0;
}

static hipError_t wait_idle(int dev)
{
    if (on_worker)
        return refuse_wait_on_worker();
    pthread_once(&null_once, init_null_stream);
    if (cpu_expect_short_wait())
        cpu_spin_until(nothing_inflight, NULL);   /* all devices idle: ours are too */
    pthread_mutex_lock(&cpu_sched_lock);
    while (any_busy_locked(dev))
        pthread_cond_wait(&cpu_sched_cond, &cpu_sched_lock);
    hipError_t err = sticky;
    pthread_mutex_unlock(&cpu_sched_lock);
    cpu_printf_flush();
    return err;
}

hipError_t cpu_device_wait_idle(void)
{
    return wait_idle(-1);
}

hipError_t cpu_current_device_wait_idle(void)
{
    return wait_idle(cpu_device_count() > 1 ? cpu_current_device() : -1);
}

/* ---- the hipStream* API ---- */

#define PRIORITY_LEAST 0
#define PRIORITY_GREATEST (-1)

hipError_t hipDeviceGetStreamPriorityRange(int *leastPriority, int *greatestPriority)
{
    if (leastPriority != NULL)
        *leastPriority = PRIORITY_LEAST;
    if (greatestPriority != NULL)
        *greatestPriority = PRIORITY_GREATEST;
    return hipSuccess;
}

hipError_t hipStreamCreateWithPriority(hipStream_t *stream, unsigned int flags, int priority)
{
    if (stream == NULL || (flags & ~(unsigned)hipStreamNonBlocking))
        return cpu_ret(hipErrorInvalidValue);
    if (priority > PRIORITY_LEAST)
        priority = PRIORITY_LEAST;
    if (priority < PRIORITY_GREATEST)
        priority = PRIORITY_GREATEST;
    return cpu_ret(stream_create(stream, flags, priority));
}

hipError_t hipStreamCreateWithFlags(hipStream_t *stream, unsigned int flags)
{
    return hipStreamCreateWithPriority(stream, flags, PRIORITY_LEAST);
}

hipError_t hipStreamCreate(hipStream_t *stream)
{
    return hipStreamCreateWithPriority(stream, hipStreamDefault, PRIORITY_LEAST);
}

hipError_t hipStreamDestroy(hipStream_t stream)
{
    if (stream == NULL || stream == hipStreamLegacy || stream == hipStreamPerThread)
        return cpu_ret(hipErrorInvalidHandle);
    /* Removal from the live set is the check, so two racing destroys cannot both win. */
    if (!pyshim_handles_remove(&stream_handles, stream))
        return cpu_ret(hipErrorContextIsDestroyed);
    stream_destroy(stream);
    return hipSuccess;
}

static hipError_t stream_query(hipStream_t stream, bool spt)
{
    struct ihipStream_t *s;
    hipError_t err = cpu_stream_resolve(stream, spt, &s);
    if (err != hipSuccess)
        return cpu_ret(err);
    if (cpu_stream_capturing(s))
        return cpu_ret(hipErrorStreamCaptureUnsupported);
    /* The legacy stream counts as busy while a blocking stream is (see above). */
    bool idle = s->is_null ? cpu_stream_idle_for_inline(s) : !stream_busy(s);
    return idle ? hipSuccess : hipErrorNotReady;   /* not-ready is not an error to record */
}

hipError_t hipStreamQuery(hipStream_t stream)
{
    return stream_query(stream, false);
}

hipError_t hipStreamQuery_spt(hipStream_t stream)
{
    return stream_query(stream, true);
}

static hipError_t stream_synchronize(hipStream_t stream, bool spt)
{
    struct ihipStream_t *s;
    hipError_t err = cpu_stream_resolve(stream, spt, &s);
    if (err != hipSuccess)
        return cpu_ret(err);
    return cpu_ret(cpu_stream_wait_idle(s));
}

hipError_t hipStreamSynchronize(hipStream_t stream)
{
    return stream_synchronize(stream, false);
}

hipError_t hipStreamSynchronize_spt(hipStream_t stream)
{
    return stream_synchronize(stream, true);
}

static hipError_t stream_get_flags(hipStream_t stream, unsigned *flags, bool spt)
{
    struct ihipStream_t *s;
    /* ROCm refuses the NULL stream here (CUDA answers 0): a shim must handle it itself. */
    if (flags == NULL || (stream == NULL && !spt))
        return cpu_ret(hipErrorInvalidValue);
    hipError_t err = cpu_stream_resolve(stream, spt, &s);
    if (err != hipSuccess)
        return cpu_ret(err);
    *flags = s->flags;
    return hipSuccess;
}

hipError_t hipStreamGetFlags(hipStream_t stream, unsigned int *flags)
{
    return stream_get_flags(stream, flags, false);
}

hipError_t hipStreamGetFlags_spt(hipStream_t stream, unsigned int *flags)
{
    return stream_get_flags(stream, flags, true);
}

static hipError_t stream_get_priority(hipStream_t stream, int *priority, bool spt)
{
    struct ihipStream_t *s;
    if (priority == NULL)
        return cpu_ret(hipErrorInvalidValue);
    hipError_t err = cpu_stream_resolve(stream, spt, &s);
    if (err != hipSuccess)
        return cpu_ret(err);
    *priority = s->priority;
    return hipSuccess;
}

hipError_t hipStreamGetPriority(hipStream_t stream, int *priority)
{
    return stream_get_priority(stream, priority, false);
}

hipError_t hipStreamGetPriority_spt(hipStream_t stream, int *priority)
{
    return stream_get_priority(stream, priority, true);
}

hipError_t hipStreamGetDevice(hipStream_t stream, hipDevice_t *device)
{
    struct ihipStream_t *s;
    if (device == NULL)
        return cpu_ret(hipErrorInvalidValue);
    hipError_t err = cpu_stream_resolve(stream, false, &s);
    if (err != hipSuccess)
        return cpu_ret(err);
    /* the legacy and per-thread streams are every device's: the caller's current one */
    *device = s->device;
    return hipSuccess;
}

hipError_t hipStreamGetId(hipStream_t stream, unsigned long long *streamId)
{
    struct ihipStream_t *s;
    if (streamId == NULL)
        return cpu_ret(hipErrorInvalidValue);
    hipError_t err = cpu_stream_resolve(stream, false, &s);
    if (err != hipSuccess)
        return cpu_ret(err);
    *streamId = s->id;
    return hipSuccess;
}

/* ---- host functions and callbacks ---- */

typedef struct host_call {
    hipHostFn_t fn;
    hipStreamCallback_t callback;
    hipStream_t handle;          /* as the user named the stream */
    void *user_data;
} host_call;

static void run_host_call(cpu_cmd *c)
{
    host_call *h = (host_call *)c->payload;
    if (h->fn != NULL)
        h->fn(h->user_data);
    else
        h->callback(h->handle, cpu_sticky_error(), h->user_data);
}

bool cpu_cmd_is_host_fn(const cpu_cmd *c)
{
    return c->run == run_host_call;
}

cpu_cmd *cpu_host_fn_cmd(hipHostFn_t fn, void *user_data)
{
    cpu_cmd *c = cpu_cmd_new(run_host_call, sizeof(host_call));
    if (c != NULL)
        *(host_call *)c->payload = (host_call){fn, NULL, NULL, user_data};
    return c;
}

static hipError_t enqueue_host_call(hipStream_t stream, bool spt, host_call call)
{
    struct ihipStream_t *s;
    hipError_t err = cpu_stream_resolve(stream, spt, &s);
    if (err != hipSuccess)
        return err;
    cpu_cmd *c = cpu_cmd_new(run_host_call, sizeof call);
    if (c == NULL)
        return hipErrorOutOfMemory;
    memcpy(c->payload, &call, sizeof call);
    return cpu_stream_enqueue(s, c, NULL);
}

hipError_t hipLaunchHostFunc(hipStream_t stream, hipHostFn_t fn, void *userData)
{
    if (fn == NULL)
        return cpu_ret(hipErrorInvalidValue);
    return cpu_ret(enqueue_host_call(stream, false, (host_call){fn, NULL, stream, userData}));
}

hipError_t hipLaunchHostFunc_spt(hipStream_t stream, hipHostFn_t fn, void *userData)
{
    if (fn == NULL)
        return cpu_ret(hipErrorInvalidValue);
    return cpu_ret(enqueue_host_call(stream, true, (host_call){fn, NULL, stream, userData}));
}

hipError_t hipStreamAddCallback(hipStream_t stream, hipStreamCallback_t callback,
                                void *userData, unsigned int flags)
{
    if (callback == NULL || flags != 0)
        return cpu_ret(hipErrorInvalidValue);
    return cpu_ret(enqueue_host_call(stream, false, (host_call){NULL, callback, stream, userData}));
}

hipError_t hipStreamAddCallback_spt(hipStream_t stream, hipStreamCallback_t callback,
                                    void *userData, unsigned int flags)
{
    if (callback == NULL || flags != 0)
        return cpu_ret(hipErrorInvalidValue);
    return cpu_ret(enqueue_host_call(stream, true, (host_call){NULL, callback, stream, userData}));
}

/* ---- capture (graph.c records; these report) ---- */

static unsigned long long next_capture_id = 1;

/* Begins recording into a fresh graph, or into `into` (the program's) after `deps`. */
static hipError_t begin_capture_into(hipStream_t stream, hipStreamCaptureMode mode, bool spt,
                                     struct ihipGraph *into, const hipGraphNode_t *deps,
                                     size_t ndeps)
{
    struct ihipStream_t *s;
    if (mode < hipStreamCaptureModeGlobal || mode > hipStreamCaptureModeRelaxed ||
        (ndeps > 0 && deps == NULL))
        return cpu_ret(hipErrorInvalidValue);
    hipError_t err = cpu_stream_resolve(stream, spt, &s);
    if (err != hipSuccess)
        return cpu_ret(err);
    if (s->is_null)   /* the legacy stream synchronises with everything: not capturable */
        return cpu_ret(hipErrorStreamCaptureUnsupported);
    struct ihipGraph *g = into != NULL ? into : cpu_graph_new();
    if (g == NULL)
        return cpu_ret(hipErrorOutOfMemory);
    pthread_mutex_lock(&cpu_sched_lock);
    err = s->capture != NULL ? hipErrorIllegalState : hipSuccess;
    if (err == hipSuccess && into != NULL && !cpu_graph_live(into))
        err = hipErrorInvalidValue;
    if (err == hipSuccess && ndeps > 9) {
        cpu_log("hipStreamBeginCaptureToGraph: more than 9 dependencies");
        err = hipErrorNotSupported;   /* the stream holds at most 9 (see update_capture_deps) */
    }
    for (size_t i = 0; err == hipSuccess && i < ndeps; i++) {
        bool member = false;
        for (size_t k = 0; k < g->n && !member; k++)
            member = g->cmds[k] == (cpu_cmd *)deps[i];
        if (!member)
            err = hipErrorInvalidValue;   /* not a node of the graph captured into */
    }
    if (err == hipSuccess) {
        s->capture = g;
        s->capture_id = next_capture_id++;
        s->capture_last = ndeps > 0 ? (cpu_cmd *)deps[0] : NULL;
        s->num_joins = 0;
        for (size_t i = 1; i < ndeps; i++)
            s->capture_joins[s->num_joins++] = (cpu_cmd *)deps[i];
    }
    pthread_mutex_unlock(&cpu_sched_lock);
    if (err != hipSuccess) {
        if (into == NULL)
            hipGraphDestroy(g);
        return cpu_ret(err);
    }
    return hipSuccess;
}

static hipError_t begin_capture(hipStream_t stream, hipStreamCaptureMode mode, bool spt)
{
    return begin_capture_into(stream, mode, spt, NULL, NULL, 0);
}

/* HIP's edge data names ports and edge types only full-completion edges have here (all
 * zero); others are refused by name. */
hipError_t hipStreamBeginCaptureToGraph(hipStream_t stream, hipGraph_t graph,
                                        const hipGraphNode_t *dependencies,
                                        const hipGraphEdgeData *dependencyData,
                                        size_t numDependencies, hipStreamCaptureMode mode)
{
    if (graph == NULL)
        return cpu_ret(hipErrorInvalidValue);
    for (size_t i = 0; dependencyData != NULL && i < numDependencies; i++)
        if (dependencyData[i].from_port != 0 || dependencyData[i].to_port != 0 ||
            dependencyData[i].type != 0) {
            cpu_log("hipStreamBeginCaptureToGraph: edge data other than full completion");
            return cpu_ret(hipErrorNotSupported);
        }
    return begin_capture_into(stream, mode, false, graph, dependencies, numDependencies);
}

hipError_t hipStreamBeginCapture(hipStream_t stream, hipStreamCaptureMode mode)
{
    return begin_capture(stream, mode, false);
}

hipError_t hipStreamBeginCapture_spt(hipStream_t stream, hipStreamCaptureMode mode)
{
    return begin_capture(stream, mode, true);
}

struct ihipGraph *cpu_capture_graph_locked(unsigned long long id)
{
    for (struct ihipStream_t *t = live_streams; t != NULL; t = t->next_live)
        if (t->capture != NULL && t->capture_id == id)
            return t->capture;
    return NULL;
}

/* Ends the capture on the stream that began it and on every stream that joined it (by
 * waiting on an event recorded in it): their later work runs again. */
static hipError_t end_capture(hipStream_t stream, hipGraph_t *pGraph, bool spt)
{
    struct ihipStream_t *s;
    if (pGraph == NULL)
        return cpu_ret(hipErrorInvalidValue);
    hipError_t err = cpu_stream_resolve(stream, spt, &s);
    if (err != hipSuccess)
        return cpu_ret(err);
    pthread_mutex_lock(&cpu_sched_lock);
    struct ihipGraph *g = s->capture;
    s->capture = NULL;
    if (g != NULL)
        for (struct ihipStream_t *t = live_streams; t != NULL; t = t->next_live)
            if (t->capture == g && t->capture_id == s->capture_id)
                t->capture = NULL;
    pthread_mutex_unlock(&cpu_sched_lock);
    if (g == NULL)
        return cpu_ret(hipErrorIllegalState);
    *pGraph = g;
    return hipSuccess;
}

hipError_t hipStreamEndCapture(hipStream_t stream, hipGraph_t *pGraph)
{
    return end_capture(stream, pGraph, false);
}

hipError_t hipStreamEndCapture_spt(hipStream_t stream, hipGraph_t *pGraph)
{
    return end_capture(stream, pGraph, true);
}

static hipError_t capture_status(hipStream_t stream, bool spt, hipStreamCaptureStatus *status,
                                 unsigned long long *id)
{
    struct ihipStream_t *s;
    if (status == NULL)
        return cpu_ret(hipErrorInvalidValue);
    hipError_t err = cpu_stream_resolve(stream, spt, &s);
    if (err != hipSuccess)
        return cpu_ret(err);
    pthread_mutex_lock(&cpu_sched_lock);
    bool active = s->capture != NULL;
    unsigned long long cid = s->capture_id;
    pthread_mutex_unlock(&cpu_sched_lock);
    *status = active ? hipStreamCaptureStatusActive : hipStreamCaptureStatusNone;
    if (id != NULL)
        *id = active ? cid : 0;
    return hipSuccess;
}

hipError_t hipStreamIsCapturing(hipStream_t stream, hipStreamCaptureStatus *pCaptureStatus)
{
    return capture_status(stream, false, pCaptureStatus, NULL);
}

hipError_t hipStreamIsCapturing_spt(hipStream_t stream, hipStreamCaptureStatus *pCaptureStatus)
{
    return capture_status(stream, true, pCaptureStatus, NULL);
}

hipError_t hipStreamGetCaptureInfo(hipStream_t stream, hipStreamCaptureStatus *pCaptureStatus,
                                   unsigned long long *pId)
{
    return capture_status(stream, false, pCaptureStatus, pId);
}

hipError_t hipStreamGetCaptureInfo_spt(hipStream_t stream, hipStreamCaptureStatus *pCaptureStatus,
                                       unsigned long long *pId)
{
    return capture_status(stream, true, pCaptureStatus, pId);
}

/* The nodes the next captured node will depend on: the stream's last node, then the
 * other streams' nodes it joined (cpu_sched_lock held; `out` has room for 9). */
static size_t capture_deps_locked(const struct ihipStream_t *s, hipGraphNode_t *out)
{
    size_t n = 0;
    if (s->capture_last != NULL)
        out[n++] = (hipGraphNode_t)s->capture_last;
    for (int j = 0; j < s->num_joins; j++)
        if (s->capture_joins[j] != s->capture_last)
            out[n++] = (hipGraphNode_t)s->capture_joins[j];
    return n;
}

/* The graph a capture records into, and the dependency set of its next node. */
static hipError_t capture_info_v2(hipStream_t stream, bool spt, hipStreamCaptureStatus *status,
                                  unsigned long long *id, hipGraph_t *graph,
                                  const hipGraphNode_t **deps, size_t *num_deps)
{
    hipError_t err = capture_status(stream, spt, status, id);
    if (err != hipSuccess)
        return err;
    struct ihipStream_t *s;
    if (cpu_stream_resolve(stream, spt, &s) != hipSuccess)
        return cpu_ret(hipErrorInvalidValue);
    pthread_mutex_lock(&cpu_sched_lock);
    struct ihipGraph *g = *status == hipStreamCaptureStatusActive ? s->capture : NULL;
    size_t n = g != NULL ? capture_deps_locked(s, s->capture_deps) : 0;
    pthread_mutex_unlock(&cpu_sched_lock);
    if (graph != NULL)
        *graph = g;
    if (deps != NULL)
        *deps = n > 0 ? s->capture_deps : NULL;
    if (num_deps != NULL)
        *num_deps = n;
    return hipSuccess;
}

/* Add to or replace the dependency set of a capture's next node. The set is held as the
 * stream's last node plus its joins, so it has room for 9 nodes; a larger one is refused
 * by name rather than cut short. */
static hipError_t update_capture_deps(hipStream_t stream, bool spt, hipGraphNode_t *nodes,
                                      size_t n, unsigned flags)
{
    if ((n > 0 && nodes == NULL) ||
        (flags != hipStreamAddCaptureDependencies && flags != hipStreamSetCaptureDependencies))
        return cpu_ret(hipErrorInvalidValue);
    struct ihipStream_t *s;
    if (cpu_stream_resolve(stream, spt, &s) != hipSuccess)
        return cpu_ret(hipErrorInvalidValue);
    pthread_mutex_lock(&cpu_sched_lock);
    hipError_t err = hipSuccess;
    hipGraphNode_t set[9];
    size_t have = 0;
    if (s->capture == NULL)
        err = hipErrorIllegalState;
    else if (flags == hipStreamAddCaptureDependencies)
        have = capture_deps_locked(s, set);
    for (size_t i = 0; err == hipSuccess && i < n; i++) {
        bool member = false;
        for (size_t k = 0; k < s->capture->n && !member; k++)
            member = s->capture->cmds[k] == (cpu_cmd *)nodes[i];
        if (!member) {
            err = hipErrorInvalidValue;   /* not a node of this capture's graph */
            break;
        }
        bool dup = false;
        for (size_t k = 0; k < have && !dup; k++)
            dup = set[k] == nodes[i];
        if (dup)
            continue;
        if (have == sizeof set / sizeof set[0]) {
            cpu_log("hipStreamUpdateCaptureDependencies: more than %zu dependencies",
                    sizeof set / sizeof set[0]);
            err = hipErrorNotSupported;
            break;
        }
        set[have++] = nodes[i];
    }
    if (err == hipSuccess) {
        s->capture_last = have > 0 ? (cpu_cmd *)set[0] : NULL;
        s->num_joins = 0;
        for (size_t k = 1; k < have; k++)
            s->capture_joins[s->num_joins++] = (cpu_cmd *)set[k];
    }
    pthread_mutex_unlock(&cpu_sched_lock);
    return err == hipSuccess ? hipSuccess : cpu_ret(err);
}

hipError_t hipStreamUpdateCaptureDependencies(hipStream_t stream, hipGraphNode_t *dependencies,
                                              size_t numDependencies, unsigned int flags)
{
    return update_capture_deps(stream, false, dependencies, numDependencies, flags);
}

hipError_t hipStreamGetCaptureInfo_v2(hipStream_t stream, hipStreamCaptureStatus *captureStatus_out,
                                      unsigned long long *id_out, hipGraph_t *graph_out,
                                      const hipGraphNode_t **dependencies_out,
                                      size_t *numDependencies_out)
{
    return capture_info_v2(stream, false, captureStatus_out, id_out, graph_out,
                           dependencies_out, numDependencies_out);
}

hipError_t hipStreamGetCaptureInfo_v2_spt(hipStream_t stream,
                                          hipStreamCaptureStatus *captureStatus_out,
                                          unsigned long long *id_out, hipGraph_t *graph_out,
                                          const hipGraphNode_t **dependencies_out,
                                          size_t *numDependencies_out)
{
    return capture_info_v2(stream, true, captureStatus_out, id_out, graph_out,
                           dependencies_out, numDependencies_out);
}

/* ---- stream attributes: the priority is the stream's; the rest are hints, kept so
 * that they read back as set (CUDA's behaviour) ---- */

hipError_t hipStreamGetAttribute(hipStream_t stream, hipLaunchAttributeID attr,
                                 hipLaunchAttributeValue *value_out)
{
    struct ihipStream_t *s;
    if (value_out == NULL)
        return cpu_ret(hipErrorInvalidValue);
    hipError_t err = cpu_stream_resolve(stream, false, &s);
    if (err != hipSuccess)
        return cpu_ret(err);
    memset(value_out, 0, sizeof *value_out);
    switch (attr) {
    case hipLaunchAttributePriority: value_out->priority = s->priority; return hipSuccess;
    case hipLaunchAttributeSynchronizationPolicy:
        value_out->syncPolicy = s->sync_policy != 0 ? (hipSynchronizationPolicy)s->sync_policy
                                                    : hipSyncPolicyAuto;
        return hipSuccess;
    case hipLaunchAttributeAccessPolicyWindow:
        value_out->accessPolicyWindow = s->access_window;
        return hipSuccess;
    case hipLaunchAttributeMemSyncDomain:
        value_out->memSyncDomain = (hipLaunchMemSyncDomain)s->domain;
        return hipSuccess;
    case hipLaunchAttributeMemSyncDomainMap:
        value_out->memSyncDomainMap = s->domain_map;
        return hipSuccess;
    default:
        cpu_log("hipStreamGetAttribute: attribute %d is not a stream attribute", (int)attr);
        return cpu_ret(hipErrorInvalidValue);
    }
}

static bool valid_window(const hipAccessPolicyWindow *w)
{
    int props_ok = w->hitProp >= hipAccessPropertyNormal &&
                   w->hitProp <= hipAccessPropertyPersisting &&
                   w->missProp >= hipAccessPropertyNormal &&
                   w->missProp <= hipAccessPropertyPersisting;
    return props_ok && w->hitRatio >= 0.0f && w->hitRatio <= 1.0f &&
           w->missProp != hipAccessPropertyPersisting;
}

hipError_t hipStreamSetAttribute(hipStream_t stream, hipLaunchAttributeID attr,
                                 const hipLaunchAttributeValue *value)
{
    struct ihipStream_t *s;
    if (value == NULL)
        return cpu_ret(hipErrorInvalidValue);
    hipError_t err = cpu_stream_resolve(stream, false, &s);
    if (err != hipSuccess)
        return cpu_ret(err);
    switch (attr) {
    case hipLaunchAttributePriority: {
        int p = value->priority;
        s->priority = p > PRIORITY_LEAST ? PRIORITY_LEAST
                                         : p < PRIORITY_GREATEST ? PRIORITY_GREATEST : p;
        return hipSuccess;
    }
    case hipLaunchAttributeSynchronizationPolicy:
        if (value->syncPolicy < hipSyncPolicyAuto || value->syncPolicy > hipSyncPolicyBlockingSync)
            break;
        s->sync_policy = (int)value->syncPolicy;
        return hipSuccess;
    case hipLaunchAttributeAccessPolicyWindow:
        if (!valid_window(&value->accessPolicyWindow))
            break;
        s->access_window = value->accessPolicyWindow;
        return hipSuccess;
    case hipLaunchAttributeMemSyncDomain:
        if (value->memSyncDomain != hipLaunchMemSyncDomainDefault &&
            value->memSyncDomain != hipLaunchMemSyncDomainRemote)
            break;
        s->domain = (int)value->memSyncDomain;
        return hipSuccess;
    case hipLaunchAttributeMemSyncDomainMap:
        s->domain_map = value->memSyncDomainMap;
        return hipSuccess;
    default:
        cpu_log("hipStreamSetAttribute: attribute %d is not a stream attribute", (int)attr);
        return cpu_ret(hipErrorInvalidValue);
    }
    cpu_log("hipStreamSetAttribute: a value out of range for attribute %d", (int)attr);
    return cpu_ret(hipErrorInvalidValue);
}

hipError_t hipStreamCopyAttributes(hipStream_t dst, hipStream_t src)
{
    struct ihipStream_t *d, *s;
    hipError_t err = cpu_stream_resolve(src, false, &s);
    if (err == hipSuccess)
        err = cpu_stream_resolve(dst, false, &d);
    if (err != hipSuccess)
        return cpu_ret(err);
    d->priority = s->priority;
    d->access_window = s->access_window;
    d->sync_policy = s->sync_policy;
    d->domain_map = s->domain_map;
    d->domain = s->domain;
    return hipSuccess;
}

int hipGetStreamDeviceId(hipStream_t stream)
{
    struct ihipStream_t *s;
    return cpu_stream_resolve(stream, false, &s) == hipSuccess ? 0 : -1;
}

bool cpu_cmd_host_fn_params(const cpu_cmd *c, hipHostNodeParams *out)
{
    if (!cpu_cmd_is_host_fn(c))
        return false;
    const host_call *h = (const host_call *)c->payload;
    *out = (hipHostNodeParams){.fn = h->fn, .userData = h->user_data};
    return true;
}
