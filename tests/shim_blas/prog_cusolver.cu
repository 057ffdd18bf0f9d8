// cuSOLVER as a user writes it: _bufferSize, a cudaMalloc'd workspace, devInfo in device
// memory. Cholesky of an SPD matrix and LU of a general one; prints inputs and outputs.
#include <cstdio>
#include <cusolverDn.h>
#include <cuda_runtime.h>

#define CK(x) do { cusolverStatus_t s_ = (x); if (s_ != CUSOLVER_STATUS_SUCCESS) { \
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

int main(void)
{
    const int n = 6;
    double G[n * n], A[n * n];
    for (double &v : G) v = rnd();
    for (int i = 0; i < n; i++)  // A = G G^T + n I, column-major
        for (int j = 0; j < n; j++) {
            double s = i == j ? n : 0.0;
            for (int l = 0; l < n; l++) s += G[i + l * n] * G[j + l * n];
            A[i + j * n] = s;
        }
    dump("spd", A, n * n);
    cusolverDnHandle_t h;
    CK(cusolverDnCreate(&h));
    double *dA, *work;
    int *dinfo, *dipiv, lwork, info;
    CKR(cudaMalloc(&dA, sizeof A)); CKR(cudaMalloc(&dinfo, sizeof(int)));
    CKR(cudaMalloc(&dipiv, n * sizeof(int)));
    CKR(cudaMemcpy(dA, A, sizeof A, cudaMemcpyHostToDevice));
    CK(cusolverDnDpotrf_bufferSize(h, CUBLAS_FILL_MODE_LOWER, n, dA, n, &lwork));
    CKR(cudaMalloc(&work, (lwork ? lwork : 1) * sizeof(double)));
    CK(cusolverDnDpotrf(h, CUBLAS_FILL_MODE_LOWER, n, dA, n, work, lwork, dinfo));
    CKR(cudaMemcpy(&info, dinfo, sizeof info, cudaMemcpyDeviceToHost));
    printf("potrf_info %d\n", info);
    double out[n * n];
    CKR(cudaMemcpy(out, dA, sizeof out, cudaMemcpyDeviceToHost));
    dump("potrf", out, n * n);
    cudaFree(work);

    double M[n * n];
    for (double &v : M) v = rnd();
    dump("gen", M, n * n);
    CKR(cudaMemcpy(dA, M, sizeof M, cudaMemcpyHostToDevice));
    CK(cusolverDnDgetrf_bufferSize(h, n, n, dA, n, &lwork));
    CKR(cudaMalloc(&work, (lwork ? lwork : 1) * sizeof(double)));
    CK(cusolverDnDgetrf(h, n, n, dA, n, work, dipiv, dinfo));
    int ipiv[n];
    CKR(cudaMemcpy(&info, dinfo, sizeof info, cudaMemcpyDeviceToHost));
    CKR(cudaMemcpy(ipiv, dipiv, sizeof ipiv, cudaMemcpyDeviceToHost));
    CKR(cudaMemcpy(out, dA, sizeof out, cudaMemcpyDeviceToHost));
    printf("getrf_info %d\n", info);
    printf("ipiv");
    for (int i = 0; i < n; i++) printf(" %d", ipiv[i]);
    printf("\n");
    dump("getrf", out, n * n);
    CK(cusolverDnDestroy(h));
    cudaFree(dA); cudaFree(work); cudaFree(dinfo); cudaFree(dipiv);
    printf("PASS prog_cusolver\n");
    return 0;
}
