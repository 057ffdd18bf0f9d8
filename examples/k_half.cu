// Half precision from cuda_fp16.h: __half arithmetic (__hadd, __hmul, __hfma, __hneg),
// comparisons, conversions with round-to-nearest (__float2half_rn of values that need
// rounding), and packed __half2 arithmetic with lane swaps. Operands are small multiples of
// powers of two so every arithmetic result is exact in half; rounding is checked
// against the host implementation of the same conversion.
// Self-checking: exits 0 and prints "PASS k_half".
#include <cuda_fp16.h>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#define CHECK(call)                                                              \
    do {                                                                         \
        cudaError_t err_ = (call);                                               \
        if (err_ != cudaSuccess) {                                               \
            fprintf(stderr, "FAIL k_half: %s at %s:%d: %s\n", #call, __FILE__,   \
                    __LINE__, cudaGetErrorString(err_));                         \
            exit(1);                                                             \
        }                                                                        \
    } while (0)

__global__ void half_ops(const __half *a, const __half *b, const float *x, __half *sum,
                         __half *prod, __half *fma_out, __half *neg, int *less,
                         __half *rounded, float *widened, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    __half s = __hadd(a[i], b[i]);
    sum[i] = s;
    prod[i] = __hmul(a[i], b[i]);
    fma_out[i] = __hfma(a[i], b[i], s);
    neg[i] = __hneg(a[i]);
    less[i] = __hlt(a[i], b[i]) ? 1 : 0;
    rounded[i] = __float2half_rn(x[i]);
    widened[i] = __half2float(a[i]) * 2.0f;
}

// out = a * b + (a + b) lane-wise, then the two lanes swapped
__global__ void half2_ops(const __half2 *a, const __half2 *b, __half2 *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    __half2 r = __hfma2(a[i], b[i], __hadd2(a[i], b[i]));
    out[i] = __halves2half2(__high2half(r), __low2half(r));
}

static unsigned short bits(__half h) {
    unsigned short u;
    memcpy(&u, &h, sizeof u);
    return u;
}

template <typename T> static T *device_copy(const std::vector<T> &h) {
    T *d;
    CHECK(cudaMalloc(&d, h.size() * sizeof(T)));
    CHECK(cudaMemcpy(d, h.data(), h.size() * sizeof(T), cudaMemcpyHostToDevice));
    return d;
}

template <typename T> static std::vector<T> host_copy(const T *d, int n) {
    std::vector<T> h(n);
    CHECK(cudaMemcpy(h.data(), d, n * sizeof(T), cudaMemcpyDeviceToHost));
    return h;
}

int main() {
    const int n = 4096;
    std::vector<__half> a(n), b(n);
    std::vector<float> af(n), bf(n), x(n);
    for (int i = 0; i < n; ++i) {
        af[i] = 0.5f * (float)(i % 16) - 4.0f;   // -4 .. 3.5
        bf[i] = 0.25f * (float)(i % 7) - 0.75f;  // -0.75 .. 0.75
        a[i] = __float2half(af[i]);
        b[i] = __float2half(bf[i]);
        x[i] = (float)i / 3.0f + 0.001f * (float)(i % 10);  // needs rounding to half
    }
    __half *d_a = device_copy(a), *d_b = device_copy(b);
    float *d_x = device_copy(x);
    __half *d_sum, *d_prod, *d_fma, *d_neg, *d_round;
    float *d_wide;
    int *d_less;
    CHECK(cudaMalloc(&d_sum, n * sizeof(__half)));
    CHECK(cudaMalloc(&d_prod, n * sizeof(__half)));
    CHECK(cudaMalloc(&d_fma, n * sizeof(__half)));
    CHECK(cudaMalloc(&d_neg, n * sizeof(__half)));
    CHECK(cudaMalloc(&d_round, n * sizeof(__half)));
    CHECK(cudaMalloc(&d_wide, n * sizeof(float)));
    CHECK(cudaMalloc(&d_less, n * sizeof(int)));
    half_ops<<<n / 256, 256>>>(d_a, d_b, d_x, d_sum, d_prod, d_fma, d_neg, d_less, d_round,
                               d_wide, n);
    CHECK(cudaGetLastError());

    const int n2 = n / 2;
    __half2 *d_out2;
    CHECK(cudaMalloc(&d_out2, n2 * sizeof(__half2)));
    half2_ops<<<n2 / 128, 128>>>((const __half2 *)d_a, (const __half2 *)d_b, d_out2, n2);
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());

    std::vector<__half> sum = host_copy(d_sum, n), prod = host_copy(d_prod, n),
                        fma_out = host_copy(d_fma, n), neg = host_copy(d_neg, n),
                        rounded = host_copy(d_round, n);
    std::vector<float> wide = host_copy(d_wide, n);
    std::vector<int> less = host_copy(d_less, n);
    std::vector<__half2> out2 = host_copy(d_out2, n2);

    int failures = 0;
    for (int i = 0; i < n; ++i) {
        float s = af[i] + bf[i], p = af[i] * bf[i], f = p + s;
        bool ok = __half2float(sum[i]) == s && __half2float(prod[i]) == p &&
                  __half2float(fma_out[i]) == f && __half2float(neg[i]) == -af[i] &&
                  less[i] == (af[i] < bf[i] ? 1 : 0) && wide[i] == af[i] * 2.0f &&
                  bits(rounded[i]) == bits(__float2half_rn(x[i]));
        if (!ok && failures++ < 5)
            fprintf(stderr, "half_ops[%d]: a %g b %g: sum %g prod %g fma %g neg %g less %d "
                    "rounded %04x (want %04x)\n", i, af[i], bf[i], __half2float(sum[i]),
                    __half2float(prod[i]), __half2float(fma_out[i]), __half2float(neg[i]),
                    less[i], bits(rounded[i]), bits(__float2half_rn(x[i])));
    }
    for (int i = 0; i < n2; ++i) {
        float lo = af[2 * i] * bf[2 * i] + (af[2 * i] + bf[2 * i]);
        float hi = af[2 * i + 1] * bf[2 * i + 1] + (af[2 * i + 1] + bf[2 * i + 1]);
        // swapped: the low lane holds the high result
        if ((__half2float(__low2half(out2[i])) != hi || __half2float(__high2half(out2[i])) != lo) &&
            failures++ < 5)
            fprintf(stderr, "half2_ops[%d]: (%g, %g), expected (%g, %g)\n", i,
                    __half2float(__low2half(out2[i])), __half2float(__high2half(out2[i])), hi, lo);
    }
    CHECK(cudaFree(d_a)); CHECK(cudaFree(d_b)); CHECK(cudaFree(d_x)); CHECK(cudaFree(d_sum));
    CHECK(cudaFree(d_prod)); CHECK(cudaFree(d_fma)); CHECK(cudaFree(d_neg));
    CHECK(cudaFree(d_round)); CHECK(cudaFree(d_wide)); CHECK(cudaFree(d_less));
    CHECK(cudaFree(d_out2));
    if (failures) {
        fprintf(stderr, "FAIL k_half: %d failures\n", failures);
        return 1;
    }
    printf("half and half2 arithmetic checked on %d values\n", n);
    printf("PASS k_half\n");
    return 0;
}
