// __constant__ memory written with cudaMemcpyToSymbol (whole and at an offset), and a
// __device__ global read back with cudaMemcpyFromSymbol: a 1D convolution whose taps
// live in constant memory, run twice with different taps.
// Self-checking: exits 0 and prints "PASS k_constant".
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CHECK(call)                                                                  \
    do {                                                                             \
        cudaError_t err_ = (call);                                                   \
        if (err_ != cudaSuccess) {                                                   \
            fprintf(stderr, "FAIL k_constant: %s at %s:%d: %s\n", #call, __FILE__,   \
                    __LINE__, cudaGetErrorString(err_));                             \
            exit(1);                                                                 \
        }                                                                            \
    } while (0)

#define RADIUS 4
#define TAPS (2 * RADIUS + 1)

__constant__ float taps[TAPS];
__constant__ int bias;
__device__ unsigned long long nonzero_outputs;  // counted on the device, read back

__global__ void convolve(const float *in, float *out, int n) {
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
        float acc = (float)bias;
        for (int t = -RADIUS; t <= RADIUS; ++t) {
            int j = i + t;
            if (j >= 0 && j < n) acc += taps[t + RADIUS] * in[j];
        }
        out[i] = acc;
        if (acc != 0.0f) atomicAdd(&nonzero_outputs, 1ull);
    }
}

static int check(const std::vector<float> &in, const std::vector<float> &out,
                 const float *h_taps, int h_bias, unsigned long long counted, const char *what) {
    int n = (int)in.size(), bad = 0;
    unsigned long long nonzero = 0;
    for (int i = 0; i < n; ++i) {
        float want = (float)h_bias;
        for (int t = -RADIUS; t <= RADIUS; ++t) {
            int j = i + t;
            if (j >= 0 && j < n) want += h_taps[t + RADIUS] * in[j];
        }
        nonzero += want != 0.0f;
        if (out[i] != want && bad++ < 5)
            fprintf(stderr, "%s: out[%d] = %g, expected %g\n", what, i, out[i], want);
    }
    if (counted != nonzero) {
        fprintf(stderr, "%s: device counted %llu non-zero outputs, expected %llu\n", what,
                counted, nonzero);
        ++bad;
    }
    return bad;
}

int main() {
    const int n = 30000;
    std::vector<float> in(n), out(n);
    for (int i = 0; i < n; ++i) in[i] = (float)((i * 13) % 21 - 10);  // small integers
    // multiples of 1/8 times small integers: exact in float in any summation order
    float h_taps[TAPS] = {0.125f, -0.25f, 0.5f, 0.75f, 1.0f, 0.75f, 0.5f, -0.25f, 0.125f};
    int h_bias = 3;

    float *d_in, *d_out;
    CHECK(cudaMalloc(&d_in, n * sizeof(float)));
    CHECK(cudaMalloc(&d_out, n * sizeof(float)));
    CHECK(cudaMemcpy(d_in, in.data(), n * sizeof(float), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpyToSymbol(taps, h_taps, sizeof(h_taps)));
    CHECK(cudaMemcpyToSymbol(bias, &h_bias, sizeof(int)));
    unsigned long long zero = 0, counted = 0;
    CHECK(cudaMemcpyToSymbol(nonzero_outputs, &zero, sizeof(zero)));

    int failures = 0;
    convolve<<<12, 256>>>(d_in, d_out, n);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(out.data(), d_out, n * sizeof(float), cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpyFromSymbol(&counted, nonzero_outputs, sizeof(counted)));
    failures += check(in, out, h_taps, h_bias, counted, "first taps");

    // replace the middle three taps only (an offset write) and the bias
    float middle[3] = {-1.0f, 2.0f, -1.0f};
    CHECK(cudaMemcpyToSymbol(taps, middle, sizeof(middle), (RADIUS - 1) * sizeof(float)));
    for (int k = 0; k < 3; ++k) h_taps[RADIUS - 1 + k] = middle[k];
    h_bias = 0;
    CHECK(cudaMemcpyToSymbol(bias, &h_bias, sizeof(int)));
    CHECK(cudaMemcpyToSymbol(nonzero_outputs, &zero, sizeof(zero)));
    convolve<<<12, 256>>>(d_in, d_out, n);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(out.data(), d_out, n * sizeof(float), cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpyFromSymbol(&counted, nonzero_outputs, sizeof(counted)));
    failures += check(in, out, h_taps, h_bias, counted, "second taps");

    float back[TAPS];
    CHECK(cudaMemcpyFromSymbol(back, taps, sizeof(back)));
    for (int k = 0; k < TAPS; ++k)
        if (back[k] != h_taps[k]) {
            fprintf(stderr, "taps[%d] reads back %g, expected %g\n", k, back[k], h_taps[k]);
            ++failures;
        }
    CHECK(cudaFree(d_in));
    CHECK(cudaFree(d_out));
    if (failures) {
        fprintf(stderr, "FAIL k_constant: %d failures\n", failures);
        return 1;
    }
    printf("convolution of %d samples checked with two tap sets\n", n);
    printf("PASS k_constant\n");
    return 0;
}
