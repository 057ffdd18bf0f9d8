// The runtime's library management (cudaLibrary*, cudaGetKernel,
// cudaKernelSetAttributeForDevice) and cudaStreamGetCaptureInfo, as frameworks call them:
// PTX loaded at run time, its kernels launched by cudaKernel_t, its globals read and
// written, one image loaded several times at once, and a capture queried. Prints
// "PASS name" / "FAIL name ..." lines and "ALL PASSED".
#include <cuda_runtime.h>
#include <stdio.h>
#include <string.h>

static const char *ptx =
    ".version 7.0\n.target sm_75\n.address_size 64\n"
    ".visible .global .align 4 .u32 counter = 7;\n"
    ".visible .entry bump(.param .u64 p_out, .param .u32 p_step)\n"
    "{\n"
    "    .reg .b32 %r<4>;\n    .reg .b64 %rd<3>;\n"
    "    ld.param.u64 %rd1, [p_out];\n    ld.param.u32 %r3, [p_step];\n"
    "    ld.global.u32 %r1, [counter];\n"
    "    add.u32 %r2, %r1, %r3;\n    st.global.u32 [counter], %r2;\n"
    "    cvta.to.global.u64 %rd2, %rd1;\n    st.global.u32 [%rd2], %r2;\n"
    "    ret;\n}\n"
    ".visible .entry other()\n{\n    ret;\n}\n";

__global__ void twice(int *p)
{
    p[threadIdx.x] *= 2;
}

static int failures;

static void check(const char *name, int ok, long long got)
{
    printf("%s %s (%lld)\n", ok ? "PASS" : "FAIL", name, got);
    failures += !ok;
}

int main(void)
{
    unsigned *out = NULL;
    cudaMalloc(&out, 64);
    cudaLibrary_t lib[4];
    int loaded = 0;
    for (int i = 0; i < 4; i++) {
        cudaError_t e = cudaLibraryLoadData(&lib[i], ptx, NULL, NULL, 0, NULL, NULL, 0);
        loaded += e == cudaSuccess;
    }
    check("cudaLibraryLoadData four times", loaded == 4, loaded);
    if (loaded != 4)
        return 1;
    unsigned count = 0;
    cudaError_t e = cudaLibraryGetKernelCount(&count, lib[0]);
    check("cudaLibraryGetKernelCount", e == cudaSuccess && count == 2, count);
    cudaKernel_t ks[2] = {NULL, NULL}, k = NULL;
    e = cudaLibraryEnumerateKernels(ks, 2, lib[0]);
    check("cudaLibraryEnumerateKernels", e == cudaSuccess && ks[0] && ks[1], e);
    e = cudaLibraryGetKernel(&k, lib[0], "bump");
    check("cudaLibraryGetKernel", e == cudaSuccess && k != NULL, e);
    check("enumerated handles are cudaLibraryGetKernel's", ks[0] == k || ks[1] == k, 0);
    cudaKernel_t none = NULL;
    e = cudaLibraryGetKernel(&none, lib[0], "no_such_kernel");
    check("a missing kernel is an error", e != cudaSuccess, e);
    cudaGetLastError();

    /* each library its own global */
    int own = 1;
    for (int i = 0; i < 4; i++) {
        unsigned *g = NULL;
        size_t size = 0;
        e = cudaLibraryGetGlobal((void **)&g, &size, lib[i], "counter");
        own &= e == cudaSuccess && size == 4;
        unsigned v = 100u * (unsigned)i;
        cudaMemcpy(g, &v, 4, cudaMemcpyHostToDevice);
    }
    check("cudaLibraryGetGlobal in each library", own, 0);
    for (int i = 0; i < 4; i++) {
        cudaKernel_t ki = NULL;
        cudaLibraryGetKernel(&ki, lib[i], "bump");
        unsigned step = 1, got = 0;
        void *args[] = {&out, &step};
        e = cudaLaunchKernel((const void *)ki, dim3(1), dim3(1), args, 0, 0);
        cudaMemcpy(&got, out, 4, cudaMemcpyDeviceToHost);
        own &= e == cudaSuccess && got == 100u * (unsigned)i + 1;
    }
    check("each library's kernel sees its own global", own, 0);

    cudaFuncAttributes a;
    e = cudaFuncGetAttributes(&a, (const void *)k);
    check("cudaFuncGetAttributes(cudaKernel_t)", e == cudaSuccess && a.ptxVersion == 75,
          a.ptxVersion);
    e = cudaKernelSetAttributeForDevice(k, cudaFuncAttributeMaxDynamicSharedMemorySize, 1024, 0);
    check("cudaKernelSetAttributeForDevice", e == cudaSuccess, e);

    /* cudaGetKernel of a program's own kernel */
    cudaKernel_t tk = NULL;
    e = cudaGetKernel(&tk, twice);
    int host[4] = {1, 2, 3, 4};
    int *dev = NULL;
    cudaMalloc(&dev, sizeof host);
    cudaMemcpy(dev, host, sizeof host, cudaMemcpyHostToDevice);
    void *targs[] = {&dev};
    if (e == cudaSuccess)
        e = cudaLaunchKernel((const void *)tk, dim3(1), dim3(4), targs, 0, 0);
    cudaMemcpy(host, dev, sizeof host, cudaMemcpyDeviceToHost);
    check("cudaGetKernel, launched by its handle", e == cudaSuccess && host[3] == 8, host[3]);

    /* a capture, queried */
    cudaStream_t s;
    cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
    cudaStreamCaptureStatus st = cudaStreamCaptureStatusInvalidated;
    unsigned long long id = 99;
    cudaGraph_t graph = (cudaGraph_t)1;
    const cudaGraphNode_t *deps = NULL;
    size_t n = 99;
    e = cudaStreamGetCaptureInfo(s, &st, &id, &graph, &deps, NULL, &n);
    check("cudaStreamGetCaptureInfo on an idle stream",
          e == cudaSuccess && st == cudaStreamCaptureStatusNone && graph == NULL && n == 0, e);
    cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal);
    twice<<<1, 4, 0, s>>>(dev);
    e = cudaStreamGetCaptureInfo(s, &st, &id, &graph, &deps, NULL, &n);
    check("cudaStreamGetCaptureInfo while capturing",
          e == cudaSuccess && st == cudaStreamCaptureStatusActive && id != 0 && graph != NULL,
          e);
    cudaGraph_t captured = NULL;
    e = cudaStreamEndCapture(s, &captured);
    check("cudaStreamEndCapture", e == cudaSuccess && captured != NULL, e);
    cudaGraphDestroy(captured);
    cudaStreamDestroy(s);

    int unloaded = 1;
    for (int i = 0; i < 4; i++)
        unloaded &= cudaLibraryUnload(lib[i]) == cudaSuccess;
    check("cudaLibraryUnload", unloaded, 0);
    unsigned step = 1;
    void *args[] = {&out, &step};
    e = cudaLaunchKernel((const void *)k, dim3(1), dim3(1), args, 0, 0);
    check("a kernel of an unloaded library is refused", e != cudaSuccess, e);
    cudaGetLastError();
    e = cudaDeviceSynchronize();
    check("the device is fine after it", e == cudaSuccess, e);
    if (failures == 0)
        printf("ALL PASSED\n");
    return failures != 0;
}
