"""The CPU device's virtual memory management (vmm.c) against a model: random sequences of
hipMemMap (with access), hipMemUnmap, memsets and reads over one reservation and three
physical allocations. Each call's success or error is predicted by the model (whole
mappings only, no overlap, inside the allocation), and every read returns what the model
says the physical allocation holds, whichever mapping it went through."""

from __future__ import annotations

import ctypes as C

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

GRAN = 2 << 20
SLOTS = 8
ALLOC_GRANULES = (2, 1, 3)
HIP_SUCCESS, HIP_INVALID_VALUE = 0, 1
DEVICE_TO_HOST = 2


class Location(C.Structure):
    _fields_ = [("type", C.c_int), ("id", C.c_int)]


class AllocFlags(C.Structure):
    _fields_ = [("compressionType", C.c_ubyte), ("gpuDirectRDMACapable", C.c_ubyte),
                ("usage", C.c_ushort)]


class Prop(C.Structure):
    _fields_ = [("type", C.c_int), ("requestedHandleTypes", C.c_int), ("location", Location),
                ("win32HandleMetaData", C.c_void_p), ("allocFlags", AllocFlags)]


class AccessDesc(C.Structure):
    _fields_ = [("location", Location), ("flags", C.c_int)]


@pytest.fixture(scope="module")
def hip() -> C.CDLL:
    from pyshim.builders.cpu import build_cpu_device

    lib = C.CDLL(str(build_cpu_device() / "libamdhip64.so.7"))
    lib.hipMemMap.argtypes = [C.c_void_p, C.c_size_t, C.c_size_t, C.c_void_p, C.c_ulonglong]
    lib.hipMemUnmap.argtypes = [C.c_void_p, C.c_size_t]
    lib.hipMemSetAccess.argtypes = [C.c_void_p, C.c_size_t, C.POINTER(AccessDesc), C.c_size_t]
    lib.hipMemset.argtypes = [C.c_void_p, C.c_int, C.c_size_t]
    lib.hipMemcpy.argtypes = [C.c_void_p, C.c_void_p, C.c_size_t, C.c_int]
    lib.hipMemCreate.argtypes = [C.POINTER(C.c_void_p), C.c_size_t, C.POINTER(Prop),
                                 C.c_ulonglong]
    lib.hipMemRelease.argtypes = [C.c_void_p]
    lib.hipMemAddressReserve.argtypes = [C.POINTER(C.c_void_p), C.c_size_t, C.c_size_t,
                                         C.c_void_p, C.c_ulonglong]
    lib.hipMemAddressFree.argtypes = [C.c_void_p, C.c_size_t]
    return lib


op = st.one_of(
    st.tuples(st.just("map"), st.integers(0, SLOTS - 1), st.integers(0, 2),
              st.integers(0, 2), st.integers(1, 3)),
    st.tuples(st.just("unmap"), st.integers(0, SLOTS - 1), st.integers(1, 4)),
    st.tuples(st.just("write"), st.integers(0, SLOTS - 1), st.integers(1, 255)),
    st.tuples(st.just("read"), st.integers(0, SLOTS - 1)),
)


def expected_unmap(maps: dict[int, tuple[int, int, int]], slot: int, n: int) -> list[int]:
    """The mappings [slot, slot + n) consists of, or [] when it is not whole mappings."""
    starts, at = [], slot
    while at < slot + n and at in maps:
        starts.append(at)
        at += maps[at][2]
    return starts if at == slot + n else []


@settings(max_examples=150, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(ops=st.lists(op, min_size=1, max_size=30))
# one allocation at two addresses: a write through one is read through the other, and
# survives unmapping both and mapping again
@example(ops=[("map", 0, 2, 0, 3), ("map", 4, 2, 1, 2), ("write", 1, 7), ("read", 4),
              ("write", 5, 9), ("read", 2), ("unmap", 0, 3), ("unmap", 4, 2),
              ("map", 6, 2, 2, 1), ("read", 6), ("map", 1, 2, 1, 1), ("read", 1)])
def test_mappings_follow_the_model(hip: C.CDLL, ops: list[tuple]) -> None:
    prop = Prop(type=1, location=Location(type=1, id=0))
    handles = []
    for granules in ALLOC_GRANULES:
        h = C.c_void_p()
        assert hip.hipMemCreate(C.byref(h), granules * GRAN, C.byref(prop), 0) == HIP_SUCCESS
        handles.append(h)
    base_p = C.c_void_p()
    assert hip.hipMemAddressReserve(C.byref(base_p), SLOTS * GRAN, 0, None, 0) == HIP_SUCCESS
    base = base_p.value
    access = AccessDesc(location=Location(type=1, id=0), flags=3)
    maps: dict[int, tuple[int, int, int]] = {}   # first slot -> (alloc, first granule, n)
    content: dict[tuple[int, int], int] = {}     # (alloc, granule) -> byte written there
    buf = (C.c_ubyte * 256)()

    def where(slot: int) -> tuple[int, int] | None:
        for start, (a, off, n) in maps.items():
            if start <= slot < start + n:
                return a, off + slot - start
        return None

    try:
        for o in ops:
            if o[0] == "map":
                _, slot, a, off, n = o
                ok = (slot + n <= SLOTS and off + n <= ALLOC_GRANULES[a]
                      and all(where(s) is None for s in range(slot, slot + n)))
                got = hip.hipMemMap(base + slot * GRAN, n * GRAN, off * GRAN, handles[a], 0)
                assert got == (HIP_SUCCESS if ok else HIP_INVALID_VALUE), o
                if ok:
                    assert hip.hipMemSetAccess(base + slot * GRAN, n * GRAN, access, 1) == 0
                    maps[slot] = (a, off, n)
            elif o[0] == "unmap":
                _, slot, n = o
                starts = expected_unmap(maps, slot, n) if slot + n <= SLOTS else []
                got = hip.hipMemUnmap(base + slot * GRAN, n * GRAN)
                assert got == (HIP_SUCCESS if starts else HIP_INVALID_VALUE), o
                for s in starts:
                    del maps[s]
            elif o[0] == "write":
                _, slot, byte = o
                w = where(slot)
                got = hip.hipMemset(base + slot * GRAN, byte, 256)
                assert got == (HIP_SUCCESS if w else HIP_INVALID_VALUE), o
                if w:
                    content[w] = byte
            else:
                _, slot = o
                w = where(slot)
                got = hip.hipMemcpy(buf, base + slot * GRAN, 256, DEVICE_TO_HOST)
                assert got == (HIP_SUCCESS if w else HIP_INVALID_VALUE), o
                if w:
                    assert bytes(buf) == bytes([content.get(w, 0)]) * 256, (o, w)
    finally:
        # releasing reservation and handles drops every mapping and the memory with them
        assert hip.hipMemAddressFree(base, SLOTS * GRAN) == HIP_SUCCESS
        for h in handles:
            assert hip.hipMemRelease(h) == HIP_SUCCESS
