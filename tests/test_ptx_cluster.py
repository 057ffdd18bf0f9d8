"""Thread-block clusters in the translator (isa/cluster.py, preludes/cluster_cpu.h): the
%cluster_* registers, barrier.cluster, mapa / getctarank and the shared::cluster accesses on
the CPU device, run by the PTX harness as the device runs a cluster launch (its blocks at
once, a thread each) and as a plain launch (every block a cluster of one); a block that
leaves its cluster's barrier short is a deadlock trap, not a hang; the GPU targets refuse
clusters by name; modules without them get C without the cluster prelude. The nvcc-built
programs are tests/test_runtime_programs.py's test_thread_block_clusters."""

from __future__ import annotations

import numpy as np
import pytest
from ptx.harness import build

from pyshim.ptx.errors import UnsupportedInstruction
from pyshim.ptx.translate import translate

HEAD = ".version 8.0\n.target sm_90\n.address_size 64\n"

# out[block * 9 + i]: the cluster registers of each block
REGS = HEAD + """
.visible .entry regs(.param .u64 out)
.reqnctapercluster 2, 2, 1
{
  .reg .pred %p<2>; .reg .b32 %r<12>; .reg .b64 %rd<4>;
  mov.u32 %r1, %tid.x;
  setp.ne.u32 %p1, %r1, 0;
  @%p1 bra $DONE;
  ld.param.u64 %rd1, [out];
  mov.u32 %r2, %ctaid.x; mov.u32 %r3, %ctaid.y; mov.u32 %r4, %nctaid.x;
  mad.lo.u32 %r5, %r3, %r4, %r2;
  mul.lo.u32 %r5, %r5, 9;
  mul.wide.u32 %rd2, %r5, 4;
  add.s64 %rd1, %rd1, %rd2;
  mov.u32 %r6, %cluster_ctaid.x;   st.global.u32 [%rd1], %r6;
  mov.u32 %r6, %cluster_ctaid.y;   st.global.u32 [%rd1+4], %r6;
  mov.u32 %r6, %cluster_nctaid.x;  st.global.u32 [%rd1+8], %r6;
  mov.u32 %r6, %clusterid.x;       st.global.u32 [%rd1+12], %r6;
  mov.u32 %r6, %clusterid.y;       st.global.u32 [%rd1+16], %r6;
  mov.u32 %r6, %nclusterid.x;      st.global.u32 [%rd1+20], %r6;
  mov.u32 %r6, %cluster_ctarank;   st.global.u32 [%rd1+24], %r6;
  mov.u32 %r6, %cluster_nctarank;  st.global.u32 [%rd1+28], %r6;
  mov.pred %p1, %is_explicit_cluster;
  selp.u32 %r6, 1, 0, %p1;         st.global.u32 [%rd1+32], %r6;
$DONE:
  ret;
}
"""

# out[ctaid * ntid + t] = what thread (t + 1) % ntid of the next rank stored in its shared
# array before the cluster barrier (ctaid * 1000 + tid), read through mapa.shared::cluster
XCHG = HEAD + """
.visible .entry xchg(.param .u64 out)
{
  .reg .b32 %r<16>; .reg .b64 %rd<4>;
  .shared .align 4 .b8 sm[1024];
  mov.u32 %r1, %tid.x; mov.u32 %r2, %ntid.x;
  mov.u32 %r3, %cluster_ctarank; mov.u32 %r4, %cluster_nctarank;
  mov.u32 %r5, %ctaid.x;
  mad.lo.u32 %r6, %r5, 1000, %r1;
  shl.b32 %r7, %r1, 2;
  mov.u32 %r8, sm;
  add.u32 %r8, %r8, %r7;
  st.shared.u32 [%r8], %r6;
  barrier.cluster.arrive.release.aligned;
  barrier.cluster.wait.acquire.aligned;
  add.u32 %r9, %r1, 1; rem.u32 %r9, %r9, %r2; shl.b32 %r9, %r9, 2;
  mov.u32 %r10, sm; add.u32 %r10, %r10, %r9;
  add.u32 %r11, %r3, 1; rem.u32 %r11, %r11, %r4;
  mapa.shared::cluster.u32 %r12, %r10, %r11;
  getctarank.shared::cluster.u32 %r13, %r12;
  ld.shared::cluster.u32 %r6, [%r12];
  barrier.cluster.arrive;
  barrier.cluster.wait;
  ld.param.u64 %rd1, [out];
  mad.lo.u32 %r7, %r5, %r2, %r1;
  mul.wide.u32 %rd2, %r7, 8;
  add.s64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r6;
  st.global.u32 [%rd3+4], %r13;
  ret;
}
"""

# every rank but 1 waits at the cluster barrier; rank 1 leaves without arriving
SHORT = HEAD + """
.visible .entry short(.param .u64 out)
{
  .reg .pred %p<2>; .reg .b32 %r<4>;
  mov.u32 %r1, %cluster_ctarank;
  setp.eq.u32 %p1, %r1, 1;
  @%p1 bra $OUT;
  barrier.cluster.arrive;
  barrier.cluster.wait;
$OUT:
  ret;
}
"""

TARGETS = ["cpu-wave64", "cpu-wave32"]


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("explicit", [True, False])
def test_cluster_registers(tmp_path, target: str, explicit: bool) -> None:
    grid = (4, 6, 1)
    m = build(REGS, target, tmp_path)
    out = np.zeros(grid[0] * grid[1] * 9, np.uint32)
    m.launch("regs", grid, (32,), [out], cluster=(2, 2, 1) if explicit else None)
    c = (2, 2) if explicit else (1, 1)
    for y in range(grid[1]):
        for x in range(grid[0]):
            want = [x % c[0], y % c[1], c[0], x // c[0], y // c[1], grid[0] // c[0],
                    x % c[0] + c[0] * (y % c[1]), c[0] * c[1], int(explicit)]
            got = out[(y * grid[0] + x) * 9:][:9].tolist()
            assert got == want, (x, y)


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("size", [1, 2, 4, 8, 16])
def test_cluster_barrier_and_distributed_shared_memory(tmp_path, target: str,
                                                       size: int) -> None:
    m = build(XCHG, target, tmp_path)
    blocks, threads = 16, 64
    out = np.zeros((blocks * threads, 2), np.uint32)
    codes = m.launch("xchg", (blocks,), (threads,), [out], cluster=(size, 1, 1))
    assert codes == [0] * blocks
    for b in range(blocks):
        nxt = b // size * size + (b % size + 1) % size
        for t in range(threads):
            assert out[b * threads + t].tolist() == [nxt * 1000 + (t + 1) % threads,
                                                    (b % size + 1) % size], (b, t)


@pytest.mark.parametrize("target", TARGETS)
def test_plain_launch_is_clusters_of_one(tmp_path, target: str) -> None:
    """Without a cluster launch, barrier.cluster is the block's barrier and mapa names the
    block itself, as CUDA has it (every block a cluster of one)."""
    m = build(XCHG, target, tmp_path)
    blocks, threads = 3, 64
    out = np.zeros((blocks * threads, 2), np.uint32)
    m.launch("xchg", (blocks,), (threads,), [out])
    for b in range(blocks):
        for t in range(threads):
            assert out[b * threads + t].tolist() == [b * 1000 + (t + 1) % threads, 0]


def test_a_block_leaving_its_cluster_barrier_short_is_a_deadlock_trap(tmp_path) -> None:
    m = build(SHORT, "cpu-wave64", tmp_path)
    out = np.zeros(1, np.uint32)
    codes = m.launch("short", (4,), (32,), [out], cluster=(2, 1, 1))
    assert codes == [3, 0, 3, 0]  # PYSHIM_TRAP_DEADLOCK for the ranks 0 that waited


def _one(line: str) -> str:
    return HEAD + f"""
.visible .entry k(.param .u64 out)
{{
  .reg .b32 %r<4>; .reg .b64 %rd<4>;
  mov.u32 %r1, %tid.x; cvt.u64.u32 %rd1, %r1;
  {line}
  ret;
}}
"""


@pytest.mark.parametrize("target", ["hip-wave64:gfx942", "hip-wave32:gfx1100", "cuda"])
@pytest.mark.parametrize("line,name", [
    ("mov.u32 %r2, %cluster_ctaid.x;", "%cluster_ctaid.x"),
    ("mov.u32 %r2, %cluster_ctarank;", "%cluster_ctarank"),
    ("barrier.cluster.arrive.aligned;", "barrier.cluster.arrive"),
    ("barrier.cluster.wait;", "barrier.cluster.wait"),
    ("mapa.u64 %rd2, %rd1, %r1;", "mapa.u64"),
    ("mapa.shared::cluster.u32 %r2, %r1, %r1;", "mapa.shared::cluster.u32"),
    ("getctarank.shared::cluster.u32 %r2, %r1;", "getctarank.shared::cluster.u32"),
], ids=lambda v: v if v.startswith(("%", "b", "m", "g")) and " " not in v else None)
def test_gpu_targets_refuse_clusters_by_name(target: str, line: str, name: str) -> None:
    with pytest.raises(UnsupportedInstruction) as e:
        translate(_one(line), target)
    assert name in str(e.value) and "thread-block clusters" in str(e.value), str(e.value)


def test_cluster_prelude_and_descriptor_only_where_used() -> None:
    plain = HEAD + """
.visible .entry k(.param .u64 out)
{
  .reg .b32 %r<2>; .reg .b64 %rd<2>;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  st.global.u32 [%rd1], %r1;
  ret;
}
"""
    c = translate(plain, "cpu-wave64")
    assert "cluster_cpu.h" not in c and "ps_cl_" not in c
    assert '{"k", k0_run_block, 1u, 8u, k0_params, 0u, 0u, 0u, {0u, 0u, 0u}, 0u, 4u}' in c
    c = translate(REGS, "cpu-wave64")
    assert "/* ---- cluster_cpu.h ---- */" in c
    assert "u, {2u, 2u, 1u}, 0u}" in c  # .reqnctapercluster 2, 2, 1 without .explicitcluster


# an mbarrier named by a shared::cluster address: the block's own works, another block's
# traps (the CPU device updates an mbarrier with its block's plain read-modify-writes)
MBAR = HEAD + """
.visible .entry mb(.param .u32 target)
{
  .reg .b32 %r<8>;
  .shared .align 8 .b64 bar;
  mov.u32 %r2, bar;
  mbarrier.init.shared::cta.b64 [%r2], 1;
  barrier.cluster.arrive;
  barrier.cluster.wait;
  ld.param.u32 %r3, [target];
  mov.u32 %r4, %cluster_ctarank;
  add.u32 %r5, %r4, %r3;
  rem.u32 %r5, %r5, 2;
  mapa.shared::cluster.u32 %r6, %r2, %r5;
  mbarrier.arrive.release.cluster.shared::cluster.b64 _, [%r6];
  barrier.cluster.arrive;
  barrier.cluster.wait;
  ret;
}
"""


@pytest.mark.parametrize("target,codes", [(0, [0, 0]), (1, [1, 1])])
def test_mbarrier_of_another_block_traps(tmp_path, target: int, codes: list[int]) -> None:
    m = build(MBAR, "cpu-wave64", tmp_path)
    assert m.launch("mb", (2,), (1,), [target], cluster=(2, 1, 1)) == codes
