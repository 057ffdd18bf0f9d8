"""Decompression of fat binary entries: zstd frames (flag 0x8000, nvcc's default for PTX)
and raw LZ4 blocks (flag 0x2000, `--compress-mode=speed`).

Every failure is a FatbinError naming the entry; no zstandard/lz4 exception escapes. Sizes
come from headers that may lie, so output is bounded: zstd fills one buffer of the
expected size and never writes past it; an LZ4 block cannot expand more than 255x, so a larger claimed size
is refused before anything is allocated.
"""

from __future__ import annotations

import lz4.block
import zstandard

from pyshim.binary.errors import FatbinError

# no real entry comes close; a header claiming more is corrupt
MAX_UNCOMPRESSED = 1 << 31
# LZ4 block format: each byte of input yields at most 255 bytes of output (+ small slack)
_LZ4_MAX_RATIO = 255


def _check_size(expected: int, what: str) -> None:
    if expected < 0 or expected > MAX_UNCOMPRESSED:
        raise FatbinError(f"{what}: uncompressed size {expected} is out of range "
                          f"(0..{MAX_UNCOMPRESSED})")


def zstd_frame(data: bytes, expected: int, what: str = "entry") -> bytes:
    """Decompress one zstd frame that must yield exactly `expected` bytes.

    One buffer of the declared size, filled in place: a frame whose own header claims
    another size is refused before anything is allocated, one without a size cannot write
    past `expected` (zstd stops with an error). Growing a buffer chunk by chunk and then
    copying it to bytes held two copies (a 66 KB entry claiming 2 GiB took 4.2 GiB)."""
    _check_size(expected, what)
    try:
        frame_size = zstandard.get_frame_parameters(data).content_size
    except Exception as exc:  # not a zstd frame header
        raise FatbinError(f"{what}: bad zstd data ({exc})") from exc
    if frame_size != zstandard.CONTENTSIZE_UNKNOWN and frame_size != expected:
        raise FatbinError(f"{what}: zstd frame says {frame_size} bytes, header says {expected}")
    if expected == 0:
        return b""
    try:
        out = zstandard.ZstdDecompressor().decompress(data, max_output_size=expected)
    except Exception as exc:  # zstandard raises ZstdError and others for bad frames
        raise FatbinError(f"{what}: bad zstd data ({exc})") from exc
    if len(out) != expected:
        raise FatbinError(f"{what}: zstd frame gave {len(out)} bytes, header says {expected}")
    return out


def lz4_block(data: bytes, expected: int, what: str = "entry") -> bytes:
    """Decompress one raw LZ4 block (no frame header) of exactly `expected` bytes."""
    _check_size(expected, what)
    if expected > len(data) * _LZ4_MAX_RATIO + 64:
        raise FatbinError(f"{what}: LZ4 block of {len(data)} bytes cannot expand to "
                          f"{expected} bytes")
    if expected == 0:
        return b""
    try:
        out = lz4.block.decompress(data, uncompressed_size=expected)
    except Exception as exc:  # LZ4BlockError, or ValueError for odd sizes
        raise FatbinError(f"{what}: bad LZ4 block ({exc})") from exc
    if len(out) != expected:
        raise FatbinError(f"{what}: LZ4 block gave {len(out)} bytes, header says {expected}")
    return out
