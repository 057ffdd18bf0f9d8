/* A program written the way a ROCm user writes one: compiled against the real HIP 7.2,
 * rocBLAS and rocSOLVER headers, linked by SONAME to the CPU device's libamdhip64.so.7,
 * librocblas.so.5 and librocsolver.so.0. It uses device memory, a stream, host and device
 * pointer modes, gemm_ex through the header's compatibility macro, and an LU solve, and
 * checks every result against values computed here. Prints "consumer ok" on success. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include <hip/hip_runtime_api.h>
#include <rocblas/rocblas.h>
#include <rocsolver/rocsolver.h>

#define CHECK(call)                                                                            \
    do {                                                                                       \
        int st_ = (int)(call);                                                                 \
        if (st_ != 0) {                                                                        \
            fprintf(stderr, "%s:%d: %s returned %d\n", __FILE__, __LINE__, #call, st_);        \
            return 1;                                                                          \
        }                                                                                      \
    } while (0)

enum { N = 8 };

int main(void)
{
    float ha[N * N], hb[N * N], hc[N * N], want[N * N];
    for (int i = 0; i < N * N; i++) {
        ha[i] = (float)((i * 7) % 11) - 5.0f;
        hb[i] = (float)((i * 3) % 5) - 2.0f;
    }
    for (int j = 0; j < N; j++)
        for (int i = 0; i < N; i++) {
            float s = 0;
            for (int k = 0; k < N; k++)
                s += ha[i + k * N] * hb[k + j * N];
            want[i + j * N] = 2.0f * s;
        }
    hipStream_t stream;
    CHECK(hipStreamCreate(&stream));
    float *da, *db, *dc, *dalpha;
    CHECK(hipMalloc((void **)&da, sizeof ha));
    CHECK(hipMalloc((void **)&db, sizeof hb));
    CHECK(hipMalloc((void **)&dc, sizeof hc));
    CHECK(hipMalloc((void **)&dalpha, sizeof(float)));
    CHECK(hipMemcpyAsync(da, ha, sizeof ha, hipMemcpyHostToDevice, stream));
    CHECK(hipMemcpyAsync(db, hb, sizeof hb, hipMemcpyHostToDevice, stream));
    rocblas_handle h;
    CHECK(rocblas_create_handle(&h));
    CHECK(rocblas_set_stream(h, stream));
    /* host pointer mode */
    const float two = 2.0f, zero = 0.0f;
    CHECK(rocblas_sgemm(h, rocblas_operation_none, rocblas_operation_none, N, N, N, &two, da, N,
                        db, N, &zero, dc, N));
    CHECK(hipMemcpyAsync(hc, dc, sizeof hc, hipMemcpyDeviceToHost, stream));
    CHECK(hipStreamSynchronize(stream));
    for (int i = 0; i < N * N; i++)
        if (fabsf(hc[i] - want[i]) > 1e-3f) {
            fprintf(stderr, "sgemm mismatch at %d: %g vs %g\n", i, hc[i], want[i]);
            return 1;
        }
    /* device pointer mode: alpha lives in device memory, written on the stream */
    CHECK(hipMemcpyAsync(dalpha, &two, sizeof two, hipMemcpyHostToDevice, stream));
    CHECK(rocblas_set_pointer_mode(h, rocblas_pointer_mode_device));
    float *dr;
    CHECK(hipMalloc((void **)&dr, sizeof(float)));
    CHECK(rocblas_sscal(h, N * N, dalpha, dc, 1));
    CHECK(rocblas_sasum(h, N * N, dc, 1, dr));
    float asum = 0, want_asum = 0;
    CHECK(hipMemcpyAsync(&asum, dr, sizeof asum, hipMemcpyDeviceToHost, stream));
    CHECK(hipStreamSynchronize(stream));
    for (int i = 0; i < N * N; i++)
        want_asum += fabsf(2.0f * want[i]);
    if (fabsf(asum - want_asum) > 1e-2f * want_asum) {
        fprintf(stderr, "asum %g vs %g\n", asum, want_asum);
        return 1;
    }
    CHECK(rocblas_set_pointer_mode(h, rocblas_pointer_mode_host));
    /* gemm_ex through the header's macro (f32 in, f32 out) */
    CHECK(rocblas_gemm_ex(h, rocblas_operation_none, rocblas_operation_none, N, N, N, &two, da,
                          rocblas_datatype_f32_r, N, db, rocblas_datatype_f32_r, N, &zero, dc,
                          rocblas_datatype_f32_r, N, dc, rocblas_datatype_f32_r, N,
                          rocblas_datatype_f32_r, rocblas_gemm_algo_standard, 0, 0));
    CHECK(hipMemcpy(hc, dc, sizeof hc, hipMemcpyDeviceToHost));
    for (int i = 0; i < N * N; i++)
        if (fabsf(hc[i] - want[i]) > 1e-3f)
            return fprintf(stderr, "gemm_ex mismatch at %d\n", i), 1;
    /* LU solve: A x = b with A diagonally dominant */
    double a[N * N], b[N], x[N];
    for (int j = 0; j < N; j++) {
        x[j] = j + 1;
        for (int i = 0; i < N; i++)
            a[i + j * N] = (i == j ? 20.0 : 0.0) + (double)((i + 2 * j) % 3);
    }
    for (int i = 0; i < N; i++) {
        b[i] = 0;
        for (int j = 0; j < N; j++)
            b[i] += a[i + j * N] * x[j];
    }
    double *dA, *dB;
    rocblas_int *dipiv, *dinfo, info = -1;
    CHECK(hipMalloc((void **)&dA, sizeof a));
    CHECK(hipMalloc((void **)&dB, sizeof b));
    CHECK(hipMalloc((void **)&dipiv, N * sizeof(rocblas_int)));
    CHECK(hipMalloc((void **)&dinfo, sizeof(rocblas_int)));
    CHECK(hipMemcpy(dA, a, sizeof a, hipMemcpyHostToDevice));
    CHECK(hipMemcpy(dB, b, sizeof b, hipMemcpyHostToDevice));
    CHECK(rocsolver_dgetrf(h, N, N, dA, N, dipiv, dinfo));
    CHECK(rocsolver_dgetrs(h, rocblas_operation_none, N, 1, dA, N, dipiv, dB, N));
    CHECK(hipMemcpy(&info, dinfo, sizeof info, hipMemcpyDeviceToHost));
    CHECK(hipMemcpy(b, dB, sizeof b, hipMemcpyDeviceToHost));
    if (info != 0)
        return fprintf(stderr, "getrf info %d\n", info), 1;
    for (int i = 0; i < N; i++)
        if (fabs(b[i] - x[i]) > 1e-9)
            return fprintf(stderr, "solve mismatch at %d: %g\n", i, b[i]), 1;
    /* bad arguments are refused with rocBLAS's codes */
    if (rocblas_sgemm(NULL, rocblas_operation_none, rocblas_operation_none, N, N, N, &two, da, N,
                      db, N, &zero, dc, N) != rocblas_status_invalid_handle ||
        rocblas_sgemm(h, rocblas_operation_none, rocblas_operation_none, N, N, N, &two, da, 1, db,
                      N, &zero, dc, N) != rocblas_status_invalid_size)
        return fprintf(stderr, "bad-argument status\n"), 1;
    CHECK(rocblas_destroy_handle(h));
    CHECK(hipStreamDestroy(stream));
    printf("consumer ok\n");
    return 0;
}
