"""Warp vectors: a chain of region loops split only by constant shuffles, run one warp at a
time with each register a vector of its 32 lanes (C vector extensions), in the region loops'
copy for 1-D blocks of whole warps.

Why: a region loop ends at every shuffle, so a warp scan by shfl.up (5 steps) is 5 loops
over the block, each storing its values to per-thread arrays and the next loading them
back, shifted. In registers, the shuffle is one lane permutation (scan's figures:
benchmarks/README.md).

What: regions j0..j1 qualify when every one of them runs in SIMD lockstep, none is guarded
by a %tid range or may be skipped by a thread (no exits, no branches between regions),
each but the last ends at a constant shfl.up/down over the whole warp that every thread
reaches, and their instructions are 32-bit integer arithmetic, comparisons, selp and movs
(the last region may end in a lane tail, which then runs after the chain as before). The
shuffle that ends region j0 - 1 starts the chain, its source read from the array that
region deposited it in. Registers the chain reads are loaded from their per-thread arrays,
recomputed from %tid (rematerialisable ones) or broadcast (uniform ones, whose own
definitions stay scalar C); those a later region or the tail reads are stored back.
Anything else keeps the scalar region loops.
"""

from __future__ import annotations

from pyshim.ptx import ir
from pyshim.ptx.isa.emitter import cname_reg
from pyshim.ptx.isa.instructions import INT32 as _INT
from pyshim.ptx.isa.instructions import INT_CMP, UNSIGNED_CMP
from pyshim.ptx.isa.instructions import INT_OPERATOR as _ARITH


class _Bail(Exception):
    """The chain holds something warp vectors do not express."""


def _imm(op: ir.Operand) -> int | None:
    if type(op) is ir.Imm and op.kind == "int" and not op.bits:
        return int(op.value) & 0xFFFFFFFF
    return None


class _Chain:
    def __init__(self, uniform: set[str], remat: dict[str, ir.Instruction],
                 arrays: dict[str, str], scalar: dict[int, str],
                 const: dict[int, tuple[str, int]]) -> None:
        self.const = const            # shuffle site -> (mode, d)
        self.uniform = uniform        # PTX names of registers uniform over the block
        self.remat = remat            # PTX name -> its one definition (from %tid, uniform)
        self.arrays = arrays          # PTX name -> C type of its per-thread array
        self.scalar = scalar          # site -> the scalar C of an instruction (uniform dst)
        self.vec: dict[str, str] = {}  # PTX name -> C vector variable
        self.defined: list[str] = []  # registers the chain defines, in order
        self.loads: list[str] = []
        self.code: list[str] = []

    def var(self, name: str) -> str:
        return "pv_" + cname_reg(name)[2:]

    def read(self, op: ir.Operand) -> str:
        v = _imm(op)
        if v is not None:
            return f"((ps_v32u){{0}} + {v}u)"
        if type(op) is not ir.Reg:
            raise _Bail
        name = op.name
        if name == "%tid.x":
            return "ps_tidv"
        if name in self.vec:
            return self.vec[name]
        if name in self.uniform:
            return f"((ps_v32u){{0}} + (uint32_t){cname_reg(name)})"
        var = self.var(name)
        if name in self.remat:
            self.vec[name] = var  # (before the definition: a cycle would bail below)
            self.loads.append(f"ps_v32u {var};")
            saved, self.code = self.code, []
            self.emit(self.remat[name], define=False)
            self.loads += self.code
            self.code = saved
            return var
        if self.arrays.get(name) in ("uint32_t", "int32_t"):
            self.loads.append(f"ps_v32u {var}; memcpy(&{var}, ps_s_{cname_reg(name)} + ps_w, 128);")
            self.vec[name] = var
            return var
        raise _Bail

    def dest(self, op: ir.Operand, define: bool = True) -> str:
        if type(op) is not ir.Reg or "." in op.name:
            raise _Bail
        var = self.var(op.name)
        if op.name not in self.vec:
            self.code.append(f"ps_v32u {var};")
            self.vec[op.name] = var
        if define:
            self.defined.append(op.name)
        return var

    def emit(self, s: ir.Instruction, define: bool = True) -> None:
        ops, mods, code = s.operands, s.mods, s.opcode
        if s.pred is not None:
            raise _Bail
        if ops and type(ops[0]) is ir.Reg and ops[0].name in self.uniform:
            if s.site not in self.scalar:
                raise _Bail
            self.code.append(self.scalar[s.site])  # the block's one value, as scalar C
            return
        ty = mods[-1] if mods else ""
        if code == "mov" and ty in _INT and len(ops) == 2:
            d = self.dest(ops[0], define)
            self.code.append(f"{d} = {self.read(ops[1])};")
        elif code in _ARITH and ty in _INT and len(mods) == 1 and len(ops) == 3:
            a, b = self.read(ops[1]), self.read(ops[2])
            self.code.append(f"{self.dest(ops[0], define)} = {a} {_ARITH[code]} {b};")
        elif code == "mul" and mods[:1] == ("lo",) and ty in _INT and len(ops) == 3:
            a, b = self.read(ops[1]), self.read(ops[2])
            self.code.append(f"{self.dest(ops[0], define)} = {a} * {b};")
        elif code in ("shl", "shr") and ty in _INT and len(mods) == 1 and len(ops) == 3:
            k = _imm(ops[2])
            if k is None or k > 31:
                raise _Bail
            a = self.read(ops[1])
            if code == "shr" and ty == "s32":
                expr = f"(ps_v32u)((ps_v32i){a} >> {k})"
            else:
                expr = f"{a} {'<<' if code == 'shl' else '>>'} {k}"
            self.code.append(f"{self.dest(ops[0], define)} = {expr};")
        elif (code == "setp" and len(mods) == 2 and mods[0] in INT_CMP and mods[1] in _INT
              and len(ops) == 3):
            a, b = self.read(ops[1]), self.read(ops[2])
            if mods[1] == "s32" and mods[0] not in UNSIGNED_CMP:
                a, b = f"(ps_v32i){a}", f"(ps_v32i){b}"
            d = self.dest(ops[0], define)
            self.code.append(f"{d} = (ps_v32u)({a} {INT_CMP[mods[0]]} {b});")
        elif code == "selp" and ty in _INT and len(ops) == 4:
            a, b, p = self.read(ops[1]), self.read(ops[2]), self.read(ops[3])
            d = self.dest(ops[0], define)
            self.code.append(f"{d} = ({a} & {p}) | ({b} & ~{p});")
        elif code == "shfl":
            self.shuffle(s, define)
        else:
            raise _Bail

    def shuffle(self, s: ir.Instruction, define: bool, source: str | None = None) -> None:
        """A constant shfl.up/down over the whole warp (the caller checked which): the
        source lane's value where it is in range, else the lane's own."""
        if s.site not in self.const:
            raise _Bail
        mode, d = self.const[s.site]
        a = source or self.read(s.operands[1])
        if mode == "up":
            idx = [0] * d + list(range(32 - d))
            keep = [i >= d for i in range(32)]
        else:
            idx = list(range(d, 32)) + [31] * d
            keep = [i + d < 32 for i in range(32)]
        mask = "(ps_v32u){" + ", ".join("0xffffffffu" if k else "0u" for k in keep) + "}"
        dst = s.operands[0]
        first, second = (dst.first, dst.second) if type(dst) is ir.PredPair else (dst, None)
        shifted = f"__builtin_shufflevector({a}, {a}, {', '.join(map(str, idx))})"
        d_var = self.dest(first, define)
        self.code.append(f"{d_var} = ({shifted} & {mask}) | ({a} & ~{mask});")
        if second is not None:
            self.code.append(f"{self.dest(second, define)} = {mask};")


def chain_loop(insts: list[ir.Instruction], first_source: str, uniform: set[str],
               remat: dict[str, ir.Instruction], arrays: dict[str, str],
               scalar: dict[int, str], const: dict[int, tuple[str, int]],
               stores: set[str]) -> list[str] | None:
    """C lines running `insts` (the shuffle that opens the chain, then the instructions of
    its regions) for every warp of a 1-D block of whole warps, or None if some instruction
    is not one warp vectors express. `first_source`: the array holding the opening
    shuffle's source; `const`: site -> (mode, d) of each shuffle; `stores`: the registers
    (PTX names) whose per-thread arrays are read after the chain."""
    ch = _Chain(uniform, remat, arrays, scalar, const)
    try:
        ch.loads.append(f"ps_v32u pv_src; memcpy(&pv_src, {first_source} + ps_w, 128);")
        ch.shuffle(insts[0], True, source="pv_src")
        for s in insts[1:]:
            ch.emit(s)
        out = []
        for name in dict.fromkeys(ch.defined):
            if name in stores:
                if arrays.get(name) not in ("uint32_t", "int32_t"):
                    raise _Bail
                out.append(f"memcpy(ps_s_{cname_reg(name)} + ps_w, &{ch.vec[name]}, 128);")
    except _Bail:
        return None
    return ["    for (uint32_t ps_w = 0; ps_w < nx; ps_w += 32) {",
            "        const ps_v32u ps_tidv = ps_iota32 + ps_w;",
            *("        " + x for x in ch.loads + ch.code + out),
            "    }"]
