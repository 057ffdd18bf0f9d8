// cuBLASLt as PyTorch and CuPy call it: a handle, a matmul descriptor with its attributes
// (transposes, epilogue, bias/aux pointers), matrix layouts (order, batch, stride), a
// preference with a workspace limit, one algorithm from the heuristic, and cublasLtMatmul on
// a stream with that workspace. Each case prints its operands and D (as numbers), the test
// computes D with numpy. Then the error paths, each printed as "ERR name status".
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>
#include <cublasLt.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#define CK(x) do { cublasStatus_t s_ = (x); if (s_ != CUBLAS_STATUS_SUCCESS) { \
    printf("FAIL %s -> %d\n", #x, (int)s_); exit(1); } } while (0)
#define CKR(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
    printf("FAIL %s -> %d\n", #x, (int)e_); exit(1); } } while (0)

static unsigned seed = 777;
// multiples of 1/8 in [-2, 2]: exact in f16 and bf16, so the inputs numpy sees are exact
static float rnd(void) { seed = seed * 1103515245u + 12345u; return (float)((int)((seed >> 8) % 33) - 16) / 8.0f; }

static size_t tsize(cudaDataType t)
{
    switch (t) {
    case CUDA_R_64F: return 8;
    case CUDA_R_32F: case CUDA_R_32I: return 4;
    case CUDA_R_16F: case CUDA_R_16BF: return 2;
    default: return 1;
    }
}

static void put(void *p, cudaDataType t, size_t i, double v)
{
    switch (t) {
    case CUDA_R_64F: ((double *)p)[i] = v; break;
    case CUDA_R_32F: ((float *)p)[i] = (float)v; break;
    case CUDA_R_32I: ((int *)p)[i] = (int)v; break;
    case CUDA_R_16F: ((__half *)p)[i] = __float2half((float)v); break;
    case CUDA_R_16BF: ((__nv_bfloat16 *)p)[i] = __float2bfloat16((float)v); break;
    default: ((signed char *)p)[i] = (signed char)v; break;
    }
}

static double get(const void *p, cudaDataType t, size_t i)
{
    switch (t) {
    case CUDA_R_64F: return ((const double *)p)[i];
    case CUDA_R_32F: return ((const float *)p)[i];
    case CUDA_R_32I: return ((const int *)p)[i];
    case CUDA_R_16F: return __half2float(((const __half *)p)[i]);
    case CUDA_R_16BF: return __bfloat162float(((const __nv_bfloat16 *)p)[i]);
    default: return ((const signed char *)p)[i];
    }
}

// a host copy of a device operand, printed as its elements in memory order
struct Buf {
    cudaDataType t; size_t n; std::vector<unsigned char> host; void *dev = nullptr;
    Buf(cudaDataType t_, size_t n_, bool fill) : t(t_), n(n_), host(n_ * tsize(t_)) {
        // integer operands: whole numbers in [-16, 16]
        double scale = t == CUDA_R_8I || t == CUDA_R_32I ? 8.0 : 1.0;
        for (size_t i = 0; i < n; i++) put(host.data(), t, i, fill ? rnd() * scale : 0.0);
        CKR(cudaMalloc(&dev, host.size()));
    }
    void up(cudaStream_t s) { CKR(cudaMemcpyAsync(dev, host.data(), host.size(), cudaMemcpyHostToDevice, s)); }
    void down(cudaStream_t s) { CKR(cudaMemcpyAsync(host.data(), dev, host.size(), cudaMemcpyDeviceToHost, s)); }
    void print(const char *label) const {
        printf("%s", label);
        for (size_t i = 0; i < n; i++) printf(" %.17g", get(host.data(), t, i));
        printf("\n");
    }
};

static cublasLtMatrixLayout_t layout(cudaDataType t, int rows, int cols, int ld, int order,
                                     int batch, long long stride)
{
    cublasLtMatrixLayout_t l;
    CK(cublasLtMatrixLayoutCreate(&l, t, rows, cols, ld));
    int32_t o = order;
    CK(cublasLtMatrixLayoutSetAttribute(l, CUBLASLT_MATRIX_LAYOUT_ORDER, &o, sizeof o));
    if (batch > 1) {
        int32_t b = batch;
        int64_t s = stride;
        CK(cublasLtMatrixLayoutSetAttribute(l, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, &b, sizeof b));
        CK(cublasLtMatrixLayoutSetAttribute(l, CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET, &s, sizeof s));
    }
    return l;
}

struct Case {
    const char *name;
    cudaDataType ab, cd, scale, bias_t;
    cublasComputeType_t compute;
    cublasOperation_t ta, tb;
    int order;  // CUBLASLT_ORDER_COL or _ROW, every operand
    int m, n, k, batch;
    cublasLtEpilogue_t epi;
    double alpha, beta;
};

static cublasLtHandle_t lt;
static cudaStream_t stream;
static void *workspace;
static const size_t WS = 1 << 20;

static void run(const Case &c)
{
    int ar = c.ta == CUBLAS_OP_N ? c.m : c.k, ac = c.ta == CUBLAS_OP_N ? c.k : c.m;
    int br = c.tb == CUBLAS_OP_N ? c.k : c.n, bc = c.tb == CUBLAS_OP_N ? c.n : c.k;
    bool col = c.order == CUBLASLT_ORDER_COL;
    // a padded leading dimension, so ld is honoured rather than assumed
    int lda = (col ? ar : ac) + 1, ldb = (col ? br : bc) + 2, ldc = (col ? c.m : c.n) + 1;
    size_t sa = (size_t)lda * (col ? ac : ar), sb = (size_t)ldb * (col ? bc : br);
    size_t sc = (size_t)ldc * (col ? c.n : c.m);
    Buf A(c.ab, sa * c.batch, true), B(c.ab, sb * c.batch, true), C(c.cd, sc * c.batch, true);
    Buf D(c.cd, sc * c.batch, false);
    bool bias = c.epi & CUBLASLT_EPILOGUE_BIAS, aux = c.epi & 128;
    Buf Bias(c.bias_t, c.m, true), Aux(c.cd, (size_t)c.m * c.n * c.batch, false);
    A.up(stream); B.up(stream); C.up(stream); D.up(stream); Bias.up(stream); Aux.up(stream);

    cublasLtMatmulDesc_t op;
    CK(cublasLtMatmulDescCreate(&op, c.compute, c.scale));
    int32_t ta = c.ta, tb = c.tb;
    CK(cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_TRANSA, &ta, sizeof ta));
    CK(cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_TRANSB, &tb, sizeof tb));
    uint32_t epi = c.epi;
    CK(cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_EPILOGUE, &epi, sizeof epi));
    if (bias) {
        CK(cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_BIAS_POINTER, &Bias.dev, sizeof Bias.dev));
        int32_t bt = c.bias_t;
        CK(cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_BIAS_DATA_TYPE, &bt, sizeof bt));
    }
    if (aux) {
        int64_t ld = c.m, stride = (int64_t)c.m * c.n;
        CK(cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_POINTER, &Aux.dev, sizeof Aux.dev));
        CK(cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_LD, &ld, sizeof ld));
        CK(cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_BATCH_STRIDE, &stride, sizeof stride));
    }
    cublasLtMatrixLayout_t la = layout(c.ab, ar, ac, lda, c.order, c.batch, (long long)sa);
    cublasLtMatrixLayout_t lb = layout(c.ab, br, bc, ldb, c.order, c.batch, (long long)sb);
    cublasLtMatrixLayout_t lc = layout(c.cd, c.m, c.n, ldc, c.order, c.batch, (long long)sc);
    cublasLtMatmulPreference_t pref;
    CK(cublasLtMatmulPreferenceCreate(&pref));
    uint64_t ws = WS;
    CK(cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &ws, sizeof ws));
    cublasLtMatmulHeuristicResult_t res[4];
    int got = 0;
    CK(cublasLtMatmulAlgoGetHeuristic(lt, op, la, lb, lc, lc, pref, 4, res, &got));
    if (got < 1 || res[0].state != CUBLAS_STATUS_SUCCESS || res[0].workspaceSize > WS) {
        printf("FAIL heuristic %s: %d algorithms\n", c.name, got);
        exit(1);
    }
    // scalars in the scale type, on the host
    unsigned char alpha[8], beta[8];
    put(alpha, c.scale, 0, c.alpha);
    put(beta, c.scale, 0, c.beta);
    CK(cublasLtMatmul(lt, op, alpha, A.dev, la, B.dev, lb, beta, C.dev, lc, D.dev, lc,
                      &res[0].algo, workspace, WS, stream));
    D.down(stream); Aux.down(stream);
    CKR(cudaStreamSynchronize(stream));
    printf("case %s %d %d %d %d %d %d %d %d %d %d %d %.17g %.17g %d\n", c.name, c.m, c.n, c.k,
           c.batch, (int)c.ta, (int)c.tb, c.order, lda, ldb, ldc, (int)c.epi, c.alpha, c.beta,
           (int)c.cd);
    A.print("A"); B.print("B"); C.print("C"); D.print("D");
    if (bias) Bias.print("bias");
    if (aux) Aux.print("aux");
    cublasLtMatmulPreferenceDestroy(pref);
    cublasLtMatrixLayoutDestroy(la); cublasLtMatrixLayoutDestroy(lb); cublasLtMatrixLayoutDestroy(lc);
    cublasLtMatmulDescDestroy(op);
}

// C (ROW order, padded) = alpha A (COL) + beta B^T (COL): an order change with a transpose
static void transform(void)
{
    const int m = 5, n = 3, lda = 6, ldb = 4, ldc = 5;
    Buf A(CUDA_R_32F, (size_t)lda * n, true), B(CUDA_R_32F, (size_t)ldb * m, true);
    Buf C(CUDA_R_32F, (size_t)ldc * m, false);
    A.up(stream); B.up(stream); C.up(stream);
    cublasLtMatrixTransformDesc_t td;
    CK(cublasLtMatrixTransformDescCreate(&td, CUDA_R_32F));
    int32_t tb = CUBLAS_OP_T;
    CK(cublasLtMatrixTransformDescSetAttribute(td, CUBLASLT_MATRIX_TRANSFORM_DESC_TRANSB, &tb, sizeof tb));
    cublasLtMatrixLayout_t la = layout(CUDA_R_32F, m, n, lda, CUBLASLT_ORDER_COL, 1, 0);
    cublasLtMatrixLayout_t lb = layout(CUDA_R_32F, n, m, ldb, CUBLASLT_ORDER_COL, 1, 0);
    cublasLtMatrixLayout_t lc = layout(CUDA_R_32F, m, n, ldc, CUBLASLT_ORDER_ROW, 1, 0);
    float alpha = 2.0f, beta = -0.5f;
    CK(cublasLtMatrixTransform(lt, td, &alpha, A.dev, la, &beta, B.dev, lb, C.dev, lc, stream));
    C.down(stream);
    CKR(cudaStreamSynchronize(stream));
    printf("transform %d %d %d %d %d %.17g %.17g\n", m, n, lda, ldb, ldc, (double)alpha, (double)beta);
    A.print("A"); B.print("B"); C.print("C");
    printf("ERR transform_forged_desc %d\n", (int)cublasLtMatrixTransform(
        lt, (cublasLtMatrixTransformDesc_t)0x99, &alpha, A.dev, la, &beta, B.dev, lb, C.dev, lc, stream));
    printf("ERR transform_bad_shape %d\n", (int)cublasLtMatrixTransform(
        lt, td, &alpha, A.dev, lb, &beta, B.dev, lb, C.dev, lc, stream));
    cublasLtMatrixLayoutDestroy(la); cublasLtMatrixLayoutDestroy(lb); cublasLtMatrixLayoutDestroy(lc);
    CK(cublasLtMatrixTransformDescDestroy(td));
}

static void err(const char *name, cublasStatus_t s) { printf("ERR %s %d\n", name, (int)s); }

static void errors(void)
{
    float one = 1.0f, zero = 0.0f;
    float *d;
    CKR(cudaMalloc(&d, 64 * sizeof(float)));
    CKR(cudaMemset(d, 0, 64 * sizeof(float)));
    cublasLtMatmulDesc_t op;
    CK(cublasLtMatmulDescCreate(&op, CUBLAS_COMPUTE_32F, CUDA_R_32F));
    cublasLtMatrixLayout_t l4, bad_ld, l3x4;
    CK(cublasLtMatrixLayoutCreate(&l4, CUDA_R_32F, 4, 4, 4));
    CK(cublasLtMatrixLayoutCreate(&bad_ld, CUDA_R_32F, 4, 4, 2));  // ld < rows
    CK(cublasLtMatrixLayoutCreate(&l3x4, CUDA_R_32F, 3, 4, 3));
    err("good", cublasLtMatmul(lt, op, &one, d, l4, d, l4, &zero, d, l4, d, l4, nullptr, nullptr, 0, stream));
    err("forged_handle", cublasLtMatmul((cublasLtHandle_t)0x1234, op, &one, d, l4, d, l4, &zero, d, l4, d, l4, nullptr, nullptr, 0, stream));
    err("forged_desc", cublasLtMatmul(lt, (cublasLtMatmulDesc_t)0x5678, &one, d, l4, d, l4, &zero, d, l4, d, l4, nullptr, nullptr, 0, stream));
    err("bad_ld", cublasLtMatmul(lt, op, &one, d, bad_ld, d, l4, &zero, d, l4, d, l4, nullptr, nullptr, 0, stream));
    err("shape_mismatch", cublasLtMatmul(lt, op, &one, d, l4, d, l4, &zero, d, l3x4, d, l3x4, nullptr, nullptr, 0, stream));
    cublasLtMatmulAlgo_t foreign;
    memset(&foreign, 0x5a, sizeof foreign);
    err("foreign_algo", cublasLtMatmul(lt, op, &one, d, l4, d, l4, &zero, d, l4, d, l4, &foreign, nullptr, 0, stream));
    err("workspace_null", cublasLtMatmul(lt, op, &one, d, l4, d, l4, &zero, d, l4, d, l4, nullptr, nullptr, 256, stream));
    uint32_t epi = CUBLASLT_EPILOGUE_DGELU;
    CK(cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_EPILOGUE, &epi, sizeof epi));
    // DGELU reads GELU's input from the aux pointer, which is not set
    err("epilogue_dgelu_no_aux", cublasLtMatmul(lt, op, &one, d, l4, d, l4, &zero, d, l4, d, l4, nullptr, nullptr, 0, stream));
    epi = 1024;  // no cuBLASLt epilogue has this number
    CK(cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_EPILOGUE, &epi, sizeof epi));
    err("epilogue_unknown", cublasLtMatmul(lt, op, &one, d, l4, d, l4, &zero, d, l4, d, l4, nullptr, nullptr, 0, stream));
    epi = CUBLASLT_EPILOGUE_BIAS;  // no bias pointer set
    CK(cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_EPILOGUE, &epi, sizeof epi));
    err("bias_null", cublasLtMatmul(lt, op, &one, d, l4, d, l4, &zero, d, l4, d, l4, nullptr, nullptr, 0, stream));
    int16_t small = 0;
    err("attr_wrong_size", cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_TRANSA, &small, sizeof small));
    err("attr_unknown", cublasLtMatmulDescSetAttribute(op, (cublasLtMatmulDescAttributes_t)9, &epi, sizeof epi));
    size_t written = 0;
    cublasStatus_t s = cublasLtMatmulDescGetAttribute(op, CUBLASLT_MATMUL_DESC_EPILOGUE, nullptr, 0, &written);
    printf("ERR size_query %d %zu\n", (int)s, written);
    uint32_t back = 0;
    s = cublasLtMatmulDescGetAttribute(op, CUBLASLT_MATMUL_DESC_EPILOGUE, &back, sizeof back, &written);
    printf("ERR get_epilogue %d %u\n", (int)s, back);
    cublasLtMatrixLayout_t order32 = nullptr;
    CK(cublasLtMatrixLayoutCreate(&order32, CUDA_R_32F, 4, 4, 128));
    int32_t o = CUBLASLT_ORDER_COL32;
    CK(cublasLtMatrixLayoutSetAttribute(order32, CUBLASLT_MATRIX_LAYOUT_ORDER, &o, sizeof o));
    epi = CUBLASLT_EPILOGUE_DEFAULT;
    CK(cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_EPILOGUE, &epi, sizeof epi));
    err("order_col32", cublasLtMatmul(lt, op, &one, d, order32, d, l4, &zero, d, l4, d, l4, nullptr, nullptr, 0, stream));
    cublasLtMatrixLayoutDestroy(l3x4);
    err("destroyed_layout", cublasLtMatmul(lt, op, &one, d, l4, d, l4, &zero, d, l3x4, d, l3x4, nullptr, nullptr, 0, stream));
    err("double_destroy", cublasLtMatrixLayoutDestroy(l3x4));
    err("unsupported_export", cublasLtLoggerSetLevel(2));
    cublasLtMatrixLayoutDestroy(order32);
    cublasLtMatrixLayoutDestroy(bad_ld);
    cublasLtMatrixLayoutDestroy(l4);
    cublasLtMatmulDescDestroy(op);
    CKR(cudaFree(d));
}

int main(void)
{
    CK(cublasLtCreate(&lt));
    CKR(cudaStreamCreate(&stream));
    CKR(cudaMalloc(&workspace, WS));
    printf("version %zu\n", cublasLtGetVersion());
    const int COL = CUBLASLT_ORDER_COL, ROW = CUBLASLT_ORDER_ROW;
    const Case cases[] = {
        {"f32", CUDA_R_32F, CUDA_R_32F, CUDA_R_32F, CUDA_R_32F, CUBLAS_COMPUTE_32F, CUBLAS_OP_N, CUBLAS_OP_N, COL, 5, 4, 3, 1, CUBLASLT_EPILOGUE_DEFAULT, 1.5, 0.5},
        {"f64_tn_row_batched", CUDA_R_64F, CUDA_R_64F, CUDA_R_64F, CUDA_R_64F, CUBLAS_COMPUTE_64F, CUBLAS_OP_T, CUBLAS_OP_N, ROW, 6, 3, 5, 3, CUBLASLT_EPILOGUE_DEFAULT, -1.25, 2.0},
        {"f16_relu_bias", CUDA_R_16F, CUDA_R_16F, CUDA_R_32F, CUDA_R_16F, CUBLAS_COMPUTE_32F, CUBLAS_OP_N, CUBLAS_OP_T, COL, 7, 5, 4, 1, CUBLASLT_EPILOGUE_RELU_BIAS, 1.0, 0.0},
        {"bf16_gelu_bias_f32out", CUDA_R_16BF, CUDA_R_32F, CUDA_R_32F, CUDA_R_32F, CUBLAS_COMPUTE_32F, CUBLAS_OP_T, CUBLAS_OP_T, COL, 4, 6, 5, 2, CUBLASLT_EPILOGUE_GELU_BIAS, 0.75, 0.25},
        {"f32_gelu_aux_bias", CUDA_R_32F, CUDA_R_32F, CUDA_R_32F, CUDA_R_32F, CUBLAS_COMPUTE_32F, CUBLAS_OP_N, CUBLAS_OP_N, COL, 5, 3, 4, 2, CUBLASLT_EPILOGUE_GELU_AUX_BIAS, 1.0, 1.0},
        {"f32_relu", CUDA_R_32F, CUDA_R_32F, CUDA_R_32F, CUDA_R_32F, CUBLAS_COMPUTE_32F, CUBLAS_OP_N, CUBLAS_OP_N, ROW, 6, 6, 2, 1, CUBLASLT_EPILOGUE_RELU, 1.0, 0.0},
        {"tf32", CUDA_R_32F, CUDA_R_32F, CUDA_R_32F, CUDA_R_32F, CUBLAS_COMPUTE_32F_FAST_TF32, CUBLAS_OP_N, CUBLAS_OP_T, COL, 8, 6, 7, 1, CUBLASLT_EPILOGUE_DEFAULT, 1.0, 0.0},
        {"i8_i32", CUDA_R_8I, CUDA_R_32I, CUDA_R_32I, CUDA_R_32I, CUBLAS_COMPUTE_32I, CUBLAS_OP_T, CUBLAS_OP_N, COL, 4, 5, 8, 1, CUBLASLT_EPILOGUE_DEFAULT, 2.0, 1.0},
    };
    for (const Case &c : cases)
        run(c);
    transform();
    errors();
    CKR(cudaFree(workspace));
    CKR(cudaStreamDestroy(stream));
    CK(cublasLtDestroy(lt));
    err("destroyed_handle", cublasLtDestroy(lt));
    printf("PASS prog_cublaslt\n");
    return 0;
}
