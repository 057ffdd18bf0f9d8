/* rocBLAS auxiliary API on the CPU device: handles, streams, modes, workspace ("device
 * memory") management and size queries, version strings, status names, and the
 * host<->device vector/matrix copies (device memory is host memory here). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "blas_common.h"
#include "common/handle_set.h"

/* The live handles: a forged pointer or a destroyed handle (freed) is never read. */
static pyshim_handle_set live = PYSHIM_HANDLE_SET_INIT;

bool rb_bad_handle(rocblas_handle h)
{
    return !pyshim_handles_contains(&live, h) || h->magic != RB_HANDLE_MAGIC;
}

RB_API rocblas_status rocblas_create_handle(rocblas_handle *handle)
{
    if (!handle)
        return rocblas_status_invalid_handle;
    struct _rocblas_handle *h = calloc(1, sizeof *h);
    if (!h)
        return rocblas_status_memory_error;
    h->magic = RB_HANDLE_MAGIC;
    h->pointer_mode = rocblas_pointer_mode_host;
    h->atomics_mode = rocblas_atomics_allowed;
    h->math_mode = rocblas_default_math;
    h->metric = rocblas_default_performance_metric;
    h->check_numerics = rocblas_check_numerics_mode_no_check;
    if (!pyshim_handles_add(&live, h)) {
        free(h);
        return rocblas_status_memory_error;
    }
    *handle = h;
    return rocblas_status_success;
}

RB_API rocblas_status rocblas_destroy_handle(rocblas_handle handle)
{
    if (rb_bad_handle(handle) || !pyshim_handles_remove(&live, handle))
        return rocblas_status_invalid_handle;
    if (!handle->ws_user)
        free(handle->ws);
    handle->magic = 0; /* a second destroy is then invalid_handle, not a double free */
    free(handle);
    return rocblas_status_success;
}

RB_API rocblas_status rocblas_set_stream(rocblas_handle handle, hipStream_t stream)
{
    if (rb_bad_handle(handle))
        return rocblas_status_invalid_handle;
    handle->stream = stream;
    return rocblas_status_success;
}

RB_API rocblas_status rocblas_get_stream(rocblas_handle handle, hipStream_t *stream)
{
    if (rb_bad_handle(handle))
        return rocblas_status_invalid_handle;
    if (!stream)
        return rocblas_status_invalid_pointer;
    *stream = handle->stream;
    return rocblas_status_success;
}

RB_API rocblas_status rocblas_set_pointer_mode(rocblas_handle handle, rocblas_pointer_mode mode)
{
    if (rb_bad_handle(handle))
        return rocblas_status_invalid_handle;
    if (mode != rocblas_pointer_mode_host && mode != rocblas_pointer_mode_device)
        return rocblas_status_invalid_value;
    handle->pointer_mode = mode;
    return rocblas_status_success;
}

RB_API rocblas_status rocblas_get_pointer_mode(rocblas_handle handle, rocblas_pointer_mode *mode)
{
    if (rb_bad_handle(handle))
        return rocblas_status_invalid_handle;
    if (!mode)
        return rocblas_status_invalid_pointer;
    *mode = handle->pointer_mode;
    return rocblas_status_success;
}

/* Every address is host memory on the CPU device, so no pointer is "device" memory. */
RB_API rocblas_pointer_mode rocblas_pointer_to_mode(void *ptr)
{
    (void)ptr;
    return rocblas_pointer_mode_host;
}

RB_API rocblas_status rocblas_set_atomics_mode(rocblas_handle handle, rocblas_atomics_mode mode)
{
    if (rb_bad_handle(handle))
        return rocblas_status_invalid_handle;
    if (mode != rocblas_atomics_allowed && mode != rocblas_atomics_not_allowed)
        return rocblas_status_invalid_value;
    handle->atomics_mode = mode;
    return rocblas_status_success;
}

RB_API rocblas_status rocblas_get_atomics_mode(rocblas_handle handle, rocblas_atomics_mode *mode)
{
    if (rb_bad_handle(handle))
        return rocblas_status_invalid_handle;
    if (!mode)
        return rocblas_status_invalid_pointer;
    *mode = handle->atomics_mode;
    return rocblas_status_success;
}

RB_API rocblas_status rocblas_set_math_mode(rocblas_handle handle, rocblas_math_mode mode)
{
    if (rb_bad_handle(handle))
        return rocblas_status_invalid_handle;
    if (mode != rocblas_default_math && mode != rocblas_xf32_xdl_math_op)
        return rocblas_status_invalid_value;
    handle->math_mode = mode;
    return rocblas_status_success;
}

RB_API rocblas_status rocblas_get_math_mode(rocblas_handle handle, rocblas_math_mode *mode)
{
    if (rb_bad_handle(handle))
        return rocblas_status_invalid_handle;
    if (!mode)
        return rocblas_status_invalid_pointer;
    *mode = handle->math_mode;
    return rocblas_status_success;
}

RB_API rocblas_status rocblas_set_performance_metric(rocblas_handle handle,
                                                     rocblas_performance_metric metric)
{
    if (rb_bad_handle(handle))
        return rocblas_status_invalid_handle;
    if (metric != rocblas_default_performance_metric &&
        metric != rocblas_device_efficiency_performance_metric &&
        metric != rocblas_cu_efficiency_performance_metric)
        return rocblas_status_invalid_value;
    handle->metric = metric;
    return rocblas_status_success;
}

RB_API rocblas_status rocblas_get_performance_metric(rocblas_handle handle,
                                                     rocblas_performance_metric *metric)
{
    if (rb_bad_handle(handle))
        return rocblas_status_invalid_handle;
    if (!metric)
        return rocblas_status_invalid_pointer;
    *metric = handle->metric;
    return rocblas_status_success;
}

RB_API rocblas_status rocblas_set_start_stop_events(rocblas_handle handle, hipEvent_t start,
                                                    hipEvent_t stop)
{
    if (rb_bad_handle(handle))
        return rocblas_status_invalid_handle;
    handle->start_event = start;
    handle->stop_event = stop;
    return rocblas_status_success;
}

RB_API rocblas_status rocblas_set_solution_fitness_query(rocblas_handle handle, double *fitness)
{
    if (rb_bad_handle(handle))
        return rocblas_status_invalid_handle;
    (void)fitness; /* there is one "solution" (OpenBLAS): nothing to report */
    return rocblas_status_success;
}

RB_API void rocblas_initialize(void)
{
}

RB_API void rocblas_abort(void)
{
    fflush(NULL);
    abort();
}

/* ---- workspace ("device memory") ---- */

RB_API rocblas_status rocblas_start_device_memory_size_query(rocblas_handle handle)
{
    if (rb_bad_handle(handle))
        return rocblas_status_invalid_handle;
    if (handle->size_query)
        return rocblas_status_size_query_mismatch;
    handle->size_query = true;
    handle->query_size = 0;
    return rocblas_status_success;
}

RB_API rocblas_status rocblas_stop_device_memory_size_query(rocblas_handle handle, size_t *size)
{
    if (rb_bad_handle(handle))
        return rocblas_status_invalid_handle;
    if (!handle->size_query)
        return rocblas_status_size_query_mismatch;
    if (!size)
        return rocblas_status_invalid_pointer;
    *size = handle->query_size;
    handle->size_query = false;
    return rocblas_status_success;
}

RB_API bool rocblas_is_device_memory_size_query(rocblas_handle handle)
{
    return !rb_bad_handle(handle) && handle->size_query;
}

RB_API rocblas_status rocblas_get_device_memory_size(rocblas_handle handle, size_t *size)
{
    if (rb_bad_handle(handle))
        return rocblas_status_invalid_handle;
    if (!size)
        return rocblas_status_invalid_pointer;
    *size = handle->ws_size;
    return rocblas_status_success;
}

/* size 0 returns to rocBLAS-managed memory of its default size (none needed here). */
RB_API rocblas_status rocblas_set_device_memory_size(rocblas_handle handle, size_t size)
{
    if (rb_bad_handle(handle))
        return rocblas_status_invalid_handle;
    void *mem = NULL;
    if (size) {
        mem = malloc(size);
        if (!mem)
            return rocblas_status_memory_error;
    }
    if (!handle->ws_user)
        free(handle->ws);
    handle->ws = mem;
    handle->ws_size = size;
    handle->ws_user = false;
    return rocblas_status_success;
}

/* A null address or zero size hands management back to rocBLAS. */
RB_API rocblas_status rocblas_set_workspace(rocblas_handle handle, void *addr, size_t size)
{
    if (rb_bad_handle(handle))
        return rocblas_status_invalid_handle;
    if (!handle->ws_user)
        free(handle->ws);
    bool user = addr != NULL && size != 0;
    handle->ws = user ? addr : NULL;
    handle->ws_size = user ? size : 0;
    handle->ws_user = user;
    return rocblas_status_success;
}

RB_API bool rocblas_is_managing_device_memory(rocblas_handle handle)
{
    return !rb_bad_handle(handle) && !handle->ws_user;
}

RB_API bool rocblas_is_user_managing_device_memory(rocblas_handle handle)
{
    return !rb_bad_handle(handle) && handle->ws_user;
}

/* ---- version and status strings ---- */

#define RB_STR_(x) #x
#define RB_STR(x) RB_STR_(x)
static const char rb_version[] = RB_STR(ROCBLAS_VERSION_MAJOR) "." RB_STR(
    ROCBLAS_VERSION_MINOR) "." RB_STR(ROCBLAS_VERSION_PATCH) ".pyshim-cpu";
static const char rb_commit[] = "pyshim-cpu";

static rocblas_status rb_copy_string(const char *s, char *buf, size_t len)
{
    if (!buf)
        return rocblas_status_invalid_pointer;
    if (len < strlen(s) + 1)
        return rocblas_status_invalid_size;
    memcpy(buf, s, strlen(s) + 1);
    return rocblas_status_success;
}

RB_API rocblas_status rocblas_get_version_string(char *buf, size_t len)
{
    return rb_copy_string(rb_version, buf, len);
}

RB_API rocblas_status rocblas_get_version_string_size(size_t *len)
{
    if (!len)
        return rocblas_status_invalid_pointer;
    *len = sizeof rb_version;
    return rocblas_status_success;
}

RB_API rocblas_status rocblas_get_commit_hash_string(char *buf, size_t len)
{
    return rb_copy_string(rb_commit, buf, len);
}

RB_API rocblas_status rocblas_get_commit_hash_string_size(size_t *len)
{
    if (!len)
        return rocblas_status_invalid_pointer;
    *len = sizeof rb_commit;
    return rocblas_status_success;
}

RB_API const char *rocblas_status_to_string(rocblas_status status)
{
    switch (status) {
#define RB_CASE(s) case s: return #s;
    RB_CASE(rocblas_status_success)
    RB_CASE(rocblas_status_invalid_handle)
    RB_CASE(rocblas_status_not_implemented)
    RB_CASE(rocblas_status_invalid_pointer)
    RB_CASE(rocblas_status_invalid_size)
    RB_CASE(rocblas_status_memory_error)
    RB_CASE(rocblas_status_internal_error)
    RB_CASE(rocblas_status_perf_degraded)
    RB_CASE(rocblas_status_size_query_mismatch)
    RB_CASE(rocblas_status_size_increased)
    RB_CASE(rocblas_status_size_unchanged)
    RB_CASE(rocblas_status_invalid_value)
    RB_CASE(rocblas_status_continue)
    RB_CASE(rocblas_status_check_numerics_fail)
    RB_CASE(rocblas_status_excluded_from_build)
    RB_CASE(rocblas_status_arch_mismatch)
#undef RB_CASE
    }
    return "Invalid status";
}

/* ---- host <-> device copies (both are host memory) ---- */

static rocblas_status rb_copy_vector(int64_t n, int64_t es, const void *x, int64_t incx,
                                     void *y, int64_t incy)
{
    if (n < 0 || es <= 0 || incx <= 0 || incy <= 0)
        return rocblas_status_invalid_size;
    if (n == 0)
        return rocblas_status_success;
    if (!x || !y)
        return rocblas_status_invalid_pointer;
    const char *src = x;
    char *dst = y;
    if (incx == 1 && incy == 1) {
        memmove(dst, src, (size_t)(n * es));
        return rocblas_status_success;
    }
    for (int64_t i = 0; i < n; i++)
        memmove(dst + i * incy * es, src + i * incx * es, (size_t)es);
    return rocblas_status_success;
}

static rocblas_status rb_copy_matrix(int64_t rows, int64_t cols, int64_t es, const void *a,
                                     int64_t lda, void *b, int64_t ldb)
{
    if (rows < 0 || cols < 0 || es <= 0 || lda <= 0 || lda < rows || ldb <= 0 || ldb < rows)
        return rocblas_status_invalid_size;
    if (rows == 0 || cols == 0)
        return rocblas_status_success;
    if (!a || !b)
        return rocblas_status_invalid_pointer;
    const char *src = a;
    char *dst = b;
    for (int64_t j = 0; j < cols; j++)
        memmove(dst + j * ldb * es, src + j * lda * es, (size_t)(rows * es));
    return rocblas_status_success;
}

/* The blocking copies behave like hipMemcpy: after the legacy default stream's work. */
#define RB_SYNC_OR_FAIL(stream)                                                   \
    do {                                                                          \
        if (hipStreamSynchronize(stream) != hipSuccess)                           \
            return rocblas_status_internal_error;                                 \
    } while (0)

#define RB_VECTOR_COPIES(W, I)                                                                \
    RB_API rocblas_status RB_CAT5(rocblas_set_vector, , , , RB_WSFX_##W)(                     \
        I n, I elem_size, const void *x, I incx, void *y, I incy)                             \
    {                                                                                         \
        RB_SYNC_OR_FAIL(NULL);                                                                \
        return rb_copy_vector(n, elem_size, x, incx, y, incy);                                \
    }                                                                                         \
    RB_API rocblas_status RB_CAT5(rocblas_get_vector, , , , RB_WSFX_##W)(                     \
        I n, I elem_size, const void *x, I incx, void *y, I incy)                             \
    {                                                                                         \
        RB_SYNC_OR_FAIL(NULL);                                                                \
        return rb_copy_vector(n, elem_size, x, incx, y, incy);                                \
    }                                                                                         \
    RB_API rocblas_status RB_CAT5(rocblas_set_vector_async, , , , RB_WSFX_##W)(               \
        I n, I elem_size, const void *x, I incx, void *y, I incy, hipStream_t stream)         \
    {                                                                                         \
        RB_SYNC_OR_FAIL(stream);                                                              \
        return rb_copy_vector(n, elem_size, x, incx, y, incy);                                \
    }                                                                                         \
    RB_API rocblas_status RB_CAT5(rocblas_get_vector_async, , , , RB_WSFX_##W)(               \
        I n, I elem_size, const void *x, I incx, void *y, I incy, hipStream_t stream)         \
    {                                                                                         \
        RB_SYNC_OR_FAIL(stream);                                                              \
        return rb_copy_vector(n, elem_size, x, incx, y, incy);                                \
    }                                                                                         \
    RB_API rocblas_status RB_CAT5(rocblas_set_matrix, , , , RB_WSFX_##W)(                     \
        I rows, I cols, I elem_size, const void *a, I lda, void *b, I ldb)                    \
    {                                                                                         \
        RB_SYNC_OR_FAIL(NULL);                                                                \
        return rb_copy_matrix(rows, cols, elem_size, a, lda, b, ldb);                         \
    }                                                                                         \
    RB_API rocblas_status RB_CAT5(rocblas_get_matrix, , , , RB_WSFX_##W)(                     \
        I rows, I cols, I elem_size, const void *a, I lda, void *b, I ldb)                    \
    {                                                                                         \
        RB_SYNC_OR_FAIL(NULL);                                                                \
        return rb_copy_matrix(rows, cols, elem_size, a, lda, b, ldb);                         \
    }                                                                                         \
    RB_API rocblas_status RB_CAT5(rocblas_set_matrix_async, , , , RB_WSFX_##W)(               \
        I rows, I cols, I elem_size, const void *a, I lda, void *b, I ldb, hipStream_t stream) \
    {                                                                                         \
        RB_SYNC_OR_FAIL(stream);                                                              \
        return rb_copy_matrix(rows, cols, elem_size, a, lda, b, ldb);                         \
    }                                                                                         \
    RB_API rocblas_status RB_CAT5(rocblas_get_matrix_async, , , , RB_WSFX_##W)(               \
        I rows, I cols, I elem_size, const void *a, I lda, void *b, I ldb, hipStream_t stream) \
    {                                                                                         \
        RB_SYNC_OR_FAIL(stream);                                                              \
        return rb_copy_matrix(rows, cols, elem_size, a, lda, b, ldb);                         \
    }

RB_VECTOR_COPIES(L, rocblas_int)
RB_VECTOR_COPIES(W, int64_t)
