"""The mma.sync tests' operands and checks, one copy for the CPU device's
(tests/test_ptx_mma.py) and the AMD lowering's emulation (tests/test_ptx_mma_amd.py): element
bit patterns drawn per type, fragments packed into the kernels' input rows by mma.py's ISA
tables, and each warp's D unpacked and compared with numpy's reference and its error bound.
"""

from __future__ import annotations

import numpy as np

from ptx import mma

Operands = tuple[np.ndarray, np.ndarray, np.ndarray]


def bits(ty: str, n: int, rng: np.random.Generator, kind: int) -> np.ndarray:
    """n element bit patterns of type ty; kind 0: typical values, 1: with zeros and
    extremes mixed in (hypothesis draws the seed and the kind)"""
    w = mma.BITS[ty]
    if ty == "f16":  # finite, moderate: no overflow to inf in a 16-term sum
        v = rng.uniform(-64, 64, n).astype(np.float16).view(np.uint16)
    elif ty == "bf16":
        v = rng.uniform(-1e4, 1e4, n).astype(np.float32).view(np.uint32) >> 16
    elif ty in ("tf32", "f32"):
        v = rng.uniform(-1e4, 1e4, n).astype(np.float32).view(np.uint32)
    elif ty == "f64":
        v = rng.uniform(-1e6, 1e6, n).view(np.uint64)
    elif ty == "e4m3":
        v = rng.integers(0, 256, n)
        v = np.where((v & 0x7F) == 0x7F, 0, v)  # no NaN
    elif ty == "e5m2":
        v = rng.integers(0, 256, n)
        v = np.where((v & 0x7C) == 0x7C, 0, v)  # no inf / NaN
    else:
        v = rng.integers(0, 1 << w, n, dtype=np.uint64)
    v = v.astype(np.uint64)
    if kind == 1:
        special = rng.integers(0, 4, n)
        if ty in ("s8", "u8", "s4", "u4", "s32", "b1"):
            top = (1 << w) - 1
            v = np.where(special == 0, 0, np.where(special == 1, top,
                         np.where(special == 2, 1 << (w - 1) if w > 1 else 1, v)))
        else:
            v = np.where(special == 0, 0, v)  # exact zeros (and the sums they make)
    return v.astype(np.uint64)


def operands(f: mma.Form, rng: np.random.Generator, kind: int) -> Operands:
    """one warp's A (m x k), B (k x n) and C (m x n) element bit patterns, drawn in that order"""
    return (bits(f.a, f.m * f.k, rng, kind).reshape(f.m, f.k),
            bits(f.b, f.k * f.n, rng, kind).reshape(f.k, f.n),
            bits(f.c, f.m * f.n, rng, kind).reshape(f.m, f.n))


def reference(f: mma.Form, A, B, C):
    """(expected D values, error bound per element) from the element bit patterns"""
    a, b, c = mma.decode(f.a, A), mma.decode(f.b, B), mma.decode(f.c, C)
    if f.a == "b1":
        a, b = A.astype(np.int64), B.astype(np.int64)
        prod = (a[:, :, None] ^ b[None, :, :]) if f.bop == "xor" else (a[:, :, None] & b[None, :, :])
        d = c + prod.sum(axis=1)
        return (d.astype(np.int64) & 0xFFFFFFFF), None
    if f.a in ("s8", "u8", "s4", "u4"):
        d = c + a @ b
        if f.sat:
            d = np.clip(d, -2**31, 2**31 - 1)
        return d.astype(np.int64) & 0xFFFFFFFF, None
    exact = c + a @ b
    mag = np.abs(c) + np.abs(a) @ np.abs(b)
    eps = 2.0 ** -53 if f.a == "f64" else 2.0 ** -24
    tol = (f.k + 1) * eps * mag
    if f.d == "f16":
        tol = tol + np.abs(exact) * 2.0 ** -11 + 2.0 ** -25
    return exact, tol


def pack(f: mma.Form, warps: list[Operands]) -> np.ndarray:
    """the kernels' input rows: warp w's A, B and C fragments, in that order, in lanes 32 w
    to 32 w + 31"""
    na, nb, nc = (f.words(x) for x in "abc")
    ins = np.zeros((32 * len(warps), na + nb + nc), dtype=np.uint32)
    for w, (A, B, C) in enumerate(warps):
        lanes = slice(32 * w, 32 * w + 32)
        ins[lanes, :na] = mma.pack(f.a, mma.a_layout(f), A, na)
        ins[lanes, na:na + nb] = mma.pack(f.b, mma.b_layout(f), B, nb)
        ins[lanes, na + nb:] = mma.pack(f.c, mma.c_layout(f), C, nc)
    return ins


def check(f: mma.Form, out: np.ndarray, warps: list[Operands]) -> None:
    """each warp's D fragments (its 32 rows of out) against numpy's D of its operands:
    bit-exact where there is no bound, else within it"""
    for w, (A, B, C) in enumerate(warps):
        got_bits = mma.unpack(f.d, mma.c_layout(f), out[32 * w:32 * w + 32], f.m, f.n)
        want, tol = reference(f, A, B, C)
        if tol is None:
            assert np.array_equal(got_bits.astype(np.int64), want), (w, got_bits, want)
        else:
            got = mma.decode(f.d, got_bits)
            assert np.all(np.abs(got - want) <= tol), (w, got - want, tol)
