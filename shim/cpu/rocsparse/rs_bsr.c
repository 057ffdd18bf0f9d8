/* The CPU device's BSR routines: bsrmv, the triangular solves bsrsv/bsrsm with their
 * rocsparse_mat_info (analysis and zero pivots), and a dense matrix's strided batch.
 * Block k of a BSR matrix is bsr_val[k*bd*bd, (k+1)*bd*bd), its element (r, c) at r*bd + c
 * (rocsparse_direction_row) or c*bd + r (column). Solves take only the triangle the
 * descriptor's fill mode names (blocks on the other side and the diagonal block's other
 * half are ignored, as rocSPARSE does); a unit diagonal is not read. They run in double
 * complex in the caller's buffer, so that right-hand side and solution may alias. The zero
 * pivot is the first block row whose diagonal block is missing (analysis) or holds a zero
 * on its diagonal (solve), for a non-unit diagonal. */
#include <stdlib.h>

#include "rs_internal.h"

RS_API rocsparse_status rocsparse_create_mat_info(rocsparse_mat_info *info)
{
    if (!info)
        return rocsparse_status_invalid_pointer;
    struct _rocsparse_mat_info *p = calloc(1, sizeof *p);
    if (!p)
        return rocsparse_status_memory_error;
    *p = (struct _rocsparse_mat_info){.magic = RS_INFO_MAGIC, .sv_pivot = -1, .sm_pivot = -1,
                                        .ilu_pivot = -1, .ic_pivot = -1, .bsrilu_pivot = -1,
                                        .bsric_pivot = -1};
    *info = p;
    return rocsparse_status_success;
}

RS_API rocsparse_status rocsparse_destroy_mat_info(rocsparse_mat_info info)
{
    if (rs_bad_info(info))
        return rocsparse_status_invalid_pointer;
    info->magic = 0;
    free(info);
    return rocsparse_status_success;
}

/* ---- the matrix and its checks ---- */

struct bsr {
    rocsparse_direction dir;
    rocsparse_int mb, nb, bd, base;
    const rocsparse_int *ptr, *col;
    const void *val;
    rocsparse_datatype type;
};

static double complex at(const struct bsr *a, int64_t k, int64_t r, int64_t c, int cj)
{
    int64_t in = a->dir == rocsparse_direction_row ? r * a->bd + c : c * a->bd + r;
    double complex v = load_value(a->val, a->type, k * a->bd * a->bd + in);
    return cj ? conj(v) : v;
}

/* the block column of entry k, -1 outside [0, nb) */
static int64_t block_col(const struct bsr *a, int64_t k)
{
    int64_t j = (int64_t)a->col[k] - a->base;
    return j >= 0 && j < a->nb ? j : -1;
}

static rocsparse_status check(rocsparse_handle handle, rocsparse_direction dir,
                              rocsparse_operation trans, rocsparse_int mb, rocsparse_int nb,
                              rocsparse_int nnzb, const rocsparse_mat_descr descr,
                              const void *val, const rocsparse_int *ptr,
                              const rocsparse_int *col, rocsparse_int bd, rocsparse_datatype t,
                              struct bsr *out)
{
    if (!handle || handle->magic != RS_HANDLE_MAGIC)
        return rocsparse_status_invalid_handle;
    if (!descr || descr->magic != RS_MAT_MAGIC)
        return rocsparse_status_invalid_pointer;
    if (dir != rocsparse_direction_row && dir != rocsparse_direction_column)
        return rocsparse_status_invalid_value;
    if (trans != rocsparse_operation_none && trans != rocsparse_operation_transpose &&
        trans != rocsparse_operation_conjugate_transpose)
        return rocsparse_status_invalid_value;
    if (mb < 0 || nb < 0 || nnzb < 0 || bd <= 0)
        return rocsparse_status_invalid_size;
    if ((mb > 0 && !ptr) || (nnzb > 0 && (!val || !col)))
        return rocsparse_status_invalid_pointer;
    if (descr->type != rocsparse_matrix_type_general)
        return rocsparse_status_not_implemented;
    *out = (struct bsr){dir, mb, nb, bd, descr->base == rocsparse_index_base_one, ptr, col,
                        val, t};
    return rocsparse_status_success;
}

/* ---- bsrmv: y = alpha A x + beta y (rocSPARSE: non-transposed only) ---- */

static rocsparse_status bsrmv(rocsparse_handle handle, rocsparse_direction dir,
                              rocsparse_operation trans, rocsparse_int mb, rocsparse_int nb,
                              rocsparse_int nnzb, const void *alpha,
                              const rocsparse_mat_descr descr, const void *val,
                              const rocsparse_int *ptr, const rocsparse_int *col,
                              rocsparse_int bd, rocsparse_mat_info info, const void *x,
                              const void *beta, void *y, rocsparse_datatype t)
{
    struct bsr a;
    rocsparse_status st = check(handle, dir, trans, mb, nb, nnzb, descr, val, ptr, col, bd,
                                t, &a);
    if (st != rocsparse_status_success)
        return st;
    /* the analysis info is optional (NULL runs without one) */
    if (info && rs_bad_info(info))
        return rocsparse_status_invalid_pointer;
    if (trans != rocsparse_operation_none)
        return rocsparse_status_not_implemented;
    if (!alpha || !beta || (mb > 0 && !y) || (nb > 0 && !x))
        return rocsparse_status_invalid_pointer;
    if ((st = rs_enter(handle)) != rocsparse_status_success)
        return st;
    double complex al = load_value(alpha, t, 0), be = load_value(beta, t, 0);
    for (int64_t i = 0; i < mb; i++)
        for (int64_t r = 0; r < bd; r++) {
            double complex s = 0;
            for (int64_t k = ptr[i] - a.base; k < ptr[i + 1] - a.base; k++) {
                int64_t j = block_col(&a, k);
                for (int64_t c = 0; j >= 0 && c < bd; c++)
                    s += at(&a, k, r, c, 0) * load_value(x, t, j * bd + c);
            }
            int64_t row = i * bd + r;
            /* beta == 0: y is not read, so NaNs in it do not propagate */
            store_value(y, t, row, al * s + (be == 0 ? 0 : be * load_value(y, t, row)));
        }
    return rocsparse_status_success;
}

/* ---- the triangular solve of one right-hand side, in place in z ---- */

/* the diagonal block of block row i, -1 when absent */
static int64_t diag_block(const struct bsr *a, int64_t i)
{
    for (int64_t k = a->ptr[i] - a->base; k < a->ptr[i + 1] - a->base; k++)
        if (block_col(a, k) == i)
            return k;
    return -1;
}

/* z = op(A)^-1 z over A's `lower` (else upper) triangle; *pivot lowered to the first
 * block row with a zero on its diagonal (non-unit) */
static void solve(const struct bsr *a, rocsparse_operation op, int lower, int unit,
                  double complex *z, rocsparse_int *pivot)
{
    int64_t mb = a->mb, bd = a->bd;
    int tr = op != rocsparse_operation_none, cj = op == rocsparse_operation_conjugate_transpose;
    /* op(A) is lower triangular when A is lower and not transposed, or upper and transposed:
     * block rows ascending, else descending */
    int forward = lower != tr;
    for (int64_t n = 0; n < mb; n++) {
        int64_t i = forward ? n : mb - 1 - n;
        double complex *zi = z + i * bd;
        int64_t kd = diag_block(a, i);
        if (!tr) /* gather the solved block rows this row references */
            for (int64_t k = a->ptr[i] - a->base; k < a->ptr[i + 1] - a->base; k++) {
                int64_t j = block_col(a, k);
                if (j < 0 || j == i || (lower ? j > i : j < i))
                    continue;
                for (int64_t r = 0; r < bd; r++)
                    for (int64_t c = 0; c < bd; c++)
                        zi[r] -= at(a, k, r, c, 0) * z[j * bd + c];
            }
        /* the diagonal block: element (r, c) of op(D) is D(r, c) or D(c, r) */
        for (int64_t m = 0; m < bd; m++) {
            int64_t r = forward ? m : bd - 1 - m;
            double complex s = zi[r];
            for (int64_t c = forward ? 0 : r + 1; kd >= 0 && c < (forward ? r : bd); c++)
                s -= (tr ? at(a, kd, c, r, cj) : at(a, kd, r, c, 0)) * zi[c];
            if (!unit) {
                double complex d = kd >= 0 ? at(a, kd, r, r, cj) : 0;
                if (d == 0 && (*pivot < 0 || i < *pivot))
                    *pivot = (rocsparse_int)i;
                s /= d;
            }
            zi[r] = s;
        }
        if (tr) /* scatter this solved block row into the rows op(A) has below it */
            for (int64_t k = a->ptr[i] - a->base; k < a->ptr[i + 1] - a->base; k++) {
                int64_t j = block_col(a, k);
                if (j < 0 || j == i || (lower ? j > i : j < i))
                    continue;
                for (int64_t c = 0; c < bd; c++)
                    for (int64_t r = 0; r < bd; r++)
                        z[j * bd + c] -= at(a, k, r, c, cj) * zi[r];
            }
    }
}

static size_t solve_buffer(rocsparse_int mb, rocsparse_int bd)
{
    return (size_t)(mb > 0 ? mb : 1) * (size_t)bd * sizeof(double complex) + 64;
}

static double complex *scratch(void *buffer)
{
    return (double complex *)(((uintptr_t)buffer + 15) & ~(uintptr_t)15);
}

/* structural zero pivot: the first block row without a diagonal block (non-unit) */
static rocsparse_int structural_pivot(const struct bsr *a, const rocsparse_mat_descr descr)
{
    if (descr->diag == rocsparse_diag_type_unit)
        return -1;
    for (int64_t i = 0; i < a->mb; i++)
        if (diag_block(a, i) < 0)
            return (rocsparse_int)i;
    return -1;
}

static rocsparse_status zero_pivot(rocsparse_handle handle, rocsparse_mat_info info,
                                   rocsparse_int *position, int sm)
{
    if (!handle || handle->magic != RS_HANDLE_MAGIC)
        return rocsparse_status_invalid_handle;
    if (rs_bad_info(info) || !position)
        return rocsparse_status_invalid_pointer;
    rocsparse_status st = rs_enter(handle);
    if (st != rocsparse_status_success)
        return st;
    /* host or device position: both are host memory here */
    *position = sm ? info->sm_pivot : info->sv_pivot;
    return *position >= 0 ? rocsparse_status_zero_pivot : rocsparse_status_success;
}

RS_API rocsparse_status rocsparse_bsrsv_zero_pivot(rocsparse_handle handle,
                                                   rocsparse_mat_info info,
                                                   rocsparse_int *position)
{
    return zero_pivot(handle, info, position, 0);
}

RS_API rocsparse_status rocsparse_bsrsm_zero_pivot(rocsparse_handle handle,
                                                   rocsparse_mat_info info,
                                                   rocsparse_int *position)
{
    return zero_pivot(handle, info, position, 1);
}

static rocsparse_status clear(rocsparse_handle handle, rocsparse_mat_info info, int sm)
{
    if (!handle || handle->magic != RS_HANDLE_MAGIC)
        return rocsparse_status_invalid_handle;
    if (rs_bad_info(info))
        return rocsparse_status_invalid_pointer;
    *(sm ? &info->sm_pivot : &info->sv_pivot) = -1;
    return rocsparse_status_success;
}

RS_API rocsparse_status rocsparse_bsrsv_clear(rocsparse_handle handle, rocsparse_mat_info info)
{
    return clear(handle, info, 0);
}

RS_API rocsparse_status rocsparse_bsrsm_clear(rocsparse_handle handle, rocsparse_mat_info info)
{
    return clear(handle, info, 1);
}

/* ---- bsrsv: op(A) y = alpha x; bsrsm: op(A) op(X) = alpha op(B) ---- */

/* the checks every stage shares; nrhs < 0 for bsrsv */
static rocsparse_status stage_check(rocsparse_handle handle, rocsparse_direction dir,
                                    rocsparse_operation trans, rocsparse_operation trans_x,
                                    rocsparse_int mb, rocsparse_int nrhs, rocsparse_int nnzb,
                                    const rocsparse_mat_descr descr, const void *val,
                                    const rocsparse_int *ptr, const rocsparse_int *col,
                                    rocsparse_int bd, rocsparse_mat_info info,
                                    rocsparse_datatype t, struct bsr *a)
{
    rocsparse_status st = check(handle, dir, trans, mb, mb, nnzb, descr, val, ptr, col, bd, t,
                                a);
    if (st != rocsparse_status_success)
        return st;
    if (rs_bad_info(info))
        return rocsparse_status_invalid_pointer;
    if (nrhs >= 0 && trans_x != rocsparse_operation_none &&
        trans_x != rocsparse_operation_transpose)
        return rocsparse_status_invalid_value;
    return rocsparse_status_success;
}

static rocsparse_status buffer_size(rocsparse_handle handle, rocsparse_direction dir,
                                    rocsparse_operation trans, rocsparse_operation trans_x,
                                    rocsparse_int mb, rocsparse_int nrhs, rocsparse_int nnzb,
                                    const rocsparse_mat_descr descr, const void *val,
                                    const rocsparse_int *ptr, const rocsparse_int *col,
                                    rocsparse_int bd, rocsparse_mat_info info, size_t *size,
                                    rocsparse_datatype t)
{
    struct bsr a;
    rocsparse_status st = stage_check(handle, dir, trans, trans_x, mb, nrhs, nnzb, descr, val,
                                      ptr, col, bd, info, t, &a);
    if (st != rocsparse_status_success)
        return st;
    if (!size)
        return rocsparse_status_invalid_pointer;
    *size = solve_buffer(mb, bd);
    return rocsparse_status_success;
}

static rocsparse_status analysis(rocsparse_handle handle, rocsparse_direction dir,
                                 rocsparse_operation trans, rocsparse_operation trans_x,
                                 rocsparse_int mb, rocsparse_int nrhs, rocsparse_int nnzb,
                                 const rocsparse_mat_descr descr, const void *val,
                                 const rocsparse_int *ptr, const rocsparse_int *col,
                                 rocsparse_int bd, rocsparse_mat_info info,
                                 rocsparse_datatype t)
{
    struct bsr a;
    rocsparse_status st = stage_check(handle, dir, trans, trans_x, mb, nrhs, nnzb, descr, val,
                                      ptr, col, bd, info, t, &a);
    if (st != rocsparse_status_success)
        return st;
    if ((st = rs_enter(handle)) != rocsparse_status_success)
        return st;
    *(nrhs >= 0 ? &info->sm_pivot : &info->sv_pivot) = structural_pivot(&a, descr);
    return rocsparse_status_success;
}

/* nrhs right-hand sides: element (row, j) of B at j*ldb + row, or row*ldb + j when
 * trans_x transposes; bsrsv is nrhs 1 with unit strides */
static rocsparse_status solve_stage(rocsparse_handle handle, rocsparse_direction dir,
                                    rocsparse_operation trans, rocsparse_operation trans_x,
                                    rocsparse_int mb, rocsparse_int nrhs, rocsparse_int nnzb,
                                    const void *alpha, const rocsparse_mat_descr descr,
                                    const void *val, const rocsparse_int *ptr,
                                    const rocsparse_int *col, rocsparse_int bd,
                                    rocsparse_mat_info info, const void *B, rocsparse_int ldb,
                                    void *X, rocsparse_int ldx, void *temp_buffer,
                                    rocsparse_datatype t)
{
    struct bsr a;
    rocsparse_status st = stage_check(handle, dir, trans, trans_x, mb, nrhs, nnzb, descr, val,
                                      ptr, col, bd, info, t, &a);
    if (st != rocsparse_status_success)
        return st;
    int sm = nrhs >= 0;
    int64_t n = (int64_t)mb * bd, cols = sm ? nrhs : 1;
    int tx = sm && trans_x == rocsparse_operation_transpose;
    if (sm) {
        int64_t lead = tx ? nrhs : n;
        if (ldb < (lead > 1 ? lead : 1) || ldx < (lead > 1 ? lead : 1))
            return rocsparse_status_invalid_size;
    }
    if (n == 0 || cols == 0)
        return rocsparse_status_success;
    if (!alpha || !B || !X || !temp_buffer)
        return rocsparse_status_invalid_pointer;
    if ((st = rs_enter(handle)) != rocsparse_status_success)
        return st;
    int64_t row_step = tx ? ldb : 1, col_step = tx ? 1 : ldb;
    int64_t xrow_step = tx ? ldx : 1, xcol_step = tx ? 1 : ldx;
    double complex al = load_value(alpha, t, 0), *z = scratch(temp_buffer);
    rocsparse_int *pivot = sm ? &info->sm_pivot : &info->sv_pivot;
    int lower = descr->fill == rocsparse_fill_mode_lower;
    int unit = descr->diag == rocsparse_diag_type_unit;
    for (int64_t j = 0; j < cols; j++) {
        for (int64_t r = 0; r < n; r++)
            z[r] = al * load_value(B, t, j * col_step + r * row_step);
        solve(&a, trans, lower, unit, z, pivot);
        for (int64_t r = 0; r < n; r++)
            store_value(X, t, j * xcol_step + r * xrow_step, z[r]);
    }
    return rocsparse_status_success;
}

#define BSR_TYPED(P, T, DT)                                                                  \
    RS_API rocsparse_status rocsparse_##P##bsrmv(                                            \
        rocsparse_handle handle, rocsparse_direction dir, rocsparse_operation trans,         \
        rocsparse_int mb, rocsparse_int nb, rocsparse_int nnzb, const T *alpha,              \
        const rocsparse_mat_descr descr, const T *bsr_val, const rocsparse_int *bsr_row_ptr,  \
        const rocsparse_int *bsr_col_ind, rocsparse_int block_dim, rocsparse_mat_info info,  \
        const T *x, const T *beta, T *y)                                                     \
    {                                                                                        \
        return bsrmv(handle, dir, trans, mb, nb, nnzb, alpha, descr, bsr_val, bsr_row_ptr,   \
                     bsr_col_ind, block_dim, info, x, beta, y, DT);                          \
    }                                                                                        \
    RS_API rocsparse_status rocsparse_##P##bsrsv_buffer_size(                                \
        rocsparse_handle handle, rocsparse_direction dir, rocsparse_operation trans,         \
        rocsparse_int mb, rocsparse_int nnzb, const rocsparse_mat_descr descr,               \
        const T *bsr_val, const rocsparse_int *bsr_row_ptr, const rocsparse_int *bsr_col_ind, \
        rocsparse_int block_dim, rocsparse_mat_info info, size_t *buffer_size_)              \
    {                                                                                        \
        return buffer_size(handle, dir, trans, rocsparse_operation_none, mb, -1, nnzb,       \
                           descr, bsr_val, bsr_row_ptr, bsr_col_ind, block_dim, info,        \
                           buffer_size_, DT);                                                \
    }                                                                                        \
    RS_API rocsparse_status rocsparse_##P##bsrsv_analysis(                                   \
        rocsparse_handle handle, rocsparse_direction dir, rocsparse_operation trans,         \
        rocsparse_int mb, rocsparse_int nnzb, const rocsparse_mat_descr descr,               \
        const T *bsr_val, const rocsparse_int *bsr_row_ptr, const rocsparse_int *bsr_col_ind, \
        rocsparse_int block_dim, rocsparse_mat_info info, rocsparse_analysis_policy policy,  \
        rocsparse_solve_policy solve_, void *temp_buffer)                                    \
    {                                                                                        \
        (void)policy, (void)solve_, (void)temp_buffer;                                       \
        return analysis(handle, dir, trans, rocsparse_operation_none, mb, -1, nnzb, descr,   \
                        bsr_val, bsr_row_ptr, bsr_col_ind, block_dim, info, DT);             \
    }                                                                                        \
    RS_API rocsparse_status rocsparse_##P##bsrsv_solve(                                      \
        rocsparse_handle handle, rocsparse_direction dir, rocsparse_operation trans,         \
        rocsparse_int mb, rocsparse_int nnzb, const T *alpha, const rocsparse_mat_descr descr, \
        const T *bsr_val, const rocsparse_int *bsr_row_ptr, const rocsparse_int *bsr_col_ind, \
        rocsparse_int block_dim, rocsparse_mat_info info, const T *x, T *y,                  \
        rocsparse_solve_policy policy, void *temp_buffer)                                    \
    {                                                                                        \
        (void)policy;                                                                        \
        return solve_stage(handle, dir, trans, rocsparse_operation_none, mb, -1, nnzb,       \
                           alpha, descr, bsr_val, bsr_row_ptr, bsr_col_ind, block_dim, info, \
                           x, 1, y, 1, temp_buffer, DT);                                     \
    }                                                                                        \
    RS_API rocsparse_status rocsparse_##P##bsrsm_buffer_size(                                \
        rocsparse_handle handle, rocsparse_direction dir, rocsparse_operation trans_A,       \
        rocsparse_operation trans_X, rocsparse_int mb, rocsparse_int nrhs,                   \
        rocsparse_int nnzb, const rocsparse_mat_descr descr, const T *bsr_val,               \
        const rocsparse_int *bsr_row_ptr, const rocsparse_int *bsr_col_ind,                  \
        rocsparse_int block_dim, rocsparse_mat_info info, size_t *buffer_size_)              \
    {                                                                                        \
        if (nrhs < 0)                                                                        \
            return rocsparse_status_invalid_size;                                            \
        return buffer_size(handle, dir, trans_A, trans_X, mb, nrhs, nnzb, descr, bsr_val,    \
                           bsr_row_ptr, bsr_col_ind, block_dim, info, buffer_size_, DT);     \
    }                                                                                        \
    RS_API rocsparse_status rocsparse_##P##bsrsm_analysis(                                   \
        rocsparse_handle handle, rocsparse_direction dir, rocsparse_operation trans_A,       \
        rocsparse_operation trans_X, rocsparse_int mb, rocsparse_int nrhs,                   \
        rocsparse_int nnzb, const rocsparse_mat_descr descr, const T *bsr_val,               \
        const rocsparse_int *bsr_row_ptr, const rocsparse_int *bsr_col_ind,                  \
        rocsparse_int block_dim, rocsparse_mat_info info, rocsparse_analysis_policy policy,  \
        rocsparse_solve_policy solve_, void *temp_buffer)                                    \
    {                                                                                        \
        (void)policy, (void)solve_, (void)temp_buffer;                                       \
        if (nrhs < 0)                                                                        \
            return rocsparse_status_invalid_size;                                            \
        return analysis(handle, dir, trans_A, trans_X, mb, nrhs, nnzb, descr, bsr_val,       \
                        bsr_row_ptr, bsr_col_ind, block_dim, info, DT);                      \
    }                                                                                        \
    RS_API rocsparse_status rocsparse_##P##bsrsm_solve(                                      \
        rocsparse_handle handle, rocsparse_direction dir, rocsparse_operation trans_A,       \
        rocsparse_operation trans_X, rocsparse_int mb, rocsparse_int nrhs,                   \
        rocsparse_int nnzb, const T *alpha, const rocsparse_mat_descr descr,                 \
        const T *bsr_val, const rocsparse_int *bsr_row_ptr, const rocsparse_int *bsr_col_ind, \
        rocsparse_int block_dim, rocsparse_mat_info info, const T *B, rocsparse_int ldb,     \
        T *X, rocsparse_int ldx, rocsparse_solve_policy policy, void *temp_buffer)           \
    {                                                                                        \
        (void)policy;                                                                        \
        if (nrhs < 0)                                                                        \
            return rocsparse_status_invalid_size;                                            \
        return solve_stage(handle, dir, trans_A, trans_X, mb, nrhs, nnzb, alpha, descr,      \
                           bsr_val, bsr_row_ptr, bsr_col_ind, block_dim, info, B, ldb, X,    \
                           ldx, temp_buffer, DT);                                            \
    }

BSR_TYPED(s, float, rocsparse_datatype_f32_r)
BSR_TYPED(d, double, rocsparse_datatype_f64_r)
BSR_TYPED(c, rocsparse_float_complex, rocsparse_datatype_f32_c)
BSR_TYPED(z, rocsparse_double_complex, rocsparse_datatype_f64_c)

/* ---- a dense matrix's strided batch ---- */

RS_API rocsparse_status rocsparse_dnmat_set_strided_batch(rocsparse_dnmat_descr descr,
                                                          rocsparse_int batch_count,
                                                          int64_t batch_stride)
{
    if (!descr || descr->magic != RS_DNMAT_MAGIC)
        return rocsparse_status_invalid_pointer;
    if (batch_count <= 0 || batch_stride < 0)
        return rocsparse_status_invalid_value;
    /* matrices of a batch do not overlap */
    int64_t one = descr->ld * (descr->order == rocsparse_order_column ? descr->cols
                                                                      : descr->rows);
    if (batch_count > 1 && batch_stride < one)
        return rocsparse_status_invalid_value;
    descr->batch_count = batch_count;
    descr->batch_stride = batch_stride;
    return rocsparse_status_success;
}

RS_API rocsparse_status rocsparse_dnmat_get_strided_batch(rocsparse_const_dnmat_descr descr,
                                                          rocsparse_int *batch_count,
                                                          int64_t *batch_stride)
{
    if (!descr || descr->magic != RS_DNMAT_MAGIC || !batch_count || !batch_stride)
        return rocsparse_status_invalid_pointer;
    *batch_count = descr->batch_count;
    *batch_stride = descr->batch_stride;
    return rocsparse_status_success;
}
