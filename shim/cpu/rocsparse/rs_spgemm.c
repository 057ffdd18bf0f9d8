/* SpGEMM of the generic API on the CPU device: C := alpha A B + beta D, CSR matrices in
 * f32/f64 real and complex, 32- or 64-bit indices, neither operand transposed (rocSPARSE's
 * own limits). Stages as rocSPARSE's: buffer size, nnz (fills C's row offsets and its nnz),
 * compute (fills C's column indices, sorted ascending as scipy's, and values).
 *
 * Gustavson's row-by-row product: the caller's buffer holds a per-column marker (the last
 * row that touched it) and a dense accumulator, so a row costs its products plus a sort of
 * its own columns. Values are accumulated in double complex whatever the type: exact for
 * f64, and f32 results are the f32 rounding of a more precise sum. */
#include <complex.h>
#include <stdlib.h>
#include <string.h>

#include "rs_internal.h"

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* the scratch the caller's buffer holds: marker[n], accumulator[n], columns[n] */
static size_t scratch_size(int64_t n)
{
    return (size_t)n * (2 * sizeof(int64_t) + sizeof(double complex)) + 64;
}

struct product {
    rocsparse_const_spmat_descr A, B, D;
    double complex alpha, beta;
    int64_t *marker, *cols;
    double complex *acc;
};

/* row i's distinct columns into p->cols (unsorted), values into p->acc when `values` */
static int64_t product_row(struct product *p, int64_t i, int values)
{
    int64_t count = 0;
    if (p->alpha != 0) {
        rocsparse_const_spmat_descr A = p->A, B = p->B;
        int64_t lo = rs_index(A->ptr, A->ptr_type, i) - A->base;
        int64_t hi = rs_index(A->ptr, A->ptr_type, i + 1) - A->base;
        for (int64_t ka = lo; ka < hi; ka++) {
            int64_t k = rs_index(A->ind, A->ind_type, ka) - A->base;
            double complex a = values ? p->alpha * load_value(A->val, A->data_type, ka) : 0;
            int64_t blo = rs_index(B->ptr, B->ptr_type, k) - B->base;
            int64_t bhi = rs_index(B->ptr, B->ptr_type, k + 1) - B->base;
            for (int64_t kb = blo; kb < bhi; kb++) {
                int64_t j = rs_index(B->ind, B->ind_type, kb) - B->base;
                if (p->marker[j] != i) {
                    p->marker[j] = i;
                    p->cols[count++] = j;
                    p->acc[j] = 0;
                }
                if (values)
                    p->acc[j] += a * load_value(B->val, B->data_type, kb);
            }
        }
    }
    if (p->D && p->beta != 0) {
        rocsparse_const_spmat_descr D = p->D;
        int64_t lo = rs_index(D->ptr, D->ptr_type, i) - D->base;
        int64_t hi = rs_index(D->ptr, D->ptr_type, i + 1) - D->base;
        for (int64_t kd = lo; kd < hi; kd++) {
            int64_t j = rs_index(D->ind, D->ind_type, kd) - D->base;
            if (p->marker[j] != i) {
                p->marker[j] = i;
                p->cols[count++] = j;
                p->acc[j] = 0;
            }
            if (values)
                p->acc[j] += p->beta * load_value(D->val, D->data_type, kd);
        }
    }
    return count;
}

static int csr_ok(rocsparse_const_spmat_descr d, rocsparse_datatype t)
{
    return d->format == rocsparse_format_csr && d->data_type == t;
}

RS_API rocsparse_status rocsparse_spgemm(rocsparse_handle handle, rocsparse_operation trans_A,
                                         rocsparse_operation trans_B, const void *alpha,
                                         rocsparse_const_spmat_descr A,
                                         rocsparse_const_spmat_descr B, const void *beta,
                                         rocsparse_const_spmat_descr D, rocsparse_spmat_descr C,
                                         rocsparse_datatype compute_type,
                                         rocsparse_spgemm_alg alg, rocsparse_spgemm_stage stage,
                                         size_t *buffer_size, void *temp_buffer)
{
    if (!handle || handle->magic != RS_HANDLE_MAGIC)
        return rocsparse_status_invalid_handle;
    if (!A || !rs_spmat_readable(A) || !B || !rs_spmat_readable(B) || !C ||
        C->magic != RS_SPMAT_MAGIC || (D && D != C && !rs_spmat_readable(D)))
        return rocsparse_status_invalid_pointer;
    if (alg != rocsparse_spgemm_alg_default)
        return rocsparse_status_invalid_value;
    if (trans_A != rocsparse_operation_none || trans_B != rocsparse_operation_none ||
        !rs_value_size(compute_type) || !csr_ok(A, compute_type) || !csr_ok(B, compute_type) ||
        !csr_ok(C, compute_type) || (D && !csr_ok(D, compute_type)))
        return rocsparse_status_not_implemented;
    int64_t m = A->rows, n = B->cols;
    if (A->cols != B->rows || C->rows != m || C->cols != n ||
        (D && (D->rows != m || D->cols != n)))
        return rocsparse_status_invalid_size;
    if (stage == rocsparse_spgemm_stage_buffer_size) {
        if (!buffer_size)
            return rocsparse_status_invalid_pointer;
        *buffer_size = scratch_size(n);
        return rocsparse_status_success;
    }
    if (stage != rocsparse_spgemm_stage_nnz && stage != rocsparse_spgemm_stage_compute)
        return rocsparse_status_not_implemented; /* symbolic / numeric: not on this device */
    if (!alpha || !beta || !temp_buffer)
        return rocsparse_status_invalid_pointer;
    struct product p = {A, B, D, load_value(alpha, compute_type, 0),
                        load_value(beta, compute_type, 0), NULL, NULL, NULL};
    if (p.alpha == 0 && p.beta == 0)
        return rocsparse_status_invalid_value;
    /* C as its own D would be read while written */
    if (D == C && p.beta != 0)
        return rocsparse_status_not_implemented;
    if (D == C)
        p.D = NULL;
    if (m > 0 && !C->ptr)
        return rocsparse_status_invalid_pointer;
    rocsparse_status st = rs_enter(handle);
    if (st != rocsparse_status_success)
        return st;
    /* the scratch, aligned for its widest member */
    uintptr_t at = ((uintptr_t)temp_buffer + 63) & ~(uintptr_t)63;
    p.acc = (double complex *)at;
    p.marker = (int64_t *)(p.acc + n);
    p.cols = p.marker + n;
    for (int64_t j = 0; j < n; j++)
        p.marker[j] = -1;
    int64_t base = C->base;
    if (stage == rocsparse_spgemm_stage_nnz) {
        int64_t nnz = 0;
        store_index(C->ptr, C->ptr_type, 0, base);
        for (int64_t i = 0; i < m; i++) {
            nnz += product_row(&p, i, 0);
            store_index(C->ptr, C->ptr_type, i + 1, nnz + base);
        }
        if (C->ptr_type == rocsparse_indextype_i32 && nnz > INT32_MAX)
            return rocsparse_status_invalid_size;
        C->nnz = nnz;
        return rocsparse_status_success;
    }
    if (C->nnz > 0 && (!C->ind || !C->val))
        return rocsparse_status_invalid_pointer;
    for (int64_t i = 0; i < m; i++) {
        int64_t at_row = rs_index(C->ptr, C->ptr_type, i) - base;
        int64_t count = product_row(&p, i, 1);
        /* a row offset array from another pattern: refused, not overrun */
        if (at_row < 0 || at_row + count > C->nnz ||
            rs_index(C->ptr, C->ptr_type, i + 1) - base != at_row + count)
            return rocsparse_status_invalid_value;
        qsort(p.cols, (size_t)count, sizeof *p.cols, cmp_i64);
        for (int64_t k = 0; k < count; k++) {
            store_index(C->ind, C->ind_type, at_row + k, p.cols[k] + base);
            store_value(C->val, C->data_type, at_row + k, p.acc[p.cols[k]]);
        }
    }
    return rocsparse_status_success;
}
