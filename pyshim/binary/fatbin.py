"""Fat binary containers (magic 0xBA55ED50): their entries, and the PTX to translate.

Layout (nvcc 13; /work/shared/notes/cuda-driver-contract.md, "Fat binaries"):
  container: u32 magic; u16 version (1); u16 header size (16); u64 size of the entries
  entry (header >= 64 bytes, entries back to back):
    0x00 u16 kind (1 PTX, 2 ELF cubin)    0x04 u32 header size
    0x08 u32 padded payload size          0x10 u32 compressed size (0 if stored plain)
    0x18 u16 minor, u16 major version     0x1c u32 SM arch (75 for sm_75 / compute_75)
    0x28 u64 flags                        0x38 u64 uncompressed size
    0x40 u32 options offset, 0x44 u32 options length (headers > 72 bytes: e.g. the
         "--compile-only" of a relocatable -rdc=true entry), relative to the entry
  flags: 0x1 64-bit, 0x2 debug, 0x10 Linux, 0x2000 LZ4 block, 0x8000 zstd frame.

Every size is checked against the bytes actually present before it is used, so truncated
or lying input raises FatbinError (never IndexError, struct.error or a huge allocation).
"""

from __future__ import annotations

import ctypes
import io
import re
import struct
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field

from pyshim.binary.errors import FatbinError, NoPtxError, UnsupportedPtxVersion

CONTAINER_MAGIC = 0xBA55ED50
CONTAINER_MAGIC_BYTES = struct.pack("<I", CONTAINER_MAGIC)
CONTAINER_HEADER = struct.Struct("<IHHQ")
_ENTRY_HEAD = struct.Struct("<HHIIIII HHI II Q QQ")  # fields up to 0x40, see _parse_entry
ENTRY_MIN_HEADER = _ENTRY_HEAD.size  # 64
assert ENTRY_MIN_HEADER == 64

KIND_PTX = 1
KIND_ELF = 2
FLAG_64BIT = 0x1
FLAG_DEBUG = 0x2
FLAG_LINUX = 0x10
FLAG_LZ4 = 0x2000
FLAG_ZSTD = 0x8000

# sane cap on a container: the largest real ones (whole math libraries) are far below it
MAX_CONTAINER = 1 << 32
# sane cap on one PTX entry's text: nvcc writes one entry per translation unit, and the
# largest met (CUB's, 665k lines) is some tens of MB; 512 MiB of PTX would take the
# translator minutes per pass. A compressed entry declaring more is refused before it is
# decompressed: its text would be held twice (the bytes and the str), and a 66 KB zstd
# frame can declare and expand to 2 GiB (issue 19; its cost in memory and time:
# benchmarks/README.md, Figures behind the code)
MAX_PTX = 512 << 20
# the PTX ISA versions the translator takes: every 9.x (nvcc 13.0 writes 9.0, CUDA 13.2's
# CCCL in CuPy's CUB fat binary 9.2). A new minor version adds instructions; the
# translator refuses those it does not know by name, so the version itself refuses
# nothing below ISA 10. The newest SM arch is only a preference among entries
# (sm_120 is the newest CUDA 13.0 knows; "sm_90a" = 90)
SUPPORTED_PTX_ISA = (9, 99)
SUPPORTED_ARCH = 120

_WRAPPER = struct.Struct("<IIQQ")
WRAPPER_MAGIC = 0x466243B1


@dataclass(frozen=True)
class Entry:
    """One entry of a container. `stored` is the payload as stored (maybe compressed)."""

    index: int
    offset: int  # of the entry header, from the start of the container
    kind: int
    header_size: int
    payload_size: int
    compressed_size: int
    version: tuple[int, int]  # (major, minor): the PTX ISA version for PTX entries
    arch: int
    flags: int
    uncompressed_size: int
    options: str
    stored: bytes = field(repr=False)

    @property
    def is_ptx(self) -> bool:
        return self.kind == KIND_PTX

    @property
    def is_elf(self) -> bool:
        return self.kind == KIND_ELF

    @property
    def compression(self) -> str | None:
        if self.flags & FLAG_ZSTD:
            return "zstd"
        if self.flags & FLAG_LZ4:
            return "lz4"
        return None

    def describe(self) -> str:
        what = {KIND_PTX: "PTX", KIND_ELF: "ELF"}.get(self.kind, f"kind {self.kind}")
        return f"entry {self.index} ({what} sm_{self.arch} at +{self.offset:#x})"

    def data(self) -> bytes:
        """The payload, decompressed. PTX text loses its trailing NUL padding."""
        # imported here: lz4/zstandard load only when an entry is compressed
        from pyshim.binary import decompress

        what = self.describe()
        if self.flags & FLAG_ZSTD:
            out = decompress.zstd_frame(self.stored, self.uncompressed_size, what)
        elif self.flags & FLAG_LZ4:
            out = decompress.lz4_block(self.stored, self.uncompressed_size, what)
        else:
            out = self.stored
        return out.rstrip(b"\0") if self.is_ptx else out

    def ptx(self) -> str:
        """The PTX source of a PTX entry."""
        if not self.is_ptx:
            raise FatbinError(f"{self.describe()} is not PTX")
        size = self.uncompressed_size if self.compression else len(self.stored)
        if size > MAX_PTX:
            raise FatbinError(f"{self.describe()}: {self.compression or 'stored'} PTX of "
                              f"{size} bytes exceeds the {MAX_PTX}-byte cap on PTX text "
                              "(refused before decompressing)")
        try:
            return self.data().decode("utf-8")
        except UnicodeDecodeError as exc:
            raise FatbinError(f"{self.describe()}: PTX is not text ({exc})") from exc


@dataclass(frozen=True)
class Container:
    version: int
    header_size: int
    size: int  # header + entries: the number of bytes the container occupies
    entries: list[Entry]


def container_size(header: bytes) -> int:
    """Total size in bytes (header included) of the container starting with `header`
    (at least its first 16 bytes). C uses this to copy exactly one container."""
    if len(header) < CONTAINER_HEADER.size:
        raise FatbinError(f"fatbin container header truncated: {len(header)} of "
                          f"{CONTAINER_HEADER.size} bytes")
    magic, version, header_size, size = CONTAINER_HEADER.unpack_from(header, 0)
    if magic != CONTAINER_MAGIC:
        raise FatbinError(f"not a fatbin container: magic {magic:#010x}, "
                          f"expected {CONTAINER_MAGIC:#010x}")
    if header_size < CONTAINER_HEADER.size:
        raise FatbinError(f"fatbin container: header size {header_size} < 16")
    total = header_size + size
    if total > MAX_CONTAINER:
        raise FatbinError(f"fatbin container: size {total} exceeds the {MAX_CONTAINER} cap")
    return total


def _parse_entry(data: bytes, start: int, end: int, index: int, base: int) -> Entry:
    where = f"entry {index} at +{start - base:#x}"
    if end - start < ENTRY_MIN_HEADER:
        raise FatbinError(f"fatbin {where}: truncated header ({end - start} bytes left)")
    (kind, _unknown, header_size, payload_size, _pad, compressed_size, _x14,
     minor, major, arch, _x20, _x24, flags, _x30, uncompressed_size) = \
        _ENTRY_HEAD.unpack_from(data, start)
    if header_size < ENTRY_MIN_HEADER:
        raise FatbinError(f"fatbin {where}: header size {header_size} < {ENTRY_MIN_HEADER}")
    if header_size + payload_size > end - start:
        raise FatbinError(f"fatbin {where}: header {header_size} + payload {payload_size} "
                          f"bytes run past the container end ({end - start} bytes left)")
    compressed = flags & (FLAG_ZSTD | FLAG_LZ4)
    if compressed and (flags & FLAG_ZSTD) and (flags & FLAG_LZ4):
        raise FatbinError(f"fatbin {where}: flags {flags:#x} claim both zstd and LZ4")
    stored_size = compressed_size if compressed else payload_size
    if stored_size > payload_size:
        raise FatbinError(f"fatbin {where}: compressed size {compressed_size} > payload "
                          f"size {payload_size}")
    options = ""
    if header_size >= 0x48:
        opt_off, opt_len = struct.unpack_from("<II", data, start + 0x40)
        if opt_len and opt_off + opt_len <= header_size:
            raw = data[start + opt_off:start + opt_off + opt_len]
            options = raw.split(b"\0", 1)[0].decode("latin-1").strip()
    payload = start + header_size
    return Entry(index=index, offset=start - base, kind=kind, header_size=header_size,
                 payload_size=payload_size, compressed_size=compressed_size,
                 version=(major, minor), arch=arch, flags=flags,
                 uncompressed_size=uncompressed_size, options=options,
                 stored=bytes(data[payload:payload + stored_size]))


def parse(data: bytes, offset: int = 0) -> Container:
    """Parse the container at `offset` of `data` (data may continue past its end)."""
    if not isinstance(data, bytes):
        data = bytes(data)  # memoryview/bytearray: slices below must be bytes
    if offset < 0 or offset > len(data):
        raise FatbinError(f"fatbin container offset {offset} outside {len(data)} bytes")
    total = container_size(bytes(data[offset:offset + CONTAINER_HEADER.size]))
    _magic, version, header_size, _size = CONTAINER_HEADER.unpack_from(data, offset)
    end = offset + total
    if end > len(data):
        raise FatbinError(f"fatbin container truncated: header says {total} bytes, "
                          f"{len(data) - offset} present")
    entries = []
    pos = offset + header_size
    while pos < end:
        entry = _parse_entry(data, pos, end, len(entries), offset)
        entries.append(entry)
        pos += entry.header_size + entry.payload_size  # > 0: header_size >= 64
    return Container(version=version, header_size=header_size, size=total, entries=entries)


def is_container(data: bytes, offset: int = 0) -> bool:
    """Whether a container's magic number starts at `offset` (its header may still be bad)."""
    return data[offset:offset + 4] == CONTAINER_MAGIC_BYTES


def back_to_back(data: bytes) -> list[Container]:
    """The containers that follow each other from the start of `data` (an -rdc=true
    program's relocatable units, one per translation unit, are passed so)."""
    out = [parse(data, 0)]
    pos = out[0].size
    while pos + CONTAINER_HEADER.size <= len(data) and is_container(data, pos):
        out.append(parse(data, pos))
        pos += out[-1].size
    return out


def containers_in(data: bytes) -> Iterator[Container]:
    """Every well-formed container found anywhere in `data` (a host object or executable),
    in order; a magic number whose container does not parse is skipped."""
    pos = data.find(CONTAINER_MAGIC_BYTES)
    while pos >= 0:
        try:
            container = parse(data, pos)
        except FatbinError:
            pos = data.find(CONTAINER_MAGIC_BYTES, pos + 4)
            continue
        yield container
        pos = data.find(CONTAINER_MAGIC_BYTES, pos + max(container.size, 4))


def entries(data: bytes) -> list[Entry]:
    """The entries of the container at the start of `data`."""
    return parse(data).entries


def ptx_entries(source: bytes | Iterable[Entry]) -> list[Entry]:
    """The PTX entries of a container (given as bytes or as already parsed entries)."""
    items = entries(source) if isinstance(source, bytes | bytearray | memoryview) else source
    return [e for e in items if e.is_ptx]


def choose_ptx(items: Iterable[Entry], max_isa: tuple[int, int] = SUPPORTED_PTX_ISA,
               max_arch: int = SUPPORTED_ARCH) -> Entry:
    """The PTX entry to translate: the highest ISA version <= max_isa and, among those,
    the highest arch <= max_arch (or the lowest arch if all are newer).
    Raises NoPtxError when there is no PTX (naming SASS archs and kernels) and
    UnsupportedPtxVersion when every PTX entry is newer than max_isa."""
    items = list(items)
    ptx = [e for e in items if e.is_ptx]
    if not ptx:
        raise NoPtxError(_no_ptx_message(items))
    usable = [e for e in ptx if e.version <= max_isa]
    if not usable:
        found = ", ".join(sorted({f"{e.version[0]}.{e.version[1]}" for e in ptx}))
        limit = f"{max_isa[0]}.x" if max_isa[1] >= 99 else f"{max_isa[0]}.{max_isa[1]}"
        raise UnsupportedPtxVersion(
            f"fat binary has PTX ISA {found} only; pyshim translates up to {limit}")
    best_isa = max(e.version for e in usable)
    same_isa = [e for e in usable if e.version == best_isa]
    fitting = [e for e in same_isa if e.arch <= max_arch]
    if fitting:
        return max(fitting, key=lambda e: (e.arch, -e.index))
    return min(same_isa, key=lambda e: (e.arch, e.index))


def _no_ptx_message(items: list[Entry]) -> str:
    archs = sorted({e.arch for e in items if e.is_elf})
    names: set[str] = set()
    for e in items:
        if e.is_elf:
            try:
                names.update(cubin_kernels(e.data()))
            except FatbinError:
                pass  # the message is still useful without the names
    if not items:
        return "fat binary container has no entries: no PTX to translate"
    sass = ", ".join(f"sm_{a}" for a in archs) or "none"
    msg = f"fat binary has no PTX, only SASS for {sass} (rebuild with PTX, e.g. " \
          f"-gencode arch=compute_XX,code=compute_XX)"
    if names:
        msg += "; kernels: " + ", ".join(sorted(names))
    return msg


_ELF64_SHDRS = struct.Struct("<Q10xHH")  # e_shoff at 0x28; e_shentsize, e_shnum at 0x3a
_ELF64_SYM = struct.Struct("<IBBHQQ")  # st_name, st_info, st_other, st_shndx, value, size
_STT_FUNC = 2
_STO_CUDA_ENTRY = 0x10  # st_other bit marking a kernel (entry function) in a cubin


def _check_elf_bounds(elf: bytes) -> None:
    """Refuse a cubin whose section header table lies outside it before pyelftools walks
    up to 65535 bogus headers."""
    if len(elf) < 0x40 or elf[:4] != b"\x7fELF" or elf[4] != 2:
        raise FatbinError(f"cubin is not a 64-bit ELF (starts with {bytes(elf[:5])!r})")
    shoff, shentsize, shnum = _ELF64_SHDRS.unpack_from(elf, 0x28)
    if shentsize != 64 or shoff + shnum * shentsize > len(elf):
        raise FatbinError(f"cubin section headers ({shnum} x {shentsize} bytes at "
                          f"{shoff:#x}) lie outside its {len(elf)} bytes")


def _cubin_entry_symbols(elf: bytes) -> list[str]:
    from elftools.elf.elffile import ELFFile

    f = ELFFile(io.BytesIO(elf))
    names = []
    for sec in f.iter_sections():
        if sec["sh_type"] != "SHT_SYMTAB":
            continue
        off, size = sec["sh_offset"], sec["sh_size"]
        if off + size > len(elf) or sec["sh_entsize"] != _ELF64_SYM.size:
            raise FatbinError(f"cubin symbol table ({size} bytes at {off:#x}) is malformed")
        strtab = f.get_section(sec["sh_link"])
        # pyelftools folds st_other into visibility and drops the CUDA entry bit: read raw
        for pos in range(off, off + size - _ELF64_SYM.size + 1, _ELF64_SYM.size):
            st_name, st_info, st_other, _shndx, _value, _size = \
                _ELF64_SYM.unpack_from(elf, pos)
            if st_info & 0xF == _STT_FUNC and st_other & _STO_CUDA_ENTRY:
                names.append(strtab.get_string(st_name))
    return names


def cubin_kernels(elf: bytes) -> list[str]:
    """Kernel names in a cubin (NVIDIA GPU ELF): function symbols carrying the CUDA entry
    bit (0x10) in st_other; plain device functions lack it."""
    _check_elf_bounds(elf)
    try:
        names = _cubin_entry_symbols(elf)
    except FatbinError:
        raise
    except Exception as exc:  # pyelftools raises ELFError, struct.error, construct errors
        raise FatbinError(f"cubin is not a readable ELF ({type(exc).__name__}: {exc})") \
            from exc
    return sorted(set(names))


_ENTRY_RE = re.compile(rb"^[ \t]*(?:\.(?:visible|weak|extern)[ \t]+)*\.entry[ \t]+([\w$%.]+)",
                       re.MULTILINE)


def ptx_kernels(ptx: bytes | str) -> list[str]:
    """Kernel names declared in PTX (`.entry` lines). A light scan, not the real parser."""
    data = ptx.encode("utf-8", "replace") if isinstance(ptx, str) else ptx
    return [m.decode("utf-8", "replace") for m in _ENTRY_RE.findall(data)]


def read_container_at(address: int) -> bytes:
    """Copy the container at `address` in this process's memory (the shim hands Python a
    pointer). The pointer must be valid: it comes from a registered fat binary."""
    if not address:
        raise FatbinError("fatbin container pointer is NULL")
    total = container_size(ctypes.string_at(address, CONTAINER_HEADER.size))
    return ctypes.string_at(address, total)


@dataclass(frozen=True)
class WrapperImage:
    """What a `__fatBinC_Wrapper_t` in process memory leads to."""

    version: int  # 1 = per translation unit, 2 = device-linked (-rdc=true)
    container: bytes  # the container its data pointer points to
    relocatable: list[bytes]  # v2 only: the relocatable containers listed by aux


# a v2 wrapper's aux list has one entry per -rdc translation unit; more is corrupt
MAX_RELOCATABLE = 1 << 16


def read_relocatable_at(aux: int) -> list[bytes]:
    """The containers of a v2 wrapper's aux: a NULL-terminated array of pointers to
    relocatable containers (`__cudaPrelinkedFatbins`, filled by cudart's registration
    before main; seen with gdb on nvcc 13 -rdc=true programs)."""
    found: list[bytes] = []
    if not aux:
        return found
    size = ctypes.sizeof(ctypes.c_void_p)
    for i in range(MAX_RELOCATABLE):
        ptr = ctypes.c_void_p.from_address(aux + i * size).value
        if not ptr:
            return found
        found.append(read_container_at(ptr))
    raise FatbinError(f"fatbin wrapper aux list at {aux:#x} has no NULL terminator within "
                      f"{MAX_RELOCATABLE} entries")


def read_wrapper_at(address: int) -> WrapperImage:
    """The `__fatBinC_Wrapper_t` at `address` in this process (what cudart passes to
    cuLibraryLoadData): its version, container and, for v2, the relocatable containers."""
    if not address:
        raise FatbinError("fatbin wrapper pointer is NULL")
    magic, version, data_ptr, aux = _WRAPPER.unpack(ctypes.string_at(address, _WRAPPER.size))
    if magic != WRAPPER_MAGIC:
        raise FatbinError(f"not a fatbin wrapper at {address:#x}: magic {magic:#010x}, "
                          f"expected {WRAPPER_MAGIC:#010x}")
    if version not in (1, 2):
        raise FatbinError(f"fatbin wrapper at {address:#x} has version {version}, "
                          f"expected 1 or 2")
    relocatable = read_relocatable_at(aux) if version == 2 else []
    return WrapperImage(version=version, container=read_container_at(data_ptr),
                        relocatable=relocatable)
