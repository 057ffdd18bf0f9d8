/*
 * libnccl.so.2's link to RCCL. Both libraries define the same names, so RCCL is opened
 * RTLD_LOCAL and its functions found through that handle: the program's ncclX binds to
 * ours, ours calls RCCL's. librccl.so.1 is found by SONAME on the launcher's library path
 * (ROCm's, or the CPU device's).
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "nccl_internal.h"

#define RCCL_SONAME "librccl.so.1"

static void *rccl;
static pthread_once_t rccl_once = PTHREAD_ONCE_INIT;

static void open_rccl(void)
{
    rccl = dlopen(RCCL_SONAME, RTLD_NOW | RTLD_LOCAL);
    if (rccl == NULL)
        fprintf(stderr, "pyshim: libnccl.so.2: cannot load %s (%s); every NCCL call fails "
                "with ncclInternalError\n", RCCL_SONAME, dlerror());
}

bool pyshim_nccl_resolve(const char *name, void **slot)
{
    void *fn = __atomic_load_n(slot, __ATOMIC_ACQUIRE);
    if (fn != NULL)
        return true;
    pthread_once(&rccl_once, open_rccl);
    if (rccl == NULL)
        return false;
    fn = dlsym(rccl, name);
    if (fn == NULL) {
        fprintf(stderr, "pyshim: libnccl.so.2: %s has no %s: ncclInternalError\n", RCCL_SONAME,
                name);
        return false;
    }
    __atomic_store_n(slot, fn, __ATOMIC_RELEASE);
    return true;
}

void *pyshim_nccl_stream(cudaStream_t stream)
{
    /* cudaStreamLegacy is the legacy default stream (HIP's NULL); cudaStreamPerThread's
     * handle is HIP's hipStreamPerThread too */
    if (stream == cudaStreamLegacy)
        return NULL;
    return (void *)stream;
}

void *pyshim_nccl_config(const char *fn, const ncclConfig_t *config, pyshim_rccl_config *out)
{
    if (config == NULL)
        return NULL;
    memset(out, 0, sizeof *out);
    if (config->magic != NCCL_API_MAGIC) {
        /* RCCL rejects it by the same test, with its own log */
        out->magic = config->magic;
        return out;
    }
    pyshim_nccl_config_copy(config, out);
    /* RCCL checks the version it was built with: the program's names its nccl.h */
    out->version = config->version;
    static atomic_int once;
    if (config->size > sizeof *out && !atomic_exchange(&once, 1))
        fprintf(stderr, "pyshim: %s: ncclConfig_t fields after nvlsCTAs (NCCL %d.%d) are "
                "hints RCCL does not have; ignored\n", fn, NCCL_MAJOR, NCCL_MINOR);
    return out;
}

ncclResult_t pyshim_nccl_refuse(const char *name, const char *why)
{
    /* logged once per name; each call site passes its own literal, so the pointer is the
     * name's identity */
    static const char *seen[256];
    static int nseen;
    static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
    pthread_mutex_lock(&lock);
    bool first = true;
    for (int i = 0; i < nseen && first; i++)
        first = seen[i] != name;
    if (first && nseen < (int)(sizeof seen / sizeof *seen))
        seen[nseen++] = name;
    pthread_mutex_unlock(&lock);
    if (first)
        fprintf(stderr, "pyshim: %s is not supported on RCCL (%s): ncclInvalidUsage\n", name,
                why);
    return ncclInvalidUsage;
}
