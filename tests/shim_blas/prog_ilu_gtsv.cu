// What CuPy's cupyx.scipy.sparse.linalg.spilu and cupyx.scipy.linalg's tridiagonal solves
// call of cuSPARSE, as a user writes them: a 5-point Laplacian-like CSR matrix on a 4x4 grid
// (off-diagonal values varying by edge, a dominant diagonal, symmetric) in cudaMalloc'd memory on a
// stream; csrilu02 (zero-based, with a numeric boost that must not fire) and csric02
// (one-based) with their zero pivots; gtsv2 on a system whose leading diagonal is zero
// (only a pivoting solve survives it), gtsv2_nopivot and gtsv2StridedBatch. Prints the
// inputs and the results for the test to check.
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

template <typename T> static T *dev(const T *host, size_t count)
{
    T *d = NULL;
    if (cudaMalloc(&d, count * sizeof(T)) != cudaSuccess) return NULL;
    if (host && cudaMemcpy(d, host, count * sizeof(T), cudaMemcpyHostToDevice) != cudaSuccess) return NULL;
    return d;
}

template <typename T> static int back(T *host, const T *d, size_t count)
{
    return cudaMemcpy(host, d, count * sizeof(T), cudaMemcpyDeviceToHost) != cudaSuccess;
}

enum { G = 4, N = G * G, MAXNNZ = 5 * N };

// the symmetric off-diagonal value of the grid edge between cells a < b
static double edge(int a, int b) { return -0.5 - 0.25 * (((a * 7 + b * 3) % 5) / 4.0); }

// no zero pivot: success and position -1 (a CUSPARSE_STATUS_ZERO_PIVOT would name it)
static int pivot_check(cusparseStatus_t st, const int &pivot, const char *what)
{
    if (st != CUSPARSE_STATUS_SUCCESS || pivot != -1) {
        printf("FAIL %s zero pivot %d (%s)\n", what, pivot, cusparseGetErrorName(st));
        return 1;
    }
    return 0;
}

int main(void)
{
    int ptr[N + 1], ind[MAXNNZ], nnz = 0;
    double val[MAXNNZ];
    for (int i = 0; i < N; i++) {
        ptr[i] = nnz;
        int r = i / G, c = i % G;
        int cols[5] = {i - G, i - 1, i, i + 1, i + G};
        int ok[5] = {r > 0, c > 0, 1, c < G - 1, r < G - 1};
        for (int e = 0; e < 5; e++) {
            if (!ok[e]) continue;
            int j = cols[e];
            ind[nnz] = j;
            val[nnz] = j == i ? 4.0 + 0.1 * (i % 3) : edge(i < j ? i : j, i < j ? j : i);
            nnz++;
        }
    }
    ptr[N] = nnz;
    printf("shape %d %d\n", N, nnz);
    printf("ptr"); for (int i = 0; i <= N; i++) printf(" %d", ptr[i]); printf("\n");
    printf("ind"); for (int i = 0; i < nnz; i++) printf(" %d", ind[i]); printf("\n");
    dump("val", val, nnz);

    cusparseHandle_t h;
    CK(cusparseCreate(&h));
    cudaStream_t s;
    CKR(cudaStreamCreate(&s));
    CK(cusparseSetStream(h, s));
    const cusparseSolvePolicy_t level = CUSPARSE_SOLVE_POLICY_USE_LEVEL;

    // ILU(0), zero-based
    int *dptr = dev(ptr, N + 1), *dind = dev(ind, nnz);
    double *dval = dev(val, nnz);
    if (!dptr || !dind || !dval) { printf("FAIL alloc\n"); return 1; }
    cusparseMatDescr_t a;
    CK(cusparseCreateMatDescr(&a));
    CK(cusparseSetMatType(a, CUSPARSE_MATRIX_TYPE_GENERAL));
    csrilu02Info_t ilu;
    CK(cusparseCreateCsrilu02Info(&ilu));
    int bytes = 0, pivot = 0;
    CK(cusparseDcsrilu02_bufferSize(h, N, nnz, a, dval, dptr, dind, ilu, &bytes));
    void *buf = NULL;
    CKR(cudaMalloc(&buf, bytes));
    double tol = 1e-8, boost = 1e3;  // no pivot of this matrix is that small
    CK(cusparseDcsrilu02_numericBoost(h, ilu, 1, &tol, &boost));
    CK(cusparseDcsrilu02_analysis(h, N, nnz, a, dval, dptr, dind, ilu, level, buf));
    if (pivot_check(cusparseXcsrilu02_zeroPivot(h, ilu, &pivot), pivot, "csrilu02 analysis")) return 1;
    CK(cusparseDcsrilu02(h, N, nnz, a, dval, dptr, dind, ilu, level, buf));
    if (pivot_check(cusparseXcsrilu02_zeroPivot(h, ilu, &pivot), pivot, "csrilu02")) return 1;
    double lu[MAXNNZ];
    if (back(lu, dval, nnz)) { printf("FAIL copy\n"); return 1; }
    dump("ilu", lu, nnz);

    // IC(0), one-based indices of the same matrix
    int ptr1[N + 1], ind1[MAXNNZ];
    for (int i = 0; i <= N; i++) ptr1[i] = ptr[i] + 1;
    for (int k = 0; k < nnz; k++) ind1[k] = ind[k] + 1;
    int *dptr1 = dev(ptr1, N + 1), *dind1 = dev(ind1, nnz);
    double *dval1 = dev(val, nnz);
    if (!dptr1 || !dind1 || !dval1) { printf("FAIL alloc\n"); return 1; }
    cusparseMatDescr_t a1;
    CK(cusparseCreateMatDescr(&a1));
    CK(cusparseSetMatIndexBase(a1, CUSPARSE_INDEX_BASE_ONE));
    csric02Info_t ic;
    CK(cusparseCreateCsric02Info(&ic));
    int bytes1 = 0;
    CK(cusparseDcsric02_bufferSize(h, N, nnz, a1, dval1, dptr1, dind1, ic, &bytes1));
    void *buf1 = NULL;
    CKR(cudaMalloc(&buf1, bytes1));
    CK(cusparseDcsric02_analysis(h, N, nnz, a1, dval1, dptr1, dind1, ic, level, buf1));
    CK(cusparseDcsric02(h, N, nnz, a1, dval1, dptr1, dind1, ic, level, buf1));
    if (pivot_check(cusparseXcsric02_zeroPivot(h, ic, &pivot), pivot, "csric02")) return 1;
    double l[MAXNNZ];
    if (back(l, dval1, nnz)) { printf("FAIL copy\n"); return 1; }
    dump("ic", l, nnz);

    // tridiagonal: m x k right-hand sides, ldb m + 1; a zero d[0] for the pivoting solve
    const int m = 7, k = 2, ldb = m + 1, batch = 3, stride = m + 2;
    double dl[m], d[m], du[m], dd[m], B[ldb * k], Bn[ldb * k];
    for (int i = 0; i < m; i++) {
        dl[i] = i ? rnd() : 0.0;
        du[i] = i < m - 1 ? rnd() : 0.0;
        d[i] = i ? rnd() : 0.0;
        dd[i] = 4.0 + rnd();  // diagonally dominant for the non-pivoting solves
    }
    for (double &v : B) v = rnd();
    for (int i = 0; i < ldb * k; i++) Bn[i] = B[i];
    dump("dl", dl, m); dump("d", d, m); dump("du", du, m); dump("dd", dd, m);
    dump("B", B, ldb * k);
    double *ddl = dev(dl, m), *dd_ = dev(d, m), *ddu = dev(du, m), *ddd = dev(dd, m);
    double *dB = dev(B, ldb * k), *dBn = dev(Bn, ldb * k);
    if (!ddl || !dd_ || !ddu || !ddd || !dB || !dBn) { printf("FAIL alloc\n"); return 1; }
    size_t tb = 0;
    CK(cusparseDgtsv2_bufferSizeExt(h, m, k, ddl, dd_, ddu, dB, ldb, &tb));
    void *tbuf = NULL;
    CKR(cudaMalloc(&tbuf, tb));
    CK(cusparseDgtsv2(h, m, k, ddl, dd_, ddu, dB, ldb, tbuf));
    CK(cusparseDgtsv2_nopivot_bufferSizeExt(h, m, k, ddl, ddd, ddu, dBn, ldb, &tb));
    void *nbuf = NULL;
    CKR(cudaMalloc(&nbuf, tb));
    CK(cusparseDgtsv2_nopivot(h, m, k, ddl, ddd, ddu, dBn, ldb, nbuf));
    if (back(B, dB, ldb * k) || back(Bn, dBn, ldb * k)) { printf("FAIL copy\n"); return 1; }
    dump("X", B, ldb * k);
    dump("Xn", Bn, ldb * k);

    // strided batch: system b is dl/dd/du scaled by b + 1, its right-hand side B's first column
    double sl[stride * batch], sd[stride * batch], su[stride * batch], sx[stride * batch];
    for (int b = 0; b < batch; b++)
        for (int i = 0; i < stride; i++) {
            int at = b * stride + i;
            sl[at] = i < m ? (b + 1) * dl[i] : 0.0;
            sd[at] = i < m ? (b + 1) * dd[i] : 0.0;
            su[at] = i < m ? (b + 1) * du[i] : 0.0;
            sx[at] = i < m ? rnd() : 0.0;
        }
    dump("sx0", sx, stride * batch);
    double *dsl = dev(sl, stride * batch), *dsd = dev(sd, stride * batch);
    double *dsu = dev(su, stride * batch), *dsx = dev(sx, stride * batch);
    if (!dsl || !dsd || !dsu || !dsx) { printf("FAIL alloc\n"); return 1; }
    CK(cusparseDgtsv2StridedBatch_bufferSizeExt(h, m, dsl, dsd, dsu, dsx, batch, stride, &tb));
    void *sbuf = NULL;
    CKR(cudaMalloc(&sbuf, tb));
    CK(cusparseDgtsv2StridedBatch(h, m, dsl, dsd, dsu, dsx, batch, stride, sbuf));
    if (back(sx, dsx, stride * batch)) { printf("FAIL copy\n"); return 1; }
    dump("sx", sx, stride * batch);

    CK(cusparseDestroyCsrilu02Info(ilu));
    CK(cusparseDestroyCsric02Info(ic));
    CK(cusparseDestroyMatDescr(a));
    CK(cusparseDestroyMatDescr(a1));
    CK(cusparseDestroy(h));
    CKR(cudaStreamDestroy(s));
    printf("PASS prog_ilu_gtsv\n");
    return 0;
}
