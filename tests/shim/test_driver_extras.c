/*
 * Driver calls cuda-python's own tests (cuda-bindings tests/test_cuda.py) make, through
 * the shim's libcuda.so.1 (linked with -lcuda): the polymorphic graph-node calls over the
 * typed node adders, copy/memset node parameters read back and replaced, the global
 * coredump settings, the SM resource of a device split into groups, memory pools made
 * from CUmemPoolProps, the pointer attributes cuda-bindings asks of managed memory, and
 * managed-memory advice read back as range attributes.
 * No kernels (no translator needed). Prints ok/FAIL lines; exit status 1 if any failed.
 */
#define _POSIX_C_SOURCE 200809L
#include <cuda.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "expect.h"

enum { N = 1024 };

static bool all_equal(const unsigned char *p, size_t n, unsigned char v)
{
    for (size_t i = 0; i < n; i++)
        if (p[i] != v)
            return false;
    return true;
}

static int host_hits[3];

static void CUDA_CB hit(void *which)
{
    host_hits[(intptr_t)which]++;
}

/* host nodes and copy nodes given new parameters, in the graph and in an exec */
static void host_and_copy_updates(CUstream stream)
{
    CUgraph graph;
    cuGraphCreate(&graph, 0);
    CUgraphNodeParams hp;
    memset(&hp, 0, sizeof hp);
    hp.type = CU_GRAPH_NODE_TYPE_HOST;
    hp.host.fn = hit;
    hp.host.userData = (void *)0;
    CUgraphNode host_node = NULL, copy_node = NULL;
    CUresult rc = cuGraphAddNode(&host_node, graph, NULL, NULL, 0, &hp);
    EXPECT(rc == CUDA_SUCCESS, "cuGraphAddNode(host) -> %d", rc);
    static unsigned char src1[64], src2[64], dst[64];
    memset(src1, 5, sizeof src1);
    memset(src2, 6, sizeof src2);
    CUgraphNodeParams cp;
    memset(&cp, 0, sizeof cp);
    cp.type = CU_GRAPH_NODE_TYPE_MEMCPY;
    cp.memcpy.copyParams.srcMemoryType = CU_MEMORYTYPE_HOST;
    cp.memcpy.copyParams.srcHost = src1;
    cp.memcpy.copyParams.dstMemoryType = CU_MEMORYTYPE_HOST;
    cp.memcpy.copyParams.dstHost = dst;
    cp.memcpy.copyParams.WidthInBytes = sizeof dst;
    cp.memcpy.copyParams.Height = 1;
    cp.memcpy.copyParams.Depth = 1;
    rc = cuGraphAddNode(&copy_node, graph, &host_node, NULL, 1, &cp);
    EXPECT(rc == CUDA_SUCCESS, "cuGraphAddNode(host-to-host memcpy) -> %d", rc);
    CUgraphExec exec;
    cuGraphInstantiate(&exec, graph, 0);
    hp.host.userData = (void *)1;
    rc = cuGraphNodeSetParams(host_node, &hp);
    EXPECT(rc == CUDA_SUCCESS, "cuGraphNodeSetParams(host) -> %d", rc);
    hp.host.userData = (void *)2;
    cp.memcpy.copyParams.srcHost = src2;
    CUresult rc2 = cuGraphExecNodeSetParams(exec, host_node, &hp);
    CUresult rc3 = cuGraphExecNodeSetParams(exec, copy_node, &cp);
    EXPECT(rc2 == CUDA_SUCCESS && rc3 == CUDA_SUCCESS,
           "cuGraphExecNodeSetParams(host, memcpy) -> %d, %d", rc2, rc3);
    cuGraphLaunch(exec, stream);
    cuStreamSynchronize(stream);
    EXPECT(host_hits[0] == 0 && host_hits[1] == 0 && host_hits[2] == 1 && dst[0] == 6,
           "the exec runs its new host function and copies the new source (%d %d %d, %d)",
           host_hits[0], host_hits[1], host_hits[2], dst[0]);
    CUgraphExec exec2;
    cuGraphInstantiate(&exec2, graph, 0);
    cuGraphLaunch(exec2, stream);
    cuStreamSynchronize(stream);
    EXPECT(host_hits[1] == 1 && dst[0] == 5,
           "an exec made after cuGraphNodeSetParams runs the graph's new host function, and "
           "the graph's own copy source (%d, %d)", host_hits[1], dst[0]);
    cuGraphExecDestroy(exec2);
    cuGraphExecDestroy(exec);
    cuGraphDestroy(graph);
}

static void graph_nodes(void)
{
    CUstream stream;
    CUdeviceptr a, b;
    static unsigned char host[N];
    EXPECT(cuStreamCreate(&stream, 0) == CUDA_SUCCESS, "cuStreamCreate");
    EXPECT(cuMemAlloc(&a, N) == CUDA_SUCCESS && cuMemAlloc(&b, N) == CUDA_SUCCESS,
           "cuMemAlloc x2");
    memset(host, 2, N);
    cuMemcpyHtoD(a, host, N);
    cuMemcpyHtoD(b, host, N);

    CUgraph graph;
    EXPECT(cuGraphCreate(&graph, 0) == CUDA_SUCCESS, "cuGraphCreate");
    CUgraphNodeParams ms;
    memset(&ms, 0, sizeof ms);
    ms.type = CU_GRAPH_NODE_TYPE_MEMSET;
    ms.memset.dst = a;
    ms.memset.elementSize = 1;
    ms.memset.width = N;
    ms.memset.height = 1;
    ms.memset.value = 1;
    CUgraphNode set_node = NULL, copy_node = NULL;
    CUresult rc = cuGraphAddNode(&set_node, graph, NULL, NULL, 0, &ms);
    EXPECT(rc == CUDA_SUCCESS && set_node != NULL, "cuGraphAddNode(memset) -> %d", rc);

    CUgraphNodeParams cp;
    memset(&cp, 0, sizeof cp);
    cp.type = CU_GRAPH_NODE_TYPE_MEMCPY;
    cp.memcpy.copyParams.srcMemoryType = CU_MEMORYTYPE_DEVICE;
    cp.memcpy.copyParams.srcDevice = b;
    cp.memcpy.copyParams.dstMemoryType = CU_MEMORYTYPE_HOST;
    cp.memcpy.copyParams.dstHost = host;
    cp.memcpy.copyParams.WidthInBytes = N;
    cp.memcpy.copyParams.Height = 1;
    cp.memcpy.copyParams.Depth = 1;
    CUgraphEdgeData edge;
    memset(&edge, 0, sizeof edge);
    rc = cuGraphAddNode(&copy_node, graph, &set_node, &edge, 1, &cp);
    EXPECT(rc == CUDA_SUCCESS && copy_node != NULL,
           "cuGraphAddNode(memcpy, a default edge) -> %d", rc);
    CUgraphNodeType type = CU_GRAPH_NODE_TYPE_EMPTY, type2 = CU_GRAPH_NODE_TYPE_EMPTY;
    EXPECT(cuGraphNodeGetType(copy_node, &type) == CUDA_SUCCESS &&
               cuGraphNodeGetType(set_node, &type2) == CUDA_SUCCESS &&
               type == CU_GRAPH_NODE_TYPE_MEMCPY && type2 == CU_GRAPH_NODE_TYPE_MEMSET,
           "cuGraphNodeGetType: memcpy and memset (%d, %d)", (int)type, (int)type2);
    EXPECT(cuGraphNodeGetType((CUgraphNode)&type, &type) == CUDA_ERROR_INVALID_VALUE,
           "cuGraphNodeGetType of something that is no node: INVALID_VALUE");

    CUgraphExec exec;
    EXPECT(cuGraphInstantiate(&exec, graph, 0) == CUDA_SUCCESS, "cuGraphInstantiate");
    memset(host, 0, N);
    EXPECT(cuGraphLaunch(exec, stream) == CUDA_SUCCESS &&
               cuStreamSynchronize(stream) == CUDA_SUCCESS,
           "cuGraphLaunch + sync");
    EXPECT(all_equal(host, N, 2), "the memcpy node copied b (2s) to the host");
    cuMemcpyDtoH(host, a, N);
    EXPECT(all_equal(host, N, 1), "the memset node filled a with 1s");

    CUDA_MEMCPY3D got;
    memset(&got, 0xff, sizeof got);
    rc = cuGraphMemcpyNodeGetParams(copy_node, &got);
    EXPECT(rc == CUDA_SUCCESS && got.srcDevice == b && got.dstHost == host &&
               got.srcMemoryType == CU_MEMORYTYPE_DEVICE &&
               got.dstMemoryType == CU_MEMORYTYPE_HOST && got.WidthInBytes == N,
           "cuGraphMemcpyNodeGetParams reads the descriptor back -> %d", rc);
    EXPECT(cuGraphMemcpyNodeGetParams(set_node, &got) == CUDA_ERROR_INVALID_VALUE,
           "cuGraphMemcpyNodeGetParams of a memset node: INVALID_VALUE");

    /* the graph's copy node now reads a; the exec made before keeps reading b */
    cp.memcpy.copyParams.srcDevice = a;
    rc = cuGraphNodeSetParams(copy_node, &cp);
    EXPECT(rc == CUDA_SUCCESS, "cuGraphNodeSetParams(memcpy) -> %d", rc);
    EXPECT(cuGraphMemcpyNodeGetParams(copy_node, &got) == CUDA_SUCCESS && got.srcDevice == a,
           "the node's new source reads back");

    ms.memset.value = 11;
    rc = cuGraphExecNodeSetParams(exec, set_node, &ms);
    EXPECT(rc == CUDA_SUCCESS, "cuGraphExecNodeSetParams(memset) -> %d", rc);
    memset(host, 0, N);
    cuGraphLaunch(exec, stream);
    cuStreamSynchronize(stream);
    EXPECT(all_equal(host, N, 2), "the exec's copy node still copies b");
    cuMemcpyDtoH(host, a, N);
    EXPECT(all_equal(host, N, 11), "the exec's memset node now fills with 11");

    CUgraphExec exec2;
    memset(host, 0, N);
    EXPECT(cuGraphInstantiate(&exec2, graph, 0) == CUDA_SUCCESS &&
               cuGraphLaunch(exec2, stream) == CUDA_SUCCESS &&
               cuStreamSynchronize(stream) == CUDA_SUCCESS,
           "a second instantiation runs");
    EXPECT(all_equal(host, N, 1), "it copies a (the graph's memset still fills 1s)");

    /* a wrong type and the types without a typed equivalent are refused */
    EXPECT(cuGraphExecNodeSetParams(exec, copy_node, &ms) == CUDA_ERROR_INVALID_VALUE,
           "cuGraphExecNodeSetParams(memset params on a memcpy node): INVALID_VALUE");
    CUgraphNodeParams cond;
    memset(&cond, 0, sizeof cond);
    cond.type = CU_GRAPH_NODE_TYPE_CONDITIONAL;
    CUgraphNode n3;
    EXPECT(cuGraphAddNode(&n3, graph, NULL, NULL, 0, &cond) == CUDA_ERROR_NOT_SUPPORTED,
           "cuGraphAddNode(conditional): NOT_SUPPORTED");
    EXPECT(cuGraphAddNode(&n3, graph, NULL, NULL, 0, NULL) == CUDA_ERROR_INVALID_VALUE,
           "cuGraphAddNode(NULL params): INVALID_VALUE");
    CUgraphNodeParams empty;
    memset(&empty, 0, sizeof empty);
    empty.type = CU_GRAPH_NODE_TYPE_EMPTY;
    size_t count = 0;
    EXPECT(cuGraphAddNode(&n3, graph, NULL, NULL, 0, &empty) == CUDA_SUCCESS &&
               cuGraphGetNodes(graph, NULL, &count) == CUDA_SUCCESS && count == 3,
           "cuGraphAddNode(empty) adds a third node (%zu)", count);
    EXPECT(cuGraphNodeGetType(n3, &type) == CUDA_SUCCESS && type == CU_GRAPH_NODE_TYPE_EMPTY,
           "... of type empty (%d)", (int)type);

    /* cuGraphExecUpdate: same node types in the same order is an update, even when a copy
     * becomes empty; another type in a node's place is not */
    CUgraph g2, g3;
    CUgraphNode a2, b2, a3, b3;
    cuGraphCreate(&g2, 0);
    cuGraphCreate(&g3, 0);
    CUgraphNodeParams cp0 = cp;
    cp0.memcpy.copyParams.WidthInBytes = 0;
    cuGraphAddNode(&a2, g2, NULL, NULL, 0, &ms);
    cuGraphAddNode(&b2, g2, &a2, NULL, 1, &cp0);
    cuGraphAddNode(&a3, g3, NULL, NULL, 0, &cp);
    cuGraphAddNode(&b3, g3, &a3, NULL, 1, &ms);
    CUgraphExecUpdateResultInfo info;
    memset(&info, 0, sizeof info);
    rc = cuGraphExecUpdate(exec2, g2, &info);
    EXPECT(rc == CUDA_SUCCESS && info.result == CU_GRAPH_EXEC_UPDATE_SUCCESS,
           "cuGraphExecUpdate from a graph whose copy is empty: an update -> %d", rc);
    rc = cuGraphExecUpdate(exec2, g3, &info);
    EXPECT(rc != CUDA_SUCCESS && info.result == CU_GRAPH_EXEC_UPDATE_ERROR_NODE_TYPE_CHANGED,
           "cuGraphExecUpdate with a copy where a memset was: NODE_TYPE_CHANGED (%d)",
           (int)info.result);
    cuGraphDestroy(g2);
    cuGraphDestroy(g3);

    cuGraphExecDestroy(exec2);
    cuGraphExecDestroy(exec);
    cuGraphDestroy(graph);
    host_and_copy_updates(stream);
    cuMemFree(a);
    cuMemFree(b);
    cuStreamDestroy(stream);
}

static void coredump(void)
{
    bool flag = true;
    size_t size = sizeof flag;
    char path[1024];
    EXPECT(cuCoredumpGetAttributeGlobal(CU_COREDUMP_ENABLE_ON_EXCEPTION, &flag, &size) ==
                   CUDA_SUCCESS &&
               !flag,
           "ENABLE_ON_EXCEPTION defaults to false");
    size = sizeof flag;
    EXPECT(cuCoredumpGetAttributeGlobal(CU_COREDUMP_TRIGGER_HOST, &flag, &size) ==
                   CUDA_SUCCESS &&
               flag,
           "TRIGGER_HOST defaults to true");
    size = sizeof path;
    char want[512];
    snprintf(want, sizeof want, "core.cuda.");
    EXPECT(cuCoredumpGetAttributeGlobal(CU_COREDUMP_FILE, path, &size) == CUDA_SUCCESS &&
               strncmp(path, want, strlen(want)) == 0,
           "FILE defaults to core.cuda.HOSTNAME.PID (%s)", path);
    size = 0;
    EXPECT(cuCoredumpGetAttributeGlobal(CU_COREDUMP_PIPE, NULL, &size) == CUDA_SUCCESS &&
               size == 1024,
           "a NULL value asks the size (%zu)", size);

    flag = false;
    size = sizeof flag;
    EXPECT(cuCoredumpSetAttributeGlobal(CU_COREDUMP_TRIGGER_HOST, &flag, &size) ==
               CUDA_SUCCESS,
           "set TRIGGER_HOST false");
    char file[] = "corefile";
    size = strlen(file);
    EXPECT(cuCoredumpSetAttributeGlobal(CU_COREDUMP_FILE, file, &size) == CUDA_SUCCESS,
           "set FILE");
    flag = true;
    size = sizeof flag;
    EXPECT(cuCoredumpGetAttributeGlobal(CU_COREDUMP_TRIGGER_HOST, &flag, &size) ==
                   CUDA_SUCCESS &&
               !flag,
           "TRIGGER_HOST reads back false");
    size = sizeof path;
    EXPECT(cuCoredumpGetAttributeGlobal(CU_COREDUMP_FILE, path, &size) == CUDA_SUCCESS &&
               strcmp(path, "corefile") == 0,
           "FILE reads back (%s)", path);
    size = 4;
    EXPECT(cuCoredumpGetAttributeGlobal(CU_COREDUMP_FILE, path, &size) ==
               CUDA_ERROR_INVALID_VALUE,
           "a buffer too small for the string: INVALID_VALUE");
    size = sizeof flag;
    EXPECT(cuCoredumpGetAttributeGlobal(CU_COREDUMP_MAX, &flag, &size) ==
               CUDA_ERROR_INVALID_VALUE,
           "an unknown attribute: INVALID_VALUE");

    flag = true;
    size = sizeof flag;
    cuCoredumpSetAttributeGlobal(CU_COREDUMP_ENABLE_USER_TRIGGER, &flag, &size);
    char pipe[] = "corepipe";
    size = strlen(pipe);
    EXPECT(cuCoredumpSetAttributeGlobal(CU_COREDUMP_PIPE, pipe, &size) ==
               CUDA_ERROR_NOT_PERMITTED,
           "PIPE may not change once ENABLE_USER_TRIGGER is set: NOT_PERMITTED");
}

static void dev_resource(CUdevice dev)
{
    int sms = 0, major = 0;
    cuDeviceGetAttribute(&sms, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, dev);
    cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev);
    unsigned g = major >= 9 ? 8 : 2; /* NVIDIA's minimum partition below / from CC 9.0 */
    CUdevResource r;
    memset(&r, 0, sizeof r);
    CUresult rc = cuDeviceGetDevResource(dev, &r, CU_DEV_RESOURCE_TYPE_SM);
    EXPECT(rc == CUDA_SUCCESS && r.type == CU_DEV_RESOURCE_TYPE_SM && (int)r.sm.smCount == sms,
           "cuDeviceGetDevResource(SM): %u SMs, the presented MULTIPROCESSOR_COUNT (%d) -> %d",
           r.sm.smCount, sms, rc);
    EXPECT(r.sm.minSmPartitionSize == g && r.sm.smCoscheduledAlignment == g,
           "CC %d: SM partitions of at least %u, aligned to %u (%u, %u)", major, g, g,
           r.sm.minSmPartitionSize, r.sm.smCoscheduledAlignment);
    CUdevResource bad;
    EXPECT(cuDeviceGetDevResource(dev, &bad, CU_DEV_RESOURCE_TYPE_INVALID) ==
               CUDA_ERROR_INVALID_RESOURCE_TYPE,
           "cuDeviceGetDevResource(INVALID type): INVALID_RESOURCE_TYPE");
    EXPECT(cuDeviceGetDevResource(99, &bad, CU_DEV_RESOURCE_TYPE_SM) == CUDA_ERROR_INVALID_DEVICE,
           "cuDeviceGetDevResource(device 99): INVALID_DEVICE");

    unsigned n = 0;
    rc = cuDevSmResourceSplitByCount(NULL, &n, &r, NULL, 0, 2);
    EXPECT(rc == CUDA_SUCCESS && n == (unsigned)sms / g,
           "a NULL result asks how many groups of %u: %u (of %d SMs)", g, n, sms);
    CUdevResource groups[64], rem;
    unsigned want = n < 64 ? n : 64;
    n = want;
    rc = cuDevSmResourceSplitByCount(groups, &n, &r, &rem, 0, 1);
    bool sizes = true;
    for (unsigned i = 0; i < n; i++)
        sizes = sizes && groups[i].type == CU_DEV_RESOURCE_TYPE_SM && groups[i].sm.smCount == g;
    EXPECT(rc == CUDA_SUCCESS && n == want && sizes && rem.sm.smCount == (unsigned)sms - g * n,
           "minCount 1 rounds up to %u: %u groups, %u SMs left", g, n, rem.sm.smCount);
    n = 1;
    EXPECT(cuDevSmResourceSplitByCount(groups, &n, &rem, NULL, 0, 1) ==
               CUDA_ERROR_INVALID_RESOURCE_CONFIGURATION,
           "a split's remainder cannot be split again");
    n = 1;
    EXPECT(cuDevSmResourceSplitByCount(groups, &n, &r, NULL, 0, (unsigned)sms + 1) ==
               CUDA_ERROR_INVALID_VALUE,
           "minCount above the SM count: INVALID_VALUE");
    n = 0;
    rc = cuDevSmResourceSplitByCount(NULL, &n, &r, NULL,
                                     CU_DEV_SM_RESOURCE_SPLIT_IGNORE_SM_COSCHEDULING, 1);
    EXPECT(rc == CUDA_SUCCESS && n == (unsigned)sms,
           "IGNORE_SM_COSCHEDULING: groups of one SM (%u)", n);
}

static void pools_and_pointers(void)
{
    CUmemPoolProps props;
    memset(&props, 0, sizeof props);
    props.allocType = CU_MEM_ALLOCATION_TYPE_PINNED;
    props.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    props.location.id = 0;
    CUmemoryPool pool = NULL;
    CUresult rc = cuMemPoolCreate(&pool, &props);
    EXPECT(rc == CUDA_SUCCESS && pool != NULL, "cuMemPoolCreate -> %d", rc);
    cuuint64_t threshold = 9, got64 = 0;
    int zero = 0, reuse = 1;
    EXPECT(cuMemPoolSetAttribute(pool, CU_MEMPOOL_ATTR_RELEASE_THRESHOLD, &threshold) ==
                   CUDA_SUCCESS &&
               cuMemPoolSetAttribute(pool, CU_MEMPOOL_ATTR_REUSE_ALLOW_OPPORTUNISTIC, &zero) ==
                   CUDA_SUCCESS &&
               cuMemPoolGetAttribute(pool, CU_MEMPOOL_ATTR_RELEASE_THRESHOLD, &got64) ==
                   CUDA_SUCCESS &&
               cuMemPoolGetAttribute(pool, CU_MEMPOOL_ATTR_REUSE_ALLOW_OPPORTUNISTIC, &reuse) ==
                   CUDA_SUCCESS &&
               got64 == 9 && reuse == 0,
           "a created pool's attributes read back as set");
    props.usage = 1; /* CU_MEM_POOL_CREATE_USAGE_HW_DECOMPRESS */
    CUmemoryPool p2;
    EXPECT(cuMemPoolCreate(&p2, &props) == CUDA_ERROR_NOT_SUPPORTED,
           "cuMemPoolCreate for hardware decompression: NOT_SUPPORTED");
    EXPECT(cuMemPoolDestroy(pool) == CUDA_SUCCESS, "cuMemPoolDestroy");

    CUdeviceptr m;
    EXPECT(cuMemAllocManaged(&m, 4096, CU_MEM_ATTACH_GLOBAL) == CUDA_SUCCESS,
           "cuMemAllocManaged");
    /* NVIDIA's driver: managed memory is of type DEVICE (numba-cuda relies on it), told
     * apart by IS_MANAGED; UNIFIED is never answered */
    unsigned int mtype = 0;
    int managed = 0;
    EXPECT(cuPointerGetAttribute(&mtype, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, m) == CUDA_SUCCESS &&
               mtype == CU_MEMORYTYPE_DEVICE &&
               cuPointerGetAttribute(&managed, CU_POINTER_ATTRIBUTE_IS_MANAGED, m) ==
                   CUDA_SUCCESS &&
               managed == 1,
           "managed memory: MEMORY_TYPE DEVICE (%u), IS_MANAGED 1 (%d)", mtype, managed);
    unsigned int flags = 0, rdma = 7;
    int ipc = 7;
    unsigned long long handles = 7;
    void *from_pool = (void *)1;
    EXPECT(cuPointerGetAttribute(&flags, CU_POINTER_ATTRIBUTE_ACCESS_FLAGS, m) == CUDA_SUCCESS &&
               flags == CU_POINTER_ATTRIBUTE_ACCESS_FLAG_READWRITE,
           "ACCESS_FLAGS: read-write (%u)", flags);
    EXPECT(cuPointerGetAttribute(&rdma, CU_POINTER_ATTRIBUTE_IS_GPU_DIRECT_RDMA_CAPABLE, m) ==
                   CUDA_SUCCESS &&
               cuPointerGetAttribute(&ipc, CU_POINTER_ATTRIBUTE_IS_LEGACY_CUDA_IPC_CAPABLE, m) ==
                   CUDA_SUCCESS &&
               cuPointerGetAttribute(&handles, CU_POINTER_ATTRIBUTE_ALLOWED_HANDLE_TYPES, m) ==
                   CUDA_SUCCESS &&
               cuPointerGetAttribute(&from_pool, CU_POINTER_ATTRIBUTE_MEMPOOL_HANDLE, m) ==
                   CUDA_SUCCESS,
           "RDMA, legacy IPC, handle types and pool are answered");
    EXPECT(rdma == 0 && ipc == 0 && handles == 0 && from_pool == NULL,
           "managed memory: no RDMA, no legacy IPC, no handle types, no pool");
    int sync = 1, off = 0, on = 1;
    EXPECT(cuPointerSetAttribute(&off, CU_POINTER_ATTRIBUTE_SYNC_MEMOPS, m) == CUDA_SUCCESS &&
               cuPointerGetAttribute(&sync, CU_POINTER_ATTRIBUTE_SYNC_MEMOPS, m) ==
                   CUDA_SUCCESS &&
               sync == 0,
           "SYNC_MEMOPS set to 0 reads back 0");
    EXPECT(cuPointerSetAttribute(&on, CU_POINTER_ATTRIBUTE_SYNC_MEMOPS, m) == CUDA_SUCCESS &&
               cuPointerGetAttribute(&sync, CU_POINTER_ATTRIBUTE_SYNC_MEMOPS, m) ==
                   CUDA_SUCCESS &&
               sync == 1,
           "... and back to 1");
    cuMemFree(m);
}

static void range_attributes(CUdevice dev)
{
    enum { SZ = 4 * 4096 };
    CUdeviceptr m;
    EXPECT(cuMemAllocManaged(&m, SZ, CU_MEM_ATTACH_GLOBAL) == CUDA_SUCCESS, "cuMemAllocManaged");
    CUmemLocation gpu = {CU_MEM_LOCATION_TYPE_DEVICE, (int)dev};
    CUmemLocation host = {CU_MEM_LOCATION_TYPE_HOST, CU_DEVICE_CPU};
    int rm = -7, pref = -7, last = -7, by[3] = {-7, -7, -7};
    EXPECT(cuMemRangeGetAttribute(&rm, 4, CU_MEM_RANGE_ATTRIBUTE_READ_MOSTLY, m, SZ) ==
                   CUDA_SUCCESS &&
               cuMemRangeGetAttribute(&pref, 4, CU_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION, m,
                                      SZ) == CUDA_SUCCESS &&
               rm == 0 && pref == -2,
           "no advice: not read-mostly, no preferred location (%d, %d)", rm, pref);
    /* the first half read-mostly; all of it preferred on the host, accessed by both */
    cuMemAdvise(m, SZ / 2, CU_MEM_ADVISE_SET_READ_MOSTLY, gpu);
    cuMemAdvise(m, SZ, CU_MEM_ADVISE_SET_PREFERRED_LOCATION, host);
    cuMemAdvise(m, SZ, CU_MEM_ADVISE_SET_ACCESSED_BY, host);
    cuMemAdvise(m, SZ, CU_MEM_ADVISE_SET_ACCESSED_BY, gpu);
    cuMemRangeGetAttribute(&rm, 4, CU_MEM_RANGE_ATTRIBUTE_READ_MOSTLY, m, SZ);
    int rm_half = -7;
    cuMemRangeGetAttribute(&rm_half, 4, CU_MEM_RANGE_ATTRIBUTE_READ_MOSTLY, m, SZ / 2);
    EXPECT(rm == 0 && rm_half == 1, "read-mostly over the advised half only (%d, %d)", rm,
           rm_half);
    cuMemRangeGetAttribute(&pref, 4, CU_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION, m, SZ);
    EXPECT(pref == CU_DEVICE_CPU, "preferred location: the host (%d)", pref);
    CUresult rc = cuMemRangeGetAttribute(by, sizeof by, CU_MEM_RANGE_ATTRIBUTE_ACCESSED_BY, m, SZ);
    EXPECT(rc == CUDA_SUCCESS && by[0] == (int)dev && by[1] == CU_DEVICE_CPU && by[2] == -2,
           "accessed by: the device, the host, then -2 (%d %d %d)", by[0], by[1], by[2]);
    cuMemAdvise(m, SZ, CU_MEM_ADVISE_UNSET_ACCESSED_BY, host);
    cuMemRangeGetAttribute(by, sizeof by, CU_MEM_RANGE_ATTRIBUTE_ACCESSED_BY, m, SZ);
    EXPECT(by[0] == (int)dev && by[1] == -2, "unset for the host: the device alone (%d %d)",
           by[0], by[1]);
    cuMemRangeGetAttribute(&last, 4, CU_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION, m, SZ);
    int last_after = -7;
    cuMemPrefetchAsync_v2(m, SZ, gpu, 0, NULL);
    cuCtxSynchronize();
    cuMemRangeGetAttribute(&last_after, 4, CU_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION, m, SZ);
    EXPECT(last == -2 && last_after == (int)dev, "last prefetch location: none, then the device "
           "(%d, %d)", last, last_after);
    void *datas[2] = {&rm_half, &pref};
    size_t sizes[2] = {4, 4};
    CUmem_range_attribute attrs[2] = {CU_MEM_RANGE_ATTRIBUTE_READ_MOSTLY,
                                      CU_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION};
    rm_half = pref = -7;
    rc = cuMemRangeGetAttributes(datas, sizes, attrs, 2, m, SZ / 2);
    EXPECT(rc == CUDA_SUCCESS && rm_half == 1 && pref == CU_DEVICE_CPU,
           "cuMemRangeGetAttributes answers each as the singular does -> %d", rc);
    EXPECT(cuMemRangeGetAttribute(&rm, 2, CU_MEM_RANGE_ATTRIBUTE_READ_MOSTLY, m, SZ) ==
               CUDA_ERROR_INVALID_VALUE,
           "a data size that is not 4: INVALID_VALUE");
    static int plain[1024];
    EXPECT(cuMemRangeGetAttribute(&rm, 4, CU_MEM_RANGE_ATTRIBUTE_READ_MOSTLY,
                                  (CUdeviceptr)(uintptr_t)plain, sizeof plain) ==
               CUDA_ERROR_INVALID_VALUE,
           "memory the device does not know: INVALID_VALUE");
    cuMemFree(m);
}

int main(void)
{
    CUdevice dev;
    CUcontext ctx;
    if (cuInit(0) != CUDA_SUCCESS || cuDeviceGet(&dev, 0) != CUDA_SUCCESS ||
        cuDevicePrimaryCtxRetain(&ctx, dev) != CUDA_SUCCESS ||
        cuCtxSetCurrent(ctx) != CUDA_SUCCESS) {
        printf("FAIL no device\n");
        return 1;
    }
    graph_nodes();
    coredump();
    dev_resource(dev);
    pools_and_pointers();
    range_attributes(dev);
    printf("PASS: %d failure(s)\n", failures);
    return failures != 0;
}
