// cudaFuncGetParamInfo: each parameter's offset and size in CUDA's packed parameter buffer
// (every one at its own alignment), for a kernel launched first and one never launched;
// past the last parameter and a host function that is no kernel are refused.
// Self-checking; runs unchanged against NVIDIA's libcudart.
#include "../include/runtime_check.h"

struct __align__(16) Wide {
    float v[5];
};

__global__ void mixed(char a, double b, int *c, float3 d, short e, Wide w)
{
    if (c != nullptr)
        *c = a + (int)b + (int)d.x + e + (int)w.v[4];
}

__global__ void none() {}

static void not_a_kernel() {}

int main()
{
    int *d = NULL;
    OK("malloc", cudaMalloc(&d, sizeof(int)));
    Wide w = {{0, 0, 0, 0, 5}};
    mixed<<<1, 1>>>(1, 2.0, d, make_float3(3, 0, 0), 4, w);
    OK("launch", cudaDeviceSynchronize());
    int r = 0;
    OK("read", cudaMemcpy(&r, d, sizeof r, cudaMemcpyDeviceToHost));
    CHECK("the kernel read its parameters", r == 15);

    const size_t want_off[6] = {0, 8, 16, 24, 36, 48}, want_size[6] = {1, 8, 8, 12, 2, 32};
    int good = 1;
    printf("layout:");
    for (size_t i = 0; i < 6; i++) {
        size_t off = 99, size = 99;
        cudaError_t e = cudaFuncGetParamInfo((const void *)mixed, i, &off, &size);
        printf(" %zu:%zu", off, size);
        good &= e == cudaSuccess && off == want_off[i] && size == want_size[i];
    }
    printf("\n");
    CHECK("every parameter at its offset, with its size", good);
    size_t off = 0, size = 0;
    cudaError_t e = cudaFuncGetParamInfo((const void *)mixed, 6, &off, &size);
    printf("past the last: %s\n", cudaGetErrorName(e));
    CHECK("an index past the last parameter is refused", e == cudaErrorInvalidValue);
    e = cudaFuncGetParamInfo((const void *)none, 0, &off, &size);
    printf("no parameters: %s\n", cudaGetErrorName(e));
    CHECK("a kernel without parameters has no parameter 0", e == cudaErrorInvalidValue);
    e = cudaFuncGetParamInfo((const void *)not_a_kernel, 0, &off, &size);
    printf("not a kernel: %s\n", cudaGetErrorName(e));
    CHECK("a host function is refused", e != cudaSuccess);
    cudaGetLastError();
    OK("free", cudaFree(d));
    if (failures == 0)
        printf("ALL PASSED\n");
    return failures != 0;
}
