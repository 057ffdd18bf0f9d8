/*
 * The device runtime of dynamic parallelism: what NVIDIA's driver supplies for the
 * `__cudaCDP2*` calls of -rdc kernels (a kernel launching kernels), reached from the
 * translated kernel through its launch record (pyshim_kernel_abi.h, PYSHIM_DEVRT_*).
 *
 * Each running grid has a queue. A thread asks for a parameter buffer (the child's kernel
 * and configuration, then room for its packed arguments, which the kernel writes), then
 * launches it into a stream: the buffer joins the grid's queue, or its tail-launch queue.
 * When the grid's blocks are done, its children run one after the other in the order they
 * were launched, each with its own queue, drained the same way before the next child
 * starts (a grid is complete only when its children are); then its tail launches, in
 * order. That is one of the schedules CUDA allows: a child may start any time after its
 * launch and the parent cannot wait for it (CDP2 has no device-side synchronisation), work
 * in one stream runs in launch order, fire-and-forget work runs before the launching
 * grid's tail launches, and a tail launch waits for the grid and everything it launched.
 * All of it runs on the stream worker of the host's launch, so the host's stream order
 * holds: the next operation on that stream starts after the whole tree.
 *
 * What reaches here are libcudadevrt's syscalls (`__cuda_syscall_cnpv2*`): most answer a
 * CNPerror code, which libcudadevrt translates to a cudaError_t (its cudartErrorCnpMap) and
 * keeps as the thread's last error through the SetLastError syscall; the thread's last
 * error itself and a failed parameter buffer are cudaError_t numbers (HIP's enumerators
 * have the same values for those used here).
 */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "internal.h"

/* CUDA's nesting limit with CDP2: a grid 24 launches below the host's cannot launch */
#define DEVRT_MAX_DEPTH 24u
/* CNPerror codes, as libcudadevrt's map reads them: cudaSuccess, cudaErrorInvalidValue,
 * cudaErrorMemoryAllocation, cudaErrorLaunchMaxDepthExceeded, cudaErrorInvalidConfiguration */
#define CNP_SUCCESS 0
#define CNP_INVALID_VALUE 1
#define CNP_OUT_OF_MEMORY 4
#define CNP_MAX_DEPTH 5
#define CNP_INVALID_CONFIGURATION 7
/* CUDA's named streams of device code and the flags device code may give (driver_types.h) */
#define STREAM_TAIL_LAUNCH 3u
#define STREAM_FIRE_AND_FORGET 4u
#define STREAM_NON_BLOCKING 1u
#define EVENT_DISABLE_TIMING 2u
#define CHILD_MAGIC 0x50444443u  /* "CDDP" */

typedef struct cpu_devrt_grid cpu_devrt_grid;

typedef struct devrt_child {
    uint32_t magic;
    bool launched;
    const cpu_devrt_grid *owner;
    struct ihipModuleSymbol_t *fn;
    pyshim_dim3 grid, block;
    uint32_t shared;
    struct devrt_child *next_buffer;  /* every buffer the grid handed out */
    struct devrt_child *next;         /* the queue it was launched into */
    /* then the packed arguments, at args_offset() */
} devrt_child;

/* A stream or an event made by device code: a handle, valid in the grid that made it.
 * Launches run in launch order, so every event a thread records has completed before any
 * later launch starts: waiting for one is the order there is already. */
typedef struct devrt_handle {
    struct devrt_handle *next;
    bool event;
} devrt_handle;

typedef struct devrt_error {
    uint64_t block;   /* linear block index */
    uint32_t thread;
    int32_t err;
} devrt_error;

struct cpu_devrt_grid {
    pthread_mutex_t lock;
    const struct ihipModuleSymbol_t *fn;  /* the grid's kernel: its module holds the children */
    int device;
    unsigned depth;
    devrt_child *buffers;
    devrt_child *queue, **queue_end;      /* stream-ordered and fire-and-forget children */
    devrt_child *tails, **tails_end;      /* tail launches */
    devrt_handle *handles;                /* streams and events of the grid's threads, live */
    devrt_error *errors;                  /* the threads whose last error is not cudaSuccess */
    size_t num_errors, cap_errors;
    atomic_size_t any_errors;             /* num_errors, read without the lock */
};

/* Arguments aligned as PTX may ask of a parameter (.align up to the 64 bytes a buffer has) */
#define ARGS_ALIGN 64u

static size_t args_offset(void)
{
    return (sizeof(devrt_child) + ARGS_ALIGN - 1) / ARGS_ALIGN * ARGS_ALIGN;
}

static unsigned char *child_args(devrt_child *c)
{
    return (unsigned char *)c + args_offset();
}

/* The state lives in the frame of the grid's run: a launch allocates nothing for it. */
static void grid_begin(cpu_devrt_grid *g, const struct ihipModuleSymbol_t *f, int device,
                       unsigned depth)
{
    memset(g, 0, sizeof *g);
    pthread_mutex_init(&g->lock, NULL);
    g->fn = f;
    g->device = device;
    g->depth = depth;
    g->queue_end = &g->queue;
    g->tails_end = &g->tails;
    atomic_init(&g->any_errors, 0);
}

/* The thread's last error becomes `err` (cudaSuccess clears it); returns err. */
static int64_t set_error(cpu_devrt_grid *g, uint64_t block, uint32_t thread, int32_t err)
{
    if (err == hipSuccess && atomic_load(&g->any_errors) == 0)
        return err;
    pthread_mutex_lock(&g->lock);
    size_t i = 0;
    while (i < g->num_errors && (g->errors[i].block != block || g->errors[i].thread != thread))
        i++;
    if (err == hipSuccess) {
        if (i < g->num_errors && atomic_load(&g->any_errors) != 0)
            g->errors[i] = g->errors[--g->num_errors];
    } else if (i < g->num_errors) {
        g->errors[i].err = err;
    } else {
        if (g->num_errors == g->cap_errors) {
            size_t cap = g->cap_errors ? g->cap_errors * 2 : 16;
            devrt_error *e = realloc(g->errors, cap * sizeof *e);
            if (e != NULL) {
                g->errors = e;
                g->cap_errors = cap;
            }
        }
        /* with no memory for it the error is still returned, only not kept */
        if (g->num_errors < g->cap_errors)
            g->errors[g->num_errors++] = (devrt_error){block, thread, err};
    }
    atomic_store(&g->any_errors, g->num_errors);
    pthread_mutex_unlock(&g->lock);
    return err;
}

static int64_t last_error(cpu_devrt_grid *g, uint64_t block, uint32_t thread)
{
    if (atomic_load(&g->any_errors) == 0)
        return hipSuccess;
    pthread_mutex_lock(&g->lock);
    int32_t err = hipSuccess;
    for (size_t i = 0; i < g->num_errors; i++)
        if (g->errors[i].block == block && g->errors[i].thread == thread) {
            err = g->errors[i].err;
            break;
        }
    pthread_mutex_unlock(&g->lock);
    return err;
}

static int64_t param_buffer(cpu_devrt_grid *g, uint64_t block, uint32_t thread,
                            const uint64_t *a)
{
    struct ihipModuleSymbol_t *fn = cpu_function_of_desc(g->fn, (const void *)(uintptr_t)a[0]);
    if (fn == NULL) {
        cpu_log("device-side launch from %s: %#llx is not a kernel of its module",
                g->fn->desc->name, (unsigned long long)a[0]);
        set_error(g, block, thread, hipErrorInvalidDeviceFunction);
        return 0;
    }
    size_t size = (args_offset() + fn->desc->params_bytes + ARGS_ALIGN - 1) / ARGS_ALIGN *
                  ARGS_ALIGN;
    devrt_child *c = aligned_alloc(ARGS_ALIGN, size);
    if (c == NULL) {
        set_error(g, block, thread, hipErrorOutOfMemory);
        return 0;
    }
    memset(c, 0, size);
    c->magic = CHILD_MAGIC;
    c->owner = g;
    c->fn = fn;
    c->grid = (pyshim_dim3){(uint32_t)a[1], (uint32_t)(a[1] >> 32), (uint32_t)a[2]};
    c->block = (pyshim_dim3){(uint32_t)a[3], (uint32_t)(a[3] >> 32), (uint32_t)a[4]};
    c->shared = (uint32_t)a[5];
    pthread_mutex_lock(&g->lock);
    c->next_buffer = g->buffers;
    g->buffers = c;
    pthread_mutex_unlock(&g->lock);
    return (int64_t)(intptr_t)child_args(c);
}

/* Whether `h` is a live handle of the grid of that kind (the lock held). */
static bool handle_live_locked(const cpu_devrt_grid *g, uint64_t h, bool event)
{
    for (const devrt_handle *d = g->handles; d != NULL; d = d->next)
        if ((uint64_t)(uintptr_t)d == h)
            return d->event == event;
    return false;
}

static int64_t launch_child(cpu_devrt_grid *g, uint64_t buffer, uint64_t stream)
{
    if (buffer == 0 || buffer % ARGS_ALIGN != 0)
        return CNP_INVALID_VALUE;
    devrt_child *c = (devrt_child *)((unsigned char *)(uintptr_t)buffer - args_offset());
    if (c->magic != CHILD_MAGIC || c->owner != g)
        return CNP_INVALID_VALUE;
    const char *name = c->fn->desc->name;
    if (g->depth + 1 >= DEVRT_MAX_DEPTH) {
        cpu_log("device-side launch of %s refused: cudaErrorLaunchMaxDepthExceeded (its "
                "parent is %u launches below the host's; CUDA nests grids %u levels deep)",
                name, g->depth, DEVRT_MAX_DEPTH);
        return CNP_MAX_DEPTH;
    }
    if (cpu_launch_validate(c->fn, c->grid, c->block, c->shared) != hipSuccess) {
        cpu_log("device-side launch of %s with grid (%u,%u,%u) block (%u,%u,%u) shared %u "
                "refused: cudaErrorInvalidConfiguration", name, c->grid.x, c->grid.y,
                c->grid.z, c->block.x, c->block.y, c->block.z, c->shared);
        return CNP_INVALID_CONFIGURATION;
    }
    pthread_mutex_lock(&g->lock);
    int64_t err = CNP_SUCCESS;
    if (c->launched)
        err = CNP_INVALID_VALUE;  /* a buffer launches once */
    else if (stream != 0 && stream != STREAM_TAIL_LAUNCH && stream != STREAM_FIRE_AND_FORGET &&
             !handle_live_locked(g, stream, false))
        err = CNP_INVALID_VALUE;
    if (err == CNP_SUCCESS) {
        c->launched = true;
        devrt_child ***end = stream == STREAM_TAIL_LAUNCH ? &g->tails_end : &g->queue_end;
        **end = c;
        *end = &c->next;
    }
    pthread_mutex_unlock(&g->lock);
    return err;
}

static int64_t handle_create(cpu_devrt_grid *g, uint64_t out, bool event)
{
    if (out == 0)
        return CNP_INVALID_VALUE;
    devrt_handle *h = calloc(1, sizeof *h);
    if (h == NULL)
        return CNP_OUT_OF_MEMORY;
    h->event = event;
    pthread_mutex_lock(&g->lock);
    h->next = g->handles;
    g->handles = h;
    pthread_mutex_unlock(&g->lock);
    uint64_t v = (uint64_t)(uintptr_t)h;
    memcpy((void *)(uintptr_t)out, &v, sizeof v);
    return CNP_SUCCESS;
}

static int64_t handle_destroy(cpu_devrt_grid *g, uint64_t handle, bool event)
{
    /* a stream's work still runs: the queue keeps the children, not the stream */
    pthread_mutex_lock(&g->lock);
    devrt_handle **p = &g->handles;
    while (*p != NULL && (uint64_t)(uintptr_t)*p != handle)
        p = &(*p)->next;
    devrt_handle *h = *p != NULL && (*p)->event == event ? *p : NULL;
    if (h != NULL)
        *p = h->next;
    pthread_mutex_unlock(&g->lock);
    free(h);
    return h != NULL ? CNP_SUCCESS : CNP_INVALID_VALUE;
}

/* An event recorded in, or waited for by, a stream: both handles must be live (the order
 * is the queue's, see devrt_handle). */
static int64_t event_use(cpu_devrt_grid *g, uint64_t stream, uint64_t event)
{
    pthread_mutex_lock(&g->lock);
    bool ok = handle_live_locked(g, event, true) &&
              (stream == 0 || handle_live_locked(g, stream, false));
    pthread_mutex_unlock(&g->lock);
    return ok ? CNP_SUCCESS : CNP_INVALID_VALUE;
}

static int64_t write_int(uint64_t out, int value)
{
    if (out == 0)
        return CNP_INVALID_VALUE;
    memcpy((void *)(uintptr_t)out, &value, sizeof value);
    return CNP_SUCCESS;
}

int64_t cpu_devrt_entry(const pyshim_launch *launch, const pyshim_block *block,
                        uint32_t thread, uint32_t op, const uint64_t *a)
{
    cpu_devrt_grid *g = launch->devrt_ctx;
    const pyshim_dim3 n = launch->grid, id = block->ctaid;
    uint64_t b = ((uint64_t)id.z * n.y + id.y) * n.x + id.x;
    switch (op) {
    case PYSHIM_DEVRT_PARAM_BUFFER:
        return param_buffer(g, b, thread, a);
    case PYSHIM_DEVRT_LAUNCH:
        return launch_child(g, a[0], a[1]);
    case PYSHIM_DEVRT_GET_LAST_ERROR:
        return last_error(g, b, thread);
    case PYSHIM_DEVRT_SET_LAST_ERROR:
        return set_error(g, b, thread, (int32_t)a[0]);
    case PYSHIM_DEVRT_GET_DEVICE:
        return write_int(a[0], g->device);
    case PYSHIM_DEVRT_GET_DEVICE_COUNT:
        return write_int(a[0], cpu_device_count());
    case PYSHIM_DEVRT_STREAM_CREATE:  /* device streams must be non-blocking */
        return a[1] != STREAM_NON_BLOCKING ? CNP_INVALID_VALUE : handle_create(g, a[0], false);
    case PYSHIM_DEVRT_STREAM_DESTROY:
        return handle_destroy(g, a[0], false);
    case PYSHIM_DEVRT_EVENT_CREATE:   /* and device events untimed */
        return a[1] != EVENT_DISABLE_TIMING ? CNP_INVALID_VALUE : handle_create(g, a[0], true);
    case PYSHIM_DEVRT_EVENT_RECORD:
        return event_use(g, a[1], a[0]);
    case PYSHIM_DEVRT_EVENT_DESTROY:
        return handle_destroy(g, a[0], true);
    case PYSHIM_DEVRT_STREAM_WAIT_EVENT:
        return a[2] != 0 ? CNP_INVALID_VALUE : event_use(g, a[0], a[1]);
    default:
        return CNP_INVALID_VALUE;
    }
}

/* Runs one child grid and everything it launches. */
static hipError_t run_child(const cpu_devrt_grid *g, devrt_child *c)
{
    const pyshim_kernel_desc *k = c->fn->desc;
    void **params = calloc(k->num_params ? k->num_params : 1, sizeof *params);
    if (params == NULL)
        return hipErrorOutOfMemory;
    for (uint32_t i = 0; i < k->num_params; i++)
        params[i] = child_args(c) + k->params[i].offset;
    cpu_grid_job job = {0};
    cpu_launch_init(&job, k, c->grid, c->block, c->shared);
    job.device = g->device;
    job.params = params;
    hipError_t err = cpu_launch_run(c->fn, &job, g->depth + 1);
    free(params);
    return err;
}

/* After the grid's blocks: runs the grids it launched (`run`: the grid succeeded), then
 * its tail launches; frees what the grid's device runtime calls made. The first failure
 * of a child, or hipSuccess. */
static hipError_t grid_end(cpu_devrt_grid *g, bool run)
{
    hipError_t err = hipSuccess;
    /* the children were launched before the grid ended; nothing adds to the queues now */
    for (devrt_child *c = g->queue; run && err == hipSuccess && c != NULL; c = c->next)
        err = run_child(g, c);
    for (devrt_child *c = g->tails; run && err == hipSuccess && c != NULL; c = c->next)
        err = run_child(g, c);
    for (devrt_child *c = g->buffers, *next; c != NULL; c = next) {
        next = c->next_buffer;
        free(c);
    }
    for (devrt_handle *h = g->handles, *next; h != NULL; h = next) {
        next = h->next;
        free(h);
    }
    free(g->errors);
    pthread_mutex_destroy(&g->lock);
    return err;
}

hipError_t cpu_launch_run(const struct ihipModuleSymbol_t *f, cpu_grid_job *job, unsigned depth)
{
    job->launch.globaltimer_base = 0;
    struct timespec ts;
    if (clock_gettime(CLOCK_REALTIME, &ts) == 0)
        job->launch.globaltimer_base = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
    /* the grid's device-side launches queue here; the grid is complete once they are */
    cpu_devrt_grid g;
    grid_begin(&g, f, job->device, depth);
    job->launch.devrt = f != NULL ? cpu_devrt_entry : NULL;
    job->launch.devrt_ctx = &g;
    hipError_t err = cpu_grid_run(job);
    hipError_t children = grid_end(&g, err == hipSuccess);
    job->launch.devrt = NULL;
    job->launch.devrt_ctx = NULL;
    return err != hipSuccess ? err : children;
}
