/* Occupancy queries: the CUfunction (or CUkernel) is ours, so resolve it before asking HIP,
 * and the answer stays within the limits the device presents (its NVIDIA identity's resident
 * blocks and threads per multiprocessor), so that blocks x multiprocessors is what a
 * program sizing a persistent grid from the attributes would compute. */
#include "common/cluster_launch.h"
#include "internal.h"

static int identity_limit(CUdevice_attribute attr, int device, int fallback)
{
    int v = 0;
    return pyshim_device_attribute(&v, attr, device) == CUDA_SUCCESS && v > 0 ? v : fallback;
}

static int cap_blocks(int blocks, int block_size, int device)
{
    int by_blocks = identity_limit(CU_DEVICE_ATTRIBUTE_MAX_BLOCKS_PER_MULTIPROCESSOR, device,
                                   blocks);
    int by_threads = identity_limit(CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR, device,
                                    blocks * block_size) / block_size;
    if (blocks > by_blocks)
        blocks = by_blocks;
    if (blocks > by_threads)
        blocks = by_threads;
    return blocks;
}

CUresult CUDAAPI cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(int *numBlocks,
                                                                     CUfunction func,
                                                                     int blockSize,
                                                                     size_t dynamicSMemSize,
                                                                     unsigned int flags)
{
    if (numBlocks == NULL || blockSize <= 0)
        return CUDA_ERROR_INVALID_VALUE;
    CUresult rc = pyshim_need_ctx();
    hipFunction_t f;
    if (rc == CUDA_SUCCESS)
        rc = pyshim_function_resolve(func, &f);
    if (rc != CUDA_SUCCESS)
        return rc;
    /* CU_OCCUPANCY_DEFAULT / DISABLE_CACHING_OVERRIDE equal hipOccupancyDefault / ... */
    hipError_t err = hipModuleOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(
        numBlocks, f, blockSize, dynamicSMemSize, flags);
    if (err == hipSuccess)
        *numBlocks = cap_blocks(*numBlocks, blockSize, pyshim_current_ctx()->device);
    return pyshim_cu_from_hip(err);
}

CUresult CUDAAPI cuOccupancyMaxActiveBlocksPerMultiprocessor(int *numBlocks, CUfunction func,
                                                             int blockSize,
                                                             size_t dynamicSMemSize)
{
    return cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(numBlocks, func, blockSize,
                                                                dynamicSMemSize, 0);
}

CUresult CUDAAPI cuOccupancyAvailableDynamicSMemPerBlock(size_t *dynamicSmemSize,
                                                         CUfunction func, int numBlocks,
                                                         int blockSize)
{
    if (dynamicSmemSize == NULL || numBlocks <= 0 || blockSize <= 0)
        return CUDA_ERROR_INVALID_VALUE;
    CUresult rc = pyshim_need_ctx();
    hipFunction_t f;
    if (rc == CUDA_SUCCESS)
        rc = pyshim_function_resolve(func, &f);
    if (rc != CUDA_SUCCESS)
        return rc;
    int static_bytes = 0;
    hipFuncGetAttribute(&static_bytes, HIP_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, f);
    int dev = pyshim_current_ctx()->device;
    if (pyshim_device_prop(dev) == NULL)
        return CUDA_ERROR_INVALID_DEVICE;
    /* what is left of one block's share of the multiprocessor's shared memory, up to what a
     * block may opt in to (the limits the device presents) */
    size_t per_block = (size_t)identity_limit(
        CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR, dev, 0) / (size_t)numBlocks;
    size_t optin = (size_t)identity_limit(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN,
                                          dev, 0);
    if (per_block > optin)
        per_block = optin;
    *dynamicSmemSize = per_block > (size_t)static_bytes ? per_block - (size_t)static_bytes : 0;
    return CUDA_SUCCESS;
}

CUresult CUDAAPI cuFuncSetSharedMemConfig(CUfunction hfunc, CUsharedconfig config)
{
    (void)config; /* bank width is not configurable on AMD GPUs or the CPU device */
    hipFunction_t f;
    return pyshim_function_resolve(hfunc, &f);
}

/* The block size with the highest occupancy, and the grid that fills the device with it.
 * HIP's version takes no per-block-size shared-memory callback, so the search is done here
 * over multiples of the warp size, asking HIP for each candidate's occupancy. */
CUresult CUDAAPI cuOccupancyMaxPotentialBlockSizeWithFlags(
    int *minGridSize, int *blockSize, CUfunction func,
    CUoccupancyB2DSize blockSizeToDynamicSMemSize, size_t dynamicSMemSize,
    int blockSizeLimit, unsigned int flags)
{
    if (minGridSize == NULL || blockSize == NULL || blockSizeLimit < 0)
        return CUDA_ERROR_INVALID_VALUE;
    CUresult rc = pyshim_need_ctx();
    hipFunction_t f;
    if (rc == CUDA_SUCCESS)
        rc = pyshim_function_resolve(func, &f);
    if (rc != CUDA_SUCCESS)
        return rc;
    const hipDeviceProp_t *p = pyshim_device_prop(pyshim_current_ctx()->device);
    if (p == NULL)
        return CUDA_ERROR_INVALID_DEVICE;
    int max_threads = identity_limit(CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK,
                                     pyshim_current_ctx()->device, p->maxThreadsPerBlock);
    int kernel_max = 0;
    if (hipFuncGetAttribute(&kernel_max, HIP_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, f) ==
            hipSuccess && kernel_max > 0 && kernel_max < max_threads)
        max_threads = kernel_max;
    if (blockSizeLimit > 0 && blockSizeLimit < max_threads)
        max_threads = blockSizeLimit;
    /* CUDA's granularity is its warp: 32 lanes whatever the backend's wavefront */
    int best_threads = 0, best_blocks = 0;
    for (int threads = max_threads - max_threads % 32; threads > 0; threads -= 32) {
        size_t smem = blockSizeToDynamicSMemSize ? blockSizeToDynamicSMemSize(threads)
                                                 : dynamicSMemSize;
        int blocks = 0;
        if (hipModuleOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(
                &blocks, f, threads, smem, flags) != hipSuccess)
            continue;
        blocks = cap_blocks(blocks, threads, pyshim_current_ctx()->device);
        if (blocks * threads > best_blocks * best_threads) {
            best_blocks = blocks;
            best_threads = threads;
        }
    }
    if (best_threads == 0)
        return CUDA_ERROR_INVALID_VALUE;
    *blockSize = best_threads;
    *minGridSize = best_blocks * p->multiProcessorCount;
    return CUDA_SUCCESS;
}

CUresult CUDAAPI cuOccupancyMaxPotentialBlockSize(int *minGridSize, int *blockSize,
                                                  CUfunction func,
                                                  CUoccupancyB2DSize blockSizeToDynamicSMemSize,
                                                  size_t dynamicSMemSize, int blockSizeLimit)
{
    return cuOccupancyMaxPotentialBlockSizeWithFlags(minGridSize, blockSize, func,
                                                     blockSizeToDynamicSMemSize,
                                                     dynamicSMemSize, blockSizeLimit, 0);
}

/* A launch configuration's cluster size: its CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION, else the
 * kernel's compile-time one (__cluster_dims__); 0 when it has neither. */
static unsigned long long config_cluster(CUfunction func, const CUlaunchConfig *config)
{
    for (unsigned i = 0; i < config->numAttrs; i++)
        if (config->attrs[i].id == CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION) {
            const CUlaunchAttributeValue *v = &config->attrs[i].value;
            return (unsigned long long)v->clusterDim.x * v->clusterDim.y * v->clusterDim.z;
        }
    int d[3] = {0, 0, 0};
    for (int i = 0; i < 3; i++)
        if (cuFuncGetAttribute(&d[i],
                               (CUfunction_attribute)(CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_WIDTH + i),
                               func) != CUDA_SUCCESS)
            return 0;
    return d[0] > 0 ? (unsigned long long)d[0] * (unsigned)(d[1] > 0 ? d[1] : 1) *
                          (unsigned)(d[2] > 0 ? d[2] : 1)
                    : 0;
}

/* Blocks of `config`'s shape resident on the whole device at once. */
static CUresult resident_blocks(CUfunction func, const CUlaunchConfig *config,
                                unsigned long long *out)
{
    int per_sm = 0, sms = 0;
    int threads = (int)((unsigned long long)config->blockDimX * config->blockDimY *
                        config->blockDimZ);
    CUresult rc = cuOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, func, threads,
                                                              config->sharedMemBytes);
    if (rc == CUDA_SUCCESS)
        rc = pyshim_device_attribute(&sms, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT,
                                     pyshim_current_ctx()->device);
    *out = (unsigned long long)(per_sm > 0 ? per_sm : 0) * (unsigned long long)(sms > 0 ? sms : 0);
    return rc;
}

/* How many clusters of `config`'s shape can run at once: the resident blocks (the occupancy
 * calculator's blocks per multiprocessor times the multiprocessors) in whole clusters, on a
 * device that launches clusters (the CPU device runs each cluster's blocks together, so this
 * is the number of clusters whose blocks can all be resident). */
CUresult CUDAAPI cuOccupancyMaxActiveClusters(int *numClusters, CUfunction func,
                                              const CUlaunchConfig *config)
{
    if (numClusters == NULL || config == NULL || (config->numAttrs > 0 && config->attrs == NULL))
        return CUDA_ERROR_INVALID_VALUE;
    CUresult rc = pyshim_need_ctx();
    hipFunction_t f;
    if (rc == CUDA_SUCCESS)
        rc = pyshim_function_resolve(func, &f);
    if (rc != CUDA_SUCCESS)
        return rc;
    int clusters = 0;
    if (pyshim_device_attribute(&clusters, CU_DEVICE_ATTRIBUTE_CLUSTER_LAUNCH,
                                pyshim_current_ctx()->device) != CUDA_SUCCESS || !clusters) {
        pyshim_log("cuOccupancyMaxActiveClusters: the device does not launch clusters");
        return CUDA_ERROR_NOT_SUPPORTED;
    }
    unsigned long long size = config_cluster(func, config), resident = 0;
    unsigned most = pyshim_cluster_limit(func);
    if (size == 0 || size > most) {
        pyshim_log("cuOccupancyMaxActiveClusters of %s: cluster size %llu refused (1 to %u "
                   "blocks; a kernel without __cluster_dims__ needs the cluster dimension "
                   "attribute)", func->name, size, most);
        return CUDA_ERROR_INVALID_CLUSTER_SIZE;
    }
    rc = resident_blocks(func, config, &resident);
    if (rc != CUDA_SUCCESS)
        return rc;
    unsigned long long n = resident / size;
    *numClusters = n > 0x7fffffffull ? 0x7fffffff : (int)n;
    return CUDA_SUCCESS;
}

/* The largest cluster `config`'s blocks can form: CUDA's portable size (16 with the
 * non-portable attribute set), or fewer when fewer such blocks are resident at once. */
CUresult CUDAAPI cuOccupancyMaxPotentialClusterSize(int *clusterSize, CUfunction func,
                                                    const CUlaunchConfig *config)
{
    if (clusterSize == NULL || config == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    CUresult rc = pyshim_need_ctx();
    hipFunction_t f;
    if (rc == CUDA_SUCCESS)
        rc = pyshim_function_resolve(func, &f);
    if (rc != CUDA_SUCCESS)
        return rc;
    int clusters = 0;
    if (pyshim_device_attribute(&clusters, CU_DEVICE_ATTRIBUTE_CLUSTER_LAUNCH,
                                pyshim_current_ctx()->device) != CUDA_SUCCESS || !clusters)
        return CUDA_ERROR_NOT_SUPPORTED;
    unsigned long long resident = 0;
    rc = resident_blocks(func, config, &resident);
    if (rc != CUDA_SUCCESS)
        return rc;
    unsigned most = pyshim_cluster_limit(func);
    *clusterSize = (int)(resident < most ? resident : most);
    return CUDA_SUCCESS;
}
