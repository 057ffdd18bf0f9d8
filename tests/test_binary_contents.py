"""kernels_in_binary: the per-container inventory `pyshim check` builds on."""

from __future__ import annotations

import json

import pytest
import test_binary_nvcc as nv

from pyshim.binary.contents import kernels_in_binary
from pyshim.binary.elf import HostElf
from pyshim.binary.errors import ElfError


def code_report(flavour: str):
    (report,) = [r for r in kernels_in_binary(nv.program(flavour)) if r.wrapper_versions == [1]]
    return report


@pytest.mark.parametrize("flavour,compression", [("default", "zstd"), ("lz4", "lz4"),
                                                 ("plain", None)])
def test_default_builds_have_ptx_for_every_kernel(flavour, compression):
    r = code_report(flavour)
    assert r.error is None and r.section == ".nv_fatbin"
    assert [(p.isa, p.arch, p.compression) for p in r.ptx] == [((9, 0), 75, compression)]
    assert r.ptx_kernels == nv.KERNELS == r.sass_kernels == r.kernels
    assert r.sass_archs == [75] and r.sass_only_kernels == []


def test_sass_only_build_reports_untranslatable_kernels():
    r = code_report("sass_only")
    assert r.ptx == [] and r.sass_archs == [86]
    assert r.sass_only_kernels == nv.KERNELS


def test_multi_arch_inventory():
    r = code_report("multi")
    assert sorted(p.arch for p in r.ptx) == [80, 90]
    assert r.sass_archs == [75, 90]
    assert all(p.kernels == nv.KERNELS for p in r.ptx)


def test_rdc_inventory_and_json():
    reports = kernels_in_binary(nv.program("rdc"))
    by_section = {r.section: r for r in reports}
    assert by_section[".nv_fatbin"].wrapper_versions == [2]
    assert by_section[".nv_fatbin"].ptx == []
    assert by_section["__nv_relfatbin"].ptx_kernels == nv.KERNELS
    decoded = json.loads(json.dumps([r.to_dict() for r in reports]))
    assert decoded[0]["kernels"] == nv.KERNELS


def test_corrupt_container_is_reported_not_raised(tmp_path):
    src = nv.program("default")
    with HostElf(src) as elf:
        (w,) = elf.fatbin_wrappers()
        off = elf.vaddr_to_offset(w.data_address)
    data = bytearray(src.read_bytes())
    # the last entry is the zstd PTX; wreck its compressed bytes near the container's end
    end = off + len(w.container)
    data[end - 120:end - 40] = bytes(80)
    bad = tmp_path / "bad"
    bad.write_bytes(bytes(data))
    r = [r for r in kernels_in_binary(bad) if r.wrapper_versions == [1]][0]
    assert r.error is not None and "zstd" in r.error
    others = [r for r in kernels_in_binary(bad) if r.wrapper_versions == []]
    assert others and all(o.error is None for o in others)


def test_not_an_elf_raises(tmp_path):
    p = tmp_path / "x.txt"
    p.write_text("hello, this is not an executable")
    with pytest.raises(ElfError, match="not an ELF"):
        kernels_in_binary(p)
