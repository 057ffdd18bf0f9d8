/*
 * The door to the embedded Python translator (DESIGN.md decision 3); mirrors
 * shim/core/python_bridge.c. libcudart.so.N is a cffi embedding library of its own
 * (module _pyshim_cudart<N>): when libcuda.so.1 is in the same process both use the ONE
 * interpreter, whichever starts it first (cffi initialises Python only when
 * Py_IsInitialized() says no one has). Failure modes, each an error code:
 *   - libpython is not global: extension modules could not see its symbols;
 *   - the interpreter does not start or the translator fails (*status);
 *   - the process already runs another Python (or PYTHONHOME names another one): then
 *     the translator runs in a subprocess of the Python pyshim was built with
 *     (pyshim/embed/worker.py); PYSHIM_TRANSLATOR=subprocess forces that.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

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
#ifndef PYSHIM_PYTHON_EXE
#error "PYSHIM_PYTHON_EXE (the Python pyshim was built with) must be defined by the build"
#endif
#ifndef PYSHIM_REPO_DIR
#error "PYSHIM_REPO_DIR must be defined by the build"
#endif

#define ERR_JIT_NOT_FOUND 221  /* cudaErrorJitCompilerNotFound */
#define ERR_INVALID_VALUE 1    /* cudaErrorInvalidValue */
#define ERR_MEMORY 2           /* cudaErrorMemoryAllocation */
#define ERR_UNKNOWN 999        /* cudaErrorUnknown */
/* the answer: the module's path, then its kernel names, one per line */
#define ANSWER_BYTES (1u << 20)

extern char **environ;

/* Implemented in Python (init code written by pyshim.build_runtime), exported by cffi. */
int pyshim_embed_translate(const void *image, size_t size, const char *target, char *out,
                           size_t out_len, int *status);

static pthread_once_t once = PTHREAD_ONCE_INIT;
static int prepare_result;
static int home_was_set;
static int use_subprocess;

static void prepare(void)
{
    const char *mode = getenv("PYSHIM_TRANSLATOR");
    if (mode != NULL && strcmp(mode, "subprocess") == 0) {
        use_subprocess = 1;
        return;
    }
    /* Is the Python this process sees first (the host's, if it runs one) the libpython we
     * were linked with? Then embed, attaching to it if it already runs; else do not mix
     * two interpreters. */
    void *ours = dlopen(PYSHIM_LIBPYTHON, RTLD_NOW | RTLD_NOLOAD);
    void *first = dlsym(RTLD_DEFAULT, "Py_IsInitialized");
    void *mine = ours != NULL ? dlsym(ours, "Py_IsInitialized") : NULL;
    int running = first != NULL && ((int (*)(void))first)();
    if (ours != NULL)
        dlclose(ours); /* NOLOAD took a reference */
    if (first != NULL && first != mine) {
        use_subprocess = 1;
        return;
    }
    /* a PYTHONHOME meant for another Python would abort the interpreter at start-up */
    const char *home = getenv("PYTHONHOME");
    if (!running && home != NULL && home[0] != '\0') {
        char probe[4096];
        snprintf(probe, sizeof probe, "%s/lib/python%lu.%lu/os.py", home,
                 (unsigned long)PYSHIM_PYTHON_VERSION_HEX >> 24,
                 ((unsigned long)PYSHIM_PYTHON_VERSION_HEX >> 16) & 0xff);
        if (access(probe, R_OK) != 0) {
            use_subprocess = 1;
            return;
        }
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

static void write_all(int fd, const uint8_t *p, size_t n)
{
    while (n > 0) {
        ssize_t w = write(fd, p, n);
        if (w <= 0)
            return;
        p += w;
        n -= (size_t)w;
    }
}

/* pyshim/embed/worker.py: the image on stdin, "0\t<answer>" or "1\t<error>" on stdout. */
static void translate_in_subprocess(const void *image, size_t size, const char *target,
                                    char *out, size_t out_len, int *status)
{
    static const char code[] =
        "import sys; sys.path.insert(0, '" PYSHIM_REPO_DIR "')\n"
        "from pyshim.embed.worker import main; sys.exit(main())";
    int to_child[2], from_child[2];
    if (pipe2(to_child, O_CLOEXEC) != 0)
        return;
    if (pipe2(from_child, O_CLOEXEC) != 0) {
        close(to_child[0]);
        close(to_child[1]);
        return;
    }
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, to_child[0], 0);
    posix_spawn_file_actions_adddup2(&fa, from_child[1], 1);
    char *argv[] = {(char *)PYSHIM_PYTHON_EXE, (char *)"-I", (char *)"-c", (char *)code,
                    (char *)target, NULL};
    pid_t pid;
    int err = posix_spawn(&pid, PYSHIM_PYTHON_EXE, &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    close(to_child[0]);
    close(from_child[1]);
    if (err != 0) {
        pyshim_rt_log("cannot start the translator subprocess %s: %s", PYSHIM_PYTHON_EXE,
                      strerror(err));
        close(to_child[1]);
        close(from_child[0]);
        return;
    }
    /* a worker that dies early must not kill the program with SIGPIPE */
    sigset_t pipe_set, old;
    sigemptyset(&pipe_set);
    sigaddset(&pipe_set, SIGPIPE);
    pthread_sigmask(SIG_BLOCK, &pipe_set, &old);
    write_all(to_child[1], image, size);
    close(to_child[1]);
    size_t got = 0;
    ssize_t r;
    while (got + 1 < out_len && (r = read(from_child[0], out + got, out_len - 1 - got)) > 0)
        got += (size_t)r;
    out[got] = '\0';
    close(from_child[0]);
    int wstatus = 0;
    while (waitpid(pid, &wstatus, 0) < 0 && errno == EINTR)
        ;
    struct timespec zero = {0, 0};
    siginfo_t info;
    while (sigtimedwait(&pipe_set, &info, &zero) > 0)
        ; /* discard a SIGPIPE we caused */
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (got >= 2 && (out[0] == '0' || out[0] == '1') && out[1] == '\t') {
        *status = out[0] - '0';
        memmove(out, out + 2, got - 1);
    }
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
    char *out = malloc(ANSWER_BYTES);
    if (out == NULL)
        return ERR_MEMORY;
    int status = -1; /* stays -1 if the Python function never attached */
    out[0] = '\0';
    if (use_subprocess)
        translate_in_subprocess(image, size, target, out, ANSWER_BYTES, &status);
    else
        pyshim_embed_translate(image, size, target, out, ANSWER_BYTES, &status);
    if (home_was_set) {
        home_was_set = 0; /* read by now; the program's children must not inherit it */
        unsetenv("PYTHONHOME");
    }
    int rc = 0;
    if (status == -1) {
        pyshim_rt_log("the PTX translator did not start (see the messages above)");
        rc = ERR_JIT_NOT_FOUND;
    } else if (status != 0) {
        char *tab = strchr(out, '\t'); /* "CUDA_ERROR_NAME\tmessage" */
        if (tab != NULL)
            *tab = '\0';
        pyshim_rt_log("%s", tab != NULL ? tab + 1 : out);
        rc = from_driver_name(out);
    } else {
        /* "path\nkernel\nkernel...": the module file is the first line; the kernel names
         * serve the driver's module API, not this library */
        out[strcspn(out, "\n")] = '\0';
        if (strlen(out) + 1 > path_len)
            rc = ERR_INVALID_VALUE;
        else
            memcpy(path, out, strlen(out) + 1);
    }
    free(out);
    return rc;
}
