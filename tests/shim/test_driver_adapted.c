/*
 * Driver entry points that were NOT_SUPPORTED stubs behind mapped table rows, each through
 * the shim's libcuda.so.1 on the CPU device and checked by what it does: stream
 * attributes read back as set, a memset node's parameters read back, pool access flags
 * read back, the shared-memory bank size, and 3D peer copies (sync and async) of a pitched
 * region. Prints ok/FAIL lines; exit status 1 if any failed.
 */
#include <cuda.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "expect.h"

static void stream_attributes(void)
{
    CUstream s;
    EXPECT(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING) == CUDA_SUCCESS, "stream");
    static char base[8192];
    CUstreamAttrValue v, got;
    memset(&v, 0, sizeof v);
    v.accessPolicyWindow.base_ptr = base;
    v.accessPolicyWindow.num_bytes = sizeof base;
    v.accessPolicyWindow.hitRatio = 0.25f;
    v.accessPolicyWindow.hitProp = CU_ACCESS_PROPERTY_PERSISTING;
    v.accessPolicyWindow.missProp = CU_ACCESS_PROPERTY_STREAMING;
    EXPECT(cuStreamSetAttribute(s, CU_LAUNCH_ATTRIBUTE_ACCESS_POLICY_WINDOW, &v) == CUDA_SUCCESS,
           "set window");
    memset(&got, 0, sizeof got);
    EXPECT(cuStreamGetAttribute(s, CU_LAUNCH_ATTRIBUTE_ACCESS_POLICY_WINDOW, &got) == CUDA_SUCCESS &&
               got.accessPolicyWindow.base_ptr == base &&
               got.accessPolicyWindow.num_bytes == sizeof base &&
               got.accessPolicyWindow.hitRatio == 0.25f &&
               got.accessPolicyWindow.hitProp == CU_ACCESS_PROPERTY_PERSISTING &&
               got.accessPolicyWindow.missProp == CU_ACCESS_PROPERTY_STREAMING,
           "window reads back");
    memset(&v, 0, sizeof v);
    v.syncPolicy = CU_SYNC_POLICY_BLOCKING_SYNC;
    EXPECT(cuStreamSetAttribute(s, CU_LAUNCH_ATTRIBUTE_SYNCHRONIZATION_POLICY, &v) == CUDA_SUCCESS,
           "set sync policy");
    memset(&got, 0, sizeof got);
    EXPECT(cuStreamGetAttribute(s, CU_LAUNCH_ATTRIBUTE_SYNCHRONIZATION_POLICY, &got) == CUDA_SUCCESS &&
               got.syncPolicy == CU_SYNC_POLICY_BLOCKING_SYNC,
           "sync policy reads back (%d)", (int)got.syncPolicy);
    int lo = 0, hi = 0, p = 99;
    cuCtxGetStreamPriorityRange(&lo, &hi);
    memset(&v, 0, sizeof v);
    v.priority = hi;
    EXPECT(cuStreamSetAttribute(s, CU_LAUNCH_ATTRIBUTE_PRIORITY, &v) == CUDA_SUCCESS &&
               cuStreamGetPriority(s, &p) == CUDA_SUCCESS && p == hi,
           "priority attribute is the stream's priority (%d)", p);
    memset(&v, 0, sizeof v);
    v.accessPolicyWindow.hitRatio = 2.0f;
    EXPECT(cuStreamSetAttribute(s, CU_LAUNCH_ATTRIBUTE_ACCESS_POLICY_WINDOW, &v) ==
               CUDA_ERROR_INVALID_VALUE, "a hit ratio above 1 is refused");
    EXPECT(cuStreamGetAttribute(s, CU_LAUNCH_ATTRIBUTE_COOPERATIVE, &got) == CUDA_ERROR_INVALID_VALUE,
           "not a stream attribute");
    EXPECT(cuStreamSetAttribute(s, CU_LAUNCH_ATTRIBUTE_PRIORITY, NULL) == CUDA_ERROR_INVALID_VALUE,
           "NULL value");
    cuStreamDestroy(s);
}

static void memset_node(void)
{
    CUdeviceptr d;
    EXPECT(cuMemAlloc(&d, 4096) == CUDA_SUCCESS, "alloc");
    CUgraph g;
    CUgraphNode n, e;
    cuGraphCreate(&g, 0);
    CUDA_MEMSET_NODE_PARAMS m;
    memset(&m, 0, sizeof m);
    m.dst = d;
    m.pitch = 256;
    m.value = 0x5a;
    m.elementSize = 1;
    m.width = 100;
    m.height = 3;
    CUcontext ctx;
    cuCtxGetCurrent(&ctx);
    EXPECT(cuGraphAddMemsetNode(&n, g, NULL, 0, &m, ctx) == CUDA_SUCCESS, "memset node");
    CUDA_MEMSET_NODE_PARAMS back;
    memset(&back, 0, sizeof back);
    EXPECT(cuGraphMemsetNodeGetParams(n, &back) == CUDA_SUCCESS && back.dst == d &&
               back.pitch == 256 && back.value == 0x5a && back.elementSize == 1 &&
               back.width == 100 && back.height == 3,
           "memset node parameters read back");
    cuGraphAddEmptyNode(&e, g, NULL, 0);
    EXPECT(cuGraphMemsetNodeGetParams(e, &back) == CUDA_ERROR_INVALID_VALUE, "not a memset node");
    cuGraphDestroy(g);
    cuMemFree(d);
}

static void pool_access_and_banks(void)
{
    CUmemoryPool pool;
    CUmemPoolProps props;
    memset(&props, 0, sizeof props);
    props.allocType = CU_MEM_ALLOCATION_TYPE_PINNED;
    props.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    props.location.id = 0;
    EXPECT(cuMemPoolCreate(&pool, &props) == CUDA_SUCCESS, "pool");
    CUmemAccessDesc desc = {{CU_MEM_LOCATION_TYPE_DEVICE, 0}, CU_MEM_ACCESS_FLAGS_PROT_READWRITE};
    EXPECT(cuMemPoolSetAccess(pool, &desc, 1) == CUDA_SUCCESS, "set access");
    CUmemAccess_flags f = CU_MEM_ACCESS_FLAGS_PROT_NONE;
    CUmemLocation loc = {CU_MEM_LOCATION_TYPE_DEVICE, 0};
    EXPECT(cuMemPoolGetAccess(&f, pool, &loc) == CUDA_SUCCESS &&
               f == CU_MEM_ACCESS_FLAGS_PROT_READWRITE, "pool access reads back (%d)", (int)f);
    EXPECT(cuMemPoolGetAccess(NULL, pool, &loc) == CUDA_ERROR_INVALID_VALUE, "NULL flags");
    cuMemPoolDestroy(pool);
    CUsharedconfig c = CU_SHARED_MEM_CONFIG_EIGHT_BYTE_BANK_SIZE;
    /* deprecated in CUDA 13's header, still exported and still called */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
    EXPECT(cuCtxGetSharedMemConfig(&c) == CUDA_SUCCESS && c == CU_SHARED_MEM_CONFIG_FOUR_BYTE_BANK_SIZE,
           "four-byte banks (%d)", (int)c);
#pragma GCC diagnostic pop
}

static void peer_3d(CUcontext ctx)
{
    enum { PITCH = 64, ROWS = 4, SLICES = 2 };
    unsigned char host[PITCH * ROWS * SLICES], out[PITCH * ROWS * SLICES];
    for (unsigned i = 0; i < sizeof host; i++)
        host[i] = (unsigned char)(i * 7 + 3);
    CUdeviceptr a, b;
    cuMemAlloc(&a, sizeof host);
    cuMemAlloc(&b, sizeof host);
    cuMemcpyHtoD(a, host, sizeof host);
    cuMemsetD8(b, 0, sizeof host);
    CUDA_MEMCPY3D_PEER p;
    memset(&p, 0, sizeof p);
    p.srcMemoryType = p.dstMemoryType = CU_MEMORYTYPE_DEVICE;
    p.srcDevice = a;
    p.dstDevice = b;
    p.srcContext = p.dstContext = ctx;
    p.srcPitch = p.dstPitch = PITCH;
    p.srcHeight = p.dstHeight = ROWS;
    p.srcXInBytes = 8;   /* columns 8..39 of rows 1..3 of both slices, to column 16.. */
    p.srcY = 1;
    p.dstXInBytes = 16;
    p.dstY = 0;
    p.WidthInBytes = 32;
    p.Height = 3;
    p.Depth = SLICES;
    EXPECT(cuMemcpy3DPeer(&p) == CUDA_SUCCESS, "3D peer copy");
    cuMemcpyDtoH(out, b, sizeof out);
    int ok = 1;
    for (int z = 0; z < SLICES; z++)
        for (int y = 0; y < ROWS; y++)
            for (int x = 0; x < PITCH; x++) {
                int in = y < 3 && x >= 16 && x < 48;
                unsigned char want = in ? host[(z * ROWS + y + 1) * PITCH + x - 8] : 0;
                ok &= out[(z * ROWS + y) * PITCH + x] == want;
            }
    EXPECT(ok, "3D peer copy moved exactly the region");
    cuMemsetD8(b, 0, sizeof host);
    CUstream s;
    cuStreamCreate(&s, 0);
    EXPECT(cuMemcpy3DPeerAsync(&p, s) == CUDA_SUCCESS && cuStreamSynchronize(s) == CUDA_SUCCESS,
           "async 3D peer copy");
    unsigned char again[sizeof out];
    cuMemcpyDtoH(again, b, sizeof again);
    EXPECT(memcmp(again, out, sizeof out) == 0, "async copy equals the synchronous one");
    p.srcContext = NULL;
    EXPECT(cuMemcpy3DPeer(&p) == CUDA_ERROR_INVALID_CONTEXT, "NULL context refused");
    cuStreamDestroy(s);
    cuMemFree(a);
    cuMemFree(b);
}

int main(void)
{
    CUdevice dev;
    CUcontext ctx;
    if (cuInit(0) != CUDA_SUCCESS || cuDeviceGet(&dev, 0) != CUDA_SUCCESS ||
        cuDevicePrimaryCtxRetain(&ctx, dev) != CUDA_SUCCESS || cuCtxSetCurrent(ctx) != CUDA_SUCCESS) {
        printf("FAIL: no device\n");
        return 1;
    }
    stream_attributes();
    memset_node();
    pool_access_and_banks();
    peer_3d(ctx);
    printf("PASS: %d failure(s)\n", failures);
    return failures != 0;
}
