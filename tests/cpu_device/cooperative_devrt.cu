// Grid-wide sync through the device runtime library rather than cooperative_groups' inline
// code: cudaCGGetIntrinsicHandle / cudaCGSynchronize (cuda_device_runtime_api.h), built with
// -rdc=true -lcudadevrt, as numba-cuda's this_grid().sync() is. libcudadevrt's PTX ends in
// calls to __cuda_syscall_CGS_get_intrinsic_handle and __cuda_syscall_CGS_sync, which the
// driver supplies. Each round reads what other blocks wrote the round before.
//   cooperative_devrt [blocks [plain]]   plain: a <<<>>> launch, which has no grid workspace
// Prints key=value lines and "PASS" when every check held.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cuda_runtime.h>

__global__ void rounds_kernel(long long *a, long long *b, int rounds, int *errors)
{
    unsigned long long grid = cudaCGGetIntrinsicHandle(cudaCGScopeGrid);
    int n = gridDim.x * blockDim.x, i = blockIdx.x * blockDim.x + threadIdx.x;
    for (int r = 0; r < rounds; r++) {
        b[i] = a[i] + a[(i + 1) % n];
        if (cudaCGSynchronize(grid, 0) != cudaSuccess)
            atomicAdd(errors, 1);
        a[i] = b[i];
        if (cudaCGSynchronize(grid, 0) != cudaSuccess)
            atomicAdd(errors, 1);
    }
}

int main(int argc, char **argv)
{
    const int blocks = argc > 1 ? atoi(argv[1]) : 4, threads = 64, rounds = 6;
    const int n = blocks * threads;
    long long *host = (long long *)malloc(n * sizeof *host);
    long long *want = (long long *)malloc(n * sizeof *want);
    long long *next = (long long *)malloc(n * sizeof *next);
    for (int i = 0; i < n; i++)
        host[i] = want[i] = i;
    for (int r = 0; r < rounds; r++) {
        for (int i = 0; i < n; i++)
            next[i] = want[i] + want[(i + 1) % n];
        for (int i = 0; i < n; i++)
            want[i] = next[i];
    }
    long long *a, *b;
    int *errors, nerrors = -1;
    cudaMalloc(&a, n * sizeof *a);
    cudaMalloc(&b, n * sizeof *b);
    cudaMalloc(&errors, sizeof *errors);
    cudaMemcpy(a, host, n * sizeof *a, cudaMemcpyHostToDevice);
    cudaMemset(errors, 0, sizeof *errors);
    int r = rounds;
    void *args[] = {&a, &b, &r, &errors};
    if (argc > 2 && strcmp(argv[2], "plain") == 0) {
        rounds_kernel<<<blocks, threads>>>(a, b, rounds, errors);
        cudaError_t launch = cudaGetLastError(), sync = cudaDeviceSynchronize();
        printf("plain_launch=%s\nplain_sync=%s\nPASS plain\n", cudaGetErrorName(launch),
               cudaGetErrorName(sync));
        return 0;
    }
    cudaError_t launch = cudaLaunchCooperativeKernel((void *)rounds_kernel, blocks, threads, args,
                                                     0, 0);
    cudaError_t sync = cudaDeviceSynchronize();
    cudaMemcpy(host, a, n * sizeof *a, cudaMemcpyDeviceToHost);
    cudaMemcpy(&nerrors, errors, sizeof nerrors, cudaMemcpyDeviceToHost);
    int wrong = 0;
    for (int i = 0; i < n; i++)
        wrong += host[i] != want[i];
    printf("launch=%s\nsync=%s\nsync_errors=%d\nwrong=%d\n", cudaGetErrorName(launch),
           cudaGetErrorName(sync), nerrors, wrong);
    int ok = launch == cudaSuccess && sync == cudaSuccess && nerrors == 0 && wrong == 0;
    printf("%s\n", ok ? "PASS" : "FAIL");
    return ok ? 0 : 1;
}
