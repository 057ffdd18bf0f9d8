// cudaFuncSetSharedMemConfig and cudaOccupancyAvailableDynamicSMemPerBlock by host stub:
// accepted / answered for a registered kernel, refused for bad arguments. Prints the
// device limits and the answers (the test checks the arithmetic). Self-checking.
#include "../include/runtime_check.h"

__global__ void staged(float *out)
{
    __shared__ float tile[256];   // 1 KiB of static shared memory
    tile[threadIdx.x] = (float)threadIdx.x;
    __syncthreads();
    out[threadIdx.x] = tile[255 - threadIdx.x];
}

static void host_only(void) {}

int main()
{
    OK("bank size", cudaFuncSetSharedMemConfig(staged, cudaSharedMemBankSizeEightByte));
    OK("bank size default", cudaFuncSetSharedMemConfig(staged, cudaSharedMemBankSizeDefault));
    cudaError_t e = cudaFuncSetSharedMemConfig(staged, (cudaSharedMemConfig)7);
    printf("bank size 7: %s\n", cudaGetErrorName(e));
    CHECK("an unknown bank size is refused", e == cudaErrorInvalidValue);
    e = cudaFuncSetSharedMemConfig((const void *)host_only, cudaSharedMemBankSizeDefault);
    printf("not a kernel: %s\n", cudaGetErrorName(e));
    CHECK("a host function is refused", e == cudaErrorInvalidDeviceFunction);
    cudaGetLastError();

    int dev = 0, per_sm = 0, optin = 0;
    OK("device", cudaGetDevice(&dev));
    OK("per sm", cudaDeviceGetAttribute(&per_sm, cudaDevAttrMaxSharedMemoryPerMultiprocessor, dev));
    OK("optin", cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev));
    cudaFuncAttributes a;
    OK("attributes", cudaFuncGetAttributes(&a, staged));
    size_t one = 0, four = 0;
    OK("one block", cudaOccupancyAvailableDynamicSMemPerBlock(&one, staged, 1, 256));
    OK("four blocks", cudaOccupancyAvailableDynamicSMemPerBlock(&four, staged, 4, 256));
    printf("limits %d %d static %zu available %zu %zu\n", per_sm, optin, a.sharedSizeBytes, one,
           four);
    CHECK("within what a block may opt in to", one > 0 && one + a.sharedSizeBytes <= (size_t)optin);
    CHECK("four blocks share the multiprocessor", four <= one && four * 4 <= (size_t)per_sm);
    e = cudaOccupancyAvailableDynamicSMemPerBlock(&one, staged, 0, 256);
    CHECK("zero blocks is refused", e == cudaErrorInvalidValue);
    e = cudaOccupancyAvailableDynamicSMemPerBlock(NULL, staged, 1, 256);
    CHECK("no output is refused", e == cudaErrorInvalidValue);
    e = cudaOccupancyAvailableDynamicSMemPerBlock(&one, (const void *)host_only, 1, 256);
    printf("occupancy of a host function: %s\n", cudaGetErrorName(e));
    CHECK("a host function is refused", e == cudaErrorInvalidDeviceFunction);
    cudaGetLastError();
    if (failures == 0)
        printf("ALL PASSED\n");
    return failures != 0;
}
