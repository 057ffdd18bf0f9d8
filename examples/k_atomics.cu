// Atomics on global and shared memory: a shared-memory histogram merged with global
// atomicAdd, float atomicAdd (global and shared), atomicMax/atomicMin, unique tickets from
// atomicAdd's return value, and a float maximum built from an atomicCAS loop.
// All values are chosen so that any order of the atomic updates gives exact results.
// Self-checking: exits 0 and prints "PASS k_atomics".
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CHECK(call)                                                                 \
    do {                                                                            \
        cudaError_t err_ = (call);                                                  \
        if (err_ != cudaSuccess) {                                                  \
            fprintf(stderr, "FAIL k_atomics: %s at %s:%d: %s\n", #call, __FILE__,   \
                    __LINE__, cudaGetErrorString(err_));                            \
            exit(1);                                                                \
        }                                                                           \
    } while (0)

#define BINS 64

__global__ void histogram(const int *in, int n, unsigned *bins) {
    __shared__ unsigned local[BINS];
    for (int b = threadIdx.x; b < BINS; b += blockDim.x) local[b] = 0;
    __syncthreads();
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        atomicAdd(&local[in[i] % BINS], 1u);
    __syncthreads();
    for (int b = threadIdx.x; b < BINS; b += blockDim.x)
        if (local[b]) atomicAdd(&bins[b], local[b]);
}

// a float maximum from atomicCAS on the bit pattern; returns the old value
__device__ float atomic_max_float(float *addr, float v) {
    int *as_int = (int *)addr;
    int old = *as_int, assumed;
    do {
        assumed = old;
        if (__int_as_float(assumed) >= v) break;
        old = atomicCAS(as_int, assumed, __float_as_int(v));
    } while (assumed != old);
    return __int_as_float(old);
}

struct Stats {
    float fsum;     // global float atomicAdd
    int imax;       // atomicMax
    int imin;       // atomicMin
    float fmax;     // CAS loop
    unsigned next;  // ticket counter
};

__global__ void stats(const int *in, int n, Stats *s, unsigned *tickets, float *block_sums) {
    __shared__ float block_sum;
    if (threadIdx.x == 0) block_sum = 0.0f;
    __syncthreads();
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
        int x = in[i];
        float f = 0.5f * (float)(x % 4);  // multiples of 0.5: sums stay exact
        atomicAdd(&s->fsum, f);
        atomicAdd(&block_sum, 0.25f * (float)(x & 1));
        atomicMax(&s->imax, x);
        atomicMin(&s->imin, x - 1000);
        atomic_max_float(&s->fmax, (float)x * 0.125f);
        tickets[i] = atomicAdd(&s->next, 1u);  // old value: a unique ticket per element
    }
    __syncthreads();
    if (threadIdx.x == 0) block_sums[blockIdx.x] = block_sum;
}

int main() {
    const int n = 50000, blocks = 8, threads = 256;
    std::vector<int> in(n);
    for (int i = 0; i < n; ++i) in[i] = (i * 7919) % 1009;  // 0..1008, max 1008
    int *d_in;
    unsigned *d_bins, *d_tickets;
    Stats *d_stats;
    float *d_block_sums;
    CHECK(cudaMalloc(&d_in, n * sizeof(int)));
    CHECK(cudaMalloc(&d_bins, BINS * sizeof(unsigned)));
    CHECK(cudaMalloc(&d_tickets, n * sizeof(unsigned)));
    CHECK(cudaMalloc(&d_stats, sizeof(Stats)));
    CHECK(cudaMalloc(&d_block_sums, blocks * sizeof(float)));
    CHECK(cudaMemcpy(d_in, in.data(), n * sizeof(int), cudaMemcpyHostToDevice));
    CHECK(cudaMemset(d_bins, 0, BINS * sizeof(unsigned)));
    Stats init = {0.0f, -1, 1 << 30, -1.0f, 0u};
    CHECK(cudaMemcpy(d_stats, &init, sizeof(Stats), cudaMemcpyHostToDevice));

    histogram<<<blocks, threads>>>(d_in, n, d_bins);
    CHECK(cudaGetLastError());
    stats<<<blocks, threads>>>(d_in, n, d_stats, d_tickets, d_block_sums);
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());

    std::vector<unsigned> bins(BINS), tickets(n);
    std::vector<float> block_sums(blocks);
    Stats got;
    CHECK(cudaMemcpy(bins.data(), d_bins, BINS * sizeof(unsigned), cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(tickets.data(), d_tickets, n * sizeof(unsigned), cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(block_sums.data(), d_block_sums, blocks * sizeof(float),
                     cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(&got, d_stats, sizeof(Stats), cudaMemcpyDeviceToHost));

    int failures = 0;
    std::vector<unsigned> want_bins(BINS, 0);
    std::vector<float> want_blocks(blocks, 0.0f);
    float want_fsum = 0.0f;
    int want_max = -1, want_min = 1 << 30;
    for (int i = 0; i < n; ++i) {
        want_bins[in[i] % BINS]++;
        want_fsum += 0.5f * (float)(in[i] % 4);
        // grid-stride: element i is handled by block (i / threads) % blocks
        want_blocks[(i / threads) % blocks] += 0.25f * (float)(in[i] & 1);
        if (in[i] > want_max) want_max = in[i];
        if (in[i] - 1000 < want_min) want_min = in[i] - 1000;
    }
    for (int b = 0; b < BINS; ++b)
        if (bins[b] != want_bins[b]) {
            if (failures++ < 5) fprintf(stderr, "bin %d = %u, expected %u\n", b, bins[b], want_bins[b]);
        }
    for (int b = 0; b < blocks; ++b)
        if (block_sums[b] != want_blocks[b]) {
            if (failures++ < 5)
                fprintf(stderr, "block %d shared sum = %g, expected %g\n", b, block_sums[b],
                        want_blocks[b]);
        }
    if (got.fsum != want_fsum || got.imax != want_max || got.imin != want_min ||
        got.fmax != (float)want_max * 0.125f || got.next != (unsigned)n) {
        fprintf(stderr, "stats: fsum %g imax %d imin %d fmax %g next %u; expected %g %d %d %g %d\n",
                got.fsum, got.imax, got.imin, got.fmax, got.next, want_fsum, want_max,
                want_min, (float)want_max * 0.125f, n);
        ++failures;
    }
    std::vector<char> seen(n, 0);
    for (int i = 0; i < n; ++i) {
        if (tickets[i] >= (unsigned)n || seen[tickets[i]]) {
            if (failures++ < 5) fprintf(stderr, "ticket %u of element %d repeated or out of range\n", tickets[i], i);
        } else {
            seen[tickets[i]] = 1;
        }
    }
    CHECK(cudaFree(d_in)); CHECK(cudaFree(d_bins)); CHECK(cudaFree(d_tickets));
    CHECK(cudaFree(d_stats)); CHECK(cudaFree(d_block_sums));
    if (failures) {
        fprintf(stderr, "FAIL k_atomics: %d failures\n", failures);
        return 1;
    }
    printf("histogram of %d values, float sum %g, max %d, %d unique tickets\n", n, got.fsum,
           got.imax, n);
    printf("PASS k_atomics\n");
    return 0;
}
