/*
 * Contexts as ROCm has them: a context is a device, so every context handle of a device is
 * the same object (hipCtxCreate and hipDevicePrimaryCtxRetain hand out the device's one
 * context), with a per-thread stack of current contexts and a reference count. Making a
 * context current makes its device current (hipSetDevice). Memory, modules and streams are
 * device-wide; CUDA's context semantics are the shim's business.
 */
#include "internal.h"

struct ihipCtx_t {
    uint32_t magic;
    int device;
};

static struct ihipCtx_t device_ctx[CPU_MAX_DEVICES];
static pthread_once_t ctx_once = PTHREAD_ONCE_INIT;
static int primary_refs[CPU_MAX_DEVICES];   /* hipDevicePrimaryCtxRetain/Release */
static int created_refs[CPU_MAX_DEVICES];   /* hipCtxCreate/Destroy */
static pthread_mutex_t ctx_lock = PTHREAD_MUTEX_INITIALIZER;

#define CTX_STACK_MAX 64
static _Thread_local hipCtx_t ctx_stack[CTX_STACK_MAX];
static _Thread_local int ctx_depth = 0;

static void init_ctx(void)
{
    for (int i = 0; i < CPU_MAX_DEVICES; i++)
        device_ctx[i] = (struct ihipCtx_t){CPU_MAGIC_CTX, i};
}

static hipCtx_t ctx_of(int dev)
{
    pthread_once(&ctx_once, init_ctx);
    return &device_ctx[dev];
}

hipCtx_t cpu_ctx_of(int dev)
{
    return cpu_check_device(dev) ? NULL : ctx_of(dev);
}

static bool ctx_valid(hipCtx_t ctx)
{
    /* compared by address, never read through: a stale handle may point anywhere */
    uintptr_t p = (uintptr_t)ctx, b = (uintptr_t)&device_ctx[0];
    return p >= b && p < (uintptr_t)&device_ctx[cpu_device_count()] &&
           (p - b) % sizeof device_ctx[0] == 0;
}

static int ctx_device(hipCtx_t ctx)
{
    return (int)(ctx - &device_ctx[0]);
}

/* The context's device becomes the thread's current device, as ROCm's hipCtxSetCurrent. */
static void bind(hipCtx_t ctx)
{
    hipSetDevice(ctx_device(ctx));
}

bool cpu_ctx_valid(hipCtx_t ctx)
{
    return ctx_valid(ctx);
}

hipError_t hipCtxCreate(hipCtx_t *ctx, unsigned int flags, hipDevice_t device)
{
    (void)flags;
    if (ctx == NULL || cpu_check_device(device))
        return cpu_ret(hipErrorInvalidValue);   /* ROCm: a bad ordinal is a bad value here */
    if (ctx_depth == CTX_STACK_MAX)
        return cpu_ret(hipErrorOutOfMemory);
    pthread_mutex_lock(&ctx_lock);
    created_refs[device]++;
    pthread_mutex_unlock(&ctx_lock);
    hipCtx_t c = ctx_of(device);
    ctx_stack[ctx_depth++] = c;   /* the created context becomes current */
    bind(c);
    *ctx = c;
    return hipSuccess;
}

hipError_t hipCtxDestroy(hipCtx_t ctx)
{
    if (ctx == NULL)
        return cpu_ret(hipErrorInvalidValue);
    if (!ctx_valid(ctx))
        return cpu_ret(hipErrorInvalidContext);
    if (ctx_depth > 0 && ctx_stack[ctx_depth - 1] == ctx)
        ctx_depth--;
    pthread_mutex_lock(&ctx_lock);
    if (created_refs[ctx_device(ctx)] > 0)
        created_refs[ctx_device(ctx)]--;
    pthread_mutex_unlock(&ctx_lock);
    return hipSuccess;
}

hipError_t hipCtxPushCurrent(hipCtx_t ctx)
{
    if (!ctx_valid(ctx))
        return cpu_ret(hipErrorInvalidContext);
    if (ctx_depth == CTX_STACK_MAX)
        return cpu_ret(hipErrorOutOfMemory);
    ctx_stack[ctx_depth++] = ctx;
    bind(ctx);
    return hipSuccess;
}

hipError_t hipCtxPopCurrent(hipCtx_t *ctx)
{
    if (ctx_depth == 0)
        return cpu_ret(hipErrorInvalidContext);
    hipCtx_t top = ctx_stack[--ctx_depth];
    if (ctx != NULL)
        *ctx = top;
    if (ctx_depth > 0)
        bind(ctx_stack[ctx_depth - 1]);
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
    bind(ctx);
    return hipSuccess;
}

/* The current device's context, whether or not one was made current (ROCm's answer). */
hipError_t hipCtxGetCurrent(hipCtx_t *ctx)
{
    if (ctx == NULL)
        return cpu_ret(hipErrorInvalidValue);
    *ctx = ctx_of(cpu_current_device());
    return hipSuccess;
}

hipError_t hipCtxGetDevice(hipDevice_t *device)
{
    if (device == NULL)
        return cpu_ret(hipErrorInvalidValue);
    return hipGetDevice(device);
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
    *flags = 0;
    return hipSuccess;
}

hipError_t hipCtxSynchronize(void)
{
    return cpu_ret(cpu_current_device_wait_idle());
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
    primary_refs[dev]++;
    pthread_mutex_unlock(&ctx_lock);
    *pctx = ctx_of(dev);
    return hipSuccess;
}

/* ROCm's primary-context calls are bookkeeping only: release and reset always succeed,
 * the flags are never settable (the context is always "in use") and read back as 0. */
hipError_t hipDevicePrimaryCtxRelease(hipDevice_t dev)
{
    if (cpu_check_device(dev))
        return cpu_ret(hipErrorInvalidDevice);
    pthread_mutex_lock(&ctx_lock);
    if (primary_refs[dev] > 0)
        primary_refs[dev]--;
    pthread_mutex_unlock(&ctx_lock);
    return hipSuccess;
}

hipError_t hipDevicePrimaryCtxGetState(hipDevice_t dev, unsigned int *flags, int *active)
{
    if (cpu_check_device(dev))
        return cpu_ret(hipErrorInvalidDevice);
    pthread_mutex_lock(&ctx_lock);
    if (flags != NULL)
        *flags = 0;
    if (active != NULL)
        *active = primary_refs[dev] > 0 || created_refs[dev] > 0;
    pthread_mutex_unlock(&ctx_lock);
    return hipSuccess;
}

hipError_t hipDevicePrimaryCtxSetFlags(hipDevice_t dev, unsigned int flags)
{
    (void)flags;
    if (cpu_check_device(dev))
        return cpu_ret(hipErrorInvalidDevice);
    return cpu_ret(hipErrorContextAlreadyInUse);
}

hipError_t hipDevicePrimaryCtxReset(hipDevice_t dev)
{
    if (cpu_check_device(dev))
        return cpu_ret(hipErrorInvalidDevice);
    pthread_mutex_lock(&ctx_lock);
    primary_refs[dev] = 0;
    pthread_mutex_unlock(&ctx_lock);
    return hipSuccess;
}
