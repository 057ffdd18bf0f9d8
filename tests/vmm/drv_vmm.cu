// Virtual memory management through the driver API, as ggml's and PyTorch's memory pools use
// it: reserve address space, create physical memory, map it (one allocation at two
// addresses, and a second allocation abutting the first), grant access, then write through
// one address with cuMemcpyHtoD and a kernel and read through both; export the allocation
// as a POSIX fd and import it again; and the mistakes, each with the code NVIDIA documents.
// argv[1]: a PTX file with a kernel "scale(float *p, float f, int n)".
#include <cuda.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <unistd.h>

#include "../include/driver_check.h"

#define TRUE(name, cond)                                                                \
    do {                                                                                \
        bool c_ = (cond);                                                               \
        printf("%s %s\n", c_ ? "PASS" : "FAIL", name);                                  \
        failures += !c_;                                                                \
    } while (0)

int main(int argc, char **argv)
{
    if (argc < 2)
        return 2;
    CUdevice dev;
    CUcontext ctx;
    EXPECT("init", cuInit(0), CUDA_SUCCESS);
    EXPECT("device", cuDeviceGet(&dev, 0), CUDA_SUCCESS);
    EXPECT("primary retain", cuDevicePrimaryCtxRetain(&ctx, dev), CUDA_SUCCESS);
    EXPECT("set current", cuCtxSetCurrent(ctx), CUDA_SUCCESS);
    int vmm = 0, posix = 0;
    cuDeviceGetAttribute(&vmm, CU_DEVICE_ATTRIBUTE_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED, dev);
    cuDeviceGetAttribute(&posix, CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR_SUPPORTED,
                         dev);
    TRUE("attribute VMM supported", vmm == 1);
    TRUE("attribute POSIX fd supported", posix == 1);

    CUmemAllocationProp prop = {};
    prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
    prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    prop.location.id = dev;
    prop.requestedHandleTypes = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR;
    size_t g = 0;
    EXPECT("granularity",
           cuMemGetAllocationGranularity(&g, &prop, CU_MEM_ALLOC_GRANULARITY_RECOMMENDED),
           CUDA_SUCCESS);
    TRUE("granularity is a power of two", g != 0 && (g & (g - 1)) == 0);

    CUdeviceptr va, va2;
    EXPECT("reserve 4 granules", cuMemAddressReserve(&va, 4 * g, 0, 0, 0), CUDA_SUCCESS);
    EXPECT("reserve 2 granules aligned 8", cuMemAddressReserve(&va2, 2 * g, 8 * g, 0, 0),
           CUDA_SUCCESS);
    TRUE("reservation aligned", va2 % (8 * g) == 0);
    CUmemGenericAllocationHandle mem, mem2;
    EXPECT("create 2 granules", cuMemCreate(&mem, 2 * g, &prop, 0), CUDA_SUCCESS);
    CUmemAllocationProp plain = prop;
    plain.requestedHandleTypes = CU_MEM_HANDLE_TYPE_NONE;
    EXPECT("create 1 granule", cuMemCreate(&mem2, g, &plain, 0), CUDA_SUCCESS);
    EXPECT("map at va", cuMemMap(va, 2 * g, 0, mem, 0), CUDA_SUCCESS);
    EXPECT("map same at va2", cuMemMap(va2, 2 * g, 0, mem, 0), CUDA_SUCCESS);
    EXPECT("map second abutting", cuMemMap(va + 2 * g, g, 0, mem2, 0), CUDA_SUCCESS);

    size_t n = 2 * g / sizeof(float);
    float *host = (float *)malloc(2 * g), *back = (float *)malloc(2 * g);
    for (size_t i = 0; i < n; i++)
        host[i] = (float)(i % 1000);
    EXPECT("copy before access is granted", cuMemcpyHtoD(va, host, 64), CUDA_ERROR_INVALID_VALUE);
    CUmemAccessDesc acc = {};
    acc.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    acc.location.id = dev;
    acc.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
    EXPECT("set access va (both mappings)", cuMemSetAccess(va, 3 * g, &acc, 1), CUDA_SUCCESS);
    EXPECT("set access va2", cuMemSetAccess(va2, 2 * g, &acc, 1), CUDA_SUCCESS);
    unsigned long long flags = 0;
    EXPECT("get access", cuMemGetAccess(&flags, &acc.location, va2 + 12345), CUDA_SUCCESS);
    TRUE("access is read-write", flags == CU_MEM_ACCESS_FLAGS_PROT_READWRITE);

    // write through va, scale through va2 with a kernel, read through both
    EXPECT("HtoD through va", cuMemcpyHtoD(va, host, 2 * g), CUDA_SUCCESS);
    char *ptx = read_file(argv[1]);
    CUmodule mod;
    CUfunction fn;
    EXPECT("load module", cuModuleLoadData(&mod, ptx), CUDA_SUCCESS);
    EXPECT("get function", cuModuleGetFunction(&fn, mod, "scale"), CUDA_SUCCESS);
    float f = 3.0f;
    int ni = (int)n;
    void *params[] = {&va2, &f, &ni};
    EXPECT("kernel through va2",
           cuLaunchKernel(fn, (unsigned)((n + 255) / 256), 1, 1, 256, 1, 1, 0, 0, params, NULL),
           CUDA_SUCCESS);
    EXPECT("sync", cuCtxSynchronize(), CUDA_SUCCESS);
    int bad = 0;
    EXPECT("DtoH through va", cuMemcpyDtoH(back, va, 2 * g), CUDA_SUCCESS);
    for (size_t i = 0; i < n; i++)
        bad += back[i] != 3.0f * host[i];
    TRUE("va sees the kernel's writes through va2", bad == 0);
    memset(back, 0, 2 * g);
    EXPECT("DtoH through va2", cuMemcpyDtoH(back, va2, 2 * g), CUDA_SUCCESS);
    bad = 0;
    for (size_t i = 0; i < n; i++)
        bad += back[i] != 3.0f * host[i];
    TRUE("va2 sees the copy's writes through va", bad == 0);
    EXPECT("memset through va2", cuMemsetD32(va2 + 4, 0x40490fdb, 1), CUDA_SUCCESS);
    float one = 0;
    EXPECT("read it through va", cuMemcpyDtoH(&one, va + 4, 4), CUDA_SUCCESS);
    TRUE("memset aliases", one > 3.14f && one < 3.15f);
    // a copy across the boundary of two abutting mappings (a pool grown chunk by chunk)
    EXPECT("copy across abutting mappings", cuMemcpyHtoD(va + 2 * g - 8, host, 16),
           CUDA_SUCCESS);
    EXPECT("copy past the last mapping", cuMemcpyHtoD(va + 3 * g - 8, host, 16),
           CUDA_ERROR_INVALID_VALUE);
    unsigned mtype = 0;
    EXPECT("pointer attribute", cuPointerGetAttribute(&mtype, CU_POINTER_ATTRIBUTE_MEMORY_TYPE,
                                                      va2 + 100), CUDA_SUCCESS);
    TRUE("mapped memory is device memory", mtype == CU_MEMORYTYPE_DEVICE);

    // handles from addresses, properties, export and import
    CUmemGenericAllocationHandle again;
    EXPECT("retain from address", cuMemRetainAllocationHandle(&again, (void *)(va2 + 100)),
           CUDA_SUCCESS);
    TRUE("retained handle is the allocation", again == mem);
    EXPECT("release retained", cuMemRelease(again), CUDA_SUCCESS);
    CUmemAllocationProp got = {};
    EXPECT("properties", cuMemGetAllocationPropertiesFromHandle(&got, mem), CUDA_SUCCESS);
    TRUE("properties match", got.type == CU_MEM_ALLOCATION_TYPE_PINNED &&
                                 got.location.type == CU_MEM_LOCATION_TYPE_DEVICE &&
                                 got.location.id == dev &&
                                 got.requestedHandleTypes ==
                                     CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR);
    int fd = -1;
    EXPECT("export fd", cuMemExportToShareableHandle(&fd, mem,
                                                     CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0),
           CUDA_SUCCESS);
    TRUE("fd is open", fd >= 0 && fcntl(fd, F_GETFD) != -1);
    int fd2 = -1;
    EXPECT("export unshareable", cuMemExportToShareableHandle(
                                     &fd2, mem2, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0),
           CUDA_ERROR_INVALID_VALUE);
    CUmemGenericAllocationHandle imported;
    EXPECT("import fd", cuMemImportFromShareableHandle(&imported, (void *)(uintptr_t)fd,
                                                       CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR),
           CUDA_SUCCESS);
    close(fd);
    CUdeviceptr va3;
    EXPECT("reserve for import", cuMemAddressReserve(&va3, 2 * g, 0, 0, 0), CUDA_SUCCESS);
    EXPECT("map imported", cuMemMap(va3, 2 * g, 0, imported, 0), CUDA_SUCCESS);
    EXPECT("access imported", cuMemSetAccess(va3, 2 * g, &acc, 1), CUDA_SUCCESS);
    EXPECT("read imported", cuMemcpyDtoH(&one, va3 + 4, 4), CUDA_SUCCESS);
    TRUE("import aliases", one > 3.14f && one < 3.15f);
    EXPECT("unmap imported", cuMemUnmap(va3, 2 * g), CUDA_SUCCESS);
    EXPECT("release imported", cuMemRelease(imported), CUDA_SUCCESS);
    EXPECT("free va3", cuMemAddressFree(va3, 2 * g), CUDA_SUCCESS);

    // mistakes
    CUmemGenericAllocationHandle junk;
    EXPECT("create unaligned size", cuMemCreate(&junk, g + 4096, &prop, 0),
           CUDA_ERROR_INVALID_VALUE);
    EXPECT("map into unreserved", cuMemMap((CUdeviceptr)0x200000, g, 0, mem, 0),
           CUDA_ERROR_INVALID_VALUE);
    EXPECT("map over a mapping", cuMemMap(va + g, g, 0, mem2, 0), CUDA_ERROR_INVALID_VALUE);
    EXPECT("map unaligned", cuMemMap(va + 3 * g + 4096, g, 0, mem2, 0),
           CUDA_ERROR_INVALID_VALUE);
    EXPECT("map past the allocation", cuMemMap(va + 3 * g, g, g, mem2, 0),
           CUDA_ERROR_INVALID_VALUE);
    EXPECT("map bad handle", cuMemMap(va + 3 * g, g, 0, (CUmemGenericAllocationHandle)0x1234, 0),
           CUDA_ERROR_INVALID_VALUE);
    EXPECT("unmap unmapped", cuMemUnmap(va + 3 * g, g), CUDA_ERROR_INVALID_VALUE);
    EXPECT("unmap part of a mapping", cuMemUnmap(va, g), CUDA_ERROR_INVALID_VALUE);
    EXPECT("release bad handle", cuMemRelease((CUmemGenericAllocationHandle)0x1234),
           CUDA_ERROR_INVALID_VALUE);
    EXPECT("properties bad handle",
           cuMemGetAllocationPropertiesFromHandle(&got, (CUmemGenericAllocationHandle)0x1234),
           CUDA_ERROR_INVALID_VALUE);
    EXPECT("retain unmapped address", cuMemRetainAllocationHandle(&again, (void *)(va + 3 * g)),
           CUDA_ERROR_INVALID_VALUE);
    EXPECT("get access unmapped", cuMemGetAccess(&flags, &acc.location, va + 3 * g),
           CUDA_ERROR_INVALID_VALUE);
    EXPECT("set access unmapped", cuMemSetAccess(va + 3 * g, g, &acc, 1),
           CUDA_ERROR_INVALID_VALUE);
    EXPECT("free wrong size", cuMemAddressFree(va, 2 * g), CUDA_ERROR_INVALID_VALUE);
    // growing a range in place: a reservation at the fixed address where the last one ends;
    // the two are then one range to map, grant, unmap and free (cuda.core's fast path)
    CUdeviceptr r1 = 0, r2 = 0;
    EXPECT("reserve r1", cuMemAddressReserve(&r1, g, 0, 0, 0), CUDA_SUCCESS);
    EXPECT("reserve r2 at r1's end", cuMemAddressReserve(&r2, g, 0, r1 + g, 0), CUDA_SUCCESS);
    TRUE("the hint is honoured", r2 == r1 + g);
    EXPECT("map across reservations", cuMemMap(r1, 2 * g, 0, mem, 0), CUDA_SUCCESS);
    EXPECT("access across reservations", cuMemSetAccess(r1, 2 * g, &acc, 1), CUDA_SUCCESS);
    EXPECT("read across reservations", cuMemcpyDtoH(&one, r1 + 4, 4), CUDA_SUCCESS);
    TRUE("the mapping is the allocation", one > 3.14f && one < 3.15f);
    CUdeviceptr taken;
    EXPECT("reserve at a taken address", cuMemAddressReserve(&taken, g, 0, r1, 0), CUDA_SUCCESS);
    TRUE("a taken hint is not honoured", taken != r1 && taken != r2);
    EXPECT("free the other", cuMemAddressFree(taken, g), CUDA_SUCCESS);
    EXPECT("unmap across reservations", cuMemUnmap(r1, 2 * g), CUDA_SUCCESS);
    EXPECT("map across again", cuMemMap(r1, 2 * g, 0, mem, 0), CUDA_SUCCESS);
    EXPECT("access across again", cuMemSetAccess(r1, 2 * g, &acc, 1), CUDA_SUCCESS);
    EXPECT("free the second reservation alone", cuMemAddressFree(r2, g), CUDA_SUCCESS);
    EXPECT("the mapping reaching into it went too", cuMemcpyDtoH(&one, r1 + 4, 4),
           CUDA_ERROR_INVALID_VALUE);
    EXPECT("reserve r2 again", cuMemAddressReserve(&r2, g, 0, r1 + g, 0), CUDA_SUCCESS);
    TRUE("the hint is honoured again", r2 == r1 + g);
    EXPECT("free part of a grown range", cuMemAddressFree(r1, 3 * g), CUDA_ERROR_INVALID_VALUE);
    EXPECT("free both reservations at once", cuMemAddressFree(r1, 2 * g), CUDA_SUCCESS);
    EXPECT("copy into reserved, unmapped", cuMemcpyHtoD(va + 3 * g, host, 16),
           CUDA_ERROR_INVALID_VALUE);

    // released while mapped: the memory lives until its last mapping goes
    EXPECT("release while mapped", cuMemRelease(mem), CUDA_SUCCESS);
    EXPECT("double release", cuMemRelease(mem), CUDA_ERROR_INVALID_VALUE);
    EXPECT("read after release", cuMemcpyDtoH(&one, va2 + 4, 4), CUDA_SUCCESS);
    TRUE("still the data", one > 3.14f && one < 3.15f);
    EXPECT("unmap va (two mappings at once)", cuMemUnmap(va, 3 * g), CUDA_SUCCESS);
    EXPECT("copy from unmapped va", cuMemcpyDtoH(&one, va, 4), CUDA_ERROR_INVALID_VALUE);
    EXPECT("read va2 after va unmapped", cuMemcpyDtoH(&one, va2 + 4, 4), CUDA_SUCCESS);
    EXPECT("unmap va2", cuMemUnmap(va2, 2 * g), CUDA_SUCCESS);
    EXPECT("map released handle", cuMemMap(va2, 2 * g, 0, mem, 0), CUDA_ERROR_INVALID_VALUE);
    EXPECT("release mem2", cuMemRelease(mem2), CUDA_SUCCESS);
    EXPECT("free va", cuMemAddressFree(va, 4 * g), CUDA_SUCCESS);
    EXPECT("free va2", cuMemAddressFree(va2, 2 * g), CUDA_SUCCESS);
    EXPECT("free va again", cuMemAddressFree(va, 4 * g), CUDA_ERROR_INVALID_VALUE);
    EXPECT("context still healthy", cuCtxSynchronize(), CUDA_SUCCESS);

    // a device reset drops every VMM object: mappings, reservations, handles
    CUmemGenericAllocationHandle last;
    EXPECT("create 4 granules", cuMemCreate(&last, 4 * g, &plain, 0), CUDA_SUCCESS);
    CUdeviceptr vr;
    EXPECT("reserve before reset", cuMemAddressReserve(&vr, 4 * g, 0, 0, 0), CUDA_SUCCESS);
    EXPECT("map before reset", cuMemMap(vr, 4 * g, 0, last, 0), CUDA_SUCCESS);
    EXPECT("access before reset", cuMemSetAccess(vr, 4 * g, &acc, 1), CUDA_SUCCESS);
    EXPECT("reset", cuDevicePrimaryCtxReset(dev), CUDA_SUCCESS);
    EXPECT("set current after reset", cuCtxSetCurrent(ctx), CUDA_SUCCESS);
    EXPECT("copy to a mapping the reset dropped", cuMemcpyHtoD(vr, host, 16),
           CUDA_ERROR_INVALID_VALUE);
    EXPECT("release after reset", cuMemRelease(last), CUDA_ERROR_INVALID_VALUE);
    EXPECT("free reservation after reset", cuMemAddressFree(vr, 4 * g), CUDA_ERROR_INVALID_VALUE);
    if (failures == 0)
        printf("ALL PASSED\n");
    return failures != 0;
}
