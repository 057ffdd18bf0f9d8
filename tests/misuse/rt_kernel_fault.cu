// A kernel that faults fails like a GPU's: cudaErrorIllegalAddress (or the error CUDA gives
// for that fault) from the next synchronising call and every call after it, the process
// lives, its own cleanup runs and it exits normally. argv[1] picks the fault.
#include <cuda_runtime.h>
#include <setjmp.h>
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

__global__ void spin(volatile int *flag)
{
    while (*flag == 0) {
    }
}

__global__ void load_from(const int *p, int *out)
{
    out[threadIdx.x] = p[threadIdx.x * 1024];
}

static sigjmp_buf host_fault_env;
static void on_host_segv(int sig)
{
    siglongjmp(host_fault_env, sig);
}

/* The program's own SIGSEGV handler, installed before CUDA starts, still gets the faults
 * of host code after kernels ran (pyshim's handler takes only kernel code's). */
static int host_fault_case(int *dev)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_host_segv;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGSEGV, &sa, NULL);
    store_every<<<4, 32>>>(dev, 128);
    EXPECT("good kernel", cudaDeviceSynchronize(), cudaSuccess);
    volatile int got = 0;
    if (sigsetjmp(host_fault_env, 1) == 0) {
        *(volatile int *)0x10 = 1;   // host code faults on purpose
        printf("FAIL host fault did not fault\n");
        return 1;
    }
    got = 1;
    printf("%s program's SIGSEGV handler got the host fault\n", got ? "PASS" : "FAIL");
    EXPECT("device still fine", cudaDeviceSynchronize(), cudaSuccess);
    printf("%s: %d failure(s)\n", failures ? "FAILED" : "ALL PASSED", failures);
    return failures != 0;
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
    cudaError_t want = cudaErrorIllegalAddress;
    EXPECT("malloc", cudaMalloc(&ok, 1024 * sizeof(int)), cudaSuccess);
    if (strcmp(what, "hostfault") == 0)
        return host_fault_case(ok);
    if (strcmp(what, "dead") == 0) {
        store_to<<<8, 32>>>((int *)0xdead00000000ull);
    } else if (strcmp(what, "null") == 0) {
        store_to<<<8, 32>>>(NULL);
    } else if (strcmp(what, "freed") == 0) {
        int *big = NULL;
        EXPECT("malloc big", cudaMalloc(&big, 64 << 20), cudaSuccess);
        EXPECT("free big", cudaFree(big), cudaSuccess);
        load_from<<<1, 64>>>(big, ok);   // one block: runs on the stream's own thread
    } else if (strcmp(what, "spin1") == 0 || strcmp(what, "spin64") == 0) {
        // never ends: PYSHIM_KERNEL_TIMEOUT ends it with cudaErrorLaunchTimeout
        EXPECT("memset flag", cudaMemset(ok, 0, 4), cudaSuccess);
        spin<<<what[4] == '1' ? 1 : 64, 32>>>(ok);
        want = cudaErrorLaunchTimeout;
    } else if (strcmp(what, "overrun") == 0) {
        // far past the end of a small allocation: past everything the arena mapped
        store_every<<<1, 1>>>(ok + (1ull << 40) / sizeof(int), 1);
    }
    EXPECT("launch returns", cudaGetLastError(), cudaSuccess);
    EXPECT("sync reports the fault", cudaDeviceSynchronize(), want);
    EXPECT("sticky: later sync", cudaDeviceSynchronize(), want);
    EXPECT("sticky: later malloc", cudaMalloc(&ok, 64), want);
    EXPECT("sticky: get last error", cudaGetLastError(), want);
    // the program's own signals still work
    raise(SIGUSR1);
    printf("%s program's own handler ran\n", got_usr1 ? "PASS" : "FAIL");
    failures += !got_usr1;
    printf("%s: %d failure(s)\n", failures ? "FAILED" : "ALL PASSED", failures);
    return failures != 0;
}
