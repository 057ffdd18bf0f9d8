// Kernels from real programs that once failed to translate (see tests/test_ptx_gaps.py):
// __managed__ variables, warpSize (PTX WARP_SZ), cp.async with zero fill, f16 setp in
// inline asm (cuda_fp16.h), and the directed-rounding fma that expf/powf emit.
#include <cuda_fp16.h>
#include <cuda_pipeline.h>

__managed__ int counter;
__managed__ float table[4] = {1.5f, 2.5f, 3.5f, 4.5f};

__global__ void managed_warp(int *out) {
    atomicAdd(&counter, warpSize);
    out[threadIdx.x] = warpSize + (int)table[threadIdx.x & 3];
}

// out[t] = in[63 - t] for t < n, copied through shared memory; lanes >= n copy 0 bytes,
// so their shared slots are zero-filled
__global__ void async_copy(const float *in, float *out, int n) {
    __shared__ float s[64];
    int t = threadIdx.x;
    __pipeline_memcpy_async(&s[t], &in[t], 4, t < n ? 0 : 4);
    __pipeline_commit();
    __pipeline_wait_prior(0);
    __syncthreads();
    out[t] = s[63 - t];
}

__global__ void async_copy16(const float4 *in, float4 *out) {
    __shared__ float4 s[32];
    int t = threadIdx.x;
    __pipeline_memcpy_async(&s[t], &in[t], 16);
    __pipeline_commit();
    __pipeline_wait_prior(0);
    __syncthreads();
    out[t] = s[31 - t];
}

__global__ void half_compare(const __half *a, const __half *b, int *out) {
    int t = threadIdx.x;
    out[t] = (a[t] < b[t]) | ((a[t] == b[t]) << 1) | (__hgt(a[t], b[t]) << 2);
}

__global__ void exp_pow(const float *a, float *o) {
    int t = threadIdx.x;
    o[2 * t] = expf(a[t]);
    o[2 * t + 1] = powf(a[t], 1.5f);
}
