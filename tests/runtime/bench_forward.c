/*
 * Cost of a forwarded runtime call: cudaGetDevice / cudaStreamQuery through pyshim's
 * libcudart (thunk -> HIP) against the same HIP function called directly. Prints
 * "<name> <ns through libcudart> <ns direct>" per pair, the median of several rounds.
 * Link: -L build/lib -l:libcudart.so.13 -L build/cpu -l:libamdhip64.so.7
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

/* declared by hand: the CUDA and HIP headers cannot share a translation unit */
int cudaGetDevice(int *device);
int hipGetDevice(int *device);
int cudaStreamQuery(void *stream);
int hipStreamQuery(void *stream);
int cudaStreamCreate(void **stream);

#define CALLS 2000000
#define ROUNDS 7

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e9 + t.tv_nsec;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

typedef int (*fn_int)(int *);
typedef int (*fn_stream)(void *);

static double time_int(fn_int f)
{
    double r[ROUNDS];
    int dev = 0;
    for (int k = 0; k < ROUNDS; k++) {
        double t0 = now();
        for (int i = 0; i < CALLS; i++)
            f(&dev);
        r[k] = (now() - t0) / CALLS;
    }
    qsort(r, ROUNDS, sizeof r[0], cmp);
    return r[ROUNDS / 2];
}

static double time_stream(fn_stream f, void *s)
{
    double r[ROUNDS];
    for (int k = 0; k < ROUNDS; k++) {
        double t0 = now();
        for (int i = 0; i < CALLS; i++)
            f(s);
        r[k] = (now() - t0) / CALLS;
    }
    qsort(r, ROUNDS, sizeof r[0], cmp);
    return r[ROUNDS / 2];
}

int main(void)
{
    /* through volatile pointers so the compiler cannot hoist or merge the calls */
    fn_int volatile cuda_dev = cudaGetDevice, hip_dev = hipGetDevice;
    fn_stream volatile cuda_q = cudaStreamQuery, hip_q = hipStreamQuery;
    void *s = NULL;
    if (cudaStreamCreate(&s) != 0) {
        printf("FAIL cudaStreamCreate\n");
        return 1;
    }
    time_int(cuda_dev); /* warm up */
    printf("cudaGetDevice %.2f %.2f\n", time_int(cuda_dev), time_int(hip_dev));
    printf("cudaStreamQuery %.2f %.2f\n", time_stream(cuda_q, s), time_stream(hip_q, s));
    return 0;
}
