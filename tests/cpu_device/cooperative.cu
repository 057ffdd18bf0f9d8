// Cooperative launches and grid-wide sync (issue #21), as programs write them:
// cooperative_groups' this_grid().sync() between phases that read what other blocks wrote,
// the grid sized by the occupancy calculator, launched by cudaLaunchCooperativeKernel,
// cudaLaunchKernelEx (cudaLaunchAttributeCooperative) or cuLaunchCooperativeKernel.
//   cooperative <mode> [blocks]   mode: runtime | ex | driver | too_large | fault |
//                                 not_cooperative
// Prints key=value lines and "PASS <mode>" when every check held.
#include <cooperative_groups.h>
#include <cuda.h>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace cg = cooperative_groups;

#define RT(call)                                                                         \
    do {                                                                                 \
        cudaError_t e_ = (call);                                                         \
        if (e_ != cudaSuccess) {                                                         \
            printf("FAIL %s: %s\n", #call, cudaGetErrorName(e_));                        \
            exit(1);                                                                     \
        }                                                                                \
    } while (0)

// Each round: every thread adds its right neighbour's value from the previous round
// (across block boundaries, wrapping around the grid): wrong without a grid-wide barrier.
// Two buffers, a grid.sync() between rounds; `rounds` grid syncs in all, plus a final one
// before thread 0 sums everything.
__global__ void rounds_kernel(int *a, int *b, int n, int rounds, long long *total)
{
    cg::grid_group grid = cg::this_grid();
    int i = (int)grid.thread_rank();
    int *src = a, *dst = b;
    for (int r = 0; r < rounds; r++) {
        if (i < n)
            dst[i] = src[i] + src[(i + 1) % n];
        grid.sync();
        int *t = src;
        src = dst;
        dst = t;
    }
    if (i == 0) {
        long long s = 0;
        for (int k = 0; k < n; k++)
            s += src[k];
        *total = s;
    }
}

// Block 0 dereferences `bad` (NULL) while the others wait in grid.sync(): the fault must
// end the launch, not leave them waiting.
__global__ void fault_kernel(int *bad, int *out)
{
    cg::grid_group grid = cg::this_grid();
    if (blockIdx.x == 0 && threadIdx.x == 0)
        *bad = 1;
    grid.sync();
    out[grid.thread_rank()] = 1;
}

static std::vector<int> reference(int n, int rounds)
{
    std::vector<int> v(n), w(n);
    for (int i = 0; i < n; i++)
        v[i] = i % 7 + 1;
    for (int r = 0; r < rounds; r++) {
        for (int i = 0; i < n; i++)
            w[i] = v[i] + v[(i + 1) % n];
        v.swap(w);
    }
    return v;
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "runtime";
    const int threads = 128, rounds = 6;
    int dev = 0, sms = 0, coop = 0, per_sm = 0;
    RT(cudaDeviceGetAttribute(&coop, cudaDevAttrCooperativeLaunch, dev));
    RT(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
    RT(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, rounds_kernel, threads, 0));
    int limit = per_sm * sms;
    printf("cooperative_attr=%d\nlimit=%d\n", coop, limit);
    bool too_large = strcmp(mode, "too_large") == 0;
    // argv[2]: fewer blocks than the limit
    int blocks = too_large ? limit + 1 : argc > 2 ? atoi(argv[2]) : limit;
    int n = blocks * threads;
    int *a, *b;
    long long *total;
    RT(cudaMalloc(&a, n * sizeof(int)));
    RT(cudaMalloc(&b, n * sizeof(int)));
    RT(cudaMalloc(&total, sizeof *total));
    std::vector<int> init(n);
    for (int i = 0; i < n; i++)
        init[i] = i % 7 + 1;
    RT(cudaMemcpy(a, init.data(), n * sizeof(int), cudaMemcpyHostToDevice));
    int rounds_arg = rounds;
    void *args[] = {&a, &b, &n, &rounds_arg, &total};
    cudaError_t err = cudaSuccess;
    if (strcmp(mode, "runtime") == 0 || too_large) {
        err = cudaLaunchCooperativeKernel((void *)rounds_kernel, blocks, threads, args, 0, 0);
    } else if (strcmp(mode, "ex") == 0) {
        cudaLaunchConfig_t cfg = {};
        cudaLaunchAttribute attr[1];
        attr[0].id = cudaLaunchAttributeCooperative;
        attr[0].val.cooperative = 1;
        cfg.gridDim = blocks;
        cfg.blockDim = threads;
        cfg.attrs = attr;
        cfg.numAttrs = 1;
        err = cudaLaunchKernelEx(&cfg, rounds_kernel, a, b, n, rounds_arg, total);
    } else if (strcmp(mode, "driver") == 0) {
        // the driver's entry point, as a program without -lcuda finds it
        cudaFunction_t f;
        RT(cudaGetFuncBySymbol(&f, (void *)rounds_kernel));
        typedef CUresult (*launch_fn)(CUfunction, unsigned, unsigned, unsigned, unsigned,
                                      unsigned, unsigned, unsigned, CUstream, void **);
        void *entry = nullptr;
        cudaDriverEntryPointQueryResult q;
        RT(cudaGetDriverEntryPoint("cuLaunchCooperativeKernel", &entry, cudaEnableDefault, &q));
        CUresult r = ((launch_fn)entry)((CUfunction)f, blocks, 1, 1, threads, 1, 1, 0, 0, args);
        err = r == CUDA_SUCCESS ? cudaSuccess : cudaErrorLaunchFailure;
        printf("driver_result=%d\n", (int)r);
    } else if (strcmp(mode, "fault") == 0) {
        int *bad = nullptr;
        void *fargs[] = {&bad, &a};
        err = cudaLaunchCooperativeKernel((void *)fault_kernel, blocks, threads, fargs, 0, 0);
        cudaError_t sync = cudaDeviceSynchronize();
        printf("fault_launch=%s\nfault_sync=%s\n", cudaGetErrorName(err), cudaGetErrorName(sync));
        printf("PASS %s\n", mode);
        return 0;
    } else if (strcmp(mode, "not_cooperative") == 0) {
        // grid.sync() in a plain launch: no workspace, the kernel traps (CUDA's behaviour)
        rounds_kernel<<<1, threads>>>(a, b, n, rounds, total);
        err = cudaGetLastError();
        cudaError_t sync = cudaDeviceSynchronize();
        printf("plain_launch=%s\nplain_sync=%s\n", cudaGetErrorName(err), cudaGetErrorName(sync));
        printf("PASS %s\n", mode);
        return 0;
    }
    printf("launch=%s\n", cudaGetErrorName(err));
    if (too_large) {
        printf("%s %s\n", err == cudaErrorCooperativeLaunchTooLarge ? "PASS" : "FAIL", mode);
        return 0;
    }
    RT(err);
    RT(cudaDeviceSynchronize());
    std::vector<int> got(n);
    long long sum = 0, want_sum = 0;
    std::vector<int> want = reference(n, rounds);
    // rounds is even: the result is back in `a`
    RT(cudaMemcpy(got.data(), a, n * sizeof(int), cudaMemcpyDeviceToHost));
    RT(cudaMemcpy(&sum, total, sizeof sum, cudaMemcpyDeviceToHost));
    int bad = 0;
    for (int i = 0; i < n; i++) {
        bad += got[i] != want[i];
        want_sum += want[i];
    }
    printf("blocks=%d\nwrong=%d\nsum_ok=%d\n", blocks, bad, sum == want_sum);
    printf("%s %s\n", bad == 0 && sum == want_sum && limit > 0 ? "PASS" : "FAIL", mode);
    return 0;
}
