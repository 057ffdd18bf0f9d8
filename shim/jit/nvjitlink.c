/*
 * pyshim's nvJitLink: NVIDIA's, except that a link meant to end in a cubin ends in an
 * image pyshim loads. A link-time-optimized link (-lto, numba-cuda's default) runs with
 * -ptx added, and nvJitLinkGetLinkedCubin(Size) hand back pyshim_ptx_elf() of the linked
 * PTX; a plain link of one PTX input hands back that PTX the same way. Any other link is
 * NVIDIA's as it is (its SASS, which pyshim's loader refuses with a message naming it).
 *
 * nvJitLink's header maps each API name onto a versioned symbol (__nvJitLinkCreate_13_5);
 * every version's symbol gets the same treatment and calls NVIDIA's symbol of its version.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ptx_image.h"
#include "nvjitlink_names.h"
#include "wrapper.h"

typedef int nvJitLinkResult;
typedef struct nvJitLink *nvJitLinkHandle;
#define NVJITLINK_SUCCESS 0
#define NVJITLINK_ERROR_INVALID_INPUT 3
#define NVJITLINK_ERROR_INTERNAL 5
#define NVJITLINK_INPUT_PTX 2

typedef nvJitLinkResult (*create_fn)(nvJitLinkHandle *, uint32_t, const char **);
typedef nvJitLinkResult (*add_data_fn)(nvJitLinkHandle, int, const void *, size_t,
                                       const char *);
typedef nvJitLinkResult (*add_file_fn)(nvJitLinkHandle, int, const char *);
typedef nvJitLinkResult (*size_fn)(nvJitLinkHandle, size_t *);
typedef nvJitLinkResult (*get_fn)(nvJitLinkHandle, void *);
typedef nvJitLinkResult (*destroy_fn)(nvJitLinkHandle *);

struct link {
    nvJitLinkHandle handle;
    unsigned sm;
    int lto_ptx;      /* -ptx added to an -lto link */
    int inputs;       /* inputs added */
    char *ptx;        /* the first PTX input, while it is the only input */
    size_t ptx_len;
    uint8_t *image;   /* made on first request */
    size_t size;
    struct link *next;
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct link *links;

static struct link *find(nvJitLinkHandle h)
{
    struct link *l = links;
    while (l != NULL && l->handle != h)
        l = l->next;
    return l;
}

static nvJitLinkResult create(create_fn real, nvJitLinkHandle *handle, uint32_t n,
                              const char **options)
{
    unsigned sm = 0;
    int lto = 0, ptx = 0;
    for (uint32_t i = 0; options != NULL && i < n; i++) {
        const char *o = options[i];
        if (o == NULL)
            continue;
        if (strncmp(o, "-arch=", 6) == 0)
            sm = pyshim_arch_number(o + 6);
        else if (strcmp(o, "-lto") == 0)
            lto = 1;
        else if (strcmp(o, "-ptx") == 0)
            ptx = 1;
    }
    int add_ptx = lto && !ptx && sm != 0;
    const char **opts = options;
    if (add_ptx) {
        opts = calloc(n + 1, sizeof *opts);
        if (opts == NULL)
            return NVJITLINK_ERROR_INTERNAL;
        for (uint32_t i = 0; i < n; i++)
            opts[i] = options[i];
        opts[n] = "-ptx";
    }
    nvJitLinkResult rc = real(handle, n + (uint32_t)add_ptx, opts);
    if (add_ptx)
        free(opts);
    if (rc != NVJITLINK_SUCCESS || handle == NULL || sm == 0 || (ptx && !add_ptx))
        return rc; /* a link that asked for PTX itself gets exactly what it asked */
    struct link *l = calloc(1, sizeof *l);
    if (l == NULL)
        return rc;
    l->handle = *handle;
    l->sm = sm;
    l->lto_ptx = add_ptx;
    pthread_mutex_lock(&lock);
    l->next = links;
    links = l;
    pthread_mutex_unlock(&lock);
    return rc;
}

static void note_input(nvJitLinkHandle h, int type, const void *data, size_t size)
{
    pthread_mutex_lock(&lock);
    struct link *l = find(h);
    if (l != NULL) {
        l->inputs++;
        if (l->inputs == 1 && type == NVJITLINK_INPUT_PTX && data != NULL) {
            l->ptx = malloc(size + 1);
            if (l->ptx != NULL) {
                memcpy(l->ptx, data, size);
                l->ptx[size] = '\0';
                l->ptx_len = strnlen(l->ptx, size);
            }
        } else if (l->inputs > 1) {
            free(l->ptx);
            l->ptx = NULL;
        }
    }
    pthread_mutex_unlock(&lock);
}

static nvJitLinkResult add_data(add_data_fn real, nvJitLinkHandle h, int type,
                                const void *data, size_t size, const char *name)
{
    nvJitLinkResult rc = real(h, type, data, size, name);
    if (rc == NVJITLINK_SUCCESS)
        note_input(h, type, data, size);
    return rc;
}

static nvJitLinkResult add_file(add_file_fn real, nvJitLinkHandle h, int type,
                                const char *path)
{
    nvJitLinkResult rc = real(h, type, path);
    if (rc != NVJITLINK_SUCCESS)
        return rc;
    char *buf = NULL;
    long len = 0;
    FILE *f = type == NVJITLINK_INPUT_PTX && path != NULL ? fopen(path, "rb") : NULL;
    if (f != NULL) {
        if (fseek(f, 0, SEEK_END) == 0 && (len = ftell(f)) > 0 && fseek(f, 0, SEEK_SET) == 0 &&
            (buf = malloc((size_t)len)) != NULL && fread(buf, 1, (size_t)len, f) != (size_t)len) {
            free(buf);
            buf = NULL;
        }
        fclose(f);
    }
    note_input(h, buf != NULL ? type : -1, buf, buf != NULL ? (size_t)len : 0);
    free(buf);
    return rc;
}

/* the link's image, when pyshim makes it; NULL: NVIDIA's cubin is the answer */
static struct link *image_of(nvJitLinkHandle h, size_fn ptx_size, get_fn ptx_get,
                             nvJitLinkResult *rc)
{
    pthread_mutex_lock(&lock);
    struct link *l = find(h);
    pthread_mutex_unlock(&lock);
    *rc = NVJITLINK_SUCCESS;
    if (l == NULL || l->image != NULL)
        return l;
    char *ptx = NULL;
    size_t len = 0;
    if (l->lto_ptx) {
        *rc = ptx_size(h, &len);
        if (*rc != NVJITLINK_SUCCESS)
            return l;
        ptx = malloc(len + 1);
        if (ptx == NULL) {
            *rc = NVJITLINK_ERROR_INTERNAL;
            return l;
        }
        *rc = ptx_get(h, ptx);
        if (*rc != NVJITLINK_SUCCESS) {
            free(ptx);
            return l;
        }
        len = strnlen(ptx, len);
    } else if (l->ptx != NULL && l->inputs == 1) {
        ptx = l->ptx;
        len = l->ptx_len;
    } else {
        return NULL;
    }
    size_t size = 0;
    uint8_t *image = pyshim_ptx_elf(ptx, len, l->sm, &size);
    if (ptx != l->ptx)
        free(ptx);
    pthread_mutex_lock(&lock);
    if (l->image == NULL && image != NULL) {
        l->image = image;
        l->size = size;
        image = NULL;
    }
    pthread_mutex_unlock(&lock);
    free(image);
    if (l->image == NULL)
        *rc = NVJITLINK_ERROR_INTERNAL;
    return l;
}

static nvJitLinkResult cubin_size(size_fn real, size_fn ptx_size, get_fn ptx_get,
                                  nvJitLinkHandle h, size_t *size)
{
    nvJitLinkResult rc;
    struct link *l = image_of(h, ptx_size, ptx_get, &rc);
    if (l == NULL)
        return real(h, size);
    if (rc != NVJITLINK_SUCCESS)
        return rc;
    if (size == NULL)
        return NVJITLINK_ERROR_INVALID_INPUT;
    *size = l->size;
    return NVJITLINK_SUCCESS;
}

static nvJitLinkResult cubin(get_fn real, size_fn ptx_size, get_fn ptx_get, nvJitLinkHandle h,
                             void *out)
{
    nvJitLinkResult rc;
    struct link *l = image_of(h, ptx_size, ptx_get, &rc);
    if (l == NULL)
        return real(h, out);
    if (rc != NVJITLINK_SUCCESS)
        return rc;
    if (out == NULL)
        return NVJITLINK_ERROR_INVALID_INPUT;
    memcpy(out, l->image, l->size);
    return NVJITLINK_SUCCESS;
}

static nvJitLinkResult destroy(destroy_fn real, nvJitLinkHandle *h)
{
    if (h != NULL) {
        pthread_mutex_lock(&lock);
        struct link **p = &links;
        while (*p != NULL && (*p)->handle != *h)
            p = &(*p)->next;
        struct link *gone = *p;
        if (gone != NULL)
            *p = gone->next;
        pthread_mutex_unlock(&lock);
        if (gone != NULL) {
            free(gone->ptx);
            free(gone->image);
            free(gone);
        }
    }
    return real(h);
}

/* the API's functions, once per symbol version: X(unversioned-style name, suffix) */
#define OVERRIDES(P, V)                                                                     \
    extern void *pyshim_real_##P##nvJitLinkCreate##V, *pyshim_real_##P##nvJitLinkAddData##V, \
        *pyshim_real_##P##nvJitLinkAddFile##V, *pyshim_real_##P##nvJitLinkGetLinkedCubinSize##V, \
        *pyshim_real_##P##nvJitLinkGetLinkedCubin##V,                                       \
        *pyshim_real_##P##nvJitLinkGetLinkedPtxSize##V,                                     \
        *pyshim_real_##P##nvJitLinkGetLinkedPtx##V, *pyshim_real_##P##nvJitLinkDestroy##V; \
    nvJitLinkResult P##nvJitLinkCreate##V(nvJitLinkHandle *h, uint32_t n, const char **o)    \
    {                                                                                       \
        (void)pyshim_jit_load();                                                            \
        return create((create_fn)pyshim_real_##P##nvJitLinkCreate##V, h, n, o);             \
    }                                                                                       \
    nvJitLinkResult P##nvJitLinkAddData##V(nvJitLinkHandle h, int t, const void *d, size_t s, \
                                           const char *name)                               \
    {                                                                                       \
        return add_data((add_data_fn)pyshim_real_##P##nvJitLinkAddData##V, h, t, d, s, name); \
    }                                                                                       \
    nvJitLinkResult P##nvJitLinkAddFile##V(nvJitLinkHandle h, int t, const char *path)      \
    {                                                                                       \
        return add_file((add_file_fn)pyshim_real_##P##nvJitLinkAddFile##V, h, t, path);     \
    }                                                                                       \
    nvJitLinkResult P##nvJitLinkGetLinkedCubinSize##V(nvJitLinkHandle h, size_t *s)         \
    {                                                                                       \
        return cubin_size((size_fn)pyshim_real_##P##nvJitLinkGetLinkedCubinSize##V,         \
                          (size_fn)pyshim_real_##P##nvJitLinkGetLinkedPtxSize##V,           \
                          (get_fn)pyshim_real_##P##nvJitLinkGetLinkedPtx##V, h, s);         \
    }                                                                                       \
    nvJitLinkResult P##nvJitLinkGetLinkedCubin##V(nvJitLinkHandle h, void *out)             \
    {                                                                                       \
        return cubin((get_fn)pyshim_real_##P##nvJitLinkGetLinkedCubin##V,                   \
                     (size_fn)pyshim_real_##P##nvJitLinkGetLinkedPtxSize##V,                \
                     (get_fn)pyshim_real_##P##nvJitLinkGetLinkedPtx##V, h, out);            \
    }                                                                                       \
    nvJitLinkResult P##nvJitLinkDestroy##V(nvJitLinkHandle *h)                              \
    {                                                                                       \
        return destroy((destroy_fn)pyshim_real_##P##nvJitLinkDestroy##V, h);                \
    }

PYSHIM_JIT_VERSIONS(OVERRIDES)
