/* Allocation kinds, copies of every shape, memsets, pointer attributes, bad frees. */
#include <stdint.h>
#include <string.h>

#include "check.h"

static const char *type_name(int t)
{
    switch (t) {
    case hipMemoryTypeUnregistered: return "unregistered";
    case hipMemoryTypeHost: return "host";
    case hipMemoryTypeDevice: return "device";
    case hipMemoryTypeManaged: return "managed";
    default: return "other";
    }
}

static void attrs(const char *label, const void *p)
{
    hipPointerAttribute_t a;
    hipError_t e = hipPointerGetAttributes(&a, p);
    if (e != hipSuccess) {
        printf("attrs.%s=%s\n", label, hipGetErrorName(e));
        return;
    }
    printf("attrs.%s=%s,dev=%d,devptr_same=%d,hostptr_same=%d,managed=%d\n", label,
           type_name(a.type), a.device, a.devicePointer == p, a.hostPointer == p, a.isManaged);
}

int main(void)
{
    /* device memory, alignment, 1D copies of every kind */
    enum { N = 1000 };
    int host[N], back[N];
    for (int i = 0; i < N; i++)
        host[i] = i * 7 - 3;
    int *d = NULL, *d2 = NULL;
    CHECK(hipMalloc((void **)&d, N * sizeof(int)));
    CHECK(hipMalloc((void **)&d2, 3));
    printf("align256=%d\n", ((uintptr_t)d % 256 == 0) && ((uintptr_t)d2 % 256 == 0));
    CHECK(hipFree(d2));
    CHECK(hipMemcpy(d, host, sizeof host, hipMemcpyHostToDevice));
    int *e = NULL;
    CHECK(hipMalloc((void **)&e, N * sizeof(int)));
    CHECK(hipMemcpy(e, d, sizeof host, hipMemcpyDeviceToDevice));
    memset(back, 0, sizeof back);
    CHECK(hipMemcpy(back, e, sizeof host, hipMemcpyDefault));
    printf("memcpy_roundtrip=%d\n", memcmp(host, back, sizeof host) == 0);
    CHECK(hipMemcpyHtoD(e, host + 1, 4 * sizeof(int)));
    CHECK(hipMemcpyDtoD(d, e, 4 * sizeof(int)));
    CHECK(hipMemcpyDtoH(back, d, 4 * sizeof(int)));
    printf("htod_dtod_dtoh=%d,%d,%d,%d\n", back[0], back[1], back[2], back[3]);
    SHOW("memcpy_bad_kind", hipMemcpy(back, d, 4, (hipMemcpyKind)7));
    SHOW("memcpy_null", hipMemcpy(NULL, d, 4, hipMemcpyDeviceToHost));
    SHOW("memcpy_zero", hipMemcpy(NULL, NULL, 0, hipMemcpyDeviceToHost));

    /* memsets of each width */
    CHECK(hipMemset(d, 0xab, N * sizeof(int)));
    CHECK(hipMemcpy(back, d, 8, hipMemcpyDeviceToHost));
    printf("memset8=%08x\n", (unsigned)back[0]);
    CHECK(hipMemsetD16(d, 0x1234, 3));
    CHECK(hipMemcpy(back, d, 8, hipMemcpyDeviceToHost));
    printf("memsetd16=%08x,%08x\n", (unsigned)back[0], (unsigned)back[1]);
    CHECK(hipMemsetD32(d, -2, 2));
    CHECK(hipMemsetD8(e, 0x11, 5));
    CHECK(hipMemcpy(back, d, 12, hipMemcpyDeviceToHost));
    printf("memsetd32=%d,%d,%08x\n", back[0], back[1], (unsigned)back[2]);
    CHECK(hipMemcpy(back, e, 8, hipMemcpyDeviceToHost));
    printf("memsetd8=%08x,%08x\n", (unsigned)back[0], (unsigned)back[1]);
    hipStream_t s;
    CHECK(hipStreamCreate(&s));
    CHECK(hipMemsetAsync(d, 1, 4, s));
    CHECK(hipMemsetD32Async(d + 1, 77, 1, s));
    CHECK(hipMemsetD16Async(d + 2, 0xffff, 1, s));
    CHECK(hipMemsetD8Async(d + 3, 2, 1, s));
    CHECK(hipStreamSynchronize(s));
    CHECK(hipMemcpy(back, d, 16, hipMemcpyDeviceToHost));
    printf("memset_async=%08x,%d,%08x,%08x\n", (unsigned)back[0], back[1], (unsigned)back[2],
           (unsigned)back[3]);

    /* pitched 2D: copy a 5x3 sub-block of a 7-wide host matrix and back */
    char *pd = NULL;
    size_t pitch = 0;
    CHECK(hipMallocPitch((void **)&pd, &pitch, 5, 3));
    printf("pitch=%zu\n", pitch);
    char hm[3][7], hb[3][5];
    for (int r = 0; r < 3; r++)
        for (int c = 0; c < 7; c++)
            hm[r][c] = (char)(10 * r + c);
    CHECK(hipMemset2D(pd, pitch, 0, pitch, 3));
    CHECK(hipMemcpy2D(pd, pitch, &hm[0][1], 7, 5, 3, hipMemcpyHostToDevice));
    CHECK(hipMemcpy2DAsync(hb, 5, pd, pitch, 5, 3, hipMemcpyDeviceToHost, s));
    CHECK(hipStreamSynchronize(s));
    printf("copy2d=%d,%d,%d,%d\n", hb[0][0], hb[0][4], hb[2][0], hb[2][4]);
    SHOW("copy2d_bad_pitch", hipMemcpy2D(pd, 2, hm, 7, 5, 3, hipMemcpyHostToDevice));
    CHECK(hipMemset2D(pd + 1, pitch, 9, 2, 2));
    CHECK(hipMemcpy2D(hb, 5, pd, pitch, 5, 3, hipMemcpyDeviceToHost));
    printf("memset2d=%d,%d,%d,%d,%d\n", hb[0][0], hb[0][1], hb[0][2], hb[1][2], hb[2][1]);

    /* hipMemcpyParam2D: host -> device with offsets */
    hip_Memcpy2D p2 = {0};
    p2.srcMemoryType = hipMemoryTypeHost;
    p2.srcHost = hm;
    p2.srcPitch = 7;
    p2.srcXInBytes = 2;
    p2.srcY = 1;
    p2.dstMemoryType = hipMemoryTypeDevice;
    p2.dstDevice = pd;
    p2.dstPitch = pitch;
    p2.WidthInBytes = 3;
    p2.Height = 2;
    CHECK(hipMemcpyParam2D(&p2));
    CHECK(hipMemcpy2D(hb, 5, pd, pitch, 5, 3, hipMemcpyDeviceToHost));
    printf("param2d=%d,%d,%d,%d\n", hb[0][0], hb[0][2], hb[1][0], hb[1][2]);
    void *pd2 = NULL;
    size_t pitch2 = 0;
    CHECK(hipMemAllocPitch(&pd2, &pitch2, 100, 4, 4));
    printf("memallocpitch=%zu\n", pitch2);
    SHOW("memallocpitch_bad_elem", hipMemAllocPitch(&pd2, &pitch2, 100, 4, 3));

    /* 3D: a 4x3x2 box out of a 6x5x4 host volume into a pitched device volume */
    unsigned char vol[4][5][6], out[2][3][4];
    for (int z = 0; z < 4; z++)
        for (int y = 0; y < 5; y++)
            for (int x = 0; x < 6; x++)
                vol[z][y][x] = (unsigned char)(100 * z + 10 * y + x);
    hipPitchedPtr dv;
    CHECK(hipMalloc3D(&dv, (hipExtent){4, 3, 2}));
    hipMemcpy3DParms c3 = {0};
    c3.srcPtr = (hipPitchedPtr){vol, 6, 6, 5};
    c3.srcPos = (hipPos){1, 2, 1};
    c3.dstPtr = dv;
    c3.extent = (hipExtent){4, 3, 2};
    c3.kind = hipMemcpyHostToDevice;
    CHECK(hipMemcpy3D(&c3));
    hipMemcpy3DParms b3 = {0};
    b3.srcPtr = dv;
    b3.dstPtr = (hipPitchedPtr){out, 4, 4, 3};
    b3.extent = (hipExtent){4, 3, 2};
    b3.kind = hipMemcpyDeviceToHost;
    CHECK(hipMemcpy3DAsync(&b3, s));
    CHECK(hipStreamSynchronize(s));
    printf("copy3d=%d,%d,%d\n", out[0][0][0], out[1][2][3], out[1][0][1]);
    CHECK(hipMemset3D(dv, 5, (hipExtent){2, 1, 2}));
    CHECK(hipMemcpy3D(&b3));
    printf("memset3d=%d,%d,%d\n", out[0][0][0], out[1][0][1], out[1][0][2]);

    /* host, managed, registered memory and pointer attributes */
    void *h = NULL, *m = NULL, *dp = NULL;
    CHECK(hipHostMalloc(&h, 1000, hipHostMallocDefault));
    CHECK(hipMallocManaged(&m, 1000, hipMemAttachGlobal));
    static char user[4096];
    CHECK(hipHostRegister(user, sizeof user, hipHostRegisterDefault));
    SHOW("register_twice", hipHostRegister(user + 8, 16, 0));
    CHECK(hipHostGetDevicePointer(&dp, user + 10, 0));
    printf("host_dev_ptr_same=%d\n", dp == user + 10);
    SHOW("host_dev_ptr_unknown", hipHostGetDevicePointer(&dp, back, 0));
    unsigned hflags = 0;
    CHECK(hipHostGetFlags(&hflags, h));
    printf("hostmalloc_mapped=%d\n", (hflags & hipHostMallocMapped) != 0);
    attrs("device", d);
    attrs("device_interior", (char *)d + 100);
    attrs("host", h);
    attrs("managed", m);
    attrs("registered", user + 5);
    attrs("stack", back);
    attrs("null", NULL);
    unsigned mt = 0;
    CHECK(hipPointerGetAttribute(&mt, HIP_POINTER_ATTRIBUTE_MEMORY_TYPE, d));
    printf("attr.memtype=%s\n", type_name((int)mt));
    void *start = NULL;
    size_t range = 0;
    CHECK(hipPointerGetAttribute(&start, HIP_POINTER_ATTRIBUTE_RANGE_START_ADDR, (char *)e + 17));
    CHECK(hipPointerGetAttribute(&range, HIP_POINTER_ATTRIBUTE_RANGE_SIZE, (char *)e + 17));
    printf("attr.range=%d,%zu\n", start == (void *)e, range);
    int managed = -1;
    CHECK(hipPointerGetAttribute(&managed, HIP_POINTER_ATTRIBUTE_IS_MANAGED, m));
    printf("attr.is_managed=%d\n", managed);
    SHOW("attr.unknown_ptr", hipPointerGetAttribute(&start, HIP_POINTER_ATTRIBUTE_RANGE_START_ADDR, back));
    void *base = NULL;
    size_t size = 0;
    CHECK(hipMemGetAddressRange(&base, &size, (char *)d + 999));
    printf("addr_range=%d,%zu\n", base == (void *)d, size);
    SHOW("addr_range_unknown", hipMemGetAddressRange(&base, &size, back));
    CHECK(hipMemGetAddressRange(&base, &size, (char *)h + 10));
    printf("addr_range_host=%d,%zu\n", base == h, size);

    /* frees: foreign, twice, wrong kind; impossible sizes */
    SHOW("free_null", hipFree(NULL));
    SHOW("free_stack", hipFree(back));
    SHOW("free_interior", hipFree((char *)d + 4));
    SHOW("free_host_with_hipFree", hipFree(h));
    SHOW("hostfree_device", hipHostFree(d));
    SHOW("free_ok", hipFree(e));
    SHOW("free_twice", hipFree(e));
    SHOW("hostfree_ok", hipHostFree(h));
    SHOW("free_managed", hipFree(m));
    SHOW("unregister_ok", hipHostUnregister(user));
    SHOW("unregister_twice", hipHostUnregister(user));
    void *huge = (void *)1;
    SHOW("malloc_huge", hipMalloc(&huge, (size_t)1 << 60));
    printf("malloc_huge_null=%d\n", huge == NULL);
    SHOW("hostmalloc_huge", hipHostMalloc(&huge, (size_t)1 << 60, 0));
    SHOW("malloc_zero", hipMalloc(&huge, 0));
    printf("malloc_zero_null=%d\n", huge == NULL);
    SHOW("malloc_null_out", hipMalloc(NULL, 16));
    SHOW("managed_bad_flags", hipMallocManaged(&huge, 16, 0));
    /* stream-ordered allocation, managed-memory hints, driver-style 3D copy */
    hipStream_t as;
    CHECK(hipStreamCreate(&as));
    int *ad = NULL;
    CHECK(hipMallocAsync((void **)&ad, 64, as));
    CHECK(hipMemsetD32Async(ad, 42, 16, as));
    int got[16] = {0};
    CHECK(hipMemcpyAsync(got, ad, sizeof got, hipMemcpyDeviceToHost, as));
    CHECK(hipFreeAsync(ad, as));
    CHECK(hipStreamSynchronize(as));
    printf("malloc_async=%d,%d\n", got[0], got[15]);
    SHOW("free_async_gone", hipFree(ad));
    SHOW("free_async_foreign", hipFreeAsync(back, as));
    void *mm = NULL;
    CHECK(hipMallocManaged(&mm, 4096, hipMemAttachGlobal));
    SHOW("prefetch", hipMemPrefetchAsync(mm, 4096, 0, as));
    SHOW("prefetch_cpu", hipMemPrefetchAsync(mm, 100, hipCpuDeviceId, as));
    SHOW("prefetch_too_long", hipMemPrefetchAsync(mm, 8192, 0, as));
    SHOW("prefetch_unknown", hipMemPrefetchAsync(back, 4, 0, as));
    SHOW("advise", hipMemAdvise(mm, 4096, hipMemAdviseSetReadMostly, 0));
    SHOW("advise_bad", hipMemAdvise(mm, 4096, (hipMemoryAdvise)77, 0));
    SHOW("attach", hipStreamAttachMemAsync(as, mm, 4096, hipMemAttachSingle));
    size_t info = 0;
    CHECK(hipMemPtrGetInfo(mm, &info));
    printf("ptr_info=%zu\n", info);
    hipPointer_attribute which[3] = {HIP_POINTER_ATTRIBUTE_MEMORY_TYPE,
                                     HIP_POINTER_ATTRIBUTE_IS_MANAGED,
                                     HIP_POINTER_ATTRIBUTE_RANGE_SIZE};
    unsigned dtype = 0;
    int dmanaged = 0;
    size_t dsize = 0;
    void *slots[3] = {&dtype, &dmanaged, &dsize};
    CHECK(hipDrvPointerGetAttributes(3, which, slots, (char *)mm + 8));
    printf("drv_attrs=%s,%d,%zu\n", type_name((int)dtype), dmanaged, dsize);
    unsigned char dvol[2][3][8];
    memset(dvol, 0, sizeof dvol);
    HIP_MEMCPY3D d3 = {0};
    d3.srcMemoryType = hipMemoryTypeHost;
    d3.srcHost = vol;
    d3.srcPitch = 6;
    d3.srcHeight = 5;
    d3.srcXInBytes = 2;
    d3.srcY = 1;
    d3.srcZ = 2;
    d3.dstMemoryType = hipMemoryTypeUnified;
    d3.dstDevice = mm;
    d3.dstPitch = 8;
    d3.dstHeight = 3;
    d3.WidthInBytes = 3;
    d3.Height = 3;
    d3.Depth = 2;
    CHECK(hipDrvMemcpy3DAsync(&d3, as));
    CHECK(hipStreamSynchronize(as));
    memcpy(dvol, mm, sizeof dvol);
    printf("drv_copy3d=%d,%d,%d\n", dvol[0][0][0], dvol[1][2][2], dvol[0][1][3]);
    CHECK(hipFree(mm));
    CHECK(hipStreamDestroy(as));

    size_t fr = 0, tot = 0;
    CHECK(hipMemGetInfo(&fr, &tot));
    printf("meminfo=%d\n", fr > 0 && fr <= tot);
    CHECK(hipFree(d));
    CHECK(hipFree(pd));
    CHECK(hipFree(pd2));
    CHECK(hipFree(dv.ptr));
    CHECK(hipStreamDestroy(s));
    return 0;
}
