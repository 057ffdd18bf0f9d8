"""Fat binary containers from real nvcc builds: entries, compression, the PTX choice."""

from __future__ import annotations

import ctypes
import dataclasses
import struct

import pytest
import test_binary_nvcc as nv

from pyshim.binary import fatbin
from pyshim.binary.elf import HostElf
from pyshim.binary.errors import FatbinError, NoPtxError, UnsupportedPtxVersion


def wrappers(flavour: str):
    with HostElf(nv.program(flavour)) as elf:
        return elf.fatbin_wrappers()


def code_container(flavour: str) -> bytes:
    """The container of the v1 wrapper: the one holding the program's own kernels."""
    (w,) = [w for w in wrappers(flavour) if w.version == 1]
    return w.container


@pytest.mark.parametrize("flavour,compression", [
    ("default", "zstd"), ("lz4", "lz4"), ("size", "zstd"), ("compress_all", "zstd"),
    ("plain", None)])
def test_extracted_ptx_equals_nvcc_ptx(flavour, compression):
    data = code_container(flavour)
    assert fatbin.container_size(data[:16]) == len(data)
    entry = fatbin.choose_ptx(fatbin.entries(data))
    assert (entry.kind, entry.arch, entry.version) == (fatbin.KIND_PTX, 75, (9, 0))
    assert entry.compression == compression
    text = entry.ptx()
    assert not text.endswith("\0")
    assert nv.normalise_ptx(text) == nv.normalise_ptx(nv.ptx("compute_75"))
    assert sorted(fatbin.ptx_kernels(text)) == nv.KERNELS


def test_sass_entries_decompress_to_cubins_naming_the_kernels():
    for flavour in ("default", "compress_all"):
        (cubin,) = [e for e in fatbin.entries(code_container(flavour)) if e.is_elf]
        elf = cubin.data()
        assert elf[:4] == b"\x7fELF" and cubin.arch == 75
        assert fatbin.cubin_kernels(elf) == nv.KERNELS  # not the __noinline__ twice()


def test_sass_only_build_raises_no_ptx_naming_archs_and_kernels():
    data = code_container("sass_only")
    assert fatbin.ptx_entries(data) == []
    with pytest.raises(NoPtxError) as info:
        fatbin.choose_ptx(fatbin.entries(data))
    msg = str(info.value)
    assert "no PTX" in msg and "sm_86" in msg
    for name in nv.KERNELS:
        assert name in msg
    assert info.value.cuda_error == "CUDA_ERROR_NO_BINARY_FOR_GPU"
    assert isinstance(info.value, FatbinError)


def test_multi_arch_prefers_highest_supported_arch():
    items = fatbin.entries(code_container("multi"))
    assert sorted(e.arch for e in items if e.is_ptx) == [80, 90]
    assert sorted(e.arch for e in items if e.is_elf) == [75, 90]
    best = fatbin.choose_ptx(items)
    assert best.arch == 90
    assert nv.normalise_ptx(best.ptx()) == nv.normalise_ptx(nv.ptx("compute_90"))
    assert fatbin.choose_ptx(items, max_arch=89).arch == 80
    assert fatbin.choose_ptx(items, max_arch=70).arch == 80  # all newer: the lowest


def test_choose_ptx_prefers_isa_version_then_arch():
    base = fatbin.ptx_entries(code_container("default"))[0]

    def ptx(index, version, arch):
        return dataclasses.replace(base, index=index, version=version, arch=arch)

    items = [ptx(0, (8, 5), 90), ptx(1, (9, 0), 75), ptx(2, (9, 0), 86), ptx(3, (9, 9), 100),
             ptx(4, (10, 0), 120)]
    assert fatbin.choose_ptx(items).index == 3  # every 9.x; ISA 10 is unknown
    assert fatbin.choose_ptx(items, max_isa=(9, 0)).index == 2
    assert fatbin.choose_ptx(items, max_isa=(8, 8)).index == 0
    with pytest.raises(UnsupportedPtxVersion, match=r"PTX ISA 10\.0, 8\.5, 9\.0, 9\.9 only.*7\.8"):
        fatbin.choose_ptx(items, max_isa=(7, 8))
    with pytest.raises(UnsupportedPtxVersion, match=r"PTX ISA 10\.0 only.*up to 9\.x"):
        fatbin.choose_ptx(items[4:])
    with pytest.raises(NoPtxError, match="no entries"):
        fatbin.choose_ptx([])


def test_rdc_build_has_linked_and_relocatable_containers():
    by_version = {w.version: w for w in wrappers("rdc")}
    assert sorted(by_version) == [1, 2]
    linked = fatbin.entries(by_version[2].container)
    assert [e.kind for e in linked] == [fatbin.KIND_ELF]  # device-linked SASS only
    reloc = fatbin.entries(by_version[1].container)
    (ptx,) = [e for e in reloc if e.is_ptx]
    assert ptx.options == "--compile-only" and ptx.header_size > 64
    assert sorted(fatbin.ptx_kernels(ptx.ptx())) == nv.KERNELS


def test_container_size_and_header_errors():
    data = code_container("default")
    assert fatbin.container_size(data[:16]) == 16 + struct.unpack_from("<Q", data, 8)[0]
    with pytest.raises(FatbinError, match="truncated: 15 of 16"):
        fatbin.container_size(data[:15])
    with pytest.raises(FatbinError, match="magic 0x00000000"):
        fatbin.container_size(bytes(16))
    huge = data[:8] + struct.pack("<Q", 1 << 40)
    with pytest.raises(FatbinError, match="exceeds"):
        fatbin.container_size(huge)


def test_truncated_container_names_sizes():
    data = code_container("default")
    with pytest.raises(FatbinError, match=f"header says {len(data)} bytes, 100 present"):
        fatbin.entries(data[:100])


def test_entry_running_past_the_end_is_refused():
    data = bytearray(code_container("plain"))
    struct.pack_into("<I", data, 16 + 8, 1 << 30)  # first entry's payload size
    with pytest.raises(FatbinError, match=r"entry 0 at \+0x10: .*run past the container"):
        fatbin.entries(bytes(data))


def test_corrupt_compressed_ptx_is_a_fatbin_error():
    data = code_container("default")
    ptx = fatbin.ptx_entries(data)[0]
    broken = dataclasses.replace(ptx, stored=ptx.stored[:-8] + bytes(8))
    with pytest.raises(FatbinError, match=r"entry \d+ \(PTX sm_75 .*zstd"):
        broken.ptx()
    lying = dataclasses.replace(ptx, uncompressed_size=ptx.uncompressed_size + 1)
    with pytest.raises(FatbinError, match="header says"):
        lying.data()


def test_read_from_process_memory():
    data = code_container("lz4")
    buf = ctypes.create_string_buffer(data + b"trailing junk", len(data) + 13)
    addr = ctypes.addressof(buf)
    assert fatbin.read_container_at(addr) == data
    wrapper = ctypes.create_string_buffer(struct.pack("<IIQQ", fatbin.WRAPPER_MAGIC, 1,
                                                      addr, 0))
    image = fatbin.read_wrapper_at(ctypes.addressof(wrapper))
    assert (image.version, image.container, image.relocatable) == (1, data, [])
    bad = ctypes.create_string_buffer(struct.pack("<IIQQ", 0x12345678, 1, addr, 0))
    with pytest.raises(FatbinError, match="not a fatbin wrapper"):
        fatbin.read_wrapper_at(ctypes.addressof(bad))
    with pytest.raises(FatbinError, match="NULL"):
        fatbin.read_container_at(0)


def test_ptx_kernels_scan():
    text = ".version 9.0\n.visible .entry _Z1kv(\n)\n.entry plain()\n// .entry commented\n" \
           ".func notakernel()\n"
    assert fatbin.ptx_kernels(text) == ["_Z1kv", "plain"]


def test_v2_wrapper_in_memory_lists_relocatable_containers():
    # the layout cudart builds for -rdc=true: aux -> NULL-terminated container pointers
    linked = code_container("rdc")  # any container will do for the linked one
    with HostElf(nv.program("rdc")) as elf:
        rel = [c.data for c in elf.embedded_containers() if c.section == "__nv_relfatbin"]
    bufs = [ctypes.create_string_buffer(c, len(c)) for c in [linked, *rel, rel[0]]]
    aux = (ctypes.c_void_p * (len(bufs)))(*[ctypes.addressof(b) for b in bufs[1:]], None)
    wrapper = ctypes.create_string_buffer(struct.pack(
        "<IIQQ", fatbin.WRAPPER_MAGIC, 2, ctypes.addressof(bufs[0]), ctypes.addressof(aux)))
    image = fatbin.read_wrapper_at(ctypes.addressof(wrapper))
    assert image.version == 2 and image.container == linked
    assert image.relocatable == [*rel, rel[0]]
    assert fatbin.read_relocatable_at(0) == []


def test_entries_accept_memoryview_and_bytearray():
    data = code_container("rdc")
    assert fatbin.entries(memoryview(data)) == fatbin.entries(bytearray(data)) == \
        fatbin.entries(data)


def test_ptx_entry_past_the_cap_is_refused_before_decompressing():
    """A compressed PTX entry declaring more than MAX_PTX is refused from its header: the
    stored bytes here are no zstd frame at all, so any attempt to decompress them would fail
    otherwise (issue 19's 2 GiB bomb; tests/test_fuzz_loader.py runs the real one)."""
    def entry(size: int) -> fatbin.Entry:
        return fatbin.Entry(index=0, offset=16, kind=fatbin.KIND_PTX, header_size=64,
                            payload_size=64, compressed_size=64, version=(9, 0), arch=75,
                            flags=fatbin.FLAG_ZSTD | 0x11, uncompressed_size=size, options="",
                            stored=b"\xff" * 64)

    with pytest.raises(FatbinError, match=f"2147483648 bytes exceeds the {fatbin.MAX_PTX}"):
        entry(1 << 31).ptx()
    with pytest.raises(FatbinError, match="bad zstd data"):  # at the cap: decompressed
        entry(fatbin.MAX_PTX).ptx()
