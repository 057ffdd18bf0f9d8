"""The CPU device library's ABI surface: its SONAME, only hip* exports, and every export a
function that ROCm 7.2's real libamdhip64.so.7 exports too."""

from __future__ import annotations

from pathlib import Path

import pytest
from cpu_device.harness import lib_dir
from elftools.elf.dynamic import DynamicSection
from elftools.elf.elffile import ELFFile

from pyshim.tables.rocm_symbols import BY_KEY, cached_library, exported_functions


def _library() -> Path:
    return lib_dir() / "libamdhip64.so.7"


def test_soname_and_link() -> None:
    with _library().open("rb") as f:
        dyn = ELFFile(f).get_section_by_name(".dynamic")
        assert isinstance(dyn, DynamicSection)
        sonames = [t.soname for t in dyn.iter_tags() if t.entry.d_tag == "DT_SONAME"]
    assert sonames == ["libamdhip64.so.7"]
    link = lib_dir() / "libamdhip64.so"
    assert link.is_symlink() and link.resolve() == _library().resolve()


def test_exports_only_hip_functions() -> None:
    names = exported_functions(_library())
    assert len(names) > 150
    assert all(n.startswith("hip") for n in names), sorted(n for n in names
                                                          if not n.startswith("hip"))
    for required in ("hipModuleLaunchKernel", "hipGetDevicePropertiesR0600", "hipMemcpy_spt",
                     "hipStreamSynchronize_spt", "hipLaunchKernel_spt", "hipCtxCreate"):
        assert required in names


def test_every_export_exists_in_rocm_7_2() -> None:
    real = cached_library(BY_KEY["hip"])
    if real is None:
        pytest.skip("ROCm's libamdhip64.so.7 is not cached (python3 -m pyshim.tables.rocm_symbols)")
    extra = exported_functions(_library()) - exported_functions(real)
    assert not extra, f"not in ROCm 7.2's libamdhip64.so.7: {sorted(extra)}"
