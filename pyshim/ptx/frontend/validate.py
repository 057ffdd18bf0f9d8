"""Operand checks that ptxas makes and the translator relied on without making: PTX that
ptxas refuses is refused here too, with the line and the reason, instead of being
translated into C that crashes inside the kernel (`ld.param.u64 %rd9, %rd3;` read through
a register as if it were a parameter's address; a 64-bit ballot destination; a 32-bit
register used as a global address; two parameters of one name).

The rules are ptxas's as measured (CUDA 13's ptxas on mutants of real kernels; the test
tests/test_ptx_validate.py runs them through both), kept to what can be judged from the
declarations alone:
- a floating-point register never goes with an integer (.u/.s) type (`ld.param.u32 %f1`,
  `add.u32 %r1, %f1, %r1`), only with a bit-size type or a floating-point one of its size;
- ld/ldu/st/cvt data registers may be wider than the instruction type, never narrower
  (`ld.global.f32` into a .b64 register is fine, into a .f64 one is not);
- the other listed instructions take registers of exactly the type's size (.pred only
  where the type is .pred), with the wide forms of mul/mad doubling the destination;
- ld/ldu/st take a memory operand `[...]`, and with `.address_size 64` a global or generic
  address is a 64-bit register;
- parameter names of a function are distinct.
Registers declared with different types in different scopes, and special registers, are
left alone (never a false refusal).
"""

from __future__ import annotations

import re

from pyshim.ptx import ir
from pyshim.ptx.errors import PtxError

_SIZE = {"pred": 1, "b8": 8, "u8": 8, "s8": 8, "b16": 16, "u16": 16, "s16": 16, "f16": 16,
         "bf16": 16, "e4m3x2": 16, "e5m2x2": 16, "b32": 32, "u32": 32, "s32": 32, "f32": 32,
         "f16x2": 32, "bf16x2": 32, "tf32": 32, "b64": 64, "u64": 64, "s64": 64, "f64": 64,
         "b128": 128}
_FLOAT = frozenset(("f16", "bf16", "f32", "f64", "f16x2", "bf16x2", "tf32", "e4m3x2",
                    "e5m2x2"))
# every operand a data operand of the instruction's type (the destination first)
_EXACT = frozenset(("add", "sub", "min", "max", "and", "or", "xor", "not", "neg", "abs",
                    "mul", "mad", "mov"))
_MEMORY = frozenset(("ld", "ldu", "st"))
_WIDE_ADDRESS_SPACES = ("global", "")  # 32-bit registers address shared/local/const fine
_NUMBERED = re.compile(r"(%[A-Za-z_$][A-Za-z_$]*?)(\d+)")


def validate(module: ir.Module) -> None:
    """Raise PtxError (line, reason) for the first operand ptxas would refuse."""
    # prefixes of %r<N> ranges anywhere in the module: such names are never special registers
    ranges = {v.name for fn in module.functions for v in [*module.variables, *(fn.body or ())]
              if type(v) is ir.Var and v.space == "reg" and v.count}
    for fn in module.functions:
        _Checker(module, fn, ranges).run()


class _Checker:
    def __init__(self, module: ir.Module, fn: ir.Function, ranges: set[str]) -> None:
        self.module = module
        self.fn = fn
        self.types: dict[str, str | None] = {}  # register -> type (None: ambiguous)
        self.ranges = ranges
        # shapes (_shape) of the memory and plain arithmetic instructions that passed: what
        # those checks read, so one of the same shape passes too (an unrolled body repeats
        # a few shapes thousands of times)
        self.passed: set[tuple] = set()
        types = self.types
        for v in [*module.variables, *(fn.body or ())]:
            if type(v) is ir.Var and v.space == "reg":
                names = [f"{v.name}{i}" for i in range(v.count)] if v.count else [v.name]
                if types.keys().isdisjoint(names):  # (the common case, in one C call)
                    types.update(dict.fromkeys(names, v.type))
                    continue
                for n in names:
                    if n in types and types[n] != v.type:
                        types[n] = None
                    else:
                        types.setdefault(n, v.type)

    def fail(self, message: str, tok: int) -> PtxError:
        src = self.module.source
        if src is not None and hasattr(src, "error"):
            return src.error(PtxError, message, tok, function=self.fn.name)
        return PtxError(message, function=self.fn.name)

    def run(self) -> None:
        seen: set[str] = set()
        for p in [*self.fn.params, *self.fn.returns]:
            if p.name in seen:
                raise self.fail(f"duplicate parameter name {p.name!r}", p.tok)
            seen.add(p.name)
        declared, instruction = self.declared, self.instruction
        for s in self.fn.body or ():
            if type(s) is ir.Instruction:
                declared(s)
                instruction(s)

    def declared(self, s: ir.Instruction) -> None:
        """A register named like a declared range (%r12 with %r<10>) must be in it (other
        names may be special registers, which are nobody's declarations)."""
        types = self.types
        if s.pred and s.pred not in types:
            self.undeclared(s, s.pred)
        for o in s.operands:
            t = type(o)
            if t is ir.Reg:
                if o.name not in types:
                    self.undeclared(s, o.name)
            elif t is ir.Addr:
                if type(o.base) is ir.Reg and o.base.name not in types:
                    self.undeclared(s, o.base.name)
            elif t is ir.PredPair:
                for r in (o.first, o.second):
                    if r.name not in types:
                        self.undeclared(s, r.name)
            elif t is ir.Neg:
                if o.reg.name not in types:
                    self.undeclared(s, o.reg.name)
            elif t is ir.Vec or t is ir.Args:
                for x in o.items:
                    if type(x) is ir.Reg and x.name not in types:
                        self.undeclared(s, x.name)

    def undeclared(self, s: ir.Instruction, name: str) -> None:
        m = _NUMBERED.fullmatch(name.lstrip("!"))
        if m and m.group(1) in self.ranges:
            raise self.fail(f"{s.opcode}: register {name} is not declared", s.tok)

    def reg_type(self, op: ir.Operand) -> str | None:
        if type(op) is ir.Reg:
            return self.types.get(op.name)
        return None

    def _shape(self, s: ir.Instruction) -> tuple:
        """Everything memory() and exact() read of `s` but the tokens bracketed() reads:
        the opcode, the modifiers, and per operand its kind and the registers' types."""
        types = self.types
        sig: list = [s.opcode, s.mods]
        for o in s.operands:
            t = type(o)
            if t is ir.Reg:
                sig.append(types.get(o.name))
            elif t is ir.Addr:
                b = o.base
                sig.append(("addr", types.get(b.name) if type(b) is ir.Reg else None))
            elif t is ir.Vec:
                sig.append(("vec", *(types.get(x.name) if type(x) is ir.Reg else None
                                     for x in o.items)))
            else:
                sig.append(t)
        return tuple(sig)

    def instruction(self, s: ir.Instruction) -> None:
        op = s.opcode
        if op in _MEMORY or op in _EXACT:
            shape = self._shape(s)
            if shape in self.passed:
                if op in _MEMORY and len(s.operands) >= 2 and not self.bracketed(s):
                    self.memory(s)  # (raises: the one check the shape leaves out)
                return
            if op in _MEMORY:
                self.memory(s)
            else:
                self.exact(s)
            self.passed.add(shape)
        elif op == "cvt":
            self.cvt(s)
        elif op == "vote" and s.operands:
            if "ballot" in s.mods:
                self.sized(s, s.operands[0], 32, "the destination of vote.ballot")
            elif any(m in s.mods for m in ("any", "all", "uni")):
                self.sized(s, s.operands[0], 1, "the destination of vote")
            for o in s.operands[1:2]:  # the predicate voted on (then the member mask)
                self.sized(s, o.reg if type(o) is ir.Neg else o, 1, "the vote's predicate")
            for o in s.operands[2:3]:
                self.sized(s, o, 32, "the member mask of vote")
        elif op == "shfl" and len(s.operands) >= 2:
            d = s.operands[0]
            if type(d) is ir.PredPair:  # d|p: the value and whether the lane was in range
                self.sized(s, d.second, 1, "the in-range flag of shfl")
                d = d.first
            self.sized(s, d, 32, "the destination of shfl")
            for i, o in enumerate(s.operands[1:], 2):  # value, lane, clamp, member mask
                self.sized(s, o, 32, f"operand {i} of shfl")
        elif op == "selp" and len(s.operands) == 4:
            t = _type_of(s.mods)
            if t is not None:
                for o in s.operands[:3]:
                    self.sized(s, o, _SIZE[t], f"a .{t} operand", t)
                self.sized(s, s.operands[3], 1, "the selector of selp")

    def sized(self, s: ir.Instruction, o: ir.Operand, size: int, what: str,
              t: str | None = None) -> None:
        """A register operand of exactly `size` bits (.pred counts as 1), of a kind that
        goes with the instruction type `t` when one is given."""
        if type(o) is not ir.Reg:  # (reg_type's test inline: the hot path of validation)
            return
        rt = self.types.get(o.name)
        if rt is None or rt not in _SIZE:
            return
        if t is not None and rt in _FLOAT and t[0] in "us":
            assert type(o) is ir.Reg
            raise self.fail(f"{s.opcode}.{t}: {what} {o.name} is a .{rt} register, which "
                            f"cannot hold an integer (.{t}) value", s.tok)
        if _SIZE[rt] != size:
            assert type(o) is ir.Reg
            raise self.fail(f"{s.opcode}: {what} must be a {size}-bit register, not "
                            f"{o.name} (.{rt})" if size != 1 else
                            f"{s.opcode}: {what} must be a .pred register, not {o.name} (.{rt})",
                            s.tok)

    def relaxed(self, s: ir.Instruction, o: ir.Operand, t: str, what: str) -> None:
        """ld/st/cvt: a register at least as wide as .t; a float register exactly .t's size."""
        items = o.items if type(o) is ir.Vec else [o]
        for item in items:
            rt = self.reg_type(item)
            if rt is None or rt not in _SIZE:
                continue
            assert type(item) is ir.Reg
            if (rt == "pred") != (t == "pred"):
                raise self.fail(f"{s.opcode}: {what} cannot be the predicate {item.name}"
                                if rt == "pred" else
                                f"{s.opcode}: {what} must be a .pred register, not "
                                f"{item.name} (.{rt})", s.tok)
            if rt in _FLOAT and t[0] in "us":
                raise self.fail(f"{s.opcode}.{t}: {what} {item.name} is a .{rt} register, "
                                f"which cannot hold an integer (.{t}) value", s.tok)
            if _SIZE[rt] < _SIZE[t]:
                raise self.fail(f"{s.opcode}.{t}: {what} {item.name} is a {_SIZE[rt]}-bit "
                                f"register (.{rt}), narrower than .{t}", s.tok)
            if rt in _FLOAT and t in _FLOAT and _SIZE[rt] != _SIZE[t]:
                raise self.fail(f"{s.opcode}.{t}: {what} {item.name} is a .{rt} register: a "
                                f"floating-point register must be exactly {_SIZE[t]} bits",
                                s.tok)

    def bracketed(self, s: ir.Instruction) -> bool:
        """Whether the instruction's text has a `[`: the parser also reads a bare `%r9+68`
        as an address, which ptxas refuses."""
        tokens = getattr(self.module.source, "tokens", None)
        if not tokens:
            return True
        for tok in tokens[s.tok:s.tok + 64]:
            if tok == "[":
                return True
            if tok == ";":
                return False
        return True

    def memory(self, s: ir.Instruction) -> None:
        if len(s.operands) < 2:
            return
        addr, data = (s.operands[0], s.operands[1]) if s.opcode == "st" else \
            (s.operands[1], s.operands[0])
        if type(addr) is not ir.Addr or not self.bracketed(s):
            name = getattr(addr, "name", "")
            raise self.fail(f"{s.opcode}: the address must be a memory operand [...], not "
                            f"{name or 'a value'}" + (f" (write [{name}])" if name else ""),
                            s.tok)
        # shared::cta and shared::cluster are shared windows: 32-bit addresses are fine there
        space = next((m.split("::")[0] for m in s.mods
                      if m.split("::")[0] in ("global", "shared", "local", "const", "param",
                                              "tex")), "")
        base_t = self.reg_type(addr.base) if addr.base is not None else None
        if base_t is not None and base_t in _SIZE and (base_t in _FLOAT
                                                      or _SIZE[base_t] not in (32, 64)):
            assert type(addr.base) is ir.Reg
            raise self.fail(f"{s.opcode}: {addr.base.name} (.{base_t}) cannot hold an "
                            "address", s.tok)
        if (self.module.address_size == 64 and space in _WIDE_ADDRESS_SPACES
                and base_t is not None and base_t in _SIZE and _SIZE[base_t] != 64):
            assert type(addr.base) is ir.Reg
            raise self.fail(f"{s.opcode}: {addr.base.name} (.{base_t}) is not a 64-bit "
                            f"address (.address_size 64)", s.tok)
        t = _type_of(s.mods)
        if t is not None:
            self.relaxed(s, data, t, "the data operand")

    def cvt(self, s: ir.Instruction) -> None:
        types = [m for m in s.mods if m in _SIZE]
        if len(types) != 2 or len(s.operands) != 2:
            return
        self.relaxed(s, s.operands[0], types[0], "the destination")
        self.relaxed(s, s.operands[1], types[1], "the source")

    def exact(self, s: ir.Instruction) -> None:
        t = _type_of(s.mods)
        if t is None:
            return
        for o in s.operands:
            if type(o) is ir.Vec:
                return
        if s.opcode == "mov" and len(s.operands) != 2:
            return
        size = _SIZE[t]
        wide = "wide" in s.mods and s.opcode in ("mul", "mad")
        types = self.types
        for i, o in enumerate(s.operands):
            if type(o) is not ir.Reg or types.get(o.name) not in _SIZE:
                continue  # (what sized() returns on at once, without the call)
            doubled = wide and (i == 0 or (s.opcode == "mad" and i == 3))
            want = size * 2 if doubled else size
            self.sized(s, o, want, "the destination" if i == 0 else f"operand {i + 1}", t)


def _type_of(mods: tuple[str, ...]) -> str | None:
    """The instruction type: its last type modifier."""
    for m in reversed(mods):
        if m in _SIZE:
            return m
    return None
