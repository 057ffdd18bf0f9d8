/* nnz_compress / csr2csr_compress on the CPU device: the entries of a CSR matrix whose
 * magnitude exceeds tol (the real part of a complex tol), kept in their order. The counts
 * per row come first (nnz_compress); the copy checks they still describe A. */
#include "rs_internal.h"

/* |v| > tol for tol >= 0, squared: no libm */
static int kept(double complex v, double tol)
{
    double re = creal(v), im = cimag(v);
    return re * re + im * im > tol * tol;
}

static rocsparse_status count(rocsparse_handle handle, rocsparse_int m,
                              const rocsparse_mat_descr descr, const void *val,
                              const rocsparse_int *ptr, rocsparse_int *per_row,
                              rocsparse_int *nnz_c, rocsparse_datatype t, double tol)
{
    if (!handle || handle->magic != RS_HANDLE_MAGIC)
        return rocsparse_status_invalid_handle;
    if (!descr || !nnz_c)
        return rocsparse_status_invalid_pointer;
    if (m < 0)
        return rocsparse_status_invalid_size;
    if (tol < 0)
        return rocsparse_status_invalid_value;
    if (m > 0 && (!ptr || !per_row))
        return rocsparse_status_invalid_pointer;
    rocsparse_status st = rs_enter(handle);
    if (st != rocsparse_status_success)
        return st;
    rocsparse_int base = (rocsparse_int)descr->base, total = 0;
    if (m > 0 && ptr[m] - ptr[0] > 0 && !val)
        return rocsparse_status_invalid_pointer;
    for (rocsparse_int r = 0; r < m; r++) {
        rocsparse_int c = 0;
        for (rocsparse_int k = ptr[r] - base; k < ptr[r + 1] - base; k++)
            c += kept(load_value(val, t, k), tol);
        per_row[r] = c;
        total += c;
    }
    *nnz_c = total;
    return rocsparse_status_success;
}

static rocsparse_status compress(rocsparse_handle handle, rocsparse_int m, rocsparse_int n,
                                 const rocsparse_mat_descr descr, const void *val_a,
                                 const rocsparse_int *ptr_a, const rocsparse_int *ind_a,
                                 rocsparse_int nnz_a, const rocsparse_int *per_row, void *val_c,
                                 rocsparse_int *ptr_c, rocsparse_int *ind_c,
                                 rocsparse_datatype t, double tol)
{
    if (!handle || handle->magic != RS_HANDLE_MAGIC)
        return rocsparse_status_invalid_handle;
    if (!descr)
        return rocsparse_status_invalid_pointer;
    if (m < 0 || n < 0 || nnz_a < 0)
        return rocsparse_status_invalid_size;
    if (tol < 0)
        return rocsparse_status_invalid_value;
    if (m == 0 || n == 0)
        return rocsparse_status_success;
    if (!ptr_a || !per_row || !ptr_c || (nnz_a > 0 && (!val_a || !ind_a)))
        return rocsparse_status_invalid_pointer;
    rocsparse_status st = rs_enter(handle);
    if (st != rocsparse_status_success)
        return st;
    rocsparse_int base = (rocsparse_int)descr->base, total = 0;
    for (rocsparse_int r = 0; r < m; r++) { /* the counts must be A's: checked first */
        rocsparse_int c = 0;
        for (rocsparse_int k = ptr_a[r] - base; k < ptr_a[r + 1] - base; k++)
            c += kept(load_value(val_a, t, k), tol);
        if (c != per_row[r])
            return rocsparse_status_invalid_value;
        total += c;
    }
    if (total > 0 && (!val_c || !ind_c))
        return rocsparse_status_invalid_pointer;
    rocsparse_int at = 0;
    ptr_c[0] = base;
    for (rocsparse_int r = 0; r < m; r++) {
        for (rocsparse_int k = ptr_a[r] - base; k < ptr_a[r + 1] - base; k++) {
            double complex v = load_value(val_a, t, k);
            if (kept(v, tol)) {
                ind_c[at] = ind_a[k];
                store_value(val_c, t, at++, v);
            }
        }
        ptr_c[r + 1] = at + base;
    }
    return rocsparse_status_success;
}

#define TYPED(P, VT, DT, TOL)                                                                \
    RS_API rocsparse_status rocsparse_##P##nnz_compress(                                     \
        rocsparse_handle handle, rocsparse_int m, const rocsparse_mat_descr descr_A,         \
        const VT *csr_val_A, const rocsparse_int *csr_row_ptr_A, rocsparse_int *nnz_per_row, \
        rocsparse_int *nnz_C, VT tol)                                                        \
    {                                                                                        \
        return count(handle, m, descr_A, csr_val_A, csr_row_ptr_A, nnz_per_row, nnz_C, DT,   \
                     TOL);                                                                   \
    }                                                                                        \
    RS_API rocsparse_status rocsparse_##P##csr2csr_compress(                                 \
        rocsparse_handle handle, rocsparse_int m, rocsparse_int n,                           \
        const rocsparse_mat_descr descr_A, const VT *csr_val_A,                              \
        const rocsparse_int *csr_row_ptr_A, const rocsparse_int *csr_col_ind_A,              \
        rocsparse_int nnz_A, const rocsparse_int *nnz_per_row, VT *csr_val_C,                \
        rocsparse_int *csr_row_ptr_C, rocsparse_int *csr_col_ind_C, VT tol)                  \
    {                                                                                        \
        return compress(handle, m, n, descr_A, csr_val_A, csr_row_ptr_A, csr_col_ind_A,      \
                        nnz_A, nnz_per_row, csr_val_C, csr_row_ptr_C, csr_col_ind_C, DT,     \
                        TOL);                                                                \
    }
TYPED(s, float, rocsparse_datatype_f32_r, tol)
TYPED(d, double, rocsparse_datatype_f64_r, tol)
TYPED(c, rocsparse_float_complex, rocsparse_datatype_f32_c, tol.x)
TYPED(z, rocsparse_double_complex, rocsparse_datatype_f64_c, tol.x)
