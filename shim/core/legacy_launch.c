/*
 * The pre-CUDA-4.0 launch API: the block shape, dynamic shared memory and a packed
 * parameter buffer are state of the function (cuFuncSetBlockShape, cuFuncSetSharedSize,
 * cuParamSet*), and cuLaunch / cuLaunchGrid(Async) launch with it. Each launch is a
 * cuLaunchKernel with the buffer passed as CU_LAUNCH_PARAM_BUFFER_POINTER, so it gets the
 * same checks and the same translated kernel. Function handles live as long as the
 * process (module.c never frees them), so the state hangs off the handle.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

/* The parameter space of a kernel before CUDA 12.1 (and of every compute capability's
 * launch through the legacy calls): 4 KiB. */
#define PARAM_BYTES 4096

struct pyshim_legacy_launch {
    int block[3];
    unsigned int shared;
    unsigned int param_size;
    unsigned char params[PARAM_BYTES];
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

/* The function's state, made on first use; NULL only when out of memory. Under `lock`. */
static struct pyshim_legacy_launch *state_of(CUfunction f)
{
    if (f->legacy == NULL)
        f->legacy = calloc(1, sizeof *f->legacy);
    return f->legacy;
}

static CUresult check(CUfunction f)
{
    CUresult rc = pyshim_need_ctx();
    if (rc != CUDA_SUCCESS)
        return rc;
    return pyshim_func_valid(f) ? CUDA_SUCCESS : CUDA_ERROR_INVALID_HANDLE;
}

CUresult CUDAAPI cuFuncSetBlockShape(CUfunction hfunc, int x, int y, int z)
{
    CUresult rc = check(hfunc);
    if (rc != CUDA_SUCCESS)
        return rc;
    if (x <= 0 || y <= 0 || z <= 0) {
        pyshim_log("cuFuncSetBlockShape(%s, %d, %d, %d): every dimension must be positive",
                   hfunc->name, x, y, z);
        return CUDA_ERROR_INVALID_VALUE;
    }
    pthread_mutex_lock(&lock);
    struct pyshim_legacy_launch *s = state_of(hfunc);
    if (s != NULL) {
        s->block[0] = x;
        s->block[1] = y;
        s->block[2] = z;
    }
    pthread_mutex_unlock(&lock);
    return s != NULL ? CUDA_SUCCESS : CUDA_ERROR_OUT_OF_MEMORY;
}

CUresult CUDAAPI cuFuncSetSharedSize(CUfunction hfunc, unsigned int bytes)
{
    CUresult rc = check(hfunc);
    if (rc != CUDA_SUCCESS)
        return rc;
    pthread_mutex_lock(&lock);
    struct pyshim_legacy_launch *s = state_of(hfunc);
    if (s != NULL)
        s->shared = bytes;
    pthread_mutex_unlock(&lock);
    return s != NULL ? CUDA_SUCCESS : CUDA_ERROR_OUT_OF_MEMORY;
}

CUresult CUDAAPI cuParamSetSize(CUfunction hfunc, unsigned int numbytes)
{
    CUresult rc = check(hfunc);
    if (rc != CUDA_SUCCESS)
        return rc;
    if (numbytes > PARAM_BYTES) {
        pyshim_log("cuParamSetSize(%s, %u): the parameter space is %d bytes", hfunc->name,
                   numbytes, PARAM_BYTES);
        return CUDA_ERROR_INVALID_VALUE;
    }
    pthread_mutex_lock(&lock);
    struct pyshim_legacy_launch *s = state_of(hfunc);
    if (s != NULL)
        s->param_size = numbytes;
    pthread_mutex_unlock(&lock);
    return s != NULL ? CUDA_SUCCESS : CUDA_ERROR_OUT_OF_MEMORY;
}

/* Copies `n` bytes to the function's parameter buffer at `offset`. */
static CUresult set_param(const char *fn, CUfunction f, int offset, const void *value,
                          unsigned int n)
{
    CUresult rc = check(f);
    if (rc != CUDA_SUCCESS)
        return rc;
    if (value == NULL && n != 0)
        return CUDA_ERROR_INVALID_VALUE;
    if (offset < 0 || (unsigned long long)offset + n > PARAM_BYTES) {
        pyshim_log("%s(%s): %u bytes at offset %d are outside the %d-byte parameter space", fn,
                   f->name, n, offset, PARAM_BYTES);
        return CUDA_ERROR_INVALID_VALUE;
    }
    pthread_mutex_lock(&lock);
    struct pyshim_legacy_launch *s = state_of(f);
    if (s != NULL && n != 0)
        memcpy(s->params + offset, value, n);
    pthread_mutex_unlock(&lock);
    return s != NULL ? CUDA_SUCCESS : CUDA_ERROR_OUT_OF_MEMORY;
}

CUresult CUDAAPI cuParamSeti(CUfunction hfunc, int offset, unsigned int value)
{
    return set_param("cuParamSeti", hfunc, offset, &value, sizeof value);
}

CUresult CUDAAPI cuParamSetf(CUfunction hfunc, int offset, float value)
{
    return set_param("cuParamSetf", hfunc, offset, &value, sizeof value);
}

CUresult CUDAAPI cuParamSetv(CUfunction hfunc, int offset, void *ptr, unsigned int numbytes)
{
    return set_param("cuParamSetv", hfunc, offset, ptr, numbytes);
}

static CUresult launch_grid(const char *fn, CUfunction f, int gw, int gh, CUstream stream)
{
    CUresult rc = check(f);
    if (rc != CUDA_SUCCESS)
        return rc;
    if (gw <= 0 || gh <= 0) {
        pyshim_log("%s(%s): grid %d x %d: both dimensions must be positive", fn, f->name, gw,
                   gh);
        return CUDA_ERROR_INVALID_VALUE;
    }
    /* a snapshot: cuParamSet* on another thread does not change a launch being made */
    struct pyshim_legacy_launch snap;
    pthread_mutex_lock(&lock);
    int have = f->legacy != NULL;
    if (have)
        snap = *f->legacy;
    pthread_mutex_unlock(&lock);
    if (!have || snap.block[0] == 0) {
        pyshim_log("%s(%s): no block shape was set (cuFuncSetBlockShape)", fn, f->name);
        return CUDA_ERROR_INVALID_VALUE;
    }
    size_t size = snap.param_size;
    void *extra[] = {CU_LAUNCH_PARAM_BUFFER_POINTER, snap.params, CU_LAUNCH_PARAM_BUFFER_SIZE,
                     &size, CU_LAUNCH_PARAM_END};
    return cuLaunchKernel(f, (unsigned)gw, (unsigned)gh, 1, (unsigned)snap.block[0],
                          (unsigned)snap.block[1], (unsigned)snap.block[2], snap.shared, stream,
                          NULL, extra);
}

CUresult CUDAAPI cuLaunch(CUfunction f)
{
    return launch_grid("cuLaunch", f, 1, 1, NULL);
}

CUresult CUDAAPI cuLaunchGrid(CUfunction f, int grid_width, int grid_height)
{
    return launch_grid("cuLaunchGrid", f, grid_width, grid_height, NULL);
}

CUresult CUDAAPI cuLaunchGridAsync(CUfunction f, int grid_width, int grid_height,
                                   CUstream hStream)
{
    return launch_grid("cuLaunchGridAsync", f, grid_width, grid_height, hStream);
}
