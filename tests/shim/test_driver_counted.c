/*
 * Driver entry points implemented in the shim with no HIP target, which the tables count
 * as mapped because this program shows them doing what cuda.h documents (issue #21 point
 * 6; tables/tested.toml names the test that runs it): the pre-CUDA-4.0 launches (block
 * shape, shared size and a packed parameter buffer kept per function, launched with
 * cuLaunch / cuLaunchGrid / cuLaunchGridAsync), the driver's error log (cuLogs*: pyshim's
 * own log lines), per-context coredump settings, batched managed-memory prefetches and
 * discards, a function's lazy loading, execution affinity, surface objects (a kernel
 * reading and writing an array through one), and the small context, module
 * and kernel calls (flags, device resources, persisting L2, loading mode, a function's
 * module, a kernel's cache preference).
 * Prints ok/FAIL lines; exit status 1 if any failed.
 */
#define _POSIX_C_SOURCE 200809L
/* the pre-4.0 calls are deprecated in cuda.h; calling them is what this tests */
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
#include <cuda.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "expect.h"

/* y[i] = a * x[i] + y[i] over a 2D grid of 1D blocks; shape() reports the launch's
 * geometry, its dynamic shared memory and a tag passed by value */
static const char *ptx =
    ".version 7.0\n.target sm_75\n.address_size 64\n"
    ".visible .entry axpy(.param .u64 p_y, .param .u64 p_x, .param .f32 p_a, .param .u32 p_n)\n"
    "{\n"
    "    .reg .b32 %r<10>;\n    .reg .b64 %rd<8>;\n    .reg .f32 %f<5>;\n    .reg .pred %p;\n"
    "    ld.param.u64 %rd1, [p_y];\n    ld.param.u64 %rd2, [p_x];\n"
    "    ld.param.f32 %f1, [p_a];\n    ld.param.u32 %r1, [p_n];\n"
    "    mov.u32 %r2, %ctaid.y;\n    mov.u32 %r3, %nctaid.x;\n    mov.u32 %r4, %ctaid.x;\n"
    "    mad.lo.u32 %r5, %r2, %r3, %r4;\n"
    "    mov.u32 %r6, %ntid.x;\n    mov.u32 %r7, %tid.x;\n"
    "    mad.lo.u32 %r8, %r5, %r6, %r7;\n"
    "    setp.ge.u32 %p, %r8, %r1;\n    @%p bra done;\n"
    "    cvta.to.global.u64 %rd3, %rd1;\n    cvta.to.global.u64 %rd4, %rd2;\n"
    "    mul.wide.u32 %rd5, %r8, 4;\n"
    "    add.u64 %rd6, %rd3, %rd5;\n    add.u64 %rd7, %rd4, %rd5;\n"
    "    ld.global.f32 %f2, [%rd7];\n    ld.global.f32 %f3, [%rd6];\n"
    "    fma.rn.f32 %f4, %f1, %f2, %f3;\n    st.global.f32 [%rd6], %f4;\n"
    "done:\n    ret;\n}\n"
    ".visible .entry shape(.param .u64 p_out, .param .u32 p_tag)\n"
    "{\n"
    "    .reg .b32 %r<10>;\n    .reg .b64 %rd<3>;\n    .reg .pred %p;\n"
    "    mov.u32 %r1, %tid.x;\n    mov.u32 %r2, %tid.y;\n    or.b32 %r1, %r1, %r2;\n"
    "    mov.u32 %r2, %tid.z;\n    or.b32 %r1, %r1, %r2;\n"
    "    setp.ne.u32 %p, %r1, 0;\n    @%p bra done;\n"
    "    ld.param.u64 %rd1, [p_out];\n    cvta.to.global.u64 %rd2, %rd1;\n"
    "    ld.param.u32 %r3, [p_tag];\n    st.global.u32 [%rd2], %r3;\n"
    "    mov.u32 %r4, %nctaid.x;\n    st.global.u32 [%rd2+4], %r4;\n"
    "    mov.u32 %r4, %nctaid.y;\n    st.global.u32 [%rd2+8], %r4;\n"
    "    mov.u32 %r4, %ntid.x;\n    st.global.u32 [%rd2+12], %r4;\n"
    "    mov.u32 %r4, %ntid.y;\n    st.global.u32 [%rd2+16], %r4;\n"
    "    mov.u32 %r4, %ntid.z;\n    st.global.u32 [%rd2+20], %r4;\n"
    "    mov.u32 %r4, %dynamic_smem_size;\n    st.global.u32 [%rd2+24], %r4;\n"
    "done:\n    ret;\n}\n";

enum { N = 1000 };

/* no context current: cuCtxSetCurrent(NULL) pops one entry of the thread's stack */
static void no_context(void)
{
    CUcontext c = NULL;
    for (int i = 0; i < 16 && cuCtxGetCurrent(&c) == CUDA_SUCCESS && c != NULL; i++)
        cuCtxSetCurrent(NULL);
}

static void legacy_launches(CUmodule mod)
{
    CUfunction axpy, shape;
    cuModuleGetFunction(&axpy, mod, "axpy");
    cuModuleGetFunction(&shape, mod, "shape");

    /* no block shape yet: nothing to launch */
    EXPECT(cuLaunchGrid(axpy, 1, 1) == CUDA_ERROR_INVALID_VALUE,
           "cuLaunchGrid before cuFuncSetBlockShape -> INVALID_VALUE");

    float hx[N], hy[N], want[N];
    for (int i = 0; i < N; i++) {
        hx[i] = (float)i * 0.5f;
        hy[i] = (float)(N - i);
        want[i] = 3.0f * hx[i] + hy[i];
    }
    CUdeviceptr x, y;
    cuMemAlloc(&x, sizeof hx);
    cuMemAlloc(&y, sizeof hy);
    cuMemcpyHtoD(x, hx, sizeof hx);
    cuMemcpyHtoD(y, hy, sizeof hy);
    /* the layout a CUDA 3 program packs by hand: pointers 8-aligned, then the scalars */
    EXPECT(cuFuncSetBlockShape(axpy, 64, 1, 1) == CUDA_SUCCESS, "cuFuncSetBlockShape(64,1,1)");
    EXPECT(cuFuncSetSharedSize(axpy, 0) == CUDA_SUCCESS, "cuFuncSetSharedSize(0)");
    EXPECT(cuParamSetv(axpy, 0, &y, sizeof y) == CUDA_SUCCESS &&
               cuParamSetv(axpy, 8, &x, sizeof x) == CUDA_SUCCESS,
           "cuParamSetv of the two pointers");
    EXPECT(cuParamSetf(axpy, 16, 3.0f) == CUDA_SUCCESS, "cuParamSetf(a = 3)");
    EXPECT(cuParamSeti(axpy, 20, N) == CUDA_SUCCESS, "cuParamSeti(n)");
    EXPECT(cuParamSetSize(axpy, 24) == CUDA_SUCCESS, "cuParamSetSize(24)");
    /* 8 x 2 blocks of 64 threads = 1024 >= N */
    CUresult rc = cuLaunchGrid(axpy, 8, 2);
    EXPECT(rc == CUDA_SUCCESS && cuCtxSynchronize() == CUDA_SUCCESS, "cuLaunchGrid(8, 2) -> %d",
           rc);
    float got[N];
    cuMemcpyDtoH(got, y, sizeof got);
    int bad = 0;
    for (int i = 0; i < N; i++)
        bad += got[i] != want[i];
    EXPECT(bad == 0, "y = 3x + y from the parameters set one by one (%d wrong)", bad);

    /* the state stays with the function: a second launch on a stream applies it again */
    CUstream s;
    cuStreamCreate(&s, CU_STREAM_NON_BLOCKING);
    rc = cuLaunchGridAsync(axpy, 8, 2, s);
    EXPECT(rc == CUDA_SUCCESS && cuStreamSynchronize(s) == CUDA_SUCCESS,
           "cuLaunchGridAsync(8, 2, stream) -> %d", rc);
    cuMemcpyDtoH(got, y, sizeof got);
    bad = 0;
    for (int i = 0; i < N; i++)
        bad += got[i] != 3.0f * hx[i] + want[i];
    EXPECT(bad == 0, "again on the stream: y = 3x + y once more (%d wrong)", bad);

    /* a parameter replaced: a = 0 leaves y as it is */
    cuParamSetf(axpy, 16, 0.0f);
    float before[N];
    cuMemcpyDtoH(before, y, sizeof before);
    cuLaunchGrid(axpy, 8, 2);
    cuCtxSynchronize();
    cuMemcpyDtoH(got, y, sizeof got);
    EXPECT(memcmp(before, got, sizeof got) == 0, "cuParamSetf(a = 0) replaced the value");

    /* cuLaunch: one block of the shape set, with the shared size set */
    CUdeviceptr out;
    cuMemAlloc(&out, 7 * sizeof(uint32_t));
    cuMemsetD32(out, 0xffffffffu, 7);
    cuFuncSetBlockShape(shape, 4, 3, 2);
    cuFuncSetSharedSize(shape, 256);
    cuParamSetv(shape, 0, &out, sizeof out);
    cuParamSeti(shape, 8, 0xc0ffee);
    cuParamSetSize(shape, 12);
    rc = cuLaunch(shape);
    EXPECT(rc == CUDA_SUCCESS && cuCtxSynchronize() == CUDA_SUCCESS, "cuLaunch -> %d", rc);
    uint32_t r[7];
    cuMemcpyDtoH(r, out, sizeof r);
    EXPECT(r[0] == 0xc0ffee && r[1] == 1 && r[2] == 1 && r[3] == 4 && r[4] == 3 && r[5] == 2 &&
               r[6] == 256,
           "cuLaunch: tag %#x, grid %u x %u, block %u x %u x %u, %u bytes of dynamic shared "
           "memory", r[0], r[1], r[2], r[3], r[4], r[5], r[6]);
    /* the shape is per function: axpy's is still 64 x 1 x 1 */
    cuMemsetD32(out, 0, 7);
    cuLaunchGrid(shape, 5, 3);
    cuCtxSynchronize();
    cuMemcpyDtoH(r, out, sizeof r);
    EXPECT(r[1] == 5 && r[2] == 3 && r[3] == 4, "cuLaunchGrid(5, 3) of shape: grid %u x %u",
           r[1], r[2]);

    /* bad values are refused, each by the call that takes them */
    EXPECT(cuFuncSetBlockShape(shape, 0, 1, 1) == CUDA_ERROR_INVALID_VALUE,
           "cuFuncSetBlockShape(0, 1, 1) -> INVALID_VALUE");
    EXPECT(cuParamSetSize(shape, 4097) == CUDA_ERROR_INVALID_VALUE,
           "cuParamSetSize past the 4 KiB parameter space -> INVALID_VALUE");
    EXPECT(cuParamSeti(shape, 4094, 1) == CUDA_ERROR_INVALID_VALUE &&
               cuParamSeti(shape, -4, 1) == CUDA_ERROR_INVALID_VALUE,
           "cuParamSeti outside the parameter space -> INVALID_VALUE");
    EXPECT(cuParamSetv(shape, 0, NULL, 8) == CUDA_ERROR_INVALID_VALUE,
           "cuParamSetv(NULL) -> INVALID_VALUE");
    EXPECT(cuLaunchGrid(shape, 0, 1) == CUDA_ERROR_INVALID_VALUE,
           "cuLaunchGrid(0, 1) -> INVALID_VALUE");
    cuFuncSetBlockShape(shape, 2048, 1, 1);
    EXPECT(cuLaunch(shape) == CUDA_ERROR_INVALID_VALUE,
           "cuLaunch with 2048 threads per block -> INVALID_VALUE");
    static uint32_t not_a_function[64];
    EXPECT(cuFuncSetBlockShape((CUfunction)(void *)not_a_function, 1, 1, 1) ==
                   CUDA_ERROR_INVALID_HANDLE &&
               cuLaunch((CUfunction)(void *)not_a_function) == CUDA_ERROR_INVALID_HANDLE,
           "a handle that is no function -> INVALID_HANDLE");

    cuStreamDestroy(s);
    cuMemFree(x);
    cuMemFree(y);
    cuMemFree(out);
}

static char last_line[512];
static CUlogLevel last_level = (CUlogLevel)-1;

static void CUDA_CB on_log(void *data, CUlogLevel level, char *message, size_t length)
{
    *(int *)data += 1;
    last_level = level;
    snprintf(last_line, sizeof last_line, "%.*s", (int)length, message);
}

static void logs(CUmodule mod)
{
    CUfunction f;
    cuModuleGetFunction(&f, mod, "shape");
    int calls = 0;
    CUlogsCallbackHandle h = NULL;
    EXPECT(cuLogsRegisterCallback(on_log, &calls, &h) == CUDA_SUCCESS && h != NULL,
           "cuLogsRegisterCallback");
    EXPECT(cuLogsRegisterCallback(NULL, NULL, NULL) == CUDA_ERROR_INVALID_VALUE,
           "cuLogsRegisterCallback(NULL) -> INVALID_VALUE");
    CUlogIterator it = 0, start;
    EXPECT(cuLogsCurrent(&it, 0) == CUDA_SUCCESS, "cuLogsCurrent");
    EXPECT(cuLogsCurrent(&it, 1) == CUDA_ERROR_INVALID_VALUE &&
               cuLogsCurrent(NULL, 0) == CUDA_ERROR_INVALID_VALUE,
           "cuLogsCurrent(flags 1 / NULL) -> INVALID_VALUE");
    start = it;
    char buf[4096];
    size_t size = sizeof buf;
    EXPECT(cuLogsDumpToMemory(&it, buf, &size, 0) == CUDA_SUCCESS && size == 0 && buf[0] == 0,
           "nothing logged since cuLogsCurrent: an empty dump");

    /* a refused call logs a line naming itself: the callback sees it, then the dump */
    cuFuncSetBlockShape(f, -1, 1, 1);
    EXPECT(calls == 1 && strstr(last_line, "cuFuncSetBlockShape") != NULL &&
               last_level == CU_LOG_LEVEL_ERROR,
           "the callback got the line (%d call(s)): \"%s\"", calls, last_line);
    size = sizeof buf;
    CUresult rc = cuLogsDumpToMemory(&it, buf, &size, 0);
    EXPECT(rc == CUDA_SUCCESS && size == strlen(buf) && strstr(buf, "cuFuncSetBlockShape") &&
               buf[size - 1] == '\n' && strchr(buf, '\n') == buf + size - 1,
           "cuLogsDumpToMemory: that one line, newline-terminated (%zu bytes)", size);
    EXPECT(it == start + 1, "the iterator moved past it (%u -> %u)", start, it);
    size = sizeof buf;
    EXPECT(cuLogsDumpToMemory(&it, buf, &size, 0) == CUDA_SUCCESS && size == 0,
           "dumped again from the moved iterator: nothing");

    /* two more lines; a buffer with room for only the newest gets it after a note */
    cuParamSetSize(f, 1u << 20);
    cuParamSeti(f, 1 << 20, 1);
    char small[160];
    size = sizeof small;
    CUlogIterator it2 = it;
    rc = cuLogsDumpToMemory(&it2, small, &size, 0);
    char *nl = strchr(small, '\n');
    EXPECT(rc == CUDA_SUCCESS && nl != NULL && strstr(small, "last 1 of 2") &&
               strstr(nl + 1, "cuParamSeti") && !strstr(small, "cuParamSetSize") &&
               size == strlen(small),
           "a small buffer: a note, then the newest line (\"%s\")", small);
    char tiny[8];
    size = sizeof tiny;
    it2 = it;
    EXPECT(cuLogsDumpToMemory(&it2, tiny, &size, 0) == CUDA_ERROR_INVALID_VALUE && size == 0 &&
               it2 == it,
           "a buffer too small for any line -> INVALID_VALUE, size 0, iterator kept");
    EXPECT(cuLogsDumpToMemory(&it2, NULL, &size, 0) == CUDA_ERROR_INVALID_VALUE &&
               cuLogsDumpToMemory(&it2, buf, &size, 2) == CUDA_ERROR_INVALID_VALUE,
           "cuLogsDumpToMemory(NULL buffer / flags 2) -> INVALID_VALUE");

    /* to a file, from the iterator: the two lines; NULL dumps from the start */
    char path[] = "/tmp/pyshim-logs-XXXXXX";
    int fd = mkstemp(path);
    close(fd);
    rc = cuLogsDumpToFile(&it, path, 0);
    FILE *fp = fopen(path, "r");
    size_t n = fp != NULL ? fread(buf, 1, sizeof buf - 1, fp) : 0;
    buf[n] = '\0';
    if (fp != NULL)
        fclose(fp);
    EXPECT(rc == CUDA_SUCCESS && strstr(buf, "cuParamSetSize") && strstr(buf, "cuParamSeti") &&
               !strstr(buf, "cuFuncSetBlockShape") && it == start + 3,
           "cuLogsDumpToFile from the iterator: the two newer lines");
    size = sizeof buf;
    EXPECT(cuLogsDumpToMemory(NULL, buf, &size, 0) == CUDA_SUCCESS &&
               strstr(buf, "cuFuncSetBlockShape") && strstr(buf, "cuParamSeti"),
           "cuLogsDumpToMemory(NULL iterator): every line kept");
    EXPECT(cuLogsDumpToFile(&it, "/nonexistent-dir/x.log", 0) == CUDA_ERROR_INVALID_VALUE &&
               cuLogsDumpToFile(&it, NULL, 0) == CUDA_ERROR_INVALID_VALUE,
           "cuLogsDumpToFile to a path that cannot be written -> INVALID_VALUE");
    unlink(path);

    /* unregistered: no more calls */
    int before = calls;
    EXPECT(cuLogsUnregisterCallback(h) == CUDA_SUCCESS, "cuLogsUnregisterCallback");
    cuFuncSetBlockShape(f, 0, 0, 0);
    EXPECT(calls == before, "no call after unregistering (%d -> %d)", before, calls);
    EXPECT(cuLogsUnregisterCallback(h) == CUDA_ERROR_INVALID_VALUE &&
               cuLogsUnregisterCallback(NULL) == CUDA_ERROR_INVALID_VALUE,
           "unregistering again / NULL -> INVALID_VALUE");
}

static void coredump_per_context(CUdevice dev, CUcontext primary)
{
    char global_file[1024], file[1024];
    size_t size = sizeof global_file;
    cuCoredumpGetAttributeGlobal(CU_COREDUMP_FILE, global_file, &size);
    size = sizeof file;
    EXPECT(cuCoredumpGetAttribute(CU_COREDUMP_FILE, file, &size) == CUDA_SUCCESS &&
               strcmp(file, global_file) == 0,
           "a context that set nothing reads the global file (%s)", file);
    size = 0;
    EXPECT(cuCoredumpGetAttribute(CU_COREDUMP_GENERATION_FLAGS, NULL, &size) == CUDA_SUCCESS &&
               size == sizeof(int),
           "cuCoredumpGetAttribute(NULL value) gives the size (%zu)", size);

    const char mine[] = "/tmp/ctx.core";
    size = sizeof mine;
    EXPECT(cuCoredumpSetAttribute(CU_COREDUMP_FILE, (void *)mine, &size) == CUDA_SUCCESS,
           "cuCoredumpSetAttribute(FILE)");
    int gen = CU_COREDUMP_SKIP_GLOBAL_MEMORY | CU_COREDUMP_SKIP_ABORT;
    size = sizeof gen;
    cuCoredumpSetAttribute(CU_COREDUMP_GENERATION_FLAGS, &gen, &size);
    size = sizeof file;
    int got_gen = 0, global_gen = -1;
    cuCoredumpGetAttribute(CU_COREDUMP_FILE, file, &size);
    size = sizeof got_gen;
    cuCoredumpGetAttribute(CU_COREDUMP_GENERATION_FLAGS, &got_gen, &size);
    size = sizeof global_gen;
    cuCoredumpGetAttributeGlobal(CU_COREDUMP_GENERATION_FLAGS, &global_gen, &size);
    char gfile[1024];
    size = sizeof gfile;
    cuCoredumpGetAttributeGlobal(CU_COREDUMP_FILE, gfile, &size);
    EXPECT(strcmp(file, mine) == 0 && got_gen == gen && strcmp(gfile, global_file) == 0 &&
               global_gen == CU_COREDUMP_DEFAULT_FLAGS,
           "the context reads its own file and flags (%s, %#x), the global ones are kept "
           "(%s, %#x)", file, got_gen, gfile, global_gen);

    bool on = true;
    size = sizeof on;
    EXPECT(cuCoredumpSetAttribute(CU_COREDUMP_ENABLE_USER_TRIGGER, &on, &size) ==
                   CUDA_ERROR_NOT_PERMITTED,
           "USER_TRIGGER per context -> NOT_PERMITTED (global only)");
    const char pipe[] = "/tmp/ctx.pipe";
    size = sizeof pipe;
    EXPECT(cuCoredumpSetAttribute(CU_COREDUMP_PIPE, (void *)pipe, &size) ==
                   CUDA_ERROR_NOT_PERMITTED,
           "PIPE per context -> NOT_PERMITTED (global only)");
    size = sizeof gen;
    EXPECT(cuCoredumpSetAttribute(CU_COREDUMP_MAX, &gen, &size) == CUDA_ERROR_INVALID_VALUE,
           "an attribute that is none -> INVALID_VALUE");

    /* a context made with CU_CTX_COREDUMP_ENABLE has the exception coredump on; it does not
     * see the primary context's file */
    CUcontext other;
    bool enabled = false, primary_enabled = true;
    cuCtxCreate(&other, NULL, CU_CTX_COREDUMP_ENABLE, dev);
    size = sizeof enabled;
    cuCoredumpGetAttribute(CU_COREDUMP_ENABLE_ON_EXCEPTION, &enabled, &size);
    size = sizeof file;
    cuCoredumpGetAttribute(CU_COREDUMP_FILE, file, &size);
    EXPECT(enabled && strcmp(file, global_file) == 0,
           "a context created with CU_CTX_COREDUMP_ENABLE: enabled, the global file");
    cuCtxDestroy(other);
    cuCtxSetCurrent(primary);
    size = sizeof primary_enabled;
    cuCoredumpGetAttribute(CU_COREDUMP_ENABLE_ON_EXCEPTION, &primary_enabled, &size);
    EXPECT(!primary_enabled, "the primary context's stays off");

    no_context();
    size = sizeof file;
    EXPECT(cuCoredumpGetAttribute(CU_COREDUMP_FILE, file, &size) == CUDA_ERROR_INVALID_CONTEXT,
           "no current context -> INVALID_CONTEXT");
    cuCtxSetCurrent(primary);
}

static void contexts_and_modules(CUdevice dev, CUcontext primary, CUmodule mod)
{
    /* flags set and read back; values that are no CUctx_flags refused */
    unsigned int flags = 0;
    EXPECT(cuCtxSetFlags(CU_CTX_SCHED_BLOCKING_SYNC | CU_CTX_SYNC_MEMOPS) == CUDA_SUCCESS &&
               cuCtxGetFlags(&flags) == CUDA_SUCCESS &&
               flags == (CU_CTX_SCHED_BLOCKING_SYNC | CU_CTX_SYNC_MEMOPS),
           "cuCtxSetFlags read back by cuCtxGetFlags (%#x)", flags);
    EXPECT(cuCtxSetFlags(0x100) == CUDA_ERROR_INVALID_VALUE &&
               cuCtxSetFlags(CU_CTX_SCHED_SPIN | CU_CTX_SCHED_YIELD) == CUDA_ERROR_INVALID_VALUE,
           "cuCtxSetFlags(0x100 / two scheduling policies) -> INVALID_VALUE");
    cuCtxGetFlags(&flags);
    EXPECT(flags == (CU_CTX_SCHED_BLOCKING_SYNC | CU_CTX_SYNC_MEMOPS),
           "a refused cuCtxSetFlags changed nothing");
    cuCtxSetFlags(0);

    /* the SM resource of a context is its device's */
    CUdevResource from_dev, from_ctx;
    int sms = 0;
    cuDeviceGetAttribute(&sms, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, dev);
    cuDeviceGetDevResource(dev, &from_dev, CU_DEV_RESOURCE_TYPE_SM);
    CUcontext other;
    cuCtxCreate(&other, NULL, 0, dev);
    cuCtxSetCurrent(primary);
    CUresult rc = cuCtxGetDevResource(other, &from_ctx, CU_DEV_RESOURCE_TYPE_SM);
    EXPECT(rc == CUDA_SUCCESS && from_ctx.type == CU_DEV_RESOURCE_TYPE_SM &&
               from_ctx.sm.smCount == (unsigned)sms &&
               from_ctx.sm.minSmPartitionSize == from_dev.sm.minSmPartitionSize,
           "cuCtxGetDevResource(another context): %u SMs of %d", from_ctx.sm.smCount, sms);
    EXPECT(cuCtxGetDevResource(NULL, &from_ctx, CU_DEV_RESOURCE_TYPE_INVALID) ==
                   CUDA_ERROR_INVALID_RESOURCE_TYPE &&
               cuCtxGetDevResource(NULL, NULL, CU_DEV_RESOURCE_TYPE_SM) ==
                   CUDA_ERROR_INVALID_VALUE,
           "cuCtxGetDevResource(INVALID type / NULL) refused");
    unsigned long long id_other = 0, id_primary = 0, again = 0;
    EXPECT(cuCtxGetId(other, &id_other) == CUDA_SUCCESS &&
               cuCtxGetId(primary, &id_primary) == CUDA_SUCCESS &&
               cuCtxGetId(other, &again) == CUDA_SUCCESS && id_other != id_primary &&
               again == id_other,
           "cuCtxGetId: stable, one per context (%llu, %llu)", id_other, id_primary);
    cuCtxDestroy(other);
    cuCtxSetCurrent(primary);
    EXPECT(cuCtxGetDevResource(other, &from_ctx, CU_DEV_RESOURCE_TYPE_SM) ==
               CUDA_ERROR_INVALID_CONTEXT,
           "cuCtxGetDevResource(a destroyed context) -> INVALID_CONTEXT");

    /* no persisting L2 on either backend: the limit reads 0, a reset has nothing to do */
    int persisting = -1;
    cuDeviceGetAttribute(&persisting, CU_DEVICE_ATTRIBUTE_MAX_PERSISTING_L2_CACHE_SIZE, dev);
    EXPECT(persisting == 0 && cuCtxResetPersistingL2Cache() == CUDA_SUCCESS,
           "cuCtxResetPersistingL2Cache (persisting L2 limit %d)", persisting);
    no_context();
    EXPECT(cuCtxResetPersistingL2Cache() == CUDA_ERROR_INVALID_CONTEXT,
           "cuCtxResetPersistingL2Cache without a context -> INVALID_CONTEXT");
    cuCtxSetCurrent(primary);

    CUmoduleLoadingMode mode = (CUmoduleLoadingMode)0;
    EXPECT(cuModuleGetLoadingMode(&mode) == CUDA_SUCCESS && mode == CU_MODULE_LAZY_LOADING,
           "cuModuleGetLoadingMode: lazy without CUDA_MODULE_LOADING");
    setenv("CUDA_MODULE_LOADING", "EAGER", 1);
    EXPECT(cuModuleGetLoadingMode(&mode) == CUDA_SUCCESS && mode == CU_MODULE_EAGER_LOADING,
           "cuModuleGetLoadingMode: eager with CUDA_MODULE_LOADING=EAGER");
    unsetenv("CUDA_MODULE_LOADING");
    EXPECT(cuModuleGetLoadingMode(NULL) == CUDA_ERROR_INVALID_VALUE,
           "cuModuleGetLoadingMode(NULL) -> INVALID_VALUE");

    /* a function's module is the one it was looked up in */
    CUfunction f;
    CUmodule of = NULL;
    cuModuleGetFunction(&f, mod, "axpy");
    EXPECT(cuFuncGetModule(&of, f) == CUDA_SUCCESS && of == mod, "cuFuncGetModule");
    static uint32_t not_a_function[64];
    EXPECT(cuFuncGetModule(&of, (CUfunction)(void *)not_a_function) ==
                   CUDA_ERROR_INVALID_HANDLE &&
               cuFuncGetModule(NULL, f) == CUDA_ERROR_INVALID_VALUE,
           "cuFuncGetModule(no function / NULL) refused");

    /* a kernel's cache preference: accepted per device, bad devices and values refused */
    CUlibrary lib;
    CUkernel k;
    rc = cuLibraryLoadData(&lib, ptx, NULL, NULL, 0, NULL, NULL, 0);
    if (rc == CUDA_SUCCESS)
        rc = cuLibraryGetKernel(&k, lib, "axpy");
    EXPECT(rc == CUDA_SUCCESS && cuKernelSetCacheConfig(k, CU_FUNC_CACHE_PREFER_SHARED, dev) ==
                                     CUDA_SUCCESS,
           "cuKernelSetCacheConfig(PREFER_SHARED)");
    EXPECT(cuKernelSetCacheConfig(k, CU_FUNC_CACHE_PREFER_L1, 99) == CUDA_ERROR_INVALID_DEVICE,
           "cuKernelSetCacheConfig(device 99) -> INVALID_DEVICE");
    EXPECT(cuKernelSetCacheConfig(k, (CUfunc_cache)7, dev) == CUDA_ERROR_INVALID_VALUE,
           "cuKernelSetCacheConfig(7) -> INVALID_VALUE");
    cuLibraryUnload(lib);
}


/* a library's kernels load at first use; cuFuncLoad loads one now */
static void function_loading(CUmodule mod)
{
    CUlibrary lib;
    CUkernel k;
    CUfunction f = NULL, eager;
    CUfunctionLoadingState st = CU_FUNCTION_LOADING_STATE_MAX;
    CUresult rc = cuLibraryLoadData(&lib, ptx, NULL, NULL, 0, NULL, NULL, 0);
    if (rc == CUDA_SUCCESS)
        rc = cuLibraryGetKernel(&k, lib, "shape");
    if (rc == CUDA_SUCCESS)
        rc = cuKernelGetFunction(&f, k);
    EXPECT(rc == CUDA_SUCCESS && cuFuncIsLoaded(&st, f) == CUDA_SUCCESS &&
               st == CU_FUNCTION_LOADING_STATE_UNLOADED,
           "a lazily loaded library's kernel: UNLOADED before use (%d)", st);
    rc = cuFuncLoad(f);
    EXPECT(rc == CUDA_SUCCESS && cuFuncIsLoaded(&st, f) == CUDA_SUCCESS &&
               st == CU_FUNCTION_LOADING_STATE_LOADED,
           "cuFuncLoad -> %d, then LOADED (%d)", rc, st);
    EXPECT(cuFuncLoad(f) == CUDA_SUCCESS, "cuFuncLoad of a loaded function: no effect");
    cuModuleGetFunction(&eager, mod, "axpy");
    EXPECT(cuFuncIsLoaded(&st, eager) == CUDA_SUCCESS && st == CU_FUNCTION_LOADING_STATE_LOADED,
           "a function of a loaded module: LOADED");
    static uint32_t not_a_function[64];
    EXPECT(cuFuncIsLoaded(NULL, f) == CUDA_ERROR_INVALID_VALUE &&
               cuFuncIsLoaded(&st, (CUfunction)(void *)not_a_function) ==
                   CUDA_ERROR_INVALID_HANDLE &&
               cuFuncLoad((CUfunction)(void *)not_a_function) == CUDA_ERROR_INVALID_HANDLE &&
               cuFuncLoad(NULL) == CUDA_ERROR_INVALID_VALUE,
           "cuFuncIsLoaded / cuFuncLoad refuse NULL and handles that are no function");
    cuLibraryUnload(lib);
}

/* no backend confines a context to part of the device: affinity is unsupported and a
 * context has every multiprocessor */
static void exec_affinity(CUdevice dev, CUcontext primary)
{
    int support = -1, sms = 0;
    cuDeviceGetAttribute(&sms, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, dev);
    EXPECT(cuDeviceGetExecAffinitySupport(&support, CU_EXEC_AFFINITY_TYPE_SM_COUNT, dev) ==
                   CUDA_SUCCESS && support == 0,
           "cuDeviceGetExecAffinitySupport(SM_COUNT) = %d", support);
    CUexecAffinityParam p;
    memset(&p, 0xff, sizeof p);
    EXPECT(cuCtxGetExecAffinity(&p, CU_EXEC_AFFINITY_TYPE_SM_COUNT) == CUDA_SUCCESS &&
               p.type == CU_EXEC_AFFINITY_TYPE_SM_COUNT && p.param.smCount.val == (unsigned)sms,
           "cuCtxGetExecAffinity: the context has all %d SMs (%u)", sms, p.param.smCount.val);
    EXPECT(cuDeviceGetExecAffinitySupport(&support, CU_EXEC_AFFINITY_TYPE_MAX, dev) ==
                   CUDA_ERROR_INVALID_VALUE &&
               cuDeviceGetExecAffinitySupport(&support, CU_EXEC_AFFINITY_TYPE_SM_COUNT, 99) ==
                   CUDA_ERROR_INVALID_DEVICE &&
               cuCtxGetExecAffinity(&p, CU_EXEC_AFFINITY_TYPE_MAX) == CUDA_ERROR_INVALID_VALUE &&
               cuCtxGetExecAffinity(NULL, CU_EXEC_AFFINITY_TYPE_SM_COUNT) ==
                   CUDA_ERROR_INVALID_VALUE,
           "bad types, devices and NULL refused");
    no_context();
    EXPECT(cuCtxGetExecAffinity(&p, CU_EXEC_AFFINITY_TYPE_SM_COUNT) ==
               CUDA_ERROR_INVALID_CONTEXT,
           "cuCtxGetExecAffinity without a context -> INVALID_CONTEXT");
    cuCtxSetCurrent(primary);
}

/* batched prefetches: each range to its location, in stream order, read back by
 * cuMemRangeGetAttribute; a bad operation enqueues nothing */
static void batched_memory_ops(CUdevice dev)
{
    enum { SZ = 1 << 16 };
    CUdeviceptr m[3];
    for (int i = 0; i < 3; i++)
        cuMemAllocManaged(&m[i], SZ, CU_MEM_ATTACH_GLOBAL);
    CUstream s;
    cuStreamCreate(&s, CU_STREAM_NON_BLOCKING);
    cuMemsetD32Async(m[0], 0x11, SZ / 4, s);
    CUdeviceptr ptrs[3] = {m[0], m[1], m[2]};
    size_t sizes[3] = {SZ, SZ, SZ};
    CUmemLocation locs[2] = {{CU_MEM_LOCATION_TYPE_DEVICE, (int)dev},
                             {CU_MEM_LOCATION_TYPE_HOST, 0}};
    size_t idxs[2] = {0, 2};
    CUresult rc = cuMemPrefetchBatchAsync(ptrs, sizes, 3, locs, idxs, 2, 0, s);
    cuMemsetD32Async(m[0], 0x22, SZ / 4, s);
    EXPECT(rc == CUDA_SUCCESS && cuStreamSynchronize(s) == CUDA_SUCCESS,
           "cuMemPrefetchBatchAsync of 3 ranges to 2 locations -> %d", rc);
    int last[3] = {-7, -7, -7};
    for (int i = 0; i < 3; i++)
        cuMemRangeGetAttribute(&last[i], 4, CU_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION, m[i],
                               SZ);
    uint32_t first = 0;
    memcpy(&first, (void *)(uintptr_t)m[0], 4);
    EXPECT(last[0] == (int)dev && last[1] == (int)dev && last[2] == CU_DEVICE_CPU &&
               first == 0x22,
           "ranges 0-1 on the device, 2 on the host (%d %d %d), in stream order (%#x)", last[0],
           last[1], last[2], first);

    /* discard then prefetch everything to the host; a discard alone */
    CUmemLocation host = {CU_MEM_LOCATION_TYPE_HOST, 0};
    size_t zero = 0;
    rc = cuMemDiscardAndPrefetchBatchAsync(ptrs, sizes, 3, &host, &zero, 1, 0, s);
    cuStreamSynchronize(s);
    for (int i = 0; i < 3; i++)
        cuMemRangeGetAttribute(&last[i], 4, CU_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION, m[i],
                               SZ);
    EXPECT(rc == CUDA_SUCCESS && last[0] == CU_DEVICE_CPU && last[1] == CU_DEVICE_CPU &&
               last[2] == CU_DEVICE_CPU,
           "cuMemDiscardAndPrefetchBatchAsync: all on the host (%d %d %d)", last[0], last[1],
           last[2]);
    rc = cuMemDiscardBatchAsync(ptrs, sizes, 2, 0, s);
    cuMemsetD32Async(m[0], 0x33, SZ / 4, s);
    cuStreamSynchronize(s);
    memcpy(&first, (void *)(uintptr_t)m[0], 4);
    EXPECT(rc == CUDA_SUCCESS && first == 0x33,
           "cuMemDiscardBatchAsync, then a write gives the range defined contents again");

    /* refusals: nothing is enqueued, nothing prefetched */
    CUdeviceptr plain;
    cuMemAlloc(&plain, SZ);
    CUdeviceptr mixed[2] = {m[1], plain};
    EXPECT(cuMemPrefetchBatchAsync(mixed, sizes, 2, locs, idxs, 1, 0, s) ==
                   CUDA_ERROR_INVALID_VALUE &&
               cuMemRangeGetAttribute(&last[1], 4,
                                      CU_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION, m[1],
                                      SZ) == CUDA_SUCCESS &&
               last[1] == CU_DEVICE_CPU,
           "a range that is not managed memory: refused, the managed one not prefetched");
    size_t bad_idxs[2] = {1, 2};
    size_t back_idxs[2] = {0, 0};
    size_t big[3] = {SZ, SZ + 4096, SZ};
    EXPECT(cuMemPrefetchBatchAsync(ptrs, sizes, 3, locs, bad_idxs, 2, 0, s) ==
                   CUDA_ERROR_INVALID_VALUE &&
               cuMemPrefetchBatchAsync(ptrs, sizes, 3, locs, back_idxs, 2, 0, s) ==
                   CUDA_ERROR_INVALID_VALUE &&
               cuMemPrefetchBatchAsync(ptrs, sizes, 1, locs, idxs, 2, 0, s) ==
                   CUDA_ERROR_INVALID_VALUE,
           "prefetchLocIdxs not from 0, not increasing, more locations than operations: "
           "refused");
    EXPECT(cuMemPrefetchBatchAsync(ptrs, big, 3, locs, idxs, 2, 0, s) ==
                   CUDA_ERROR_INVALID_VALUE &&
               cuMemDiscardBatchAsync(ptrs, sizes, 3, 1, s) == CUDA_ERROR_INVALID_VALUE &&
               cuMemDiscardBatchAsync(ptrs, sizes, 3, 0, NULL) == CUDA_ERROR_INVALID_VALUE &&
               cuMemDiscardBatchAsync(ptrs, sizes, 3, 0, CU_STREAM_LEGACY) ==
                   CUDA_ERROR_INVALID_VALUE,
           "a range past its allocation, flags 1, the legacy stream: refused");
    CUmemLocation nowhere[1] = {{CU_MEM_LOCATION_TYPE_DEVICE, 99}};
    EXPECT(cuMemPrefetchBatchAsync(ptrs, sizes, 3, nowhere, &zero, 1, 0, s) ==
               CUDA_ERROR_INVALID_VALUE,
           "a prefetch to device 99: refused");
    cuStreamDestroy(s);
    cuMemFree(plain);
    for (int i = 0; i < 3; i++)
        cuMemFree(m[i]);
}


/* v = 2 v + x through a surface of a 2D float array (suld.b / sust.b) */
static const char *surface_ptx =
    ".version 7.0\n.target sm_75\n.address_size 64\n"
    ".visible .entry surf_scale(.param .u64 p_surf, .param .u32 p_w)\n"
    "{\n"
    "    .reg .b32 %r<10>;\n    .reg .b64 %rd<2>;\n    .reg .f32 %f<4>;\n    .reg .pred %p;\n"
    "    ld.param.u64 %rd1, [p_surf];\n    ld.param.u32 %r1, [p_w];\n"
    "    mov.u32 %r3, %tid.x;\n    mov.u32 %r4, %ctaid.x;\n"
    "    setp.ge.u32 %p, %r3, %r1;\n    @%p bra done;\n"
    "    shl.b32 %r5, %r3, 2;\n"
    "    suld.b.2d.b32.trap {%r6}, [%rd1, {%r5, %r4}];\n"
    "    mov.b32 %f1, %r6;\n    cvt.rn.f32.u32 %f2, %r3;\n"
    "    fma.rn.f32 %f3, %f1, 0f40000000, %f2;\n    mov.b32 %r7, %f3;\n"
    "    sust.b.2d.b32.trap [%rd1, {%r5, %r4}], {%r7};\n"
    "done:\n    ret;\n}\n";

static void surfaces(void)
{
    enum { W = 16, H = 8 };
    CUDA_ARRAY3D_DESCRIPTOR ad;
    memset(&ad, 0, sizeof ad);
    ad.Width = W;
    ad.Height = H;
    ad.Format = CU_AD_FORMAT_FLOAT;
    ad.NumChannels = 1;
    ad.Flags = CUDA_ARRAY3D_SURFACE_LDST;
    CUarray arr;
    CUresult rc = cuArray3DCreate(&arr, &ad);
    EXPECT(rc == CUDA_SUCCESS, "cuArray3DCreate(16 x 8 float, SURFACE_LDST) -> %d", rc);
    if (rc != CUDA_SUCCESS)
        return;
    float data[H][W], back[H][W];
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++)
            data[y][x] = (float)(y * W + x) * 0.5f;
    CUDA_MEMCPY2D c;
    memset(&c, 0, sizeof c);
    c.srcMemoryType = CU_MEMORYTYPE_HOST;
    c.srcHost = data;
    c.srcPitch = sizeof data[0];
    c.dstMemoryType = CU_MEMORYTYPE_ARRAY;
    c.dstArray = arr;
    c.WidthInBytes = sizeof data[0];
    c.Height = H;
    cuMemcpy2D(&c);

    CUDA_RESOURCE_DESC rd, got;
    memset(&rd, 0, sizeof rd);
    rd.resType = CU_RESOURCE_TYPE_ARRAY;
    rd.res.array.hArray = arr;
    CUsurfObject surf = 0;
    rc = cuSurfObjectCreate(&surf, &rd);
    EXPECT(rc == CUDA_SUCCESS && surf != 0, "cuSurfObjectCreate -> %d", rc);
    memset(&got, 0xa5, sizeof got);
    EXPECT(cuSurfObjectGetResourceDesc(&got, surf) == CUDA_SUCCESS &&
               got.resType == CU_RESOURCE_TYPE_ARRAY && got.res.array.hArray == arr,
           "cuSurfObjectGetResourceDesc: the array it was made from");

    CUmodule m;
    CUfunction f;
    rc = cuModuleLoadData(&m, surface_ptx);
    if (rc == CUDA_SUCCESS)
        rc = cuModuleGetFunction(&f, m, "surf_scale");
    unsigned w = W;
    void *args[] = {&surf, &w};
    if (rc == CUDA_SUCCESS)
        rc = cuLaunchKernel(f, H, 1, 1, 32, 1, 1, 0, NULL, args, NULL);
    EXPECT(rc == CUDA_SUCCESS && cuCtxSynchronize() == CUDA_SUCCESS,
           "a kernel reads and writes the array through the surface -> %d", rc);
    memset(back, 0, sizeof back);
    c.srcMemoryType = CU_MEMORYTYPE_ARRAY;
    c.srcArray = arr;
    c.srcHost = NULL;
    c.srcPitch = 0;
    c.dstMemoryType = CU_MEMORYTYPE_HOST;
    c.dstArray = NULL;
    c.dstHost = back;
    c.dstPitch = sizeof back[0];
    cuMemcpy2D(&c);
    int bad = 0;
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++)
            bad += back[y][x] != data[y][x] * 2.0f + (float)x;
    EXPECT(bad == 0, "the array holds 2 v + x everywhere (%d wrong)", bad);

    EXPECT(cuSurfObjectDestroy(surf) == CUDA_SUCCESS, "cuSurfObjectDestroy");
    EXPECT(cuSurfObjectGetResourceDesc(&got, surf) == CUDA_ERROR_INVALID_HANDLE &&
               cuSurfObjectGetResourceDesc(NULL, surf) == CUDA_ERROR_INVALID_VALUE,
           "cuSurfObjectGetResourceDesc of a destroyed surface / into NULL refused");
    CUDA_RESOURCE_DESC lin;
    memset(&lin, 0, sizeof lin);
    lin.resType = CU_RESOURCE_TYPE_LINEAR;
    EXPECT(cuSurfObjectCreate(&surf, &lin) == CUDA_ERROR_INVALID_VALUE &&
               cuSurfObjectCreate(NULL, &rd) == CUDA_ERROR_INVALID_VALUE,
           "cuSurfObjectCreate of linear memory / into NULL -> INVALID_VALUE");
    cuModuleUnload(m);
    cuArrayDestroy(arr);
}

int main(void)
{
    CUdevice dev;
    CUcontext ctx;
    if (cuInit(0) != CUDA_SUCCESS || cuDeviceGet(&dev, 0) != CUDA_SUCCESS ||
        cuDevicePrimaryCtxRetain(&ctx, dev) != CUDA_SUCCESS ||
        cuCtxSetCurrent(ctx) != CUDA_SUCCESS) {
        printf("FAIL no device\n");
        return 1;
    }
    CUmodule mod;
    CUresult rc = cuModuleLoadData(&mod, ptx);
    if (rc != CUDA_SUCCESS) {
        printf("FAIL cuModuleLoadData -> %d\n", rc);
        return 1;
    }
    legacy_launches(mod);
    logs(mod);
    coredump_per_context(dev, ctx);
    contexts_and_modules(dev, ctx, mod);
    function_loading(mod);
    exec_affinity(dev, ctx);
    batched_memory_ops(dev);
    surfaces();
    cuModuleUnload(mod);
    printf("PASS: %d failure(s)\n", failures);
    return failures != 0;
}
