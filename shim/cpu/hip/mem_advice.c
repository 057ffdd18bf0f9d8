/*
 * Managed-memory advice and prefetches, remembered so that hipMemRangeGetAttribute(s)
 * answers what was asked: memory is shared by host and device here, so advice changes
 * nothing else. Each call is kept as a record over its byte range; a page's state is the
 * last record covering it, and a range's answer is the one every page in it agrees on
 * (CUDA's rule: otherwise "not the same everywhere", hipInvalidDeviceId / 0). Records go
 * with the allocation they cover when it is freed.
 */
#include <stdlib.h>
#include <string.h>

#include "internal.h"

enum { PAGE = 4096 };
enum advice_kind { READ_MOSTLY, PREFERRED, ACCESSED_BY, PREFETCH };

typedef struct advice {
    uintptr_t lo, hi;   /* [lo, hi) */
    enum advice_kind kind;
    int device;         /* hipCpuDeviceId for the host */
    bool set;
} advice;

static pthread_mutex_t adv_lock = PTHREAD_MUTEX_INITIALIZER;
static advice *recs;
static size_t nrecs, caprecs;

static hipError_t add(const void *p, size_t count, enum advice_kind kind, int device, bool set)
{
    uintptr_t lo = (uintptr_t)p, hi = lo + count;
    pthread_mutex_lock(&adv_lock);
    /* the new record hides older ones of its kind inside its range: drop them, so advice
     * repeated in a loop does not pile up */
    size_t kept = 0;
    for (size_t i = 0; i < nrecs; i++) {
        const advice *r = &recs[i];
        bool hidden = r->kind == kind && r->lo >= lo && r->hi <= hi &&
                      (kind != ACCESSED_BY || r->device == device);
        if (!hidden)
            recs[kept++] = recs[i];
    }
    nrecs = kept;
    if (nrecs == caprecs) {
        size_t cap = caprecs ? caprecs * 2 : 32;
        advice *n = realloc(recs, cap * sizeof *n);
        if (n == NULL) {
            pthread_mutex_unlock(&adv_lock);
            return hipErrorOutOfMemory;
        }
        recs = n;
        caprecs = cap;
    }
    recs[nrecs++] = (advice){lo, hi, kind, device, set};
    pthread_mutex_unlock(&adv_lock);
    return hipSuccess;
}

hipError_t cpu_advice_record(const void *p, size_t count, hipMemoryAdvise advice_, int device)
{
    switch (advice_) {
    case hipMemAdviseSetReadMostly: return add(p, count, READ_MOSTLY, device, true);
    case hipMemAdviseUnsetReadMostly: return add(p, count, READ_MOSTLY, device, false);
    case hipMemAdviseSetPreferredLocation: return add(p, count, PREFERRED, device, true);
    case hipMemAdviseUnsetPreferredLocation: return add(p, count, PREFERRED, device, false);
    case hipMemAdviseSetAccessedBy: return add(p, count, ACCESSED_BY, device, true);
    case hipMemAdviseUnsetAccessedBy: return add(p, count, ACCESSED_BY, device, false);
    default: return hipSuccess; /* coarse grain: no range attribute reports it */
    }
}

hipError_t cpu_advice_prefetch(const void *p, size_t count, int device)
{
    return add(p, count, PREFETCH, device, true);
}

/* Called with the allocation registry's lock held; takes only adv_lock. */
void cpu_advice_forget(uintptr_t base, size_t size)
{
    pthread_mutex_lock(&adv_lock);
    size_t kept = 0;
    for (size_t i = 0; i < nrecs; i++)
        if (recs[i].hi <= base || recs[i].lo >= base + size)
            recs[kept++] = recs[i];
    nrecs = kept;
    pthread_mutex_unlock(&adv_lock);
}

/* The last record of `kind` (and `device`, for ACCESSED_BY) covering the page at `page`. */
static const advice *last_locked(uintptr_t page, enum advice_kind kind, int device)
{
    for (size_t i = nrecs; i-- > 0;) {
        const advice *r = &recs[i];
        if (r->kind == kind && r->lo < page + PAGE && r->hi > page &&
            (kind != ACCESSED_BY || r->device == device))
            return r;
    }
    return NULL;
}

/* A page's value of a scalar attribute: read-mostly 0/1, a location or hipInvalidDeviceId */
static int page_value_locked(uintptr_t page, hipMemRangeAttribute attr)
{
    const advice *r;
    switch (attr) {
    case hipMemRangeAttributeReadMostly:
        r = last_locked(page, READ_MOSTLY, 0);
        return r != NULL && r->set;
    case hipMemRangeAttributePreferredLocation:
        r = last_locked(page, PREFERRED, 0);
        return r != NULL && r->set ? r->device : hipInvalidDeviceId;
    default: /* hipMemRangeAttributeLastPrefetchLocation */
        r = last_locked(page, PREFETCH, 0);
        return r != NULL ? r->device : hipInvalidDeviceId;
    }
}

static hipError_t range_attribute(void *data, size_t size, hipMemRangeAttribute attr,
                                  const void *p, size_t count)
{
    if (data == NULL || count == 0 || !cpu_mem_range_known(p, count))
        return hipErrorInvalidValue;
    uintptr_t first = (uintptr_t)p / PAGE * PAGE, end = (uintptr_t)p + count;
    if (attr == hipMemRangeAttributeAccessedBy) {
        if (size == 0 || size % sizeof(int) != 0)
            return hipErrorInvalidValue;
        int *out = data;
        size_t room = size / sizeof(int), n = 0;
        /* the devices set for every page: the GPU ordinals, then the host */
        const int candidates[] = {0, hipCpuDeviceId};
        pthread_mutex_lock(&adv_lock);
        for (size_t c = 0; c < sizeof candidates / sizeof candidates[0] && n < room; c++) {
            bool all = true;
            for (uintptr_t pg = first; all && pg < end; pg += PAGE) {
                const advice *r = last_locked(pg, ACCESSED_BY, candidates[c]);
                all = r != NULL && r->set;
            }
            if (all)
                out[n++] = candidates[c];
        }
        pthread_mutex_unlock(&adv_lock);
        for (; n < room; n++)
            out[n] = hipInvalidDeviceId;
        return hipSuccess;
    }
    if (attr != hipMemRangeAttributeReadMostly && attr != hipMemRangeAttributePreferredLocation &&
        attr != hipMemRangeAttributeLastPrefetchLocation)
        return hipErrorInvalidValue;
    if (size != sizeof(int))
        return hipErrorInvalidValue;
    pthread_mutex_lock(&adv_lock);
    int v = page_value_locked(first, attr);
    for (uintptr_t pg = first + PAGE; pg < end; pg += PAGE)
        if (page_value_locked(pg, attr) != v) {
            v = attr == hipMemRangeAttributeReadMostly ? 0 : hipInvalidDeviceId;
            break;
        }
    pthread_mutex_unlock(&adv_lock);
    *(int *)data = v;
    return hipSuccess;
}

hipError_t hipMemRangeGetAttribute(void *data, size_t data_size, hipMemRangeAttribute attribute,
                                   const void *dev_ptr, size_t count)
{
    return cpu_ret(range_attribute(data, data_size, attribute, dev_ptr, count));
}

hipError_t hipMemRangeGetAttributes(void **data, size_t *data_sizes,
                                    hipMemRangeAttribute *attributes, size_t num_attributes,
                                    const void *dev_ptr, size_t count)
{
    if (num_attributes > 0 && (data == NULL || data_sizes == NULL || attributes == NULL))
        return cpu_ret(hipErrorInvalidValue);
    for (size_t i = 0; i < num_attributes; i++) {
        hipError_t err = range_attribute(data[i], data_sizes[i], attributes[i], dev_ptr, count);
        if (err != hipSuccess)
            return cpu_ret(err);
    }
    return hipSuccess;
}
