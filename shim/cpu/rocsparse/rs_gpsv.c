/* The CPU device's pentadiagonal solves, rocsparse_Xgpsv_interleaved_batch: element i of
 * system b at i*batch_stride + b; row i of the matrix is ds[i], dl[i], d[i], du[i], dw[i] at
 * columns i-2 .. i+2 (entries outside the matrix are not read). rocSPARSE's algorithm is QR;
 * this is Gaussian elimination with partial pivoting (LAPACK's gbsv for two sub- and two
 * superdiagonals): the same solution, rounded differently. */
#include "rs_internal.h"

/* row r's window: columns r-2 .. r+4 (the two extra superdiagonals hold the fill-in of
 * row interchanges) */
enum { WIN = 7 };

static size_t gpsv_bytes(int64_t m)
{
    return (size_t)(m > 0 ? m : 1) * (WIN + 1) * sizeof(double complex) + 16;
}

static double complex *el(double complex *w, int64_t r, int64_t c)
{
    return &w[r * WIN + (c - r + 2)];
}

/* one system in w (windows) and x (its right-hand side), solved in place in x */
static void gpsv_solve(int64_t m, double complex *w, double complex *x)
{
    for (int64_t k = 0; k < m; k++) {
        int64_t last = k + 2 < m - 1 ? k + 2 : m - 1, right = k + 4 < m - 1 ? k + 4 : m - 1;
        int64_t p = k;
        for (int64_t r = k + 1; r <= last; r++)
            if (cabs(*el(w, r, k)) > cabs(*el(w, p, k)))
                p = r;
        if (p != k) {
            for (int64_t c = k; c <= right; c++) {
                double complex t = *el(w, k, c);
                *el(w, k, c) = *el(w, p, c);
                *el(w, p, c) = t;
            }
            double complex t = x[k];
            x[k] = x[p];
            x[p] = t;
        }
        double complex piv = *el(w, k, k);
        if (piv == 0)
            continue; /* singular: the division below gives the IEEE result */
        for (int64_t r = k + 1; r <= last; r++) {
            double complex f = *el(w, r, k) / piv;
            *el(w, r, k) = 0;
            for (int64_t c = k + 1; c <= right; c++)
                *el(w, r, c) -= f * *el(w, k, c);
            x[r] -= f * x[k];
        }
    }
    for (int64_t k = m - 1; k >= 0; k--) {
        int64_t right = k + 4 < m - 1 ? k + 4 : m - 1;
        double complex s = x[k];
        for (int64_t c = k + 1; c <= right; c++)
            s -= *el(w, k, c) * x[c];
        x[k] = s / *el(w, k, k);
    }
}

static rocsparse_status gpsv(rocsparse_handle handle, rocsparse_gpsv_interleaved_alg alg,
                             rocsparse_int m, const void *const diags[5], void *x,
                             rocsparse_int count, rocsparse_int stride, int query,
                             size_t *size, void *buffer, rocsparse_datatype t)
{
    if (!handle || handle->magic != RS_HANDLE_MAGIC)
        return rocsparse_status_invalid_handle;
    if (alg != rocsparse_gpsv_interleaved_alg_default &&
        alg != rocsparse_gpsv_interleaved_alg_qr)
        return rocsparse_status_invalid_value;
    if (m < 0 || count < 0 || stride < count)
        return rocsparse_status_invalid_size;
    for (int k = 0; k < 5; k++)
        if (!diags[k])
            return rocsparse_status_invalid_pointer;
    if (!x)
        return rocsparse_status_invalid_pointer;
    if (query) {
        if (!size)
            return rocsparse_status_invalid_pointer;
        *size = gpsv_bytes(m);
        return rocsparse_status_success;
    }
    if (m == 0 || count == 0)
        return rocsparse_status_success;
    if (!buffer)
        return rocsparse_status_invalid_pointer;
    rocsparse_status st = rs_enter(handle);
    if (st != rocsparse_status_success)
        return st;
    double complex *w = (double complex *)(((uintptr_t)buffer + 15) & ~(uintptr_t)15);
    double complex *rhs = w + (size_t)m * WIN;
    for (int64_t b = 0; b < count; b++) {
        for (int64_t r = 0; r < m; r++) {
            for (int64_t i = 0; i < WIN; i++) {
                int64_t c = r + i - 2;
                w[r * WIN + i] = i < 5 && c >= 0 && c < m
                                     ? load_value(diags[i], t, r * stride + b) : 0;
            }
            rhs[r] = load_value(x, t, r * stride + b);
        }
        gpsv_solve(m, w, rhs);
        for (int64_t r = 0; r < m; r++)
            store_value(x, t, r * stride + b, rhs[r]);
    }
    return rocsparse_status_success;
}

#define GPSV_TYPED(P, T, DT)                                                                 \
    RS_API rocsparse_status rocsparse_##P##gpsv_interleaved_batch_buffer_size(               \
        rocsparse_handle handle, rocsparse_gpsv_interleaved_alg alg, rocsparse_int m,        \
        const T *ds, const T *dl, const T *d, const T *du, const T *dw, const T *x,          \
        rocsparse_int batch_count, rocsparse_int batch_stride, size_t *buffer_size)          \
    {                                                                                        \
        const void *diags[5] = {ds, dl, d, du, dw};                                          \
        return gpsv(handle, alg, m, diags, (void *)x, batch_count, batch_stride, 1,          \
                    buffer_size, NULL, DT);                                                  \
    }                                                                                        \
    RS_API rocsparse_status rocsparse_##P##gpsv_interleaved_batch(                           \
        rocsparse_handle handle, rocsparse_gpsv_interleaved_alg alg, rocsparse_int m, T *ds, \
        T *dl, T *d, T *du, T *dw, T *x, rocsparse_int batch_count,                          \
        rocsparse_int batch_stride, void *temp_buffer)                                       \
    {                                                                                        \
        const void *diags[5] = {ds, dl, d, du, dw};                                          \
        return gpsv(handle, alg, m, diags, x, batch_count, batch_stride, 0, NULL,            \
                    temp_buffer, DT);                                                        \
    }

GPSV_TYPED(s, float, rocsparse_datatype_f32_r)
GPSV_TYPED(d, double, rocsparse_datatype_f64_r)
GPSV_TYPED(c, rocsparse_float_complex, rocsparse_datatype_f32_c)
GPSV_TYPED(z, rocsparse_double_complex, rocsparse_datatype_f64_c)
