// The CPU-device benchmark kernels as OpenCL C for PoCL: the same computations as
// kernels.cu, with the same work-group sizes. OpenCL 1.2 has no warp shuffles, so `scan`
// does its warp step as a local-memory Hillis-Steele scan (the OpenCL way to write it).

#define BLOCK 256
#define TILE 16
#define BINS 256

__kernel void empty_kernel(void) {}

__kernel void saxpy(int n, float a, __global const float *x, __global const float *y,
                    __global float *z)
{
    int i = get_global_id(0);
    if (i < n)
        z[i] = a * x[i] + y[i];
}

__kernel void reduce(int n, __global const float *in, __global float *partial)
{
    __local float s[BLOCK];
    int t = get_local_id(0);
    int i = get_group_id(0) * BLOCK + t;
    s[t] = i < n ? in[i] : 0.0f;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int stride = BLOCK / 2; stride > 0; stride >>= 1) {
        if (t < stride)
            s[t] += s[t + stride];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (t == 0)
        partial[get_group_id(0)] = s[0];
}

__kernel void sgemm(int n, __global const float *a, __global const float *b, __global float *c)
{
    __local float ta[TILE][TILE];
    __local float tb[TILE][TILE];
    int tx = get_local_id(0), ty = get_local_id(1);
    int row = get_group_id(1) * TILE + ty, col = get_group_id(0) * TILE + tx;
    float acc = 0.0f;
    for (int k0 = 0; k0 < n; k0 += TILE) {
        ta[ty][tx] = a[row * n + k0 + tx];
        tb[ty][tx] = b[(k0 + ty) * n + col];
        barrier(CLK_LOCAL_MEM_FENCE);
        for (int k = 0; k < TILE; k++)
            acc += ta[ty][k] * tb[k][tx];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    c[row * n + col] = acc;
}

__kernel void histogram(int n, __global const uchar *in, __global uint *bins)
{
    __local uint local_bins[BINS];
    int t = get_local_id(0);
    local_bins[t] = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int i = get_group_id(0) * BLOCK + t; i < n; i += get_num_groups(0) * BLOCK)
        atomic_inc(&local_bins[in[i]]);
    barrier(CLK_LOCAL_MEM_FENCE);
    if (local_bins[t] != 0)
        atomic_add(&bins[t], local_bins[t]);
}

__kernel void stencil(int w, int h, __global const float *in, __global float *out)
{
    int x = get_global_id(0), y = get_global_id(1);
    if (x >= w || y >= h)
        return;
    int i = y * w + x;
    if (x == 0 || y == 0 || x == w - 1 || y == h - 1) {
        out[i] = in[i];
        return;
    }
    out[i] = 0.2f * (in[i] + in[i - 1] + in[i + 1] + in[i - w] + in[i + w]);
}

__kernel void scan(int n, __global const int *in, __global int *out)
{
    __local int buf[BLOCK];
    __local int warp_sums[BLOCK / 32];
    int t = get_local_id(0), lane = t & 31, warp = t >> 5;
    int i = get_group_id(0) * BLOCK + t;
    int v = i < n ? in[i] : 0;
    for (int d = 1; d < 32; d <<= 1) {
        buf[t] = v;
        barrier(CLK_LOCAL_MEM_FENCE);
        if (lane >= d)
            v += buf[t - d];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (lane == 31)
        warp_sums[warp] = v;
    barrier(CLK_LOCAL_MEM_FENCE);
    if (t == 0)
        for (int w = 1; w < BLOCK / 32; w++)
            warp_sums[w] += warp_sums[w - 1];
    barrier(CLK_LOCAL_MEM_FENCE);
    if (warp > 0)
        v += warp_sums[warp - 1];
    if (i < n)
        out[i] = v;
}
