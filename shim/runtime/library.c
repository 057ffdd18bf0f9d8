/*
 * cudaLibrary* (CUDA 12's context-independent loading): each library is a fat binary record
 * of its own (register.c) over a private copy of the image, translated and loaded like the
 * program's own fat binaries; its kernels are cudaKernel_t records that cudaLaunchKernel,
 * cudaLaunchKernelEx and cudaFuncGetAttributes take like host stubs.
 */
#define __CUDA_API_VERSION_INTERNAL 1
#include <cuda_runtime_api.h>
#include <stdio.h>
#include <stdlib.h>

#include "cuda_side.h"

static cudaError_t result(int rc)
{
    return rc == cudaSuccess ? cudaSuccess : (cudaError_t)pyshim_rt_record(rc);
}

/* JIT and library options tune NVIDIA's JIT and loader; the translator has none of them */
cudaError_t cudaLibraryLoadData(cudaLibrary_t *library, const void *code,
                                enum cudaJitOption *jitOptions, void **jitOptionsValues,
                                unsigned int numJitOptions,
                                enum cudaLibraryOption *libraryOptions,
                                void **libraryOptionValues, unsigned int numLibraryOptions)
{
    PYSHIM_RT_STICKY_CHECK();
    (void)jitOptions, (void)jitOptionsValues, (void)numJitOptions;
    (void)libraryOptions, (void)libraryOptionValues, (void)numLibraryOptions;
    if (library == NULL || code == NULL)
        return result(cudaErrorInvalidValue);
    void *lib = NULL;
    int rc = pyshim_rt_library_load(code, &lib);
    if (rc == cudaSuccess)
        *library = (cudaLibrary_t)lib;
    return result(rc);
}

cudaError_t cudaLibraryLoadFromFile(cudaLibrary_t *library, const char *fileName,
                                    enum cudaJitOption *jitOptions, void **jitOptionsValues,
                                    unsigned int numJitOptions,
                                    enum cudaLibraryOption *libraryOptions,
                                    void **libraryOptionValues, unsigned int numLibraryOptions)
{
    PYSHIM_RT_STICKY_CHECK();
    if (library == NULL || fileName == NULL)
        return result(cudaErrorInvalidValue);
    FILE *f = fopen(fileName, "rb");
    if (f == NULL) {
        pyshim_rt_log("cudaLibraryLoadFromFile: cannot open %s", fileName);
        return result(cudaErrorFileNotFound);
    }
    char *data = NULL;
    size_t len = 0, cap = 0, n;
    do {
        if (len + 65536 + 1 > cap) {
            cap = (len + 65536 + 1) * 2;
            char *grown = realloc(data, cap);
            if (grown == NULL) {
                free(data);
                fclose(f);
                return result(cudaErrorMemoryAllocation);
            }
            data = grown;
        }
        n = fread(data + len, 1, 65536, f);
        len += n;
    } while (n > 0);
    fclose(f);
    data[len] = '\0'; /* a PTX file is not NUL-terminated on disk */
    cudaError_t rc = cudaLibraryLoadData(library, data, jitOptions, jitOptionsValues,
                                         numJitOptions, libraryOptions, libraryOptionValues,
                                         numLibraryOptions);
    free(data); /* the library keeps its own copy */
    return rc;
}

cudaError_t cudaLibraryUnload(cudaLibrary_t library)
{
    PYSHIM_RT_STICKY_CHECK();
    return result(pyshim_rt_library_unload(library));
}

cudaError_t cudaLibraryGetKernel(cudaKernel_t *pKernel, cudaLibrary_t library, const char *name)
{
    PYSHIM_RT_STICKY_CHECK();
    if (pKernel == NULL || name == NULL)
        return result(cudaErrorInvalidValue);
    struct pyshim_rt_func *f = NULL;
    int rc = pyshim_rt_library_kernel(library, name, &f);
    if (rc == cudaSuccess)
        *pKernel = (cudaKernel_t)(void *)f;
    return result(rc);
}

cudaError_t cudaLibraryGetGlobal(void **dptr, size_t *bytes, cudaLibrary_t library,
                                 const char *name)
{
    PYSHIM_RT_STICKY_CHECK();
    if (name == NULL || (dptr == NULL && bytes == NULL))
        return result(cudaErrorInvalidValue);
    void *p = NULL;
    size_t size = 0;
    int rc = pyshim_rt_library_global(library, name, &p, &size);
    if (rc == cudaSuccess) {
        if (dptr != NULL)
            *dptr = p;
        if (bytes != NULL)
            *bytes = size;
    }
    return result(rc);
}

/* __managed__ variables are globals of the translated module (on the CPU device, host
 * memory already) */
cudaError_t cudaLibraryGetManaged(void **dptr, size_t *bytes, cudaLibrary_t library,
                                  const char *name)
{
    return cudaLibraryGetGlobal(dptr, bytes, library, name);
}

/* Unified functions are host functions a library exports to device code; a translated
 * module has none, so no name is one */
cudaError_t cudaLibraryGetUnifiedFunction(void **fptr, cudaLibrary_t library, const char *symbol)
{
    PYSHIM_RT_STICKY_CHECK();
    if (fptr == NULL || symbol == NULL)
        return result(cudaErrorInvalidValue);
    unsigned count = 0;
    int rc = pyshim_rt_library_kernels(library, &count, NULL, 0);
    if (rc != cudaSuccess)
        return result(rc);
    pyshim_rt_log("cudaLibraryGetUnifiedFunction(%s): translated libraries hold no unified "
                  "functions", symbol);
    return result(cudaErrorSymbolNotFound);
}

cudaError_t cudaLibraryGetKernelCount(unsigned int *count, cudaLibrary_t lib)
{
    PYSHIM_RT_STICKY_CHECK();
    if (count == NULL)
        return result(cudaErrorInvalidValue);
    return result(pyshim_rt_library_kernels(lib, count, NULL, 0));
}

cudaError_t cudaLibraryEnumerateKernels(cudaKernel_t *kernels, unsigned int numKernels,
                                        cudaLibrary_t lib)
{
    PYSHIM_RT_STICKY_CHECK();
    if (kernels == NULL)
        return result(cudaErrorInvalidValue);
    unsigned count = 0;
    int rc = pyshim_rt_library_kernels(lib, &count, NULL, 0);
    if (rc == cudaSuccess && numKernels > count)
        rc = cudaErrorInvalidValue;
    if (rc == cudaSuccess)
        rc = pyshim_rt_library_kernels(lib, &count, (struct pyshim_rt_func **)(void *)kernels,
                                       numKernels);
    return result(rc);
}

/* Per-device kernel settings: accepted for known kernels, as cudaFuncSetAttribute does (the
 * backends apply their limits per launch) */
cudaError_t cudaKernelSetAttributeForDevice(cudaKernel_t kernel, enum cudaFuncAttribute attr,
                                            int value, int device)
{
    PYSHIM_RT_STICKY_CHECK();
    (void)value;
    if (pyshim_rt_func_by_handle(kernel) == NULL)
        return result(cudaErrorInvalidDeviceFunction);
    int n = 0;
    if (pyshim_rt_hip_device_count(&n) != cudaSuccess || device < 0 || device >= n)
        return result(cudaErrorInvalidDevice);
    if ((int)attr < 0 || attr >= cudaFuncAttributeMax)
        return result(cudaErrorInvalidValue);
    return cudaSuccess;
}
