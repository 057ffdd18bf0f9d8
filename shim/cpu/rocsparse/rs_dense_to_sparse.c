/* Dense -> sparse (CSR, CSC, COO) on the CPU device, rocSPARSE's three calls of one routine:
 * no buffer: size query; a buffer but no size pointer: analysis (B's nnz, and its offsets
 * for CSR/CSC); both: conversion into the arrays set on B since. Stored entries are the
 * nonzero ones, in row-major order for CSR and COO and column-major for CSC. */
#include "rs_internal.h"

static double complex entry(rocsparse_const_dnmat_descr A, int64_t r, int64_t c)
{
    int64_t at = A->order == rocsparse_order_column ? r + c * A->ld : r * A->ld + c;
    return load_value(A->values, A->data_type, at);
}

RS_API rocsparse_status rocsparse_dense_to_sparse(rocsparse_handle handle,
                                                  rocsparse_const_dnmat_descr mat_A,
                                                  rocsparse_spmat_descr mat_B,
                                                  rocsparse_dense_to_sparse_alg alg,
                                                  size_t *buffer_size, void *temp_buffer)
{
    if (!handle || handle->magic != RS_HANDLE_MAGIC)
        return rocsparse_status_invalid_handle;
    if (!mat_A || mat_A->magic != RS_DNMAT_MAGIC || !mat_B || mat_B->magic != RS_SPMAT_MAGIC)
        return rocsparse_status_invalid_pointer;
    if (alg != rocsparse_dense_to_sparse_alg_default)
        return rocsparse_status_invalid_value;
    if (mat_A->data_type != mat_B->data_type || !rs_value_size(mat_A->data_type) ||
        (mat_B->format != rocsparse_format_csr && mat_B->format != rocsparse_format_csc &&
         mat_B->format != rocsparse_format_coo))
        return rocsparse_status_not_implemented;
    int64_t m = mat_A->rows, n = mat_A->cols;
    if (mat_B->rows != m || mat_B->cols != n)
        return rocsparse_status_invalid_size;
    if (!temp_buffer) {
        if (!buffer_size)
            return rocsparse_status_invalid_pointer;
        *buffer_size = 0;
        return rocsparse_status_success;
    }
    int csc = mat_B->format == rocsparse_format_csc, coo = mat_B->format == rocsparse_format_coo;
    int64_t outer = csc ? n : m, inner = csc ? m : n;
    if (!coo && outer > 0 && !mat_B->ptr)
        return rocsparse_status_invalid_pointer;
    rocsparse_status st = rs_enter(handle);
    if (st != rocsparse_status_success)
        return st;
    int64_t base = mat_B->base;
    int convert = buffer_size != NULL;
    if (convert) { /* the arrays hold exactly the analysed count, or nothing is written */
        int64_t count = 0;
        for (int64_t o = 0; o < outer; o++)
            for (int64_t i = 0; i < inner; i++)
                count += (csc ? entry(mat_A, i, o) : entry(mat_A, o, i)) != 0;
        if (count != mat_B->nnz)
            return rocsparse_status_invalid_value;
        if (count > 0 && (!mat_B->ind || !mat_B->val || (coo && !mat_B->ptr)))
            return rocsparse_status_invalid_pointer;
    }
    int64_t k = 0;
    if (!coo)
        store_index(mat_B->ptr, mat_B->ptr_type, 0, base);
    for (int64_t o = 0; o < outer; o++) {
        for (int64_t i = 0; i < inner; i++) {
            double complex v = csc ? entry(mat_A, i, o) : entry(mat_A, o, i);
            if (v == 0)
                continue;
            if (convert) {
                if (coo)
                    store_index(mat_B->ptr, mat_B->ptr_type, k, o + base);
                store_index(mat_B->ind, mat_B->ind_type, k, i + base);
                store_value(mat_B->val, mat_B->data_type, k, v);
            }
            k++;
        }
        if (!coo)
            store_index(mat_B->ptr, mat_B->ptr_type, o + 1, k + base);
    }
    if (mat_B->ptr_type == rocsparse_indextype_i32 && k > INT32_MAX)
        return rocsparse_status_invalid_size;
    mat_B->nnz = k;
    return rocsparse_status_success;
}
