// The program whose own fat binary tests/test_fuzz_loader.py turns into a decompression
// bomb: built with its PTX stored uncompressed (--compress-mode=none), which the test then
// overwrites in place with a 66 KB zstd frame that declares and expands to 2 GiB. The
// unrolled loop only makes the PTX long enough to hold that frame. Prints what the runtime
// returns for the launch that registers and loads the module.
#include <cstdio>
#include <cuda_runtime.h>

__global__ void fill(float *p, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
#pragma unroll
    for (int j = 0; j < 600; j++)
        if (i + j * n < 600 * n)
            p[i + j * n] = (float)j * 0.5f + (float)i;
}

int main()
{
    float *p = nullptr;
    if (cudaMalloc(&p, 600 * 32 * sizeof(float)) != cudaSuccess)
        return 2;
    fill<<<1, 32>>>(p, 32);
    cudaError_t launch = cudaGetLastError();
    cudaError_t sync = cudaDeviceSynchronize();
    std::printf("launch %s sync %s\n", cudaGetErrorName(launch), cudaGetErrorName(sync));
    cudaFree(p);
    std::printf("exit normally\n");
    return 0;
}
