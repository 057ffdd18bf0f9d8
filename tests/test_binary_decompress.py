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


@pytest.mark.parametrize("delta,match", [(1, f"says {len(TEXT)} bytes, header says {len(TEXT) + 1}"),
                                         (-1, f"says {len(TEXT)} bytes")])
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
    with pytest.raises(FatbinError, match="says 67108864 bytes, header says 1000"):
        decompress.zstd_frame(bomb, 1000)
    # without a size in the frame, zstd stops at the declared size
    sizeless = zstandard.ZstdCompressor(write_content_size=False).compress(bytes(64 << 20))
    with pytest.raises(FatbinError, match="bad zstd data"):
        decompress.zstd_frame(sizeless, 1000)
    short = zstandard.ZstdCompressor(write_content_size=False).compress(TEXT)
    with pytest.raises(FatbinError, match=f"gave {len(TEXT)} bytes"):
        decompress.zstd_frame(short, len(TEXT) + 1)


def test_zstd_bomb_that_tells_the_truth_costs_one_copy():
    """A small entry that declares and expands to a large size: memory stays within 1.2x
    of the declared size (the chunked reader and its bytes() copy held two copies)."""
    import subprocess
    import sys

    code = (
        "import resource, zstandard\n"
        "from pyshim.binary import decompress\n"
        "n = 512 << 20\n"
        "co = zstandard.ZstdCompressor(level=3).compressobj(size=n)\n"
        "zero = bytes(1 << 20)\n"
        "bomb = b''.join(co.compress(zero) for _ in range(n >> 20)) + co.flush()\n"
        "base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss\n"
        "out = decompress.zstd_frame(bomb, n)\n"
        "assert len(out) == n\n"
        "peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss\n"
        "print((peak - base) * 1024 / n)\n")
    # the bomb is built in 1 MiB pieces: its input never raises the peak being measured
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=300)
    assert proc.returncode == 0, proc.stderr
    ratio = float(proc.stdout.strip())
    assert ratio <= 1.2, ratio


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
