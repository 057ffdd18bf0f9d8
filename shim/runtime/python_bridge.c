/*
 * The door to the embedded Python translator (DESIGN.md decision 3): libcudart.so.N is a
 * cffi embedding library of its own (module _pyshim_cudart<N>). The door itself is
 * shim/common/embed_bridge.c, shared with libcuda.so.1; this file gives it the runtime's
 * cudaError_t codes.
 */
#include <string.h>

#include "common/embed_bridge.h"
#include "internal.h"

#define ERR_UNKNOWN 999 /* cudaErrorUnknown */

/* cudaError_t for a name such as "CUDA_ERROR_NO_BINARY_FOR_GPU" (the translator speaks
 * the driver's names); the runtime's equivalents of the ones it uses. */
static int from_driver_name(const char *name)
{
    static const struct {
        const char *name;
        int code;
    } map[] = {
        {"CUDA_ERROR_NO_BINARY_FOR_GPU", 209},     /* cudaErrorNoKernelImageForDevice */
        {"CUDA_ERROR_JIT_COMPILER_NOT_FOUND", 221}, /* cudaErrorJitCompilerNotFound */
        {"CUDA_ERROR_INVALID_PTX", 218},           /* cudaErrorInvalidPtx */
        {"CUDA_ERROR_INVALID_IMAGE", 200},         /* cudaErrorInvalidKernelImage */
        {"CUDA_ERROR_UNSUPPORTED_PTX_VERSION", 222}, /* cudaErrorUnsupportedPtxVersion */
        {"CUDA_ERROR_OUT_OF_MEMORY", 2},           /* cudaErrorMemoryAllocation */
        {"CUDA_ERROR_NOT_SUPPORTED", 801},
        {"CUDA_ERROR_INVALID_VALUE", 1},
        {"CUDA_ERROR_NOT_FOUND", 500},
    };
    for (size_t i = 0; i < sizeof map / sizeof map[0]; i++)
        if (strcmp(map[i].name, name) == 0)
            return map[i].code;
    return ERR_UNKNOWN;
}

static const struct pyshim_embed_library libcudart = {
    .success = 0,                  /* cudaSuccess */
    .jit_compiler_not_found = 221, /* cudaErrorJitCompilerNotFound */
    .out_of_memory = 2,            /* cudaErrorMemoryAllocation */
    .invalid_value = 1,            /* cudaErrorInvalidValue */
    .unknown = ERR_UNKNOWN,
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
