"""Kernel names of a cubin, fast: a math library carries thousands of cubins, and building a
pyelftools object for each is too slow for that (benchmarks/README.md, Figures behind the
code). This reads just the section
headers and the symbol tables with struct and numpy; the rule is the same as
`pyshim.binary.fatbin.cubin_kernels` (function symbols with the CUDA entry bit 0x10 in
st_other), which the tests compare it with.
"""

from __future__ import annotations

import struct

import numpy as np

from pyshim.binary.errors import FatbinError

_SHDR = struct.Struct("<IIQQQQIIQQ")  # name type flags addr offset size link info align entsize
_SYM = np.dtype([("name", "<u4"), ("info", "u1"), ("other", "u1"), ("shndx", "<u2"),
                 ("value", "<u8"), ("size", "<u8")])
_SHT_SYMTAB = 2
_STT_FUNC = 2
_STO_CUDA_ENTRY = 0x10


def kernels(elf: bytes) -> list[str]:
    """Sorted kernel names in the cubin `elf`; FatbinError if it is malformed."""
    n = len(elf)
    if n < 0x40 or elf[:4] != b"\x7fELF" or elf[4] != 2:
        raise FatbinError(f"cubin is not a 64-bit ELF (starts with {bytes(elf[:5])!r})")
    shoff, = struct.unpack_from("<Q", elf, 0x28)
    shentsize, shnum = struct.unpack_from("<HH", elf, 0x3A)
    if shentsize != _SHDR.size or shoff + shnum * shentsize > n:
        raise FatbinError(f"cubin section headers ({shnum} x {shentsize} bytes at "
                          f"{shoff:#x}) lie outside its {n} bytes")
    headers = [_SHDR.unpack_from(elf, shoff + i * shentsize) for i in range(shnum)]
    names: set[str] = set()
    for h in headers:
        if h[1] != _SHT_SYMTAB:
            continue
        off, size, link, entsize = h[4], h[5], h[6], h[9]
        if entsize != _SYM.itemsize or off + size > n or link >= shnum:
            raise FatbinError(f"cubin symbol table ({size} bytes at {off:#x}) is malformed")
        str_off, str_size = headers[link][4], headers[link][5]
        if str_off + str_size > n:
            raise FatbinError(f"cubin string table ({str_size} bytes at {str_off:#x}) lies "
                              f"outside its {n} bytes")
        syms = np.frombuffer(elf, dtype=_SYM, count=size // _SYM.itemsize, offset=off)
        entry = syms[((syms["info"] & 0xF) == _STT_FUNC) & ((syms["other"] & _STO_CUDA_ENTRY) != 0)]
        strtab = bytes(elf[str_off:str_off + str_size])
        for name_off in entry["name"].tolist():
            if name_off >= str_size:
                raise FatbinError(f"cubin symbol name offset {name_off} outside its string "
                                  f"table ({str_size} bytes)")
            end = strtab.find(b"\0", name_off)
            names.add(strtab[name_off:end if end >= 0 else str_size].decode("utf-8", "replace"))
    return sorted(names)
