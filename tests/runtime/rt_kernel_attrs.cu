// Kernel attributes and launch bounds as NVIDIA reports them. Built PTX-only for one
// virtual architecture (nvcc -arch=compute_75): cudaFuncGetAttributes and the driver's
// cuFuncGetAttribute must give ptxVersion/binaryVersion 75 (the backend's own numbers,
// gfx942's 94, made programs think Hopper features were compiled in), and a launch past
// a kernel's __launch_bounds__ or the device's block limit is cudaErrorInvalidValue, not a
// failed launch. Prints "PASS name" / "FAIL name ..." lines and "ALL PASSED".
#include <cuda.h>
#include <cuda_runtime.h>
#include <stdio.h>
#include <string.h>

__global__ void __launch_bounds__(64) bounded(int *p)
{
    p[threadIdx.x] = threadIdx.x;
}

__constant__ int table[20] = {2};

__global__ void plain(int *p)
{
    p[threadIdx.x] = table[0] * threadIdx.x;
}

static int failures;

static void check(const char *name, int ok, long long got)
{
    printf("%s %s (%lld)\n", ok ? "PASS" : "FAIL", name, got);
    failures += !ok;
}

int main(void)
{
    int *d = NULL;
    if (cudaMalloc(&d, 4096 * sizeof(int)) != cudaSuccess) {
        printf("FAIL cudaMalloc\n");
        return 1;
    }
    cudaFuncAttributes a;
    cudaError_t e = cudaFuncGetAttributes(&a, (const void *)plain);
    check("cudaFuncGetAttributes", e == cudaSuccess, e);
    printf("attrs ptxVersion %d binaryVersion %d maxThreadsPerBlock %d\n", a.ptxVersion,
           a.binaryVersion, a.maxThreadsPerBlock);
    check("ptxVersion is the PTX target", a.ptxVersion == 75, a.ptxVersion);
    check("binaryVersion is the PTX target", a.binaryVersion == 75, a.binaryVersion);
    check("constSizeBytes counts the __constant__ table", a.constSizeBytes >= sizeof table,
          (long long)a.constSizeBytes);


    int occ = -1, max_blocks = 0;
    cudaDeviceGetAttribute(&max_blocks, cudaDevAttrMaxBlocksPerMultiprocessor, 0);
    e = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&occ, plain, 32, 0);
    check("occupancy within the device's resident blocks", e == cudaSuccess && occ > 0 &&
          occ <= max_blocks, occ);
    e = cudaFuncGetAttributes(&a, (const void *)bounded);
    check("bounded maxThreadsPerBlock", e == cudaSuccess && a.maxThreadsPerBlock == 64,
          a.maxThreadsPerBlock);
    bounded<<<1, 64>>>(d);
    e = cudaDeviceSynchronize();
    check("launch within the bounds", e == cudaSuccess && cudaGetLastError() == cudaSuccess, e);
    bounded<<<1, 128>>>(d);
    e = cudaGetLastError();
    check("launch past __launch_bounds__ -> cudaErrorInvalidValue", e == cudaErrorInvalidValue, e);
    cudaGetLastError();
    e = cudaDeviceSynchronize();
    check("the device is fine after it", e == cudaSuccess, e);

    /* every launch attribute, with its meaning: the kernel runs, the events fire */
    cudaEvent_t programmatic, completion;
    cudaEventCreate(&programmatic);
    cudaEventCreate(&completion);
    cudaLaunchAttribute at[9];
    memset(at, 0, sizeof at);
    at[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;
    at[0].val.programmaticStreamSerializationAllowed = 1;
    at[1].id = cudaLaunchAttributePriority;
    at[1].val.priority = 0;
    at[2].id = cudaLaunchAttributeClusterDimension;
    at[2].val.clusterDim.x = 2;
    at[2].val.clusterDim.y = 1;
    at[2].val.clusterDim.z = 1;
    at[3].id = cudaLaunchAttributeAccessPolicyWindow;
    at[3].val.accessPolicyWindow.base_ptr = d;
    at[3].val.accessPolicyWindow.num_bytes = 4096;
    at[3].val.accessPolicyWindow.hitRatio = 0.5f;
    at[3].val.accessPolicyWindow.hitProp = cudaAccessPropertyPersisting;
    at[3].val.accessPolicyWindow.missProp = cudaAccessPropertyStreaming;
    at[4].id = cudaLaunchAttributeMemSyncDomain;
    at[4].val.memSyncDomain = cudaLaunchMemSyncDomainRemote;
    at[5].id = cudaLaunchAttributeProgrammaticEvent;
    at[5].val.programmaticEvent.event = programmatic;
    at[5].val.programmaticEvent.triggerAtBlockStart = 0;
    at[6].id = cudaLaunchAttributeLaunchCompletionEvent;
    at[6].val.launchCompletionEvent.event = completion;
    at[7].id = cudaLaunchAttributeMemSyncDomainMap;
    at[7].val.memSyncDomainMap.default_ = 0;
    at[7].val.memSyncDomainMap.remote = 1;
    at[8].id = cudaLaunchAttributePreferredSharedMemoryCarveout;
    at[8].val.sharedMemCarveout = 50;
    cudaMemset(d, 0, 4096 * sizeof(int));
    for (int i = 0; i < 9; i++) {
        cudaLaunchConfig_t cfg;
        memset(&cfg, 0, sizeof cfg);
        cfg.gridDim = dim3(2, 1, 1);
        cfg.blockDim = dim3(32, 1, 1);
        cfg.attrs = &at[i];
        cfg.numAttrs = 1;
        e = cudaLaunchKernelEx(&cfg, plain, d + 64 * i);
        char what[96];
        snprintf(what, sizeof what, "cudaLaunchKernelEx with attribute %d", (int)at[i].id);
        check(what, e == cudaSuccess, e);
    }
    e = cudaEventSynchronize(completion);
    check("launch-completion event fired", e == cudaSuccess && cudaEventQuery(completion) == cudaSuccess, e);
    check("programmatic event fired", cudaEventQuery(programmatic) == cudaSuccess, 0);
    int host[64 * 9];
    cudaMemcpy(host, d, sizeof host, cudaMemcpyDeviceToHost);
    int ran = 1;
    for (int i = 0; i < 9; i++)
        ran &= host[64 * i + 5] == 10;
    check("each attributed launch ran its kernel", ran, host[5]);
    {
        cudaLaunchConfig_t cfg;
        memset(&cfg, 0, sizeof cfg);
        cfg.gridDim = dim3(3, 1, 1);
        cfg.blockDim = dim3(32, 1, 1);
        cfg.attrs = &at[2];
        cfg.numAttrs = 1;
        e = cudaLaunchKernelEx(&cfg, plain, d);
        check("a grid of partial clusters is refused", e != cudaSuccess, e);
        cudaGetLastError();
    }

    /* the driver's view of the same kernels (NVIDIA's runtime gives their CUfunctions) */
    cudaFunction_t f = NULL;
    if (cudaGetFuncBySymbol(&f, (const void *)plain) != cudaSuccess || f == NULL) {
        cudaGetLastError();
        printf("SKIP driver checks: no cudaGetFuncBySymbol\n");
    } else {
        int v = -1;
        CUresult r = cuFuncGetAttribute(&v, CU_FUNC_ATTRIBUTE_PTX_VERSION, (CUfunction)f);
        check("cuFuncGetAttribute(PTX_VERSION)", r == CUDA_SUCCESS && v == 75, v);
        r = cuFuncGetAttribute(&v, CU_FUNC_ATTRIBUTE_BINARY_VERSION, (CUfunction)f);
        check("cuFuncGetAttribute(BINARY_VERSION)", r == CUDA_SUCCESS && v == 75, v);
        cudaGetFuncBySymbol(&f, (const void *)bounded);
        void *args[] = {&d};
        r = cuLaunchKernel((CUfunction)f, 1, 1, 1, 128, 1, 1, 0, NULL, args, NULL);
        check("cuLaunchKernel past .maxntid -> CUDA_ERROR_INVALID_VALUE",
              r == CUDA_ERROR_INVALID_VALUE, r);
        r = cuLaunchKernel((CUfunction)f, 1, 1, 1, 1, 1, 128, 0, NULL, args, NULL);
        check("cuLaunchKernel past the block's z limit -> CUDA_ERROR_INVALID_VALUE",
              r == CUDA_ERROR_INVALID_VALUE, r);
        r = cuCtxSynchronize();
        check("the context is fine after them", r == CUDA_SUCCESS, r);
        r = cuFuncGetName(NULL, (CUfunction)f);
        check("cuFuncGetName(NULL name) -> CUDA_ERROR_INVALID_VALUE",
              r == CUDA_ERROR_INVALID_VALUE, r);
    }
    const char *name = "untouched";
    CUresult r = cuFuncGetName(&name, NULL);
    check("cuFuncGetName(NULL function) -> CUDA_ERROR_INVALID_VALUE",
          r == CUDA_ERROR_INVALID_VALUE, r);
    r = cuKernelGetName(&name, NULL);
    check("cuKernelGetName(NULL kernel) -> CUDA_ERROR_INVALID_VALUE",
          r == CUDA_ERROR_INVALID_VALUE, r);
    if (failures == 0)
        printf("ALL PASSED\n");
    return failures != 0;
}
