/* Handles, legacy matrix descriptors and the version query. */
#include <stdlib.h>

#include "rs_internal.h"

RS_API rocsparse_status rocsparse_create_handle(rocsparse_handle *handle)
{
    if (!handle)
        return rocsparse_status_invalid_pointer;
    struct _rocsparse_handle *h = calloc(1, sizeof *h);
    if (!h)
        return rocsparse_status_memory_error;
    h->magic = RS_HANDLE_MAGIC;
    h->pointer_mode = rocsparse_pointer_mode_host;
    *handle = h;
    return rocsparse_status_success;
}

static int bad_handle(rocsparse_handle h)
{
    return !h || h->magic != RS_HANDLE_MAGIC;
}

RS_API rocsparse_status rocsparse_destroy_handle(rocsparse_handle handle)
{
    if (bad_handle(handle))
        return rocsparse_status_invalid_handle;
    handle->magic = 0;
    free(handle);
    return rocsparse_status_success;
}

rocsparse_status rs_enter(rocsparse_handle h)
{
    if (bad_handle(h))
        return rocsparse_status_invalid_handle;
    return hipStreamSynchronize(h->stream) == hipSuccess ? rocsparse_status_success
                                                         : rocsparse_status_internal_error;
}

RS_API rocsparse_status rocsparse_set_stream(rocsparse_handle handle, hipStream_t stream)
{
    if (bad_handle(handle))
        return rocsparse_status_invalid_handle;
    handle->stream = stream;
    return rocsparse_status_success;
}

RS_API rocsparse_status rocsparse_get_stream(rocsparse_handle handle, hipStream_t *stream)
{
    if (bad_handle(handle))
        return rocsparse_status_invalid_handle;
    if (!stream)
        return rocsparse_status_invalid_pointer;
    *stream = handle->stream;
    return rocsparse_status_success;
}

RS_API rocsparse_status rocsparse_set_pointer_mode(rocsparse_handle handle,
                                                   rocsparse_pointer_mode mode)
{
    if (bad_handle(handle))
        return rocsparse_status_invalid_handle;
    if (mode != rocsparse_pointer_mode_host && mode != rocsparse_pointer_mode_device)
        return rocsparse_status_invalid_value;
    handle->pointer_mode = mode;
    return rocsparse_status_success;
}

RS_API rocsparse_status rocsparse_get_pointer_mode(rocsparse_handle handle,
                                                   rocsparse_pointer_mode *mode)
{
    if (bad_handle(handle))
        return rocsparse_status_invalid_handle;
    if (!mode)
        return rocsparse_status_invalid_pointer;
    *mode = handle->pointer_mode;
    return rocsparse_status_success;
}

RS_API rocsparse_status rocsparse_get_version(rocsparse_handle handle, int *version)
{
    if (bad_handle(handle))
        return rocsparse_status_invalid_handle;
    if (!version)
        return rocsparse_status_invalid_pointer;
    /* the rocSPARSE whose headers this library is built against */
    *version = ROCSPARSE_VERSION_MAJOR * 100000 + ROCSPARSE_VERSION_MINOR * 100 +
               ROCSPARSE_VERSION_PATCH;
    return rocsparse_status_success;
}

RS_API rocsparse_status rocsparse_create_mat_descr(rocsparse_mat_descr *descr)
{
    if (!descr)
        return rocsparse_status_invalid_pointer;
    struct _rocsparse_mat_descr *d = calloc(1, sizeof *d);
    if (!d)
        return rocsparse_status_memory_error;
    *d = (struct _rocsparse_mat_descr){RS_MAT_MAGIC, rocsparse_matrix_type_general,
                                       rocsparse_fill_mode_lower, rocsparse_diag_type_non_unit,
                                       rocsparse_index_base_zero};
    *descr = d;
    return rocsparse_status_success;
}

static int bad_mat(const struct _rocsparse_mat_descr *d)
{
    return !d || d->magic != RS_MAT_MAGIC;
}

RS_API rocsparse_status rocsparse_destroy_mat_descr(rocsparse_mat_descr descr)
{
    if (bad_mat(descr))
        return rocsparse_status_invalid_pointer;
    descr->magic = 0;
    free(descr);
    return rocsparse_status_success;
}

#define MAT_FIELD(NAME, FIELD, TYPE, LO, HI)                                                 \
    RS_API rocsparse_status rocsparse_set_mat_##NAME(rocsparse_mat_descr descr, TYPE v)      \
    {                                                                                        \
        if (bad_mat(descr))                                                                  \
            return rocsparse_status_invalid_pointer;                                         \
        if ((int)v < (int)(LO) || (int)v > (int)(HI))                                        \
            return rocsparse_status_invalid_value;                                           \
        descr->FIELD = v;                                                                    \
        return rocsparse_status_success;                                                     \
    }                                                                                        \
    RS_API TYPE rocsparse_get_mat_##NAME(const rocsparse_mat_descr descr)                     \
    {                                                                                        \
        return bad_mat(descr) ? (TYPE)(LO) : descr->FIELD;                                    \
    }

MAT_FIELD(type, type, rocsparse_matrix_type, rocsparse_matrix_type_general,
          rocsparse_matrix_type_triangular)
MAT_FIELD(fill_mode, fill, rocsparse_fill_mode, rocsparse_fill_mode_lower,
          rocsparse_fill_mode_upper)
MAT_FIELD(diag_type, diag, rocsparse_diag_type, rocsparse_diag_type_non_unit,
          rocsparse_diag_type_unit)
MAT_FIELD(index_base, base, rocsparse_index_base, rocsparse_index_base_zero,
          rocsparse_index_base_one)
