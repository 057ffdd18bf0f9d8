"""SASS -> PTX text: each SASS instruction becomes the few PTX instructions that compute
the same bits, so the PTX front end's parser, validator, passes and targets serve lifted
kernels unchanged (and lifted modules are cached, lazily loaded and checked like PTX ones).

The machine state maps one to one onto PTX registers: R0..R254 -> %r (b32), UR0..UR62 ->
%u, P0..P6 -> %p, UP0..UP6 -> %q, convergence barriers B0..B15 -> %b; RZ/URZ read as 0 and
PT/UPT as true. A whole code section (the kernel and the device functions ptxas placed in it)
becomes one .entry: CALL.REL is a branch, RET a dispatch over the return addresses the code
takes (return addresses are the code offsets the caller moves into a register). Constant
bank 0 reads are parameters and launch geometry; banks 2/3/4 are the cubin's own constant
sections (bank 3: the __constant__ variables, by name, so cuModuleGetGlobal finds them).
A kernel's lines then go through tidy.py, whose passes give them the shapes of nvcc's PTX
that the translator's analyses read (one register per value, guards as branches, 64-bit
addresses as one add); benchmarks/README.md ("Lifted SASS against PTX") has the figures.
"""

from __future__ import annotations

import logging
import math
import re
import struct

from pyshim.sass import cubin as cb
from pyshim.sass import tidy
from pyshim.sass.decode import Insn, Section, disassemble
from pyshim.sass.errors import LiftError

LIFTER_VERSION = "2"
log = logging.getLogger("pyshim")

# constant bank 0: what the driver places before the parameters (sm_75..sm_90)
_BANK0 = {0x0: "%ntid.x", 0x4: "%ntid.y", 0x8: "%ntid.z",
          0xC: "%nctaid.x", 0x10: "%nctaid.y", 0x14: "%nctaid.z"}
# %envreg0..31 (what the driver passes a launch; cooperative_groups' grid sync finds its
# workspace pointer in envreg1:envreg2): words of bank 0 from here, measured per arch by
# compiling `mov.u32 %r, %envregN` for each N
_ENVREG_BASE = {75: 0x88, 80: 0x88, 86: 0x88, 89: 0x88, 90: 0x40}
_SREG = {"SR_TID.X": "%tid.x", "SR_TID.Y": "%tid.y", "SR_TID.Z": "%tid.z",
         "SR_CTAID.X": "%ctaid.x", "SR_CTAID.Y": "%ctaid.y", "SR_CTAID.Z": "%ctaid.z",
         "SR_LANEID": "%laneid", "SR_CLOCKLO": "%clock", "SR_CLOCKHI": "%clock_hi",
         "SR_LEMASK": "%lanemask_le", "SR_LTMASK": "%lanemask_lt",
         "SR_EQMASK": "%lanemask_eq", "SR_GTMASK": "%lanemask_gt",
         "SR_GEMASK": "%lanemask_ge", "SR_VIRTUALSMID": "%smid", "SR_SMID": "%smid",
         "SR_WARPID": "%warpid", "SR_VIRTID": "%warpid",
         "SR_GLOBALTIMERLO": "%globaltimer_lo", "SR_GLOBALTIMERHI": "%globaltimer_hi"}
_CMP = {"EQ": "eq", "NE": "ne", "LT": "lt", "LE": "le", "GT": "gt", "GE": "ge"}
_FCMP = {"EQ": "eq", "NE": "ne", "LT": "lt", "LE": "le", "GT": "gt", "GE": "ge",
         "EQU": "equ", "NEU": "neu", "LTU": "ltu", "LEU": "leu", "GTU": "gtu", "GEU": "geu",
         "NUM": "num", "NAN": "nan"}
_BOOL = {"AND": "and", "OR": "or", "XOR": "xor"}
_REG = re.compile(r"^(U?R)(\d+|Z)$")
_PRED = re.compile(r"^(U?P)(\d+|T)$")
_HEX = re.compile(r"^-?0x[0-9a-f]+$")
_CONST = re.compile(r"^c\[(0x[0-9a-f]+)\]\[(.+)\]$")
_RELOC = re.compile(r"^(32@lo|32@hi)\((.+)\)$")
_LABEL = re.compile(r"^`\((.+)\)$")


_PURE = re.compile(r"^(?:mov|add|sub|mul|mad|shl|shr|and|or|xor|not|neg|abs|cvt|cvta|setp|"
                   r"selp|min|max|lop3|prmt|fma|popc|brev|bfind|szext|bmsk|ld\.param|"
                   r"ld\.const)[.a-z0-9]*\s+%(?:t|d|tp|h)\d+\s*,")


# what may not move under a branch of the lifter's making: control flow, barriers and the
# warp's collectives (the translator places its regions at those)
_NOT_PLAIN = re.compile(r"^(?:@\S+\s+)?(?:bar|barrier|bra|brx|call|ret|exit|trap|activemask|"
                        r"elect|ldmatrix|match|mbarrier|mma|movmatrix|redux|shfl|stmatrix|vote|"
                        r"wmma|nanosleep)\b")


def _plain(lines: list[str]) -> bool:
    return bool(lines) and not any(ln in ("{", "}") or ln.startswith(".") or _NOT_PLAIN.match(ln)
                                   for ln in lines)


class _Refuse(Exception):
    def __init__(self, opcode: str, why: str = "") -> None:
        super().__init__(why)
        self.opcode = opcode
        self.why = why


class Op:
    """One printed operand, its prefixes and suffixes taken apart."""

    __slots__ = ("abs", "base", "neg", "not_", "suffix", "text")

    def __init__(self, text: str) -> None:
        self.text = text
        t = text.replace(".reuse", "")
        self.neg = self.not_ = self.abs = False
        if t.startswith("-|") and t.endswith("|"):
            self.neg, self.abs, t = True, True, t[2:-1]
        elif t.startswith("|") and t.endswith("|"):
            self.abs, t = True, t[1:-1]
        if t.startswith("!"):
            self.not_, t = True, t[1:]
        elif t.startswith("~"):
            self.not_, t = True, t[1:]
        elif t.startswith("-") and not _HEX.match(t) and not _is_float(t):
            self.neg, t = True, t[1:]
        if t.startswith("|") and t.endswith("|"):
            self.abs, t = True, t[1:-1]
        self.suffix = ""
        m = re.match(r"^(U?R\d+|U?RZ)\.(.+)$", t)
        if m:
            t, self.suffix = m.group(1), m.group(2)
        self.base = t


def _is_float(t: str) -> bool:
    if t in ("+INF", "-INF", "INF", "+QNAN", "-QNAN", "QNAN", "NAN", "+NAN", "-NAN"):
        return True
    try:
        float(t)
        return not _HEX.match(t)
    except ValueError:
        return False


def _float_value(t: str) -> float:
    u = t.lstrip("+")
    if u in ("INF",):
        return math.inf
    if u in ("-INF",):
        return -math.inf
    if "NAN" in u:
        return math.nan
    return float(t)


def f32_bits(t: str) -> int:
    if _HEX.match(t):
        return int(t, 16) & 0xFFFFFFFF
    v = _float_value(t)
    if math.isnan(v):
        return 0x7FFFFFFF if not t.startswith("-") else 0xFFFFFFFF
    try:
        return struct.unpack("<I", struct.pack("<f", v))[0]
    except OverflowError:
        return 0x7F800000 if v > 0 else 0xFF800000


def f16_bits(t: str) -> int:
    v = _float_value(t)
    if math.isnan(v):
        return 0x7FFF
    try:
        return struct.unpack("<H", struct.pack("<e", v))[0]
    except OverflowError:
        return 0x7C00 if v > 0 else 0xFC00


def f64_bits(t: str) -> int:
    if _HEX.match(t):
        return (int(t, 16) & 0xFFFFFFFF) << 32
    v = _float_value(t)
    if math.isnan(v):
        return 0x7FFFFFFFFFFFFFFF
    return struct.unpack("<Q", struct.pack("<d", v))[0]


def _ptx_name(name: str) -> str:
    """A cubin symbol as a PTX identifier ($str$1 is one already; '.' is not)."""
    return re.sub(r"[^A-Za-z0-9_$]", "_", name)


class KernelLifter:
    def __init__(self, mod: ModuleLifter, kernel: cb.Kernel, section: Section) -> None:
        self.mod = mod
        self.k = kernel
        self.sec = section
        self.lines: list[str] = []
        self.cur: list[str] = []
        self.ntmp = {"t": 0, "d": 0, "tp": 0, "h": 0}
        self.maxtmp = {"t": 0, "d": 0, "tp": 0, "h": 0}
        self.refused: dict[str, str] = {}
        self.offsets = {i.offset for i in section.insns}
        self.labels = {lab: off for off, labs in section.labels.items() for lab in labs}
        self.used_labels: set[int] = set()
        self.nfresh = 0
        # return addresses: the offset after each CALL.REL (what the caller moves into a
        # register before calling)
        self.returns = sorted(i.offset + 16 for i in section.insns if i.opcode.startswith("CALL"))
        self.ret_sites: set[int] = set()
        self.ins: Insn | None = None
        self.partial_warps = any(
            i.opcode.startswith(("BRA.CONV", "MATCH")) or
            (i.opcode == "VOTE.ANY" and i.operands[1:] == ["PT", "PT"])
            for i in section.insns)
        self.uses_local = False
        self.params_by_offset = sorted(kernel.params, key=lambda p: p.offset)

    # ---- temporaries and output ----------------------------------------------------------
    def tmp(self, kind: str = "t") -> str:
        n = self.ntmp[kind]
        self.ntmp[kind] = n + 1
        self.maxtmp[kind] = max(self.maxtmp[kind], n + 1)
        return f"%{kind}{n}"

    def emit(self, line: str) -> None:
        self.cur.append(line)

    def refuse(self, why: str = "") -> None:
        assert self.ins is not None
        raise _Refuse(self.ins.opcode, why)

    def mask(self) -> str:
        """The lanes taking part in a warp instruction: SASS names none, the hardware takes
        the active ones (a divergent branch's side shuffles among itself). Asking for them
        is itself a collective, so only kernels whose code shows it runs warp instructions
        with part of the warp (it reads the active mask, BRA.CONV) ask; elsewhere ptxas
        has put such instructions behind BRA.DIV, whose fast path is the whole warp."""
        if not self.partial_warps:
            return "-1"
        t = self.tmp()
        self.emit(f"activemask.b32 {t};")
        return t

    def label_fresh(self) -> str:
        self.nfresh += 1
        return f"$X_{self.nfresh}"

    def label(self, off: int) -> str:
        self.used_labels.add(off)
        return f"$L_{off:x}"

    # ---- operands --------------------------------------------------------------------------
    def reg(self, o: Op) -> str | None:
        m = _REG.match(o.base)
        if not m:
            return None
        if m.group(2) == "Z":
            return "0"
        return f"%{'u' if m.group(1) == 'UR' else 'r'}{m.group(2)}"

    def pred(self, text: str) -> str:
        """A predicate source as a PTX predicate register (negations materialised)."""
        neg = text.startswith("!")
        t = text[1:] if neg else text
        m = _PRED.match(t)
        if not m:
            self.refuse(f"predicate operand {text}")
        name = "%pt" if m.group(2) == "T" else f"%{'q' if m.group(1) == 'UP' else 'p'}{m.group(2)}"
        if not neg:
            return name
        t2 = self.tmp("tp")
        self.emit(f"not.pred {t2}, {name};")
        return t2

    def pdst(self, text: str) -> str:
        m = _PRED.match(text)
        if not m:
            self.refuse(f"predicate destination {text}")
        if m.group(2) == "T":
            return "%pdis"
        return f"%{'q' if m.group(1) == 'UP' else 'p'}{m.group(2)}"

    def dst(self, text: str) -> str:
        o = Op(text)
        r = self.reg(o)
        if r is None:
            self.refuse(f"destination {text}")
        return "%rdis" if r == "0" else r

    def dst_pair(self, text: str, n: int = 2) -> list[str]:
        o = Op(text)
        m = _REG.match(o.base)
        if not m:
            self.refuse(f"destination {text}")
        if m.group(2) == "Z":
            return ["%rdis"] * n
        p = "u" if m.group(1) == "UR" else "r"
        b = int(m.group(2))
        return [f"%{p}{b + i}" for i in range(n)]

    def const_word(self, bank: int, off_text: str, bits: int = 32) -> str:
        """A 32-bit word (or 64-bit pair) of constant bank `bank`."""
        parts = [p for p in re.split(r"\+", off_text) if p]
        imm = 0
        regs = []
        for p in parts:
            if _HEX.match(p):
                imm += int(p, 16)
            elif p not in ("RZ", "URZ"):
                regs.append(p)
        if regs:
            return self.const_indexed(bank, regs, imm, bits)
        if bits == 64:
            p = self.param_at(imm, 8) if bank == 0 else None
            if p is not None:  # a pointer parameter: one 64-bit load, as nvcc's PTX has it
                d = self.tmp("d")
                self.emit(f"ld.param.b64 {d}, [{self.mod.param_name(p.ordinal)}"
                          f"+{imm - self.k.param_base - p.offset}];")
                return d
            lo, hi = self.const_word(bank, hex(imm)), self.const_word(bank, hex(imm + 4))
            d = self.tmp("d")
            self.emit(f"mov.b64 {d}, {{{lo}, {hi}}};")
            return d
        if bank == 0:
            return self.bank0(imm)
        return self.mod.bank_word(self, bank, imm)

    def param_at(self, off: int, size: int):
        """The parameter whose bytes c[0x0][off, off + size) are, if one holds them all."""
        rel = off - self.k.param_base
        for p in self.params_by_offset:
            if p.offset <= rel and rel + size <= p.offset + p.size:
                return p
        return None

    def const_sub(self, bank: int, off_text: str, ty: str) -> str:
        """A byte or half-word of a constant bank (a char or short parameter)."""
        if bank == 0 and not _HEX.match(off_text):
            parts = [p for p in off_text.split("+") if p]
            imm = sum(int(p, 16) for p in parts if _HEX.match(p))
            regs = [p for p in parts if not _HEX.match(p) and p not in ("RZ", "URZ")]
            return self.const_indexed(0, regs, imm, 32, ty)
        if bank != 0:
            self.refuse(f"sub-word read of c[{bank:#x}][{off_text}]")
        off = int(off_text, 16)
        rel = off - self.k.param_base
        for p in self.params_by_offset:
            if p.offset <= rel < p.offset + p.size:
                t = self.tmp()
                self.emit(f"ld.param.{ty} {t}, [{self.mod.param_name(p.ordinal)}+{rel - p.offset}];")
                return t
        self.refuse(f"sub-word read of c[0x0][{off:#x}]")
        return "0"

    def const_indexed(self, bank: int, regs: list[str], imm: int, bits: int,
                      ty: str = "") -> str:
        a = self.tmp("d")
        if bank == 0:
            # an array inside the parameters: pyshim keeps them contiguous in CUDA's layout.
            # The constant part may lie below the parameters: ptxas biases a loop's index
            # register (c[0x0][R10+0x140] with R10 >= 0x20 reads sizes[d] of a parameter
            # at 0x160), so only the sum must land in them, as it must on the GPU
            k = self.k
            if not self.params_by_offset or self.params_by_offset[0].offset != 0 \
                    or not regs and imm < k.param_base:
                self.refuse("indexed read of constant bank 0 outside the parameters")
            first = self.mod.param_name(self.params_by_offset[0].ordinal)
            self.emit(f"mov.u64 {a}, {first};")
            imm -= k.param_base
            for r in regs:
                v = self.src(r)
                w = self.tmp("d")
                self.emit(f"cvt.u64.u32 {w}, {v};")
                self.emit(f"add.u64 {a}, {a}, {w};")
            if imm < 0:
                self.emit(f"sub.u64 {a}, {a}, {-imm};")
                imm = 0
            t = self.tmp("d" if bits == 64 else "t")
            self.emit(f"ld.param.{ty or f'b{bits}'} {t}, [{a}+{imm}];")
            return t
        if bank == 3:
            # an indexed __constant__ array: the variable holding the constant part
            sym = self.mod.const3_symbol(self, imm)
            self.emit(f"mov.u64 {a}, {self.mod.declare_object(sym)};")
            imm -= sym.value
        else:
            var = self.mod.bank_var(self, bank)
            self.emit(f"mov.u64 {a}, {var};")
        for r in regs:
            v = self.src(r)
            w = self.tmp("d")
            self.emit(f"cvt.u64.u32 {w}, {v};")
            self.emit(f"add.u64 {a}, {a}, {w};")
        space = self.mod.bank_space(bank)
        t = self.tmp("d" if bits == 64 else "t")
        self.emit(f"ld.{space}.b{bits} {t}, [{a}+{imm}];")
        return t

    def bank0(self, off: int) -> str:
        k = self.k
        t = self.tmp()
        if off in _BANK0:
            self.emit(f"mov.u32 {t}, {_BANK0[off]};")
            return t
        if k.param_base <= off < k.param_base + max(k.param_bytes, 1):
            rel = off - k.param_base
            for p in self.params_by_offset:
                if p.offset <= rel < p.offset + p.size:
                    d = rel - p.offset
                    if d + 4 <= p.size:
                        self.emit(f"ld.param.b32 {t}, [{self.mod.param_name(p.ordinal)}+{d}];")
                    else:
                        self.refuse(f"parameter read across its end at c[0x0][{off:#x}]")
                    return t
            self.emit(f"mov.u32 {t}, 0;")  # padding between parameters
            return t
        env = _ENVREG_BASE.get(self.mod.cub.arch)
        if env is not None and env <= off < env + 32 * 4 and off % 4 == 0:
            self.emit(f"mov.u32 {t}, %envreg{(off - env) // 4};")
            return t
        if off in (0x20, 0x24):  # the local window's generic base: our per-thread array
            self.uses_local = True
            d = self.tmp("d")
            self.emit(f"mov.u64 {d}, __sass_local;")
            self.emit(f"cvta.local.u64 {d}, {d};")
            self.emit(f"mov.b64 {{{t}, %rdis}}, {d};" if off == 0x20 else
                      f"mov.b64 {{%rdis, {t}}}, {d};")
            return t
        if off == 0x28:  # the initial stack pointer: the top of the local array
            self.emit(f"mov.u32 {t}, {self.mod.local_bytes(k)};")
            return t
        if off in (0x118, 0x11C, 0x208, 0x20C):  # the global memory descriptor (desc[URx])
            self.emit(f"mov.u32 {t}, 0;")
            return t
        self.refuse(f"constant bank 0 offset {off:#x}")
        return t

    def src(self, text: str, kind: str = "i") -> str:
        """A 32-bit source operand as a PTX operand; kind 'i' applies -/~ as integer ops,
        'f' as float negate/abs, 'raw' refuses modifiers."""
        o = Op(text)
        val = self._value(o, kind)
        if o.suffix and o.suffix not in ("X4", "X8", "X16", "U32", "64"):
            if kind != "h":
                self.refuse(f"operand {text}")
        if kind == "f":
            if o.abs:
                t = self.tmp()
                self.emit(f"abs.f32 {t}, {val};")
                val = t
            if o.neg:
                t = self.tmp()
                self.emit(f"neg.f32 {t}, {val};")
                val = t
        elif kind == "d":
            pass
        else:
            if o.abs:
                t = self.tmp()
                self.emit(f"abs.s32 {t}, {val};")
                val = t
            if o.not_:
                t = self.tmp()
                self.emit(f"not.b32 {t}, {val};")
                val = t
            if o.neg:
                t = self.tmp()
                self.emit(f"neg.s32 {t}, {val};")
                val = t
        return val

    def _value(self, o: Op, kind: str) -> str:
        r = self.reg(o)
        if r is not None:
            return r
        b = o.base
        if _HEX.match(b):
            v = int(b, 16)
            return str(v & 0xFFFFFFFF)
        if _is_float(b):
            if kind == "f" or kind == "h":
                return f"0f{f32_bits(b):08X}"
            if kind == "d":
                return f"0f{f32_bits(b):08X}"
            try:
                return str(int(b) & 0xFFFFFFFF)
            except ValueError:
                return f"0f{f32_bits(b):08X}"
        m = _CONST.match(b)
        if m:
            return self.const_word(int(m.group(1), 16), m.group(2))
        m = _RELOC.match(b)
        if m:
            return self.reloc(m.group(1), m.group(2))
        if b in _SREG:
            t = self.tmp()
            self.emit(f"mov.u32 {t}, {_SREG[b]};")
            return t
        self.refuse(f"operand {o.text}")
        return "0"

    def reloc(self, half: str, expr: str) -> str:
        """32@lo(sym) / 32@hi(sym): a symbol's address, or a code offset (return
        addresses: (kernel + .L_x_5@srel))."""
        t = self.tmp()
        m = re.match(r"^\((.+?) \+ (.+)@srel\)$", expr)
        if m:
            lab = m.group(2)
            if lab not in self.labels:
                self.refuse(f"relocation {expr}")
            self.emit(f"mov.u32 {t}, {self.labels[lab] if half == '32@lo' else 0};")
            return t
        sym = self.mod.symbol_address(self, expr)
        self.emit(f"mov.b64 {{{t}, %rdis}}, {sym};" if half == "32@lo"
                  else f"mov.b64 {{%rdis, {t}}}, {sym};")
        return t

    def src64(self, text: str, kind: str = "i") -> str:
        """A 64-bit source: a register pair, RZ, a constant pair or an immediate."""
        o = Op(text)
        m = _REG.match(o.base)
        if m:
            if m.group(2) == "Z":
                val = "0"
            else:
                p = "u" if m.group(1) == "UR" else "r"
                b = int(m.group(2))
                val = self.tmp("d")
                self.emit(f"mov.b64 {val}, {{%{p}{b}, %{p}{b + 1}}};")
        else:
            c = _CONST.match(o.base)
            if c:
                val = self.const_word(int(c.group(1), 16), c.group(2), 64)
            elif kind == "d" and (_is_float(o.base) or _HEX.match(o.base)):
                val = f"0d{f64_bits(o.base):016X}"
            elif _HEX.match(o.base):
                val = str(int(o.base, 16) & 0xFFFFFFFFFFFFFFFF)
            else:
                self.refuse(f"64-bit operand {text}")
        if kind == "d":
            if o.abs:
                t = self.tmp("d")
                self.emit(f"abs.f64 {t}, {val};")
                val = t
            if o.neg:
                t = self.tmp("d")
                self.emit(f"neg.f64 {t}, {val};")
                val = t
        elif o.neg or o.not_:
            t = self.tmp("d")
            self.emit(f"{'neg.s64' if o.neg else 'not.b64'} {t}, {val};")
            val = t
        return val

    def set64(self, text: str, val: str) -> None:
        lo, hi = self.dst_pair(text)
        self.emit(f"mov.b64 {{{lo}, {hi}}}, {val};")

    # ---- addresses -------------------------------------------------------------------------
    def address(self, text: str, space: str, wide_base: bool = False) -> str:
        """A memory operand as a PTX address [..]; global/generic 64-bit, shared 32-bit,
        local: our per-thread array plus the 32-bit stack offset."""
        t = re.sub(r"^desc\[[^\]]*\]", "", text.strip())
        if not (t.startswith("[") and t.endswith("]")):
            self.refuse(f"address {text}")
        body = t[1:-1].replace("+-", "-")
        terms = re.findall(r"[+-]?[^+-]+", body)
        imm = 0
        wide: list[str] = []
        narrow: list[str] = []
        for term in terms:
            term = term.strip()
            sign = -1 if term.startswith("-") else 1
            term = term.lstrip("+-")
            if _HEX.match(term):
                imm += sign * int(term, 16)
                continue
            o = Op(term)
            if sign < 0:
                self.refuse(f"address {text}")
            if o.base in ("RZ", "URZ"):
                continue
            if o.suffix == "64" or (wide_base and not wide and o.base.startswith("R")
                                    and not o.suffix and space in ("global", "")):
                # .E: 64-bit addressing, the base register is a pair even unprinted
                wide.append(self.src64(o.base))
            elif o.suffix in ("X4", "X8", "X16"):
                r = self.src(o.base)
                t2 = self.tmp()
                self.emit(f"shl.b32 {t2}, {r}, {int(o.suffix[1:]).bit_length() - 1};")
                narrow.append(t2)
            elif o.base.startswith("UR") and space in ("global", ""):
                wide.append(self.src64(o.base))  # a uniform 64-bit base
            else:
                narrow.append(self.src(o.base))
        if space in ("shared",):
            if wide:
                self.refuse(f"64-bit shared address {text}")
            if not narrow:
                return f"[{imm & 0xFFFFFFFF}]"
            a = narrow[0]
            for x in narrow[1:]:
                t2 = self.tmp()
                self.emit(f"add.u32 {t2}, {a}, {x};")
                a = t2
            return f"[{a}+{imm}]"
        if space == "local":
            self.uses_local = True
            a = self.tmp("d")
            self.emit(f"mov.u64 {a}, __sass_local;")
            for x in narrow:
                w = self.tmp("d")
                self.emit(f"cvt.u64.u32 {w}, {x};")
                self.emit(f"add.u64 {a}, {a}, {w};")
            return f"[{a}+{imm}]"
        # global or generic: 64-bit; a 32-bit register term is an unsigned offset
        if not wide and not narrow:
            return f"[{imm & 0xFFFFFFFFFFFFFFFF}]"
        a = wide[0] if wide else None
        for x in wide[1:]:
            t2 = self.tmp("d")
            self.emit(f"add.s64 {t2}, {a}, {x};")
            a = t2
        for x in narrow:
            w = self.tmp("d")
            self.emit(f"cvt.u64.u32 {w}, {x};")
            if a is None:
                a = w
            else:
                t2 = self.tmp("d")
                self.emit(f"add.s64 {t2}, {a}, {w};")
                a = t2
        return f"[{a}+{imm}]"

    # ---- one kernel ------------------------------------------------------------------------
    def lift(self) -> list[str]:
        lifted: list[tuple[Insn, list[str]]] = []
        insns = self.sec.insns
        for n, ins in enumerate(insns):
            self.ins = ins
            self.cur = []
            self.ntmp = {"t": 0, "d": 0, "tp": 0, "h": 0}
            try:
                self.one(ins)
                if lifted and lifted[-1][0] is insns[n - 1] and self.wide_add(insns[n - 1], ins):
                    lifted[-1][1].extend(self.cur)
                    self.cur = []
            except _Refuse as r:
                self.refused.setdefault(r.opcode, r.why)
                continue
            except (IndexError, ValueError, KeyError) as exc:  # a form the handler lacks
                self.refused.setdefault(ins.opcode, f"operands {', '.join(ins.operands)} "
                                                    f"({type(exc).__name__})")
                continue
            lifted.append((ins, self.cur))
        if self.refused:
            return []
        body: list[str] = []
        i = 0
        while i < len(lifted):
            ins, lines = lifted[i]
            if self.entered(ins):
                body.append(f"@@{ins.offset}")
            if self.warpsync_before_barrier(lifted, i):
                i += 1
                continue
            end = self.guard_run(lifted, i)
            if end > i:
                # a run of instructions under one guard: one branch around them, as nvcc
                # writes `if`, which the translator's region loops read (a region's guard
                # of %tid.x becomes the range of threads its loop runs)
                skip = self.label_fresh()
                neg = ins.pred.startswith("!")
                self.ins = ins
                self.cur = []
                p = self.pred(ins.pred.lstrip("!"))
                body += self.cur
                body.append(f"@{'' if neg else '!'}{p} bra {skip};")
                for _, ls in lifted[i:end]:
                    body += ls
                body.append(f"{skip}:")
                i = end
                continue
            self.ins = ins
            body += self.guarded(ins, lines)
            i += 1
        out = []
        for line in body:
            if line.startswith("@@"):
                off = int(line[2:])
                if off in self.used_labels:
                    out.append(f"$L_{off:x}:")
            else:
                out.append(line)
        return tidy.run(out)

    def wide_add(self, lo: Insn, hi: Insn) -> bool:
        """After `IADD3 Rn, P, Ra, c[0x0][p], RZ` (lo) and `LEA.HI.X.SX32 Rn+1, Ra,
        c[0x0][p+4], 0x1, P` or `IADD3.X Rn+1, RZ, c[0x0][p+4], RZ, P, !PT` (hi, just
        lifted into self.cur): ptxas's pointer parameter plus a sign- or zero-extended
        32-bit offset, in two halves with a carry. Appends the same sum as one 64-bit add
        (nvcc's `cvt.s64.s32; add.s64`), whose result the translator follows as a pointer,
        and says whether it did; the halves' own lines stay for the carry (dead code then)."""
        a, b = lo.operands, hi.operands
        if lo.opcode != "IADD3" or lo.pred != hi.pred or self.entered(hi) or len(a) != 5 \
                or a[4] != "RZ" or not _PRED.match(a[1]) or a[1] == "PT":
            return False
        ra, c = a[2], a[3]
        mc, mr = _CONST.match(c), _REG.match(ra)
        mlo = _REG.match(a[0])
        if not (mc and mr and mlo) or mc.group(1) != "0x0" or not _HEX.match(mc.group(2)) \
                or mr.group(1) != "R" or ra == a[0] or mlo.group(2) == "Z" \
                or mlo.group(1) != "R":
            return False
        off = int(mc.group(2), 16)
        hi_c = f"c[0x0][{off + 4:#x}]"
        if hi.opcode == "LEA.HI.X.SX32" and b[1:] == [ra, hi_c, "0x1", a[1]]:
            ext = "cvt.s64.s32"
        elif hi.opcode == "IADD3.X" and b[1:] in (["RZ", hi_c, "RZ", a[1], "!PT"],
                                                   [hi_c, "RZ", "RZ", a[1], "!PT"]):
            ext = "cvt.u64.u32"
        else:
            return False
        if b[0] != f"R{int(mlo.group(2)) + 1}" or self.param_at(off, 8) is None:
            return False
        keep = self.cur
        self.cur = []
        base = self.const_word(0, hex(off), 64)
        w, sum64 = self.tmp("d"), self.tmp("d")
        self.emit(f"{ext} {w}, {self.src(ra)};")
        self.emit(f"add.s64 {sum64}, {base}, {w};")
        pre = self.cur
        self.cur = keep
        self.emit(f"mov.b64 {{%r{mlo.group(2)}, %r{int(mlo.group(2)) + 1}}}, {sum64};")
        self.cur = pre + self.cur  # the sum first: the high half's lines may overwrite Ra
        return True

    def entered(self, ins: Insn) -> bool:
        """Whether control may reach ins other than from the instruction before it."""
        return ins.offset in self.sec.labels or ins.offset in self.returns

    def warpsync_before_barrier(self, lifted: list[tuple[Insn, list[str]]], i: int) -> bool:
        """WARPSYNC of the whole warp right before BAR.SYNC (ptxas's reconvergence after
        a warp-level branch): the block barrier waits for every lane of the warp too, so
        the warp barrier adds nothing but a region break on the CPU."""
        ins = lifted[i][0]
        if ins.opcode != "WARPSYNC" or ins.pred or ins.operands != ["0xffffffff"] \
                or i + 1 >= len(lifted):
            return False
        nxt = lifted[i + 1][0]
        return nxt.opcode.startswith("BAR.SYNC") and not nxt.pred and not self.entered(nxt) \
            and lifted[i + 1][1] == ["bar.sync 0;"]

    def guard_run(self, lifted: list[tuple[Insn, list[str]]], i: int) -> int:
        """The end (exclusive) of the run of plain instructions from i under the guard of
        lifted[i], or i when it has none. The run ends at a label (a thread arriving
        there has not tested the guard), at an instruction under another guard, and
        after one that names the guard's register (it may write it)."""
        pred = lifted[i][0].pred
        if not pred or pred.lstrip("!") in ("PT", "UPT"):
            return i
        m = _PRED.match(pred.lstrip("!"))
        if not m:
            return i
        reg = re.compile(r"%" + ("q" if m.group(1) == "UP" else "p") + m.group(2) + r"\b")
        j = i
        while j < len(lifted):
            ins, lines = lifted[j]
            if ins.pred != pred or (j > i and self.entered(ins)) or not _plain(lines):
                break
            j += 1
            if any(reg.search(ln) for ln in lines):
                break
        return j

    def guarded(self, ins: Insn, lines: list[str]) -> list[str]:
        if not ins.pred or ins.pred in ("PT", "UPT"):
            return lines
        if ins.pred in ("!PT", "!UPT"):
            return []
        neg = ins.pred.startswith("!")
        self.cur = []
        p = self.pred(ins.pred.lstrip("!"))
        out = self.cur
        g = p
        if any(p in ln for ln in lines):
            # the instruction may write its own guard: test a copy
            g = "%pg"
            out.append(f"mov.pred {g}, {p};")
        bang = "!" if neg else ""
        if any(ln.endswith(":") or ln in ("{", "}") or ln.startswith((".", "@"))
               for ln in lines):
            skip = self.label_fresh()  # declarations and labels: branch around them
            return out + [f"@{'' if neg else '!'}{g} bra {skip};"] + lines + [f"{skip}:"]
        for ln in lines:
            # a side-effect-free computation into a temporary needs no guard; left
            # unguarded it is a plain definition, so the temporary is not live across the
            # kernel's barriers (the CPU target keeps such registers in memory)
            m = _PURE.match(ln)
            out.append(ln if m else f"@{bang}{g} {ln}")
        return out

    def one(self, ins: Insn) -> None:
        parts = ins.opcode.split(".")
        base, mods = parts[0], parts[1:]
        h = HANDLERS.get(base)
        if h is None and base.startswith("U") and base[1:] in HANDLERS:
            base = base[1:]  # the uniform datapath's twin: same semantics, UR/UP operands
            h = HANDLERS[base]
        if h is None:
            self.refuse()
        h(self, base, mods, ins.operands)


# ==== instruction handlers =========================================================================
def _nop(lf: KernelLifter, base: str, mods: list[str], ops: list[str]) -> None:
    pass


def _mov(lf: KernelLifter, base: str, mods: list[str], ops: list[str]) -> None:
    d = lf.dst(ops[0])
    lf.emit(f"mov.b32 {d}, {lf.src(ops[1])};")


def _s2r(lf: KernelLifter, base: str, mods: list[str], ops: list[str]) -> None:
    d = lf.dst(ops[0])
    sr = ops[1]
    if sr in _SREG:
        lf.emit(f"mov.u32 {d}, {_SREG[sr]};")
    elif sr in ("SR_CgaCtaId", "SR_CGACTAID"):
        lf.emit(f"mov.u32 {d}, 0;")
    else:
        lf.refuse(f"special register {sr}")


def _cs2r(lf: KernelLifter, base: str, mods: list[str], ops: list[str]) -> None:
    sr = ops[1]
    if sr == "SRZ":
        for r in lf.dst_pair(ops[0], 4 if "64" not in mods and "128" in mods else 2):
            lf.emit(f"mov.b32 {r}, 0;")
        return
    if sr in ("SR_CLOCKLO", "SR_GLOBALTIMERLO"):
        d = lf.tmp("d")
        lf.emit(f"mov.u64 {d}, {'%clock64' if sr == 'SR_CLOCKLO' else '%globaltimer'};")
        if "32" in mods:
            lf.emit(f"cvt.u32.u64 {lf.dst(ops[0])}, {d};")
        else:
            lf.set64(ops[0], d)
        return
    lf.refuse(f"special register {sr}")


def _wide_add(lf: KernelLifter, vals: list[tuple[str, bool, bool]]) -> tuple[str, str]:
    """Sum of 32-bit values as a 64-bit value: (v, negated, inverted) -> (sum64, carry32).
    A negated term counts as ~x + 1 (33 bits), as the carry chain does."""
    acc = None
    for v, neg, inv in vals:
        w = lf.tmp("d")
        if neg or inv:
            t = lf.tmp()
            lf.emit(f"not.b32 {t}, {v};")
            lf.emit(f"cvt.u64.u32 {w}, {t};")
            if neg:
                lf.emit(f"add.u64 {w}, {w}, 1;")
        else:
            lf.emit(f"cvt.u64.u32 {w}, {v};")
        if acc is None:
            acc = w
        else:
            s = lf.tmp("d")
            lf.emit(f"add.u64 {s}, {acc}, {w};")
            acc = s
    assert acc is not None
    c = lf.tmp("d")
    lf.emit(f"shr.u64 {c}, {acc}, 32;")
    return acc, c


def _carry_in(lf: KernelLifter, texts: list[str]) -> list[tuple[str, bool, bool]]:
    out = []
    for t in texts:
        if t in ("!PT", "PT") and t == "!PT":
            continue
        p = lf.pred(t)
        v = lf.tmp()
        lf.emit(f"selp.u32 {v}, 1, 0, {p};")
        out.append((v, False, False))
    return out


def _set_carries(lf: KernelLifter, dsts: list[str], c: str) -> None:
    for i, pd in enumerate(dsts):
        p = lf.pdst(pd)
        lf.emit(f"setp.gt.u64 {p}, {c}, {i};")


def _iadd3(lf: KernelLifter, base: str, mods: list[str], ops: list[str]) -> None:
    d = lf.dst(ops[0])
    rest = ops[1:]
    pd = []
    while rest and _PRED.match(rest[0].lstrip("!")):
        pd.append(rest.pop(0))
    srcs, cins = rest[:3], rest[3:]
    if "X" not in mods and not pd:
        vals = [lf.src(s) for s in srcs]
        if "0" in vals:  # IADD3 with RZ: a two-operand add
            vals.remove("0")
            lf.emit(f"add.u32 {d}, {vals[0]}, {vals[1]};")
            return
        a = lf.tmp()
        lf.emit(f"add.u32 {a}, {vals[0]}, {vals[1]};")
        lf.emit(f"add.u32 {d}, {a}, {vals[2]};")
        return
    terms = []
    for s in srcs:
        o = Op(s)
        v = lf._value(o, "i")
        terms.append((v, o.neg, o.not_))
    if "X" in mods:
        terms += _carry_in(lf, cins)
    s64, c = _wide_add(lf, terms)
    lf.emit(f"cvt.u32.u64 {d}, {s64};")
    _set_carries(lf, pd, c)


def _viadd(lf: KernelLifter, base: str, mods: list[str], ops: list[str]) -> None:
    d = lf.dst(ops[0])
    lf.emit(f"add.u32 {d}, {lf.src(ops[1])}, {lf.src(ops[2])};")


def _imad(lf: KernelLifter, base: str, mods: list[str], ops: list[str]) -> None:
    m = set(mods)
    signed = "U32" not in m
    if "MOV" in m:
        lf.emit(f"mov.b32 {lf.dst(ops[0])}, {lf.src(ops[3])};")
        return
    if "IADD" in m:
        a, b, c = lf.src(ops[1]), lf.src(ops[2]), lf.src(ops[3])
        if b == "1":  # ptxas's a * 1 + c: an add
            lf.emit(f"add.u32 {lf.dst(ops[0])}, {a}, {c};")
            return
        t = lf.tmp()
        lf.emit(f"mul.lo.u32 {t}, {a}, {b};")
        lf.emit(f"add.u32 {lf.dst(ops[0])}, {t}, {c};")
        return
    if "SHL" in m:
        a, b, c = lf.src(ops[1]), lf.src(ops[2]), lf.src(ops[3])
        t = lf.tmp()
        lf.emit(f"mul.lo.u32 {t}, {a}, {b};")
        lf.emit(f"add.u32 {lf.dst(ops[0])}, {t}, {c};")
        return
    rest = list(ops[1:])
    pd = []
    while len(rest) > 3 and _PRED.match(rest[0].lstrip("!")):
        pd.append(rest.pop(0))
    if "WIDE" in m:
        a, b = lf.src(rest[0]), lf.src(rest[1])
        c = lf.src64(rest[2])
        t = lf.tmp("d")
        lf.emit(f"mul.wide.{'s32' if signed else 'u32'} {t}, {a}, {b};")
        if "X" in m:
            cin = _carry_in(lf, rest[3:])
            for v, _, _ in cin:
                w = lf.tmp("d")
                lf.emit(f"cvt.u64.u32 {w}, {v};")
                lf.emit(f"add.u64 {t}, {t}, {w};")
        s = lf.tmp("d")
        # (s64: the translator reads an address as base + offset from add.s64, as nvcc
        # writes it; the bits are the same)
        lf.emit(f"add.s64 {s}, {t}, {c};")
        if len(pd) > 1:
            lf.refuse("IMAD.WIDE with two carries out")
        if pd:  # the carry out of the 64-bit addition (c is never more than 64 bits)
            lf.emit(f"setp.lt.u64 {lf.pdst(pd[0])}, {s}, {c};")
        lf.set64(ops[0], s)
        return
    if "HI" in m:
        # the high word of a*b + c, c a 64-bit register pair (ptxas zeroes R(c) and puts
        # the Newton step's estimate in R(c+1): q + hi(q * e))
        a, b = lf.src(rest[0]), lf.src(rest[1])
        c = lf.src64(rest[2])
        t = lf.tmp("d")
        lf.emit(f"mul.wide.{'s32' if signed else 'u32'} {t}, {a}, {b};")
        s0 = lf.tmp("d")
        lf.emit(f"add.u64 {s0}, {t}, {c};")
        h = lf.tmp("d")
        lf.emit(f"shr.u64 {h}, {s0}, 32;")
        terms = [h]
        if "X" in m:
            for v, _, _ in _carry_in(lf, rest[3:]):
                w2 = lf.tmp("d")
                lf.emit(f"cvt.u64.u32 {w2}, {v};")
                terms.append(w2)
        acc = terms[0]
        for x in terms[1:]:
            s = lf.tmp("d")
            lf.emit(f"add.u64 {s}, {acc}, {x};")
            acc = s
        lf.emit(f"cvt.u32.u64 {lf.dst(ops[0])}, {acc};")
        if pd:
            cc = lf.tmp("d")
            lf.emit(f"shr.u64 {cc}, {acc}, 32;")
            _set_carries(lf, pd, cc)
        return
    # plain IMAD / IMAD.X: low 32 bits of a*b + c (+ carry)
    a, b = lf.src(rest[0]), lf.src(rest[1])
    co = Op(rest[2])
    if "X" in m or pd:
        t = lf.tmp()
        lf.emit(f"mul.lo.u32 {t}, {a}, {b};")
        terms = [(t, False, False), (lf._value(co, "i"), co.neg, co.not_)]
        if "X" in m:
            terms += _carry_in(lf, rest[3:])
        s64, c = _wide_add(lf, terms)
        lf.emit(f"cvt.u32.u64 {lf.dst(ops[0])}, {s64};")
        _set_carries(lf, pd, c)
        return
    c = lf.src(rest[2])
    lf.emit(f"mad.lo.u32 {lf.dst(ops[0])}, {a}, {b}, {c};")


def _lea(lf: KernelLifter, base: str, mods: list[str], ops: list[str]) -> None:
    m = set(mods)
    d = lf.dst(ops[0])
    rest = list(ops[1:])
    pd = []
    while rest and _PRED.match(rest[0].lstrip("!")) and not rest[0].startswith("!"):
        if len(rest) <= 3:
            break
        pd.append(rest.pop(0))
    if "HI" in m:
        a = lf.src(rest[0])
        b_op = Op(rest[1])
        if "SX32" in m:
            hi = lf.tmp()
            lf.emit(f"shr.s32 {hi}, {a}, 31;")
            sh = int(rest[2], 16)
            cin = rest[3:]
        else:
            hi = lf.src(rest[2])
            sh = int(rest[3], 16)
            cin = rest[4:]
        w = lf.tmp("d")
        lf.emit(f"mov.b64 {w}, {{{a}, {hi}}};")
        lf.emit(f"shl.b64 {w}, {w}, {sh};")
        top = lf.tmp()
        lf.emit(f"mov.b64 {{%rdis, {top}}}, {w};")
        terms = [(top, False, False), (lf._value(b_op, "i"), b_op.neg, b_op.not_)]
        if "X" in m:
            terms += _carry_in(lf, cin)
        s64, c = _wide_add(lf, terms)
        lf.emit(f"cvt.u32.u64 {d}, {s64};")
        _set_carries(lf, pd, c)
        return
    ao = Op(rest[0])
    a = lf._value(ao, "i")
    if ao.not_ or ao.neg:
        t = lf.tmp()
        lf.emit(f"{'not.b32' if ao.not_ else 'neg.s32'} {t}, {a};")
        a = t
    b_op = Op(rest[1])
    sh = int(rest[2], 16)
    t = lf.tmp()
    lf.emit(f"shl.b32 {t}, {a}, {sh};")
    terms = [(t, False, False), (lf._value(b_op, "i"), b_op.neg, b_op.not_)]
    if "X" in m:
        terms += _carry_in(lf, rest[3:])
    if not pd and "X" not in m and not b_op.neg and not b_op.not_:
        lf.emit(f"add.u32 {d}, {t}, {terms[1][0]};")
        return
    s64, c = _wide_add(lf, terms)
    lf.emit(f"cvt.u32.u64 {d}, {s64};")
    _set_carries(lf, pd, c)


def _lop3(lf: KernelLifter, base: str, mods: list[str], ops: list[str]) -> None:
    rest = list(ops)
    pd = None
    if _PRED.match(rest[0]):
        pd = rest.pop(0)
    d = lf.dst(rest[0])
    a, b, c = (lf.src(x) for x in rest[1:4])
    lut = int(rest[4], 16)
    pin = rest[5] if len(rest) > 5 else "!PT"
    if pd is not None and d == "%rdis":
        d = lf.tmp()
    two = {0xC0: "and", 0xFC: "or", 0x3C: "xor"}.get(lut)
    if two is not None:  # a table that ignores c: the two-operand op (nvcc's `and %r, %tid.x, 31`)
        lf.emit(f"{two}.b32 {d}, {a}, {b};")
    else:
        lf.emit(f"lop3.b32 {d}, {a}, {b}, {c}, {lut};")
    if pd is not None:
        if pin != "!PT":
            lf.refuse(f"LOP3 predicate input {pin}")
        lf.emit(f"setp.ne.u32 {lf.pdst(pd)}, {d}, 0;")


def _lop(lf: KernelLifter, base: str, mods: list[str], ops: list[str]) -> None:
    op = {"AND": "and", "OR": "or", "XOR": "xor"}.get(mods[0] if mods else "")
    if op is None:
        lf.refuse()
    lf.emit(f"{op}.b32 {lf.dst(ops[0])}, {lf.src(ops[1])}, {lf.src(ops[2])};")


def _plop3(lf: KernelLifter, base: str, mods: list[str], ops: list[str]) -> None:
    p, q = ops[0], ops[1]
    a, b, c = (lf.pred(x) for x in ops[2:5])
    lut = int(ops[5], 16)
    va, vb, vc = lf.tmp(), lf.tmp(), lf.tmp()
    for v, s in ((va, a), (vb, b), (vc, c)):
        lf.emit(f"selp.b32 {v}, -1, 0, {s};")
    r = lf.tmp()
    lf.emit(f"lop3.b32 {r}, {va}, {vb}, {vc}, {lut};")
    lf.emit(f"setp.ne.u32 {lf.pdst(p)}, {r}, 0;")
    lut2 = int(ops[6], 16) if len(ops) > 6 else 0
    if q not in ("PT",):
        r2 = lf.tmp()
        lf.emit(f"lop3.b32 {r2}, {va}, {vb}, {vc}, {lut2};")
        lf.emit(f"setp.ne.u32 {lf.pdst(q)}, {r2}, 0;")


def _shf(lf: KernelLifter, base: str, mods: list[str], ops: list[str]) -> None:
    m = set(mods)
    left = "L" in m
    d = lf.dst(ops[0])
    a, s, c = lf.src(ops[1]), lf.src(ops[2]), lf.src(ops[3])
    if _HEX.match(ops[2]) and int(ops[2], 16) < 32 and not m & {"U64", "S64"}:
        # by a constant, one word in: a 32-bit shift, as nvcc's PTX has it (the translator
        # reads `shr %r, %tid.x, k` as a warp number)
        k = int(ops[2], 16)
        if "HI" in m and ops[1] == "RZ" and not left:
            lf.emit(f"shr.{'s32' if 'S32' in m else 'u32'} {d}, {c}, {k};")
            return
        if "HI" not in m and ops[3] == "RZ" and left:
            lf.emit(f"shl.b32 {d}, {a}, {k};")
            return
    w = lf.tmp("d")
    lf.emit(f"mov.b64 {w}, {{{a}, {c}}};")
    wide = "U64" in m or "S64" in m
    sh = lf.tmp()
    lim = 63 if wide else 32
    if "W" in m:  # wrap: the amount modulo the width
        lf.emit(f"and.b32 {sh}, {s}, {lim if wide else 31};")
    else:
        lf.emit(f"min.u32 {sh}, {s}, {lim};")
    r = lf.tmp("d")
    if left:
        lf.emit(f"shl.b64 {r}, {w}, {sh};")
    elif "S64" in m or "S32" in m:
        if "S32" in m:
            # a 32-bit arithmetic shift of the high word
            lf.emit(f"cvt.s64.s32 {w}, {c};")
            lf.emit(f"shl.b64 {w}, {w}, 32;")
            lo = lf.tmp("d")
            lf.emit(f"cvt.u64.u32 {lo}, {a};")
            lf.emit(f"or.b64 {w}, {w}, {lo};")
        lf.emit(f"shr.s64 {r}, {w}, {sh};")
    else:
        lf.emit(f"shr.u64 {r}, {w}, {sh};")
    if "HI" in m:
        lf.emit(f"mov.b64 {{%rdis, {d}}}, {r};")
    else:
        lf.emit(f"cvt.u32.u64 {d}, {r};")


def _shl_shr(lf: KernelLifter, base: str, mods: list[str], ops: list[str]) -> None:
    d = lf.dst(ops[0])
    a, s = lf.src(ops[1]), lf.src(ops[2])
    if base == "SHL":
        lf.emit(f"shl.b32 {d}, {a}, {s};")
    else:
        lf.emit(f"shr.{'u32' if 'U32' in mods else 's32'} {d}, {a}, {s};")


def _setp_common(lf: KernelLifter, cmpres: str, ops: list[str], bop: str) -> None:
    p, q = ops[0], ops[1]
    pin = lf.pred(ops[-1]) if len(ops) > 4 else "%pt"
    if pin == "%pt" and bop == "and" and q == "PT" and p != "PT" and lf.cur \
            and lf.cur[-1].startswith("setp.") and f" {cmpres}, " in lf.cur[-1]:
        # P = cmp AND PT: the comparison into P itself, as nvcc writes it (the translator
        # reads a guard's range of %tid.x from a setp)
        lf.cur[-1] = lf.cur[-1].replace(f" {cmpres}, ", f" {lf.pdst(p)}, ", 1)
        return
    if p != "PT":
        lf.emit(f"{bop}.pred {lf.pdst(p)}, {cmpres}, {pin};")
    if q != "PT":
        n = lf.tmp("tp")
        lf.emit(f"not.pred {n}, {cmpres};")
        lf.emit(f"{bop}.pred {lf.pdst(q)}, {n}, {pin};")


def _isetp(lf: KernelLifter, base: str, mods: list[str], ops: list[str]) -> None:
    cmp = next((x for x in mods if x in _CMP), None)
    bop = next((_BOOL[x] for x in mods if x in _BOOL), None)
    if cmp is None or bop is None:
        lf.refuse()
    ty = "u32" if "U32" in mods else "s32"
    a, b = lf.src(ops[2]), lf.src(ops[3])
    r = lf.tmp("tp")
    if "EX" in mods:
        # the high words of a 64-bit compare; the low words' result comes in last
        ex = lf.pred(ops[5])
        strict = {"ge": "gt", "le": "lt", "gt": "gt", "lt": "lt"}.get(_CMP[cmp])
        if strict:
            s1, s2 = lf.tmp("tp"), lf.tmp("tp")
            lf.emit(f"setp.{strict}.{ty} {s1}, {a}, {b};")
            lf.emit(f"setp.eq.{ty} {s2}, {a}, {b};")
            lf.emit(f"and.pred {s2}, {s2}, {ex};")
            lf.emit(f"or.pred {r}, {s1}, {s2};")
        elif cmp == "EQ":
            lf.emit(f"setp.eq.{ty} {r}, {a}, {b};")
            lf.emit(f"and.pred {r}, {r}, {ex};")
        else:
            lf.emit(f"setp.ne.{ty} {r}, {a}, {b};")
            lf.emit(f"or.pred {r}, {r}, {ex};")
        _setp_common(lf, r, ops[:5], bop)
        return
    lf.emit(f"setp.{_CMP[cmp]}.{ty} {r}, {a}, {b};")
    _setp_common(lf, r, ops, bop)


def _fsetp(lf: KernelLifter, base: str, mods: list[str], ops: list[str]) -> None:
    cmp = next((x for x in mods if x in _FCMP), None)
    bop = next((_BOOL[x] for x in mods if x in _BOOL), None)
    if cmp is None or bop is None:
        lf.refuse()
    ftz = ".ftz" if "FTZ" in mods else ""
    a, b = lf.src(ops[2], "f"), lf.src(ops[3], "f")
    r = lf.tmp("tp")
    lf.emit(f"setp.{_FCMP[cmp]}{ftz}.f32 {r}, {a}, {b};")
    _setp_common(lf, r, ops, bop)


def _dsetp_minmax(lf: KernelLifter, op: str, ops: list[str]) -> None:
    """DSETP.MIN/MAX.AND Pa, Pb, a, b, PT: the halves of fmin/fmax on sm_80..90 (ptxas
    selects a or b with Pa, then quietens the result where Pb says both are NaN)."""
    if ops[4] != "PT":
        lf.refuse(f"DSETP.{op.upper()} with a combining predicate")
    a, b = lf.src64(ops[2], "d"), lf.src64(ops[3], "d")
    m = lf.tmp("d")
    lf.emit(f"{op}.f64 {m}, {a}, {b};")
    mb, ab, bb = lf.tmp("d"), lf.tmp("d"), lf.tmp("d")
    lf.emit(f"mov.b64 {mb}, {m};")
    lf.emit(f"mov.b64 {ab}, {a};")
    lf.emit(f"mov.b64 {bb}, {b};")
    pa, na, nb = lf.tmp("tp"), lf.tmp("tp"), lf.tmp("tp")
    lf.emit(f"setp.eq.b64 {pa}, {mb}, {ab};")
    lf.emit(f"setp.nan.f64 {na}, {a}, {a};")
    lf.emit(f"setp.nan.f64 {nb}, {b}, {b};")
    lf.emit(f"and.pred {na}, {na}, {nb};")
    lf.emit(f"mov.pred {lf.pdst(ops[0])}, {pa};")
    lf.emit(f"mov.pred {lf.pdst(ops[1])}, {na};")


def _dsetp(lf: KernelLifter, base: str, mods: list[str], ops: list[str]) -> None:
    if "MIN" in mods or "MAX" in mods:
        _dsetp_minmax(lf, "min" if "MIN" in mods else "max", ops)
        return
    cmp = next((x for x in mods if x in _FCMP), None)
    bop = next((_BOOL[x] for x in mods if x in _BOOL), None)
    if cmp is None or bop is None:
        lf.refuse()
    a, b = lf.src64(ops[2], "d"), lf.src64(ops[3], "d")
    r = lf.tmp("tp")
    lf.emit(f"setp.{_FCMP[cmp]}.f64 {r}, {a}, {b};")
    _setp_common(lf, r, ops, bop)


def _fset(lf: KernelLifter, base: str, mods: list[str], ops: list[str]) -> None:
    cmp = next((x for x in mods if x in _FCMP), None)
    bop = next((_BOOL[x] for x in mods if x in _BOOL), None)
    if cmp is None or bop is None:
        lf.refuse()
    a, b = lf.src(ops[1], "f"), lf.src(ops[2], "f")
    pin = lf.pred(ops[3]) if len(ops) > 3 else "%pt"
    r = lf.tmp("tp")
    lf.emit(f"setp.{_FCMP[cmp]}.f32 {r}, {a}, {b};")
    lf.emit(f"{bop}.pred {r}, {r}, {pin};")
    one = "0f3F800000" if "BF" in mods else "-1"
    lf.emit(f"selp.b32 {lf.dst(ops[0])}, {one}, 0, {r};")


def _sel(lf: KernelLifter, base: str, mods: list[str], ops: list[str]) -> None:
    d = lf.dst(ops[0])
    a, b = lf.src(ops[1], "f" if base == "FSEL" else "i"), lf.src(ops[2], "f" if base == "FSEL" else "i")
    p = lf.pred(ops[3])
    lf.emit(f"selp.b32 {d}, {a}, {b}, {p};")


def _p2r(lf: KernelLifter, base: str, mods: list[str], ops: list[str]) -> None:
    # P2R Rd, PR, Ra, mask: the predicate bits under mask, the rest of Ra kept
    if ops[1] != "PR":
        lf.refuse()
    d = lf.dst(ops[0])
    a = lf.src(ops[2])
    mask = int(ops[3], 16)
    acc = lf.tmp()
    lf.emit(f"and.b32 {acc}, {a}, {~mask & 0xFFFFFFFF};")
    for i in range(7):
        if mask >> i & 1:
            v = lf.tmp()
            lf.emit(f"selp.b32 {v}, {1 << i}, 0, %p{i};")
            lf.emit(f"or.b32 {acc}, {acc}, {v};")
    lf.emit(f"mov.b32 {d}, {acc};")


def _r2p(lf: KernelLifter, base: str, mods: list[str], ops: list[str]) -> None:
    if ops[0] != "PR":
        lf.refuse()
    a = lf.src(ops[1])
    mask = int(ops[2], 16)
    for i in range(7):
        if mask >> i & 1:
            v = lf.tmp()
            lf.emit(f"and.b32 {v}, {a}, {1 << i};")
            lf.emit(f"setp.ne.u32 %p{i}, {v}, 0;")


def _float3(op: str):
    def h(lf: KernelLifter, base: str, mods: list[str], ops: list[str]) -> None:
        rnd = next((x.lower() for x in mods if x in ("RN", "RZ", "RM", "RP")), "rn")
        ftz = ".ftz" if "FTZ" in mods else ""
        sat = ".sat" if "SAT" in mods else ""
        d = lf.dst(ops[0])
        if op == "add" and Op(ops[2]).base == "RZ" and Op(ops[2]).neg and not ftz and not sat:
            lf.emit(f"mov.b32 {d}, {lf.src(ops[1], 'f')};")  # x + -0: see _half3
            return
        srcs = [lf.src(x, "f") for x in ops[1:]]
        if op == "fma":
            lf.emit(f"fma.{rnd}{ftz}{sat}.f32 {d}, {srcs[0]}, {srcs[1]}, {srcs[2]};")
        else:
            lf.emit(f"{op}.{rnd}{ftz}{sat}.f32 {d}, {srcs[0]}, {srcs[1]};")
    return h


def _fmnmx(lf: KernelLifter, base: str, mods: list[str], ops: list[str]) -> None:
    d = lf.dst(ops[0])
    a, b = lf.src(ops[1], "f"), lf.src(ops[2], "f")
    ftz = ".ftz" if "FTZ" in mods else ""
    mn, mx = lf.tmp(), lf.tmp()
    lf.emit(f"min{ftz}.f32 {mn}, {a}, {b};")
    lf.emit(f"max{ftz}.f32 {mx}, {a}, {b};")
    lf.emit(f"selp.b32 {d}, {mn}, {mx}, {lf.pred(ops[3])};")


def _imnmx(lf: KernelLifter, base: str, mods: list[str], ops: list[str]) -> None:
    if "S16x2" in mods or "U16x2" in mods:
        _imnmx16x2(lf, "S16x2" in mods, ops)
        return
    d = lf.dst(ops[0])
    ty = "u32" if "U32" in mods else "s32"
    a, b = lf.src(ops[1]), lf.src(ops[2])
    if base == "VIMNMX" and ops[3] in ("PT", "!PT"):
        lf.emit(f"{'min' if ops[3] == 'PT' else 'max'}.{ty} {d}, {a}, {b};")
        return
    mn, mx = lf.tmp(), lf.tmp()
    lf.emit(f"min.{ty} {mn}, {a}, {b};")
    lf.emit(f"max.{ty} {mx}, {a}, {b};")
    lf.emit(f"selp.b32 {d}, {mn}, {mx}, {lf.pred(ops[3])};")


def _halves(lf: KernelLifter, v: str, signed: bool) -> tuple[str, str]:
    """The two 16-bit lanes of a register, widened to 32 bits (low, high)."""
    lo, hi = lf.tmp(), lf.tmp()
    if signed:
        lf.emit(f"shl.b32 {lo}, {v}, 16;")
        lf.emit(f"shr.s32 {lo}, {lo}, 16;")
        lf.emit(f"shr.s32 {hi}, {v}, 16;")
    else:
        lf.emit(f"and.b32 {lo}, {v}, 65535;")
        lf.emit(f"shr.u32 {hi}, {v}, 16;")
    return lo, hi


def _imnmx16x2(lf: KernelLifter, signed: bool, ops: list[str]) -> None:
    # VIMNMX.S16x2/U16x2 d, a, b, P: per 16-bit lane, min where P holds, else max
    ty = "s32" if signed else "u32"
    a = _halves(lf, lf.src(ops[1]), signed)
    b = _halves(lf, lf.src(ops[2]), signed)
    p = lf.pred(ops[3])
    res = []
    for x, y in zip(a, b, strict=True):
        mn, mx, r = lf.tmp(), lf.tmp(), lf.tmp()
        lf.emit(f"min.{ty} {mn}, {x}, {y};")
        lf.emit(f"max.{ty} {mx}, {x}, {y};")
        lf.emit(f"selp.b32 {r}, {mn}, {mx}, {p};")
        res.append(r)
    lf.emit(f"prmt.b32 {lf.dst(ops[0])}, {res[0]}, {res[1]}, 0x5410;")


def _imnmx3(lf: KernelLifter, base: str, mods: list[str], ops: list[str]) -> None:
    # VIMNMX3 d, a, b, c, P: the least (P holds) or greatest of three
    if any(m.endswith("x2") for m in mods):
        lf.refuse("packed three-way min/max")
    ty = "u32" if "U32" in mods else "s32"
    a, b, c = lf.src(ops[1]), lf.src(ops[2]), lf.src(ops[3])
    p = lf.pred(ops[4])
    mn, mx = lf.tmp(), lf.tmp()
    lf.emit(f"min.{ty} {mn}, {a}, {b};")
    lf.emit(f"min.{ty} {mn}, {mn}, {c};")
    lf.emit(f"max.{ty} {mx}, {a}, {b};")
    lf.emit(f"max.{ty} {mx}, {mx}, {c};")
    lf.emit(f"selp.b32 {lf.dst(ops[0])}, {mn}, {mx}, {p};")


def _mufu(lf: KernelLifter, base: str, mods: list[str], ops: list[str]) -> None:
    d = lf.dst(ops[0])
    fn = mods[0] if mods else ""
    o = Op(ops[1])
    if fn.endswith("64H") and (_is_float(o.base) or _HEX.match(o.base)) and not o.neg:
        # the operand is a double's high word: an immediate is printed as the double
        a = str(f64_bits(o.base) >> 32) if not _HEX.match(o.base) else str(int(o.base, 16))
    else:
        a = lf.src(ops[1], "f")
    if fn == "RCP":
        lf.emit(f"rcp.approx.ftz.f32 {d}, {a};")
    elif fn == "RSQ":
        lf.emit(f"rsqrt.approx.ftz.f32 {d}, {a};")
    elif fn == "SQRT":
        lf.emit(f"sqrt.approx.ftz.f32 {d}, {a};")
    elif fn == "EX2":
        lf.emit(f"ex2.approx.ftz.f32 {d}, {a};")
    elif fn == "LG2":
        lf.emit(f"lg2.approx.ftz.f32 {d}, {a};")
    elif fn == "TANH":
        lf.emit(f"tanh.approx.f32 {d}, {a};")
    elif fn in ("SIN", "COS"):
        # the hardware's argument is in turns (ptxas multiplies by 1/(2 pi) before)
        t = lf.tmp()
        lf.emit(f"mul.rn.f32 {t}, {a}, 0f40C90FDB;")
        lf.emit(f"{fn.lower()}.approx.ftz.f32 {d}, {t};")
    elif fn == "RCP64H":
        # the high word of an approximate 1/x for a double whose high word is a
        hi = lf.tmp("d")
        lf.emit(f"mov.b64 {hi}, {{0, {a}}};")
        r = lf.tmp("d")
        lf.emit(f"rcp.rn.f64 {r}, {hi};")
        lf.emit(f"mov.b64 {{%rdis, {d}}}, {r};")
    elif fn == "RSQ64H":
        hi = lf.tmp("d")
        lf.emit(f"mov.b64 {hi}, {{0, {a}}};")
        r = lf.tmp("d")
        lf.emit(f"rsqrt.approx.f64 {r}, {hi};")
        lf.emit(f"mov.b64 {{%rdis, {d}}}, {r};")
    else:
        lf.refuse()


def _int_type(mods: list[str], default: str) -> str:
    for x in mods:
        if x in ("U8", "S8", "U16", "S16", "U32", "S32", "U64", "S64"):
            return x.lower()
    return default


def _i2f(lf: KernelLifter, base: str, mods: list[str], ops: list[str]) -> None:
    itys = [x.lower() for x in mods if x in ("U8", "S8", "U16", "S16", "U32", "S32", "U64", "S64")]
    ftys = [x for x in mods if x in ("F16", "F32", "F64")]
    rnd = next((x.lower() for x in mods if x in ("RN", "RZ", "RM", "RP")), "rn")
    ity = itys[0] if itys else "s32"
    fty = (ftys[0] if ftys else "F32").lower()
    if ity in ("u64", "s64"):
        a = lf.src64(ops[1])
    elif ity in ("u8", "s8", "u16", "s16"):
        # the low byte/half-word, extended: every such value is exact in s32/u32
        bits = 8 if ity.endswith("8") else 16
        a = lf.tmp()
        lf.emit(f"{'szext.clamp.s32' if ity[0] == 's' else 'bmsk.clamp.b32'} {a}, "
                f"{lf.src(ops[1])}, {bits};" if ity[0] == "s" else
                f"and.b32 {a}, {lf.src(ops[1])}, {(1 << bits) - 1};")
        ity = "s32" if ity[0] == "s" else "u32"
    else:
        a = lf.src(ops[1])
    if fty == "f64":
        r = lf.tmp("d")
        lf.emit(f"cvt.{rnd}.f64.{ity} {r}, {a};")
        lf.set64(ops[0], r)
    elif fty == "f16":
        lf.refuse("I2F to F16")
    else:
        lf.emit(f"cvt.{rnd}.f32.{ity} {lf.dst(ops[0])}, {a};")


def _f2i(lf: KernelLifter, base: str, mods: list[str], ops: list[str]) -> None:
    ity = _int_type(mods, "s32")
    fty = "f64" if "F64" in mods else "f32"
    rnd = {"TRUNC": "rzi", "FLOOR": "rmi", "CEIL": "rpi"}.get(
        next((x for x in mods if x in ("TRUNC", "FLOOR", "CEIL")), ""), "rni")
    ftz = ".ftz" if "FTZ" in mods and fty == "f32" else ""
    a = lf.src64(ops[1], "d") if fty == "f64" else lf.src(ops[1], "f")
    if ity in ("u64", "s64"):
        r = lf.tmp("d")
        lf.emit(f"cvt.{rnd}{ftz}.{ity}.{fty} {r}, {a};")
        lf.set64(ops[0], r)
    else:
        lf.emit(f"cvt.{rnd}{ftz}.{ity}.{fty} {lf.dst(ops[0])}, {a};")


def _f2f(lf: KernelLifter, base: str, mods: list[str], ops: list[str]) -> None:
    tys = [x.lower() for x in mods if x in ("F16", "F32", "F64", "BF16")]
    if len(tys) != 2:
        lf.refuse()
    dt, st = tys
    rnd = next((x.lower() for x in mods if x in ("RN", "RZ", "RM", "RP")), "rn")
    ftz = ".ftz" if "FTZ" in mods else ""
    if st == "f64":
        a = lf.src64(ops[1], "d")
    elif st == "f16":
        o = Op(ops[1])
        a32 = lf._value(o, "h")
        h = lf.tmp()
        if o.suffix == "H1":
            lf.emit(f"shr.b32 {h}, {a32}, 16;")
        else:
            lf.emit(f"and.b32 {h}, {a32}, 65535;")
        a = h
    else:
        a = lf.src(ops[1], "f")
    if st == "f16":
        # cvt from f16 in a b32 register: go through a b16 temp
        b16 = "%hs"
        lf.emit(f"cvt.u16.u32 {b16}, {a};")
        a = b16
    if dt == "f64":
        r = lf.tmp("d")
        lf.emit(f"cvt{ftz}.f64.{st} {r}, {a};")
        lf.set64(ops[0], r)
    elif dt == "f16":
        lf.emit(f"cvt.{rnd}{ftz}.f16.{st} %hs, {a};")
        lf.emit(f"cvt.u32.u16 {lf.dst(ops[0])}, %hs;")
    else:
        rr = f".{rnd}" if st == "f64" else ""
        lf.emit(f"cvt{rr}{ftz}.f32.{st} {lf.dst(ops[0])}, {a};")


def _frnd(lf: KernelLifter, base: str, mods: list[str], ops: list[str]) -> None:
    rnd = {"TRUNC": "rzi", "FLOOR": "rmi", "CEIL": "rpi"}.get(
        next((x for x in mods if x in ("TRUNC", "FLOOR", "CEIL")), ""), "rni")
    ftz = ".ftz" if "FTZ" in mods else ""
    if "F64" in mods:
        r = lf.tmp("d")
        lf.emit(f"cvt.{rnd}.f64.f64 {r}, {lf.src64(ops[1], 'd')};")
        lf.set64(ops[0], r)
        return
    lf.emit(f"cvt.{rnd}{ftz}.f32.f32 {lf.dst(ops[0])}, {lf.src(ops[1], 'f')};")


def _double3(op: str):
    def h(lf: KernelLifter, base: str, mods: list[str], ops: list[str]) -> None:
        rnd = next((x.lower() for x in mods if x in ("RN", "RZ", "RM", "RP")), "rn")
        srcs = [lf.src64(x, "d") for x in ops[1:]]
        r = lf.tmp("d")
        if op == "fma":
            lf.emit(f"fma.{rnd}.f64 {r}, {srcs[0]}, {srcs[1]}, {srcs[2]};")
        else:
            lf.emit(f"{op}.{rnd}.f64 {r}, {srcs[0]}, {srcs[1]};")
        lf.set64(ops[0], r)
    return h


def _dmnmx(lf: KernelLifter, base: str, mods: list[str], ops: list[str]) -> None:
    a, b = lf.src64(ops[1], "d"), lf.src64(ops[2], "d")
    mn, mx, r = lf.tmp("d"), lf.tmp("d"), lf.tmp("d")
    lf.emit(f"min.f64 {mn}, {a}, {b};")
    lf.emit(f"max.f64 {mx}, {a}, {b};")
    lf.emit(f"selp.b64 {r}, {mn}, {mx}, {lf.pred(ops[3])};")
    lf.set64(ops[0], r)


def _bitop(ptx: str):
    def h(lf: KernelLifter, base: str, mods: list[str], ops: list[str]) -> None:
        d = lf.dst(ops[0])
        a = lf.src(ops[-1])
        if base == "FLO":
            ty = "u32" if "U32" in mods else "s32"
            sh = ".shiftamt" if "SH" in mods else ""
            lf.emit(f"bfind{sh}.{ty} {d}, {a};")
        elif base == "IABS":
            lf.emit(f"abs.s32 {d}, {a};")
        else:
            lf.emit(f"{ptx}.b32 {d}, {a};")
    return h


def _prmt(lf: KernelLifter, base: str, mods: list[str], ops: list[str]) -> None:
    d = lf.dst(ops[0])
    a, sel, b = lf.src(ops[1]), lf.src(ops[2]), lf.src(ops[3])
    mode = next((x for x in mods if x in ("F4E", "B4E", "RC8", "ECL", "ECR", "RC16")), "")
    lf.emit(f"prmt.b32{'.' + mode.lower() if mode else ''} {d}, {a}, {b}, {sel};")


def _sgxt(lf: KernelLifter, base: str, mods: list[str], ops: list[str]) -> None:
    d = lf.dst(ops[0])
    a, n = lf.src(ops[1]), lf.src(ops[2])
    lf.emit(f"szext.{'wrap' if 'W' in mods else 'clamp'}.{'u32' if 'U32' in mods else 's32'} "
            f"{d}, {a}, {n};")


def _bmsk(lf: KernelLifter, base: str, mods: list[str], ops: list[str]) -> None:
    d = lf.dst(ops[0])
    a, n = lf.src(ops[1]), lf.src(ops[2])
    lf.emit(f"bmsk.{'wrap' if 'W' in mods else 'clamp'}.b32 {d}, {a}, {n};")


# ---- memory ---------------------------------------------------------------------------------------
def _width(mods: list[str]) -> tuple[str, int]:
    for x in mods:
        if x in ("U8", "S8", "U16", "S16"):
            return x.lower(), 1
        if x == "64":
            return "b32", 2
        if x == "128":
            return "b32", 4
    return "b32", 1


def _regs_text(regs: list[str]) -> str:
    return regs[0] if len(regs) == 1 else "{" + ", ".join(regs) + "}"


def _strong(mods: list[str], space: str) -> str:
    """.STRONG.{CTA,SM,GPU,SYS}: a load or store other threads' accesses are ordered with
    (ptxas makes them of ld.volatile / ld.relaxed and of spin loops on a flag, as in
    cooperative_groups' grid sync); lifted as PTX volatile, so a target can neither keep the
    value in a register across loop iterations nor drop or merge the store. Local memory is
    the thread's own: nothing to order."""
    return ".volatile" if "STRONG" in mods and space != "local" else ""


def _load(space: str):
    def h(lf: KernelLifter, base: str, mods: list[str], ops: list[str]) -> None:
        ty, n = _width(mods)
        regs = lf.dst_pair(ops[0], n) if n > 1 else [lf.dst(ops[0])]
        if space == "param":
            lf.refuse()
        sp = space or ("global" if base == "LDG" else "")
        a = lf.address(ops[1], sp, "E" in mods)
        vec = f".v{n}" if n > 1 else ""
        if any(r == "%rdis" for r in regs) and n > 1:
            regs = [lf.tmp() if r == "%rdis" else r for r in regs]
        spc = f".{sp}" if sp else ""
        lf.emit(f"ld{_strong(mods, sp)}{spc}{vec}.{ty} {_regs_text(regs)}, {a};")
    return h


def _store(space: str):
    def h(lf: KernelLifter, base: str, mods: list[str], ops: list[str]) -> None:
        ty, n = _width(mods)
        ty = {"s8": "u8", "s16": "u16"}.get(ty, ty)
        o = Op(ops[1])
        if o.base in ("RZ", "URZ"):
            regs = ["0"] * n
        else:
            regs = [lf.src(ops[1])] if n == 1 else lf.dst_pair(ops[1], n)
        sp = space or ("global" if base == "STG" else "")
        a = lf.address(ops[0], sp, "E" in mods)
        vec = f".v{n}" if n > 1 else ""
        spc = f".{sp}" if sp else ""
        lf.emit(f"st{_strong(mods, sp)}{spc}{vec}.{ty} {a}, {_regs_text(regs)};")
    return h


def _ldc(lf: KernelLifter, base: str, mods: list[str], ops: list[str]) -> None:
    m = _CONST.match(Op(ops[1]).base)
    if not m:
        lf.refuse()
    bank = int(m.group(1), 16)
    if "64" in mods:
        v = lf.const_word(bank, m.group(2), 64)
        lf.set64(ops[0], v)
        return
    sub = next((x for x in mods if x in ("U8", "S8", "U16", "S16")), None)
    if sub is not None:
        lf.emit(f"mov.b32 {lf.dst(ops[0])}, {lf.const_sub(bank, m.group(2), sub.lower())};")
        return
    lf.emit(f"mov.b32 {lf.dst(ops[0])}, {lf.const_word(bank, m.group(2))};")


_ATOM_OPS = {"ADD": "add", "MIN": "min", "MAX": "max", "INC": "inc", "DEC": "dec",
             "AND": "and", "OR": "or", "XOR": "xor", "EXCH": "exch", "CAS": "cas"}


def _atom_type(op: str, mods: list[str]) -> tuple[str, int]:
    wide = "64" in mods
    if "F32" in mods:
        return "f32", 1
    if "F64" in mods:
        return "f64", 2
    if "F16x2" in mods or "BF16x2" in mods:
        if op != "add":
            raise KeyError("packed half atomics other than add")
        return ("noftz.bf16x2" if "BF16x2" in mods else "noftz.f16x2"), 1
    signed = "S32" in mods
    if op in ("and", "or", "xor", "exch", "cas"):
        return ("b64" if wide else "b32"), (2 if wide else 1)
    if signed:
        return ("s64" if wide else "s32"), (2 if wide else 1)
    return ("u64" if wide else "u32"), (2 if wide else 1)


def _atom(space: str, reduce: bool):
    def h(lf: KernelLifter, base: str, mods: list[str], ops: list[str]) -> None:
        rest = list(ops)
        done = None
        if rest and _PRED.match(rest[0]):
            done = rest.pop(0)
        if "CAST" in mods:  # ATOMS.CAST.SPIN: a CAS whose result is "it stored"
            d = lf.dst(rest[0])
            a = lf.address(rest[1], space)
            wide = "64" in mods
            if wide:
                # ATOMS.CAST.SPIN.64 Rd, [a], Rc, Rn: pairs; Rd:Rd+1 = 1 where it stored
                cmpv, newv = lf.src64(rest[2]), lf.src64(rest[3])
                old = lf.tmp("d")
                lf.emit(f"atom.{space}.cas.b64 {old}, {a}, {cmpv}, {newv};")
                p = lf.tmp("tp")
                lf.emit(f"setp.eq.u64 {p}, {old}, {cmpv};")
                lo, hi = lf.dst_pair(rest[0])
                lf.emit(f"selp.u32 {lo}, 1, 0, {p};")
                lf.emit(f"mov.u32 {hi}, 0;")
                return
            cmpv, newv = lf.src(rest[2]), lf.src(rest[3])
            old = lf.tmp()
            lf.emit(f"atom.{space}.cas.b32 {old}, {a}, {cmpv}, {newv};")
            p = lf.tmp("tp")
            lf.emit(f"setp.eq.u32 {p}, {old}, {cmpv};")
            lf.emit(f"selp.u32 {d}, 1, 0, {p};")
            return
        if "POPC" in mods and "INC" in mods:
            # ATOMS.POPC.INC.32: every active thread adds one
            d = lf.dst(rest[0])
            a = lf.address(rest[1], space)
            lf.emit(f"atom.{space}.add.u32 {d}, {a}, 1;")
            return
        op = next((_ATOM_OPS[x] for x in mods if x in _ATOM_OPS), None)
        if op is None:
            lf.refuse()
        try:
            ty, n = _atom_type(op, mods)
        except KeyError as exc:
            lf.refuse(str(exc))
        spc = f".{space}" if space else ""
        if reduce:
            a = lf.address(rest[0], space, "E" in mods)
            b = lf.src64(rest[1], "i") if n == 2 else lf.src(rest[1])
            lf.emit(f"red{spc}.{op}.{ty} {a}, {b};")
            return
        a = lf.address(rest[1], space, "E" in mods)
        if n == 2:
            b = lf.src64(rest[2])
            r = lf.tmp("d")
            if op == "cas":
                c = lf.src64(rest[3])
                lf.emit(f"atom{spc}.cas.b64 {r}, {a}, {b}, {c};")
            else:
                lf.emit(f"atom{spc}.{op}.{ty} {r}, {a}, {b};")
            lf.set64(rest[0], r)
            return
        b = lf.src(rest[2])
        d = lf.dst(rest[0])
        if ty.startswith("noftz") and done not in (None, "PT"):
            # ATOM.E.ADD.F16x2 P0, ...: P0 says it was done; ptxas follows it with a
            # shared-memory CAS loop for when it was not. PTX's generic atom does both
            lf.emit(f"atom{spc}.{op}.{ty} {d}, {a}, {b};")
            lf.emit(f"mov.pred {lf.pdst(done)}, %pt;")
            return
        if op == "cas":
            lf.emit(f"atom{spc}.cas.b32 {d}, {a}, {b}, {lf.src(rest[3])};")
        else:
            lf.emit(f"atom{spc}.{op}.{ty} {d}, {a}, {b};")
    return h


def _qspc(lf: KernelLifter, base: str, mods: list[str], ops: list[str]) -> None:
    # QSPC.E.S / QSPC.E.G P, RZ, [a]: whether a generic address is shared / global memory
    space = {"S": "shared", "G": "global", "L": "local"}.get(mods[-1] if mods else "")
    if space is None or len(ops) != 3 or Op(ops[1]).base != "RZ":
        lf.refuse()
    t = re.sub(r"^desc\[[^\]]*\]", "", ops[2].strip())
    m = re.match(r"^\[(R\d+)(?:\.64)?(?:\+(-?0x[0-9a-f]+))?\]$", t)
    if not m:
        lf.refuse(f"address {ops[2]}")
    a = lf.src64(m.group(1))
    if m.group(2):
        t2 = lf.tmp("d")
        lf.emit(f"add.s64 {t2}, {a}, {int(m.group(2), 16)};")
        a = t2
    lf.emit(f"isspacep.{space} {lf.pdst(ops[0])}, {a};")


# ---- tensor cores ---------------------------------------------------------------------------------
# SASS keeps each fragment in consecutive registers in PTX's fragment order (ldmatrix's
# matrices, mma's a/b/c/d words), so these lift one to one onto the PTX forms
_MMA_SHAPE = {"16816": (16, 8, 16), "1688": (16, 8, 8), "1684": (16, 8, 4),
              "16832": (16, 8, 32), "8816": (8, 8, 16), "8832": (8, 8, 32),
              "16864": (16, 8, 64)}
_MMA_BITS = {"f16": 16, "bf16": 16, "tf32": 32, "s8": 8, "u8": 8, "s4": 4, "u4": 4,
             "f32": 32, "s32": 32}


def _ldsm(lf: KernelLifter, base: str, mods: list[str], ops: list[str]) -> None:
    # LDSM.16.M88.4 / LDSM.16.MT88.2: ldmatrix of 1/2/4 8x8 b16 matrices (MT: transposed)
    if mods[:1] != ["16"] or len(mods) < 2 or mods[1] not in ("M88", "MT88") \
            or len(mods) > 3 or len(mods) == 3 and mods[2] not in ("1", "2", "4"):
        lf.refuse()
    n = int(mods[2]) if len(mods) == 3 else 1
    regs = lf.dst_pair(ops[0], n)
    if "%rdis" in regs:
        lf.refuse("LDSM into RZ")
    a = lf.address(ops[1], "shared")
    trans = ".trans" if mods[1] == "MT88" else ""
    lf.emit(f"ldmatrix.sync.aligned.m8n8.x{n}{trans}.shared.b16 {_regs_text(regs)}, {a};")


def _fragment(lf: KernelLifter, text: str, n: int) -> str:
    """A fragment operand: n consecutive registers (RZ: n zero words)."""
    o = Op(text)
    if o.base in ("RZ", "URZ"):
        regs = []
        for _ in range(n):
            t = lf.tmp()
            lf.emit(f"mov.b32 {t}, 0;")
            regs.append(t)
    else:
        if o.suffix not in ("", "ROW", "COL") or o.neg or o.not_ or o.abs:
            lf.refuse(f"fragment operand {text}")
        regs = lf.dst_pair(o.base, n)
    return "{" + ", ".join(regs) + "}"


def _mma_sync(lf: KernelLifter, shape: str, types: tuple[str, str, str, str], sat: bool,
              ops: list[str]) -> None:
    if shape not in _MMA_SHAPE or len(ops) != 4:
        lf.refuse(f"shape {shape}")
    m, n, k = _MMA_SHAPE[shape]
    dt, at, bt, ct = types
    words = [m * k * _MMA_BITS[at] // 1024, k * n * _MMA_BITS[bt] // 1024,
             m * n * _MMA_BITS[ct] // 1024]
    nd = m * n * _MMA_BITS[dt] // 1024
    if min(words) < 1:
        lf.refuse(f"shape {shape}")
    a, b, c = (_fragment(lf, t, w) for t, w in zip(ops[1:], words, strict=True))
    d = lf.dst_pair(ops[0], nd)
    if "%rdis" in d:
        lf.refuse("mma into RZ")
    satf = ".satfinite" if sat else ""
    lf.emit(f"mma.sync.aligned.m{m}n{n}k{k}.row.col{satf}.{dt}.{at}.{bt}.{ct} "
            f"{{{', '.join(d)}}}, {a}, {b}, {c};")


def _hmma(lf: KernelLifter, base: str, mods: list[str], ops: list[str]) -> None:
    # HMMA.16816.F32.BF16 d, a, b, c: accumulator type, then the inputs' (f16 unnamed)
    if len(mods) < 2 or mods[1] not in ("F32", "F16") or len(mods) > 3:
        lf.refuse()
    at = {"": "f16", "BF16": "bf16", "TF32": "tf32"}.get(mods[2] if len(mods) == 3 else "")
    if at is None:
        lf.refuse()
    dt = mods[1].lower()
    if at != "f16" and dt != "f32":
        lf.refuse()
    _mma_sync(lf, mods[0], (dt, at, at, dt), False, ops)


def _imma(lf: KernelLifter, base: str, mods: list[str], ops: list[str]) -> None:
    # IMMA.16832.S8.S8[.SAT] d, a.ROW, b.COL, c: s32 accumulators
    rest = [x for x in mods[1:] if x != "SAT"]
    ints = {"S8": "s8", "U8": "u8", "S4": "s4", "U4": "u4"}
    if len(rest) != 2 or any(x not in ints for x in rest):
        lf.refuse()
    at, bt = ints[rest[0]], ints[rest[1]]
    if (at in ("s8", "u8")) != (bt in ("s8", "u8")):
        lf.refuse()
    _mma_sync(lf, mods[0], ("s32", at, bt, "s32"), "SAT" in mods, ops)


# ---- warp -----------------------------------------------------------------------------------------
def _shfl(lf: KernelLifter, base: str, mods: list[str], ops: list[str]) -> None:
    mode = {"IDX": "idx", "UP": "up", "DOWN": "down", "BFLY": "bfly"}.get(mods[0] if mods else "")
    if mode is None:
        lf.refuse()
    p, d = ops[0], lf.dst(ops[1])
    a, b, c = lf.src(ops[2]), lf.src(ops[3]), lf.src(ops[4])
    mk = lf.mask()
    if p == "PT":
        lf.emit(f"shfl.sync.{mode}.b32 {d}, {a}, {b}, {c}, {mk};")
    else:
        lf.emit(f"shfl.sync.{mode}.b32 {d}|{lf.pdst(p)}, {a}, {b}, {c}, {mk};")


def _vote(lf: KernelLifter, base: str, mods: list[str], ops: list[str]) -> None:
    mode = mods[0] if mods else ""
    d, p, src = (ops[0], ops[1], ops[2]) if len(ops) == 3 else ("RZ", ops[0], ops[1])
    s = lf.pred(src)
    mk = lf.mask()
    if d not in ("RZ", "URZ"):
        lf.emit(f"vote.sync.ballot.b32 {lf.dst(d)}, {s}, {mk};")
    if p not in ("PT", "UPT"):
        if mode == "ANY":
            lf.emit(f"vote.sync.any.pred {lf.pdst(p)}, {s}, {mk};")
        elif mode == "ALL":
            lf.emit(f"vote.sync.all.pred {lf.pdst(p)}, {s}, {mk};")
        elif mode == "EQ":
            lf.emit(f"vote.sync.uni.pred {lf.pdst(p)}, {s}, {mk};")
        else:
            lf.refuse()


def _redux(lf: KernelLifter, base: str, mods: list[str], ops: list[str]) -> None:
    op = {"SUM": "add", "MIN": "min", "MAX": "max", "AND": "and", "OR": "or", "XOR": "xor"}.get(
        mods[0] if mods else "")
    if op is None:
        lf.refuse()
    ty = "s32" if "S32" in mods else ("b32" if op in ("and", "or", "xor") else "u32")
    lf.emit(f"redux.sync.{op}.{ty} {lf.dst(ops[0])}, {lf.src(ops[1])}, {lf.mask()};")


def _match(lf: KernelLifter, base: str, mods: list[str], ops: list[str]) -> None:
    mode = "any" if "ANY" in mods else "all"
    if "64" in mods:
        a = lf.src64(ops[-1])
        ty = "b64"
    else:
        a = lf.src(ops[-1])
        ty = "b32"
    if mode == "all":
        p = ops[0] if len(ops) == 3 else "PT"
        d = lf.dst(ops[1] if len(ops) == 3 else ops[0])
        mk = lf.mask()
        lf.emit(f"match.all.sync.{ty} {d}|{lf.pdst(p)}, {a}, {mk};" if p != "PT"
                else f"match.all.sync.{ty} {d}, {a}, {mk};")
        return
    lf.emit(f"match.any.sync.{ty} {lf.dst(ops[0])}, {a}, {lf.mask()};")


def _bar(lf: KernelLifter, base: str, mods: list[str], ops: list[str]) -> None:
    if "SYNC" in mods or "SYNCALL" in mods or not mods or mods == ["DEFER_BLOCKING"]:
        bid = lf.src(ops[0]) if ops else "0"
        if len(ops) > 1:
            lf.emit(f"bar.sync {bid}, {lf.src(ops[1])};")
        else:
            lf.emit(f"bar.sync {bid};")
        return
    if "ARV" in mods:
        lf.emit(f"bar.arrive {lf.src(ops[0])}, {lf.src(ops[1])};")
        return
    if "RED" in mods:
        # BAR.RED.op bar, P: the block's reduction lands in the barrier result that
        # B2R.RESULT reads (%bres: the count, or 1/0 for AND/OR)
        op = {"POPC": "popc", "AND": "and", "OR": "or"}.get(mods[1] if len(mods) > 1 else "")
        if op is None:
            lf.refuse()
        bid = lf.src(ops[0])
        pin = lf.pred(ops[-1])
        if len(ops) == 3:  # with a thread count
            lf.refuse("BAR.RED with a thread count")
        if op == "popc":
            lf.emit(f"bar.red.popc.u32 %bres, {bid}, {pin};")
        else:
            r = lf.tmp("tp")
            lf.emit(f"bar.red.{op}.pred {r}, {bid}, {pin};")
            lf.emit(f"selp.u32 %bres, 1, 0, {r};")
        return
    lf.refuse()


def _b2r(lf: KernelLifter, base: str, mods: list[str], ops: list[str]) -> None:
    if "RESULT" not in mods:
        lf.refuse()
    if ops[0] not in ("RZ",):
        lf.emit(f"mov.b32 {lf.dst(ops[0])}, %bres;")
    if len(ops) > 1 and ops[1] != "PT":
        lf.emit(f"setp.ne.u32 {lf.pdst(ops[1])}, %bres, 0;")


def _membar(lf: KernelLifter, base: str, mods: list[str], ops: list[str]) -> None:
    if "CTA" in mods:
        lf.emit("membar.cta;")
    elif "SYS" in mods:
        lf.emit("membar.sys;")
    else:
        lf.emit("membar.gl;")


def _viaddmnmx(lf: KernelLifter, base: str, mods: list[str], ops: list[str]) -> None:
    # VIADDMNMX d, a, b, c, P: min (P true) or max of a + b and c
    ty = "u32" if "U32" in mods else "s32"
    s = lf.tmp()
    lf.emit(f"add.u32 {s}, {lf.src(ops[1])}, {lf.src(ops[2])};")
    c = lf.src(ops[3])
    mn, mx = lf.tmp(), lf.tmp()
    lf.emit(f"min.{ty} {mn}, {s}, {c};")
    lf.emit(f"max.{ty} {mx}, {s}, {c};")
    lf.emit(f"selp.b32 {lf.dst(ops[0])}, {mn}, {mx}, {lf.pred(ops[4])};")


def _warpsync(lf: KernelLifter, base: str, mods: list[str], ops: list[str]) -> None:
    if "COLLECTIVE" in mods:
        # WARPSYNC.COLLECTIVE mask, end: the lanes of mask run the following collective
        # (up to ENDCOLLECTIVE, which falls through to end) together.
        # WARPSYNC.COLLECTIVE.ALL end: the same for every lane (the mask is implied)
        lf.emit("bar.warp.sync -1;" if "ALL" in mods else f"bar.warp.sync {lf.src(ops[0])};")
        return
    if "ALL" in mods or not ops:
        lf.emit("bar.warp.sync -1;")
    else:
        lf.emit(f"bar.warp.sync {lf.src(ops[0])};")


def _bmov(lf: KernelLifter, base: str, mods: list[str], ops: list[str]) -> None:
    # convergence-barrier state is ordinary storage here (BSSY/BSYNC do nothing)
    def breg(t: str) -> str | None:
        m = re.match(r"^B(\d+)$", t)
        return f"%b{m.group(1)}" if m else None
    d, s = ops[0], ops[1]
    bd, bs = breg(d), breg(s)
    if bd is not None:
        lf.emit(f"mov.b32 {bd}, {lf.src(s)};")
    elif bs is not None:
        lf.emit(f"mov.b32 {lf.dst(d)}, {bs};")
        if "CLEAR" in mods:
            lf.emit(f"mov.b32 {bs}, 0;")
    else:
        lf.refuse()


def _target(lf: KernelLifter, text: str) -> int:
    m = _LABEL.match(text.strip())
    if not m:
        lf.refuse(f"branch target {text}")
    name = m.group(1)
    if name not in lf.labels:
        lf.refuse(f"branch target {name} outside the kernel")
    return lf.labels[name]


def _bra(lf: KernelLifter, base: str, mods: list[str], ops: list[str]) -> None:
    ins = lf.ins
    assert ins is not None
    if not ops:
        lf.refuse()
    tgt_text = ops[-1]
    if not tgt_text.startswith("`"):
        lf.refuse("indirect branch")
    off = _target(lf, tgt_text)
    if off == ins.offset:  # the self-loop after EXIT that pads the code
        lf.emit("ret;")
        return
    if "DIV" in mods and not lf.partial_warps:
        return  # the whole warp runs together here: never diverged
    if "DIV" in mods or "CONV" in mods:
        # BRA.DIV: taken while some lane of the mask is not active; BRA.CONV: while all are
        mask = lf.src(ops[0]) if len(ops) > 1 else "-1"
        am = lf.tmp()
        lf.emit(f"activemask.b32 {am};")
        t = lf.tmp()
        lf.emit(f"and.b32 {t}, {am}, {mask};")
        p = lf.tmp("tp")
        lf.emit(f"setp.{'ne' if 'DIV' in mods else 'eq'}.u32 {p}, {t}, {mask};")
        lf.emit(f"@{p} bra {lf.label(off)};")
        return
    if len(ops) > 1 and ops[0] not in ("PT",):
        # BRA P, target: a predicate operand (uniform branch)
        p = lf.pred(ops[0])
        lf.emit(f"@{p} bra {lf.label(off)};")
        return
    lf.emit(f"bra {lf.label(off)};")


# functions outside the cubin that ptxas calls through constant bank 4 (CALL.ABS), with
# their PTX signatures: arguments in R4.. (64-bit ones in even pairs), the result in R4
EXTERNAL = {
    "vprintf": ("b32", ["b64", "b64"],
                ".extern .func (.param .b32 r) vprintf (.param .b64 a0, .param .b64 a1);"),
    "malloc": ("b64", ["b64"], ".extern .func (.param .b64 r) malloc (.param .b64 a0);"),
    "free": ("", ["b64"], ".extern .func free (.param .b64 a0);"),
    "__assertfail": ("", ["b64", "b64", "b32", "b64", "b64"],
                     ".extern .func __assertfail (.param .b64 a0, .param .b64 a1, "
                     ".param .b32 a2, .param .b64 a3, .param .b64 a4);"),
}
EXTERNAL_TAG = 0x5AA5 << 48  # the "address" bank 4 holds for external function k: TAG + k


def _call_external(lf: KernelLifter, ops: list[str]) -> None:
    names = lf.mod.externals_all
    if not names:
        lf.refuse("absolute call to an unknown address")
    target = lf.src64(ops[0])
    done = lf.label_fresh()
    for name in names:
        ret, args, decl = EXTERNAL[name]
        lf.mod.declare(name, decl)
        p = lf.tmp("tp")
        skip = lf.label_fresh()
        lf.emit(f"setp.ne.u64 {p}, {target}, {EXTERNAL_TAG + names.index(name)};")
        lf.emit(f"@{p} bra {skip};")
        lf.emit("{")
        reg = 4
        plist = []
        for i, ty in enumerate(args):
            lf.emit(f".param .{ty} a{i};")
            if ty == "b64":
                reg += reg & 1
                v = lf.src64(f"R{reg}")
                reg += 2
            else:
                v = lf.src(f"R{reg}")
                reg += 1
            lf.emit(f"st.param.{ty} [a{i}], {v};")
            plist.append(f"a{i}")
        if ret:
            lf.emit(f".param .{ret} r;")
            lf.emit(f"call.uni (r), {name}, ({', '.join(plist)});")
            if ret == "b64":
                d = lf.tmp("d")
                lf.emit(f"ld.param.b64 {d}, [r];")
                lf.emit(f"mov.b64 {{%r4, %r5}}, {d};")
            else:
                lf.emit("ld.param.b32 %r4, [r];")
        else:
            lf.emit(f"call.uni {name}, ({', '.join(plist)});")
        lf.emit("}")
        lf.emit(f"bra {done};")
        lf.emit(f"{skip}:")
    lf.emit("trap;")
    lf.emit(f"{done}:")


def _call(lf: KernelLifter, base: str, mods: list[str], ops: list[str]) -> None:
    if "ABS" in mods:
        _call_external(lf, ops)
        return
    off = _target(lf, ops[-1])
    lf.emit(f"bra {lf.label(off)};")


def _ret(lf: KernelLifter, base: str, mods: list[str], ops: list[str]) -> None:
    # RET.REL.NODEC Rn: back to the return address in Rn (an offset after a CALL)
    r = lf.src(ops[0])
    if not lf.returns:
        lf.emit("ret;")
        return
    for off in lf.returns:
        p = lf.tmp("tp")
        lf.emit(f"setp.eq.u32 {p}, {r}, {off};")
        lf.emit(f"@{p} bra {lf.label(off)};")
    lf.emit("trap;")


def _exit(lf: KernelLifter, base: str, mods: list[str], ops: list[str]) -> None:
    lf.emit("ret;")


def _trap(lf: KernelLifter, base: str, mods: list[str], ops: list[str]) -> None:
    lf.emit("trap;")


def _ldgsts(lf: KernelLifter, base: str, mods: list[str], ops: list[str]) -> None:
    n = {"64": 2, "128": 4}.get(next((x for x in mods if x in ("64", "128")), ""), 1)
    if "ZFILL" in mods:
        lf.refuse("LDGSTS.ZFILL")
    dst = lf.address(ops[0], "shared")
    src = lf.address(ops[1], "global", True)
    regs = [lf.tmp() for _ in range(n)]
    vec = f".v{n}" if n > 1 else ""
    # done at once (LDGDEPBAR/DEPBAR then have nothing to wait for); a false third
    # operand copies zeros and reads nothing (cp.async's src-size 0)
    if len(ops) > 2:
        p = lf.pred(ops[2])
        for r in regs:
            lf.emit(f"mov.b32 {r}, 0;")
        lf.emit(f"@{p} ld.global{vec}.b32 {_regs_text(regs)}, {src};")
    else:
        lf.emit(f"ld.global{vec}.b32 {_regs_text(regs)}, {src};")
    lf.emit(f"st.shared{vec}.b32 {dst}, {_regs_text(regs)};")


def _fchk(lf: KernelLifter, base: str, mods: list[str], ops: list[str]) -> None:
    # FCHK P, a, b: "this division needs the exact slow path": always take it
    lf.emit(f"setp.eq.u32 {lf.pdst(ops[0])}, 0, 0;")


def _lepc(lf: KernelLifter, base: str, mods: list[str], ops: list[str]) -> None:
    assert lf.ins is not None
    lf.set64(ops[0], str(lf.ins.offset))


def _popc(lf: KernelLifter, base: str, mods: list[str], ops: list[str]) -> None:
    lf.emit(f"popc.b32 {lf.dst(ops[0])}, {lf.src(ops[1])};")


def _r2ur(lf: KernelLifter, base: str, mods: list[str], ops: list[str]) -> None:
    lf.emit(f"mov.b32 {lf.dst(ops[0])}, {lf.src(ops[1])};")


# ---- half precision -----------------------------------------------------------------------------
def _half_src(lf: KernelLifter, text: str, ty: str = "f16") -> tuple[str, str]:
    """(low half, high half) of a packed-half operand as b16 registers, swizzle applied."""
    o = Op(text)
    if o.base not in ("RZ", "URZ") and not _REG.match(o.base) and not _CONST.match(o.base):
        # an immediate pair, printed as two operands: handled by the caller
        lf.refuse(f"half operand {text}")
    v = lf._value(o, "h")
    lo, hi = lf.tmp("h"), lf.tmp("h")
    lf.emit(f"mov.b32 {{{lo}, {hi}}}, {v};")
    sw = o.suffix
    if sw == "H0_H0":
        hi = lo
    elif sw == "H1_H1":
        lo = hi
    elif sw in ("", "F32"):
        pass
    else:
        lf.refuse(f"half swizzle {sw}")
    if o.neg or o.abs:
        out = []
        for x in (lo, hi):
            t = lf.tmp("h")
            lf.emit(f"{'abs' if o.abs else 'neg'}.{ty} {t}, {x};")
            if o.neg and o.abs:
                t2 = lf.tmp("h")
                lf.emit(f"neg.{ty} {t2}, {t};")
                t = t2
            out.append(t)
        lo, hi = out
    return lo, hi


def bf16_bits(t: str) -> int:
    """A printed bfloat16 immediate's bits (the f32's high half, rounded to nearest even)."""
    b = f32_bits(t)
    if (b & 0x7FFFFFFF) > 0x7F800000:
        return (b >> 16) | 0x40
    return ((b + 0x7FFF + ((b >> 16) & 1)) >> 16) & 0xFFFF


def _half_imm(lf: KernelLifter, a: str, b: str, ty: str = "f16") -> tuple[str, str]:
    # nvdisasm prints an immediate half pair high half first (HFMA2.MMA R7, -RZ, RZ, 0,
    # 2.38e-07 puts 4 in R7)
    bits = bf16_bits if ty == "bf16" else f16_bits
    lo, hi = lf.tmp("h"), lf.tmp("h")
    lf.emit(f"mov.b16 {hi}, 0x{bits(a):04X};")
    lf.emit(f"mov.b16 {lo}, 0x{bits(b):04X};")
    return lo, hi


def _half_operands(lf: KernelLifter, ops: list[str], n: int,
                   ty: str = "f16") -> list[tuple[str, str]]:
    out = []
    i = 0
    while len(out) < n:
        t = ops[i]
        o = Op(t)
        if _is_float(o.base) and not _REG.match(o.base):
            out.append(_half_imm(lf, ops[i], ops[i + 1], ty))
            i += 2
        else:
            out.append(_half_src(lf, t, ty))
            i += 1
    return out


def _half3(op: str):
    def h(lf: KernelLifter, base: str, mods: list[str], ops: list[str]) -> None:
        n = 3 if op == "fma" else 2
        # .BF16_V2: the lanes are bfloat16 (immediates too)
        hty = "bf16" if "BF16_V2" in mods else "f16"
        if "MMA" in mods and op == "fma" and Op(ops[1]).base == "RZ" and Op(ops[2]).base == "RZ":
            # HFMA2.MMA Rd, -RZ, RZ, a, b: ptxas's way to move two halves
            n0 = len(lf.cur)
            src = _half_operands(lf, ops[3:], 1, hty)[0]
            imm = dict(m.groups() for ln in lf.cur[n0:]
                       if (m := re.match(r"^mov\.b16 (%h\d+), (0x[0-9a-fA-F]+);$", ln)))
            if len(imm) == len(lf.cur) - n0 and src[0] in imm and src[1] in imm:
                # two immediate halves: one 32-bit constant, which the translator folds
                # (a stride of 4 in an address is then an affine step, not a product)
                del lf.cur[n0:]
                v = int(imm[src[0]], 16) | int(imm[src[1]], 16) << 16
                lf.emit(f"mov.b32 {lf.dst(ops[0])}, {v};")
                return
            lf.emit(f"mov.b32 {lf.dst(ops[0])}, {{{src[0]}, {src[1]}}};")
            return
        if op == "add" and len(ops) == 3 and Op(ops[2]).base == "RZ" and Op(ops[2]).neg \
                and not {"FTZ", "SAT", "F32"} & set(mods):
            # x + -0 is x for every x but NaN: ptxas's spelling of neg/abs/mov, lifted as
            # those (a NaN keeps its payload, as the PTX front end's neg/abs keep it)
            lo, hi = _half_src(lf, ops[1], hty)
            lf.emit(f"mov.b32 {lf.dst(ops[0])}, {{{lo}, {hi}}};")
            return
        srcs = _half_operands(lf, ops[1:], n, hty)
        ftz = ".ftz" if "FTZ" in mods else ""
        sat = ".sat" if "SAT" in mods else ""
        if "F32" in mods:
            # .F32: the low lanes widened to float, the arithmetic in float
            wide = []
            for sv in srcs:
                w = lf.tmp()
                lf.emit(f"cvt.f32.{hty} {w}, {sv[0]};")
                wide.append(w)
            if op == "add" and Op(ops[1]).base == "RZ" and not ftz and not sat:
                lf.emit(f"mov.b32 {lf.dst(ops[0])}, {wide[1]};")  # -0 + x: x
                return
            fop = "fma" if op == "fma" else op
            lf.emit(f"{fop}.rn{ftz}{sat}.f32 {lf.dst(ops[0])}, {', '.join(wide)};")
            return
        res = []
        for lane in (0, 1):
            r = lf.tmp("h")
            args = ", ".join(s[lane] for s in srcs)
            lf.emit(f"{op}.rn{ftz}{sat}.{hty} {r}, {args};")
            res.append(r)
        lf.emit(f"mov.b32 {lf.dst(ops[0])}, {{{res[0]}, {res[1]}}};")
    return h


def _hsetp2(lf: KernelLifter, base: str, mods: list[str], ops: list[str]) -> None:
    cmp = next((x for x in mods if x in _FCMP), None)
    bop = next((_BOOL[x] for x in mods if x in _BOOL), None)
    if cmp is None or bop is None:
        lf.refuse()
    a, b = _half_operands(lf, ops[2:], 2)
    rest = ops[2:]
    pin_text = rest[-1] if _PRED.match(rest[-1].lstrip("!")) else "PT"
    pin = lf.pred(pin_text)
    for lane, pd in enumerate((ops[0], ops[1])):
        if pd == "PT":
            continue
        r = lf.tmp("tp")
        lf.emit(f"setp.{_FCMP[cmp]}.f16 {r}, {a[lane]}, {b[lane]};")
        lf.emit(f"{bop}.pred {lf.pdst(pd)}, {r}, {pin};")


def _hset2(lf: KernelLifter, base: str, mods: list[str], ops: list[str]) -> None:
    # HSET2[.BF].cmp.bop d, a, b, P: per half 1.0 (.BF) or 0xffff where the test holds
    cmp = next((x for x in mods if x in _FCMP), None)
    bop = next((_BOOL[x] for x in mods if x in _BOOL), None)
    if cmp is None or bop is None or set(mods) - {cmp, "BF", "FTZ", bop.upper()}:
        lf.refuse()
    a, b = _half_operands(lf, ops[1:], 2)
    rest = ops[1:]
    pin = lf.pred(rest[-1] if _PRED.match(rest[-1].lstrip("!")) else "PT")
    ftz = ".ftz" if "FTZ" in mods else ""
    one = 0x3C00 if "BF" in mods else 0xFFFF
    acc = lf.tmp()
    lf.emit(f"mov.b32 {acc}, 0;")
    for lane in (0, 1):
        r = lf.tmp("tp")
        lf.emit(f"setp.{_FCMP[cmp]}{ftz}.f16 {r}, {a[lane]}, {b[lane]};")
        lf.emit(f"{bop}.pred {r}, {r}, {pin};")
        v = lf.tmp()
        lf.emit(f"selp.b32 {v}, {one << (16 * lane)}, 0, {r};")
        lf.emit(f"or.b32 {acc}, {acc}, {v};")
    lf.emit(f"mov.b32 {lf.dst(ops[0])}, {acc};")


def _f2fp(lf: KernelLifter, base: str, mods: list[str], ops: list[str]) -> None:
    # F2FP.F16.F32.PACK_AB Rd, a, b: two floats rounded to halves, b low, a high
    ty = "bf16" if "BF16" in mods else "f16"
    rnd = "rz" if "RZ" in mods else "rn"
    relu = ".relu" if "RELU" in mods else ""
    a, b = lf.src(ops[1], "f"), lf.src(ops[2], "f")
    lo, hi = lf.tmp("h"), lf.tmp("h")
    lf.emit(f"cvt.{rnd}{relu}.{ty}.f32 {lo}, {b};")
    lf.emit(f"cvt.{rnd}{relu}.{ty}.f32 {hi}, {a};")
    lf.emit(f"mov.b32 {lf.dst(ops[0])}, {{{lo}, {hi}}};")


HANDLERS = {
    "NOP": _nop, "YIELD": _nop, "BSSY": _nop, "BSYNC": _nop, "DEPBAR": _nop,
    "LDGDEPBAR": _nop, "ERRBAR": _nop, "CGAERRBAR": _nop, "CCTL": _nop, "CCTLL": _nop, "NANOSLEEP": _nop,
    "MOV": _mov, "S2R": _s2r, "S2UR": _s2r, "CS2R": _cs2r, "R2UR": _r2ur,
    "IADD3": _iadd3, "VIADD": _viadd, "IMAD": _imad, "LEA": _lea, "LOP3": _lop3, "LOP": _lop,
    "PLOP3": _plop3, "SHF": _shf, "SHL": _shl_shr, "SHR": _shl_shr,
    "ISETP": _isetp, "FSETP": _fsetp, "DSETP": _dsetp, "FSET": _fset,
    "SEL": _sel, "FSEL": _sel, "P2R": _p2r, "R2P": _r2p,
    "FADD": _float3("add"), "FMUL": _float3("mul"), "FFMA": _float3("fma"),
    "FMNMX": _fmnmx, "IMNMX": _imnmx, "VIMNMX": _imnmx, "VIMNMX3": _imnmx3,
    "MUFU": _mufu,
    "I2F": _i2f, "I2FP": _i2f, "F2I": _f2i, "F2IP": _f2i, "F2F": _f2f, "FRND": _frnd,
    "DADD": _double3("add"), "DMUL": _double3("mul"), "DFMA": _double3("fma"),
    "DMNMX": _dmnmx,
    "POPC": _popc, "FLO": _bitop("bfind"), "BREV": _bitop("brev"), "IABS": _bitop("abs"),
    "PRMT": _prmt, "SGXT": _sgxt, "BMSK": _bmsk,
    "LDG": _load("global"), "LDS": _load("shared"), "LDL": _load("local"), "LD": _load(""),
    "STG": _store("global"), "STS": _store("shared"), "STL": _store("local"), "ST": _store(""),
    "LDC": _ldc, "LDGSTS": _ldgsts,
    "ATOMG": _atom("global", False), "ATOM": _atom("", False), "ATOMS": _atom("shared", False),
    "RED": _atom("global", True), "REDG": _atom("global", True),
    "SHFL": _shfl, "VOTE": _vote, "VOTEU": _vote, "REDUX": _redux, "MATCH": _match,
    "VIADDMNMX": _viaddmnmx, "ENDCOLLECTIVE": _nop,
    "BAR": _bar, "B2R": _b2r, "BREAK": _nop, "MEMBAR": _membar, "WARPSYNC": _warpsync, "BMOV": _bmov,
    "BRA": _bra, "JMP": _bra, "CALL": _call, "RET": _ret, "EXIT": _exit, "BPT": _trap,
    "FCHK": _fchk, "LEPC": _lepc,
    "HADD2": _half3("add"), "HMUL2": _half3("mul"), "HFMA2": _half3("fma"),
    "HSETP2": _hsetp2, "HSET2": _hset2, "F2FP": _f2fp,
    "QSPC": _qspc, "LDSM": _ldsm, "HMMA": _hmma, "IMMA": _imma,
}
# ULDC: a uniform register from a constant bank (LDC's handler); UMOV etc. via "U" + name
HANDLERS["ULDC"] = _ldc


class ModuleLifter:
    """The PTX module of one cubin: its variables, then one .entry per kernel."""

    def __init__(self, elf: bytes) -> None:
        self.elf = bytes(elf)
        self.cub = cb.read(self.elf)
        if not 75 <= self.cub.arch <= 90 or self.cub.arch in (87, 88):
            # sm_100+ encodings differ; the lifter knows sm_75..sm_90 only
            if self.cub.arch < 75 or self.cub.arch > 90:
                raise LiftError(f"SASS for sm_{self.cub.arch}: pyshim lifts sm_75..sm_90 only")
        self.decls: list[str] = []
        self.declared: set[str] = set()
        self.kernel_params: dict[str, dict[int, str]] = {}
        self.cur_kernel: cb.Kernel | None = None
        self.objects: dict[str, cb.Symbol] = {s.name: s for s in self.cub.symbols
                                             if s.kind == cb.STT_OBJECT}
        self.functions = {s.name for s in self.cub.symbols if s.kind == cb.STT_FUNC}
        # external functions bank 4 refers to (their tags number them in name order)
        self.externals_all = sorted({s for rows in self.cub.relocations.values()
                                     for _, s, _ in rows if s in EXTERNAL})
        self.externals: set[str] = set(self.externals_all)

    # ---- variables --------------------------------------------------------------------------
    def param_name(self, ordinal: int) -> str:
        return f"__sass_p{ordinal}"

    def local_bytes(self, k: cb.Kernel) -> int:
        n = k.frame_bytes + k.stack_bytes
        if any(i.opcode.startswith("CALL") for i in self.sections[k.text].insns):
            n += 4096  # recursion's depth is not in the cubin: room for a few levels
        return max(16, (n + 15) & ~15)

    def declare(self, name: str, text: str) -> None:
        if name not in self.declared:
            self.declared.add(name)
            self.decls.append(text)

    def _init_bytes(self, data: bytes) -> str:
        return "{" + ", ".join(str(b) for b in data) + "}"

    def declare_object(self, sym: cb.Symbol) -> str:
        name = _ptx_name(sym.name)
        sec = sym.section
        space = "const" if sec.startswith(".nv.constant") else "global"
        data = self.cub.sections.get(sec, b"")[sym.value:sym.value + sym.size]
        if sec in self.cub.relocations and any(sym.value <= o < sym.value + sym.size
                                               for o, _, _ in self.cub.relocations[sec]):
            raise _Refuse("(data)", f"variable {sym.name} holds relocated addresses")
        init = f" = {self._init_bytes(data)}" if data.strip(b"\0") else ""
        size = max(sym.size, 1)
        self.declare(name, f".visible .{space} .align 8 .b8 {name}[{size}]{init};")
        return name

    def symbol_address(self, lf: KernelLifter, sym: str) -> str:
        if sym in self.objects:
            name = self.declare_object(self.objects[sym])
            d = lf.tmp("d")
            lf.emit(f"mov.u64 {d}, {name};")
            return d
        lf.refuse(f"relocation against {sym}")
        return "0"

    def bank_space(self, bank: int) -> str:
        return "const" if bank in (2, 3) else "global"

    def bank_section(self, bank: int) -> str | None:
        k = self.cur_kernel
        assert k is not None
        for name in (f".nv.constant{bank}.{k.name}", f".nv.constant{bank}"):
            if name in self.cub.sections:
                return name
        return None

    def bank_var(self, lf: KernelLifter, bank: int) -> str:
        """The whole of a constant bank as one variable (indexed reads)."""
        sec = self.bank_section(bank)
        if sec is None or bank in (0, 3):
            lf.refuse(f"indexed read of constant bank {bank}")
        assert sec is not None
        name = _ptx_name(f"__sass_c{bank}_{sec}")
        data = self.cub.sections[sec]
        if bank == 4:  # the address table: 64-bit relocated addresses
            rel = {o: s for o, s, _ in self.cub.relocations.get(sec, [])}
            items = []
            for o in range(0, len(data), 8):
                if o in rel:
                    s = rel[o]
                    if s in EXTERNAL:
                        self.externals.add(s)
                        items.append(str(EXTERNAL_TAG + sorted(self.externals_all).index(s)))
                        continue
                    if s not in self.objects:
                        lf.refuse(f"address of {s} in constant bank 4")
                    items.append(self.declare_object(self.objects[s]))
                else:
                    items.append(str(struct.unpack_from("<Q", data.ljust(o + 8, b"\0"), o)[0]))
            self.declare(name, f".global .align 8 .u64 {name}[{max(len(items), 1)}] = "
                               f"{{{', '.join(items)}}};")
            return name
        init = f" = {self._init_bytes(data)}" if data.strip(b"\0") else ""
        self.declare(name, f".const .align 8 .b8 {name}[{max(len(data), 1)}]{init};")
        return name

    def const3_symbol(self, lf: KernelLifter, off: int) -> cb.Symbol:
        sec = self.bank_section(3)
        for s in self.cub.objects_in(sec or ""):
            if s.value <= off < s.value + max(s.size, 1):
                return s
        lf.refuse(f"c[0x3][{off:#x}] outside every __constant__ variable")
        raise AssertionError

    def bank_word(self, lf: KernelLifter, bank: int, off: int) -> str:
        t = lf.tmp()
        sec = self.bank_section(bank)
        if sec is None:
            lf.refuse(f"constant bank {bank} (no section)")
        assert sec is not None
        if bank == 3:  # __constant__ variables: read through the symbol that holds off
            for s in self.cub.objects_in(sec):
                if s.value <= off < s.value + max(s.size, 1):
                    name = self.declare_object(s)
                    lf.emit(f"ld.const.b32 {t}, [{name}+{off - s.value}];")
                    return t
            lf.refuse(f"c[0x3][{off:#x}] outside every __constant__ variable")
        if bank == 4:
            rel = {o: s for o, s, _ in self.cub.relocations.get(sec, [])}
            base = off & ~7
            if base in rel and rel[base] in EXTERNAL:
                tag = EXTERNAL_TAG + self.externals_all.index(rel[base])
                lf.emit(f"mov.u32 {t}, {tag & 0xFFFFFFFF if off == base else tag >> 32};")
                return t
            if base in rel:
                addr = self.symbol_address(lf, rel[base])
                lf.emit(f"mov.b64 {{{t}, %rdis}}, {addr};" if off == base
                        else f"mov.b64 {{%rdis, {t}}}, {addr};")
                return t
        var = self.bank_var(lf, bank)
        lf.emit(f"ld.{self.bank_space(bank)}.b32 {t}, [{var}+{off}];")
        return t

    # ---- the module -------------------------------------------------------------------------
    def lift(self, only: str | None = None) -> tuple[str, dict[str, dict[str, str]]]:
        self.sections = disassemble(self.elf)
        entries: list[str] = []
        refused: dict[str, dict[str, str]] = {}
        for sym in self.cub.symbols:  # every __constant__ / global variable, by name
            if sym.kind == cb.STT_OBJECT and (sym.section.startswith(".nv.global")
                                              or sym.section == ".nv.constant3") \
                    and not sym.name.startswith("$"):
                try:
                    self.declare_object(sym)
                except _Refuse:
                    pass
        for name, k in self.cub.kernels.items():
            if only is not None and name != only:
                continue
            sec = self.sections.get(k.text)
            if sec is None:
                refused[name] = {"(code)": f"no code section {k.text}"}
                continue
            self.cur_kernel = k
            lf = KernelLifter(self, k, sec)
            body = lf.lift()
            if lf.refused:
                refused[name] = lf.refused
                continue
            entries.append(self.entry(k, lf, body))
        head = [".version 8.0", f".target sm_{self.cub.arch}", ".address_size 64", ""]
        return "\n".join(head + self.decls + [""] + entries) + "\n", refused

    def entry(self, k: cb.Kernel, lf: KernelLifter, body: list[str]) -> str:
        params = []
        for p in k.params:
            a = p.offset & -p.offset if p.offset else 16
            a = min(a, 16, max(1, 1 << (max(p.size, 1) - 1).bit_length()))
            if p.size in (4, 8) and p.offset % p.size == 0:
                # a word or a pointer: a scalar, whose value the translator's analyses
                # follow (a launch bound, a base address); the same bytes where they were
                params.append(f".param .b{p.size * 8} {self.param_name(p.ordinal)}")
            else:
                params.append(f".param .align {a} .b8 {self.param_name(p.ordinal)}"
                              f"[{max(p.size, 1)}]")
        dirs = ""
        if k.reqntid:
            dirs += " .reqntid " + ", ".join(str(x) for x in k.reqntid)
        elif k.max_threads:
            dirs += " .maxntid " + ", ".join(str(x) for x in k.max_threads)
        # the driver reports what the cubin records (ptxas's registers, the stack frame), not
        # what the lifted code happens to use or the local room it is given
        if k.num_regs:
            dirs += f' .pragma "pyshim.cubin_regs {k.num_regs}";'
        dirs += f' .pragma "pyshim.cubin_local {k.frame_bytes}";'
        out = [f".visible .entry {_ptx_name(k.name)}(" + ", ".join(params) + f"){dirs}", "{",
               ".reg .b32 %rdis, %bres;", ".reg .pred %pt, %pdis, %pg;", ".reg .b16 %hs;"]
        # only the registers the code names: a kernel that keeps its registers in a
        # per-thread context across barriers (the CPU target's phase mode) keeps fewer
        used: dict[str, set[int]] = {}
        for m in re.finditer(r"%(r|u|p|q|b|t|d|tp|h)(\d+)\b", "\n".join(body)):
            used.setdefault(m.group(1), set()).add(int(m.group(2)))
        types = {"r": "b32", "u": "b32", "p": "pred", "q": "pred", "b": "b32", "t": "b32",
                 "d": "b64", "tp": "pred", "h": "b16"}
        for kind, nums in sorted(used.items()):
            out.append(f".reg .{types[kind]} " + ", ".join(f"%{kind}{n}" for n in sorted(nums))
                       + ";")
        if k.shared_bytes:
            out.append(f".shared .align 16 .b8 __sass_smem[{k.shared_bytes}];")
        if lf.uses_local:
            out.append(f".local .align 16 .b8 __sass_local[{self.local_bytes(k)}];")
        out.append("setp.eq.u32 %pt, 0, 0;")
        out += body
        out.append("ret;")
        out.append("}")
        return "\n".join(out) + "\n"


def lift_cubin(elf: bytes, only: str | None = None, partial: bool = False) -> str:
    """A cubin's kernels as PTX text; LiftError naming each kernel's unlifted opcodes.
    partial: the kernels that lift, a log line naming each one that does not (its launch
    then fails as a kernel the module lacks); LiftError only when none lifts."""
    ml = ModuleLifter(elf)
    ptx, refused = ml.lift(only)
    if refused and partial and len(refused) < len(ml.cub.kernels):
        for name, ops in refused.items():
            log.warning("pyshim: kernel %s is SASS only and does not lift: %s", name,
                        _refusal_message({name: ops}))
        return ptx
    if refused:
        raise LiftError(_refusal_message(refused), kernel=next(iter(refused)),
                        opcodes=tuple(sorted({o for r in refused.values() for o in r})))
    return ptx


def lift_report(elf: bytes) -> dict[str, dict[str, str]]:
    """Per kernel: {} when it lifts, else {opcode: why} for what does not."""
    ml = ModuleLifter(elf)
    _, refused = ml.lift()
    return {name: refused.get(name, {}) for name in ml.cub.kernels}


def _refusal_message(refused: dict[str, dict[str, str]]) -> str:
    parts = []
    for k, ops in refused.items():
        detail = ", ".join(f"{o}" + (f" ({w})" if w else "") for o, w in sorted(ops.items()))
        parts.append(f"{k}: {detail}")
    return "SASS that pyshim cannot lift: " + "; ".join(parts)
