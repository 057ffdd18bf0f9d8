/* Sets of handed-out handles (handle_set.h): shared by libcuda.so.1 and the CPU device. */
#include <stdlib.h>
#include <string.h>

#include "handle_set.h"

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

bool pyshim_handles_add(pyshim_handle_set *s, const void *h)
{
    uintptr_t v = (uintptr_t)h;
    pthread_mutex_lock(&s->lock);
    size_t i = lower_bound(s, v);
    if (i < s->n && s->items[i] == v) {
        pthread_mutex_unlock(&s->lock);
        return true;
    }
    if (s->n == s->cap) {
        size_t cap = s->cap ? s->cap * 2 : 32;
        uintptr_t *items = realloc(s->items, cap * sizeof *items);
        if (items == NULL) {
            pthread_mutex_unlock(&s->lock);
            return false;
        }
        s->items = items;
        s->cap = cap;
    }
    memmove(&s->items[i + 1], &s->items[i], (s->n - i) * sizeof *s->items);
    s->items[i] = v;
    s->n++;
    pthread_mutex_unlock(&s->lock);
    return true;
}

bool pyshim_handles_remove(pyshim_handle_set *s, const void *h)
{
    uintptr_t v = (uintptr_t)h;
    pthread_mutex_lock(&s->lock);
    size_t i = lower_bound(s, v);
    bool found = i < s->n && s->items[i] == v;
    if (found) {
        memmove(&s->items[i], &s->items[i + 1], (s->n - i - 1) * sizeof *s->items);
        s->n--;
    }
    pthread_mutex_unlock(&s->lock);
    return found;
}

bool pyshim_handles_contains(pyshim_handle_set *s, const void *h)
{
    if (h == NULL)
        return false;
    uintptr_t v = (uintptr_t)h;
    pthread_mutex_lock(&s->lock);
    size_t i = lower_bound(s, v);
    bool found = i < s->n && s->items[i] == v;
    pthread_mutex_unlock(&s->lock);
    return found;
}
