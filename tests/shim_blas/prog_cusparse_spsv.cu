// cuSPARSE's triangular solves as a user writes them: an n x n CSR matrix holding both
// triangles in cudaMalloc'd memory, its fill mode and diagonal type set as attributes,
// SpSV (bufferSize, analysis, solve) for every fill/diagonal/operation, SpSM with a
// row-major right-hand side, and SpVV, in float and double. Prints the CSR arrays, the
// operands and the results; the test solves the same with scipy.
#include <cstdio>
#include <cstdlib>
#include <cusparse.h>
#include <cuda_runtime.h>

#define CK(x) do { cusparseStatus_t s_ = (x); if (s_ != CUSPARSE_STATUS_SUCCESS) { \
    printf("FAIL %s -> %s\n", #x, cusparseGetErrorName(s_)); exit(1); } } while (0)
#define CKR(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
    printf("FAIL %s -> %d\n", #x, (int)e_); exit(1); } } while (0)

static unsigned seed = 777;
static double rnd(void) { seed = seed * 1103515245u + 12345u; return ((seed >> 8) % 2001) / 1000.0 - 1.0; }

template <typename T> static void dump(const char *tag, const char *label, const T *v, int n)
{
    printf("%s.%s", tag, label);
    for (int i = 0; i < n; i++) printf(" %.17g", (double)v[i]);
    printf("\n");
}

template <typename T> static T *upload(const T *h, int n)
{
    T *d;
    CKR(cudaMalloc(&d, (n ? n : 1) * sizeof(T)));
    CKR(cudaMemcpy(d, h, n * sizeof(T), cudaMemcpyHostToDevice));
    return d;
}

template <typename T> static void run(cusparseHandle_t h, int n, cudaDataType type, const char *tag)
{
    const int k = 2;
    int *ptr = new int[n + 1], *ind = new int[n * n], nnz = 0;
    T *val = new T[n * n], *x = new T[n], *y = new T[n], *B = new T[n * k], *C = new T[n * k];
    for (int r = 0; r < n; r++) {
        ptr[r] = nnz;
        for (int c = 0; c < n; c++)
            if (c == r || rnd() > 0.4) { ind[nnz] = c; val[nnz++] = (T)(c == r ? n + 2 + rnd() : rnd()); }
    }
    ptr[n] = nnz;
    for (int i = 0; i < n; i++) x[i] = (T)rnd();
    for (int i = 0; i < n * k; i++) B[i] = (T)rnd();  // row-major n x k
    printf("%s.shape %d %d\n", tag, n, nnz);
    printf("%s.ptr", tag); for (int i = 0; i <= n; i++) printf(" %d", ptr[i]); printf("\n");
    printf("%s.ind", tag); for (int i = 0; i < nnz; i++) printf(" %d", ind[i]); printf("\n");
    dump(tag, "val", val, nnz); dump(tag, "x", x, n); dump(tag, "B", B, n * k);
    int *dptr = upload(ptr, n + 1), *dind = upload(ind, nnz);
    T *dval = upload(val, nnz), *dx = upload(x, n), *dy = upload(y, n), *dB = upload(B, n * k),
      *dC = upload(C, n * k);
    T alpha = (T)1.5;
    for (int fill = 0; fill < 2; fill++)
        for (int diag = 0; diag < 2; diag++)
            for (int op = 0; op < 2; op++) {
                cusparseSpMatDescr_t A;
                CK(cusparseCreateCsr(&A, n, n, nnz, dptr, dind, dval, CUSPARSE_INDEX_32I,
                                     CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, type));
                cusparseFillMode_t f = fill ? CUSPARSE_FILL_MODE_UPPER : CUSPARSE_FILL_MODE_LOWER;
                cusparseDiagType_t d = diag ? CUSPARSE_DIAG_TYPE_UNIT : CUSPARSE_DIAG_TYPE_NON_UNIT;
                CK(cusparseSpMatSetAttribute(A, CUSPARSE_SPMAT_FILL_MODE, &f, sizeof f));
                CK(cusparseSpMatSetAttribute(A, CUSPARSE_SPMAT_DIAG_TYPE, &d, sizeof d));
                cusparseOperation_t o = op ? CUSPARSE_OPERATION_TRANSPOSE : CUSPARSE_OPERATION_NON_TRANSPOSE;
                cusparseDnVecDescr_t vx, vy;
                CK(cusparseCreateDnVec(&vx, n, dx, type));
                CK(cusparseCreateDnVec(&vy, n, dy, type));
                cusparseSpSVDescr_t sv;
                CK(cusparseSpSV_createDescr(&sv));
                size_t bytes = 0;
                void *buf;
                CK(cusparseSpSV_bufferSize(h, o, &alpha, A, vx, vy, type, CUSPARSE_SPSV_ALG_DEFAULT, sv, &bytes));
                CKR(cudaMalloc(&buf, bytes));
                CK(cusparseSpSV_analysis(h, o, &alpha, A, vx, vy, type, CUSPARSE_SPSV_ALG_DEFAULT, sv, buf));
                CK(cusparseSpSV_solve(h, o, &alpha, A, vx, vy, type, CUSPARSE_SPSV_ALG_DEFAULT, sv));
                CKR(cudaMemcpy(y, dy, n * sizeof(T), cudaMemcpyDeviceToHost));
                char label[32];
                snprintf(label, sizeof label, "y_%d%d%d", fill, diag, op);
                dump(tag, label, y, n);
                if (fill == 1 && diag == 0) {  // SpSM, B and C row-major, op(B) = B
                    cusparseDnMatDescr_t mB, mC;
                    CK(cusparseCreateDnMat(&mB, n, k, k, dB, type, CUSPARSE_ORDER_ROW));
                    CK(cusparseCreateDnMat(&mC, n, k, k, dC, type, CUSPARSE_ORDER_ROW));
                    cusparseSpSMDescr_t sm;
                    CK(cusparseSpSM_createDescr(&sm));
                    cusparseOperation_t nb = CUSPARSE_OPERATION_NON_TRANSPOSE;
                    CK(cusparseSpSM_bufferSize(h, o, nb, &alpha, A, mB, mC, type, CUSPARSE_SPSM_ALG_DEFAULT, sm, &bytes));
                    void *buf2;
                    CKR(cudaMalloc(&buf2, bytes));
                    CK(cusparseSpSM_analysis(h, o, nb, &alpha, A, mB, mC, type, CUSPARSE_SPSM_ALG_DEFAULT, sm, buf2));
                    CK(cusparseSpSM_solve(h, o, nb, &alpha, A, mB, mC, type, CUSPARSE_SPSM_ALG_DEFAULT, sm));
                    CKR(cudaMemcpy(C, dC, n * k * sizeof(T), cudaMemcpyDeviceToHost));
                    snprintf(label, sizeof label, "C_%d", op);
                    dump(tag, label, C, n * k);
                    CK(cusparseSpSM_destroyDescr(sm));
                    CK(cusparseDestroyDnMat(mB)); CK(cusparseDestroyDnMat(mC));
                    CKR(cudaFree(buf2));
                }
                CK(cusparseSpSV_destroyDescr(sv));
                CK(cusparseDestroyDnVec(vx)); CK(cusparseDestroyDnVec(vy));
                CK(cusparseDestroySpMat(A));
                CKR(cudaFree(buf));
            }
    // SpVV: row 0's stored entries as a sparse vector, dotted with x
    cusparseSpVecDescr_t sx;
    cusparseDnVecDescr_t vx;
    CK(cusparseCreateSpVec(&sx, n, ptr[1], dind, dval, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, type));
    CK(cusparseCreateDnVec(&vx, n, dx, type));
    T dot = 0;
    size_t bytes = 0;
    CK(cusparseSpVV_bufferSize(h, CUSPARSE_OPERATION_NON_TRANSPOSE, sx, vx, &dot, type, &bytes));
    void *buf;
    CKR(cudaMalloc(&buf, bytes ? bytes : 1));
    CK(cusparseSpVV(h, CUSPARSE_OPERATION_NON_TRANSPOSE, sx, vx, &dot, type, buf));
    dump(tag, "dot", &dot, 1);
    CK(cusparseDestroySpVec(sx)); CK(cusparseDestroyDnVec(vx));
    CKR(cudaFree(buf));
    CKR(cudaFree(dptr)); CKR(cudaFree(dind)); CKR(cudaFree(dval)); CKR(cudaFree(dx));
    CKR(cudaFree(dy)); CKR(cudaFree(dB)); CKR(cudaFree(dC));
    delete[] ptr; delete[] ind; delete[] val; delete[] x; delete[] y; delete[] B; delete[] C;
}

int main(int argc, char **argv)
{
    cusparseHandle_t h;
    CK(cusparseCreate(&h));
    for (int i = 1; i < argc; i++) {
        int n = atoi(argv[i]);
        char tag[32];
        snprintf(tag, sizeof tag, "d%d", n);
        run<double>(h, n, CUDA_R_64F, tag);
        snprintf(tag, sizeof tag, "s%d", n);
        run<float>(h, n, CUDA_R_32F, tag);
    }
    CK(cusparseDestroy(h));
    printf("PASS prog_cusparse_spsv\n");
    return 0;
}
