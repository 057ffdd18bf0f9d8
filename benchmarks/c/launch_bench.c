/*
 * Launch latency on the CPU device (issue #18): small launches cost what starting them
 * costs, so they are timed side by side with the cheapest way the same machine starts
 * the same work (an OpenMP region over the same threads, a plain loop):
 *
 *   launch_bench <reps> <launches> <module.so> <bench.ptx>
 *
 * Prints `key=value` lines, one per repeat, for benchmarks/launch.py to take medians of:
 *   <case>.hip        us per hipModuleLaunchKernel + hipStreamSynchronize (CPU device direct)
 *   <case>.shim       us per cuLaunchKernel + cuStreamSynchronize through the shim's libcuda
 *   <case>.omp        us per OpenMP parallel region doing the same work (same threads)
 *   <case>.loop       us per plain C loop doing it on the calling thread
 *   <case>.queued     us per launch of <launches> launches in a row, one synchronize at the end
 * cases: empty (empty_kernel<<<1,1>>>), block (saxpy, one block of 256 threads),
 * saxpy_small (saxpy, n = 16384: 64 blocks), saxpy_big (saxpy, n = 4M: 16384 blocks; the
 * launch must not make big grids slower).
 * Every saxpy result is checked (exactly: the kernel and the loop both round a*x+y the
 * same way, no contraction) before anything is timed; exits nonzero naming what failed.
 */
#define _GNU_SOURCE
#include <cuda.h>
#include <hip/hip_runtime_api.h>
#include <omp.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define BENCH_NAME "launch_bench"
#include "bench_harness.h"

typedef struct bench_case {
    const char *name;
    int n;              /* saxpy elements; 0: the empty kernel */
    unsigned grid, block;
} bench_case;

static const bench_case CASES[] = {
    {"empty", 0, 1, 1},
    {"block", 256, 1, 256},
    {"saxpy_small", 16384, 64, 256},
    {"saxpy_big", 4 << 20, (4 << 20) / 256, 256},
};
#define NCASES (sizeof CASES / sizeof CASES[0])

/* Device buffers of the largest case, shared by every case (both APIs see the same
 * memory: the shim's libcuda runs on this library). */
static float *dx, *dy, *dz, *hx, *hy, *hz;
static const float A = 1.5f;

typedef struct args {
    int n;
    float a;
    float *x, *y, *z;
    void *params[5];
} args;

static void set_args(args *a, int n)
{
    *a = (args){n, A, dx, dy, dz, {0}};
    a->params[0] = &a->n;
    a->params[1] = &a->a;
    a->params[2] = &a->x;
    a->params[3] = &a->y;
    a->params[4] = &a->z;
}

static hipFunction_t h_empty, h_saxpy;
static CUfunction c_empty, c_saxpy;

static void launch_hip(const bench_case *c, args *a, hipStream_t s)
{
    if (c->n == 0)
        HIP(hipModuleLaunchKernel(h_empty, c->grid, 1, 1, c->block, 1, 1, 0, s, NULL, NULL));
    else
        HIP(hipModuleLaunchKernel(h_saxpy, c->grid, 1, 1, c->block, 1, 1, 0, s, a->params,
                                  NULL));
}

static void launch_cu(const bench_case *c, args *a, CUstream s)
{
    if (c->n == 0)
        CU(cuLaunchKernel(c_empty, c->grid, 1, 1, c->block, 1, 1, 0, s, NULL, NULL));
    else
        CU(cuLaunchKernel(c_saxpy, c->grid, 1, 1, c->block, 1, 1, 0, s, a->params, NULL));
}

static void verify(const char *what, int n)
{
    for (int i = 0; i < n; i++) {
        float want = A * hx[i] + hy[i];
        if (hz[i] != want) {
            fprintf(stderr, "launch_bench: %s: z[%d] = %g, expected %g\n", what, i,
                    (double)hz[i], (double)want);
            exit(3);
        }
    }
}

__attribute__((noinline)) static void saxpy_loop(int n, float a, const float *x, const float *y,
                                                 float *z)
{
    for (int i = 0; i < n; i++)
        z[i] = a * x[i] + y[i];
}

__attribute__((noinline)) static void saxpy_omp(int n, float a, const float *x, const float *y,
                                                float *z)
{
#pragma omp parallel for schedule(static)
    for (int i = 0; i < n; i++)
        z[i] = a * x[i] + y[i];
}

/* an empty parallel region the compiler cannot drop */
__attribute__((noinline)) static void empty_omp(void)
{
#pragma omp parallel
    __asm__ volatile("" : : : "memory");
}

static long launches_for(const bench_case *c, long launches)
{
    /* the big case runs ~1000x longer per launch: fewer of them */
    return c->n > 100000 ? (launches / 200 > 3 ? launches / 200 : 3) : launches;
}

static double time_hip(const bench_case *c, long k, hipStream_t s, bool queued)
{
    args a;
    set_args(&a, c->n);
    double t0 = now_ns();
    for (long i = 0; i < k; i++) {
        launch_hip(c, &a, s);
        if (!queued)
            HIP(hipStreamSynchronize(s));
    }
    HIP(hipStreamSynchronize(s));
    return (now_ns() - t0) / (double)k / 1e3;
}

static double time_cu(const bench_case *c, long k, CUstream s)
{
    args a;
    set_args(&a, c->n);
    double t0 = now_ns();
    for (long i = 0; i < k; i++) {
        launch_cu(c, &a, s);
        CU(cuStreamSynchronize(s));
    }
    return (now_ns() - t0) / (double)k / 1e3;
}

static double time_host(const bench_case *c, long k, bool omp)
{
    double t0 = now_ns();
    for (long i = 0; i < k; i++) {
        if (c->n == 0) {
            if (omp)
                empty_omp();
            else
                __asm__ volatile("" : : : "memory");
        } else if (omp)
            saxpy_omp(c->n, A, hx, hy, hz);
        else
            saxpy_loop(c->n, A, hx, hy, hz);
    }
    return (now_ns() - t0) / (double)k / 1e3;
}

int main(int argc, char **argv)
{
    if (argc != 5) {
        fprintf(stderr, "usage: launch_bench <reps> <launches> <module.so> <bench.ptx>\n");
        return 2;
    }
    int reps = atoi(argv[1]);
    long launches = atol(argv[2]);
    const char *workers = getenv("PYSHIM_CPU_WORKERS");
    if (workers != NULL)
        omp_set_num_threads(atoi(workers));
    char *ptx = read_file(argv[4]);

    CUdevice dev;
    CUcontext ctx;
    CUmodule cmod;
    CU(cuInit(0));
    CU(cuDeviceGet(&dev, 0));
    CU(cuDevicePrimaryCtxRetain(&ctx, dev));
    CU(cuCtxSetCurrent(ctx));
    CU(cuModuleLoadData(&cmod, ptx));
    CU(cuModuleGetFunction(&c_empty, cmod, "empty_kernel"));
    CU(cuModuleGetFunction(&c_saxpy, cmod, "saxpy"));
    hipModule_t hmod;
    HIP(hipModuleLoad(&hmod, argv[3]));
    HIP(hipModuleGetFunction(&h_empty, hmod, "empty_kernel"));
    HIP(hipModuleGetFunction(&h_saxpy, hmod, "saxpy"));

    int nmax = CASES[NCASES - 1].n;
    size_t bytes = (size_t)nmax * sizeof(float);
    HIP(hipMalloc((void **)&dx, bytes));
    HIP(hipMalloc((void **)&dy, bytes));
    HIP(hipMalloc((void **)&dz, bytes));
    hx = malloc(bytes);
    hy = malloc(bytes);
    hz = malloc(bytes);
    if (hx == NULL || hy == NULL || hz == NULL)
        return 2;
    for (int i = 0; i < nmax; i++) {
        hx[i] = (float)(i % 1000) * 0.25f;
        hy[i] = (float)(i % 77) - 3.0f;
    }
    HIP(hipMemcpy(dx, hx, bytes, hipMemcpyHostToDevice));
    HIP(hipMemcpy(dy, hy, bytes, hipMemcpyHostToDevice));

    hipStream_t hs;
    HIP(hipStreamCreateWithFlags(&hs, hipStreamNonBlocking));
    CUstream cs;
    CU(cuStreamCreate(&cs, CU_STREAM_NON_BLOCKING));

    /* check every saxpy variant once before timing anything */
    for (size_t i = 0; i < NCASES; i++) {
        const bench_case *c = &CASES[i];
        if (c->n == 0)
            continue;
        args a;
        set_args(&a, c->n);
        size_t b = (size_t)c->n * sizeof(float);
        HIP(hipMemset(dz, 0, b));
        launch_hip(c, &a, hs);
        HIP(hipStreamSynchronize(hs));
        HIP(hipMemcpy(hz, dz, b, hipMemcpyDeviceToHost));
        verify("hipModuleLaunchKernel", c->n);
        HIP(hipMemset(dz, 0, b));
        launch_cu(c, &a, cs);
        CU(cuStreamSynchronize(cs));
        HIP(hipMemcpy(hz, dz, b, hipMemcpyDeviceToHost));
        verify("cuLaunchKernel", c->n);
        memset(hz, 0, b);
        saxpy_omp(c->n, A, hx, hy, hz);
        verify("OpenMP loop", c->n);
        memset(hz, 0, b);
        saxpy_loop(c->n, A, hx, hy, hz);
        verify("C loop", c->n);
    }

    /* warm-up: page in every path, start the worker pool and OpenMP's threads */
    for (size_t i = 0; i < NCASES; i++) {
        time_hip(&CASES[i], 3, hs, false);
        time_cu(&CASES[i], 3, cs);
        time_host(&CASES[i], 3, true);
    }
    for (int r = 0; r < reps; r++)
        for (size_t i = 0; i < NCASES; i++) {
            const bench_case *c = &CASES[i];
            long k = launches_for(c, launches);
            /* alternate the order so drift does not favour one side */
            if (r & 1) {
                printf("%s.omp=%.3f\n", c->name, time_host(c, k, true));
                printf("%s.hip=%.3f\n", c->name, time_hip(c, k, hs, false));
                printf("%s.shim=%.3f\n", c->name, time_cu(c, k, cs));
            } else {
                printf("%s.shim=%.3f\n", c->name, time_cu(c, k, cs));
                printf("%s.hip=%.3f\n", c->name, time_hip(c, k, hs, false));
                printf("%s.omp=%.3f\n", c->name, time_host(c, k, true));
            }
            printf("%s.queued=%.3f\n", c->name, time_hip(c, k, hs, true));
            printf("%s.loop=%.3f\n", c->name, time_host(c, k, false));
        }
    CU(cuStreamDestroy(cs));
    HIP(hipStreamDestroy(hs));
    CU(cuModuleUnload(cmod));
    HIP(hipModuleUnload(hmod));
    return 0;
}
