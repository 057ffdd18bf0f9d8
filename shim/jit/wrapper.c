/*
 * The shared runtime of pyshim's JIT-library wrappers (libnvrtc.so.13, libnvJitLink.so.13
 * in build/lib/jit). The LD_AUDIT module loads a wrapper wherever the program asked for
 * NVIDIA's library; the wrapper loads NVIDIA's own by the name
 * "pyshim-original:<soname>", which the audit module answers with the file the program
 * chose (a name no loaded object matches: a plain dlopen of the soname would find the
 * wrapper itself). NVIDIA's library is then in the base namespace, where a later dlopen of
 * its exact path reaches it directly, bypassing the wrapper; cuda-pathfinder, which loads
 * each library once, never does that.
 * A namespace of its own (dlmopen, `own_namespace = true` in the spec) would hide it even
 * from that, but NVIDIA's libraries are not built for it: in one, NVRTC's and nvJitLink's
 * compiles crash once NVVM has run in the process (numba-cuda), and the namespace's libc
 * needs static TLS beyond glibc's spare 512 bytes.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <dlfcn.h>
#include <fnmatch.h>
#include <link.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "wrapper.h"

void pyshim_jit_log(const char *fmt, ...)
{
    char line[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    fprintf(stderr, "pyshim: %s wrapper: %s\n", pyshim_jit_soname, line);
}

static pthread_once_t once = PTHREAD_ONCE_INIT;
static int load_status = -1;

/* the companions (NVRTC's builtins) from the directory NVIDIA's library came from, into its
 * namespace, so that its dlopen by bare name finds them loaded */
static void load_companions(void *real)
{
    struct link_map *map = NULL;
    Lmid_t lmid = LM_ID_BASE;
    if (pyshim_jit_companions[0] == NULL || dlinfo(real, RTLD_DI_LINKMAP, &map) != 0 ||
        (pyshim_jit_own_namespace && dlinfo(real, RTLD_DI_LMID, &lmid) != 0) || map == NULL ||
        map->l_name == NULL)
        return;
    char dir[4096];
    snprintf(dir, sizeof dir, "%s", map->l_name);
    char *slash = strrchr(dir, '/');
    if (slash == NULL)
        return;
    *slash = '\0';
    DIR *d = opendir(dir);
    if (d == NULL)
        return;
    struct dirent *ent;
    while ((ent = readdir(d)) != NULL) {
        for (size_t i = 0; pyshim_jit_companions[i] != NULL; i++) {
            if (fnmatch(pyshim_jit_companions[i], ent->d_name, 0) != 0)
                continue;
            char path[4096 + 256];
            snprintf(path, sizeof path, "%s/%s", dir, ent->d_name);
            void *h = pyshim_jit_own_namespace ? dlmopen(lmid, path, RTLD_NOW | RTLD_LOCAL)
                                               : dlopen(path, RTLD_NOW | RTLD_LOCAL);
            if (h == NULL)
                pyshim_jit_log("cannot load %s: %s", path, dlerror());
        }
    }
    closedir(d);
}

static void *load_real(void)
{
    if (!pyshim_jit_own_namespace) {
        char name[256];
        snprintf(name, sizeof name, "pyshim-original:%s", pyshim_jit_soname);
        return dlopen(name, RTLD_NOW | RTLD_LOCAL);
    }
    return dlmopen(LM_ID_NEWLM, pyshim_jit_soname, RTLD_NOW | RTLD_LOCAL);
}

static void load_once(void)
{
    void *real = load_real();
    if (real == NULL) {
        pyshim_jit_log("NVIDIA's %s cannot be loaded (%s): its functions fail",
                       pyshim_jit_soname, dlerror());
        return;
    }
    load_companions(real);
    pyshim_jit_resolve(real);
    load_status = 0;
}

int pyshim_jit_load(void)
{
    pthread_once(&once, load_once);
    return load_status;
}

/* at load: the forwarded functions jump straight through their pointers */
__attribute__((constructor)) static void wrapper_init(void)
{
    (void)pyshim_jit_load();
}
