/*
 * Kernel launches. nvcc 13 turns `k<<<g, b, shm, s>>>(args)` into
 *   __cudaPushCallConfiguration(g, b, shm, s); then, in the host stub,
 *   __cudaPopCallConfiguration(&g, &b, &shm, &s); __cudaGetKernel(&k, stub) (once);
 *   __cudaLaunchKernel[_ptsz](k, g, b, args, shm, s)
 * and (under __NV_LEGACY_LAUNCH, or called by hand) cudaLaunchKernel(stub, ...). A
 * cudaKernel_t we hand out is our record of the kernel. The launch itself is
 * hipModuleLaunchKernel on the translated function; errors are left as the thread's last
 * error because <<<>>> discards the return value.
 */
#define __CUDA_API_VERSION_INTERNAL 1
#include <cuda_runtime_api.h>
#include <string.h>

#include "common/device_identity.h"
#include "cuda_side.h"

#define EXPORT __attribute__((visibility("default")))
/* ---- the <<<>>> configuration, a per-thread stack (pushes may nest in argument lists) */
struct config {
    dim3 grid, block;
    size_t shmem;
    void *stream;
};
#define CONFIG_DEPTH 32
static __thread struct config configs[CONFIG_DEPTH];
static __thread int num_configs;

EXPORT unsigned __cudaPushCallConfiguration(dim3 gridDim, dim3 blockDim, size_t sharedMem,
                                            struct CUstream_st *stream)
{
    if (num_configs == CONFIG_DEPTH) {
        /* non-zero makes the host code skip the launch: leave the reason as last error */
        pyshim_rt_log("__cudaPushCallConfiguration: more than %d nested launches", CONFIG_DEPTH);
        pyshim_rt_record(cudaErrorLaunchOutOfResources);
        return 1;
    }
    configs[num_configs++] = (struct config){gridDim, blockDim, sharedMem, stream};
    return 0;
}

EXPORT cudaError_t __cudaPopCallConfiguration(dim3 *gridDim, dim3 *blockDim, size_t *sharedMem,
                                              void *stream)
{
    if (num_configs == 0)
        return (cudaError_t)pyshim_rt_record(cudaErrorMissingConfiguration);
    struct config c = configs[--num_configs];
    *gridDim = c.grid;
    *blockDim = c.block;
    *sharedMem = c.shmem;
    memcpy(stream, &c.stream, sizeof c.stream);
    return cudaSuccess;
}

/* CUDA's documented limits (compute capability >= 7.5), checked before the backend sees
 * the launch so every device reports cudaErrorInvalidConfiguration the same way. */
static int config_valid(dim3 g, dim3 b)
{
    unsigned long long threads = (unsigned long long)b.x * b.y * b.z;
    if (b.x == 0 || b.y == 0 || b.z == 0 || b.x > 1024 || b.y > 1024 || b.z > 64 ||
        threads > 1024)
        return 0;
    if (g.x == 0 || g.y == 0 || g.z == 0 || g.x > 0x7fffffffu || g.y > 65535 || g.z > 65535)
        return 0;
    return 1;
}

static void *hip_stream(cudaStream_t s, int per_thread)
{
    if (s == cudaStreamLegacy)
        return NULL;
    if (s == NULL && per_thread)
        return (void *)cudaStreamPerThread; /* hipStreamPerThread has the same value */
    return s;
}

static int capped_occupancy(int *numBlocks, void *fn, int blockSize, size_t dynamicSMemSize,
                            unsigned flags);

static cudaError_t launch_as(struct pyshim_rt_func *f, dim3 g, dim3 b, void **args, size_t shm,
                             cudaStream_t stream, int per_thread, int cooperative,
                             const unsigned *cluster)
{
    PYSHIM_RT_STICKY_CHECK();
    if (f == NULL)
        return (cudaError_t)pyshim_rt_record(cudaErrorInvalidDeviceFunction);
    if (!config_valid(g, b))
        return (cudaError_t)pyshim_rt_record(cudaErrorInvalidConfiguration);
    void *fn = NULL;
    int rc = pyshim_rt_func_resolve(f, &fn);
    if (rc != cudaSuccess)
        return (cudaError_t)pyshim_rt_record(rc);
    /* past the kernel's own bounds (__launch_bounds__, .maxntid): NVIDIA's runtime reports
     * an invalid value; the backend would fail the launch, which is sticky */
    int bound = pyshim_rt_hip_max_threads(fn);
    if (bound > 0 && (unsigned long long)b.x * b.y * b.z > (unsigned long long)bound) {
        pyshim_rt_log("launch of %s with %u threads per block refused: its launch bounds "
                      "allow %d", f->name, b.x * b.y * b.z, bound);
        return (cudaError_t)pyshim_rt_record(cudaErrorInvalidValue);
    }
    const unsigned grid[3] = {g.x, g.y, g.z}, block[3] = {b.x, b.y, b.z};
    void *hs = hip_stream(stream, per_thread);
    int dev = 0, clusters = 0;
    if (cluster != NULL && cudaGetDevice(&dev) == cudaSuccess &&
        cudaDeviceGetAttribute(&clusters, cudaDevAttrClusterLaunch, dev) == cudaSuccess &&
        clusters) {
        /* the backend runs each cluster's blocks together (common/cluster_launch.h); one
         * that does not runs them as a plain launch, which a kernel without cluster
         * instructions cannot tell from clusters */
        static void *none[1];
        rc = pyshim_rt_hip_launch_cluster(fn, grid, block, shm, hs, args ? args : none, cluster,
                                          cooperative);
    } else if (cooperative) {
        /* every block resident at once: at most what the occupancy calculator told the
         * program, times the multiprocessors */
        int per_sm = 0, sms = 0, dev = 0;
        unsigned long long blocks = (unsigned long long)g.x * g.y * g.z;
        if (capped_occupancy(&per_sm, fn, (int)(b.x * b.y * b.z), shm, 0) == cudaSuccess &&
            cudaGetDevice(&dev) == cudaSuccess &&
            cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev) == cudaSuccess &&
            blocks > (unsigned long long)per_sm * (unsigned long long)sms) {
            pyshim_rt_log("cooperative launch of %s with %llu blocks refused: at most %d "
                          "blocks of %u threads are resident at once (%d per multiprocessor, "
                          "%d multiprocessors)", f->name, blocks, per_sm * sms,
                          b.x * b.y * b.z, per_sm, sms);
            return (cudaError_t)pyshim_rt_record(cudaErrorCooperativeLaunchTooLarge);
        }
        static void *none[1];   /* HIP's cooperative launch wants kernelParams, even empty */
        rc = pyshim_rt_hip_launch_cooperative(fn, grid, block, shm, hs, args ? args : none);
    } else {
        rc = pyshim_rt_hip_launch(fn, grid, block, shm, hs, args);
    }
    if (rc == cudaErrorInvalidValue) {
        /* refused for the kernel's compile-time clusters (__cluster_dims__,
         * .explicitcluster): a grid that is not whole clusters, other dimensions, none
         * given where they must be; CUDA names that cudaErrorInvalidClusterSize */
        int d[3];
        int must = pyshim_rt_hip_cluster_dims(fn, d);
        if ((d[0] > 0 && ((cluster != NULL && (cluster[0] != (unsigned)d[0] ||
                                                cluster[1] != (unsigned)d[1] ||
                                                cluster[2] != (unsigned)d[2])) ||
                          g.x % (unsigned)d[0] || g.y % (unsigned)d[1] ||
                          g.z % (unsigned)d[2])) ||
            (d[0] <= 0 && must && cluster == NULL))
            rc = cudaErrorInvalidClusterSize;
    }
    return (cudaError_t)pyshim_rt_record(rc);
}

static cudaError_t launch(struct pyshim_rt_func *f, dim3 g, dim3 b, void **args, size_t shm,
                          cudaStream_t stream, int per_thread)
{
    return launch_as(f, g, b, args, shm, stream, per_thread, 0, NULL);
}

/* Every block resident at once, so cooperative_groups' grid.sync() can complete; a grid
 * larger than the occupancy limit is cudaErrorCooperativeLaunchTooLarge. */
cudaError_t cudaLaunchCooperativeKernel(const void *func, dim3 gridDim, dim3 blockDim,
                                        void **args, size_t sharedMem, cudaStream_t stream)
{
    return launch_as(pyshim_rt_func_by_handle(func), gridDim, blockDim, args, sharedMem, stream,
                     0, 1, NULL);
}

cudaError_t cudaLaunchCooperativeKernel_ptsz(const void *func, dim3 gridDim, dim3 blockDim,
                                             void **args, size_t sharedMem, cudaStream_t stream)
{
    return launch_as(pyshim_rt_func_by_handle(func), gridDim, blockDim, args, sharedMem, stream,
                     1, 1, NULL);
}

EXPORT cudaError_t __cudaGetKernel(cudaKernel_t *kernel, const void *stub)
{
    if (kernel == NULL)
        return (cudaError_t)pyshim_rt_record(cudaErrorInvalidValue);
    struct pyshim_rt_func *f = pyshim_rt_func_by_stub(stub);
    if (f == NULL)
        return (cudaError_t)pyshim_rt_record(cudaErrorInvalidDeviceFunction);
    *kernel = (cudaKernel_t)(void *)f;
    return cudaSuccess;
}

EXPORT cudaError_t __cudaLaunchKernel(cudaKernel_t kernel, dim3 gridDim, dim3 blockDim,
                                      void **args, size_t sharedMem, cudaStream_t stream)
{
    return launch(pyshim_rt_func_by_handle(kernel), gridDim, blockDim, args, sharedMem, stream,
                  0);
}

EXPORT cudaError_t __cudaLaunchKernel_ptsz(cudaKernel_t kernel, dim3 gridDim, dim3 blockDim,
                                           void **args, size_t sharedMem, cudaStream_t stream)
{
    return launch(pyshim_rt_func_by_handle(kernel), gridDim, blockDim, args, sharedMem, stream,
                  1);
}

/* func: a host stub, or a cudaKernel_t from cudaGetKernel */
cudaError_t cudaLaunchKernel(const void *func, dim3 gridDim, dim3 blockDim, void **args,
                             size_t sharedMem, cudaStream_t stream)
{
    return launch(pyshim_rt_func_by_handle(func), gridDim, blockDim, args, sharedMem, stream,
                  0);
}

cudaError_t cudaLaunchKernel_ptsz(const void *func, dim3 gridDim, dim3 blockDim, void **args,
                                  size_t sharedMem, cudaStream_t stream)
{
    return launch(pyshim_rt_func_by_handle(func), gridDim, blockDim, args, sharedMem, stream,
                  1);
}

cudaError_t cudaGetKernel(cudaKernel_t *kernelPtr, const void *entryFuncAddr)
{
    PYSHIM_RT_STICKY_CHECK();
    return __cudaGetKernel(kernelPtr, entryFuncAddr);
}

/* cuda_runtime_api.h names it by macro only */
cudaError_t cudaEventRecord_ptsz(cudaEvent_t event, cudaStream_t stream);

/* cudaLaunchKernelEx's attributes, each with its meaning on a backend that runs a stream's
 * kernels one after another (libcuda's cuLaunchKernelEx does the same): scheduling hints
 * change nothing a program can observe; programmatic stream serialization only allows an
 * overlap, so stream order is correct; the programmatic and launch-completion events are
 * recorded after the kernel, later than NVIDIA may fire them, which satisfies every wait;
 * cluster dimensions are checked (whole clusters of at most CUDA's portable size) and run
 * as clusters where the backend reports cluster launch (the CPU device), as a plain launch
 * elsewhere; a cooperative one runs every block at once. */
static cudaError_t launch_ex(const cudaLaunchConfig_t *config, const void *func, void **args,
                             int per_thread)
{
    PYSHIM_RT_STICKY_CHECK();
    if (config == NULL || (config->numAttrs > 0 && config->attrs == NULL))
        return (cudaError_t)pyshim_rt_record(cudaErrorInvalidValue);
    cudaEvent_t after[2];
    int n_after = 0, cooperative = 0;
    unsigned cluster[3] = {0, 0, 0};
    for (unsigned i = 0; i < config->numAttrs; i++) {
        const cudaLaunchAttribute *a = &config->attrs[i];
        switch (a->id) {
        case cudaLaunchAttributeIgnore:
        case cudaLaunchAttributeAccessPolicyWindow:
        case cudaLaunchAttributeSynchronizationPolicy:
        case cudaLaunchAttributeClusterSchedulingPolicyPreference:
        case cudaLaunchAttributeProgrammaticStreamSerialization:
        case cudaLaunchAttributePriority:
        case cudaLaunchAttributeMemSyncDomain:
        case cudaLaunchAttributeMemSyncDomainMap:
        case cudaLaunchAttributePreferredClusterDimension:
        case cudaLaunchAttributeDeviceUpdatableKernelNode:
        case cudaLaunchAttributePreferredSharedMemoryCarveout:
#if CUDART_VERSION >= 13000
        case cudaLaunchAttributeNvlinkUtilCentricScheduling:
#endif
            break;
        case cudaLaunchAttributeProgrammaticEvent:
            if (a->val.programmaticEvent.event != NULL && n_after < 2)
                after[n_after++] = a->val.programmaticEvent.event;
            break;
        case cudaLaunchAttributeLaunchCompletionEvent:
            if (a->val.launchCompletionEvent.event != NULL && n_after < 2)
                after[n_after++] = a->val.launchCompletionEvent.event;
            break;
        case cudaLaunchAttributeCooperative:
            cooperative = a->val.cooperative != 0;
            break;
        case cudaLaunchAttributeClusterDimension: {
            unsigned x = a->val.clusterDim.x, y = a->val.clusterDim.y, z = a->val.clusterDim.z;
            /* a grid of whole clusters, at most 8 blocks each (CUDA's portable size), 16
             * for a kernel allowed non-portable sizes */
            unsigned most = 8;
            void *fn = NULL;
            if ((unsigned long long)x * y * z > most && pyshim_rt_func_by_handle(func) != NULL &&
                pyshim_rt_func_resolve(pyshim_rt_func_by_handle(func), &fn) == cudaSuccess)
                most = pyshim_rt_hip_cluster_limit(fn);
            if (x == 0 || y == 0 || z == 0 || config->gridDim.x % x || config->gridDim.y % y ||
                config->gridDim.z % z || (unsigned long long)x * y * z > most) {
                pyshim_rt_log("cudaLaunchKernelEx: grid (%u,%u,%u) in clusters of (%u,%u,%u) "
                              "refused: the grid must be whole clusters of at most %u blocks "
                              "(cudaErrorInvalidClusterSize)", config->gridDim.x,
                              config->gridDim.y, config->gridDim.z, x, y, z, most);
                return (cudaError_t)pyshim_rt_record(cudaErrorInvalidClusterSize);
            }
            cluster[0] = x, cluster[1] = y, cluster[2] = z;
            break;
        }
        default:
            pyshim_rt_log("cudaLaunchKernelExC: launch attribute %d is not one CUDA defines",
                          (int)a->id);
            return (cudaError_t)pyshim_rt_record(cudaErrorInvalidValue);
        }
    }
    cudaError_t rc = launch_as(pyshim_rt_func_by_handle(func), config->gridDim,
                               config->blockDim, args, config->dynamicSmemBytes, config->stream,
                               per_thread, cooperative, cluster[0] != 0 ? cluster : NULL);
    for (int i = 0; i < n_after && rc == cudaSuccess; i++)
        rc = per_thread ? cudaEventRecord_ptsz(after[i], config->stream)
                        : cudaEventRecord(after[i], config->stream);
    return rc;
}

cudaError_t cudaLaunchKernelExC(const cudaLaunchConfig_t *config, const void *func, void **args)
{
    return launch_ex(config, func, args, 0);
}

cudaError_t cudaLaunchKernelExC_ptsz(const cudaLaunchConfig_t *config, const void *func,
                                     void **args)
{
    return launch_ex(config, func, args, 1);
}

/* A graph kernel node's launch: its func is a host stub like a launch's, resolved to the
 * translated kernel; 0 or a cudaError_t. */
static int node_launch(const struct cudaKernelNodeParams *p, void **fn, unsigned grid[3],
                       unsigned block[3])
{
    struct pyshim_rt_func *f = pyshim_rt_func_by_handle(p->func);
    if (f == NULL)
        return cudaErrorInvalidDeviceFunction;
    if (!config_valid(p->gridDim, p->blockDim))
        return cudaErrorInvalidConfiguration;
    int rc = pyshim_rt_func_resolve(f, fn);
    if (rc != cudaSuccess)
        return rc;
    grid[0] = p->gridDim.x, grid[1] = p->gridDim.y, grid[2] = p->gridDim.z;
    block[0] = p->blockDim.x, block[1] = p->blockDim.y, block[2] = p->blockDim.z;
    return cudaSuccess;
}

/* A kernel node of an explicitly built graph. */
cudaError_t cudaGraphAddKernelNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
                                   const cudaGraphNode_t *pDependencies, size_t numDependencies,
                                   const struct cudaKernelNodeParams *pNodeParams)
{
    PYSHIM_RT_STICKY_CHECK();
    if (pGraphNode == NULL || pNodeParams == NULL)
        return pyshim_rt_fail(cudaErrorInvalidValue);
    const struct cudaKernelNodeParams *p = pNodeParams;
    void *fn = NULL;
    unsigned grid[3], block[3];
    int rc = node_launch(p, &fn, grid, block);
    if (rc == cudaSuccess)
        rc = pyshim_rt_hip_graph_kernel_node((void **)pGraphNode, graph,
                                             (void *const *)pDependencies, numDependencies, fn,
                                             grid, block, p->sharedMemBytes, p->kernelParams,
                                             p->extra);
    return rc != cudaSuccess ? pyshim_rt_fail(rc) : cudaSuccess;
}

/* A graph's kernel node given new parameters (instantiated graphs keep theirs). */
cudaError_t cudaGraphKernelNodeSetParams(cudaGraphNode_t node,
                                         const struct cudaKernelNodeParams *pNodeParams)
{
    PYSHIM_RT_STICKY_CHECK();
    if (node == NULL || pNodeParams == NULL)
        return pyshim_rt_fail(cudaErrorInvalidValue);
    const struct cudaKernelNodeParams *p = pNodeParams;
    void *fn = NULL;
    unsigned grid[3], block[3];
    int rc = node_launch(p, &fn, grid, block);
    if (rc == cudaSuccess)
        rc = pyshim_rt_hip_graph_kernel_params(node, fn, grid, block, p->sharedMemBytes,
                                               p->kernelParams, p->extra);
    return rc != cudaSuccess ? pyshim_rt_fail(rc) : cudaSuccess;
}

/* An instantiated graph's kernel node given new parameters. */
cudaError_t cudaGraphExecKernelNodeSetParams(cudaGraphExec_t hGraphExec, cudaGraphNode_t node,
                                             const struct cudaKernelNodeParams *pNodeParams)
{
    PYSHIM_RT_STICKY_CHECK();
    if (pNodeParams == NULL)
        return pyshim_rt_fail(cudaErrorInvalidValue);
    const struct cudaKernelNodeParams *p = pNodeParams;
    void *fn = NULL;
    unsigned grid[3], block[3];
    int rc = node_launch(p, &fn, grid, block);
    if (rc == cudaSuccess)
        rc = pyshim_rt_hip_graph_exec_kernel_params(hGraphExec, node, fn, grid, block,
                                                    p->sharedMemBytes, p->kernelParams,
                                                    p->extra);
    return rc != cudaSuccess ? pyshim_rt_fail(rc) : cudaSuccess;
}

/* CUDA 12's form: one result struct where HIP returns the node and the result apart. */
cudaError_t cudaGraphExecUpdate(cudaGraphExec_t hGraphExec, cudaGraph_t hGraph,
                                cudaGraphExecUpdateResultInfo *resultInfo)
{
    PYSHIM_RT_STICKY_CHECK();
    if (resultInfo == NULL)
        return pyshim_rt_fail(cudaErrorInvalidValue);
    void *node = NULL;
    int result = 0;
    int rc = pyshim_rt_hip_graph_exec_update(hGraphExec, hGraph, &node, &result);
    resultInfo->result = (enum cudaGraphExecUpdateResult)result;
    resultInfo->errorNode = (cudaGraphNode_t)node;
    resultInfo->errorFromNode = NULL;
    return rc != cudaSuccess ? pyshim_rt_fail(rc) : cudaSuccess;
}

/* ---- per-kernel queries and settings ---- */

static int resolve_stub(const void *func, void **fn)
{
    struct pyshim_rt_func *f = pyshim_rt_func_by_stub(func);
    if (f == NULL)
        return cudaErrorInvalidDeviceFunction;
    return pyshim_rt_func_resolve(f, fn);
}

cudaError_t cudaFuncGetAttributes(struct cudaFuncAttributes *attr, const void *func)
{
    PYSHIM_RT_STICKY_CHECK();
    if (attr == NULL)
        return (cudaError_t)pyshim_rt_record(cudaErrorInvalidValue);
    void *fn = NULL;
    int rc = resolve_stub(func, &fn);
    struct pyshim_rt_func_attrs a;
    if (rc == cudaSuccess)
        rc = pyshim_rt_hip_func_attrs(fn, &a);
    if (rc != cudaSuccess)
        return (cudaError_t)pyshim_rt_record(rc);
    /* HIP's versions are its own architecture's (gfx942: 94); CUDA's are the virtual
     * architecture the kernel's PTX was written for (programs read >= 90 as "built with
     * Hopper features"), and the binary compiled from it */
    int target = 0;
    size_t const_bytes = 0;
    pyshim_rt_func_facts(pyshim_rt_func_by_stub(func), &target, &const_bytes);
    a.ptx_version = a.binary_version = target > 0 ? target : pyshim_identity_cc();
    a.constant = const_bytes; /* the module's __constant__ data (the backends report none) */
    memset(attr, 0, sizeof *attr);
    attr->sharedSizeBytes = a.shared;
    attr->constSizeBytes = a.constant;
    attr->localSizeBytes = a.local;
    attr->maxThreadsPerBlock = a.max_threads;
    attr->numRegs = a.regs;
    attr->ptxVersion = a.ptx_version;
    attr->binaryVersion = a.binary_version;
    attr->maxDynamicSharedSizeBytes = a.max_dynamic_shared;
    /* __cluster_dims__ / .explicitcluster, and the non-portable cluster setting */
    int d[3];
    attr->clusterDimMustBeSet = pyshim_rt_hip_cluster_dims(fn, d);
    attr->requiredClusterWidth = d[0];
    attr->requiredClusterHeight = d[1];
    attr->requiredClusterDepth = d[2];
    attr->nonPortableClusterSizeAllowed = pyshim_rt_hip_cluster_limit(fn) > 8;
    return cudaSuccess;
}

/* Settings the CPU device and HIP apply per launch anyway: accept them for known kernels;
 * clusters above CUDA's portable size are the backend's per-kernel setting. */
cudaError_t cudaFuncSetAttribute(const void *func, enum cudaFuncAttribute attr, int value)
{
    PYSHIM_RT_STICKY_CHECK();
    if (pyshim_rt_func_by_stub(func) == NULL)
        return (cudaError_t)pyshim_rt_record(cudaErrorInvalidDeviceFunction);
    if ((int)attr < 0 || attr >= cudaFuncAttributeMax)
        return (cudaError_t)pyshim_rt_record(cudaErrorInvalidValue);
    void *fn = NULL;
    if (attr == cudaFuncAttributeNonPortableClusterSizeAllowed &&
        resolve_stub(func, &fn) == cudaSuccess)
        pyshim_rt_hip_set_non_portable(fn, value);
    return cudaSuccess;
}

/* the kernel's device (mangled) name, as registered by nvcc's host code */
cudaError_t cudaFuncGetName(const char **name, const void *func)
{
    PYSHIM_RT_STICKY_CHECK();
    if (name == NULL)
        return pyshim_rt_fail(cudaErrorInvalidValue);
    struct pyshim_rt_func *f = pyshim_rt_func_by_handle(func);
    if (f == NULL)
        return pyshim_rt_fail(cudaErrorInvalidDeviceFunction);
    *name = f->name;
    return cudaSuccess;
}

/* The driver's CUfunction for a kernel the runtime knows (a host stub or a cudaKernel_t):
 * libcuda.so.1 loads the kernel's fat binary too, as NVIDIA's runtime has it do. */
cudaError_t cudaGetFuncBySymbol(cudaFunction_t *functionPtr, const void *symbolPtr)
{
    PYSHIM_RT_STICKY_CHECK();
    if (functionPtr == NULL)
        return pyshim_rt_fail(cudaErrorInvalidValue);
    struct pyshim_rt_func *f = pyshim_rt_func_by_handle(symbolPtr);
    if (f == NULL)
        return pyshim_rt_fail(cudaErrorInvalidDeviceFunction);
    void *fn = NULL;
    int rc = pyshim_rt_func_driver(f, &fn);
    if (rc != cudaSuccess)
        return pyshim_rt_fail(rc);
    *functionPtr = (cudaFunction_t)fn;
    return cudaSuccess;
}

/* from the kernel's PTX signature, in CUDA's packed layout (the translator reports it) */
cudaError_t cudaFuncGetParamInfo(const void *func, size_t paramIndex, size_t *paramOffset,
                                 size_t *paramSize)
{
    PYSHIM_RT_STICKY_CHECK();
    if (paramOffset == NULL || paramSize == NULL)
        return pyshim_rt_fail(cudaErrorInvalidValue);
    struct pyshim_rt_func *f = pyshim_rt_func_by_handle(func);
    if (f == NULL)
        return pyshim_rt_fail(cudaErrorInvalidDeviceFunction);
    int rc = pyshim_rt_func_param_info(f, paramIndex, paramOffset, paramSize);
    return rc != cudaSuccess ? pyshim_rt_fail(rc) : cudaSuccess;
}

cudaError_t cudaFuncSetCacheConfig(const void *func, enum cudaFuncCache cacheConfig)
{
    PYSHIM_RT_STICKY_CHECK();
    (void)cacheConfig;
    if (pyshim_rt_func_by_stub(func) == NULL)
        return (cudaError_t)pyshim_rt_record(cudaErrorInvalidDeviceFunction);
    return cudaSuccess;
}

/* The backend's blocks per multiprocessor for `fn`, within the presented identity's
 * resident blocks and threads per multiprocessor, as libcuda's occupancy answers (the
 * backend's own limits may be higher). */
static int capped_occupancy(int *numBlocks, void *fn, int blockSize, size_t dynamicSMemSize,
                            unsigned flags)
{
    int rc = pyshim_rt_hip_occupancy(numBlocks, fn, blockSize, dynamicSMemSize, flags);
    if (rc == cudaSuccess && blockSize > 0) {
        int dev = 0, blocks = 0, threads = 0;
        if (cudaGetDevice(&dev) == cudaSuccess &&
            cudaDeviceGetAttribute(&blocks, cudaDevAttrMaxBlocksPerMultiprocessor, dev) ==
                cudaSuccess &&
            cudaDeviceGetAttribute(&threads, cudaDevAttrMaxThreadsPerMultiProcessor, dev) ==
                cudaSuccess) {
            if (*numBlocks > blocks)
                *numBlocks = blocks;
            if (*numBlocks > threads / blockSize)
                *numBlocks = threads / blockSize;
        }
    }
    return rc;
}

cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(int *numBlocks,
                                                                   const void *func,
                                                                   int blockSize,
                                                                   size_t dynamicSMemSize,
                                                                   unsigned int flags)
{
    PYSHIM_RT_STICKY_CHECK();
    if (numBlocks == NULL || blockSize <= 0)
        return (cudaError_t)pyshim_rt_record(cudaErrorInvalidValue);
    void *fn = NULL;
    int rc = resolve_stub(func, &fn);
    if (rc == cudaSuccess)
        rc = capped_occupancy(numBlocks, fn, blockSize, dynamicSMemSize, flags);
    return (cudaError_t)pyshim_rt_record(rc);
}

cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessor(int *numBlocks, const void *func,
                                                          int blockSize, size_t dynamicSMemSize)
{
    return cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(numBlocks, func, blockSize,
                                                                  dynamicSMemSize,
                                                                  cudaOccupancyDefault);
}

/* A launch configuration's cluster size (its cluster dimension attribute, else the kernel's
 * __cluster_dims__; 0: neither) and the blocks of its shape resident at once. */
static int cluster_occupancy(const void *func, const cudaLaunchConfig_t *c,
                             unsigned long long *size, unsigned long long *resident)
{
    if (c == NULL || (c->numAttrs > 0 && c->attrs == NULL))
        return cudaErrorInvalidValue;
    void *fn = NULL;
    int rc = resolve_stub(func, &fn);
    if (rc != cudaSuccess)
        return rc;
    int dev = 0, clusters = 0, sms = 0, per_sm = 0;
    if (cudaGetDevice(&dev) != cudaSuccess ||
        cudaDeviceGetAttribute(&clusters, cudaDevAttrClusterLaunch, dev) != cudaSuccess ||
        !clusters) {
        pyshim_rt_log("cudaOccupancyMaxActiveClusters: the device does not launch clusters");
        return cudaErrorNotSupported;
    }
    *size = 0;
    for (unsigned i = 0; i < c->numAttrs; i++)
        if (c->attrs[i].id == cudaLaunchAttributeClusterDimension) {
            const cudaLaunchAttributeValue *v = &c->attrs[i].val;
            *size = (unsigned long long)v->clusterDim.x * v->clusterDim.y * v->clusterDim.z;
        }
    int d[3];
    (void)pyshim_rt_hip_cluster_dims(fn, d);
    if (*size == 0 && d[0] > 0)
        *size = (unsigned long long)d[0] * (unsigned)(d[1] > 0 ? d[1] : 1) *
                (unsigned)(d[2] > 0 ? d[2] : 1);
    int threads = (int)((unsigned long long)c->blockDim.x * c->blockDim.y * c->blockDim.z);
    rc = capped_occupancy(&per_sm, fn, threads, c->dynamicSmemBytes, 0);
    if (rc != cudaSuccess)
        return rc;
    if (cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev) != cudaSuccess)
        sms = 0;
    *resident = (unsigned long long)(per_sm > 0 ? per_sm : 0) *
                (unsigned long long)(sms > 0 ? sms : 0);
    return cudaSuccess;
}

/* How many clusters of the configuration's shape run at once: the resident blocks in whole
 * clusters (libcuda's cuOccupancyMaxActiveClusters answers the same). */
cudaError_t cudaOccupancyMaxActiveClusters(int *numClusters, const void *func,
                                           const cudaLaunchConfig_t *launchConfig)
{
    PYSHIM_RT_STICKY_CHECK();
    if (numClusters == NULL)
        return (cudaError_t)pyshim_rt_record(cudaErrorInvalidValue);
    unsigned long long size = 0, resident = 0;
    int rc = cluster_occupancy(func, launchConfig, &size, &resident);
    if (rc != cudaSuccess)
        return (cudaError_t)pyshim_rt_record(rc);
    void *fn = NULL;
    unsigned most = resolve_stub(func, &fn) == cudaSuccess ? pyshim_rt_hip_cluster_limit(fn) : 8;
    if (size == 0 || size > most) {
        pyshim_rt_log("cudaOccupancyMaxActiveClusters: cluster size %llu refused (1 to %u "
                      "blocks; a kernel without __cluster_dims__ needs the cluster dimension "
                      "attribute)", size, most);
        return (cudaError_t)pyshim_rt_record(cudaErrorInvalidClusterSize);
    }
    unsigned long long n = resident / size;
    *numClusters = n > 0x7fffffffull ? 0x7fffffff : (int)n;
    return cudaSuccess;
}

/* The largest cluster the configuration's blocks can form: 8 (CUDA's portable size; 16 with
 * the non-portable attribute set), or fewer when fewer such blocks are resident at once. */
cudaError_t cudaOccupancyMaxPotentialClusterSize(int *clusterSize, const void *func,
                                                 const cudaLaunchConfig_t *launchConfig)
{
    PYSHIM_RT_STICKY_CHECK();
    if (clusterSize == NULL)
        return (cudaError_t)pyshim_rt_record(cudaErrorInvalidValue);
    unsigned long long size = 0, resident = 0;
    int rc = cluster_occupancy(func, launchConfig, &size, &resident);
    if (rc != cudaSuccess)
        return (cudaError_t)pyshim_rt_record(rc);
    void *fn = NULL;
    unsigned most = resolve_stub(func, &fn) == cudaSuccess ? pyshim_rt_hip_cluster_limit(fn) : 8;
    *clusterSize = (int)(resident < most ? resident : most);
    return cudaSuccess;
}
