// Dynamic parallelism (CDP2): kernels launching kernels with <<<>>> from device code, built
// with -rdc=true -lcudadevrt. Every result is checked against what the host computes from
// the same inputs:
//   quicksort  a recursive quicksort, each half a child grid in a device-created stream,
//              down to a selection sort (nesting well past 3 levels)
//   tree       a binary tree of grids 3 levels deep, each node's block computing from
//              what its parent grid wrote before launching it
//   scale      every block reduces its segment, then launches a child that scales it by a
//              factor the parent computed (odd blocks fire-and-forget); a tail launch
//              (cudaStreamTailLaunch) sums the result after all of them: it cudaMalloc's
//              scratch on the device, launches per-segment sums into it, and its own tail
//              launch adds them up and cudaFree's it
//   events     a producer and a consumer in two device streams, ordered by an event
//              (cudaEventRecord / cudaStreamWaitEvent in device code)
//   errors     a launch of 2048 threads: cudaErrorInvalidConfiguration from
//              cudaPeekAtLastError and cudaGetLastError (which resets it), per thread;
//              cudaGetDevice; cudaStreamCreateWithFlags without cudaStreamNonBlocking
//   copies     device cudaMemsetAsync / cudaMemcpyAsync (libcudadevrt's own kernels,
//              launched the same way) and a device printf
//   depth      unbounded recursion: the launch at the nesting limit fails with
//              cudaErrorLaunchMaxDepthExceeded and the program goes on
// (`graph`: the tree captured into a graph and replayed; `fault`: a child that faults.)
// Everything runs on one host stream; the results are copied back on it (stream order
// covers the whole tree of grids). Prints key=value lines and PASS/FAIL per check.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>
#include <algorithm>
#include <cuda_runtime.h>

#include "../include/runtime_check.h"

// ---------------------------------------------------------------- quicksort

#define QS_MAX_DEPTH 12
#define QS_SMALL 24

__device__ void selection_sort(unsigned *data, int left, int right)
{
    for (int i = left; i <= right; i++) {
        int min_at = i;
        for (int j = i + 1; j <= right; j++)
            if (data[j] < data[min_at])
                min_at = j;
        unsigned t = data[i];
        data[i] = data[min_at];
        data[min_at] = t;
    }
}

__global__ void quicksort(unsigned *data, int left, int right, int depth, int *deepest,
                          int *launch_errors)
{
    atomicMax(deepest, depth);
    if (depth >= QS_MAX_DEPTH || right - left <= QS_SMALL) {
        selection_sort(data, left, right);
        return;
    }
    unsigned pivot = data[(left + right) / 2];
    int lp = left, rp = right;
    while (lp <= rp) {
        while (data[lp] < pivot)
            lp++;
        while (data[rp] > pivot)
            rp--;
        if (lp <= rp) {
            unsigned t = data[lp];
            data[lp++] = data[rp];
            data[rp--] = t;
        }
    }
    if (left < rp) {
        cudaStream_t s;
        cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
        quicksort<<<1, 1, 0, s>>>(data, left, rp, depth + 1, deepest, launch_errors);
        if (cudaGetLastError() != cudaSuccess)
            atomicAdd(launch_errors, 1);
        cudaStreamDestroy(s);
    }
    if (lp < right) {
        cudaStream_t s;
        cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
        quicksort<<<1, 1, 0, s>>>(data, lp, right, depth + 1, deepest, launch_errors);
        if (cudaGetLastError() != cudaSuccess)
            atomicAdd(launch_errors, 1);
        cudaStreamDestroy(s);
    }
}

// ---------------------------------------------------------------- tree

#define TREE_WIDTH 64
#define TREE_DEPTH 3

__host__ __device__ int tree_value(int from_parent, int node, int t)
{
    return from_parent * 3 + node * 7 + (t ^ node);
}

__global__ void tree_node(int *vals, int node, int depth)
{
    int t = threadIdx.x;
    int from_parent = node == 0 ? t : vals[((node - 1) / 2) * TREE_WIDTH + t];
    vals[node * TREE_WIDTH + t] = tree_value(from_parent, node, t);
    __syncthreads();  // the whole block's values are written before the children launch
    if (t == 0 && depth < TREE_DEPTH) {
        tree_node<<<1, TREE_WIDTH>>>(vals, 2 * node + 1, depth + 1);
        tree_node<<<1, TREE_WIDTH>>>(vals, 2 * node + 2, depth + 1);
    }
}

// ---------------------------------------------------------------- scale + tail launch

#define SEG 512
#define SEG_THREADS 128

__host__ __device__ int scale_factor(long long segment_sum)
{
    return (int)(segment_sum % 5) + 2;
}

__global__ void scale_segment(int *data, int seg, const int *factor)
{
    int i = seg * SEG + blockIdx.x * blockDim.x + threadIdx.x;
    data[i] *= factor[seg];
}

__global__ void segment_sums(const int *data, long long *sums)
{
    long long s = 0;
    for (int i = 0; i < SEG; i++)
        s += data[blockIdx.x * SEG + i];
    sums[blockIdx.x] = s;
}

__global__ void finish_total(long long *sums, int segments, long long *total)
{
    long long s = 0;
    for (int i = 0; i < segments; i++)
        s += sums[i];
    *total = s;
    cudaFree(sums);
}

// a tail launch of scale_parent: runs after the parent grid and every child it launched
__global__ void total_tail(const int *data, int segments, long long *total, int *status)
{
    long long *sums = NULL;
    status[0] = cudaMalloc((void **)&sums, segments * sizeof(long long));
    if (sums == NULL)
        return;
    segment_sums<<<segments, 1>>>(data, sums);
    status[1] = cudaGetLastError();
    finish_total<<<1, 1, 0, cudaStreamTailLaunch>>>(sums, segments, total);
    status[2] = cudaGetLastError();
}

__global__ void scale_parent(int *data, int *factor, long long *total, int *status)
{
    __shared__ long long partial[SEG_THREADS];
    long long s = 0;
    for (int i = threadIdx.x; i < SEG; i += blockDim.x)
        s += data[blockIdx.x * SEG + i];
    partial[threadIdx.x] = s;
    __syncthreads();
    for (int w = blockDim.x / 2; w > 0; w /= 2) {
        if (threadIdx.x < w)
            partial[threadIdx.x] += partial[threadIdx.x + w];
        __syncthreads();
    }
    if (threadIdx.x == 0) {
        factor[blockIdx.x] = scale_factor(partial[0]);
        cudaStream_t s = (blockIdx.x & 1) ? cudaStreamFireAndForget : 0;
        scale_segment<<<SEG / 64, 64, 0, s>>>(data, blockIdx.x, factor);
        if (cudaGetLastError() != cudaSuccess)
            atomicAdd(&status[3], 1);
        if (blockIdx.x == 0) {
            total_tail<<<1, 1, 0, cudaStreamTailLaunch>>>(data, gridDim.x, total, status);
            if (cudaGetLastError() != cudaSuccess)
                atomicAdd(&status[3], 1);
        }
    }
}

// ---------------------------------------------------------------- events

__global__ void produce(int *buf, int v)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    buf[i] = v * i + 1;
}

__global__ void consume(const int *buf, int *out)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    out[i] = buf[i] * 2 - i;
}

__global__ void events_parent(int *buf, int *out, int n, int v, int *status)
{
    if (threadIdx.x != 0)
        return;
    cudaStream_t s1, s2;
    cudaEvent_t e;
    status[0] = cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking);
    status[1] = cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking);
    status[2] = cudaEventCreateWithFlags(&e, cudaEventDisableTiming);
    produce<<<n / 64, 64, 0, s1>>>(buf, v);
    status[3] = cudaEventRecord(e, s1);
    status[4] = cudaStreamWaitEvent(s2, e, 0);
    consume<<<n / 64, 64, 0, s2>>>(buf, out);
    status[5] = cudaGetLastError();
    status[6] = cudaEventDestroy(e);
    status[7] = cudaStreamDestroy(s1) | cudaStreamDestroy(s2);
}

// ---------------------------------------------------------------- device-side copies

// libcudadevrt runs these as kernels of its own, launched through the same device runtime.
// Its tables of those kernels hold their addresses, which makes the module load eagerly;
// -DNO_DEVICE_COPIES leaves them out (the status then says cudaSuccess, the copy is the
// host's), and the module, with its more than 32 kernels, loads lazily.
__global__ void copies_parent(const int *src, int *dst, int *zero, int n, int *status)
{
    if (threadIdx.x == 0) {
#ifndef NO_DEVICE_COPIES
        status[0] = cudaMemsetAsync(zero, 0, n * sizeof(int), 0);
        status[1] = cudaMemcpyAsync(dst, src, n * sizeof(int), cudaMemcpyDeviceToDevice, 0);
#else
        for (int i = 0; i < n; i++) {
            zero[i] = 0;
            dst[i] = src[i];
        }
        status[0] = status[1] = cudaSuccess;
#endif
        printf("device_printf=%d\n", n * 3);
    }
}

// ---------------------------------------------------------------- errors, depth

__global__ void noop(int *flag)
{
    if (flag != NULL)
        *flag += 1;
}

__global__ void errors_kernel(int *out, int *flag)
{
    if (threadIdx.x == 0) {
        noop<<<1, 2048>>>(flag);  // more threads than a block may have
        out[0] = cudaPeekAtLastError();
        out[1] = cudaGetLastError();
        out[2] = cudaGetLastError();  // reset by the one before
        noop<<<1, 1>>>(flag);
        out[3] = cudaGetLastError();
        int dev = -1;
        out[4] = cudaGetDevice(&dev);
        out[5] = dev;
        cudaStream_t s;
        out[6] = cudaStreamCreateWithFlags(&s, cudaStreamDefault);
        out[7] = cudaGetLastError();
        int count = -1;
        out[9] = cudaGetDeviceCount(&count);
        out[10] = count;
    }
    __syncthreads();
    if (threadIdx.x == 1)
        out[8] = cudaGetLastError();  // thread 0's errors are thread 0's
}

__global__ void dive(int depth, int *deepest, int *err, int *err_depth)
{
    atomicMax(deepest, depth);
    dive<<<1, 1>>>(depth + 1, deepest, err, err_depth);
    cudaError_t e = cudaGetLastError();
    if (e != cudaSuccess) {
        *err = e;
        *err_depth = depth;
    }
}

// a child that faults, launched by a grid whose own work is fine
__global__ void bad_child(int *p)
{
    p[threadIdx.x] = 1;
}

__global__ void faulting_parent(int *ok)
{
    ok[threadIdx.x] = 1;
    if (threadIdx.x == 0)
        bad_child<<<1, 32>>>((int *)16);
}

// ---------------------------------------------------------------- host

static unsigned lcg(unsigned &state)
{
    state = state * 1664525u + 1013904223u;
    return state >> 8;
}

static const char *err_name(int e)
{
    return cudaGetErrorName((cudaError_t)e);
}

// rt_dynamic_parallelism fault: a child's fault is the host's launch error (sticky)
static int fault_mode(void)
{
    int *ok;
    OK("cudaMalloc", cudaMalloc(&ok, 32 * sizeof(int)));
    faulting_parent<<<1, 32>>>(ok);
    printf("fault_launch=%s\n", cudaGetErrorName(cudaGetLastError()));
    printf("fault_sync=%s\n", cudaGetErrorName(cudaDeviceSynchronize()));
    return 0;
}

// rt_dynamic_parallelism graph: the tree of grids captured into a graph (after a memset
// that wipes it) and replayed: each replay runs the whole tree again
static int graph_mode(void)
{
    const int nodes = (1 << (TREE_DEPTH + 1)) - 1, size = nodes * TREE_WIDTH * sizeof(int);
    int *d_tree;
    cudaStream_t s;
    cudaGraph_t graph;
    cudaGraphExec_t exec;
    OK("cudaMalloc", cudaMalloc(&d_tree, size));
    OK("cudaStreamCreate", cudaStreamCreate(&s));
    OK("begin capture", cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
    cudaMemsetAsync(d_tree, 0xff, size, s);
    tree_node<<<1, TREE_WIDTH, 0, s>>>(d_tree, 0, 0);
    OK("end capture", cudaStreamEndCapture(s, &graph));
    OK("instantiate", cudaGraphInstantiate(&exec, graph, 0));
    std::vector<int> want(nodes * TREE_WIDTH), got(nodes * TREE_WIDTH);
    for (int node = 0; node < nodes; node++)
        for (int t = 0; t < TREE_WIDTH; t++)
            want[node * TREE_WIDTH + t] = tree_value(
                node == 0 ? t : want[((node - 1) / 2) * TREE_WIDTH + t], node, t);
    int replays_right = 0;
    for (int r = 0; r < 3; r++) {
        cudaMemset(d_tree, 0, size);
        OK("graph launch", cudaGraphLaunch(exec, s));
        cudaMemcpyAsync(got.data(), d_tree, size, cudaMemcpyDeviceToHost, s);
        OK("sync", cudaStreamSynchronize(s));
        replays_right += got == want;
    }
    printf("graph_replays_right=%d\n", replays_right);
    CHECK("graph replays the tree", replays_right == 3);
    printf(failures ? "FAILED %d\n" : "ALL PASSED\n", failures);
    return failures ? 1 : 0;
}

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "fault") == 0)
        return fault_mode();
    if (argc > 1 && strcmp(argv[1], "graph") == 0)
        return graph_mode();
    const int sort_n = argc > 1 ? atoi(argv[1]) : 3000;
    const int segments = 6;
    if (argc > 2)  // the device to run on
        OK("cudaSetDevice", cudaSetDevice(atoi(argv[2])));
    cudaStream_t stream;
    OK("cudaStreamCreate", cudaStreamCreate(&stream));
    int host_dev = -1, host_count = -1;
    OK("cudaGetDevice", cudaGetDevice(&host_dev));
    OK("cudaGetDeviceCount", cudaGetDeviceCount(&host_count));

    // quicksort
    std::vector<unsigned> keys(sort_n);
    unsigned seed = 12345u;
    for (int i = 0; i < sort_n; i++)
        keys[i] = lcg(seed) % 100000u;
    unsigned *d_keys;
    int *d_qs;  // deepest, launch errors
    OK("cudaMalloc keys", cudaMalloc(&d_keys, sort_n * sizeof(unsigned)));
    OK("cudaMalloc qs", cudaMalloc(&d_qs, 2 * sizeof(int)));
    cudaMemsetAsync(d_qs, 0, 2 * sizeof(int), stream);
    cudaMemcpyAsync(d_keys, keys.data(), sort_n * sizeof(unsigned), cudaMemcpyHostToDevice, stream);
    quicksort<<<1, 1, 0, stream>>>(d_keys, 0, sort_n - 1, 0, d_qs, d_qs + 1);
    OK("quicksort launch", cudaGetLastError());

    // tree
    const int nodes = (1 << (TREE_DEPTH + 1)) - 1;
    int *d_tree;
    OK("cudaMalloc tree", cudaMalloc(&d_tree, nodes * TREE_WIDTH * sizeof(int)));
    cudaMemsetAsync(d_tree, 0xff, nodes * TREE_WIDTH * sizeof(int), stream);
    tree_node<<<1, TREE_WIDTH, 0, stream>>>(d_tree, 0, 0);

    // scale
    const int n = segments * SEG;
    std::vector<int> data(n);
    for (int i = 0; i < n; i++)
        data[i] = (int)(lcg(seed) % 1000u) - 300;
    int *d_data, *d_factor, *d_status;
    long long *d_total;
    OK("cudaMalloc data", cudaMalloc(&d_data, n * sizeof(int)));
    OK("cudaMalloc factor", cudaMalloc(&d_factor, segments * sizeof(int)));
    OK("cudaMalloc total", cudaMalloc(&d_total, sizeof(long long)));
    OK("cudaMalloc status", cudaMalloc(&d_status, 32 * sizeof(int)));
    cudaMemsetAsync(d_status, 0x7f, 32 * sizeof(int), stream);
    cudaMemsetAsync(d_status + 3, 0, sizeof(int), stream);
    cudaMemsetAsync(d_total, 0, sizeof(long long), stream);
    cudaMemcpyAsync(d_data, data.data(), n * sizeof(int), cudaMemcpyHostToDevice, stream);
    scale_parent<<<segments, SEG_THREADS, 0, stream>>>(d_data, d_factor, d_total, d_status);

    // events
    const int en = 256, ev = 7;
    int *d_buf, *d_out;
    OK("cudaMalloc buf", cudaMalloc(&d_buf, en * sizeof(int)));
    OK("cudaMalloc out", cudaMalloc(&d_out, en * sizeof(int)));
    events_parent<<<1, 32, 0, stream>>>(d_buf, d_out, en, ev, d_status + 8);

    // device-side copies
    const int cn = 300;
    std::vector<int> csrc(cn);
    for (int i = 0; i < cn; i++)
        csrc[i] = (int)lcg(seed);
    int *d_csrc, *d_cdst, *d_czero, *d_cstatus;
    OK("cudaMalloc copies", cudaMalloc(&d_csrc, 3 * cn * sizeof(int) + 2 * sizeof(int)));
    d_cdst = d_csrc + cn;
    d_czero = d_csrc + 2 * cn;
    d_cstatus = d_csrc + 3 * cn;
    cudaMemcpyAsync(d_csrc, csrc.data(), cn * sizeof(int), cudaMemcpyHostToDevice, stream);
    cudaMemsetAsync(d_cdst, 0x55, 2 * cn * sizeof(int) + 2 * sizeof(int), stream);
    copies_parent<<<1, 32, 0, stream>>>(d_csrc, d_cdst, d_czero, cn, d_cstatus);

    // errors, depth
    int *d_flag;
    OK("cudaMalloc flag", cudaMalloc(&d_flag, 4 * sizeof(int)));
    cudaMemsetAsync(d_flag, 0, 4 * sizeof(int), stream);
    errors_kernel<<<1, 32, 0, stream>>>(d_status + 16, d_flag);
    dive<<<1, 1, 0, stream>>>(0, d_flag + 1, d_flag + 2, d_flag + 3);

    // the results, in stream order after every grid of every tree
    std::vector<unsigned> sorted(sort_n);
    std::vector<int> tree(nodes * TREE_WIDTH), scaled(n), factor(segments), out(en);
    std::vector<int> copies(2 * cn + 2);
    int qs[2], status[32], flag[4];
    long long total = 0;
    cudaMemcpyAsync(sorted.data(), d_keys, sort_n * sizeof(unsigned), cudaMemcpyDeviceToHost, stream);
    cudaMemcpyAsync(qs, d_qs, sizeof qs, cudaMemcpyDeviceToHost, stream);
    cudaMemcpyAsync(tree.data(), d_tree, tree.size() * sizeof(int), cudaMemcpyDeviceToHost, stream);
    cudaMemcpyAsync(scaled.data(), d_data, n * sizeof(int), cudaMemcpyDeviceToHost, stream);
    cudaMemcpyAsync(factor.data(), d_factor, segments * sizeof(int), cudaMemcpyDeviceToHost, stream);
    cudaMemcpyAsync(&total, d_total, sizeof total, cudaMemcpyDeviceToHost, stream);
    cudaMemcpyAsync(out.data(), d_out, en * sizeof(int), cudaMemcpyDeviceToHost, stream);
    cudaMemcpyAsync(status, d_status, sizeof status, cudaMemcpyDeviceToHost, stream);
    cudaMemcpyAsync(flag, d_flag, sizeof flag, cudaMemcpyDeviceToHost, stream);
    cudaMemcpyAsync(copies.data(), d_cdst, copies.size() * sizeof(int), cudaMemcpyDeviceToHost,
                    stream);
    OK("cudaStreamSynchronize", cudaStreamSynchronize(stream));

    // quicksort: the host's sort of the same keys
    std::vector<unsigned> want_sorted = keys;
    std::sort(want_sorted.begin(), want_sorted.end());
    printf("sort_n=%d\nsort_deepest=%d\nsort_launch_errors=%d\n", sort_n, qs[0], qs[1]);
    CHECK("quicksort sorted", sorted == want_sorted);
    // a few keys sort without children; a thousand need several levels of them
    CHECK("quicksort nested", qs[1] == 0 && (sort_n < 1000 || qs[0] >= 3) &&
          (sort_n > QS_SMALL + 1 || qs[0] == 0));

    // tree: the same recurrence on the host, from the host's own parent values
    std::vector<int> want_tree(nodes * TREE_WIDTH);
    int tree_wrong = 0;
    for (int node = 0; node < nodes; node++)
        for (int t = 0; t < TREE_WIDTH; t++) {
            int from_parent = node == 0 ? t : want_tree[((node - 1) / 2) * TREE_WIDTH + t];
            want_tree[node * TREE_WIDTH + t] = tree_value(from_parent, node, t);
            tree_wrong += tree[node * TREE_WIDTH + t] != want_tree[node * TREE_WIDTH + t];
        }
    printf("tree_nodes=%d\ntree_wrong=%d\n", nodes, tree_wrong);
    CHECK("tree of grids", tree_wrong == 0);

    // scale: segment sums, factors, scaled data and the tail launch's total
    long long want_total = 0;
    int scale_wrong = 0, factor_wrong = 0;
    for (int s = 0; s < segments; s++) {
        long long sum = 0;
        for (int i = 0; i < SEG; i++)
            sum += data[s * SEG + i];
        int f = scale_factor(sum);
        factor_wrong += factor[s] != f;
        for (int i = 0; i < SEG; i++) {
            int want = data[s * SEG + i] * f;
            scale_wrong += scaled[s * SEG + i] != want;
            want_total += want;
        }
    }
    printf("scale_wrong=%d\nfactor_wrong=%d\ntotal=%lld\nwant_total=%lld\n", scale_wrong,
           factor_wrong, total, want_total);
    printf("tail_malloc=%s\ntail_child=%s\ntail_tail=%s\nscale_launch_errors=%d\n",
           err_name(status[0]), err_name(status[1]), err_name(status[2]), status[3]);
    CHECK("children scale by the parent's factors", scale_wrong == 0 && factor_wrong == 0);
    CHECK("tail launch after all children", total == want_total);
    CHECK("device cudaMalloc in a tail launch", status[0] == cudaSuccess && status[1] == cudaSuccess &&
          status[2] == cudaSuccess && status[3] == 0);

    // events
    int events_wrong = 0;
    for (int i = 0; i < en; i++)
        events_wrong += out[i] != (ev * i + 1) * 2 - i;
    int events_status = 0;
    for (int i = 0; i < 8; i++)
        events_status |= status[8 + i];
    printf("events_wrong=%d\nevents_status=%d\n", events_wrong, events_status);
    CHECK("event orders two device streams", events_wrong == 0 && events_status == 0);

    // device-side copies
    int copy_wrong = 0, zero_wrong = 0;
    for (int i = 0; i < cn; i++) {
        copy_wrong += copies[i] != csrc[i];
        zero_wrong += copies[cn + i] != 0;
    }
    printf("copy_wrong=%d\nzero_wrong=%d\ncopy_status=%s\nmemset_status=%s\nwant_printf=%d\n",
           copy_wrong, zero_wrong, err_name(copies[2 * cn + 1]), err_name(copies[2 * cn]),
           cn * 3);
    CHECK("device cudaMemcpyAsync / cudaMemsetAsync", copy_wrong == 0 && zero_wrong == 0 &&
          copies[2 * cn] == cudaSuccess && copies[2 * cn + 1] == cudaSuccess);

    // errors
    const int *e = status + 16;
    printf("bad_config_peek=%s\nbad_config_get=%s\nafter_reset=%s\ngood_launch=%s\n",
           err_name(e[0]), err_name(e[1]), err_name(e[2]), err_name(e[3]));
    printf("device_get=%s\ndevice=%d\nhost_device=%d\nblocking_stream=%s\nblocking_stream_last=%s\n"
           "other_thread=%s\nnoop_runs=%d\n", err_name(e[4]), e[5], host_dev, err_name(e[6]),
           err_name(e[7]), err_name(e[8]), flag[0]);
    CHECK("bad configuration", e[0] == cudaErrorInvalidConfiguration &&
          e[1] == cudaErrorInvalidConfiguration && e[2] == cudaSuccess && e[3] == cudaSuccess);
    printf("device_count=%d\nhost_device_count=%d\n", e[10], host_count);
    CHECK("device cudaGetDevice", e[4] == cudaSuccess && e[5] == host_dev);
    CHECK("device cudaGetDeviceCount", e[9] == cudaSuccess && e[10] == host_count);
    CHECK("blocking device stream refused", e[6] != cudaSuccess && e[7] == e[6]);
    CHECK("last error is per thread", e[8] == cudaSuccess);
    CHECK("only the good launch ran", flag[0] == 1);

    // depth
    printf("deepest=%d\ndepth_error=%s\ndepth_error_at=%d\n", flag[1], err_name(flag[2]), flag[3]);
    CHECK("nesting limit", flag[2] == cudaErrorLaunchMaxDepthExceeded && flag[3] == flag[1]);

    // the device is still usable
    noop<<<1, 1, 0, stream>>>(d_flag);
    OK("after the trees", cudaStreamSynchronize(stream));
    printf(failures ? "FAILED %d\n" : "ALL PASSED\n", failures);
    return failures ? 1 : 0;
}
