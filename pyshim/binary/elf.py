"""Host ELF files (executables and shared libraries built by nvcc): their sections, the
fat binaries they embed, and what they need from the dynamic loader.

The file is mmap'ed and only the parts asked for are read, so a 2 GiB math library costs
no more than its headers plus the containers actually used. pyelftools parses headers,
dynamic tags and symbols; bulk bytes are sliced straight from the map.

Fat binaries (nvcc 13): `.nvFatBinSegment` holds 24-byte `__fatBinC_Wrapper_t`s
(u32 magic 0x466243B1, u32 version 1|2, u64 data -> container, u64 aux); containers lie
back to back, 8-aligned, in `.nv_fatbin` and, with -rdc=true, `__nv_relfatbin`. A v2
wrapper's aux is a NULL-terminated pointer array filled at run time (it lives in .bss), so
statically the relocatable containers are found by scanning `__nv_relfatbin` instead.
"""

from __future__ import annotations

import mmap
import os
import struct
from collections.abc import Callable
from dataclasses import dataclass
from functools import wraps
from pathlib import Path
from typing import Any, TypeVar

from elftools.elf.dynamic import DynamicSection
from elftools.elf.elffile import ELFFile
from elftools.elf.gnuversions import GNUVerDefSection, GNUVerNeedSection, GNUVerSymSection

from pyshim.binary import fatbin
from pyshim.binary.errors import ElfError, FatbinError

WRAPPER_SECTION = ".nvFatBinSegment"
FATBIN_SECTIONS = (".nv_fatbin", "__nv_relfatbin")
_WRAPPER = struct.Struct("<IIQQ")
_R_X86_64_RELATIVE = 8

T = TypeVar("T")


@dataclass(frozen=True)
class Section:
    name: str
    type: str
    address: int
    offset: int
    size: int
    flags: int


@dataclass(frozen=True)
class FatbinWrapper:
    """One `__fatBinC_Wrapper_t` and the container its data pointer resolves to."""

    address: int  # of the wrapper itself (virtual address in the file)
    version: int  # 1 = per translation unit, 2 = device-linked (-rdc=true)
    data_address: int
    aux_address: int
    container: bytes  # exactly one container (container_size bytes)


@dataclass(frozen=True)
class EmbeddedContainer:
    """A container found by scanning a fatbin section."""

    section: str
    address: int
    data: bytes


@dataclass(frozen=True)
class DynamicSymbol:
    name: str
    version: str | None  # e.g. "libcudart.so.13" for cudaMalloc@libcudart.so.13
    defined: bool  # False: imported from some DT_NEEDED library
    type: str  # STT_FUNC, STT_OBJECT, ...
    binding: str  # STB_GLOBAL, STB_WEAK, ...


def _elf_errors(method: Callable[..., T]) -> Callable[..., T]:
    """Turn whatever pyelftools raises on a malformed file into ElfError naming it."""

    @wraps(method)
    def wrapper(self: HostElf, *args: Any, **kwargs: Any) -> T:
        try:
            return method(self, *args, **kwargs)
        except (ElfError, FatbinError):
            raise
        except Exception as exc:  # pyelftools raises ELFError, struct.error, construct errors
            raise ElfError(f"{self.path}: malformed ELF ({type(exc).__name__}: {exc})") \
                from exc

    return wrapper


class HostElf:
    """An ELF file opened read-only through mmap. Use as a context manager."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = Path(path)
        try:
            with open(self.path, "rb") as f:
                size = os.fstat(f.fileno()).st_size
                if size < 16:
                    raise ElfError(f"{self.path}: not an ELF file ({size} bytes)")
                self._map = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
        except OSError as exc:
            raise ElfError(f"{self.path}: cannot open ({exc.strerror or exc})") from exc
        head = self._map[:4]
        if head != b"\x7fELF":
            self._map.close()
            raise ElfError(f"{self.path}: not an ELF file (starts with {head!r})")
        try:
            self._elf = ELFFile(self._map)  # mmap has read/seek/tell: pyelftools needs no more
        except Exception as exc:
            self._map.close()
            raise ElfError(f"{self.path}: malformed ELF header ({exc})") from exc
        self._relative: dict[int, int] | None = None

    def close(self) -> None:
        self._map.close()

    def __enter__(self) -> HostElf:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- sections and addresses -------------------------------------------------------

    @_elf_errors
    def sections(self) -> list[Section]:
        return [Section(name=s.name, type=s["sh_type"], address=s["sh_addr"],
                        offset=s["sh_offset"], size=s["sh_size"], flags=s["sh_flags"])
                for s in self._elf.iter_sections()]

    def section(self, name: str) -> Section | None:
        for s in self.sections():
            if s.name == name:
                return s
        return None

    def _slice(self, offset: int, size: int, what: str) -> bytes:
        if offset < 0 or size < 0 or offset + size > len(self._map):
            raise ElfError(f"{self.path}: {what} (offset {offset:#x}, {size} bytes) lies "
                           f"outside the file ({len(self._map)} bytes)")
        return self._map[offset:offset + size]

    def section_bytes(self, name: str) -> bytes | None:
        """The contents of a section (None if absent or without file contents)."""
        s = self.section(name)
        if s is None or s.type == "SHT_NOBITS":
            return None
        return self._slice(s.offset, s.size, f"section {name}")

    @_elf_errors
    def vaddr_to_offset(self, address: int, size: int = 1) -> int:
        """File offset of a virtual address, via the file-backed part of a PT_LOAD
        segment (or, for files without segments, an allocated section)."""
        for seg in self._elf.iter_segments():
            if seg["p_type"] != "PT_LOAD":
                continue
            start, filesz = seg["p_vaddr"], seg["p_filesz"]
            if start <= address and address + size <= start + filesz:
                return seg["p_offset"] + address - start
        for s in self.sections():
            if s.address and s.type != "SHT_NOBITS" and \
                    s.address <= address and address + size <= s.address + s.size:
                return s.offset + address - s.address
        raise ElfError(f"{self.path}: address {address:#x} (+{size}) is not backed by the file")

    def read_vaddr(self, address: int, size: int) -> bytes:
        return self._slice(self.vaddr_to_offset(address, size), size, f"address {address:#x}")

    @_elf_errors
    def _relative_relocations(self) -> dict[int, int]:
        """offset -> addend of R_X86_64_RELATIVE relocations (pointers in a PIE)."""
        if self._relative is None:
            self._relative = {}
            for s in self._elf.iter_sections():
                if s["sh_type"] != "SHT_RELA" or not s.name.startswith(".rela.dyn"):
                    continue
                for rel in s.iter_relocations():
                    if rel["r_info_type"] == _R_X86_64_RELATIVE:
                        self._relative[rel["r_offset"]] = rel["r_addend"]
        return self._relative

    def _pointer(self, value: int, at: int) -> int:
        # linkers store a RELATIVE relocation's addend in place as well; if one did not,
        # the relocation still says where the pointer points
        if value == 0:
            return self._relative_relocations().get(at, 0)
        return value

    # -- fat binaries -----------------------------------------------------------------

    def fatbin_wrappers(self) -> list[FatbinWrapper]:
        """Every wrapper in `.nvFatBinSegment`, with the container it points to."""
        s = self.section(WRAPPER_SECTION)
        if s is None or s.type == "SHT_NOBITS":
            return []
        raw = self._slice(s.offset, s.size, f"section {WRAPPER_SECTION}")
        wrappers = []
        for pos in range(0, len(raw) - _WRAPPER.size + 1, _WRAPPER.size):
            magic, version, data_ptr, aux_ptr = _WRAPPER.unpack_from(raw, pos)
            address = s.address + pos
            if magic != fatbin.WRAPPER_MAGIC:
                raise FatbinError(f"{self.path}: fatbin wrapper at {address:#x} has magic "
                                  f"{magic:#010x}, expected {fatbin.WRAPPER_MAGIC:#010x}")
            if version not in (1, 2):
                raise FatbinError(f"{self.path}: fatbin wrapper at {address:#x} has version "
                                  f"{version}, expected 1 or 2")
            data_ptr = self._pointer(data_ptr, address + 8)
            aux_ptr = self._pointer(aux_ptr, address + 16)
            head = self.read_vaddr(data_ptr, fatbin.CONTAINER_HEADER.size)
            size = fatbin.container_size(head)
            wrappers.append(FatbinWrapper(address=address, version=version,
                                          data_address=data_ptr, aux_address=aux_ptr,
                                          container=self.read_vaddr(data_ptr, size)))
        return wrappers

    def embedded_containers(self) -> list[EmbeddedContainer]:
        """Every container in the fatbin sections, found by walking them (8-aligned,
        back to back). This includes containers no wrapper points to (link stubs)."""
        found = []
        for name in FATBIN_SECTIONS:
            s = self.section(name)
            if s is None or s.type == "SHT_NOBITS":
                continue
            pos = 0
            while pos + fatbin.CONTAINER_HEADER.size <= s.size:
                head = self._slice(s.offset + pos, fatbin.CONTAINER_HEADER.size, name)
                if head == bytes(len(head)):
                    pos += 8  # alignment padding between containers
                    continue
                try:
                    size = fatbin.container_size(head)
                except FatbinError as exc:
                    raise FatbinError(f"{self.path}: {name}+{pos:#x}: {exc}") from exc
                if pos + size > s.size:
                    raise FatbinError(f"{self.path}: {name}+{pos:#x}: container of {size} "
                                      f"bytes runs past the section ({s.size} bytes)")
                found.append(EmbeddedContainer(section=name, address=s.address + pos,
                                               data=self._slice(s.offset + pos, size, name)))
                pos += (size + 7) & ~7
        return found

    # -- what the dynamic loader sees -------------------------------------------------

    @_elf_errors
    def _dynamic_tags(self, tag: str, attr: str) -> list[str]:
        out = []
        for s in self._elf.iter_sections():
            if isinstance(s, DynamicSection):
                out += [getattr(t, attr) for t in s.iter_tags() if t.entry.d_tag == tag]
        return out

    def needed(self) -> list[str]:
        """DT_NEEDED: the sonames this file links against, in order."""
        return self._dynamic_tags("DT_NEEDED", "needed")

    def rpath(self) -> list[str]:
        return [p for v in self._dynamic_tags("DT_RPATH", "rpath") for p in v.split(":")]

    def runpath(self) -> list[str]:
        return [p for v in self._dynamic_tags("DT_RUNPATH", "runpath") for p in v.split(":")]

    @_elf_errors
    def dynamic_symbols(self) -> list[DynamicSymbol]:
        """The .dynsym table (minus the null symbol), with GNU symbol versions."""
        dynsym = self._elf.get_section_by_name(".dynsym")
        if dynsym is None:
            return []
        names: dict[int, str] = {}
        versym = None
        for s in self._elf.iter_sections():
            if isinstance(s, GNUVerNeedSection):
                for _need, auxes in s.iter_versions():
                    for aux in auxes:
                        names[aux["vna_other"]] = aux.name
            elif isinstance(s, GNUVerDefSection):
                for vdef, auxes in s.iter_versions():
                    first = next(iter(auxes), None)
                    if first is not None:
                        names[vdef["vd_ndx"]] = first.name
            elif isinstance(s, GNUVerSymSection):
                versym = s
        out = []
        for i, sym in enumerate(dynsym.iter_symbols()):
            if i == 0:
                continue
            version = None
            if versym is not None:
                ndx = versym.get_symbol(i)["ndx"]
                if isinstance(ndx, int):
                    version = names.get(ndx & 0x7FFF)  # bit 15: hidden
            out.append(DynamicSymbol(name=sym.name, version=version,
                                     defined=sym["st_shndx"] != "SHN_UNDEF",
                                     type=sym["st_info"]["type"],
                                     binding=sym["st_info"]["bind"]))
        return out

    def imported_symbols(self) -> list[DynamicSymbol]:
        return [s for s in self.dynamic_symbols() if not s.defined]

    def defined_symbols(self) -> list[DynamicSymbol]:
        return [s for s in self.dynamic_symbols() if s.defined]
