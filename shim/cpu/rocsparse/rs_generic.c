/* SpMV and SpMM of the generic API on the CPU device: CSR, CSC and COO matrices in
 * f32/f64 real and complex, 32- or 64-bit indices, any operation on A; SpMM's dense
 * operands in either order, B not transposed.
 *
 * y := alpha op(A) x + beta y and C := alpha op(A) B + beta C. With beta = 0 the output is
 * not read (NaNs there do not survive), as BLAS defines it. Each stored entry (r, c, v) of
 * A acts at (r, c) with v, or at (c, r) with v (transpose) or conj(v). A CSR matrix
 * without transposition accumulates a row at a time (a dot product per output), the
 * common case and scipy's loop. The buffer-size stage asks for no workspace. */
#include <complex.h>
#include <string.h>

#include "rs_internal.h"

static int bad_spmat(rocsparse_const_spmat_descr d)
{
    return !d || !rs_spmat_readable(d);
}

/* ---- per value type (VT) and index type (IT) kernels ---- */

#define CONJ_f32_r(v) (v)
#define CONJ_f64_r(v) (v)
#define CONJ_f32_c(v) conjf(v)
#define CONJ_f64_c(v) conj(v)

#define KERNELS(TAG, VT, IT)                                                                 \
    static void spmv_##TAG(rocsparse_const_spmat_descr A, rocsparse_operation op, VT alpha,  \
                           const VT *x, VT *y)                                               \
    {                                                                                        \
        const IT *ptr = A->ptr, *ind = A->ind;                                               \
        const VT *val = A->val;                                                              \
        IT base = (IT)A->base;                                                               \
        int conj_ = op == rocsparse_operation_conjugate_transpose;                          \
        /* CSC of A is CSR of A^T: swap the operation instead of the storage */              \
        int csr = A->format == rocsparse_format_csr;                                         \
        int row_major = csr ? op == rocsparse_operation_none : op != rocsparse_operation_none; \
        if (A->format == rocsparse_format_coo) {                                             \
            for (int64_t k = 0; k < A->nnz; k++) {                                           \
                IT r = ptr[k] - base, c = ind[k] - base;                                     \
                VT v = conj_ ? CONJ_##TAG(val[k]) : val[k];                                  \
                if (op == rocsparse_operation_none)                                          \
                    y[r] += alpha * v * x[c];                                                \
                else                                                                         \
                    y[c] += alpha * v * x[r];                                                \
            }                                                                                \
            return;                                                                          \
        }                                                                                    \
        int64_t outer = csr ? A->rows : A->cols;                                             \
        for (int64_t o = 0; o < outer; o++) {                                                \
            IT lo = ptr[o] - base, hi = ptr[o + 1] - base;                                   \
            if (row_major) { /* output o gathers its stored entries */                       \
                VT acc = 0;                                                                  \
                if (conj_)                                                                   \
                    for (IT k = lo; k < hi; k++)                                             \
                        acc += CONJ_##TAG(val[k]) * x[ind[k] - base];                        \
                else                                                                         \
                    for (IT k = lo; k < hi; k++)                                             \
                        acc += val[k] * x[ind[k] - base];                                    \
                y[o] += alpha * acc;                                                         \
            } else { /* entries of o scatter into the outputs they name */                   \
                VT xo = alpha * x[o];                                                        \
                for (IT k = lo; k < hi; k++)                                                 \
                    y[ind[k] - base] += (conj_ ? CONJ_##TAG(val[k]) : val[k]) * xo;          \
            }                                                                                \
        }                                                                                    \
    }                                                                                        \
    /* C(i, j) of a dense matrix in either order */                                          \
    static void spmm_##TAG(rocsparse_const_spmat_descr A, rocsparse_operation op, VT alpha,  \
                           const VT *B, int64_t ldb, int b_col, VT *C, int64_t ldc,          \
                           int c_col, int64_t n)                                             \
    {                                                                                        \
        const IT *ptr = A->ptr, *ind = A->ind;                                               \
        const VT *val = A->val;                                                              \
        IT base = (IT)A->base;                                                               \
        int conj_ = op == rocsparse_operation_conjugate_transpose;                          \
        int csr = A->format == rocsparse_format_csr;                                         \
        int64_t outer = A->format == rocsparse_format_coo ? A->nnz                           \
                        : csr                             ? A->rows                          \
                                                          : A->cols;                         \
        for (int64_t o = 0; o < outer; o++) {                                                \
            int64_t lo = o, hi = o + 1;                                                      \
            if (A->format != rocsparse_format_coo) {                                         \
                lo = ptr[o] - base;                                                          \
                hi = ptr[o + 1] - base;                                                      \
            }                                                                                \
            for (int64_t k = lo; k < hi; k++) {                                              \
                int64_t r, c;                                                                \
                if (A->format == rocsparse_format_coo) {                                     \
                    r = ptr[k] - base;                                                       \
                    c = ind[k] - base;                                                       \
                } else if (csr) {                                                            \
                    r = o;                                                                   \
                    c = ind[k] - base;                                                       \
                } else {                                                                     \
                    r = ind[k] - base;                                                       \
                    c = o;                                                                   \
                }                                                                            \
                if (op != rocsparse_operation_none) {                                        \
                    int64_t t = r;                                                           \
                    r = c;                                                                   \
                    c = t;                                                                   \
                }                                                                            \
                VT v = alpha * (conj_ ? CONJ_##TAG(val[k]) : val[k]);                        \
                for (int64_t j = 0; j < n; j++)                                              \
                    C[c_col ? r + j * ldc : r * ldc + j] +=                                  \
                        v * B[b_col ? c + j * ldb : c * ldb + j];                            \
            }                                                                                \
        }                                                                                    \
    }

/* The common case on its own: CSR, A not transposed, 32-bit indices, a real type. The base
 * is a constant of each instantiation (0 or 1), so it folds into the addressing instead of
 * a subtraction per entry; one running position k walks the rows (each row's end is its
 * start's bound, not reloaded); with beta = 0 the output is stored rather than scaled first
 * and added to (one pass over y less). One accumulator per row, summed in storage order as
 * scipy's csr_matvec does: unrolling into several was slower on rows of ~10 entries of
 * varying length (benchmarks/README.md). alpha = 1 skips the multiply. */
#define CSR_N_KERNEL(TAG, VT)                                                                \
    static inline __attribute__((always_inline)) void csr_n_##TAG##_b(                      \
        int64_t rows, const int32_t *restrict ptr, const int32_t *restrict ind,              \
        const VT *restrict val, const int32_t base, VT alpha, const VT *restrict x, VT beta, \
        VT *restrict y)                                                                      \
    {                                                                                        \
        int64_t k = (int64_t)ptr[0] - base;                                                  \
        for (int64_t r = 0; r < rows; r++) {                                                 \
            int64_t hi = (int64_t)ptr[r + 1] - base;                                         \
            VT acc = 0;                                                                      \
            for (; k < hi; k++)                                                              \
                acc += val[k] * x[ind[k] - base];                                            \
            if (alpha != 1)                                                                  \
                acc *= alpha;                                                                \
            y[r] = beta == 0 ? acc : beta == 1 ? y[r] + acc : beta * y[r] + acc;             \
            k = hi; /* row r is [ptr[r], ptr[r + 1]) even where offsets decrease */          \
        }                                                                                    \
    }                                                                                        \
    static __attribute__((noinline)) void csr_n_##TAG(                                       \
        int64_t rows, const int32_t *ptr, const int32_t *ind, const VT *val, int32_t base,   \
        VT alpha, const VT *x, VT beta, VT *y)                                               \
    {                                                                                        \
        if (base == 0)                                                                       \
            csr_n_##TAG##_b(rows, ptr, ind, val, 0, alpha, x, beta, y);                      \
        else                                                                                 \
            csr_n_##TAG##_b(rows, ptr, ind, val, 1, alpha, x, beta, y);                      \
    }
/* SpMM of the same case, C and B in the same order: column-major is a SpMV per column;
 * row-major adds alpha v times row c of B to row r of C (contiguous, so vectorisable).
 * 0 where the orders differ (the general loop does those). */
#define CSR_N_SPMM(TAG, VT)                                                                  \
    static int csr_n_mm_##TAG(int64_t rows, const int32_t *ptr, const int32_t *ind,          \
                              const VT *val, int32_t base, VT alpha, const VT *B,            \
                              int64_t ldb, int b_col, VT beta, VT *C, int64_t ldc, int c_col,\
                              int64_t n)                                                     \
    {                                                                                        \
        if (b_col != c_col)                                                                  \
            return 0;                                                                        \
        if (c_col) {                                                                         \
            for (int64_t j = 0; j < n; j++)                                                  \
                csr_n_##TAG(rows, ptr, ind, val, base, alpha, B + j * ldb, beta, C + j * ldc);\
            return 1;                                                                        \
        }                                                                                    \
        for (int64_t r = 0; r < rows; r++) {                                                 \
            VT *restrict cr = C + r * ldc;                                                   \
            for (int64_t j = 0; j < n; j++)                                                  \
                cr[j] = beta == 0 ? 0 : beta * cr[j];                                        \
            for (int64_t k = (int64_t)ptr[r] - base; k < (int64_t)ptr[r + 1] - base; k++) {  \
                const VT *restrict br = B + (int64_t)(ind[k] - base) * ldb;                  \
                VT v = alpha * val[k];                                                       \
                for (int64_t j = 0; j < n; j++)                                              \
                    cr[j] += v * br[j];                                                      \
            }                                                                                \
        }                                                                                    \
        return 1;                                                                            \
    }
#define CSR_N(TAG, VT)                                                                       \
    CSR_N_KERNEL(TAG, VT)                                                                    \
    CSR_N_SPMM(TAG, VT)
CSR_N(f32_r, float)
CSR_N(f64_r, double)
CSR_N(f32_c, float complex)
CSR_N(f64_c, double complex)

/* 32-bit indices: spmv_<tag>; 64-bit: spmv64_<tag> (the same loops) */
KERNELS(f32_r, float, int32_t)
KERNELS(f64_r, double, int32_t)
KERNELS(f32_c, float complex, int32_t)
KERNELS(f64_c, double complex, int32_t)
#undef CONJ_f32_r
#undef CONJ_f64_r
#undef CONJ_f32_c
#undef CONJ_f64_c
#define CONJ_w64_f32_r(v) (v)
#define CONJ_w64_f64_r(v) (v)
#define CONJ_w64_f32_c(v) conjf(v)
#define CONJ_w64_f64_c(v) conj(v)
KERNELS(w64_f32_r, float, int64_t)
KERNELS(w64_f64_r, double, int64_t)
KERNELS(w64_f32_c, float complex, int64_t)
KERNELS(w64_f64_c, double complex, int64_t)

/* ---- scaling of the output by beta ---- */

#define SCALE(TAG, VT)                                                                       \
    static void scale_##TAG(VT *y, int64_t rows, int64_t cols, int64_t ld, int col_major,    \
                            VT beta)                                                         \
    {                                                                                        \
        for (int64_t i = 0; i < rows; i++)                                                   \
            for (int64_t j = 0; j < cols; j++) {                                             \
                VT *p = &y[col_major ? i + j * ld : i * ld + j];                             \
                *p = beta == 0 ? 0 : beta * *p;                                              \
            }                                                                                \
    }
SCALE(f32_r, float)
SCALE(f64_r, double)
SCALE(f32_c, float complex)
SCALE(f64_c, double complex)

static int index_wide(rocsparse_const_spmat_descr A)
{
    return A->ptr_type == rocsparse_indextype_i64 || A->ind_type == rocsparse_indextype_i64;
}

/* both index arrays share one width in these kernels */
static int index_mixed(rocsparse_const_spmat_descr A)
{
    return A->format != rocsparse_format_coo && A->ptr_type != A->ind_type;
}

static rocsparse_status check_op(rocsparse_operation op)
{
    return op == rocsparse_operation_none || op == rocsparse_operation_transpose ||
                   op == rocsparse_operation_conjugate_transpose
               ? rocsparse_status_success
               : rocsparse_status_invalid_value;
}

RS_API rocsparse_status rocsparse_spmv(rocsparse_handle handle, rocsparse_operation trans,
                                       const void *alpha, rocsparse_const_spmat_descr mat,
                                       rocsparse_const_dnvec_descr x, const void *beta,
                                       const rocsparse_dnvec_descr y,
                                       rocsparse_datatype compute_type, rocsparse_spmv_alg alg,
                                       rocsparse_spmv_stage stage, size_t *buffer_size,
                                       void *temp_buffer)
{
    (void)alg;
    (void)temp_buffer;
    if (!handle || handle->magic != RS_HANDLE_MAGIC)
        return rocsparse_status_invalid_handle;
    if (bad_spmat(mat) || !x || x->magic != RS_DNVEC_MAGIC || !y || y->magic != RS_DNVEC_MAGIC)
        return rocsparse_status_invalid_pointer;
    rocsparse_status st = check_op(trans);
    if (st != rocsparse_status_success)
        return st;
    if (mat->data_type != compute_type || x->data_type != compute_type ||
        y->data_type != compute_type || index_mixed(mat))
        return rocsparse_status_not_implemented;
    int64_t out = trans == rocsparse_operation_none ? mat->rows : mat->cols;
    int64_t in = trans == rocsparse_operation_none ? mat->cols : mat->rows;
    if (x->size != in || y->size != out)
        return rocsparse_status_invalid_size;
    if (stage == rocsparse_spmv_stage_buffer_size) {
        if (!buffer_size)
            return rocsparse_status_invalid_pointer;
        *buffer_size = 0;
        return rocsparse_status_success;
    }
    if (stage == rocsparse_spmv_stage_preprocess)
        return rocsparse_status_success;
    if (stage != rocsparse_spmv_stage_compute)
        return rocsparse_status_invalid_value;
    if (!alpha || !beta)
        return rocsparse_status_invalid_pointer;
    st = rs_enter(handle);
    if (st != rocsparse_status_success)
        return st;
    int wide = index_wide(mat);
    /* the common case (CSR, A as stored, 32-bit indices): its own kernels */
    int fast = !wide && mat->format == rocsparse_format_csr && trans == rocsparse_operation_none;
#define RUN(TAG, VT)                                                                         \
    do {                                                                                     \
        VT a = *(const VT *)alpha, b = *(const VT *)beta;                                    \
        if (fast) {                                                                          \
            csr_n_##TAG(mat->rows, mat->ptr, mat->ind, mat->val, (int32_t)mat->base, a,      \
                        x->values, b, y->values);                                            \
            break;                                                                           \
        }                                                                                    \
        scale_##TAG(y->values, out, 1, out, 1, b);                                           \
        if (wide)                                                                            \
            spmv_w64_##TAG(mat, trans, a, x->values, y->values);                             \
        else                                                                                 \
            spmv_##TAG(mat, trans, a, x->values, y->values);                                 \
    } while (0)
    switch (compute_type) {
    case rocsparse_datatype_f32_r: RUN(f32_r, float); break;
    case rocsparse_datatype_f64_r: RUN(f64_r, double); break;
    case rocsparse_datatype_f32_c: RUN(f32_c, float complex); break;
    case rocsparse_datatype_f64_c: RUN(f64_c, double complex); break;
    default: return rocsparse_status_not_implemented;
    }
#undef RUN
    return rocsparse_status_success;
}

RS_API rocsparse_status rocsparse_spmm(rocsparse_handle handle, rocsparse_operation trans_A,
                                       rocsparse_operation trans_B, const void *alpha,
                                       rocsparse_const_spmat_descr mat_A,
                                       rocsparse_const_dnmat_descr mat_B, const void *beta,
                                       const rocsparse_dnmat_descr mat_C,
                                       rocsparse_datatype compute_type, rocsparse_spmm_alg alg,
                                       rocsparse_spmm_stage stage, size_t *buffer_size,
                                       void *temp_buffer)
{
    (void)alg;
    (void)temp_buffer;
    if (!handle || handle->magic != RS_HANDLE_MAGIC)
        return rocsparse_status_invalid_handle;
    if (bad_spmat(mat_A) || !mat_B || mat_B->magic != RS_DNMAT_MAGIC || !mat_C ||
        mat_C->magic != RS_DNMAT_MAGIC)
        return rocsparse_status_invalid_pointer;
    rocsparse_status st = check_op(trans_A);
    if (st != rocsparse_status_success)
        return st;
    if (trans_B != rocsparse_operation_none || mat_A->data_type != compute_type ||
        mat_B->data_type != compute_type || mat_C->data_type != compute_type ||
        index_mixed(mat_A))
        return rocsparse_status_not_implemented;
    /* strided batches of B and C (rocsparse_dnmat_set_strided_batch): C_i = A B_i, A
     * shared ("broadcast A"); the other batched forms need a batched A, which the CPU
     * device's sparse descriptors do not carry */
    if (mat_B->batch_count != mat_C->batch_count)
        return rocsparse_status_not_implemented;
    int64_t m = trans_A == rocsparse_operation_none ? mat_A->rows : mat_A->cols;
    int64_t k = trans_A == rocsparse_operation_none ? mat_A->cols : mat_A->rows;
    int64_t n = mat_C->cols;
    if (mat_C->rows != m || mat_B->rows != k || mat_B->cols != n)
        return rocsparse_status_invalid_size;
    if (stage == rocsparse_spmm_stage_buffer_size) {
        if (!buffer_size)
            return rocsparse_status_invalid_pointer;
        *buffer_size = 0;
        return rocsparse_status_success;
    }
    if (stage == rocsparse_spmm_stage_preprocess)
        return rocsparse_status_success;
    if (stage != rocsparse_spmm_stage_compute)
        return rocsparse_status_invalid_value;
    if (!alpha || !beta)
        return rocsparse_status_invalid_pointer;
    st = rs_enter(handle);
    if (st != rocsparse_status_success)
        return st;
    int wide = index_wide(mat_A);
    int b_col = mat_B->order == rocsparse_order_column;
    int c_col = mat_C->order == rocsparse_order_column;
    int fast = !wide && mat_A->format == rocsparse_format_csr &&
               trans_A == rocsparse_operation_none;
    size_t vsize = rs_value_size(compute_type);
    for (int32_t bi = 0; bi < mat_C->batch_count; bi++) {
        const void *bv = (const char *)mat_B->values + (size_t)bi * mat_B->batch_stride * vsize;
        void *cv = (char *)mat_C->values + (size_t)bi * mat_C->batch_stride * vsize;
#define RUN(TAG, VT)                                                                         \
    do {                                                                                     \
        VT a = *(const VT *)alpha, b = *(const VT *)beta;                                    \
        if (fast && csr_n_mm_##TAG(m, mat_A->ptr, mat_A->ind, mat_A->val,                    \
                                   (int32_t)mat_A->base, a, bv, mat_B->ld, b_col, b, cv,     \
                                   mat_C->ld, c_col, n))                                     \
            break;                                                                           \
        scale_##TAG(cv, m, n, mat_C->ld, c_col, b);                                          \
        if (wide)                                                                            \
            spmm_w64_##TAG(mat_A, trans_A, a, bv, mat_B->ld, b_col, cv, mat_C->ld, c_col, n); \
        else                                                                                 \
            spmm_##TAG(mat_A, trans_A, a, bv, mat_B->ld, b_col, cv, mat_C->ld, c_col, n);    \
    } while (0)
        switch (compute_type) {
        case rocsparse_datatype_f32_r: RUN(f32_r, float); break;
        case rocsparse_datatype_f64_r: RUN(f64_r, double); break;
        case rocsparse_datatype_f32_c: RUN(f32_c, float complex); break;
        case rocsparse_datatype_f64_c: RUN(f64_c, double complex); break;
        default: return rocsparse_status_not_implemented;
        }
    }
#undef RUN
    return rocsparse_status_success;
}

/* ---- index conversions (legacy API): CSR offsets <-> COO row indices ---- */

RS_API rocsparse_status rocsparse_csr2coo(rocsparse_handle handle,
                                          const rocsparse_int *csr_row_ptr, rocsparse_int nnz,
                                          rocsparse_int m, rocsparse_int *coo_row_ind,
                                          rocsparse_index_base idx_base)
{
    if (!handle || handle->magic != RS_HANDLE_MAGIC)
        return rocsparse_status_invalid_handle;
    if (m < 0 || nnz < 0)
        return rocsparse_status_invalid_size;
    if (idx_base != rocsparse_index_base_zero && idx_base != rocsparse_index_base_one)
        return rocsparse_status_invalid_value;
    if (m == 0 || nnz == 0)
        return rocsparse_status_success;
    if (!csr_row_ptr || !coo_row_ind)
        return rocsparse_status_invalid_pointer;
    rocsparse_status st = rs_enter(handle);
    if (st != rocsparse_status_success)
        return st;
    rocsparse_int b = (rocsparse_int)idx_base;
    for (rocsparse_int r = 0; r < m; r++)
        for (rocsparse_int k = csr_row_ptr[r] - b; k < csr_row_ptr[r + 1] - b; k++)
            if (k >= 0 && k < nnz)
                coo_row_ind[k] = r + b;
    return rocsparse_status_success;
}

RS_API rocsparse_status rocsparse_coo2csr(rocsparse_handle handle,
                                          const rocsparse_int *coo_row_ind, rocsparse_int nnz,
                                          rocsparse_int m, rocsparse_int *csr_row_ptr,
                                          rocsparse_index_base idx_base)
{
    if (!handle || handle->magic != RS_HANDLE_MAGIC)
        return rocsparse_status_invalid_handle;
    if (m < 0 || nnz < 0)
        return rocsparse_status_invalid_size;
    if (idx_base != rocsparse_index_base_zero && idx_base != rocsparse_index_base_one)
        return rocsparse_status_invalid_value;
    if (m == 0)
        return rocsparse_status_success;
    if (!csr_row_ptr || (nnz > 0 && !coo_row_ind))
        return rocsparse_status_invalid_pointer;
    rocsparse_status st = rs_enter(handle);
    if (st != rocsparse_status_success)
        return st;
    memset(csr_row_ptr, 0, (size_t)(m + 1) * sizeof *csr_row_ptr);
    rocsparse_int b = (rocsparse_int)idx_base;
    for (rocsparse_int k = 0; k < nnz; k++) { /* sorted by row, as both libraries require */
        rocsparse_int r = coo_row_ind[k] - b;
        if (r < 0 || r >= m)
            return rocsparse_status_invalid_value;
        csr_row_ptr[r + 1]++;
    }
    csr_row_ptr[0] = b;
    for (rocsparse_int r = 0; r < m; r++)
        csr_row_ptr[r + 1] += csr_row_ptr[r];
    return rocsparse_status_success;
}

/* ---- sparse -> dense: B := A (every entry of B written; duplicates summed) ---- */

#define TO_DENSE(TAG, VT)                                                                    \
    static void to_dense_##TAG(rocsparse_const_spmat_descr A, VT *B, int64_t ld, int col)    \
    {                                                                                        \
        scale_##TAG(B, A->rows, A->cols, ld, col, 0);                                        \
        const VT *val = A->val;                                                              \
        int64_t base = A->base;                                                              \
        int csr = A->format == rocsparse_format_csr;                                         \
        int64_t outer = A->format == rocsparse_format_coo ? A->nnz                           \
                        : csr                             ? A->rows                          \
                                                          : A->cols;                         \
        for (int64_t o = 0; o < outer; o++) {                                                \
            int64_t lo = o, hi = o + 1;                                                      \
            if (A->format != rocsparse_format_coo) {                                         \
                lo = rs_index(A->ptr, A->ptr_type, o) - base;                                \
                hi = rs_index(A->ptr, A->ptr_type, o + 1) - base;                            \
            }                                                                                \
            for (int64_t k = lo; k < hi; k++) {                                              \
                int64_t i = rs_index(A->ind, A->ind_type, k) - base;                         \
                int64_t r = A->format == rocsparse_format_coo                                \
                                ? rs_index(A->ptr, A->ptr_type, k) - base                    \
                                : csr ? o : i;                                               \
                int64_t c = A->format == rocsparse_format_csc ? o : i;                       \
                B[col ? r + c * ld : r * ld + c] += val[k];                                  \
            }                                                                                \
        }                                                                                    \
    }
TO_DENSE(f32_r, float)
TO_DENSE(f64_r, double)
TO_DENSE(f32_c, float complex)
TO_DENSE(f64_c, double complex)

RS_API rocsparse_status rocsparse_sparse_to_dense(rocsparse_handle handle,
                                                  rocsparse_const_spmat_descr mat_A,
                                                  rocsparse_dnmat_descr mat_B,
                                                  rocsparse_sparse_to_dense_alg alg,
                                                  size_t *buffer_size, void *temp_buffer)
{
    if (!handle || handle->magic != RS_HANDLE_MAGIC)
        return rocsparse_status_invalid_handle;
    if (bad_spmat(mat_A) || !mat_B || mat_B->magic != RS_DNMAT_MAGIC)
        return rocsparse_status_invalid_pointer;
    if (alg != rocsparse_sparse_to_dense_alg_default)
        return rocsparse_status_invalid_value;
    if (mat_A->data_type != mat_B->data_type)
        return rocsparse_status_not_implemented;
    if (mat_A->rows != mat_B->rows || mat_A->cols != mat_B->cols)
        return rocsparse_status_invalid_size;
    /* rocSPARSE: no temp_buffer means a buffer-size query */
    if (!temp_buffer) {
        if (!buffer_size)
            return rocsparse_status_invalid_pointer;
        *buffer_size = 0;
        return rocsparse_status_success;
    }
    rocsparse_status st = rs_enter(handle);
    if (st != rocsparse_status_success)
        return st;
    int col = mat_B->order == rocsparse_order_column;
    switch (mat_A->data_type) {
    case rocsparse_datatype_f32_r: to_dense_f32_r(mat_A, mat_B->values, mat_B->ld, col); break;
    case rocsparse_datatype_f64_r: to_dense_f64_r(mat_A, mat_B->values, mat_B->ld, col); break;
    case rocsparse_datatype_f32_c: to_dense_f32_c(mat_A, mat_B->values, mat_B->ld, col); break;
    case rocsparse_datatype_f64_c: to_dense_f64_c(mat_A, mat_B->values, mat_B->ld, col); break;
    default: return rocsparse_status_not_implemented;
    }
    return rocsparse_status_success;
}
