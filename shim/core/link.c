/*
 * The driver's JIT linker (cuLinkCreate / AddData / Complete), for programs that build
 * a module at run time (numba, JIT libraries). pyshim translates PTX when a module is
 * loaded, so linking only gathers: one PTX, cubin or fat binary input comes back
 * unchanged, and anything else (several inputs; host objects, libraries, LTO-IR) comes back
 * as a link image: a cubin-shaped ELF with one section per input in input order,
 * `.pyshim.link.<type>:<input name>`, and `.pyshim.link.arch` naming the device's sm_XX. The cuModuleLoadData
 * that follows hands it to the loader, which takes each input's PTX (LTO-IR through
 * NVIDIA's nvJitLink) and links them (pyshim/kernels/ptx_link.py).
 */
#define _POSIX_C_SOURCE 200809L /* strdup */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/elf_write.h"
#include "internal.h"

#define MAX_INPUTS 64
#define LINK_MAGIC 0x4c4e4b31u /* "LNK1" */

struct link_state {
    uint32_t magic;
    unsigned int count;
    uint8_t *data[MAX_INPUTS];
    size_t size[MAX_INPUTS];
    char *name[MAX_INPUTS];
    CUjitInputType type[MAX_INPUTS];
    uint8_t *image; /* the link image, made by cuLinkComplete */
};

/* section names of the input types, in CUjitInputType order */
static const char *const INPUT_SECTIONS[] = {
    ".pyshim.link.cubin", ".pyshim.link.ptx", ".pyshim.link.fatbin", ".pyshim.link.object",
    ".pyshim.link.library", ".pyshim.link.nvvm",
};
#define N_INPUT_TYPES (sizeof INPUT_SECTIONS / sizeof INPUT_SECTIONS[0])

#define AS_LINK(s) ((struct link_state *)(void *)(s))

CUresult CUDAAPI cuLinkCreate_v2(unsigned int numOptions, CUjit_option *options,
                                 void **optionValues, CUlinkState *stateOut)
{
    (void)numOptions;
    (void)options;
    (void)optionValues;
    if (stateOut == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    CUresult rc = pyshim_need_ctx();
    if (rc != CUDA_SUCCESS)
        return rc;
    struct link_state *st = calloc(1, sizeof *st);
    if (st == NULL)
        return CUDA_ERROR_OUT_OF_MEMORY;
    st->magic = LINK_MAGIC;
    *stateOut = (CUlinkState)(void *)st;
    return CUDA_SUCCESS;
}

CUresult CUDAAPI cuLinkAddData_v2(CUlinkState state, CUjitInputType type, void *data, size_t size,
                                  const char *name, unsigned int numOptions, CUjit_option *options,
                                  void **optionValues)
{
    (void)numOptions;
    (void)options;
    (void)optionValues;
    struct link_state *st = AS_LINK(state);
    if (st == NULL || st->magic != LINK_MAGIC)
        return CUDA_ERROR_INVALID_HANDLE;
    if (data == NULL || size == 0)
        return CUDA_ERROR_INVALID_VALUE;
    if ((unsigned)type >= N_INPUT_TYPES) {
        pyshim_log("cuLinkAddData: %s: unknown input type %d", name != NULL ? name : "(unnamed)",
                   (int)type);
        return CUDA_ERROR_INVALID_VALUE;
    }
    if (st->count == MAX_INPUTS)
        return CUDA_ERROR_OUT_OF_MEMORY;
    uint8_t *copy = malloc(size + 1);
    if (copy == NULL)
        return CUDA_ERROR_OUT_OF_MEMORY;
    memcpy(copy, data, size);
    copy[size] = 0; /* PTX given with its length may lack the NUL */
    st->data[st->count] = copy;
    st->size[st->count] = size;
    st->name[st->count] = strdup(name != NULL ? name : "(unnamed)");
    st->type[st->count] = type;
    st->count++;
    return CUDA_SUCCESS;
}

CUresult CUDAAPI cuLinkAddFile_v2(CUlinkState state, CUjitInputType type, const char *path,
                                  unsigned int numOptions, CUjit_option *options,
                                  void **optionValues)
{
    if (path == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        return CUDA_ERROR_FILE_NOT_FOUND;
    fseek(f, 0, SEEK_END);
    long len = ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *buf = len > 0 ? malloc((size_t)len) : NULL;
    size_t got = buf != NULL ? fread(buf, 1, (size_t)len, f) : 0;
    fclose(f);
    CUresult rc = CUDA_ERROR_INVALID_VALUE;
    if (buf != NULL && got == (size_t)len)
        rc = cuLinkAddData_v2(state, type, buf, got, path, numOptions, options, optionValues);
    free(buf);
    return rc;
}

/* the current context's device as sm_XX (what LTO-IR is linked for) */
static unsigned current_sm(void)
{
    CUdevice dev;
    int major = 0, minor = 0;
    if (cuCtxGetDevice(&dev) != CUDA_SUCCESS ||
        cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev) !=
            CUDA_SUCCESS ||
        cuDeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev) !=
            CUDA_SUCCESS)
        return 0;
    return (unsigned)(major * 10 + minor);
}

CUresult CUDAAPI cuLinkComplete(CUlinkState state, void **cubinOut, size_t *sizeOut)
{
    struct link_state *st = AS_LINK(state);
    if (st == NULL || st->magic != LINK_MAGIC)
        return CUDA_ERROR_INVALID_HANDLE;
    if (cubinOut == NULL || sizeOut == NULL || st->count == 0)
        return CUDA_ERROR_INVALID_VALUE;
    CUjitInputType t0 = st->type[0];
    if (st->count == 1 &&
        (t0 == CU_JIT_INPUT_PTX || t0 == CU_JIT_INPUT_CUBIN || t0 == CU_JIT_INPUT_FATBINARY)) {
        /* owned by the state until cuLinkDestroy, as CUDA specifies */
        *cubinOut = st->data[0];
        *sizeOut = st->size[0];
        return CUDA_SUCCESS;
    }
    struct pyshim_common_section sections[MAX_INPUTS + 1];
    char names[MAX_INPUTS][160]; /* .pyshim.link.<type>:<input name>, for messages */
    char arch[16];
    unsigned sm = current_sm();
    snprintf(arch, sizeof arch, "sm_%u", sm);
    for (unsigned int i = 0; i < st->count; i++) {
        snprintf(names[i], sizeof names[i], "%s:%s", INPUT_SECTIONS[st->type[i]], st->name[i]);
        sections[i] = (struct pyshim_common_section){names[i], st->data[i], st->size[i]};
    }
    sections[st->count] = (struct pyshim_common_section){".pyshim.link.arch", arch,
                                                          strlen(arch)};
    size_t size = 0;
    uint8_t *image = pyshim_common_elf(sections, st->count + 1, sm, &size);
    if (image == NULL)
        return CUDA_ERROR_OUT_OF_MEMORY;
    free(st->image);
    st->image = image;
    *cubinOut = image;
    *sizeOut = size;
    return CUDA_SUCCESS;
}

CUresult CUDAAPI cuLinkDestroy(CUlinkState state)
{
    struct link_state *st = AS_LINK(state);
    if (st == NULL || st->magic != LINK_MAGIC)
        return CUDA_ERROR_INVALID_HANDLE;
    for (unsigned int i = 0; i < st->count; i++) {
        free(st->data[i]);
        free(st->name[i]);
    }
    free(st->image);
    st->magic = 0;
    free(st);
    return CUDA_SUCCESS;
}

/* the CUDA 5.5 ABIs: the same arguments; cuda.h renames these names to _v2 */
#undef cuLinkCreate
#undef cuLinkAddData
#undef cuLinkAddFile
CUresult CUDAAPI cuLinkCreate(unsigned int numOptions, CUjit_option *options, void **optionValues,
                              CUlinkState *stateOut);
CUresult CUDAAPI cuLinkAddData(CUlinkState state, CUjitInputType type, void *data, size_t size,
                               const char *name, unsigned int numOptions, CUjit_option *options,
                               void **optionValues);
CUresult CUDAAPI cuLinkAddFile(CUlinkState state, CUjitInputType type, const char *path,
                               unsigned int numOptions, CUjit_option *options,
                               void **optionValues);

CUresult CUDAAPI cuLinkCreate(unsigned int numOptions, CUjit_option *options, void **optionValues,
                              CUlinkState *stateOut)
{
    return cuLinkCreate_v2(numOptions, options, optionValues, stateOut);
}

CUresult CUDAAPI cuLinkAddData(CUlinkState state, CUjitInputType type, void *data, size_t size,
                               const char *name, unsigned int numOptions, CUjit_option *options,
                               void **optionValues)
{
    return cuLinkAddData_v2(state, type, data, size, name, numOptions, options, optionValues);
}

CUresult CUDAAPI cuLinkAddFile(CUlinkState state, CUjitInputType type, const char *path,
                               unsigned int numOptions, CUjit_option *options,
                               void **optionValues)
{
    return cuLinkAddFile_v2(state, type, path, numOptions, options, optionValues);
}
