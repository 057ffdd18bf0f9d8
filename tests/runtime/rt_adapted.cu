// Runtime calls whose structs HIP lays out differently, each checked by what it does:
// stream attributes read back as set (priority also through cudaStreamGetPriority);
// a 2D memset graph node fills exactly its rows (pitch padding untouched) at launch, its
// parameters read back, change before instantiation (cudaGraphInstantiateWithParams) and
// in the instantiated graph; node types; a created memory pool serves stream-ordered
// allocations and is the device's current pool through CUDA 13's location calls;
// cudaMemRangeGetAttributes reads managed-memory advice; a kernel node given new arguments
// and grid runs with them, an exec instantiated before keeps the old ones. Runs unchanged
// on NVIDIA's.
#include <cuda_runtime.h>
#include <stdio.h>
#include <string.h>

#include "runtime_check.h"

#define W 16      // elements per row (4 bytes each)
#define H 4       // rows
#define PITCH 128 // bytes between rows (W * 4 = 64 used)

static int rows_are(const unsigned *h, unsigned value, unsigned pad)
{
    for (int r = 0; r < H; r++)
        for (int c = 0; c < PITCH / 4; c++)
            if (h[r * (PITCH / 4) + c] != (c < W ? value : pad))
                return 0;
    return 1;
}

static void stream_attributes(void)
{
    cudaStream_t s;
    OK("stream create", cudaStreamCreate(&s));
    int lo = 0, hi = 0;
    OK("priority range", cudaDeviceGetStreamPriorityRange(&lo, &hi));
    cudaLaunchAttributeValue v, got;
    memset(&v, 0, sizeof v);
    v.priority = hi;
    OK("set priority", cudaStreamSetAttribute(s, cudaLaunchAttributePriority, &v));
    memset(&got, 0x55, sizeof got);
    OK("get priority", cudaStreamGetAttribute(s, cudaLaunchAttributePriority, &got));
    int p = 12345;
    OK("stream priority", cudaStreamGetPriority(s, &p));
    printf("priority range %d..%d, set %d, attribute %d, stream %d\n", lo, hi, hi, got.priority, p);
    CHECK("priority reads back", got.priority == hi && p == hi);

    static char window_base[4096];
    memset(&v, 0, sizeof v);
    v.accessPolicyWindow.base_ptr = window_base;
    v.accessPolicyWindow.num_bytes = sizeof window_base;
    v.accessPolicyWindow.hitRatio = 0.625f;
    v.accessPolicyWindow.hitProp = cudaAccessPropertyPersisting;
    v.accessPolicyWindow.missProp = cudaAccessPropertyStreaming;
    OK("set window", cudaStreamSetAttribute(s, cudaLaunchAttributeAccessPolicyWindow, &v));
    memset(&got, 0, sizeof got);
    OK("get window", cudaStreamGetAttribute(s, cudaLaunchAttributeAccessPolicyWindow, &got));
    CHECK("window reads back",
          got.accessPolicyWindow.base_ptr == window_base &&
              got.accessPolicyWindow.num_bytes == sizeof window_base &&
              got.accessPolicyWindow.hitRatio == 0.625f &&
              got.accessPolicyWindow.hitProp == cudaAccessPropertyPersisting &&
              got.accessPolicyWindow.missProp == cudaAccessPropertyStreaming);

    memset(&got, 0, sizeof got);
    OK("get default sync policy",
       cudaStreamGetAttribute(s, cudaLaunchAttributeSynchronizationPolicy, &got));
    CHECK("sync policy starts auto", got.syncPolicy == cudaSyncPolicyAuto);
    memset(&v, 0, sizeof v);
    v.syncPolicy = cudaSyncPolicyYield;
    OK("set sync policy", cudaStreamSetAttribute(s, cudaLaunchAttributeSynchronizationPolicy, &v));
    memset(&got, 0, sizeof got);
    OK("get sync policy", cudaStreamGetAttribute(s, cudaLaunchAttributeSynchronizationPolicy, &got));
    CHECK("sync policy reads back", got.syncPolicy == cudaSyncPolicyYield);

    cudaError_t e = cudaStreamGetAttribute(s, cudaLaunchAttributeCooperative, &got);
    printf("cooperative as a stream attribute: %s\n", cudaGetErrorName(e));
    CHECK("not a stream attribute", e == cudaErrorInvalidValue);
    (void)cudaGetLastError();
    OK("stream destroy", cudaStreamDestroy(s));
}

static void memset_nodes(void)
{
    unsigned *d = NULL, h[H * PITCH / 4];
    OK("malloc", cudaMalloc(&d, H * PITCH));
    OK("clear", cudaMemset(d, 0xab, H * PITCH));
    cudaGraph_t g;
    OK("graph create", cudaGraphCreate(&g, 0));
    struct cudaMemsetParams m;
    memset(&m, 0, sizeof m);
    m.dst = d;
    m.pitch = PITCH;
    m.value = 0xdeadbeefu;
    m.elementSize = 4;
    m.width = W;
    m.height = H;
    cudaGraphNode_t node, empty;
    OK("add memset node", cudaGraphAddMemsetNode(&node, g, NULL, 0, &m));
    OK("add empty node", cudaGraphAddEmptyNode(&empty, g, &node, 1));
    struct cudaMemsetParams back;
    memset(&back, 0, sizeof back);
    OK("memset params", cudaGraphMemsetNodeGetParams(node, &back));
    CHECK("memset params read back",
          back.dst == d && back.pitch == PITCH && back.value == 0xdeadbeefu &&
              back.elementSize == 4 && back.width == W && back.height == H);
    enum cudaGraphNodeType t1 = cudaGraphNodeTypeKernel, t2 = cudaGraphNodeTypeKernel;
    OK("type of memset node", cudaGraphNodeGetType(node, &t1));
    OK("type of empty node", cudaGraphNodeGetType(empty, &t2));
    CHECK("node types", t1 == cudaGraphNodeTypeMemset && t2 == cudaGraphNodeTypeEmpty);

    cudaStream_t s;
    OK("stream", cudaStreamCreate(&s));
    cudaGraphExec_t exec;
    OK("instantiate", cudaGraphInstantiate(&exec, g, 0));
    OK("launch", cudaGraphLaunch(exec, s));
    OK("sync", cudaStreamSynchronize(s));
    OK("copy back", cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost));
    printf("row 0: %08x .. %08x, padding %08x\n", h[0], h[W - 1], h[W]);
    CHECK("memset node filled its rows only", rows_are(h, 0xdeadbeefu, 0xabababab));
    OK("exec destroy", cudaGraphExecDestroy(exec));

    // new parameters on the graph: one byte 0x11 per element of 16 bytes per row
    m.value = 0x11;
    m.elementSize = 1;
    m.width = W * 4;
    OK("set memset params", cudaGraphMemsetNodeSetParams(node, &m));
    cudaGraphInstantiateParams ip;
    memset(&ip, 0, sizeof ip);
    ip.flags = 0;
    ip.uploadStream = s;
    ip.result_out = cudaGraphInstantiateError;
    OK("instantiate with params", cudaGraphInstantiateWithParams(&exec, g, &ip));
    CHECK("instantiate result", ip.result_out == cudaGraphInstantiateSuccess && ip.errNode_out == NULL);
    OK("launch 2", cudaGraphLaunch(exec, s));
    OK("sync 2", cudaStreamSynchronize(s));
    OK("copy back 2", cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost));
    CHECK("updated memset node filled its rows", rows_are(h, 0x11111111u, 0xabababab));

    // the instantiated graph's node, not the graph's
    m.value = 0x2222;
    m.elementSize = 2;
    m.width = W * 2;
    OK("exec memset params", cudaGraphExecMemsetNodeSetParams(exec, node, &m));
    OK("launch 3", cudaGraphLaunch(exec, s));
    OK("sync 3", cudaStreamSynchronize(s));
    OK("copy back 3", cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost));
    CHECK("exec memset node filled its rows", rows_are(h, 0x22222222u, 0xabababab));
    memset(&back, 0, sizeof back);
    OK("graph's params unchanged", cudaGraphMemsetNodeGetParams(node, &back));
    CHECK("graph keeps its own parameters", back.value == 0x11 && back.elementSize == 1);

    cudaError_t e = cudaGraphMemsetNodeGetParams(empty, &back);
    printf("memset params of an empty node: %s\n", cudaGetErrorName(e));
    CHECK("not a memset node", e == cudaErrorInvalidValue);
    (void)cudaGetLastError();
    e = cudaGraphInstantiateWithParams(&exec, g, NULL);
    CHECK("NULL instantiate params", e == cudaErrorInvalidValue);
    (void)cudaGetLastError();
    OK("exec destroy 2", cudaGraphExecDestroy(exec));
    OK("graph destroy", cudaGraphDestroy(g));
    OK("stream destroy", cudaStreamDestroy(s));
    OK("free", cudaFree(d));
}

static void pools(void)
{
    struct cudaMemPoolProps props;
    memset(&props, 0, sizeof props);
    props.allocType = cudaMemAllocationTypePinned;
    props.handleTypes = cudaMemHandleTypeNone;
    props.location.type = cudaMemLocationTypeDevice;
    props.location.id = 0;
    cudaMemPool_t pool = NULL;
    OK("pool create", cudaMemPoolCreate(&pool, &props));
    unsigned long long threshold = 1 << 20, read = 0;
    OK("set threshold", cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &threshold));
    OK("get threshold", cudaMemPoolGetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &read));
    CHECK("threshold reads back", read == threshold);

    cudaStream_t s;
    OK("stream", cudaStreamCreate(&s));
    int *p = NULL;
    const size_t n = 4096;
    OK("malloc from pool", cudaMallocFromPoolAsync((void **)&p, n * sizeof(int), pool, s));
    OK("memset", cudaMemsetAsync(p, 0x7f, n * sizeof(int), s));
    unsigned long long used = 0;
    OK("used", cudaMemPoolGetAttribute(pool, cudaMemPoolAttrUsedMemCurrent, &used));
    static int h[4096];
    OK("copy", cudaMemcpyAsync(h, p, sizeof h, cudaMemcpyDeviceToHost, s));
    OK("free async", cudaFreeAsync(p, s));
    OK("sync", cudaStreamSynchronize(s));
    int ok = 1;
    for (size_t i = 0; i < n; i++)
        ok &= h[i] == 0x7f7f7f7f;
    unsigned long long after = 1;
    OK("used after", cudaMemPoolGetAttribute(pool, cudaMemPoolAttrUsedMemCurrent, &after));
    printf("pool used %llu while allocated, %llu after the free\n", used, after);
    CHECK("pool memory usable and counted", ok && used >= n * sizeof(int) && after == 0);
    OK("trim", cudaMemPoolTrimTo(pool, 0));

    props.usage = 1; // cudaMemPoolCreateUsageHwDecompress
    cudaMemPool_t other = NULL;
    cudaError_t e = cudaMemPoolCreate(&other, &props);
    printf("pool with a usage flag: %s\n", cudaGetErrorName(e));
    CHECK("usage flag refused", e == cudaErrorNotSupported || e == cudaSuccess);
    if (e == cudaSuccess)
        OK("destroy other", cudaMemPoolDestroy(other));
    (void)cudaGetLastError();
    e = cudaMemPoolCreate(&other, NULL);
    CHECK("NULL properties", e == cudaErrorInvalidValue);
    (void)cudaGetLastError();

#if CUDART_VERSION >= 13000
    struct cudaMemLocation loc = {cudaMemLocationTypeDevice, 0};
    cudaMemPool_t def = NULL, def_dev = NULL, cur = NULL, cur_dev = NULL;
    OK("default pool (location)", cudaMemGetDefaultMemPool(&def, &loc, cudaMemAllocationTypePinned));
    OK("default pool (device)", cudaDeviceGetDefaultMemPool(&def_dev, 0));
    CHECK("the same default pool", def != NULL && def == def_dev);
    OK("set current pool", cudaMemSetMemPool(&loc, cudaMemAllocationTypePinned, pool));
    OK("current pool (location)", cudaMemGetMemPool(&cur, &loc, cudaMemAllocationTypePinned));
    OK("current pool (device)", cudaDeviceGetMemPool(&cur_dev, 0));
    CHECK("the created pool is current", cur == pool && cur_dev == pool);
    OK("reset current pool", cudaMemSetMemPool(&loc, cudaMemAllocationTypePinned, def));
    struct cudaMemLocation bad = {cudaMemLocationTypeDevice, 99};
    e = cudaMemGetMemPool(&cur, &bad, cudaMemAllocationTypePinned);
    CHECK("bad device", e == cudaErrorInvalidDevice);
    (void)cudaGetLastError();
#endif
    OK("pool destroy", cudaMemPoolDestroy(pool));
    OK("stream destroy", cudaStreamDestroy(s));
}

static void range_attributes(void)
{
    char *m = NULL;
    const size_t n = 1 << 16;
    OK("managed", cudaMallocManaged(&m, n));
    struct cudaMemLocation dev = {cudaMemLocationTypeDevice, 0};
    OK("advise read mostly", cudaMemAdvise(m, n, cudaMemAdviseSetReadMostly, dev));
    OK("advise preferred", cudaMemAdvise(m, n, cudaMemAdviseSetPreferredLocation, dev));
    int read_mostly = -7, preferred = -7;
    void *data[2] = {&read_mostly, &preferred};
    size_t sizes[2] = {sizeof read_mostly, sizeof preferred};
    enum cudaMemRangeAttribute attrs[2] = {cudaMemRangeAttributeReadMostly,
                                           cudaMemRangeAttributePreferredLocation};
    OK("range attributes", cudaMemRangeGetAttributes(data, sizes, attrs, 2, m, n));
    printf("read mostly %d, preferred location %d\n", read_mostly, preferred);
    CHECK("range attributes read the advice", read_mostly == 1 && preferred == 0);
    OK("unset read mostly", cudaMemAdvise(m, n, cudaMemAdviseUnsetReadMostly, dev));
    read_mostly = -7;
    OK("range attributes again", cudaMemRangeGetAttributes(data, sizes, attrs, 1, m, n));
    CHECK("read mostly cleared", read_mostly == 0);
    OK("free managed", cudaFree(m));
}

__global__ void fill(int *p, int v)
{
    p[blockIdx.x * blockDim.x + threadIdx.x] = v;
}

static void kernel_node(void)
{
    int *d = NULL, h[64];
    OK("kernel buffer", cudaMalloc(&d, sizeof h));
    OK("kernel clear", cudaMemset(d, 0, sizeof h));
    cudaGraph_t g;
    OK("kernel graph", cudaGraphCreate(&g, 0));
    int v = 3;
    void *args[] = {&d, &v};
    cudaKernelNodeParams kp;
    memset(&kp, 0, sizeof kp);
    kp.func = (void *)fill;
    kp.gridDim = dim3(1);
    kp.blockDim = dim3(32);
    kp.kernelParams = args;
    cudaGraphNode_t n;
    OK("kernel node", cudaGraphAddKernelNode(&n, g, NULL, 0, &kp));
    cudaGraphExec_t before, after;
    OK("instantiate before", cudaGraphInstantiate(&before, g, 0));
    int five = 5;
    void *args5[] = {&d, &five};
    kp.kernelParams = args5;
    kp.gridDim = dim3(2);   // all 64 elements now
    OK("kernel node params", cudaGraphKernelNodeSetParams(n, &kp));
    v = 99;                 // the node holds copies of the arguments
    OK("instantiate after", cudaGraphInstantiate(&after, g, 0));
    OK("launch after", cudaGraphLaunch(after, 0));
    OK("sync after", cudaDeviceSynchronize());
    OK("copy after", cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost));
    int ok = 1;
    for (int i = 0; i < 64; i++)
        ok &= h[i] == 5;
    CHECK("new kernel parameters run", ok);
    OK("launch before", cudaGraphLaunch(before, 0));
    OK("sync before", cudaDeviceSynchronize());
    OK("copy before", cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost));
    ok = 1;
    for (int i = 0; i < 64; i++)
        ok &= h[i] == (i < 32 ? 3 : 5);
    printf("exec from before: %d .. %d\n", h[0], h[63]);
    CHECK("an exec keeps the parameters it was instantiated with", ok);
    cudaGraphExecDestroy(before);
    cudaGraphExecDestroy(after);
    cudaGraphDestroy(g);

#if CUDART_VERSION >= 13000
    // the one call for every node type: a memset then a kernel depending on it
    OK("generic graph", cudaGraphCreate(&g, 0));
    // C++ deletes the union's default constructor (dim3 has one): zeroed storage instead
    alignas(cudaGraphNodeParams) unsigned char np_bytes[sizeof(cudaGraphNodeParams)];
    cudaGraphNodeParams &np = *reinterpret_cast<cudaGraphNodeParams *>(np_bytes);
    memset(&np, 0, sizeof np);
    np.type = cudaGraphNodeTypeMemset;
    np.memset.dst = d;
    np.memset.value = 0x01010101u;
    np.memset.elementSize = 4;
    np.memset.width = 64;
    np.memset.height = 1;
    cudaGraphNode_t ms, kn;
    OK("generic memset node", cudaGraphAddNode(&ms, g, NULL, NULL, 0, &np));
    int seven = 7;
    void *args7[] = {&d, &seven};
    memset(&np, 0, sizeof np);
    np.type = cudaGraphNodeTypeKernel;
    np.kernel.func = (void *)fill;
    np.kernel.gridDim = dim3(1);
    np.kernel.blockDim = dim3(16);
    np.kernel.kernelParams = args7;
    OK("generic kernel node", cudaGraphAddNode(&kn, g, &ms, NULL, 1, &np));
    enum cudaGraphNodeType t1 = cudaGraphNodeTypeEmpty, t2 = cudaGraphNodeTypeEmpty;
    cudaGraphNodeGetType(ms, &t1);
    cudaGraphNodeGetType(kn, &t2);
    CHECK("generic node types", t1 == cudaGraphNodeTypeMemset && t2 == cudaGraphNodeTypeKernel);
    OK("generic instantiate", cudaGraphInstantiate(&after, g, 0));
    OK("generic launch", cudaGraphLaunch(after, 0));
    OK("generic sync", cudaDeviceSynchronize());
    OK("generic copy", cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost));
    ok = 1;
    for (int i = 0; i < 64; i++)
        ok &= h[i] == (i < 16 ? 7 : 0x01010101);
    printf("generic nodes: %d .. %#x\n", h[0], (unsigned)h[63]);
    CHECK("generic nodes ran in order", ok);
    memset(&np, 0, sizeof np);
    np.type = cudaGraphNodeTypeConditional;
    cudaError_t e = cudaGraphAddNode(&kn, g, NULL, NULL, 0, &np);
    printf("generic conditional node: %s\n", cudaGetErrorName(e));
    (void)cudaGetLastError();
    cudaGraphExecDestroy(after);
    cudaGraphDestroy(g);
#endif
    cudaFree(d);
}

int main()
{
    stream_attributes();
    memset_nodes();
    pools();
    range_attributes();
    kernel_node();
    if (failures == 0)
        printf("PASS adapted\n");
    return failures ? 1 : 0;
}
