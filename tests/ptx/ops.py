"""Instruction specs for tests/test_ptx_ops.py: one tiny PTX kernel per (opcode, type), with a
Python reference of the instruction. All kernels go into one module (compiled once)."""

from __future__ import annotations

import math
import struct
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

M32, M64 = (1 << 32) - 1, (1 << 64) - 1
f32 = np.float32
f64 = np.float64

DTYPE = {"u8": np.uint8, "s8": np.int8, "u16": np.uint16, "s16": np.int16, "b16": np.uint16,
         "u32": np.uint32, "s32": np.int32, "b32": np.uint32, "u64": np.uint64,
         "s64": np.int64, "b64": np.uint64, "f32": np.float32, "f64": np.float64,
         "pred": np.uint32, "f16": np.uint16, "bf16": np.uint16}
BITS = {"u16": 16, "s16": 16, "b16": 16, "u32": 32, "s32": 32, "b32": 32, "u64": 64,
        "s64": 64, "b64": 64}


@dataclass
class Spec:
    id: str
    body: str                   # PTX using %a %b %c (sources) and %d (destination)
    srcs: tuple[str, ...]       # source register types ('pred' loads a u32 and tests != 0)
    dst: str                    # destination register type
    ref: Callable               # scalar reference: ref(a, b, c) -> expected
    tol_zero_sign: bool = False  # +0 and -0 compare equal (min/max)
    ranges: tuple = ()          # per source: (lo, hi) for integers, or None


def wrap(v: int, ty: str) -> int:
    bits = BITS[ty]
    v &= (1 << bits) - 1
    if ty.startswith("s") and v >> (bits - 1):
        v -= 1 << bits
    return v


def u(v: int, bits: int = 32) -> int:
    return v & ((1 << bits) - 1)


def trunc_div(a: int, b: int) -> int:
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b >= 0) else -q


def _f2i(x: float, ty: str, mode: str) -> int:
    if math.isnan(x):
        return 0
    bits = BITS[ty]
    lo, hi = (-(1 << (bits - 1)), (1 << (bits - 1)) - 1) if ty[0] == "s" else (0, (1 << bits) - 1)
    if math.isinf(x):
        return hi if x > 0 else lo
    r = {"rni": round, "rzi": math.trunc, "rmi": math.floor, "rpi": math.ceil}[mode](x)
    return max(lo, min(hi, int(r)))


def bf16_bits(x: np.float32) -> int:
    b = struct.unpack("<I", struct.pack("<f", float(x)))[0]
    if (b & 0x7FFFFFFF) > 0x7F800000:
        return (b >> 16) | 0x40
    rem, r = b & 0xFFFF, b >> 16
    if rem > 0x8000 or (rem == 0x8000 and r & 1):
        r += 1
    return r & 0xFFFF


def bf2f(h: int) -> float:
    return struct.unpack("<f", struct.pack("<I", (h & 0xFFFF) << 16))[0]


def h2f(h: int) -> float:
    return float(np.uint16(h).view(np.float16))


def f2h_bits(x) -> int:
    return int(np.float16(x).view(np.uint16))


def popc(v: int) -> int:
    return bin(v).count("1")


def bfe(a: int, pos: int, ln: int, bits: int, signed: bool) -> int:
    pos &= 0xFF
    ln &= 0xFF
    ua = a & ((1 << bits) - 1)
    if ln == 0:
        return 0
    sbit = min(pos + ln - 1, bits - 1)
    sign = (ua >> sbit) & 1 if signed else 0
    out = 0
    for i in range(bits):
        if i < ln and pos + i < bits:
            bit = (ua >> (pos + i)) & 1
        else:
            bit = sign
        out |= bit << i
    return wrap(out, ("s" if signed else "u") + str(bits))


def bfi(a: int, b: int, pos: int, ln: int, bits: int) -> int:
    pos &= 0xFF
    ln &= 0xFF
    out = b
    for i in range(ln):
        if pos + i >= bits:
            break
        bit = (a >> i) & 1
        out = (out & ~(1 << (pos + i))) | (bit << (pos + i))
    return out & ((1 << bits) - 1)


def prmt(a: int, b: int, c: int) -> int:
    x = (b << 32) | a
    out = 0
    for i in range(4):
        sel = (c >> (4 * i)) & 0xF
        byte = (x >> (8 * (sel & 7))) & 0xFF
        if sel & 8:
            byte = 0xFF if byte & 0x80 else 0
        out |= byte << (8 * i)
    return out


def bfind(a: int, bits: int, signed: bool) -> int:
    if signed and a < 0:
        a = ~a
    a &= (1 << bits) - 1
    return a.bit_length() - 1 if a else M32


def fmin(a, b, is_min=True):
    if math.isnan(a):
        return b
    if math.isnan(b):
        return a
    return min(a, b) if is_min else max(a, b)


def ints(ty: str) -> tuple[int, int]:
    bits = BITS[ty]
    return (-(1 << (bits - 1)), (1 << (bits - 1)) - 1) if ty[0] == "s" else (0, (1 << bits) - 1)


def specs() -> list[Spec]:
    out: list[Spec] = []
    add = out.append
    for ty in ("u16", "s16", "u32", "s32", "u64", "s64"):
        add(Spec(f"add.{ty}", f"add.{ty} %d, %a, %b;", (ty, ty), ty, lambda a, b, c, t=ty: wrap(a + b, t)))
        add(Spec(f"sub.{ty}", f"sub.{ty} %d, %a, %b;", (ty, ty), ty, lambda a, b, c, t=ty: wrap(a - b, t)))
        add(Spec(f"mul.lo.{ty}", f"mul.lo.{ty} %d, %a, %b;", (ty, ty), ty, lambda a, b, c, t=ty: wrap(a * b, t)))
        add(Spec(f"mul.hi.{ty}", f"mul.hi.{ty} %d, %a, %b;", (ty, ty), ty,
                 lambda a, b, c, t=ty: wrap((a * b) >> BITS[t], t)))
        add(Spec(f"mad.lo.{ty}", f"mad.lo.{ty} %d, %a, %b, %c;", (ty, ty, ty), ty,
                 lambda a, b, c, t=ty: wrap(a * b + c, t)))
        add(Spec(f"min.{ty}", f"min.{ty} %d, %a, %b;", (ty, ty), ty, lambda a, b, c: min(a, b)))
        add(Spec(f"max.{ty}", f"max.{ty} %d, %a, %b;", (ty, ty), ty, lambda a, b, c: max(a, b)))
        add(Spec(f"div.{ty}", f"div.{ty} %d, %a, %b;", (ty, ty), ty,
                 lambda a, b, c, t=ty: wrap(trunc_div(a, b), t), ranges=(None, "nonzero")))
        add(Spec(f"rem.{ty}", f"rem.{ty} %d, %a, %b;", (ty, ty), ty,
                 lambda a, b, c, t=ty: wrap(a - trunc_div(a, b) * b, t), ranges=(None, "nonzero")))
        add(Spec(f"shr.{ty}", f"shr.{ty} %d, %a, %b;", (ty, "u32"), ty,
                 lambda a, b, c, t=ty: a >> min(b, BITS[t]) if t[0] == "s" or b < BITS[t] else 0,
                 ranges=(None, (0, 70))))
        if ty[0] == "s":
            add(Spec(f"abs.{ty}", f"abs.{ty} %d, %a;", (ty,), ty, lambda a, b, c, t=ty: wrap(abs(a), t)))
            add(Spec(f"neg.{ty}", f"neg.{ty} %d, %a;", (ty,), ty, lambda a, b, c, t=ty: wrap(-a, t)))
        for cmp, fn in (("lt", lambda a, b: a < b), ("le", lambda a, b: a <= b),
                        ("eq", lambda a, b: a == b), ("ne", lambda a, b: a != b),
                        ("gt", lambda a, b: a > b), ("ge", lambda a, b: a >= b)):
            add(Spec(f"setp.{cmp}.{ty}", f"setp.{cmp}.{ty} %d, %a, %b;", (ty, ty), "pred",
                     lambda a, b, c, f=fn: int(f(a, b))))
            add(Spec(f"set.{cmp}.u32.{ty}", f"set.{cmp}.u32.{ty} %d, %a, %b;", (ty, ty), "u32",
                     lambda a, b, c, f=fn: 0xFFFFFFFF if f(a, b) else 0))
    for ty in ("u32", "s32"):
        wt = ty[0] + "64"
        add(Spec(f"mul.wide.{ty}", f"mul.wide.{ty} %d, %a, %b;", (ty, ty), wt, lambda a, b, c: a * b))
        add(Spec(f"mad.wide.{ty}", f"mad.wide.{ty} %d, %a, %b, %c;", (ty, ty, wt), wt,
                 lambda a, b, c, t=wt: wrap(a * b + c, t)))
        add(Spec(f"bfe.{ty}", f"bfe.{ty} %d, %a, %b, %c;", (ty, "u32", "u32"), ty,
                 lambda a, b, c, s=ty[0] == "s": bfe(a, b, c, 32, s), ranges=(None, (0, 40), (0, 40))))
        add(Spec(f"bfind.{ty}", f"bfind.{ty} %d, %a;", (ty,), "u32",
                 lambda a, b, c, s=ty[0] == "s": bfind(a, 32, s)))
        add(Spec(f"mul24.lo.{ty}", f"mul24.lo.{ty} %d, %a, %b;", (ty, ty), ty,
                 lambda a, b, c, t=ty: u((a & 0xFFFFFF) * (b & 0xFFFFFF)) if t == "u32"
                 else wrap(_sx24(a) * _sx24(b), t)))
    for ty in ("b32", "b64"):
        bits = BITS[ty]
        add(Spec(f"and.{ty}", f"and.{ty} %d, %a, %b;", (ty, ty), ty, lambda a, b, c: a & b))
        add(Spec(f"or.{ty}", f"or.{ty} %d, %a, %b;", (ty, ty), ty, lambda a, b, c: a | b))
        add(Spec(f"xor.{ty}", f"xor.{ty} %d, %a, %b;", (ty, ty), ty, lambda a, b, c: a ^ b))
        add(Spec(f"not.{ty}", f"not.{ty} %d, %a;", (ty,), ty, lambda a, b, c, n=bits: u(~a, n)))
        add(Spec(f"shl.{ty}", f"shl.{ty} %d, %a, %b;", (ty, "u32"), ty,
                 lambda a, b, c, n=bits: u(a << b, n) if b < n else 0, ranges=(None, (0, 70))))
        add(Spec(f"popc.{ty}", f"popc.{ty} %d, %a;", (ty,), "u32", lambda a, b, c: popc(a)))
        add(Spec(f"clz.{ty}", f"clz.{ty} %d, %a;", (ty,), "u32",
                 lambda a, b, c, n=bits: n - a.bit_length()))
        add(Spec(f"brev.{ty}", f"brev.{ty} %d, %a;", (ty,), ty,
                 lambda a, b, c, n=bits: int(format(a, f"0{n}b")[::-1], 2)))
        add(Spec(f"bfi.{ty}", f"bfi.{ty} %d, %a, %b, %c, 11;", (ty, ty, "u32"), ty,
                 lambda a, b, c, n=bits: bfi(a, b, c, 11, n), ranges=(None, None, (0, 70))))
        add(Spec(f"lop3.{ty}", f"lop3.{ty} %d, %a, %b, %c, 0x96;", (ty, ty, ty), ty,
                 lambda a, b, c: a ^ b ^ c))
        add(Spec(f"lop3.e8.{ty}", f"lop3.{ty} %d, %a, %b, %c, 0xe8;", (ty, ty, ty), ty,
                 lambda a, b, c: (a & b) | (a & c) | (b & c)))
    add(Spec("prmt.b32", "prmt.b32 %d, %a, %b, %c;", ("b32", "b32", "b32"), "b32",
             lambda a, b, c: prmt(a, b, c)))
    add(Spec("shf.l.wrap.b32", "shf.l.wrap.b32 %d, %a, %b, %c;", ("b32", "b32", "u32"), "b32",
             lambda a, b, c: u((((b << 32) | a) << (c & 31)) >> 32)))
    add(Spec("shf.r.clamp.b32", "shf.r.clamp.b32 %d, %a, %b, %c;", ("b32", "b32", "u32"), "b32",
             lambda a, b, c: u(((b << 32) | a) >> min(c, 32)), ranges=(None, None, (0, 70))))
    add(Spec("add.sat.s32", "add.sat.s32 %d, %a, %b;", ("s32", "s32"), "s32",
             lambda a, b, c: max(-(1 << 31), min((1 << 31) - 1, a + b))))
    add(Spec("dp4a.s32.u32", "dp4a.s32.u32 %d, %a, %b, %c;", ("b32", "b32", "s32"), "s32",
             lambda a, b, c: wrap(c + sum(_s8(a >> 8 * i) * ((b >> 8 * i) & 255)
                                          for i in range(4)), "s32")))
    add(Spec("vabsdiff4.u32.add", "vabsdiff4.u32.u32.u32.add %d, %a, %b, %c;",
             ("b32", "b32", "u32"), "u32",
             lambda a, b, c: u(c + sum(abs(((a >> 8 * i) & 255) - ((b >> 8 * i) & 255))
                                      for i in range(4)))))
    add(Spec("vabsdiff4.s32.add", "vabsdiff4.u32.s32.s32.add %d, %a, %b, %c;",
             ("b32", "b32", "u32"), "u32",
             lambda a, b, c: u(c + sum(abs(_s8(a >> 8 * i) - _s8(b >> 8 * i))
                                      for i in range(4)))))
    add(Spec("sad.u32", "sad.u32 %d, %a, %b, %c;", ("u32", "u32", "u32"), "u32",
             lambda a, b, c: u(abs(a - b) + c)))
    add(Spec("selp.b32", "selp.b32 %d, %a, %b, %c;", ("b32", "b32", "pred"), "b32",
             lambda a, b, c: a if c else b))
    add(Spec("mad.lo.cc.madc.hi.u32", "{ .reg .u32 %lo; mad.lo.cc.u32 %lo, %a, %b, %c; "
             "madc.hi.u32 %d, %a, %b, 0; }", ("u32", "u32", "u32"), "u32",
             lambda a, b, c: u(((a * b) >> 32) + ((((a * b) & M32) + c) >> 32))))
    add(Spec("mad.hi.cc.u64", "{ .reg .u64 %hi; mad.hi.cc.u64 %hi, %a, %b, %c; "
             "addc.u64 %d, 0, 0; }", ("u64", "u64", "u64"), "u64",
             lambda a, b, c: (((a * b) >> 64) + c) >> 64))
    add(Spec("add.cc.addc.u32", "{ .reg .u32 %lo; add.cc.u32 %lo, %a, %b; addc.u32 %d, %c, 0; }",
             ("u32", "u32", "u32"), "u32", lambda a, b, c: u(c + ((a + b) >> 32))))
    # ---- floating point ----
    for ty, F in (("f32", f32), ("f64", f64)):
        add(Spec(f"add.rn.{ty}", f"add.rn.{ty} %d, %a, %b;", (ty, ty), ty, lambda a, b, c, F=F: F(a) + F(b)))
        add(Spec(f"sub.{ty}", f"sub.{ty} %d, %a, %b;", (ty, ty), ty, lambda a, b, c, F=F: F(a) - F(b)))
        add(Spec(f"mul.rn.{ty}", f"mul.rn.{ty} %d, %a, %b;", (ty, ty), ty, lambda a, b, c, F=F: F(a) * F(b)))
        add(Spec(f"div.rn.{ty}", f"div.rn.{ty} %d, %a, %b;", (ty, ty), ty, lambda a, b, c, F=F: F(a) / F(b)))
        add(Spec(f"sqrt.rn.{ty}", f"sqrt.rn.{ty} %d, %a;", (ty,), ty, lambda a, b, c, F=F: np.sqrt(F(a))))
        add(Spec(f"abs.{ty}", f"abs.{ty} %d, %a;", (ty,), ty, lambda a, b, c, F=F: np.abs(F(a))))
        add(Spec(f"neg.{ty}", f"neg.{ty} %d, %a;", (ty,), ty, lambda a, b, c, F=F: -F(a)))
        add(Spec(f"min.{ty}", f"min.{ty} %d, %a, %b;", (ty, ty), ty,
                 lambda a, b, c, F=F: F(fmin(a, b)), tol_zero_sign=True))
        add(Spec(f"max.{ty}", f"max.{ty} %d, %a, %b;", (ty, ty), ty,
                 lambda a, b, c, F=F: F(fmin(a, b, False)), tol_zero_sign=True))
        add(Spec(f"copysign.{ty}", f"copysign.{ty} %d, %a, %b;", (ty, ty), ty,
                 lambda a, b, c, F=F: F(math.copysign(b, a))))
        for cmp, fn in (("lt", lambda a, b: a < b), ("ne", lambda a, b: a < b or a > b),
                        ("equ", lambda a, b: not (a < b or a > b)),
                        ("gtu", lambda a, b: not (a <= b)), ("num", lambda a, b: a == a and b == b),
                        ("nan", lambda a, b: a != a or b != b), ("ge", lambda a, b: a >= b)):
            add(Spec(f"setp.{cmp}.{ty}", f"setp.{cmp}.{ty} %d, %a, %b;", (ty, ty), "pred",
                     lambda a, b, c, f=fn: int(f(a, b))))
            add(Spec(f"set.{cmp}.f32.{ty}", f"set.{cmp}.f32.{ty} %d, %a, %b;", (ty, ty), "f32",
                     lambda a, b, c, f=fn: f32(1.0 if f(a, b) else 0.0)))
        add(Spec(f"testp.normal.{ty}", f"testp.normal.{ty} %d, %a;", (ty,), "pred",
                 lambda a, b, c, F=F: int(bool(np.isfinite(F(a))) and abs(F(a)) >= np.finfo(F).tiny)))
        for mode in ("rni", "rzi", "rmi", "rpi"):
            for it in ("s32", "u32", "s64"):
                add(Spec(f"cvt.{mode}.{it}.{ty}", f"cvt.{mode}.{it}.{ty} %d, %a;", (ty,), it,
                         lambda a, b, c, m=mode, t=it: _f2i(a, t, m)))
        add(Spec(f"cvt.rn.{ty}.s32", f"cvt.rn.{ty}.s32 %d, %a;", ("s32",), ty, lambda a, b, c, F=F: F(a)))
        add(Spec(f"cvt.rn.{ty}.u64", f"cvt.rn.{ty}.u64 %d, %a;", ("u64",), ty,
                 lambda a, b, c, F=F: F(float(a)) if F is f64 else f32(_exact_to_f32(a))))
    add(Spec("fma.rn.f64", "fma.rn.f64 %d, %a, %b, %c;", ("f64", "f64", "f64"), "f64",
             lambda a, b, c: _fma64(a, b, c)))
    add(Spec("fma.rn.f32", "fma.rn.f32 %d, %a, %b, %c;", ("f32", "f32", "f32"), "f32",
             lambda a, b, c: _fma32(a, b, c)))
    add(Spec("add.ftz.f32", "add.ftz.f32 %d, %a, %b;", ("f32", "f32"), "f32",
             lambda a, b, c: _ftz(f32(_ftz(f32(a)) + _ftz(f32(b))))))
    add(Spec("add.sat.f32", "add.sat.f32 %d, %a, %b;", ("f32", "f32"), "f32",
             lambda a, b, c: _sat(f32(a) + f32(b))))
    add(Spec("cvt.rn.f32.f64", "cvt.rn.f32.f64 %d, %a;", ("f64",), "f32", lambda a, b, c: f32(a)))
    add(Spec("cvt.rz.f32.f64", "cvt.rz.f32.f64 %d, %a;", ("f64",), "f32", lambda a, b, c: _d2f_rz(a)))
    add(Spec("cvt.f64.f32", "cvt.f64.f32 %d, %a;", ("f32",), "f64", lambda a, b, c: f64(f32(a))))
    add(Spec("cvt.rni.f32.f32", "cvt.rni.f32.f32 %d, %a;", ("f32",), "f32", lambda a, b, c: np.rint(f32(a))))
    add(Spec("cvt.sat.u8.s32", "cvt.sat.u8.s32 %d, %a;", ("s32",), "u32", lambda a, b, c: max(0, min(255, a))))
    add(Spec("cvt.s16.s32", "cvt.s16.s32 %d, %a;", ("s32",), "s32", lambda a, b, c: wrap(a, "s16")))
    add(Spec("cvt.u64.s32", "cvt.u64.s32 %d, %a;", ("s32",), "u64", lambda a, b, c: u(a, 64)))
    add(Spec("cvt.rn.f16.f32", "cvt.rn.f16.f32 %d, %a;", ("f32",), "b16",
             lambda a, b, c: _h_canon(f2h_bits(f32(a)))))
    add(Spec("cvt.rn.f16.f64", "cvt.rn.f16.f64 %d, %a;", ("f64",), "b16",
             lambda a, b, c: _h_canon(f2h_bits(f64(a)))))
    add(Spec("cvt.f32.f16", "cvt.f32.f16 %d, %a;", ("b16",), "f32", lambda a, b, c: f32(h2f(a))))
    add(Spec("cvt.rn.bf16.f32", "cvt.rn.bf16.f32 %d, %a;", ("f32",), "b16",
             lambda a, b, c: _bf_canon(bf16_bits(f32(a)))))
    # packed 16-bit min/max (sm_90; CUB's reductions of shorts), .relu for the signed ones
    def minmax16x2(a, b, signed, mn, relu):
        out = 0
        for shift in (0, 16):
            x, y = (a >> shift) & 0xFFFF, (b >> shift) & 0xFFFF
            if signed:
                x, y = wrap(x, "s16"), wrap(y, "s16")
            v = min(x, y) if mn else max(x, y)
            out |= ((max(v, 0) if relu else v) & 0xFFFF) << shift
        return out
    for op in ("min", "max"):
        for ty, relu in (("u16x2", False), ("s16x2", False), ("s16x2", True)):
            name = f"{op}{'.relu' if relu else ''}.{ty}"
            add(Spec(name, f"{name} %d, %a, %b;", ("b32", "b32"), "b32",
                     lambda a, b, c, s=ty[0] == "s", m=op == "min", r=relu:
                     minmax16x2(a, b, s, m, r)))
    # set with half sources or destinations: 1.0 in the half type or all ones when true,
    # f16x2/bf16x2 half by half (numba's bf16 comparisons emit set.nan.bf16.bf16)
    cmps = (("lt", lambda a, b: a < b), ("ne", lambda a, b: a < b or a > b),
            ("equ", lambda a, b: not (a < b or a > b)), ("gtu", lambda a, b: not (a <= b)),
            ("num", lambda a, b: a == a and b == b), ("nan", lambda a, b: a != a or b != b))
    half_f = {"f16": h2f, "bf16": bf2f}
    one = {"f16": 0x3C00, "bf16": 0x3F80, "u16": 0xFFFF, "s16": 0xFFFF}
    for cmp, fn in cmps:
        for st_, dt in (("bf16", "bf16"), ("f16", "f16"), ("bf16", "u16"), ("f16", "s16")):
            add(Spec(f"set.{cmp}.{dt}.{st_}", f"set.{cmp}.{dt}.{st_} %d, %a, %b;", ("b16", "b16"),
                     "b16", lambda a, b, c, f=fn, h=half_f[st_], t=one[dt]:
                     t if f(h(a), h(b)) else 0))
        for base, dt in (("bf16", "bf16x2"), ("f16", "f16x2"), ("bf16", "u32")):
            st_ = base + "x2"
            t = one[base] if dt == st_ else 0xFFFF
            add(Spec(f"set.{cmp}.{dt}.{st_}", f"set.{cmp}.{dt}.{st_} %d, %a, %b;", ("b32", "b32"),
                     "b32", lambda a, b, c, f=fn, h=half_f[base], t=t:
                     (t if f(h(a & 0xFFFF), h(b & 0xFFFF)) else 0)
                     | ((t if f(h(a >> 16), h(b >> 16)) else 0) << 16)))
    add(Spec("set.lt.f16.f32", "set.lt.f16.f32 %d, %a, %b;", ("f32", "f32"), "b16",
             lambda a, b, c: 0x3C00 if f32(a) < f32(b) else 0))
    add(Spec("set.lt.and.bf16.bf16", "set.lt.and.bf16.bf16 %d, %a, %b, %c;",
             ("b16", "b16", "pred"), "b16",
             lambda a, b, c: 0x3F80 if bf2f(a) < bf2f(b) and c else 0))
    # 64-bit integers to f16/bf16 (CuPy's int64 -> float16 copies) and, with directed
    # rounding, to f32: rounded once, exactly, from the integer (a value past 2**53 is
    # not first rounded to a double)
    for it in ("s64", "u64"):
        for mode in ("rn", "rz", "rm", "rp"):
            for rng in (None, (-70000, 70000) if it == "s64" else (0, 70000)):
                add(Spec(f"cvt.{mode}.f16.{it}" + ("" if rng is None else ".small"),
                         f"cvt.{mode}.f16.{it} %d, %a;", (it,), "b16",
                         lambda a, b, c, m=mode: _int_to_h(a, m), ranges=(rng,)))
            add(Spec(f"cvt.{mode}.bf16.{it}", f"cvt.{mode}.bf16.{it} %d, %a;", (it,), "b16",
                     lambda a, b, c, m=mode: _int_to_bf(a, m)))
            if mode != "rn":
                add(Spec(f"cvt.{mode}.f32.{it}", f"cvt.{mode}.f32.{it} %d, %a;", (it,), "f32",
                         lambda a, b, c, m=mode: f32(_int_round(a, m, 24, 127))))
    add(Spec("add.f16", "add.f16 %d, %a, %b;", ("b16", "b16"), "b16",
             lambda a, b, c: _h_canon(f2h_bits(f32(h2f(a)) + f32(h2f(b))))))
    add(Spec("mul.f16x2", "mul.f16x2 %d, %a, %b;", ("b32", "b32"), "b32",
             lambda a, b, c: _h_canon(f2h_bits(f32(h2f(a & 0xFFFF)) * f32(h2f(b & 0xFFFF))))
             | (_h_canon(f2h_bits(f32(h2f(a >> 16)) * f32(h2f(b >> 16)))) << 16)))
    # atomics: each thread updates its own element (d = old value; memory checked separately)
    add(Spec("atom.add.u32", "{ .reg .b64 %ad; mov.u64 %ad, %rd4; atom.global.add.u32 %d, [%ad], %b; }",
             ("u32", "u32"), "u32", lambda a, b, c: a))
    add(Spec("atom.exch.b64", "{ .reg .b64 %ad; mov.u64 %ad, %rd4; atom.global.exch.b64 %d, [%ad], %b; }",
             ("b64", "b64"), "b64", lambda a, b, c: a))
    add(Spec("atom.cas.b32", "{ .reg .b64 %ad; mov.u64 %ad, %rd4; atom.global.cas.b32 %d, [%ad], %b, %c;"
             " ld.global.u32 %d, [%ad]; }", ("b32", "b32", "b32"), "b32",
             lambda a, b, c: c if a == b else a, ranges=(( 0, 3), (0, 3), None)))
    add(Spec("atom.inc.u32", "{ .reg .b64 %ad; mov.u64 %ad, %rd4; atom.global.inc.u32 %d, [%ad], %b;"
             " ld.global.u32 %d, [%ad]; }", ("u32", "u32"), "u32",
             lambda a, b, c: 0 if a >= b else a + 1))
    add(Spec("atom.dec.u32", "{ .reg .b64 %ad; mov.u64 %ad, %rd4; atom.global.dec.u32 %d, [%ad], %b;"
             " ld.global.u32 %d, [%ad]; }", ("u32", "u32"), "u32",
             lambda a, b, c: b if a == 0 or a > b else a - 1))
    add(Spec("atom.max.s64", "{ .reg .b64 %ad; mov.u64 %ad, %rd4; atom.global.max.s64 %d, [%ad], %b;"
             " ld.global.s64 %d, [%ad]; }", ("s64", "s64"), "s64", lambda a, b, c: max(a, b)))
    add(Spec("atom.add.f32", "{ .reg .b64 %ad; mov.u64 %ad, %rd4; atom.global.add.f32 %d, [%ad], %b;"
             " ld.global.f32 %d, [%ad]; }", ("f32", "f32"), "f32", lambda a, b, c: f32(a) + f32(b)))
    add(Spec("atom.add.noftz.f16", "{ .reg .b64 %ad; mov.u64 %ad, %rd4; "
             "atom.global.add.noftz.f16 %d, [%ad], %b; ld.global.b16 %d, [%ad]; }",
             ("b16", "b16"), "b16", lambda a, b, c: _h_canon(f2h_bits(f32(h2f(a)) + f32(h2f(b))))))
    return out


def _s8(v: int) -> int:
    v &= 255
    return v - 256 if v & 128 else v


def _sx24(v: int) -> int:
    v &= 0xFFFFFF
    return v - (1 << 24) if v & (1 << 23) else v


def _ftz(x):
    return x * f32(0) if x != 0 and abs(x) < np.finfo(f32).tiny else x


def _sat(x):
    return f32(0) if math.isnan(x) else f32(min(max(x, 0.0), 1.0))


def _fma64(a, b, c):
    from fractions import Fraction

    if not all(math.isfinite(v) for v in (a, b, c)):
        if math.isfinite(a) and math.isfinite(b) and not math.isnan(c):
            return f64(c)  # a finite product (however large) plus an infinity
        return f64(a) * f64(b) + f64(c)
    exact = Fraction(a) * Fraction(b) + Fraction(c)
    try:
        r = float(exact)
    except OverflowError:
        return f64(math.inf if exact > 0 else -math.inf)
    if r == 0:
        if exact != 0:  # underflow: the sign of the exact result
            return f64(math.copysign(0.0, exact))
        return f64(a) * f64(b) + f64(c)  # an exact zero: IEEE sign rules
    return f64(r)


def _fma32(a, b, c):
    """fma.rn.f32: the exact a*b+c rounded once to f32 (an f64 sum would round twice), via
    f64 round-to-odd, which then rounds to f32 like the exact value does."""
    from fractions import Fraction

    a, b, c = (float(f32(v)) for v in (a, b, c))
    if not all(math.isfinite(v) for v in (a, b, c)):
        return f32(f64(a) * f64(b) + f64(c))  # the product is exact in f64
    exact = Fraction(a) * Fraction(b) + Fraction(c)
    if exact == 0:
        return f32(f64(a) * f64(b) + f64(c))  # IEEE's sign of an exact zero
    r = float(exact)  # |exact| < 2**257: no f64 overflow
    if Fraction(r) != exact:
        t = r if abs(Fraction(r)) < abs(exact) else math.nextafter(r, 0.0)
        r = struct.unpack("<d", struct.pack("<Q", struct.unpack("<Q", struct.pack("<d", t))[0]
                                             | 1))[0]
    with np.errstate(over="ignore"):
        return f32(r)


def _exact_to_f32(a: int) -> float:
    from fractions import Fraction

    # round-to-nearest-even of an integer to f32 via f64 round-to-odd
    r = float(Fraction(a))  # f64 nearest; fine when exact
    if int(r) == a:
        return float(f32(r))
    lo = math.nextafter(r, -math.inf) if r > a else r
    lo_bits = struct.unpack("<Q", struct.pack("<d", lo))[0] | 1
    return float(f32(struct.unpack("<d", struct.pack("<Q", lo_bits))[0]))


def _d2f_rz(a: float):
    if math.isnan(a) or math.isinf(a):
        return f32(a)
    r = f32(a)
    if math.isinf(r) or abs(float(r)) > abs(a):
        r = np.nextafter(r, f32(0)) if not math.isinf(r) else f32(math.copysign(3.4028234663852886e38, a))
    return f32(r)


def _int_round(a: int, mode: str, p: int, emax: int) -> float:
    """Integer a rounded exactly to a binary format of p significand bits whose largest
    finite value is below 2**(emax + 1) (f16: 11, 15; bf16: 8, 127; f32: 24, 127)."""
    if a == 0:
        return 0.0
    neg, m = a < 0, abs(a)
    shift = m.bit_length() - p
    if shift > 0:
        q, rem = divmod(m, 1 << shift)
        half = 1 << (shift - 1)
        up = {"rn": rem > half or (rem == half and q & 1), "rz": False,
              "rm": rem != 0 and neg, "rp": rem != 0 and not neg}[mode]
        m = (q + up) << shift
    top = ((1 << p) - 1) << (emax + 1 - p)  # the largest finite value
    if m > top:
        to_inf = mode == "rn" or (mode == "rp" and not neg) or (mode == "rm" and neg)
        r = math.inf if to_inf else float(top)
    else:
        r = float(m)
    return -r if neg else r


def _int_to_h(a: int, mode: str) -> int:
    return f2h_bits(f64(_int_round(a, mode, 11, 15)))


def _int_to_bf(a: int, mode: str) -> int:
    return struct.unpack("<I", struct.pack("<f", _int_round(a, mode, 8, 127)))[0] >> 16


def _h_canon(h: int) -> int:
    return 0x7FFF if (h & 0x7FFF) > 0x7C00 else h


def _bf_canon(h: int) -> int:
    return 0x7FFF if (h & 0x7FFF) > 0x7F80 else h


def kernel(index: int, spec: Spec) -> str:
    """A PTX .entry: d[i] = OP(a[i], b[i], c[i]) for i < n."""
    names = ["a", "b", "c"][: len(spec.srcs)]
    params = [f".param .u64 p{n}" for n in names] + [".param .u64 pd", ".param .u32 pn"]
    lines = [f".visible .entry k{index}({', '.join(params)})", "{",
             ".reg .pred %p<2>;", ".reg .b32 %r<6>;", ".reg .b64 %rd<12>;"]
    for n, t in zip(names, spec.srcs, strict=True):
        lines.append(f".reg .{'pred' if t == 'pred' else t} %{n};")
    lines.append(f".reg .{spec.dst} %d;")
    lines += ["mov.u32 %r0, %tid.x;", "mov.u32 %r1, %ntid.x;", "mov.u32 %r2, %ctaid.x;",
              "mad.lo.s32 %r3, %r2, %r1, %r0;", "ld.param.u32 %r4, [pn];",
              "setp.ge.u32 %p0, %r3, %r4;", "@%p0 bra $L_done;"]
    for j, (n, t) in enumerate(zip(names, spec.srcs, strict=True)):
        st = "u32" if t == "pred" else t
        size = DTYPE[st]().itemsize
        lines += [f"ld.param.u64 %rd{j}, [p{n}];", f"mul.wide.u32 %rd{j + 4}, %r3, {size};",
                  f"add.s64 %rd{j + 4}, %rd{j}, %rd{j + 4};"]
        if t == "pred":
            lines += [f"ld.global.u32 %r5, [%rd{j + 4}];", f"setp.ne.u32 %{n}, %r5, 0;"]
        else:
            lines.append(f"ld.global.{t} %{n}, [%rd{j + 4}];")
    lines.append(spec.body)
    dt = "u32" if spec.dst == "pred" else spec.dst
    size = DTYPE[dt]().itemsize
    lines += ["ld.param.u64 %rd8, [pd];", f"mul.wide.u32 %rd9, %r3, {size};",
              "add.s64 %rd9, %rd8, %rd9;"]
    if spec.dst == "pred":
        lines += ["selp.u32 %r5, 1, 0, %d;", "st.global.u32 [%rd9], %r5;"]
    else:
        lines.append(f"st.global.{spec.dst} [%rd9], %d;")
    lines += ["$L_done:", "ret;", "}"]
    return "\n".join(lines)


def module(spec_list: list[Spec]) -> str:
    head = ".version 8.0\n.target sm_80\n.address_size 64\n"
    return head + "\n".join(kernel(i, s) for i, s in enumerate(spec_list)) + "\n"
