/*
 * One of the two files of libcudart that include HIP's headers (backend_adapt.c converts
 * the structs HIP lays out differently): module loading (through the
 * embedded translator), kernel lookup and launch, device properties. Callers meet it
 * through internal.h with plain C types; results are cudaError_t values.
 */
#define _POSIX_C_SOURCE 200809L
#include <hip/hip_runtime_api.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/cluster_launch.h"
#include "common/module_bind.h"
#include "internal.h"
#include "runtime_error_codes.h"

#pragma GCC diagnostic ignored "-Wdeprecated-declarations"


/* the generated cudaDeviceProp map, checked against HIP's layout of the same fields */
#define PYSHIM_RT_PROP(cuda_off, hip_off, size, field)                                    \
    _Static_assert(offsetof(hipDeviceProp_tR0600, field) == (hip_off) &&                   \
                       sizeof(((hipDeviceProp_tR0600 *)0)->field) == (size),               \
                   "hipDeviceProp_tR0600." #field " is not where the tables say");
#include "runtime_devprop.inc"
#undef PYSHIM_RT_PROP
_Static_assert(sizeof(hipDeviceProp_tR0600) <= PYSHIM_RT_HIPPROP_SIZE, "hipDeviceProp_tR0600");

static int rt(hipError_t err)
{
    return err == hipSuccess ? 0 : pyshim_rt_from_hip(err);
}

/* The translator target for the current device: "cpu-wave64", "hip-wave64:gfx942" ...
 * (the same rule as shim/core/module.c's target_name). */
static void target_name(char *out, size_t len)
{
    int dev = 0;
    hipDeviceProp_t p;
    int have = hipGetDevice(&dev) == hipSuccess && hipGetDeviceProperties(&p, dev) == hipSuccess;
    int wave = have ? p.warpSize : 64;
    const char *backend = getenv("PYSHIM_BACKEND");
    int cpu;
    if (backend != NULL && backend[0] != '\0')
        cpu = strcmp(backend, "cpu") == 0;
    else
        cpu = !have || strncmp(p.gcnArchName, "gfx", 3) != 0;
    if (cpu) {
        snprintf(out, len, "cpu-wave%d", wave);
        return;
    }
    char arch[sizeof p.gcnArchName];
    snprintf(arch, sizeof arch, "%s", p.gcnArchName);
    arch[strcspn(arch, ":")] = '\0'; /* drop feature flags such as ":sramecc+:xnack-" */
    snprintf(out, len, "hip-wave%d:%s", wave, arch);
}

/* A loaded module. A huge module (pyshim/kernels/lazy.py) loads as a data object alone,
 * holding "pyshim:lazy" (the module's cache key); each of its kernels is translated into
 * an object of its own on first use and kept in `kernels`. */
struct rt_kernel_object {
    hipModule_t module;
    struct rt_kernel_object *next;
};

struct rt_module {
    hipModule_t data;
    char *lazy_key; /* NULL: an eager module, every kernel is in `data` */
    struct rt_kernel_object *kernels;
};

int pyshim_rt_hip_load(const void *image, size_t size, void **module, char **kernels)
{
    char target[320], path[4096];
    target_name(target, sizeof target);
    int rc = pyshim_rt_py_translate(image, size, target, path, sizeof path, kernels);
    if (rc != 0)
        return rc;
    struct rt_module *m = calloc(1, sizeof *m);
    if (m == NULL)
        return PYSHIM_RT_cudaErrorMemoryAllocation;
    hipError_t err = hipModuleLoad(&m->data, path);
    if (err != hipSuccess) {
        pyshim_rt_log("hipModuleLoad(%s) failed: %s", path, hipGetErrorName(err));
        free(m);
        rc = rt(err);
        return rc != 0 ? rc : PYSHIM_RT_cudaErrorUnknown;
    }
    hipDeviceptr_t key = NULL;
    size_t key_len = 0;
    if (hipModuleGetGlobal(&key, &key_len, m->data, "pyshim:lazy") == hipSuccess &&
        key_len >= 2) {
        m->lazy_key = strndup((const char *)key, key_len);
        if (m->lazy_key == NULL) {
            hipModuleUnload(m->data);
            free(m);
            return PYSHIM_RT_cudaErrorMemoryAllocation;
        }
    }
    *module = m;
    return 0;
}

void pyshim_rt_hip_unload(void *module)
{
    struct rt_module *m = module;
    if (m == NULL)
        return;
    for (struct rt_kernel_object *k = m->kernels, *next; k != NULL; k = next) {
        next = k->next;
        hipModuleUnload(k->module);
        free(k);
    }
    hipModuleUnload(m->data);
    free(m->lazy_key);
    free(m);
}

/* Kernel `name` of lazily loaded module m, translated and loaded now. */
static int lazy_function(struct rt_module *m, const char *name, hipFunction_t *out)
{
    size_t cap = 16 + strlen(m->lazy_key) + strlen(name);
    char *request = malloc(cap);
    if (request == NULL)
        return PYSHIM_RT_cudaErrorMemoryAllocation;
    int len = snprintf(request, cap, "PSLAZYK1\n%s\n%s\n", m->lazy_key, name);
    char target[320], path[4096];
    target_name(target, sizeof target);
    int rc = pyshim_rt_py_translate(request, (size_t)len, target, path, sizeof path, NULL);
    free(request);
    if (rc != 0)
        return rc;
    struct rt_kernel_object *k = calloc(1, sizeof *k);
    if (k == NULL)
        return PYSHIM_RT_cudaErrorMemoryAllocation;
    hipError_t err = hipModuleLoad(&k->module, path);
    if (err != hipSuccess) {
        pyshim_rt_log("hipModuleLoad(%s) failed: %s", path, hipGetErrorName(err));
        free(k);
        return PYSHIM_RT_cudaErrorInvalidKernelImage;
    }
    rc = pyshim_bind_globals(m->data, k->module, name) == 0
             ? 0
             : PYSHIM_RT_cudaErrorInvalidKernelImage;
    if (rc == 0 && hipModuleGetFunction(out, k->module, name) != hipSuccess) {
        pyshim_rt_log("kernel %s is not in its own translated object", name);
        rc = PYSHIM_RT_cudaErrorInvalidDeviceFunction;
    }
    if (rc != 0) {
        hipModuleUnload(k->module);
        free(k);
        return rc;
    }
    k->next = m->kernels;
    m->kernels = k;
    return 0;
}

/* Called with register.c's load_lock held, which serialises the lazy translations. */
int pyshim_rt_hip_function(void *module, const char *name, void **fn)
{
    struct rt_module *m = module;
    hipFunction_t f = NULL;
    if (hipModuleGetFunction(&f, m->data, name) == hipSuccess) {
        *fn = f;
        return 0;
    }
    for (struct rt_kernel_object *k = m->kernels; k != NULL; k = k->next)
        if (hipModuleGetFunction(&f, k->module, name) == hipSuccess) {
            *fn = f;
            return 0;
        }
    if (m->lazy_key == NULL) {
        pyshim_rt_log("kernel %s is not in its translated module", name);
        return PYSHIM_RT_cudaErrorInvalidDeviceFunction;
    }
    int rc = lazy_function(m, name, &f);
    if (rc != 0)
        return rc;
    *fn = f;
    return 0;
}

int pyshim_rt_hip_global(void *module, const char *name, void **dptr, size_t *size)
{
    hipDeviceptr_t p = NULL;
    size_t bytes = 0;
    if (hipModuleGetGlobal(&p, &bytes, ((struct rt_module *)module)->data, name) != hipSuccess) {
        pyshim_rt_log("device variable %s is not in its translated module", name);
        return PYSHIM_RT_cudaErrorInvalidSymbol;
    }
    *dptr = p;
    *size = bytes;
    return 0;
}

int pyshim_rt_hip_launch(void *fn, const unsigned grid[3], const unsigned block[3],
                         size_t shmem, void *stream, void **args)
{
    if (shmem > 0xffffffffu)
        return PYSHIM_RT_cudaErrorInvalidValue;
    return rt(hipModuleLaunchKernel((hipFunction_t)fn, grid[0], grid[1], grid[2], block[0],
                                    block[1], block[2], (unsigned)shmem, (hipStream_t)stream,
                                    args, NULL));
}

int pyshim_rt_hip_launch_cooperative(void *fn, const unsigned grid[3], const unsigned block[3],
                                     size_t shmem, void *stream, void **args)
{
    if (shmem > 0xffffffffu)
        return PYSHIM_RT_cudaErrorInvalidValue;
    return rt(hipModuleLaunchCooperativeKernel((hipFunction_t)fn, grid[0], grid[1], grid[2],
                                               block[0], block[1], block[2], (unsigned)shmem,
                                               (hipStream_t)stream, args));
}

int pyshim_rt_hip_launch_cluster(void *fn, const unsigned grid[3], const unsigned block[3],
                                 size_t shmem, void *stream, void **args,
                                 const unsigned cluster[3], int cooperative)
{
    if (shmem > 0xffffffffu)
        return PYSHIM_RT_cudaErrorInvalidValue;
    hipLaunchAttribute attrs[2];
    memset(attrs, 0, sizeof attrs);
    attrs[0].id = (hipLaunchAttributeID)PYSHIM_HIP_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
    memcpy(attrs[0].val.pad, cluster, 3 * sizeof *cluster);
    attrs[1].id = hipLaunchAttributeCooperative;
    attrs[1].val.cooperative = cooperative;
    HIP_LAUNCH_CONFIG cfg = {
        .gridDimX = grid[0], .gridDimY = grid[1], .gridDimZ = grid[2],
        .blockDimX = block[0], .blockDimY = block[1], .blockDimZ = block[2],
        .sharedMemBytes = (unsigned)shmem, .hStream = (hipStream_t)stream,
        .attrs = attrs, .numAttrs = 2,
    };
    return rt(hipDrvLaunchKernelEx(&cfg, (hipFunction_t)fn, args, NULL));
}

unsigned pyshim_rt_hip_cluster_limit(void *fn)
{
    int allowed = 0;
    const int id = PYSHIM_HIP_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED;
    if (fn != NULL &&
        hipFuncGetAttribute(&allowed, (hipFunction_attribute)id, (hipFunction_t)fn) ==
            hipSuccess &&
        allowed)
        return PYSHIM_MAX_NONPORTABLE_CLUSTER;
    return PYSHIM_MAX_PORTABLE_CLUSTER;
}

void pyshim_rt_hip_set_non_portable(void *fn, int value)
{
    /* a backend without clusters has nothing to raise */
    const int id = PYSHIM_HIP_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED;
    (void)hipFuncSetAttribute((const void *)fn, (hipFuncAttribute)id, value);
}

int pyshim_rt_hip_cluster_dims(void *fn, int dims[3])
{
    int must = 0;
    const int width = PYSHIM_HIP_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_WIDTH,
              must_set = PYSHIM_HIP_FUNC_ATTRIBUTE_CLUSTER_SIZE_MUST_BE_SET;
    for (int i = 0; i < 3; i++)
        if (hipFuncGetAttribute(&dims[i],
                                (hipFunction_attribute)(width + i),
                                (hipFunction_t)fn) != hipSuccess)
            dims[i] = 0;   /* a backend without clusters: none */
    if (hipFuncGetAttribute(&must,
                            (hipFunction_attribute)must_set,
                            (hipFunction_t)fn) != hipSuccess)
        must = 0;
    return must;
}

int pyshim_rt_hip_props(int device, void *buf, size_t len)
{
    if (len < sizeof(hipDeviceProp_tR0600))
        return PYSHIM_RT_cudaErrorInvalidValue;
    return rt(hipGetDevicePropertiesR0600((hipDeviceProp_tR0600 *)buf, device));
}

int pyshim_rt_hip_max_threads(void *fn)
{
    int v = 0;
    if (hipFuncGetAttribute(&v, HIP_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, (hipFunction_t)fn) !=
        hipSuccess)
        return 0;
    return v;
}

int pyshim_rt_hip_func_attrs(void *fn, struct pyshim_rt_func_attrs *out)
{
    hipFunction_t f = (hipFunction_t)fn;
    int v[8] = {0};
    static const hipFunction_attribute ids[8] = {
        HIP_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, HIP_FUNC_ATTRIBUTE_CONST_SIZE_BYTES,
        HIP_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES, HIP_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK,
        HIP_FUNC_ATTRIBUTE_NUM_REGS, HIP_FUNC_ATTRIBUTE_PTX_VERSION,
        HIP_FUNC_ATTRIBUTE_BINARY_VERSION, HIP_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
    };
    for (int i = 0; i < 8; i++) {
        /* an attribute the backend does not know stays 0, as CUDA reports unset ones */
        if (hipFuncGetAttribute(&v[i], ids[i], f) != hipSuccess)
            v[i] = 0;
    }
    out->shared = (size_t)v[0];
    out->constant = (size_t)v[1];
    out->local = (size_t)v[2];
    out->max_threads = v[3];
    out->regs = v[4];
    out->ptx_version = v[5];
    out->binary_version = v[6];
    out->max_dynamic_shared = v[7];
    return 0;
}

int pyshim_rt_hip_device_count(int *count)
{
    return rt(hipGetDeviceCount(count));
}

int pyshim_rt_hip_get_device(int *device)
{
    return rt(hipGetDevice(device));
}

int pyshim_rt_hip_set_device(int device)
{
    return rt(hipSetDevice(device));
}

int pyshim_rt_hip_device_reset(void)
{
    return rt(hipDeviceReset());
}

int pyshim_rt_hip_host_malloc(void **ptr, size_t size)
{
    return rt(hipHostMalloc(ptr, size, hipHostMallocDefault));
}

int pyshim_rt_hip_pointer_attrs(const void *ptr, struct pyshim_rt_pointer_attrs *out)
{
    hipPointerAttribute_t a;
    memset(&a, 0, sizeof a);
    hipError_t err = hipPointerGetAttributes(&a, ptr);
    if (err != hipSuccess)
        return rt(err);
    /* HIP 6+ numbers unregistered/host/device/managed as CUDA does; array and unified
     * memory have no cudaMemoryType of their own and read as device memory */
    switch (a.type) {
    case hipMemoryTypeUnregistered: out->type = 0; break;
    case hipMemoryTypeHost: out->type = 1; break;
    case hipMemoryTypeManaged: out->type = 3; break;
    default: out->type = a.isManaged ? 3 : 2; break;
    }
    out->device = a.device;
    out->device_pointer = a.devicePointer;
    out->host_pointer = a.hostPointer;
    return 0;
}

/* Stream callbacks: HIP calls back with its stream and status; CUDA's callback wants the
 * stream handle the program passed and a cudaError_t. */
struct callback {
    void (*fn)(void *ctx, int cuda_status);
    void *ctx;
};

static void trampoline(hipStream_t stream, hipError_t status, void *data)
{
    (void)stream;
    struct callback cb = *(struct callback *)data;
    free(data);
    cb.fn(cb.ctx, status == hipSuccess ? 0 : pyshim_rt_from_hip(status));
}

int pyshim_rt_hip_stream_callback(void *stream, void (*fn)(void *ctx, int cuda_status),
                                  void *ctx, unsigned flags)
{
    struct callback *cb = malloc(sizeof *cb);
    if (cb == NULL)
        return 2; /* cudaErrorMemoryAllocation */
    cb->fn = fn;
    cb->ctx = ctx;
    hipError_t err = hipStreamAddCallback((hipStream_t)stream, trampoline, cb, flags);
    if (err != hipSuccess)
        free(cb);
    return rt(err);
}

int pyshim_rt_hip_occupancy(int *blocks, void *fn, int block_size, size_t dynamic_shared,
                            unsigned flags)
{
    return rt(hipModuleOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(
        blocks, (hipFunction_t)fn, block_size, dynamic_shared, flags));
}

int pyshim_rt_hip_prefetch(const void *ptr, size_t count, int device, void *stream)
{
    return rt(hipMemPrefetchAsync(ptr, count, device, (hipStream_t)stream));
}

int pyshim_rt_hip_advise(const void *ptr, size_t count, int advice, int device)
{
    /* cudaMemoryAdvise and hipMemoryAdvise number SetReadMostly..UnsetAccessedBy 1..6 */
    if (advice < hipMemAdviseSetReadMostly || advice > hipMemAdviseUnsetAccessedBy)
        return PYSHIM_RT_cudaErrorInvalidValue;
    return rt(hipMemAdvise(ptr, count, (hipMemoryAdvise)advice, device));
}

int pyshim_rt_hip_attribute(int *value, int hip_attr, int device)
{
    return rt(hipDeviceGetAttribute(value, (hipDeviceAttribute_t)hip_attr, device));
}

/* new in the CPU device this session; any ROCm has them, an older CPU device does not */
#pragma weak hipGraphExecKernelNodeSetParams
#pragma weak hipGraphExecUpdate
#pragma weak hipGraphKernelNodeSetParams

/* a module kernel's node: func holds the hipFunction_t, as for hipModuleLaunchKernel */
static hipKernelNodeParams node_params(void *fn, const unsigned grid[3],
                                       const unsigned block[3], unsigned shmem, void **args,
                                       void **extra)
{
    hipKernelNodeParams p;
    memset(&p, 0, sizeof p);
    p.func = fn;
    p.gridDim = (dim3){grid[0], grid[1], grid[2]};
    p.blockDim = (dim3){block[0], block[1], block[2]};
    p.sharedMemBytes = shmem;
    p.kernelParams = args;
    p.extra = extra;
    return p;
}

int pyshim_rt_hip_graph_exec_kernel_params(void *exec, void *node, void *fn,
                                           const unsigned grid[3], const unsigned block[3],
                                           unsigned shmem, void **args, void **extra)
{
    if (hipGraphExecKernelNodeSetParams == NULL)
        return PYSHIM_RT_cudaErrorNotSupported;
    hipKernelNodeParams p = node_params(fn, grid, block, shmem, args, extra);
    return rt(hipGraphExecKernelNodeSetParams((hipGraphExec_t)exec, (hipGraphNode_t)node, &p));
}

int pyshim_rt_hip_graph_kernel_params(void *node, void *fn, const unsigned grid[3],
                                      const unsigned block[3], unsigned shmem, void **args,
                                      void **extra)
{
    if (hipGraphKernelNodeSetParams == NULL)
        return PYSHIM_RT_cudaErrorNotSupported;
    hipKernelNodeParams p = node_params(fn, grid, block, shmem, args, extra);
    return rt(hipGraphKernelNodeSetParams((hipGraphNode_t)node, &p));
}

int pyshim_rt_hip_graph_exec_update(void *exec, void *graph, void **error_node, int *result)
{
    *error_node = NULL;
    *result = (int)hipGraphExecUpdateError;
    if (hipGraphExecUpdate == NULL)
        return PYSHIM_RT_cudaErrorNotSupported;
    hipGraphNode_t n = NULL;
    hipGraphExecUpdateResult r = hipGraphExecUpdateError;
    hipError_t err = hipGraphExecUpdate((hipGraphExec_t)exec, (hipGraph_t)graph, &n, &r);
    *error_node = n;
    *result = (int)r;   /* cudaGraphExecUpdateResult has HIP's values */
    return rt(err);
}

int pyshim_rt_hip_graph_kernel_node(void **node, void *graph, void *const *deps, size_t ndeps,
                                    void *fn, const unsigned grid[3], const unsigned block[3],
                                    unsigned shmem, void **args, void **extra)
{
    hipKernelNodeParams p = node_params(fn, grid, block, shmem, args, extra);
    return rt(hipGraphAddKernelNode((hipGraphNode_t *)node, (hipGraph_t)graph,
                                    (const hipGraphNode_t *)deps, ndeps, &p));
}

/* CUDA's resource, texture and view descriptors begin with HIP's fields in HIP's order
 * (CUDA adds flags and reserved words after them), so they are passed as they are. */
int pyshim_rt_hip_create_texture(void **out, const void *res, const void *tex, const void *view)
{
    return rt(hipCreateTextureObject((hipTextureObject_t *)out, (const hipResourceDesc *)res,
                                     (const hipTextureDesc *)tex,
                                     (const struct hipResourceViewDesc *)view));
}

int pyshim_rt_hip_create_surface(void **out, const void *res)
{
    return rt(hipCreateSurfaceObject((hipSurfaceObject_t *)out, (const hipResourceDesc *)res));
}

int pyshim_rt_hip_texture_resource(void *res, void *tex)
{
    return rt(hipGetTextureObjectResourceDesc((hipResourceDesc *)res, (hipTextureObject_t)tex));
}

int pyshim_rt_hip_texture_desc(void *desc, void *tex)
{
    return rt(hipGetTextureObjectTextureDesc((hipTextureDesc *)desc, (hipTextureObject_t)tex));
}

int pyshim_rt_hip_texture_view(void *view, void *tex)
{
    return rt(hipGetTextureObjectResourceViewDesc((struct hipResourceViewDesc *)view,
                                                  (hipTextureObject_t)tex));
}
