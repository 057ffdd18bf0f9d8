/*
 * The door to the embedded Python (DESIGN.md decision 3): libcuda.so.1 is a cffi embedding
 * library (module _pyshim_cuda). The door itself is shim/common/embed_bridge.c, shared with
 * libcudart; this file gives it libcuda's CUresult codes and keeps each thread's last
 * translation error for the JIT error-log buffers.
 */
#include "common/embed_bridge.h"
#include "internal.h"

/* the calling thread's last translation error, for JIT error-log buffers */
static _Thread_local char last_error[1024];

const char *pyshim_last_translate_error(void)
{
    return last_error;
}

void pyshim_clear_translate_error(void)
{
    last_error[0] = '\0';
}

static int from_driver_name(const char *name)
{
    return (int)pyshim_cu_from_name(name);
}

static const struct pyshim_embed_library libcuda = {
    .success = CUDA_SUCCESS,
    .jit_compiler_not_found = CUDA_ERROR_JIT_COMPILER_NOT_FOUND,
    .out_of_memory = CUDA_ERROR_OUT_OF_MEMORY,
    .invalid_value = CUDA_ERROR_INVALID_VALUE,
    .unknown = CUDA_ERROR_UNKNOWN,
    .from_driver_name = from_driver_name,
    .trace_enabled = pyshim_trace_enabled,
    .not_started = "the embedded Python translator did not start (see the messages above)",
};

CUresult pyshim_py_translate(const void *image, size_t size, const char *target, char *path,
                             size_t path_len, char **kernels)
{
    return (CUresult)pyshim_embed_translate_image(&libcuda, image, size, target, path,
                                                  path_len, kernels, last_error,
                                                  sizeof last_error);
}
