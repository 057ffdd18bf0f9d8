/*
 * Memory pools (mempool.c): the default and current pool, created pools, their attributes
 * and accounting through stream-ordered allocations and frees, access, destruction and
 * device reset. Prints key=value lines for tests/test_cpu_device_mempool.py.
 */
#include <string.h>

#include "check.h"

static unsigned long long attr(hipMemPool_t p, hipMemPoolAttr a)
{
    unsigned long long v = 0;
    CHECK(hipMemPoolGetAttribute(p, a, &v));
    return v;
}

int main(void)
{
    int supported = 0, handle_types = -1;
    CHECK(hipDeviceGetAttribute(&supported, hipDeviceAttributeMemoryPoolsSupported, 0));
    CHECK(hipDeviceGetAttribute(&handle_types, hipDeviceAttributeMemoryPoolSupportedHandleTypes, 0));
    printf("supported=%d\nhandle_types=%d\n", supported, handle_types);

    hipMemPool_t def, cur;
    CHECK(hipDeviceGetDefaultMemPool(&def, 0));
    CHECK(hipDeviceGetMemPool(&cur, 0));
    printf("current_is_default=%d\n", cur == def);
    SHOW("default_bad_device", hipDeviceGetDefaultMemPool(&cur, 1));

    /* hipMallocAsync counts in the current (default) pool; the free counts when it runs */
    hipStream_t s;
    CHECK(hipStreamCreate(&s));
    void *a, *b;
    CHECK(hipMallocAsync(&a, 1000, s));
    CHECK(hipMallocAsync(&b, 24, s));
    printf("default_used=%llu\n", attr(def, hipMemPoolAttrUsedMemCurrent));
    CHECK(hipFreeAsync(a, s));
    CHECK(hipStreamSynchronize(s));
    printf("default_used_after_free=%llu,%llu,%llu\n", attr(def, hipMemPoolAttrUsedMemCurrent),
           attr(def, hipMemPoolAttrUsedMemHigh), attr(def, hipMemPoolAttrReservedMemCurrent));
    CHECK(hipFree(b));   /* CUDA allows an ordinary free of stream-ordered memory */
    printf("default_used_after_hipfree=%llu\n", attr(def, hipMemPoolAttrUsedMemCurrent));

    /* settings: stored and returned; high-water marks reset to zero only; current is read-only */
    unsigned long long threshold = ~0ull, zero = 0, seven = 7;
    int off = 0;
    CHECK(hipMemPoolSetAttribute(def, hipMemPoolAttrReleaseThreshold, &threshold));
    CHECK(hipMemPoolSetAttribute(def, hipMemPoolReuseAllowOpportunistic, &off));
    int reuse = -1;
    CHECK(hipMemPoolGetAttribute(def, hipMemPoolReuseAllowOpportunistic, &reuse));
    printf("threshold=%llu\nreuse_opportunistic=%d\n", attr(def, hipMemPoolAttrReleaseThreshold),
           reuse);
    SHOW("set_high_zero", hipMemPoolSetAttribute(def, hipMemPoolAttrUsedMemHigh, &zero));
    printf("high_after_reset=%llu\n", attr(def, hipMemPoolAttrUsedMemHigh));
    SHOW("set_high_nonzero", hipMemPoolSetAttribute(def, hipMemPoolAttrReservedMemHigh, &seven));
    SHOW("set_current", hipMemPoolSetAttribute(def, hipMemPoolAttrUsedMemCurrent, &zero));
    SHOW("get_bogus", hipMemPoolGetAttribute(def, (hipMemPoolAttr)99, &zero));

    /* a created pool, made current, then destroyed */
    hipMemPoolProps props;
    memset(&props, 0, sizeof props);
    props.allocType = hipMemAllocationTypePinned;
    props.location.type = hipMemLocationTypeDevice;
    props.location.id = 0;
    hipMemPool_t mine;
    CHECK(hipMemPoolCreate(&mine, &props));
    void *c;
    CHECK(hipMallocFromPoolAsync(&c, 4096, mine, s));
    CHECK(hipMemsetAsync(c, 0x5a, 4096, s));
    unsigned char probe = 0;
    CHECK(hipMemcpyAsync(&probe, (char *)c + 4095, 1, hipMemcpyDeviceToHost, s));
    CHECK(hipStreamSynchronize(s));
    printf("pool_memory_usable=%d\n", probe == 0x5a);
    printf("mine_used=%llu\ndefault_untouched=%llu\n", attr(mine, hipMemPoolAttrUsedMemCurrent),
           attr(def, hipMemPoolAttrUsedMemCurrent));
    CHECK(hipDeviceSetMemPool(0, mine));
    void *d;
    CHECK(hipMallocAsync(&d, 100, s));
    printf("mine_used_via_current=%llu\n", attr(mine, hipMemPoolAttrUsedMemCurrent));
    CHECK(hipFreeAsync(c, s));
    CHECK(hipFreeAsync(d, s));
    CHECK(hipStreamSynchronize(s));
    printf("mine_used_freed=%llu,%llu\n", attr(mine, hipMemPoolAttrUsedMemCurrent),
           attr(mine, hipMemPoolAttrUsedMemHigh));

    hipMemAccessDesc desc = {{hipMemLocationTypeDevice, 0}, hipMemAccessFlagsProtReadWrite};
    SHOW("set_access", hipMemPoolSetAccess(mine, &desc, 1));
    desc.location.id = 1;
    SHOW("set_access_other_device", hipMemPoolSetAccess(mine, &desc, 1));
    hipMemAccessFlags flags = hipMemAccessFlagsProtNone;
    hipMemLocation here = {hipMemLocationTypeDevice, 0};
    SHOW("get_access", hipMemPoolGetAccess(&flags, mine, &here));
    printf("access_flags=%d\n", (int)flags);
    SHOW("trim", hipMemPoolTrimTo(mine, 0));

    SHOW("destroy", hipMemPoolDestroy(mine));
    CHECK(hipDeviceGetMemPool(&cur, 0));
    printf("current_back_to_default=%d\n", cur == def);
    SHOW("destroy_again", hipMemPoolDestroy(mine));
    SHOW("alloc_from_destroyed", hipMallocFromPoolAsync(&c, 8, mine, s));
    SHOW("set_destroyed_current", hipDeviceSetMemPool(0, mine));
    SHOW("destroy_default", hipMemPoolDestroy(def));

    hipMemPoolProps shareable = props;
    shareable.handleTypes = hipMemHandleTypePosixFileDescriptor;
    SHOW("create_shareable", hipMemPoolCreate(&mine, &shareable));
    hipMemPoolProps elsewhere = props;
    elsewhere.location.id = 3;
    SHOW("create_other_device", hipMemPoolCreate(&mine, &elsewhere));
    SHOW("create_null", hipMemPoolCreate(&mine, NULL));

    /* a device reset frees every allocation, so the pools are empty after it */
    CHECK(hipMallocAsync(&a, 512, s));
    CHECK(hipStreamSynchronize(s));
    CHECK(hipStreamDestroy(s));
    CHECK(hipDeviceReset());
    printf("used_after_reset=%llu\n", attr(def, hipMemPoolAttrUsedMemCurrent));
    return 0;
}
