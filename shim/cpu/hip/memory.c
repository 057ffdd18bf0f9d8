/*
 * Host memory as device memory, and the registry of every range the device knows: a
 * sorted array under a lock, searched by binary search, so pointer queries are O(log n)
 * and freeing a pointer we did not hand out is an error, never a crash.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"

static pthread_mutex_t reg_lock = PTHREAD_MUTEX_INITIALIZER;
static cpu_alloc *regs = NULL;
static size_t nregs = 0, capregs = 0;
static uint64_t next_id = 1;
/* device + managed + VMM physical, per device, for hipMemGetInfo */
static size_t allocated_bytes[CPU_MAX_DEVICES];

static void account_locked(int dev, size_t bytes, bool add)
{
    size_t *a = &allocated_bytes[dev >= 0 && dev < CPU_MAX_DEVICES ? dev : 0];
    if (add)
        *a += bytes;
    else
        *a -= bytes < *a ? bytes : *a;
}

/* Index of the first entry whose base is > p. */
static size_t upper_bound(uintptr_t p)
{
    size_t lo = 0, hi = nregs;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (regs[mid].base <= p)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* Entry containing p (a zero-size range contains only its base), or -1. Lock held. */
static long find_locked(uintptr_t p)
{
    size_t i = upper_bound(p);
    if (i == 0)
        return -1;
    const cpu_alloc *a = &regs[i - 1];
    if (p == a->base || p - a->base < a->size)
        return (long)(i - 1);
    return -1;
}

static bool overlaps_locked(uintptr_t base, size_t size)
{
    size_t i = upper_bound(base);
    if (i > 0 && base - regs[i - 1].base < regs[i - 1].size)
        return true;
    return i < nregs && regs[i].base < base + size;
}

static hipError_t insert_locked(uintptr_t base, size_t size, cpu_mem_kind kind, unsigned flags,
                                int dev)
{
    if (nregs == capregs) {
        size_t cap = capregs ? capregs * 2 : 64;
        cpu_alloc *n = realloc(regs, cap * sizeof *n);
        if (n == NULL)
            return hipErrorOutOfMemory;
        regs = n;
        capregs = cap;
    }
    size_t i = upper_bound(base);
    memmove(&regs[i + 1], &regs[i], (nregs - i) * sizeof *regs);
    regs[i] = (cpu_alloc){base, size, kind, flags, next_id++, false, dev};
    nregs++;
    if (kind == CPU_MEM_DEVICE || kind == CPU_MEM_MANAGED)
        account_locked(dev, size, true);
    return hipSuccess;
}

static void remove_locked(size_t i)
{
    cpu_advice_forget(regs[i].base, regs[i].size);
    if (regs[i].kind == CPU_MEM_DEVICE || regs[i].kind == CPU_MEM_MANAGED)
        account_locked(regs[i].device, regs[i].size, false);
    memmove(&regs[i], &regs[i + 1], (nregs - i - 1) * sizeof *regs);
    nregs--;
}

bool cpu_mem_lookup(const void *p, cpu_alloc *out)
{
    pthread_mutex_lock(&reg_lock);
    long i = find_locked((uintptr_t)p);
    if (i >= 0 && out != NULL)
        *out = regs[i];
    pthread_mutex_unlock(&reg_lock);
    return i >= 0;
}

hipError_t cpu_mem_check_range(const void *p, size_t len, bool host_ok, bool *pageable)
{
    *pageable = false;
    pthread_mutex_lock(&reg_lock);
    long i = find_locked((uintptr_t)p);
    size_t left = i >= 0 ? regs[i].size - ((uintptr_t)p - regs[i].base) : 0;
    /* mappings that abut (a pool mapped chunk by chunk) are one range to a copy */
    for (size_t j = (size_t)i; i >= 0 && left < len && regs[j].kind == CPU_MEM_MAPPED &&
                               j + 1 < nregs && regs[j + 1].kind == CPU_MEM_MAPPED &&
                               regs[j + 1].base == regs[j].base + regs[j].size;
         j++)
        left += regs[j + 1].size;
    pthread_mutex_unlock(&reg_lock);
    if (i >= 0)
        return len <= left ? hipSuccess : hipErrorInvalidValue;
    /* the arena's addresses are device memory, allocated or not: never pageable memory */
    if (!host_ok || p == NULL || cpu_arena_contains(p))
        return hipErrorInvalidValue;
    *pageable = true;
    return hipSuccess;
}

hipError_t cpu_mem_register_on(void *base, size_t size, cpu_mem_kind kind, unsigned flags,
                               int dev)
{
    pthread_mutex_lock(&reg_lock);
    hipError_t err = overlaps_locked((uintptr_t)base, size ? size : 1)
                         ? hipErrorHostMemoryAlreadyRegistered
                         : insert_locked((uintptr_t)base, size, kind, flags, dev);
    pthread_mutex_unlock(&reg_lock);
    return err;
}

hipError_t cpu_mem_register(void *base, size_t size, cpu_mem_kind kind, unsigned flags)
{
    return cpu_mem_register_on(base, size, kind, flags, cpu_current_device());
}

void cpu_mem_unregister(void *base)
{
    pthread_mutex_lock(&reg_lock);
    long i = find_locked((uintptr_t)base);
    if (i >= 0 && regs[i].base == (uintptr_t)base)
        remove_locked((size_t)i);
    pthread_mutex_unlock(&reg_lock);
}

/* Allocates `size` bytes from the arena (aligned to CPU_ALIGN) and registers them as `kind`. */
static hipError_t allocate_on(void **ptr, size_t size, cpu_mem_kind kind, unsigned flags,
                              int dev)
{
    if (ptr == NULL)
        return hipErrorInvalidValue;
    *ptr = NULL;
    if (size == 0)
        return hipSuccess;    /* HIP hands out a null pointer for zero bytes */
    if (size > cpu_dev()->total_mem)
        return hipErrorOutOfMemory;
    void *p = cpu_arena_alloc(size);
    if (p == NULL)
        return hipErrorOutOfMemory;
    pthread_mutex_lock(&reg_lock);
    hipError_t err = insert_locked((uintptr_t)p, size, kind, flags, dev);
    pthread_mutex_unlock(&reg_lock);
    if (err != hipSuccess) {
        cpu_arena_free(p, size);
        return err;
    }
    *ptr = p;
    return hipSuccess;
}

static hipError_t allocate(void **ptr, size_t size, cpu_mem_kind kind, unsigned flags)
{
    return allocate_on(ptr, size, kind, flags, cpu_current_device());
}

/* Frees `ptr` if it is the base of an allocation of one of the kinds in `mask`. With
 * `sync`, first waits for the device, as CUDA's frees do: work in flight may still use
 * it (a stream-ordered free runs on its stream instead, and must not wait for itself). */
static hipError_t release_ex(void *ptr, unsigned mask, bool sync)
{
    if (ptr == NULL)
        return hipSuccess;
    if (sync) {
        hipError_t err = cpu_device_wait_idle();
        if (err == hipErrorNotSupported)
            return err;   /* called from a callback */
    }
    /* graph memory is only marked free: its graph allocates it again at the same address */
    if ((mask & (1u << CPU_MEM_DEVICE)) && cpu_graph_mem_free(ptr))
        return hipSuccess;
    pthread_mutex_lock(&reg_lock);
    long i = find_locked((uintptr_t)ptr);
    bool ok = i >= 0 && regs[i].base == (uintptr_t)ptr && (mask & (1u << regs[i].kind));
    size_t size = ok ? regs[i].size : 0;
    if (ok)
        remove_locked((size_t)i);
    pthread_mutex_unlock(&reg_lock);
    if (!ok)
        return hipErrorInvalidValue;
    cpu_pool_forget(ptr);   /* a stream-ordered allocation may also be freed by hipFree */
    cpu_ipc_forget((uintptr_t)ptr, size);
    cpu_arena_free(ptr, size);
    return hipSuccess;
}

static hipError_t release(void *ptr, unsigned mask)
{
    return release_ex(ptr, mask, true);
}

#define KIND_BIT(k) (1u << (k))

void cpu_mem_account(size_t bytes, bool add)
{
    pthread_mutex_lock(&reg_lock);
    account_locked(cpu_current_device(), bytes, add);
    pthread_mutex_unlock(&reg_lock);
}

void cpu_mem_reset(void)
{
    int dev = cpu_current_device();
    pthread_mutex_lock(&reg_lock);
    size_t keep = 0;
    for (size_t i = 0; i < nregs; i++) {
        cpu_mem_kind k = regs[i].kind;
        /* a reset is the current device's: the other devices' memory stays */
        bool owned = regs[i].device == dev;
        if (owned && (k == CPU_MEM_DEVICE || k == CPU_MEM_MANAGED || k == CPU_MEM_HOST)) {
            if (k != CPU_MEM_HOST)
                account_locked(dev, regs[i].size, false);
            cpu_ipc_forget(regs[i].base, regs[i].size);
            cpu_arena_free((void *)regs[i].base, regs[i].size);
            continue;
        }
        if (k == CPU_MEM_MAPPED)
            continue;   /* vmm.c's reset, run first, has unmapped them */
        regs[keep++] = regs[i];
    }
    nregs = keep;
    if (cpu_device_count() == 1)
        allocated_bytes[0] = 0;   /* also what vmm.c's reset, run first, released */
    pthread_mutex_unlock(&reg_lock);
}

hipError_t hipMalloc(void **ptr, size_t size)
{
    return cpu_ret(allocate(ptr, size, CPU_MEM_DEVICE, 0));
}

hipError_t hipExtMallocWithFlags(void **ptr, size_t sizeBytes, unsigned int flags)
{
    if (flags > hipDeviceMallocContiguous)
        return cpu_ret(hipErrorInvalidValue);
    return cpu_ret(allocate(ptr, sizeBytes, CPU_MEM_DEVICE, flags));
}

hipError_t hipMallocManaged(void **dev_ptr, size_t size, unsigned int flags)
{
    if (flags != hipMemAttachGlobal && flags != hipMemAttachHost)
        return cpu_ret(hipErrorInvalidValue);
    return cpu_ret(allocate(dev_ptr, size, CPU_MEM_MANAGED, flags));
}

hipError_t hipFree(void *ptr)
{
    return cpu_ret(release(ptr, KIND_BIT(CPU_MEM_DEVICE) | KIND_BIT(CPU_MEM_MANAGED)));
}

hipError_t hipHostMalloc(void **ptr, size_t size, unsigned int flags)
{
    const unsigned known = hipHostMallocPortable | hipHostMallocMapped |
                           hipHostMallocWriteCombined | hipHostMallocUncached |
                           hipHostMallocNumaUser | hipHostMallocCoherent |
                           hipHostMallocNonCoherent;
    if (flags & ~known)
        return cpu_ret(hipErrorInvalidValue);
    if ((flags & hipHostMallocCoherent) && (flags & hipHostMallocNonCoherent))
        return cpu_ret(hipErrorInvalidValue);
    return cpu_ret(allocate(ptr, size, CPU_MEM_HOST, flags | hipHostMallocMapped));
}

hipError_t hipHostAlloc(void **ptr, size_t size, unsigned int flags)
{
    return hipHostMalloc(ptr, size, flags);
}

hipError_t hipMemAllocHost(void **ptr, size_t size)
{
    return hipHostMalloc(ptr, size, 0);
}

hipError_t hipMallocHost(void **ptr, size_t size)
{
    return hipHostMalloc(ptr, size, 0);
}

hipError_t hipHostFree(void *ptr)
{
    return cpu_ret(release(ptr, KIND_BIT(CPU_MEM_HOST)));
}

hipError_t hipFreeHost(void *ptr)
{
    return hipHostFree(ptr);
}

hipError_t hipHostRegister(void *hostPtr, size_t sizeBytes, unsigned int flags)
{
    const unsigned known = hipHostRegisterPortable | hipHostRegisterMapped |
                           hipHostRegisterIoMemory | hipHostRegisterReadOnly;
    if (hostPtr == NULL || sizeBytes == 0 || (flags & ~known))
        return cpu_ret(hipErrorInvalidValue);
    return cpu_ret(cpu_mem_register(hostPtr, sizeBytes, CPU_MEM_REGISTERED,
                                    flags | hipHostRegisterMapped));
}

hipError_t hipHostUnregister(void *hostPtr)
{
    if (hostPtr == NULL)
        return cpu_ret(hipErrorInvalidValue);
    if (cpu_device_wait_idle() == hipErrorNotSupported)
        return cpu_ret(hipErrorNotSupported);
    pthread_mutex_lock(&reg_lock);
    long i = find_locked((uintptr_t)hostPtr);
    bool ok = i >= 0 && regs[i].base == (uintptr_t)hostPtr && regs[i].kind == CPU_MEM_REGISTERED;
    if (ok)
        remove_locked((size_t)i);
    pthread_mutex_unlock(&reg_lock);
    return ok ? hipSuccess : cpu_ret(hipErrorHostMemoryNotRegistered);
}

static bool is_host_kind(cpu_mem_kind k)
{
    return k == CPU_MEM_HOST || k == CPU_MEM_REGISTERED;
}

hipError_t hipHostGetDevicePointer(void **devPtr, void *hstPtr, unsigned int flags)
{
    cpu_alloc a;
    if (devPtr == NULL || hstPtr == NULL || flags != 0)
        return cpu_ret(hipErrorInvalidValue);
    if (!cpu_mem_lookup(hstPtr, &a) || !is_host_kind(a.kind))
        return cpu_ret(hipErrorInvalidValue);
    *devPtr = hstPtr;   /* one address space: the device sees host memory where it is */
    return hipSuccess;
}

hipError_t hipHostGetFlags(unsigned int *flagsPtr, void *hostPtr)
{
    cpu_alloc a;
    if (flagsPtr == NULL || hostPtr == NULL)
        return cpu_ret(hipErrorInvalidValue);
    if (!cpu_mem_lookup(hostPtr, &a) || !is_host_kind(a.kind))
        return cpu_ret(hipErrorInvalidValue);
    *flagsPtr = a.flags;
    return hipSuccess;
}

static size_t round_up(size_t n, size_t to)
{
    return (n + to - 1) / to * to;
}

hipError_t hipMallocPitch(void **ptr, size_t *pitch, size_t width, size_t height)
{
    if (ptr == NULL || pitch == NULL)
        return cpu_ret(hipErrorInvalidValue);
    size_t p = round_up(width, CPU_ALIGN);
    if (height != 0 && p > SIZE_MAX / height)
        return cpu_ret(hipErrorOutOfMemory);
    hipError_t err = allocate(ptr, p * height, CPU_MEM_DEVICE, 0);
    if (err == hipSuccess)
        *pitch = p;
    return cpu_ret(err);
}

hipError_t hipMemAllocPitch(hipDeviceptr_t *dptr, size_t *pitch, size_t widthInBytes,
                            size_t height, unsigned int elementSizeBytes)
{
    if (elementSizeBytes != 4 && elementSizeBytes != 8 && elementSizeBytes != 16)
        return cpu_ret(hipErrorInvalidValue);
    return hipMallocPitch(dptr, pitch, widthInBytes, height);
}

hipError_t hipMalloc3D(hipPitchedPtr *pitchedDevPtr, hipExtent extent)
{
    if (pitchedDevPtr == NULL)
        return cpu_ret(hipErrorInvalidValue);
    size_t pitch = round_up(extent.width, CPU_ALIGN);
    size_t rows = extent.height * extent.depth;
    if (extent.depth != 0 && extent.height > SIZE_MAX / extent.depth)
        return cpu_ret(hipErrorOutOfMemory);
    if (rows != 0 && pitch > SIZE_MAX / rows)
        return cpu_ret(hipErrorOutOfMemory);
    void *p;
    hipError_t err = allocate(&p, pitch * rows, CPU_MEM_DEVICE, 0);
    if (err != hipSuccess)
        return cpu_ret(err);
    *pitchedDevPtr = (hipPitchedPtr){p, pitch, extent.width, extent.height};
    return hipSuccess;
}

hipError_t hipMemGetInfo(size_t *free_bytes, size_t *total)
{
    if (free_bytes == NULL || total == NULL)
        return cpu_ret(hipErrorInvalidValue);
    long avail = sysconf(_SC_AVPHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    size_t t = cpu_dev()->total_mem;
    size_t f = avail > 0 && page > 0 ? (size_t)avail * (size_t)page : 0;
    pthread_mutex_lock(&reg_lock);
    size_t used = allocated_bytes[cpu_current_device()];
    pthread_mutex_unlock(&reg_lock);
    /* Untouched allocations do not show in the OS's free count yet: subtract ours. */
    if (t > used && f > t - used)
        f = t - used;
    *total = t;
    *free_bytes = f;
    return hipSuccess;
}

hipError_t hipMemGetAddressRange(hipDeviceptr_t *pbase, size_t *psize, hipDeviceptr_t dptr)
{
    cpu_alloc a;
    if (dptr == NULL || !cpu_mem_lookup(dptr, &a))
        return cpu_ret(hipErrorNotFound);
    if (pbase != NULL)
        *pbase = (void *)a.base;
    if (psize != NULL)
        *psize = a.size;
    return hipSuccess;
}

static hipMemoryType memory_type(cpu_mem_kind k)
{
    switch (k) {
    case CPU_MEM_DEVICE:
    case CPU_MEM_MAPPED:
    case CPU_MEM_MODULE_GLOBAL: return hipMemoryTypeDevice;
    case CPU_MEM_MANAGED: return hipMemoryTypeManaged;
    default: return hipMemoryTypeHost;
    }
}

hipError_t hipPointerGetAttributes(hipPointerAttribute_t *attributes, const void *ptr)
{
    if (attributes == NULL || ptr == NULL)
        return cpu_ret(hipErrorInvalidValue);
    cpu_alloc a;
    memset(attributes, 0, sizeof *attributes);
    if (!cpu_mem_lookup(ptr, &a)) {
        /* HIP 6+ (like CUDA 11+): plain host memory is "unregistered", not an error. */
        attributes->type = hipMemoryTypeUnregistered;
        attributes->device = hipInvalidDeviceId;
        return hipSuccess;
    }
    attributes->type = memory_type(a.kind);
    attributes->device = a.device;
    attributes->devicePointer = (void *)ptr;
    bool device_only = a.kind == CPU_MEM_DEVICE || a.kind == CPU_MEM_MAPPED;
    attributes->hostPointer = device_only ? NULL : (void *)ptr;
    attributes->isManaged = a.kind == CPU_MEM_MANAGED;
    attributes->allocationFlags = a.flags;
    return hipSuccess;
}

static hipError_t pointer_attribute(void *data, hipPointer_attribute attribute, const void *ptr)
{
    cpu_alloc a;
    if (data == NULL)
        return hipErrorInvalidValue;
    bool known = ptr != NULL && cpu_mem_lookup(ptr, &a);
    if (!known) {
        /* Only the memory type is meaningful for memory the device does not know. */
        if (attribute == HIP_POINTER_ATTRIBUTE_MEMORY_TYPE) {
            *(unsigned *)data = hipMemoryTypeUnregistered;
            return hipSuccess;
        }
        return hipErrorInvalidValue;
    }
    switch (attribute) {
    case HIP_POINTER_ATTRIBUTE_CONTEXT: *(hipCtx_t *)data = cpu_ctx_of(a.device); return hipSuccess;
    case HIP_POINTER_ATTRIBUTE_MEMORY_TYPE: *(unsigned *)data = memory_type(a.kind); return hipSuccess;
    case HIP_POINTER_ATTRIBUTE_DEVICE_POINTER: *(void **)data = (void *)ptr; return hipSuccess;
    case HIP_POINTER_ATTRIBUTE_HOST_POINTER:
        *(void **)data =
            (a.kind == CPU_MEM_DEVICE || a.kind == CPU_MEM_MAPPED) ? NULL : (void *)ptr;
        return hipSuccess;
    case HIP_POINTER_ATTRIBUTE_SYNC_MEMOPS: *(int *)data = !a.sync_memops_off; return hipSuccess;
    case HIP_POINTER_ATTRIBUTE_BUFFER_ID: *(unsigned long long *)data = a.id; return hipSuccess;
    case HIP_POINTER_ATTRIBUTE_IS_MANAGED: *(int *)data = a.kind == CPU_MEM_MANAGED; return hipSuccess;
    case HIP_POINTER_ATTRIBUTE_DEVICE_ORDINAL: *(int *)data = a.device; return hipSuccess;
    case HIP_POINTER_ATTRIBUTE_IS_LEGACY_HIP_IPC_CAPABLE:   /* hipIpcGetMemHandle takes it (ipc.c) */
        *(int *)data = a.kind == CPU_MEM_DEVICE;
        return hipSuccess;
    case HIP_POINTER_ATTRIBUTE_RANGE_START_ADDR: *(void **)data = (void *)a.base; return hipSuccess;
    case HIP_POINTER_ATTRIBUTE_RANGE_SIZE: *(size_t *)data = a.size; return hipSuccess;
    case HIP_POINTER_ATTRIBUTE_MAPPED: *(int *)data = 1; return hipSuccess;
    case HIP_POINTER_ATTRIBUTE_ALLOWED_HANDLE_TYPES: *(int *)data = 0; return hipSuccess;
    case HIP_POINTER_ATTRIBUTE_IS_GPU_DIRECT_RDMA_CAPABLE: *(int *)data = 0; return hipSuccess;
    case HIP_POINTER_ATTRIBUTE_ACCESS_FLAGS: *(int *)data = 3; return hipSuccess;  /* read-write */
    case HIP_POINTER_ATTRIBUTE_MEMPOOL_HANDLE: *(void **)data = NULL; return hipSuccess;
    default: return hipErrorInvalidValue;
    }
}

hipError_t hipPointerGetAttribute(void *data, hipPointer_attribute attribute, hipDeviceptr_t ptr)
{
    return cpu_ret(pointer_attribute(data, attribute, ptr));
}

hipError_t hipDrvPointerGetAttributes(unsigned int numAttributes, hipPointer_attribute *attributes,
                                      void **data, hipDeviceptr_t ptr)
{
    if (numAttributes > 0 && (attributes == NULL || data == NULL))
        return cpu_ret(hipErrorInvalidValue);
    for (unsigned i = 0; i < numAttributes; i++) {
        hipError_t err = pointer_attribute(data[i], attributes[i], ptr);
        if (err != hipSuccess)
            return cpu_ret(err);
    }
    return hipSuccess;
}

hipError_t hipPointerSetAttribute(const void *value, hipPointer_attribute attribute,
                                  hipDeviceptr_t ptr)
{
    /* Only SYNC_MEMOPS is settable. Every copy here is synchronous with memory whatever it
     * says; the setting is kept so that it reads back as set. */
    if (value == NULL || attribute != HIP_POINTER_ATTRIBUTE_SYNC_MEMOPS)
        return cpu_ret(hipErrorInvalidValue);
    pthread_mutex_lock(&reg_lock);
    long i = find_locked((uintptr_t)ptr);
    if (i >= 0)
        regs[i].sync_memops_off = *(const int *)value == 0;
    pthread_mutex_unlock(&reg_lock);
    return i >= 0 ? hipSuccess : cpu_ret(hipErrorInvalidValue);
}

hipError_t hipMemPtrGetInfo(void *ptr, size_t *size)
{
    cpu_alloc a;
    if (ptr == NULL || size == NULL)
        return cpu_ret(hipErrorInvalidValue);
    if (!cpu_mem_lookup(ptr, &a))
        return cpu_ret(hipErrorInvalidValue);
    *size = a.size;
    return hipSuccess;
}

/* ---- stream-ordered allocation and managed-memory hints ---- */

hipError_t cpu_mem_alloc_device(void **ptr, size_t size, int dev)
{
    return allocate_on(ptr, size, CPU_MEM_DEVICE, 0, dev);
}

void cpu_mem_free_device(void *ptr)
{
    release_ex(ptr, KIND_BIT(CPU_MEM_DEVICE), false);
}

/* Memory is available at once, so a stream-ordered allocation is an ordinary one (from the
 * device's current pool, for its accounting: mempool.c); the free is a command on the
 * stream, after the work that may still use the memory. */
hipError_t hipMallocAsync(void **dev_ptr, size_t size, hipStream_t stream)
{
    /* the stream's device's pool; the legacy and per-thread streams are the caller's
     * current device's */
    int dev = cpu_current_device();
    if (stream != NULL && stream != hipStreamLegacy && stream != hipStreamPerThread &&
        hipStreamGetDevice(stream, &dev) != hipSuccess)
        return cpu_ret(hipErrorInvalidHandle);
    return cpu_ret(cpu_pool_alloc(cpu_pool_current(dev), dev_ptr, size, stream));
}

static void run_free(cpu_cmd *c)
{
    void *ptr;
    memcpy(&ptr, c->payload, sizeof ptr);
    if (release_ex(ptr, KIND_BIT(CPU_MEM_DEVICE), false) != hipSuccess)
        cpu_log("hipFreeAsync: %p was freed before its turn on the stream", ptr);
}

hipError_t hipFreeAsync(void *dev_ptr, hipStream_t stream)
{
    cpu_alloc a;
    struct ihipStream_t *s;
    hipError_t err = cpu_stream_resolve(stream, false, &s);
    if (err != hipSuccess)
        return cpu_ret(err);
    if (cpu_stream_capturing(s)) {
        /* captured: a graph memory-free node, which only graph memory may have */
        cpu_cmd *fc = NULL;
        err = cpu_graph_free_cmd(dev_ptr, &fc);
        if (err == hipErrorInvalidValue)
            err = hipErrorStreamCaptureUnsupported;
        return cpu_ret(err != hipSuccess ? err : cpu_stream_enqueue(s, fc, NULL));
    }
    if (dev_ptr == NULL)
        return hipSuccess;
    bool graph_mem = cpu_graph_mem_held(dev_ptr, 0);   /* maybe allocated by a launch ahead */
    if (!graph_mem &&
        (!cpu_mem_lookup(dev_ptr, &a) || a.base != (uintptr_t)dev_ptr || a.kind != CPU_MEM_DEVICE))
        return cpu_ret(hipErrorInvalidValue);
    cpu_cmd *c = cpu_cmd_new(run_free, sizeof dev_ptr);
    if (c == NULL)
        return cpu_ret(hipErrorOutOfMemory);
    memcpy(c->payload, &dev_ptr, sizeof dev_ptr);
    return cpu_ret(cpu_stream_enqueue(s, c, NULL));
}

/* The range must lie inside one allocation the device knows. */
static bool known_range(const void *p, size_t count)
{
    cpu_alloc a;
    if (p == NULL || !cpu_mem_lookup(p, &a))
        return false;
    return (uintptr_t)p - a.base + count <= a.size;
}

bool cpu_mem_range_known(const void *p, size_t count)
{
    return known_range(p, count);
}

/* Device and host share memory: a prefetch has nothing to move, only checks to make. */
hipError_t hipMemPrefetchAsync(const void *dev_ptr, size_t count, int device, hipStream_t stream)
{
    struct ihipStream_t *s;
    if (device != hipCpuDeviceId && cpu_check_device(device))
        return cpu_ret(hipErrorInvalidDevice);
    if (!known_range(dev_ptr, count))
        return cpu_ret(hipErrorInvalidValue);
    hipError_t err = cpu_stream_resolve(stream, false, &s);
    if (err == hipSuccess)
        err = cpu_advice_prefetch(dev_ptr, count, device);
    return cpu_ret(err);
}

hipError_t hipMemAdvise(const void *dev_ptr, size_t count, hipMemoryAdvise advice, int device)
{
    if (device != hipCpuDeviceId && cpu_check_device(device))
        return cpu_ret(hipErrorInvalidDevice);
    if (!known_range(dev_ptr, count))
        return cpu_ret(hipErrorInvalidValue);
    switch (advice) {
    case hipMemAdviseSetReadMostly:
    case hipMemAdviseUnsetReadMostly:
    case hipMemAdviseSetPreferredLocation:
    case hipMemAdviseUnsetPreferredLocation:
    case hipMemAdviseSetAccessedBy:
    case hipMemAdviseUnsetAccessedBy:
    case hipMemAdviseSetCoarseGrain:
    case hipMemAdviseUnsetCoarseGrain: return cpu_ret(cpu_advice_record(dev_ptr, count, advice, device));
    default: return cpu_ret(hipErrorInvalidValue);
    }
}

hipError_t hipStreamAttachMemAsync(hipStream_t stream, void *dev_ptr, size_t length,
                                   unsigned int flags)
{
    struct ihipStream_t *s;
    if (flags != hipMemAttachGlobal && flags != hipMemAttachHost && flags != hipMemAttachSingle)
        return cpu_ret(hipErrorInvalidValue);
    if (!known_range(dev_ptr, length))
        return cpu_ret(hipErrorInvalidValue);
    return cpu_ret(cpu_stream_resolve(stream, false, &s));
}
