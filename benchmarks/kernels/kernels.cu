// The CPU-device benchmark kernels, as CUDA. Each has an OpenCL twin in kernels.cl and a
// plain-C twin in loops.c computing the same thing, so results can be compared exactly.
// extern "C": the benchmark looks kernels up by these names.

#define BLOCK 256
#define TILE 16
#define BINS 256

extern "C" __global__ void empty_kernel() {}

// z = a*x + y (out of place, so repeated runs see the same inputs)
extern "C" __global__ void saxpy(int n, float a, const float *x, const float *y, float *z)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        z[i] = a * x[i] + y[i];
}

// one partial sum per block: shared-memory tree, a barrier per level
extern "C" __global__ void reduce(int n, const float *in, float *partial)
{
    __shared__ float s[BLOCK];
    int t = threadIdx.x;
    int i = blockIdx.x * BLOCK + t;
    s[t] = i < n ? in[i] : 0.0f;
    __syncthreads();
    for (int stride = BLOCK / 2; stride > 0; stride >>= 1) {
        if (t < stride)
            s[t] += s[t + stride];
        __syncthreads();
    }
    if (t == 0)
        partial[blockIdx.x] = s[0];
}

// C = A * B, n x n row-major, n a multiple of TILE; 16x16 tiles in shared memory
extern "C" __global__ void sgemm(int n, const float *a, const float *b, float *c)
{
    __shared__ float ta[TILE][TILE];
    __shared__ float tb[TILE][TILE];
    int tx = threadIdx.x, ty = threadIdx.y;
    int row = blockIdx.y * TILE + ty, col = blockIdx.x * TILE + tx;
    float acc = 0.0f;
    for (int k0 = 0; k0 < n; k0 += TILE) {
        ta[ty][tx] = a[row * n + k0 + tx];
        tb[ty][tx] = b[(k0 + ty) * n + col];
        __syncthreads();
        for (int k = 0; k < TILE; k++)
            acc += ta[ty][k] * tb[k][tx];
        __syncthreads();
    }
    c[row * n + col] = acc;
}

// 256-bin histogram of bytes: per-block bins with shared atomics, merged with global atomics
extern "C" __global__ void histogram(int n, const unsigned char *in, unsigned int *bins)
{
    __shared__ unsigned int local[BINS];
    int t = threadIdx.x;
    local[t] = 0;
    __syncthreads();
    for (int i = blockIdx.x * BLOCK + t; i < n; i += gridDim.x * BLOCK)
        atomicAdd(&local[in[i]], 1u);
    __syncthreads();
    if (local[t] != 0)
        atomicAdd(&bins[t], local[t]);
}

// 5-point Jacobi step on a w x h grid; the border is copied
extern "C" __global__ void stencil(int w, int h, const float *in, float *out)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= w || y >= h)
        return;
    int i = y * w + x;
    if (x == 0 || y == 0 || x == w - 1 || y == h - 1) {
        out[i] = in[i];
        return;
    }
    out[i] = 0.2f * (in[i] + in[i - 1] + in[i + 1] + in[i - w] + in[i + w]);
}

// inclusive prefix sum within each block of 256: warp scans with __shfl_up_sync, then the
// warp totals scanned by warp 0
extern "C" __global__ void scan(int n, const int *in, int *out)
{
    __shared__ int warp_sums[BLOCK / 32];
    int t = threadIdx.x, lane = t & 31, warp = t >> 5;
    int i = blockIdx.x * BLOCK + t;
    int v = i < n ? in[i] : 0;
    for (int d = 1; d < 32; d <<= 1) {
        int u = __shfl_up_sync(0xffffffffu, v, d);
        if (lane >= d)
            v += u;
    }
    if (lane == 31)
        warp_sums[warp] = v;
    __syncthreads();
    if (warp == 0) {
        int s = lane < BLOCK / 32 ? warp_sums[lane] : 0;
        for (int d = 1; d < BLOCK / 32; d <<= 1) {
            int u = __shfl_up_sync(0xffffffffu, s, d);
            if (lane >= d)
                s += u;
        }
        if (lane < BLOCK / 32)
            warp_sums[lane] = s;
    }
    __syncthreads();
    if (warp > 0)
        v += warp_sums[warp - 1];
    if (i < n)
        out[i] = v;
}
