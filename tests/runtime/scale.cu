// PTX for rt_with_driver.cu's driver-API half (nvcc -ptx).
extern "C" __global__ void scale(int *p, int n, int k)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        p[i] *= k;
}
