/* The CPU device's tridiagonal solves, in place in the right-hand sides: gtsv (Gaussian
 * elimination with partial pivoting, LAPACK's gttrf/gttrs), gtsv_no_pivot and its strided
 * batch (the Thomas algorithm), and the interleaved batch (element i of system b at
 * i*batch_stride + b; Thomas, or for the stable algorithms, LU and QR, the pivoting
 * elimination: QR's solution, rounded differently). Row i of T is dl[i], d[i], du[i] at
 * columns i-1, i, i+1; dl[0] and du[m-1] lie outside T and are not read. The factors go in
 * the caller's buffer (the diagonals are not written), in double complex, once for all n
 * right-hand sides. */
#include "rs_internal.h"

static double complex *scratch(void *buffer)
{
    return (double complex *)(((uintptr_t)buffer + 15) & ~(uintptr_t)15);
}

/* pivoting: lower, diag, upper, second upper (fill-in), the right-hand side being solved,
 * then the interchanges */
static size_t pivot_bytes(int64_t m)
{
    return (size_t)m * (5 * sizeof(double complex) + sizeof(int64_t)) + 16;
}

/* no pivoting: the eliminated diagonal and the scaled upper diagonal */
static size_t thomas_bytes(int64_t m)
{
    return (size_t)m * 2 * sizeof(double complex) + 16;
}

static rocsparse_status check(rocsparse_handle handle, rocsparse_int m, rocsparse_int n,
                              const void *dl, const void *d, const void *du, const void *B,
                              rocsparse_int ldb)
{
    if (!handle || handle->magic != RS_HANDLE_MAGIC)
        return rocsparse_status_invalid_handle;
    if (m < 2 || n < 0 || ldb < m)
        return rocsparse_status_invalid_size;
    if (!dl || !d || !du || (n > 0 && !B))
        return rocsparse_status_invalid_pointer;
    return rocsparse_status_success;
}

/* LAPACK gttrf: T = P L U, the row of the larger pivot candidate kept on the diagonal */
static void pivot_factor(int64_t m, const void *dl, const void *d, const void *du,
                         rocsparse_datatype t, double complex *w)
{
    double complex *lo = w, *dg = w + m, *up = w + 2 * m, *up2 = w + 3 * m;
    int64_t *piv = (int64_t *)(w + 5 * m);
    for (int64_t i = 0; i < m; i++) {
        lo[i] = i + 1 < m ? load_value(dl, t, i + 1) : 0;
        dg[i] = load_value(d, t, i);
        up[i] = i + 1 < m ? load_value(du, t, i) : 0;
        up2[i] = 0;
    }
    for (int64_t i = 0; i + 1 < m; i++) {
        if (cabs(dg[i]) >= cabs(lo[i])) {
            piv[i] = i;
            if (dg[i] != 0) {
                double complex f = lo[i] / dg[i];
                lo[i] = f;
                dg[i + 1] -= f * up[i];
            }
        } else {
            double complex f = dg[i] / lo[i], next = up[i];
            piv[i] = i + 1;
            dg[i] = lo[i];
            lo[i] = f;
            up[i] = dg[i + 1];
            dg[i + 1] = next - f * dg[i + 1];
            if (i + 2 < m) {
                up2[i] = up[i + 1];
                up[i + 1] = -f * up[i + 1];
            }
        }
    }
}

static void pivot_solve(int64_t m, double complex *w, void *b, rocsparse_datatype t)
{
    const double complex *lo = w, *dg = w + m, *up = w + 2 * m, *up2 = w + 3 * m;
    const int64_t *piv = (const int64_t *)(w + 5 * m);
    double complex *x = w + 4 * m;
    for (int64_t i = 0; i < m; i++)
        x[i] = load_value(b, t, i);
    for (int64_t i = 0; i + 1 < m; i++) {
        if (piv[i] == i) {
            x[i + 1] -= lo[i] * x[i];
        } else {
            double complex top = x[i];
            x[i] = x[i + 1];
            x[i + 1] = top - lo[i] * x[i];
        }
    }
    for (int64_t i = m - 1; i >= 0; i--) {
        double complex s = x[i];
        if (i + 1 < m)
            s -= up[i] * x[i + 1];
        if (i + 2 < m)
            s -= up2[i] * x[i + 2];
        x[i] = s / dg[i];
    }
    for (int64_t i = 0; i < m; i++)
        store_value(b, t, i, x[i]);
}

static void thomas_factor(int64_t m, const void *dl, const void *d, const void *du,
                          rocsparse_datatype t, double complex *w)
{
    double complex *dg = w, *cp = w + m;
    for (int64_t i = 0; i < m; i++) {
        dg[i] = load_value(d, t, i) - (i > 0 ? load_value(dl, t, i) * cp[i - 1] : 0);
        cp[i] = i + 1 < m ? load_value(du, t, i) / dg[i] : 0;
    }
}

static void thomas_solve(int64_t m, const void *dl, const double complex *w, void *b,
                         rocsparse_datatype t)
{
    const double complex *dg = w, *cp = w + m;
    double complex prev = 0;
    for (int64_t i = 0; i < m; i++) {
        prev = (load_value(b, t, i) - (i > 0 ? load_value(dl, t, i) * prev : 0)) / dg[i];
        store_value(b, t, i, prev);
    }
    for (int64_t i = m - 2; i >= 0; i--) {
        prev = load_value(b, t, i) - cp[i] * prev;
        store_value(b, t, i, prev);
    }
}

static rocsparse_status gtsv(int pivoting, rocsparse_handle handle, rocsparse_int m,
                             rocsparse_int n, const void *dl, const void *d, const void *du,
                             void *B, rocsparse_int ldb, int query, size_t *size,
                             void *buffer, rocsparse_datatype t)
{
    rocsparse_status st = check(handle, m, n, dl, d, du, B, ldb);
    if (st != rocsparse_status_success)
        return st;
    if (query) {
        if (!size)
            return rocsparse_status_invalid_pointer;
        *size = pivoting ? pivot_bytes(m) : thomas_bytes(m);
        return rocsparse_status_success;
    }
    if (n == 0)
        return rocsparse_status_success;
    if (!buffer)
        return rocsparse_status_invalid_pointer;
    if ((st = rs_enter(handle)) != rocsparse_status_success)
        return st;
    double complex *w = scratch(buffer);
    if (pivoting)
        pivot_factor(m, dl, d, du, t, w);
    else
        thomas_factor(m, dl, d, du, t, w);
    for (int64_t j = 0; j < n; j++) {
        void *b = (char *)B + (size_t)j * (size_t)ldb * rs_value_size(t);
        if (pivoting)
            pivot_solve(m, w, b, t);
        else
            thomas_solve(m, dl, w, b, t);
    }
    return rocsparse_status_success;
}

/* batch_count systems, system i's diagonals and right-hand side at element i*batch_stride */
static rocsparse_status strided(rocsparse_handle handle, rocsparse_int m, const void *dl,
                                const void *d, const void *du, void *x, rocsparse_int count,
                                rocsparse_int stride, int query, size_t *size,
                                void *buffer, rocsparse_datatype t)
{
    if (!handle || handle->magic != RS_HANDLE_MAGIC)
        return rocsparse_status_invalid_handle;
    if (m < 2 || count < 0 || stride < m)
        return rocsparse_status_invalid_size;
    if (!dl || !d || !du || !x)
        return rocsparse_status_invalid_pointer;
    if (query) {
        if (!size)
            return rocsparse_status_invalid_pointer;
        *size = thomas_bytes(m);
        return rocsparse_status_success;
    }
    if (count == 0)
        return rocsparse_status_success;
    if (!buffer)
        return rocsparse_status_invalid_pointer;
    rocsparse_status st = rs_enter(handle);
    if (st != rocsparse_status_success)
        return st;
    double complex *w = scratch(buffer);
    size_t step = (size_t)stride * rs_value_size(t);
    for (int64_t i = 0; i < count; i++) {
        const char *dli = (const char *)dl + i * step;
        thomas_factor(m, dli, (const char *)d + i * step, (const char *)du + i * step, t, w);
        thomas_solve(m, dli, w, (char *)x + i * step, t);
    }
    return rocsparse_status_success;
}

static rocsparse_status interleaved(rocsparse_handle handle,
                                    rocsparse_gtsv_interleaved_alg alg, rocsparse_int m, const void *dl, const void *d,
                                    const void *du, void *x, rocsparse_int count,
                                    rocsparse_int stride, int query, size_t *size,
                                    void *buffer, rocsparse_datatype t)
{
    if (!handle || handle->magic != RS_HANDLE_MAGIC)
        return rocsparse_status_invalid_handle;
    if (alg != rocsparse_gtsv_interleaved_alg_default &&
        alg != rocsparse_gtsv_interleaved_alg_thomas &&
        alg != rocsparse_gtsv_interleaved_alg_lu && alg != rocsparse_gtsv_interleaved_alg_qr)
        return rocsparse_status_invalid_value;
    if (m < 2 || count < 0 || stride < count)
        return rocsparse_status_invalid_size;
    if (!dl || !d || !du || !x)
        return rocsparse_status_invalid_pointer;
    /* one system gathered (dl, d, du, x) in double complex, then the factors */
    size_t gathered = (size_t)m * 4 * sizeof(double complex);
    if (query) {
        if (!size)
            return rocsparse_status_invalid_pointer;
        *size = gathered + pivot_bytes(m);
        return rocsparse_status_success;
    }
    if (count == 0)
        return rocsparse_status_success;
    if (!buffer)
        return rocsparse_status_invalid_pointer;
    rocsparse_status st = rs_enter(handle);
    if (st != rocsparse_status_success)
        return st;
    double complex *g = scratch(buffer), *w = g + 4 * (size_t)m;
    const rocsparse_datatype dc = rocsparse_datatype_f64_c;
    int pivoting = alg != rocsparse_gtsv_interleaved_alg_thomas;
    for (int64_t b = 0; b < count; b++) {
        for (int64_t i = 0; i < m; i++) {
            int64_t at = i * stride + b;
            g[i] = load_value(dl, t, at);
            g[m + i] = load_value(d, t, at);
            g[2 * m + i] = load_value(du, t, at);
            g[3 * m + i] = load_value(x, t, at);
        }
        if (pivoting) {
            pivot_factor(m, g, g + m, g + 2 * m, dc, w);
            pivot_solve(m, w, g + 3 * m, dc);
        } else {
            thomas_factor(m, g, g + m, g + 2 * m, dc, w);
            thomas_solve(m, g, w, g + 3 * m, dc);
        }
        for (int64_t i = 0; i < m; i++)
            store_value(x, t, i * stride + b, g[3 * m + i]);
    }
    return rocsparse_status_success;
}

#define GTSV_TYPED(P, T, DT)                                                                 \
    RS_API rocsparse_status rocsparse_##P##gtsv_buffer_size(                                 \
        rocsparse_handle handle, rocsparse_int m, rocsparse_int n, const T *dl, const T *d,  \
        const T *du, const T *B, rocsparse_int ldb, size_t *buffer_size)                     \
    {                                                                                        \
        return gtsv(1, handle, m, n, dl, d, du, (void *)B, ldb, 1, buffer_size, NULL, DT);   \
    }                                                                                        \
    RS_API rocsparse_status rocsparse_##P##gtsv(rocsparse_handle handle, rocsparse_int m,    \
                                                rocsparse_int n, const T *dl, const T *d,    \
                                                const T *du, T *B, rocsparse_int ldb,        \
                                                void *temp_buffer)                           \
    {                                                                                        \
        return gtsv(1, handle, m, n, dl, d, du, B, ldb, 0, NULL, temp_buffer, DT);           \
    }                                                                                        \
    RS_API rocsparse_status rocsparse_##P##gtsv_no_pivot_buffer_size(                        \
        rocsparse_handle handle, rocsparse_int m, rocsparse_int n, const T *dl, const T *d,  \
        const T *du, const T *B, rocsparse_int ldb, size_t *buffer_size)                     \
    {                                                                                        \
        return gtsv(0, handle, m, n, dl, d, du, (void *)B, ldb, 1, buffer_size, NULL, DT);   \
    }                                                                                        \
    RS_API rocsparse_status rocsparse_##P##gtsv_no_pivot(                                    \
        rocsparse_handle handle, rocsparse_int m, rocsparse_int n, const T *dl, const T *d,  \
        const T *du, T *B, rocsparse_int ldb, void *temp_buffer)                             \
    {                                                                                        \
        return gtsv(0, handle, m, n, dl, d, du, B, ldb, 0, NULL, temp_buffer, DT);           \
    }                                                                                        \
    RS_API rocsparse_status rocsparse_##P##gtsv_no_pivot_strided_batch_buffer_size(          \
        rocsparse_handle handle, rocsparse_int m, const T *dl, const T *d, const T *du,      \
        const T *x, rocsparse_int batch_count, rocsparse_int batch_stride,                   \
        size_t *buffer_size)                                                                 \
    {                                                                                        \
        return strided(handle, m, dl, d, du, (void *)x, batch_count, batch_stride, 1,        \
                       buffer_size, NULL, DT);                                               \
    }                                                                                        \
    RS_API rocsparse_status rocsparse_##P##gtsv_no_pivot_strided_batch(                      \
        rocsparse_handle handle, rocsparse_int m, const T *dl, const T *d, const T *du,      \
        T *x, rocsparse_int batch_count, rocsparse_int batch_stride, void *temp_buffer)      \
    {                                                                                        \
        return strided(handle, m, dl, d, du, x, batch_count, batch_stride, 0, NULL,          \
                       temp_buffer, DT);                                                     \
    }                                                                                        \
    RS_API rocsparse_status rocsparse_##P##gtsv_interleaved_batch_buffer_size(               \
        rocsparse_handle handle, rocsparse_gtsv_interleaved_alg alg, rocsparse_int m,        \
        const T *dl, const T *d, const T *du, const T *x, rocsparse_int batch_count,         \
        rocsparse_int batch_stride, size_t *buffer_size)                                     \
    {                                                                                        \
        return interleaved(handle, alg, m, dl, d, du, (void *)x, batch_count, batch_stride,  \
                           1, buffer_size, NULL, DT);                                        \
    }                                                                                        \
    RS_API rocsparse_status rocsparse_##P##gtsv_interleaved_batch(                           \
        rocsparse_handle handle, rocsparse_gtsv_interleaved_alg alg, rocsparse_int m, T *dl, \
        T *d, T *du, T *x, rocsparse_int batch_count, rocsparse_int batch_stride,            \
        void *temp_buffer)                                                                   \
    {                                                                                        \
        return interleaved(handle, alg, m, dl, d, du, x, batch_count, batch_stride, 0, NULL, \
                           temp_buffer, DT);                                                 \
    }

GTSV_TYPED(s, float, rocsparse_datatype_f32_r)
GTSV_TYPED(d, double, rocsparse_datatype_f64_r)
GTSV_TYPED(c, rocsparse_float_complex, rocsparse_datatype_f32_c)
GTSV_TYPED(z, rocsparse_double_complex, rocsparse_datatype_f64_c)
