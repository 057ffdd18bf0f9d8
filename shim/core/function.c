/*
 * Function and kernel handles: attributes, names, owners. A CUkernel (cudart's, from
 * cuLibraryGetKernel) and a CUfunction are the same struct here, so each cuKernel* entry
 * point is its cuFunc* twin.
 */
#include <limits.h>

#include "common/device_identity.h"
#include "common/cluster_launch.h"
#include "internal.h"

CUresult CUDAAPI cuKernelGetFunction(CUfunction *pFunc, CUkernel kernel)
{
    if (pFunc == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    CUfunction f = (CUfunction)(void *)kernel;
    if (!pyshim_func_valid(f))
        return CUDA_ERROR_INVALID_HANDLE;
    *pFunc = f;
    return CUDA_SUCCESS;
}

CUresult CUDAAPI cuKernelGetLibrary(CUlibrary *pLib, CUkernel kernel)
{
    CUfunction f = (CUfunction)(void *)kernel;
    if (pLib == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    if (!pyshim_func_valid(f))
        return CUDA_ERROR_INVALID_HANDLE;
    *pLib = (CUlibrary)(void *)f->lib;
    return CUDA_SUCCESS;
}

CUresult CUDAAPI cuFuncGetAttribute(int *pi, CUfunction_attribute attrib, CUfunction hfunc)
{
    if (pi == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    hipFunction_t f;
    CUresult rc = pyshim_function_resolve(hfunc, &f);
    if (rc != CUDA_SUCCESS)
        return rc;
    struct pyshim_function_facts facts;
    pyshim_function_facts(hfunc, &facts);
    switch (attrib) {
    case CU_FUNC_ATTRIBUTE_PTX_VERSION:
    case CU_FUNC_ATTRIBUTE_BINARY_VERSION:
        /* the backend's numbers are its own architecture's (gfx942: 94); CUDA's are the
         * virtual architecture the PTX was written for, and the binary compiled from it
         * (programs read >= 90 as "Hopper features are in this kernel") */
        *pi = facts.ptx_target > 0 ? facts.ptx_target : pyshim_identity_cc();
        return CUDA_SUCCESS;
    case CU_FUNC_ATTRIBUTE_CONST_SIZE_BYTES:
        /* the module's __constant__ data (the backends report none) */
        *pi = facts.const_bytes > INT_MAX ? INT_MAX : (int)facts.const_bytes;
        return CUDA_SUCCESS;
    case CU_FUNC_ATTRIBUTE_NUM_REGS: {
        int regs = 0;
        if (hipFuncGetAttribute(&regs, HIP_FUNC_ATTRIBUTE_NUM_REGS, f) != hipSuccess)
            regs = 0;
        /* a maxrregcount given at load bounds it, as ptxas would have */
        if (facts.max_registers > 0 && regs > (int)facts.max_registers)
            regs = (int)facts.max_registers;
        *pi = regs;
        return CUDA_SUCCESS;
    }
    default:
        break;
    }
    /* the kernel's clusters: the CPU device answers them under private numbers
     * (common/cluster_launch.h); a backend that does not refuses them, and they read 0 */
    if (attrib >= CU_FUNC_ATTRIBUTE_CLUSTER_SIZE_MUST_BE_SET &&
        attrib <= CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED) {
        if (hipFuncGetAttribute(pi, (hipFunction_attribute)PYSHIM_HIP_CUDA_NUMBER((int)attrib),
                                f) != hipSuccess)
            *pi = 0;
        return CUDA_SUCCESS;
    }
    /* CU_FUNC_ATTRIBUTE_* 0..9 and hipFunction_attribute share their order */
    if (attrib <= CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT) {
        hipError_t err = hipFuncGetAttribute(pi, (hipFunction_attribute)attrib, f);
        if (err == hipSuccess)
            return CUDA_SUCCESS;
        if (attrib == CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK ||
            attrib == CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES)
            return pyshim_cu_from_hip(err);
    }
    /* descriptive attributes the backend does not track: neutral answers */
    switch (attrib) {
    case CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT:
        *pi = -1;
        return CUDA_SUCCESS;
    case CU_FUNC_ATTRIBUTE_CLUSTER_SCHEDULING_POLICY_PREFERENCE:
        *pi = CU_CLUSTER_SCHEDULING_POLICY_DEFAULT;
        return CUDA_SUCCESS;
    default:
        *pi = 0;
        return CUDA_SUCCESS;
    }
}

CUresult CUDAAPI cuKernelGetAttribute(int *pi, CUfunction_attribute attrib, CUkernel kernel,
                                      CUdevice dev)
{
    (void)dev;
    return cuFuncGetAttribute(pi, attrib, (CUfunction)(void *)kernel);
}

CUresult CUDAAPI cuFuncSetAttribute(CUfunction hfunc, CUfunction_attribute attrib, int value)
{
    hipFunction_t f;
    CUresult rc = pyshim_function_resolve(hfunc, &f);
    /* clusters above CUDA's portable size: the CPU device keeps the setting per kernel
     * (common/cluster_launch.h); a backend without clusters has nothing to raise */
    if (rc == CUDA_SUCCESS && attrib == CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED)
        (void)hipFuncSetAttribute(
            (const void *)f,
            (hipFuncAttribute)PYSHIM_HIP_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED, value);
    /* the others: the backends have no per-kernel limits to raise: accepted and ignored */
    return rc;
}

CUresult CUDAAPI cuKernelSetAttribute(CUfunction_attribute attrib, int val, CUkernel kernel,
                                      CUdevice dev)
{
    (void)dev;
    return cuFuncSetAttribute((CUfunction)(void *)kernel, attrib, val);
}

CUresult CUDAAPI cuFuncSetCacheConfig(CUfunction hfunc, CUfunc_cache config)
{
    (void)config;
    hipFunction_t f;
    return pyshim_function_resolve(hfunc, &f);
}

CUresult CUDAAPI cuKernelSetCacheConfig(CUkernel kernel, CUfunc_cache config, CUdevice dev)
{
    int count = 0;
    if (hipGetDeviceCount(&count) != hipSuccess || dev < 0 || dev >= count)
        return CUDA_ERROR_INVALID_DEVICE;
    /* a preference the backends' fixed L1/shared split cannot follow, as on Volta and
     * later; a value that is no CUfunc_cache is still refused */
    if ((unsigned)config > CU_FUNC_CACHE_PREFER_EQUAL)
        return CUDA_ERROR_INVALID_VALUE;
    return cuFuncSetCacheConfig((CUfunction)(void *)kernel, config);
}

CUresult CUDAAPI cuFuncGetName(const char **name, CUfunction hfunc)
{
    /* a NULL function is an invalid value, as cuda.h documents, not a bad handle */
    if (name == NULL || hfunc == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    if (!pyshim_func_valid(hfunc))
        return CUDA_ERROR_INVALID_HANDLE;
    *name = hfunc->name;
    return CUDA_SUCCESS;
}

CUresult CUDAAPI cuKernelGetName(const char **name, CUkernel hfunc)
{
    return cuFuncGetName(name, (CUfunction)(void *)hfunc);
}

/* from the kernel's PTX signature, in CUDA's packed layout (the translator reports it) */
CUresult CUDAAPI cuFuncGetParamInfo(CUfunction func, size_t paramIndex, size_t *paramOffset,
                                    size_t *paramSize)
{
    if (func == NULL || paramOffset == NULL || paramSize == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    return pyshim_function_param_info(func, paramIndex, paramOffset, paramSize);
}

CUresult CUDAAPI cuKernelGetParamInfo(CUkernel kernel, size_t paramIndex, size_t *paramOffset,
                                      size_t *paramSize)
{
    return cuFuncGetParamInfo((CUfunction)(void *)kernel, paramIndex, paramOffset, paramSize);
}

CUresult CUDAAPI cuFuncGetModule(CUmodule *hmod, CUfunction hfunc)
{
    if (hmod == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    if (!pyshim_func_valid(hfunc))
        return CUDA_ERROR_INVALID_HANDLE;
    *hmod = (CUmodule)(void *)hfunc->lib;
    return CUDA_SUCCESS;
}

