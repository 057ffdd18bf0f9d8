/*
 * Graph memory: the allocations of memory-allocation nodes (hipGraphAddMemAllocNode) and
 * their frees (memory-free nodes, hipFree, hipFreeAsync), and the device's graph-memory
 * accounting (hipDeviceGetGraphMemAttribute).
 *
 * CUDA gives an allocation node its address when the node is made and keeps that address
 * for every launch of the graph: launching the node allocates at it, a free (node, hipFree
 * or hipFreeAsync) releases it, and the next launch allocates at the same address again.
 * Host memory cannot be released and taken back at a fixed address, so the memory is
 * reserved when the node is made and kept until the last graph (or executable graph)
 * holding the node is destroyed; allocating and freeing only move it between "reserved"
 * and "in use", which is what the accounting reports. Work that touches the memory while it
 * is not in use is not detected.
 */
#include <stdlib.h>
#include <string.h>

#include "internal.h"

typedef struct graph_alloc {
    void *ptr;       /* NULL once a device reset has freed it */
    size_t size;
    int refs;        /* commands (in graphs and executable graphs) naming it */
    bool live;       /* allocated by a launch and not freed since */
    struct graph_alloc *next;
} graph_alloc;

static pthread_mutex_t gm_lock = PTHREAD_MUTEX_INITIALIZER;
static graph_alloc *allocs;   /* every allocation with a reservation */
static uint64_t used, used_high, reserved, reserved_high;

static graph_alloc *find_locked(const void *ptr)
{
    for (graph_alloc *a = allocs; a != NULL; a = a->next)
        if (a->ptr == ptr && ptr != NULL)
            return a;
    return NULL;
}

/* In use, the memory is in the allocation map (copies, memsets, pointer queries see it);
 * freed, it leaves the map and only its address range stays held for the next launch, so
 * a copy into freed graph memory is an error as after any free. */
static void set_live_locked(graph_alloc *a, bool live)
{
    if (a->live == live)
        return;
    a->live = live;
    if (a->ptr != NULL) {
        if (live)
            (void)cpu_mem_register(a->ptr, a->size, CPU_MEM_DEVICE, 0);
        else
            cpu_mem_unregister(a->ptr);
    }
    if (live) {
        used += a->size;
        if (used > used_high)
            used_high = used;
    } else {
        used -= a->size;
    }
}

/* ---- the allocation node's command: payload is the graph_alloc pointer ---- */

static graph_alloc *payload_alloc(const cpu_cmd *c)
{
    graph_alloc *a;
    memcpy(&a, c->payload, sizeof a);
    return a;
}

static void run_alloc(cpu_cmd *c)
{
    graph_alloc *a = payload_alloc(c);
    pthread_mutex_lock(&gm_lock);
    if (a->live)
        cpu_log("graph memory at %p allocated again before it was freed", a->ptr);
    set_live_locked(a, true);
    pthread_mutex_unlock(&gm_lock);
}

/* graph replay clones commands: each copy holds a reference */
static void retain_alloc(cpu_cmd *copy)
{
    graph_alloc *a = payload_alloc(copy);
    pthread_mutex_lock(&gm_lock);
    a->refs++;
    pthread_mutex_unlock(&gm_lock);
}

/* Called with cpu_sched_lock held (cpu_cmd_free); takes only gm_lock and the registry's. */
static void release_alloc(cpu_cmd *c)
{
    graph_alloc *a = payload_alloc(c);
    pthread_mutex_lock(&gm_lock);
    bool last = --a->refs == 0;
    if (last) {
        set_live_locked(a, false);
        reserved -= a->ptr != NULL ? a->size : 0;
        for (graph_alloc **p = &allocs; *p != NULL; p = &(*p)->next)
            if (*p == a) {
                *p = a->next;
                break;
            }
    }
    pthread_mutex_unlock(&gm_lock);
    if (last) {
        if (a->ptr != NULL)
            cpu_arena_free(a->ptr, a->size);   /* out of the map already (not live) */
        free(a);
    }
}

hipError_t cpu_graph_alloc_cmd(hipMemAllocNodeParams *p, cpu_cmd **out)
{
    if (p == NULL || p->bytesize == 0)
        return hipErrorInvalidValue;
    if (p->poolProps.allocType != hipMemAllocationTypePinned ||
        p->poolProps.location.type != hipMemLocationTypeDevice ||
        cpu_check_device(p->poolProps.location.id))
        return hipErrorInvalidValue;
    if (p->poolProps.handleTypes != hipMemHandleTypeNone)
        return hipErrorNotSupported;
    for (size_t i = 0; i < p->accessDescCount; i++)
        if (p->accessDescs == NULL || p->accessDescs[i].location.type != hipMemLocationTypeDevice ||
            cpu_check_device(p->accessDescs[i].location.id))
            return hipErrorInvalidDevice;
    graph_alloc *a = calloc(1, sizeof *a);
    cpu_cmd *c = cpu_cmd_new(run_alloc, sizeof a);
    void *ptr = NULL;
    hipError_t err = hipErrorOutOfMemory;
    if (a != NULL && c != NULL && (ptr = cpu_arena_alloc(p->bytesize)) != NULL)
        err = hipSuccess;   /* held, not yet allocated: the map gets it at the launch */
    if (err != hipSuccess) {
        free(a);
        free(c);
        return err;
    }
    *a = (graph_alloc){.ptr = ptr, .size = p->bytesize, .refs = 1};
    memcpy(c->payload, &a, sizeof a);
    c->fixup = retain_alloc;
    c->release = release_alloc;
    pthread_mutex_lock(&gm_lock);
    a->next = allocs;
    allocs = a;
    reserved += a->size;
    if (reserved > reserved_high)
        reserved_high = reserved;
    pthread_mutex_unlock(&gm_lock);
    p->dptr = ptr;
    *out = c;
    return hipSuccess;
}

/* ---- the free node's command: payload is the address ---- */

static void run_free_node(cpu_cmd *c);

int cpu_cmd_graph_mem_kind(const cpu_cmd *c)
{
    return c->run == run_alloc ? 1 : c->run == run_free_node ? 2 : 0;
}

static void run_free_node(cpu_cmd *c)
{
    void *ptr;
    memcpy(&ptr, c->payload, sizeof ptr);
    if (!cpu_graph_mem_free(ptr))
        cpu_log("graph memory-free node: %p is no longer graph memory", ptr);
}

hipError_t cpu_graph_free_cmd(void *ptr, cpu_cmd **out)
{
    pthread_mutex_lock(&gm_lock);
    bool ok = find_locked(ptr) != NULL;
    pthread_mutex_unlock(&gm_lock);
    if (!ok)
        return hipErrorInvalidValue;   /* only graph memory has free nodes */
    cpu_cmd *c = cpu_cmd_new(run_free_node, sizeof ptr);
    if (c == NULL)
        return hipErrorOutOfMemory;
    memcpy(c->payload, &ptr, sizeof ptr);
    *out = c;
    return hipSuccess;
}

bool cpu_graph_mem_free(const void *ptr)
{
    pthread_mutex_lock(&gm_lock);
    graph_alloc *a = find_locked(ptr);
    if (a != NULL)
        set_live_locked(a, false);
    pthread_mutex_unlock(&gm_lock);
    return a != NULL;
}

bool cpu_graph_mem_held(const void *p, size_t len)
{
    uintptr_t a = (uintptr_t)p;
    bool held = false;
    pthread_mutex_lock(&gm_lock);
    for (graph_alloc *g = allocs; g != NULL && !held; g = g->next)
        held = g->ptr != NULL && a >= (uintptr_t)g->ptr && a - (uintptr_t)g->ptr <= g->size &&
               len <= g->size - (a - (uintptr_t)g->ptr);
    pthread_mutex_unlock(&gm_lock);
    return held;
}

void cpu_graph_mem_reset(void)
{
    pthread_mutex_lock(&gm_lock);
    for (graph_alloc *a = allocs; a != NULL; a = a->next) {
        if (!a->live && a->ptr != NULL)
            cpu_arena_free(a->ptr, a->size);   /* live ones: the map's reset frees them */
        a->ptr = NULL;   /* the reset freed it; the graphs still naming it are unusable */
        a->live = false;
    }
    used = reserved = 0;
    pthread_mutex_unlock(&gm_lock);
}

/* ---- the device's graph-memory attributes ---- */

hipError_t hipDeviceGetGraphMemAttribute(int device, hipGraphMemAttributeType attr, void *value)
{
    if (cpu_check_device(device))
        return cpu_ret(hipErrorInvalidDevice);
    if (value == NULL)
        return cpu_ret(hipErrorInvalidValue);
    hipError_t err = hipSuccess;
    pthread_mutex_lock(&gm_lock);
    switch (attr) {
    case hipGraphMemAttrUsedMemCurrent: *(uint64_t *)value = used; break;
    case hipGraphMemAttrUsedMemHigh: *(uint64_t *)value = used_high; break;
    case hipGraphMemAttrReservedMemCurrent: *(uint64_t *)value = reserved; break;
    case hipGraphMemAttrReservedMemHigh: *(uint64_t *)value = reserved_high; break;
    default: err = hipErrorInvalidValue; break;
    }
    pthread_mutex_unlock(&gm_lock);
    return cpu_ret(err);
}

/* Only the high-water marks are settable, and only to zero (back to the current value). */
hipError_t hipDeviceSetGraphMemAttribute(int device, hipGraphMemAttributeType attr, void *value)
{
    if (cpu_check_device(device))
        return cpu_ret(hipErrorInvalidDevice);
    if (value == NULL || *(uint64_t *)value != 0)
        return cpu_ret(hipErrorInvalidValue);
    hipError_t err = hipSuccess;
    pthread_mutex_lock(&gm_lock);
    if (attr == hipGraphMemAttrUsedMemHigh)
        used_high = used;
    else if (attr == hipGraphMemAttrReservedMemHigh)
        reserved_high = reserved;
    else
        err = hipErrorInvalidValue;
    pthread_mutex_unlock(&gm_lock);
    return cpu_ret(err);
}

/* Reservations are held by the graphs that name them, so there is nothing unowned to trim. */
hipError_t hipDeviceGraphMemTrim(int device)
{
    return cpu_check_device(device) ? cpu_ret(hipErrorInvalidDevice) : hipSuccess;
}
