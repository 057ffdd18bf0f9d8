"""The kernel example programs (examples/k_*.cu): each builds with nvcc (default static
cudart), carries PTX for every kernel it has as SASS, and reports its outcome the way
every example must: a last line "PASS <name>" and exit 0, or "FAIL <name>" on stderr and a
non-zero exit (which is what happens on a machine without a GPU or without the shim)."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest
import test_binary_nvcc as nv

from pyshim import paths
from pyshim.binary import fatbin
from pyshim.binary.contents import kernels_in_binary
from pyshim.binary.elf import HostElf

EXAMPLES = sorted((paths.REPO_DIR / "examples").glob("k_*.cu"))


def build(src: Path) -> Path:
    # the same command as `make examples` uses for the static-cudart flavour
    return nv._cached_build(src.stem, [], src.read_text(), src_path=src)


def test_there_are_kernel_examples():
    assert len(EXAMPLES) >= 8


@pytest.mark.parametrize("src", EXAMPLES, ids=lambda p: p.stem)
def test_example_builds_with_ptx_for_every_kernel(src):
    exe = build(src)
    reports = [r for r in kernels_in_binary(exe) if r.wrapper_versions]
    assert reports and all(r.error is None for r in reports)
    ptx_kernels = {k for r in reports for k in r.ptx_kernels}
    sass_kernels = {k for r in reports for k in r.sass_kernels}
    assert ptx_kernels, f"{src.name}: no kernels found"
    assert sass_kernels <= ptx_kernels, f"SASS-only kernels: {sass_kernels - ptx_kernels}"
    with HostElf(exe) as elf:
        for w in elf.fatbin_wrappers():
            chosen = fatbin.choose_ptx(fatbin.entries(w.container))
            text = chosen.ptx()
            assert text.startswith(".version") or "\n.version" in text[:200]
            assert set(fatbin.ptx_kernels(text)) == ptx_kernels


@pytest.mark.parametrize("src", EXAMPLES, ids=lambda p: p.stem)
def test_example_reports_pass_or_fail_by_name(src):
    name = src.stem
    res = subprocess.run([str(build(src))], capture_output=True, text=True, timeout=60)
    if res.returncode == 0:
        assert res.stdout.rstrip().splitlines()[-1] == f"PASS {name}"
    else:
        assert re.search(rf"^FAIL {name}: .+", res.stderr, re.MULTILINE), res.stderr
        assert "PASS" not in res.stdout
