/*
 * Library management and the calls real frameworks make around it, through the shim's
 * libcuda.so.1 (linked with -lcuda): one image with a __device__ global loaded many times
 * at once (each load its own global), the cuLibrary* / cuKernel* family over the module
 * machinery, and cuStreamGetCaptureInfo in each of its ABIs. Needs the PTX translator.
 * Prints ok/FAIL lines; exit status 1 if any failed.
 */
#define _POSIX_C_SOURCE 200809L
#include <cuda.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures;

#define EXPECT(cond, ...)                                                                \
    do {                                                                                 \
        int ok_ = (cond);                                                                \
        printf(ok_ ? "ok " : "FAIL ");                                                   \
        failures += !ok_;                                                                \
        printf(__VA_ARGS__);                                                             \
        printf("\n");                                                                    \
        fflush(stdout);                                                                  \
    } while (0)

/* bump: counter += 1, out = counter (a module-scope __device__ global) */
static const char *ptx =
    ".version 7.0\n.target sm_75\n.address_size 64\n"
    ".visible .global .align 4 .u32 counter = 7;\n"
    ".visible .global .align 8 .u64 managed_like = 0;\n"
    ".visible .entry bump(.param .u64 p_out, .param .u32 p_step)\n"
    "{\n"
    "    .reg .b32 %r<4>;\n    .reg .b64 %rd<3>;\n"
    "    ld.param.u64 %rd1, [p_out];\n    ld.param.u32 %r3, [p_step];\n"
    "    ld.global.u32 %r1, [counter];\n"
    "    add.u32 %r2, %r1, %r3;\n    st.global.u32 [counter], %r2;\n"
    "    cvta.to.global.u64 %rd2, %rd1;\n    st.global.u32 [%rd2], %r2;\n"
    "    ret;\n}\n"
    ".visible .entry other()\n{\n    ret;\n}\n";

#define LOADS 6

/* CUDA 11.3's ABI, which CUDA 13's header no longer declares; programs built then call it */
CUresult CUDAAPI cuStreamGetCaptureInfo_v2(CUstream hStream,
                                           CUstreamCaptureStatus *captureStatus_out,
                                           cuuint64_t *id_out, CUgraph *graph_out,
                                           const CUgraphNode **dependencies_out,
                                           size_t *numDependencies_out);

int main(void)
{
    EXPECT(cuInit(0) == CUDA_SUCCESS, "cuInit");
    CUdevice dev;
    CUcontext ctx;
    cuDeviceGet(&dev, 0);
    EXPECT(cuDevicePrimaryCtxRetain(&ctx, dev) == CUDA_SUCCESS && cuCtxSetCurrent(ctx) == 0,
           "primary context current");
    CUdeviceptr out;
    cuMemAlloc(&out, 64);

    /* the same image loaded again and again, all alive at once: each its own globals */
    CUmodule mods[LOADS];
    int loaded = 0;
    for (int i = 0; i < LOADS; i++) {
        CUresult rc = cuModuleLoadData(&mods[i], ptx);
        EXPECT(rc == CUDA_SUCCESS, "load %d of one image with a __device__ global (%d)", i, rc);
        loaded += rc == CUDA_SUCCESS;
    }
    if (loaded == LOADS) {
        for (int i = 0; i < LOADS; i++) {
            CUdeviceptr g;
            size_t sz;
            unsigned int v = 100u * (unsigned)i;
            cuModuleGetGlobal(&g, &sz, mods[i], "counter");
            cuMemcpyHtoD(g, &v, 4);
        }
        int own = 1;
        for (int i = 0; i < LOADS; i++) {
            CUfunction f;
            unsigned int step = 1, got = 0;
            void *params[] = {&out, &step};
            cuModuleGetFunction(&f, mods[i], "bump");
            cuLaunchKernel(f, 1, 1, 1, 1, 1, 1, 0, NULL, params, NULL);
            cuMemcpyDtoH(&got, out, 4);
            own &= got == 100u * (unsigned)i + 1;
        }
        EXPECT(own, "each load has its own copy of the global");
        for (int i = 0; i < LOADS; i++)
            cuModuleUnload(mods[i]);
    }

    /* libraries */
    char path[] = "/tmp/pyshim_test_library_XXXXXX";
    int fd = mkstemp(path);
    FILE *fp = fd >= 0 ? fdopen(fd, "w") : NULL;
    if (fp != NULL) {
        fputs(ptx, fp);
        fclose(fp);
    }
    CUlibrary lib = NULL, lib2 = NULL;
    EXPECT(cuLibraryLoadFromFile(&lib, path, NULL, NULL, 0, NULL, NULL, 0) == CUDA_SUCCESS,
           "cuLibraryLoadFromFile");
    remove(path);
    EXPECT(cuLibraryLoadData(&lib2, ptx, NULL, NULL, 0, NULL, NULL, 0) == CUDA_SUCCESS,
           "cuLibraryLoadData of the same image");
    unsigned int count = 0;
    EXPECT(cuLibraryGetKernelCount(&count, lib) == CUDA_SUCCESS && count == 2,
           "cuLibraryGetKernelCount = %u", count);
    CUkernel ks[2] = {NULL, NULL};
    EXPECT(cuLibraryEnumerateKernels(ks, 2, lib) == CUDA_SUCCESS && ks[0] && ks[1],
           "cuLibraryEnumerateKernels");
    CUkernel k = NULL;
    EXPECT(cuLibraryGetKernel(&k, lib, "bump") == CUDA_SUCCESS, "cuLibraryGetKernel");
    EXPECT(ks[0] == k || ks[1] == k, "enumerated handles are the ones cuLibraryGetKernel gives");
    CUkernel missing = NULL;
    CUresult rc = cuLibraryGetKernel(&missing, lib, "no_such_kernel");
    EXPECT(rc != CUDA_SUCCESS || missing == NULL ||
               cuLaunchKernel((CUfunction)missing, 1, 1, 1, 1, 1, 1, 0, NULL, NULL, NULL) ==
                   CUDA_ERROR_NOT_FOUND,
           "a kernel the library lacks is an error (%d)", rc);
    CUmodule m = NULL;
    CUfunction f = NULL;
    EXPECT(cuLibraryGetModule(&m, lib) == CUDA_SUCCESS && m != NULL &&
               cuModuleGetFunction(&f, m, "bump") == CUDA_SUCCESS,
           "cuLibraryGetModule gives a module with the kernel");
    CUfunction kf = NULL;
    EXPECT(cuKernelGetFunction(&kf, k) == CUDA_SUCCESS && kf != NULL, "cuKernelGetFunction");
    CUlibrary owner = NULL;
    EXPECT(cuKernelGetLibrary(&owner, k) == CUDA_SUCCESS && owner == lib, "cuKernelGetLibrary");
    const char *name = NULL;
    EXPECT(cuKernelGetName(&name, k) == CUDA_SUCCESS && name && strcmp(name, "bump") == 0,
           "cuKernelGetName = %s", name ? name : "(null)");
    EXPECT(cuKernelGetName(NULL, k) == CUDA_ERROR_INVALID_VALUE,
           "cuKernelGetName(NULL name) -> CUDA_ERROR_INVALID_VALUE");
    EXPECT(cuKernelGetName(&name, NULL) == CUDA_ERROR_INVALID_VALUE,
           "cuKernelGetName(NULL kernel) -> CUDA_ERROR_INVALID_VALUE");
    int v = 0;
    EXPECT(cuKernelGetAttribute(&v, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, k, dev) ==
                   CUDA_SUCCESS && v > 0,
           "cuKernelGetAttribute(MAX_THREADS_PER_BLOCK) = %d", v);
    EXPECT(cuKernelGetAttribute(&v, CU_FUNC_ATTRIBUTE_PTX_VERSION, k, dev) == CUDA_SUCCESS &&
               v == 75,
           "cuKernelGetAttribute(PTX_VERSION) = %d", v);
    EXPECT(cuKernelSetAttribute(CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, 1024, k, dev) ==
               CUDA_SUCCESS,
           "cuKernelSetAttribute(MAX_DYNAMIC_SHARED_SIZE_BYTES)");
    size_t off = 99, size = 99;
    rc = cuKernelGetParamInfo(k, 1, &off, &size);
    EXPECT(rc == CUDA_SUCCESS && off == 8 && size == 4,
           "cuKernelGetParamInfo(1) = offset %zu size %zu (%d)", off, size, rc);
    rc = cuFuncGetParamInfo(kf, 0, &off, &size);
    EXPECT(rc == CUDA_SUCCESS && off == 0 && size == 8,
           "cuFuncGetParamInfo(0) = offset %zu size %zu (%d)", off, size, rc);
    EXPECT(cuKernelGetParamInfo(k, 2, &off, &size) == CUDA_ERROR_INVALID_VALUE,
           "cuKernelGetParamInfo past the last parameter -> CUDA_ERROR_INVALID_VALUE");

    /* globals and managed variables, per library */
    CUdeviceptr g1 = 0, g2 = 0, gm = 0;
    size_t s1 = 0, s2 = 0, sm = 0;
    EXPECT(cuLibraryGetGlobal(&g1, &s1, lib, "counter") == CUDA_SUCCESS &&
               cuLibraryGetGlobal(&g2, &s2, lib2, "counter") == CUDA_SUCCESS && s1 == 4 &&
               g1 != g2,
           "cuLibraryGetGlobal: each library its own global");
    EXPECT(cuLibraryGetManaged(&gm, &sm, lib, "managed_like") == CUDA_SUCCESS && sm == 8,
           "cuLibraryGetManaged (%zu bytes)", sm);
    unsigned int start = 40, step = 2, got = 0;
    cuMemcpyHtoD(g1, &start, 4);
    void *params[] = {&out, &step};
    EXPECT(cuLaunchKernel((CUfunction)k, 1, 1, 1, 1, 1, 1, 0, NULL, params, NULL) ==
                   CUDA_SUCCESS &&
               cuMemcpyDtoH(&got, out, 4) == CUDA_SUCCESS && got == 42,
           "a library kernel runs with its library's global (%u)", got);
    EXPECT(cuLibraryUnload(lib2) == CUDA_SUCCESS && cuLibraryUnload(lib) == CUDA_SUCCESS,
           "cuLibraryUnload");

    /* cuStreamGetCaptureInfo, every ABI */
    CUstream s;
    cuStreamCreate(&s, CU_STREAM_NON_BLOCKING);
    CUstreamCaptureStatus st = CU_STREAM_CAPTURE_STATUS_INVALIDATED;
    cuuint64_t id = 99;
    CUgraph graph = (CUgraph)1;
    const CUgraphNode *deps = (const CUgraphNode *)1;
    const CUgraphEdgeData *edges = (const CUgraphEdgeData *)1;
    size_t ndeps = 99;
    rc = cuStreamGetCaptureInfo_v3(s, &st, &id, &graph, &deps, &edges, &ndeps);
    EXPECT(rc == CUDA_SUCCESS && st == CU_STREAM_CAPTURE_STATUS_NONE && graph == NULL &&
               ndeps == 0,
           "cuStreamGetCaptureInfo_v3 on an idle stream (%d)", rc);
    EXPECT(cuStreamBeginCapture(s, CU_STREAM_CAPTURE_MODE_THREAD_LOCAL) == CUDA_SUCCESS,
           "cuStreamBeginCapture");
    rc = cuStreamGetCaptureInfo_v3(s, &st, &id, &graph, &deps, &edges, &ndeps);
    EXPECT(rc == CUDA_SUCCESS && st == CU_STREAM_CAPTURE_STATUS_ACTIVE && id != 0 &&
               graph != NULL && edges == NULL,
           "cuStreamGetCaptureInfo_v3 while capturing (%d)", rc);
    cuuint64_t id2 = 0;
    CUstreamCaptureStatus st2;
    CUgraph graph2 = NULL;
    rc = cuStreamGetCaptureInfo_v2(s, &st2, &id2, &graph2, NULL, NULL);
    EXPECT(rc == CUDA_SUCCESS && st2 == st && id2 == id && graph2 == graph,
           "cuStreamGetCaptureInfo_v2 agrees (%d)", rc);
    /* what cuGetProcAddress hands CUDA 13 callers for "cuStreamGetCaptureInfo" */
    CUresult (*by_proc)(CUstream, CUstreamCaptureStatus *, cuuint64_t *, CUgraph *,
                        const CUgraphNode **, const CUgraphEdgeData **, size_t *) = NULL;
    CUdriverProcAddressQueryResult q;
    rc = cuGetProcAddress("cuStreamGetCaptureInfo", (void **)&by_proc, 13000,
                          CU_GET_PROC_ADDRESS_DEFAULT, &q);
    EXPECT(rc == CUDA_SUCCESS && by_proc != NULL &&
               by_proc(s, &st2, &id2, NULL, NULL, NULL, NULL) == CUDA_SUCCESS && id2 == id,
           "cuGetProcAddress(cuStreamGetCaptureInfo, 13000) works (%d)", rc);
    CUgraph captured = NULL;
    EXPECT(cuStreamEndCapture(s, &captured) == CUDA_SUCCESS && captured != NULL,
           "cuStreamEndCapture");
    cuGraphDestroy(captured);
    cuStreamDestroy(s);

    printf("%s: %d failure(s)\n", failures ? "FAIL" : "PASS", failures);
    return failures != 0;
}
