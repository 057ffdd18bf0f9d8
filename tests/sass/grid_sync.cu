// Grid-wide synchronisation as SASS-only builds carry it (issue #20): cooperative_groups'
// this_grid().sync() (the workspace pointer from the launch's environment registers, the
// arrive counter's STRONG.GPU spin loop, CGAERRBAR and WARPSYNC.COLLECTIVE on sm_90) and a
// hand-written chain of volatile flags between the blocks of one cooperative launch
// (LD/ST.E.STRONG.SYS: each block waits for the one before it).
//   grid_sync            prints "rounds <total> <a[0]> <a[n/2]> <a[n-1]>" and
//                        "chain <v[0]> ... <v[blocks-1]>"; the test recomputes both.
#include <cooperative_groups.h>
#include <cstdio>

namespace cg = cooperative_groups;

constexpr int kBlocks = 8, kThreads = 64, kRounds = 5;

__global__ void rounds(unsigned *a, unsigned *b, int n, unsigned long long *total)
{
    cg::grid_group grid = cg::this_grid();
    int i = (int)grid.thread_rank();
    unsigned *src = a, *dst = b;
    for (int r = 0; r < kRounds; r++) {
        // reads a neighbour another block wrote the round before
        dst[i] = src[i] * 3u + src[(i + 97) % n] + (unsigned)r;
        grid.sync();
        unsigned *t = src;
        src = dst;
        dst = t;
    }
    if (i == 0) {
        unsigned long long s = 0;
        for (int k = 0; k < n; k++)
            s += src[k];
        *total = s;
    }
}

// block b spins until block b-1 has published its value: only correct if each read of the
// flag goes to memory (and all blocks run at once, which a cooperative launch promises)
__global__ void chain(volatile int *flags, volatile unsigned *values)
{
    int b = blockIdx.x;
    if (threadIdx.x != 0)
        return;
    unsigned prev = 1;
    if (b > 0) {
        while (flags[b - 1] == 0) {
        }
        __threadfence();
        prev = values[b - 1];
    }
    values[b] = prev * 7u + (unsigned)b;
    __threadfence();
    flags[b] = 1;
}

int main()
{
    const int n = kBlocks * kThreads;
    static unsigned a[n];
    for (int i = 0; i < n; i++)
        a[i] = (unsigned)(i * 37 % 11 + 1);
    unsigned *da, *db, *dv;
    int *df;
    unsigned long long *dt, total = 0;
    cudaMalloc(&da, sizeof a);
    cudaMalloc(&db, sizeof a);
    cudaMalloc(&dt, sizeof total);
    cudaMalloc(&df, kBlocks * sizeof(int));
    cudaMalloc(&dv, kBlocks * sizeof(unsigned));
    cudaMemcpy(da, a, sizeof a, cudaMemcpyHostToDevice);
    cudaMemset(df, 0, kBlocks * sizeof(int));
    int nn = n;
    void *args[] = {&da, &db, &nn, &dt};
    cudaError_t e = cudaLaunchCooperativeKernel((void *)rounds, kBlocks, kThreads, args, 0, 0);
    if (e != cudaSuccess || cudaDeviceSynchronize() != cudaSuccess) {
        printf("FAIL rounds: %s\n", cudaGetErrorName(e));
        return 1;
    }
    // kRounds is odd: the last round wrote b
    cudaMemcpy(a, kRounds % 2 ? db : da, sizeof a, cudaMemcpyDeviceToHost);
    cudaMemcpy(&total, dt, sizeof total, cudaMemcpyDeviceToHost);
    printf("rounds %llu %u %u %u\n", total, a[0], a[n / 2], a[n - 1]);
    void *cargs[] = {&df, &dv};
    e = cudaLaunchCooperativeKernel((void *)chain, kBlocks, kThreads, cargs, 0, 0);
    if (e != cudaSuccess || cudaDeviceSynchronize() != cudaSuccess) {
        printf("FAIL chain: %s\n", cudaGetErrorName(e));
        return 1;
    }
    unsigned v[kBlocks];
    cudaMemcpy(v, dv, sizeof v, cudaMemcpyDeviceToHost);
    printf("chain");
    for (int k = 0; k < kBlocks; k++)
        printf(" %u", v[k]);
    printf("\n");
    return 0;
}
