// cuSPARSE's generic API as a user writes it: a CSR matrix and dense operands in
// cudaMalloc'd memory, SpMV (y = alpha A x + beta y, and A^T) and SpMM with their
// _bufferSize workspaces. Prints the CSR arrays, the operands and the results.
#include <cstdio>
#include <cusparse.h>
#include <cuda_runtime.h>

#define CK(x) do { cusparseStatus_t s_ = (x); if (s_ != CUSPARSE_STATUS_SUCCESS) { \
    printf("FAIL %s -> %s\n", #x, cusparseGetErrorName(s_)); return 1; } } while (0)
#define CKR(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
    printf("FAIL %s -> %d\n", #x, (int)e_); return 1; } } while (0)

static unsigned seed = 4242;
static double rnd(void) { seed = seed * 1103515245u + 12345u; return ((seed >> 8) % 2001) / 1000.0 - 1.0; }

static void dump(const char *label, const double *v, int n)
{
    printf("%s", label);
    for (int i = 0; i < n; i++) printf(" %.17g", v[i]);
    printf("\n");
}

int main(void)
{
    const int m = 9, n = 7, k = 3;
    int ptr[m + 1], ind[m * n], nnz = 0;
    double val[m * n];
    for (int r = 0; r < m; r++) {  // about a third of the entries, fixed by the generator
        ptr[r] = nnz;
        for (int c = 0; c < n; c++)
            if (rnd() > 0.3) { ind[nnz] = c; val[nnz++] = rnd(); }
    }
    ptr[m] = nnz;
    double x[n], y[m], xt[m], yt[n], B[n * k], C[m * k];
    for (double &v : x) v = rnd();
    for (double &v : y) v = rnd();
    for (double &v : xt) v = rnd();
    for (double &v : B) v = rnd();  // column-major n x k
    printf("shape %d %d %d\n", m, n, nnz);
    printf("ptr"); for (int i = 0; i <= m; i++) printf(" %d", ptr[i]); printf("\n");
    printf("ind"); for (int i = 0; i < nnz; i++) printf(" %d", ind[i]); printf("\n");
    dump("val", val, nnz); dump("x", x, n); dump("y0", y, m); dump("xt", xt, m); dump("B", B, n * k);

    int *dptr, *dind;
    double *dval, *dx, *dy, *dxt, *dyt, *dB, *dC;
    CKR(cudaMalloc(&dptr, sizeof ptr)); CKR(cudaMalloc(&dind, nnz * sizeof(int)));
    CKR(cudaMalloc(&dval, nnz * sizeof(double)));
    CKR(cudaMalloc(&dx, sizeof x)); CKR(cudaMalloc(&dy, sizeof y)); CKR(cudaMalloc(&dxt, sizeof xt));
    CKR(cudaMalloc(&dyt, sizeof yt)); CKR(cudaMalloc(&dB, sizeof B)); CKR(cudaMalloc(&dC, sizeof C));
    CKR(cudaMemcpy(dptr, ptr, sizeof ptr, cudaMemcpyHostToDevice));
    CKR(cudaMemcpy(dind, ind, nnz * sizeof(int), cudaMemcpyHostToDevice));
    CKR(cudaMemcpy(dval, val, nnz * sizeof(double), cudaMemcpyHostToDevice));
    CKR(cudaMemcpy(dx, x, sizeof x, cudaMemcpyHostToDevice));
    CKR(cudaMemcpy(dy, y, sizeof y, cudaMemcpyHostToDevice));
    CKR(cudaMemcpy(dxt, xt, sizeof xt, cudaMemcpyHostToDevice));
    CKR(cudaMemcpy(dB, B, sizeof B, cudaMemcpyHostToDevice));

    cusparseHandle_t h;
    CK(cusparseCreate(&h));
    cudaStream_t s;
    CKR(cudaStreamCreate(&s));
    CK(cusparseSetStream(h, s));
    cusparseSpMatDescr_t A;
    cusparseDnVecDescr_t vx, vy, vxt, vyt;
    cusparseDnMatDescr_t mB, mC;
    CK(cusparseCreateCsr(&A, m, n, nnz, dptr, dind, dval, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I,
                         CUSPARSE_INDEX_BASE_ZERO, CUDA_R_64F));
    CK(cusparseCreateDnVec(&vx, n, dx, CUDA_R_64F)); CK(cusparseCreateDnVec(&vy, m, dy, CUDA_R_64F));
    CK(cusparseCreateDnVec(&vxt, m, dxt, CUDA_R_64F)); CK(cusparseCreateDnVec(&vyt, n, dyt, CUDA_R_64F));
    CK(cusparseCreateDnMat(&mB, n, k, n, dB, CUDA_R_64F, CUSPARSE_ORDER_COL));
    CK(cusparseCreateDnMat(&mC, m, k, m, dC, CUDA_R_64F, CUSPARSE_ORDER_COL));
    double alpha = 2.0, beta = -1.0, zero = 0.0;
    size_t bytes = 0;
    void *buf = NULL;
    CK(cusparseSpMV_bufferSize(h, CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha, A, vx, &beta, vy,
                               CUDA_R_64F, CUSPARSE_SPMV_ALG_DEFAULT, &bytes));
    CKR(cudaMalloc(&buf, bytes ? bytes : 1));
    CK(cusparseSpMV(h, CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha, A, vx, &beta, vy, CUDA_R_64F,
                    CUSPARSE_SPMV_ALG_DEFAULT, buf));
    CK(cusparseSpMV(h, CUSPARSE_OPERATION_TRANSPOSE, &alpha, A, vxt, &zero, vyt, CUDA_R_64F,
                    CUSPARSE_SPMV_CSR_ALG1, buf));
    CK(cusparseSpMM_bufferSize(h, CUSPARSE_OPERATION_NON_TRANSPOSE, CUSPARSE_OPERATION_NON_TRANSPOSE,
                               &alpha, A, mB, &zero, mC, CUDA_R_64F, CUSPARSE_SPMM_ALG_DEFAULT, &bytes));
    void *buf2 = NULL;
    CKR(cudaMalloc(&buf2, bytes ? bytes : 1));
    CK(cusparseSpMM(h, CUSPARSE_OPERATION_NON_TRANSPOSE, CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha,
                    A, mB, &zero, mC, CUDA_R_64F, CUSPARSE_SPMM_ALG_DEFAULT, buf2));
    CKR(cudaMemcpyAsync(y, dy, sizeof y, cudaMemcpyDeviceToHost, s));
    CKR(cudaMemcpyAsync(yt, dyt, sizeof yt, cudaMemcpyDeviceToHost, s));
    CKR(cudaMemcpyAsync(C, dC, sizeof C, cudaMemcpyDeviceToHost, s));
    CKR(cudaStreamSynchronize(s));
    dump("y", y, m); dump("yt", yt, n); dump("C", C, m * k);
    CK(cusparseDestroySpMat(A));
    CK(cusparseDestroyDnVec(vx)); CK(cusparseDestroyDnVec(vy));
    CK(cusparseDestroyDnVec(vxt)); CK(cusparseDestroyDnVec(vyt));
    CK(cusparseDestroyDnMat(mB)); CK(cusparseDestroyDnMat(mC));
    CK(cusparseDestroy(h));
    printf("PASS prog_cusparse\n");
    return 0;
}
