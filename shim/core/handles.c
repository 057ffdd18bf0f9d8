/*
 * Sets of the handles we handed out. A handle the caller passes is looked up here before
 * anything is read through it, so a forged or stale one (cuCtxDestroy((CUcontext)0x1234))
 * is an error code instead of a read of whatever the number points at. Sorted arrays under
 * a lock: O(log n) membership.
 */
#include <stdlib.h>
#include <string.h>

#include "internal.h"

pyshim_handle_set pyshim_live_contexts = PYSHIM_HANDLE_SET_INIT;
pyshim_handle_set pyshim_known_libraries = PYSHIM_HANDLE_SET_INIT;
pyshim_handle_set pyshim_known_functions = PYSHIM_HANDLE_SET_INIT;
pyshim_handle_set pyshim_live_links = PYSHIM_HANDLE_SET_INIT;

/* Index of the first item >= h. Lock held. */
static size_t lower_bound(const pyshim_handle_set *s, uintptr_t h)
{
    size_t lo = 0, hi = s->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (s->items[mid] < h)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

int pyshim_handles_add(pyshim_handle_set *s, const void *h)
{
    uintptr_t v = (uintptr_t)h;
    pthread_mutex_lock(&s->lock);
    size_t i = lower_bound(s, v);
    if (i < s->n && s->items[i] == v) {
        pthread_mutex_unlock(&s->lock);
        return 1;
    }
    if (s->n == s->cap) {
        size_t cap = s->cap ? s->cap * 2 : 32;
        uintptr_t *items = realloc(s->items, cap * sizeof *items);
        if (items == NULL) {
            pthread_mutex_unlock(&s->lock);
            return 0;
        }
        s->items = items;
        s->cap = cap;
    }
    memmove(&s->items[i + 1], &s->items[i], (s->n - i) * sizeof *s->items);
    s->items[i] = v;
    s->n++;
    pthread_mutex_unlock(&s->lock);
    return 1;
}

int pyshim_handles_remove(pyshim_handle_set *s, const void *h)
{
    uintptr_t v = (uintptr_t)h;
    pthread_mutex_lock(&s->lock);
    size_t i = lower_bound(s, v);
    int found = i < s->n && s->items[i] == v;
    if (found) {
        memmove(&s->items[i], &s->items[i + 1], (s->n - i - 1) * sizeof *s->items);
        s->n--;
    }
    pthread_mutex_unlock(&s->lock);
    return found;
}

int pyshim_handles_contains(pyshim_handle_set *s, const void *h)
{
    if (h == NULL)
        return 0;
    uintptr_t v = (uintptr_t)h;
    pthread_mutex_lock(&s->lock);
    size_t i = lower_bound(s, v);
    int found = i < s->n && s->items[i] == v;
    pthread_mutex_unlock(&s->lock);
    return found;
}

int pyshim_func_valid(CUfunction f)
{
    /* function structs are never freed (a destroyed one is a tombstone, magic 0), so once
     * a pointer is known to be one it stays one: a launch loop asks the set only once */
    static _Thread_local CUfunction known;
    if (f == NULL)
        return 0;
    if (f != known) {
        if (!pyshim_handles_contains(&pyshim_known_functions, f))
            return 0;
        known = f;
    }
    return f->magic == PYSHIM_FUNC_MAGIC;
}
