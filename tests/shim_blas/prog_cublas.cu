// A CUDA program as a user writes it: cudaMalloc'd device memory, cuBLAS handles, copies,
// a few routines of each level; prints its inputs and outputs for the test to check.
#include <cstdio>
#include <cstdlib>
#include <cublas_v2.h>
#include <cuda_runtime.h>

#define CK(x) do { cublasStatus_t s_ = (x); if (s_ != CUBLAS_STATUS_SUCCESS) { \
    printf("FAIL %s -> %s\n", #x, cublasGetStatusName(s_)); return 1; } } while (0)
#define CKR(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
    printf("FAIL %s -> %d\n", #x, (int)e_); return 1; } } while (0)

static unsigned seed = 12345;
static double rnd(void) { seed = seed * 1103515245u + 12345u; return ((seed >> 8) % 2001) / 1000.0 - 1.0; }

template <typename T> static void dump(const char *label, const T *v, int n)
{
    printf("%s", label);
    for (int i = 0; i < n; i++) printf(" %.17g", (double)v[i]);
    printf("\n");
}

int main(void)
{
    const int m = 5, n = 4, k = 3, lda = 7, ldb = 6, ldc = 5;
    float A[lda * k], B[ldb * k], C[ldc * n];  // A m x k (lda), B n x k (ldb, used as B^T)
    for (float &x : A) x = (float)rnd();
    for (float &x : B) x = (float)rnd();
    for (float &x : C) x = (float)rnd();
    dump("A", A, lda * k); dump("B", B, ldb * k); dump("C", C, ldc * n);

    cublasHandle_t h;
    CK(cublasCreate(&h));
    float *dA, *dB, *dC;
    CKR(cudaMalloc(&dA, sizeof A)); CKR(cudaMalloc(&dB, sizeof B)); CKR(cudaMalloc(&dC, sizeof C));
    CK(cublasSetMatrix(m, k, sizeof(float), A, lda, dA, lda));
    CK(cublasSetMatrix(n, k, sizeof(float), B, ldb, dB, ldb));
    CK(cublasSetMatrix(m, n, sizeof(float), C, ldc, dC, ldc));
    const float alpha = 1.5f, beta = -0.5f;
    CK(cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_T, m, n, k, &alpha, dA, lda, dB, ldb, &beta, dC, ldc));
    float out[ldc * n];
    CK(cublasGetMatrix(m, n, sizeof(float), dC, ldc, out, ldc));
    dump("sgemm", out, ldc * n);

    // level 1 with the result in device memory (device pointer mode)
    double x[16], y[16];
    for (double &v : x) v = rnd();
    for (double &v : y) v = rnd();
    dump("x", x, 16); dump("y", y, 16);
    double *dx, *dy, *dres;
    CKR(cudaMalloc(&dx, sizeof x)); CKR(cudaMalloc(&dy, sizeof y)); CKR(cudaMalloc(&dres, 8));
    CK(cublasSetVector(16, sizeof(double), x, 1, dx, 1));
    CK(cublasSetVector(16, sizeof(double), y, 1, dy, 1));
    CK(cublasSetPointerMode(h, CUBLAS_POINTER_MODE_DEVICE));
    CK(cublasDdot(h, 16, dx, 1, dy, 1, dres));
    CK(cublasSetPointerMode(h, CUBLAS_POINTER_MODE_HOST));
    double dot;
    CKR(cudaMemcpy(&dot, dres, 8, cudaMemcpyDeviceToHost));
    dump("ddot", &dot, 1);
    int imax;
    CK(cublasIdamax(h, 16, dx, 1, &imax));
    printf("idamax %d\n", imax);
    const double two = 2.0;
    CK(cublasDaxpy(h, 16, &two, dx, 1, dy, 1));
    CK(cublasGetVector(16, sizeof(double), dy, 1, y, 1));
    dump("daxpy", y, 16);

    // level 2 on a stream
    cudaStream_t s;
    CKR(cudaStreamCreate(&s));
    CK(cublasSetStream(h, s));
    const float one = 1.0f, zero = 0.0f;
    float xv[k];
    for (float &v : xv) v = (float)rnd();
    dump("xv", xv, k);
    float *dxv, *dyv;
    CKR(cudaMalloc(&dxv, sizeof xv)); CKR(cudaMalloc(&dyv, m * sizeof(float)));
    CK(cublasSetVectorAsync(k, sizeof(float), xv, 1, dxv, 1, s));
    CK(cublasSgemv(h, CUBLAS_OP_N, m, k, &one, dA, lda, dxv, 1, &zero, dyv, 1));
    float yv[m];
    CK(cublasGetVectorAsync(m, sizeof(float), dyv, 1, yv, 1, s));
    CKR(cudaStreamSynchronize(s));
    dump("sgemv", yv, m);

    // an entry point pyshim does not map answers NOT_SUPPORTED, it does not crash
    cublasStatus_t st = cublasStpttr(h, CUBLAS_FILL_MODE_LOWER, 1, dA, dB, 1);
    printf("stpttr %s\n", cublasGetStatusName(st));
    int ver;
    CK(cublasGetProperty(MAJOR_VERSION, &ver));
    printf("major %d\n", ver);
    CK(cublasDestroy(h));
    cudaFree(dA); cudaFree(dB); cudaFree(dC); cudaFree(dx); cudaFree(dy); cudaFree(dres);
    cudaFree(dxv); cudaFree(dyv); cudaStreamDestroy(s);
    printf("PASS prog_cublas\n");
    return 0;
}
