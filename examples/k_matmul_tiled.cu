// Shared-memory tiled matrix multiply with __syncthreads between tile loads and use.
// Sizes are not multiples of the tile, so edge tiles exercise the bounds checks.
// Self-checking: exits 0 and prints "PASS k_matmul_tiled" when C equals the host product.
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CHECK(call)                                                                    \
    do {                                                                               \
        cudaError_t err_ = (call);                                                     \
        if (err_ != cudaSuccess) {                                                     \
            fprintf(stderr, "FAIL k_matmul_tiled: %s at %s:%d: %s\n", #call, __FILE__, \
                    __LINE__, cudaGetErrorString(err_));                               \
            exit(1);                                                                   \
        }                                                                              \
    } while (0)

#define TILE 16

__global__ void matmul_tiled(const float *A, const float *B, float *C, int M, int N, int K) {
    __shared__ float As[TILE][TILE];
    __shared__ float Bs[TILE][TILE + 1];  // +1: a different shared layout from As
    int row = blockIdx.y * TILE + threadIdx.y;
    int col = blockIdx.x * TILE + threadIdx.x;
    float acc = 0.0f;
    for (int t = 0; t < (K + TILE - 1) / TILE; ++t) {
        int ak = t * TILE + threadIdx.x;
        int bk = t * TILE + threadIdx.y;
        As[threadIdx.y][threadIdx.x] = (row < M && ak < K) ? A[row * K + ak] : 0.0f;
        Bs[threadIdx.y][threadIdx.x] = (bk < K && col < N) ? B[bk * N + col] : 0.0f;
        __syncthreads();
        for (int k = 0; k < TILE; ++k)
            acc += As[threadIdx.y][k] * Bs[k][threadIdx.x];
        __syncthreads();
    }
    if (row < M && col < N)
        C[row * N + col] = acc;
}

int main() {
    const int M = 50, N = 40, K = 70;
    // small integers: every product and partial sum is exact in float, in any order
    std::vector<float> A(M * K), B(K * N), C(M * N, -1.0f);
    for (int i = 0; i < M; ++i)
        for (int k = 0; k < K; ++k) A[i * K + k] = (float)((i * 7 + k * 3) % 11 - 5);
    for (int k = 0; k < K; ++k)
        for (int j = 0; j < N; ++j) B[k * N + j] = (float)((k * 5 + j) % 9 - 4);

    float *dA, *dB, *dC;
    CHECK(cudaMalloc(&dA, A.size() * sizeof(float)));
    CHECK(cudaMalloc(&dB, B.size() * sizeof(float)));
    CHECK(cudaMalloc(&dC, C.size() * sizeof(float)));
    CHECK(cudaMemcpy(dA, A.data(), A.size() * sizeof(float), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(dB, B.data(), B.size() * sizeof(float), cudaMemcpyHostToDevice));
    CHECK(cudaMemset(dC, 0xff, C.size() * sizeof(float)));  // NaNs: catches unwritten cells

    dim3 block(TILE, TILE);
    dim3 grid((N + TILE - 1) / TILE, (M + TILE - 1) / TILE);  // 3 x 4 blocks of 256
    matmul_tiled<<<grid, block>>>(dA, dB, dC, M, N, K);
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaMemcpy(C.data(), dC, C.size() * sizeof(float), cudaMemcpyDeviceToHost));

    int bad = 0;
    for (int i = 0; i < M; ++i)
        for (int j = 0; j < N; ++j) {
            float want = 0.0f;
            for (int k = 0; k < K; ++k) want += A[i * K + k] * B[k * N + j];
            if (C[i * N + j] != want && bad++ < 5)
                fprintf(stderr, "C[%d][%d] = %g, expected %g\n", i, j, C[i * N + j], want);
        }
    CHECK(cudaFree(dA));
    CHECK(cudaFree(dB));
    CHECK(cudaFree(dC));
    if (bad) {
        fprintf(stderr, "FAIL k_matmul_tiled: %d wrong elements\n", bad);
        return 1;
    }
    printf("matmul %dx%dx%d checked\n", M, N, K);
    printf("PASS k_matmul_tiled\n");
    return 0;
}
