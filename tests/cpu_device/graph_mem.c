/*
 * Graph memory nodes (graph_mem.c): allocation and free nodes built explicitly and from
 * captured hipMallocAsync/hipFreeAsync, their addresses across launches, frees outside the
 * graph, and the device's graph-memory attributes. key=value lines for
 * tests/test_cpu_device_graph_mem.py.
 */
#include <string.h>

#include "check.h"

static unsigned long long gattr(hipGraphMemAttributeType a)
{
    unsigned long long v = 0;
    CHECK(hipDeviceGetGraphMemAttribute(0, a, &v));
    return v;
}

static void show_attrs(const char *label)
{
    printf("%s=%llu,%llu,%llu,%llu\n", label, gattr(hipGraphMemAttrUsedMemCurrent),
           gattr(hipGraphMemAttrUsedMemHigh), gattr(hipGraphMemAttrReservedMemCurrent),
           gattr(hipGraphMemAttrReservedMemHigh));
}

int main(void)
{
    hipStream_t s;
    CHECK(hipStreamCreate(&s));
    show_attrs("attrs_start");

    /* alloc (4096) -> memset -> copy out -> free, built node by node */
    hipGraph_t g;
    CHECK(hipGraphCreate(&g, 0));
    hipMemAllocNodeParams ap;
    memset(&ap, 0, sizeof ap);
    ap.poolProps.allocType = hipMemAllocationTypePinned;
    ap.poolProps.location.type = hipMemLocationTypeDevice;
    ap.poolProps.location.id = 0;
    ap.bytesize = 4096;
    hipGraphNode_t nalloc, nset, ncopy, nfree, nbad;
    CHECK(hipGraphAddMemAllocNode(&nalloc, g, NULL, 0, &ap));
    unsigned char *p = ap.dptr;
    printf("alloc_address=%d\n", p != NULL);
    hipMemsetParams mp = {.dst = p, .elementSize = 1, .height = 1, .pitch = 0, .value = 0x33,
                          .width = 4096};
    CHECK(hipGraphAddMemsetNode(&nset, g, &nalloc, 1, &mp));
    unsigned char host[2] = {0, 0};
    CHECK(hipGraphAddMemcpyNode1D(&ncopy, g, &nset, 1, host, p + 4095, 1,
                                  hipMemcpyDeviceToHost));
    CHECK(hipGraphAddMemFreeNode(&nfree, g, &ncopy, 1, p));
    show_attrs("attrs_added");   /* reserved when the node is made, used only by a launch */

    int *q;
    CHECK(hipMalloc((void **)&q, 64));
    SHOW("free_node_not_graph_memory", hipGraphAddMemFreeNode(&nbad, g, NULL, 0, q));
    ap.bytesize = 0;
    SHOW("alloc_node_zero_bytes", hipGraphAddMemAllocNode(&nbad, g, NULL, 0, &ap));
    ap.bytesize = 64;
    ap.poolProps.location.id = 2;
    SHOW("alloc_node_other_device", hipGraphAddMemAllocNode(&nbad, g, NULL, 0, &ap));
    ap.poolProps.location.id = 0;

    hipGraphExec_t ge;
    CHECK(hipGraphInstantiate(&ge, g, NULL, NULL, 0));
    CHECK(hipGraphLaunch(ge, s));
    CHECK(hipStreamSynchronize(s));
    printf("launch1=%x\n", host[0]);
    show_attrs("attrs_launched");   /* allocated and freed by the graph */
    host[0] = 0;
    CHECK(hipGraphLaunch(ge, s));
    CHECK(hipStreamSynchronize(s));
    printf("launch2=%x\n", host[0]);

    /* an allocation the graph does not free: in use after the launch until hipFree, and
     * allocated again at the same address by the next launch */
    hipGraph_t g2;
    CHECK(hipGraphCreate(&g2, 0));
    ap.bytesize = 1000;
    CHECK(hipGraphAddMemAllocNode(&nalloc, g2, NULL, 0, &ap));
    void *kept = ap.dptr;
    hipGraphExec_t ge2;
    CHECK(hipGraphInstantiate(&ge2, g2, NULL, NULL, 0));
    /* not allocated before the launch, nor after it is freed: not device memory then */
    SHOW("memset_before_launch", hipMemset(kept, 1, 1000));
    CHECK(hipGraphLaunch(ge2, s));
    CHECK(hipStreamSynchronize(s));
    show_attrs("attrs_kept");
    CHECK(hipMemset(kept, 1, 1000));   /* usable as device memory */
    SHOW("hipfree_graph_memory", hipFree(kept));
    SHOW("memset_after_hipfree", hipMemset(kept, 1, 1000));
    printf("used_after_hipfree=%llu\n", gattr(hipGraphMemAttrUsedMemCurrent));
    CHECK(hipGraphLaunch(ge2, s));
    CHECK(hipFreeAsync(kept, s));
    CHECK(hipStreamSynchronize(s));
    printf("used_after_freeasync=%llu\n", gattr(hipGraphMemAttrUsedMemCurrent));

    /* captured stream-ordered allocation and free become memory nodes */
    hipGraph_t g3;
    CHECK(hipStreamBeginCapture(s, hipStreamCaptureModeGlobal));
    void *cap = NULL;
    CHECK(hipMallocAsync(&cap, 256, s));
    CHECK(hipMemsetAsync(cap, 0x44, 256, s));
    CHECK(hipMemcpyAsync(host + 1, (char *)cap + 255, 1, hipMemcpyDeviceToHost, s));
    CHECK(hipFreeAsync(cap, s));
    SHOW("capture_free_plain_memory", hipFreeAsync(q, s));
    CHECK(hipStreamEndCapture(s, &g3));
    size_t n = 0;
    CHECK(hipGraphGetNodes(g3, NULL, &n));
    printf("captured_nodes=%zu,%d\n", n, cap != NULL);
    hipGraphExec_t ge3;
    CHECK(hipGraphInstantiate(&ge3, g3, NULL, NULL, 0));
    CHECK(hipGraphLaunch(ge3, s));
    CHECK(hipStreamSynchronize(s));
    printf("captured_launch=%x,%llu\n", host[1], gattr(hipGraphMemAttrUsedMemCurrent));

    /* high-water marks reset to the current values; other settings refused */
    unsigned long long zero = 0, one = 1;
    SHOW("reset_used_high", hipDeviceSetGraphMemAttribute(0, hipGraphMemAttrUsedMemHigh, &zero));
    SHOW("set_high_nonzero",
         hipDeviceSetGraphMemAttribute(0, hipGraphMemAttrReservedMemHigh, &one));
    SHOW("set_current", hipDeviceSetGraphMemAttribute(0, hipGraphMemAttrUsedMemCurrent, &zero));
    SHOW("trim", hipDeviceGraphMemTrim(0));
    SHOW("attr_bad_device", hipDeviceGetGraphMemAttribute(1, hipGraphMemAttrUsedMemHigh, &zero));
    printf("used_high_after_reset=%llu\n", gattr(hipGraphMemAttrUsedMemHigh));

    /* the reservation lives as long as a graph or executable graph names the node */
    CHECK(hipGraphDestroy(g));
    CHECK(hipGraphDestroy(g2));
    CHECK(hipGraphDestroy(g3));
    printf("reserved_graphs_gone=%llu\n", gattr(hipGraphMemAttrReservedMemCurrent));
    CHECK(hipGraphExecDestroy(ge));
    CHECK(hipGraphExecDestroy(ge2));
    CHECK(hipGraphExecDestroy(ge3));
    printf("reserved_all_gone=%llu\n", gattr(hipGraphMemAttrReservedMemCurrent));
    CHECK(hipFree(q));
    CHECK(hipStreamDestroy(s));
    return 0;
}
