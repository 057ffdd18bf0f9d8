/*
 * cuGetProcAddress: cudart's only way into the driver (notes/cuda-driver-contract.md).
 * The map of (name, version, per-thread variant) -> exported symbol is generated into the
 * build directory as an X-macro file (driver_proc_table.inc, one
 * PYSHIM_PROC("cuMemAlloc", 3020, PYSHIM_PROC_DEFAULT, cuMemAlloc_v2) per line) and
 * compiled in proc_table.c. Rule: the newest variant whose version is <= the requested
 * one; the _ptds/_ptsz variant when flags ask for the per-thread default stream.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "proc_table.h"

static struct pyshim_proc_entry *sorted;
static size_t count;
static pthread_once_t once = PTHREAD_ONCE_INIT;

static int compare(const void *a, const void *b)
{
    const struct pyshim_proc_entry *x = a, *y = b;
    int c = strcmp(x->name, y->name);
    if (c != 0)
        return c;
    if (x->variant != y->variant)
        return x->variant - y->variant;
    return x->version - y->version;
}

static void sort_table(void)
{
    count = pyshim_proc_table_size;
    sorted = malloc(count * sizeof *sorted);
    if (sorted == NULL) {
        count = 0;
        return;
    }
    memcpy(sorted, pyshim_proc_table, count * sizeof *sorted);
    qsort(sorted, count, sizeof *sorted, compare);
}

/* First entry named `name`, by binary search; NULL if none. */
static const struct pyshim_proc_entry *first_named(const char *name, size_t *end)
{
    size_t lo = 0, hi = count;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (strcmp(sorted[mid].name, name) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == count || strcmp(sorted[lo].name, name) != 0)
        return NULL;
    size_t e = lo;
    while (e < count && strcmp(sorted[e].name, name) == 0)
        e++;
    *end = e;
    return &sorted[lo];
}

/* Newest entry of `variant` (per_thread: either per-thread kind) with version <= max. */
static const struct pyshim_proc_entry *pick(const struct pyshim_proc_entry *first,
                                            const struct pyshim_proc_entry *last, int per_thread,
                                            int max_version, int *too_new)
{
    const struct pyshim_proc_entry *best = NULL;
    for (const struct pyshim_proc_entry *e = first; e < last; e++) {
        int is_pt = e->variant != PYSHIM_PROC_DEFAULT;
        if (is_pt != per_thread)
            continue;
        if (e->version > max_version) {
            *too_new = 1;
            continue;
        }
        if (best == NULL || e->version > best->version)
            best = e;
    }
    return best;
}

CUresult pyshim_proc_lookup(const char *symbol, void **pfn, int version, cuuint64_t flags,
                            CUdriverProcAddressQueryResult *status)
{
    CUdriverProcAddressQueryResult st = CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
    CUresult rc = CUDA_ERROR_NOT_FOUND;
    if (pfn != NULL)
        *pfn = NULL;
    if (symbol == NULL || pfn == NULL) {
        rc = CUDA_ERROR_INVALID_VALUE;
        goto out;
    }
    pthread_once(&once, sort_table);
    size_t end = 0;
    const struct pyshim_proc_entry *first = first_named(symbol, &end);
    if (first != NULL) {
        const struct pyshim_proc_entry *last = &sorted[end];
        int too_new = 0;
        const struct pyshim_proc_entry *e = NULL;
        if (flags & CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM)
            e = pick(first, last, 1, version, &too_new);
        if (e == NULL)
            e = pick(first, last, 0, version, &too_new);
        if (e != NULL) {
            *pfn = e->fn;
            st = CU_GET_PROC_ADDRESS_SUCCESS;
            rc = CUDA_SUCCESS;
        } else if (too_new) {
            st = CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT;
        }
    }
    if (rc != CUDA_SUCCESS && pyshim_trace_enabled())
        pyshim_log("cuGetProcAddress(%s, %d, %llu): not found", symbol ? symbol : "(null)",
                   version, (unsigned long long)flags);
out:
    if (status != NULL)
        *status = st;
    return rc;
}

CUresult CUDAAPI cuGetProcAddress_v2(const char *symbol, void **pfn, int cudaVersion,
                                     cuuint64_t flags, CUdriverProcAddressQueryResult *symbolStatus)
{
    return pyshim_proc_lookup(symbol, pfn, cudaVersion, flags, symbolStatus);
}

/* The CUDA 11.3 ABI: no status argument. cuda.h renames cuGetProcAddress to _v2. */
#undef cuGetProcAddress
CUresult CUDAAPI cuGetProcAddress(const char *symbol, void **pfn, int cudaVersion,
                                  cuuint64_t flags);
CUresult CUDAAPI cuGetProcAddress(const char *symbol, void **pfn, int cudaVersion,
                                  cuuint64_t flags)
{
    return pyshim_proc_lookup(symbol, pfn, cudaVersion, flags, NULL);
}
