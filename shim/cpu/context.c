/*
 * Contexts, as libamdhip64 keeps them for driver-API shims: the primary context of the one
 * device, contexts made by hipCtxCreate, and a per-thread stack of current contexts. A
 * context owns nothing here (memory, modules and streams are device-wide), so the objects
 * only carry identity, flags and reference counts.
 */
#include <stdlib.h>

#include "internal.h"

struct ihipCtx_t {
    uint32_t magic;
    int device;
    unsigned flags;
    bool primary;
};

static struct ihipCtx_t primary_ctx = {CPU_MAGIC_CTX, 0, 0, true};
static int primary_refs = 0;
static cpu_handle_set ctx_handles = CPU_HANDLE_SET_INIT;
static pthread_mutex_t ctx_lock = PTHREAD_MUTEX_INITIALIZER;

#define CTX_STACK_MAX 64
static _Thread_local hipCtx_t ctx_stack[CTX_STACK_MAX];
static _Thread_local int ctx_depth = 0;

static bool ctx_valid(hipCtx_t ctx)
{
    return ctx == &primary_ctx || cpu_handles_contains(&ctx_handles, ctx);
}

hipError_t hipCtxCreate(hipCtx_t *ctx, unsigned int flags, hipDevice_t device)
{
    if (ctx == NULL)
        return cpu_ret(hipErrorInvalidValue);
    if (cpu_check_device(device))
        return cpu_ret(hipErrorInvalidDevice);
    struct ihipCtx_t *c = calloc(1, sizeof *c);
    if (c == NULL)
        return cpu_ret(hipErrorOutOfMemory);
    *c = (struct ihipCtx_t){CPU_MAGIC_CTX, device, flags, false};
    if (ctx_depth == CTX_STACK_MAX || !cpu_handles_add(&ctx_handles, c)) {
        free(c);
        return cpu_ret(hipErrorOutOfMemory);
    }
    ctx_stack[ctx_depth++] = c;   /* a new context becomes current, as in CUDA */
    *ctx = c;
    return hipSuccess;
}

hipError_t hipCtxDestroy(hipCtx_t ctx)
{
    if (ctx == &primary_ctx || !cpu_handles_contains(&ctx_handles, ctx))
        return cpu_ret(hipErrorInvalidContext);
    if (cpu_device_wait_idle() == hipErrorNotSupported)
        return cpu_ret(hipErrorNotSupported);
    if (!cpu_handles_remove(&ctx_handles, ctx))
        return cpu_ret(hipErrorInvalidContext);
    for (int i = 0; i < ctx_depth; i++)
        if (ctx_stack[i] == ctx) {
            for (int j = i; j + 1 < ctx_depth; j++)
                ctx_stack[j] = ctx_stack[j + 1];
            ctx_depth--;
            i--;
        }
    ctx->magic = 0;
    free(ctx);
    return hipSuccess;
}

hipError_t hipCtxPushCurrent(hipCtx_t ctx)
{
    if (!ctx_valid(ctx))
        return cpu_ret(hipErrorInvalidContext);
    if (ctx_depth == CTX_STACK_MAX)
        return cpu_ret(hipErrorOutOfMemory);
    ctx_stack[ctx_depth++] = ctx;
    return hipSuccess;
}

hipError_t hipCtxPopCurrent(hipCtx_t *ctx)
{
    if (ctx_depth == 0)
        return cpu_ret(hipErrorInvalidContext);
    hipCtx_t top = ctx_stack[--ctx_depth];
    if (ctx != NULL)
        *ctx = top;
    return hipSuccess;
}

hipError_t hipCtxSetCurrent(hipCtx_t ctx)
{
    if (ctx == NULL) {            /* unbinds the current context */
        if (ctx_depth > 0)
            ctx_depth--;
        return hipSuccess;
    }
    if (!ctx_valid(ctx))
        return cpu_ret(hipErrorInvalidContext);
    if (ctx_depth == 0)
        ctx_stack[ctx_depth++] = ctx;
    else
        ctx_stack[ctx_depth - 1] = ctx;
    return hipSuccess;
}

hipError_t hipCtxGetCurrent(hipCtx_t *ctx)
{
    if (ctx == NULL)
        return cpu_ret(hipErrorInvalidValue);
    *ctx = ctx_depth > 0 ? ctx_stack[ctx_depth - 1] : NULL;
    return hipSuccess;
}

hipError_t hipCtxGetDevice(hipDevice_t *device)
{
    if (device == NULL)
        return cpu_ret(hipErrorInvalidValue);
    if (ctx_depth == 0)
        return cpu_ret(hipErrorInvalidContext);
    *device = ctx_stack[ctx_depth - 1]->device;
    return hipSuccess;
}

hipError_t hipCtxGetApiVersion(hipCtx_t ctx, unsigned int *apiVersion)
{
    if (apiVersion == NULL)
        return cpu_ret(hipErrorInvalidValue);
    if (ctx != NULL && !ctx_valid(ctx))
        return cpu_ret(hipErrorInvalidContext);
    *apiVersion = 4000;   /* what ROCm reports: the CUDA 4.0 context API */
    return hipSuccess;
}

hipError_t hipCtxGetFlags(unsigned int *flags)
{
    if (flags == NULL)
        return cpu_ret(hipErrorInvalidValue);
    *flags = ctx_depth > 0 ? ctx_stack[ctx_depth - 1]->flags : 0;
    return hipSuccess;
}

hipError_t hipCtxSynchronize(void)
{
    return cpu_ret(cpu_device_wait_idle());
}

hipError_t hipCtxGetCacheConfig(hipFuncCache_t *cacheConfig)
{
    return hipDeviceGetCacheConfig(cacheConfig);
}

hipError_t hipCtxSetCacheConfig(hipFuncCache_t cacheConfig)
{
    return hipDeviceSetCacheConfig(cacheConfig);
}

hipError_t hipCtxGetSharedMemConfig(hipSharedMemConfig *pConfig)
{
    if (pConfig == NULL)
        return cpu_ret(hipErrorInvalidValue);
    *pConfig = hipSharedMemBankSizeFourByte;
    return hipSuccess;
}

hipError_t hipCtxSetSharedMemConfig(hipSharedMemConfig config)
{
    (void)config;
    return hipSuccess;
}

hipError_t hipDevicePrimaryCtxRetain(hipCtx_t *pctx, hipDevice_t dev)
{
    if (pctx == NULL)
        return cpu_ret(hipErrorInvalidValue);
    if (cpu_check_device(dev))
        return cpu_ret(hipErrorInvalidDevice);
    pthread_mutex_lock(&ctx_lock);
    primary_refs++;
    pthread_mutex_unlock(&ctx_lock);
    *pctx = &primary_ctx;
    return hipSuccess;
}

hipError_t hipDevicePrimaryCtxRelease(hipDevice_t dev)
{
    if (cpu_check_device(dev))
        return cpu_ret(hipErrorInvalidDevice);
    pthread_mutex_lock(&ctx_lock);
    bool was_active = primary_refs > 0;
    if (was_active)
        primary_refs--;
    pthread_mutex_unlock(&ctx_lock);
    return was_active ? hipSuccess : cpu_ret(hipErrorInvalidContext);
}

hipError_t hipDevicePrimaryCtxGetState(hipDevice_t dev, unsigned int *flags, int *active)
{
    if (flags == NULL || active == NULL)
        return cpu_ret(hipErrorInvalidValue);
    if (cpu_check_device(dev))
        return cpu_ret(hipErrorInvalidDevice);
    pthread_mutex_lock(&ctx_lock);
    *flags = primary_ctx.flags;
    *active = primary_refs > 0;
    pthread_mutex_unlock(&ctx_lock);
    return hipSuccess;
}

hipError_t hipDevicePrimaryCtxSetFlags(hipDevice_t dev, unsigned int flags)
{
    if (cpu_check_device(dev))
        return cpu_ret(hipErrorInvalidDevice);
    pthread_mutex_lock(&ctx_lock);
    bool active = primary_refs > 0;
    if (!active)
        primary_ctx.flags = flags;
    pthread_mutex_unlock(&ctx_lock);
    /* ROCm refuses to change the flags of an active primary context. */
    return active ? cpu_ret(hipErrorContextAlreadyInUse) : hipSuccess;
}

hipError_t hipDevicePrimaryCtxReset(hipDevice_t dev)
{
    if (cpu_check_device(dev))
        return cpu_ret(hipErrorInvalidDevice);
    hipDeviceReset();
    pthread_mutex_lock(&ctx_lock);
    primary_refs = 0;
    primary_ctx.flags = 0;
    pthread_mutex_unlock(&ctx_lock);
    return hipSuccess;
}
