#include <cassert>
#include <cstdio>
__global__ void check(int n) { assert(threadIdx.x < n); }
int main() {
    check<<<2, 8>>>(8);
    cudaError_t a = cudaDeviceSynchronize();
    check<<<2, 8>>>(5);
    cudaError_t b = cudaDeviceSynchronize();
    printf("ok=%s assert=%s\n", cudaGetErrorName(a), cudaGetErrorName(b));
    return (a == cudaSuccess && b == cudaErrorAssert) ? 0 : 1;
}
