/*
 * Contexts. Each device has one primary context, created by cuInit and usable (current)
 * before anyone retains it, as cudart expects. Contexts map onto HIP's per-thread current
 * device: making a context current makes its device current in HIP. The current context
 * is a per-thread stack (cuCtxPush/PopCurrent); cuCtxSetCurrent replaces its top.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

#define STACK_DEPTH 64

static struct CUctx_st *primaries;
static int num_primaries;

static _Thread_local CUcontext stack[STACK_DEPTH];
static _Thread_local int depth;
/* The top of the stack, read by every API call. Not initial-exec TLS: one such variable
 * marks the library STATIC_TLS, and glibc then puts all its TLS (1.5 KB: the stacks, the
 * last error text) in the static block, whose spare room for dlopened libraries (512
 * bytes) other libraries may have taken: ggml's process failed to dlopen libcuda.so.1
 * with `cannot allocate memory in static TLS block`. */
static _Thread_local CUcontext top;

static void sync_top(void)
{
    top = depth > 0 ? stack[depth - 1] : NULL;
}

void pyshim_contexts_create(int count);
void pyshim_contexts_create(int count)
{
    primaries = calloc((size_t)count, sizeof *primaries);
    if (primaries == NULL)
        return;
    for (int i = 0; i < count; i++) {
        primaries[i].magic = PYSHIM_CTX_MAGIC;
        primaries[i].device = i;
        primaries[i].is_primary = 1;
    }
    num_primaries = count;
}

CUcontext pyshim_primary_ctx(int device)
{
    if (device < 0 || device >= num_primaries)
        return NULL;
    return &primaries[device];
}

/* Decided by address, never by reading through `ctx`: a primary is an element of our
 * array, a created context is in the live set. */
int pyshim_ctx_valid(CUcontext ctx)
{
    if (ctx == NULL)
        return 0;
    uintptr_t a = (uintptr_t)ctx, base = (uintptr_t)primaries;
    if (primaries != NULL && a >= base && a < base + (size_t)num_primaries * sizeof *primaries)
        return (a - base) % sizeof *primaries == 0;
    return pyshim_handles_contains(&pyshim_live_contexts, ctx) && ctx->magic == PYSHIM_CTX_MAGIC;
}

CUcontext pyshim_current_ctx(void)
{
    return top;
}

static CUresult bind(CUcontext ctx)
{
    /* one device: HIP's current device is always it; skipping the query keeps a forwarded
     * call within a few ns of calling HIP directly */
    if (ctx == NULL || num_primaries == 1)
        return CUDA_SUCCESS;
    int cur = -1;
    if (hipGetDevice(&cur) == hipSuccess && cur == ctx->device)
        return CUDA_SUCCESS;
    return pyshim_cu_from_hip(hipSetDevice(ctx->device));
}

CUresult pyshim_ctx_resolve(CUcontext in, CUcontext *out)
{
    CUcontext ctx = in != NULL ? in : pyshim_current_ctx();
    if (!pyshim_ctx_valid(ctx))
        return CUDA_ERROR_INVALID_CONTEXT;
    if (out != NULL)
        *out = ctx;
    return bind(ctx);
}

CUresult pyshim_need_ctx(void)
{
    CUresult rc = pyshim_check_init();
    if (rc != CUDA_SUCCESS)
        return rc;
    return pyshim_ctx_resolve(NULL, NULL);
}

CUresult CUDAAPI cuCtxGetCurrent(CUcontext *pctx)
{
    if (pctx == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    CUresult rc = pyshim_check_init();
    if (rc != CUDA_SUCCESS)
        return rc;
    *pctx = pyshim_current_ctx();
    return CUDA_SUCCESS;
}

CUresult CUDAAPI cuCtxSetCurrent(CUcontext ctx)
{
    CUresult rc = pyshim_check_init();
    if (rc != CUDA_SUCCESS)
        return rc;
    if (ctx == NULL) {
        if (depth > 0)
            depth--;
        sync_top();
        return CUDA_SUCCESS;
    }
    if (!pyshim_ctx_valid(ctx))
        return CUDA_ERROR_INVALID_CONTEXT;
    if (depth == 0)
        depth = 1;
    stack[depth - 1] = ctx;
    sync_top();
    return bind(ctx);
}

CUresult CUDAAPI cuCtxPushCurrent_v2(CUcontext ctx)
{
    CUresult rc = pyshim_check_init();
    if (rc != CUDA_SUCCESS)
        return rc;
    if (!pyshim_ctx_valid(ctx))
        return CUDA_ERROR_INVALID_CONTEXT;
    if (depth == STACK_DEPTH)
        return CUDA_ERROR_OUT_OF_MEMORY;
    stack[depth++] = ctx;
    sync_top();
    return bind(ctx);
}

CUresult CUDAAPI cuCtxPopCurrent_v2(CUcontext *pctx)
{
    CUresult rc = pyshim_check_init();
    if (rc != CUDA_SUCCESS)
        return rc;
    if (depth == 0)
        return CUDA_ERROR_INVALID_CONTEXT;
    CUcontext popped = stack[--depth];
    sync_top();
    if (pctx != NULL)
        *pctx = popped;
    return bind(pyshim_current_ctx());
}

CUresult CUDAAPI cuCtxCreate_v4(CUcontext *pctx, CUctxCreateParams *params, unsigned int flags,
                                CUdevice dev)
{
    (void)params;
    if (pctx == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    CUresult rc = pyshim_check_init();
    if (rc != CUDA_SUCCESS)
        return rc;
    if (dev < 0 || dev >= num_primaries)
        return CUDA_ERROR_INVALID_DEVICE;
    struct CUctx_st *ctx = calloc(1, sizeof *ctx);
    if (ctx == NULL)
        return CUDA_ERROR_OUT_OF_MEMORY;
    ctx->magic = PYSHIM_CTX_MAGIC;
    ctx->device = dev;
    ctx->flags = flags;
    if (!pyshim_handles_add(&pyshim_live_contexts, ctx)) {
        free(ctx);
        return CUDA_ERROR_OUT_OF_MEMORY;
    }
    rc = cuCtxPushCurrent_v2(ctx);
    if (rc != CUDA_SUCCESS) {
        pyshim_handles_remove(&pyshim_live_contexts, ctx);
        free(ctx);
        return rc;
    }
    *pctx = ctx;
    return CUDA_SUCCESS;
}

CUresult CUDAAPI cuCtxCreate_v2(CUcontext *pctx, unsigned int flags, CUdevice dev)
{
    return cuCtxCreate_v4(pctx, NULL, flags, dev);
}

/* CUDA 11.4's ABI with execution-affinity parameters (an SM count per context): the
 * backend cannot partition its multiprocessors, so only "none" is accepted. */
CUresult CUDAAPI cuCtxCreate_v3(CUcontext *pctx, CUexecAffinityParam *paramsArray, int numParams,
                                unsigned int flags, CUdevice dev);
CUresult CUDAAPI cuCtxCreate_v3(CUcontext *pctx, CUexecAffinityParam *paramsArray, int numParams,
                                unsigned int flags, CUdevice dev)
{
    if (numParams < 0 || (numParams > 0 && paramsArray == NULL))
        return CUDA_ERROR_INVALID_VALUE;
    if (numParams > 0) {
        pyshim_log("cuCtxCreate_v3: execution-affinity parameters are not supported "
                   "(cuDeviceGetExecAffinitySupport reports none)");
        return CUDA_ERROR_UNSUPPORTED_EXEC_AFFINITY;
    }
    return cuCtxCreate_v4(pctx, NULL, flags, dev);
}

CUresult CUDAAPI cuCtxDestroy_v2(CUcontext ctx)
{
    CUresult rc = pyshim_check_init();
    if (rc != CUDA_SUCCESS)
        return rc;
    if (!pyshim_ctx_valid(ctx) || ctx->is_primary)
        return CUDA_ERROR_INVALID_CONTEXT;
    if (!pyshim_handles_remove(&pyshim_live_contexts, ctx))
        return CUDA_ERROR_INVALID_CONTEXT;   /* another thread destroyed it meanwhile */
    pyshim_cls_destroy_all(ctx);
    /* remove it from this thread's stack; other threads must not use it any more */
    for (int i = 0; i < depth; i++)
        if (stack[i] == ctx) {
            memmove(&stack[i], &stack[i + 1], (size_t)(depth - i - 1) * sizeof stack[0]);
            depth--;
            i--;
        }
    sync_top();
    ctx->magic = 0;
    free(ctx->coredump);
    free(ctx);
    return CUDA_SUCCESS;
}

CUresult CUDAAPI cuCtxGetDevice(CUdevice *device)
{
    if (device == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    CUcontext ctx;
    CUresult rc = pyshim_ctx_resolve(NULL, &ctx);
    if (rc != CUDA_SUCCESS)
        return rc;
    *device = ctx->device;
    return CUDA_SUCCESS;
}

CUresult CUDAAPI cuCtxGetDevice_v2(CUdevice *device, CUcontext ctx)
{
    if (device == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    CUcontext c;
    CUresult rc = pyshim_ctx_resolve(ctx, &c);
    if (rc != CUDA_SUCCESS)
        return rc;
    *device = c->device;
    return CUDA_SUCCESS;
}

CUresult CUDAAPI cuCtxSynchronize(void)
{
    CUresult rc = pyshim_need_ctx();
    if (rc != CUDA_SUCCESS)
        return rc;
    return pyshim_cu_from_hip(hipDeviceSynchronize());
}

CUresult CUDAAPI cuCtxSynchronize_v2(CUcontext ctx)
{
    CUresult rc = pyshim_ctx_resolve(ctx, NULL);
    if (rc != CUDA_SUCCESS)
        return rc;
    return pyshim_cu_from_hip(hipDeviceSynchronize());
}

CUresult CUDAAPI cuCtxGetFlags(unsigned int *flags)
{
    if (flags == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    CUcontext ctx;
    CUresult rc = pyshim_ctx_resolve(NULL, &ctx);
    if (rc != CUDA_SUCCESS)
        return rc;
    *flags = ctx->flags;
    return CUDA_SUCCESS;
}

CUresult CUDAAPI cuCtxGetApiVersion(CUcontext ctx, unsigned int *version)
{
    if (version == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    CUresult rc = pyshim_ctx_resolve(ctx, NULL);
    if (rc != CUDA_SUCCESS)
        return rc;
    *version = 3020;
    return CUDA_SUCCESS;
}

CUresult CUDAAPI cuCtxGetLimit(size_t *pvalue, CUlimit limit)
{
    if (pvalue == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    CUresult rc = pyshim_need_ctx();
    if (rc != CUDA_SUCCESS)
        return rc;
    /* CU_LIMIT_* and hipLimit_t share their values for the limits HIP has */
    return pyshim_cu_from_hip(hipDeviceGetLimit(pvalue, (enum hipLimit_t)limit));
}

CUresult CUDAAPI cuCtxSetLimit(CUlimit limit, size_t value)
{
    CUresult rc = pyshim_need_ctx();
    if (rc != CUDA_SUCCESS)
        return rc;
    return pyshim_cu_from_hip(hipDeviceSetLimit((enum hipLimit_t)limit, value));
}

#undef cuCtxDestroy
CUresult CUDAAPI cuCtxDestroy(CUcontext ctx);
CUresult CUDAAPI cuCtxDestroy(CUcontext ctx)
{
    return cuCtxDestroy_v2(ctx);
}

/* the CUDA 3.2 ABI, which cuda.h renames */
#undef cuCtxCreate
CUresult CUDAAPI cuCtxCreate(CUcontext *pctx, unsigned int flags, CUdevice dev);
CUresult CUDAAPI cuCtxCreate(CUcontext *pctx, unsigned int flags, CUdevice dev)
{
    return cuCtxCreate_v4(pctx, NULL, flags, dev);
}
