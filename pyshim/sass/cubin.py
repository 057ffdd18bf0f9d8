"""What a cubin says about its kernels besides the code: read from the ELF itself.

`.nv.info.<kernel>` holds attribute records (format byte, attribute byte, then a value):
the launch parameters' ordinals, offsets and sizes, the bank offset they sit at in
constant bank 0 (0x160 on sm_75..sm_89, 0x210 on sm_90), REQNTID / MAX_THREADS, exit
offsets. The module-wide `.nv.info` gives each function's frame and stack sizes and its
register count.
`.nv.shared.<kernel>` is the kernel's static shared memory (NOBITS: a size),
`.nv.constantN[.<kernel>]` the constant banks, `.nv.global[.init]` the globals.
"""

from __future__ import annotations

import io
import struct
from dataclasses import dataclass, field

from pyshim.sass.errors import LiftError

# .nv.info attribute numbers (EIATTR_*), as the CUDA toolchain numbers them
EIATTR_MAX_THREADS = 0x05
EIATTR_PARAM_CBANK = 0x0A
EIATTR_REQNTID = 0x10
EIATTR_FRAME_SIZE = 0x11
EIATTR_MIN_STACK_SIZE = 0x12
EIATTR_KPARAM_INFO = 0x17
EIATTR_CBANK_PARAM_SIZE = 0x19
EIATTR_EXIT_INSTR_OFFSETS = 0x1C
EIATTR_MAX_STACK_SIZE = 0x23
EIATTR_REGCOUNT = 0x2F

_SYM = struct.Struct("<IBBHQQ")
_REL = struct.Struct("<QQ")
_RELA = struct.Struct("<QQq")
STT_OBJECT, STT_FUNC = 1, 2
STO_CUDA_ENTRY = 0x10


@dataclass
class Param:
    ordinal: int
    offset: int
    size: int


@dataclass
class Symbol:
    name: str
    kind: int          # STT_*
    section: str       # name of the section it lies in ("" if none)
    value: int
    size: int
    entry: bool


@dataclass
class Kernel:
    name: str
    text: str                      # its code section
    params: list[Param] = field(default_factory=list)
    param_base: int = 0x160        # where the parameters start in constant bank 0
    param_bytes: int = 0
    num_regs: int = 0              # the registers ptxas allotted: what the driver reports
    shared_bytes: int = 0
    frame_bytes: int = 0
    stack_bytes: int = 0
    reqntid: tuple[int, ...] = ()
    max_threads: tuple[int, ...] = ()


@dataclass
class Cubin:
    arch: int
    kernels: dict[str, Kernel]
    symbols: list[Symbol]
    sections: dict[str, bytes]          # PROGBITS contents; NOBITS as zero bytes
    section_sizes: dict[str, int]
    relocations: dict[str, list[tuple[int, str, int]]]  # section -> (offset, symbol, type)

    def objects_in(self, section: str) -> list[Symbol]:
        return sorted((s for s in self.symbols if s.section == section and s.kind == STT_OBJECT),
                      key=lambda s: s.value)


def _attrs(data: bytes) -> list[tuple[int, bytes]]:
    out, p = [], 0
    while p + 2 <= len(data):
        fmt, attr = data[p], data[p + 1]
        if fmt == 4:  # EIFMT_SVAL: a u16 size, then that many bytes
            if p + 4 > len(data):
                break
            n = struct.unpack_from("<H", data, p + 2)[0]
            out.append((attr, data[p + 4:p + 4 + n]))
            p += 4 + n
        elif fmt == 3:  # EIFMT_HVAL
            out.append((attr, data[p + 2:p + 4]))
            p += 4
        elif fmt == 2:  # EIFMT_BVAL
            out.append((attr, data[p + 2:p + 3]))
            p += 4
        else:  # EIFMT_NVAL: no value
            out.append((attr, b""))
            p += 4
    return out


def arch_of(elf: bytes) -> int:
    flags = struct.unpack_from("<I", elf, 0x30)[0]
    return (flags >> 8) & 0xFF if elf[7] == 0x41 or elf[8] >= 8 else flags & 0xFF


def read(elf: bytes) -> Cubin:
    """The cubin's kernels, symbols, sections and relocations (LiftError if malformed)."""
    from elftools.elf.elffile import ELFFile

    from pyshim.binary.errors import FatbinError
    from pyshim.binary.fatbin import _check_elf_bounds

    try:
        _check_elf_bounds(elf)
        f = ELFFile(io.BytesIO(elf))
        secs = list(f.iter_sections())
    except FatbinError as exc:
        raise LiftError(f"malformed cubin: {exc}") from None
    except Exception as exc:  # noqa: BLE001 - pyelftools raises many kinds
        raise LiftError(f"malformed cubin ({type(exc).__name__}: {exc})") from None
    names = [s.name for s in secs]
    contents: dict[str, bytes] = {}
    sizes: dict[str, int] = {}
    infos: dict[str, int] = {}
    for s in secs:
        sizes[s.name] = s["sh_size"]
        infos[s.name] = s["sh_info"]
        if s["sh_type"] == "SHT_NOBITS":
            contents[s.name] = bytes(min(s["sh_size"], 1 << 24))
        elif s["sh_type"] not in ("SHT_NULL",):
            off, size = s["sh_offset"], s["sh_size"]
            if off + size > len(elf):
                raise LiftError(f"malformed cubin: section {s.name} lies outside the image")
            contents[s.name] = elf[off:off + size]
    symbols: list[Symbol] = []
    symtab = next((s for s in secs if s["sh_type"] == "SHT_SYMTAB"), None)
    if symtab is not None:
        strtab = secs[symtab["sh_link"]]
        data = contents[symtab.name]
        for pos in range(0, len(data) - _SYM.size + 1, _SYM.size):
            st_name, info, other, shndx, value, size = _SYM.unpack_from(data, pos)
            sec = names[shndx] if 0 < shndx < len(names) else ""
            symbols.append(Symbol(strtab.get_string(st_name), info & 0xF, sec, value, size,
                                  bool(other & STO_CUDA_ENTRY)))
    relocs: dict[str, list[tuple[int, str, int]]] = {}
    for s in secs:
        if s["sh_type"] in ("SHT_REL", "SHT_RELA") and s["sh_info"] < len(names):
            st = _RELA if s["sh_type"] == "SHT_RELA" else _REL
            data = contents[s.name]
            rows = []
            for pos in range(0, len(data) - st.size + 1, st.size):
                off, info = st.unpack_from(data, pos)[:2]
                sym = info >> 32
                rows.append((off, symbols[sym].name if sym < len(symbols) else "", info & 0xFFFFFFFF))
            relocs.setdefault(names[s["sh_info"]], []).extend(rows)
    by_index = {i: sym for i, sym in enumerate(symbols)}
    frame: dict[str, int] = {}
    stack: dict[str, int] = {}
    regcount: dict[str, int] = {}
    if ".nv.info" in contents:
        for attr, v in _attrs(contents[".nv.info"]):
            if attr in (EIATTR_FRAME_SIZE, EIATTR_MIN_STACK_SIZE, EIATTR_MAX_STACK_SIZE) \
                    and len(v) >= 8:
                idx, n = struct.unpack_from("<II", v)
                name = by_index[idx].name if idx in by_index else ""
                table = frame if attr == EIATTR_FRAME_SIZE else stack
                table[name] = max(table.get(name, 0), n)
            elif attr == EIATTR_REGCOUNT and len(v) >= 8:
                idx, n = struct.unpack_from("<II", v)
                if idx in by_index:
                    regcount[by_index[idx].name] = n
    kernels: dict[str, Kernel] = {}
    for sym in symbols:
        if not (sym.kind == STT_FUNC and sym.entry):
            continue
        k = Kernel(sym.name, f".text.{sym.name}")
        k.shared_bytes = sizes.get(f".nv.shared.{sym.name}", 0)
        # ptxas -v's "Used N registers": EIATTR_REGCOUNT in the module's .nv.info; sm_75..89
        # also keep it in the high 8 bits of the code section's sh_info (sm_90 does not)
        k.num_regs = regcount.get(sym.name, infos.get(k.text, 0) >> 24)
        k.frame_bytes = frame.get(sym.name, 0)
        k.stack_bytes = stack.get(sym.name, 0)
        for attr, v in _attrs(contents.get(f".nv.info.{sym.name}", b"")):
            if attr == EIATTR_KPARAM_INFO and len(v) >= 12:
                _index, ordinal, offset, flags = struct.unpack_from("<IHHI", v)
                k.params.append(Param(ordinal, offset, (flags >> 18) & 0x3FFF))
            elif attr == EIATTR_PARAM_CBANK and len(v) >= 8:
                k.param_base, k.param_bytes = struct.unpack_from("<HH", v, 4)
            elif attr == EIATTR_CBANK_PARAM_SIZE and len(v) >= 2:
                k.param_bytes = struct.unpack_from("<H", v)[0]
            elif attr == EIATTR_REQNTID:
                k.reqntid = struct.unpack(f"<{len(v) // 4}I", v[:len(v) // 4 * 4])
            elif attr == EIATTR_MAX_THREADS:
                k.max_threads = struct.unpack(f"<{len(v) // 4}I", v[:len(v) // 4 * 4])
        k.params.sort(key=lambda p: p.ordinal)
        kernels[sym.name] = k
    return Cubin(arch_of(elf), kernels, symbols, contents, sizes, relocs)
