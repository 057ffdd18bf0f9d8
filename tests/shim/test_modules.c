/*
 * Module and library loading through the shim's libcuda.so.1 (linked with -lcuda):
 * cuLibraryLoadData with no current context, lazy kernels, globals, launches with
 * kernelParams, CUkernel passed as CUfunction, and the errors bad images must give.
 * Needs the PTX translator. Prints ok/FAIL lines; exit status 1 if any failed.
 */
#define _POSIX_C_SOURCE 200809L /* mkstemp, fdopen */
#include <cuda.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "expect.h"

/* out[i] = scale * i + bias, bias from a module-scope .global */
static const char *ptx =
    ".version 7.0\n.target sm_75\n.address_size 64\n"
    ".visible .global .align 4 .u32 bias = 5;\n"
    ".visible .entry fill(.param .u64 p_out, .param .u32 p_scale)\n"
    "{\n"
    "    .reg .b32 %r<6>;\n    .reg .b64 %rd<4>;\n"
    "    ld.param.u64 %rd1, [p_out];\n    ld.param.u32 %r1, [p_scale];\n"
    "    mov.u32 %r2, %tid.x;\n    ld.global.u32 %r3, [bias];\n"
    "    mad.lo.s32 %r4, %r1, %r2, %r3;\n"
    "    cvta.to.global.u64 %rd2, %rd1;\n    mul.wide.u32 %rd3, %r2, 4;\n"
    "    add.s64 %rd2, %rd2, %rd3;\n    st.global.u32 [%rd2], %r4;\n"
    "    ret;\n}\n";

static const char *bad_ptx =
    ".version 7.0\n.target sm_75\n.address_size 64\n"
    ".visible .entry broken()\n{\n    frobnicate.u32 %r1;\n    ret;\n}\n";

/* a shared-memory demand that grows with the block, as cuda-samples' callbacks do */
static size_t smem_for_block(int threads)
{
    return (size_t)threads * sizeof(float);
}

int main(void)
{
    EXPECT(cuInit(0) == CUDA_SUCCESS, "cuInit");
    CUcontext none = (CUcontext)1;
    EXPECT(cuCtxGetCurrent(&none) == CUDA_SUCCESS && none == NULL, "no current context yet");

    /* libraries load with no context (cudart's eager mode does this) */
    CUlibrary lib = NULL;
    EXPECT(cuLibraryLoadData(&lib, ptx, NULL, NULL, 0, NULL, NULL, 0) == CUDA_SUCCESS,
           "cuLibraryLoadData with no current context");
    CUkernel kernel = NULL;
    EXPECT(cuLibraryGetKernel(&kernel, lib, "fill") == CUDA_SUCCESS, "cuLibraryGetKernel");

    CUdevice dev;
    CUcontext ctx;
    cuDeviceGet(&dev, 0);
    EXPECT(cuDevicePrimaryCtxRetain(&ctx, dev) == CUDA_SUCCESS && cuCtxSetCurrent(ctx) == 0,
           "primary context current");

    CUdeviceptr bias_ptr = 0;
    size_t bias_size = 0;
    EXPECT(cuLibraryGetGlobal(&bias_ptr, &bias_size, lib, "bias") == CUDA_SUCCESS &&
               bias_size == 4,
           "cuLibraryGetGlobal(bias) is %zu bytes", bias_size);
    unsigned int bias = 100;
    EXPECT(cuMemcpyHtoD(bias_ptr, &bias, 4) == CUDA_SUCCESS, "write the global");

    CUdeviceptr out;
    cuMemAlloc(&out, 64 * sizeof(int));
    unsigned int scale = 3;
    void *params[] = {&out, &scale};
    /* cudart passes the CUkernel where a CUfunction is expected */
    EXPECT(cuLaunchKernel((CUfunction)kernel, 1, 1, 1, 64, 1, 1, 0, NULL, params, NULL) ==
               CUDA_SUCCESS,
           "cuLaunchKernel with a CUkernel");
    int host[64];
    cuMemcpyDtoH(host, out, sizeof host);
    int good = 1;
    for (int i = 0; i < 64; i++)
        good &= host[i] == 3 * i + 100;
    EXPECT(good, "the kernel saw the global written through cuLibraryGetGlobal");

    CUfunction fn = NULL;
    const char *name = NULL;
    int max_threads = 0;
    EXPECT(cuKernelGetFunction(&fn, kernel) == CUDA_SUCCESS && cuFuncGetName(&name, fn) == 0 &&
               strcmp(name, "fill") == 0,
           "cuKernelGetFunction / cuFuncGetName");
    EXPECT(cuFuncGetAttribute(&max_threads, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, fn) ==
                   CUDA_SUCCESS && max_threads > 0,
           "cuFuncGetAttribute(MAX_THREADS_PER_BLOCK) = %d", max_threads);

    int blocks = 0;
    CUresult occ = cuOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, fn, 64, 0);
    EXPECT(occ == CUDA_SUCCESS && blocks > 0, "cuOccupancyMaxActiveBlocksPerMultiprocessor: %d (%d)",
           blocks, occ);
    size_t dyn = 0;
    EXPECT(cuOccupancyAvailableDynamicSMemPerBlock(&dyn, fn, 2, 64) == CUDA_SUCCESS && dyn > 0,
           "cuOccupancyAvailableDynamicSMemPerBlock: %zu", dyn);
    int min_grid = 0, best = 0;
    occ = cuOccupancyMaxPotentialBlockSize(&min_grid, &best, fn, NULL, 0, 0);
    EXPECT(occ == CUDA_SUCCESS && best > 0 && best % 32 == 0 && best <= max_threads &&
               min_grid > 0,
           "cuOccupancyMaxPotentialBlockSize: grid %d block %d (%d)", min_grid, best, occ);
    occ = cuOccupancyMaxPotentialBlockSize(&min_grid, &best, fn, smem_for_block, 0, 96);
    EXPECT(occ == CUDA_SUCCESS && best > 0 && best <= 96 && best % 32 == 0,
           "cuOccupancyMaxPotentialBlockSize with a callback and a limit: block %d (%d)", best,
           occ);
    EXPECT(cuOccupancyMaxPotentialBlockSize(NULL, &best, fn, NULL, 0, 0) ==
               CUDA_ERROR_INVALID_VALUE,
           "cuOccupancyMaxPotentialBlockSize(NULL grid) is CUDA_ERROR_INVALID_VALUE");

    CUkernel missing = NULL;
    cuLibraryGetKernel(&missing, lib, "no_such_kernel");
    EXPECT(missing == NULL ||
               cuLaunchKernel((CUfunction)missing, 1, 1, 1, 1, 1, 1, 0, NULL, params, NULL) ==
                   CUDA_ERROR_NOT_FOUND,
           "a kernel the module lacks fails with CUDA_ERROR_NOT_FOUND");
    EXPECT(cuLaunchKernel((CUfunction)kernel, 1, 1, 1, 4096, 1, 1, 0, NULL, params, NULL) ==
               CUDA_ERROR_INVALID_VALUE,
           "an oversized block is CUDA_ERROR_INVALID_VALUE");
    unsigned int nkernels = 0;
    CUkernel first = NULL;
    EXPECT(cuLibraryGetKernelCount(&nkernels, lib) == CUDA_SUCCESS && nkernels == 1 &&
               cuLibraryEnumerateKernels(&first, 1, lib) == CUDA_SUCCESS && first == kernel,
           "cuLibraryGetKernelCount / cuLibraryEnumerateKernels give the same handle");
    EXPECT(cuLibraryUnload(lib) == CUDA_SUCCESS, "cuLibraryUnload");
    EXPECT(cuLibraryUnload(lib) == CUDA_ERROR_INVALID_HANDLE, "a second unload is refused");

    /* bad images: errors, never a crash */
    CUmodule mod = NULL;
    CUresult rc = cuModuleLoadData(&mod, bad_ptx);
    EXPECT(rc == CUDA_ERROR_INVALID_PTX || rc == CUDA_ERROR_NOT_SUPPORTED,
           "malformed PTX -> a PTX error (%d)", rc);
    char log[512] = "untouched";
    CUjit_option jit[] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
    void *jit_values[] = {log, (void *)(uintptr_t)sizeof log};
    rc = cuModuleLoadDataEx(&mod, bad_ptx, 2, jit, jit_values);
    EXPECT(rc != CUDA_SUCCESS && strstr(log, "frobnicate") != NULL && strstr(log, "line 6"),
           "cuModuleLoadDataEx fills the JIT error log: %s", log);
    static const unsigned char garbage[64] = {0xde, 0xad, 0xbe, 0xef, 1, 2, 3};
    rc = cuModuleLoadData(&mod, garbage);
    EXPECT(rc == CUDA_ERROR_INVALID_IMAGE || rc == CUDA_ERROR_INVALID_PTX,
           "garbage -> an image error (%d)", rc);
    static unsigned char truncated[32] = {0x50, 0xed, 0x55, 0xba, 1, 0, 16, 0, 0xff, 0xff};
    rc = cuModuleLoadData(&mod, truncated);
    EXPECT(rc == CUDA_ERROR_INVALID_IMAGE, "a container claiming more than it holds (%d)", rc);
    rc = cuModuleLoad(&mod, "/nonexistent/module.ptx");
    EXPECT(rc == CUDA_ERROR_FILE_NOT_FOUND, "cuModuleLoad of a missing file (%d)", rc);

    /* cuModuleLoad reads a PTX file (not NUL-terminated on disk) */
    char path[] = "/tmp/pyshim_test_modules_XXXXXX";
    int fd = mkstemp(path);
    FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
    if (f != NULL) {
        fputs(ptx, f);
        fclose(f);
    }
    rc = cuModuleLoad(&mod, path);
    remove(path);
    EXPECT(rc == CUDA_SUCCESS && cuModuleGetFunction(&fn, mod, "fill") == CUDA_SUCCESS &&
               cuModuleUnload(mod) == CUDA_SUCCESS,
           "cuModuleLoad of a PTX file (%d)", rc);

    /* the JIT linker: one PTX input comes back as the image to load */
    CUlinkState link;
    void *image = NULL;
    size_t image_size = 0;
    EXPECT(cuLinkCreate(0, NULL, NULL, &link) == CUDA_SUCCESS &&
               cuLinkAddData(link, CU_JIT_INPUT_PTX, (void *)ptx, strlen(ptx), "fill.ptx", 0,
                             NULL, NULL) == CUDA_SUCCESS &&
               cuLinkComplete(link, &image, &image_size) == CUDA_SUCCESS &&
               cuModuleLoadData(&mod, image) == CUDA_SUCCESS &&
               cuModuleGetFunction(&fn, mod, "fill") == CUDA_SUCCESS &&
               cuModuleUnload(mod) == CUDA_SUCCESS && cuLinkDestroy(link) == CUDA_SUCCESS,
           "cuLinkCreate/AddData/Complete with one PTX input, then cuModuleLoadData");
    EXPECT(cuLinkCreate(0, NULL, NULL, &link) == CUDA_SUCCESS &&
               cuLinkAddData(link, CU_JIT_INPUT_PTX, (void *)ptx, strlen(ptx), "a.ptx", 0, NULL,
                             NULL) == CUDA_SUCCESS &&
               cuLinkAddData(link, CU_JIT_INPUT_PTX, (void *)ptx, strlen(ptx), "b.ptx", 0, NULL,
                             NULL) == CUDA_SUCCESS &&
               cuLinkComplete(link, &image, &image_size) == CUDA_SUCCESS &&
               cuModuleLoadData(&mod, image) == CUDA_ERROR_INVALID_IMAGE &&
               cuLinkDestroy(link) == CUDA_SUCCESS,
           "two inputs defining the same kernel link, and the module is refused, as nvlink's "
           "multiple definition");

    /* the module API works too */
    EXPECT(cuModuleLoadData(&mod, ptx) == CUDA_SUCCESS, "cuModuleLoadData");
    EXPECT(cuModuleGetFunction(&fn, mod, "fill") == CUDA_SUCCESS, "cuModuleGetFunction");
    EXPECT(cuModuleGetFunction(&fn, mod, "nope") == CUDA_ERROR_NOT_FOUND,
           "cuModuleGetFunction of a missing name");
    unsigned int nfuncs = 0;
    CUfunction listed = NULL;
    const char *listed_name = NULL;
    EXPECT(cuModuleGetFunctionCount(&nfuncs, mod) == CUDA_SUCCESS && nfuncs == 1 &&
               cuModuleEnumerateFunctions(&listed, 1, mod) == CUDA_SUCCESS &&
               cuFuncGetName(&listed_name, listed) == CUDA_SUCCESS &&
               strcmp(listed_name, "fill") == 0,
           "cuModuleGetFunctionCount / cuModuleEnumerateFunctions (%u)", nfuncs);
    EXPECT(cuModuleEnumerateFunctions(&listed, 2, mod) == CUDA_ERROR_INVALID_VALUE,
           "asking for more functions than the module has");
    EXPECT(cuModuleUnload(mod) == CUDA_SUCCESS, "cuModuleUnload");
    printf("%s: %d failure(s)\n", failures ? "FAIL" : "PASS", failures);
    return failures != 0;
}
