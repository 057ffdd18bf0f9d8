// Dynamic shared memory (extern __shared__, size given at launch) with a block size that
// is not a multiple of 32 or 64 (80 threads: the last warp is partial); a tree reduction
// over a non-power-of-two block; a __syncthreads inside an if inside a loop whose trip
// count differs between blocks but is uniform within each block; and a grid-stride loop
// over many more elements than threads.
// Self-checking: exits 0 and prints "PASS k_dynamic_shared".
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CHECK(call)                                                                        \
    do {                                                                                   \
        cudaError_t err_ = (call);                                                         \
        if (err_ != cudaSuccess) {                                                         \
            fprintf(stderr, "FAIL k_dynamic_shared: %s at %s:%d: %s\n", #call, __FILE__,   \
                    __LINE__, cudaGetErrorString(err_));                                   \
            exit(1);                                                                       \
        }                                                                                  \
    } while (0)

// each block reverses its segment of blockDim.x elements through shared memory
__global__ void reverse_segments(int *data) {
    extern __shared__ int seg[];
    int base = blockIdx.x * blockDim.x, t = threadIdx.x;
    seg[t] = data[base + t];
    __syncthreads();
    data[base + t] = seg[blockDim.x - 1 - t];
}

// per-block sum with a tree that copes with any blockDim.x
__global__ void block_sums(const float *in, float *out) {
    extern __shared__ float buf[];
    int t = threadIdx.x;
    buf[t] = in[blockIdx.x * blockDim.x + t];
    __syncthreads();
    for (int s = 1; s < blockDim.x; s *= 2) {
        if (t % (2 * s) == 0 && t + s < blockDim.x) buf[t] += buf[t + s];
        __syncthreads();
    }
    if (t == 0) out[blockIdx.x] = buf[0];
}

// rotate each block's segment left by one, (1 + blockIdx.x % 3) times, adding the round
// number each time; the barriers sit under a condition that is uniform per block
__global__ void staged_rotate(int *data) {
    extern __shared__ int tile[];
    int base = blockIdx.x * blockDim.x, t = threadIdx.x;
    int trips = 1 + blockIdx.x % 3;
    for (int round = 0; round < 4; ++round) {
        if (round < trips) {
            tile[t] = data[base + t];
            __syncthreads();
            int v = tile[(t + 1) % blockDim.x] + round;
            __syncthreads();
            data[base + t] = v;
        }
    }
}

__global__ void saxpy_grid_stride(float a, const float *x, float *y, int n) {
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        y[i] = a * x[i] + y[i];
}

int main() {
    const int B = 80, blocks = 37, n = B * blocks;  // 2960 threads
    int failures = 0;
    std::vector<int> data(n);
    std::vector<float> vals(n);
    for (int i = 0; i < n; ++i) {
        data[i] = i * 3 + 1;
        vals[i] = (float)(i % 13) - 6.0f;
    }
    int *d_data, *d_rot;
    float *d_vals, *d_sums;
    CHECK(cudaMalloc(&d_data, n * sizeof(int)));
    CHECK(cudaMalloc(&d_rot, n * sizeof(int)));
    CHECK(cudaMalloc(&d_vals, n * sizeof(float)));
    CHECK(cudaMalloc(&d_sums, blocks * sizeof(float)));
    CHECK(cudaMemcpy(d_data, data.data(), n * sizeof(int), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(d_rot, data.data(), n * sizeof(int), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(d_vals, vals.data(), n * sizeof(float), cudaMemcpyHostToDevice));

    reverse_segments<<<blocks, B, B * sizeof(int)>>>(d_data);
    CHECK(cudaGetLastError());
    block_sums<<<blocks, B, B * sizeof(float)>>>(d_vals, d_sums);
    CHECK(cudaGetLastError());
    staged_rotate<<<blocks, B, B * sizeof(int)>>>(d_rot);
    CHECK(cudaGetLastError());

    std::vector<int> rev(n), rot(n);
    std::vector<float> sums(blocks);
    CHECK(cudaMemcpy(rev.data(), d_data, n * sizeof(int), cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(rot.data(), d_rot, n * sizeof(int), cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(sums.data(), d_sums, blocks * sizeof(float), cudaMemcpyDeviceToHost));
    for (int b = 0; b < blocks; ++b) {
        float want_sum = 0.0f;
        std::vector<int> seg(data.begin() + b * B, data.begin() + (b + 1) * B);
        for (int round = 0; round < 1 + b % 3; ++round) {
            std::vector<int> next(B);
            for (int t = 0; t < B; ++t) next[t] = seg[(t + 1) % B] + round;
            seg = next;
        }
        for (int t = 0; t < B; ++t) {
            int i = b * B + t;
            want_sum += vals[i];
            if (rev[i] != data[b * B + B - 1 - t] && failures++ < 5)
                fprintf(stderr, "reverse[%d] = %d, expected %d\n", i, rev[i], data[b * B + B - 1 - t]);
            if (rot[i] != seg[t] && failures++ < 5)
                fprintf(stderr, "staged_rotate[%d] = %d, expected %d\n", i, rot[i], seg[t]);
        }
        if (sums[b] != want_sum && failures++ < 5)
            fprintf(stderr, "block_sums[%d] = %g, expected %g\n", b, sums[b], want_sum);
    }

    // grid-stride: 4 blocks x 96 threads over 100000 elements
    const int m = 100000;
    std::vector<float> x(m), y(m);
    for (int i = 0; i < m; ++i) {
        x[i] = (float)(i % 100);
        y[i] = (float)(i % 7) * 0.5f;
    }
    float *d_x, *d_y;
    CHECK(cudaMalloc(&d_x, m * sizeof(float)));
    CHECK(cudaMalloc(&d_y, m * sizeof(float)));
    CHECK(cudaMemcpy(d_x, x.data(), m * sizeof(float), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(d_y, y.data(), m * sizeof(float), cudaMemcpyHostToDevice));
    saxpy_grid_stride<<<4, 96>>>(0.25f, d_x, d_y, m);
    CHECK(cudaGetLastError());
    std::vector<float> got(m);
    CHECK(cudaMemcpy(got.data(), d_y, m * sizeof(float), cudaMemcpyDeviceToHost));
    for (int i = 0; i < m; ++i)
        if (got[i] != 0.25f * x[i] + y[i] && failures++ < 5)
            fprintf(stderr, "saxpy[%d] = %g, expected %g\n", i, got[i], 0.25f * x[i] + y[i]);

    CHECK(cudaFree(d_data)); CHECK(cudaFree(d_rot)); CHECK(cudaFree(d_vals));
    CHECK(cudaFree(d_sums)); CHECK(cudaFree(d_x)); CHECK(cudaFree(d_y));
    if (failures) {
        fprintf(stderr, "FAIL k_dynamic_shared: %d failures\n", failures);
        return 1;
    }
    printf("dynamic shared memory with %d-thread blocks, grid-stride over %d checked\n", B, m);
    printf("PASS k_dynamic_shared\n");
    return 0;
}
