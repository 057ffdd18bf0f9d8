/*
 * Internal interfaces of the CPU device's HIP runtime (libamdhip64.so.7). Every file
 * includes the real HIP headers first, so each definition of a hip* function is checked
 * against ROCm's own declaration: a signature mismatch is a compile error.
 */
#ifndef PYSHIM_CPU_INTERNAL_H
#define PYSHIM_CPU_INTERNAL_H

#include <hip/hip_runtime_api.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pyshim_kernel_abi.h"

/* ---- error.c: per-thread last error, as hipGetLastError reports it ---- */

/* Records `err` as the calling thread's last error when it is not hipSuccess, returns it.
 * Every exported entry point returns through this. */
hipError_t cpu_ret(hipError_t err);
/* One line on stderr, prefixed "pyshim-cpu: ", for refusals a user must be able to see. */
void cpu_log(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* ---- sets of live handles: common/handle_set.h (shared with libcuda.so.1) ---- */
#include "common/handle_set.h"

/* ---- device.c ---- */

typedef struct cpu_device {
    int wave;                   /* 64 (gfx942-like) or 32 (gfx1100-like) */
    int workers;                /* kernel worker threads = multiprocessor count */
    size_t total_mem;
    hipDeviceProp_tR0600 props;
} cpu_device;

/* PYSHIM_CPU_DEVICES devices (default 1) at most this many: the UUID's last byte names the
 * ordinal. */
#define CPU_MAX_DEVICES 32
/* The calling thread's current device, configured once from PYSHIM_CPU_DEVICES /
 * PYSHIM_CPU_WAVE / PYSHIM_CPU_WORKERS; every device has the same configuration. */
const cpu_device *cpu_dev(void);
const cpu_device *cpu_dev_at(int ordinal);
int cpu_device_count(void);
int cpu_current_device(void);   /* hipSetDevice's, per thread */
int cpu_check_device(int dev);  /* nonzero if `dev` is not a valid ordinal */
/* Device `dev` may access `peer`'s memory (itself, or hipDeviceEnablePeerAccess'ed). */
bool cpu_peer_enabled(int dev, int peer);
/* kHz of the counter kernels read as %clock64 (clock.c); `fallback_khz` if it cannot be measured */
int cpu_counter_khz(int fallback_khz);

/* ---- memory.c: the allocation registry ---- */

typedef enum cpu_mem_kind {
    CPU_MEM_DEVICE = 1,         /* hipMalloc & co */
    CPU_MEM_MANAGED,            /* hipMallocManaged */
    CPU_MEM_HOST,               /* hipHostMalloc (pinned host) */
    CPU_MEM_REGISTERED,         /* hipHostRegister'ed user memory (not ours to free) */
    CPU_MEM_MODULE_GLOBAL,      /* a module's .global variable (freed with the module) */
    CPU_MEM_MAPPED,             /* a hipMemMap'ed range with access granted (vmm.c) */
} cpu_mem_kind;

typedef struct cpu_alloc {
    uintptr_t base;
    size_t size;
    cpu_mem_kind kind;
    unsigned flags;
    uint64_t id;
    bool sync_memops_off;            /* hipPointerSetAttribute(SYNC_MEMOPS, 0) */
    int device;                      /* the current device when it was allocated */
} cpu_alloc;

/* Finds the allocation containing `p`; copies it to *out. Returns false when none does. */
bool cpu_mem_lookup(const void *p, cpu_alloc *out);
/* Registers a range we did not allocate (module globals). */
hipError_t cpu_mem_register(void *base, size_t size, cpu_mem_kind kind, unsigned flags);
/* The same, as memory of device `dev` (not the current one: IPC imports). */
hipError_t cpu_mem_register_on(void *base, size_t size, cpu_mem_kind kind, unsigned flags,
                               int dev);
void cpu_mem_unregister(void *base);
/* Physical memory allocated outside the map (vmm.c), for hipMemGetInfo. */
void cpu_mem_account(size_t bytes, bool add);
/* Frees every allocation hipDeviceReset owns (device, managed, host-pinned). */
void cpu_mem_reset(void);
/* An ordinary device allocation / its immediate free (for mempool.c). */
hipError_t cpu_mem_alloc_device(void **ptr, size_t size, int dev);
void cpu_mem_free_device(void *ptr);

/* ---- arena.c: the address range all device memory comes from ---- */

/* `size` bytes (> 0) aligned to CPU_ALIGN, rounded up as a GPU driver rounds; NULL when
 * out of memory. */
void *cpu_arena_alloc(size_t size);
void cpu_arena_free(void *ptr, size_t size);   /* `size` as allocated */
/* True for any address the arena may hand out, allocated now or not (freed memory). */
bool cpu_arena_contains(const void *p);
/* Address space only (PROT_NONE), for hipMemAddressReserve: `len` a multiple of 2 MiB,
 * aligned to `align` (a power of two; at least 2 MiB). NULL when there is none. */
void *cpu_arena_reserve(size_t len, size_t align);
void cpu_arena_unreserve(void *ptr, size_t len);
/* The same at `addr` exactly, if that address space is free; else NULL. */
void *cpu_arena_reserve_at(void *addr, size_t len);

/* ---- vmm.c: virtual memory management ---- */

/* Drops every mapping, reservation and physical allocation (hipDeviceReset, before the
 * map's own reset). */
void cpu_vmm_reset(void);

/* An API call's range [p, p + len): inside one allocation the device knows, or (when
 * `host_ok`) pageable host memory, *pageable then set. hipErrorInvalidValue for unknown
 * device pointers, freed device memory and ranges past an allocation's end. */
hipError_t cpu_mem_check_range(const void *p, size_t len, bool host_ok, bool *pageable);

/* ---- fault.c: faults in kernel code become errors ---- */

typedef struct cpu_guard {
    sigjmp_buf env;
    volatile int sig;                /* the signal that ended the guarded code, or 0 */
    void *volatile addr;             /* its faulting address */
    _Atomic bool *abort;             /* set: the watchdog's signal ends the guarded code */
} cpu_guard;

/* Installs the fault handlers (once) and this thread's alternate signal stack. */
void cpu_guard_prepare(void);
/* Arms `g` on this thread, after `sigsetjmp(g->env, 0)` returned 0; a fault then returns
 * there with 1 (the guard is disarmed). */
void cpu_guard_push(cpu_guard *g);
/* The same, and the watchdog's signal also returns there while *abort is set. */
void cpu_guard_push_abortable(cpu_guard *g, _Atomic bool *abort);
void cpu_guard_pop(void);
/* The signal the kernel watchdog (PYSHIM_KERNEL_TIMEOUT) sends to a launch's threads, and
 * its handler's installation; cpu_fault_error maps it to hipErrorLaunchTimeOut. */
int cpu_timeout_signal(void);
void cpu_timeout_install(void);
hipError_t cpu_fault_error(int sig);   /* hipErrorIllegalAddress & co */
const char *cpu_fault_name(int sig);
/* CUDA's cudaErrorIllegalInstruction: HIP has no name for it, the number is CUDA's. */
#define CPU_ERROR_ILLEGAL_INSTRUCTION ((hipError_t)715)

/* ---- context.c ---- */

bool cpu_ctx_valid(hipCtx_t ctx);   /* a device's one context */
hipCtx_t cpu_ctx_of(int dev);        /* device `dev`'s context (NULL: no such device) */

/* ---- mempool.c ---- */

/* A stream-ordered allocation from `pool` on `stream`, counted in the pool (not cpu_ret). */
hipError_t cpu_pool_alloc(hipMemPool_t pool, void **dev_ptr, size_t size, hipStream_t stream);
hipMemPool_t cpu_pool_current(int device);
/* Credits the pool of a stream-ordered allocation being freed (no-op for other memory). */
void cpu_pool_forget(const void *ptr);
/* Every allocation is gone (device reset): pools are empty. */
void cpu_pool_reset(void);

/* ---- stream.c: in-order command queues, one worker thread each ---- */

typedef struct cpu_cmd cpu_cmd;
typedef void (*cpu_cmd_fn)(cpu_cmd *cmd);

/* A command runs `run` on the stream's worker thread, after its predecessors on the same
 * stream and after its dependencies; `payload` is owned by the command and freed after. */
struct cpu_cmd {
    cpu_cmd_fn run;
    void (*release)(cpu_cmd *cmd);   /* optional: drops references held by the payload */
    struct ihipStream_t *stream;
    struct ihipEvent_t *wait_event;  /* dependency: this event's record #wait_gen has run */
    uint64_t wait_gen;
    struct cpu_dep *deps;            /* dependency: stream reached a sequence number */
    int num_deps;
    cpu_cmd *next;
    uint64_t seq;
    size_t payload_size;
    bool cached;                     /* from the command cache (stream.c): back there after it ran */
    /* Repairs a copy whose payload points into itself (graph replay clones commands). */
    void (*fixup)(cpu_cmd *copy);
    _Alignas(16) unsigned char payload[];
};

struct ihipStream_t {
    uint32_t magic;
    unsigned flags;
    int priority;
    bool is_null;                    /* the legacy NULL stream */
    bool destroyed;
    int refs;
    uint64_t enqueued;               /* sequence number of the last command enqueued */
    uint64_t completed;              /* ... and of the last one finished */
    /* the lowest sequence number a thread synchronising with this stream sleeps for (0:
     * none, a wait for 0 never sleeps); the worker wakes those threads only when it is reached */
    uint64_t wait_seq;
    cpu_cmd *head, *tail;            /* head: also read unlocked (atomically) by the spinning worker */
    pthread_t thread;
    pthread_cond_t wake;             /* the worker sleeps here when its queue is empty */
    bool worker_sleeping;
    bool thread_started;             /* `wake` was initialised */
    struct ihipStream_t *next_live;
    unsigned long long id;
    struct ihipGraph *capture;       /* non-NULL while hipStreamBeginCapture records */
    unsigned long long capture_id;
    cpu_cmd *capture_last;           /* the last node this stream captured: the next one's dependency */
    cpu_cmd *capture_joins[8];       /* nodes of other streams its next node also waits for */
    int num_joins;
    /* the dependency set as hipStreamGetCaptureInfo_v2 last handed it out (valid until the
     * stream's next call, as CUDA documents) */
    hipGraphNode_t capture_deps[9];
    /* stream attributes that change nothing here (no L2 to persist in, one memory sync
     * domain, workers that always wait the same way) but read back as they were set;
     * zero-filled: no window, domain 0, and sync_policy 0 reads as hipSyncPolicyAuto */
    hipAccessPolicyWindow access_window;
    int sync_policy;
    hipLaunchMemSyncDomainMap domain_map;
    int domain;
    int device;                      /* current when it was created (the legacy stream: 0) */
};

struct cpu_dep {
    struct ihipStream_t *stream;
    uint64_t seq;
};

/* Allocates a command with `payload_size` bytes of payload. Returns NULL on OOM. */
cpu_cmd *cpu_cmd_new(cpu_cmd_fn run, size_t payload_size);
/* A fresh copy of a command that has not been enqueued (a captured one), or NULL. */
cpu_cmd *cpu_cmd_clone(const cpu_cmd *c);
/* Frees a command that will never run. */
void cpu_cmd_free(cpu_cmd *c);
/* True while `s` is being captured: such work is recorded into a graph, not run, and
 * calls that would wait for it or cannot be recorded refuse with
 * hipErrorStreamCaptureUnsupported. */
bool cpu_stream_capturing(struct ihipStream_t *s);
/* Resolves a user handle (NULL, hipStreamLegacy, hipStreamPerThread or a created stream);
 * `spt` selects the per-thread default stream for NULL (the _spt entry points). A handle
 * that is not a live stream gives hipErrorContextIsDestroyed, as ROCm answers. */
hipError_t cpu_stream_resolve(hipStream_t handle, bool spt, struct ihipStream_t **out);
/* Enqueues `cmd` (takes ownership, also on error); *seq (optional) gets its number. */
hipError_t cpu_stream_enqueue(struct ihipStream_t *s, cpu_cmd *cmd, uint64_t *seq);
/* True when a synchronous command on `s` could run right now on the calling thread:
 * nothing pending on `s` nor on the streams it implicitly waits for. Synchronous copies
 * then skip the hand-off to the worker (a few microseconds). */
bool cpu_stream_idle_for_inline(struct ihipStream_t *s);
/* Blocks until command number `seq` of `s` has run; returns the device's sticky error. */
hipError_t cpu_stream_wait_seq(struct ihipStream_t *s, uint64_t seq);
/* Blocks until everything enqueued on `s` so far has run. */
hipError_t cpu_stream_wait_idle(struct ihipStream_t *s);
/* Blocks until every stream is idle (hipDeviceSynchronize). The waits refuse with
 * hipErrorNotSupported when called from a stream's own thread (a callback). */
hipError_t cpu_device_wait_idle(void);
/* The same for the current device's streams only (hipDeviceSynchronize): a thread driving
 * one device never waits for another's work, which may be waiting for this device. */
hipError_t cpu_current_device_wait_idle(void);
/* Scheduler lock and condition shared by streams and events: every completion broadcasts. */
extern pthread_mutex_t cpu_sched_lock;
extern pthread_cond_t cpu_sched_cond;
/* Sticky error of the device (a kernel trapped): reported by synchronisations. */
hipError_t cpu_sticky_error(void);
void cpu_set_sticky_error(hipError_t err);
void cpu_clear_sticky_error(void);

/* ---- graph.c ---- */

/* With cpu_sched_lock held: the graph capture `id` records into while any stream still
 * captures it, else NULL (stream.c). */
struct ihipGraph *cpu_capture_graph_locked(unsigned long long id);
/* Appends a captured command to a graph (takes ownership). False: out of memory. */
bool cpu_graph_append(struct ihipGraph *g, cpu_cmd *c);
struct ihipGraph *cpu_graph_new(void);

/* ---- event.c ---- */

struct ihipEvent_t {
    uint32_t magic;
    unsigned flags;
    int refs;                        /* the user's handle + pending commands */
    bool destroyed;
    uint64_t gen_recorded;           /* records enqueued */
    uint64_t gen_done;               /* records executed */
    uint64_t time_ns;                /* CLOCK_MONOTONIC when the last record ran */
    unsigned long long capture_id;   /* nonzero: last recorded in that stream capture */
    cpu_cmd *capture_node;           /* ... after that captured node (NULL: none yet) */
    int device;                      /* current when it was created */
    struct cpu_ipc_event_ref *ipc;   /* interprocess: counters shared with other processes */
};

void cpu_event_release_locked(struct ihipEvent_t *e);
bool cpu_event_valid(hipEvent_t e);
/* A new event; `ipc` (optional, taken over on success): an opened interprocess event's. */
hipError_t cpu_event_new(hipEvent_t *event, unsigned flags, struct cpu_ipc_event_ref *ipc);

/* ---- ipc.c: memory and event handles between processes ---- */

/* An allocation being freed: pages exported for it alone go back to the arena. */
void cpu_ipc_forget(uintptr_t base, size_t size);
/* Interprocess events: the shared page of a new event, its release, a record's number,
 * its completion, the latest record's number, and waits for a number. */
bool cpu_ipc_event_init(struct ihipEvent_t *e);
void cpu_ipc_event_free(struct ihipEvent_t *e);
uint64_t cpu_ipc_event_record(struct ihipEvent_t *e);
void cpu_ipc_event_done(struct ihipEvent_t *e, uint64_t gen);
uint64_t cpu_ipc_event_target(struct ihipEvent_t *e);
bool cpu_ipc_event_reached(struct ihipEvent_t *e, uint64_t target);
void cpu_ipc_event_wait(struct ihipEvent_t *e, uint64_t target);

/* ---- module.c ---- */

struct ihipModuleSymbol_t {
    uint32_t magic;
    struct ihipModule_t *module;
    const pyshim_kernel_desc *desc;
    int max_dyn_shared;              /* hipFuncAttributeMaxDynamicSharedMemorySize */
    bool non_portable_cluster;       /* clusters above 8 blocks allowed (common/cluster_launch.h) */
};

/* Returns the function behind a handle, or NULL if it is not a live function. */
struct ihipModuleSymbol_t *cpu_function_lookup(const void *handle);
/* The function of f's module whose kernel descriptor is at `desc`, or NULL when `desc` is
 * none of that module's (a kernel's address in device code is its descriptor's). */
struct ihipModuleSymbol_t *cpu_function_of_desc(const struct ihipModuleSymbol_t *f,
                                                const void *desc);

/* ---- commands for graph nodes (launch.c, memcpy.c, stream.c) ---- */

/* Validates a launch and builds its command (arguments copied), as hipModuleLaunchKernel. */
hipError_t cpu_launch_cmd(const void *function, pyshim_dim3 grid, pyshim_dim3 block,
                          unsigned shared, void **kernelParams, void **extra, cpu_cmd **out);
bool cpu_cmd_is_launch(const cpu_cmd *c);
hipError_t cpu_copy3d_cmd(const struct hipMemcpy3DParms *p, cpu_cmd **out);
hipError_t cpu_drv_copy3d_cmd(const HIP_MEMCPY3D *p, cpu_cmd **out);
hipError_t cpu_copy1d_cmd(void *dst, const void *src, size_t n, hipMemcpyKind kind,
                          cpu_cmd **out);
hipError_t cpu_memset_cmd(const hipMemsetParams *p, cpu_cmd **out);
/* a memset node's parameters as they were given (c: a command cpu_memset_cmd made) */
void cpu_memset_params(const cpu_cmd *c, hipMemsetParams *out);
/* True for a copy command (a copy node's, captured or built). */
bool cpu_cmd_is_copy(const cpu_cmd *c);
/* True for a host-function command (cpu_host_fn_cmd's). */
bool cpu_cmd_is_host_fn(const cpu_cmd *c);
/* 1 for a graph memory-allocation command, 2 for a memory-free one, else 0. */
int cpu_cmd_graph_mem_kind(const cpu_cmd *c);
/* True for a memset command (cpu_memset_cmd's). */
bool cpu_cmd_is_fill(const cpu_cmd *c);
/* True for a driver-API copy node's command; *out (optional) gets its descriptor. */
bool cpu_cmd_drv_copy_desc(const cpu_cmd *c, HIP_MEMCPY3D *out);

/* True when [p, p + count) lies inside one allocation the device knows. */
bool cpu_mem_range_known(const void *p, size_t count);
/* mem_advice.c: advice and prefetches kept for hipMemRangeGetAttribute; forget is called
 * with the allocation registry's lock held when an allocation goes. */
hipError_t cpu_advice_record(const void *p, size_t count, hipMemoryAdvise advice, int device);
hipError_t cpu_advice_prefetch(const void *p, size_t count, int device);
void cpu_advice_forget(uintptr_t base, size_t size);
cpu_cmd *cpu_host_fn_cmd(hipHostFn_t fn, void *user_data);
/* A kernel node's / host node's parameters (graph_topology.c); false for another kind. */
bool cpu_cmd_launch_params(const cpu_cmd *c, hipKernelNodeParams *out, const char **name);
/* Kernel node launch attributes (and cooperation) of `src` given to `dst`, both launches. */
void cpu_cmd_launch_copy_attrs(cpu_cmd *dst, const cpu_cmd *src);
bool cpu_cmd_host_fn_params(const cpu_cmd *c, hipHostNodeParams *out);

/* ---- user_object.c: the user-object references a graph, an exec or a launch holds ---- */
typedef struct cpu_user_refs {
    hipUserObject_t *objs;
    unsigned *counts;
    size_t n;
} cpu_user_refs;
/* Take `count` more references to `o` (`move`: the caller's own, not new ones). */
hipError_t cpu_user_refs_add(cpu_user_refs *r, hipUserObject_t o, unsigned count, bool move);
hipError_t cpu_user_refs_remove(cpu_user_refs *r, hipUserObject_t o, unsigned count);
/* Drop every reference (destructors run when they were the last). */
void cpu_user_refs_clear(cpu_user_refs *r);
/* dst = a new reference to everything src holds. False: out of memory. */
bool cpu_user_refs_copy(cpu_user_refs *dst, const cpu_user_refs *src);
/* A host command holding one launch's references, dropped when it runs; NULL when there
 * are none (or no memory: the launch then holds none). */
cpu_cmd *cpu_user_refs_launch_cmd(const cpu_user_refs *r);

/* ---- grid.c: the worker pool that runs the blocks of a launch ---- */

typedef struct cpu_grid_job {
    const pyshim_kernel_desc *kernel;
    pyshim_launch launch;
    void **params;                   /* one pointer per parameter, into a private copy */
    bool cooperative;                /* every block resident at once: a thread each */
    int device;                      /* the ordinal the launch was made on */
} cpu_grid_job;

/* Runs every block of the job on the pool, blocking the caller until all are done.
 * Returns hipSuccess, or hipErrorLaunchFailure / hipErrorAssert (a block trapped; logged
 * with its index and code). */
hipError_t cpu_grid_run(const cpu_grid_job *job);
int cpu_grid_workers(void);
/* A failed device assert (hipErrorAssert); any other nonzero code is a launch failure. */
#define CPU_TRAP_ASSERT PYSHIM_TRAP_ASSERT

/* ---- launch.c: a grid's configuration ---- */

/* Validates a grid's configuration as hipModuleLaunchKernel does (the block, grid and
 * shared sizes against the device and the kernel's bounds). */
hipError_t cpu_launch_validate(const struct ihipModuleSymbol_t *f, pyshim_dim3 grid,
                               pyshim_dim3 block, unsigned shared);
/* Fills in a job's kernel, device and launch record (params and cooperation left alone). */
void cpu_launch_init(cpu_grid_job *job, const pyshim_kernel_desc *k, pyshim_dim3 grid,
                     pyshim_dim3 block, unsigned shared);

/* ---- devrt.c: the device runtime of dynamic parallelism ---- */

/* The pyshim_devrt_fn of every launch record (pyshim_kernel_abi.h). */
int64_t cpu_devrt_entry(const pyshim_launch *launch, const pyshim_block *block,
                        uint32_t thread, uint32_t op, const uint64_t *args);
/* Runs a grid of function f and then the grids it launched from the device, `depth`
 * launches below the host's (a grid is complete when its children are). */
hipError_t cpu_launch_run(const struct ihipModuleSymbol_t *f, cpu_grid_job *job, unsigned depth);

/* ---- graph_mem.c ---- */

/* The command of a memory-allocation node: reserves the memory now (p->dptr). */
hipError_t cpu_graph_alloc_cmd(hipMemAllocNodeParams *p, cpu_cmd **out);
/* The command of a memory-free node; hipErrorInvalidValue unless `ptr` is graph memory. */
hipError_t cpu_graph_free_cmd(void *ptr, cpu_cmd **out);
/* Marks graph memory free (hipFree, hipFreeAsync, free nodes); false if it is not. */
bool cpu_graph_mem_free(const void *ptr);
/* [p, p + len) lies in memory a graph allocation node holds, allocated now or not: work
 * ordered after the graph's launch (graph nodes, stream operations) may name it. */
bool cpu_graph_mem_held(const void *p, size_t len);
void cpu_graph_mem_reset(void);   /* a device reset freed all memory */

/* ---- printf.c ---- */

/* PTX vprintf: formats `fmt` with arguments from the packed buffer, writes to stdout. */
int cpu_vprintf(const pyshim_launch *launch, const char *fmt, const void *args);
/* Flushes device printf output (called at synchronisation points). */
void cpu_printf_flush(void);

/* ---- time ---- */
uint64_t cpu_now_ns(void);           /* CLOCK_MONOTONIC */

/* ---- spin.c: brief spinning before sleeping ---- */

/* How long a thread out of work, or waiting for the device, spins before it sleeps
 * (PYSHIM_CPU_SPIN_US, default 50 us; 0: sleep at once). */
uint64_t cpu_spin_ns(void);
/* Polls ready(arg) for at most cpu_spin_ns(), yielding the CPU between rounds; true as soon
 * as it returns true, false when the budget ran out. */
bool cpu_spin_until(bool (*ready)(const void *arg), const void *arg);
/* True when the last command a stream ran was short (within the spin budget): a wait for
 * the device is then worth a spin (stream.c). */
bool cpu_expect_short_wait(void);

/* Tags in handle objects, for debuggers and core dumps; whether a handle is valid is decided
 * by membership in a live set (handles.c), never by reading through it. */
#define CPU_MAGIC_STREAM 0x53545245u   /* "STRE" */
#define CPU_MAGIC_EVENT 0x45564e54u    /* "EVNT" */
#define CPU_MAGIC_MODULE 0x4d4f4455u   /* "MODU" */
#define CPU_MAGIC_FUNC 0x46554e43u     /* "FUNC" */
#define CPU_MAGIC_CTX 0x43545854u      /* "CTXT" */

#define CPU_ALIGN 256u                 /* device allocations: HIP's minimum alignment */
#define CPU_MAX_SHARED (64u * 1024u)   /* shared memory per block (LDS) */
#define CPU_MAX_THREADS 1024u
/* Threads that run blocks keep a whole block's static shared arrays and per-thread
 * contexts on their stack. */
#define CPU_KERNEL_STACK (64u << 20)

#endif
