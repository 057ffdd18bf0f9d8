/*
 * Sets of live handles (streams, events, modules, functions, contexts): a sorted array
 * under a lock, searched by binary search. A handle is checked by membership before it is
 * dereferenced, so a stale or garbage handle is an error code, never a crash.
 */
#include <stdlib.h>
#include <string.h>

#include "internal.h"

static size_t lower_bound(const cpu_handle_set *s, uintptr_t h)
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

bool cpu_handles_add(cpu_handle_set *s, const void *h)
{
    uintptr_t key = (uintptr_t)h;
    pthread_mutex_lock(&s->lock);
    bool ok = true;
    if (s->n == s->cap) {
        size_t cap = s->cap ? s->cap * 2 : 32;
        uintptr_t *items = realloc(s->items, cap * sizeof *items);
        if (items == NULL) {
            ok = false;
        } else {
            s->items = items;
            s->cap = cap;
        }
    }
    if (ok) {
        size_t i = lower_bound(s, key);
        if (i < s->n && s->items[i] == key) {
            pthread_mutex_unlock(&s->lock);
            return true;
        }
        memmove(&s->items[i + 1], &s->items[i], (s->n - i) * sizeof *s->items);
        s->items[i] = key;
        s->n++;
    }
    pthread_mutex_unlock(&s->lock);
    return ok;
}

bool cpu_handles_remove(cpu_handle_set *s, const void *h)
{
    uintptr_t key = (uintptr_t)h;
    pthread_mutex_lock(&s->lock);
    size_t i = lower_bound(s, key);
    bool found = i < s->n && s->items[i] == key;
    if (found) {
        memmove(&s->items[i], &s->items[i + 1], (s->n - i - 1) * sizeof *s->items);
        s->n--;
    }
    pthread_mutex_unlock(&s->lock);
    return found;
}

bool cpu_handles_contains(cpu_handle_set *s, const void *h)
{
    uintptr_t key = (uintptr_t)h;
    pthread_mutex_lock(&s->lock);
    size_t i = lower_bound(s, key);
    bool found = i < s->n && s->items[i] == key;
    pthread_mutex_unlock(&s->lock);
    return found;
}
