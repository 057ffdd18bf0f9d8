// A kernel that faults fails like a GPU's: cudaErrorIllegalAddress (or the error CUDA gives
// for that fault) from the next synchronising call and every call after it, the process
// lives, its own cleanup runs and it exits normally. argv[1] picks the fault.
#include <cuda_runtime.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures = 0;
#define EXPECT(name, got, want)                                                           \
    do {                                                                                  \
        cudaError_t g_ = (got);                                                           \
        printf("%s %s: %s\n", g_ == (want) ? "PASS" : "FAIL", name, cudaGetErrorName(g_)); \
        fflush(stdout);                                                                   \
        failures += g_ != (want);                                                         \
    } while (0)

__global__ void store_to(int *p)
{
    if (blockIdx.x == 3 && threadIdx.x == 5)
        *p = 42;
}

__global__ void store_every(int *p, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        p[i] = i;
}

__global__ void load_from(const int *p, int *out)
{
    out[threadIdx.x] = p[threadIdx.x * 1024];
}

static void cleanup(void)
{
    printf("cleanup ran\n");
    fflush(stdout);
}

static volatile sig_atomic_t got_usr1 = 0;
static void on_usr1(int sig)
{
    (void)sig;
    got_usr1 = 1;
}

int main(int argc, char **argv)
{
    const char *what = argc > 1 ? argv[1] : "dead";
    atexit(cleanup);
    signal(SIGUSR1, on_usr1);
    int *ok = NULL;
    EXPECT("malloc", cudaMalloc(&ok, 1024 * sizeof(int)), cudaSuccess);
    if (strcmp(what, "dead") == 0) {
        store_to<<<8, 32>>>((int *)0xdead00000000ull);
    } else if (strcmp(what, "null") == 0) {
        store_to<<<8, 32>>>(NULL);
    } else if (strcmp(what, "freed") == 0) {
        int *big = NULL;
        EXPECT("malloc big", cudaMalloc(&big, 64 << 20), cudaSuccess);
        EXPECT("free big", cudaFree(big), cudaSuccess);
        load_from<<<1, 64>>>(big, ok);   // one block: runs on the stream's own thread
    } else if (strcmp(what, "overrun") == 0) {
        // far past the end of a small allocation: past everything the arena mapped
        store_every<<<1, 1>>>(ok + (1ull << 40) / sizeof(int), 1);
    }
    EXPECT("launch returns", cudaGetLastError(), cudaSuccess);
    EXPECT("sync reports the fault", cudaDeviceSynchronize(), cudaErrorIllegalAddress);
    EXPECT("sticky: later sync", cudaDeviceSynchronize(), cudaErrorIllegalAddress);
    EXPECT("sticky: later malloc", cudaMalloc(&ok, 64), cudaErrorIllegalAddress);
    EXPECT("sticky: get last error", cudaGetLastError(), cudaErrorIllegalAddress);
    // the program's own signals still work
    raise(SIGUSR1);
    printf("%s program's own handler ran\n", got_usr1 ? "PASS" : "FAIL");
    failures += !got_usr1;
    printf("%s: %d failure(s)\n", failures ? "FAILED" : "ALL PASSED", failures);
    return failures != 0;
}
