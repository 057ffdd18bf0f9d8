"""A CUDA runtime linked statically (nvcc's default): is it there, which CUDA version, which
driver entry points it can ask for, and which runtime functions the program calls.

- Detection: cudart_static's own symbols (`libcudart_static_<hash>`, when the symbol table
  is kept), or, in stripped files, its string table of driver names (hundreds of
  cuGetProcAddress names beside "libcuda.so.1" in .rodata).
- Version: cudart asks the driver for each entry point at the version whose ABI it was
  built for, and names versioned fallbacks (`cuCtxGetDevice_v2`) for dlsym; the newest
  introduction version among the names it carries is a lower bound of its own version
  (CUDA 13.0's asks for 13000 names, 12.9's for 12080 ones).
- Runtime calls: in an unstripped static executable every `call rel32` in a function that
  is not cudart's own whose target is the start of a runtime API function is a call the program makes.
  Found with numpy over the code bytes; a stray 0xE8 byte that happens to point exactly at
  an API function is possible but rare, and only ever adds a name.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import numpy as np

from pyshim.binary.elf import HostElf
from pyshim.check.tables import Tables

_SYM = np.dtype([("name", "<u4"), ("info", "u1"), ("other", "u1"), ("shndx", "<u2"),
                 ("value", "<u8"), ("size", "<u8")])
_STT_FUNC = 2
_DRIVER_NAME = re.compile(rb"cu[A-Z][A-Za-z0-9_]{2,80}")
_MARKER = "libcudart_static_"
# the name of an error only cudart itself raises, from its error-name table
_CUDART_ONLY = b"\0cudaErrorCudartUnloading\0"
# a handful of names could appear in any program that mentions the driver; cudart carries
# hundreds, so a static cudart is claimed only above this many (12.9: 303, 13.0: 315)
MIN_DRIVER_NAMES = 100


@dataclass
class StaticCudart:
    present: bool = False
    evidence: str = ""
    version: str | None = None  # "13.0" (lower bound, from the driver ABI it asks for)
    driver_abi: int | None = None  # newest proc-address version asked for, e.g. 13000
    driver_names: list[str] = field(default_factory=list)  # what it can request
    runtime_calls: list[str] = field(default_factory=list)  # runtime functions called
    calls_visible: bool = False  # False: no symbol table, so calls could not be seen
    driver_by_name: bool = False  # no cudart, but loads libcuda and looks names up itself


def _symbols(elf: HostElf) -> tuple[np.ndarray, bytes] | None:
    """The raw .symtab (numpy records) and its string table, or None if stripped."""
    symtab = elf.section(".symtab")
    strtab = elf.section(".strtab")
    if symtab is None or strtab is None or symtab.type == "SHT_NOBITS":
        return None
    raw = elf.section_bytes(".symtab") or b""
    usable = len(raw) - len(raw) % _SYM.itemsize
    syms = np.frombuffer(raw, dtype=_SYM, count=usable // _SYM.itemsize)
    return syms, elf.section_bytes(".strtab") or b""


def _name(strtab: bytes, offset: int) -> str:
    end = strtab.find(b"\0", offset)
    return strtab[offset:end if end >= 0 else len(strtab)].decode("latin-1")


def _rodata_names(elf: HostElf) -> tuple[set[str], bool, bool]:
    """Driver-like names in the read-only data, whether "libcuda.so.1" is there, and
    whether cudart's own error-name table is (CUPTI, for one, carries every driver name
    for its tracing but no cudart)."""
    names: set[str] = set()
    libcuda = own_errors = False
    for s in elf.sections():
        if s.name.startswith(".rodata") and s.type != "SHT_NOBITS" and s.size:
            data = elf.section_bytes(s.name) or b""
            names.update(m.decode() for m in set(_DRIVER_NAME.findall(data)))
            libcuda = libcuda or b"libcuda.so.1\0" in data
            own_errors = own_errors or _CUDART_ONLY in data
    return names, libcuda, own_errors


def _version(abi: int) -> str:
    return f"{abi // 1000}.{abi % 1000 // 10}"


def _runtime_calls(elf: HostElf, syms: np.ndarray, strtab: bytes, tables: Tables) -> list[str]:
    funcs = syms[((syms["info"] & 0xF) == _STT_FUNC) & (syms["value"] != 0)]
    api: dict[int, str] = {}  # address -> runtime function name
    callers = []  # (address, size) of the program's own functions
    for value, size, off in zip(funcs["value"].tolist(), funcs["size"].tolist(),
                                funcs["name"].tolist(), strict=True):
        name = _name(strtab, off)
        st = tables.lookup(name)
        if (st is not None and st.api == "runtime") or name.startswith("__cuda"):
            api[value] = name
        elif size and not name.startswith((_MARKER, "cu", "__cu")):
            # cudart's code is interleaved with the program's (.cold, .startup parts), so
            # it is told apart by name: its internals are all libcudart_static_<hash>
            callers.append((value, size))
    text = elf.section(".text")
    if not api or text is None:
        return []
    code = np.frombuffer(elf.section_bytes(".text") or b"", dtype=np.uint8)
    # callers outside cudart's contiguous block of code (the program's own objects)
    found: set[str] = set()
    targets = np.array(sorted(api), dtype=np.int64)
    for value, size in callers:
        start, end = value - text.address, value - text.address + size
        if start < 0 or end > len(code):
            continue
        pos = np.nonzero(code[start:end - 4] == 0xE8)[0] + start
        if not len(pos):
            continue
        rel = (code[pos + 1].astype(np.int64) | code[pos + 2].astype(np.int64) << 8 |
               code[pos + 3].astype(np.int64) << 16 | code[pos + 4].astype(np.int64) << 24)
        rel = np.where(rel >= 1 << 31, rel - (1 << 32), rel)
        dest = pos + text.address + 5 + rel
        hit = dest[np.isin(dest, targets)]
        found.update(api[int(d)] for d in hit)
    return sorted(found)


def analyse(elf: HostElf, tables: Tables) -> StaticCudart:
    """What the static cudart in `elf` (if any) is and asks for."""
    out = StaticCudart()
    sym = _symbols(elf)
    marker = False
    if sym is not None:
        syms, strtab = sym
        # names are offsets into strtab: look for the marker there first (cheap)
        marker = _MARKER.encode() in strtab
    names, libcuda, own_errors = _rodata_names(elf)
    requested = sorted(n for n in names if n in tables.driver_names)
    versioned = [n for n in names if n in tables.driver_symbol_versions]
    by_name = len(requested) >= MIN_DRIVER_NAMES and libcuda
    if marker:
        out.present, out.evidence = True, f"{_MARKER}* symbols"
    elif by_name and own_errors:
        out.present = True
        out.evidence = (f"{len(requested)} driver entry point names beside \"libcuda.so.1\" "
                        f"and cudart's error names")
    elif by_name:
        # not a cudart, but it looks the driver up by name all the same (CUPTI does)
        out.driver_by_name = True
        out.driver_names = requested
        return out
    if not out.present:
        return out
    out.driver_names = requested
    versions = [tables.driver_names[n] for n in requested] + \
        [tables.driver_symbol_versions[n] for n in versioned]
    if versions:
        out.driver_abi = max(versions)
        out.version = _version(out.driver_abi)
    if sym is not None:
        out.calls_visible = True
        out.runtime_calls = _runtime_calls(elf, sym[0], sym[1], tables)
    return out
