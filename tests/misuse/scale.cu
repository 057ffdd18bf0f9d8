// The kernel drv_misuse.cu loads (nvcc -ptx) to check the device still works.
extern "C" __global__ void scale(float *p, float f, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        p[i] *= f;
}
