/*
 * pyshim's nvJitLink: NVIDIA's, except that a link meant to end in a cubin ends in an
 * image pyshim loads. A link-time-optimized link (-lto, numba-cuda's default) runs with
 * -ptx added and gets only the LTO-IR inputs (-ptx refuses others); the other inputs (PTX,
 * cubins, fat binaries, host objects and libraries) are kept aside. nvJitLinkGetLinkedCubin
 * then hands back pyshim_ptx_elf() of the linked PTX, or, with inputs kept aside, a link
 * image (the one the driver's cuLinkComplete makes, shim/core/link.c) of the linked PTX
 * and those inputs, which pyshim's loader links. A plain link hands back its one PTX input
 * as pyshim_ptx_elf(), or a link image of all its inputs.
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
#include "common/bytes.h"
#include "common/elf_write.h"
#include "common/fatbin_extent.h"
#include "nvjitlink_names.h"
#include "wrapper.h"

typedef int nvJitLinkResult;
typedef struct nvJitLink *nvJitLinkHandle;
#define NVJITLINK_SUCCESS 0
#define NVJITLINK_ERROR_INVALID_INPUT 3
#define NVJITLINK_ERROR_INTERNAL 5
#define NVJITLINK_INPUT_CUBIN 1
#define NVJITLINK_INPUT_PTX 2
#define NVJITLINK_INPUT_LTOIR 3
#define NVJITLINK_INPUT_FATBIN 4
#define NVJITLINK_INPUT_OBJECT 5
#define NVJITLINK_INPUT_LIBRARY 6
#define NVJITLINK_INPUT_ANY 10
#define MAX_INPUTS 64

typedef nvJitLinkResult (*create_fn)(nvJitLinkHandle *, uint32_t, const char **);
typedef nvJitLinkResult (*add_data_fn)(nvJitLinkHandle, int, const void *, size_t,
                                       const char *);
typedef nvJitLinkResult (*add_file_fn)(nvJitLinkHandle, int, const char *);
typedef nvJitLinkResult (*size_fn)(nvJitLinkHandle, size_t *);
typedef nvJitLinkResult (*get_fn)(nvJitLinkHandle, void *);
typedef nvJitLinkResult (*destroy_fn)(nvJitLinkHandle *);
typedef nvJitLinkResult (*complete_fn)(nvJitLinkHandle);

struct input {
    const char *section; /* the link image's section type: ptx, cubin, ... */
    char *name;
    uint8_t *data;
    size_t size;
};

struct link {
    nvJitLinkHandle handle;
    unsigned sm;
    unsigned maxrreg; /* -maxrregcount=N, carried to pyshim's loader as .maxnreg N */
    int lto_ptx;      /* -ptx added to an -lto link */
    int real_inputs;  /* inputs NVIDIA's nvJitLink was given */
    int n;            /* inputs kept (all of a plain link; the non-LTO-IR of an -lto one) */
    struct input in[MAX_INPUTS];
    int overflow;     /* more inputs than kept: NVIDIA's answer stands */
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
    unsigned sm = 0, maxrreg = 0;
    int lto = 0, ptx = 0;
    for (uint32_t i = 0; options != NULL && i < n; i++) {
        const char *o = options[i];
        if (o == NULL)
            continue;
        if (strncmp(o, "-arch=", 6) == 0)
            sm = pyshim_arch_number(o + 6);
        else if (strncmp(o, "-maxrregcount=", 14) == 0)
            maxrreg = (unsigned)strtoul(o + 14, NULL, 10);
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
    l->maxrreg = maxrreg;
    l->lto_ptx = add_ptx;
    pthread_mutex_lock(&lock);
    l->next = links;
    links = l;
    pthread_mutex_unlock(&lock);
    return rc;
}

/* the link image section type of an input; NULL for what cannot go into one */
static const char *section_of(int type, const uint8_t *data, size_t size)
{
    switch (type) {
    case NVJITLINK_INPUT_CUBIN:
        return "cubin";
    case NVJITLINK_INPUT_PTX:
        return "ptx";
    case NVJITLINK_INPUT_LTOIR:
        return "nvvm";
    case NVJITLINK_INPUT_FATBIN:
        return "fatbin";
    case NVJITLINK_INPUT_OBJECT:
        return "object";
    case NVJITLINK_INPUT_LIBRARY:
        return "library";
    case NVJITLINK_INPUT_ANY:
        if (size >= 8 && memcmp(data, "!<arch>\n", 8) == 0)
            return "library";
        if (size >= 18 && memcmp(data, "\x7f" "ELF", 4) == 0)
            return data[18] == 190 ? "cubin" : "object"; /* e_machine EM_CUDA */
        if (size >= 4 && pyshim_get32(data) == PYSHIM_COMMON_FATBIN_CONTAINER_MAGIC)
            return "fatbin";
        if (size >= 8 && memmem(data, size < 4096 ? size : 4096, ".version", 8) != NULL)
            return "ptx";
        return "nvvm";
    default:
        return NULL;
    }
}

/* keep a copy of an input; 0 when it cannot be kept */
static int keep(struct link *l, const char *section, const void *data, size_t size,
                const char *name)
{
    if (l->n == MAX_INPUTS || section == NULL) {
        l->overflow = 1;
        return 0;
    }
    uint8_t *copy = malloc(size + 1);
    if (copy == NULL) {
        l->overflow = 1;
        return 0;
    }
    memcpy(copy, data, size);
    copy[size] = 0;
    struct input *in = &l->in[l->n++];
    in->section = section;
    in->name = strdup(name != NULL ? name : "input");
    in->data = copy;
    in->size = size;
    return 1;
}

static nvJitLinkResult add_data(add_data_fn real, nvJitLinkHandle h, int type,
                                const void *data, size_t size, const char *name)
{
    pthread_mutex_lock(&lock);
    struct link *l = find(h);
    pthread_mutex_unlock(&lock);
    if (l == NULL || data == NULL)
        return real(h, type, data, size, name);
    const char *section = section_of(type, data, size);
    int lto_input = section != NULL && strcmp(section, "nvvm") == 0;
    if (l->lto_ptx && !lto_input) {
        /* -ptx takes LTO-IR only: the rest is linked by pyshim's loader */
        pthread_mutex_lock(&lock);
        int kept = keep(l, section, data, size, name);
        pthread_mutex_unlock(&lock);
        return kept ? NVJITLINK_SUCCESS : real(h, type, data, size, name);
    }
    nvJitLinkResult rc = real(h, type, data, size, name);
    if (rc == NVJITLINK_SUCCESS) {
        pthread_mutex_lock(&lock);
        l->real_inputs++;
        if (!l->lto_ptx)
            (void)keep(l, section, data, size, name);
        pthread_mutex_unlock(&lock);
    }
    return rc;
}

static nvJitLinkResult add_file(add_file_fn real, add_data_fn real_data, nvJitLinkHandle h,
                                int type, const char *path)
{
    pthread_mutex_lock(&lock);
    struct link *l = find(h);
    pthread_mutex_unlock(&lock);
    if (l == NULL || path == NULL)
        return real(h, type, path);
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        return real(h, type, path); /* NVIDIA's error for a missing file */
    char *buf = NULL;
    long len = -1;
    if (fseek(f, 0, SEEK_END) == 0 && (len = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0 &&
        (buf = malloc((size_t)len + 1)) != NULL && fread(buf, 1, (size_t)len, f) != (size_t)len) {
        free(buf);
        buf = NULL;
    }
    fclose(f);
    if (buf == NULL)
        return real(h, type, path);
    const char *base = strrchr(path, '/');
    nvJitLinkResult rc = add_data(real_data, h, type, buf, (size_t)len, base ? base + 1 : path);
    free(buf);
    return rc;
}

static nvJitLinkResult complete(complete_fn real, nvJitLinkHandle h)
{
    pthread_mutex_lock(&lock);
    struct link *l = find(h);
    int skip = l != NULL && l->lto_ptx && l->real_inputs == 0 && l->n > 0 && !l->overflow;
    pthread_mutex_unlock(&lock);
    return skip ? NVJITLINK_SUCCESS : real(h); /* nothing for NVIDIA's to link */
}

/* a link image: the linked PTX (if any) and the inputs kept, as shim/core/link.c makes */
static uint8_t *link_image(struct link *l, const char *ptx, size_t len, size_t *size)
{
    struct pyshim_common_section sec[MAX_INPUTS + 3];
    char names[MAX_INPUTS + 1][160];
    char arch[16], maxrreg[16];
    size_t n = 0;
    if (ptx != NULL) {
        snprintf(names[n], sizeof names[n], ".pyshim.link.ptx:LTO-IR linked by nvJitLink");
        sec[n] = (struct pyshim_common_section){names[n], ptx, len};
        n++;
    }
    for (int i = 0; i < l->n; i++, n++) {
        snprintf(names[n], sizeof names[n], ".pyshim.link.%s:%s", l->in[i].section,
                 l->in[i].name);
        sec[n] = (struct pyshim_common_section){names[n], l->in[i].data, l->in[i].size};
    }
    snprintf(arch, sizeof arch, "sm_%u", l->sm);
    sec[n++] = (struct pyshim_common_section){".pyshim.link.arch", arch, strlen(arch)};
    if (l->maxrreg > 0) {
        /* ptxas would have bounded every kernel's registers: the loader writes .maxnreg */
        snprintf(maxrreg, sizeof maxrreg, "%u", l->maxrreg);
        sec[n++] = (struct pyshim_common_section){".pyshim.link.maxrregcount", maxrreg,
                                                  strlen(maxrreg)};
    }
    return pyshim_common_elf(sec, n, l->sm, size);
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
    if (l->overflow)
        return NULL;
    char *ptx = NULL;
    size_t len = 0;
    if (l->lto_ptx && l->real_inputs > 0) {
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
    } else if (!l->lto_ptx && l->n == 0) {
        return NULL;
    }
    size_t size = 0;
    uint8_t *image;
    /* a register bound travels only in a link image (its .pyshim.link.maxrregcount) */
    if (ptx != NULL && l->n == 0 && l->maxrreg == 0)
        image = pyshim_ptx_elf(ptx, len, l->sm, &size);
    else if (ptx == NULL && l->n == 1 && strcmp(l->in[0].section, "ptx") == 0 &&
             l->maxrreg == 0)
        image = pyshim_ptx_elf((const char *)l->in[0].data, l->in[0].size, l->sm, &size);
    else
        image = link_image(l, ptx, len, &size);
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
            for (int i = 0; i < gone->n; i++) {
                free(gone->in[i].data);
                free(gone->in[i].name);
            }
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
        *pyshim_real_##P##nvJitLinkGetLinkedPtx##V, *pyshim_real_##P##nvJitLinkDestroy##V, \
        *pyshim_real_##P##nvJitLinkComplete##V;                                             \
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
        return add_file((add_file_fn)pyshim_real_##P##nvJitLinkAddFile##V,                  \
                        (add_data_fn)pyshim_real_##P##nvJitLinkAddData##V, h, t, path);      \
    }                                                                                       \
    nvJitLinkResult P##nvJitLinkComplete##V(nvJitLinkHandle h)                              \
    {                                                                                       \
        return complete((complete_fn)pyshim_real_##P##nvJitLinkComplete##V, h);             \
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
