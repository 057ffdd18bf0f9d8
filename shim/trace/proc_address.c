/*
 * cuGetProcAddress wrappers. NVIDIA's static cudart never calls an exported driver symbol:
 * it asks cuGetProcAddress_v2 for every entry point (notes/cuda-driver-contract.md). We
 * call the real one, then hand back the tracing wrapper of the symbol it chose, after
 * giving that wrapper the real pointer. Which symbol it chose follows the driver's rule
 * (newest version <= the requested one; the _ptds/_ptsz variant when flags & 2), checked
 * against the pointer we got where the next library exports the symbols.
 */
#define __CUDA_API_VERSION_INTERNAL 1
#include <errno.h>
#include <string.h>
#include <cuda.h>

#include "trace.h"
#include "trace_enums.h"

#define PER_THREAD_FLAG 2u

void *pyshim_tracer_real_cuGetProcAddress;
unsigned long pyshim_tracer_calls_cuGetProcAddress;
void *pyshim_tracer_real_cuGetProcAddress_v2;
unsigned long pyshim_tracer_calls_cuGetProcAddress_v2;
void *pyshim_tracer_real_cuGetProcAddress_v2_ptsz;
unsigned long pyshim_tracer_calls_cuGetProcAddress_v2_ptsz;

/* The rows named `name`: [*first, *last). */
static int rows_named(const char *name, size_t *first, size_t *last)
{
    size_t lo = 0, hi = pt_proc_table_count;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (strcmp(pt_proc_table[mid].name, name) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    size_t end = lo;
    while (end < pt_proc_table_count && strcmp(pt_proc_table[end].name, name) == 0)
        end++;
    *first = lo;
    *last = end;
    return end > lo;
}

static const struct pt_proc *newest(size_t first, size_t last, int per_thread, int version)
{
    const struct pt_proc *best = NULL;
    for (size_t i = first; i < last; i++) {
        const struct pt_proc *e = &pt_proc_table[i];
        if ((e->variant != 0) != per_thread || e->version > version)
            continue;
        if (best == NULL || e->version > best->version)
            best = e;
    }
    return best;
}

/* The row whose symbol the real cuGetProcAddress returned as `got`, or NULL. */
static const struct pt_proc *chosen(const char *name, int version, cuuint64_t flags, void *got)
{
    size_t first, last;
    if (name == NULL || !rows_named(name, &first, &last))
        return NULL;
    const struct pt_proc *e = NULL;
    if (flags & PER_THREAD_FLAG)
        e = newest(first, last, 1, version);
    if (e == NULL)
        e = newest(first, last, 0, version);
    if (e == NULL || got == e->wrapper)
        return e;
    void *exported = pt_dlsym_next(e->symbol);
    if (exported == NULL || exported == got)
        return e;
    /* the rule disagrees with the driver: trust a row whose export is what we got */
    for (size_t i = first; i < last; i++)
        if (pt_dlsym_next(pt_proc_table[i].symbol) == got)
            return &pt_proc_table[i];
    return e;
}

static CUresult traced(const char *fn_name, void **slot, unsigned long *calls, int v2,
                       const char *symbol, void **pfn, int version, cuuint64_t flags,
                       CUdriverProcAddressQueryResult *status)
{
    void *fn = pt_resolve(slot, fn_name);
    if (fn == NULL)
        return CUDA_ERROR_NOT_FOUND;
    uint64_t t0 = pt_now();
    CUresult r;
    if (v2)
        r = ((CUresult(*)(const char *, void **, int, cuuint64_t,
                          CUdriverProcAddressQueryResult *))fn)(symbol, pfn, version, flags,
                                                                status);
    else
        r = ((CUresult(*)(const char *, void **, int, cuuint64_t))fn)(symbol, pfn, version,
                                                                      flags);
    uint64_t t1 = pt_now();
    int saved = errno;
    /* NOT_FOUND is routine here (cudart asks for names a driver may lack): not an error */
    pt_tally(calls, fn_name, 0, NULL);
    const struct pt_proc *e = NULL;
    void *got = NULL;
    if (r == CUDA_SUCCESS && pfn != NULL && *pfn != NULL) {
        got = *pfn;
        e = chosen(symbol, version, flags, got);
        if (e != NULL) {
            pt_set_real(e->real, got, e->wrapper);
            *pfn = e->wrapper;
        }
    }
    struct pt_line L;
    pt_begin(&L, fn_name);
    pt_name(&L, "symbol");
    pt_v_cstr(&L, symbol);
    pt_name(&L, "pfn");
    pt_v_hex(&L, (unsigned long long)(uintptr_t)pfn);
    if (got != NULL) {
        pt_v_text(&L, "->");
        pt_v_hex(&L, (unsigned long long)(uintptr_t)got);
    }
    pt_name(&L, "cudaVersion");
    pt_v_int(&L, version);
    pt_name(&L, "flags");
    pt_v_hex(&L, (unsigned long long)flags);
    if (v2) {
        pt_name(&L, "symbolStatus");
        pt_v_hex(&L, (unsigned long long)(uintptr_t)status);
        if (status != NULL) {
            pt_v_text(&L, "->");
            pt_v_enum(&L, *status, pt_enum_CUdriverProcAddressQueryResult_enum(*status));
        }
    }
    pt_close(&L);
    pt_v_text(&L, " = ");
    pt_v_enum(&L, r, pt_enum_cudaError_enum(r));
    if (e != NULL)
        pt_v_fmt(&L, " [%s traced]", e->symbol);
    else if (got != NULL)
        pt_v_text(&L, " [not traced: no wrapper for it]");
    pt_finish(&L, t1 - t0);
    errno = saved;
    return r;
}

PT_API CUresult cuGetProcAddress(const char *symbol, void **pfn, int cudaVersion,
                                 cuuint64_t flags)
{
    return traced("cuGetProcAddress", &pyshim_tracer_real_cuGetProcAddress,
                  &pyshim_tracer_calls_cuGetProcAddress, 0, symbol, pfn,
                  cudaVersion, flags, NULL);
}

PT_API CUresult cuGetProcAddress_v2(const char *symbol, void **pfn, int cudaVersion,
                                    cuuint64_t flags, CUdriverProcAddressQueryResult *status)
{
    return traced("cuGetProcAddress_v2", &pyshim_tracer_real_cuGetProcAddress_v2,
                  &pyshim_tracer_calls_cuGetProcAddress_v2, 1, symbol,
                  pfn, cudaVersion, flags, status);
}

PT_API CUresult cuGetProcAddress_v2_ptsz(const char *symbol, void **pfn, int cudaVersion,
                                         cuuint64_t flags,
                                         CUdriverProcAddressQueryResult *status)
{
    return traced("cuGetProcAddress_v2_ptsz", &pyshim_tracer_real_cuGetProcAddress_v2_ptsz,
                  &pyshim_tracer_calls_cuGetProcAddress_v2_ptsz, 1, symbol, pfn, cudaVersion,
                  flags, status);
}
