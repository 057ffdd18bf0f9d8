"""The fast cubin kernel reader agrees with pyshim.binary's pyelftools-based one on real
cubins, and refuses malformed ones with FatbinError (never IndexError or a crash)."""

from __future__ import annotations

import struct

import pytest
import test_check as tc

from pyshim.binary import fatbin
from pyshim.binary.elf import HostElf
from pyshim.binary.errors import FatbinError
from pyshim.check import cubin


def _cubins() -> list[bytes]:
    out = []
    for path in (tc.example([], "matmul-static"), tc.build("brkpt", tc.BRKPT_SOURCE, []),
                 tc.example(["-gencode", "arch=compute_86,code=sm_86"], "matmul-sass86")):
        with HostElf(path) as elf:
            for c in elf.embedded_containers():
                out += [e.data() for e in fatbin.entries(c.data) if e.is_elf]
    return out


def test_same_kernels_as_pyelftools_reader():
    cubins = _cubins()
    assert len(cubins) >= 3
    for data in cubins:
        assert cubin.kernels(data) == fatbin.cubin_kernels(data)
    assert any(cubin.kernels(d) for d in cubins)


@pytest.mark.parametrize("cut", [0, 10, 0x40, 200, -1])
def test_truncated_cubins_raise_fatbin_error(cut):
    data = next(d for d in _cubins() if cubin.kernels(d))
    shoff = int.from_bytes(data[0x28:0x30], "little")
    bad = data[:cut] if cut >= 0 else data[:shoff + 10]  # cuts into the section headers
    with pytest.raises(FatbinError):
        cubin.kernels(bad)


def test_symbol_name_outside_string_table_is_refused():
    data = bytearray(next(d for d in _cubins() if cubin.kernels(d)))
    # point every symbol name far past its string table
    shoff, = struct.unpack_from("<Q", data, 0x28)
    shnum, = struct.unpack_from("<H", data, 0x3C)
    for i in range(shnum):
        h = shoff + i * 64
        if struct.unpack_from("<I", data, h + 4)[0] == 2:  # SHT_SYMTAB
            off, size = struct.unpack_from("<QQ", data, h + 0x18)
            for pos in range(off, off + size, 24):
                struct.pack_into("<I", data, pos, 0x7FFFFFF0)
    with pytest.raises(FatbinError, match="string"):
        cubin.kernels(bytes(data))
