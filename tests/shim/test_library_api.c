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

#include "expect.h"

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

/* many registers, a register bound, and __constant__ data */
static const char *regs_ptx =
    ".version 7.0\n.target sm_75\n.address_size 64\n"
    ".visible .const .align 8 .b8 table[80];\n"
    ".visible .entry heavy(.param .u64 p)\n.maxnreg 38\n{\n"
    "    .reg .b32 %r<200>;\n    .reg .b64 %rd<4>;\n"
    "    ld.param.u64 %rd1, [p];\n    ld.const.u32 %r1, [table];\n"
    "    st.global.u32 [%rd1], %r1;\n    ret;\n}\n"
    ".visible .entry exact(.param .u64 p)\n.reqntid 64, 1, 1\n{\n    ret;\n}\n"
    ".visible .entry plain(.param .u64 p)\n{\n"
    "    .reg .b32 %r<200>;\n    .reg .b64 %rd<4>;\n"
    "    ld.param.u64 %rd1, [p];\n    mov.u32 %r1, 3;\n"
    "    st.global.u32 [%rd1], %r1;\n    ret;\n}\n";

/* shared and local arrays asking for more alignment than the window's natural 16 bytes */
static const char *align_ptx =
    ".version 7.0\n.target sm_75\n.address_size 64\n"
    ".shared .align 4 .b8 small[4];\n"
    ".shared .align 256 .b8 big[256];\n"
    ".visible .entry where(.param .u64 p)\n{\n"
    "    .local .align 256 .b8 lbig[256];\n"
    "    .reg .b64 %rd<6>;\n    .reg .b32 %r<2>;\n"
    "    ld.param.u64 %rd1, [p];\n"
    "    mov.u64 %rd2, big;\n    cvta.shared.u64 %rd3, %rd2;\n"
    "    st.global.u64 [%rd1], %rd3;\n"
    "    mov.u64 %rd4, lbig;\n    cvta.local.u64 %rd5, %rd4;\n"
    "    st.global.u64 [%rd1+8], %rd5;\n"
    "    mov.u32 %r1, 1;\n    st.shared.u32 [small], %r1;\n    st.shared.u32 [big], %r1;\n"
    "    st.local.u32 [lbig], %r1;\n"
    "    ret;\n}\n";

#define LOADS 6

static int destroyed;

static void on_destroy(void *p)
{
    *(int *)p += 1;
}

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
    /* occupancy within the limits the device presents */
    int max_blocks = 0, max_threads_sm = 0, occ = -1;
    cuDeviceGetAttribute(&max_blocks, CU_DEVICE_ATTRIBUTE_MAX_BLOCKS_PER_MULTIPROCESSOR, dev);
    cuDeviceGetAttribute(&max_threads_sm, CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR,
                         dev);
    EXPECT(cuOccupancyMaxActiveBlocksPerMultiprocessor(&occ, kf, 32, 0) == CUDA_SUCCESS &&
               occ > 0 && occ <= max_blocks,
           "occupancy at 32 threads: %d blocks (the device has %d per SM)", occ, max_blocks);
    EXPECT(cuOccupancyMaxActiveBlocksPerMultiprocessor(&occ, kf, 1024, 0) == CUDA_SUCCESS &&
               occ > 0 && occ * 1024 <= max_threads_sm,
           "occupancy at 1024 threads: %d blocks (%d threads per SM)", occ, max_threads_sm);
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

    /* kernel attributes: registers bounded as asked, __constant__ data counted */
    CUmodule rm = NULL;
    CUfunction heavy = NULL, plainf = NULL;
    int regs = -1, cbytes = -1;
    EXPECT(cuModuleLoadData(&rm, regs_ptx) == CUDA_SUCCESS &&
               cuModuleGetFunction(&heavy, rm, "heavy") == CUDA_SUCCESS &&
               cuModuleGetFunction(&plainf, rm, "plain") == CUDA_SUCCESS,
           "load the register-hungry module");
    EXPECT(cuFuncGetAttribute(&regs, CU_FUNC_ATTRIBUTE_NUM_REGS, heavy) == CUDA_SUCCESS &&
               regs > 0 && regs <= 38,
           ".maxnreg 38 bounds NUM_REGS (%d)", regs);
    EXPECT(cuFuncGetAttribute(&cbytes, CU_FUNC_ATTRIBUTE_CONST_SIZE_BYTES, heavy) ==
                   CUDA_SUCCESS && cbytes >= 80,
           "CONST_SIZE_BYTES counts the module's __constant__ data (%d)", cbytes);
    CUfunction exact = NULL;
    void *eparams[] = {&out};
    EXPECT(cuModuleGetFunction(&exact, rm, "exact") == CUDA_SUCCESS &&
               cuLaunchKernel(exact, 1, 1, 1, 32, 1, 1, 0, NULL, eparams, NULL) ==
                   CUDA_ERROR_INVALID_VALUE &&
               cuLaunchKernel(exact, 1, 1, 1, 64, 1, 1, 0, NULL, eparams, NULL) == CUDA_SUCCESS &&
               cuCtxSynchronize() == CUDA_SUCCESS,
           "a block other than .reqntid is CUDA_ERROR_INVALID_VALUE, the right one runs");
    cuModuleUnload(rm);
    CUjit_option jo[] = {CU_JIT_MAX_REGISTERS};
    void *jv[] = {(void *)(uintptr_t)16};
    EXPECT(cuModuleLoadDataEx(&rm, regs_ptx, 1, jo, jv) == CUDA_SUCCESS &&
               cuModuleGetFunction(&plainf, rm, "plain") == CUDA_SUCCESS &&
               cuFuncGetAttribute(&regs, CU_FUNC_ATTRIBUTE_NUM_REGS, plainf) == CUDA_SUCCESS &&
               regs > 0 && regs <= 16,
           "CU_JIT_MAX_REGISTERS 16 at load bounds NUM_REGS (%d)", regs);
    cuModuleUnload(rm);
    CUlinkState link = NULL;
    void *linked = NULL;
    size_t linked_size = 0;
    CUjit_option lo[] = {CU_JIT_MAX_REGISTERS};
    void *lv[] = {(void *)(uintptr_t)20};
    regs = -1;
    EXPECT(cuLinkCreate(1, lo, lv, &link) == CUDA_SUCCESS &&
               cuLinkAddData(link, CU_JIT_INPUT_PTX, (void *)regs_ptx, strlen(regs_ptx),
                             "regs.ptx", 0, NULL, NULL) == CUDA_SUCCESS &&
               cuLinkComplete(link, &linked, &linked_size) == CUDA_SUCCESS &&
               cuModuleLoadData(&rm, linked) == CUDA_SUCCESS &&
               cuModuleGetFunction(&plainf, rm, "plain") == CUDA_SUCCESS &&
               cuFuncGetAttribute(&regs, CU_FUNC_ATTRIBUTE_NUM_REGS, plainf) == CUDA_SUCCESS &&
               regs > 0 && regs <= 20,
           "cuLinkCreate's CU_JIT_MAX_REGISTERS 20 bounds NUM_REGS of the linked module (%d)",
           regs);
    cuModuleUnload(rm);
    cuLinkDestroy(link);

    /* .align on shared and local arrays holds for their addresses */
    CUmodule am = NULL;
    CUfunction where = NULL;
    unsigned long long addrs[2] = {1, 1};
    void *aparams[] = {&out};
    EXPECT(cuModuleLoadData(&am, align_ptx) == CUDA_SUCCESS &&
               cuModuleGetFunction(&where, am, "where") == CUDA_SUCCESS &&
               cuLaunchKernel(where, 1, 1, 1, 1, 1, 1, 0, NULL, aparams, NULL) == CUDA_SUCCESS &&
               cuMemcpyDtoH(addrs, out, sizeof addrs) == CUDA_SUCCESS,
           "a kernel reports its arrays' addresses");
    EXPECT(addrs[0] % 256 == 0, ".shared .align 256 is 256-aligned (offset %llu)", addrs[0] % 256);
    EXPECT(addrs[1] % 256 == 0, ".local .align 256 is 256-aligned (offset %llu)", addrs[1] % 256);
    cuModuleUnload(am);

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
    /* a kernel in the capture, and a user object the graph keeps alive (cuda.core ties a
     * graph's Python arguments to it this way) */
    unsigned int gstep = 5;
    void *gparams[] = {&out, &gstep};
    CUkernel gk = NULL;
    CUlibrary glib = NULL;
    cuLibraryLoadData(&glib, ptx, NULL, NULL, 0, NULL, NULL, 0);
    cuLibraryGetKernel(&gk, glib, "bump");
    EXPECT(cuLaunchKernel((CUfunction)gk, 1, 1, 1, 1, 1, 1, 0, s, gparams, NULL) == CUDA_SUCCESS,
           "a launch captured into the graph");
    CUgraph captured = NULL;
    EXPECT(cuStreamEndCapture(s, &captured) == CUDA_SUCCESS && captured != NULL,
           "cuStreamEndCapture");
    CUuserObject uo = NULL;
    EXPECT(cuUserObjectCreate(&uo, &destroyed, on_destroy, 1,
                              CU_USER_OBJECT_NO_DESTRUCTOR_SYNC) == CUDA_SUCCESS,
           "cuUserObjectCreate");
    EXPECT(cuUserObjectRetain(uo, 2) == CUDA_SUCCESS && cuUserObjectRelease(uo, 2) == CUDA_SUCCESS,
           "cuUserObjectRetain / cuUserObjectRelease");
    EXPECT(cuGraphRetainUserObject(captured, uo, 1, CU_GRAPH_USER_OBJECT_MOVE) == CUDA_SUCCESS,
           "cuGraphRetainUserObject (moving the creator's reference)");
    CUDA_GRAPH_INSTANTIATE_PARAMS ip;
    memset(&ip, 0, sizeof ip);
    ip.flags = CUDA_GRAPH_INSTANTIATE_FLAG_UPLOAD;
    ip.hUploadStream = s;
    ip.result_out = CUDA_GRAPH_INSTANTIATE_ERROR;
    CUgraphExec exec = NULL;
    rc = cuGraphInstantiateWithParams(&exec, captured, &ip);
    EXPECT(rc == CUDA_SUCCESS && exec != NULL && ip.result_out == CUDA_GRAPH_INSTANTIATE_SUCCESS,
           "cuGraphInstantiateWithParams with an upload (%d)", rc);
    EXPECT(cuGraphDestroy(captured) == CUDA_SUCCESS && destroyed == 0,
           "the exec keeps the user object alive after the graph is gone");
    unsigned int before = 0, after = 0;
    CUdeviceptr gcounter;
    size_t gsize;
    cuLibraryGetGlobal(&gcounter, &gsize, glib, "counter");
    cuMemcpyDtoH(&before, gcounter, 4);
    EXPECT(cuGraphLaunch(exec, s) == CUDA_SUCCESS && cuGraphExecDestroy(exec) == CUDA_SUCCESS,
           "cuGraphLaunch, then cuGraphExecDestroy at once");
    EXPECT(cuStreamSynchronize(s) == CUDA_SUCCESS && cuMemcpyDtoH(&after, gcounter, 4) == 0 &&
               after == before + 5,
           "the launched graph ran its kernel (%u -> %u)", before, after);
    EXPECT(destroyed == 1, "the destructor ran once, after the launch's work (%d)", destroyed);
    cuLibraryUnload(glib);
    cuStreamDestroy(s);

    printf("%s: %d failure(s)\n", failures ? "FAIL" : "PASS", failures);
    return failures != 0;
}
