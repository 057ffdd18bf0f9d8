/*
 * Per-call cost of a driver call, for `pyshim run --trace` overhead: calls
 * cuDriverGetVersion and cuCtxGetCurrent N times each (argv[1], default 200000) and prints
 * "<name> <ns per call>" lines. Run once bare and once with libpyshim_trace.so preloaded.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <cuda.h>

static double now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 200000;
    if (cuInit(0) != CUDA_SUCCESS) {
        printf("FAIL overhead: cuInit\n");
        return 1;
    }
    int version = 0;
    double t0 = now_ns();
    for (long i = 0; i < n; i++)
        if (cuDriverGetVersion(&version) != CUDA_SUCCESS)
            return 1;
    double t1 = now_ns();
    CUcontext ctx;
    for (long i = 0; i < n; i++)
        if (cuCtxGetCurrent(&ctx) != CUDA_SUCCESS)
            return 1;
    double t2 = now_ns();
    printf("cuDriverGetVersion %.1f\n", (t1 - t0) / (double)n);
    printf("cuCtxGetCurrent %.1f\n", (t2 - t1) / (double)n);
    printf("PASS overhead version=%d\n", version);
    return 0;
}
