"""PTX fundamental types: their C spelling, size and class."""

from __future__ import annotations

C_TYPE = {
    "pred": "bool",
    "b8": "uint8_t", "u8": "uint8_t", "s8": "int8_t",
    "b16": "uint16_t", "u16": "uint16_t", "s16": "int16_t", "f16": "uint16_t", "bf16": "uint16_t",
    "b32": "uint32_t", "u32": "uint32_t", "s32": "int32_t", "f32": "float",
    "f16x2": "uint32_t", "bf16x2": "uint32_t", "tf32": "uint32_t",
    "b64": "uint64_t", "u64": "uint64_t", "s64": "int64_t", "f64": "double",
}
SIZE = {
    "pred": 1, "b8": 1, "u8": 1, "s8": 1, "b16": 2, "u16": 2, "s16": 2, "f16": 2, "bf16": 2,
    "b32": 4, "u32": 4, "s32": 4, "f32": 4, "f16x2": 4, "bf16x2": 4, "tf32": 4,
    "b64": 8, "u64": 8, "s64": 8, "f64": 8, "b128": 16,
}
FLOAT = frozenset(("f32", "f64"))            # native C floating types
HALF = frozenset(("f16", "bf16"))             # stored as bits
HALF2 = frozenset(("f16x2", "bf16x2"))
SIGNED = frozenset(("s8", "s16", "s32", "s64"))
UNSIGNED = frozenset(("u8", "u16", "u32", "u64"))
BITS = frozenset(("b8", "b16", "b32", "b64"))
INT = SIGNED | UNSIGNED | BITS
ALL = frozenset(C_TYPE)


def uint_of(size: int) -> str:
    return {1: "u8", 2: "u16", 4: "u32", 8: "u64"}[size]


def sint_of(size: int) -> str:
    return {1: "s8", 2: "s16", 4: "s32", 8: "s64"}[size]
