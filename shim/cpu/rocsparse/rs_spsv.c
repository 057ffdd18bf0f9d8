/* SpSV, SpSM and SpVV of the generic API on the CPU device.
 *
 * SpSV solves op(A) y = alpha x, SpSM op(A) C = alpha op(B), A square in CSR or COO, in
 * the triangle its fill-mode attribute names: stored entries of the other triangle are
 * ignored, and with a unit diagonal so are the stored diagonal entries, as rocSPARSE's
 * kernels do. Each compute call gathers op(A)'s triangle row by row (an O(nnz) pass, any
 * index widths, CSR or COO, duplicates summed), then substitutes forwards when op(A) is
 * lower triangular (lower and A as stored, or upper and transposed), backwards otherwise.
 * Row i reads x[i] before writing y[i] and only solved y[j] after, so x and y may be the
 * same array (and B and C, in one layout). A zero pivot is rocSPARSE's too: the solution
 * holds infinities or NaNs, the call succeeds. rocSPARSE's header allows trans_A and
 * trans_B none or transpose only; conjugate_transpose is not_implemented here as there.
 * The buffer-size stages ask for no workspace, preprocess only validates (the analysis
 * is this O(nnz) gather, redone per compute).
 *
 * SpVV: result := op(x) . y, x sparse, op none or conjugate_transpose (rocSPARSE's two);
 * a NULL temp_buffer is the size query. */
#include <complex.h>
#include <stdlib.h>

#include "rs_internal.h"

static int bad_spmat(rocsparse_const_spmat_descr d)
{
    return !d || !rs_spmat_readable(d);
}

/* op(A)'s triangle: off-diagonal entries as CSR rows, the diagonal apart */
struct tri {
    int64_t n;
    int64_t *ptr, *col;
    double complex *val, *diag;
    int forward; /* op(A) lower triangular: rows solved first to last */
};

static void tri_free(struct tri *t)
{
    free(t->ptr);
    free(t->col);
    free(t->val);
    free(t->diag);
}

/* entry k of A: row, column (base removed) */
static void entry(rocsparse_const_spmat_descr A, int64_t o, int64_t k, int64_t *r, int64_t *c)
{
    int64_t base = A->base;
    *r = A->format == rocsparse_format_coo ? rs_index(A->ptr, A->ptr_type, k) - base : o;
    *c = rs_index(A->ind, A->ind_type, k) - base;
}

/* pass 0 counts the entries of each row of op(A), pass 1 places them */
static void gather(rocsparse_const_spmat_descr A, int transposed, int pass, struct tri *t,
                   int64_t *fill)
{
    int lower = A->fill == rocsparse_fill_mode_lower;
    int unit = A->diag == rocsparse_diag_type_unit;
    int64_t outer = A->format == rocsparse_format_coo ? 1 : A->rows;
    for (int64_t o = 0; o < outer; o++) {
        int64_t lo = 0, hi = A->nnz;
        if (A->format != rocsparse_format_coo) {
            lo = rs_index(A->ptr, A->ptr_type, o) - A->base;
            hi = rs_index(A->ptr, A->ptr_type, o + 1) - A->base;
        }
        for (int64_t k = lo; k < hi; k++) {
            int64_t r, c;
            entry(A, o, k, &r, &c);
            if (r < 0 || r >= t->n || c < 0 || c >= t->n || (lower ? c > r : c < r))
                continue;
            if (r == c) {
                if (pass && !unit)
                    t->diag[r] += load_value(A->val, A->data_type, k);
                continue;
            }
            int64_t i = transposed ? c : r, j = transposed ? r : c;
            if (!pass) {
                t->ptr[i + 1]++;
                continue;
            }
            int64_t at = fill[i]++;
            t->col[at] = j;
            t->val[at] = load_value(A->val, A->data_type, k);
        }
    }
}

static rocsparse_status tri_build(rocsparse_const_spmat_descr A, int transposed, struct tri *t)
{
    int64_t n = A->rows;
    *t = (struct tri){n, calloc((size_t)n + 1, sizeof *t->ptr), NULL, NULL,
                      calloc((size_t)n + 1, sizeof *t->diag),
                      (A->fill == rocsparse_fill_mode_lower) != transposed};
    if (!t->ptr || !t->diag)
        goto oom;
    gather(A, transposed, 0, t, NULL);
    for (int64_t i = 0; i < n; i++)
        t->ptr[i + 1] += t->ptr[i];
    size_t m = (size_t)t->ptr[n] + 1;
    int64_t *fill = malloc(((size_t)n + 1) * sizeof *fill);
    t->col = malloc(m * sizeof *t->col);
    t->val = malloc(m * sizeof *t->val);
    if (!fill || !t->col || !t->val) {
        free(fill);
        goto oom;
    }
    for (int64_t i = 0; i < n; i++) {
        fill[i] = t->ptr[i];
        t->diag[i] = A->diag == rocsparse_diag_type_unit ? 1 : 0;
    }
    gather(A, transposed, 1, t, fill);
    free(fill);
    return rocsparse_status_success;
oom:
    tri_free(t);
    return rocsparse_status_memory_error;
}

/* a dense operand's element (i, j): vectors are ld = n, one column */
struct dense {
    void *values;
    rocsparse_datatype type;
    int64_t ld;
    int col_major, transposed;
};

static int64_t at(const struct dense *d, int64_t i, int64_t j)
{
    if (d->transposed) {
        int64_t t = i;
        i = j;
        j = t;
    }
    return d->col_major ? i + j * d->ld : i * d->ld + j;
}

/* column j of op(A) C = alpha op(B) */
static void substitute(const struct tri *t, double complex alpha, const struct dense *B,
                       const struct dense *C, int64_t j)
{
    for (int64_t s = 0; s < t->n; s++) {
        int64_t i = t->forward ? s : t->n - 1 - s;
        double complex acc = alpha * load_value(B->values, B->type, at(B, i, j));
        for (int64_t k = t->ptr[i]; k < t->ptr[i + 1]; k++)
            acc -= t->val[k] * load_value(C->values, C->type, at(C, t->col[k], j));
        store_value(C->values, C->type, at(C, i, j), acc / t->diag[i]);
    }
}

static rocsparse_status solve(rocsparse_handle handle, rocsparse_const_spmat_descr A,
                              rocsparse_operation trans, const void *alpha,
                              rocsparse_datatype type, const struct dense *B,
                              const struct dense *C, int64_t columns)
{
    rocsparse_status st = rs_enter(handle);
    if (st != rocsparse_status_success)
        return st;
    struct tri t;
    if ((st = tri_build(A, trans != rocsparse_operation_none, &t)))
        return st;
    double complex a = load_value(alpha, type, 0);
    for (int64_t j = 0; j < columns; j++)
        substitute(&t, a, B, C, j);
    tri_free(&t);
    return rocsparse_status_success;
}

/* what SpSV and SpSM check of A and the operation, in rocSPARSE's order of statuses */
static rocsparse_status check_triangular(rocsparse_const_spmat_descr A, rocsparse_operation op,
                                         rocsparse_datatype compute_type)
{
    if (op != rocsparse_operation_none && op != rocsparse_operation_transpose)
        return op == rocsparse_operation_conjugate_transpose ? rocsparse_status_not_implemented
                                                              : rocsparse_status_invalid_value;
    if (A->format != rocsparse_format_csr && A->format != rocsparse_format_coo)
        return rocsparse_status_not_implemented;
    if (A->data_type != compute_type || !rs_value_size(compute_type))
        return rocsparse_status_not_implemented;
    if (A->rows != A->cols)
        return rocsparse_status_invalid_size;
    return rocsparse_status_success;
}

/* the three stages' common ending: size query, validation-only preprocess, or compute */
static rocsparse_status stage_of(int stage, size_t *buffer_size, const void *alpha, int *compute)
{
    *compute = 0;
    switch (stage) {
    case 1: /* rocsparse_spsv_stage_buffer_size == rocsparse_spsm_stage_buffer_size */
        if (!buffer_size)
            return rocsparse_status_invalid_pointer;
        *buffer_size = 0;
        return rocsparse_status_success;
    case 2: return rocsparse_status_success;
    case 3:
        if (!alpha)
            return rocsparse_status_invalid_pointer;
        *compute = 1;
        return rocsparse_status_success;
    default: return rocsparse_status_invalid_value;
    }
}

_Static_assert(rocsparse_spsv_stage_buffer_size == 1 && rocsparse_spsv_stage_preprocess == 2 &&
                   rocsparse_spsv_stage_compute == 3 && rocsparse_spsm_stage_buffer_size == 1 &&
                   rocsparse_spsm_stage_preprocess == 2 && rocsparse_spsm_stage_compute == 3,
               "stage_of reads both stage enums");

RS_API rocsparse_status rocsparse_spsv(rocsparse_handle handle, rocsparse_operation trans,
                                       const void *alpha, rocsparse_const_spmat_descr mat,
                                       rocsparse_const_dnvec_descr x,
                                       const rocsparse_dnvec_descr y,
                                       rocsparse_datatype compute_type, rocsparse_spsv_alg alg,
                                       rocsparse_spsv_stage stage, size_t *buffer_size,
                                       void *temp_buffer)
{
    (void)temp_buffer;
    if (!handle || handle->magic != RS_HANDLE_MAGIC)
        return rocsparse_status_invalid_handle;
    if (bad_spmat(mat) || !x || x->magic != RS_DNVEC_MAGIC || !y || y->magic != RS_DNVEC_MAGIC)
        return rocsparse_status_invalid_pointer;
    if (alg != rocsparse_spsv_alg_default)
        return rocsparse_status_invalid_value;
    rocsparse_status st = check_triangular(mat, trans, compute_type);
    if (st != rocsparse_status_success)
        return st;
    if (x->data_type != compute_type || y->data_type != compute_type)
        return rocsparse_status_not_implemented;
    if (x->size != mat->rows || y->size != mat->rows)
        return rocsparse_status_invalid_size;
    int compute;
    if ((st = stage_of(stage, buffer_size, alpha, &compute)) || !compute)
        return st;
    struct dense b = {x->values, compute_type, x->size, 1, 0};
    struct dense c = {y->values, compute_type, y->size, 1, 0};
    return solve(handle, mat, trans, alpha, compute_type, &b, &c, 1);
}

RS_API rocsparse_status rocsparse_spsm(rocsparse_handle handle, rocsparse_operation trans_A,
                                       rocsparse_operation trans_B, const void *alpha,
                                       rocsparse_const_spmat_descr matA,
                                       rocsparse_const_dnmat_descr matB,
                                       const rocsparse_dnmat_descr matC,
                                       rocsparse_datatype compute_type, rocsparse_spsm_alg alg,
                                       rocsparse_spsm_stage stage, size_t *buffer_size,
                                       void *temp_buffer)
{
    (void)temp_buffer;
    if (!handle || handle->magic != RS_HANDLE_MAGIC)
        return rocsparse_status_invalid_handle;
    if (bad_spmat(matA) || !matB || matB->magic != RS_DNMAT_MAGIC || !matC ||
        matC->magic != RS_DNMAT_MAGIC)
        return rocsparse_status_invalid_pointer;
    if (alg != rocsparse_spsm_alg_default)
        return rocsparse_status_invalid_value;
    rocsparse_status st = check_triangular(matA, trans_A, compute_type);
    if (st == rocsparse_status_success && trans_B != rocsparse_operation_none &&
        trans_B != rocsparse_operation_transpose)
        st = trans_B == rocsparse_operation_conjugate_transpose
                 ? rocsparse_status_not_implemented
                 : rocsparse_status_invalid_value;
    if (st != rocsparse_status_success)
        return st;
    if (matB->data_type != compute_type || matC->data_type != compute_type)
        return rocsparse_status_not_implemented;
    int tb = trans_B == rocsparse_operation_transpose;
    int64_t m = matA->rows, n = matC->cols;
    if (matC->rows != m || (tb ? matB->cols : matB->rows) != m ||
        (tb ? matB->rows : matB->cols) != n)
        return rocsparse_status_invalid_size;
    int compute;
    if ((st = stage_of(stage, buffer_size, alpha, &compute)) || !compute)
        return st;
    struct dense b = {matB->values, compute_type, matB->ld,
                      matB->order == rocsparse_order_column, tb};
    struct dense c = {matC->values, compute_type, matC->ld,
                      matC->order == rocsparse_order_column, 0};
    return solve(handle, matA, trans_A, alpha, compute_type, &b, &c, n);
}

RS_API rocsparse_status rocsparse_spvv(rocsparse_handle handle, rocsparse_operation trans,
                                       rocsparse_const_spvec_descr x,
                                       rocsparse_const_dnvec_descr y, void *result,
                                       rocsparse_datatype compute_type, size_t *buffer_size,
                                       void *temp_buffer)
{
    if (!handle || handle->magic != RS_HANDLE_MAGIC)
        return rocsparse_status_invalid_handle;
    if (!x || x->magic != RS_SPVEC_MAGIC || !y || y->magic != RS_DNVEC_MAGIC || !result)
        return rocsparse_status_invalid_pointer;
    if (trans != rocsparse_operation_none && trans != rocsparse_operation_conjugate_transpose)
        return trans == rocsparse_operation_transpose ? rocsparse_status_not_implemented
                                                      : rocsparse_status_invalid_value;
    if (x->data_type != compute_type || y->data_type != compute_type ||
        !rs_value_size(compute_type))
        return rocsparse_status_not_implemented;
    if (x->size != y->size)
        return rocsparse_status_invalid_size;
    if (!temp_buffer) {
        if (!buffer_size)
            return rocsparse_status_invalid_pointer;
        *buffer_size = 0;
        return rocsparse_status_success;
    }
    rocsparse_status st = rs_enter(handle);
    if (st != rocsparse_status_success)
        return st;
    int conj_ = trans == rocsparse_operation_conjugate_transpose;
    double complex acc = 0;
    for (int64_t i = 0; i < x->nnz; i++) {
        int64_t j = rs_index(x->idx, x->idx_type, i) - x->base;
        if (j < 0 || j >= y->size)
            return rocsparse_status_invalid_value;
        double complex v = load_value(x->val, x->data_type, i);
        acc += (conj_ ? conj(v) : v) * load_value(y->values, y->data_type, j);
    }
    store_value(result, compute_type, 0, acc);
    return rocsparse_status_success;
}
