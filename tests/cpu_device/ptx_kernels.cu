// Kernels for tests/test_cpu_device_ptx.py: nvcc -ptx, then the PTX translator, then hipModuleLoad.
#include <cstdio>
extern "C" __global__ void vadd(const float *a, const float *b, float *c, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) c[i] = a[i] + b[i];
}
extern "C" __global__ void block_sum(const int *in, int *out) {
    extern __shared__ int sh[];
    int t = threadIdx.x;
    sh[t] = in[blockIdx.x * blockDim.x + t];
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (t < s) sh[t] += sh[t + s];
        __syncthreads();
    }
    if (t == 0) out[blockIdx.x] = sh[0];
}
__device__ int counter;
extern "C" __global__ void hello(int tag) {
    if (threadIdx.x == 0) printf("hello from block %d tag %d %f\n", blockIdx.x, tag, 0.5);
    atomicAdd(&counter, 1);
}
// Spins for `cycles` of %clock64 (the clock_block idiom of CUDA programs that wait a
// number of milliseconds computed from the device's clock rate); records %clock64 and
// %globaltimer (ns) at both ends so the test can measure the counter's real rate.
extern "C" __global__ void spin_clock(unsigned long long *out, long long cycles) {
    unsigned long long t0 = 0, t1 = 0;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
    long long c0 = clock64(), c1 = c0;
    while (c1 - c0 < cycles) c1 = clock64();
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t1));
    out[0] = (unsigned long long)(c1 - c0);
    out[1] = t1 - t0;
}
