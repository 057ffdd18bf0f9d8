// Thread-loop kernels whose addresses the CPU target forms as base pointer + offset
// (pyshim/ptx/pointer_regs.py): guards, early returns, pointers loaded from memory, pointers
// advanced in loops, selected pointers. tests/test_ptx_vectorize.py checks them against numpy.

extern "C" __global__ void saxpy(int n, float a, const float *x, const float *y, float *z)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        z[i] = a * x[i] + y[i];
}

// 5-point Jacobi step on a w x h grid, the border copied: two early returns
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

// rows[r] is a pointer loaded from memory; a negative column offset from the row's end
extern "C" __global__ void rows_reversed(int w, float *const *rows, float *out)
{
    int x = threadIdx.x, r = blockIdx.x;
    if (x >= w)
        return;
    const float *row = rows[r];
    out[r * w + x] = row[w - 1 - x];
}

// a grid-stride loop: the pointers advance by the grid's width each iteration
extern "C" __global__ void scale_strided(int n, float s, const float *in, float *out)
{
    int stride = gridDim.x * blockDim.x;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
        out[i] = s * in[i];
}

// the source array chosen per thread (selp on two pointers), indices read from memory
extern "C" __global__ void pick_gather(int n, const int *idx, const float *a, const float *b,
                                       float *out)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    const float *src = (i & 1) ? b : a;
    out[i] = src[idx[i]];
}

// stream compaction: each kept element takes the next slot from a global atomic counter, so
// threads of one thread loop depend on each other through the returned old values
extern "C" __global__ void compact(int n, const int *in, int *out, unsigned int *count)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n && in[i] % 3 == 0)
        out[atomicAdd(count, 1u)] = in[i];
}
