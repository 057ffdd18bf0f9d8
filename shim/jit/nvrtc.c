/*
 * pyshim's NVRTC: NVIDIA's, with one difference a program can see only as success. A
 * program that asks for a cubin (-arch=sm_XX, then nvrtcGetCUBIN) gets a cubin-shaped ELF
 * carrying the PTX for compute_XX (NVIDIA's SASS is of no use to pyshim, its PTX is):
 * the compile runs for compute_XX, and nvrtcGetCUBINSize/nvrtcGetCUBIN hand back
 * pyshim_ptx_elf() of the program's PTX. Everything else is NVIDIA's NVRTC as it is.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ptx_image.h"
#include "wrapper.h"

typedef int nvrtcResult;
typedef struct _nvrtcProgram *nvrtcProgram;
#define NVRTC_SUCCESS 0
#define NVRTC_ERROR_OUT_OF_MEMORY 1
#define NVRTC_ERROR_INVALID_INPUT 3
#define NVRTC_ERROR_INVALID_PROGRAM 4

extern void *pyshim_real_nvrtcCompileProgram, *pyshim_real_nvrtcGetCUBINSize,
    *pyshim_real_nvrtcGetCUBIN, *pyshim_real_nvrtcDestroyProgram, *pyshim_real_nvrtcGetPTXSize,
    *pyshim_real_nvrtcGetPTX;

typedef nvrtcResult (*compile_fn)(nvrtcProgram, int, const char *const *);
typedef nvrtcResult (*size_fn)(nvrtcProgram, size_t *);
typedef nvrtcResult (*get_fn)(nvrtcProgram, char *);
typedef nvrtcResult (*destroy_fn)(nvrtcProgram *);

/* programs compiled for compute_XX where sm_XX was asked */
struct cubin_program {
    nvrtcProgram prog;
    unsigned sm;
    uint8_t *image; /* made on first request */
    size_t size;
    struct cubin_program *next;
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct cubin_program *programs;

static struct cubin_program **find(nvrtcProgram prog)
{
    struct cubin_program **p = &programs;
    while (*p != NULL && (*p)->prog != prog)
        p = &(*p)->next;
    return p;
}

static void forget(nvrtcProgram prog)
{
    pthread_mutex_lock(&lock);
    struct cubin_program **p = find(prog);
    struct cubin_program *gone = *p;
    if (gone != NULL) {
        *p = gone->next;
        free(gone->image);
        free(gone);
    }
    pthread_mutex_unlock(&lock);
}

static const char *const ARCH_OPTIONS[] = {"-arch", "--gpu-architecture", "-gpu-architecture"};

/* the value of an arch option (`-arch=v`, `-arch v`): its text, and whether it took the
 * next option too */
static const char *arch_value(const char *opt, const char *next, int *takes_next)
{
    *takes_next = 0;
    for (size_t i = 0; i < sizeof ARCH_OPTIONS / sizeof ARCH_OPTIONS[0]; i++) {
        size_t n = strlen(ARCH_OPTIONS[i]);
        if (strncmp(opt, ARCH_OPTIONS[i], n) != 0)
            continue;
        if (opt[n] == '=')
            return opt + n + 1;
        if (opt[n] == '\0' && next != NULL) {
            *takes_next = 1;
            return next;
        }
    }
    return NULL;
}

nvrtcResult nvrtcCompileProgram(nvrtcProgram prog, int numOptions, const char *const *options)
{
    if (pyshim_jit_load() != 0)
        return ((compile_fn)REAL(nvrtcCompileProgram))(prog, numOptions, options);
    forget(prog); /* a program compiled again is judged by its new options */
    if (numOptions < 0 || (numOptions > 0 && options == NULL))
        return ((compile_fn)REAL(nvrtcCompileProgram))(prog, numOptions, options);
    const char **opts = calloc((size_t)numOptions + 1, sizeof *opts);
    char **owned = calloc((size_t)numOptions + 1, sizeof *owned);
    if (opts == NULL || owned == NULL) {
        free(opts);
        free(owned);
        return NVRTC_ERROR_OUT_OF_MEMORY;
    }
    unsigned sm = 0;
    for (int i = 0; i < numOptions; i++) {
        opts[i] = options[i];
        int takes_next = 0;
        const char *next = i + 1 < numOptions ? options[i + 1] : NULL;
        const char *v = options[i] != NULL ? arch_value(options[i], next, &takes_next) : NULL;
        if (v == NULL || strncmp(v, "sm_", 3) != 0)
            continue;
        /* sm_XX[a|f] -> compute_XX[a|f], in the same option form */
        size_t prefix = (size_t)(v - options[i]) * (size_t)!takes_next;
        int at = takes_next ? i + 1 : i;
        const char *src = options[at];
        char *text = malloc(strlen(src) + 8);
        if (text == NULL)
            continue;
        memcpy(text, src, prefix);
        strcpy(text + prefix, "compute_");
        strcat(text + prefix, v + 3);
        owned[at] = text;
        if (takes_next) {
            opts[i + 1] = text;
            i++;
        } else {
            opts[i] = text;
        }
        sm = pyshim_arch_number(v);
    }
    nvrtcResult rc = ((compile_fn)REAL(nvrtcCompileProgram))(prog, numOptions, opts);
    for (int i = 0; i < numOptions; i++)
        free(owned[i]);
    free(owned);
    free(opts);
    if (sm != 0) {
        struct cubin_program *p = calloc(1, sizeof *p);
        if (p != NULL) {
            p->prog = prog;
            p->sm = sm;
            pthread_mutex_lock(&lock);
            p->next = programs;
            programs = p;
            pthread_mutex_unlock(&lock);
        }
    }
    return rc;
}

/* the image of a program compiled for a cubin; NULL (and *rc) when it is not one */
static struct cubin_program *image_of(nvrtcProgram prog, nvrtcResult *rc)
{
    pthread_mutex_lock(&lock);
    struct cubin_program *p = *find(prog);
    pthread_mutex_unlock(&lock);
    *rc = NVRTC_SUCCESS;
    if (p == NULL || p->image != NULL)
        return p;
    size_t len = 0;
    *rc = ((size_fn)REAL(nvrtcGetPTXSize))(prog, &len);
    if (*rc != NVRTC_SUCCESS)
        return p;
    char *ptx = malloc(len + 1);
    if (ptx == NULL) {
        *rc = NVRTC_ERROR_OUT_OF_MEMORY;
        return p;
    }
    *rc = ((get_fn)REAL(nvrtcGetPTX))(prog, ptx);
    if (*rc == NVRTC_SUCCESS) {
        size_t size = 0;
        uint8_t *image = pyshim_ptx_elf(ptx, strnlen(ptx, len), p->sm, &size);
        pthread_mutex_lock(&lock);
        if (p->image == NULL && image != NULL) {
            p->image = image;
            p->size = size;
            image = NULL;
        }
        pthread_mutex_unlock(&lock);
        free(image);
        if (p->image == NULL)
            *rc = NVRTC_ERROR_OUT_OF_MEMORY;
    }
    free(ptx);
    return p;
}

nvrtcResult nvrtcGetCUBINSize(nvrtcProgram prog, size_t *cubinSizeRet)
{
    nvrtcResult rc;
    struct cubin_program *p = image_of(prog, &rc);
    if (p == NULL)
        return ((size_fn)REAL(nvrtcGetCUBINSize))(prog, cubinSizeRet);
    if (rc != NVRTC_SUCCESS)
        return rc;
    if (cubinSizeRet == NULL)
        return NVRTC_ERROR_INVALID_INPUT;
    *cubinSizeRet = p->size;
    return NVRTC_SUCCESS;
}

nvrtcResult nvrtcGetCUBIN(nvrtcProgram prog, char *cubin)
{
    nvrtcResult rc;
    struct cubin_program *p = image_of(prog, &rc);
    if (p == NULL)
        return ((get_fn)REAL(nvrtcGetCUBIN))(prog, cubin);
    if (rc != NVRTC_SUCCESS)
        return rc;
    if (cubin == NULL)
        return NVRTC_ERROR_INVALID_INPUT;
    memcpy(cubin, p->image, p->size);
    return NVRTC_SUCCESS;
}

nvrtcResult nvrtcDestroyProgram(nvrtcProgram *prog)
{
    if (prog != NULL)
        forget(*prog);
    return ((destroy_fn)REAL(nvrtcDestroyProgram))(prog);
}
