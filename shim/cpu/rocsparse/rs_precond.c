/* The CPU device's incomplete factorizations on a sorted CSR pattern, in place in csr_val:
 * csrilu0 (A ~ LU, L unit lower in the strict lower part, U in the upper part and the
 * diagonal) and csric0 (A ~ L L^H from the lower triangle; entries above the diagonal are
 * not read or written). Both run row by row (row i uses the finished rows j < i), so the
 * result is the definition's, entry by entry. The descriptor's fill mode and diagonal type
 * are not read: ILU(0)/IC(0) factor the whole stored pattern.
 * Zero pivots, reported by rocsparse_csr{ilu,ic}0_zero_pivot in the matrix's index base: the
 * analysis finds the first row without a diagonal entry (structural); the factorization
 * also the first row whose pivot is zero (numerical). A row j with a zero pivot is not used
 * to eliminate later rows (their entries in column j are left as they are), so the
 * factorization finishes with finite values, and the smallest such j is reported.
 * bsrilu0/bsric0 are these factorizations of the BSR matrix's scalar pattern (every element
 * of a stored block): the blocks of L and U, the diagonal blocks factored in place as
 * rocSPARSE's block algorithm leaves them; their pivots are block rows. */
#include <math.h>
#include <stdlib.h>

#include "rs_internal.h"

struct csr {
    rocsparse_int m, base;
    const rocsparse_int *ptr, *col;
    void *val;
    rocsparse_datatype type;
};

static rocsparse_status check(rocsparse_handle handle, rocsparse_int m, rocsparse_int nnz,
                              const rocsparse_mat_descr descr, const void *val,
                              const rocsparse_int *ptr, const rocsparse_int *col,
                              rocsparse_mat_info info, rocsparse_datatype t, struct csr *out)
{
    if (!handle || handle->magic != RS_HANDLE_MAGIC)
        return rocsparse_status_invalid_handle;
    if (!descr || descr->magic != RS_MAT_MAGIC || rs_bad_info(info))
        return rocsparse_status_invalid_pointer;
    if (m < 0 || nnz < 0)
        return rocsparse_status_invalid_size;
    if ((m > 0 && !ptr) || (nnz > 0 && (!val || !col)))
        return rocsparse_status_invalid_pointer;
    if (descr->type != rocsparse_matrix_type_general)
        return rocsparse_status_not_implemented;
    *out = (struct csr){m, descr->base == rocsparse_index_base_one, ptr, col, (void *)val, t};
    return rocsparse_status_success;
}

/* the row's entries are [lo(a, i), lo(a, i + 1)) */
static int64_t lo(const struct csr *a, int64_t i)
{
    return (int64_t)a->ptr[i] - a->base;
}

/* the position of row i's diagonal entry, -1 when the pattern has none */
static int64_t diag_of(const struct csr *a, int64_t i)
{
    for (int64_t k = lo(a, i); k < lo(a, i + 1); k++)
        if ((int64_t)a->col[k] - a->base == i)
            return k;
    return -1;
}

static rocsparse_int structural_pivot(const struct csr *a)
{
    for (int64_t i = 0; i < a->m; i++)
        if (diag_of(a, i) < 0)
            return (rocsparse_int)(i + a->base);
    return -1;
}

/* the scratch the factorizations keep in the caller's buffer: each row's diagonal position
 * and, for the row being factored, the position of each of its columns (-1: not stored) */
static size_t work_bytes(rocsparse_int m)
{
    return (size_t)2 * (size_t)(m > 0 ? m : 1) * sizeof(int64_t) + 16;
}

static int64_t *work(void *buffer)
{
    return (int64_t *)(((uintptr_t)buffer + 15) & ~(uintptr_t)15);
}

static void note_pivot(rocsparse_int *pivot, int64_t row, const struct csr *a)
{
    rocsparse_int p = (rocsparse_int)(row + a->base);
    if (*pivot < 0 || p < *pivot)
        *pivot = p;
}

/* row i's columns marked in `at` (columns outside [0, m) are not part of the square
 * pattern's factorization and are skipped) */
static void mark_row(const struct csr *a, int64_t i, int64_t *at, int on)
{
    for (int64_t k = lo(a, i); k < lo(a, i + 1); k++) {
        int64_t c = (int64_t)a->col[k] - a->base;
        if (c >= 0 && c < a->m)
            at[c] = on ? k : -1;
    }
}

static void ilu0(const struct csr *a, const struct _rocsparse_mat_info *info, int64_t *w,
                 rocsparse_int *pivot)
{
    int64_t m = a->m, *diag = w, *at = w + m;
    rocsparse_datatype t = a->type;
    for (int64_t c = 0; c < m; c++)
        at[c] = -1;
    for (int64_t i = 0; i < m; i++) {
        diag[i] = diag_of(a, i);
        mark_row(a, i, at, 1);
        for (int64_t k = lo(a, i); k < lo(a, i + 1); k++) {
            int64_t j = (int64_t)a->col[k] - a->base;
            if (j < 0 || j >= i)
                continue;
            double complex u = diag[j] < 0 ? 0 : load_value(a->val, t, diag[j]);
            if (u == 0) {
                note_pivot(pivot, j, a);
                continue;
            }
            double complex l = load_value(a->val, t, k) / u;
            store_value(a->val, t, k, l);
            for (int64_t kk = diag[j] + 1; kk < lo(a, j + 1); kk++) {
                int64_t c = (int64_t)a->col[kk] - a->base;
                if (c > j && c < m && at[c] >= 0)
                    store_value(a->val, t, at[c],
                                load_value(a->val, t, at[c]) - l * load_value(a->val, t, kk));
            }
        }
        mark_row(a, i, at, 0);
        if (diag[i] < 0) {
            note_pivot(pivot, i, a);
            continue;
        }
        double complex u = load_value(a->val, t, diag[i]);
        if (info->boost && cabs(u) <= creal(load_value(info->boost_tol, info->tol_type, 0))) {
            u = load_value(info->boost_val, info->val_type, 0);
            store_value(a->val, t, diag[i], u);
        }
        if (u == 0)
            note_pivot(pivot, i, a);
    }
}

/* L_ij = (A_ij - sum_{k<j} L_ik conj(L_jk)) / L_jj and L_ii = sqrt(|A_ii - sum_k |L_ik|^2|):
 * the modulus keeps an indefinite matrix's factor finite; a zero L_jj is a pivot */
static void ic0(const struct csr *a, int64_t *w, rocsparse_int *pivot)
{
    int64_t m = a->m, *diag = w, *at = w + m;
    rocsparse_datatype t = a->type;
    for (int64_t c = 0; c < m; c++)
        at[c] = -1;
    for (int64_t i = 0; i < m; i++) {
        diag[i] = diag_of(a, i);
        mark_row(a, i, at, 1);
        double complex sum = 0;
        for (int64_t k = lo(a, i); k < lo(a, i + 1); k++) {
            int64_t j = (int64_t)a->col[k] - a->base;
            if (j < 0 || j >= i)
                continue;
            double complex d = diag[j] < 0 ? 0 : load_value(a->val, t, diag[j]);
            if (d == 0) {
                note_pivot(pivot, j, a);
                continue;
            }
            double complex s = load_value(a->val, t, k);
            for (int64_t kk = lo(a, j); kk < lo(a, j + 1); kk++) {
                int64_t c = (int64_t)a->col[kk] - a->base;
                if (c >= 0 && c < j && at[c] >= 0)
                    s -= load_value(a->val, t, at[c]) * conj(load_value(a->val, t, kk));
            }
            s /= d;
            store_value(a->val, t, k, s);
            sum += s * conj(s);
        }
        mark_row(a, i, at, 0);
        if (diag[i] < 0) {
            note_pivot(pivot, i, a);
            continue;
        }
        double complex d = sqrt(cabs(load_value(a->val, t, diag[i]) - sum));
        store_value(a->val, t, diag[i], d);
        if (d == 0)
            note_pivot(pivot, i, a);
    }
}

enum stage { BUFFER_SIZE, ANALYSIS, FACTOR };

/* one stage of csrilu0 (ic 0) or csric0 (ic 1) */
static rocsparse_status stage(enum stage s, int ic, rocsparse_handle handle, rocsparse_int m,
                              rocsparse_int nnz, const rocsparse_mat_descr descr,
                              const void *val, const rocsparse_int *ptr,
                              const rocsparse_int *col, rocsparse_mat_info info,
                              size_t *size, void *buffer, rocsparse_datatype t)
{
    struct csr a;
    rocsparse_status st = check(handle, m, nnz, descr, val, ptr, col, info, t, &a);
    if (st != rocsparse_status_success)
        return st;
    if (s == BUFFER_SIZE) {
        if (!size)
            return rocsparse_status_invalid_pointer;
        *size = work_bytes(m);
        return rocsparse_status_success;
    }
    if (m > 0 && !buffer)
        return rocsparse_status_invalid_pointer;
    if ((st = rs_enter(handle)) != rocsparse_status_success)
        return st;
    rocsparse_int *pivot = ic ? &info->ic_pivot : &info->ilu_pivot;
    *pivot = structural_pivot(&a);
    if (s == FACTOR) {
        if (ic)
            ic0(&a, work(buffer), pivot);
        else
            ilu0(&a, info, work(buffer), pivot);
    }
    return rocsparse_status_success;
}

/* the pivot of a family: csrilu0 0, csric0 1, bsrilu0 2, bsric0 3 */
static rocsparse_int *field(struct _rocsparse_mat_info *info, int family)
{
    rocsparse_int *f[4] = {&info->ilu_pivot, &info->ic_pivot, &info->bsrilu_pivot,
                           &info->bsric_pivot};
    return f[family];
}

static rocsparse_status zero_pivot(rocsparse_handle handle, rocsparse_mat_info info,
                                   rocsparse_int *position, int family)
{
    if (!handle || handle->magic != RS_HANDLE_MAGIC)
        return rocsparse_status_invalid_handle;
    if (rs_bad_info(info) || !position)
        return rocsparse_status_invalid_pointer;
    rocsparse_status st = rs_enter(handle);
    if (st != rocsparse_status_success)
        return st;
    /* host or device position: both are host memory here */
    *position = *field(info, family);
    return *position >= 0 ? rocsparse_status_zero_pivot : rocsparse_status_success;
}

RS_API rocsparse_status rocsparse_csrilu0_zero_pivot(rocsparse_handle handle,
                                                     rocsparse_mat_info info,
                                                     rocsparse_int *position)
{
    return zero_pivot(handle, info, position, 0);
}

RS_API rocsparse_status rocsparse_csric0_zero_pivot(rocsparse_handle handle,
                                                    rocsparse_mat_info info,
                                                    rocsparse_int *position)
{
    return zero_pivot(handle, info, position, 1);
}

static rocsparse_status clear(rocsparse_handle handle, rocsparse_mat_info info, int family)
{
    if (!handle || handle->magic != RS_HANDLE_MAGIC)
        return rocsparse_status_invalid_handle;
    if (rs_bad_info(info))
        return rocsparse_status_invalid_pointer;
    *field(info, family) = -1;
    return rocsparse_status_success;
}

RS_API rocsparse_status rocsparse_bsrilu0_zero_pivot(rocsparse_handle handle,
                                                     rocsparse_mat_info info,
                                                     rocsparse_int *position)
{
    return zero_pivot(handle, info, position, 2);
}

RS_API rocsparse_status rocsparse_bsric0_zero_pivot(rocsparse_handle handle,
                                                    rocsparse_mat_info info,
                                                    rocsparse_int *position)
{
    return zero_pivot(handle, info, position, 3);
}

RS_API rocsparse_status rocsparse_csrilu0_clear(rocsparse_handle handle,
                                                rocsparse_mat_info info)
{
    return clear(handle, info, 0);
}

RS_API rocsparse_status rocsparse_csric0_clear(rocsparse_handle handle, rocsparse_mat_info info)
{
    return clear(handle, info, 1);
}

RS_API rocsparse_status rocsparse_bsrilu0_clear(rocsparse_handle handle,
                                                rocsparse_mat_info info)
{
    return clear(handle, info, 2);
}

RS_API rocsparse_status rocsparse_bsric0_clear(rocsparse_handle handle, rocsparse_mat_info info)
{
    return clear(handle, info, 3);
}

static rocsparse_status numeric_boost(rocsparse_handle handle, rocsparse_mat_info info,
                                      int enable, const void *tol, const void *val,
                                      rocsparse_datatype tol_type, rocsparse_datatype val_type)
{
    if (!handle || handle->magic != RS_HANDLE_MAGIC)
        return rocsparse_status_invalid_handle;
    if (rs_bad_info(info))
        return rocsparse_status_invalid_pointer;
    if (enable && (!tol || !val))
        return rocsparse_status_invalid_pointer;
    info->boost = enable != 0;
    info->boost_tol = tol;
    info->boost_val = val;
    info->tol_type = tol_type;
    info->val_type = val_type;
    return rocsparse_status_success;
}

/* the boost of values of type T with a tolerance of type TT, for K csrilu0 or bsrilu0 */
#define BOOST(NAME, K, TT, TT_DT, T, T_DT)                                                   \
    RS_API rocsparse_status rocsparse_##NAME##K##_numeric_boost(                             \
        rocsparse_handle handle, rocsparse_mat_info info, int enable_boost,                  \
        const TT *boost_tol, const T *boost_val)                                             \
    {                                                                                        \
        return numeric_boost(handle, info, enable_boost, boost_tol, boost_val, TT_DT, T_DT); \
    }
#define BOOSTS(K)                                                                            \
    BOOST(s, K, float, rocsparse_datatype_f32_r, float, rocsparse_datatype_f32_r)            \
    BOOST(d, K, double, rocsparse_datatype_f64_r, double, rocsparse_datatype_f64_r)          \
    BOOST(c, K, float, rocsparse_datatype_f32_r, rocsparse_float_complex,                    \
          rocsparse_datatype_f32_c)                                                          \
    BOOST(z, K, double, rocsparse_datatype_f64_r, rocsparse_double_complex,                  \
          rocsparse_datatype_f64_c)                                                          \
    BOOST(ds, K, double, rocsparse_datatype_f64_r, float, rocsparse_datatype_f32_r)          \
    BOOST(dc, K, double, rocsparse_datatype_f64_r, rocsparse_float_complex,                  \
          rocsparse_datatype_f32_c)
BOOSTS(csrilu0)
BOOSTS(bsrilu0)

#define PRECOND_TYPED(P, T, DT, K, IC)                                                       \
    RS_API rocsparse_status rocsparse_##P##K##_buffer_size(                                  \
        rocsparse_handle handle, rocsparse_int m, rocsparse_int nnz,                         \
        const rocsparse_mat_descr descr, const T *csr_val, const rocsparse_int *csr_row_ptr,  \
        const rocsparse_int *csr_col_ind, rocsparse_mat_info info, size_t *buffer_size_)     \
    {                                                                                        \
        return stage(BUFFER_SIZE, IC, handle, m, nnz, descr, csr_val, csr_row_ptr,           \
                     csr_col_ind, info, buffer_size_, NULL, DT);                             \
    }                                                                                        \
    RS_API rocsparse_status rocsparse_##P##K##_analysis(                                     \
        rocsparse_handle handle, rocsparse_int m, rocsparse_int nnz,                         \
        const rocsparse_mat_descr descr, const T *csr_val, const rocsparse_int *csr_row_ptr,  \
        const rocsparse_int *csr_col_ind, rocsparse_mat_info info,                           \
        rocsparse_analysis_policy analysis, rocsparse_solve_policy solve_, void *temp_buffer) \
    {                                                                                        \
        (void)analysis, (void)solve_;                                                        \
        return stage(ANALYSIS, IC, handle, m, nnz, descr, csr_val, csr_row_ptr, csr_col_ind, \
                     info, NULL, temp_buffer, DT);                                           \
    }                                                                                        \
    RS_API rocsparse_status rocsparse_##P##K(                                                \
        rocsparse_handle handle, rocsparse_int m, rocsparse_int nnz,                         \
        const rocsparse_mat_descr descr, T *csr_val, const rocsparse_int *csr_row_ptr,        \
        const rocsparse_int *csr_col_ind, rocsparse_mat_info info,                           \
        rocsparse_solve_policy policy, void *temp_buffer)                                    \
    {                                                                                        \
        (void)policy;                                                                        \
        return stage(FACTOR, IC, handle, m, nnz, descr, csr_val, csr_row_ptr, csr_col_ind,   \
                     info, NULL, temp_buffer, DT);                                           \
    }

PRECOND_TYPED(s, float, rocsparse_datatype_f32_r, csrilu0, 0)
PRECOND_TYPED(d, double, rocsparse_datatype_f64_r, csrilu0, 0)
PRECOND_TYPED(c, rocsparse_float_complex, rocsparse_datatype_f32_c, csrilu0, 0)
PRECOND_TYPED(z, rocsparse_double_complex, rocsparse_datatype_f64_c, csrilu0, 0)
PRECOND_TYPED(s, float, rocsparse_datatype_f32_r, csric0, 1)
PRECOND_TYPED(d, double, rocsparse_datatype_f64_r, csric0, 1)
PRECOND_TYPED(c, rocsparse_float_complex, rocsparse_datatype_f32_c, csric0, 1)
PRECOND_TYPED(z, rocsparse_double_complex, rocsparse_datatype_f64_c, csric0, 1)

/* ---- bsrilu0/bsric0: the factorizations of the scalar pattern of the stored blocks ---- */

/* the scalar CSR copy in the caller's buffer (zero-based, double complex), then the work;
 * each part 16-byte aligned */
struct expanded {
    rocsparse_int *ptr, *col;
    double complex *val;
    int64_t *work;
};

static size_t up16(size_t n)
{
    return (n + 15) & ~(size_t)15;
}

static size_t expanded_bytes(int64_t n, int64_t nnz)
{
    return up16((size_t)(n + 1) * sizeof(rocsparse_int)) +
           up16((size_t)nnz * sizeof(rocsparse_int)) +
           (size_t)nnz * sizeof(double complex) + work_bytes((rocsparse_int)n) + 16;
}

static struct expanded carve(void *buffer, int64_t n, int64_t nnz)
{
    char *p = (char *)(((uintptr_t)buffer + 15) & ~(uintptr_t)15);
    struct expanded e;
    e.ptr = (rocsparse_int *)p;
    p += up16((size_t)(n + 1) * sizeof(rocsparse_int));
    e.col = (rocsparse_int *)p;
    p += up16((size_t)nnz * sizeof(rocsparse_int));
    e.val = (double complex *)p;
    p += (size_t)nnz * sizeof(double complex);
    e.work = (int64_t *)p;
    return e;
}

/* element (r, c) of block k: r*bd + c (row direction) or c*bd + r (column) */
static int64_t in_block(rocsparse_direction dir, int64_t bd, int64_t k, int64_t r, int64_t c)
{
    return k * bd * bd + (dir == rocsparse_direction_row ? r * bd + c : c * bd + r);
}

static rocsparse_status bsr_stage(enum stage s, int ic, rocsparse_handle handle,
                                  rocsparse_direction dir, rocsparse_int mb,
                                  rocsparse_int nnzb,
                                  const rocsparse_mat_descr descr, const void *val,
                                  const rocsparse_int *ptr, const rocsparse_int *col,
                                  rocsparse_int bd, rocsparse_mat_info info, size_t *size,
                                  void *buffer, rocsparse_datatype t)
{
    struct csr blocks;
    rocsparse_status st = check(handle, mb, nnzb, descr, val, ptr, col, info, t, &blocks);
    if (st != rocsparse_status_success)
        return st;
    if (dir != rocsparse_direction_row && dir != rocsparse_direction_column)
        return rocsparse_status_invalid_value;
    if (bd <= 0)
        return rocsparse_status_invalid_size;
    int64_t n = (int64_t)mb * bd, nnz = (int64_t)nnzb * bd * bd;
    if (n > INT32_MAX || nnz > INT32_MAX)
        return rocsparse_status_invalid_size;
    if (s == BUFFER_SIZE) {
        if (!size)
            return rocsparse_status_invalid_pointer;
        *size = expanded_bytes(n, nnz);
        return rocsparse_status_success;
    }
    if (mb > 0 && !buffer)
        return rocsparse_status_invalid_pointer;
    if ((st = rs_enter(handle)) != rocsparse_status_success)
        return st;
    rocsparse_int *pivot = field(info, ic ? 3 : 2), block_pivot = structural_pivot(&blocks);
    *pivot = block_pivot;
    if (s != FACTOR || mb == 0)
        return rocsparse_status_success;
    /* scalar row i*bd + r: the elements of row r of block row i's blocks, in block order */
    struct expanded e = carve(buffer, n, nnz);
    int64_t at = 0;
    for (int64_t i = 0; i < mb; i++)
        for (int64_t r = 0; r < bd; r++) {
            e.ptr[i * bd + r] = (rocsparse_int)at;
            for (int64_t k = lo(&blocks, i); k < lo(&blocks, i + 1); k++)
                for (int64_t c = 0; c < bd; c++, at++) {
                    e.col[at] = (rocsparse_int)(((int64_t)col[k] - blocks.base) * bd + c);
                    e.val[at] = load_value(val, t, in_block(dir, bd, k, r, c));
                }
        }
    e.ptr[n] = (rocsparse_int)at;
    struct csr a = {(rocsparse_int)n, 0, e.ptr, e.col, e.val, rocsparse_datatype_f64_c};
    rocsparse_int scalar = -1;
    if (ic)
        ic0(&a, e.work, &scalar);
    else
        ilu0(&a, info, e.work, &scalar);
    if (scalar >= 0 && (block_pivot < 0 || scalar / bd + blocks.base < block_pivot))
        *pivot = (rocsparse_int)(scalar / bd + blocks.base);
    at = 0;
    for (int64_t i = 0; i < mb; i++)
        for (int64_t r = 0; r < bd; r++)
            for (int64_t k = lo(&blocks, i); k < lo(&blocks, i + 1); k++)
                for (int64_t c = 0; c < bd; c++, at++)
                    store_value((void *)val, t, in_block(dir, bd, k, r, c), e.val[at]);
    return rocsparse_status_success;
}

#define BSR_PRECOND_TYPED(P, T, DT, K, IC)                                                   \
    RS_API rocsparse_status rocsparse_##P##K##_buffer_size(                                  \
        rocsparse_handle handle, rocsparse_direction dir, rocsparse_int mb,                  \
        rocsparse_int nnzb, const rocsparse_mat_descr descr, const T *bsr_val,               \
        const rocsparse_int *bsr_row_ptr, const rocsparse_int *bsr_col_ind,                  \
        rocsparse_int block_dim, rocsparse_mat_info info, size_t *buffer_size_)              \
    {                                                                                        \
        return bsr_stage(BUFFER_SIZE, IC, handle, dir, mb, nnzb, descr, bsr_val,             \
                         bsr_row_ptr, bsr_col_ind, block_dim, info, buffer_size_, NULL, DT); \
    }                                                                                        \
    RS_API rocsparse_status rocsparse_##P##K##_analysis(                                     \
        rocsparse_handle handle, rocsparse_direction dir, rocsparse_int mb,                  \
        rocsparse_int nnzb, const rocsparse_mat_descr descr, const T *bsr_val,               \
        const rocsparse_int *bsr_row_ptr, const rocsparse_int *bsr_col_ind,                  \
        rocsparse_int block_dim, rocsparse_mat_info info, rocsparse_analysis_policy analysis, \
        rocsparse_solve_policy solve_, void *temp_buffer)                                    \
    {                                                                                        \
        (void)analysis, (void)solve_;                                                        \
        return bsr_stage(ANALYSIS, IC, handle, dir, mb, nnzb, descr, bsr_val, bsr_row_ptr,   \
                         bsr_col_ind, block_dim, info, NULL, temp_buffer, DT);               \
    }                                                                                        \
    RS_API rocsparse_status rocsparse_##P##K(                                                \
        rocsparse_handle handle, rocsparse_direction dir, rocsparse_int mb,                  \
        rocsparse_int nnzb, const rocsparse_mat_descr descr, T *bsr_val,                     \
        const rocsparse_int *bsr_row_ptr, const rocsparse_int *bsr_col_ind,                  \
        rocsparse_int block_dim, rocsparse_mat_info info, rocsparse_solve_policy policy,     \
        void *temp_buffer)                                                                   \
    {                                                                                        \
        (void)policy;                                                                        \
        return bsr_stage(FACTOR, IC, handle, dir, mb, nnzb, descr, bsr_val, bsr_row_ptr,     \
                         bsr_col_ind, block_dim, info, NULL, temp_buffer, DT);               \
    }

BSR_PRECOND_TYPED(s, float, rocsparse_datatype_f32_r, bsrilu0, 0)
BSR_PRECOND_TYPED(d, double, rocsparse_datatype_f64_r, bsrilu0, 0)
BSR_PRECOND_TYPED(c, rocsparse_float_complex, rocsparse_datatype_f32_c, bsrilu0, 0)
BSR_PRECOND_TYPED(z, rocsparse_double_complex, rocsparse_datatype_f64_c, bsrilu0, 0)
BSR_PRECOND_TYPED(s, float, rocsparse_datatype_f32_r, bsric0, 1)
BSR_PRECOND_TYPED(d, double, rocsparse_datatype_f64_r, bsric0, 1)
BSR_PRECOND_TYPED(c, rocsparse_float_complex, rocsparse_datatype_f32_c, bsric0, 1)
BSR_PRECOND_TYPED(z, rocsparse_double_complex, rocsparse_datatype_f64_c, bsric0, 1)
