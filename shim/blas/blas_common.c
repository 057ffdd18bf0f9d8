/* The parts of libcublas and libcusolver that are neither cuBLAS nor cuSOLVER: the
 * unsupported-call log (its counts are shim/common/unsupported.c), size queries,
 * per-handle side state. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "blas_internal.h"
#include "common/log.h"
#include "common/unsupported.h"

#define MAX_HANDLES 4096

/* guards the per-handle side state */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

void pyshim_blas_unsupported(const char *name)
{
    if (pyshim_common_unsupported_note(name))
        pyshim_common_log("%s is not supported (returns %s)", name,
                          strncmp(name, "cusolver", 8) == 0 ? "CUSOLVER_STATUS_NOT_SUPPORTED"
                                                            : "CUBLAS_STATUS_NOT_SUPPORTED");
}

unsigned long pyshim_blas_unsupported_calls(const char *name)
{
    return pyshim_common_unsupported_calls(name);
}

rocblas_status pyshim_blas_query_begin(rocblas_handle h)
{
    return rocblas_start_device_memory_size_query(h);
}

rocblas_status pyshim_blas_query_end(rocblas_handle h, rocblas_status call, size_t *bytes)
{
    size_t size = 0;
    rocblas_status stop = rocblas_stop_device_memory_size_query(h, &size);
    /* in a query, rocBLAS reports size_increased / size_unchanged instead of success */
    if (call != rocblas_status_success && call != rocblas_status_size_increased &&
        call != rocblas_status_size_unchanged)
        return call;
    if (stop != rocblas_status_success)
        return stop;
    *bytes = size;
    return rocblas_status_success;
}

static int is_complex(rocblas_datatype t)
{
    switch (t) {
    case rocblas_datatype_f16_c: case rocblas_datatype_f32_c: case rocblas_datatype_f64_c:
    case rocblas_datatype_i8_c: case rocblas_datatype_u8_c: case rocblas_datatype_i32_c:
    case rocblas_datatype_u32_c: case rocblas_datatype_bf16_c:
        return 1;
    default:
        return 0;
    }
}

rocblas_datatype pyshim_blas_compute_type(rocblas_datatype compute, rocblas_datatype c_type)
{
    if (!is_complex(c_type))
        return compute;
    switch (compute) {
    case rocblas_datatype_f16_r: return rocblas_datatype_f16_c;
    case rocblas_datatype_f32_r: return rocblas_datatype_f32_c;
    case rocblas_datatype_f64_r: return rocblas_datatype_f64_c;
    case rocblas_datatype_i32_r: return rocblas_datatype_i32_c;
    default: return compute;
    }
}

/* ---- per-handle side state: a small open table keyed by the handle's address ---- */

static struct {
    const void *handle;
    int value[PYSHIM_SLOTS];
    int set[PYSHIM_SLOTS];
} handles[MAX_HANDLES];

static int find(const void *handle, int create)
{
    int free_slot = -1;
    for (int i = 0; i < MAX_HANDLES; i++) {
        if (handles[i].handle == handle)
            return i;
        if (free_slot < 0 && handles[i].handle == NULL)
            free_slot = i;
    }
    if (create && free_slot >= 0) {
        memset(&handles[free_slot], 0, sizeof handles[free_slot]);
        handles[free_slot].handle = handle;
    }
    return create ? free_slot : -1;
}

int pyshim_blas_handle_get(const void *handle, int slot, int fallback)
{
    pthread_mutex_lock(&lock);
    int i = find(handle, 0);
    int v = (i >= 0 && handles[i].set[slot]) ? handles[i].value[slot] : fallback;
    pthread_mutex_unlock(&lock);
    return v;
}

int pyshim_blas_handle_set(const void *handle, int slot, int value)
{
    pthread_mutex_lock(&lock);
    int i = find(handle, 1);
    if (i >= 0) {
        handles[i].value[slot] = value;
        handles[i].set[slot] = 1;
    }
    pthread_mutex_unlock(&lock);
    return i >= 0;
}

void pyshim_blas_handle_forget(const void *handle)
{
    pthread_mutex_lock(&lock);
    int i = find(handle, 0);
    if (i >= 0)
        handles[i].handle = NULL;
    pthread_mutex_unlock(&lock);
}

/* ---- live objects (cusolverDnParams, syevjInfo): a pointer the caller passes is looked up
 * here before it is read through, so a forged or destroyed one is an error code ---- */

static pthread_mutex_t objects_lock = PTHREAD_MUTEX_INITIALIZER;
static const void **objects;
static size_t nobjects, capobjects;

int pyshim_blas_object_add(const void *p)
{
    pthread_mutex_lock(&objects_lock);
    if (nobjects == capobjects) {
        size_t cap = capobjects ? capobjects * 2 : 16;
        const void **n = realloc(objects, cap * sizeof *n);
        if (n == NULL) {
            pthread_mutex_unlock(&objects_lock);
            return 0;
        }
        objects = n;
        capobjects = cap;
    }
    objects[nobjects++] = p;
    pthread_mutex_unlock(&objects_lock);
    return 1;
}

/* A linear scan: a program holds a handful of these. */
static long object_index(const void *p)
{
    for (size_t i = 0; i < nobjects; i++)
        if (objects[i] == p)
            return (long)i;
    return -1;
}

int pyshim_blas_object_live(const void *p)
{
    if (p == NULL)
        return 0;
    pthread_mutex_lock(&objects_lock);
    int live = object_index(p) >= 0;
    pthread_mutex_unlock(&objects_lock);
    return live;
}

int pyshim_blas_object_remove(const void *p)
{
    pthread_mutex_lock(&objects_lock);
    long i = p != NULL ? object_index(p) : -1;
    if (i >= 0)
        objects[i] = objects[--nobjects];
    pthread_mutex_unlock(&objects_lock);
    return i >= 0;
}
