/*
 * Side-by-side timings of the shim's libcuda.so.1 and the backend it forwards to (the CPU
 * device's libamdhip64.so.7), both linked into this one program as a CUDA program and a
 * HIP program would link them:
 *
 *   api_bench <reps> <calls> <launches> <module.so> <warmup.ptx> <bench.ptx>
 *
 * Prints `key=value` lines, one per repeat, for benchmarks/api.py to take medians of:
 *   call.<api>.<shim|hip>    ns per call of a cheap forwarded call: the fastest of SLICES
 *                            short loops (being descheduled only ever adds time, and this
 *                            machine is shared), so a few ns of difference stay visible
 *   launch.<grid>.<shim|hip> us per empty-kernel launch + synchronize
 *   launch.<grid>.omp        us per OpenMP fork-join over <grid> empty iterations: the floor
 *                            for starting parallel work on this machine
 *   load.<first|cold|cached> ms per cuModuleLoadData (translation through embedded Python)
 * Exits nonzero, naming the call, when anything fails: a benchmark of failing calls would
 * measure error paths.
 */
#define _GNU_SOURCE
#include <cuda.h>
#include <hip/hip_runtime_api.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define BENCH_NAME "api_bench"
#include "bench_harness.h"

#define SLICES 20

/* The fastest of SLICES loops of calls/SLICES calls each, in ns per call. */
static double fastest(double (*loop)(long), long calls)
{
    long n = calls / SLICES > 0 ? calls / SLICES : 1;
    double best = loop(n);
    for (int i = 1; i < SLICES; i++) {
        double t = loop(n);
        if (t < best)
            best = t;
    }
    return best;
}

/* The forwarded calls: every result is checked after the loop (a failing call would time an
 * error path, not the thunk), and summed into a volatile so nothing is optimised away. */
static volatile int sink;

static double count_shim(long calls)
{
    int n = 0, bad = 0;
    double t0 = now_ns();
    for (long i = 0; i < calls; i++)
        bad |= cuDeviceGetCount(&n) != CUDA_SUCCESS;
    double t = (now_ns() - t0) / (double)calls;
    CU(bad ? CUDA_ERROR_UNKNOWN : CUDA_SUCCESS);
    sink = n;
    return t;
}

static double count_hip(long calls)
{
    int n = 0, bad = 0;
    double t0 = now_ns();
    for (long i = 0; i < calls; i++)
        bad |= hipGetDeviceCount(&n) != hipSuccess;
    double t = (now_ns() - t0) / (double)calls;
    HIP(bad ? hipErrorUnknown : hipSuccess);
    sink = n;
    return t;
}

static double query_shim(long calls)
{
    int bad = 0;
    double t0 = now_ns();
    for (long i = 0; i < calls; i++)
        bad |= cuStreamQuery(NULL) != CUDA_SUCCESS;
    double t = (now_ns() - t0) / (double)calls;
    CU(bad ? CUDA_ERROR_UNKNOWN : CUDA_SUCCESS);
    return t;
}

static double query_hip(long calls)
{
    int bad = 0;
    double t0 = now_ns();
    for (long i = 0; i < calls; i++)
        bad |= hipStreamQuery(NULL) != hipSuccess;
    double t = (now_ns() - t0) / (double)calls;
    HIP(bad ? hipErrorUnknown : hipSuccess);
    return t;
}

static double launch_hip(hipFunction_t f, unsigned grid, long launches)
{
    void *args[1] = {NULL};
    double t0 = now_ns();
    for (long i = 0; i < launches; i++) {
        HIP(hipModuleLaunchKernel(f, grid, 1, 1, 256, 1, 1, 0, NULL, args, NULL));
        HIP(hipDeviceSynchronize());
    }
    return (now_ns() - t0) / (double)launches / 1e3;
}

static double launch_shim(CUfunction f, unsigned grid, long launches)
{
    void *args[1] = {NULL};
    double t0 = now_ns();
    for (long i = 0; i < launches; i++) {
        CU(cuLaunchKernel(f, grid, 1, 1, 256, 1, 1, 0, NULL, args, NULL));
        CU(cuCtxSynchronize());
    }
    return (now_ns() - t0) / (double)launches / 1e3;
}

/* an empty block body the compiler cannot drop */
__attribute__((noinline)) static void empty_block(unsigned b)
{
    __asm__ volatile("" : : "r"(b) : "memory");
}

static double launch_omp(unsigned grid, long launches)
{
    double t0 = now_ns();
    for (long i = 0; i < launches; i++) {
#pragma omp parallel for schedule(dynamic)
        for (unsigned b = 0; b < grid; b++)
            empty_block(b);
    }
    return (now_ns() - t0) / (double)launches / 1e3;
}

static double load_shim(const char *image, CUmodule *mod)
{
    double t0 = now_ns();
    CU(cuModuleLoadData(mod, image));
    return (now_ns() - t0) / 1e6;
}

int main(int argc, char **argv)
{
    if (argc != 7) {
        fprintf(stderr, "usage: api_bench <reps> <calls> <launches> <module.so> "
                        "<warmup.ptx> <bench.ptx>\n");
        return 2;
    }
    int reps = atoi(argv[1]);
    const char *workers = getenv("PYSHIM_CPU_WORKERS");
    if (workers != NULL)
        omp_set_num_threads(atoi(workers));
    long calls = atol(argv[2]), launches = atol(argv[3]);
    char *warm_ptx = read_file(argv[5]), *bench_ptx = read_file(argv[6]);

    CUdevice dev;
    CUcontext ctx;
    CU(cuInit(0));
    CU(cuDeviceGet(&dev, 0));
    CU(cuDevicePrimaryCtxRetain(&ctx, dev));
    CU(cuCtxSetCurrent(ctx));

    /* module loads first, while the kernel cache ($PYSHIM_CACHE, fresh) is cold: the first
     * load also starts the embedded interpreter, so it gets its own line */
    CUmodule warm, cold, cached;
    printf("load.first=%.3f\n", load_shim(warm_ptx, &warm));
    printf("load.cold=%.3f\n", load_shim(bench_ptx, &cold));
    for (int r = 0; r < reps; r++) {
        printf("load.cached=%.3f\n", load_shim(bench_ptx, &cached));
        CU(cuModuleUnload(cached));
    }

    hipModule_t hmod;
    hipFunction_t hempty;
    CUfunction cempty;
    HIP(hipModuleLoad(&hmod, argv[4]));
    HIP(hipModuleGetFunction(&hempty, hmod, "empty_kernel"));
    CU(cuModuleGetFunction(&cempty, cold, "empty_kernel"));

    /* warm-up: page in both paths, start the worker pool */
    count_shim(calls / 10 + 1);
    count_hip(calls / 10 + 1);
    launch_hip(hempty, 64, 10);
    launch_shim(cempty, 64, 10);
    launch_omp(64, 10);
    for (int r = 0; r < reps; r++) {
        /* alternate which side goes first so drift does not favour one */
        if (r & 1) {
            printf("call.cuDeviceGetCount.hip=%.3f\n", fastest(count_hip, calls));
            printf("call.cuDeviceGetCount.shim=%.3f\n", fastest(count_shim, calls));
            printf("call.cuStreamQuery.hip=%.3f\n", fastest(query_hip, calls));
            printf("call.cuStreamQuery.shim=%.3f\n", fastest(query_shim, calls));
        } else {
            printf("call.cuDeviceGetCount.shim=%.3f\n", fastest(count_shim, calls));
            printf("call.cuDeviceGetCount.hip=%.3f\n", fastest(count_hip, calls));
            printf("call.cuStreamQuery.shim=%.3f\n", fastest(query_shim, calls));
            printf("call.cuStreamQuery.hip=%.3f\n", fastest(query_hip, calls));
        }
        for (int k = 0; k < 2; k++) {
            if ((k ^ r) & 1) {
                printf("launch.1.shim=%.3f\n", launch_shim(cempty, 1, launches));
                printf("launch.64.shim=%.3f\n", launch_shim(cempty, 64, launches));
            } else {
                printf("launch.1.hip=%.3f\n", launch_hip(hempty, 1, launches));
                printf("launch.64.hip=%.3f\n", launch_hip(hempty, 64, launches));
            }
        }
        printf("launch.1.omp=%.3f\n", launch_omp(1, launches));
        printf("launch.64.omp=%.3f\n", launch_omp(64, launches));
    }
    printf("devices=%d\n", sink);
    CU(cuModuleUnload(warm));
    CU(cuModuleUnload(cold));
    HIP(hipModuleUnload(hmod));
    return 0;
}
