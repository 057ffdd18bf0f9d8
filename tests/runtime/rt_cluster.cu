/* Thread-block clusters: a reduction through distributed shared memory (each block fills its
 * shared array, cluster.sync(), block 0 of the cluster reads the others' through
 * map_shared_rank and they add into its counter with atomics), a __cluster_dims__ kernel
 * reading the cluster registers launched plainly, at several grid and cluster shapes up to
 * CUDA's portable size, checked against host arithmetic; and the refusals: a cluster of 32
 * blocks, a grid that is not whole clusters. Runs unchanged on NVIDIA's runtime (sm_90). */
#include <cooperative_groups.h>
#include <cstdio>
#include <cstring>
#include <vector>

#include "../include/runtime_check.h"

namespace cg = cooperative_groups;

#define THREADS 64

/* out[cluster * THREADS + t] = sum over the cluster's blocks of in[block * THREADS + t];
 * counts[cluster] = sum over the cluster's blocks of (rank + 1) * THREADS, added by every
 * thread of every block into block 0's shared counter */
__global__ void cluster_sum(const int *in, int *out, int *counts)
{
    __shared__ int sm[THREADS];
    __shared__ int counter;
    cg::cluster_group cluster = cg::this_cluster();
    unsigned t = threadIdx.x;
    unsigned block = blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z);
    unsigned clusters_x = gridDim.x / cluster.dim_blocks().x;
    unsigned clusters_y = gridDim.y / cluster.dim_blocks().y;
    dim3 cid(blockIdx.x / cluster.dim_blocks().x, blockIdx.y / cluster.dim_blocks().y,
             blockIdx.z / cluster.dim_blocks().z);
    unsigned cluster_index = cid.x + clusters_x * (cid.y + clusters_y * cid.z);
    sm[t] = in[block * THREADS + t];
    if (t == 0)
        counter = 0;
    cluster.sync();
    int *remote = cluster.map_shared_rank(&counter, 0);
    atomicAdd(remote, (int)cluster.block_rank() + 1);
    cluster.sync();
    if (cluster.block_rank() == 0) {
        int s = 0;
        for (unsigned r = 0; r < cluster.num_blocks(); r++)
            s += cluster.map_shared_rank(sm, r)[t];
        out[cluster_index * THREADS + t] = s;
        if (t == 0)
            counts[cluster_index] = counter;
    }
    cluster.sync();   /* the others' shared memory stays until block 0 has read it */
}

/* The shared::cluster forms (what hand-written cluster code spells): each block stores into
 * the next rank's array and adds into its counter through mapa.shared::cluster addresses,
 * getctarank names the block an address is in; out[block * THREADS + t] is then what the
 * previous rank stored, info[block] = {getctarank of the next's address, own counter} */
__global__ void cluster_ring(int *out, unsigned *info)
{
    __shared__ int sm[THREADS];
    __shared__ unsigned acc;
    cg::cluster_group cluster = cg::this_cluster();
    unsigned t = threadIdx.x, rank = cluster.block_rank(), n = cluster.num_blocks();
    sm[t] = -1;
    if (t == 0)
        acc = 0;
    cluster.sync();
    unsigned next = (rank + 1) % n, remote, who, acc_remote;
    unsigned local = (unsigned)__cvta_generic_to_shared(&sm[t]);
    unsigned acc_local = (unsigned)__cvta_generic_to_shared(&acc);
    asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(remote) : "r"(local), "r"(next));
    asm volatile("st.shared::cluster.u32 [%0], %1;" ::"r"(remote), "r"(blockIdx.x * 1000 + t)
                 : "memory");
    asm volatile("getctarank.shared::cluster.u32 %0, %1;" : "=r"(who) : "r"(remote));
    asm volatile("mapa.shared::cluster.u32 %0, %1, %2;"
                 : "=r"(acc_remote) : "r"(acc_local), "r"(next));
    asm volatile("red.shared::cluster.add.u32 [%0], %1;" ::"r"(acc_remote), "r"(t + 1)
                 : "memory");
    asm volatile("barrier.cluster.arrive.release.aligned;\n\t"
                 "barrier.cluster.wait.acquire.aligned;" ::: "memory");
    int v;
    asm volatile("ld.shared::cluster.u32 %0, [%1];" : "=r"(v) : "r"(local) : "memory");
    out[blockIdx.x * THREADS + t] = v;
    if (t == 0) {
        info[blockIdx.x * 2] = who;
        info[blockIdx.x * 2 + 1] = acc;
    }
    cluster.sync();
}

/* per block: rank, blocks in the cluster, block index in the cluster (x, y, z), cluster
 * shape (x, y, z), cluster id x, clusters in x, explicit */
#define REGS 11
__global__ void __cluster_dims__(2, 2, 1) cluster_regs(unsigned *out)
{
    cg::cluster_group cluster = cg::this_cluster();
    if (threadIdx.x != 0)
        return;
    unsigned block = blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z);
    unsigned *o = out + block * REGS;
    dim3 bi = cluster.block_index(), d = cluster.dim_blocks();
    unsigned cx, ncx, expl;
    asm("mov.u32 %0, %%clusterid.x;" : "=r"(cx));
    asm("mov.u32 %0, %%nclusterid.x;" : "=r"(ncx));
    asm("{ .reg .pred p; mov.pred p, %%is_explicit_cluster; selp.u32 %0, 1, 0, p; }"
        : "=r"(expl));
    o[0] = cluster.block_rank();
    o[1] = cluster.num_blocks();
    o[2] = bi.x, o[3] = bi.y, o[4] = bi.z;
    o[5] = d.x, o[6] = d.y, o[7] = d.z;
    o[8] = cx, o[9] = ncx, o[10] = expl;
}

static cudaError_t launch_sum(dim3 grid, dim3 cl, const int *in, int *out, int *counts)
{
    cudaLaunchConfig_t cfg = {};
    cudaLaunchAttribute attr[1];
    attr[0].id = cudaLaunchAttributeClusterDimension;
    attr[0].val.clusterDim.x = cl.x;
    attr[0].val.clusterDim.y = cl.y;
    attr[0].val.clusterDim.z = cl.z;
    cfg.gridDim = grid;
    cfg.blockDim = dim3(THREADS);
    cfg.attrs = attr;
    cfg.numAttrs = 1;
    return cudaLaunchKernelEx(&cfg, cluster_sum, in, out, counts);
}

static void check_sum(dim3 grid, dim3 cl)
{
    unsigned blocks = grid.x * grid.y * grid.z, size = cl.x * cl.y * cl.z;
    unsigned nclusters = blocks / size;
    std::vector<int> in(blocks * THREADS), want(nclusters * THREADS, 0), got(want.size(), -1);
    std::vector<int> counts(nclusters, -1);
    for (size_t i = 0; i < in.size(); i++)
        in[i] = (int)((i * 2654435761u) % 1000u) - 500;
    /* the host's sums, from each block's index in the grid and in its cluster */
    unsigned ncx = grid.x / cl.x, ncy = grid.y / cl.y;
    for (unsigned z = 0; z < grid.z; z++)
        for (unsigned y = 0; y < grid.y; y++)
            for (unsigned x = 0; x < grid.x; x++) {
                unsigned block = x + grid.x * (y + grid.y * z);
                unsigned c = x / cl.x + ncx * (y / cl.y + ncy * (z / cl.z));
                for (unsigned t = 0; t < THREADS; t++)
                    want[c * THREADS + t] += in[block * THREADS + t];
            }
    int want_count = (int)(size * (size + 1) / 2 * THREADS);
    int *d_in, *d_out, *d_counts;
    char name[160];
    cudaMalloc(&d_in, in.size() * sizeof(int));
    cudaMalloc(&d_out, got.size() * sizeof(int));
    cudaMalloc(&d_counts, counts.size() * sizeof(int));
    cudaMemcpy(d_in, in.data(), in.size() * sizeof(int), cudaMemcpyHostToDevice);
    cudaMemset(d_out, 0xff, got.size() * sizeof(int));
    snprintf(name, sizeof name, "cluster sum grid (%u,%u,%u) clusters (%u,%u,%u) launch", grid.x,
             grid.y, grid.z, cl.x, cl.y, cl.z);
    OK(name, launch_sum(grid, cl, d_in, d_out, d_counts));
    OK("synchronize", cudaDeviceSynchronize());
    cudaMemcpy(got.data(), d_out, got.size() * sizeof(int), cudaMemcpyDeviceToHost);
    cudaMemcpy(counts.data(), d_counts, counts.size() * sizeof(int), cudaMemcpyDeviceToHost);
    int bad = 0, bad_count = 0;
    for (size_t i = 0; i < got.size(); i++)
        bad += got[i] != want[i];
    for (unsigned c = 0; c < nclusters; c++)
        bad_count += counts[c] != want_count;
    snprintf(name, sizeof name, "cluster sum grid (%u,%u,%u) clusters (%u,%u,%u): %d of %zu wrong",
             grid.x, grid.y, grid.z, cl.x, cl.y, cl.z, bad, got.size());
    CHECK(name, bad == 0);
    snprintf(name, sizeof name, "cluster atomics grid (%u,%u,%u) clusters (%u,%u,%u): %d of %u "
             "wrong (first %d, want %d)", grid.x, grid.y, grid.z, cl.x, cl.y, cl.z, bad_count,
             nclusters, counts[0], want_count);
    CHECK(name, bad_count == 0);
    cudaFree(d_in);
    cudaFree(d_out);
    cudaFree(d_counts);
}

static void check_ring(unsigned blocks, unsigned size)
{
    std::vector<int> got(blocks * THREADS, 0);
    std::vector<unsigned> info(blocks * 2, 0);
    int *d_out;
    unsigned *d_info;
    cudaMalloc(&d_out, got.size() * sizeof(int));
    cudaMalloc(&d_info, info.size() * sizeof(unsigned));
    cudaLaunchConfig_t cfg = {};
    cudaLaunchAttribute attr[1];
    attr[0].id = cudaLaunchAttributeClusterDimension;
    attr[0].val.clusterDim.x = size;
    attr[0].val.clusterDim.y = 1;
    attr[0].val.clusterDim.z = 1;
    cfg.gridDim = dim3(blocks);
    cfg.blockDim = dim3(THREADS);
    cfg.attrs = attr;
    cfg.numAttrs = 1;
    char name[128];
    snprintf(name, sizeof name, "cluster ring of %u blocks in clusters of %u: launch", blocks, size);
    OK(name, cudaLaunchKernelEx(&cfg, cluster_ring, d_out, d_info));
    OK("synchronize", cudaDeviceSynchronize());
    cudaMemcpy(got.data(), d_out, got.size() * sizeof(int), cudaMemcpyDeviceToHost);
    cudaMemcpy(info.data(), d_info, info.size() * sizeof(unsigned), cudaMemcpyDeviceToHost);
    int bad = 0;
    for (unsigned b = 0; b < blocks; b++) {
        unsigned base = b / size * size, rank = b % size;
        unsigned prev = base + (rank + size - 1) % size;
        for (unsigned t = 0; t < THREADS; t++)
            bad += got[b * THREADS + t] != (int)(prev * 1000 + t);
        bad += info[b * 2] != (rank + 1) % size;
        bad += info[b * 2 + 1] != THREADS * (THREADS + 1) / 2;
    }
    snprintf(name, sizeof name, "cluster ring of %u blocks in clusters of %u: %d wrong "
             "(block 0: %d, rank %u, counter %u)", blocks, size, bad, got[0], info[0], info[1]);
    CHECK(name, bad == 0);
    cudaFree(d_out);
    cudaFree(d_info);
}

static void check_regs(dim3 grid)
{
    unsigned blocks = grid.x * grid.y * grid.z;
    std::vector<unsigned> got(blocks * REGS, 0xdeadbeefu);
    unsigned *d;
    cudaMalloc(&d, got.size() * sizeof(unsigned));
    char name[160];
    cluster_regs<<<grid, 32>>>(d);
    snprintf(name, sizeof name, "__cluster_dims__(2,2,1) grid (%u,%u,%u) plain launch", grid.x,
             grid.y, grid.z);
    OK(name, cudaGetLastError());
    OK("synchronize", cudaDeviceSynchronize());
    cudaMemcpy(got.data(), d, got.size() * sizeof(unsigned), cudaMemcpyDeviceToHost);
    int bad = 0;
    for (unsigned z = 0; z < grid.z; z++)
        for (unsigned y = 0; y < grid.y; y++)
            for (unsigned x = 0; x < grid.x; x++) {
                const unsigned *o = &got[(x + grid.x * (y + grid.y * z)) * REGS];
                unsigned want[REGS] = {x % 2 + 2 * (y % 2), 4, x % 2, y % 2, 0, 2, 2, 1,
                                       x / 2, grid.x / 2, 1};
                for (int i = 0; i < REGS; i++)
                    if (o[i] != want[i]) {
                        if (bad++ < 4)
                            printf("  block (%u,%u,%u) value %d: %u, want %u\n", x, y, z, i,
                                   o[i], want[i]);
                    }
            }
    snprintf(name, sizeof name, "cluster registers grid (%u,%u,%u): %d wrong", grid.x, grid.y,
             grid.z, bad);
    CHECK(name, bad == 0);
    cudaFree(d);
}

/* a block that fails (mode 1: traps, mode 2: leaves without the cluster barrier) while the
 * rest of its cluster waits at cluster.sync() */
__global__ void cluster_fail(int mode)
{
    cg::cluster_group cluster = cg::this_cluster();
    if (cluster.block_rank() == 1) {
        if (mode == 1)
            __trap();
        return;
    }
    cluster.sync();
}

/* `rt_cluster trap|leave`: the launch fails (a GPU would hang on the one that leaves) */
static int run_failing(const char *mode)
{
    cudaLaunchConfig_t cfg = {};
    cudaLaunchAttribute attr[1];
    attr[0].id = cudaLaunchAttributeClusterDimension;
    attr[0].val.clusterDim.x = 4;
    attr[0].val.clusterDim.y = 1;
    attr[0].val.clusterDim.z = 1;
    cfg.gridDim = dim3(8);
    cfg.blockDim = dim3(THREADS);
    cfg.attrs = attr;
    cfg.numAttrs = 1;
    cudaError_t launched = cudaLaunchKernelEx(&cfg, cluster_fail, strcmp(mode, "trap") == 0 ? 1 : 2);
    cudaError_t done = cudaDeviceSynchronize();
    printf("%s: launch %s, synchronize %s\n", mode, cudaGetErrorName(launched),
           cudaGetErrorName(done));
    return launched == cudaSuccess && done != cudaSuccess ? 0 : 1;
}

int main(int argc, char **argv)
{
    if (argc > 1)
        return run_failing(argv[1]);
    int dev = 0, clusters = -1;
    OK("cudaGetDevice", cudaGetDevice(&dev));
    OK("cudaDevAttrClusterLaunch", cudaDeviceGetAttribute(&clusters, cudaDevAttrClusterLaunch, dev));
    printf("clusterLaunch %d\n", clusters);
    CHECK("the device launches clusters", clusters == 1);

    /* the occupancy calculator: whole clusters of the resident blocks */
    int per_sm = 0, sms = 0;
    OK("blocks per SM", cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, cluster_sum,
                                                                     THREADS, 0));
    OK("SMs", cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
    for (unsigned size = 1; size <= 8; size *= 2) {
        cudaLaunchConfig_t cfg = {};
        cudaLaunchAttribute attr[1];
        attr[0].id = cudaLaunchAttributeClusterDimension;
        attr[0].val.clusterDim.x = size;
        attr[0].val.clusterDim.y = 1;
        attr[0].val.clusterDim.z = 1;
        cfg.gridDim = dim3(size * 4);
        cfg.blockDim = dim3(THREADS);
        cfg.attrs = attr;
        cfg.numAttrs = 1;
        int n = -1;
        char name[96];
        snprintf(name, sizeof name, "cudaOccupancyMaxActiveClusters (size %u)", size);
        OK(name, cudaOccupancyMaxActiveClusters(&n, cluster_sum, &cfg));
        printf("max active clusters of %u: %d (%d blocks per SM, %d SMs)\n", size, n, per_sm,
               sms);
        CHECK("active clusters are the resident blocks in whole clusters",
              n > 0 && n <= per_sm * sms / (int)size);
        if (size == 8) {
            int most = 0;
            OK("cudaOccupancyMaxPotentialClusterSize",
               cudaOccupancyMaxPotentialClusterSize(&most, cluster_sum, &cfg));
            CHECK("the largest cluster is CUDA's portable size", most == 8);
        }
    }
    {
        cudaLaunchConfig_t cfg = {};
        cfg.gridDim = dim3(8);
        cfg.blockDim = dim3(32);
        int n = -1;
        OK("cudaOccupancyMaxActiveClusters (__cluster_dims__)",
           cudaOccupancyMaxActiveClusters(&n, cluster_regs, &cfg));
        CHECK("__cluster_dims__ clusters of 4", n > 0);
    }

    /* results at several shapes, up to the portable size */
    check_sum(dim3(1), dim3(1));
    check_sum(dim3(6), dim3(2));
    check_sum(dim3(12), dim3(4));
    check_sum(dim3(16), dim3(8));
    check_sum(dim3(8, 3), dim3(8, 1));
    check_sum(dim3(4, 4), dim3(2, 2));
    check_sum(dim3(2, 2, 4), dim3(1, 2, 4));
    check_ring(8, 8);
    check_ring(12, 3);
    check_ring(4, 1);
    check_regs(dim3(2, 2));
    check_regs(dim3(6, 4));
    check_regs(dim3(4, 2, 3));

    /* the kernel's compile-time clusters, as cudaFuncGetAttributes reports them */
    cudaFuncAttributes fa = {};
    OK("cudaFuncGetAttributes(cluster_regs)", cudaFuncGetAttributes(&fa, cluster_regs));
    printf("required cluster %d x %d x %d\n", fa.requiredClusterWidth, fa.requiredClusterHeight,
           fa.requiredClusterDepth);
    CHECK("__cluster_dims__(2, 2, 1) is the required cluster shape",
          fa.requiredClusterWidth == 2 && fa.requiredClusterHeight == 2 &&
              fa.requiredClusterDepth == 1);

    /* beyond the limit: clear errors, and the device still works */
    int *dummy;
    cudaMalloc(&dummy, 64 * 32 * sizeof(int));
    cudaError_t e16 = launch_sum(dim3(16), dim3(16), dummy, dummy, dummy);
    printf("cluster of 16 blocks, portable sizes only: %s\n", cudaGetErrorName(e16));
    CHECK("a cluster of 16 blocks needs the non-portable attribute",
          e16 == cudaErrorInvalidClusterSize);
    /* H100's non-portable 16 */
    OK("cudaFuncAttributeNonPortableClusterSizeAllowed",
       cudaFuncSetAttribute(cluster_sum, cudaFuncAttributeNonPortableClusterSizeAllowed, 1));
    {
        cudaLaunchConfig_t cfg = {};
        cudaLaunchAttribute attr[1];
        attr[0].id = cudaLaunchAttributeClusterDimension;
        attr[0].val.clusterDim.x = 16;
        attr[0].val.clusterDim.y = 1;
        attr[0].val.clusterDim.z = 1;
        cfg.gridDim = dim3(32);
        cfg.blockDim = dim3(THREADS);
        cfg.attrs = attr;
        cfg.numAttrs = 1;
        int most = 0, n = 0;
        OK("cudaOccupancyMaxPotentialClusterSize (non-portable)",
           cudaOccupancyMaxPotentialClusterSize(&most, cluster_sum, &cfg));
        printf("largest non-portable cluster: %d\n", most);
        CHECK("the largest non-portable cluster is 16", most == 16);
        OK("cudaOccupancyMaxActiveClusters (size 16)",
           cudaOccupancyMaxActiveClusters(&n, cluster_sum, &cfg));
        CHECK("clusters of 16 are resident", n > 0 && n <= per_sm * sms / 16);
    }
    check_sum(dim3(32), dim3(16));
    check_sum(dim3(4, 4, 2), dim3(4, 4, 1));
    cudaError_t e = launch_sum(dim3(32), dim3(32), dummy, dummy, dummy);
    printf("cluster of 32 blocks: %s\n", cudaGetErrorName(e));
    CHECK("a cluster of 32 blocks is refused", e == cudaErrorInvalidClusterSize);
    e = launch_sum(dim3(6), dim3(4), dummy, dummy, dummy);
    printf("grid of 6 in clusters of 4: %s\n", cudaGetErrorName(e));
    CHECK("a grid that is not whole clusters is refused", e == cudaErrorInvalidClusterSize);
    (void)cudaGetLastError();
    cluster_regs<<<dim3(3, 2), 32>>>((unsigned *)dummy);
    e = cudaGetLastError();
    printf("__cluster_dims__(2,2,1) grid (3,2): %s\n", cudaGetErrorName(e));
    CHECK("a __cluster_dims__ kernel on a grid that is not whole clusters is refused",
          e == cudaErrorInvalidClusterSize);
    OK("the device still works", cudaDeviceSynchronize());
    check_sum(dim3(4), dim3(2));
    cudaFree(dummy);
    printf(failures ? "FAILURES %d\n" : "ALL PASSED\n", failures);
    return failures != 0;
}
