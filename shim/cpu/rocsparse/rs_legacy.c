/* The legacy index routines CuPy's sparse matrices lean on, on the CPU device: CSR -> CSC
 * transposition (csr2csc), sorting of CSR/CSC/COO indices with the permutation that sorts
 * their values, the identity permutation, and sparse vectors with gather (values picked
 * through that permutation). Sorts use the caller's buffer (device memory is host memory
 * here): one (key, position) pair per entry, keys ordering by (major, minor) index, ties
 * kept in their original order as cuSPARSE's documented results show. */
#include <stdlib.h>
#include <string.h>

#include "rs_internal.h"

struct keyed {
    int64_t key;
    int64_t at;
};

static int cmp_keyed(const void *a, const void *b)
{
    const struct keyed *x = a, *y = b;
    if (x->key != y->key)
        return (x->key > y->key) - (x->key < y->key);
    return (x->at > y->at) - (x->at < y->at);
}

static size_t sort_buffer(rocsparse_int nnz)
{
    return (size_t)(nnz > 0 ? nnz : 1) * sizeof(struct keyed) + 64;
}

static rocsparse_status sizes(rocsparse_handle handle, rocsparse_int m, rocsparse_int n,
                              rocsparse_int nnz)
{
    if (!handle || handle->magic != RS_HANDLE_MAGIC)
        return rocsparse_status_invalid_handle;
    return m < 0 || n < 0 || nnz < 0 ? rocsparse_status_invalid_size : rocsparse_status_success;
}

static struct keyed *scratch(void *buffer)
{
    return (struct keyed *)(((uintptr_t)buffer + 15) & ~(uintptr_t)15);
}

/* entries [0, nnz) reordered by key: `minor` and `perm` (when given) permuted, and `major`
 * when not NULL (COO) */
static void sort_entries(struct keyed *e, rocsparse_int nnz, rocsparse_int *major,
                         rocsparse_int *minor, rocsparse_int *perm)
{
    qsort(e, (size_t)nnz, sizeof *e, cmp_keyed);
    /* each array through the keyed scratch's `key` slot, which is no longer needed */
    rocsparse_int *arrays[3] = {major, minor, perm};
    for (int a = 0; a < 3; a++) {
        if (!arrays[a])
            continue;
        for (rocsparse_int k = 0; k < nnz; k++)
            e[k].key = arrays[a][e[k].at];
        for (rocsparse_int k = 0; k < nnz; k++)
            arrays[a][k] = (rocsparse_int)e[k].key;
    }
}

#define SORT_BUFFER_SIZE(NAME)                                                               \
    RS_API rocsparse_status NAME(rocsparse_handle handle, rocsparse_int m, rocsparse_int n,  \
                                 rocsparse_int nnz, const rocsparse_int *ptr,                \
                                 const rocsparse_int *ind, size_t *buffer_size)              \
    {                                                                                        \
        (void)ptr;                                                                           \
        (void)ind;                                                                           \
        rocsparse_status st = sizes(handle, m, n, nnz);                                      \
        if (st != rocsparse_status_success)                                                  \
            return st;                                                                       \
        if (!buffer_size)                                                                    \
            return rocsparse_status_invalid_pointer;                                         \
        *buffer_size = sort_buffer(nnz);                                                     \
        return rocsparse_status_success;                                                     \
    }
SORT_BUFFER_SIZE(rocsparse_csrsort_buffer_size)
SORT_BUFFER_SIZE(rocsparse_cscsort_buffer_size)
SORT_BUFFER_SIZE(rocsparse_coosort_buffer_size)

/* CSR (outer = m rows) or CSC (outer = n columns): indices sorted within each outer slice */
static rocsparse_status compressed_sort(rocsparse_handle handle, rocsparse_int m,
                                        rocsparse_int n, rocsparse_int nnz,
                                        const rocsparse_mat_descr descr,
                                        const rocsparse_int *ptr, rocsparse_int *ind,
                                        rocsparse_int *perm, void *buffer, rocsparse_int outer)
{
    rocsparse_status st = sizes(handle, m, n, nnz);
    if (st != rocsparse_status_success)
        return st;
    if (!descr)
        return rocsparse_status_invalid_pointer;
    if (nnz == 0 || outer == 0)
        return rocsparse_status_success;
    if (!ptr || !ind || !buffer)
        return rocsparse_status_invalid_pointer;
    if ((st = rs_enter(handle)) != rocsparse_status_success)
        return st;
    rocsparse_int base = descr->base;
    struct keyed *e = scratch(buffer);
    for (rocsparse_int o = 0; o < outer; o++) {
        rocsparse_int lo = ptr[o] - base, hi = ptr[o + 1] - base;
        if (lo < 0 || hi < lo || hi > nnz)
            return rocsparse_status_invalid_value;
        for (rocsparse_int k = lo; k < hi; k++)
            e[k] = (struct keyed){(int64_t)o << 32 | (uint32_t)ind[k], k};
    }
    sort_entries(e, nnz, NULL, ind, perm);
    return rocsparse_status_success;
}

RS_API rocsparse_status rocsparse_csrsort(rocsparse_handle handle, rocsparse_int m,
                                          rocsparse_int n, rocsparse_int nnz,
                                          const rocsparse_mat_descr descr,
                                          const rocsparse_int *csr_row_ptr,
                                          rocsparse_int *csr_col_ind, rocsparse_int *perm,
                                          void *temp_buffer)
{
    return compressed_sort(handle, m, n, nnz, descr, csr_row_ptr, csr_col_ind, perm,
                           temp_buffer, m);
}

RS_API rocsparse_status rocsparse_cscsort(rocsparse_handle handle, rocsparse_int m,
                                          rocsparse_int n, rocsparse_int nnz,
                                          const rocsparse_mat_descr descr,
                                          const rocsparse_int *csc_col_ptr,
                                          rocsparse_int *csc_row_ind, rocsparse_int *perm,
                                          void *temp_buffer)
{
    return compressed_sort(handle, m, n, nnz, descr, csc_col_ptr, csc_row_ind, perm,
                           temp_buffer, n);
}

static rocsparse_status coo_sort(rocsparse_handle handle, rocsparse_int m, rocsparse_int n,
                                 rocsparse_int nnz, rocsparse_int *major, rocsparse_int *minor,
                                 rocsparse_int *perm, void *buffer)
{
    rocsparse_status st = sizes(handle, m, n, nnz);
    if (st != rocsparse_status_success || nnz == 0)
        return st;
    if (!major || !minor || !buffer)
        return rocsparse_status_invalid_pointer;
    if ((st = rs_enter(handle)) != rocsparse_status_success)
        return st;
    struct keyed *e = scratch(buffer);
    for (rocsparse_int k = 0; k < nnz; k++)
        e[k] = (struct keyed){(int64_t)(uint32_t)major[k] << 32 | (uint32_t)minor[k], k};
    sort_entries(e, nnz, major, minor, perm);
    return rocsparse_status_success;
}

RS_API rocsparse_status rocsparse_coosort_by_row(rocsparse_handle handle, rocsparse_int m,
                                                 rocsparse_int n, rocsparse_int nnz,
                                                 rocsparse_int *coo_row_ind,
                                                 rocsparse_int *coo_col_ind,
                                                 rocsparse_int *perm, void *temp_buffer)
{
    return coo_sort(handle, m, n, nnz, coo_row_ind, coo_col_ind, perm, temp_buffer);
}

RS_API rocsparse_status rocsparse_coosort_by_column(rocsparse_handle handle, rocsparse_int m,
                                                    rocsparse_int n, rocsparse_int nnz,
                                                    rocsparse_int *coo_row_ind,
                                                    rocsparse_int *coo_col_ind,
                                                    rocsparse_int *perm, void *temp_buffer)
{
    return coo_sort(handle, m, n, nnz, coo_col_ind, coo_row_ind, perm, temp_buffer);
}

RS_API rocsparse_status rocsparse_create_identity_permutation(rocsparse_handle handle,
                                                              rocsparse_int n,
                                                              rocsparse_int *p)
{
    rocsparse_status st = sizes(handle, n, 0, 0);
    if (st != rocsparse_status_success || n == 0)
        return st;
    if (!p)
        return rocsparse_status_invalid_pointer;
    if ((st = rs_enter(handle)) != rocsparse_status_success)
        return st;
    for (rocsparse_int i = 0; i < n; i++)
        p[i] = i;
    return rocsparse_status_success;
}

/* ---- CSR -> CSC: rows stay sorted within each column (a counting sort by column) ---- */

RS_API rocsparse_status rocsparse_csr2csc_buffer_size(rocsparse_handle handle,
                                                      rocsparse_int m, rocsparse_int n,
                                                      rocsparse_int nnz,
                                                      const rocsparse_int *csr_row_ptr,
                                                      const rocsparse_int *csr_col_ind,
                                                      rocsparse_action copy_values,
                                                      size_t *buffer_size)
{
    (void)csr_row_ptr;
    (void)csr_col_ind;
    (void)copy_values;
    rocsparse_status st = sizes(handle, m, n, nnz);
    if (st != rocsparse_status_success)
        return st;
    if (!buffer_size)
        return rocsparse_status_invalid_pointer;
    *buffer_size = 4; /* no scratch needed: a nonzero size keeps callers' buffers non-NULL */
    return rocsparse_status_success;
}

static rocsparse_status csr2csc(rocsparse_handle handle, rocsparse_int m, rocsparse_int n,
                                rocsparse_int nnz, const void *csr_val,
                                const rocsparse_int *csr_row_ptr,
                                const rocsparse_int *csr_col_ind, void *csc_val,
                                rocsparse_int *csc_row_ind, rocsparse_int *csc_col_ptr,
                                rocsparse_action copy_values, rocsparse_index_base base,
                                size_t value_size)
{
    rocsparse_status st = sizes(handle, m, n, nnz);
    if (st != rocsparse_status_success)
        return st;
    if (base != rocsparse_index_base_zero && base != rocsparse_index_base_one)
        return rocsparse_status_invalid_value;
    if (copy_values != rocsparse_action_numeric && copy_values != rocsparse_action_symbolic)
        return rocsparse_status_invalid_value;
    if (m == 0 || n == 0)
        return rocsparse_status_success;
    int numeric = copy_values == rocsparse_action_numeric;
    if (!csr_row_ptr || !csc_col_ptr ||
        (nnz > 0 && (!csr_col_ind || !csc_row_ind || (numeric && (!csr_val || !csc_val)))))
        return rocsparse_status_invalid_pointer;
    if ((st = rs_enter(handle)) != rocsparse_status_success)
        return st;
    rocsparse_int b = (rocsparse_int)base;
    for (rocsparse_int k = 0; k < nnz; k++) /* validated before anything is written */
        if (csr_col_ind[k] - b < 0 || csr_col_ind[k] - b >= n)
            return rocsparse_status_invalid_value;
    memset(csc_col_ptr, 0, (size_t)(n + 1) * sizeof *csc_col_ptr);
    for (rocsparse_int k = 0; k < nnz; k++)
        csc_col_ptr[csr_col_ind[k] - b + 1]++;
    for (rocsparse_int c = 0; c < n; c++)
        csc_col_ptr[c + 1] += csc_col_ptr[c];
    /* csc_col_ptr[c] is column c's next free slot while scattering, then shifted back */
    for (rocsparse_int r = 0; r < m; r++)
        for (rocsparse_int k = csr_row_ptr[r] - b; k < csr_row_ptr[r + 1] - b; k++) {
            rocsparse_int at = csc_col_ptr[csr_col_ind[k] - b]++;
            csc_row_ind[at] = r + b;
            if (numeric)
                memcpy((char *)csc_val + (size_t)at * value_size,
                       (const char *)csr_val + (size_t)k * value_size, value_size);
        }
    for (rocsparse_int c = n; c > 0; c--)
        csc_col_ptr[c] = csc_col_ptr[c - 1] + b;
    csc_col_ptr[0] = b;
    return rocsparse_status_success;
}

#define CSR2CSC(NAME, VT)                                                                    \
    RS_API rocsparse_status NAME(rocsparse_handle handle, rocsparse_int m, rocsparse_int n,  \
                                 rocsparse_int nnz, const VT *csr_val,                       \
                                 const rocsparse_int *csr_row_ptr,                           \
                                 const rocsparse_int *csr_col_ind, VT *csc_val,              \
                                 rocsparse_int *csc_row_ind, rocsparse_int *csc_col_ptr,     \
                                 rocsparse_action copy_values,                               \
                                 rocsparse_index_base idx_base, void *temp_buffer)           \
    {                                                                                        \
        (void)temp_buffer;                                                                   \
        return csr2csc(handle, m, n, nnz, csr_val, csr_row_ptr, csr_col_ind, csc_val,        \
                       csc_row_ind, csc_col_ptr, copy_values, idx_base, sizeof(VT));         \
    }
CSR2CSC(rocsparse_scsr2csc, float)
CSR2CSC(rocsparse_dcsr2csc, double)
CSR2CSC(rocsparse_ccsr2csc, rocsparse_float_complex)
CSR2CSC(rocsparse_zcsr2csc, rocsparse_double_complex)

/* ---- sparse vectors and gather: x.values[i] := y[x.indices[i]] ---- */

RS_API rocsparse_status rocsparse_create_spvec_descr(rocsparse_spvec_descr *descr, int64_t size,
                                                     int64_t nnz, void *indices, void *values,
                                                     rocsparse_indextype idx_type,
                                                     rocsparse_index_base idx_base,
                                                     rocsparse_datatype data_type)
{
    if (!descr)
        return rocsparse_status_invalid_pointer;
    if (size < 0 || nnz < 0 || nnz > size)
        return rocsparse_status_invalid_size;
    if (idx_base != rocsparse_index_base_zero && idx_base != rocsparse_index_base_one)
        return rocsparse_status_invalid_value;
    if ((idx_type != rocsparse_indextype_i32 && idx_type != rocsparse_indextype_i64) ||
        !rs_value_size(data_type))
        return rocsparse_status_not_implemented;
    if (nnz > 0 && (!indices || !values))
        return rocsparse_status_invalid_pointer;
    struct _rocsparse_spvec_descr *d = calloc(1, sizeof *d);
    if (!d)
        return rocsparse_status_memory_error;
    *d = (struct _rocsparse_spvec_descr){RS_SPVEC_MAGIC, size, nnz, indices, values, idx_type,
                                         idx_base, data_type};
    *descr = d;
    return rocsparse_status_success;
}

RS_API rocsparse_status rocsparse_destroy_spvec_descr(rocsparse_const_spvec_descr descr)
{
    if (!descr || descr->magic != RS_SPVEC_MAGIC)
        return rocsparse_status_invalid_pointer;
    ((struct _rocsparse_spvec_descr *)descr)->magic = 0;
    free((void *)descr);
    return rocsparse_status_success;
}

RS_API rocsparse_status rocsparse_gather(rocsparse_handle handle, rocsparse_const_dnvec_descr y,
                                         rocsparse_spvec_descr x)
{
    if (!handle || handle->magic != RS_HANDLE_MAGIC)
        return rocsparse_status_invalid_handle;
    if (!y || y->magic != RS_DNVEC_MAGIC || !x || x->magic != RS_SPVEC_MAGIC)
        return rocsparse_status_invalid_pointer;
    if (x->data_type != y->data_type)
        return rocsparse_status_not_implemented;
    size_t vs = rs_value_size(x->data_type);
    for (int64_t i = 0; i < x->nnz; i++) { /* validated before anything is written */
        int64_t j = rs_index(x->idx, x->idx_type, i) - x->base;
        if (j < 0 || j >= y->size)
            return rocsparse_status_invalid_value;
    }
    rocsparse_status st = rs_enter(handle);
    if (st != rocsparse_status_success)
        return st;
    for (int64_t i = 0; i < x->nnz; i++) {
        int64_t j = rs_index(x->idx, x->idx_type, i) - x->base;
        memcpy((char *)x->val + (size_t)i * vs, (const char *)y->values + (size_t)j * vs, vs);
    }
    return rocsparse_status_success;
}
