/*
 * Memory pools (hipMemPool*, hipMallocFromPoolAsync; hipMallocAsync allocates from the
 * device's current pool). Device memory is host memory and is available at once, so a
 * pool keeps nothing back: an allocation is an ordinary device allocation and its
 * stream-ordered free returns it to the system. What a pool does keep is its accounting
 * (used and reserved bytes, their high-water marks) and its settings, which programs read
 * back and which must behave as CUDA documents: the release threshold and reuse policies
 * are stored and returned, high-water marks reset only to zero, current values are
 * read-only. Pools cannot be shared between processes (no handle types).
 */
#include <stdlib.h>
#include <string.h>

#include "internal.h"

struct ihipMemPoolHandle_t {
    uint64_t used, used_high;
    uint64_t threshold;
    int reuse[3];   /* hipMemPoolReuseFollowEventDependencies .. AllowInternalDependencies */
    bool is_default;
    int device;     /* the device whose memory it hands out */
    /* what each other device may do with it (hipMemPoolSetAccess; its own: read-write) */
    hipMemAccessFlags peer_access[CPU_MAX_DEVICES];
};

/* One allocation made from a pool, so that its free credits the right pool. */
typedef struct pool_alloc {
    void *ptr;
    size_t size;
    struct ihipMemPoolHandle_t *pool;
} pool_alloc;

/* every device's default pool and current pool (hipDeviceSetMemPool) */
static struct ihipMemPoolHandle_t default_pools[CPU_MAX_DEVICES];
static struct ihipMemPoolHandle_t *current_pool[CPU_MAX_DEVICES];
static pthread_once_t pools_once = PTHREAD_ONCE_INIT;
static pyshim_handle_set live_pools = PYSHIM_HANDLE_SET_INIT;
static pthread_mutex_t pool_lock = PTHREAD_MUTEX_INITIALIZER;   /* accounting, allocs */
static pool_alloc *allocs;   /* unsorted: programs keep few stream-ordered allocations live */
static size_t n_allocs, cap_allocs;

static void pool_init(struct ihipMemPoolHandle_t *p, int device, bool is_default)
{
    memset(p, 0, sizeof *p);
    p->reuse[0] = p->reuse[1] = p->reuse[2] = 1;
    p->is_default = is_default;
    p->device = device;
}

static void init_pools(void)
{
    for (int d = 0; d < CPU_MAX_DEVICES; d++) {
        pool_init(&default_pools[d], d, true);
        current_pool[d] = &default_pools[d];
    }
}

static bool valid_pool(hipMemPool_t p)
{
    pthread_once(&pools_once, init_pools);
    if (p >= default_pools && p < default_pools + cpu_device_count())
        return true;
    return p != NULL && pyshim_handles_contains(&live_pools, p);
}

/* A device location: hipErrorInvalidDevice unless it names one of the devices. */
static hipError_t device_location(const hipMemLocation *loc)
{
    return loc->type == hipMemLocationTypeDevice && !cpu_check_device(loc->id)
               ? hipSuccess
               : hipErrorInvalidDevice;
}

hipError_t hipDeviceGetDefaultMemPool(hipMemPool_t *mem_pool, int device)
{
    if (mem_pool == NULL)
        return cpu_ret(hipErrorInvalidValue);
    if (cpu_check_device(device))
        return cpu_ret(hipErrorInvalidDevice);
    pthread_once(&pools_once, init_pools);
    *mem_pool = &default_pools[device];
    return hipSuccess;
}

hipError_t hipDeviceGetMemPool(hipMemPool_t *mem_pool, int device)
{
    if (mem_pool == NULL)
        return cpu_ret(hipErrorInvalidValue);
    if (cpu_check_device(device))
        return cpu_ret(hipErrorInvalidDevice);
    pthread_once(&pools_once, init_pools);
    pthread_mutex_lock(&pool_lock);
    *mem_pool = current_pool[device];
    pthread_mutex_unlock(&pool_lock);
    return hipSuccess;
}

hipError_t hipDeviceSetMemPool(int device, hipMemPool_t mem_pool)
{
    if (cpu_check_device(device))
        return cpu_ret(hipErrorInvalidDevice);
    if (!valid_pool(mem_pool))
        return cpu_ret(hipErrorInvalidValue);
    if (mem_pool->device != device) {
        cpu_log("hipDeviceSetMemPool: the pool is device %d's, not device %d's",
                mem_pool->device, device);
        return cpu_ret(hipErrorInvalidDevice);
    }
    pthread_mutex_lock(&pool_lock);
    current_pool[device] = mem_pool;
    pthread_mutex_unlock(&pool_lock);
    return hipSuccess;
}

hipError_t hipMemPoolCreate(hipMemPool_t *mem_pool, const hipMemPoolProps *props)
{
    if (mem_pool == NULL || props == NULL)
        return cpu_ret(hipErrorInvalidValue);
    if (props->allocType != hipMemAllocationTypePinned ||
        device_location(&props->location) != hipSuccess)
        return cpu_ret(hipErrorInvalidValue);
    if (props->handleTypes != hipMemHandleTypeNone) {
        cpu_log("hipMemPoolCreate: pools shareable between processes are not provided");
        return cpu_ret(hipErrorNotSupported);
    }
    struct ihipMemPoolHandle_t *p = calloc(1, sizeof *p);
    if (p == NULL)
        return cpu_ret(hipErrorOutOfMemory);
    pool_init(p, props->location.id, false);
    if (!pyshim_handles_add(&live_pools, p)) {
        free(p);
        return cpu_ret(hipErrorOutOfMemory);
    }
    *mem_pool = p;
    return hipSuccess;
}

/* Allocations still outstanding keep pointing at a destroyed pool's accounting, so the
 * pool's memory is kept (a few dozen bytes); only its handle dies. */
hipError_t hipMemPoolDestroy(hipMemPool_t mem_pool)
{
    if (mem_pool == NULL || !pyshim_handles_remove(&live_pools, mem_pool))
        return cpu_ret(hipErrorInvalidValue);   /* a default pool is never in live_pools */
    pthread_mutex_lock(&pool_lock);
    if (current_pool[mem_pool->device] == mem_pool)   /* as CUDA: back to the default */
        current_pool[mem_pool->device] = &default_pools[mem_pool->device];
    pthread_mutex_unlock(&pool_lock);
    return hipSuccess;
}

hipError_t hipMemPoolTrimTo(hipMemPool_t mem_pool, size_t min_bytes_to_hold)
{
    (void)min_bytes_to_hold;   /* nothing is held back, so there is nothing to trim */
    return valid_pool(mem_pool) ? hipSuccess : cpu_ret(hipErrorInvalidValue);
}

hipError_t hipMemPoolSetAttribute(hipMemPool_t mem_pool, hipMemPoolAttr attr, void *value)
{
    if (!valid_pool(mem_pool) || value == NULL)
        return cpu_ret(hipErrorInvalidValue);
    hipError_t err = hipSuccess;
    pthread_mutex_lock(&pool_lock);
    switch (attr) {
    case hipMemPoolReuseFollowEventDependencies:
    case hipMemPoolReuseAllowOpportunistic:
    case hipMemPoolReuseAllowInternalDependencies:
        mem_pool->reuse[attr - hipMemPoolReuseFollowEventDependencies] = *(int *)value != 0;
        break;
    case hipMemPoolAttrReleaseThreshold:
        mem_pool->threshold = *(uint64_t *)value;
        break;
    case hipMemPoolAttrReservedMemHigh:
    case hipMemPoolAttrUsedMemHigh:
        /* high-water marks may only be reset, to the current value */
        if (*(uint64_t *)value != 0)
            err = hipErrorInvalidValue;
        else
            mem_pool->used_high = mem_pool->used;
        break;
    default:   /* current values are read-only; unknown attributes */
        err = hipErrorInvalidValue;
        break;
    }
    pthread_mutex_unlock(&pool_lock);
    return cpu_ret(err);
}

hipError_t hipMemPoolGetAttribute(hipMemPool_t mem_pool, hipMemPoolAttr attr, void *value)
{
    if (!valid_pool(mem_pool) || value == NULL)
        return cpu_ret(hipErrorInvalidValue);
    hipError_t err = hipSuccess;
    pthread_mutex_lock(&pool_lock);
    switch (attr) {
    case hipMemPoolReuseFollowEventDependencies:
    case hipMemPoolReuseAllowOpportunistic:
    case hipMemPoolReuseAllowInternalDependencies:
        *(int *)value = mem_pool->reuse[attr - hipMemPoolReuseFollowEventDependencies];
        break;
    case hipMemPoolAttrReleaseThreshold:
        *(uint64_t *)value = mem_pool->threshold;
        break;
    /* nothing is kept back: reserved memory is exactly the memory in use */
    case hipMemPoolAttrReservedMemCurrent:
    case hipMemPoolAttrUsedMemCurrent:
        *(uint64_t *)value = mem_pool->used;
        break;
    case hipMemPoolAttrReservedMemHigh:
    case hipMemPoolAttrUsedMemHigh:
        *(uint64_t *)value = mem_pool->used_high;
        break;
    default:
        err = hipErrorInvalidValue;
        break;
    }
    pthread_mutex_unlock(&pool_lock);
    return cpu_ret(err);
}

/* Every device's memory is host memory, so access is bookkeeping: a peer's flags are kept
 * and read back; the pool's own device always reads and writes (it cannot be changed). */
hipError_t hipMemPoolSetAccess(hipMemPool_t mem_pool, const hipMemAccessDesc *desc_list,
                               size_t count)
{
    if (!valid_pool(mem_pool) || (count > 0 && desc_list == NULL))
        return cpu_ret(hipErrorInvalidValue);
    for (size_t i = 0; i < count; i++) {
        const hipMemAccessDesc *d = &desc_list[i];
        if (device_location(&d->location) != hipSuccess)
            return cpu_ret(hipErrorInvalidDevice);
        if ((unsigned)d->flags > hipMemAccessFlagsProtReadWrite)
            return cpu_ret(hipErrorInvalidValue);
        if (d->location.id == mem_pool->device && d->flags != hipMemAccessFlagsProtReadWrite) {
            cpu_log("hipMemPoolSetAccess: device %d's access to its own pool stays read-write",
                    mem_pool->device);
            return cpu_ret(hipErrorInvalidDevice);
        }
    }
    pthread_mutex_lock(&pool_lock);
    for (size_t i = 0; i < count; i++)
        if (desc_list[i].location.id != mem_pool->device)
            mem_pool->peer_access[desc_list[i].location.id] = desc_list[i].flags;
    pthread_mutex_unlock(&pool_lock);
    return hipSuccess;
}

hipError_t hipMemPoolGetAccess(hipMemAccessFlags *flags, hipMemPool_t mem_pool,
                               hipMemLocation *location)
{
    if (flags == NULL || location == NULL || !valid_pool(mem_pool))
        return cpu_ret(hipErrorInvalidValue);
    if (device_location(location) != hipSuccess)
        return cpu_ret(hipErrorInvalidDevice);
    pthread_mutex_lock(&pool_lock);
    *flags = location->id == mem_pool->device ? hipMemAccessFlagsProtReadWrite
                                              : mem_pool->peer_access[location->id];
    pthread_mutex_unlock(&pool_lock);
    return hipSuccess;
}

hipError_t cpu_pool_alloc(hipMemPool_t mem_pool, void **dev_ptr, size_t size,
                          hipStream_t stream)
{
    struct ihipStream_t *s;
    if (dev_ptr == NULL || !valid_pool(mem_pool))
        return hipErrorInvalidValue;
    hipError_t err = cpu_stream_resolve(stream, false, &s);
    if (err != hipSuccess)
        return err;
    if (cpu_stream_capturing(s)) {
        /* captured: a graph memory-allocation node (graph_mem.c), which owns its memory */
        hipMemAllocNodeParams np;
        memset(&np, 0, sizeof np);
        np.poolProps.allocType = hipMemAllocationTypePinned;
        np.poolProps.location.type = hipMemLocationTypeDevice;
        np.poolProps.location.id = mem_pool->device;
        np.bytesize = size;
        cpu_cmd *c = NULL;
        err = cpu_graph_alloc_cmd(&np, &c);
        if (err == hipSuccess)
            err = cpu_stream_enqueue(s, c, NULL);
        *dev_ptr = err == hipSuccess ? np.dptr : NULL;
        return err;
    }
    err = cpu_mem_alloc_device(dev_ptr, size, mem_pool->device);
    if (err != hipSuccess || *dev_ptr == NULL)
        return err;
    pthread_mutex_lock(&pool_lock);
    if (n_allocs == cap_allocs) {
        size_t cap = cap_allocs ? cap_allocs * 2 : 64;
        pool_alloc *a = realloc(allocs, cap * sizeof *a);
        if (a == NULL) {
            pthread_mutex_unlock(&pool_lock);
            cpu_mem_free_device(*dev_ptr);
            *dev_ptr = NULL;
            return hipErrorOutOfMemory;
        }
        allocs = a;
        cap_allocs = cap;
    }
    allocs[n_allocs++] = (pool_alloc){*dev_ptr, size, mem_pool};
    mem_pool->used += size;
    if (mem_pool->used > mem_pool->used_high)
        mem_pool->used_high = mem_pool->used;
    pthread_mutex_unlock(&pool_lock);
    return hipSuccess;
}

hipError_t hipMallocFromPoolAsync(void **dev_ptr, size_t size, hipMemPool_t mem_pool,
                                  hipStream_t stream)
{
    return cpu_ret(cpu_pool_alloc(mem_pool, dev_ptr, size, stream));
}

hipMemPool_t cpu_pool_current(int device)
{
    pthread_once(&pools_once, init_pools);
    pthread_mutex_lock(&pool_lock);
    hipMemPool_t p = current_pool[device];
    pthread_mutex_unlock(&pool_lock);
    return p;
}

void cpu_pool_forget(const void *ptr)
{
    pthread_mutex_lock(&pool_lock);
    for (size_t i = 0; i < n_allocs; i++) {
        if (allocs[i].ptr == ptr) {
            allocs[i].pool->used -= allocs[i].size;
            allocs[i] = allocs[--n_allocs];
            break;
        }
    }
    pthread_mutex_unlock(&pool_lock);
}

void cpu_pool_reset(void)
{
    pthread_mutex_lock(&pool_lock);
    for (size_t i = 0; i < n_allocs; i++)
        allocs[i].pool->used -= allocs[i].size;
    n_allocs = 0;
    pthread_mutex_unlock(&pool_lock);
}
