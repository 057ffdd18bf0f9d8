// An -rdc=true program: its kernel calls twice() and counts in counter, both of link_helper.cu
#include <cstdio>
extern __device__ float twice(float x);
extern __device__ int counter;
__global__ void k(float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) { y[i] = twice(y[i]) + 1.0f; atomicAdd(&counter, 1); }
}
int main() {
  const int n = 64; float h[n]; for (int i = 0; i < n; i++) h[i] = i;
  float *d; cudaMalloc(&d, sizeof h); cudaMemcpy(d, h, sizeof h, cudaMemcpyHostToDevice);
  k<<<1, n>>>(d, n);
  cudaError_t e = cudaDeviceSynchronize();
  cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost);
  int c = 0; cudaMemcpyFromSymbol(&c, counter, sizeof c);
  printf("%s %g %g %g counter %d\n", cudaGetErrorString(e), h[0], h[1], h[2], c);
  return !(e == cudaSuccess && h[2] == 5.0f && c == n);
}
