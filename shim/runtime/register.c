/*
 * nvcc's host-side registration hooks (declared in crt/host_runtime.h; no public header
 * documents them). A program's static constructors register each translation unit's fat
 * binary, then every kernel (host stub -> mangled device name) and every __device__ /
 * __constant__ variable (host shadow -> device name). Nothing is translated here: a fat
 * binary is translated and loaded on the first launch or symbol use that needs it, on the
 * device current at that moment (CUDA's lazy loading).
 */
#define _POSIX_C_SOURCE 200809L /* strdup */
#define __CUDA_API_VERSION_INTERNAL 1
#include <cuda_runtime_api.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/embed_bridge.h"
#include "internal.h"

#define EXPORT __attribute__((visibility("default")))
#define FATBIN_MAGIC 0x52464231u /* "RFB1" */
#define VAR_MAGIC 0x52564131u    /* "RVA1" */
#define BUCKETS 1024

struct pyshim_rt_fatbin {
    uint32_t magic;
    const void *image; /* in the program's memory, which outlives the registration */
    size_t size;
    int loaded;        /* load attempted since the last reset */
    int load_result;
    void *module;
    int ptx_target;    /* ".target sm_75" -> 75, as the translator read it; 0 unknown */
    unsigned long long const_bytes; /* of its .const variables */
    int library;       /* cudaLibraryLoadData's: the image is ours (a copy) */
    char *kernels;     /* the module's kernel lines from the translator */
    void *cu_module;   /* the same image loaded by libcuda (cudaGetFuncBySymbol), or NULL */
    struct pyshim_rt_fatbin *next;
};

struct var {
    uint32_t magic;
    const void *shadow;
    char *name;
    size_t size;
    struct pyshim_rt_fatbin *fatbin;
    void **managed; /* __managed__: the host code's pointer to the variable, filled at load */
    struct var *next_in_bucket;
};

/* Two locks, always taken in this order: load_lock serialises module loads (translation
 * can take seconds), lock guards the registry lists only, so lookups and launches of
 * loaded kernels never wait behind a translation. */
static pthread_mutex_t load_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct pyshim_rt_fatbin *fatbins;
static struct pyshim_rt_func *funcs[BUCKETS];
static struct pyshim_rt_func *records[BUCKETS]; /* the same, keyed by record address */
static struct var *vars[BUCKETS];

static size_t bucket(const void *p)
{
    uintptr_t v = (uintptr_t)p;
    return (size_t)((v >> 4) ^ (v >> 14)) % BUCKETS;
}

static struct pyshim_rt_fatbin *fatbin_of(void **handle)
{
    struct pyshim_rt_fatbin *fb = (struct pyshim_rt_fatbin *)(void *)handle;
    return fb != NULL && fb->magic == FATBIN_MAGIC ? fb : NULL;
}

EXPORT void **__cudaRegisterFatBinary(void *fatCubin)
{
    struct pyshim_rt_fatbin *fb = calloc(1, sizeof *fb);
    if (fb == NULL)
        return NULL;
    const void *start = NULL;
    void *relocatable = pyshim_rt_relocatable_copy(fatCubin, &fb->size);
    if (relocatable != NULL)
        start = relocatable; /* kept for the life of the process, like the program's own */
    else
        fb->size = pyshim_rt_image_extent(fatCubin, &start);
    fb->image = start;
    if (fb->size == 0)
        pyshim_rt_log("__cudaRegisterFatBinary: unrecognised fat binary at %p; its kernels "
                      "will fail with cudaErrorInvalidKernelImage", fatCubin);
    fb->magic = FATBIN_MAGIC;
    pthread_mutex_lock(&lock);
    fb->next = fatbins;
    fatbins = fb;
    pthread_mutex_unlock(&lock);
    return (void **)(void *)fb;
}

EXPORT void __cudaRegisterFatBinaryEnd(void **fatCubinHandle)
{
    (void)fatCubinHandle; /* lazy loading: nothing to do until first use */
}

static int fatbin_load(struct pyshim_rt_fatbin *fb);

/* Called by host code before its first use of a __managed__ variable: load now. */
EXPORT char __cudaInitModule(void **fatCubinHandle)
{
    struct pyshim_rt_fatbin *fb = fatbin_of(fatCubinHandle);
    if (fb == NULL)
        return 0;
    pthread_mutex_lock(&load_lock);
    int rc = fatbin_load(fb);
    pthread_mutex_unlock(&load_lock);
    if (rc != cudaSuccess)
        pyshim_rt_record(rc);
    return rc == cudaSuccess;
}

/* At exit (the program's destructors): drop the module; the records stay so that a late
 * call through a stale stub finds an error, not freed memory. */
EXPORT void __cudaUnregisterFatBinary(void **fatCubinHandle)
{
    struct pyshim_rt_fatbin *fb = fatbin_of(fatCubinHandle);
    if (fb == NULL)
        return;
    pthread_mutex_lock(&load_lock);
    pthread_mutex_lock(&lock);
    for (size_t b = 0; b < BUCKETS; b++)
        for (struct pyshim_rt_func *f = funcs[b]; f != NULL; f = f->next_in_bucket)
            if (f->fatbin == fb) {
                f->hip = NULL;
                f->result = cudaErrorCudartUnloading;
                __atomic_store_n(&f->tried, 1, __ATOMIC_RELEASE);
            }
    pthread_mutex_unlock(&lock);
    if (fb->module != NULL)
        pyshim_rt_hip_unload(fb->module);
    fb->module = NULL;
    fb->loaded = 1;
    fb->load_result = cudaErrorCudartUnloading;
    pthread_mutex_unlock(&load_lock);
}

EXPORT void __cudaRegisterFunction(void **fatCubinHandle, const char *hostFun, char *deviceFun,
                                   const char *deviceName, int thread_limit, uint3 *tid,
                                   uint3 *bid, dim3 *bDim, dim3 *gDim, int *wSize)
{
    (void)deviceName, (void)thread_limit, (void)tid, (void)bid, (void)bDim, (void)gDim;
    (void)wSize;
    struct pyshim_rt_fatbin *fb = fatbin_of(fatCubinHandle);
    struct pyshim_rt_func *f = calloc(1, sizeof *f);
    char *name = deviceFun != NULL ? strdup(deviceFun) : NULL;
    if (fb == NULL || f == NULL || name == NULL) {
        free(f);
        free(name);
        return;
    }
    f->magic = PYSHIM_RT_FUNC_MAGIC;
    f->stub = hostFun;
    f->name = name;
    f->fatbin = fb;
    size_t b = bucket(hostFun), r = bucket(f);
    pthread_mutex_lock(&lock);
    f->next_in_bucket = funcs[b];
    funcs[b] = f;
    f->next_by_record = records[r];
    records[r] = f;
    pthread_mutex_unlock(&lock);
}

static void add_var(void **handle, const void *shadow, const char *name, size_t size,
                    void **managed)
{
    struct pyshim_rt_fatbin *fb = fatbin_of(handle);
    struct var *v = calloc(1, sizeof *v);
    char *copy = name != NULL ? strdup(name) : NULL;
    if (fb == NULL || v == NULL || copy == NULL) {
        free(v);
        free(copy);
        return;
    }
    v->magic = VAR_MAGIC;
    v->shadow = shadow;
    v->name = copy;
    v->size = size;
    v->fatbin = fb;
    v->managed = managed;
    size_t b = bucket(shadow);
    pthread_mutex_lock(&lock);
    v->next_in_bucket = vars[b];
    vars[b] = v;
    pthread_mutex_unlock(&lock);
}

EXPORT void __cudaRegisterVar(void **fatCubinHandle, char *hostVar, char *deviceAddress,
                              const char *deviceName, int ext, size_t size, int constant,
                              int global)
{
    (void)deviceAddress, (void)ext, (void)constant, (void)global;
    add_var(fatCubinHandle, hostVar, deviceName, size, NULL);
}

/* The host code reads a __managed__ variable through *hostVarPtrAddress after calling
 * __cudaInitModule; loading the module points it at the variable's storage. On the CPU
 * device that storage is host memory; on a GPU it would have to be managed memory (not
 * done: such a module's globals are device memory). */
EXPORT void __cudaRegisterManagedVar(void **fatCubinHandle, void **hostVarPtrAddress,
                                     char *deviceAddress, const char *deviceName, int ext,
                                     size_t size, int constant, int global)
{
    (void)deviceAddress, (void)ext, (void)constant, (void)global;
    /* until the module loads (or if it cannot), the host code dereferences zeroed host
     * memory instead of NULL: a failed load then shows as a CUDA error, not a crash */
    if (hostVarPtrAddress != NULL && *hostVarPtrAddress == NULL)
        *hostVarPtrAddress = calloc(1, size > 0 ? size : 1);
    add_var(fatCubinHandle, hostVarPtrAddress, deviceName, size, hostVarPtrAddress);
}

EXPORT void __cudaRegisterHostVar(void **fatCubinHandle, const char *deviceName, char *hostVar,
                                  size_t size)
{
    (void)fatCubinHandle, (void)hostVar, (void)size;
    pyshim_rt_log("__cudaRegisterHostVar(%s): not supported", deviceName ? deviceName : "?");
}

/* ---- lookups ---- */

struct pyshim_rt_func *pyshim_rt_func_by_stub(const void *stub)
{
    pthread_mutex_lock(&lock);
    struct pyshim_rt_func *f = funcs[bucket(stub)];
    while (f != NULL && f->stub != stub)
        f = f->next_in_bucket;
    pthread_mutex_unlock(&lock);
    return f;
}

struct pyshim_rt_func *pyshim_rt_func_by_handle(const void *handle)
{
    /* a cudaKernel_t we handed out is the record itself; a program may also pass a host
     * stub where a cudaKernel_t is expected. Nothing unknown is dereferenced. */
    struct pyshim_rt_func *f = pyshim_rt_func_by_stub(handle);
    if (f != NULL || handle == NULL)
        return f;
    pthread_mutex_lock(&lock);
    f = records[bucket(handle)];
    while (f != NULL && (const void *)f != handle)
        f = f->next_by_record;
    pthread_mutex_unlock(&lock);
    return f;
}

/* Point the host code's pointers to the fat binary's __managed__ variables at them. */
static int bind_managed(struct pyshim_rt_fatbin *fb)
{
    int rc = cudaSuccess;
    pthread_mutex_lock(&lock);
    for (size_t b = 0; b < BUCKETS && rc == cudaSuccess; b++)
        for (struct var *v = vars[b]; v != NULL && rc == cudaSuccess; v = v->next_in_bucket) {
            if (v->fatbin != fb || v->managed == NULL)
                continue;
            void *p = NULL;
            size_t size = 0;
            rc = pyshim_rt_hip_global(fb->module, v->name, &p, &size);
            if (rc == cudaSuccess)
                *v->managed = p;
        }
    pthread_mutex_unlock(&lock);
    return rc;
}

/* Call with load_lock held. */
static int fatbin_load(struct pyshim_rt_fatbin *fb)
{
    if (!fb->loaded) {
        fb->loaded = 1;
        if (fb->size == 0)
            fb->load_result = cudaErrorInvalidKernelImage;
        else {
            free(fb->kernels);
            fb->kernels = NULL;
            /* every module keeps its kernel lines: libraries list kernels by them, and
             * cudaFuncGetParamInfo reads a kernel's parameter layout from them */
            fb->load_result = pyshim_rt_hip_load(fb->image, fb->size, &fb->module,
                                                 &fb->kernels);
        }
        fb->ptx_target = fb->load_result == cudaSuccess ? pyshim_embed_last_ptx_target() : 0;
        fb->const_bytes = fb->load_result == cudaSuccess ? pyshim_embed_last_const_bytes() : 0;
        if (fb->load_result == cudaSuccess)
            fb->load_result = bind_managed(fb);
    }
    return fb->load_result;
}

void pyshim_rt_func_facts(const struct pyshim_rt_func *f, int *ptx_target, size_t *const_bytes)
{
    pthread_mutex_lock(&load_lock);
    *ptx_target = f != NULL && f->fatbin != NULL ? f->fatbin->ptx_target : 0;
    *const_bytes = f != NULL && f->fatbin != NULL ? (size_t)f->fatbin->const_bytes : 0;
    pthread_mutex_unlock(&load_lock);
}

int pyshim_rt_func_param_info(struct pyshim_rt_func *f, size_t index, size_t *offset,
                              size_t *size)
{
    void *hip = NULL;
    int rc = pyshim_rt_func_resolve(f, &hip);
    if (rc != cudaSuccess)
        return rc;
    rc = cudaErrorInvalidValue; /* past its last parameter (or none known) */
    size_t name_len = strlen(f->name);
    pthread_mutex_lock(&load_lock);
    const char *line = f->fatbin != NULL ? f->fatbin->kernels : NULL;
    while (line != NULL && *line != '\0') {
        const char *eol = strchr(line, '\n');
        if (strncmp(line, f->name, name_len) == 0 && line[name_len] == '\t') {
            /* "name\toffset:size,offset:size,..." */
            const char *p = line + name_len + 1;
            for (size_t i = 0; p != NULL && (eol == NULL || p < eol); i++) {
                unsigned long long o, z;
                if (sscanf(p, "%llu:%llu", &o, &z) != 2)
                    break;
                if (i == index) {
                    *offset = (size_t)o;
                    *size = (size_t)z;
                    rc = cudaSuccess;
                    break;
                }
                p = strchr(p, ',');
                p = p != NULL ? p + 1 : NULL;
            }
            break;
        }
        line = eol != NULL ? eol + 1 : NULL;
    }
    pthread_mutex_unlock(&load_lock);
    return rc;
}

int pyshim_rt_func_resolve(struct pyshim_rt_func *f, void **hip)
{
    /* fast path, every launch after the first: `tried` is published after the result */
    if (!__atomic_load_n(&f->tried, __ATOMIC_ACQUIRE)) {
        pthread_mutex_lock(&load_lock);
        if (!f->tried) {
            int rc = fatbin_load(f->fatbin);
            if (rc == cudaSuccess)
                rc = pyshim_rt_hip_function(f->fatbin->module, f->name, &f->hip);
            f->result = rc;
            __atomic_store_n(&f->tried, 1, __ATOMIC_RELEASE);
        }
        pthread_mutex_unlock(&load_lock);
    }
    *hip = f->hip;
    return f->result;
}

int pyshim_rt_symbol(const void *shadow, void **dptr, size_t *size)
{
    pthread_mutex_lock(&lock);
    struct var *v = vars[bucket(shadow)];
    while (v != NULL && v->shadow != shadow)
        v = v->next_in_bucket;
    pthread_mutex_unlock(&lock);
    if (v == NULL)
        return cudaErrorInvalidSymbol;
    pthread_mutex_lock(&load_lock);
    int rc = fatbin_load(v->fatbin);
    if (rc == cudaSuccess)
        rc = pyshim_rt_hip_global(v->fatbin->module, v->name, dptr, size);
    pthread_mutex_unlock(&load_lock);
    return rc;
}

/* Call with load_lock held: the driver's copy of a module and the CUfunctions from it. */
static void forget_driver_module(struct pyshim_rt_fatbin *fb)
{
    if (fb->cu_module != NULL && pyshim_rt_driver.module_unload != NULL)
        pyshim_rt_driver.module_unload(fb->cu_module);
    fb->cu_module = NULL;
    pthread_mutex_lock(&lock);
    for (size_t b = 0; b < BUCKETS; b++)
        for (struct pyshim_rt_func *f = funcs[b]; f != NULL; f = f->next_in_bucket)
            if (f->fatbin == fb)
                f->cu_function = NULL;
    pthread_mutex_unlock(&lock);
}

int pyshim_rt_func_driver(struct pyshim_rt_func *f, void **cu_function)
{
    if (!pyshim_rt_driver.present || pyshim_rt_driver.module_load_data == NULL ||
        pyshim_rt_driver.module_get_function == NULL) {
        pyshim_rt_log("cudaGetFuncBySymbol: no libcuda.so.1 to give a CUfunction");
        return cudaErrorNotSupported;
    }
    pthread_mutex_lock(&load_lock);
    struct pyshim_rt_fatbin *fb = f->fatbin;
    int rc = cudaSuccess;
    if (f->cu_function == NULL) {
        if (fb == NULL || fb->image == NULL)
            rc = cudaErrorInvalidDeviceFunction;
        else if (fb->cu_module == NULL && pyshim_rt_driver.module_load_data(&fb->cu_module,
                                                                            fb->image) != 0) {
            fb->cu_module = NULL;
            rc = cudaErrorInvalidKernelImage;
        }
        void *fn = NULL;
        if (rc == cudaSuccess &&
            pyshim_rt_driver.module_get_function(&fn, fb->cu_module, f->name) != 0)
            rc = cudaErrorInvalidDeviceFunction;
        if (rc == cudaSuccess)
            f->cu_function = fn;
        else
            pyshim_rt_log("cudaGetFuncBySymbol: the driver could not load %s (%d)", f->name, rc);
    }
    *cu_function = f->cu_function;
    pthread_mutex_unlock(&load_lock);
    return rc;
}

void pyshim_rt_unload_all(void)
{
    pthread_mutex_lock(&load_lock);
    /* the device reset ends the primary context the driver's copies were loaded in */
    for (struct pyshim_rt_fatbin *fb = fatbins; fb != NULL; fb = fb->next)
        fb->cu_module = NULL;
    pthread_mutex_lock(&lock);
    for (struct pyshim_rt_fatbin *fb = fatbins; fb != NULL; fb = fb->next) {
        if (fb->module != NULL)
            pyshim_rt_hip_unload(fb->module);
        fb->module = NULL;
        /* an unregistered fat binary or an unloaded library stays refused */
        if (fb->load_result != cudaErrorCudartUnloading && fb->image != NULL)
            fb->loaded = 0;
    }
    for (size_t b = 0; b < BUCKETS; b++)
        for (struct pyshim_rt_func *f = funcs[b]; f != NULL; f = f->next_in_bucket) {
            __atomic_store_n(&f->tried, 0, __ATOMIC_RELEASE);
            f->hip = NULL;
            f->cu_function = NULL;
        }
    pthread_mutex_unlock(&lock);
    pthread_mutex_unlock(&load_lock);
}

/* ---- libraries: cudaLibraryLoadData's images, each a fat binary record of its own ---- */

#define MAX_LIBRARIES 4096
static struct pyshim_rt_fatbin *libraries[MAX_LIBRARIES]; /* live ones, for handle checks */

/* Call with `lock` held: the record of a live library handle, else NULL (never
 * dereferences an unknown pointer). */
static struct pyshim_rt_fatbin *library_of(void *handle)
{
    for (size_t i = 0; handle != NULL && i < MAX_LIBRARIES; i++)
        if (libraries[i] == handle)
            return libraries[i];
    return NULL;
}

int pyshim_rt_library_load(const void *image, void **library)
{
    const void *start = NULL;
    size_t size = pyshim_rt_image_extent(image, &start);
    if (size == 0) {
        pyshim_rt_log("cudaLibraryLoadData: the image is no fat binary, PTX text or ELF");
        return cudaErrorInvalidKernelImage;
    }
    struct pyshim_rt_fatbin *fb = calloc(1, sizeof *fb);
    void *copy = malloc(size + 1);
    if (fb == NULL || copy == NULL) {
        free(fb);
        free(copy);
        return cudaErrorMemoryAllocation;
    }
    memcpy(copy, start, size);
    ((char *)copy)[size] = '\0'; /* PTX text is read as a C string */
    fb->magic = FATBIN_MAGIC;
    fb->image = copy;
    fb->size = size;
    fb->library = 1;
    pthread_mutex_lock(&load_lock);
    int rc = fatbin_load(fb);
    pthread_mutex_unlock(&load_lock);
    if (rc == cudaSuccess) {
        rc = cudaErrorMemoryAllocation;
        pthread_mutex_lock(&lock);
        for (size_t i = 0; i < MAX_LIBRARIES; i++)
            if (libraries[i] == NULL) {
                libraries[i] = fb;
                rc = cudaSuccess;
                break;
            }
        if (rc == cudaSuccess) { /* a device reset unloads it like any fat binary */
            fb->next = fatbins;
            fatbins = fb;
        }
        pthread_mutex_unlock(&lock);
    }
    if (rc != cudaSuccess) {
        if (fb->module != NULL)
            pyshim_rt_hip_unload(fb->module);
        free(fb->kernels);
        free(copy);
        free(fb);
        return rc;
    }
    *library = fb;
    return cudaSuccess;
}

int pyshim_rt_library_unload(void *library)
{
    pthread_mutex_lock(&load_lock);
    pthread_mutex_lock(&lock);
    struct pyshim_rt_fatbin *fb = library_of(library);
    if (fb == NULL) {
        pthread_mutex_unlock(&lock);
        pthread_mutex_unlock(&load_lock);
        return cudaErrorInvalidResourceHandle;
    }
    for (size_t i = 0; i < MAX_LIBRARIES; i++)
        if (libraries[i] == fb)
            libraries[i] = NULL;
    /* its kernel records stay (a program may still hold them): they now fail */
    for (size_t b = 0; b < BUCKETS; b++)
        for (struct pyshim_rt_func *f = funcs[b]; f != NULL; f = f->next_in_bucket)
            if (f->fatbin == fb) {
                f->hip = NULL;
                f->result = cudaErrorInvalidResourceHandle;
                __atomic_store_n(&f->tried, 1, __ATOMIC_RELEASE);
            }
    pthread_mutex_unlock(&lock);
    forget_driver_module(fb);
    if (fb->module != NULL)
        pyshim_rt_hip_unload(fb->module);
    fb->module = NULL;
    fb->loaded = 1;
    fb->load_result = cudaErrorInvalidResourceHandle;
    free((void *)fb->image);
    fb->image = NULL;
    free(fb->kernels);
    fb->kernels = NULL;
    pthread_mutex_unlock(&load_lock);
    return cudaSuccess;
}

/* Call with `lock` held. */
static struct pyshim_rt_func *library_func_locked(struct pyshim_rt_fatbin *fb, const char *name)
{
    for (size_t b = 0; b < BUCKETS; b++)
        for (struct pyshim_rt_func *f = funcs[b]; f != NULL; f = f->next_in_bucket)
            if (f->fatbin == fb && strcmp(f->name, name) == 0)
                return f;
    return NULL;
}

int pyshim_rt_library_kernel(void *library, const char *name, struct pyshim_rt_func **out)
{
    pthread_mutex_lock(&lock);
    struct pyshim_rt_fatbin *fb = library_of(library);
    struct pyshim_rt_func *f = fb != NULL ? library_func_locked(fb, name) : NULL;
    pthread_mutex_unlock(&lock);
    if (fb == NULL)
        return cudaErrorInvalidResourceHandle;
    if (f != NULL) {
        *out = f;
        return cudaSuccess;
    }
    void *hip = NULL;
    pthread_mutex_lock(&load_lock);
    int rc = fatbin_load(fb); /* again after a device reset */
    if (rc == cudaSuccess && pyshim_rt_hip_function(fb->module, name, &hip) != cudaSuccess)
        rc = cudaErrorSymbolNotFound;
    pthread_mutex_unlock(&load_lock);
    if (rc != cudaSuccess)
        return rc;
    f = calloc(1, sizeof *f);
    char *copy = strdup(name);
    if (f == NULL || copy == NULL) {
        free(f);
        free(copy);
        return cudaErrorMemoryAllocation;
    }
    f->magic = PYSHIM_RT_FUNC_MAGIC;
    f->stub = f; /* a library kernel has no host stub: it launches by its record */
    f->name = copy;
    f->fatbin = fb;
    f->hip = hip;
    f->result = cudaSuccess;
    __atomic_store_n(&f->tried, 1, __ATOMIC_RELEASE);
    pthread_mutex_lock(&lock);
    struct pyshim_rt_func *raced = library_of(library) == fb ? library_func_locked(fb, name)
                                                             : NULL;
    if (raced == NULL) {
        size_t b = bucket(f), r = bucket(f);
        f->next_in_bucket = funcs[b];
        funcs[b] = f;
        f->next_by_record = records[r];
        records[r] = f;
    }
    pthread_mutex_unlock(&lock);
    if (raced != NULL) {
        free(copy);
        free(f);
        f = raced;
    }
    *out = f;
    return cudaSuccess;
}

int pyshim_rt_library_global(void *library, const char *name, void **dptr, size_t *size)
{
    pthread_mutex_lock(&lock);
    struct pyshim_rt_fatbin *fb = library_of(library);
    pthread_mutex_unlock(&lock);
    if (fb == NULL)
        return cudaErrorInvalidResourceHandle;
    pthread_mutex_lock(&load_lock);
    int rc = fatbin_load(fb);
    if (rc == cudaSuccess)
        rc = pyshim_rt_hip_global(fb->module, name, dptr, size);
    pthread_mutex_unlock(&load_lock);
    return rc;
}

int pyshim_rt_library_kernels(void *library, unsigned *count, struct pyshim_rt_func **out,
                              unsigned n)
{
    pthread_mutex_lock(&lock);
    struct pyshim_rt_fatbin *fb = library_of(library);
    pthread_mutex_unlock(&lock);
    if (fb == NULL)
        return cudaErrorInvalidResourceHandle;
    pthread_mutex_lock(&load_lock);
    char *lines = fb->kernels != NULL ? strdup(fb->kernels) : strdup("");
    pthread_mutex_unlock(&load_lock);
    if (lines == NULL)
        return cudaErrorMemoryAllocation;
    unsigned found = 0;
    int rc = cudaSuccess;
    char *save = NULL;
    for (char *line = strtok_r(lines, "\n", &save); line != NULL;
         line = strtok_r(NULL, "\n", &save)) {
        line[strcspn(line, "\t")] = '\0'; /* "name\tparameter layout" */
        if (out != NULL && found < n && rc == cudaSuccess)
            rc = pyshim_rt_library_kernel(library, line, &out[found]);
        found++;
    }
    free(lines);
    *count = found;
    return rc;
}

/* The registered function whose translated kernel is `hip` (a graph node's func read
 * back): the first found; NULL if none was resolved to it. */
struct pyshim_rt_func *pyshim_rt_func_by_hip(const void *hip)
{
    struct pyshim_rt_func *found = NULL;
    pthread_mutex_lock(&lock);
    for (size_t b = 0; b < BUCKETS && found == NULL; b++)
        for (struct pyshim_rt_func *f = funcs[b]; f != NULL && found == NULL;
             f = f->next_in_bucket)
            if (f->hip == hip && f->hip != NULL)
                found = f;
    pthread_mutex_unlock(&lock);
    return found;
}
