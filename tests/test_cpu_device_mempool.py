"""The CPU device's memory pools (mempool.c): what CUDA's stream-ordered allocator samples
(cudaDeviceGetDefaultMemPool, cudaMemPoolSetAttribute, cudaMallocAsync) rely on."""

from __future__ import annotations

from cpu_device.harness import run, values


def test_memory_pools_accounting_settings_and_lifetime() -> None:
    r = run("mempool")
    assert r.returncode == 0, r.stderr
    v = values(r)
    assert v["supported"] == "1"
    assert v["handle_types"] == "0"                 # no pool can be shared between processes
    assert v["current_is_default"] == "1"
    assert v["default_bad_device"] == "hipErrorInvalidDevice"
    # two stream-ordered allocations count in the default pool until their frees run
    assert v["default_used"] == "1024"
    assert v["default_used_after_free"] == "24,1024,24"   # current, high-water, reserved
    assert v["default_used_after_hipfree"] == "0"
    assert v["threshold"] == str(2**64 - 1)
    assert v["reuse_opportunistic"] == "0"
    assert v["set_high_zero"] == "hipSuccess"
    assert v["high_after_reset"] == "0"
    assert v["set_high_nonzero"] == v["set_current"] == v["get_bogus"] == "hipErrorInvalidValue"
    # a created pool: its own accounting, usable memory, current pool of the device
    assert v["pool_memory_usable"] == "1"
    assert v["mine_used"] == "4096"
    assert v["default_untouched"] == "0"
    assert v["mine_used_via_current"] == "4196"
    assert v["mine_used_freed"] == "0,4196"
    assert v["set_access"] == v["get_access"] == v["trim"] == "hipSuccess"
    assert v["set_access_other_device"] == "hipErrorInvalidDevice"
    assert v["access_flags"] == "3"                   # hipMemAccessFlagsProtReadWrite
    assert v["destroy"] == "hipSuccess"
    assert v["current_back_to_default"] == "1"
    for key in ("destroy_again", "alloc_from_destroyed", "set_destroyed_current",
                "destroy_default", "create_other_device", "create_null"):
        assert v[key] == "hipErrorInvalidValue", key
    assert v["create_shareable"] == "hipErrorNotSupported"
    assert "pools shareable between processes are not provided" in r.stderr
    assert v["used_after_reset"] == "0"
