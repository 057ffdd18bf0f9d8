/*
 * CUDA/HIP IPC between processes of one machine: memory and event handles.
 *
 * Device memory is anonymous arena memory, which another process cannot map. Exporting an
 * allocation (hipIpcGetMemHandle) therefore moves the pages under it onto a memfd in place:
 * the contents are copied into the memfd, which is then mapped MAP_FIXED|MAP_SHARED at the
 * same address, so the exporter's pointer, its contents and every copy or kernel that uses
 * it are unchanged, and allocations never exported stay ordinary (fast) memory. Small
 * allocations share pages with their slab neighbours: the pages are exported whole and
 * later exports inside them reuse the same memfd. A handle names the exporter's pid and
 * memfd; the importer opens /proc/<pid>/fd/<fd> (the same user may) and maps it into arena
 * address space, registered as device memory of the exporter's device.
 *
 * An interprocess event keeps its record counters in a shared page (also a memfd): a record
 * takes the next number from it, running the record publishes the number, and a wait in any
 * process waits for the number that was the latest when it was called, as CUDA's do.
 * Waiting on another process cannot use our condition variable: it polls, sleeping
 * progressively longer (at most 200 us).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "internal.h"

#define IPC_MEM_MAGIC 0x4d495350u     /* "PSIM" */
#define IPC_EVENT_MAGIC 0x45495350u   /* "PSIE" */
#define GRAIN ((size_t)2 << 20)       /* the arena's large allocations and reservations */
#define SMALL_MAX ((size_t)1 << 20)   /* larger allocations have their own 2 MiB-rounded range */

/* What a hipIpcMemHandle_t (64 bytes) carries. */
typedef struct ipc_mem_wire {
    uint32_t magic;
    int32_t pid;
    int32_t fd;
    int32_t device;
    uint64_t region_len;             /* bytes of the memfd */
    uint64_t offset;                 /* the allocation's base in the memfd */
    uint64_t size;                   /* the allocation's size */
    uint64_t export_id;              /* distinguishes reuses of one fd number */
} ipc_mem_wire;
_Static_assert(sizeof(ipc_mem_wire) <= sizeof(hipIpcMemHandle_t), "handle too small");

typedef struct ipc_event_wire {
    uint32_t magic;
    int32_t pid;
    int32_t fd;
    int32_t device;
} ipc_event_wire;
_Static_assert(sizeof(ipc_event_wire) <= sizeof(hipIpcEventHandle_t), "handle too small");

/* Pages of this process moved onto a memfd. */
typedef struct exported {
    uintptr_t base;
    size_t len;
    int fd;
    uint64_t export_id;
} exported;

/* Another process's memory mapped here. */
typedef struct imported {
    int32_t pid, fd;
    uint64_t export_id, offset;
    uintptr_t map;                   /* our mapping of the whole memfd */
    size_t map_len;                  /* reserved (a multiple of GRAIN) */
    void *ptr;                       /* what hipIpcOpenMemHandle returned */
    int refs;
} imported;

static pthread_mutex_t ipc_lock = PTHREAD_MUTEX_INITIALIZER;
static exported *exps;
static size_t nexps, capexps;
static imported *imps;
static size_t nimps, capimps;
static uint64_t next_export_id = 1;

static size_t page_size(void)
{
    static size_t page;
    if (page == 0)
        page = (size_t)sysconf(_SC_PAGESIZE);
    return page;
}

static bool grow(void **arr, size_t *cap, size_t n, size_t elem)
{
    if (n < *cap)
        return true;
    size_t c = *cap ? *cap * 2 : 16;
    void *p = realloc(*arr, c * elem);
    if (p == NULL)
        return false;
    *arr = p;
    *cap = c;
    return true;
}

/* Moves [base, base + len) onto a new memfd, contents kept. ipc_lock held. */
static hipError_t export_pages_locked(uintptr_t base, size_t len, exported *out)
{
    int fd = memfd_create("pyshim-ipc-mem", MFD_CLOEXEC);
    if (fd < 0 || ftruncate(fd, (off_t)len) != 0) {
        cpu_log("hipIpcGetMemHandle: memfd_create/ftruncate of %zu bytes failed: %s", len,
                strerror(errno));
        if (fd >= 0)
            close(fd);
        return hipErrorOutOfMemory;
    }
    void *tmp = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (tmp == MAP_FAILED) {
        close(fd);
        return hipErrorOutOfMemory;
    }
    memcpy(tmp, (void *)base, len);
    munmap(tmp, len);
    if (mmap((void *)base, len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, fd, 0) ==
        MAP_FAILED) {
        /* MAP_FIXED failing leaves the old mapping in place: nothing is lost */
        cpu_log("hipIpcGetMemHandle: mapping the memfd over %p failed: %s", (void *)base,
                strerror(errno));
        close(fd);
        return hipErrorOutOfMemory;
    }
    *out = (exported){base, len, fd, next_export_id++};
    return hipSuccess;
}

hipError_t hipIpcGetMemHandle(hipIpcMemHandle_t *handle, void *devPtr)
{
    if (handle == NULL || devPtr == NULL)
        return cpu_ret(hipErrorInvalidValue);
    cpu_alloc a;
    if (!cpu_mem_lookup(devPtr, &a) || a.kind != CPU_MEM_DEVICE) {
        cpu_log("hipIpcGetMemHandle: %p is not device memory from hipMalloc", devPtr);
        return cpu_ret(hipErrorInvalidValue);
    }
    size_t page = page_size();
    uintptr_t pbase = a.base & ~(uintptr_t)(page - 1);
    /* a large allocation's whole rounded range: what a kernel overrunning it touches */
    size_t span = a.size > SMALL_MAX ? (a.size + GRAIN - 1) / GRAIN * GRAIN : a.size;
    uintptr_t pend = (a.base + span + page - 1) & ~(uintptr_t)(page - 1);
    /* work in flight may write the pages while they are copied */
    hipError_t err = cpu_device_wait_idle();
    if (err == hipErrorNotSupported)
        return cpu_ret(err);
    pthread_mutex_lock(&ipc_lock);
    exported *e = NULL;
    for (size_t i = 0; i < nexps && e == NULL; i++) {
        exported *x = &exps[i];
        bool inside = pbase >= x->base && pend <= x->base + x->len;
        bool overlap = pbase < x->base + x->len && x->base < pend;
        if (inside)
            e = x;
        else if (overlap) {
            pthread_mutex_unlock(&ipc_lock);
            cpu_log("hipIpcGetMemHandle: %p straddles pages exported before", devPtr);
            return cpu_ret(hipErrorNotSupported);
        }
    }
    if (e == NULL) {
        exported fresh;
        if (!grow((void **)&exps, &capexps, nexps, sizeof *exps) ||
            (err = export_pages_locked(pbase, pend - pbase, &fresh)) != hipSuccess) {
            pthread_mutex_unlock(&ipc_lock);
            return cpu_ret(err != hipSuccess ? err : hipErrorOutOfMemory);
        }
        exps[nexps] = fresh;
        e = &exps[nexps++];
    }
    ipc_mem_wire w = {IPC_MEM_MAGIC, (int32_t)getpid(), e->fd, a.device, e->len,
                      a.base - e->base, a.size, e->export_id};
    pthread_mutex_unlock(&ipc_lock);
    memset(handle, 0, sizeof *handle);
    memcpy(handle, &w, sizeof w);
    return hipSuccess;
}

void cpu_ipc_forget(uintptr_t base, size_t size)
{
    pthread_mutex_lock(&ipc_lock);
    /* Only pages exported for exactly this allocation go: the arena maps fresh anonymous
     * memory over freed large allocations; shared slab pages stay on their memfd. */
    for (size_t i = 0; i < nexps && size > SMALL_MAX; i++) {
        if (exps[i].base == base) {
            close(exps[i].fd);
            exps[i] = exps[--nexps];
            break;
        }
    }
    pthread_mutex_unlock(&ipc_lock);
}

/* The exporter's memfd, if it is one of at least `min_len` bytes (a forged or stale
 * handle must not map something that faults on access). */
static int open_peer_fd(int32_t pid, int32_t fd, size_t min_len, const char *fn)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/fd/%d", (int)pid, (int)fd);
    int ours = open(path, O_RDWR | O_CLOEXEC);
    if (ours < 0) {
        cpu_log("%s: cannot open %s (the exporting process must be alive and ours): %s", fn,
                path, strerror(errno));
        return -1;
    }
    struct stat st;
    if (fstat(ours, &st) != 0 || !S_ISREG(st.st_mode) || (size_t)st.st_size < min_len) {
        cpu_log("%s: %s is not the exported memory (stale handle?)", fn, path);
        close(ours);
        return -1;
    }
    return ours;
}

hipError_t hipIpcOpenMemHandle(void **devPtr, hipIpcMemHandle_t handle, unsigned int flags)
{
    if (devPtr == NULL || (flags & ~(unsigned)hipIpcMemLazyEnablePeerAccess))
        return cpu_ret(hipErrorInvalidValue);
    ipc_mem_wire w;
    memcpy(&w, &handle, sizeof w);
    if (w.magic != IPC_MEM_MAGIC || w.size == 0 || w.offset > w.region_len ||
        w.size > w.region_len - w.offset) {
        cpu_log("hipIpcOpenMemHandle: not a memory handle of the CPU device");
        return cpu_ret(hipErrorInvalidValue);
    }
    if (w.pid == (int32_t)getpid()) {
        /* a process cannot open its own handles (CUDA refuses too) */
        cpu_log("hipIpcOpenMemHandle: the handle was made by this process");
        return cpu_ret(hipErrorInvalidValue);
    }
    pthread_mutex_lock(&ipc_lock);
    for (size_t i = 0; i < nimps; i++) {
        imported *m = &imps[i];
        if (m->pid == w.pid && m->fd == w.fd && m->export_id == w.export_id &&
            m->offset == w.offset) {
            m->refs++;
            *devPtr = m->ptr;
            pthread_mutex_unlock(&ipc_lock);
            return hipSuccess;
        }
    }
    pthread_mutex_unlock(&ipc_lock);
    int fd = open_peer_fd(w.pid, w.fd, w.region_len, "hipIpcOpenMemHandle");
    if (fd < 0)
        return cpu_ret(hipErrorInvalidValue);
    size_t map_len = (w.region_len + GRAIN - 1) / GRAIN * GRAIN;
    void *at = cpu_arena_reserve(map_len, GRAIN);
    if (at == NULL) {
        close(fd);
        return cpu_ret(hipErrorOutOfMemory);
    }
    void *m = mmap(at, w.region_len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, fd, 0);
    close(fd);   /* the mapping keeps the memfd */
    if (m == MAP_FAILED) {
        cpu_log("hipIpcOpenMemHandle: mapping the exporter's memory failed: %s",
                strerror(errno));
        cpu_arena_unreserve(at, map_len);
        return cpu_ret(hipErrorInvalidValue);
    }
    void *ptr = (char *)m + w.offset;
    int dev = w.device >= 0 && w.device < cpu_device_count() ? w.device : 0;
    hipError_t err = cpu_mem_register_on(ptr, w.size, CPU_MEM_MAPPED, 0, dev);
    pthread_mutex_lock(&ipc_lock);
    if (err == hipSuccess && !grow((void **)&imps, &capimps, nimps, sizeof *imps))
        err = hipErrorOutOfMemory;
    if (err == hipSuccess)
        imps[nimps++] = (imported){w.pid, w.fd, w.export_id, w.offset, (uintptr_t)m,
                                   map_len, ptr, 1};
    pthread_mutex_unlock(&ipc_lock);
    if (err != hipSuccess) {
        cpu_mem_unregister(ptr);
        cpu_arena_unreserve(at, map_len);
        return cpu_ret(err);
    }
    *devPtr = ptr;
    return hipSuccess;
}

hipError_t hipIpcCloseMemHandle(void *devPtr)
{
    if (devPtr == NULL)
        return cpu_ret(hipErrorInvalidValue);
    pthread_mutex_lock(&ipc_lock);
    for (size_t i = 0; i < nimps; i++) {
        if (imps[i].ptr != devPtr)
            continue;
        imported m = imps[i];
        if (--imps[i].refs > 0) {
            pthread_mutex_unlock(&ipc_lock);
            return hipSuccess;
        }
        imps[i] = imps[--nimps];
        pthread_mutex_unlock(&ipc_lock);
        /* work in flight may still use it, as before any free */
        hipError_t err = cpu_device_wait_idle();
        if (err == hipErrorNotSupported)
            return cpu_ret(err);
        cpu_mem_unregister(devPtr);
        cpu_arena_unreserve((void *)m.map, m.map_len);   /* maps PROT_NONE over it */
        return hipSuccess;
    }
    pthread_mutex_unlock(&ipc_lock);
    cpu_log("hipIpcCloseMemHandle: %p was not opened by hipIpcOpenMemHandle", devPtr);
    return cpu_ret(hipErrorInvalidValue);
}

/* ---- events ---- */

struct cpu_ipc_event {
    _Atomic uint64_t recorded;       /* records enqueued, by every process */
    _Atomic uint64_t done;           /* the newest record that ran */
};

struct cpu_ipc_event_ref {
    struct cpu_ipc_event *shared;
    int fd;                          /* the exporter's memfd (-1 in an importer) */
};

static struct cpu_ipc_event_ref *map_event(int fd)
{
    struct cpu_ipc_event_ref *r = malloc(sizeof *r);
    if (r == NULL)
        return NULL;
    void *p = mmap(NULL, page_size(), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (p == MAP_FAILED) {
        free(r);
        return NULL;
    }
    r->shared = p;
    r->fd = -1;
    return r;
}

bool cpu_ipc_event_init(struct ihipEvent_t *e)
{
    int fd = memfd_create("pyshim-ipc-event", MFD_CLOEXEC);
    if (fd < 0 || ftruncate(fd, (off_t)page_size()) != 0) {
        if (fd >= 0)
            close(fd);
        return false;
    }
    e->ipc = map_event(fd);
    if (e->ipc == NULL) {
        close(fd);
        return false;
    }
    e->ipc->fd = fd;
    return true;
}

void cpu_ipc_event_free(struct ihipEvent_t *e)
{
    if (e->ipc == NULL)
        return;
    munmap(e->ipc->shared, page_size());
    if (e->ipc->fd >= 0)
        close(e->ipc->fd);
    free(e->ipc);
    e->ipc = NULL;
}

uint64_t cpu_ipc_event_record(struct ihipEvent_t *e)
{
    return __atomic_add_fetch(&e->ipc->shared->recorded, 1, __ATOMIC_ACQ_REL);
}

void cpu_ipc_event_done(struct ihipEvent_t *e, uint64_t gen)
{
    uint64_t cur = __atomic_load_n(&e->ipc->shared->done, __ATOMIC_ACQUIRE);
    while (cur < gen && !__atomic_compare_exchange_n(&e->ipc->shared->done, &cur, gen, false,
                                                     __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
        ;
}

uint64_t cpu_ipc_event_target(struct ihipEvent_t *e)
{
    return __atomic_load_n(&e->ipc->shared->recorded, __ATOMIC_ACQUIRE);
}

bool cpu_ipc_event_reached(struct ihipEvent_t *e, uint64_t target)
{
    return __atomic_load_n(&e->ipc->shared->done, __ATOMIC_ACQUIRE) >= target;
}

void cpu_ipc_event_wait(struct ihipEvent_t *e, uint64_t target)
{
    long ns = 1000;
    while (!cpu_ipc_event_reached(e, target)) {
        nanosleep(&(struct timespec){0, ns}, NULL);
        if (ns < 200000)
            ns *= 2;
    }
}

hipError_t hipIpcGetEventHandle(hipIpcEventHandle_t *handle, hipEvent_t event)
{
    if (handle == NULL)
        return cpu_ret(hipErrorInvalidValue);
    if (!cpu_event_valid(event))
        return cpu_ret(hipErrorInvalidResourceHandle);
    if (event->ipc == NULL || event->ipc->fd < 0) {
        cpu_log("hipIpcGetEventHandle: the event was not created with hipEventInterprocess");
        return cpu_ret(hipErrorInvalidResourceHandle);
    }
    ipc_event_wire w = {IPC_EVENT_MAGIC, (int32_t)getpid(), event->ipc->fd, event->device};
    memset(handle, 0, sizeof *handle);
    memcpy(handle, &w, sizeof w);
    return hipSuccess;
}

hipError_t hipIpcOpenEventHandle(hipEvent_t *event, hipIpcEventHandle_t handle)
{
    if (event == NULL)
        return cpu_ret(hipErrorInvalidValue);
    ipc_event_wire w;
    memcpy(&w, &handle, sizeof w);
    if (w.magic != IPC_EVENT_MAGIC) {
        cpu_log("hipIpcOpenEventHandle: not an event handle of the CPU device");
        return cpu_ret(hipErrorInvalidValue);
    }
    if (w.pid == (int32_t)getpid()) {
        cpu_log("hipIpcOpenEventHandle: the handle was made by this process");
        return cpu_ret(hipErrorInvalidValue);
    }
    int fd = open_peer_fd(w.pid, w.fd, page_size(), "hipIpcOpenEventHandle");
    if (fd < 0)
        return cpu_ret(hipErrorInvalidValue);
    struct cpu_ipc_event_ref *r = map_event(fd);
    close(fd);
    if (r == NULL)
        return cpu_ret(hipErrorOutOfMemory);
    hipError_t err = cpu_event_new(event, hipEventInterprocess | hipEventDisableTiming, r);
    if (err != hipSuccess) {
        munmap(r->shared, page_size());
        free(r);
    }
    return cpu_ret(err);
}
