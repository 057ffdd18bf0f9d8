// A kernel that runs as long as argv[1] says; "start" is printed before it launches, so a
// test can signal the program mid-kernel (or, with an empty kernel cache, mid-translation).
#include <cstdio>
#include <cstdlib>

#ifndef UNROLL
#define UNROLL 1
#endif

__global__ void spin(unsigned long long n, unsigned long long *out)
{
    unsigned long long acc = threadIdx.x;
    for (unsigned long long i = 0; i < n; i++) {
#pragma unroll
        for (int j = 0; j < UNROLL; j++)
            acc = acc * 6364136223846793005ULL + (i ^ (unsigned long long)j) + out[j & 7];
    }
    out[8 + blockIdx.x] = acc;
}

int main(int argc, char **argv)
{
    unsigned long long n = argc > 1 ? strtoull(argv[1], 0, 10) : 1;
    unsigned long long *d;
    if (cudaMalloc(&d, 4096) != cudaSuccess || cudaMemset(d, 0, 4096) != cudaSuccess)
        return 3;
    printf("start\n");
    fflush(stdout);
    spin<<<1, 32>>>(n, d);
    cudaError_t e = cudaDeviceSynchronize();
    printf("done %s\n", cudaGetErrorString(e));
    return e == cudaSuccess ? 0 : 1;
}
