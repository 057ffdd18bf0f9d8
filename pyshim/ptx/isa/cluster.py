"""Thread-block clusters (PTX ISA 9.7.13.4 barrier.cluster, 9.7.9.22 mapa, 9.7.9.23
getctarank, 10.x the %cluster_* special registers): what nvcc emits for cooperative_groups'
cluster_group (sync, block_rank, block_index, map_shared_rank) and __cluster_dims__. The CPU
device's semantics are in preludes/cluster_cpu.h; the GPU targets refuse them by name (ROCm
has no clusters)."""

from __future__ import annotations

from pyshim.ptx import ir
from pyshim.ptx.isa.emitter import FunctionEmitter

Fe = FunctionEmitter
I = ir.Instruction  # noqa: E741

_AXES = {"x": 0, "y": 1, "z": 2}
# special register -> C over the thread's context `ctx` (cluster_cpu.h)
SPECIAL: dict[str, str] = {
    **{f"%cluster_ctaid.{a}": f"ps_cl_ctaid(ctx, {i})" for a, i in _AXES.items()},
    **{f"%cluster_nctaid.{a}": f"ps_cl_dim(ctx, {i})" for a, i in _AXES.items()},
    **{f"%clusterid.{a}": f"ps_cl_id(ctx, {i})" for a, i in _AXES.items()},
    **{f"%nclusterid.{a}": f"ps_cl_nid(ctx, {i})" for a, i in _AXES.items()},
    "%cluster_ctarank": "ps_cl_rank(ctx)",
    "%cluster_nctarank": "ps_cl_nrank(ctx)",
    "%is_explicit_cluster": "PS_CL_EXPLICIT(ctx)",
}


def uses(module: ir.Module) -> bool:
    """Whether a module uses clusters in a way the launch must know of (barrier.cluster)."""
    return any(type(s) is I and is_cluster_barrier(s)
               for f in module.functions for s in f.body or ())


def is_cluster_barrier(inst: I) -> bool:
    return inst.opcode == "barrier" and inst.mods[:1] == ("cluster",)


def _cpu(fe: Fe, inst: I, what: str = "") -> None:
    if not fe.tr.target.name.startswith("cpu"):
        raise fe.unsupported(inst, f"{what + ': ' if what else ''}thread-block clusters on "
                                   f"target {fe.tr.target.name}")
    fe.need("cluster_cpu.h")
    fe.context = True


def special_mov(fe: Fe, inst: I, ty: str, d: ir.Operand, name: str) -> str:
    """mov d, %cluster_*: the register read through the cluster prelude."""
    _cpu(fe, inst, name)
    if name == "%is_explicit_cluster":
        if ty != "pred":
            raise fe.bad(inst, "%is_explicit_cluster is a predicate")
        return fe.dst(d, "pred", f"({SPECIAL[name]} != 0)", inst)
    return fe.dst(d, ty, fe.convert(SPECIAL[name], "u32", ty, inst), inst)


def barrier(fe: Fe, inst: I) -> str:
    """barrier.cluster.arrive{.release,.relaxed}{.aligned} / barrier.cluster.wait{.acquire}
    {.aligned}: every thread of every block of the cluster. `.relaxed` only weakens the
    ordering, which the CPU's release/acquire pair gives anyway."""
    _cpu(fe, inst)
    mods = [m for m in inst.mods[1:] if m != "aligned"]
    if inst.operands:
        raise fe.bad(inst, "barrier.cluster takes no operands")
    if mods in (["arrive"], ["arrive", "release"], ["arrive", "relaxed"]):
        return "ps_cl_arrive(ctx);"
    if mods in (["wait"], ["wait", "acquire"]):
        return "ps_cl_wait(ctx);"
    raise fe.unsupported(inst)


def mapa(fe: Fe, inst: I) -> str:
    """mapa{.shared::cluster}.{u32,u64} d, a, rank."""
    _cpu(fe, inst)
    mods = list(inst.mods)
    if len(mods) not in (1, 2) or mods[-1] not in ("u32", "u64") \
            or (len(mods) == 2 and mods[0] != "shared::cluster"):
        raise fe.unsupported(inst)
    ty = mods[-1]
    if len(inst.operands) != 3:
        raise fe.bad(inst, "mapa takes d, a, rank")
    d, a, r = inst.operands
    rank = fe.src(r, "u32", inst)
    if len(mods) == 2:
        x = fe.src(a, ty, inst)
        return fe.dst(d, ty, fe.convert(f"ps_mapa_shared(ctx, (uint64_t){x}, {rank})", "u64",
                                        ty, inst), inst)
    if ty != "u64":
        raise fe.unsupported(inst, "32-bit generic addresses")
    fe.shared_window()  # the block's window: published for the other blocks
    return fe.dst(d, ty, f"ps_mapa_generic(ctx, {fe.src(a, 'u64', inst)}, {rank})", inst)


def getctarank(fe: Fe, inst: I) -> str:
    """getctarank{.shared::cluster}.{u32,u64} d, a: the rank of the block a points into."""
    _cpu(fe, inst)
    mods = list(inst.mods)
    if len(mods) not in (1, 2) or mods[-1] not in ("u32", "u64") \
            or (len(mods) == 2 and mods[0] != "shared::cluster"):
        raise fe.unsupported(inst)
    if len(inst.operands) != 2:
        raise fe.bad(inst, "getctarank takes d, a")
    d, a = inst.operands
    x = fe.src(a, mods[-1], inst)
    if len(mods) == 2:
        return fe.dst(d, "u32", f"ps_getctarank_shared(ctx, (uint64_t){x})", inst)
    fe.shared_window()
    return fe.dst(d, "u32", f"ps_getctarank_generic(ctx, (uint64_t){x})", inst)


def shared_cluster_ptr(fe: Fe, inst: I, ptr: str) -> str:
    """The pointer of an ld/st/atom/red.shared::cluster whose address, read as a shared::cta
    one, is `ptr` (the window + the address): what the shared::cluster address names."""
    if not fe.tr.target.name.startswith("cpu"):
        return ptr  # a cluster of one block: the GPU targets' clusters are refused
    _cpu(fe, inst)
    return f"ps_cl_ptr(ctx, (uint64_t)({ptr} - {fe.shared_window()}))"


def shared_cluster_own_ptr(fe: Fe, inst: I, ptr: str) -> str:
    """As shared_cluster_ptr, for an instruction the CPU device completes only on the block's
    own shared memory (mbarrier's plain read-modify-writes): another block's address traps."""
    _cpu(fe, inst)
    return f"ps_cl_own_ptr(ctx, (uint64_t)({ptr} - {fe.shared_window()}))"
