/*
 * Finding the real functions, and dlsym.
 *
 * NVIDIA's cudart dlopen()s libcuda.so.1 and dlsym()s cuGetProcAddress_v2 through that
 * handle. A lookup through a handle searches only that library and its dependencies, never
 * the LD_PRELOAD list, so an exported wrapper alone would never be seen: this library also
 * defines dlsym, and a lookup that finds a symbol we wrap returns the wrapper instead (the
 * real pointer it found goes into the wrapper's slot).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>

#include "trace.h"

#if defined(__has_attribute)
#if __has_attribute(musttail)
#define PT_MUSTTAIL __attribute__((musttail))
#endif
#endif
#ifndef PT_MUSTTAIL
#define PT_MUSTTAIL
#endif

typedef void *(*dlsym_fn)(void *, const char *);
static dlsym_fn real_dlsym_ptr;

static dlsym_fn real_dlsym(void)
{
    dlsym_fn fn = __atomic_load_n(&real_dlsym_ptr, __ATOMIC_ACQUIRE);
    if (fn != NULL)
        return fn;
    /* dlvsym is not wrapped; glibc >= 2.34 names dlsym's current version GLIBC_2.34 */
    fn = (dlsym_fn)dlvsym(RTLD_NEXT, "dlsym", "GLIBC_2.34");
    if (fn == NULL)
        fn = (dlsym_fn)dlvsym(RTLD_NEXT, "dlsym", "GLIBC_2.2.5");
    __atomic_store_n(&real_dlsym_ptr, fn, __ATOMIC_RELEASE);
    return fn;
}

void *pt_dlsym_next(const char *symbol)
{
    dlsym_fn fn = real_dlsym();
    /* glibc resolves RTLD_NEXT from its caller's address: this library */
    return fn != NULL ? fn(RTLD_NEXT, symbol) : NULL;
}

void pt_set_real(void **slot, void *fn, void *wrapper)
{
    if (fn == NULL || fn == wrapper)
        return;
    void *expected = NULL;
    __atomic_compare_exchange_n(slot, &expected, fn, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE);
}

void *pt_resolve(void **slot, const char *symbol)
{
    void *fn = __atomic_load_n(slot, __ATOMIC_ACQUIRE);
    if (fn != NULL)
        return fn;
    fn = pt_dlsym_next(symbol);
    if (fn == NULL) {
        pt_note("%s: no library after libpyshim_trace.so defines it", symbol);
        return NULL;
    }
    const struct pt_symbol *s = pt_find_symbol(symbol);
    pt_set_real(slot, fn, s != NULL ? s->wrapper : NULL);
    return __atomic_load_n(slot, __ATOMIC_ACQUIRE);
}

static int by_symbol(const void *key, const void *row)
{
    return strcmp(key, ((const struct pt_symbol *)row)->symbol);
}

const struct pt_symbol *pt_find_symbol(const char *symbol)
{
    const struct pt_symbol *s = bsearch(symbol, pt_symbols_driver, pt_symbols_driver_count,
                                        sizeof *s, by_symbol);
    if (s == NULL)
        s = bsearch(symbol, pt_symbols_runtime, pt_symbols_runtime_count, sizeof *s,
                    by_symbol);
    return s;
}

PT_API void *dlsym(void *handle, const char *name)
{
    dlsym_fn fn = real_dlsym();
    if (fn == NULL)
        return NULL;
    /* RTLD_NEXT is relative to the caller: a sibling call (a jump, at -O2) keeps the
     * caller's return address, so glibc still sees the caller rather than this library.
     * tests/trace/rtld_next.c checks it; compilers that can promise it are made to. */
    if (handle == RTLD_NEXT)
        PT_MUSTTAIL return fn(handle, name);
    void *p = fn(handle, name);
    if (p == NULL)
        return p;
    const struct pt_symbol *s = pt_find_symbol(name);
    if (s == NULL || p == s->wrapper)
        return p;
    pt_set_real(s->real, p, s->wrapper);
    return s->wrapper;
}
