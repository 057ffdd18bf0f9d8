"""The CPU device's memory API: allocations, copies, memsets, pointer queries (memory.c)."""

from __future__ import annotations

import pytest
from cpu_device.harness import run, values


@pytest.fixture(scope="module")
def mem() -> dict[str, str]:
    r = run("memory")
    assert r.returncode == 0, r.stderr
    return values(r)


def test_copies_of_every_kind(mem: dict[str, str]) -> None:
    assert mem["align256"] == "1"
    assert mem["memcpy_roundtrip"] == "1"
    assert mem["htod_dtod_dtoh"] == "4,11,18,25"
    assert mem["memcpy_bad_kind"] == "hipErrorInvalidMemcpyDirection"
    assert mem["memcpy_null"] == "hipErrorInvalidValue"
    assert mem["memcpy_zero"] == "hipSuccess"


def test_memsets(mem: dict[str, str]) -> None:
    assert mem["memset8"] == "abababab"
    assert mem["memsetd16"] == "12341234,abab1234"
    assert mem["memsetd32"] == "-2,-2,abababab"
    assert mem["memsetd8"] == "11111111,00000011"
    assert mem["memset_async"] == "01010101,77,ababffff,ababab02"


def test_pitched_2d_and_3d(mem: dict[str, str]) -> None:
    assert mem["pitch"] == "256"
    assert mem["copy2d"] == "1,5,21,25"
    assert mem["copy2d_bad_pitch"] == "hipErrorInvalidPitchValue"
    assert mem["memset2d"] == "1,9,9,9,22"
    assert mem["param2d"] == "12,14,22,24"
    assert mem["memallocpitch"] == "256"
    assert mem["memallocpitch_bad_elem"] == "hipErrorInvalidValue"
    # out[z][y][x] = vol[z+1][y+2][x+1] = 100(z+1) + 10(y+2) + x+1
    assert mem["copy3d"] == "121,244,222"
    assert mem["memset3d"] == "5,5,223"


def test_pointer_attributes(mem: dict[str, str]) -> None:
    assert mem["attrs.device"] == "device,dev=0,devptr_same=1,hostptr_same=0,managed=0"
    assert mem["attrs.device_interior"] == mem["attrs.device"]
    assert mem["attrs.host"] == "host,dev=0,devptr_same=1,hostptr_same=1,managed=0"
    assert mem["attrs.managed"] == "managed,dev=0,devptr_same=1,hostptr_same=1,managed=1"
    assert mem["attrs.registered"] == mem["attrs.host"]
    assert mem["attrs.stack"] == "unregistered,dev=-2,devptr_same=0,hostptr_same=0,managed=0"
    assert mem["attrs.null"] == "hipErrorInvalidValue"
    assert mem["attr.memtype"] == "device"
    assert mem["attr.range"] == "1,4000"
    assert mem["attr.is_managed"] == "1"
    assert mem["attr.unknown_ptr"] == "hipErrorInvalidValue"
    assert mem["addr_range"] == "1,4000"
    assert mem["addr_range_unknown"] == "hipErrorNotFound"
    assert mem["addr_range_host"] == "1,1000"


def test_host_memory(mem: dict[str, str]) -> None:
    assert mem["register_twice"] == "hipErrorHostMemoryAlreadyRegistered"
    assert mem["host_dev_ptr_same"] == "1"
    assert mem["host_dev_ptr_unknown"] == "hipErrorInvalidValue"
    assert mem["hostmalloc_mapped"] == "1"
    assert mem["unregister_ok"] == "hipSuccess"
    assert mem["unregister_twice"] == "hipErrorHostMemoryNotRegistered"


def test_bad_frees_and_impossible_allocations(mem: dict[str, str]) -> None:
    assert mem["free_null"] == "hipSuccess"
    for key in ("free_stack", "free_interior", "free_host_with_hipFree", "hostfree_device",
                "free_twice"):
        assert mem[key] == "hipErrorInvalidValue", key
    assert mem["free_ok"] == mem["hostfree_ok"] == mem["free_managed"] == "hipSuccess"
    assert mem["malloc_huge"] == mem["hostmalloc_huge"] == "hipErrorOutOfMemory"
    assert mem["malloc_huge_null"] == "1"
    assert mem["malloc_zero"] == "hipSuccess" and mem["malloc_zero_null"] == "1"
    assert mem["malloc_null_out"] == "hipErrorInvalidValue"
    assert mem["managed_bad_flags"] == "hipErrorInvalidValue"
    assert mem["meminfo"] == "1"


def test_stream_ordered_allocation_and_managed_hints(mem: dict[str, str]) -> None:
    assert mem["malloc_async"] == "42,42"
    assert mem["free_async_gone"] == "hipErrorInvalidValue"     # freed in stream order
    assert mem["free_async_foreign"] == "hipErrorInvalidValue"
    assert mem["prefetch"] == mem["prefetch_cpu"] == "hipSuccess"
    assert mem["prefetch_too_long"] == mem["prefetch_unknown"] == "hipErrorInvalidValue"
    assert mem["advise"] == mem["attach"] == "hipSuccess"
    assert mem["advise_bad"] == "hipErrorInvalidValue"
    assert mem["ptr_info"] == "4096"
    assert mem["drv_attrs"] == "managed,1,4096"


def test_driver_3d_copy(mem: dict[str, str]) -> None:
    # dst[z][y][x] = vol[z+2][y+1][x+2] = 100(z+2) + 10(y+1) + x+2, as bytes; x=3 untouched
    assert mem["drv_copy3d"] == f"212,{334 % 256},0"
