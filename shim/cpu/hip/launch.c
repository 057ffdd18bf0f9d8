/*
 * Kernel launches: validation as HIP does it, a private copy of the arguments (the launch
 * is asynchronous, the caller's argument storage is not ours to keep), and a command on the
 * stream that hands the grid to the executor. Also function attributes and occupancy.
 */
#include <stdlib.h>
#include <string.h>

#include "common/cluster_launch.h"
#include "graph_internal.h"
#include "internal.h"

/* A kernel node's launch attributes (hipGraphKernelNodeSetAttribute) that change nothing
 * on an in-order device without an L2 to steer or memory-sync domains, kept to be read
 * back; the cooperative one is job.cooperative. Zero (cpu_cmd_new) is CUDA's default. */
typedef struct launch_attrs {
    hipAccessPolicyWindow window;
    int priority;
    hipLaunchMemSyncDomainMap domain_map;
    hipLaunchMemSyncDomain domain;
} launch_attrs;

typedef struct launch_payload {
    const void *function;        /* the hipFunction_t, to notice an unloaded module */
    launch_attrs attrs;
    cpu_grid_job job;
    /* followed by job.params (num_params pointers), then the packed argument bytes */
} launch_payload;

static void run_launch(cpu_cmd *c)
{
    launch_payload *p = (launch_payload *)c->payload;
    if (cpu_function_lookup(p->function) == NULL) {
        /* a graph replayed after its module was unloaded */
        cpu_log("launch of a kernel whose module was unloaded: skipped");
        cpu_set_sticky_error(hipErrorInvalidResourceHandle);
        return;
    }
    hipError_t err = cpu_launch_run(cpu_function_lookup(p->function), &p->job, 0);
    if (err != hipSuccess)
        cpu_set_sticky_error(err);
}

/* Where the argument bytes start in a launch payload with `num_params` pointers. */
static size_t args_offset(uint32_t num_params)
{
    size_t ptrs = (size_t)num_params * sizeof(void *);
    return sizeof(launch_payload) + (ptrs + 15) / 16 * 16;
}

/* Points the parameter array of a launch payload at that payload's own argument bytes. */
static void point_params(cpu_cmd *c)
{
    launch_payload *p = (launch_payload *)c->payload;
    const pyshim_kernel_desc *k = p->job.kernel;
    unsigned char *args = c->payload + args_offset(k->num_params);
    p->job.params = (void **)(c->payload + sizeof(launch_payload));
    for (uint32_t i = 0; i < k->num_params; i++)
        p->job.params[i] = args + k->params[i].offset;
}

static uint32_t static_shared(const struct ihipModuleSymbol_t *f)
{
    return f->desc->static_shared_bytes;
}

hipError_t cpu_launch_validate(const struct ihipModuleSymbol_t *f, pyshim_dim3 g, pyshim_dim3 b,
                               unsigned shared)
{
    const pyshim_kernel_desc *k = f->desc;
    const hipDeviceProp_tR0600 *p = &cpu_dev()->props;
    if (g.x == 0 || g.y == 0 || g.z == 0 || b.x == 0 || b.y == 0 || b.z == 0)
        return hipErrorInvalidValue;
    if (b.x > (unsigned)p->maxThreadsDim[0] || b.y > (unsigned)p->maxThreadsDim[1] ||
        b.z > (unsigned)p->maxThreadsDim[2])
        return hipErrorInvalidValue;
    uint64_t threads = (uint64_t)b.x * b.y * b.z;
    if (threads > CPU_MAX_THREADS)
        return hipErrorInvalidValue;
    /* ROCm reports a block above the kernel's launch bounds as a launch failure. */
    if (k->max_threads && threads > k->max_threads)
        return hipErrorLaunchFailure;
    if (k->reqntid.x && (b.x != k->reqntid.x || b.y != (k->reqntid.y ? k->reqntid.y : 1) ||
                         b.z != (k->reqntid.z ? k->reqntid.z : 1)))
        return hipErrorInvalidValue;
    if (g.x > (unsigned)p->maxGridSize[0] || g.y > (unsigned)p->maxGridSize[1] ||
        g.z > (unsigned)p->maxGridSize[2])
        return hipErrorInvalidValue;
    /* A grid whose size in work-items does not fit 32 bits per dimension is not a valid
     * configuration for ROCm's dispatch packet. */
    if ((uint64_t)g.x * b.x > UINT32_MAX || (uint64_t)g.y * b.y > UINT32_MAX ||
        (uint64_t)g.z * b.z > UINT32_MAX)
        return hipErrorInvalidValue;
    if ((uint64_t)shared + static_shared(f) > CPU_MAX_SHARED || shared > (unsigned)f->max_dyn_shared)
        return hipErrorInvalidValue;
    return hipSuccess;
}

/* Reads the `extra` array: HIP_LAUNCH_PARAM_BUFFER_POINTER, ptr, HIP_LAUNCH_PARAM_BUFFER_SIZE,
 * &size, HIP_LAUNCH_PARAM_END, the two pairs in either order. On error, `why` says what. */
static hipError_t parse_extra(void **extra, const void **buf, size_t *size, const char **why)
{
    *buf = NULL;
    *size = 0;
    bool have_size = false;
    for (int i = 0; i < 16; i += 2) {
        if (extra[i] == HIP_LAUNCH_PARAM_END) {
            if (*buf != NULL && have_size)
                return hipSuccess;
            *why = "no buffer pointer or no buffer size before HIP_LAUNCH_PARAM_END";
            return hipErrorInvalidValue;
        }
        if (extra[i] == HIP_LAUNCH_PARAM_BUFFER_POINTER) {
            *buf = extra[i + 1];
        } else if (extra[i] == HIP_LAUNCH_PARAM_BUFFER_SIZE) {
            if (extra[i + 1] == NULL) {
                *why = "HIP_LAUNCH_PARAM_BUFFER_SIZE points nowhere";
                return hipErrorInvalidValue;
            }
            *size = *(const size_t *)extra[i + 1];
            have_size = true;
        } else {
            /* CUDA ends the list with NULL; HIP_LAUNCH_PARAM_END is ((void *)3) */
            *why = extra[i] == NULL ? "a NULL key: CU_LAUNCH_PARAM_END, not HIP_LAUNCH_PARAM_END"
                                    : "an unknown key";
            return hipErrorInvalidValue;
        }
    }
    *why = "no HIP_LAUNCH_PARAM_END within 8 pairs";
    return hipErrorInvalidValue;
}

bool cpu_cmd_is_launch(const cpu_cmd *c)
{
    return c->run == run_launch;
}

hipError_t cpu_launch_cmd(const void *handle, pyshim_dim3 g, pyshim_dim3 b, unsigned shared,
                          void **kernelParams, void **extra, cpu_cmd **out)
{
    struct ihipModuleSymbol_t *f = cpu_function_lookup(handle);
    if (f == NULL)
        return hipErrorInvalidResourceHandle;
    const pyshim_kernel_desc *k = f->desc;
    hipError_t err = cpu_launch_validate(f, g, b, shared);
    if (err != hipSuccess) {
        cpu_log("launch of %s with grid (%u,%u,%u) block (%u,%u,%u) shared %u refused: %s",
                k->name, g.x, g.y, g.z, b.x, b.y, b.z, shared, hipGetErrorName(err));
        return err;
    }
    const void *packed = NULL;
    size_t packed_size = 0;
    if (kernelParams != NULL && extra != NULL)
        return hipErrorInvalidValue;
    if (extra != NULL) {
        const char *why = NULL;
        err = parse_extra(extra, &packed, &packed_size, &why);
        if (err == hipSuccess && packed_size < k->params_bytes) {
            cpu_log("launch of %s: the 'extra' buffer has %zu bytes, the parameters need %u",
                    k->name, packed_size, k->params_bytes);
            return hipErrorInvalidValue;
        }
        if (err != hipSuccess) {
            cpu_log("launch of %s: malformed 'extra' array: %s", k->name, why);
            return err;
        }
    } else if (kernelParams == NULL && k->num_params > 0) {
        cpu_log("launch of %s: %u parameters expected, no arguments given", k->name,
                k->num_params);
        return hipErrorInvalidValue;
    } else {
        for (uint32_t i = 0; i < k->num_params; i++)
            if (kernelParams[i] == NULL) {
                cpu_log("launch of %s: kernelParams[%u] is NULL", k->name, i);
                return hipErrorInvalidValue;
            }
    }
    size_t args_at = args_offset(k->num_params);
    cpu_cmd *c = cpu_cmd_new(run_launch, args_at + k->params_bytes);
    if (c == NULL)
        return hipErrorOutOfMemory;
    launch_payload *p = (launch_payload *)c->payload;
    unsigned char *args = c->payload + args_at;
    p->function = handle;
    p->job.kernel = k;
    c->fixup = point_params;
    point_params(c);
    for (uint32_t i = 0; i < k->num_params; i++) {
        const pyshim_param_desc *d = &k->params[i];
        if (packed != NULL)
            memcpy(args + d->offset, (const unsigned char *)packed + d->offset, d->size);
        else
            memcpy(args + d->offset, kernelParams[i], d->size);
    }
    cpu_launch_init(&p->job, k, g, b, shared);
    *out = c;
    return hipSuccess;
}

void cpu_launch_init(cpu_grid_job *job, const pyshim_kernel_desc *k, pyshim_dim3 g,
                     pyshim_dim3 b, unsigned shared)
{
    const cpu_device *dev = cpu_dev();
    /* a __cluster_dims__ kernel runs in its clusters wherever it is launched from (graph
     * nodes too), when the grid is whole clusters of them; launch() checks and refuses the
     * rest, and sets an explicit cluster launch's shape */
    pyshim_dim3 cl = k->reqnctapercluster;
    if (cl.x == 0 || cl.y == 0 || cl.z == 0 || g.x % cl.x || g.y % cl.y || g.z % cl.z ||
        (uint64_t)cl.x * cl.y * cl.z > PYSHIM_MAX_PORTABLE_CLUSTER)
        cl = (pyshim_dim3){0, 0, 0};
    job->kernel = k;
    job->device = cpu_current_device();
    job->launch = (pyshim_launch){
        .grid = g,
        .block = b,
        .warp_size = (uint32_t)dev->wave,
        .dyn_shared_bytes = shared,
        .num_sms = (uint32_t)dev->workers,
        .vprintf = cpu_vprintf,
        .runtime_ctx = NULL,
        .cluster = cl,
    };
}

static int active_blocks(const struct ihipModuleSymbol_t *f, int block_size, size_t dyn_shared);

/* A cooperative launch's blocks must all be resident at once (grid-wide sync waits for
 * every one of them): at most the occupancy calculator's blocks per multiprocessor times
 * the multiprocessors, as on a GPU. Each block then runs on a thread of its own. */
static hipError_t check_cooperative(const void *handle, pyshim_dim3 g, pyshim_dim3 b,
                                    unsigned shared)
{
    struct ihipModuleSymbol_t *f = cpu_function_lookup(handle);
    if (f == NULL)
        return hipErrorInvalidResourceHandle;
    uint64_t threads = (uint64_t)b.x * b.y * b.z, blocks = (uint64_t)g.x * g.y * g.z;
    if (threads == 0 || threads > CPU_MAX_THREADS || blocks == 0)
        return hipErrorInvalidValue;   /* validate() names it */
    uint64_t limit = (uint64_t)active_blocks(f, (int)threads, shared) * (uint64_t)cpu_dev()->workers;
    if (blocks > limit) {
        cpu_log("cooperative launch of %s with %llu blocks of %llu threads (%u bytes of dynamic "
                "shared memory) refused: at most %llu blocks can be resident at once "
                "(hipErrorCooperativeLaunchTooLarge)", f->desc->name, (unsigned long long)blocks,
                (unsigned long long)threads, shared, (unsigned long long)limit);
        return hipErrorCooperativeLaunchTooLarge;
    }
    return hipSuccess;
}

/* A cluster launch's shape: `req` (a launch attribute; NULL: none), else the kernel's
 * .reqnctapercluster; zeros when the launch has no explicit clusters. The grid must be whole
 * clusters of at most CUDA's portable size, each of them resident at once (its blocks run
 * together, a thread each): past that, as on a GPU, the launch is refused. */
static hipError_t cluster_shape(const void *handle, pyshim_dim3 g, pyshim_dim3 b,
                                unsigned shared, const pyshim_dim3 *req, pyshim_dim3 *out)
{
    *out = (pyshim_dim3){0, 0, 0};
    struct ihipModuleSymbol_t *f = cpu_function_lookup(handle);
    if (f == NULL)
        return hipErrorInvalidResourceHandle;
    const pyshim_kernel_desc *k = f->desc;
    pyshim_dim3 c = k->reqnctapercluster;
    if (req != NULL) {
        if (c.x != 0 && (c.x != req->x || c.y != req->y || c.z != req->z)) {
            cpu_log("launch of %s with clusters of (%u,%u,%u) blocks refused: the kernel was "
                    "compiled for clusters of (%u,%u,%u)", k->name, req->x, req->y, req->z,
                    c.x, c.y, c.z);
            return hipErrorInvalidValue;
        }
        c = *req;
    } else if (c.x == 0) {
        if (k->explicit_cluster) {
            cpu_log("launch of %s refused: the kernel needs a cluster launch (.explicitcluster) "
                    "and was given no cluster dimensions", k->name);
            return hipErrorInvalidValue;
        }
        return hipSuccess;
    }
    uint64_t size = (uint64_t)c.x * c.y * c.z;
    unsigned most = f->non_portable_cluster ? PYSHIM_MAX_NONPORTABLE_CLUSTER
                                            : PYSHIM_MAX_PORTABLE_CLUSTER;
    if (c.x == 0 || c.y == 0 || c.z == 0 || g.x % c.x || g.y % c.y || g.z % c.z ||
        size > most) {
        cpu_log("launch of %s with grid (%u,%u,%u) in clusters of (%u,%u,%u) blocks refused: "
                "the grid must be whole clusters of at most %u blocks", k->name, g.x, g.y, g.z,
                c.x, c.y, c.z, most);
        return hipErrorInvalidValue;
    }
    uint64_t threads = (uint64_t)b.x * b.y * b.z;
    if (threads > 0 && threads <= CPU_MAX_THREADS) {
        uint64_t resident =
            (uint64_t)active_blocks(f, (int)threads, shared) * (uint64_t)cpu_dev()->workers;
        if (size > resident) {
            cpu_log("launch of %s in clusters of %llu blocks of %llu threads (%u bytes of "
                    "dynamic shared memory) refused: at most %llu such blocks can be resident "
                    "at once", k->name, (unsigned long long)size, (unsigned long long)threads,
                    shared, (unsigned long long)resident);
            return hipErrorLaunchOutOfResources;
        }
    }
    *out = c;
    return hipSuccess;
}

static hipError_t launch(const void *handle, pyshim_dim3 g, pyshim_dim3 b, unsigned shared,
                         hipStream_t stream, bool spt, void **kernelParams, void **extra,
                         bool cooperative, const pyshim_dim3 *cluster)
{
    struct ihipStream_t *s;
    hipError_t err = cpu_stream_resolve(stream, spt, &s);
    if (err != hipSuccess)
        return err;
    if (cooperative && (err = check_cooperative(handle, g, b, shared)) != hipSuccess)
        return err;
    pyshim_dim3 shape;
    if ((err = cluster_shape(handle, g, b, shared, cluster, &shape)) != hipSuccess)
        return err;
    if (cooperative && shape.x != 0) {
        cpu_log("a cooperative launch in clusters is not supported on the CPU device");
        return hipErrorInvalidValue;
    }
    cpu_cmd *c;
    err = cpu_launch_cmd(handle, g, b, shared, kernelParams, extra, &c);
    if (err != hipSuccess)
        return err;
    ((launch_payload *)c->payload)->job.cooperative = cooperative;
    ((launch_payload *)c->payload)->job.launch.cluster = shape;
    return cpu_stream_enqueue(s, c, NULL);
}

hipError_t hipModuleLaunchKernel(hipFunction_t f, unsigned int gridDimX, unsigned int gridDimY,
                                 unsigned int gridDimZ, unsigned int blockDimX,
                                 unsigned int blockDimY, unsigned int blockDimZ,
                                 unsigned int sharedMemBytes, hipStream_t stream,
                                 void **kernelParams, void **extra)
{
    return cpu_ret(launch(f, (pyshim_dim3){gridDimX, gridDimY, gridDimZ},
                          (pyshim_dim3){blockDimX, blockDimY, blockDimZ}, sharedMemBytes, stream,
                          false, kernelParams, extra, false, NULL));
}

/* cuLaunchKernelEx's HIP form: a launch configuration with attributes. */
hipError_t hipDrvLaunchKernelEx(const HIP_LAUNCH_CONFIG *config, hipFunction_t f, void **params,
                                void **extra)
{
    if (config == NULL || (config->numAttrs > 0 && config->attrs == NULL))
        return cpu_ret(hipErrorInvalidValue);
    bool cooperative = false;
    pyshim_dim3 cluster, *with_cluster = NULL;
    for (unsigned i = 0; i < config->numAttrs; i++) {
        const hipLaunchAttribute *a = &config->attrs[i];
        switch ((int)a->id) {
        case hipLaunchAttributeCooperative: cooperative = a->val.cooperative != 0; break;
        case PYSHIM_HIP_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION:   /* common/cluster_launch.h */
            memcpy(&cluster, a->val.pad, sizeof cluster);
            with_cluster = &cluster;
            break;
        case hipLaunchAttributePriority:
        case hipLaunchAttributeAccessPolicyWindow:
        case hipLaunchAttributeSynchronizationPolicy:
        case hipLaunchAttributeMemSyncDomain:
        case hipLaunchAttributeMemSyncDomainMap: break;   /* hints */
        default:
            cpu_log("hipDrvLaunchKernelEx: unknown launch attribute %d", (int)a->id);
            return cpu_ret(hipErrorInvalidValue);
        }
    }
    if (cooperative && extra != NULL)
        return cpu_ret(hipErrorInvalidValue);   /* as hipModuleLaunchCooperativeKernel: params only */
    return cpu_ret(launch(f, (pyshim_dim3){config->gridDimX, config->gridDimY, config->gridDimZ},
                          (pyshim_dim3){config->blockDimX, config->blockDimY, config->blockDimZ},
                          config->sharedMemBytes, config->hStream, false, params, extra,
                          cooperative, with_cluster));
}

hipError_t hipModuleLaunchCooperativeKernel(hipFunction_t f, unsigned int gridDimX,
                                            unsigned int gridDimY, unsigned int gridDimZ,
                                            unsigned int blockDimX, unsigned int blockDimY,
                                            unsigned int blockDimZ, unsigned int sharedMemBytes,
                                            hipStream_t stream, void **kernelParams)
{
    return cpu_ret(launch(f, (pyshim_dim3){gridDimX, gridDimY, gridDimZ},
                          (pyshim_dim3){blockDimX, blockDimY, blockDimZ}, sharedMemBytes, stream,
                          false, kernelParams, NULL, true, NULL));
}

/* As hipLaunchKernel: the hipFunction_t of a loaded module stands for the host stub. */
hipError_t hipLaunchCooperativeKernel(const void *f, dim3 gridDim, dim3 blockDimX,
                                      void **kernelParams, unsigned int sharedMemBytes,
                                      hipStream_t stream)
{
    if (cpu_function_lookup(f) == NULL)
        return cpu_ret(hipErrorInvalidDeviceFunction);
    return cpu_ret(launch(f, (pyshim_dim3){gridDim.x, gridDim.y, gridDim.z},
                          (pyshim_dim3){blockDimX.x, blockDimX.y, blockDimX.z}, sharedMemBytes,
                          stream, false, kernelParams, NULL, true, NULL));
}

/* hipLaunchKernel names kernels by host stub address, which only hipcc-built programs
 * register; here it accepts the hipFunction_t of a loaded module instead. */
hipError_t hipLaunchKernel(const void *function_address, dim3 numBlocks, dim3 dimBlocks,
                           void **args, size_t sharedMemBytes, hipStream_t stream)
{
    if (cpu_function_lookup(function_address) == NULL)
        return cpu_ret(hipErrorInvalidDeviceFunction);
    if (sharedMemBytes > UINT32_MAX)
        return cpu_ret(hipErrorInvalidValue);
    return cpu_ret(launch(function_address, (pyshim_dim3){numBlocks.x, numBlocks.y, numBlocks.z},
                          (pyshim_dim3){dimBlocks.x, dimBlocks.y, dimBlocks.z},
                          (unsigned)sharedMemBytes, stream, false, args, NULL, false, NULL));
}

hipError_t hipLaunchKernel_spt(const void *function_address, dim3 numBlocks, dim3 dimBlocks,
                               void **args, size_t sharedMemBytes, hipStream_t stream)
{
    if (cpu_function_lookup(function_address) == NULL)
        return cpu_ret(hipErrorInvalidDeviceFunction);
    if (sharedMemBytes > UINT32_MAX)
        return cpu_ret(hipErrorInvalidValue);
    return cpu_ret(launch(function_address, (pyshim_dim3){numBlocks.x, numBlocks.y, numBlocks.z},
                          (pyshim_dim3){dimBlocks.x, dimBlocks.y, dimBlocks.z},
                          (unsigned)sharedMemBytes, stream, true, args, NULL, false, NULL));
}

/* ---- function attributes ---- */

static int max_threads(const struct ihipModuleSymbol_t *f)
{
    return f->desc->max_threads ? (int)f->desc->max_threads : (int)CPU_MAX_THREADS;
}

static int binary_version(void)
{
    return cpu_dev()->props.major * 10 + cpu_dev()->props.minor;
}

hipError_t hipFuncGetAttribute(int *value, hipFunction_attribute attrib, hipFunction_t hfunc)
{
    struct ihipModuleSymbol_t *f = cpu_function_lookup(hfunc);
    if (value == NULL)
        return cpu_ret(hipErrorInvalidValue);
    if (f == NULL)
        return cpu_ret(hipErrorInvalidResourceHandle);
    const pyshim_kernel_desc *k = f->desc;
    switch ((int)attrib) {
    case PYSHIM_HIP_FUNC_ATTRIBUTE_CLUSTER_SIZE_MUST_BE_SET:   /* common/cluster_launch.h */
        *value = (int)k->explicit_cluster;
        return hipSuccess;
    case PYSHIM_HIP_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_WIDTH:
        *value = (int)k->reqnctapercluster.x;
        return hipSuccess;
    case PYSHIM_HIP_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_WIDTH + 1:   /* height */
        *value = (int)k->reqnctapercluster.y;
        return hipSuccess;
    case PYSHIM_HIP_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_DEPTH:
        *value = (int)k->reqnctapercluster.z;
        return hipSuccess;
    case PYSHIM_HIP_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED:
        *value = f->non_portable_cluster;
        return hipSuccess;
    default: break;
    }
    switch (attrib) {
    case HIP_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK: *value = max_threads(f); break;
    case HIP_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES: *value = (int)k->static_shared_bytes; break;
    case HIP_FUNC_ATTRIBUTE_CONST_SIZE_BYTES: *value = 0; break;
    case HIP_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES: *value = (int)k->local_bytes; break;
    case HIP_FUNC_ATTRIBUTE_NUM_REGS: *value = (int)k->num_regs; break;
    case HIP_FUNC_ATTRIBUTE_PTX_VERSION:
    case HIP_FUNC_ATTRIBUTE_BINARY_VERSION: *value = binary_version(); break;
    case HIP_FUNC_ATTRIBUTE_CACHE_MODE_CA: *value = 0; break;
    case HIP_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES: *value = f->max_dyn_shared; break;
    case HIP_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT: *value = -1; break;
    default: return cpu_ret(hipErrorInvalidValue);
    }
    return hipSuccess;
}

hipError_t hipFuncGetAttributes(struct hipFuncAttributes *attr, const void *func)
{
    struct ihipModuleSymbol_t *f = cpu_function_lookup(func);
    if (attr == NULL)
        return cpu_ret(hipErrorInvalidValue);
    if (f == NULL)
        return cpu_ret(hipErrorInvalidDeviceFunction);
    const pyshim_kernel_desc *k = f->desc;
    *attr = (struct hipFuncAttributes){
        .binaryVersion = binary_version(),
        .cacheModeCA = 0,
        .constSizeBytes = 0,
        .localSizeBytes = k->local_bytes,
        .maxDynamicSharedSizeBytes = f->max_dyn_shared,
        .maxThreadsPerBlock = max_threads(f),
        .numRegs = (int)k->num_regs,
        .preferredShmemCarveout = -1,
        .ptxVersion = binary_version(),
        .sharedSizeBytes = k->static_shared_bytes,
    };
    return hipSuccess;
}

hipError_t hipFuncSetAttribute(const void *func, hipFuncAttribute attr, int value)
{
    struct ihipModuleSymbol_t *f = cpu_function_lookup(func);
    if (f == NULL)
        return cpu_ret(hipErrorInvalidDeviceFunction);
    if ((int)attr == PYSHIM_HIP_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED) {
        f->non_portable_cluster = value != 0;   /* common/cluster_launch.h */
        return hipSuccess;
    }
    switch (attr) {
    case hipFuncAttributeMaxDynamicSharedMemorySize:
        if (value < 0 || (uint64_t)value + static_shared(f) > CPU_MAX_SHARED)
            return cpu_ret(hipErrorInvalidValue);
        f->max_dyn_shared = value;
        return hipSuccess;
    case hipFuncAttributePreferredSharedMemoryCarveout:
        return value < -1 || value > 100 ? cpu_ret(hipErrorInvalidValue) : hipSuccess;
    default:
        return cpu_ret(hipErrorInvalidValue);
    }
}

hipError_t hipFuncSetCacheConfig(const void *func, hipFuncCache_t config)
{
    (void)config;
    return cpu_function_lookup(func) ? hipSuccess : cpu_ret(hipErrorInvalidDeviceFunction);
}

hipError_t hipFuncSetSharedMemConfig(const void *func, hipSharedMemConfig config)
{
    (void)config;
    return cpu_function_lookup(func) ? hipSuccess : cpu_ret(hipErrorInvalidDeviceFunction);
}

/* ---- occupancy: threads, shared memory and blocks per multiprocessor ---- */

static int active_blocks(const struct ihipModuleSymbol_t *f, int block_size, size_t dyn_shared)
{
    const hipDeviceProp_tR0600 *p = &cpu_dev()->props;
    if (block_size <= 0 || block_size > max_threads(f))
        return 0;
    size_t shared = dyn_shared + static_shared(f);
    if (shared > CPU_MAX_SHARED)
        return 0;
    int wave = p->warpSize;
    int rounded = (block_size + wave - 1) / wave * wave;
    int n = p->maxThreadsPerMultiProcessor / rounded;
    if (shared > 0 && (int)(p->sharedMemPerMultiprocessor / shared) < n)
        n = (int)(p->sharedMemPerMultiprocessor / shared);
    if (n > p->maxBlocksPerMultiProcessor)
        n = p->maxBlocksPerMultiProcessor;
    return n;
}

static hipError_t max_active(int *numBlocks, hipFunction_t f, int blockSize, size_t dyn,
                             unsigned flags)
{
    struct ihipModuleSymbol_t *fn = cpu_function_lookup(f);
    if (numBlocks == NULL || blockSize <= 0 || flags > 1)
        return hipErrorInvalidValue;
    if (fn == NULL)
        return hipErrorInvalidResourceHandle;
    *numBlocks = active_blocks(fn, blockSize, dyn);
    return hipSuccess;
}

hipError_t hipModuleOccupancyMaxActiveBlocksPerMultiprocessor(int *numBlocks, hipFunction_t f,
                                                              int blockSize,
                                                              size_t dynSharedMemPerBlk)
{
    return cpu_ret(max_active(numBlocks, f, blockSize, dynSharedMemPerBlk, 0));
}

hipError_t hipModuleOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(
    int *numBlocks, hipFunction_t f, int blockSize, size_t dynSharedMemPerBlk,
    unsigned int flags)
{
    return cpu_ret(max_active(numBlocks, f, blockSize, dynSharedMemPerBlk, flags));
}

static hipError_t potential_block_size(int *gridSize, int *blockSize, hipFunction_t f,
                                       size_t dyn, int limit, unsigned flags)
{
    struct ihipModuleSymbol_t *fn = cpu_function_lookup(f);
    if (gridSize == NULL || blockSize == NULL || flags > 1)
        return hipErrorInvalidValue;
    if (fn == NULL)
        return hipErrorInvalidResourceHandle;
    int top = max_threads(fn);
    if (limit > 0 && limit < top)
        top = limit;
    int wave = cpu_dev()->wave;
    int best = 0, best_threads = -1;
    /* Largest block with the most resident threads; smaller sizes only if they do better. */
    for (int bs = top; bs > 0; bs = bs > wave && bs % wave ? bs / wave * wave : bs - wave) {
        int threads = active_blocks(fn, bs, dyn) * bs;
        if (threads > best_threads) {
            best = bs;
            best_threads = threads;
        }
    }
    if (best_threads <= 0)
        return hipErrorInvalidValue;   /* the shared memory request cannot fit */
    *blockSize = best;
    *gridSize = active_blocks(fn, best, dyn) * cpu_dev()->workers;
    return hipSuccess;
}

hipError_t hipModuleOccupancyMaxPotentialBlockSize(int *gridSize, int *blockSize,
                                                   hipFunction_t f, size_t dynSharedMemPerBlk,
                                                   int blockSizeLimit)
{
    return cpu_ret(potential_block_size(gridSize, blockSize, f, dynSharedMemPerBlk,
                                        blockSizeLimit, 0));
}

hipError_t hipModuleOccupancyMaxPotentialBlockSizeWithFlags(int *gridSize, int *blockSize,
                                                            hipFunction_t f,
                                                            size_t dynSharedMemPerBlk,
                                                            int blockSizeLimit,
                                                            unsigned int flags)
{
    return cpu_ret(potential_block_size(gridSize, blockSize, f, dynSharedMemPerBlk,
                                        blockSizeLimit, flags));
}

/* The runtime-API occupancy calls name the kernel by `const void *`: accept our handles. */
hipError_t hipOccupancyMaxActiveBlocksPerMultiprocessor(int *numBlocks, const void *f,
                                                        int blockSize, size_t dynSharedMemPerBlk)
{
    if (cpu_function_lookup(f) == NULL)
        return cpu_ret(hipErrorInvalidDeviceFunction);
    return cpu_ret(max_active(numBlocks, (hipFunction_t)f, blockSize, dynSharedMemPerBlk, 0));
}

hipError_t hipOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(int *numBlocks, const void *f,
                                                                 int blockSize,
                                                                 size_t dynSharedMemPerBlk,
                                                                 unsigned int flags)
{
    if (cpu_function_lookup(f) == NULL)
        return cpu_ret(hipErrorInvalidDeviceFunction);
    return cpu_ret(max_active(numBlocks, (hipFunction_t)f, blockSize, dynSharedMemPerBlk, flags));
}

hipError_t hipOccupancyMaxPotentialBlockSize(int *gridSize, int *blockSize, const void *f,
                                             size_t dynSharedMemPerBlk, int blockSizeLimit)
{
    if (cpu_function_lookup(f) == NULL)
        return cpu_ret(hipErrorInvalidDeviceFunction);
    return cpu_ret(potential_block_size(gridSize, blockSize, (hipFunction_t)f,
                                        dynSharedMemPerBlk, blockSizeLimit, 0));
}

hipError_t hipOccupancyAvailableDynamicSMemPerBlock(size_t *dynamicSmemSize, const void *f,
                                                    int numBlocks, int blockSize)
{
    struct ihipModuleSymbol_t *fn = cpu_function_lookup(f);
    if (dynamicSmemSize == NULL || numBlocks <= 0 || blockSize <= 0)
        return cpu_ret(hipErrorInvalidValue);
    if (fn == NULL)
        return cpu_ret(hipErrorInvalidDeviceFunction);
    if (blockSize > max_threads(fn) || numBlocks > active_blocks(fn, blockSize, 0)) {
        *dynamicSmemSize = 0;
        return hipSuccess;
    }
    size_t per_block = CPU_MAX_SHARED / (size_t)numBlocks;
    size_t avail = per_block > static_shared(fn) ? per_block - static_shared(fn) : 0;
    *dynamicSmemSize = avail < (size_t)fn->max_dyn_shared ? avail : (size_t)fn->max_dyn_shared;
    return hipSuccess;
}

/* A kernel node's parameters as hipGraphKernelNodeGetParams reports them: the arguments
 * are the node's own copies. False for a command that is not a launch. */
bool cpu_cmd_launch_params(const cpu_cmd *c, hipKernelNodeParams *out, const char **name)
{
    if (!cpu_cmd_is_launch(c))
        return false;
    const launch_payload *p = (const launch_payload *)c->payload;
    const pyshim_launch *l = &p->job.launch;
    if (out != NULL)
        *out = (hipKernelNodeParams){
            .blockDim = {l->block.x, l->block.y, l->block.z},
            .extra = NULL,
            .func = (void *)p->function,
            .gridDim = {l->grid.x, l->grid.y, l->grid.z},
            .kernelParams = p->job.params,
            .sharedMemBytes = l->dyn_shared_bytes,
        };
    if (name != NULL)
        *name = p->job.kernel->name;
    return true;
}

/* ---- a kernel node's launch attributes ---- */

/* The launch payload of graph kernel node `node`, or NULL (logged). */
static launch_payload *node_launch(hipGraphNode_t node, const char *fn)
{
    if (!cpu_graph_node_live(node) || !cpu_cmd_is_launch((const cpu_cmd *)node)) {
        cpu_log("%s: %p is not a kernel node", fn, (void *)node);
        return NULL;
    }
    return (launch_payload *)((cpu_cmd *)node)->payload;
}

hipError_t hipGraphKernelNodeSetAttribute(hipGraphNode_t hNode, hipLaunchAttributeID attr,
                                          const hipLaunchAttributeValue *value)
{
    const char *fn = "hipGraphKernelNodeSetAttribute";
    launch_payload *p = node_launch(hNode, fn);
    if (p == NULL || value == NULL)
        return cpu_ret(hipErrorInvalidValue);
    hipError_t err = hipSuccess;
    pthread_mutex_lock(&cpu_sched_lock);
    switch (attr) {
    case hipLaunchAttributeAccessPolicyWindow:
        if (value->accessPolicyWindow.hitRatio < 0.0f || value->accessPolicyWindow.hitRatio > 1.0f)
            err = hipErrorInvalidValue;
        else
            p->attrs.window = value->accessPolicyWindow;
        break;
    case hipLaunchAttributeCooperative:
        /* the node's blocks must all be resident at once, as for a cooperative launch */
        if (value->cooperative != 0)
            err = check_cooperative(p->function, p->job.launch.grid, p->job.launch.block,
                                    p->job.launch.dyn_shared_bytes);
        if (err == hipSuccess)
            p->job.cooperative = value->cooperative != 0;
        break;
    case hipLaunchAttributePriority:
        p->attrs.priority = value->priority;
        break;
    case hipLaunchAttributeMemSyncDomainMap:
        p->attrs.domain_map = value->memSyncDomainMap;
        break;
    case hipLaunchAttributeMemSyncDomain:
        if (value->memSyncDomain != hipLaunchMemSyncDomainDefault &&
            value->memSyncDomain != hipLaunchMemSyncDomainRemote)
            err = hipErrorInvalidValue;
        else
            p->attrs.domain = value->memSyncDomain;
        break;
    default: /* the synchronization policy is a stream's, not a node's */
        err = hipErrorInvalidValue;
        break;
    }
    pthread_mutex_unlock(&cpu_sched_lock);
    if (err == hipErrorInvalidValue)
        cpu_log("%s: attribute %d with this value is not one a kernel node takes", fn, (int)attr);
    return cpu_ret(err);
}

hipError_t hipGraphKernelNodeGetAttribute(hipGraphNode_t hNode, hipLaunchAttributeID attr,
                                          hipLaunchAttributeValue *value)
{
    const char *fn = "hipGraphKernelNodeGetAttribute";
    launch_payload *p = node_launch(hNode, fn);
    if (p == NULL || value == NULL)
        return cpu_ret(hipErrorInvalidValue);
    hipError_t err = hipSuccess;
    pthread_mutex_lock(&cpu_sched_lock);
    switch (attr) {
    case hipLaunchAttributeAccessPolicyWindow:
        value->accessPolicyWindow = p->attrs.window;
        break;
    case hipLaunchAttributeCooperative:
        value->cooperative = p->job.cooperative;
        break;
    case hipLaunchAttributePriority:
        value->priority = p->attrs.priority;
        break;
    case hipLaunchAttributeMemSyncDomainMap:
        value->memSyncDomainMap = p->attrs.domain_map;
        break;
    case hipLaunchAttributeMemSyncDomain:
        value->memSyncDomain = p->attrs.domain;
        break;
    default:
        cpu_log("%s: attribute %d is not one a kernel node has", fn, (int)attr);
        err = hipErrorInvalidValue;
        break;
    }
    pthread_mutex_unlock(&cpu_sched_lock);
    return cpu_ret(err);
}

/* Every launch attribute of one kernel node given to another (CUDA's
 * cudaGraphKernelNodeCopyAttributes); hipGraphKernelNodeSetParams keeps a node's own. */
void cpu_cmd_launch_copy_attrs(cpu_cmd *dst, const cpu_cmd *src)
{
    launch_payload *d = (launch_payload *)dst->payload;
    const launch_payload *s = (const launch_payload *)src->payload;
    d->attrs = s->attrs;
    d->job.cooperative = s->job.cooperative;
    d->job.launch.cluster = s->job.launch.cluster;   /* CUDA's cluster dimension attribute */
}

hipError_t hipGraphKernelNodeCopyAttributes(hipGraphNode_t hSrc, hipGraphNode_t hDst)
{
    const char *fn = "hipGraphKernelNodeCopyAttributes";
    if (node_launch(hSrc, fn) == NULL || node_launch(hDst, fn) == NULL)
        return cpu_ret(hipErrorInvalidValue);
    pthread_mutex_lock(&cpu_sched_lock);
    cpu_cmd_launch_copy_attrs((cpu_cmd *)hDst, (const cpu_cmd *)hSrc);
    pthread_mutex_unlock(&cpu_sched_lock);
    return hipSuccess;
}
