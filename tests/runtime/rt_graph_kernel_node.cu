// cudaGraphKernelNodeGetParams: a kernel node's launch read back (the host stub, the
// shape, the node's copies of the arguments), after new parameters too; a node of
// another kind refused. Self-checking; runs unchanged against NVIDIA's libcudart.
#include "../include/runtime_check.h"

__global__ void axpy(float a, const float *x, float *y)
{
    y[threadIdx.x] += a * x[threadIdx.x];
}

__global__ void other(float *y)
{
    y[threadIdx.x] = 0.0f;
}

int main()
{
    float *x = NULL, *y = NULL;
    OK("malloc x", cudaMalloc(&x, 64 * sizeof(float)));
    OK("malloc y", cudaMalloc(&y, 64 * sizeof(float)));
    cudaGraph_t g;
    OK("create", cudaGraphCreate(&g, 0));
    float a = 2.5f;
    void *args[] = {&a, &x, &y};
    cudaKernelNodeParams kp = {};
    kp.func = (void *)axpy;
    kp.gridDim = dim3(2, 1, 1);
    kp.blockDim = dim3(32, 1, 1);
    kp.sharedMemBytes = 128;
    kp.kernelParams = args;
    cudaGraphNode_t n = NULL;
    OK("kernel node", cudaGraphAddKernelNode(&n, g, NULL, 0, &kp));
    a = -1.0f;   // the node copied the arguments when it was made

    cudaKernelNodeParams got = {};
    OK("get params", cudaGraphKernelNodeGetParams(n, &got));
    CHECK("the host stub", got.func == (void *)axpy);
    CHECK("the shape", got.gridDim.x == 2 && got.gridDim.y == 1 && got.blockDim.x == 32 &&
                           got.blockDim.z == 1 && got.sharedMemBytes == 128);
    CHECK("the node's copies of the arguments",
          got.kernelParams != NULL && *(float *)got.kernelParams[0] == 2.5f &&
              *(float **)got.kernelParams[1] == x && *(float **)got.kernelParams[2] == y);
    printf("a = %g\n", got.kernelParams ? *(float *)got.kernelParams[0] : 0.0f);

    void *args2[] = {&y};
    cudaKernelNodeParams kp2 = {};
    kp2.func = (void *)other;
    kp2.gridDim = dim3(1);
    kp2.blockDim = dim3(64);
    kp2.kernelParams = args2;
    cudaGraphNode_t n2 = NULL;
    OK("second node", cudaGraphAddKernelNode(&n2, g, &n, 1, &kp2));
    OK("get params 2", cudaGraphKernelNodeGetParams(n2, &got));
    CHECK("the other kernel", got.func == (void *)other && got.blockDim.x == 64);

    cudaGraphNode_t empty = NULL;
    OK("empty node", cudaGraphAddEmptyNode(&empty, g, NULL, 0));
    cudaError_t e = cudaGraphKernelNodeGetParams(empty, &got);
    printf("empty node: %s\n", cudaGetErrorName(e));
    CHECK("not a kernel node", e == cudaErrorInvalidValue);
    e = cudaGraphKernelNodeGetParams(n, NULL);
    CHECK("no output", e == cudaErrorInvalidValue);
    cudaGetLastError();

    OK("destroy", cudaGraphDestroy(g));
    if (failures == 0)
        printf("ALL PASSED\n");
    return failures != 0;
}
