/*
 * Modules and libraries. An image (fatbin wrapper, fat binary container, PTX text, cubin)
 * is copied at load time; translating it to the backend (embedded Python: PTX -> kernel
 * source -> compiler -> cached file) and loading it with hipModuleLoad happen once, on
 * first use for libraries (cudart registers every fatbin lazily, maybe with no current
 * context) and at load time for modules (driver-API programs expect load errors there).
 * CUlibrary and CUmodule both point at a pyshim_library; CUkernel and CUfunction both at
 * a CUfunc_st, because cudart passes a CUkernel wherever a CUfunction is expected.
 */
#define _POSIX_C_SOURCE 200809L /* strdup */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/embed_bridge.h"
#include "common/module_bind.h"
#include "internal.h"

#define LIB_MAGIC 0x4c494231u /* "LIB1" */

struct func_node {
    struct CUfunc_st func;
    struct func_node *next;
};

/* One kernel's own code object of a lazily loaded module (pyshim/kernels/lazy.py). */
struct lazy_node {
    hipModule_t module;
    struct lazy_node *next;
};

struct pyshim_library {
    uint32_t magic;
    pthread_mutex_t lock;
    uint8_t *image;
    size_t size;
    /* translated and loaded separately on each device that uses it (devices may differ:
     * the kernel cache makes a repeat for the same target cheap) */
    struct {
        int tried;       /* attempted on this device */
        CUresult result; /* its outcome, returned to every later use */
        hipModule_t module;
        char *kernels;   /* the translator's kernel names, one per line */
        char *params;    /* "name\toffset:size,...\n" per kernel: their parameter layouts */
        int ptx_target;  /* ".target sm_75" -> 75, as the translator read it */
        unsigned long long const_bytes; /* of its .const variables */
        struct lazy_node *lazy; /* kernels of a lazily loaded module, loaded one by one */
    } dev[PYSHIM_MAX_DEVICES];
    unsigned int max_registers; /* CU_JIT_MAX_REGISTERS given at load; 0: none */
    struct func_node *funcs;
    struct pyshim_library *next_live; /* the registry of libraries, for device resets */
};

static void unload_lazy(struct pyshim_library *lib, int d);

static pthread_mutex_t registry_lock = PTHREAD_MUTEX_INITIALIZER;
static struct pyshim_library *live;

#define AS_LIB(h) ((struct pyshim_library *)(void *)(h))

static int lib_valid(const struct pyshim_library *lib)
{
    return pyshim_handles_contains(&pyshim_known_libraries, lib) && lib->magic == LIB_MAGIC;
}

/* The device modules load on: the current context's, else HIP's current device. */
static int current_device(void)
{
    CUcontext ctx = pyshim_current_ctx();
    if (pyshim_ctx_valid(ctx))
        return ctx->device;
    int dev = 0;
    if (hipGetDevice(&dev) != hipSuccess)
        dev = 0;
    return dev;
}

/* The translator target of a device: "cpu-wave64", "hip-wave64:gfx942", ... */
static void target_name(int dev, char *out, size_t len)
{
    const hipDeviceProp_t *p = pyshim_device_prop(dev);
    int wave = p != NULL ? p->warpSize : 64;
    const char *backend = getenv("PYSHIM_BACKEND");
    int cpu;
    /* the launcher says which backend it chose; else the CPU device's name tells it apart
     * (it presents a gfx942-like gcnArchName on purpose) */
    if (backend != NULL && backend[0] != '\0')
        cpu = strcmp(backend, "cpu") == 0;
    else
        cpu = p == NULL || strncmp(p->name, "pyshim CPU device", 17) == 0 ||
              strncmp(p->gcnArchName, "gfx", 3) != 0;
    if (cpu) {
        snprintf(out, len, "cpu-wave%d", wave);
        return;
    }
    char arch[sizeof p->gcnArchName];
    snprintf(arch, sizeof arch, "%s", p->gcnArchName);
    arch[strcspn(arch, ":")] = '\0'; /* drop feature flags such as ":sramecc+:xnack-" */
    snprintf(out, len, "hip-wave%d:%s", wave, arch);
}

/* The translator's kernel lines are "name\tlayout": keep the whole lines as the parameter
 * table and the names alone, one per line, as the kernel list. */
static void split_params(char **kernels, char **params)
{
    if (*kernels == NULL || strchr(*kernels, '\t') == NULL)
        return;
    *params = strdup(*kernels);
    char *w = *kernels;
    for (const char *r = *kernels; *r != '\0';) {
        const char *eol = strchr(r, '\n');
        size_t len = eol != NULL ? (size_t)(eol - r) : strlen(r);
        const char *tab = memchr(r, '\t', len);
        size_t name_len = tab != NULL ? (size_t)(tab - r) : len;
        memmove(w, r, name_len);
        w += name_len;
        if (eol == NULL)
            break;
        *w++ = '\n';
        r = eol + 1;
    }
    *w = '\0';
}

/* The translator's "\tunsupported=why" on kernel `name`'s line of `params` (a kernel it
 * could not translate), or NULL. */
static const char *unsupported_reason(const char *params, const char *name)
{
    size_t name_len = strlen(name);
    for (const char *line = params; line != NULL && *line != '\0';) {
        const char *eol = strchr(line, '\n');
        if (strncmp(line, name, name_len) == 0 && line[name_len] == '\t') {
            const char *u = strstr(line + name_len, "\tunsupported=");
            return u != NULL && (eol == NULL || u < eol) ? u + 14 : NULL;
        }
        line = eol != NULL ? eol + 1 : NULL;
    }
    return NULL;
}

/* Translate and load `lib` on the current device (once); *dev_out says which device. */
static CUresult ensure_loaded(struct pyshim_library *lib, int *dev_out)
{
    int d = current_device();
    if (d < 0 || d >= PYSHIM_MAX_DEVICES) {
        pyshim_log("device %d: pyshim loads modules on devices 0..%d only", d,
                   PYSHIM_MAX_DEVICES - 1);
        return CUDA_ERROR_INVALID_DEVICE;
    }
    if (dev_out != NULL)
        *dev_out = d;
    pthread_mutex_lock(&lib->lock);
    if (!lib->dev[d].tried) {
        lib->dev[d].tried = 1;
        char target[320], path[4096];
        target_name(d, target, sizeof target);
        free(lib->dev[d].kernels);
        lib->dev[d].kernels = NULL;
        CUresult rc = pyshim_py_translate(lib->image, lib->size, target, path, sizeof path,
                                          &lib->dev[d].kernels);
        lib->dev[d].ptx_target = rc == CUDA_SUCCESS ? pyshim_embed_last_ptx_target() : 0;
        lib->dev[d].const_bytes = rc == CUDA_SUCCESS ? pyshim_embed_last_const_bytes() : 0;
        free(lib->dev[d].params);
        lib->dev[d].params = NULL;
        if (rc == CUDA_SUCCESS)
            split_params(&lib->dev[d].kernels, &lib->dev[d].params);
        if (rc == CUDA_SUCCESS) {
            /* HIP loads onto its current device: make sure that is `d` */
            int cur = -1;
            if (hipGetDevice(&cur) != hipSuccess || cur != d)
                hipSetDevice(d);
            hipError_t err = hipModuleLoad(&lib->dev[d].module, path);
            if (err != hipSuccess) {
                pyshim_log("hipModuleLoad(%s) failed: %s", path, hipGetErrorName(err));
                rc = pyshim_cu_from_hip(err);
                if (rc == CUDA_SUCCESS)
                    rc = CUDA_ERROR_UNKNOWN;
            }
        }
        lib->dev[d].result = rc;
    }
    CUresult rc = lib->dev[d].result;
    pthread_mutex_unlock(&lib->lock);
    return rc;
}

static CUresult create(struct pyshim_library **out, const void *data)
{
    uint8_t *image = NULL;
    size_t size = 0;
    CUresult rc = pyshim_image_copy(data, &image, &size);
    if (rc != CUDA_SUCCESS)
        return rc;
    struct pyshim_library *lib = calloc(1, sizeof *lib);
    if (lib == NULL) {
        free(image);
        return CUDA_ERROR_OUT_OF_MEMORY;
    }
    if (!pyshim_handles_add(&pyshim_known_libraries, lib)) {
        free(lib);
        free(image);
        return CUDA_ERROR_OUT_OF_MEMORY;
    }
    lib->image = image;
    lib->size = size;
    lib->magic = LIB_MAGIC;
    pthread_mutex_init(&lib->lock, NULL);
    pthread_mutex_lock(&registry_lock);
    lib->next_live = live;
    live = lib;
    pthread_mutex_unlock(&registry_lock);
    *out = lib;
    return CUDA_SUCCESS;
}

/* The handle structs stay allocated (as tombstones, magic 0) so that a stale CUlibrary or
 * CUkernel, which cudart may still hold at exit, is refused instead of read after free. */
static void destroy(struct pyshim_library *lib)
{
    pthread_mutex_lock(&registry_lock);
    struct pyshim_library **link = &live;
    while (*link != NULL && *link != lib)
        link = &(*link)->next_live;
    if (*link == lib)
        *link = lib->next_live;
    pthread_mutex_unlock(&registry_lock);
    pthread_mutex_lock(&lib->lock);
    lib->magic = 0;
    for (int d = 0; d < PYSHIM_MAX_DEVICES; d++) {
        unload_lazy(lib, d);
        if (lib->dev[d].module != NULL)
            hipModuleUnload(lib->dev[d].module);
        lib->dev[d].module = NULL;
        free(lib->dev[d].params);
        lib->dev[d].params = NULL;
        free(lib->dev[d].kernels);
        lib->dev[d].kernels = NULL;
    }
    for (struct func_node *n = lib->funcs; n != NULL; n = n->next) {
        n->func.magic = 0;
        memset(n->func.hip, 0, sizeof n->func.hip);
    }
    free(lib->image);
    lib->image = NULL;
    pthread_mutex_unlock(&lib->lock);
}

/* A function handle of `lib`. `lazy` (libraries): the handle is made without translating;
 * the module is translated and the name looked up at first launch or attribute query,
 * so launch-configuration errors are reported before translation errors. */
/* Whether `name` is one of the newline-separated `names`. */
static int listed(const char *names, const char *name)
{
    size_t len = strlen(name);
    for (const char *p = names; p != NULL && *p != '\0';) {
        const char *eol = strchr(p, '\n');
        size_t n = eol != NULL ? (size_t)(eol - p) : strlen(p);
        if (n == len && strncmp(p, name, len) == 0)
            return 1;
        p = eol != NULL ? eol + 1 : NULL;
    }
    return 0;
}

static void unload_lazy(struct pyshim_library *lib, int d)
{
    for (struct lazy_node *n = lib->dev[d].lazy, *next; n != NULL; n = next) {
        next = n->next;
        hipModuleUnload(n->module);
        free(n);
    }
    lib->dev[d].lazy = NULL;
}

/* Kernel `name` of module `lib` on device d; a lazily loaded module (its data object holds
 * "pyshim:lazy", the module's cache key) translates and loads the kernel now. Called with
 * lib->lock held. */
static CUresult module_function(struct pyshim_library *lib, int d, const char *name,
                                hipFunction_t *out)
{
    hipModule_t data = lib->dev[d].module;
    if (hipModuleGetFunction(out, data, name) == hipSuccess)
        return CUDA_SUCCESS;
    for (struct lazy_node *n = lib->dev[d].lazy; n != NULL; n = n->next)
        if (hipModuleGetFunction(out, n->module, name) == hipSuccess)
            return CUDA_SUCCESS;
    hipDeviceptr_t key = NULL;
    size_t key_len = 0;
    if (hipModuleGetGlobal(&key, &key_len, data, "pyshim:lazy") != hipSuccess || key_len < 2 ||
        !listed(lib->dev[d].kernels, name))
        return CUDA_ERROR_NOT_FOUND;
    size_t name_len = strlen(name), cap = 16 + key_len + name_len;
    char *request = malloc(cap);
    if (request == NULL)
        return CUDA_ERROR_OUT_OF_MEMORY;
    int len = snprintf(request, cap, "PSLAZYK1\n%s\n%s\n", (const char *)key, name);
    char target[320], path[4096];
    target_name(d, target, sizeof target);
    char *kernels = NULL;
    CUresult rc = pyshim_py_translate(request, (size_t)len, target, path, sizeof path, &kernels);
    free(request);
    free(kernels);
    if (rc != CUDA_SUCCESS)
        return rc;
    struct lazy_node *n = calloc(1, sizeof *n);
    if (n == NULL)
        return CUDA_ERROR_OUT_OF_MEMORY;
    hipError_t err = hipModuleLoad(&n->module, path);
    if (err != hipSuccess) {
        pyshim_log("hipModuleLoad(%s) failed: %s", path, hipGetErrorName(err));
        free(n);
        return CUDA_ERROR_INVALID_IMAGE;
    }
    rc = pyshim_bind_globals(data, n->module, name) == 0 ? CUDA_SUCCESS
                                                         : CUDA_ERROR_INVALID_IMAGE;
    if (rc == CUDA_SUCCESS && hipModuleGetFunction(out, n->module, name) != hipSuccess)
        rc = CUDA_ERROR_NOT_FOUND;
    if (rc != CUDA_SUCCESS) {
        hipModuleUnload(n->module);
        free(n);
        return rc;
    }
    n->next = lib->dev[d].lazy;
    lib->dev[d].lazy = n;
    return CUDA_SUCCESS;
}

static CUresult get_function(struct CUfunc_st **out, struct pyshim_library *lib,
                             const char *name, int lazy)
{
    if (out == NULL || name == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    if (!lib_valid(lib))
        return CUDA_ERROR_INVALID_HANDLE;
    int d = 0;
    if (!lazy) {
        CUresult rc = ensure_loaded(lib, &d);
        if (rc != CUDA_SUCCESS)
            return rc;
    }
    pthread_mutex_lock(&lib->lock);
    struct func_node *n = lib->funcs;
    while (n != NULL && strcmp(n->func.name, name) != 0)
        n = n->next;
    if (n == NULL) {
        hipFunction_t f = NULL;
        CUresult frc = lazy ? CUDA_SUCCESS : module_function(lib, d, name, &f);
        if (frc != CUDA_SUCCESS) {
            pthread_mutex_unlock(&lib->lock);
            return frc;
        }
        /* lazily, a name is checked once the module is loaded here anyway (its kernel
         * list is known then); before, the first launch reports it */
        int here = current_device();
        if (lazy && here >= 0 && here < PYSHIM_MAX_DEVICES && lib->dev[here].tried &&
            lib->dev[here].result == CUDA_SUCCESS && !listed(lib->dev[here].kernels, name)) {
            pthread_mutex_unlock(&lib->lock);
            pyshim_log("kernel %s is not in its module", name);
            return CUDA_ERROR_NOT_FOUND;
        }
        n = calloc(1, sizeof *n);
        char *copy = strdup(name);
        if (n == NULL || copy == NULL) {
            free(n);
            free(copy);
            pthread_mutex_unlock(&lib->lock);
            return CUDA_ERROR_OUT_OF_MEMORY;
        }
        if (!pyshim_handles_add(&pyshim_known_functions, &n->func)) {
            free(n);
            free(copy);
            pthread_mutex_unlock(&lib->lock);
            return CUDA_ERROR_OUT_OF_MEMORY;
        }
        n->func.magic = PYSHIM_FUNC_MAGIC;
        n->func.lib = lib;
        n->func.name = copy;
        n->func.hip[d] = f;
        n->next = lib->funcs;
        lib->funcs = n;
    }
    *out = &n->func;
    pthread_mutex_unlock(&lib->lock);
    return CUDA_SUCCESS;
}

static CUresult get_global(CUdeviceptr *dptr, size_t *bytes, struct pyshim_library *lib,
                           const char *name)
{
    if (name == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    if (!lib_valid(lib))
        return CUDA_ERROR_INVALID_HANDLE;
    int d;
    CUresult rc = ensure_loaded(lib, &d);
    if (rc != CUDA_SUCCESS)
        return rc;
    hipDeviceptr_t p = NULL;
    size_t size = 0;
    if (hipModuleGetGlobal(&p, &size, lib->dev[d].module, name) != hipSuccess)
        return CUDA_ERROR_NOT_FOUND;
    if (dptr != NULL)
        *dptr = (CUdeviceptr)(uintptr_t)p;
    if (bytes != NULL)
        *bytes = size;
    return CUDA_SUCCESS;
}

CUresult pyshim_function_resolve(CUfunction f, hipFunction_t *out)
{
    if (!pyshim_func_valid(f))
        return CUDA_ERROR_INVALID_HANDLE;
    struct pyshim_library *lib = f->lib;
    int d;
    CUresult rc = ensure_loaded(lib, &d);
    if (rc != CUDA_SUCCESS)
        return rc;
    pthread_mutex_lock(&lib->lock);
    if (f->hip[d] == NULL) {
        rc = module_function(lib, d, f->name, &f->hip[d]);
        if (rc != CUDA_SUCCESS) {
            f->hip[d] = NULL;
            if (rc == CUDA_ERROR_NOT_FOUND)
                pyshim_log("kernel %s is not in its module", f->name);
        }
    }
    *out = f->hip[d];
    pthread_mutex_unlock(&lib->lock);
    return rc;
}

CUresult pyshim_function_refused(CUfunction f)
{
    int d = current_device();
    if (!pyshim_func_valid(f) || !lib_valid(f->lib) || d < 0 || d >= PYSHIM_MAX_DEVICES)
        return CUDA_SUCCESS;
    if (f->refused[d] == 0) { /* first launch here: 1 runs, 2 refused */
        pthread_mutex_lock(&f->lib->lock);
        const char *why = unsupported_reason(f->lib->dev[d].params, f->name);
        f->refused[d] = why != NULL ? 2 : 1;
        if (why != NULL)
            pyshim_log("launch of %s refused (CUDA_ERROR_NOT_SUPPORTED): %.*s", f->name,
                       (int)strcspn(why, "\n"), why);
        pthread_mutex_unlock(&f->lib->lock);
    }
    return f->refused[d] == 2 ? CUDA_ERROR_NOT_SUPPORTED : CUDA_SUCCESS;
}

CUresult pyshim_function_param_info(CUfunction f, size_t index, size_t *offset, size_t *size)
{
    if (!pyshim_func_valid(f) || !lib_valid(f->lib))
        return CUDA_ERROR_INVALID_HANDLE;
    int d;
    CUresult rc = ensure_loaded(f->lib, &d);
    if (rc != CUDA_SUCCESS)
        return rc;
    rc = CUDA_ERROR_INVALID_VALUE; /* past its last parameter (or none known) */
    size_t name_len = strlen(f->name);
    pthread_mutex_lock(&f->lib->lock);
    for (const char *line = f->lib->dev[d].params; line != NULL && *line != '\0';) {
        const char *eol = strchr(line, '\n');
        if (strncmp(line, f->name, name_len) == 0 && line[name_len] == '\t') {
            const char *p = line + name_len + 1;
            for (size_t i = 0; p != NULL && (eol == NULL || p < eol); i++) {
                unsigned long long o, z;
                if (sscanf(p, "%llu:%llu", &o, &z) != 2)
                    break;
                if (i == index) {
                    *offset = (size_t)o;
                    *size = (size_t)z;
                    rc = CUDA_SUCCESS;
                    break;
                }
                p = strchr(p, ',');
                p = p != NULL ? p + 1 : NULL;
            }
            break;
        }
        line = eol != NULL ? eol + 1 : NULL;
    }
    pthread_mutex_unlock(&f->lib->lock);
    return rc;
}

int pyshim_function_facts(CUfunction f, struct pyshim_function_facts *out)
{
    memset(out, 0, sizeof *out);
    if (!pyshim_func_valid(f) || !lib_valid(f->lib))
        return 0;
    int d = current_device();
    if (d < 0 || d >= PYSHIM_MAX_DEVICES)
        return 0;
    pthread_mutex_lock(&f->lib->lock);
    out->ptx_target = f->lib->dev[d].ptx_target;
    out->const_bytes = f->lib->dev[d].const_bytes;
    out->max_registers = f->lib->max_registers;
    pthread_mutex_unlock(&f->lib->lock);
    return 1;
}

/* CU_JIT_MAX_REGISTERS among a load's JIT options (maxrregcount); 0 if absent */
static unsigned int jit_max_registers(unsigned int n, const CUjit_option *options,
                                      void *const *values)
{
    unsigned int v = 0;
    for (unsigned int i = 0; options != NULL && values != NULL && i < n; i++)
        if (options[i] == CU_JIT_MAX_REGISTERS)
            v = (unsigned int)(uintptr_t)values[i];
    return v;
}

/* ---- libraries ---- */

CUresult CUDAAPI cuLibraryLoadData(CUlibrary *library, const void *code, CUjit_option *jitOptions,
                                   void **jitOptionsValues, unsigned int numJitOptions,
                                   CUlibraryOption *libraryOptions, void **libraryOptionValues,
                                   unsigned int numLibraryOptions)
{
    (void)libraryOptions;
    (void)libraryOptionValues;
    (void)numLibraryOptions;
    if (library == NULL || code == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    CUresult rc = pyshim_check_init();
    if (rc != CUDA_SUCCESS)
        return rc;
    struct pyshim_library *lib;
    rc = create(&lib, code);
    if (rc != CUDA_SUCCESS)
        return rc;
    lib->max_registers = jit_max_registers(numJitOptions, jitOptions, jitOptionsValues);
    if (pyshim_trace_enabled())
        pyshim_log("cuLibraryLoadData: %zu-byte image%s", lib->size,
                   pyshim_current_ctx() == NULL ? ", no current context" : "");
    *library = (CUlibrary)(void *)lib;
    return CUDA_SUCCESS;
}

static CUresult read_file(const char *path, uint8_t **data)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        return CUDA_ERROR_FILE_NOT_FOUND;
    uint8_t *buf = NULL;
    size_t len = 0, cap = 0;
    for (;;) {
        if (len + 65536 + 1 > cap) {
            cap = (len + 65536 + 1) * 2;
            uint8_t *nb = realloc(buf, cap);
            if (nb == NULL) {
                free(buf);
                fclose(f);
                return CUDA_ERROR_OUT_OF_MEMORY;
            }
            buf = nb;
        }
        size_t n = fread(buf + len, 1, 65536, f);
        len += n;
        if (n == 0)
            break;
    }
    fclose(f);
    buf[len] = '\0'; /* PTX text files are not NUL-terminated */
    *data = buf;
    return CUDA_SUCCESS;
}

CUresult CUDAAPI cuLibraryLoadFromFile(CUlibrary *library, const char *fileName,
                                       CUjit_option *jitOptions, void **jitOptionsValues,
                                       unsigned int numJitOptions, CUlibraryOption *libraryOptions,
                                       void **libraryOptionValues, unsigned int numLibraryOptions)
{
    if (fileName == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    uint8_t *data;
    CUresult rc = read_file(fileName, &data);
    if (rc != CUDA_SUCCESS)
        return rc;
    rc = cuLibraryLoadData(library, data, jitOptions, jitOptionsValues, numJitOptions,
                           libraryOptions, libraryOptionValues, numLibraryOptions);
    free(data);
    return rc;
}

CUresult CUDAAPI cuLibraryUnload(CUlibrary library)
{
    struct pyshim_library *lib = AS_LIB(library);
    if (!lib_valid(lib))
        return CUDA_ERROR_INVALID_HANDLE;
    destroy(lib);
    return CUDA_SUCCESS;
}

CUresult CUDAAPI cuLibraryGetKernel(CUkernel *pKernel, CUlibrary library, const char *name)
{
    struct CUfunc_st *f = NULL;
    CUresult rc = get_function(&f, AS_LIB(library), name, 1);
    if (rc == CUDA_SUCCESS)
        *pKernel = (CUkernel)(void *)f;
    return rc;
}

CUresult CUDAAPI cuLibraryGetGlobal(CUdeviceptr *dptr, size_t *bytes, CUlibrary library,
                                    const char *name)
{
    return get_global(dptr, bytes, AS_LIB(library), name);
}

CUresult CUDAAPI cuLibraryGetModule(CUmodule *pMod, CUlibrary library)
{
    if (pMod == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    struct pyshim_library *lib = AS_LIB(library);
    if (!lib_valid(lib))
        return CUDA_ERROR_INVALID_HANDLE;
    CUresult rc = ensure_loaded(lib, NULL);
    if (rc == CUDA_SUCCESS)
        *pMod = (CUmodule)(void *)lib;
    return rc;
}

/* ---- modules ---- */

CUresult CUDAAPI cuModuleLoadData(CUmodule *module, const void *image)
{
    if (module == NULL || image == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    CUresult rc = pyshim_need_ctx();
    if (rc != CUDA_SUCCESS)
        return rc;
    struct pyshim_library *lib;
    rc = create(&lib, image);
    if (rc != CUDA_SUCCESS)
        return rc;
    rc = ensure_loaded(lib, NULL);
    if (rc != CUDA_SUCCESS) {
        destroy(lib);
        return rc;
    }
    *module = (CUmodule)(void *)lib;
    return CUDA_SUCCESS;
}

/* JIT options: the error and info log buffers are filled (the translator's message names
 * the PTX instruction and line); the others tune NVIDIA's JIT and are ignored. */
static void fill_jit_logs(unsigned int n, const CUjit_option *options, void **values,
                          CUresult rc)
{
    if (options == NULL || values == NULL)
        return;
    char *error_buf = NULL, *info_buf = NULL;
    size_t error_size = 0, info_size = 0;
    for (unsigned int i = 0; i < n; i++) {
        switch (options[i]) {
        case CU_JIT_ERROR_LOG_BUFFER: error_buf = values[i]; break;
        case CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES: error_size = (size_t)(uintptr_t)values[i]; break;
        case CU_JIT_INFO_LOG_BUFFER: info_buf = values[i]; break;
        case CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES: info_size = (size_t)(uintptr_t)values[i]; break;
        default: break;
        }
    }
    const char *msg = rc == CUDA_SUCCESS ? "" : pyshim_last_translate_error();
    const char *name = "?";
    cuGetErrorName(rc, &name);
    if (error_buf != NULL && error_size > 0) {
        if (rc != CUDA_SUCCESS && msg[0] == '\0')
            snprintf(error_buf, error_size, "pyshim: module load failed with %s", name);
        else
            snprintf(error_buf, error_size, "%s", msg);
    }
    if (info_buf != NULL && info_size > 0)
        snprintf(info_buf, info_size, "%s", rc == CUDA_SUCCESS ? "pyshim: translated" : "");
}

CUresult CUDAAPI cuModuleLoadDataEx(CUmodule *module, const void *image, unsigned int numOptions,
                                    CUjit_option *options, void **optionValues)
{
    pyshim_clear_translate_error();
    CUresult rc = cuModuleLoadData(module, image);
    if (rc == CUDA_SUCCESS)
        AS_LIB(*module)->max_registers = jit_max_registers(numOptions, options, optionValues);
    fill_jit_logs(numOptions, options, optionValues, rc);
    return rc;
}

CUresult CUDAAPI cuModuleLoadFatBinary(CUmodule *module, const void *fatCubin)
{
    return cuModuleLoadData(module, fatCubin);
}

CUresult CUDAAPI cuModuleLoad(CUmodule *module, const char *fname)
{
    if (fname == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    uint8_t *data;
    CUresult rc = read_file(fname, &data);
    if (rc != CUDA_SUCCESS)
        return rc;
    rc = cuModuleLoadData(module, data);
    free(data);
    return rc;
}

CUresult CUDAAPI cuModuleUnload(CUmodule hmod)
{
    struct pyshim_library *lib = AS_LIB(hmod);
    if (!lib_valid(lib))
        return CUDA_ERROR_INVALID_HANDLE;
    destroy(lib);
    return CUDA_SUCCESS;
}

CUresult CUDAAPI cuModuleGetFunction(CUfunction *hfunc, CUmodule hmod, const char *name)
{
    return get_function(hfunc, AS_LIB(hmod), name, 0);
}

CUresult CUDAAPI cuModuleGetGlobal_v2(CUdeviceptr *dptr, size_t *bytes, CUmodule hmod,
                                      const char *name)
{
    return get_global(dptr, bytes, AS_LIB(hmod), name);
}

CUresult CUDAAPI cuModuleGetLoadingMode(CUmoduleLoadingMode *mode)
{
    if (mode == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    /* the driver reads CUDA_MODULE_LOADING, as NVIDIA's does; lazy is the default. Either
     * way translation waits for first use: eager mode only loads the images early. */
    const char *env = getenv("CUDA_MODULE_LOADING");
    *mode = env != NULL && strcmp(env, "EAGER") == 0 ? CU_MODULE_EAGER_LOADING
                                                     : CU_MODULE_LAZY_LOADING;
    return CUDA_SUCCESS;
}

/* ---- enumerating kernels: the names the translator reported for the current device ---- */

static unsigned int count_names(const char *names)
{
    unsigned int n = 0;
    for (const char *p = names; p != NULL && *p != '\0'; n++) {
        p = strchr(p, '\n');
        if (p != NULL)
            p++;
    }
    return n;
}

static CUresult kernel_count(unsigned int *count, struct pyshim_library *lib)
{
    if (count == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    if (!lib_valid(lib))
        return CUDA_ERROR_INVALID_HANDLE;
    int d;
    CUresult rc = ensure_loaded(lib, &d);
    if (rc != CUDA_SUCCESS)
        return rc;
    pthread_mutex_lock(&lib->lock);
    *count = count_names(lib->dev[d].kernels);
    pthread_mutex_unlock(&lib->lock);
    return CUDA_SUCCESS;
}

static CUresult enumerate(struct CUfunc_st **out, unsigned int n, struct pyshim_library *lib)
{
    if (out == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    unsigned int count;
    CUresult rc = kernel_count(&count, lib);
    if (rc != CUDA_SUCCESS)
        return rc;
    if (n > count)
        return CUDA_ERROR_INVALID_VALUE;
    int d = current_device();
    pthread_mutex_lock(&lib->lock);
    char *names = strdup(lib->dev[d].kernels != NULL ? lib->dev[d].kernels : "");
    pthread_mutex_unlock(&lib->lock);
    if (names == NULL)
        return CUDA_ERROR_OUT_OF_MEMORY;
    /* a lazily loaded module's kernels are translated at their first use, not here */
    hipDeviceptr_t key = NULL;
    size_t key_len = 0;
    pthread_mutex_lock(&lib->lock);
    int lazy = lib->dev[d].module != NULL &&
               hipModuleGetGlobal(&key, &key_len, lib->dev[d].module, "pyshim:lazy") ==
                   hipSuccess;
    pthread_mutex_unlock(&lib->lock);
    char *save = NULL;
    char *name = strtok_r(names, "\n", &save);
    for (unsigned int i = 0; i < n && rc == CUDA_SUCCESS && name != NULL; i++) {
        rc = get_function(&out[i], lib, name, lazy);
        name = strtok_r(NULL, "\n", &save);
    }
    free(names);
    return rc;
}

CUresult CUDAAPI cuLibraryGetKernelCount(unsigned int *count, CUlibrary lib)
{
    return kernel_count(count, AS_LIB(lib));
}

CUresult CUDAAPI cuLibraryEnumerateKernels(CUkernel *kernels, unsigned int numKernels,
                                           CUlibrary lib)
{
    return enumerate((struct CUfunc_st **)(void *)kernels, numKernels, AS_LIB(lib));
}

CUresult CUDAAPI cuModuleGetFunctionCount(unsigned int *count, CUmodule mod)
{
    return kernel_count(count, AS_LIB(mod));
}

CUresult CUDAAPI cuModuleEnumerateFunctions(CUfunction *functions, unsigned int numFunctions,
                                            CUmodule mod)
{
    return enumerate(functions, numFunctions, AS_LIB(mod));
}

CUresult CUDAAPI cuModuleGetTexRef(CUtexref *pTexRef, CUmodule hmod, const char *name)
{
    (void)pTexRef;
    (void)hmod;
    (void)name;
    pyshim_unsupported("cuModuleGetTexRef"); /* texture references: removed in CUDA 12 */
    return CUDA_ERROR_NOT_SUPPORTED;
}

/* __managed__ variables: storage in the module like any global. On the CPU device that is
 * host memory already; on ROCm it is device memory, which the host reaches only on
 * systems with large-BAR/XNACK (known limitation). */
CUresult CUDAAPI cuLibraryGetManaged(CUdeviceptr *dptr, size_t *bytes, CUlibrary library,
                                     const char *name)
{
    return get_global(dptr, bytes, AS_LIB(library), name);
}

/* Before a device reset: unload every HIP module on that device (the reset would leave
 * their handles dangling) and forget the kernels' HIP functions there. The libraries and kernel handles stay
 * valid; their next use loads the module again (a kernel-cache hit, no translation). */
void pyshim_modules_unload_device(int device)
{
    if (device < 0 || device >= PYSHIM_MAX_DEVICES)
        return;
    pthread_mutex_lock(&registry_lock);
    for (struct pyshim_library *lib = live; lib != NULL; lib = lib->next_live) {
        pthread_mutex_lock(&lib->lock);
        unload_lazy(lib, device);
        if (lib->dev[device].module != NULL)
            hipModuleUnload(lib->dev[device].module);
        lib->dev[device].module = NULL;
        if (lib->dev[device].result == CUDA_SUCCESS)
            lib->dev[device].tried = 0;
        for (struct func_node *n = lib->funcs; n != NULL; n = n->next)
            n->func.hip[device] = NULL;
        pthread_mutex_unlock(&lib->lock);
    }
    pthread_mutex_unlock(&registry_lock);
}

/* ---- lazy loading of one function (CUDA 12.4): a library's kernels are translated and
 * loaded at first use; cuFuncLoad does it now ---- */

CUresult CUDAAPI cuFuncIsLoaded(CUfunctionLoadingState *state, CUfunction function)
{
    if (state == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    if (!pyshim_func_valid(function) || !lib_valid(function->lib))
        return CUDA_ERROR_INVALID_HANDLE;
    int d = current_device();
    pthread_mutex_lock(&function->lib->lock);
    int loaded = d >= 0 && d < PYSHIM_MAX_DEVICES && function->hip[d] != NULL;
    pthread_mutex_unlock(&function->lib->lock);
    *state = loaded ? CU_FUNCTION_LOADING_STATE_LOADED : CU_FUNCTION_LOADING_STATE_UNLOADED;
    return CUDA_SUCCESS;
}

CUresult CUDAAPI cuFuncLoad(CUfunction function)
{
    if (function == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    hipFunction_t hf;
    CUresult rc = pyshim_function_resolve(function, &hf);
    /* a kernel the translator refused is not loaded: its launch error, now */
    return rc == CUDA_SUCCESS ? pyshim_function_refused(function) : rc;
}
