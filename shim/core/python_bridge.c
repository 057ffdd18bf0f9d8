/*
 * The door to the embedded Python (DESIGN.md decision 3). libcuda.so.1 is a cffi embedding
 * library: the first call of an embedding-API function starts an interpreter inside the
 * CUDA program. Three things can go wrong and each must give an error code, never
 * CUDA_SUCCESS (a cffi function that fails to attach returns 0):
 *   - libpython was loaded RTLD_LOCAL (cudart dlopens us that way), so extension modules
 *     cannot see its symbols: promote it to RTLD_GLOBAL before the first call;
 *   - the interpreter fails to start or the translator raises: *status stays "not run" or
 *     reports the exception's CUresult name;
 *   - the host process already runs a different Python: refuse with a clear message.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
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

/* Implemented in Python (pyshim/embed/init_code.py), exported by cffi's embedding API. */
int pyshim_embed_translate(const void *image, size_t size, const char *target, char *out,
                           size_t out_len, int *status);

static pthread_once_t once = PTHREAD_ONCE_INIT;
static CUresult prepare_result = CUDA_SUCCESS;
static int home_was_set;

static void prepare(void)
{
    /* a Python already running in this process (e.g. a Python program using CUDA) */
    const unsigned long *running = dlsym(RTLD_DEFAULT, "Py_Version");
    if (running == NULL && dlsym(RTLD_DEFAULT, "Py_IsInitialized") != NULL) {
        pyshim_log("this process already runs a Python older than 3.11; the PTX translator "
                   "needs its own (a translator subprocess is not implemented)");
        prepare_result = CUDA_ERROR_NOT_SUPPORTED;
        return;
    }
    if (running != NULL && (*running >> 16) != ((unsigned long)PYSHIM_PYTHON_VERSION_HEX >> 16)) {
        pyshim_log("this process already runs Python %lu.%lu, pyshim was built for %lu.%lu; "
                   "a translator subprocess is not implemented",
                   *running >> 24, (*running >> 16) & 0xff,
                   (unsigned long)PYSHIM_PYTHON_VERSION_HEX >> 24,
                   ((unsigned long)PYSHIM_PYTHON_VERSION_HEX >> 16) & 0xff);
        prepare_result = CUDA_ERROR_NOT_SUPPORTED;
        return;
    }
    if (dlopen(PYSHIM_LIBPYTHON, RTLD_NOW | RTLD_NOLOAD | RTLD_GLOBAL) == NULL) {
        pyshim_log("cannot make %s global: %s", PYSHIM_LIBPYTHON, dlerror());
        prepare_result = CUDA_ERROR_JIT_COMPILER_NOT_FOUND;
        return;
    }
    /* The interpreter finds its standard library from the program's path, which is the
     * CUDA program's here; point it at the Python we were built with unless told. */
    if (running == NULL && getenv("PYTHONHOME") == NULL)
        home_was_set = setenv("PYTHONHOME", PYSHIM_PYTHONHOME, 0) == 0;
}

CUresult pyshim_py_translate(const void *image, size_t size, const char *target, char *path,
                             size_t path_len)
{
    pthread_once(&once, prepare);
    if (prepare_result != CUDA_SUCCESS)
        return prepare_result;
    int status = -1;
    char out[4096];
    out[0] = '\0';
    pyshim_embed_translate(image, size, target, out, sizeof out, &status);
    if (home_was_set) {
        /* the interpreter has read it; the program's children must not inherit it */
        home_was_set = 0;
        unsetenv("PYTHONHOME");
    }
    if (status == -1) {
        pyshim_log("the embedded Python translator did not start (see the messages above)");
        return CUDA_ERROR_JIT_COMPILER_NOT_FOUND;
    }
    if (status != 0) {
        /* "CUDA_ERROR_NAME\tmessage" */
        char *tab = strchr(out, '\t');
        if (tab != NULL)
            *tab = '\0';
        CUresult rc = pyshim_cu_from_name(out);
        pyshim_log("%s", tab != NULL ? tab + 1 : out);
        return rc == CUDA_SUCCESS ? CUDA_ERROR_UNKNOWN : rc;
    }
    if (strlen(out) + 1 > path_len)
        return CUDA_ERROR_INVALID_VALUE;
    memcpy(path, out, strlen(out) + 1);
    return CUDA_SUCCESS;
}
