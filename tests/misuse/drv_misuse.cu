// Driver API misuse: forged handles, bogus and freed pointers, oversize copies, malformed
// images. Every call must return the code NVIDIA's documentation gives, never crash and
// never succeed silently. argv[1]: a PTX file with a kernel "scale" (to check the device
// still works after all of it).
#include <cuda.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "../include/driver_check.h"

#define BOGUS ((CUdeviceptr)0x1234)
#define BOGUS_HIGH ((CUdeviceptr)0x7f0000001000ull)

int main(int argc, char **argv)
{
    char host[8192];
    memset(host, 3, sizeof host);
    CUcontext ctx;
    CUdevice dev;
    EXPECT("init", cuInit(0), CUDA_SUCCESS);
    EXPECT("device", cuDeviceGet(&dev, 0), CUDA_SUCCESS);
    EXPECT("primary retain", cuDevicePrimaryCtxRetain(&ctx, dev), CUDA_SUCCESS);
    EXPECT("set current", cuCtxSetCurrent(ctx), CUDA_SUCCESS);

    CUdeviceptr d64, d4k, freed;
    EXPECT("alloc 64", cuMemAlloc(&d64, 64), CUDA_SUCCESS);
    EXPECT("alloc 4096", cuMemAlloc(&d4k, 4096), CUDA_SUCCESS);
    EXPECT("alloc then free", cuMemAlloc(&freed, 1 << 22), CUDA_SUCCESS);
    EXPECT("free", cuMemFree(freed), CUDA_SUCCESS);

    // pointers
    EXPECT("HtoD to 0x1234", cuMemcpyHtoD(BOGUS, host, 16), CUDA_ERROR_INVALID_VALUE);
    EXPECT("DtoH from 0x1234", cuMemcpyDtoH(host, BOGUS, 16), CUDA_ERROR_INVALID_VALUE);
    EXPECT("DtoD bogus dst", cuMemcpyDtoD(BOGUS, d64, 16), CUDA_ERROR_INVALID_VALUE);
    EXPECT("DtoD bogus src", cuMemcpyDtoD(d64, BOGUS_HIGH, 16), CUDA_ERROR_INVALID_VALUE);
    EXPECT("HtoDAsync to 0x1234", cuMemcpyHtoDAsync(BOGUS, host, 16, 0), CUDA_ERROR_INVALID_VALUE);
    EXPECT("MemsetD32 bogus", cuMemsetD32(BOGUS, 0, 4), CUDA_ERROR_INVALID_VALUE);
    EXPECT("MemsetD8 bogus", cuMemsetD8(BOGUS_HIGH, 0, 16), CUDA_ERROR_INVALID_VALUE);
    EXPECT("MemsetD16 bogus", cuMemsetD16(BOGUS, 0, 16), CUDA_ERROR_INVALID_VALUE);
    EXPECT("MemsetD32 oversize", cuMemsetD32(d64, 0, 17), CUDA_ERROR_INVALID_VALUE);
    EXPECT("MemsetD2D8 past end", cuMemsetD2D8(d64, 64, 0, 64, 2), CUDA_ERROR_INVALID_VALUE);
    EXPECT("DtoH 4096 from 64", cuMemcpyDtoH(host, d64, 4096), CUDA_ERROR_INVALID_VALUE);
    EXPECT("HtoD 4096 to 64", cuMemcpyHtoD(d64, host, 4096), CUDA_ERROR_INVALID_VALUE);
    EXPECT("DtoD 4096 from 64", cuMemcpyDtoD(d4k, d64, 4096), CUDA_ERROR_INVALID_VALUE);
    EXPECT("DtoH from freed", cuMemcpyDtoH(host, freed, 16), CUDA_ERROR_INVALID_VALUE);
    EXPECT("HtoD to freed", cuMemcpyHtoD(freed, host, 16), CUDA_ERROR_INVALID_VALUE);
    EXPECT("DtoD from freed", cuMemcpyDtoD(d64, freed, 16), CUDA_ERROR_INVALID_VALUE);
    EXPECT("cuMemcpy Default from freed", cuMemcpy((CUdeviceptr)(uintptr_t)host, freed, 16),
           CUDA_ERROR_INVALID_VALUE);
    EXPECT("MemsetD8 freed", cuMemsetD8(freed, 0, 16), CUDA_ERROR_INVALID_VALUE);
    EXPECT("double free", cuMemFree(freed), CUDA_ERROR_INVALID_VALUE);
    EXPECT("free 0x1234", cuMemFree(BOGUS), CUDA_ERROR_INVALID_VALUE);
    CUDA_MEMCPY2D c2 = {};
    c2.srcMemoryType = CU_MEMORYTYPE_HOST;
    c2.srcHost = host;
    c2.srcPitch = 64;
    c2.dstMemoryType = CU_MEMORYTYPE_DEVICE;
    c2.dstDevice = d64;
    c2.dstPitch = 64;
    c2.WidthInBytes = 64;
    c2.Height = 2;
    EXPECT("Memcpy2D past end", cuMemcpy2D(&c2), CUDA_ERROR_INVALID_VALUE);
    c2.dstDevice = BOGUS;
    c2.Height = 1;
    EXPECT("Memcpy2D bogus device", cuMemcpy2D(&c2), CUDA_ERROR_INVALID_VALUE);
    c2.dstDevice = d64;
    EXPECT("Memcpy2D fits", cuMemcpy2D(&c2), CUDA_SUCCESS);

    unsigned type = 0;
    EXPECT("PointerGetAttribute 0x1234",
           cuPointerGetAttribute(&type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, BOGUS),
           CUDA_ERROR_INVALID_VALUE);
    EXPECT("PointerGetAttribute freed",
           cuPointerGetAttribute(&type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, freed),
           CUDA_ERROR_INVALID_VALUE);
    EXPECT("PointerGetAttribute device",
           cuPointerGetAttribute(&type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, d64), CUDA_SUCCESS);
    printf("%s memory type device\n", type == CU_MEMORYTYPE_DEVICE ? "PASS" : "FAIL");
    failures += type != CU_MEMORYTYPE_DEVICE;
    CUdeviceptr base;
    size_t size;
    EXPECT("GetAddressRange 0x1234", cuMemGetAddressRange(&base, &size, BOGUS),
           CUDA_ERROR_NOT_FOUND);

    // handles
    EXPECT("CtxDestroy 0x1234", cuCtxDestroy((CUcontext)0x1234), CUDA_ERROR_INVALID_CONTEXT);
    EXPECT("CtxDestroy high", cuCtxDestroy((CUcontext)BOGUS_HIGH), CUDA_ERROR_INVALID_CONTEXT);
    EXPECT("CtxSetCurrent 0x1234", cuCtxSetCurrent((CUcontext)0x1234), CUDA_ERROR_INVALID_CONTEXT);
    EXPECT("CtxPushCurrent 0x1234", cuCtxPushCurrent((CUcontext)0x1234),
           CUDA_ERROR_INVALID_CONTEXT);
    CUcontext made;
    EXPECT("CtxCreate", cuCtxCreate(&made, NULL, 0, dev), CUDA_SUCCESS);
    EXPECT("CtxDestroy", cuCtxDestroy(made), CUDA_SUCCESS);
    EXPECT("CtxDestroy stale", cuCtxDestroy(made), CUDA_ERROR_INVALID_CONTEXT);
    EXPECT("set current back", cuCtxSetCurrent(ctx), CUDA_SUCCESS);
    CUfunction fn;
    EXPECT("ModuleGetFunction forged", cuModuleGetFunction(&fn, (CUmodule)0x1234, "scale"),
           CUDA_ERROR_INVALID_HANDLE);
    EXPECT("ModuleUnload forged", cuModuleUnload((CUmodule)0x1234), CUDA_ERROR_INVALID_HANDLE);
    EXPECT("LaunchKernel forged", cuLaunchKernel((CUfunction)0x1234, 1, 1, 1, 1, 1, 1, 0, 0,
                                                 NULL, NULL), CUDA_ERROR_INVALID_HANDLE);
    int attr;
    EXPECT("FuncGetAttribute forged",
           cuFuncGetAttribute(&attr, CU_FUNC_ATTRIBUTE_NUM_REGS, (CUfunction)0x1234),
           CUDA_ERROR_INVALID_HANDLE);
    EXPECT("StreamSynchronize forged", cuStreamSynchronize((CUstream)0x1234),
           CUDA_ERROR_INVALID_HANDLE);
    EXPECT("EventRecord forged", cuEventRecord((CUevent)0x1234, 0), CUDA_ERROR_INVALID_HANDLE);
    EXPECT("EventSynchronize forged", cuEventSynchronize((CUevent)0x1234),
           CUDA_ERROR_INVALID_HANDLE);
    // link states: a forged or destroyed one is a handle error, never a read through it
    void *cubin;
    size_t cubin_size;
    EXPECT("LinkAddData forged",
           cuLinkAddData((CUlinkState)0x1234, CU_JIT_INPUT_PTX, host, 16, "x", 0, NULL, NULL),
           CUDA_ERROR_INVALID_HANDLE);
    EXPECT("LinkComplete forged", cuLinkComplete((CUlinkState)BOGUS_HIGH, &cubin, &cubin_size),
           CUDA_ERROR_INVALID_HANDLE);
    EXPECT("LinkDestroy forged", cuLinkDestroy((CUlinkState)0x1234), CUDA_ERROR_INVALID_HANDLE);
    CUlinkState link;
    EXPECT("LinkCreate", cuLinkCreate(0, NULL, NULL, &link), CUDA_SUCCESS);
    EXPECT("LinkDestroy", cuLinkDestroy(link), CUDA_SUCCESS);
    EXPECT("LinkDestroy stale", cuLinkDestroy(link), CUDA_ERROR_INVALID_HANDLE);

    // malformed images
    CUmodule mod;
    unsigned char elf[256];
    memset(elf, 0, sizeof elf);
    memcpy(elf, "\177ELF", 4);
    elf[4] = 2; // ELFCLASS64
    elf[5] = 1;
    elf[6] = 1;
    uint64_t shoff = 0x4141414141414141ull;
    memcpy(elf + 0x28, &shoff, 8);
    uint16_t shentsize = 64, shnum = 4;
    memcpy(elf + 0x3a, &shentsize, 2);
    memcpy(elf + 0x3c, &shnum, 2);
    EXPECT("ModuleLoadData ELF e_shoff=0x4141...", cuModuleLoadData(&mod, elf),
           CUDA_ERROR_INVALID_IMAGE);
    shoff = 128;   // inside, but the section header's contents claim to be far away
    memcpy(elf + 0x28, &shoff, 8);
    uint64_t far = 0x7f0000000000ull;
    memcpy(elf + 128 + 0x18, &far, 8);
    EXPECT("ModuleLoadData ELF section past the image", cuModuleLoadData(&mod, elf),
           CUDA_ERROR_INVALID_IMAGE);
    // a fat binary wrapper (v2: device-linked) whose aux pointer is bad
    struct {
        uint32_t magic, version;
        const void *data, *aux;
    } wrapper = {0x466243b1u, 2, host, (const void *)0x1234};
    EXPECT("ModuleLoadFatBinary wrapper bad aux", cuModuleLoadFatBinary(&mod, &wrapper),
           CUDA_ERROR_INVALID_IMAGE);
    EXPECT("ModuleLoadData wrapper bad aux", cuModuleLoadData(&mod, &wrapper),
           CUDA_ERROR_INVALID_IMAGE);
    wrapper.version = 1;
    wrapper.data = (const void *)0x1234;
    EXPECT("ModuleLoadData wrapper bad data", cuModuleLoadData(&mod, &wrapper),
           CUDA_ERROR_INVALID_IMAGE);
    // a container header that claims 2 GiB of entries it does not have
    unsigned char cont[64];
    memset(cont, 0, sizeof cont);
    uint32_t cmagic = 0xBA55ED50u;
    uint16_t cver = 1, chdr = 16;
    uint64_t cbody = (uint64_t)2 << 30;
    memcpy(cont, &cmagic, 4);
    memcpy(cont + 4, &cver, 2);
    memcpy(cont + 6, &chdr, 2);
    memcpy(cont + 8, &cbody, 8);
    EXPECT("ModuleLoadData container claiming 2 GiB", cuModuleLoadData(&mod, cont),
           CUDA_ERROR_INVALID_IMAGE);
    EXPECT("ModuleLoadData 0x1234", cuModuleLoadData(&mod, (const void *)0x1234),
           CUDA_ERROR_INVALID_VALUE);
    // PTX text that runs into unmapped memory without a NUL
    char *page = (char *)mmap(NULL, 8192, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
                              -1, 0);
    munmap(page + 4096, 4096);
    memset(page, 'a', 4096);
    EXPECT("ModuleLoadData unterminated text", cuModuleLoadData(&mod, page),
           CUDA_ERROR_INVALID_IMAGE);

    // the device still works
    char *ptx = argc > 1 ? read_file(argv[1]) : NULL;
    if (ptx != NULL) {
        EXPECT("load PTX", cuModuleLoadData(&mod, ptx), CUDA_SUCCESS);
        EXPECT("get function", cuModuleGetFunction(&fn, mod, "scale"), CUDA_SUCCESS);
        float a[16];
        for (int i = 0; i < 16; i++)
            a[i] = (float)i;
        EXPECT("HtoD", cuMemcpyHtoD(d64, a, sizeof a), CUDA_SUCCESS);
        float factor = 2.0f;
        int n = 16;
        void *params[] = {&d64, &factor, &n};
        EXPECT("launch", cuLaunchKernel(fn, 1, 1, 1, 16, 1, 1, 0, 0, params, NULL), CUDA_SUCCESS);
        EXPECT("sync", cuCtxSynchronize(), CUDA_SUCCESS);
        EXPECT("DtoH", cuMemcpyDtoH(a, d64, sizeof a), CUDA_SUCCESS);
        printf("%s kernel result\n", a[3] == 6.0f && a[15] == 30.0f ? "PASS" : "FAIL");
        failures += !(a[3] == 6.0f && a[15] == 30.0f);
        EXPECT("unload", cuModuleUnload(mod), CUDA_SUCCESS);
        EXPECT("GetFunction after unload", cuModuleGetFunction(&fn, mod, "scale"),
               CUDA_ERROR_INVALID_HANDLE);
    }
    EXPECT("free 64", cuMemFree(d64), CUDA_SUCCESS);
    EXPECT("free 4k", cuMemFree(d4k), CUDA_SUCCESS);
    printf("%s: %d failure(s)\n", failures ? "FAILED" : "ALL PASSED", failures);
    return failures != 0;
}
