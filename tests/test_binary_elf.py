"""Host ELF reading on real nvcc executables: sections, wrappers, dependencies, symbols."""

from __future__ import annotations

import os
import resource
import shutil
import struct
import subprocess

import pytest
import test_binary_nvcc as nv

from pyshim.binary import fatbin
from pyshim.binary.elf import HostElf
from pyshim.binary.errors import BinaryError, ElfError, FatbinError


def readelf_sections(path) -> dict[str, tuple[int, int]]:
    """name -> (address, size) as binutils' readelf reports them (an independent reader)."""
    out = subprocess.run(["readelf", "-S", "-W", str(path)], capture_output=True, text=True,
                         check=True).stdout
    found = {}
    for line in out.splitlines():
        parts = line.replace("[ ", "[").split()
        if len(parts) > 6 and parts[0].startswith("[") and parts[1].startswith((".", "__")):
            found[parts[1]] = (int(parts[3], 16), int(parts[5], 16))
    return found


@pytest.mark.skipif(shutil.which("readelf") is None, reason="binutils readelf not installed")
def test_sections_agree_with_readelf():
    path = nv.program("rdc")
    with HostElf(path) as elf:
        ours = {s.name: (s.address, s.size) for s in elf.sections() if s.name}
    theirs = readelf_sections(path)
    for name in (".nv_fatbin", ".nvFatBinSegment", "__nv_relfatbin", ".text", ".dynsym"):
        assert ours[name] == theirs[name], name


def test_default_build_wrapper_points_into_nv_fatbin():
    with HostElf(nv.program("default")) as elf:
        (w,) = elf.fatbin_wrappers()
        sec = elf.section(".nv_fatbin")
        assert w.version == 1 and w.aux_address == 0
        assert sec.address <= w.data_address < sec.address + sec.size
        assert w.container[:4] == struct.pack("<I", fatbin.CONTAINER_MAGIC)
        # the walk finds the wrapper's container plus nvcc's unreferenced link stub
        found = elf.embedded_containers()
        assert [c.address for c in found if c.address == w.data_address] == [w.data_address]
        assert [c.data for c in found if c.address == w.data_address] == [w.container]
        assert len(found) == 2


def test_rdc_wrappers_and_relfatbin():
    with HostElf(nv.program("rdc")) as elf:
        ws = {w.version: w for w in elf.fatbin_wrappers()}
        rel = elf.section("__nv_relfatbin")
        assert rel.address <= ws[1].data_address < rel.address + rel.size
        assert ws[2].aux_address != 0  # filled at run time; statically it is in .bss
        sections = {c.section for c in elf.embedded_containers()}
        assert sections == {".nv_fatbin", "__nv_relfatbin"}


def test_zeroed_pointer_falls_back_to_its_relative_relocation(tmp_path):
    src = nv.program("default")
    with HostElf(src) as elf:
        (w,) = elf.fatbin_wrappers()
        seg_off = elf.vaddr_to_offset(w.address, 24)
    patched = tmp_path / "patched"
    data = bytearray(src.read_bytes())
    struct.pack_into("<Q", data, seg_off + 8, 0)
    patched.write_bytes(bytes(data))
    with HostElf(patched) as elf:
        (w2,) = elf.fatbin_wrappers()
    assert (w2.data_address, w2.container) == (w.data_address, w.container)


def test_dynamic_dependencies_and_versioned_imports():
    with HostElf(nv.program("shared")) as elf:
        needed = elf.needed()
        assert "libcudart.so.13" in needed and "libc.so.6" in needed
        assert elf.runpath() + elf.rpath() == ["/opt/pyshim-test/lib"]
        imported = {s.name: s for s in elf.imported_symbols()}
    for name in ("cudaMalloc", "cudaDeviceSynchronize", "__cudaRegisterFatBinary",
                 "__cudaLaunchKernel"):
        assert imported[name].version == "libcudart.so.13", name
        assert not imported[name].defined and imported[name].type == "STT_FUNC"
    assert imported["puts"].version.startswith("GLIBC_")
    with HostElf(nv.program("default")) as elf:  # static cudart: nothing of CUDA imported
        assert "libcudart.so.13" not in elf.needed()
        assert not [s for s in elf.imported_symbols() if s.name.startswith("cuda")]


def test_defined_symbols_of_a_shared_library():
    libc = "/lib/x86_64-linux-gnu/libc.so.6"
    if not os.path.exists(libc):
        pytest.skip("no glibc at the Debian path")
    with HostElf(libc) as elf:
        defined = {s.name: s for s in elf.defined_symbols()}
        assert elf.fatbin_wrappers() == [] and elf.embedded_containers() == []
    assert defined["malloc"].version and defined["malloc"].version.startswith("GLIBC_")


@pytest.mark.parametrize("content,match", [
    (b"", "not an ELF file"), (b"#!/bin/sh\necho hello world\n", "not an ELF file"),
    (b"\x7fELF" + bytes(12), "malformed ELF")])
def test_not_an_elf(tmp_path, content, match):
    path = tmp_path / "thing"
    path.write_bytes(content)
    with pytest.raises(ElfError, match=match) as info:
        with HostElf(path) as elf:
            elf.sections()
    assert str(path) in str(info.value)


def test_missing_file():
    with pytest.raises(ElfError, match="cannot open"):
        HostElf("/nonexistent/prog")


def test_truncated_executable_is_an_error_not_a_crash(tmp_path):
    data = nv.program("default").read_bytes()
    for cut in (64, 4096, len(data) // 2, len(data) - 100):
        path = tmp_path / f"cut{cut}"
        path.write_bytes(data[:cut])
        try:
            with HostElf(path) as elf:
                elf.sections()
                elf.fatbin_wrappers()
                elf.dynamic_symbols()
        except BinaryError as exc:
            assert str(path) in str(exc) or isinstance(exc, FatbinError)


def test_huge_sparse_file_is_not_read_whole(tmp_path):
    # 8 GiB of holes after a real executable: offsets inside it are unchanged, so it stays
    # a valid ELF; reading it whole would take seconds and gigabytes
    path = tmp_path / "huge"
    shutil.copy(nv.program("default"), path)
    with open(path, "r+b") as f:
        f.truncate(8 << 30)
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    with HostElf(path) as elf:
        (w,) = elf.fatbin_wrappers()
        assert fatbin.choose_ptx(fatbin.entries(w.container)).is_ptx
    grown_kib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before
    assert grown_kib < 200_000


def test_bad_wrapper_magic_and_version_are_named(tmp_path):
    src = nv.program("default")
    with HostElf(src) as elf:
        (w,) = elf.fatbin_wrappers()
        off = elf.vaddr_to_offset(w.address, 24)
    for field, value, match in ((0, 0x12345678, "magic 0x12345678"), (4, 7, "version 7")):
        data = bytearray(src.read_bytes())
        struct.pack_into("<I", data, off + field, value)
        path = tmp_path / f"bad{field}"
        path.write_bytes(bytes(data))
        with pytest.raises(FatbinError, match=f"wrapper at {w.address:#x} has {match}"):
            with HostElf(path) as elf:
                elf.fatbin_wrappers()
