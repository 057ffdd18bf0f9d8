// cuBLASLt's fp8 matmuls as Transformer Engine calls them (E4M3/E5M2 A and B, TN, f32
// compute, per-tensor A/B/C/D scale pointers and an amax_D pointer, bias/ReLU/GELU
// epilogues, f32/f16/bf16/fp8 D), a TF32 matmul of inputs TF32 cannot hold exactly, and the
// epilogues and scale uses the CPU device refuses. Every fp8 operand and result is printed
// as its byte; the test decodes them from the formats' definitions and computes D with
// numpy. "conv" lines are cuda_fp8.h's own saturating conversions, for the test's encoder.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cublasLt.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>
#include <cuda_runtime.h>

#define CK(x) do { cublasStatus_t s_ = (x); if (s_ != CUBLAS_STATUS_SUCCESS) { \
    printf("FAIL %s -> %d\n", #x, (int)s_); exit(1); } } while (0)
#define CKR(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
    printf("FAIL %s -> %d\n", #x, (int)e_); exit(1); } } while (0)

static unsigned seed = 4242;
static float urand(float lo, float hi)
{
    seed = seed * 1103515245u + 12345u;
    return lo + (hi - lo) * (float)((seed >> 8) & 0xffff) / 65535.0f;
}

static bool is_fp8(cudaDataType t) { return t == CUDA_R_8F_E4M3 || t == CUDA_R_8F_E5M2; }
static size_t tsize(cudaDataType t) { return t == CUDA_R_32F ? 4 : is_fp8(t) ? 1 : 2; }

static unsigned char to_fp8(float v, cudaDataType t)
{
    return __nv_cvt_float_to_fp8(v, __NV_SATFINITE, t == CUDA_R_8F_E4M3 ? __NV_E4M3 : __NV_E5M2);
}

static void put(void *p, cudaDataType t, size_t i, float v)
{
    switch (t) {
    case CUDA_R_32F: ((float *)p)[i] = v; break;
    case CUDA_R_16F: ((__half *)p)[i] = __float2half(v); break;
    case CUDA_R_16BF: ((__nv_bfloat16 *)p)[i] = __float2bfloat16(v); break;
    default: ((unsigned char *)p)[i] = to_fp8(v, t); break;
    }
}

// fp8 elements print as their byte, the rest as numbers
static void print(const char *label, const void *p, cudaDataType t, size_t n)
{
    printf("%s", label);
    for (size_t i = 0; i < n; i++) {
        switch (t) {
        case CUDA_R_32F: printf(" %.9g", ((const float *)p)[i]); break;
        case CUDA_R_16F: printf(" %.9g", __half2float(((const __half *)p)[i])); break;
        case CUDA_R_16BF: printf(" %.9g", __bfloat162float(((const __nv_bfloat16 *)p)[i])); break;
        default: printf(" %u", ((const unsigned char *)p)[i]); break;
        }
    }
    printf("\n");
}

struct Dev {
    std::vector<unsigned char> host; void *dev = nullptr;
    Dev(size_t bytes) : host(bytes) { CKR(cudaMalloc(&dev, bytes ? bytes : 1)); }
    void up() { CKR(cudaMemcpy(dev, host.data(), host.size(), cudaMemcpyHostToDevice)); }
    void down() { CKR(cudaMemcpy(host.data(), dev, host.size(), cudaMemcpyDeviceToHost)); }
};

static cublasLtHandle_t lt;

struct Case {
    const char *name;
    cudaDataType at, bt, ct, dt, bias_t;
    cublasComputeType_t compute;
    int m, n, k;
    cublasLtEpilogue_t epi;
    float alpha, beta, sa, sb, sc, sd;  // a scale of 0: the pointer is left unset
    bool amax;
    float range;                        // operands drawn from [-range, range]
};

static void set_ptr(cublasLtMatmulDesc_t op, cublasLtMatmulDescAttributes_t attr, void *p)
{
    CK(cublasLtMatmulDescSetAttribute(op, attr, &p, sizeof p));
}

// D = epilogue(...) with A op T (k x m stored), B op N (k x n), column major, ld = rows
static void run(const Case &c)
{
    Dev A(tsize(c.at) * c.k * c.m), B(tsize(c.bt) * c.k * c.n), C(tsize(c.ct) * c.m * c.n);
    Dev D(tsize(c.dt) * c.m * c.n), Bias(tsize(c.bias_t) * c.m), S(5 * sizeof(float));
    for (int i = 0; i < c.k * c.m; i++) put(A.host.data(), c.at, i, urand(-c.range, c.range));
    for (int i = 0; i < c.k * c.n; i++) put(B.host.data(), c.bt, i, urand(-c.range, c.range));
    for (int i = 0; i < c.m * c.n; i++) put(C.host.data(), c.ct, i, urand(-2, 2));
    for (int i = 0; i < c.m; i++) put(Bias.host.data(), c.bias_t, i, urand(-1, 1));
    float *s = (float *)S.host.data();
    s[0] = c.sa; s[1] = c.sb; s[2] = c.sc; s[3] = c.sd; s[4] = -1.0f;  // amax: overwritten
    A.up(); B.up(); C.up(); D.up(); Bias.up(); S.up();

    cublasLtMatmulDesc_t op;
    CK(cublasLtMatmulDescCreate(&op, c.compute, CUDA_R_32F));
    int32_t ta = CUBLAS_OP_T, tb = CUBLAS_OP_N;
    CK(cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_TRANSA, &ta, sizeof ta));
    CK(cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_TRANSB, &tb, sizeof tb));
    uint32_t epi = c.epi;
    CK(cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_EPILOGUE, &epi, sizeof epi));
    if (epi & CUBLASLT_EPILOGUE_BIAS)  // its type left at cuBLASLt's fp8 default
        set_ptr(op, CUBLASLT_MATMUL_DESC_BIAS_POINTER, Bias.dev);
    float *sdev = (float *)S.dev;
    const cublasLtMatmulDescAttributes_t sattr[4] = {
        CUBLASLT_MATMUL_DESC_A_SCALE_POINTER, CUBLASLT_MATMUL_DESC_B_SCALE_POINTER,
        CUBLASLT_MATMUL_DESC_C_SCALE_POINTER, CUBLASLT_MATMUL_DESC_D_SCALE_POINTER};
    for (int i = 0; i < 4; i++)
        if (s[i] != 0.0f) set_ptr(op, sattr[i], sdev + i);
    if (c.amax) set_ptr(op, CUBLASLT_MATMUL_DESC_AMAX_D_POINTER, sdev + 4);
    cublasLtMatrixLayout_t la, lb, lc, ld;
    CK(cublasLtMatrixLayoutCreate(&la, c.at, c.k, c.m, c.k));
    CK(cublasLtMatrixLayoutCreate(&lb, c.bt, c.k, c.n, c.k));
    CK(cublasLtMatrixLayoutCreate(&lc, c.ct, c.m, c.n, c.m));
    CK(cublasLtMatrixLayoutCreate(&ld, c.dt, c.m, c.n, c.m));
    cublasLtMatmulPreference_t pref;
    CK(cublasLtMatmulPreferenceCreate(&pref));
    cublasLtMatmulHeuristicResult_t res;
    int got = 0;
    CK(cublasLtMatmulAlgoGetHeuristic(lt, op, la, lb, lc, ld, pref, 1, &res, &got));
    if (got != 1) { printf("FAIL heuristic %s\n", c.name); exit(1); }
    CK(cublasLtMatmul(lt, op, &c.alpha, A.dev, la, B.dev, lb, &c.beta, C.dev, lc, D.dev, ld,
                      &res.algo, nullptr, 0, 0));
    CKR(cudaDeviceSynchronize());
    D.down(); S.down();
    printf("case %s %d %d %d %d %d %d %d %d %u %.9g %.9g\n", c.name, (int)c.at, (int)c.bt,
           (int)c.ct, (int)c.dt, (int)c.compute, c.m, c.n, c.k, (unsigned)c.epi, c.alpha, c.beta);
    print("A", A.host.data(), c.at, (size_t)c.k * c.m);
    print("B", B.host.data(), c.bt, (size_t)c.k * c.n);
    print("C", C.host.data(), c.ct, (size_t)c.m * c.n);
    print("D", D.host.data(), c.dt, (size_t)c.m * c.n);
    if (epi & CUBLASLT_EPILOGUE_BIAS) print("bias", Bias.host.data(), c.bias_t, c.m);
    print("scales", S.host.data(), CUDA_R_32F, 5);
    cublasLtMatmulPreferenceDestroy(pref);
    cublasLtMatrixLayoutDestroy(la); cublasLtMatrixLayoutDestroy(lb);
    cublasLtMatrixLayoutDestroy(lc); cublasLtMatrixLayoutDestroy(ld);
    cublasLtMatmulDescDestroy(op);
}

// The backward epilogues on an f32 problem, D (m x n) = alpha A B^T + beta C: aux in (the
// ReLU bit mask, ld 128 bits, or GELU's input, ld m) or out (RELU_AUX*'s mask); the bias
// pointer in (RELU_AUX_BIAS) or out (the bias gradients).
static void backward(const char *name, uint32_t epi)
{
    const int m = 6, n = 5, k = 4;
    bool mask = epi == CUBLASLT_EPILOGUE_RELU_AUX || epi == CUBLASLT_EPILOGUE_RELU_AUX_BIAS ||
                epi == CUBLASLT_EPILOGUE_DRELU || epi == CUBLASLT_EPILOGUE_DRELU_BGRAD;
    int64_t ald = mask ? 128 : m;
    Dev A(4 * m * k), B(4 * n * k), C(4 * m * n), D(4 * m * n), Bias(4 * (m > n ? m : n));
    Dev Aux(mask ? ald / 8 * n : 4 * m * n);
    float *f;
    f = (float *)A.host.data(); for (int i = 0; i < m * k; i++) f[i] = urand(-2, 2);
    f = (float *)B.host.data(); for (int i = 0; i < n * k; i++) f[i] = urand(-2, 2);
    f = (float *)C.host.data(); for (int i = 0; i < m * n; i++) f[i] = urand(-2, 2);
    f = (float *)Bias.host.data(); for (int i = 0; i < (m > n ? m : n); i++) f[i] = urand(-1, 1);
    for (size_t i = 0; i < Aux.host.size(); i++)  // a random mask, or GELU inputs in [-3, 3]
        if (mask) Aux.host[i] = (unsigned char)(urand(0, 255.99f));
        else if (i % 4 == 0) ((float *)Aux.host.data())[i / 4] = urand(-3, 3);
    A.up(); B.up(); C.up(); D.up(); Bias.up(); Aux.up();
    cublasLtMatmulDesc_t op;
    CK(cublasLtMatmulDescCreate(&op, CUBLAS_COMPUTE_32F, CUDA_R_32F));
    int32_t tb = CUBLAS_OP_T;
    CK(cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_TRANSB, &tb, sizeof tb));
    CK(cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_EPILOGUE, &epi, sizeof epi));
    set_ptr(op, CUBLASLT_MATMUL_DESC_BIAS_POINTER, Bias.dev);
    set_ptr(op, CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_POINTER, Aux.dev);
    CK(cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_LD, &ald, sizeof ald));
    cublasLtMatrixLayout_t la, lb, lc;
    CK(cublasLtMatrixLayoutCreate(&la, CUDA_R_32F, m, k, m));
    CK(cublasLtMatrixLayoutCreate(&lb, CUDA_R_32F, n, k, n));
    CK(cublasLtMatrixLayoutCreate(&lc, CUDA_R_32F, m, n, m));
    cublasLtMatmulPreference_t pref;
    CK(cublasLtMatmulPreferenceCreate(&pref));
    cublasLtMatmulHeuristicResult_t res;
    int got = 0;
    CK(cublasLtMatmulAlgoGetHeuristic(lt, op, la, lb, lc, lc, pref, 1, &res, &got));
    float alpha = 1.5f, beta = 0.5f;
    CK(cublasLtMatmul(lt, op, &alpha, A.dev, la, B.dev, lb, &beta, C.dev, lc, D.dev, lc,
                      &res.algo, nullptr, 0, 0));
    std::vector<unsigned char> aux_in = Aux.host;
    CKR(cudaDeviceSynchronize());
    D.down(); Bias.down(); Aux.down();
    printf("backward %s %u %d %d %d %lld %.9g %.9g\n", name, epi, m, n, k, (long long)ald,
           alpha, beta);
    print("A", A.host.data(), CUDA_R_32F, m * k);
    print("B", B.host.data(), CUDA_R_32F, n * k);
    print("C", C.host.data(), CUDA_R_32F, m * n);
    print("D", D.host.data(), CUDA_R_32F, m * n);
    print("bias", Bias.host.data(), CUDA_R_32F, m > n ? m : n);
    // aux before and after: the mask's bytes, or GELU's inputs
    const unsigned char *bufs[2] = {aux_in.data(), Aux.host.data()};
    for (int i = 0; i < 2; i++) {
        printf("%s", i ? "auxout" : "auxin");
        for (size_t j = 0; j < aux_in.size() / (mask ? 1 : 4); j++)
            if (mask) printf(" %u", bufs[i][j]);
            else printf(" %.9g", ((const float *)bufs[i])[j]);
        printf("\n");
    }
    cublasLtMatmulPreferenceDestroy(pref);
    cublasLtMatrixLayoutDestroy(la); cublasLtMatrixLayoutDestroy(lb); cublasLtMatrixLayoutDestroy(lc);
    cublasLtMatmulDescDestroy(op);
}

// the heuristic's and the matmul's status for a problem of this type with this epilogue
static void refused(const char *name, uint32_t epi, bool scale, cudaDataType t = CUDA_R_32F)
{
    const int n = 8;
    Dev X(4 * n * n), Aux(4 * n * n), Bias(4 * n), S(4);
    ((float *)S.host.data())[0] = 1.0f;
    S.up();
    cublasLtMatmulDesc_t op;
    CK(cublasLtMatmulDescCreate(&op, CUBLAS_COMPUTE_32F, CUDA_R_32F));
    CK(cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_EPILOGUE, &epi, sizeof epi));
    set_ptr(op, CUBLASLT_MATMUL_DESC_BIAS_POINTER, Bias.dev);
    set_ptr(op, CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_POINTER, Aux.dev);
    int64_t ld = 128;
    CK(cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_LD, &ld, sizeof ld));
    if (scale) set_ptr(op, CUBLASLT_MATMUL_DESC_A_SCALE_POINTER, S.dev);
    cublasLtMatrixLayout_t l, lab;
    CK(cublasLtMatrixLayoutCreate(&l, CUDA_R_32F, n, n, n));
    CK(cublasLtMatrixLayoutCreate(&lab, t, n, n, n));
    cublasLtMatmulPreference_t pref;
    CK(cublasLtMatmulPreferenceCreate(&pref));
    cublasLtMatmulHeuristicResult_t res;
    int got = -1;
    float one = 1.0f, zero = 0.0f;
    int h = (int)cublasLtMatmulAlgoGetHeuristic(lt, op, lab, lab, l, l, pref, 1, &res, &got);
    int m = (int)cublasLtMatmul(lt, op, &one, X.dev, lab, X.dev, lab, &zero, X.dev, l, X.dev, l,
                                nullptr, nullptr, 0, 0);
    printf("REFUSED %s %d %d %d\n", name, h, got, m);
    cublasLtMatmulPreferenceDestroy(pref);
    cublasLtMatrixLayoutDestroy(l);
    cublasLtMatrixLayoutDestroy(lab);
    cublasLtMatmulDescDestroy(op);
}

// Every type, compute and epilogue combination of a grid: the heuristic's status and count,
// then the matmul's with that algorithm (operands zero, every pointer set): a combination the
// heuristic answers must then run.
static void grid(void)
{
    const int n = 8;
    Dev X(8 * n * n), Y(8 * n * n), Aux(8 * n * 128), Bias(8 * n);
    X.up(); Y.up(); Aux.up(); Bias.up();
    const cudaDataType ab[][2] = {
        {CUDA_R_32F, CUDA_R_32F}, {CUDA_R_16F, CUDA_R_16F}, {CUDA_R_16BF, CUDA_R_16BF},
        {CUDA_R_64F, CUDA_R_64F}, {CUDA_R_8I, CUDA_R_8I}, {CUDA_R_8F_E4M3, CUDA_R_8F_E4M3},
        {CUDA_R_8F_E4M3, CUDA_R_8F_E5M2}, {CUDA_R_8F_E5M2, CUDA_R_8F_E4M3},
        {CUDA_R_32F, CUDA_R_16F}};
    const cudaDataType cd[][2] = {
        {CUDA_R_32F, CUDA_R_32F}, {CUDA_R_16F, CUDA_R_16F}, {CUDA_R_16BF, CUDA_R_16BF},
        {CUDA_R_64F, CUDA_R_64F}, {CUDA_R_32I, CUDA_R_32I}, {CUDA_R_16F, CUDA_R_8F_E4M3},
        {CUDA_R_16BF, CUDA_R_8F_E5M2}, {CUDA_R_32F, CUDA_R_8F_E4M3}};
    const cublasComputeType_t computes[] = {CUBLAS_COMPUTE_32F, CUBLAS_COMPUTE_32F_FAST_TF32,
                                            CUBLAS_COMPUTE_16F, CUBLAS_COMPUTE_64F,
                                            CUBLAS_COMPUTE_32I};
    const uint32_t epis[] = {CUBLASLT_EPILOGUE_DEFAULT, CUBLASLT_EPILOGUE_RELU_BIAS,
                             CUBLASLT_EPILOGUE_GELU_AUX, CUBLASLT_EPILOGUE_RELU_AUX,
                             CUBLASLT_EPILOGUE_DGELU_BGRAD, CUBLASLT_EPILOGUE_BGRADB};
    for (const auto &t : ab)
        for (const auto &u : cd)
            for (cublasComputeType_t comp : computes)
                for (uint32_t epi : epis) {
                    cudaDataType st = comp == CUBLAS_COMPUTE_64F ? CUDA_R_64F
                                    : comp == CUBLAS_COMPUTE_32I ? CUDA_R_32I
                                    : comp == CUBLAS_COMPUTE_16F ? CUDA_R_16F : CUDA_R_32F;
                    cublasLtMatmulDesc_t op;
                    CK(cublasLtMatmulDescCreate(&op, comp, st));
                    int32_t ta = CUBLAS_OP_T;
                    CK(cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_TRANSA, &ta, sizeof ta));
                    CK(cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_EPILOGUE, &epi, sizeof epi));
                    set_ptr(op, CUBLASLT_MATMUL_DESC_BIAS_POINTER, Bias.dev);
                    set_ptr(op, CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_POINTER, Aux.dev);
                    int64_t ald = 128;
                    CK(cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_LD, &ald, sizeof ald));
                    cublasLtMatrixLayout_t la, lb, lc, ld;
                    CK(cublasLtMatrixLayoutCreate(&la, t[0], n, n, n));
                    CK(cublasLtMatrixLayoutCreate(&lb, t[1], n, n, n));
                    CK(cublasLtMatrixLayoutCreate(&lc, u[0], n, n, n));
                    CK(cublasLtMatrixLayoutCreate(&ld, u[1], n, n, n));
                    cublasLtMatmulPreference_t pref;
                    CK(cublasLtMatmulPreferenceCreate(&pref));
                    cublasLtMatmulHeuristicResult_t res;
                    int got = -1;
                    int h = (int)cublasLtMatmulAlgoGetHeuristic(lt, op, la, lb, lc, ld, pref, 1, &res, &got);
                    unsigned char one[8] = {0}, zero[8] = {0};
                    if (st == CUDA_R_64F) *(double *)one = 1.0;
                    else if (st == CUDA_R_32I) *(int *)one = 1;
                    else if (st == CUDA_R_16F) *(__half *)one = __float2half(1.0f);
                    else *(float *)one = 1.0f;
                    int m = h == 0 && got == 1
                        ? (int)cublasLtMatmul(lt, op, one, X.dev, la, X.dev, lb, zero, Y.dev, lc,
                                              Y.dev, ld, &res.algo, nullptr, 0, 0)
                        : (int)cublasLtMatmul(lt, op, one, X.dev, la, X.dev, lb, zero, Y.dev, lc,
                                              Y.dev, ld, nullptr, nullptr, 0, 0);
                    printf("GRID %d %d %d %d %d %u %d %d %d\n", (int)t[0], (int)t[1], (int)u[0],
                           (int)u[1], (int)comp, epi, h, got, m);
                    cublasLtMatmulPreferenceDestroy(pref);
                    cublasLtMatrixLayoutDestroy(la); cublasLtMatrixLayoutDestroy(lb);
                    cublasLtMatrixLayoutDestroy(lc); cublasLtMatrixLayoutDestroy(ld);
                    cublasLtMatmulDescDestroy(op);
                }
    CKR(cudaDeviceSynchronize());
}

int main()
{
    CK(cublasLtCreate(&lt));
    // NVIDIA's own conversions of values at the formats' edges: ties, overflow, subnormals
    const float probes[] = {0.0f, -0.0f, 1.0f, 1.0625f, 1.1875f, 1.125f, 1.375f, 447.0f,
                            448.0f, 464.0f, 480.0f, 1000.0f, -1e30f, INFINITY, -INFINITY,
                            NAN, 0.001953125f, 0.0009765625f, 0.0029296875f, 1.5e-5f,
                            57344.0f, 61440.0f, 1e6f, 0.0001f, -3.3f, 2.6e-7f};
    for (float p : probes)
        printf("conv %.9g %u %u\n", p, to_fp8(p, CUDA_R_8F_E4M3), to_fp8(p, CUDA_R_8F_E5M2));
    const cudaDataType E4 = CUDA_R_8F_E4M3, E5 = CUDA_R_8F_E5M2, F = CUDA_R_32F,
                       H = CUDA_R_16F, BF = CUDA_R_16BF;
    const cublasComputeType_t C32 = CUBLAS_COMPUTE_32F;
    const Case cases[] = {
        {"e4m3_f32_amax", E4, E4, F, F, BF, C32, 7, 5, 16, CUBLASLT_EPILOGUE_DEFAULT,
         1.25f, 0.5f, 0.5f, 2.0f, 0, 0, true, 3.0f},
        {"e4m3_e5m2_bf16_relu_bias", E4, E5, BF, BF, BF, C32, 6, 9, 32,
         CUBLASLT_EPILOGUE_RELU_BIAS, 1.0f, -0.75f, 0.25f, 1.5f, 2.0f, 0.5f, true, 4.0f},
        {"e4m3_f16_to_e4m3_gelu_bias", E4, E4, H, E4, H, C32, 8, 6, 24,
         CUBLASLT_EPILOGUE_GELU_BIAS, 0.5f, 1.0f, 1.0f, 0.5f, 0.5f, 16.0f, true, 6.0f},
        {"e5m2_e4m3_bf16_to_e5m2_saturating", E5, E4, BF, E5, BF, C32, 5, 7, 40,
         CUBLASLT_EPILOGUE_DEFAULT, 2.0f, 0.0f, 8.0f, 4.0f, 0, 64.0f, true, 100.0f},
        {"tf32", F, F, F, F, F, CUBLAS_COMPUTE_32F_FAST_TF32, 9, 7, 33,
         CUBLASLT_EPILOGUE_DEFAULT, 1.0f, 0.0f, 0, 0, 0, 0, false, 1.0f},
        {"f32_plain", F, F, F, F, F, C32, 9, 7, 33, CUBLASLT_EPILOGUE_DEFAULT, 1.0f, 0.0f,
         0, 0, 0, 0, false, 1.0f},
    };
    for (const Case &c : cases) {
        if (c.at == F) seed = 99;  // tf32 and f32_plain: the same draws
        run(c);
    }
    backward("relu_aux", CUBLASLT_EPILOGUE_RELU_AUX);
    backward("relu_aux_bias", CUBLASLT_EPILOGUE_RELU_AUX_BIAS);
    backward("drelu", CUBLASLT_EPILOGUE_DRELU);
    backward("drelu_bgrad", CUBLASLT_EPILOGUE_DRELU_BGRAD);
    backward("dgelu", CUBLASLT_EPILOGUE_DGELU);
    backward("dgelu_bgrad", CUBLASLT_EPILOGUE_DGELU_BGRAD);
    backward("bgrada", CUBLASLT_EPILOGUE_BGRADA);
    backward("bgradb", CUBLASLT_EPILOGUE_BGRADB);
    // fp8 gradients are the CPU device's refusal (named by the epilogue in the log)
    refused("fp8_dgelu", CUBLASLT_EPILOGUE_DGELU, false, CUDA_R_8F_E4M3);
    refused("fp8_bgradb", CUBLASLT_EPILOGUE_BGRADB, false, CUDA_R_8F_E4M3);
    refused("f32_with_a_scale", CUBLASLT_EPILOGUE_DEFAULT, true);
    grid();
    CK(cublasLtDestroy(lt));
    printf("PASS prog_cublaslt_fp8\n");
    return 0;
}
