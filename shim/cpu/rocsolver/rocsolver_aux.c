/* rocSOLVER auxiliary API on the CPU device: the deprecated rocsolver_* aliases of the rocBLAS
 * handle/stream/copy functions, version strings, the logging controls (logging is not
 * implemented: the calls succeed and do nothing) and the algorithm-mode switches (stored per
 * handle; every mode computes the same way here). */
#include <stdlib.h>
#include <string.h>

#include "blas_common.h"
#include <rocsolver/rocsolver.h>

/* librocsolver has no set of its own: librocblas's rocblas_get_stream answers a handle
 * that is not a live one with invalid_handle (and a live one with invalid_pointer, for the
 * NULL out-pointer), reading nothing through it. */
bool rb_bad_handle(rocblas_handle h)
{
    return h == NULL || rocblas_get_stream(h, NULL) == rocblas_status_invalid_handle;
}

RB_API rocblas_status rocsolver_create_handle(rocblas_handle *handle)
{
    return rocblas_create_handle(handle);
}
RB_API rocblas_status rocsolver_destroy_handle(rocblas_handle handle)
{
    return rocblas_destroy_handle(handle);
}
RB_API rocblas_status rocsolver_set_stream(rocblas_handle handle, hipStream_t stream)
{
    return rocblas_set_stream(handle, stream);
}
RB_API rocblas_status rocsolver_get_stream(rocblas_handle handle, hipStream_t *stream)
{
    return rocblas_get_stream(handle, stream);
}
RB_API rocblas_status rocsolver_set_vector(rocblas_int n, rocblas_int elem_size,
                                             const void *x, rocblas_int incx, void *y,
                                             rocblas_int incy)
{
    return rocblas_set_vector(n, elem_size, x, incx, y, incy);
}
RB_API rocblas_status rocsolver_get_vector(rocblas_int n, rocblas_int elem_size,
                                             const void *x, rocblas_int incx, void *y,
                                             rocblas_int incy)
{
    return rocblas_get_vector(n, elem_size, x, incx, y, incy);
}
RB_API rocblas_status rocsolver_set_matrix(rocblas_int rows, rocblas_int cols,
                                             rocblas_int elem_size, const void *a,
                                             rocblas_int lda, void *b, rocblas_int ldb)
{
    return rocblas_set_matrix(rows, cols, elem_size, a, lda, b, ldb);
}
RB_API rocblas_status rocsolver_get_matrix(rocblas_int rows, rocblas_int cols,
                                             rocblas_int elem_size, const void *a,
                                             rocblas_int lda, void *b, rocblas_int ldb)
{
    return rocblas_get_matrix(rows, cols, elem_size, a, lda, b, ldb);
}

#define RS_STR_(x) #x
#define RS_STR(x) RS_STR_(x)
static const char rs_version[] = RS_STR(ROCSOLVER_VERSION_MAJOR) "." RS_STR(
    ROCSOLVER_VERSION_MINOR) "." RS_STR(ROCSOLVER_VERSION_PATCH) ".pyshim-cpu";

RB_API rocblas_status rocsolver_get_version_string(char *buf, size_t len)
{
    if (!buf)
        return rocblas_status_invalid_pointer;
    if (len < sizeof rs_version)
        return rocblas_status_invalid_size;
    memcpy(buf, rs_version, sizeof rs_version);
    return rocblas_status_success;
}
RB_API rocblas_status rocsolver_get_version_string_size(size_t *len)
{
    if (!len)
        return rocblas_status_invalid_pointer;
    *len = sizeof rs_version;
    return rocblas_status_success;
}

RB_API rocblas_status rocsolver_log_begin(void)
{
    return rocblas_status_success;
}
RB_API rocblas_status rocsolver_log_end(void)
{
    return rocblas_status_success;
}
RB_API rocblas_status rocsolver_log_set_layer_mode(const rocblas_layer_mode_flags layer_mode)
{
    (void)layer_mode;
    return rocblas_status_success;
}
RB_API rocblas_status rocsolver_log_set_max_levels(const rocblas_int max_levels)
{
    return max_levels < 1 ? rocblas_status_invalid_value : rocblas_status_success;
}
RB_API rocblas_status rocsolver_log_restore_defaults(void)
{
    return rocblas_status_success;
}
RB_API rocblas_status rocsolver_log_write_profile(void)
{
    return rocblas_status_success;
}
RB_API rocblas_status rocsolver_log_flush_profile(void)
{
    return rocblas_status_success;
}

static int rs_func_slot(rocsolver_function func)
{
    int i = (int)func - (int)rocsolver_function_bdsqr;
    return i >= 0 && i <= (int)(rocsolver_function_syev_heev - rocsolver_function_bdsqr) ? i : -1;
}

RB_API rocblas_status rocsolver_set_alg_mode(rocblas_handle handle, const rocsolver_function func,
                                             const rocsolver_alg_mode mode)
{
    if (rb_bad_handle(handle))
        return rocblas_status_invalid_handle;
    int slot = rs_func_slot(func);
    if (slot < 0 || (mode != rocsolver_alg_mode_gpu && mode != rocsolver_alg_mode_hybrid &&
                     mode != rocsolver_alg_mode_mixed))
        return rocblas_status_invalid_value;
    handle->solver_alg_mode[slot] = (int)mode;
    return rocblas_status_success;
}

RB_API rocblas_status rocsolver_get_alg_mode(rocblas_handle handle, const rocsolver_function func,
                                             rocsolver_alg_mode *mode)
{
    if (rb_bad_handle(handle))
        return rocblas_status_invalid_handle;
    int slot = rs_func_slot(func);
    if (slot < 0)
        return rocblas_status_invalid_value;
    if (!mode)
        return rocblas_status_invalid_pointer;
    int m = handle->solver_alg_mode[slot];
    *mode = m ? (rocsolver_alg_mode)m : rocsolver_alg_mode_gpu;
    return rocblas_status_success;
}

/* ---- sparse re-factorization info objects: the csrrf_* routines themselves are not
 * implemented on the CPU device, but the objects can be created and configured ---- */
struct rocsolver_rfinfo_ {
    rocblas_handle handle;
    rocsolver_rfinfo_mode mode;
};

RB_API rocblas_status rocsolver_create_rfinfo(rocsolver_rfinfo *rfinfo, rocblas_handle handle)
{
    if (rb_bad_handle(handle))
        return rocblas_status_invalid_handle;
    if (!rfinfo)
        return rocblas_status_invalid_pointer;
    struct rocsolver_rfinfo_ *r = calloc(1, sizeof *r);
    if (!r)
        return rocblas_status_memory_error;
    r->handle = handle;
    r->mode = rocsolver_rfinfo_mode_lu;
    *rfinfo = r;
    return rocblas_status_success;
}

RB_API rocblas_status rocsolver_destroy_rfinfo(rocsolver_rfinfo rfinfo)
{
    if (!rfinfo)
        return rocblas_status_invalid_pointer;
    free(rfinfo);
    return rocblas_status_success;
}

RB_API rocblas_status rocsolver_set_rfinfo_mode(rocsolver_rfinfo rfinfo,
                                                const rocsolver_rfinfo_mode mode)
{
    if (!rfinfo)
        return rocblas_status_invalid_pointer;
    if (mode != rocsolver_rfinfo_mode_lu && mode != rocsolver_rfinfo_mode_cholesky)
        return rocblas_status_invalid_value;
    rfinfo->mode = mode;
    return rocblas_status_success;
}

RB_API rocblas_status rocsolver_get_rfinfo_mode(rocsolver_rfinfo rfinfo,
                                                rocsolver_rfinfo_mode *mode)
{
    if (!rfinfo || !mode)
        return rocblas_status_invalid_pointer;
    *mode = rfinfo->mode;
    return rocblas_status_success;
}
