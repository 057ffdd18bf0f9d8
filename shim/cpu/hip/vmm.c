/*
 * Virtual memory management (hipMemCreate / hipMemAddressReserve / hipMemMap /
 * hipMemSetAccess ...), as a GPU does it: address space and physical memory are separate
 * things. A reservation is address space taken from the device arena and left
 * inaccessible; a physical allocation is a memfd; hipMemMap maps the memfd over part of a
 * reservation with MAP_FIXED | MAP_SHARED, so one allocation mapped at two addresses is
 * the same memory at both, and hipMemExportToShareableHandle hands out the memfd itself.
 *
 * A mapping is inaccessible until hipMemSetAccess grants access; then it enters the
 * allocation map (CPU_MEM_MAPPED), so copies, memsets and pointer queries accept it, and
 * abutting mappings count as one range (memory pools map a growing range chunk by chunk).
 * Reservations lie inside the arena, so an unmapped address in one is device memory that is
 * not allocated: a copy to it is hipErrorInvalidValue, a kernel touching it faults.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "internal.h"

#define GRANULE ((size_t)2 << 20) /* as a GPU's: the arena's large-allocation grain */

typedef struct phys {
    int fd;
    size_t size;
    hipMemAllocationProp prop;
    int user_refs; /* hipMemCreate/Import/Retain less hipMemRelease: the handle is valid */
    int map_refs;  /* mappings of it: the memory lives on after the last release */
} phys;

typedef struct span {
    uintptr_t base;
    size_t size;
} span;

typedef struct mapping {
    uintptr_t base;
    size_t size;
    phys *mem;
    unsigned long long access; /* hipMemAccessFlags for device 0 */
} mapping;

static pthread_mutex_t vmm_lock = PTHREAD_MUTEX_INITIALIZER;
static pyshim_handle_set live_phys = PYSHIM_HANDLE_SET_INIT;
static span *resv;
static size_t nresv, capresv;
static mapping *maps; /* sorted by base */
static size_t nmaps, capmaps;

static bool grow(void **items, size_t *cap, size_t n, size_t elem)
{
    if (n < *cap)
        return true;
    size_t c = *cap ? *cap * 2 : 16;
    void *p = realloc(*items, c * elem);
    if (p == NULL)
        return false;
    *items = p;
    *cap = c;
    return true;
}

/* The allocation behind a handle the caller passes, if it is one and not yet released. */
static phys *phys_of(hipMemGenericAllocationHandle_t h)
{
    phys *m = (phys *)(void *)h;
    return pyshim_handles_contains(&live_phys, m) && m->user_refs > 0 ? m : NULL;
}

static void phys_drop_if_unused(phys *m)
{
    if (m->user_refs > 0 || m->map_refs > 0)
        return;
    pyshim_handles_remove(&live_phys, m);
    close(m->fd);
    cpu_mem_account(m->size, false);
    free(m);
}

/* The reservation containing [p, p + len), or NULL. Lock held. */
static span *reservation_of(uintptr_t p, size_t len)
{
    for (size_t i = 0; i < nresv; i++)
        if (p >= resv[i].base && p - resv[i].base < resv[i].size &&
            len <= resv[i].size - (p - resv[i].base))
            return &resv[i];
    return NULL;
}

/* The reservation starting at p, or NULL. Lock held. */
static span *reservation_at(uintptr_t p)
{
    for (size_t i = 0; i < nresv; i++)
        if (resv[i].base == p)
            return &resv[i];
    return NULL;
}

/* [p, p + len) is reserved: one reservation, or several that abut. Lock held. */
static bool reserved(uintptr_t p, size_t len)
{
    span *r = reservation_of(p, 1);
    while (r != NULL) {
        uintptr_t end = r->base + r->size;
        if (end - p >= len)
            return true;
        r = reservation_at(end);
    }
    return false;
}

/* Index of the mapping containing p, or -1. Lock held. */
static long mapping_at(uintptr_t p)
{
    for (size_t i = 0; i < nmaps; i++)
        if (p >= maps[i].base && p - maps[i].base < maps[i].size)
            return (long)i;
    return -1;
}

/* [p, p + len) as whole mappings that abut (also across reservations that abut, as a
 * range grown at its end by a reservation at a fixed address): the first's index and how
 * many, else false.
 * CUDA's unmap and access calls take the ranges mappings were made with. Lock held. */
static bool whole_mappings(uintptr_t p, size_t len, size_t *first, size_t *count)
{
    long i = mapping_at(p);
    if (len == 0 || i < 0 || maps[i].base != p)
        return false;
    uintptr_t end = p + len, at = p;
    size_t j = (size_t)i;
    while (j < nmaps && maps[j].base == at && at < end) {
        at += maps[j].size;
        j++;
    }
    if (at != end)
        return false;
    *first = (size_t)i;
    *count = j - (size_t)i;
    return true;
}

static hipError_t check_prop(const hipMemAllocationProp *prop)
{
    if (prop == NULL || prop->type != hipMemAllocationTypePinned ||
        prop->location.type != hipMemLocationTypeDevice)
        return hipErrorInvalidValue;
    if (cpu_check_device(prop->location.id))
        return hipErrorInvalidDevice;
    return hipSuccess;
}

static void *make_inaccessible(uintptr_t base, size_t size)
{
    return mmap((void *)base, size, PROT_NONE,
                MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED, -1, 0);
}

/* Drops mappings [first, first + count). Lock held. */
static void unmap_locked(size_t first, size_t count)
{
    for (size_t k = first; k < first + count; k++) {
        mapping *m = &maps[k];
        if (m->access != 0)
            cpu_mem_unregister((void *)m->base);
        if (make_inaccessible(m->base, m->size) == MAP_FAILED)
            cpu_log("hipMemUnmap: cannot drop the mapping at %p: %s", (void *)m->base,
                    strerror(errno));
        m->mem->map_refs--;
        phys_drop_if_unused(m->mem);
    }
    memmove(&maps[first], &maps[first + count], (nmaps - first - count) * sizeof *maps);
    nmaps -= count;
}

hipError_t hipMemGetAllocationGranularity(size_t *granularity, const hipMemAllocationProp *prop,
                                          hipMemAllocationGranularity_flags option)
{
    if (granularity == NULL)
        return cpu_ret(hipErrorInvalidValue);
    hipError_t err = check_prop(prop);
    if (err != hipSuccess)
        return cpu_ret(err);
    if (option != hipMemAllocationGranularityMinimum &&
        option != hipMemAllocationGranularityRecommended)
        return cpu_ret(hipErrorInvalidValue);
    *granularity = GRANULE;
    return hipSuccess;
}

static hipError_t new_phys(int fd, size_t size, const hipMemAllocationProp *prop,
                           hipMemGenericAllocationHandle_t *handle)
{
    phys *m = calloc(1, sizeof *m);
    if (m == NULL || !pyshim_handles_add(&live_phys, m)) {
        free(m);
        close(fd);
        return hipErrorOutOfMemory;
    }
    *m = (phys){.fd = fd, .size = size, .prop = *prop, .user_refs = 1};
    cpu_mem_account(size, true);
    *handle = (hipMemGenericAllocationHandle_t)(void *)m;
    return hipSuccess;
}

hipError_t hipMemCreate(hipMemGenericAllocationHandle_t *handle, size_t size,
                        const hipMemAllocationProp *prop, unsigned long long flags)
{
    if (handle == NULL || flags != 0 || size == 0 || size % GRANULE != 0)
        return cpu_ret(hipErrorInvalidValue);
    hipError_t err = check_prop(prop);
    if (err != hipSuccess)
        return cpu_ret(err);
    if ((unsigned)prop->requestedHandleTypes & ~(unsigned)hipMemHandleTypePosixFileDescriptor) {
        cpu_log("hipMemCreate: shareable handle types 0x%x: the CPU device has POSIX file "
                "descriptors only", (unsigned)prop->requestedHandleTypes);
        return cpu_ret(hipErrorNotSupported);
    }
    if (size > cpu_dev()->total_mem)
        return cpu_ret(hipErrorOutOfMemory);
    int fd = memfd_create("pyshim-device-memory", MFD_CLOEXEC);
    if (fd < 0)
        return cpu_ret(hipErrorOutOfMemory);
    if (ftruncate(fd, (off_t)size) != 0) {
        close(fd);
        return cpu_ret(hipErrorOutOfMemory);
    }
    pthread_mutex_lock(&vmm_lock);
    err = new_phys(fd, size, prop, handle);
    pthread_mutex_unlock(&vmm_lock);
    return cpu_ret(err);
}

hipError_t hipMemRelease(hipMemGenericAllocationHandle_t handle)
{
    pthread_mutex_lock(&vmm_lock);
    phys *m = phys_of(handle);
    if (m != NULL) {
        m->user_refs--;
        phys_drop_if_unused(m);
    }
    pthread_mutex_unlock(&vmm_lock);
    return m != NULL ? hipSuccess : cpu_ret(hipErrorInvalidValue);
}

hipError_t hipMemGetAllocationPropertiesFromHandle(hipMemAllocationProp *prop,
                                                   hipMemGenericAllocationHandle_t handle)
{
    if (prop == NULL)
        return cpu_ret(hipErrorInvalidValue);
    pthread_mutex_lock(&vmm_lock);
    phys *m = phys_of(handle);
    if (m != NULL)
        *prop = m->prop;
    pthread_mutex_unlock(&vmm_lock);
    return m != NULL ? hipSuccess : cpu_ret(hipErrorInvalidValue);
}

hipError_t hipMemRetainAllocationHandle(hipMemGenericAllocationHandle_t *handle, void *addr)
{
    if (handle == NULL)
        return cpu_ret(hipErrorInvalidValue);
    pthread_mutex_lock(&vmm_lock);
    long i = mapping_at((uintptr_t)addr);
    if (i >= 0) {
        maps[i].mem->user_refs++;
        *handle = (hipMemGenericAllocationHandle_t)(void *)maps[i].mem;
    }
    pthread_mutex_unlock(&vmm_lock);
    return i >= 0 ? hipSuccess : cpu_ret(hipErrorInvalidValue);
}

hipError_t hipMemAddressReserve(void **ptr, size_t size, size_t alignment, void *addr,
                                unsigned long long flags)
{
    if (ptr == NULL || size == 0 || size % GRANULE != 0 || flags != 0 ||
        (alignment & (alignment - 1)) != 0)
        return cpu_ret(hipErrorInvalidValue);
    pthread_mutex_lock(&vmm_lock);
    hipError_t err = hipErrorOutOfMemory;
    if (grow((void **)&resv, &capresv, nresv, sizeof *resv)) {
        /* the hint first (growing a range in place at its end), as CUDA does when it can */
        void *p = addr != NULL ? cpu_arena_reserve_at(addr, size) : NULL;
        if (p == NULL)
            p = cpu_arena_reserve(size, alignment);
        if (p != NULL) {
            resv[nresv++] = (span){(uintptr_t)p, size};
            *ptr = p;
            err = hipSuccess;
        }
    }
    pthread_mutex_unlock(&vmm_lock);
    return cpu_ret(err);
}

hipError_t hipMemAddressFree(void *devPtr, size_t size)
{
    if (devPtr == NULL || size == 0)
        return cpu_ret(hipErrorInvalidValue);
    if (cpu_device_wait_idle() == hipErrorNotSupported)
        return cpu_ret(hipErrorNotSupported);
    pthread_mutex_lock(&vmm_lock);
    /* whole reservations: one, or several that abut (a range grown at its end) */
    uintptr_t p = (uintptr_t)devPtr, at = p;
    span *r;
    while (at - p < size && (r = reservation_at(at)) != NULL)
        at += r->size;
    bool ok = at - p == size;
    if (ok) {
        /* mappings left in it go with it (CUDA leaves that undefined), also one that
         * reaches into it from an abutting reservation: its pages are about to go */
        size_t i = 0;
        while (i < nmaps)
            if (maps[i].base < p + size && maps[i].base + maps[i].size > p)
                unmap_locked(i, 1);
            else
                i++;
        for (at = p; at - p < size;) {
            r = reservation_at(at);
            at += r->size;
            cpu_arena_unreserve((void *)r->base, r->size);
            *r = resv[--nresv];
        }
    }
    pthread_mutex_unlock(&vmm_lock);
    return ok ? hipSuccess : cpu_ret(hipErrorInvalidValue);
}

hipError_t hipMemMap(void *ptr, size_t size, size_t offset, hipMemGenericAllocationHandle_t handle,
                     unsigned long long flags)
{
    uintptr_t p = (uintptr_t)ptr;
    if (flags != 0 || size == 0 || p % GRANULE != 0 || size % GRANULE != 0 ||
        offset % GRANULE != 0)
        return cpu_ret(hipErrorInvalidValue);
    pthread_mutex_lock(&vmm_lock);
    hipError_t err = hipErrorInvalidValue;
    phys *m = phys_of(handle);
    if (m == NULL) {
        cpu_log("hipMemMap: %p is not a live allocation handle", (void *)handle);
        goto out;
    }
    if (offset > m->size || size > m->size - offset)
        goto out;
    if (!reserved(p, size)) {
        cpu_log("hipMemMap: [%p, +0x%zx) is not reserved address space", ptr, size);
        goto out;
    }
    size_t at = 0;
    while (at < nmaps && maps[at].base < p)
        at++;
    if ((at > 0 && maps[at - 1].base + maps[at - 1].size > p) ||
        (at < nmaps && maps[at].base < p + size)) {
        cpu_log("hipMemMap: [%p, +0x%zx) overlaps a mapping", ptr, size);
        goto out;
    }
    err = hipErrorOutOfMemory;
    if (!grow((void **)&maps, &capmaps, nmaps, sizeof *maps))
        goto out;
    /* no access until hipMemSetAccess grants it, as on a GPU */
    if (mmap(ptr, size, PROT_NONE, MAP_SHARED | MAP_FIXED, m->fd, (off_t)offset) == MAP_FAILED) {
        cpu_log("hipMemMap: mmap at %p: %s", ptr, strerror(errno));
        goto out;
    }
    memmove(&maps[at + 1], &maps[at], (nmaps - at) * sizeof *maps);
    maps[at] = (mapping){p, size, m, 0};
    nmaps++;
    m->map_refs++;
    err = hipSuccess;
out:
    pthread_mutex_unlock(&vmm_lock);
    return cpu_ret(err);
}

hipError_t hipMemUnmap(void *ptr, size_t size)
{
    if (cpu_device_wait_idle() == hipErrorNotSupported)
        return cpu_ret(hipErrorNotSupported); /* work in flight may use it, as for a free */
    pthread_mutex_lock(&vmm_lock);
    size_t first, count;
    bool ok = whole_mappings((uintptr_t)ptr, size, &first, &count);
    if (ok)
        unmap_locked(first, count);
    pthread_mutex_unlock(&vmm_lock);
    if (!ok)
        cpu_log("hipMemUnmap: [%p, +0x%zx) is not a range of whole mappings", ptr, size);
    return ok ? hipSuccess : cpu_ret(hipErrorInvalidValue);
}

hipError_t hipMemSetAccess(void *ptr, size_t size, const hipMemAccessDesc *desc, size_t count)
{
    if (desc == NULL || count == 0)
        return cpu_ret(hipErrorInvalidValue);
    unsigned long long access = 0;
    for (size_t i = 0; i < count; i++) {
        if (desc[i].location.type != hipMemLocationTypeDevice)
            return cpu_ret(hipErrorInvalidValue);
        if (cpu_check_device(desc[i].location.id))
            return cpu_ret(hipErrorInvalidDevice);
        switch (desc[i].flags) {
        case hipMemAccessFlagsProtNone:
        case hipMemAccessFlagsProtReadWrite: access = desc[i].flags; break;
        case hipMemAccessFlagsProtRead:
            /* the device's copies write through the host's view: read-only cannot hold */
            cpu_log("hipMemSetAccess: read-only access is not supported by the CPU device");
            return cpu_ret(hipErrorNotSupported);
        default: return cpu_ret(hipErrorInvalidValue);
        }
    }
    pthread_mutex_lock(&vmm_lock);
    size_t first, n;
    hipError_t err = hipErrorInvalidValue;
    if (!whole_mappings((uintptr_t)ptr, size, &first, &n)) {
        cpu_log("hipMemSetAccess: [%p, +0x%zx) is not a range of whole mappings", ptr, size);
        goto out;
    }
    int prot = access == hipMemAccessFlagsProtReadWrite ? PROT_READ | PROT_WRITE : PROT_NONE;
    err = hipSuccess;
    for (size_t k = first; k < first + n && err == hipSuccess; k++) {
        mapping *m = &maps[k];
        if (mprotect((void *)m->base, m->size, prot) != 0) {
            err = hipErrorOutOfMemory;
            break;
        }
        if (access != 0 && m->access == 0)
            err = cpu_mem_register((void *)m->base, m->size, CPU_MEM_MAPPED, 0);
        else if (access == 0 && m->access != 0)
            cpu_mem_unregister((void *)m->base);
        if (err == hipSuccess)
            m->access = access;
    }
out:
    pthread_mutex_unlock(&vmm_lock);
    return cpu_ret(err);
}

hipError_t hipMemGetAccess(unsigned long long *flags, const hipMemLocation *location, void *ptr)
{
    if (flags == NULL || location == NULL || location->type != hipMemLocationTypeDevice)
        return cpu_ret(hipErrorInvalidValue);
    if (cpu_check_device(location->id))
        return cpu_ret(hipErrorInvalidDevice);
    pthread_mutex_lock(&vmm_lock);
    long i = mapping_at((uintptr_t)ptr);
    if (i >= 0)
        *flags = maps[i].access;
    pthread_mutex_unlock(&vmm_lock);
    return i >= 0 ? hipSuccess : cpu_ret(hipErrorInvalidValue);
}

hipError_t hipMemExportToShareableHandle(void *shareableHandle,
                                         hipMemGenericAllocationHandle_t handle,
                                         hipMemAllocationHandleType handleType,
                                         unsigned long long flags)
{
    if (shareableHandle == NULL || flags != 0)
        return cpu_ret(hipErrorInvalidValue);
    if (handleType != hipMemHandleTypePosixFileDescriptor) {
        cpu_log("hipMemExportToShareableHandle: handle type 0x%x: the CPU device has POSIX "
                "file descriptors only", (unsigned)handleType);
        return cpu_ret(hipErrorNotSupported);
    }
    pthread_mutex_lock(&vmm_lock);
    phys *m = phys_of(handle);
    hipError_t err = hipErrorInvalidValue;
    /* only an allocation made shareable (requestedHandleTypes) may be exported */
    if (m != NULL && (m->prop.requestedHandleTypes & hipMemHandleTypePosixFileDescriptor)) {
        int fd = dup(m->fd); /* the caller's to close, and to pass to another process */
        err = fd >= 0 ? hipSuccess : hipErrorOutOfMemory;
        if (fd >= 0)
            *(int *)shareableHandle = fd;
    }
    pthread_mutex_unlock(&vmm_lock);
    return cpu_ret(err);
}

hipError_t hipMemImportFromShareableHandle(hipMemGenericAllocationHandle_t *handle,
                                           void *osHandle, hipMemAllocationHandleType shHandleType)
{
    if (handle == NULL)
        return cpu_ret(hipErrorInvalidValue);
    if (shHandleType != hipMemHandleTypePosixFileDescriptor) {
        cpu_log("hipMemImportFromShareableHandle: handle type 0x%x: the CPU device has POSIX "
                "file descriptors only", (unsigned)shHandleType);
        return cpu_ret(hipErrorNotSupported);
    }
    int fd = (int)(intptr_t)osHandle;
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size <= 0 ||
        (size_t)st.st_size % GRANULE != 0) {
        cpu_log("hipMemImportFromShareableHandle: %d is not an exported allocation", fd);
        return cpu_ret(hipErrorInvalidValue);
    }
    int own = fcntl(fd, F_DUPFD_CLOEXEC, 0);
    if (own < 0)
        return cpu_ret(hipErrorOutOfMemory);
    hipMemAllocationProp prop;
    memset(&prop, 0, sizeof prop);
    prop.type = hipMemAllocationTypePinned;
    prop.requestedHandleTypes = hipMemHandleTypePosixFileDescriptor;
    prop.location.type = hipMemLocationTypeDevice;
    prop.location.id = 0;
    pthread_mutex_lock(&vmm_lock);
    hipError_t err = new_phys(own, (size_t)st.st_size, &prop, handle);
    pthread_mutex_unlock(&vmm_lock);
    return cpu_ret(err);
}

void cpu_vmm_reset(void)
{
    pthread_mutex_lock(&vmm_lock);
    for (size_t i = 0; i < nmaps; i++)
        maps[i].mem->user_refs = 0;
    unmap_locked(0, nmaps);
    for (size_t i = 0; i < nresv; i++)
        cpu_arena_unreserve((void *)resv[i].base, resv[i].size);
    nresv = 0;
    /* allocations never mapped: their handles die with the device's state, as on CUDA */
    pthread_mutex_lock(&live_phys.lock);
    size_t n = live_phys.n;
    uintptr_t *items = n ? malloc(n * sizeof *items) : NULL;
    if (items != NULL)
        memcpy(items, live_phys.items, n * sizeof *items);
    pthread_mutex_unlock(&live_phys.lock);
    for (size_t i = 0; items != NULL && i < n; i++) {
        phys *m = (phys *)items[i];
        m->user_refs = 0;
        phys_drop_if_unused(m);
    }
    free(items);
    pthread_mutex_unlock(&vmm_lock);
}
