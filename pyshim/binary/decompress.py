"""Decompression of fat binary entries: zstd frames (flag 0x8000, nvcc's default for PTX)
and raw LZ4 blocks (flag 0x2000, `--compress-mode=speed`).

Every failure is a FatbinError naming the entry; no zstandard/lz4 exception escapes. Sizes
come from headers that may lie, so output is bounded: zstd is read as a stream and never
past the expected size; an LZ4 block cannot expand more than 255x, so a larger claimed size
is refused before anything is allocated.
"""

from __future__ import annotations

import io

import lz4.block
import zstandard

from pyshim.binary.errors import FatbinError

# no real entry comes close; a header claiming more is corrupt
MAX_UNCOMPRESSED = 1 << 31
# LZ4 block format: each byte of input yields at most 255 bytes of output (+ small slack)
_LZ4_MAX_RATIO = 255
_CHUNK = 1 << 20


def _check_size(expected: int, what: str) -> None:
    if expected < 0 or expected > MAX_UNCOMPRESSED:
        raise FatbinError(f"{what}: uncompressed size {expected} is out of range "
                          f"(0..{MAX_UNCOMPRESSED})")


def zstd_frame(data: bytes, expected: int, what: str = "entry") -> bytes:
    """Decompress one zstd frame that must yield exactly `expected` bytes."""
    _check_size(expected, what)
    out = bytearray()
    try:
        reader = zstandard.ZstdDecompressor().stream_reader(
            io.BytesIO(data), read_across_frames=False)
        # read one byte past the expected size to detect a frame that is too long; in
        # chunks, because read(n) allocates n bytes up front and n comes from a header
        while len(out) <= expected:
            chunk = reader.read(min(_CHUNK, expected + 1 - len(out)))
            if not chunk:
                break
            out += chunk
    except Exception as exc:  # zstandard raises ZstdError and others for bad frames
        raise FatbinError(f"{what}: bad zstd data ({exc})") from exc
    if len(out) != expected:
        got = f"more than {expected}" if len(out) > expected else str(len(out))
        raise FatbinError(f"{what}: zstd frame gave {got} bytes, header says {expected}")
    return bytes(out)


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
