/* The generic API's descriptors: sparse matrices (CSR, CSC, COO), dense vectors and dense
 * matrices. The CPU device computes in f32/f64 real and complex with 32/64-bit indices;
 * other types are refused at creation (rocsparse_status_not_implemented), not later. */
#include <stdlib.h>

#include "rs_internal.h"

size_t rs_value_size(rocsparse_datatype t)
{
    switch (t) {
    case rocsparse_datatype_f32_r: return 4;
    case rocsparse_datatype_f64_r: return 8;
    case rocsparse_datatype_f32_c: return 8;
    case rocsparse_datatype_f64_c: return 16;
    default: return 0;
    }
}

static int index_ok(rocsparse_indextype t)
{
    return t == rocsparse_indextype_i32 || t == rocsparse_indextype_i64;
}

static rocsparse_status spmat(rocsparse_spmat_descr *descr, rocsparse_format format,
                              int64_t rows, int64_t cols, int64_t nnz, void *ptr, void *ind,
                              void *val, rocsparse_indextype ptr_type,
                              rocsparse_indextype ind_type, rocsparse_index_base base,
                              rocsparse_datatype data_type)
{
    if (!descr)
        return rocsparse_status_invalid_pointer;
    if (rows < 0 || cols < 0 || nnz < 0)
        return rocsparse_status_invalid_size;
    if (base != rocsparse_index_base_zero && base != rocsparse_index_base_one)
        return rocsparse_status_invalid_value;
    if (!index_ok(ptr_type) || !index_ok(ind_type) || !rs_value_size(data_type))
        return rocsparse_status_not_implemented;
    /* indices and values once nnz > 0; offsets may follow later (cusparseCsrSetPointers)
     * for a matrix created empty, as SpGEMM's C is: routines reading one check it */
    if (nnz > 0 && (!ptr || !ind || !val))
        return rocsparse_status_invalid_pointer;
    struct _rocsparse_spmat_descr *d = calloc(1, sizeof *d);
    if (!d)
        return rocsparse_status_memory_error;
    *d = (struct _rocsparse_spmat_descr){RS_SPMAT_MAGIC, format, rows, cols, nnz, ptr, ind,
                                         val, ptr_type, ind_type, base, data_type,
                                         rocsparse_fill_mode_lower, rocsparse_diag_type_non_unit,
                                         rocsparse_matrix_type_general,
                                         rocsparse_storage_mode_sorted};
    *descr = d;
    return rocsparse_status_success;
}

RS_API rocsparse_status rocsparse_create_csr_descr(rocsparse_spmat_descr *descr, int64_t rows,
                                                   int64_t cols, int64_t nnz,
                                                   void *csr_row_ptr, void *csr_col_ind,
                                                   void *csr_val,
                                                   rocsparse_indextype row_ptr_type,
                                                   rocsparse_indextype col_ind_type,
                                                   rocsparse_index_base idx_base,
                                                   rocsparse_datatype data_type)
{
    return spmat(descr, rocsparse_format_csr, rows, cols, nnz, csr_row_ptr, csr_col_ind,
                 csr_val, row_ptr_type, col_ind_type, idx_base, data_type);
}

RS_API rocsparse_status rocsparse_create_csc_descr(rocsparse_spmat_descr *descr, int64_t rows,
                                                   int64_t cols, int64_t nnz,
                                                   void *csc_col_ptr, void *csc_row_ind,
                                                   void *csc_val,
                                                   rocsparse_indextype col_ptr_type,
                                                   rocsparse_indextype row_ind_type,
                                                   rocsparse_index_base idx_base,
                                                   rocsparse_datatype data_type)
{
    return spmat(descr, rocsparse_format_csc, rows, cols, nnz, csc_col_ptr, csc_row_ind,
                 csc_val, col_ptr_type, row_ind_type, idx_base, data_type);
}

RS_API rocsparse_status rocsparse_create_coo_descr(rocsparse_spmat_descr *descr, int64_t rows,
                                                   int64_t cols, int64_t nnz,
                                                   void *coo_row_ind, void *coo_col_ind,
                                                   void *coo_val, rocsparse_indextype idx_type,
                                                   rocsparse_index_base idx_base,
                                                   rocsparse_datatype data_type)
{
    return spmat(descr, rocsparse_format_coo, rows, cols, nnz, coo_row_ind, coo_col_ind,
                 coo_val, idx_type, idx_type, idx_base, data_type);
}

static int bad_spmat(const struct _rocsparse_spmat_descr *d)
{
    return !d || d->magic != RS_SPMAT_MAGIC;
}

RS_API rocsparse_status rocsparse_destroy_spmat_descr(rocsparse_const_spmat_descr descr)
{
    struct _rocsparse_spmat_descr *d = (struct _rocsparse_spmat_descr *)descr;
    if (bad_spmat(d))
        return rocsparse_status_invalid_pointer;
    d->magic = 0;
    free(d);
    return rocsparse_status_success;
}

RS_API rocsparse_status rocsparse_spmat_get_size(rocsparse_const_spmat_descr descr,
                                                 int64_t *rows, int64_t *cols, int64_t *nnz)
{
    if (bad_spmat(descr) || !rows || !cols || !nnz)
        return rocsparse_status_invalid_pointer;
    *rows = descr->rows;
    *cols = descr->cols;
    *nnz = descr->nnz;
    return rocsparse_status_success;
}

RS_API rocsparse_status rocsparse_spmat_get_format(rocsparse_const_spmat_descr descr,
                                                   rocsparse_format *format)
{
    if (bad_spmat(descr) || !format)
        return rocsparse_status_invalid_pointer;
    *format = descr->format;
    return rocsparse_status_success;
}

RS_API rocsparse_status rocsparse_spmat_get_values(rocsparse_spmat_descr descr, void **values)
{
    if (bad_spmat(descr) || !values)
        return rocsparse_status_invalid_pointer;
    *values = descr->val;
    return rocsparse_status_success;
}

RS_API rocsparse_status rocsparse_spmat_set_values(rocsparse_spmat_descr descr, void *values)
{
    if (bad_spmat(descr) || !values)
        return rocsparse_status_invalid_pointer;
    descr->val = values;
    return rocsparse_status_success;
}

RS_API rocsparse_status rocsparse_csr_get(const rocsparse_spmat_descr descr, int64_t *rows,
                                          int64_t *cols, int64_t *nnz, void **csr_row_ptr,
                                          void **csr_col_ind, void **csr_val,
                                          rocsparse_indextype *row_ptr_type,
                                          rocsparse_indextype *col_ind_type,
                                          rocsparse_index_base *idx_base,
                                          rocsparse_datatype *data_type)
{
    if (bad_spmat(descr) || !rows || !cols || !nnz || !csr_row_ptr || !csr_col_ind ||
        !csr_val || !row_ptr_type || !col_ind_type || !idx_base || !data_type)
        return rocsparse_status_invalid_pointer;
    if (descr->format != rocsparse_format_csr)
        return rocsparse_status_invalid_value;
    *rows = descr->rows;
    *cols = descr->cols;
    *nnz = descr->nnz;
    *csr_row_ptr = descr->ptr;
    *csr_col_ind = descr->ind;
    *csr_val = descr->val;
    *row_ptr_type = descr->ptr_type;
    *col_ind_type = descr->ind_type;
    *idx_base = descr->base;
    *data_type = descr->data_type;
    return rocsparse_status_success;
}

RS_API rocsparse_status rocsparse_coo_get(const rocsparse_spmat_descr descr, int64_t *rows,
                                          int64_t *cols, int64_t *nnz, void **coo_row_ind,
                                          void **coo_col_ind, void **coo_val,
                                          rocsparse_indextype *idx_type,
                                          rocsparse_index_base *idx_base,
                                          rocsparse_datatype *data_type)
{
    if (bad_spmat(descr) || !rows || !cols || !nnz || !coo_row_ind || !coo_col_ind ||
        !coo_val || !idx_type || !idx_base || !data_type)
        return rocsparse_status_invalid_pointer;
    if (descr->format != rocsparse_format_coo)
        return rocsparse_status_invalid_value;
    *rows = descr->rows;
    *cols = descr->cols;
    *nnz = descr->nnz;
    *coo_row_ind = descr->ptr;
    *coo_col_ind = descr->ind;
    *coo_val = descr->val;
    *idx_type = descr->ind_type;
    *idx_base = descr->base;
    *data_type = descr->data_type;
    return rocsparse_status_success;
}

/* Attributes are enums of rocsparse-types.h, passed by address with their size; a value
 * outside its enum is refused before anything is stored. */
static int attribute_ok(rocsparse_spmat_attribute a, int v)
{
    switch (a) {
    case rocsparse_spmat_fill_mode: return v == rocsparse_fill_mode_lower ||
                                           v == rocsparse_fill_mode_upper;
    case rocsparse_spmat_diag_type: return v == rocsparse_diag_type_non_unit ||
                                           v == rocsparse_diag_type_unit;
    case rocsparse_spmat_matrix_type: return v >= rocsparse_matrix_type_general &&
                                             v <= rocsparse_matrix_type_triangular;
    case rocsparse_spmat_storage_mode: return v == rocsparse_storage_mode_sorted ||
                                              v == rocsparse_storage_mode_unsorted;
    default: return 0;
    }
}

static int *attribute_field(struct _rocsparse_spmat_descr *d, rocsparse_spmat_attribute a)
{
    switch (a) {
    case rocsparse_spmat_fill_mode: return (int *)&d->fill;
    case rocsparse_spmat_diag_type: return (int *)&d->diag;
    case rocsparse_spmat_matrix_type: return (int *)&d->matrix_type;
    case rocsparse_spmat_storage_mode: return (int *)&d->storage;
    default: return NULL;
    }
}

_Static_assert(sizeof(rocsparse_fill_mode) == sizeof(int) &&
                   sizeof(rocsparse_diag_type) == sizeof(int) &&
                   sizeof(rocsparse_matrix_type) == sizeof(int) &&
                   sizeof(rocsparse_storage_mode) == sizeof(int),
               "the attribute enums are int-sized");

RS_API rocsparse_status rocsparse_spmat_get_attribute(rocsparse_const_spmat_descr descr,
                                                      rocsparse_spmat_attribute attribute,
                                                      void *data, size_t data_size)
{
    if (bad_spmat(descr) || !data)
        return rocsparse_status_invalid_pointer;
    int *f = attribute_field((struct _rocsparse_spmat_descr *)descr, attribute);
    if (!f)
        return rocsparse_status_invalid_value;
    if (data_size != sizeof(int))
        return rocsparse_status_invalid_size;
    *(int *)data = *f;
    return rocsparse_status_success;
}

RS_API rocsparse_status rocsparse_spmat_set_attribute(rocsparse_spmat_descr descr,
                                                      rocsparse_spmat_attribute attribute,
                                                      const void *data, size_t data_size)
{
    if (bad_spmat(descr) || !data)
        return rocsparse_status_invalid_pointer;
    int *f = attribute_field(descr, attribute);
    if (!f)
        return rocsparse_status_invalid_value;
    if (data_size != sizeof(int))
        return rocsparse_status_invalid_size;
    int v = *(const int *)data;
    if (!attribute_ok(attribute, v))
        return rocsparse_status_invalid_value;
    *f = v;
    return rocsparse_status_success;
}

RS_API rocsparse_status rocsparse_create_dnvec_descr(rocsparse_dnvec_descr *descr, int64_t size,
                                                     void *values,
                                                     rocsparse_datatype data_type)
{
    if (!descr || (size > 0 && !values))
        return rocsparse_status_invalid_pointer;
    if (size < 0)
        return rocsparse_status_invalid_size;
    if (!rs_value_size(data_type))
        return rocsparse_status_not_implemented;
    struct _rocsparse_dnvec_descr *d = calloc(1, sizeof *d);
    if (!d)
        return rocsparse_status_memory_error;
    *d = (struct _rocsparse_dnvec_descr){RS_DNVEC_MAGIC, size, values, data_type};
    *descr = d;
    return rocsparse_status_success;
}

static int bad_dnvec(const struct _rocsparse_dnvec_descr *d)
{
    return !d || d->magic != RS_DNVEC_MAGIC;
}

RS_API rocsparse_status rocsparse_destroy_dnvec_descr(rocsparse_const_dnvec_descr descr)
{
    struct _rocsparse_dnvec_descr *d = (struct _rocsparse_dnvec_descr *)descr;
    if (bad_dnvec(d))
        return rocsparse_status_invalid_pointer;
    d->magic = 0;
    free(d);
    return rocsparse_status_success;
}

RS_API rocsparse_status rocsparse_dnvec_get_values(const rocsparse_dnvec_descr descr,
                                                   void **values)
{
    if (bad_dnvec(descr) || !values)
        return rocsparse_status_invalid_pointer;
    *values = descr->values;
    return rocsparse_status_success;
}

RS_API rocsparse_status rocsparse_dnvec_set_values(rocsparse_dnvec_descr descr, void *values)
{
    if (bad_dnvec(descr) || !values)
        return rocsparse_status_invalid_pointer;
    descr->values = values;
    return rocsparse_status_success;
}

RS_API rocsparse_status rocsparse_create_dnmat_descr(rocsparse_dnmat_descr *descr, int64_t rows,
                                                     int64_t cols, int64_t ld, void *values,
                                                     rocsparse_datatype data_type,
                                                     rocsparse_order order)
{
    if (!descr || (rows > 0 && cols > 0 && !values))
        return rocsparse_status_invalid_pointer;
    if (order != rocsparse_order_row && order != rocsparse_order_column)
        return rocsparse_status_invalid_value;
    int64_t lead = order == rocsparse_order_column ? rows : cols;
    if (rows < 0 || cols < 0 || ld < (lead > 1 ? lead : 1))
        return rocsparse_status_invalid_size;
    if (!rs_value_size(data_type))
        return rocsparse_status_not_implemented;
    struct _rocsparse_dnmat_descr *d = calloc(1, sizeof *d);
    if (!d)
        return rocsparse_status_memory_error;
    *d = (struct _rocsparse_dnmat_descr){RS_DNMAT_MAGIC, rows, cols, ld, values, data_type,
                                         order, 1, 0};
    *descr = d;
    return rocsparse_status_success;
}

static int bad_dnmat(const struct _rocsparse_dnmat_descr *d)
{
    return !d || d->magic != RS_DNMAT_MAGIC;
}

RS_API rocsparse_status rocsparse_destroy_dnmat_descr(rocsparse_const_dnmat_descr descr)
{
    struct _rocsparse_dnmat_descr *d = (struct _rocsparse_dnmat_descr *)descr;
    if (bad_dnmat(d))
        return rocsparse_status_invalid_pointer;
    d->magic = 0;
    free(d);
    return rocsparse_status_success;
}

RS_API rocsparse_status rocsparse_dnmat_get_values(const rocsparse_dnmat_descr descr,
                                                   void **values)
{
    if (bad_dnmat(descr) || !values)
        return rocsparse_status_invalid_pointer;
    *values = descr->values;
    return rocsparse_status_success;
}

RS_API rocsparse_status rocsparse_dnmat_set_values(rocsparse_dnmat_descr descr, void *values)
{
    if (bad_dnmat(descr) || !values)
        return rocsparse_status_invalid_pointer;
    descr->values = values;
    return rocsparse_status_success;
}

/* arrays set after creation (SpGEMM's C, DenseToSparse's B once their nnz is known) */
static rocsparse_status set_pointers(rocsparse_spmat_descr d, rocsparse_format format,
                                     void *ptr, void *ind, void *val)
{
    if (!d || d->magic != RS_SPMAT_MAGIC)
        return rocsparse_status_invalid_pointer;
    if (d->format != format)
        return rocsparse_status_invalid_value;
    if (d->nnz > 0 && (!ptr || !ind || !val))
        return rocsparse_status_invalid_pointer;
    d->ptr = ptr;
    d->ind = ind;
    d->val = val;
    return rocsparse_status_success;
}

RS_API rocsparse_status rocsparse_csr_set_pointers(rocsparse_spmat_descr descr,
                                                   void *csr_row_ptr, void *csr_col_ind,
                                                   void *csr_val)
{
    return set_pointers(descr, rocsparse_format_csr, csr_row_ptr, csr_col_ind, csr_val);
}

RS_API rocsparse_status rocsparse_csc_set_pointers(rocsparse_spmat_descr descr,
                                                   void *csc_col_ptr, void *csc_row_ind,
                                                   void *csc_val)
{
    return set_pointers(descr, rocsparse_format_csc, csc_col_ptr, csc_row_ind, csc_val);
}

RS_API rocsparse_status rocsparse_coo_set_pointers(rocsparse_spmat_descr descr,
                                                   void *coo_row_ind, void *coo_col_ind,
                                                   void *coo_val)
{
    return set_pointers(descr, rocsparse_format_coo, coo_row_ind, coo_col_ind, coo_val);
}
