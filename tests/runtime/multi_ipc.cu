// CUDA IPC between two processes: the parent exports a small (slab) and a large allocation
// and an interprocess event, and starts itself again as the child, which opens them.
// Ordering is by the shared event only: the parent's fill kernel holds until the child has
// queued its work (a flag in pinned memory), the child's stream waits on the parent's record,
// and the parent waits on the child's record. Prints key=value lines for
// tests/test_cpu_device_multi.py.
#include <cuda_runtime.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../include/multi_common.h"

#define SMALL 1024
#define LARGE (1 << 20)

extern char **environ;

// one block: waits for the host's go, then fills
__global__ void gated_fill(volatile int *go, int *p, int n, int base)
{
    if (threadIdx.x == 0)
        while (*go == 0)
            ;
    __syncthreads();
    for (int i = threadIdx.x; i < n; i += blockDim.x)
        p[i] = base + i * 3;
}

__global__ void twice_plus_one(int *p, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        p[i] = p[i] * 2 + 1;
}

static void to_hex(const void *p, size_t n, char *out)
{
    for (size_t i = 0; i < n; i++)
        sprintf(out + 2 * i, "%02x", ((const unsigned char *)p)[i]);
}

static void from_hex(const char *s, void *p, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        unsigned v;
        sscanf(s + 2 * i, "%2x", &v);
        ((unsigned char *)p)[i] = (unsigned char)v;
    }
}

static int child(char **argv)
{
    int to_parent = atoi(argv[2]);
    cudaIpcMemHandle_t hs, hl;
    cudaIpcEventHandle_t he;
    from_hex(argv[3], &hs, sizeof hs);
    from_hex(argv[4], &hl, sizeof hl);
    from_hex(argv[5], &he, sizeof he);
    CK(cudaSetDevice(0));
    int *small, *large;
    cudaEvent_t ev;
    CK(cudaIpcOpenMemHandle((void **)&small, hs, cudaIpcMemLazyEnablePeerAccess));
    CK(cudaIpcOpenMemHandle((void **)&large, hl, cudaIpcMemLazyEnablePeerAccess));
    CK(cudaIpcOpenEventHandle(&ev, he));
    cudaPointerAttributes a;
    CK(cudaPointerGetAttributes(&a, large));
    printf("child.large_device=%d type=%d\n", a.device, (int)a.type);
    static int host[SMALL];
    CK(cudaMemcpy(host, small, sizeof host, cudaMemcpyDeviceToHost));
    printf("child.small_read=%lld\n", checksum(host, SMALL));
    fill<<<SMALL / 256, 256>>>(small, SMALL, 55555);
    CK(cudaDeviceSynchronize());
    cudaStream_t s;
    CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    CK(cudaStreamWaitEvent(s, ev, 0));   // the parent's gated fill
    twice_plus_one<<<LARGE / 256, 256, 0, s>>>(large, LARGE);
    CK(cudaEventRecord(ev, s));
    fflush(stdout);
    if (write(to_parent, "R", 1) != 1)
        return 1;
    CK(cudaStreamSynchronize(s));
    printf("child.close=%s\n", cudaGetErrorName(cudaIpcCloseMemHandle(large)));
    printf("child.close_again=%s\n", cudaGetErrorName(cudaIpcCloseMemHandle(large)));
    cudaGetLastError();
    CK(cudaIpcCloseMemHandle(small));
    CK(cudaEventDestroy(ev));
    CK(cudaStreamDestroy(s));
    printf("child.done=1\n");
    return 0;
}

int main(int argc, char **argv)
{
    if (argc == 6 && strcmp(argv[1], "child") == 0)
        return child(argv);
    int count = 0;
    CK(cudaGetDeviceCount(&count));
    int owner = count - 1;
    CK(cudaSetDevice(owner));
    int *small, *large;
    CK(cudaMalloc(&small, SMALL * sizeof(int)));
    CK(cudaMalloc(&large, LARGE * sizeof(int)));
    fill<<<SMALL / 256, 256>>>(small, SMALL, 7000);
    CK(cudaMemset(large, 0, LARGE * sizeof(int)));
    CK(cudaDeviceSynchronize());
    cudaIpcMemHandle_t hs, hl;
    CK(cudaIpcGetMemHandle(&hs, small));
    CK(cudaIpcGetMemHandle(&hl, large));
    // exporting kept the contents and the address
    static int host[SMALL];
    CK(cudaMemcpy(host, small, sizeof host, cudaMemcpyDeviceToHost));
    printf("parent.small_after_export=%lld\n", checksum(host, SMALL));
    void *self = NULL;
    printf("parent.open_own=%s\n", cudaGetErrorName(cudaIpcOpenMemHandle(&self, hl, 0)));
    cudaIpcMemHandle_t zero_mem;
    cudaIpcEventHandle_t zero_event;
    memset(&zero_mem, 0, sizeof zero_mem);
    memset(&zero_event, 0, sizeof zero_event);
    cudaEvent_t none;
    printf("parent.open_bad=%s,%s\n", cudaGetErrorName(cudaIpcOpenMemHandle(&self, zero_mem, 0)),
           cudaGetErrorName(cudaIpcOpenEventHandle(&none, zero_event)));
    cudaGetLastError();
    cudaEvent_t ev, plain;
    CK(cudaEventCreateWithFlags(&ev, cudaEventDisableTiming | cudaEventInterprocess));
    CK(cudaEventCreate(&plain));
    cudaIpcEventHandle_t he;
    CK(cudaIpcGetEventHandle(&he, ev));
    cudaIpcEventHandle_t bad;
    printf("parent.plain_event_handle=%s\n", cudaGetErrorName(cudaIpcGetEventHandle(&bad, plain)));
    cudaGetLastError();
    int *go;
    CK(cudaHostAlloc(&go, sizeof(int), cudaHostAllocMapped));
    *go = 0;
    cudaStream_t s;
    CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    gated_fill<<<1, 256, 0, s>>>(go, large, LARGE, 1000);
    CK(cudaEventRecord(ev, s));

    int fds[2];
    if (pipe(fds) != 0)
        return 1;
    char arg_fd[16], xs[2 * sizeof hs + 1], xl[2 * sizeof hl + 1], xe[2 * sizeof he + 1];
    snprintf(arg_fd, sizeof arg_fd, "%d", fds[1]);
    to_hex(&hs, sizeof hs, xs);
    to_hex(&hl, sizeof hl, xl);
    to_hex(&he, sizeof he, xe);
    char *args[] = {argv[0], (char *)"child", arg_fd, xs, xl, xe, NULL};
    fflush(stdout);
    pid_t pid;
    if (posix_spawn(&pid, "/proc/self/exe", NULL, NULL, args, environ) != 0)
        return 1;
    close(fds[1]);
    char c = 0;
    ssize_t got = read(fds[0], &c, 1);
    printf("parent.child_queued=%d\n", got == 1 && c == 'R');
    // the child's wait holds its work until this fill ran
    __atomic_store_n(go, 1, __ATOMIC_RELEASE);
    CK(cudaEventSynchronize(ev));   // the latest record is now the child's
    static int big[LARGE];
    CK(cudaMemcpy(big, large, sizeof big, cudaMemcpyDeviceToHost));
    printf("parent.large=%lld\n", checksum(big, LARGE));
    int status = -1;
    waitpid(pid, &status, 0);
    printf("parent.child_exit=%d\n", WIFEXITED(status) ? WEXITSTATUS(status) : -1);
    CK(cudaMemcpy(host, small, sizeof host, cudaMemcpyDeviceToHost));
    printf("parent.small=%lld\n", checksum(host, SMALL));
    CK(cudaFree(large));
    CK(cudaFree(small));
    // a fresh allocation where the exported large one was is ordinary memory again
    CK(cudaMalloc(&large, LARGE * sizeof(int)));
    CK(cudaMemset(large, 0, LARGE * sizeof(int)));
    CK(cudaMemcpy(big, large, sizeof big, cudaMemcpyDeviceToHost));
    printf("parent.fresh=%lld\n", checksum(big, LARGE));
    CK(cudaFree(large));
    CK(cudaEventDestroy(ev));
    printf("parent.done=1\n");
    return 0;
}
