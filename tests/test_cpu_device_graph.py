"""The CPU device's graphs from stream capture (graph.c): record, instantiate, replay."""

from __future__ import annotations

import pytest
from cpu_device.harness import module, run, values


@pytest.fixture(scope="module")
def gr() -> dict[str, str]:
    r = run("graph", str(module("kernels")))
    assert r.returncode == 0, r.stderr
    return values(r)


def test_capture_records_without_running(gr: dict[str, str]) -> None:
    assert gr["capturing"] == "1,1"            # active, with a capture id
    assert gr["nothing_ran"] == "0,-1,1"       # no host call, no copy, no memset yet
    assert gr["capturing_after"] == "0"
    assert gr["nodes"] == "5"                  # copy, memset, kernel, copy, host function


def test_replay_runs_the_work_each_launch(gr: dict[str, str]) -> None:
    # y = 2 * x with x copied from host memory at each replay (x = i, then x = 2i)
    assert gr["replay1"] == "1,10,1998"
    assert gr["replay3"] == "3,20,3996"        # two more launches, on two streams


def test_what_capture_refuses(gr: dict[str, str]) -> None:
    # (captured stream-ordered allocation is a memory node: test_cpu_device_graph_mem.py)
    for key in ("capture_null_stream", "capture_sync", "capture_query"):
        assert gr[key] == "hipErrorStreamCaptureUnsupported", key
    assert gr["end_not_capturing"] == gr["begin_twice"] == "hipErrorIllegalState"
    for key in ("exec_destroy_twice", "launch_destroyed", "graph_destroy_twice"):
        assert gr[key] == "hipErrorInvalidValue", key


def test_fork_join_capture_across_streams(gr: dict[str, str]) -> None:
    """An event recorded in a capture marks it (no node); a stream waiting on it joins the
    capture, and ending the capture ends it on every stream that joined."""
    assert gr["capture_event_record"] == "hipSuccess"
    assert gr["fork_joined"] == "1,1"          # capturing, into the same capture
    assert gr["capture_wait_outside_event"] == "hipErrorStreamCaptureIsolation"
    assert gr["fork_ended"] == "1"
    assert gr["fork_captured"] == "0,0,2"      # nothing ran; one memset from each stream
    assert gr["fork_replay"] == "5,7"


def test_driver_api_memset_and_copy_nodes(gr: dict[str, str]) -> None:
    """hipDrvGraphAddMemsetNode / hipDrvGraphAddMemcpyNode (what cuGraphAddMemsetNode and
    cuGraphAddMemcpyNode map to): a pitched memset, then a copy by cuMemcpy3D's descriptor."""
    assert gr["drv_nodes_copy"] == "7e,7e,0,7e,7e,0"   # bytes 3..5 of rows 1..2; 1..4 were set
    assert gr["drv_nodes_memset"] == "12,0,0"         # 4 bytes x 3 rows; byte 0 and 5 untouched
    assert gr["drv_node_bad_ctx"] == "hipErrorInvalidContext"
    assert gr["drv_node_empty_copy"] == "hipSuccess"
    assert gr["drv_node_missing_side"] == "hipErrorInvalidValue"


def test_graph_built_node_by_node(gr: dict[str, str]) -> None:
    assert gr["explicit_nodes"] == "5,1,1"        # in insertion order
    assert gr["explicit_replay"] == "4,30,5994"   # y = 3 * x with x = 2i; one more host call
    assert gr["node_foreign_dep"] == gr["node_bad_kernel"] == "hipErrorInvalidValue"


def test_exec_kernel_node_new_parameters(gr: dict[str, str]) -> None:
    """hipGraphExecKernelNodeSetParams (cuGraphExecKernelNodeSetParams, cuda-samples'
    jacobiCudaGraphs): the exec's kernel runs with a = 4 (y = 4 * 2i), copied when set."""
    assert gr["exec_set_params"] == "40,7992"
    for key in ("exec_set_params_not_kernel", "exec_set_params_foreign",
                "exec_set_params_null", "exec_set_params_bad_block"):
        assert gr[key] == "hipErrorInvalidValue", key


def test_exec_update(gr: dict[str, str]) -> None:
    """hipGraphExecUpdate (cuGraphExecUpdate): refused for another topology (2) or other
    node kinds (3, naming the first differing node), the exec unchanged; from a graph of the
    same shape the exec runs that graph's work (a = 3 again)."""
    assert gr["exec_update_topology"] == "hipErrorGraphExecUpdateFailure,2"
    assert gr["exec_update_kinds"] == "hipErrorGraphExecUpdateFailure,3,1"
    assert gr["exec_update_kept"] == "7992"
    assert gr["exec_update_same_shape"] == "hipSuccess,0,5994"
    assert gr["exec_update_null_result"] == "hipErrorInvalidValue"


def test_clone_replays_the_same_work(gr: dict[str, str]) -> None:
    # every node cloned, one host call per launch, and the same result as the original
    nodes = gr["explicit_nodes"].split(",")[0]
    result = gr["explicit_replay"].split(",")[2]
    assert gr["clone_replay"] == f"{nodes},1,{result}"
    assert gr["clone_null"] == "hipErrorInvalidValue"


def test_user_objects_live_while_a_graph_holds_them(gr: dict[str, str]) -> None:
    # cuda.core keeps a captured graph's Python objects alive with user objects
    assert gr["user_object"] == "0,0,1"  # graph, clone gone: the exec still holds it
    assert gr["user_object_after_last"] == "hipErrorInvalidValue"
    assert gr["user_object_flags"] == "hipErrorInvalidValue"  # NoDestructorSync is required
