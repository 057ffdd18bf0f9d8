/* Device, versions, properties, attributes, contexts and errors, printed as key=value. */
#include <hip/hip_version.h>
#include <string.h>

#include "check.h"

static void attr(const char *name, hipDeviceAttribute_t a)
{
    int v = -12345;
    CHECK(hipDeviceGetAttribute(&v, a, 0));
    printf("attr.%s=%d\n", name, v);
}

int main(void)
{
    int n = 0, v = 0;
    CHECK(hipInit(0));
    CHECK(hipGetDeviceCount(&n));
    printf("count=%d\n", n);
    CHECK(hipDriverGetVersion(&v));
    printf("driver_version_ok=%d\n", v == HIP_VERSION);
    CHECK(hipRuntimeGetVersion(&v));
    printf("runtime_version=%d\n", v);
    printf("hip_version=%d\n", HIP_VERSION);

    hipDevice_t dev;
    CHECK(hipDeviceGet(&dev, 0));
    char name[256];
    CHECK(hipDeviceGetName(name, sizeof name, dev));
    printf("name=%s\n", name);
    size_t total = 0;
    CHECK(hipDeviceTotalMem(&total, dev));
    printf("total_mem_positive=%d\n", total > ((size_t)1 << 28));

    hipDeviceProp_t p;
    memset(&p, 0xab, sizeof p);
    CHECK(hipGetDeviceProperties(&p, 0));
    printf("prop.name=%s\n", p.name);
    printf("prop.gcnArchName=%s\n", p.gcnArchName);
    printf("prop.warpSize=%d\n", p.warpSize);
    printf("prop.major=%d\nprop.minor=%d\n", p.major, p.minor);
    printf("prop.maxThreadsPerBlock=%d\n", p.maxThreadsPerBlock);
    printf("prop.sharedMemPerBlock=%zu\n", p.sharedMemPerBlock);
    printf("prop.multiProcessorCount=%d\n", p.multiProcessorCount);
    printf("prop.totalGlobalMem_matches=%d\n", p.totalGlobalMem == total);
    printf("prop.managedMemory=%d\n", p.managedMemory);
    printf("prop.unifiedAddressing=%d\n", p.unifiedAddressing);
    printf("prop.clockRate_positive=%d\n", p.clockRate > 0);

    attr("WarpSize", hipDeviceAttributeWarpSize);
    attr("MaxThreadsPerBlock", hipDeviceAttributeMaxThreadsPerBlock);
    attr("MaxBlockDimX", hipDeviceAttributeMaxBlockDimX);
    attr("MaxBlockDimZ", hipDeviceAttributeMaxBlockDimZ);
    attr("MaxGridDimX", hipDeviceAttributeMaxGridDimX);
    attr("MaxSharedMemoryPerBlock", hipDeviceAttributeMaxSharedMemoryPerBlock);
    attr("MultiprocessorCount", hipDeviceAttributeMultiprocessorCount);
    attr("ComputeCapabilityMajor", hipDeviceAttributeComputeCapabilityMajor);
    attr("ComputeCapabilityMinor", hipDeviceAttributeComputeCapabilityMinor);
    attr("PciBusId", hipDeviceAttributePciBusId);
    attr("PciDomainId", hipDeviceAttributePciDomainId);
    attr("ConcurrentKernels", hipDeviceAttributeConcurrentKernels);
    attr("MaxThreadsPerMultiProcessor", hipDeviceAttributeMaxThreadsPerMultiProcessor);
    CHECK(hipDeviceGetAttribute(&v, hipDeviceAttributeClockRate, 0));
    printf("clock_matches=%d\n", v == p.clockRate);
    /* every enumerator of both contiguous ranges answers, except the placeholders */
    int failures = 0, asked = 0;
    for (int a = hipDeviceAttributeCudaCompatibleBegin; a <= hipDeviceAttributePciChipId; a++) {
        if (a == hipDeviceAttributeHostNumaId + 1)
            a = hipDeviceAttributeAmdSpecificBegin;
        if (a == hipDeviceAttributeUnused1 || a == hipDeviceAttributeUnused2 ||
            a == hipDeviceAttributeUnused3 || a == hipDeviceAttributeUnused4 ||
            a == hipDeviceAttributeUnused5)
            continue;
        asked++;
        if (hipDeviceGetAttribute(&v, (hipDeviceAttribute_t)a, 0) != hipSuccess) {
            printf("attr.unanswered=%d\n", a);
            failures++;
        }
    }
    SHOW("attr.unused", hipDeviceGetAttribute(&v, hipDeviceAttributeUnused1, 0));
    printf("attr.all=%d,%d\n", asked, failures);
    SHOW("attr.bogus", hipDeviceGetAttribute(&v, (hipDeviceAttribute_t)4242, 0));
    SHOW("attr.bad_device", hipDeviceGetAttribute(&v, hipDeviceAttributeWarpSize, 1));

    char bus[32];
    CHECK(hipDeviceGetPCIBusId(bus, sizeof bus, 0));
    printf("pci_bus_id=%s\n", bus);
    int back = -1;
    CHECK(hipDeviceGetByPCIBusId(&back, bus));
    printf("pci_roundtrip=%d\n", back);
    hipUUID u1, u2;
    CHECK(hipDeviceGetUuid(&u1, 0));
    CHECK(hipDeviceGetUuid(&u2, 0));
    printf("uuid_stable=%d\n", memcmp(&u1, &u2, sizeof u1) == 0 && memcmp(&u1, &p.uuid, 16) == 0);

    SHOW("set_device_1", hipSetDevice(1));
    SHOW("last_error", hipGetLastError());
    SHOW("last_error_cleared", hipGetLastError());
    SHOW("set_device_0", hipSetDevice(0));
    CHECK(hipGetDevice(&v));
    printf("device=%d\n", v);
    SHOW("init_flags", hipInit(1));
    SHOW("peek", hipPeekAtLastError());
    SHOW("peek_again", hipPeekAtLastError());
    (void)hipGetLastError();
    printf("errstr=%s\n", hipGetErrorString(hipErrorInvalidValue));
    printf("errname_oom=%s\n", hipGetErrorName(hipErrorOutOfMemory));
    printf("errname_unknown_code=%s\n", hipGetErrorName((hipError_t)12345));

    int peer = -1;
    CHECK(hipDeviceCanAccessPeer(&peer, 0, 0));
    printf("peer=%d\n", peer);
    SHOW("enable_peer_self", hipDeviceEnablePeerAccess(0, 0));
    size_t lim = 0;
    CHECK(hipDeviceSetLimit(hipLimitPrintfFifoSize, 1 << 22));
    CHECK(hipDeviceGetLimit(&lim, hipLimitPrintfFifoSize));
    printf("limit_printf=%zu\n", lim);
    SHOW("limit_bad", hipDeviceGetLimit(&lim, hipLimitRange));

    /* Primary context and the context stack. */
    unsigned flags = 99;
    int active = 99;
    CHECK(hipDevicePrimaryCtxGetState(0, &flags, &active));
    printf("primary.before=%u,%d\n", flags, active);
    SHOW("primary.setflags", hipDevicePrimaryCtxSetFlags(0, hipDeviceScheduleYield));
    hipCtx_t pctx = NULL, cur = NULL;
    CHECK(hipDevicePrimaryCtxRetain(&pctx, 0));
    CHECK(hipDevicePrimaryCtxGetState(0, &flags, &active));
    printf("primary.retained=%u,%d\n", flags, active);
    SHOW("primary.setflags_active", hipDevicePrimaryCtxSetFlags(0, 0));
    CHECK(hipCtxGetCurrent(&cur));
    printf("ctx.current_without_stack=%d\n", cur == pctx);
    CHECK(hipCtxSetCurrent(pctx));
    CHECK(hipCtxGetCurrent(&cur));
    printf("ctx.current_is_primary=%d\n", cur == pctx);
    hipCtx_t mine = NULL;
    CHECK(hipCtxCreate(&mine, 0, 0));
    printf("ctx.created_is_device_ctx=%d\n", mine == pctx);
    SHOW("ctx.create_bad_device", hipCtxCreate(&cur, 0, 3));
    hipCtx_t popped = NULL;
    CHECK(hipCtxPopCurrent(&popped));
    CHECK(hipCtxPopCurrent(&popped));
    SHOW("ctx.pop_empty", hipCtxPopCurrent(&popped));
    CHECK(hipCtxPushCurrent(mine));
    SHOW("ctx.push_null", hipCtxPushCurrent(NULL));
    SHOW("ctx.push_garbage", hipCtxPushCurrent((hipCtx_t)&n));
    hipDevice_t cdev = -1;
    CHECK(hipCtxGetDevice(&cdev));
    printf("ctx.device=%d\n", cdev);
    CHECK(hipCtxSynchronize());
    CHECK(hipCtxDestroy(mine));
    SHOW("ctx.destroy_null", hipCtxDestroy(NULL));
    CHECK(hipDevicePrimaryCtxRelease(0));
    CHECK(hipDevicePrimaryCtxGetState(0, &flags, &active));
    printf("primary.released=%u,%d\n", flags, active);
    SHOW("primary.release_inactive", hipDevicePrimaryCtxRelease(0));
    CHECK(hipDeviceSynchronize());
    CHECK(hipDeviceReset());
    return 0;
}
