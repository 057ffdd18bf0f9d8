"""The CPU device's device, property, attribute, context and error API (device.c)."""

from __future__ import annotations

import os

import pytest
from cpu_device.harness import run, values

WAVE_MODES = {
    "64": {"name": "pyshim CPU device (gfx942-like wave64)", "arch": "gfx942:sramecc+:xnack-",
           "major": "9", "minor": "4"},
    "32": {"name": "pyshim CPU device (gfx1100-like wave32)", "arch": "gfx1100",
           "major": "11", "minor": "0"},
}


@pytest.mark.parametrize("wave", ["64", "32"])
def test_properties_and_attributes_per_wave_mode(wave: str) -> None:
    r = run("device", env={"PYSHIM_CPU_WAVE": wave, "PYSHIM_CPU_WORKERS": "3"})
    assert r.returncode == 0, r.stderr
    v = values(r)
    mode = WAVE_MODES[wave]
    assert v["count"] == "1"
    assert v["name"] == v["prop.name"] == mode["name"]
    assert v["prop.gcnArchName"] == mode["arch"]
    assert v["prop.warpSize"] == v["attr.WarpSize"] == wave
    assert v["prop.major"] == v["attr.ComputeCapabilityMajor"] == mode["major"]
    assert v["prop.minor"] == v["attr.ComputeCapabilityMinor"] == mode["minor"]
    assert v["prop.multiProcessorCount"] == v["attr.MultiprocessorCount"] == "3"
    assert v["prop.maxThreadsPerBlock"] == v["attr.MaxThreadsPerBlock"] == "1024"
    assert v["attr.MaxBlockDimX"] == v["attr.MaxBlockDimZ"] == "1024"
    assert v["attr.MaxGridDimX"] == "2147483647"
    assert v["prop.sharedMemPerBlock"] == v["attr.MaxSharedMemoryPerBlock"] == "65536"
    assert v["attr.MaxThreadsPerMultiProcessor"] == "2048"
    assert v["attr.ConcurrentKernels"] == "1"
    asked, failures = v["attr.all"].split(",")
    assert int(asked) > 100 and failures == "0", v.get("attr.unanswered")
    assert v["attr.unused"] == "hipErrorInvalidValue"
    for key in ("driver_version_ok", "total_mem_positive", "prop.totalGlobalMem_matches",
                "prop.managedMemory", "prop.unifiedAddressing", "prop.clockRate_positive",
                "clock_matches", "uuid_stable"):
        assert v[key] == "1", key


def test_versions_pci_and_errors() -> None:
    r = run("device")
    assert r.returncode == 0, r.stderr
    v = values(r)
    assert v["runtime_version"] == v["hip_version"]
    assert v["runtime_version"].startswith("702")   # HIP 7.2
    assert v["pci_bus_id"] == "0000:c1:00.0"
    assert v["attr.PciBusId"] == str(0xC1)
    assert v["pci_roundtrip"] == "0"
    assert v["attr.bogus"] == "hipErrorInvalidValue"
    assert v["attr.bad_device"] == "hipErrorInvalidDevice"
    assert v["set_device_1"] == "hipErrorInvalidDevice"
    assert v["last_error"] == "hipErrorInvalidDevice"
    assert v["last_error_cleared"] == "hipSuccess"
    assert v["init_flags"] == v["peek"] == v["peek_again"] == "hipErrorInvalidValue"
    assert v["errstr"] == "invalid argument"
    assert v["errname_oom"] == "hipErrorOutOfMemory"
    assert v["errname_unknown_code"] == "hipErrorUnknown"
    assert v["peer"] == "0"
    assert v["enable_peer_self"] == "hipErrorInvalidDevice"
    assert v["limit_printf"] == str(1 << 22)
    assert v["limit_bad"] == "hipErrorUnsupportedLimit"


def test_contexts_as_rocm_has_them() -> None:
    # a context is the device: one handle, never NULL, flags never settable
    v = values(run("device"))
    assert v["primary.before"] == "0,0"
    assert v["primary.setflags"] == v["primary.setflags_active"] == "hipErrorContextAlreadyInUse"
    assert v["primary.retained"] == "0,1"
    assert v["primary.released"] == "0,0"
    assert v["primary.release_inactive"] == "hipSuccess"
    for key in ("ctx.current_without_stack", "ctx.current_is_primary",
                "ctx.created_is_device_ctx"):
        assert v[key] == "1", key
    assert v["ctx.create_bad_device"] == v["ctx.destroy_null"] == "hipErrorInvalidValue"
    assert v["ctx.pop_empty"] == v["ctx.push_null"] == v["ctx.push_garbage"] == \
        "hipErrorInvalidContext"
    assert v["ctx.device"] == "0"


def test_default_workers_follow_the_affinity_mask() -> None:
    allowed = os.sched_getaffinity(0)
    v = values(run("device", env={"PYSHIM_CPU_WORKERS": None}))
    assert v["prop.multiProcessorCount"] == str(len(allowed))
    one = {min(allowed)}
    v = values(run("device", env={"PYSHIM_CPU_WORKERS": None}, cpus=one))
    assert v["prop.multiProcessorCount"] == "1"


def test_bad_environment_is_reported_and_ignored() -> None:
    r = run("device", env={"PYSHIM_CPU_WAVE": "48", "PYSHIM_CPU_WORKERS": "lots"})
    assert r.returncode == 0, r.stderr
    assert "PYSHIM_CPU_WAVE=48" in r.stderr and "PYSHIM_CPU_WORKERS=lots" in r.stderr
    v = values(r)
    assert v["prop.warpSize"] == "64"
    assert int(v["prop.multiProcessorCount"]) >= 1
