"""mbarrier.* and cp.async.mbarrier.arrive (PTX ISA 9.7.13.15, 9.7.9.25.3) on the CPU
device: the object's semantics in preludes/mbarrier_cpu.h, kernels using it run as fibers
(passes/classify_sync.py) so that a waiting thread lets the others arrive."""

from __future__ import annotations

from pyshim.ptx import ir
from pyshim.ptx.isa import cluster
from pyshim.ptx.isa.emitter import FunctionEmitter

Fe = FunctionEmitter
I = ir.Instruction  # noqa: E741

_IGNORED = {"release", "acquire", "relaxed", "cta", "cluster", "shared", "shared::cta",
            "shared::cluster", "b64"}


def uses(module: ir.Module) -> bool:
    return any(type(s) is ir.Instruction and (s.opcode == "mbarrier" or s.opcode == "cp"
                                              and s.mods[:2] == ("async", "mbarrier"))
               for f in module.functions for s in f.body or ())


def _cpu(fe: Fe, inst: I) -> None:
    if not fe.tr.target.name.startswith("cpu"):
        raise fe.unsupported(inst, f"mbarrier on target {fe.tr.target.name}")


def _space(inst: I) -> str:
    return "shared" if any(m.startswith("shared") for m in inst.mods) else "generic"


def _addr(fe: Fe, op: ir.Operand, sp: str, inst: I) -> str:
    """The object's address; a shared::cluster one must be the block's own (a barrier of
    another block of the cluster, which that block's thread updates too, traps)."""
    ptr = fe.addr(op, sp, inst)
    if "shared::cluster" in inst.mods:
        return cluster.shared_cluster_own_ptr(fe, inst, ptr)
    return ptr


def mbarrier(fe: Fe, inst: I) -> str:
    _cpu(fe, inst)
    if not inst.mods:
        raise fe.unsupported(inst)
    op, rest = inst.mods[0], [m for m in inst.mods[1:] if m not in _IGNORED]
    ops = inst.operands
    sp = _space(inst)
    if op == "init" and not rest and len(ops) == 2:
        return f"ps_mb_init({_addr(fe, ops[0], sp, inst)}, {fe.src(ops[1], 'u32', inst)});"
    if op == "inval" and not rest and len(ops) == 1:
        return ";"
    if op in ("arrive", "arrive_drop") and set(rest) <= {"noComplete", "expect_tx"}:
        drop = int(op == "arrive_drop")
        if "noComplete" in rest:
            raise fe.unsupported(inst)
        state, addr, *more = ops
        if "expect_tx" in rest:
            if len(more) != 1:
                raise fe.bad(inst, "expect_tx takes a transaction count")
            count, tx = "1u", f"(int32_t){fe.src(more[0], 'u32', inst)}"
        else:
            count, tx = (fe.src(more[0], "u32", inst) if more else "1u"), "0"
        call = f"ps_mb_arrive({_addr(fe, addr, sp, inst)}, {count}, {drop}, {tx})"
        if type(state) is ir.Sym and state.name == "_":
            return f"(void){call};"
        return fe.dst(state, "b64", call, inst)
    if op in ("expect_tx", "complete_tx") and not rest and len(ops) == 2:
        sign = "" if op == "expect_tx" else "-"
        return f"ps_mb_tx_add({_addr(fe, ops[0], sp, inst)}, {sign}(int32_t){fe.src(ops[1], 'u32', inst)});"
    if op in ("test_wait", "try_wait") and set(rest) <= {"parity"} and len(ops) in (3, 4):
        p, addr, st = ops[:3]  # try_wait's suspend-time hint, if any, changes nothing
        parity = (fe.src(st, "u32", inst) if "parity" in rest
                  else f"(uint32_t)({fe.src(st, 'b64', inst)} >> 63)")
        fe.context = True
        return fe.dst(p, "pred", f"ps_mb_wait(ctx, {_addr(fe, addr, sp, inst)}, {parity})", inst)
    if op == "pending_count" and len(ops) == 2:
        return fe.dst(ops[0], "u32", f"0u /* {fe.src(ops[1], 'b64', inst)} */", inst)
    raise fe.unsupported(inst)


def cp_async_arrive(fe: Fe, inst: I) -> str:
    """cp.async.mbarrier.arrive{.noinc}: an arrive once this thread's cp.async copies are
    done; they are done at issue here. Without .noinc the pending count is raised by one
    first, so the arrive changes nothing."""
    _cpu(fe, inst)
    rest = [m for m in inst.mods[3:] if m not in _IGNORED]
    if inst.mods[2:3] != ("arrive",) or rest not in ([], ["noinc"]) or len(inst.operands) != 1:
        raise fe.unsupported(inst)
    if not rest:
        return ";"
    return f"(void)ps_mb_arrive({_addr(fe, inst.operands[0], _space(inst), inst)}, 1u, 0, 0);"
