"""Graph memory nodes on the CPU device (graph_mem.c): what cudaGraphAddMemAllocNode,
cudaGraphAddMemFreeNode, captured cudaMallocAsync/cudaFreeAsync and
cudaDeviceGetGraphMemAttribute map to."""

from __future__ import annotations

from cpu_device.harness import run, values


def test_graph_memory_nodes_addresses_frees_and_accounting() -> None:
    r = run("graph_mem")
    assert r.returncode == 0, r.stderr
    v = values(r)
    # used, used high-water, reserved, reserved high-water
    assert v["attrs_start"] == "0,0,0,0"
    assert v["alloc_address"] == "1"
    assert v["attrs_added"] == "0,0,4096,4096"
    assert v["free_node_not_graph_memory"] == "hipErrorInvalidValue"
    assert v["alloc_node_zero_bytes"] == v["alloc_node_other_device"] == "hipErrorInvalidValue"
    assert v["launch1"] == v["launch2"] == "33"          # the node's memory is usable each launch
    assert v["attrs_launched"] == "0,4096,4096,4096"     # allocated then freed by the graph
    assert v["attrs_kept"] == "1000,4096,5096,5096"      # not freed by its graph: still in use
    assert v["hipfree_graph_memory"] == "hipSuccess"
    assert v["memset_before_launch"] == v["memset_after_hipfree"] == "hipErrorInvalidValue"
    assert v["used_after_hipfree"] == "0"
    assert v["used_after_freeasync"] == "0"              # relaunched, then freed on the stream
    assert v["capture_free_plain_memory"] == "hipErrorStreamCaptureUnsupported"
    assert v["captured_nodes"] == "4,1"                  # alloc, memset, copy, free
    assert v["captured_launch"] == "44,0"
    assert v["reset_used_high"] == v["trim"] == "hipSuccess"
    assert v["set_high_nonzero"] == v["set_current"] == "hipErrorInvalidValue"
    assert v["attr_bad_device"] == "hipErrorInvalidDevice"
    assert v["used_high_after_reset"] == "0"
    assert v["reserved_graphs_gone"] == "5352"           # executable graphs still name them
    assert v["reserved_all_gone"] == "0"
