"""cuda-bindings (NVIDIA's Python driver bindings, through cuGetProcAddress) on the VMM API:
one allocation mapped at two reserved ranges, a memset through one read through the other.
Prints one line per fact; the test compares them."""

from cuda.bindings import driver as d


def check(result):
    err, *rest = result if isinstance(result, tuple) else (result,)
    assert err == d.CUresult.CUDA_SUCCESS, err
    return rest[0] if len(rest) == 1 else rest


check(d.cuInit(0))
dev = check(d.cuDeviceGet(0))
check(d.cuCtxSetCurrent(check(d.cuDevicePrimaryCtxRetain(dev))))
attr = d.CUdevice_attribute.CU_DEVICE_ATTRIBUTE_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED
print("vmm", check(d.cuDeviceGetAttribute(attr, dev)))
prop = d.CUmemAllocationProp()
prop.type = d.CUmemAllocationType.CU_MEM_ALLOCATION_TYPE_PINNED
prop.location.type = d.CUmemLocationType.CU_MEM_LOCATION_TYPE_DEVICE
prop.location.id = 0
gran = check(d.cuMemGetAllocationGranularity(
    prop, d.CUmemAllocationGranularity_flags.CU_MEM_ALLOC_GRANULARITY_RECOMMENDED))
handle = check(d.cuMemCreate(gran, prop, 0))
a = check(d.cuMemAddressReserve(gran, 0, 0, 0))
b = check(d.cuMemAddressReserve(gran, 0, int(a) + gran, 0))   # grow a in place
print("grown in place", int(b) == int(a) + gran)
check(d.cuMemMap(a, gran, 0, handle, 0))
check(d.cuMemMap(b, gran, 0, handle, 0))
acc = d.CUmemAccessDesc()
acc.location.type = d.CUmemLocationType.CU_MEM_LOCATION_TYPE_DEVICE
acc.location.id = 0
acc.flags = d.CUmemAccess_flags.CU_MEM_ACCESS_FLAGS_PROT_READWRITE
check(d.cuMemSetAccess(a, gran, [acc], 1))
check(d.cuMemSetAccess(b, gran, [acc], 1))
check(d.cuMemsetD32(a, 0x12345678, gran // 4))
buf = bytearray(8)
check(d.cuMemcpyDtoH(buf, int(b) + gran - 8, 8))
print("alias", buf.hex())
check(d.cuMemUnmap(a, 2 * gran))   # both mappings, both reservations: one range
check(d.cuMemRelease(handle))
check(d.cuMemAddressFree(a, 2 * gran))
print("done")
