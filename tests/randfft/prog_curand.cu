// cuRAND through pyshim: host-API generators and, as the oracle for their sequences,
// curand_kernel.h's own device functions in a translated kernel (thread t runs
// curand_init(seed, t, 0) as cuRAND documents for the host generators' states).
#include <cstdio>
#include <cstdlib>
#include <curand.h>
#include <curand_kernel.h>
#include <curand_mtgp32_host.h>
#include <curand_mtgp32dc_p_11213.h>

#define THREADS 4096
#define PER 3

__global__ void device_xorwow(unsigned long long seed, unsigned int *out)
{
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    curandStateXORWOW_t s;
    curand_init(seed, t, 0, &s);
    for (int j = 0; j < PER; j++)
        out[j * THREADS + t] = curand(&s);
}

__global__ void device_philox(unsigned long long seed, unsigned int *out)
{
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    curandStatePhilox4_32_10_t s;
    curand_init(seed, t, 0, &s);
    for (int j = 0; j < PER; j++)
        out[j * THREADS + t] = curand(&s);
}

__global__ void device_mrg(unsigned long long seed, unsigned int *out)
{
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    curandStateMRG32k3a_t s;
    curand_init(seed, t, 0, &s);
    for (int j = 0; j < PER; j++)
        out[j * THREADS + t] = curand(&s);
}

static int check(const char *what, curandStatus_t st)
{
    if (st != CURAND_STATUS_SUCCESS) {
        printf("%s failed %d\n", what, (int)st);
        exit(1);
    }
    return 0;
}

// MTGP32: block b runs curand() on state b (curandMakeMTGP32KernelState's), its 256
// threads together; round r of block b is results [(r * 64 + b) * 256, +256) of the host
// generator's sequence (64 blocks of 256 threads, grid-stride)
#define MT_BLOCKS 64
#define MT_THREADS 256
#define MT_ROUNDS 3
#define MT_N (MT_BLOCKS * MT_THREADS * MT_ROUNDS)

__global__ void device_mtgp(curandStateMtgp32 *st, int what, double lambda, unsigned int *out,
                            double *d)
{
    for (int r = 0; r < MT_ROUNDS; r++) {
        int i = (r * MT_BLOCKS + blockIdx.x) * MT_THREADS + threadIdx.x;
        if (what == 0)
            out[i] = curand(&st[blockIdx.x]);
        else if (what == 1)
            d[i] = curand_normal_double(&st[blockIdx.x]);
        else
            out[i] = curand_poisson(&st[blockIdx.x], lambda);
    }
}

static void mtgp_compare(unsigned long long seed)
{
    curandStateMtgp32 *st;
    mtgp32_kernel_params *kp;
    unsigned int *dh, *dk;
    double *ddh, *ddk;
    cudaMalloc(&st, sizeof(curandStateMtgp32) * MT_BLOCKS);
    cudaMalloc(&kp, sizeof(mtgp32_kernel_params));
    cudaMalloc(&dh, MT_N * 4);
    cudaMalloc(&dk, MT_N * 4);
    cudaMalloc(&ddh, MT_N * 8);
    cudaMalloc(&ddk, MT_N * 8);
    unsigned int *a = (unsigned int *)malloc(MT_N * 4), *b = (unsigned int *)malloc(MT_N * 4);
    double *x = (double *)malloc(MT_N * 8), *y = (double *)malloc(MT_N * 8);
    check("mtgp constants", curandMakeMTGP32Constants(mtgp32dc_params_fast_11213, kp));
    curandGenerator_t g;
    check("create", curandCreateGenerator(&g, CURAND_RNG_PSEUDO_MTGP32));
    check("seed", curandSetPseudoRandomGeneratorSeed(g, seed));
    // what: 0 bits, 1 normal doubles, 2 Poisson 5.5 (inversion), 3 Poisson 1500 (normal)
    for (int what = 0; what < 4; what++) {
        double lambda = what == 2 ? 5.5 : 1500.0;
        check("mtgp states", curandMakeMTGP32KernelState(st, mtgp32dc_params_fast_11213, kp,
                                                         MT_BLOCKS, seed));
        check("offset", curandSetGeneratorOffset(g, 0));
        if (what == 0)
            check("mtgp generate", curandGenerate(g, dh, MT_N));
        else if (what == 1)
            check("mtgp normal", curandGenerateNormalDouble(g, ddh, MT_N, 0.0, 1.0));
        else
            check("mtgp poisson", curandGeneratePoisson(g, dh, MT_N, lambda));
        device_mtgp<<<MT_BLOCKS, MT_THREADS>>>(st, what < 2 ? what : 2, lambda, dk, ddk);
        if (cudaDeviceSynchronize() != cudaSuccess) {
            printf("mtgp kernel failed\n");
            exit(1);
        }
        size_t diff = 0;
        double err = 0;
        if (what == 1) {
            cudaMemcpy(x, ddh, MT_N * 8, cudaMemcpyDeviceToHost);
            cudaMemcpy(y, ddk, MT_N * 8, cudaMemcpyDeviceToHost);
            for (int i = 0; i < MT_N; i++) {
                double e = __builtin_fabs(x[i] - y[i]);
                err = e > err ? e : err;
            }
        } else {
            cudaMemcpy(a, dh, MT_N * 4, cudaMemcpyDeviceToHost);
            cudaMemcpy(b, dk, MT_N * 4, cudaMemcpyDeviceToHost);
            for (int i = 0; i < MT_N; i++)
                diff += a[i] != b[i];
        }
        printf("mtgp%d first %u %u differ %zu err %.3e\n", what, a[0], a[MT_THREADS], diff, err);
    }
    check("destroy", curandDestroyGenerator(g));
}

// Sobol: thread d runs dimension d from the direction vectors (and scramble constants) the
// library hands out; the host generator's results are dimension-major
#define Q_DIMS 8
#define Q_N 1000

__global__ void device_sobol(curandDirectionVectors32_t *v, unsigned int *c, unsigned int *out,
                             double *nd)
{
    int d = threadIdx.x;
    if (c) {
        curandStateScrambledSobol32_t s;
        curand_init(v[d], c[d], 0, &s);
        for (int i = 0; i < Q_N; i++)
            out[d * Q_N + i] = curand(&s);
    } else {
        curandStateSobol32_t s, p;
        curand_init(v[d], 0, &s);
        curand_init(v[d], 0, &p);
        for (int i = 0; i < Q_N; i++) {
            nd[d * Q_N + i] = curand_normal_double(&s);
            out[d * Q_N + i] = curand_poisson(&p, 7.25);
        }
    }
}

static void sobol_compare(int scrambled)
{
    curandDirectionVectors32_t *hv, *dv;
    unsigned int *hc = NULL, *dc = NULL, *dh, *dk;
    double *ndh, *ndk;
    check("vectors", curandGetDirectionVectors32(&hv, scrambled
                                                          ? CURAND_SCRAMBLED_DIRECTION_VECTORS_32_JOEKUO6
                                                          : CURAND_DIRECTION_VECTORS_32_JOEKUO6));
    cudaMalloc(&dv, sizeof(curandDirectionVectors32_t) * Q_DIMS);
    cudaMemcpy(dv, hv, sizeof(curandDirectionVectors32_t) * Q_DIMS, cudaMemcpyHostToDevice);
    if (scrambled) {
        check("constants", curandGetScrambleConstants32(&hc));
        cudaMalloc(&dc, 4 * Q_DIMS);
        cudaMemcpy(dc, hc, 4 * Q_DIMS, cudaMemcpyHostToDevice);
    }
    cudaMalloc(&dh, 4 * Q_DIMS * Q_N);
    cudaMalloc(&dk, 4 * Q_DIMS * Q_N);
    cudaMalloc(&ndh, 8 * Q_DIMS * Q_N);
    cudaMalloc(&ndk, 8 * Q_DIMS * Q_N);
    curandGenerator_t g;
    check("create", curandCreateGenerator(&g, scrambled ? CURAND_RNG_QUASI_SCRAMBLED_SOBOL32
                                                        : CURAND_RNG_QUASI_SOBOL32));
    check("dims", curandSetQuasiRandomGeneratorDimensions(g, Q_DIMS));
    if (scrambled)
        check("sobol generate", curandGenerate(g, dh, Q_DIMS * Q_N));
    else {
        check("sobol normal", curandGenerateNormalDouble(g, ndh, Q_DIMS * Q_N, 0.0, 1.0));
        check("offset", curandSetGeneratorOffset(g, 0));
        check("sobol poisson", curandGeneratePoisson(g, dh, Q_DIMS * Q_N, 7.25));
    }
    check("destroy", curandDestroyGenerator(g));
    device_sobol<<<1, Q_DIMS>>>(dv, dc, dk, ndk);
    cudaDeviceSynchronize();
    size_t diff = 0;
    double err = 0;
    static unsigned int a[Q_DIMS * Q_N], b[Q_DIMS * Q_N];
    static double x[Q_DIMS * Q_N], y[Q_DIMS * Q_N];
    cudaMemcpy(a, dh, sizeof a, cudaMemcpyDeviceToHost);
    cudaMemcpy(b, dk, sizeof b, cudaMemcpyDeviceToHost);
    cudaMemcpy(x, ndh, sizeof x, cudaMemcpyDeviceToHost);
    cudaMemcpy(y, ndk, sizeof y, cudaMemcpyDeviceToHost);
    for (int i = 0; i < Q_DIMS * Q_N; i++) {
        diff += a[i] != b[i];
        double e = scrambled ? 0 : __builtin_fabs(x[i] - y[i]);
        err = e > err ? e : err;
    }
    printf("sobol%d first %u %u differ %zu err %.3e\n", scrambled, a[0], a[Q_N], diff, err);
}

// Poisson: the host generator's values are curand_poisson.h's _curand_poisson of each
// state's curand() draws (the header's inversion / normal of one draw)
template <typename S>
__global__ void device_poisson(unsigned long long seed, double lambda, unsigned int *out)
{
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    S s;
    curand_init(seed, t, 0, &s);
    for (int j = 0; j < PER; j++)
        out[j * THREADS + t] = _curand_poisson(curand(&s), lambda);
}

static void poisson_compare(void)
{
    const size_t n = (size_t)THREADS * PER;
    unsigned int *dh, *dk;
    cudaMalloc(&dh, n * 4);
    cudaMalloc(&dk, n * 4);
    unsigned int *a = (unsigned int *)malloc(n * 4), *b = (unsigned int *)malloc(n * 4);
    const curandRngType_t types[3] = {CURAND_RNG_PSEUDO_XORWOW, CURAND_RNG_PSEUDO_PHILOX4_32_10,
                                      CURAND_RNG_PSEUDO_MRG32K3A};
    const double lambdas[2] = {5.5, 1500.0};
    for (int k = 0; k < 3; k++)
        for (int l = 0; l < 2; l++) {
            unsigned long long seed = 555 + k;
            curandGenerator_t g;
            check("create", curandCreateGenerator(&g, types[k]));
            check("seed", curandSetPseudoRandomGeneratorSeed(g, seed));
            check("poisson", curandGeneratePoisson(g, dh, n, lambdas[l]));
            check("destroy", curandDestroyGenerator(g));
            if (k == 0)
                device_poisson<curandStateXORWOW_t><<<THREADS / 128, 128>>>(seed, lambdas[l], dk);
            else if (k == 1)
                device_poisson<curandStatePhilox4_32_10_t><<<THREADS / 128, 128>>>(seed, lambdas[l], dk);
            else
                device_poisson<curandStateMRG32k3a_t><<<THREADS / 128, 128>>>(seed, lambdas[l], dk);
            cudaDeviceSynchronize();
            cudaMemcpy(a, dh, n * 4, cudaMemcpyDeviceToHost);
            cudaMemcpy(b, dk, n * 4, cudaMemcpyDeviceToHost);
            size_t diff = 0;
            for (size_t i = 0; i < n; i++)
                diff += a[i] != b[i];
            printf("poisson%d%d first %u %u differ %zu\n", k, l, a[0], a[THREADS], diff);
        }
}

// distributions: state t's first pair of normals (and first uniform double) per thread
template <typename S>
__global__ void device_dists(unsigned long long seed, float *nf, double *nd, double *ud)
{
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    S s;
    curand_init(seed, t, 0, &s);
    float2 a = curand_normal2(&s);
    nf[2 * t] = a.x;
    nf[2 * t + 1] = a.y;
    curand_init(seed, t, 0, &s);
    double2 b = curand_normal2_double(&s);
    nd[2 * t] = b.x;
    nd[2 * t + 1] = b.y;
    curand_init(seed, t, 0, &s);
    ud[t] = curand_uniform_double(&s);
}

static void host_bits(curandRngType_t type, unsigned long long seed, unsigned int *dev, size_t n)
{
    curandGenerator_t g;
    check("create", curandCreateGenerator(&g, type));
    check("seed", curandSetPseudoRandomGeneratorSeed(g, seed));
    check("generate", curandGenerate(g, dev, n));
    check("destroy", curandDestroyGenerator(g));
}

int main(void)
{
    const size_t n = (size_t)THREADS * PER;
    unsigned int *d_host, *d_kernel;
    cudaMalloc(&d_host, n * 4);
    cudaMalloc(&d_kernel, n * 4);
    unsigned int *a = (unsigned int *)malloc(n * 4), *b = (unsigned int *)malloc(n * 4);
    const curandRngType_t types[3] = {CURAND_RNG_PSEUDO_XORWOW, CURAND_RNG_PSEUDO_PHILOX4_32_10,
                                      CURAND_RNG_PSEUDO_MRG32K3A};
    const char *names[3] = {"xorwow", "philox", "mrg32k3a"};
    for (int k = 0; k < 3; k++) {
        unsigned long long seed = 1234ull + k;
        host_bits(types[k], seed, d_host, n);
        if (k == 0)
            device_xorwow<<<THREADS / 128, 128>>>(seed, d_kernel);
        else if (k == 1)
            device_philox<<<THREADS / 128, 128>>>(seed, d_kernel);
        else
            device_mrg<<<THREADS / 128, 128>>>(seed, d_kernel);
        if (cudaDeviceSynchronize() != cudaSuccess) {
            printf("kernel failed\n");
            return 1;
        }
        cudaMemcpy(a, d_host, n * 4, cudaMemcpyDeviceToHost);
        cudaMemcpy(b, d_kernel, n * 4, cudaMemcpyDeviceToHost);
        size_t diff = 0;
        for (size_t i = 0; i < n; i++)
            diff += a[i] != b[i];
        printf("%s first %u %u %u differ %zu\n", names[k], a[0], a[1], a[THREADS], diff);
    }
    mtgp_compare(4321ull);
    sobol_compare(0);
    sobol_compare(1);
    poisson_compare();
    // the host distributions against the device functions, state by state
    {
        float *nf, *hnf = (float *)malloc(2 * THREADS * 4), *knf = (float *)malloc(2 * THREADS * 4);
        double *nd, *ud, *hnd = (double *)malloc(2 * THREADS * 8), *knd = (double *)malloc(2 * THREADS * 8);
        double *hud = (double *)malloc(THREADS * 8), *kud = (double *)malloc(THREADS * 8);
        cudaMalloc(&nf, 2 * THREADS * 4);
        cudaMalloc(&nd, 2 * THREADS * 8);
        cudaMalloc(&ud, THREADS * 8);
        const curandRngType_t dtypes[3] = {CURAND_RNG_PSEUDO_XORWOW, CURAND_RNG_PSEUDO_PHILOX4_32_10,
                                           CURAND_RNG_PSEUDO_MRG32K3A};
        for (int k = 0; k < 3; k++) {
            unsigned long long seed = 77 + k;
            curandGenerator_t g;
            check("create", curandCreateGenerator(&g, dtypes[k]));
            check("seed", curandSetPseudoRandomGeneratorSeed(g, seed));
            check("normal", curandGenerateNormal(g, nf, 2 * THREADS, 0.0f, 1.0f));
            cudaMemcpy(hnf, nf, 2 * THREADS * 4, cudaMemcpyDeviceToHost);
            check("offset", curandSetGeneratorOffset(g, 0));
            check("normald", curandGenerateNormalDouble(g, nd, 2 * THREADS, 0.0, 1.0));
            cudaMemcpy(hnd, nd, 2 * THREADS * 8, cudaMemcpyDeviceToHost);
            check("offset", curandSetGeneratorOffset(g, 0));
            check("uniformd", curandGenerateUniformDouble(g, ud, THREADS));
            cudaMemcpy(hud, ud, THREADS * 8, cudaMemcpyDeviceToHost);
            check("destroy", curandDestroyGenerator(g));
            if (k == 0)
                device_dists<curandStateXORWOW_t><<<THREADS / 128, 128>>>(seed, nf, nd, ud);
            else if (k == 1)
                device_dists<curandStatePhilox4_32_10_t><<<THREADS / 128, 128>>>(seed, nf, nd, ud);
            else
                device_dists<curandStateMRG32k3a_t><<<THREADS / 128, 128>>>(seed, nf, nd, ud);
            cudaDeviceSynchronize();
            cudaMemcpy(knf, nf, 2 * THREADS * 4, cudaMemcpyDeviceToHost);
            cudaMemcpy(knd, nd, 2 * THREADS * 8, cudaMemcpyDeviceToHost);
            cudaMemcpy(kud, ud, THREADS * 8, cudaMemcpyDeviceToHost);
            double ef = 0, ed = 0, eu = 0;
            for (int i = 0; i < 2 * THREADS; i++) {
                double a = __builtin_fabs((double)hnf[i] - knf[i]), b = __builtin_fabs(hnd[i] - knd[i]);
                ef = a > ef ? a : ef;
                ed = b > ed ? b : ed;
            }
            for (int i = 0; i < THREADS; i++) {
                double c = __builtin_fabs(hud[i] - kud[i]);
                eu = c > eu ? c : eu;
            }
            printf("dists%d %.3e %.3e %.3e\n", k, ef, ed, eu);
        }
    }
    // distributions, printed for the test to check against numpy's statistics
    curandGenerator_t g;
    check("create", curandCreateGenerator(&g, CURAND_RNG_PSEUDO_MRG32K3A));
    check("seed", curandSetPseudoRandomGeneratorSeed(g, 42));
    const size_t m = 1 << 16;
    float *df;
    double *dd;
    cudaMalloc(&df, m * 4);
    cudaMalloc(&dd, m * 8);
    float *hf = (float *)malloc(m * 4);
    double *hd = (double *)malloc(m * 8);
    check("normal", curandGenerateNormal(g, df, m, 2.0f, 3.0f));
    cudaMemcpy(hf, df, m * 4, cudaMemcpyDeviceToHost);
    double s = 0, s2 = 0;
    for (size_t i = 0; i < m; i++) {
        s += hf[i];
        s2 += (double)hf[i] * hf[i];
    }
    printf("normal mean %f std %f\n", s / m, __builtin_sqrt(s2 / m - (s / m) * (s / m)));
    check("uniform_double", curandGenerateUniformDouble(g, dd, m));
    cudaMemcpy(hd, dd, m * 8, cudaMemcpyDeviceToHost);
    double lo = 1, hi = 0;
    s = 0;
    for (size_t i = 0; i < m; i++) {
        s += hd[i];
        lo = hd[i] < lo ? hd[i] : lo;
        hi = hd[i] > hi ? hd[i] : hi;
    }
    printf("uniform mean %f min %f max %f\n", s / m, lo, hi);
    unsigned int *dp;
    cudaMalloc(&dp, m * 4);
    check("poisson", curandGeneratePoisson(g, dp, m, 5.5));
    unsigned int *hp = (unsigned int *)malloc(m * 4);
    cudaMemcpy(hp, dp, m * 4, cudaMemcpyDeviceToHost);
    s = 0;
    for (size_t i = 0; i < m; i++)
        s += hp[i];
    printf("poisson mean %f\n", s / m);
    curandStatus_t st = curandCreatePoissonDistribution(5.5, NULL);
    printf("unmapped %d\n", (int)st);
    check("destroy", curandDestroyGenerator(g));
    return 0;
}
