// cuLink* tests: the kernel, whose helper function and counter live in link_helper.cu
extern __device__ float twice(float x);
extern __device__ int counter;
extern "C" __global__ void k(float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) { y[i] = twice(y[i]) + 1.0f; atomicAdd(&counter, 1); }
}
