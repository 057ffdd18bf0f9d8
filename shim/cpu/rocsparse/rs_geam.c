/* C := alpha A + beta B for CSR matrices with sorted column indices (as both cuSPARSE's
 * csrgeam2 and rocSPARSE's csrgeam require), on the CPU device: csrgeam_nnz merges each
 * row's two column lists into C's row offsets and nnz; csrgeam merges again, adding where
 * both have an entry. Zero-sized matrices are a no-op. */
#include <string.h>

#include "rs_internal.h"

struct csr {
    const rocsparse_int *ptr, *ind;
    rocsparse_int base;
};

static struct csr csr_of(const rocsparse_mat_descr d, const rocsparse_int *ptr,
                         const rocsparse_int *ind)
{
    return (struct csr){ptr, ind, (rocsparse_int)d->base};
}

/* row r of A and B merged: the number of distinct columns; with `emit` the columns
 * (C's base) and, where `va` is given, alpha a + beta b (as double complex) */
static rocsparse_int merge_row(struct csr a, struct csr b, rocsparse_int r, rocsparse_int cbase,
                               rocsparse_int *cols, const void *va, const void *vb,
                               rocsparse_datatype t, double complex alpha,
                               double complex beta, void *vc, rocsparse_int at)
{
    rocsparse_int i = a.ptr[r] - a.base, ie = a.ptr[r + 1] - a.base;
    rocsparse_int j = b.ptr[r] - b.base, je = b.ptr[r + 1] - b.base;
    rocsparse_int count = 0;
    while (i < ie || j < je) {
        rocsparse_int ca = i < ie ? a.ind[i] - a.base : INT32_MAX;
        rocsparse_int cb = j < je ? b.ind[j] - b.base : INT32_MAX;
        rocsparse_int c = ca < cb ? ca : cb;
        double complex v = 0;
        if (ca == c) {
            if (va)
                v += alpha * load_value(va, t, i);
            i++;
        }
        if (cb == c) {
            if (vb)
                v += beta * load_value(vb, t, j);
            j++;
        }
        if (cols)
            cols[at + count] = c + cbase;
        if (vc)
            store_value(vc, t, at + count, v);
        count++;
    }
    return count;
}

static rocsparse_status check(rocsparse_handle handle, rocsparse_int m, rocsparse_int n,
                              const rocsparse_mat_descr da, rocsparse_int nnz_a,
                              const rocsparse_int *pa, const rocsparse_int *ia,
                              const rocsparse_mat_descr db, rocsparse_int nnz_b,
                              const rocsparse_int *pb, const rocsparse_int *ib,
                              const rocsparse_mat_descr dc, const void *pc)
{
    if (!handle || handle->magic != RS_HANDLE_MAGIC)
        return rocsparse_status_invalid_handle;
    if (!da || !db || !dc)
        return rocsparse_status_invalid_pointer;
    if (m < 0 || n < 0 || nnz_a < 0 || nnz_b < 0)
        return rocsparse_status_invalid_size;
    if (m == 0 || n == 0)
        return rocsparse_status_success;
    if (!pa || !pb || !pc || (nnz_a > 0 && !ia) || (nnz_b > 0 && !ib))
        return rocsparse_status_invalid_pointer;
    return rs_enter(handle);
}

RS_API rocsparse_status rocsparse_csrgeam_nnz(rocsparse_handle handle, rocsparse_int m,
                                              rocsparse_int n, const rocsparse_mat_descr descr_A,
                                              rocsparse_int nnz_A,
                                              const rocsparse_int *csr_row_ptr_A,
                                              const rocsparse_int *csr_col_ind_A,
                                              const rocsparse_mat_descr descr_B,
                                              rocsparse_int nnz_B,
                                              const rocsparse_int *csr_row_ptr_B,
                                              const rocsparse_int *csr_col_ind_B,
                                              const rocsparse_mat_descr descr_C,
                                              rocsparse_int *csr_row_ptr_C, rocsparse_int *nnz_C)
{
    rocsparse_status st = check(handle, m, n, descr_A, nnz_A, csr_row_ptr_A, csr_col_ind_A,
                                descr_B, nnz_B, csr_row_ptr_B, csr_col_ind_B, descr_C,
                                csr_row_ptr_C);
    if (!nnz_C && st == rocsparse_status_success)
        return rocsparse_status_invalid_pointer;
    if (st != rocsparse_status_success || m == 0 || n == 0) {
        if (st == rocsparse_status_success)
            *nnz_C = 0;
        return st;
    }
    struct csr a = csr_of(descr_A, csr_row_ptr_A, csr_col_ind_A);
    struct csr b = csr_of(descr_B, csr_row_ptr_B, csr_col_ind_B);
    rocsparse_int cbase = (rocsparse_int)descr_C->base, nnz = 0;
    csr_row_ptr_C[0] = cbase;
    for (rocsparse_int r = 0; r < m; r++) {
        nnz += merge_row(a, b, r, cbase, NULL, NULL, NULL, rocsparse_datatype_f64_r, 0, 0,
                         NULL, 0);
        csr_row_ptr_C[r + 1] = nnz + cbase;
    }
    *nnz_C = nnz;
    return rocsparse_status_success;
}

static rocsparse_status geam(rocsparse_handle handle, rocsparse_int m, rocsparse_int n,
                             rocsparse_datatype t, const void *alpha,
                             const rocsparse_mat_descr da, rocsparse_int nnz_a, const void *va,
                             const rocsparse_int *pa, const rocsparse_int *ia,
                             const void *beta, const rocsparse_mat_descr db,
                             rocsparse_int nnz_b, const void *vb, const rocsparse_int *pb,
                             const rocsparse_int *ib, const rocsparse_mat_descr dc, void *vc,
                             const rocsparse_int *pc, rocsparse_int *ic)
{
    rocsparse_status st = check(handle, m, n, da, nnz_a, pa, ia, db, nnz_b, pb, ib, dc, pc);
    if (st != rocsparse_status_success || m == 0 || n == 0)
        return st;
    if (!alpha || !beta)
        return rocsparse_status_invalid_pointer;
    struct csr a = csr_of(da, pa, ia), b = csr_of(db, pb, ib);
    rocsparse_int cbase = (rocsparse_int)dc->base;
    /* C's offsets must be this pattern's (from csrgeam_nnz): checked before writing */
    for (rocsparse_int r = 0; r < m; r++) {
        rocsparse_int count = merge_row(a, b, r, cbase, NULL, NULL, NULL, t, 0, 0, NULL, 0);
        if (pc[r + 1] - pc[r] != count || pc[r] - cbase < 0)
            return rocsparse_status_invalid_value;
    }
    if (pc[m] - cbase > 0 && (!ic || !vc || (nnz_a > 0 && !va) || (nnz_b > 0 && !vb)))
        return rocsparse_status_invalid_pointer;
    double complex al = load_value(alpha, t, 0), be = load_value(beta, t, 0);
    for (rocsparse_int r = 0; r < m; r++)
        merge_row(a, b, r, cbase, ic, va, vb, t, al, be, vc, pc[r] - cbase);
    return rocsparse_status_success;
}

#define GEAM(NAME, VT, DT)                                                                   \
    RS_API rocsparse_status NAME(                                                            \
        rocsparse_handle handle, rocsparse_int m, rocsparse_int n, const VT *alpha,          \
        const rocsparse_mat_descr descr_A, rocsparse_int nnz_A, const VT *csr_val_A,         \
        const rocsparse_int *csr_row_ptr_A, const rocsparse_int *csr_col_ind_A,              \
        const VT *beta, const rocsparse_mat_descr descr_B, rocsparse_int nnz_B,              \
        const VT *csr_val_B, const rocsparse_int *csr_row_ptr_B,                             \
        const rocsparse_int *csr_col_ind_B, const rocsparse_mat_descr descr_C, VT *csr_val_C, \
        const rocsparse_int *csr_row_ptr_C, rocsparse_int *csr_col_ind_C)                    \
    {                                                                                        \
        return geam(handle, m, n, DT, alpha, descr_A, nnz_A, csr_val_A, csr_row_ptr_A,       \
                    csr_col_ind_A, beta, descr_B, nnz_B, csr_val_B, csr_row_ptr_B,           \
                    csr_col_ind_B, descr_C, csr_val_C, csr_row_ptr_C, csr_col_ind_C);        \
    }
GEAM(rocsparse_scsrgeam, float, rocsparse_datatype_f32_r)
GEAM(rocsparse_dcsrgeam, double, rocsparse_datatype_f64_r)
GEAM(rocsparse_ccsrgeam, rocsparse_float_complex, rocsparse_datatype_f32_c)
GEAM(rocsparse_zcsrgeam, rocsparse_double_complex, rocsparse_datatype_f64_c)
