// cuRAND through pyshim: host-API generators and, as the oracle for their sequences,
// curand_kernel.h's own device functions in a translated kernel (thread t runs
// curand_init(seed, t, 0) as cuRAND documents for the host generators' states).
#include <cstdio>
#include <cstdlib>
#include <curand.h>
#include <curand_kernel.h>

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
