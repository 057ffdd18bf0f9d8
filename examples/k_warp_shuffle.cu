// Warp shuffles with sub-warp widths: __shfl_sync broadcast and rotation inside 8-lane
// groups (source lanes wrap modulo the width), __shfl_down_sync and __shfl_up_sync with
// width 4 (lanes whose source falls outside the group keep their value), a butterfly
// __shfl_xor_sync sum over 16-lane halves, and a full-warp inclusive scan.
// Self-checking: exits 0 and prints "PASS k_warp_shuffle".
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CHECK(call)                                                                      \
    do {                                                                                 \
        cudaError_t err_ = (call);                                                       \
        if (err_ != cudaSuccess) {                                                       \
            fprintf(stderr, "FAIL k_warp_shuffle: %s at %s:%d: %s\n", #call, __FILE__,   \
                    __LINE__, cudaGetErrorString(err_));                                 \
            exit(1);                                                                     \
        }                                                                                \
    } while (0)

#define FULL 0xffffffffu
#define OUTS 6

__global__ void shuffles(const int *in, int *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int lane = threadIdx.x & 31;
    int v = in[i];
    int *o = out + (size_t)i * OUTS;
    o[0] = __shfl_sync(FULL, v, 0, 8);                    // lane 0 of my 8-lane group
    o[1] = __shfl_sync(FULL, v, (lane & 7) + 3, 8);       // wraps modulo 8 in my group
    o[2] = __shfl_down_sync(FULL, v, 1, 4);               // next lane in my 4-lane group
    o[3] = __shfl_up_sync(FULL, v, 2, 4);                 // two lanes back in my group
    int s = v;
    for (int m = 8; m > 0; m >>= 1) s += __shfl_xor_sync(FULL, s, m, 16);
    o[4] = s;                                             // sum over my 16-lane half
    int scan = v;
    for (int d = 1; d < 32; d <<= 1) {
        int up = __shfl_up_sync(FULL, scan, d);
        if (lane >= d) scan += up;
    }
    o[5] = scan;                                          // inclusive prefix sum
    (void)n;
}

int main() {
    const int n = 2048;  // 8 blocks of 256: whole warps only
    std::vector<int> in(n), out(n * OUTS);
    for (int i = 0; i < n; ++i) in[i] = (i * 29) % 101 - 50;
    int *d_in, *d_out;
    CHECK(cudaMalloc(&d_in, n * sizeof(int)));
    CHECK(cudaMalloc(&d_out, n * OUTS * sizeof(int)));
    CHECK(cudaMemcpy(d_in, in.data(), n * sizeof(int), cudaMemcpyHostToDevice));
    shuffles<<<n / 256, 256>>>(d_in, d_out, n);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(out.data(), d_out, n * OUTS * sizeof(int), cudaMemcpyDeviceToHost));

    int failures = 0;
    const char *names[OUTS] = {"shfl width 8 from 0", "shfl width 8 rotate", "down width 4",
                               "up width 4", "xor sum width 16", "scan"};
    for (int i = 0; i < n; ++i) {
        int warp = i & ~31, lane = i & 31;
        int g8 = warp + (lane & ~7), g16 = warp + (lane & ~15);
        int want[OUTS];
        want[0] = in[g8];
        want[1] = in[g8 + (((lane & 7) + 3) & 7)];
        want[2] = (lane & 3) + 1 < 4 ? in[i + 1] : in[i];
        want[3] = (lane & 3) >= 2 ? in[i - 2] : in[i];
        want[4] = 0;
        for (int k = 0; k < 16; ++k) want[4] += in[g16 + k];
        want[5] = 0;
        for (int k = 0; k <= lane; ++k) want[5] += in[warp + k];
        for (int k = 0; k < OUTS; ++k)
            if (out[i * OUTS + k] != want[k] && failures++ < 8)
                fprintf(stderr, "%s at thread %d: %d, expected %d\n", names[k], i,
                        out[i * OUTS + k], want[k]);
    }
    CHECK(cudaFree(d_in));
    CHECK(cudaFree(d_out));
    if (failures) {
        fprintf(stderr, "FAIL k_warp_shuffle: %d failures\n", failures);
        return 1;
    }
    printf("sub-warp shuffles checked on %d threads\n", n);
    printf("PASS k_warp_shuffle\n");
    return 0;
}
