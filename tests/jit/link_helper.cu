// cuLink* tests: what link_kernel.cu links against (relocatable device code)
__device__ int counter;
__device__ float twice(float x) { return 2.0f * x; }
