"""Device printf on GPU targets: the record writer in preludes/printf_buffer.h (compiled here
with the host C compiler, the same source the GPU code uses) and the host-side decoder
pyshim.ptx.printf_buffer.decode."""

from __future__ import annotations

import ctypes
import struct
import subprocess

import pytest

from pyshim.ptx.printf_buffer import decode, format_record
from pyshim.ptx.targets.base import prelude_text

HARNESS = """
#include <stdint.h>
#include <string.h>
#define PS_FN static inline __attribute__((unused))
#define PS_AFETCH_ADD(p, v) __atomic_fetch_add(p, v, __ATOMIC_SEQ_CST)
#define PS_PRINTF_BYTES 512u
%s
int record(uint8_t *buf, const char *fmt, const void *args) {
    return ps_printf_record(buf, (uint64_t)(uintptr_t)fmt, (uint64_t)(uintptr_t)args);
}
"""


@pytest.fixture(scope="module")
def lib(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("printf")
    (tmp / "h.c").write_text(HARNESS % prelude_text("printf_buffer.h"))
    subprocess.run(["cc", "-std=gnu11", "-O2", "-shared", "-fPIC", "-Wall", "-Wextra",
                    "-Werror", str(tmp / "h.c"), "-o", str(tmp / "h.so")], check=True)
    return ctypes.CDLL(str(tmp / "h.so"))


def pack(*items: tuple[str, object]) -> bytes:
    """A vprintf argument buffer as nvcc lays it out: each argument aligned to its size."""
    out = bytearray()
    for fmt, value in items:
        size = struct.calcsize(fmt)
        out += bytes(-len(out) % size)
        out += struct.pack("<" + fmt, value)
    return bytes(out)


def test_records_round_trip(lib):
    buf = ctypes.create_string_buffer(512)
    name = ctypes.create_string_buffer(b"world")
    cases = [
        (b"hi %d %f\n", pack(("i", -3), ("d", 1.5)), "hi -3 1.500000\n"),
        (b"%s=%5.2f %lld%%\n", pack(("Q", ctypes.addressof(name)), ("d", 2.25), ("q", 1 << 40)),
         f"world= 2.25 {1 << 40}%\n"),
        (b"no args\n", b"", "no args\n"),
        (b"%u %x %c|\n", pack(("I", 4000000000), ("I", 255), ("i", 65)), "4000000000 ff A|\n"),
    ]
    for fmt, args, _ in cases:
        a = ctypes.create_string_buffer(args, max(len(args), 1))
        assert lib.record(buf, fmt, a if args else None) == len(args)
    assert decode(buf.raw) == [want for _, _, want in cases]


def test_full_buffer_drops_records_and_says_so(lib):
    buf = ctypes.create_string_buffer(512)
    args = ctypes.create_string_buffer(pack(("i", 7)))
    results = [lib.record(buf, b"line %d ............................................\n", args)
               for _ in range(20)]
    assert -1 in results
    lines = decode(buf.raw)
    assert lines[-1].startswith("[pyshim: device printf buffer full")
    assert all(line.startswith("line 7") for line in lines[:-1]) and len(lines) > 2


def test_format_record_matches_c_conventions():
    assert format_record("%hhd %hd\n", pack(("i", 0x1FF), ("i", 0x18000)), []) == "-1 -32768\n"
    assert format_record("%%%s%%", pack(("Q", 0)), ["x"]) == "%x%"
