/*
 * What the C benchmark programs (api_bench.c, launch_bench.c) share: CU()/HIP() end the
 * program naming the failed call (a benchmark of failing calls would measure error paths),
 * a monotonic clock in ns, and a whole file read into memory. Define BENCH_NAME, the
 * program's name for its error lines, before including this.
 */
#ifndef PYSHIM_BENCH_HARNESS_H
#define PYSHIM_BENCH_HARNESS_H

#include <cuda.h>
#include <hip/hip_runtime_api.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#ifndef BENCH_NAME
#error "define BENCH_NAME before including bench_harness.h"
#endif

#define CU(call) check_cu((call), #call)
#define HIP(call) check_hip((call), #call)

static void check_cu(CUresult r, const char *what)
{
    if (r != CUDA_SUCCESS) {
        fprintf(stderr, BENCH_NAME ": %s failed: CUresult %d\n", what, (int)r);
        exit(1);
    }
}

static void check_hip(hipError_t r, const char *what)
{
    if (r != hipSuccess) {
        fprintf(stderr, BENCH_NAME ": %s failed: %s\n", what, hipGetErrorName(r));
        exit(1);
    }
}

static double now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static char *read_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL) {
        fprintf(stderr, BENCH_NAME ": cannot open %s\n", path);
        exit(2);
    }
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *buf = calloc((size_t)n + 1, 1);
    if (buf == NULL || fread(buf, 1, (size_t)n, f) != (size_t)n) {
        fprintf(stderr, BENCH_NAME ": cannot read %s\n", path);
        exit(2);
    }
    fclose(f);
    return buf;
}

#endif
