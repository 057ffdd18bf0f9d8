/*
 * The door to the embedded Python translator (DESIGN.md decision 3): libcudart.so.N is a
 * cffi embedding library of its own (module _pyshim_cudart<N>). The door itself is
 * shim/common/embed_bridge.c, shared with libcuda.so.1; this file gives it the runtime's
 * cudaError_t codes (runtime_error_codes.h, generated from the tables).
 */
#include <string.h>

#include "common/embed_bridge.h"
#include "internal.h"
#include "runtime_error_codes.h"

/* cudaError_t for a name such as "CUDA_ERROR_NO_BINARY_FOR_GPU" (the translator speaks
 * the driver's names); the runtime's equivalents of the ones it uses. */
static int from_driver_name(const char *name)
{
    static const struct {
        const char *name;
        int code;
    } map[] = {
        {"CUDA_ERROR_NO_BINARY_FOR_GPU", PYSHIM_RT_cudaErrorNoKernelImageForDevice},
        {"CUDA_ERROR_JIT_COMPILER_NOT_FOUND", PYSHIM_RT_cudaErrorJitCompilerNotFound},
        {"CUDA_ERROR_INVALID_PTX", PYSHIM_RT_cudaErrorInvalidPtx},
        {"CUDA_ERROR_INVALID_IMAGE", PYSHIM_RT_cudaErrorInvalidKernelImage},
        {"CUDA_ERROR_UNSUPPORTED_PTX_VERSION", PYSHIM_RT_cudaErrorUnsupportedPtxVersion},
        {"CUDA_ERROR_OUT_OF_MEMORY", PYSHIM_RT_cudaErrorMemoryAllocation},
        {"CUDA_ERROR_NOT_SUPPORTED", PYSHIM_RT_cudaErrorNotSupported},
        {"CUDA_ERROR_INVALID_VALUE", PYSHIM_RT_cudaErrorInvalidValue},
        {"CUDA_ERROR_NOT_FOUND", PYSHIM_RT_cudaErrorSymbolNotFound},
    };
    for (size_t i = 0; i < sizeof map / sizeof map[0]; i++)
        if (strcmp(map[i].name, name) == 0)
            return map[i].code;
    return PYSHIM_RT_cudaErrorUnknown;
}

static const struct pyshim_embed_library libcudart = {
    .success = PYSHIM_RT_cudaSuccess,
    .jit_compiler_not_found = PYSHIM_RT_cudaErrorJitCompilerNotFound,
    .out_of_memory = PYSHIM_RT_cudaErrorMemoryAllocation,
    .invalid_value = PYSHIM_RT_cudaErrorInvalidValue,
    .unknown = PYSHIM_RT_cudaErrorUnknown,
    .from_driver_name = from_driver_name,
    .trace_enabled = NULL,
    .not_started = "the PTX translator did not start (see the messages above)",
};

/* The kernel names the translator also lists serve the library API (cudaLibrary*): NULL
 * when the caller does not need them. */
int pyshim_rt_py_translate(const void *image, size_t size, const char *target, char *path,
                           size_t path_len, char **kernels)
{
    return pyshim_embed_translate_image(&libcudart, image, size, target, path, path_len,
                                        kernels, NULL, 0);
}
