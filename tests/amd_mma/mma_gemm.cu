/* Tensor-core GEMM kernels written the way ggml's mma.cuh and the cuda-samples' PTX paths
 * write them (ldmatrix into registers, mma.sync on the fragments), for the AMD ISA checks of
 * tests/test_ptx_mma_amd.py: nvcc -ptx, then pyshim's hip targets, then clang-19.
 * C[M x N] = A[M x K] B[K x N], A row-major, B row-major (ldmatrix .trans gives the col
 * fragments), one 16 x 8 tile per warp, 4 warps per block. */
#include <cstdint>
#include <cuda_fp16.h>
#include <cuda_bf16.h>

__device__ __forceinline__ uint32_t smem(const void *p) {
    return (uint32_t)__cvta_generic_to_shared(p);
}

template <typename T, bool BF16>
__global__ void gemm_16816(const T *A, const T *B, float *C, int M, int N, int K) {
    __shared__ __align__(16) T sa[4][16][16];
    __shared__ __align__(16) T sb[4][16][8];
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    const int row0 = (blockIdx.y * 4 + warp) * 16, col0 = blockIdx.x * 8;
    float acc[4] = {0, 0, 0, 0};
    for (int k0 = 0; k0 < K; k0 += 16) {
        for (int i = lane; i < 256; i += 32) sa[warp][i / 16][i % 16] = A[(row0 + i / 16) * K + k0 + i % 16];
        for (int i = lane; i < 128; i += 32) sb[warp][i / 8][i % 8] = B[(k0 + i / 8) * N + col0 + i % 8];
        __syncwarp();
        uint32_t a[4], b[2];
        asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];"
                     : "=r"(a[0]), "=r"(a[1]), "=r"(a[2]), "=r"(a[3])
                     : "r"(smem(&sa[warp][lane % 16][(lane / 16) * 8])));
        asm volatile("ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {%0, %1}, [%2];"
                     : "=r"(b[0]), "=r"(b[1]) : "r"(smem(&sb[warp][lane % 16][0])));
        if (BF16)
            asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0, %1, %2, %3}, "
                         "{%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};"
                         : "+f"(acc[0]), "+f"(acc[1]), "+f"(acc[2]), "+f"(acc[3])
                         : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
        else
            asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, "
                         "{%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};"
                         : "+f"(acc[0]), "+f"(acc[1]), "+f"(acc[2]), "+f"(acc[3])
                         : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
        __syncwarp();
    }
    const int g = lane / 4, t = lane % 4;
    C[(row0 + g) * N + col0 + 2 * t] = acc[0];
    C[(row0 + g) * N + col0 + 2 * t + 1] = acc[1];
    C[(row0 + g + 8) * N + col0 + 2 * t] = acc[2];
    C[(row0 + g + 8) * N + col0 + 2 * t + 1] = acc[3];
}
template __global__ void gemm_16816<__half, false>(const __half *, const __half *, float *, int, int, int);
template __global__ void gemm_16816<__nv_bfloat16, true>(const __nv_bfloat16 *, const __nv_bfloat16 *, float *, int, int, int);

/* ggml mmq-like: int8 tiles (A row-major, B column-major as ggml's quantized blocks), s32 */
__global__ void gemm_s8_16832(const int8_t *A, const int8_t *Bt, int *C, int N, int K) {
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32, g = lane / 4, t = lane % 4;
    const int row0 = (blockIdx.y * 4 + warp) * 16, col0 = blockIdx.x * 8;
    int acc[4] = {0, 0, 0, 0};
    for (int k0 = 0; k0 < K; k0 += 32) {
        const int *a0 = (const int *)(A + (row0 + g) * K + k0 + 4 * t);
        const int *a1 = (const int *)(A + (row0 + g + 8) * K + k0 + 4 * t);
        const int *b0 = (const int *)(Bt + (col0 + g) * K + k0 + 4 * t);
        int a[4] = {a0[0], a1[0], a0[4], a1[4]}, b[2] = {b0[0], b0[4]};
        asm volatile("mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32 {%0, %1, %2, %3}, "
                     "{%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};"
                     : "+r"(acc[0]), "+r"(acc[1]), "+r"(acc[2]), "+r"(acc[3])
                     : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
    }
    for (int j = 0; j < 4; j++) C[(row0 + g + 8 * (j / 2)) * N + col0 + 2 * t + j % 2] = acc[j];
}
