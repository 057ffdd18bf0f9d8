"""The CPU device's streams and events (stream.c, event.c)."""

from __future__ import annotations

import pytest
from cpu_device.harness import run, values


@pytest.fixture(scope="module")
def st() -> dict[str, str]:
    r = run("streams")
    assert r.returncode == 0, r.stderr
    return values(r)


def test_order_and_asynchrony(st: dict[str, str]) -> None:
    assert st["query_busy"] == "hipErrorNotReady"
    assert st["host_not_blocked"] == "1"
    assert st["query_idle"] == "hipSuccess"
    assert st["in_order_seen"] == "1"


def test_callbacks_and_host_functions(st: dict[str, str]) -> None:
    assert st["callback_order"] == "abcd"
    assert st["callback_stream"] == "1"
    assert st["callback_status"] == "hipSuccess"
    assert st["callback_bad_flags"] == "hipErrorInvalidValue"


def test_streams_run_concurrently_and_wait_on_events(st: dict[str, str]) -> None:
    assert st["concurrent"] == "1"
    assert st["wait_event_seen"] == "1"


def test_events(st: dict[str, str]) -> None:
    assert st["elapsed_unrecorded"] == "hipErrorInvalidHandle"
    assert st["query_unrecorded"] == "hipSuccess"
    assert st["elapsed_before_done"] == "hipErrorNotReady"
    assert st["query_before_done"] == "hipErrorNotReady"
    assert st["query_done"] == "hipSuccess"
    assert st["elapsed_plausible"] == "1"
    assert st["elapsed_disable_timing"] == "hipErrorInvalidHandle"
    assert st["event_create_bad_flags"] == "hipErrorInvalidValue"


def test_legacy_null_stream(st: dict[str, str]) -> None:
    assert st["null_waits_blocking"] == "1"
    assert st["null_ignores_nonblocking"] == "1"
    assert st["blocking_waits_null"] == "1"
    assert st["device_sync_drains_all"] == "1"
    assert st["null_query_busy_blocking"] == "hipErrorNotReady"
    assert st["null_sync"] == "1,0"
    assert st["null_query_idle"] == "hipSuccess"
    assert st["destroyed_stream_finished"] == "7"


def test_stream_properties(st: dict[str, str]) -> None:
    assert st["flags_nonblocking"] == "1"
    assert st["flags_null"] == "hipErrorInvalidValue"     # ROCm's answer for the NULL stream
    assert st["flags_per_thread"] == "0"
    assert st["priority"] == "0,-1,-1"     # out-of-range priorities clamp
    assert st["destroy_null"] == "hipErrorInvalidHandle"
    assert st["create_bad_flags"] == "hipErrorInvalidValue"


def test_stale_and_garbage_handles_are_errors(st: dict[str, str]) -> None:
    # ROCm answers hipErrorContextIsDestroyed for streams that are not alive
    for key in ("sync_destroyed", "destroy_twice", "garbage_stream"):
        assert st[key] == "hipErrorContextIsDestroyed", key
    for key in ("event_destroy_twice", "event_record_destroyed", "garbage_event"):
        assert st[key] == "hipErrorInvalidHandle", key


def test_per_thread_stream_and_host_threads(st: dict[str, str]) -> None:
    assert st["spt"] == "0,2,3,4"
    assert st["spt_query"] == "hipSuccess"
    assert st["threads_ok"] == "1"


def test_waits_from_callbacks_refuse_instead_of_hanging(st: dict[str, str]) -> None:
    assert st["callback_waits"] == ",".join(["hipErrorNotSupported"] * 3)


def test_stream_memory_operations(st: dict[str, str]) -> None:
    assert st["wait_value_blocks"] == "1,1"
    assert st["wait_value_gte"] == "1,1"     # 2 < 3 keeps waiting; 5 >= 3 releases
    assert st["wait_value_and"] == "1"       # (0x31 & 0xf0) & 0x10 != 0
    assert st["wait_value_bad_flags"] == st["write_value_misaligned"] == "hipErrorInvalidValue"


def test_stream_attributes(st: dict[str, str]) -> None:
    assert st["attr_priority"] == "-1"       # copied from the other stream
    assert st["attr_bad"] == "hipErrorInvalidValue"


def test_streams_never_capture(st: dict[str, str]) -> None:
    assert st["capturing"] == "0"        # hipStreamCaptureStatusNone
    assert st["capture_info"] == "0,0"
