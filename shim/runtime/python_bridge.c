/*
 * The door to the embedded Python translator (DESIGN.md decision 3); mirrors
 * shim/core/python_bridge.c. libcudart.so.N is a cffi embedding library of its own
 * (module _pyshim_cudart): when libcuda.so.1 is in the same process both use the ONE
 * interpreter, whichever starts it first (cffi initialises Python only when
 * Py_IsInitialized() says no one has). Failure modes, each an error code:
 *   - libpython is not global: extension modules could not see its symbols;
 *   - the interpreter does not start or the translator fails (*status);
 *   - the process already runs a different Python.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

#ifndef PYSHIM_LIBPYTHON
#error "PYSHIM_LIBPYTHON (the soname of the libpython we link) must be defined by the build"
#endif
#ifndef PYSHIM_PYTHON_VERSION_HEX
#error "PYSHIM_PYTHON_VERSION_HEX must be defined by the build"
#endif
#ifndef PYSHIM_PYTHONHOME
#error "PYSHIM_PYTHONHOME must be defined by the build"
#endif

#define ERR_JIT_NOT_FOUND 221  /* cudaErrorJitCompilerNotFound */
#define ERR_NOT_SUPPORTED 801  /* cudaErrorNotSupported */
#define ERR_INVALID_VALUE 1    /* cudaErrorInvalidValue */
#define ERR_UNKNOWN 999        /* cudaErrorUnknown */

/* Implemented in Python (init code written by pyshim.build_runtime), exported by cffi. */
int pyshim_embed_translate(const void *image, size_t size, const char *target, char *out,
                           size_t out_len, int *status);

static pthread_once_t once = PTHREAD_ONCE_INIT;
static int prepare_result;
static int home_was_set;

static void prepare(void)
{
    int (*is_initialized)(void) = (int (*)(void))dlsym(RTLD_DEFAULT, "Py_IsInitialized");
    const unsigned long *version = dlsym(RTLD_DEFAULT, "Py_Version");
    int running = is_initialized != NULL && is_initialized();
    if (running && (version == NULL ||
                    (*version >> 16) != ((unsigned long)PYSHIM_PYTHON_VERSION_HEX >> 16))) {
        pyshim_rt_log("this process already runs another Python than the %lu.%lu pyshim was "
                      "built for; a translator subprocess is not implemented",
                      (unsigned long)PYSHIM_PYTHON_VERSION_HEX >> 24,
                      ((unsigned long)PYSHIM_PYTHON_VERSION_HEX >> 16) & 0xff);
        prepare_result = ERR_NOT_SUPPORTED;
        return;
    }
    if (dlopen(PYSHIM_LIBPYTHON, RTLD_NOW | RTLD_NOLOAD | RTLD_GLOBAL) == NULL) {
        pyshim_rt_log("cannot make %s global: %s", PYSHIM_LIBPYTHON, dlerror());
        prepare_result = ERR_JIT_NOT_FOUND;
        return;
    }
    /* The interpreter would look for its standard library beside the CUDA program;
     * point it at the Python we were built with unless told otherwise. */
    if (!running && getenv("PYTHONHOME") == NULL)
        home_was_set = setenv("PYTHONHOME", PYSHIM_PYTHONHOME, 0) == 0;
}

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

int pyshim_rt_py_translate(const void *image, size_t size, const char *target, char *path,
                           size_t path_len)
{
    pthread_once(&once, prepare);
    if (prepare_result != 0)
        return prepare_result;
    int status = -1; /* stays -1 if the Python function never attached */
    char out[4096];
    out[0] = '\0';
    pyshim_embed_translate(image, size, target, out, sizeof out, &status);
    if (home_was_set) {
        home_was_set = 0; /* read by now; the program's children must not inherit it */
        unsetenv("PYTHONHOME");
    }
    if (status == -1) {
        pyshim_rt_log("the embedded Python translator did not start (see the messages above)");
        return ERR_JIT_NOT_FOUND;
    }
    if (status != 0) {
        char *tab = strchr(out, '\t'); /* "CUDA_ERROR_NAME\tmessage" */
        if (tab != NULL)
            *tab = '\0';
        pyshim_rt_log("%s", tab != NULL ? tab + 1 : out);
        return from_driver_name(out);
    }
    /* "path\nkernel\nkernel..." (pyshim/embed/translate.py): the module file is the first
     * line; the kernel names are for the driver's module API, not needed here */
    out[strcspn(out, "\n")] = '\0';
    if (strlen(out) + 1 > path_len)
        return ERR_INVALID_VALUE;
    memcpy(path, out, strlen(out) + 1);
    return 0;
}
