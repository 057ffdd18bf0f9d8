/*
 * The door to the embedded Python translator (DESIGN.md decision 3), shared by
 * libcuda.so.1 and libcudart.so.N: each is a cffi embedding library of its own (modules
 * _pyshim_cuda and _pyshim_cudart<N>) whose init code defines pyshim_embed_translate
 * (pyshim/embed/api.h); when both are in one process they use the ONE interpreter,
 * whichever starts it first. Every failure gives an error code, never success (a cffi
 * function that fails to attach returns 0):
 *   - libpython was loaded RTLD_LOCAL (cudart dlopens libcuda that way), so extension
 *     modules could not see its symbols: it is promoted to RTLD_GLOBAL before the first call;
 *   - the interpreter does not start, or the translator raises;
 *   - the process already runs another Python (or PYTHONHOME names another one): then the
 *     translator runs in a subprocess of the Python pyshim was built with
 *     (pyshim/embed/worker.py); PYSHIM_TRANSLATOR=subprocess forces that.
 * The build defines PYSHIM_LIBPYTHON, PYSHIM_PYTHON_VERSION_HEX, PYSHIM_PYTHONHOME,
 * PYSHIM_PYTHON_EXE and PYSHIM_REPO_DIR for embed_bridge.c.
 */
#ifndef PYSHIM_COMMON_EMBED_BRIDGE_H
#define PYSHIM_COMMON_EMBED_BRIDGE_H

#include <stddef.h>

#include "visibility.h"

/* What differs between the libraries: their error codes (CUresult or cudaError_t, as
 * int) and how they speak. */
struct pyshim_embed_library {
    int success;
    int jit_compiler_not_found; /* no translator: libpython not global, none started */
    int out_of_memory;
    int invalid_value; /* the module path does not fit the caller's buffer */
    int unknown;       /* a translator error with no code of this library's */
    /* the code for a driver error name the translator reports ("CUDA_ERROR_INVALID_PTX");
     * `success` (read as `unknown`) or `unknown` when it has none */
    int (*from_driver_name)(const char *name);
    /* NULL, or whether to say on stderr when the translator subprocess gives no answer */
    int (*trace_enabled)(void);
    /* the line logged when the translator did not start */
    const char *not_started;
};

/* Translate a module image for `target`. On success (lib->success) `path` holds the file
 * to load and, when `kernels` is not NULL, *kernels a malloc'ed list of the module's
 * kernel names, one per line. When `error` is not NULL it is set to the translator's
 * message after each translation ("" when it succeeded). */
PYSHIM_COMMON_HIDDEN int pyshim_embed_translate_image(const struct pyshim_embed_library *lib,
                                                      const void *image, size_t size,
                                                      const char *target, char *path,
                                                      size_t path_len, char **kernels,
                                                      char *error, size_t error_len);
/* The PTX target of the calling thread's last successful translation (".target sm_75"
 * -> 75; 0 if the translator did not say): a kernel's PTX_VERSION / BINARY_VERSION. */
PYSHIM_COMMON_HIDDEN int pyshim_embed_last_ptx_target(void);
/* ... and the bytes of its module's .const variables (CONST_SIZE_BYTES). */
PYSHIM_COMMON_HIDDEN unsigned long long pyshim_embed_last_const_bytes(void);

#endif
