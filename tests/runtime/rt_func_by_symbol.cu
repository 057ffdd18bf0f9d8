// cudaGetFuncBySymbol: the driver's CUfunction for a kernel the runtime registered, usable
// with the driver API (its name, an attribute, a cuLaunchKernel that computes), the same
// handle when asked again; a host function is refused. Self-checking; runs unchanged
// against NVIDIA's libcudart (linked with -lcuda).
#include <cuda.h>
#include <string.h>

#include "../include/runtime_check.h"

__global__ void axpy(float a, const float *x, float *y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        y[i] += a * x[i];
}

static void host_only() {}

int main()
{
    cudaFunction_t f = NULL, again = NULL;
    OK("func by symbol", cudaGetFuncBySymbol(&f, (const void *)axpy));
    OK("again", cudaGetFuncBySymbol(&again, (const void *)axpy));
    CHECK("the same CUfunction both times", f != NULL && f == again);
    const char *name = NULL;
    CUresult r = cuFuncGetName(&name, (CUfunction)f);
    printf("driver name: %s\n", r == CUDA_SUCCESS ? name : "?");
    CHECK("the driver knows it by its mangled name",
          r == CUDA_SUCCESS && strcmp(name, "_Z4axpyfPKfPfi") == 0);
    int max_threads = 0;
    r = cuFuncGetAttribute(&max_threads, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, (CUfunction)f);
    CHECK("an attribute through the driver", r == CUDA_SUCCESS && max_threads > 0);

    const int n = 1000;
    float hx[n], hy[n];
    for (int i = 0; i < n; i++) {
        hx[i] = (float)i;
        hy[i] = 1.0f;
    }
    float *x = NULL, *y = NULL;
    OK("x", cudaMalloc(&x, sizeof hx));
    OK("y", cudaMalloc(&y, sizeof hy));
    OK("to x", cudaMemcpy(x, hx, sizeof hx, cudaMemcpyHostToDevice));
    OK("to y", cudaMemcpy(y, hy, sizeof hy, cudaMemcpyHostToDevice));
    float a = 2.0f;
    int nn = n;
    void *args[4] = {&a, &x, &y, &nn};
    r = cuLaunchKernel((CUfunction)f, (n + 127) / 128, 1, 1, 128, 1, 1, 0, NULL, args, NULL);
    CHECK("cuLaunchKernel of the CUfunction", r == CUDA_SUCCESS);
    OK("sync", cudaDeviceSynchronize());
    OK("back", cudaMemcpy(hy, y, sizeof hy, cudaMemcpyDeviceToHost));
    printf("y[999] = %g\n", hy[999]);
    CHECK("the driver launch computed", hy[0] == 1.0f && hy[999] == 1999.0f);

    cudaError_t e = cudaGetFuncBySymbol(&f, (const void *)host_only);
    printf("host function: %s\n", cudaGetErrorName(e));
    CHECK("a host function is refused", e == cudaErrorInvalidDeviceFunction);
    cudaGetLastError();
    OK("free x", cudaFree(x));
    OK("free y", cudaFree(y));
    if (failures == 0)
        printf("ALL PASSED\n");
    return failures != 0;
}
