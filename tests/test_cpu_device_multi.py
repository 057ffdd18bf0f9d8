"""Several CPU devices (PYSHIM_CPU_DEVICES=N): real nvcc-built programs enumerate them, run
kernels on each, enable peer access and copy between them, and share memory and events
between two processes through CUDA IPC. Expected values are computed here."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from test_runtime_programs import RT_DIR, libs, nvcc, run  # noqa: F401 (libs: a fixture)

pytestmark = pytest.mark.skipif(shutil.which("nvcc") is None, reason="nvcc is not installed")

N = 4096


def checksum(values: list[int]) -> int:
    return sum(v * (i % 7 + 1) for i, v in enumerate(values))


def filled(dev: int) -> list[int]:
    # multi_device.cu's `fill` kernel on device `dev`
    return [(dev + 1) * 100000 + i * 3 for i in range(N)]


def values(out: str) -> dict[str, str]:
    found = {}
    for line in out.splitlines():
        key, sep, rest = line.partition("=")
        if sep:
            found[key] = rest
    return found


@pytest.fixture(scope="module")
def multi_exe(libs: Path) -> Path:  # noqa: F811
    return nvcc(RT_DIR / "multi_device.cu", "-cudart", "shared", f"-L{libs / 'lib'}", "-lcuda")


@pytest.mark.parametrize("count", [1, 2, 4])
def test_devices_are_distinct_and_run_their_own_kernels(libs: Path, multi_exe: Path,  # noqa: F811
                                                        count: int) -> None:
    r = run(multi_exe, libs, PYSHIM_CPU_DEVICES=str(count))
    assert r.returncode == 0, r.stderr
    v = values(r.stdout)
    assert v["count"] == v["drv_count"] == str(count)
    names = {v[f"dev{d}.name"] for d in range(count)}
    uuids = {v[f"dev{d}.uuid"] for d in range(count)}
    buses = {v[f"dev{d}.bus"] for d in range(count)}
    assert len(names) == len(uuids) == len(buses) == count
    phys = os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGESIZE")
    for d in range(count):
        total, prop_total, used_counted = v[f"dev{d}.mem"].split(",")
        # a share of the host's memory each, counted per device
        assert total == prop_total and phys // count - 256 <= int(total) <= phys // count
        assert used_counted == "1"
        assert v[f"dev{d}.bus_back"] == str(d)
        # a created stream, the legacy stream and the per-thread stream of the current device
        assert v[f"dev{d}.stream_device"] == f"{d},{d},{d}"
        assert v[f"dev{d}.current"] == str(d)
        assert int(v[f"dev{d}.sum"]) == checksum(filled(d))
        # cudaPointerGetAttributes and cuPointerGetAttribute(DEVICE_ORDINAL) agree
        assert v[f"ptr{d}.device"] == f"{d},{d} type=2"
        # its context is its device's primary context, and it may be exported (IPC)
        assert v[f"ptr{d}.ctx_ipc"] == "1,1"
        # after cudaSetDevice(d) the driver's current context is d's primary context, and
        # driver allocations land on d (each call CUDA_SUCCESS)
        assert v[f"rt_ctx{d}"] == f"1,1,{d},{d} 0,0,0"
    # a thread's first runtime call makes device 0's primary context current; a thread
    # with a driver context already keeps it, and the runtime follows its device
    assert v["thread_fresh"] == "1,1"
    assert v["thread_driver_first"] == f"{count - 1},1"
    if count == 1:
        assert v["dev0.name"] == "pyshim CPU device (gfx942-like wave64)"
    else:
        assert v["stream_keeps_device"] == "1"
    assert v["done"] == "1"


@pytest.mark.parametrize("count", [2, 4])
def test_peer_access_and_peer_copies(libs: Path, multi_exe: Path, count: int) -> None:  # noqa: F811
    r = run(multi_exe, libs, PYSHIM_CPU_DEVICES=str(count))
    assert r.returncode == 0, r.stderr
    v = values(r.stdout)
    assert v["can_access"] == "1,0,1"          # 0->1, 0->0 (not its own peer), driver 1->0
    assert v["p2p_attr"] == "0,1,1,1"          # rank, access, native atomics, driver access
    assert v["p2p_attr_self"] == "cudaErrorInvalidDevice"
    assert v["enable"] == "cudaSuccess"
    assert v["enable_again"] == "cudaErrorPeerAccessAlreadyEnabled"
    assert v["enable_self"] == v["enable_bad"] == "cudaErrorInvalidDevice"
    assert v["disable"] == "cudaSuccess"
    assert v["disable_again"] == "cudaErrorPeerAccessNotEnabled"
    d0, d1, last = filled(0), filled(1), filled(count - 1)
    assert int(v["peer_kernel.sum"]) == checksum([a + b for a, b in zip(d0, d1, strict=True)])
    assert int(v["peer_copy.sum"]) == checksum(last)            # device 0 now holds `last`
    dev1 = d1[: N // 2] + last[: N // 2]                        # async copy into dev1's top half
    assert int(v["peer_async.sum"]) == checksum(dev1)
    assert v["ctx_distinct"] == "1"
    # cuCtxEnablePeerAccess: CUDA_SUCCESS, then CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED (704)
    assert v["ctx_enable"] == "0,704"
    assert v["ctx_current_device"] == "1"
    after = last[:16] + dev1[16:]
    assert v["cu_peer"] == f"0 sum={checksum(after)}"
    # device 0's legacy stream and synchronize did not wait for device 1's held kernel
    assert v["independent"] == "1,cudaErrorNotReady"
    assert v["gated"] == "42"
    assert v["done"] == "1"


@pytest.mark.parametrize("count", [1, 2])
def test_ipc_memory_and_events_between_two_processes(libs: Path, count: int) -> None:  # noqa: F811
    exe = nvcc(RT_DIR / "multi_ipc.cu", "-cudart", "shared")
    r = run(exe, libs, PYSHIM_CPU_DEVICES=str(count))
    assert r.returncode == 0, r.stdout + r.stderr
    v = values(r.stdout)
    small = [7000 + i * 3 for i in range(1024)]
    # exporting moved the pages onto a memfd in place: contents and address kept
    assert int(v["parent.small_after_export"]) == checksum(small)
    assert v["parent.open_own"] == "cudaErrorInvalidValue"
    assert v["parent.open_bad"] == "cudaErrorInvalidValue,cudaErrorInvalidValue"
    assert v["parent.plain_event_handle"] == "cudaErrorInvalidResourceHandle"
    # the child sees the parent's memory, as memory of the exporting device
    assert int(v["child.small_read"]) == checksum(small)
    assert v["child.large_device"] == f"{count - 1} type=2"
    assert v["parent.child_queued"] == "1"
    # the child's stream waited on the parent's record, the parent on the child's
    large = [(1000 + i * 3) * 2 + 1 for i in range(1 << 20)]
    assert int(v["parent.large"]) == checksum(large)
    assert int(v["parent.small"]) == checksum([55555 + i * 3 for i in range(1024)])
    assert v["child.close"] == "cudaSuccess"
    assert v["child.close_again"] == "cudaErrorInvalidValue"
    assert v["child.done"] == v["parent.done"] == "1"
    assert v["parent.child_exit"] == "0"
    assert int(v["parent.fresh"]) == 0
    assert "hipIpcOpenMemHandle: the handle was made by this process" in r.stderr
