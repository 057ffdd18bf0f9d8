"""zstd frames and raw LZ4 blocks: exact sizes, lying headers, garbage."""

from __future__ import annotations

import lz4.block
import pytest
import zstandard

from pyshim.binary import decompress
from pyshim.binary.errors import FatbinError

TEXT = b".version 9.0\n.target sm_75\n" + b"add.s32 %r1, %r2, %r3;\n" * 500


def test_zstd_round_trip():
    frame = zstandard.ZstdCompressor(level=19).compress(TEXT)
    assert decompress.zstd_frame(frame, len(TEXT)) == TEXT


def test_zstd_frame_without_content_size():
    cctx = zstandard.ZstdCompressor(write_content_size=False)
    frame = cctx.compress(TEXT)
    assert decompress.zstd_frame(frame, len(TEXT)) == TEXT


@pytest.mark.parametrize("delta,match", [(1, f"gave {len(TEXT)} bytes"),
                                         (-1, "gave more than")])
def test_zstd_size_mismatch(delta, match):
    frame = zstandard.ZstdCompressor().compress(TEXT)
    with pytest.raises(FatbinError, match=match):
        decompress.zstd_frame(frame, len(TEXT) + delta, "entry 7")


def test_zstd_garbage_and_truncation_name_the_entry():
    frame = zstandard.ZstdCompressor().compress(TEXT)
    with pytest.raises(FatbinError, match="entry 3: bad zstd data"):
        decompress.zstd_frame(b"\x00" * 40, 100, "entry 3")
    with pytest.raises(FatbinError, match="entry 3"):
        decompress.zstd_frame(frame[: len(frame) // 2], len(TEXT), "entry 3")


def test_zstd_bomb_is_bounded_by_the_header():
    bomb = zstandard.ZstdCompressor().compress(bytes(64 << 20))  # 64 MiB of zeros
    assert len(bomb) < 4096
    with pytest.raises(FatbinError, match="gave more than 1000"):
        decompress.zstd_frame(bomb, 1000)


def test_lz4_round_trip_and_errors():
    block = lz4.block.compress(TEXT, store_size=False)
    assert decompress.lz4_block(block, len(TEXT)) == TEXT
    with pytest.raises(FatbinError, match="bad LZ4 block"):
        decompress.lz4_block(block, len(TEXT) - 1, "entry 2")
    with pytest.raises(FatbinError, match="bad LZ4 block"):
        decompress.lz4_block(b"\xff" * 32, 1000)


def test_lz4_size_beyond_the_format_ratio_is_refused_before_allocating():
    with pytest.raises(FatbinError, match="cannot expand"):
        decompress.lz4_block(b"\x00" * 10, 1 << 30)


def test_absurd_sizes_are_refused():
    for fn in (decompress.zstd_frame, decompress.lz4_block):
        with pytest.raises(FatbinError, match="out of range"):
            fn(b"x", 1 << 40)
        with pytest.raises(FatbinError, match="out of range"):
            fn(b"x", -1)
