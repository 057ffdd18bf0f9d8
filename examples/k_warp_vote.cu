// Warp-level primitives: a block reduction built on __shfl_down_sync, and warp votes
// (__ballot_sync with __popc, __any_sync, __all_sync), all with full 32-lane warps.
// Self-checking: exits 0 and prints "PASS k_warp_vote".
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CHECK(call)                                                                   \
    do {                                                                              \
        cudaError_t err_ = (call);                                                    \
        if (err_ != cudaSuccess) {                                                    \
            fprintf(stderr, "FAIL k_warp_vote: %s at %s:%d: %s\n", #call, __FILE__,   \
                    __LINE__, cudaGetErrorString(err_));                              \
            exit(1);                                                                  \
        }                                                                             \
    } while (0)

#define FULL 0xffffffffu

__device__ int warp_sum(int v) {
    for (int offset = 16; offset > 0; offset >>= 1)
        v += __shfl_down_sync(FULL, v, offset);
    return v;  // complete in lane 0
}

// grid-stride sum: per-thread partials, warp shuffles, one shared slot per warp
__global__ void block_sum(const int *in, int n, int *total) {
    __shared__ int warp_sums[32];
    int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    int v = 0;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        v += in[i];
    v = warp_sum(v);
    if (lane == 0) warp_sums[warp] = v;
    __syncthreads();
    if (warp == 0) {
        v = lane < (int)(blockDim.x >> 5) ? warp_sums[lane] : 0;
        v = warp_sum(v);
        if (lane == 0) atomicAdd(total, v);
    }
}

// one element per thread; lane 0 of each warp records the warp's votes
__global__ void votes(const int *in, unsigned *ballots, int *counts, int *anys, int *alls) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int w = i >> 5;
    int x = in[i];
    unsigned b = __ballot_sync(FULL, x > 0);
    int any7 = __any_sync(FULL, x == 7);
    int all_pos = __all_sync(FULL, x > 0);
    if ((threadIdx.x & 31) == 0) {
        ballots[w] = b;
        counts[w] = __popc(b);
        anys[w] = any7;
        alls[w] = all_pos;
    }
}

int main() {
    int failures = 0;
    // --- reduction
    const int n = 20000;
    std::vector<int> data(n);
    long long want = 0;
    for (int i = 0; i < n; ++i) {
        data[i] = i % 17 - 8 + (i % 5 == 0 ? 3 : 0);
        want += data[i];
    }
    int *d_in, *d_total;
    CHECK(cudaMalloc(&d_in, n * sizeof(int)));
    CHECK(cudaMalloc(&d_total, sizeof(int)));
    CHECK(cudaMemcpy(d_in, data.data(), n * sizeof(int), cudaMemcpyHostToDevice));
    CHECK(cudaMemset(d_total, 0, sizeof(int)));
    block_sum<<<8, 256>>>(d_in, n, d_total);
    CHECK(cudaGetLastError());
    int total = 0;
    CHECK(cudaMemcpy(&total, d_total, sizeof(int), cudaMemcpyDeviceToHost));
    if (total != want) {
        fprintf(stderr, "block_sum = %d, expected %lld\n", total, want);
        ++failures;
    }

    // --- votes: 4096 threads = 128 warps; every 4th warp is all positive, every 3rd
    // contains no 7, so any/all take both values
    const int m = 4096, warps = m / 32;
    std::vector<int> v(m);
    for (int i = 0; i < m; ++i) {
        int w = i / 32, lane = i % 32;
        if (w % 4 == 0) v[i] = 1 + lane;
        else v[i] = (i * 37) % 11 - 5;
        if (w % 3 == 0 && v[i] == 7) v[i] = 6;
    }
    int *d_v, *d_counts, *d_anys, *d_alls;
    unsigned *d_ballots;
    CHECK(cudaMalloc(&d_v, m * sizeof(int)));
    CHECK(cudaMalloc(&d_ballots, warps * sizeof(unsigned)));
    CHECK(cudaMalloc(&d_counts, warps * sizeof(int)));
    CHECK(cudaMalloc(&d_anys, warps * sizeof(int)));
    CHECK(cudaMalloc(&d_alls, warps * sizeof(int)));
    CHECK(cudaMemcpy(d_v, v.data(), m * sizeof(int), cudaMemcpyHostToDevice));
    votes<<<m / 256, 256>>>(d_v, d_ballots, d_counts, d_anys, d_alls);
    CHECK(cudaGetLastError());
    std::vector<unsigned> ballots(warps);
    std::vector<int> counts(warps), anys(warps), alls(warps);
    CHECK(cudaMemcpy(ballots.data(), d_ballots, warps * sizeof(unsigned), cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(counts.data(), d_counts, warps * sizeof(int), cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(anys.data(), d_anys, warps * sizeof(int), cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(alls.data(), d_alls, warps * sizeof(int), cudaMemcpyDeviceToHost));
    int any_true = 0, all_true = 0;
    for (int w = 0; w < warps; ++w) {
        unsigned b = 0;
        int cnt = 0, any7 = 0, allp = 1;
        for (int lane = 0; lane < 32; ++lane) {
            int x = v[w * 32 + lane];
            if (x > 0) { b |= 1u << lane; ++cnt; }
            any7 |= x == 7;
            allp &= x > 0;
        }
        any_true += any7;
        all_true += allp;
        // __any_sync/__all_sync promise only zero / non-zero
        if (ballots[w] != b || counts[w] != cnt || (anys[w] != 0) != any7 ||
            (alls[w] != 0) != allp) {
            if (failures < 5)
                fprintf(stderr, "warp %d: ballot %08x count %d any %d all %d, expected "
                        "%08x %d %d %d\n", w, ballots[w], counts[w], anys[w], alls[w], b,
                        cnt, any7, allp);
            ++failures;
        }
    }
    if (any_true == 0 || any_true == warps || all_true == 0 || all_true == warps) {
        fprintf(stderr, "test data does not exercise both vote outcomes\n");
        ++failures;
    }
    CHECK(cudaFree(d_in)); CHECK(cudaFree(d_total)); CHECK(cudaFree(d_v));
    CHECK(cudaFree(d_ballots)); CHECK(cudaFree(d_counts)); CHECK(cudaFree(d_anys));
    CHECK(cudaFree(d_alls));
    if (failures) {
        fprintf(stderr, "FAIL k_warp_vote: %d failures\n", failures);
        return 1;
    }
    printf("sum %d over %d ints; votes of %d warps checked\n", total, n, warps);
    printf("PASS k_warp_vote\n");
    return 0;
}
