// What PyTorch's libtorch_cuda calls of cuSPARSE's BSR API and cuBLAS's batched QR, as a
// user writes them: a block sparse matrix (3x3 blocks, column-major within a block) in
// cudaMalloc'd memory; bsrmv (y = 2 A x - y0); bsrsv2 on A's lower triangle (A x = f);
// bsrsm2 on its upper triangle, unit diagonal, transposed (A^T X = 0.5 B); and
// cublasDgeqrfBatched of two 5x3 matrices with TauArray in device memory. Prints the
// inputs and the results for the test to check.
#include <cstdio>
#include <cublas_v2.h>
#include <cusparse.h>
#include <cuda_runtime.h>

#define CK(x) do { cusparseStatus_t s_ = (x); if (s_ != CUSPARSE_STATUS_SUCCESS) { \
    printf("FAIL %s -> %s\n", #x, cusparseGetErrorName(s_)); return 1; } } while (0)
#define CKB(x) do { cublasStatus_t s_ = (x); if (s_ != CUBLAS_STATUS_SUCCESS) { \
    printf("FAIL %s -> %d\n", #x, (int)s_); return 1; } } while (0)
#define CKR(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
    printf("FAIL %s -> %d\n", #x, (int)e_); return 1; } } while (0)

static unsigned seed = 777;
static double rnd(void) { seed = seed * 1103515245u + 12345u; return ((seed >> 8) % 2001) / 1000.0 - 1.0; }

static void dump(const char *label, const double *v, int n)
{
    printf("%s", label);
    for (int i = 0; i < n; i++) printf(" %.17g", v[i]);
    printf("\n");
}

template <typename T> static T *dev(const T *host, size_t count)
{
    T *d = NULL;
    if (cudaMalloc(&d, count * sizeof(T)) != cudaSuccess) return NULL;
    if (host && cudaMemcpy(d, host, count * sizeof(T), cudaMemcpyHostToDevice) != cudaSuccess) return NULL;
    return d;
}

int main(void)
{
    const int mb = 4, bd = 3, n = mb * bd, k = 2;
    int ptr[mb + 1], ind[mb * mb], nnzb = 0;
    double val[mb * mb * bd * bd];
    for (int i = 0; i < mb; i++) {  // the diagonal blocks and about half of the others
        ptr[i] = nnzb;
        for (int j = 0; j < mb; j++) {
            if (i != j && rnd() < 0.0) continue;
            ind[nnzb] = j;
            for (int e = 0; e < bd * bd; e++)
                val[nnzb * bd * bd + e] = rnd() + (i == j && e % (bd + 1) == 0 ? 8.0 : 0.0);
            nnzb++;
        }
    }
    ptr[mb] = nnzb;
    double x[n], y[n], f[n], xs[n], B[n * k], X[n * k];
    for (double &v : x) v = rnd();
    for (double &v : y) v = rnd();
    for (double &v : f) v = rnd();
    for (double &v : B) v = rnd();  // column-major n x k
    printf("shape %d %d %d\n", mb, bd, nnzb);
    printf("ptr"); for (int i = 0; i <= mb; i++) printf(" %d", ptr[i]); printf("\n");
    printf("ind"); for (int i = 0; i < nnzb; i++) printf(" %d", ind[i]); printf("\n");
    dump("val", val, nnzb * bd * bd); dump("x", x, n); dump("y0", y, n); dump("f", f, n);
    dump("B", B, n * k);

    int *dptr = dev(ptr, mb + 1), *dind = dev(ind, nnzb);
    double *dval = dev(val, nnzb * bd * bd), *dx = dev(x, n), *dy = dev(y, n), *df = dev(f, n);
    double *dxs = dev<double>(NULL, n), *dB = dev(B, n * k), *dX = dev<double>(NULL, n * k);
    if (!dptr || !dind || !dval || !dx || !dy || !df || !dxs || !dB || !dX) { printf("FAIL alloc\n"); return 1; }

    cusparseHandle_t h;
    CK(cusparseCreate(&h));
    cudaStream_t s;
    CKR(cudaStreamCreate(&s));
    CK(cusparseSetStream(h, s));
    cusparseMatDescr_t general, lower, upper_unit;
    CK(cusparseCreateMatDescr(&general));
    CK(cusparseCreateMatDescr(&lower));
    CK(cusparseSetMatFillMode(lower, CUSPARSE_FILL_MODE_LOWER));
    CK(cusparseSetMatDiagType(lower, CUSPARSE_DIAG_TYPE_NON_UNIT));
    CK(cusparseCreateMatDescr(&upper_unit));
    CK(cusparseSetMatFillMode(upper_unit, CUSPARSE_FILL_MODE_UPPER));
    CK(cusparseSetMatDiagType(upper_unit, CUSPARSE_DIAG_TYPE_UNIT));
    const cusparseDirection_t dir = CUSPARSE_DIRECTION_COLUMN;
    const cusparseOperation_t N = CUSPARSE_OPERATION_NON_TRANSPOSE, T = CUSPARSE_OPERATION_TRANSPOSE;
    double two = 2.0, minus_one = -1.0, one = 1.0, half = 0.5;
    CK(cusparseDbsrmv(h, dir, N, mb, mb, nnzb, &two, general, dval, dptr, dind, bd, dx,
                      &minus_one, dy));

    bsrsv2Info_t sv;
    CK(cusparseCreateBsrsv2Info(&sv));
    int bytes = 0;
    CK(cusparseDbsrsv2_bufferSize(h, dir, N, mb, nnzb, lower, dval, dptr, dind, bd, sv, &bytes));
    void *buf = NULL;
    CKR(cudaMalloc(&buf, bytes));
    CK(cusparseDbsrsv2_analysis(h, dir, N, mb, nnzb, lower, dval, dptr, dind, bd, sv,
                                CUSPARSE_SOLVE_POLICY_USE_LEVEL, buf));
    int pivot = 0;
    if (cusparseXbsrsv2_zeroPivot(h, sv, &pivot) != CUSPARSE_STATUS_SUCCESS || pivot != -1) {
        printf("FAIL bsrsv2 zero pivot %d\n", pivot);
        return 1;
    }
    CK(cusparseDbsrsv2_solve(h, dir, N, mb, nnzb, &one, lower, dval, dptr, dind, bd, sv, df, dxs,
                             CUSPARSE_SOLVE_POLICY_USE_LEVEL, buf));

    bsrsm2Info_t sm;
    CK(cusparseCreateBsrsm2Info(&sm));
    int bytes2 = 0;
    CK(cusparseDbsrsm2_bufferSize(h, dir, T, N, mb, k, nnzb, upper_unit, dval, dptr, dind, bd, sm,
                                  &bytes2));
    void *buf2 = NULL;
    CKR(cudaMalloc(&buf2, bytes2));
    CK(cusparseDbsrsm2_analysis(h, dir, T, N, mb, k, nnzb, upper_unit, dval, dptr, dind, bd, sm,
                                CUSPARSE_SOLVE_POLICY_NO_LEVEL, buf2));
    CK(cusparseDbsrsm2_solve(h, dir, T, N, mb, k, nnzb, &half, upper_unit, dval, dptr, dind, bd,
                             sm, dB, n, dX, n, CUSPARSE_SOLVE_POLICY_NO_LEVEL, buf2));
    CKR(cudaMemcpyAsync(y, dy, sizeof y, cudaMemcpyDeviceToHost, s));
    CKR(cudaMemcpyAsync(xs, dxs, sizeof xs, cudaMemcpyDeviceToHost, s));
    CKR(cudaMemcpyAsync(X, dX, sizeof X, cudaMemcpyDeviceToHost, s));
    CKR(cudaStreamSynchronize(s));
    dump("y", y, n); dump("xs", xs, n); dump("X", X, n * k);
    CK(cusparseDestroyBsrsv2Info(sv));
    CK(cusparseDestroyBsrsm2Info(sm));
    CK(cusparseDestroyMatDescr(general)); CK(cusparseDestroyMatDescr(lower));
    CK(cusparseDestroyMatDescr(upper_unit));
    CK(cusparseDestroy(h));

    // batched QR: two 5x3 column-major matrices, lda 6; Aarray and TauArray on the device
    const int m = 5, q = 3, lda = 6, batch = 2;
    double A[batch][lda * q], tau[batch][q];
    for (auto &a : A) for (double &v : a) v = rnd();
    for (int b = 0; b < batch; b++) dump(b ? "A1" : "A0", A[b], lda * q);
    double *dA[batch], *dtau[batch];
    for (int b = 0; b < batch; b++) {
        dA[b] = dev(A[b], lda * q);
        dtau[b] = dev<double>(NULL, q);
        if (!dA[b] || !dtau[b]) { printf("FAIL alloc\n"); return 1; }
    }
    double **dAarray = dev(dA, batch), **dTauArray = dev(dtau, batch);
    cublasHandle_t hb;
    CKB(cublasCreate(&hb));
    CKB(cublasSetStream(hb, s));
    int info = 99;
    CKB(cublasDgeqrfBatched(hb, m, q, dAarray, lda, dTauArray, &info, batch));
    if (info != 0) { printf("FAIL geqrfBatched info %d\n", info); return 1; }
    for (int b = 0; b < batch; b++) {
        CKR(cudaMemcpyAsync(A[b], dA[b], sizeof A[b], cudaMemcpyDeviceToHost, s));
        CKR(cudaMemcpyAsync(tau[b], dtau[b], sizeof tau[b], cudaMemcpyDeviceToHost, s));
    }
    CKR(cudaStreamSynchronize(s));
    for (int b = 0; b < batch; b++) {
        dump(b ? "QR1" : "QR0", A[b], lda * q);
        dump(b ? "tau1" : "tau0", tau[b], q);
    }
    // a bad lda is argument 5, reported in the host info
    if (cublasDgeqrfBatched(hb, m, q, dAarray, m - 1, dTauArray, &info, batch) !=
            CUBLAS_STATUS_INVALID_VALUE || info != -5) {
        printf("FAIL geqrfBatched bad lda: info %d\n", info);
        return 1;
    }
    CKB(cublasDestroy(hb));
    printf("PASS prog_bsr_geqrf\n");
    return 0;
}
