/*
 * Sets of the handles a library handed out (contexts, modules, functions, streams, events
 * ...). A handle the caller passes is looked up before anything is read through it, so a
 * forged or stale one (cuCtxDestroy((CUcontext)0x1234)) is an error code instead of a read
 * of whatever the number points at. Sorted arrays under a lock: O(log n) membership.
 */
#ifndef PYSHIM_COMMON_HANDLE_SET_H
#define PYSHIM_COMMON_HANDLE_SET_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "visibility.h"

typedef struct pyshim_handle_set {
    pthread_mutex_t lock;
    uintptr_t *items; /* sorted */
    size_t n, cap;
} pyshim_handle_set;

#define PYSHIM_HANDLE_SET_INIT {PTHREAD_MUTEX_INITIALIZER, NULL, 0, 0}

/* false: out of memory (adding a handle already there succeeds) */
PYSHIM_COMMON_HIDDEN bool pyshim_handles_add(pyshim_handle_set *s, const void *h);
/* false: it was not there */
PYSHIM_COMMON_HIDDEN bool pyshim_handles_remove(pyshim_handle_set *s, const void *h);
/* false for NULL, which is never added */
PYSHIM_COMMON_HIDDEN bool pyshim_handles_contains(pyshim_handle_set *s, const void *h);

#endif
