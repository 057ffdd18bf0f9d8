/*
 * Modules and launches: usage `module <kernels.so> <mode> [<other file>]`.
 *   run     load by path and from memory, launch every fixture kernel, check results
 *   limits  launch validation, function attributes, occupancy
 *   trap    a block traps: the launch fails at the next synchronisation
 *   assert  a block fails a device assert: hipErrorAssert at synchronisation, sticky
 *   image   hipModuleLoadData / hipModuleLoad of <other file>: print the result
 *   file    hipModuleLoad of <other file> only (a truncated file: the bytes hipModuleLoadData
 *           would read past its end are not there)
 */
#include <pthread.h>
#include <string.h>

#include "check.h"

static void *read_file(const char *path, size_t *size, size_t slack)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    /* `slack` bytes of garbage after the image: the loader must size it from the header */
    unsigned char *buf = malloc((size_t)n + slack);
    if (fread(buf, 1, (size_t)n, f) != (size_t)n)
        exit(4);
    memset(buf + n, 0xee, slack);
    fclose(f);
    *size = (size_t)n;
    return buf;
}

static int run_saxpy(hipModule_t mod, int use_extra, hipStream_t stream)
{
    enum { N = 10000 };
    static float x[N], y[N];
    for (int i = 0; i < N; i++) {
        x[i] = (float)i;
        y[i] = 1.0f;
    }
    float *dx, *dy;
    CHECK(hipMalloc((void **)&dx, sizeof x));
    CHECK(hipMalloc((void **)&dy, sizeof y));
    CHECK(hipMemcpy(dx, x, sizeof x, hipMemcpyHostToDevice));
    CHECK(hipMemcpy(dy, y, sizeof y, hipMemcpyHostToDevice));
    hipFunction_t f;
    CHECK(hipModuleGetFunction(&f, mod, "saxpy"));
    int n = N;
    float a = 2.0f;
    if (use_extra) {
        struct {
            int n;
            float a;
            float *x, *y;
        } args = {n, a, dx, dy};
        size_t size = sizeof args;
        void *extra[] = {HIP_LAUNCH_PARAM_BUFFER_POINTER, &args, HIP_LAUNCH_PARAM_BUFFER_SIZE,
                         &size, HIP_LAUNCH_PARAM_END};
        CHECK(hipModuleLaunchKernel(f, (N + 255) / 256, 1, 1, 256, 1, 1, 0, stream, NULL, extra));
        args.n = 0;   /* the launch copied the arguments */
    } else {
        void *params[] = {&n, &a, &dx, &dy};
        CHECK(hipModuleLaunchKernel(f, (N + 255) / 256, 1, 1, 256, 1, 1, 0, stream, params, NULL));
        n = 0;
        a = 0;
    }
    CHECK(hipMemcpyAsync(y, dy, sizeof y, hipMemcpyDeviceToHost, stream));
    CHECK(hipStreamSynchronize(stream));
    int ok = 1;
    for (int i = 0; i < N; i++)
        ok &= y[i] == 2.0f * (float)i + 1.0f;
    CHECK(hipFree(dx));
    CHECK(hipFree(dy));
    return ok;
}

static int mode_run(const char *path)
{
    hipModule_t mod, mem;
    CHECK(hipModuleLoad(&mod, path));
    unsigned count = 0;
    CHECK(hipModuleGetFunctionCount(&count, mod));
    printf("functions=%u\n", count);
    hipFunction_t f;
    SHOW("get_unknown", hipModuleGetFunction(&f, mod, "no_such_kernel"));
    hipStream_t s;
    CHECK(hipStreamCreate(&s));
    printf("saxpy_params=%d\n", run_saxpy(mod, 0, NULL));
    printf("saxpy_extra=%d\n", run_saxpy(mod, 1, s));

    size_t size;
    void *image = read_file(path, &size, 4096);
    CHECK(hipModuleLoadData(&mem, image));
    memset(image, 0, size);   /* the module must not depend on the caller's buffer */
    free(image);
    printf("saxpy_loaddata=%d\n", run_saxpy(mem, 0, s));

    /* globals: written from the host, read by a kernel; visible as device memory */
    void *gscale;
    size_t gbytes = 0;
    CHECK(hipModuleGetGlobal(&gscale, &gbytes, mod, "g_scale"));
    printf("global_bytes=%zu\n", gbytes);
    SHOW("global_unknown", hipModuleGetGlobal(&gscale, &gbytes, mod, "nope"));
    hipPointerAttribute_t pa;
    CHECK(hipPointerGetAttributes(&pa, gscale));
    printf("global_is_device=%d\n", pa.type == hipMemoryTypeDevice);
    float scale = 2.5f;
    CHECK(hipMemcpyHtoD(gscale, &scale, sizeof scale));
    float *out;
    CHECK(hipMalloc((void **)&out, 10 * sizeof(float)));
    int n = 10;
    void *sp[] = {&out, &n};
    CHECK(hipModuleGetFunction(&f, mod, "scale_by_global"));
    CHECK(hipModuleLaunchKernel(f, 3, 1, 1, 4, 1, 1, 0, NULL, sp, NULL));
    float hout[10];
    CHECK(hipMemcpy(hout, out, sizeof hout, hipMemcpyDeviceToHost));
    printf("global_kernel=%g,%g,%g\n", hout[0], hout[1], hout[9]);
    /* the other module has its own copy of the global */
    CHECK(hipModuleGetFunction(&f, mem, "scale_by_global"));
    CHECK(hipModuleLaunchKernel(f, 3, 1, 1, 4, 1, 1, 0, NULL, sp, NULL));
    CHECK(hipMemcpy(hout, out, sizeof hout, hipMemcpyDeviceToHost));
    printf("global_other_module=%g\n", hout[9]);
    /* the same file loaded twice: two modules, two copies of every global */
    hipModule_t again;
    void *gscale2;
    CHECK(hipModuleLoad(&again, path));
    CHECK(hipModuleGetGlobal(&gscale2, &gbytes, again, "g_scale"));
    float seven = 7.0f, first = 0.0f;
    CHECK(hipMemcpyHtoD(gscale2, &seven, sizeof seven));
    CHECK(hipMemcpyDtoH(&first, gscale, sizeof first));
    CHECK(hipModuleGetFunction(&f, again, "scale_by_global"));
    CHECK(hipModuleLaunchKernel(f, 3, 1, 1, 4, 1, 1, 0, NULL, sp, NULL));
    CHECK(hipMemcpy(hout, out, sizeof hout, hipMemcpyDeviceToHost));
    printf("load_twice=%d,%g,%g\n", gscale2 != gscale, first, hout[9]);
    CHECK(hipModuleUnload(again));

    /* dynamic shared memory */
    enum { B = 64, G = 3 };
    int data[B * G];
    for (int i = 0; i < B * G; i++)
        data[i] = i;
    int *dd;
    CHECK(hipMalloc((void **)&dd, sizeof data));
    CHECK(hipMemcpy(dd, data, sizeof data, hipMemcpyHostToDevice));
    void *rp[] = {&dd};
    CHECK(hipModuleGetFunction(&f, mod, "reverse_block"));
    CHECK(hipModuleLaunchKernel(f, G, 1, 1, B, 1, 1, B * sizeof(int), s, rp, NULL));
    CHECK(hipMemcpyAsync(data, dd, sizeof data, hipMemcpyDeviceToHost, s));
    CHECK(hipStreamSynchronize(s));
    printf("dyn_shared=%d,%d,%d,%d\n", data[0], data[63], data[64], data[191]);

    /* block indices over a 3D grid, and what a block is told about the device */
    enum { GX = 5, GY = 3, GZ = 2, TX = 4, TY = 2 };
    int *dids, *dinfo;
    int hids[GX * GY * GZ * TX * TY], info[3] = {0, 0, 1};
    CHECK(hipMalloc((void **)&dids, sizeof hids));
    CHECK(hipMalloc((void **)&dinfo, sizeof info));
    CHECK(hipMemcpy(dinfo, info, sizeof info, hipMemcpyHostToDevice));
    void *ip[] = {&dids, &dinfo};
    CHECK(hipModuleGetFunction(&f, mod, "ids"));
    CHECK(hipModuleLaunchKernel(f, GX, GY, GZ, TX, TY, 1, 0, NULL, ip, NULL));
    CHECK(hipMemcpy(hids, dids, sizeof hids, hipMemcpyDeviceToHost));
    CHECK(hipMemcpy(info, dinfo, sizeof info, hipMemcpyDeviceToHost));
    int ids_ok = 1;
    for (int z = 0; z < GZ; z++)
        for (int y = 0; y < GY; y++)
            for (int x = 0; x < GX; x++)
                for (int t = 0; t < TX * TY; t++)
                    ids_ok &= hids[((z * GY + y) * GX + x) * TX * TY + t] == x + 100 * y + 10000 * z;
    printf("ids=%d\n", ids_ok);
    printf("info=%d,%d,%d\n", info[0], info[1], info[2]);

    /* device printf: 2 blocks print one line each (order between blocks is free) */
    int tag = 5;
    void *hp[] = {&tag};
    CHECK(hipModuleGetFunction(&f, mod, "hello"));
    fflush(stdout);
    CHECK(hipModuleLaunchKernel(f, 2, 1, 1, 32, 1, 1, 0, NULL, hp, NULL));
    CHECK(hipDeviceSynchronize());

    /* many launches in flight on several streams */
    hipStream_t ss[3];
    for (int i = 0; i < 3; i++)
        CHECK(hipStreamCreate(&ss[i]));
    int many_ok = 1;
    for (int i = 0; i < 3; i++)
        many_ok &= run_saxpy(mod, i % 2, ss[i]);
    printf("many_streams=%d\n", many_ok);
    for (int i = 0; i < 3; i++)
        CHECK(hipStreamDestroy(ss[i]));

    CHECK(hipFree(out));
    CHECK(hipFree(dd));
    CHECK(hipFree(dids));
    CHECK(hipFree(dinfo));
    CHECK(hipStreamDestroy(s));
    CHECK(hipModuleUnload(mem));
    CHECK(hipModuleGetFunction(&f, mod, "saxpy"));
    CHECK(hipModuleUnload(mod));
    SHOW("unload_twice", hipModuleUnload(mod));
    SHOW("launch_unloaded", hipModuleLaunchKernel(f, 1, 1, 1, 1, 1, 1, 0, NULL, NULL, NULL));
    SHOW("garbage_module", hipModuleGetFunction(&f, (hipModule_t)(uintptr_t)0x999, "saxpy"));
    CHECK(hipPointerGetAttributes(&pa, gscale));
    printf("global_after_unload=%d\n", pa.type == hipMemoryTypeUnregistered);
    return 0;
}

static int mode_limits(const char *path)
{
    hipModule_t mod;
    hipFunction_t saxpy, bounded;
    CHECK(hipModuleLoad(&mod, path));
    CHECK(hipModuleGetFunction(&saxpy, mod, "saxpy"));
    CHECK(hipModuleGetFunction(&bounded, mod, "bounded"));
    float *d;
    CHECK(hipMalloc((void **)&d, 1024 * sizeof(float)));
    int n = 0;
    float a = 1;
    void *p[] = {&n, &a, &d, &d};
    SHOW("block_1025", hipModuleLaunchKernel(saxpy, 1, 1, 1, 1025, 1, 1, 0, NULL, p, NULL));
    SHOW("block_product", hipModuleLaunchKernel(saxpy, 1, 1, 1, 512, 4, 1, 0, NULL, p, NULL));
    SHOW("block_zero", hipModuleLaunchKernel(saxpy, 1, 1, 1, 0, 1, 1, 0, NULL, p, NULL));
    SHOW("grid_zero", hipModuleLaunchKernel(saxpy, 0, 1, 1, 32, 1, 1, 0, NULL, p, NULL));
    SHOW("grid_y_too_big", hipModuleLaunchKernel(saxpy, 1, 70000, 1, 32, 1, 1, 0, NULL, p, NULL));
    SHOW("grid_overflow",
         hipModuleLaunchKernel(saxpy, 2147483647u, 1, 1, 4, 1, 1, 0, NULL, p, NULL));
    SHOW("shared_too_big", hipModuleLaunchKernel(saxpy, 1, 1, 1, 32, 1, 1, 65537, NULL, p, NULL));
    SHOW("bounded_threads", hipModuleLaunchKernel(bounded, 1, 1, 1, 256, 1, 1, 0, NULL, NULL, NULL));
    SHOW("bounded_shared", hipModuleLaunchKernel(bounded, 1, 1, 1, 64, 1, 1, 8192, NULL, NULL, NULL));
    SHOW("bounded_ok", hipModuleLaunchKernel(bounded, 4, 1, 1, 128, 1, 1, 4096, NULL, NULL, NULL));
    SHOW("no_args", hipModuleLaunchKernel(saxpy, 1, 1, 1, 32, 1, 1, 0, NULL, NULL, NULL));
    size_t size = 24;
    void *extra[] = {HIP_LAUNCH_PARAM_BUFFER_POINTER, p, HIP_LAUNCH_PARAM_BUFFER_SIZE, &size,
                     HIP_LAUNCH_PARAM_END};
    SHOW("both_arg_forms", hipModuleLaunchKernel(saxpy, 1, 1, 1, 32, 1, 1, 0, NULL, p, extra));
    size_t small = 8;
    void *short_extra[] = {HIP_LAUNCH_PARAM_BUFFER_POINTER, p, HIP_LAUNCH_PARAM_BUFFER_SIZE,
                           &small, HIP_LAUNCH_PARAM_END};
    SHOW("extra_too_small",
         hipModuleLaunchKernel(saxpy, 1, 1, 1, 32, 1, 1, 0, NULL, NULL, short_extra));
    void *bad_extra[] = {(void *)0x77, NULL, HIP_LAUNCH_PARAM_END};
    SHOW("extra_bad_key", hipModuleLaunchKernel(saxpy, 1, 1, 1, 32, 1, 1, 0, NULL, NULL, bad_extra));
    void *cuda_end[] = {HIP_LAUNCH_PARAM_BUFFER_POINTER, p, HIP_LAUNCH_PARAM_BUFFER_SIZE, &size,
                        NULL};
    SHOW("extra_cuda_end", hipModuleLaunchKernel(saxpy, 1, 1, 1, 32, 1, 1, 0, NULL, NULL, cuda_end));
    void *null_param[] = {&n, &a, NULL, &d};
    SHOW("null_param", hipModuleLaunchKernel(saxpy, 1, 1, 1, 32, 1, 1, 0, NULL, null_param, NULL));
    SHOW("null_function", hipModuleLaunchKernel(NULL, 1, 1, 1, 32, 1, 1, 0, NULL, p, NULL));
    hipLaunchAttribute la[2];
    memset(la, 0, sizeof la);
    la[0].id = hipLaunchAttributePriority;
    la[0].val.priority = -1;
    la[1].id = hipLaunchAttributeCooperative;
    la[1].val.cooperative = 0;
    HIP_LAUNCH_CONFIG cfg = {4, 1, 1, 128, 1, 1, 1024, NULL, la, 2};
    SHOW("launch_ex", hipDrvLaunchKernelEx(&cfg, bounded, NULL, NULL));
    la[1].val.cooperative = 1;
    SHOW("launch_ex_cooperative", hipDrvLaunchKernelEx(&cfg, bounded, NULL, NULL));
    /* one block per multiprocessor fits its 61,024 bytes of shared memory: 4 workers, 4 */
    cfg.gridDimX = 5;
    SHOW("launch_ex_cooperative_too_large", hipDrvLaunchKernelEx(&cfg, bounded, NULL, NULL));
    cfg.gridDimX = 4;
    la[1].id = (hipLaunchAttributeID)77;
    SHOW("launch_ex_unknown_attr", hipDrvLaunchKernelEx(&cfg, bounded, NULL, NULL));
    cfg.blockDimX = 256;
    cfg.numAttrs = 0;
    SHOW("launch_ex_too_many_threads", hipDrvLaunchKernelEx(&cfg, bounded, NULL, NULL));
    CHECK(hipDeviceSynchronize());

    int v = -1;
    const struct {
        const char *name;
        hipFunction_attribute attr;
    } attrs[] = {
        {"max_threads", HIP_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK},
        {"shared", HIP_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES},
        {"local", HIP_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES},
        {"regs", HIP_FUNC_ATTRIBUTE_NUM_REGS},
        {"max_dyn_shared", HIP_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES},
    };
    for (size_t i = 0; i < sizeof attrs / sizeof attrs[0]; i++) {
        CHECK(hipFuncGetAttribute(&v, attrs[i].attr, bounded));
        printf("bounded.%s=%d\n", attrs[i].name, v);
        CHECK(hipFuncGetAttribute(&v, attrs[i].attr, saxpy));
        printf("saxpy.%s=%d\n", attrs[i].name, v);
    }
    struct hipFuncAttributes fa;
    CHECK(hipFuncGetAttributes(&fa, bounded));
    printf("funcattrs=%d,%zu,%zu,%d\n", fa.maxThreadsPerBlock, fa.sharedSizeBytes,
           fa.localSizeBytes, fa.numRegs);
    SHOW("attr_bad", hipFuncGetAttribute(&v, HIP_FUNC_ATTRIBUTE_MAX, saxpy));
    SHOW("set_dyn_too_big",
         hipFuncSetAttribute(bounded, hipFuncAttributeMaxDynamicSharedMemorySize, 8000));
    CHECK(hipFuncSetAttribute(saxpy, hipFuncAttributeMaxDynamicSharedMemorySize, 1024));
    SHOW("shared_over_set_limit",
         hipModuleLaunchKernel(saxpy, 1, 1, 1, 32, 1, 1, 2048, NULL, p, NULL));

    int blocks = -1, grid = -1, block = -1;
    CHECK(hipModuleOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, saxpy, 256, 0));
    printf("occ.saxpy256=%d\n", blocks);
    CHECK(hipModuleOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, saxpy, 100, 0));
    printf("occ.saxpy100=%d\n", blocks);
    CHECK(hipModuleOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, saxpy, 64, 16384));
    printf("occ.saxpy64_shared16k=%d\n", blocks);
    CHECK(hipModuleOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, bounded, 128, 0));
    printf("occ.bounded=%d\n", blocks);
    CHECK(hipModuleOccupancyMaxPotentialBlockSize(&grid, &block, saxpy, 0, 0));
    printf("potential.saxpy=%d,%d\n", grid, block);
    CHECK(hipModuleOccupancyMaxPotentialBlockSize(&grid, &block, bounded, 0, 0));
    printf("potential.bounded=%d,%d\n", grid, block);
    CHECK(hipModuleOccupancyMaxPotentialBlockSize(&grid, &block, saxpy, 0, 200));
    printf("potential.saxpy_limit200=%d\n", block);
    CHECK(hipOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, (const void *)saxpy, 256, 0));
    printf("occ.runtime_api=%d\n", blocks);
    size_t avail = 0;
    CHECK(hipOccupancyAvailableDynamicSMemPerBlock(&avail, (const void *)saxpy, 4, 256));
    printf("occ.avail_dyn_smem=%zu\n", avail);
    SHOW("occ.not_a_function", hipOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, &avail, 256, 0));
    CHECK(hipFree(d));
    CHECK(hipModuleUnload(mod));
    SHOW("unload_twice_get", hipModuleGetFunction(&saxpy, NULL, "saxpy"));
    return 0;
}

static int mode_trap(const char *path)
{
    hipModule_t mod;
    hipFunction_t f;
    CHECK(hipModuleLoad(&mod, path));
    CHECK(hipModuleGetFunction(&f, mod, "trap"));
    int bad = 1;
    void *p[] = {&bad};
    SHOW("launch", hipModuleLaunchKernel(f, 4, 1, 1, 32, 1, 1, 0, NULL, p, NULL));
    SHOW("sync", hipDeviceSynchronize());
    SHOW("sync_again", hipStreamSynchronize(NULL));
    CHECK(hipDeviceReset());
    SHOW("after_reset", hipDeviceSynchronize());
    return 0;
}

/* A failed device assert in a many-block grid and in a one-block grid (which runs on the
 * stream's thread): both are hipErrorAssert, sticky until the device is reset. */
static int mode_assert(const char *path)
{
    hipModule_t mod;
    hipFunction_t f;
    CHECK(hipModuleLoad(&mod, path));
    CHECK(hipModuleGetFunction(&f, mod, "assert_fail"));
    int bad = 2;
    void *p[] = {&bad};
    SHOW("launch", hipModuleLaunchKernel(f, 4, 1, 1, 32, 1, 1, 0, NULL, p, NULL));
    SHOW("sync", hipDeviceSynchronize());
    SHOW("sync_again", hipStreamSynchronize(NULL));
    SHOW("last_error", hipGetLastError());
    CHECK(hipDeviceReset());
    SHOW("after_reset", hipDeviceSynchronize());
    CHECK(hipModuleLoad(&mod, path));
    CHECK(hipModuleGetFunction(&f, mod, "assert_fail"));
    bad = 0;
    SHOW("one_block_launch", hipModuleLaunchKernel(f, 1, 1, 1, 1, 1, 1, 0, NULL, p, NULL));
    SHOW("one_block_sync", hipDeviceSynchronize());
    CHECK(hipDeviceReset());
    return 0;
}

/* Several host threads launch on their own streams at once, sharing one module. */
typedef struct launcher {
    hipFunction_t f;
    int id, ok;
} launcher;

static void *launch_thread(void *p)
{
    launcher *l = p;
    enum { N = 3000 };
    float *x = malloc(N * sizeof(float)), *y = malloc(N * sizeof(float));
    float *dx, *dy;
    hipStream_t s;
    l->ok = hipStreamCreateWithFlags(&s, l->id % 2 ? hipStreamNonBlocking : 0) == hipSuccess &&
            hipMalloc((void **)&dx, N * sizeof(float)) == hipSuccess &&
            hipMalloc((void **)&dy, N * sizeof(float)) == hipSuccess;
    for (int round = 0; l->ok && round < 25; round++) {
        for (int i = 0; i < N; i++) {
            x[i] = (float)(i + round);
            y[i] = (float)l->id;
        }
        int n = N;
        float a = (float)(round % 3);
        void *params[] = {&n, &a, &dx, &dy};
        l->ok = hipMemcpyAsync(dx, x, N * sizeof(float), hipMemcpyHostToDevice, s) == hipSuccess &&
                hipMemcpyAsync(dy, y, N * sizeof(float), hipMemcpyHostToDevice, s) == hipSuccess &&
                hipModuleLaunchKernel(l->f, (N + 63) / 64, 1, 1, 64, 1, 1, 0, s, params, NULL) ==
                    hipSuccess &&
                hipMemcpyAsync(y, dy, N * sizeof(float), hipMemcpyDeviceToHost, s) == hipSuccess &&
                hipStreamSynchronize(s) == hipSuccess;
        for (int i = 0; l->ok && i < N; i++)
            l->ok = y[i] == a * (float)(i + round) + (float)l->id;
    }
    hipFree(dx);
    hipFree(dy);
    hipStreamDestroy(s);
    free(x);
    free(y);
    return NULL;
}

static int mode_threads(const char *path)
{
    hipModule_t mod;
    hipFunction_t f;
    CHECK(hipModuleLoad(&mod, path));
    CHECK(hipModuleGetFunction(&f, mod, "saxpy"));
    enum { T = 4 };
    pthread_t th[T];
    launcher ls[T];
    for (int i = 0; i < T; i++) {
        ls[i] = (launcher){f, i, 0};
        pthread_create(&th[i], NULL, launch_thread, &ls[i]);
    }
    int ok = 1;
    for (int i = 0; i < T; i++) {
        pthread_join(th[i], NULL);
        ok &= ls[i].ok;
    }
    printf("threads=%d\n", ok);
    CHECK(hipModuleUnload(mod));
    return 0;
}

static int mode_image(const char *path)
{
    hipModule_t mod;
    size_t size;
    void *image = read_file(path, &size, 64);
    SHOW("load_data", image ? hipModuleLoadData(&mod, image) : hipErrorFileNotFound);
    SHOW("load_file", hipModuleLoad(&mod, path));
    free(image);
    return 0;
}

static int mode_file(const char *path)
{
    hipModule_t mod;
    SHOW("load_file", hipModuleLoad(&mod, path));
    return 0;
}

int main(int argc, char **argv)
{
    if (argc < 3)
        return 5;
    if (strcmp(argv[2], "run") == 0)
        return mode_run(argv[1]);
    if (strcmp(argv[2], "limits") == 0)
        return mode_limits(argv[1]);
    if (strcmp(argv[2], "threads") == 0)
        return mode_threads(argv[1]);
    if (strcmp(argv[2], "trap") == 0)
        return mode_trap(argv[1]);
    if (strcmp(argv[2], "assert") == 0)
        return mode_assert(argv[1]);
    if (strcmp(argv[2], "image") == 0 && argc > 3)
        return mode_image(argv[3]);
    if (strcmp(argv[2], "file") == 0 && argc > 3)
        return mode_file(argv[3]);
    return 5;
}
