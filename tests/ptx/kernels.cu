// Kernels for tests/test_ptx_nvcc.py: compiled with `nvcc -ptx` at test time, translated for
// the CPU device and run by tests/ptx/harness.py. Each exercises one thing nvcc emits.
#include <cstdio>

__constant__ float c_scale[4] = {1.0f, 2.0f, 3.0f, 4.0f};
__device__ int d_counter;

extern "C" __global__ void saxpy(int n, float a, const float *x, float *y) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + y[i];
}

// tree reduction in shared memory: barriers in a loop, then one atomicAdd per block
extern "C" __global__ void block_sum(const float *in, float *out, int n) {
    __shared__ float s[256];
    int t = threadIdx.x, i = blockIdx.x * blockDim.x + t;
    s[t] = i < n ? in[i] : 0.0f;
    __syncthreads();
    for (int k = blockDim.x / 2; k > 0; k >>= 1) {
        if (t < k) s[t] += s[t + k];
        __syncthreads();
    }
    if (t == 0) atomicAdd(out, s[0]);
}

// warp shuffles and votes
extern "C" __global__ void warp_ops(const int *in, int *sum, unsigned *ballot, int *up,
                                    int *any_all) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    int v = in[t];
    int s = v;
    for (int k = 16; k > 0; k >>= 1) s += __shfl_xor_sync(0xffffffffu, s, k);
    sum[t] = s;
    ballot[t] = __ballot_sync(0xffffffffu, v & 1);
    up[t] = __shfl_up_sync(0xffffffffu, v, 3) + __shfl_down_sync(0xffffffffu, v, 5) * 1000
            + __shfl_sync(0xffffffffu, v, 7) * 1000000;
    any_all[t] = __any_sync(0xffffffffu, v > 90) * 2 + __all_sync(0xffffffffu, v >= 0);
}

// integer atomics on global and shared memory
extern "C" __global__ void histogram(const unsigned *in, unsigned *hist, int n, int *maxv) {
    __shared__ unsigned h[16];
    if (threadIdx.x < 16) h[threadIdx.x] = 0;
    __syncthreads();
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        atomicAdd(&h[in[i] % 16], 1u);
        atomicMax(maxv, (int)in[i]);
        atomicAdd(&d_counter, 1);
    }
    __syncthreads();
    if (threadIdx.x < 16) atomicAdd(&hist[threadIdx.x], h[threadIdx.x]);
}

// recursion through a device function, and printf
__device__ __noinline__ long long fib(int n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }
extern "C" __global__ void fib_kernel(long long *out) {
    int t = threadIdx.x;
    out[t] = fib(t);
    if (t == 3) printf("fib(%d) = %lld, scale %f\n", t, out[t], (double)c_scale[3]);
}

// a barrier inside a loop whose trip count is data-dependent (uniform per block)
extern "C" __global__ void cond_barrier(const int *iters, int *out) {
    __shared__ int acc[128];
    int t = threadIdx.x;
    acc[t] = 0;
    __syncthreads();
    int n = iters[blockIdx.x];
    for (int k = 0; k < n; k++) {
        if (t % 2 == 0) acc[t] += k;
        __syncthreads();
        int prev = t > 0 ? acc[t - 1] & 1 : 0;
        __syncthreads();
        acc[t] += prev;
        __syncthreads();
    }
    out[blockIdx.x * blockDim.x + t] = acc[t];
}

// tiled matrix multiply (dynamic shared memory, 2D blocks)
extern "C" __global__ void matmul(const float *a, const float *b, float *c, int n) {
    extern __shared__ float tile[];
    const int T = 8;
    float *ta = tile, *tb = tile + T * T;
    int row = blockIdx.y * T + threadIdx.y, col = blockIdx.x * T + threadIdx.x;
    float acc = 0.0f;
    for (int k0 = 0; k0 < n; k0 += T) {
        ta[threadIdx.y * T + threadIdx.x] = a[row * n + k0 + threadIdx.x];
        tb[threadIdx.y * T + threadIdx.x] = b[(k0 + threadIdx.y) * n + col];
        __syncthreads();
        for (int k = 0; k < T; k++) acc += ta[threadIdx.y * T + k] * tb[k * T + threadIdx.x];
        __syncthreads();
    }
    c[row * n + col] = acc * c_scale[0];
}

// math and conversions in a plain loop kernel
extern "C" __global__ void mathk(const float *x, float *y, int *iy, double *dy, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float v = x[i];
    y[i] = sqrtf(fabsf(v)) + fminf(v, 0.5f) - fmaxf(v, -0.5f) + v / 3.0f;
    iy[i] = __float2int_rn(v * 100.0f) + (int)(v * 7.0f) + __popc(i) + __clz(i + 1);
    dy[i] = (double)v * 1.5 + (double)(unsigned)i / 7.0;
}

// syncthreads_count / and / or (bar.red)
extern "C" __global__ void bar_red(const int *in, int *out) {
    int v = in[threadIdx.x];
    int c = __syncthreads_count(v > 0);
    int a = __syncthreads_and(v > -5);
    int o = __syncthreads_or(v > 100);
    out[threadIdx.x] = c * 100 + a * 10 + o;
}

// a per-thread array (.local) live across barriers, and threads that exit before them
extern "C" __global__ void local_across_barrier(const int *in, int *out, int n) {
    __shared__ int s[64];
    int t = threadIdx.x;
    if (t >= n) return;
    int priv[8];
    for (int k = 0; k < 8; k++) priv[k] = in[t] * (k + 1);
    s[t] = priv[in[t] & 7];
    __syncthreads();
    int acc = 0;
    for (int k = 0; k < 8; k++) acc += priv[(k + s[(t + 1) % n]) & 7];
    __syncthreads();
    out[t] = acc + s[(t + 3) % n];
}

// sub-warp shuffles (width < 32): nvcc encodes the width in shfl's c operand (segment mask)
extern "C" __global__ void shfl_width(const int *in, int *out) {
    int t = threadIdx.x, v = in[t];
    out[t * 4 + 0] = __shfl_sync(0xffffffffu, v, t * 3 + 1, 8);
    out[t * 4 + 1] = __shfl_up_sync(0xffffffffu, v, 3, 16);
    out[t * 4 + 2] = __shfl_down_sync(0xffffffffu, v, 2, 4);
    out[t * 4 + 3] = __shfl_xor_sync(0xffffffffu, v, 5, 8);
}

// a barrier inside a device function (not inlined): runs as fibers
__device__ __noinline__ int sync_read(const int *s, int i) {
    __syncthreads();
    return s[i];
}
extern "C" __global__ void callee_barrier(int *out) {
    __shared__ int s[64];
    int t = threadIdx.x;
    s[t] = t * 5;
    out[t] = sync_read(s, (t + 7) % blockDim.x);
}
