/* The embedded-Python door of libcuda.so.1 and libcudart.so.N (embed_bridge.h). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "embed_bridge.h"
#include "log.h"

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

/* The answer: the module's path, then its kernel names, one per line (a module with
 * thousands of kernels needs room). */
#define ANSWER_BYTES (1u << 20)

extern char **environ;

/* Implemented in Python (the library's cffi init code), exported by cffi's embedding API;
 * each library has its own, bound inside it. */
int pyshim_embed_translate(const void *image, size_t size, const char *target, char *out,
                           size_t out_len, int *status);

static pthread_once_t once = PTHREAD_ONCE_INIT;
static int home_was_set;
/* the translator runs in a subprocess: another Python runs this process, or this process's
 * Python cannot host ours (set once by prepare(), or once after a failed start) */
static _Atomic int use_subprocess;

/* Whether the Python already running this process can import `module` (from its own
 * sys.path: cffi imports its backend before our init code can add any). Resolved by name:
 * the caller knows that the running Python is the libpython we link. */
static int host_can_import(const char *module)
{
    int (*ensure)(void) = (int (*)(void))dlsym(RTLD_DEFAULT, "PyGILState_Ensure");
    void (*release)(int) = (void (*)(int))dlsym(RTLD_DEFAULT, "PyGILState_Release");
    void *(*import)(const char *) =
        (void *(*)(const char *))dlsym(RTLD_DEFAULT, "PyImport_ImportModule");
    void (*clear)(void) = (void (*)(void))dlsym(RTLD_DEFAULT, "PyErr_Clear");
    void (*decref)(void *) = (void (*)(void *))dlsym(RTLD_DEFAULT, "Py_DecRef");
    if (ensure == NULL || release == NULL || import == NULL || clear == NULL || decref == NULL)
        return 1; /* cannot tell: let cffi try (a failed start still falls back) */
    int gil = ensure();
    void *m = import(module);
    if (m != NULL)
        decref(m);
    else
        clear();
    release(gil);
    return m != NULL;
}

static void prepare(void)
{
    /* PYSHIM_TRANSLATOR=subprocess: never start an interpreter in this process */
    const char *mode = getenv("PYSHIM_TRANSLATOR");
    if (mode != NULL && strcmp(mode, "subprocess") == 0) {
        use_subprocess = 1;
        return;
    }
    /* Is the Python this process sees first (the host's, if it runs one) the libpython we
     * were linked with? Then embed (attaching to it if it is already running). If it is
     * anything else (another version, a statically linked python), do not mix two
     * interpreters: translate in a subprocess. */
    void *ours = dlopen(PYSHIM_LIBPYTHON, RTLD_NOW | RTLD_NOLOAD);
    void *first = dlsym(RTLD_DEFAULT, "Py_IsInitialized");
    void *mine = ours != NULL ? dlsym(ours, "Py_IsInitialized") : NULL;
    int running = first != NULL && ((int (*)(void))first)();
    if (ours != NULL)
        dlclose(ours); /* NOLOAD took a reference */
    if (running && first == mine && !host_can_import("_cffi_backend")) {
        /* the program's own Python (a virtualenv without cffi, say): cffi would fail to
         * start there and print a page about it, and no kernel would load */
        pyshim_common_log("this program's Python cannot import _cffi_backend: the PTX "
                          "translator runs in a subprocess of %s", PYSHIM_PYTHON_EXE);
        use_subprocess = 1;
        return;
    }
    if (first != NULL && first != mine) {
        pyshim_common_log("another Python runs this process: translating in a subprocess");
        use_subprocess = 1;
        return;
    }
    /* A PYTHONHOME meant for another Python would make the interpreter abort at start-up
     * (a fatal error, not an exception): translate in a subprocess, which ignores it. */
    const char *home = getenv("PYTHONHOME");
    if (!running && home != NULL && home[0] != '\0') {
        char probe[4096];
        snprintf(probe, sizeof probe, "%s/lib/python%lu.%lu/os.py", home,
                 (unsigned long)PYSHIM_PYTHON_VERSION_HEX >> 24,
                 ((unsigned long)PYSHIM_PYTHON_VERSION_HEX >> 16) & 0xff);
        if (access(probe, R_OK) != 0) {
            pyshim_common_log(
                "PYTHONHOME=%s is not this Python's: translating in a subprocess", home);
            use_subprocess = 1;
            return;
        }
    }
    if (dlopen(PYSHIM_LIBPYTHON, RTLD_NOW | RTLD_NOLOAD | RTLD_GLOBAL) == NULL) {
        pyshim_common_log("cannot make %s global (%s): translating in a subprocess",
                          PYSHIM_LIBPYTHON, dlerror());
        use_subprocess = 1;
        return;
    }
    /* The interpreter finds its standard library from the program's path, which is the
     * CUDA program's here; point it at the Python we were built with unless told. */
    if (!running && getenv("PYTHONHOME") == NULL)
        home_was_set = setenv("PYTHONHOME", PYSHIM_PYTHONHOME, 0) == 0;
}

static int write_all(int fd, const void *buf, size_t n)
{
    const uint8_t *p = buf;
    while (n > 0) {
        ssize_t w = write(fd, p, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return -1; /* the worker is gone */
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

static int read_all(int fd, void *buf, size_t n)
{
    uint8_t *p = buf;
    while (n > 0) {
        ssize_t r = read(fd, p, n);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            return -1;
        p += r;
        n -= (size_t)r;
    }
    return 0;
}

/* The translator subprocess (pyshim/embed/worker.py serve()), started at the first module
 * and kept: a fresh Python per module pays the imports and the compiler's identity again
 * before any translation (benchmarks/README.md has the figure), which a test suite of
 * thousands of kernels would pay thousands of times.
 * One request at a time: "TARGET\tSIZE\n" and the image on its stdin; "LEN\n" and the
 * answer ("0\t<answer>" or "1\t<error>") on its stdout. */
static pthread_mutex_t worker_lock = PTHREAD_MUTEX_INITIALIZER;
static pid_t worker_pid = -1;
static pid_t worker_owner = -1; /* the process that started it (a forked child has none) */
static int worker_in = -1, worker_out = -1;

static void worker_stop(void)
{
    if (worker_in >= 0)
        close(worker_in);
    if (worker_out >= 0)
        close(worker_out);
    worker_in = worker_out = -1;
    if (worker_pid > 0 && worker_owner == getpid()) {
        int wstatus;
        /* ECHILD: the host ignores SIGCHLD, so the worker was reaped for us */
        while (waitpid(worker_pid, &wstatus, 0) < 0 && errno == EINTR)
            ;
    }
    worker_pid = -1;
}

/* In a forked child: the worker and its pipes are the parent's, and the lock may have been
 * held by a thread the child does not have; start over (without blocking the fork while a
 * module compiles in another thread). */
static void worker_forget_in_child(void)
{
    pthread_mutex_t fresh = PTHREAD_MUTEX_INITIALIZER;
    worker_lock = fresh;
    if (worker_in >= 0)
        close(worker_in);
    if (worker_out >= 0)
        close(worker_out);
    worker_in = worker_out = -1;
    worker_pid = -1;
}

static pthread_once_t worker_atfork_once = PTHREAD_ONCE_INIT;

static void worker_atfork(void)
{
    pthread_atfork(NULL, NULL, worker_forget_in_child);
}

static int worker_start(void)
{
    pthread_once(&worker_atfork_once, worker_atfork);
    static const char code[] =
        "import sys; sys.path.insert(0, '" PYSHIM_REPO_DIR "')\n"
        "from pyshim.embed.worker import serve; sys.exit(serve())";
    int to_child[2], from_child[2];
    if (pipe2(to_child, O_CLOEXEC) != 0)
        return -1;
    if (pipe2(from_child, O_CLOEXEC) != 0) {
        close(to_child[0]);
        close(to_child[1]);
        return -1;
    }
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, to_child[0], 0);
    posix_spawn_file_actions_adddup2(&fa, from_child[1], 1);
    char *argv[] = {(char *)PYSHIM_PYTHON_EXE, (char *)"-I", (char *)"-c", (char *)code, NULL};
    pid_t pid;
    int err = posix_spawn(&pid, PYSHIM_PYTHON_EXE, &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    close(to_child[0]);
    close(from_child[1]);
    if (err != 0) {
        pyshim_common_log("cannot start the translator subprocess %s: %s", PYSHIM_PYTHON_EXE,
                          strerror(err));
        close(to_child[1]);
        close(from_child[0]);
        return -1;
    }
    worker_pid = pid;
    worker_owner = getpid();
    worker_in = to_child[1];
    worker_out = from_child[0];
    return 0;
}

/* One request to the running worker; the answer (truncated to out_len - 1) in `out`. */
static int worker_request(const void *image, size_t size, const char *target, char *out,
                          size_t out_len, size_t *got)
{
    char head[512];
    int hn = snprintf(head, sizeof head, "%s\t%zu\n", target, size);
    if (hn < 0 || (size_t)hn >= sizeof head || write_all(worker_in, head, (size_t)hn) != 0 ||
        write_all(worker_in, image, size) != 0)
        return -1;
    char line[32];
    size_t n = 0;
    for (;;) { /* "LEN\n" */
        if (n + 1 >= sizeof line || read_all(worker_out, line + n, 1) != 0)
            return -1;
        if (line[n] == '\n')
            break;
        n++;
    }
    line[n] = '\0';
    char *end;
    unsigned long long len = strtoull(line, &end, 10);
    if (n == 0 || *end != '\0')
        return -1;
    size_t keep = len < out_len - 1 ? (size_t)len : out_len - 1;
    if (read_all(worker_out, out, keep) != 0)
        return -1;
    for (unsigned long long rest = len - keep; rest > 0;) {
        char sink[4096];
        size_t k = rest < sizeof sink ? (size_t)rest : sizeof sink;
        if (read_all(worker_out, sink, k) != 0)
            return -1;
        rest -= k;
    }
    out[keep] = '\0';
    *got = keep;
    return 0;
}

/* Fills `out` with the worker's answer and `*status` (0/1; left at -1 when there is none).
 * A worker that has died (or is a forked parent's) is replaced, once per request. */
static void translate_in_subprocess(const void *image, size_t size, const char *target,
                                    char *out, size_t out_len, int *status, int trace)
{
    /* a worker that dies must not kill the program with SIGPIPE */
    sigset_t pipe_set, old;
    sigemptyset(&pipe_set);
    sigaddset(&pipe_set, SIGPIPE);
    pthread_sigmask(SIG_BLOCK, &pipe_set, &old);
    pthread_mutex_lock(&worker_lock);
    if (worker_pid > 0 && worker_owner != getpid()) {
        /* a forked child: the pipes are its parent's worker's; leave that one alone */
        close(worker_in);
        close(worker_out);
        worker_in = worker_out = -1;
        worker_pid = -1;
    }
    size_t got = 0;
    int ok = -1;
    for (int attempt = 0; attempt < 2 && ok != 0; attempt++) {
        if (worker_pid <= 0 && worker_start() != 0)
            break;
        ok = worker_request(image, size, target, out, out_len, &got);
        if (ok != 0) {
            if (trace)
                pyshim_common_log("the translator subprocess gave no answer; starting another");
            worker_stop();
        }
    }
    pthread_mutex_unlock(&worker_lock);
    struct timespec zero = {0, 0};
    siginfo_t info;
    while (sigtimedwait(&pipe_set, &info, &zero) > 0)
        ; /* discard a SIGPIPE we caused */
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (ok == 0 && got >= 2 && (out[0] == '0' || out[0] == '1') && out[1] == '\t') {
        *status = out[0] - '0';
        memmove(out, out + 2, got - 1);
    } else {
        out[0] = '\0';
        if (trace)
            pyshim_common_log("the translator subprocess gave no answer");
    }
}

static _Thread_local int last_ptx_target;
static _Thread_local unsigned long long last_const_bytes;

int pyshim_embed_last_ptx_target(void)
{
    return last_ptx_target;
}

unsigned long long pyshim_embed_last_const_bytes(void)
{
    return last_const_bytes;
}

/* The translator's answer `out` (with its `status`) as the library's code. */
static int answer(const struct pyshim_embed_library *lib, int status, char *out, char *path,
                  size_t path_len, char **kernels, char *error, size_t error_len)
{
    if (status == -1) { /* the Python function never attached */
        pyshim_common_log("%s", lib->not_started);
        if (error != NULL)
            snprintf(error, error_len, "pyshim: the PTX translator did not start");
        return lib->jit_compiler_not_found;
    }
    if (status != 0) {
        /* "CUDA_ERROR_NAME\tmessage" */
        char *tab = strchr(out, '\t');
        if (tab != NULL)
            *tab = '\0';
        const char *message = tab != NULL ? tab + 1 : out;
        pyshim_common_log("%s", message);
        if (error != NULL)
            snprintf(error, error_len, "%s", message);
        int rc = lib->from_driver_name(out);
        return rc == lib->success ? lib->unknown : rc;
    }
    /* "path\tptx=75\nkernel\nkernel...": the module file and its PTX target are the
     * first line */
    char *names = strchr(out, '\n');
    if (names != NULL)
        *names++ = '\0';
    /* "\tkey=value" facts after the path; unknown keys are skipped */
    char *facts = strchr(out, '\t');
    last_ptx_target = 0;
    last_const_bytes = 0;
    if (facts != NULL)
        *facts++ = '\0';
    while (facts != NULL) {
        char *next = strchr(facts, '\t');
        if (next != NULL)
            *next++ = '\0';
        if (strncmp(facts, "ptx=", 4) == 0)
            last_ptx_target = atoi(facts + 4);
        else if (strncmp(facts, "const=", 6) == 0)
            last_const_bytes = strtoull(facts + 6, NULL, 10);
        facts = next;
    }
    if (strlen(out) + 1 > path_len)
        return lib->invalid_value;
    memcpy(path, out, strlen(out) + 1);
    if (kernels != NULL)
        *kernels = strdup(names != NULL ? names : "");
    return lib->success;
}

int pyshim_embed_translate_image(const struct pyshim_embed_library *lib, const void *image,
                                 size_t size, const char *target, char *path, size_t path_len,
                                 char **kernels, char *error, size_t error_len)
{
    if (kernels != NULL)
        *kernels = NULL;
    pthread_once(&once, prepare);
    char *out = malloc(ANSWER_BYTES);
    if (out == NULL)
        return lib->out_of_memory;
    int status = -1;
    out[0] = '\0';
    if (!use_subprocess) {
        pyshim_embed_translate(image, size, target, out, ANSWER_BYTES, &status);
        if (status == -1) {
            /* the init code failed (cffi said why, above): the program's Python cannot
             * host the translator; this and every later module go to a subprocess */
            int was = 0;
            if (atomic_compare_exchange_strong(&use_subprocess, &was, 1))
                pyshim_common_log("the embedded PTX translator did not start: it runs in a "
                                  "subprocess of %s from now on", PYSHIM_PYTHON_EXE);
        }
    }
    if (use_subprocess && status == -1)
        translate_in_subprocess(image, size, target, out, ANSWER_BYTES, &status,
                                lib->trace_enabled != NULL && lib->trace_enabled());
    if (home_was_set) {
        /* the interpreter has read it; the program's children must not inherit it */
        home_was_set = 0;
        unsetenv("PYTHONHOME");
    }
    if (error != NULL)
        error[0] = '\0';
    int rc = answer(lib, status, out, path, path_len, kernels, error, error_len);
    free(out);
    return rc;
}
