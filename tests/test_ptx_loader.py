"""pyshim.kernels.loader.load_module: every image kind, the cache, and the error mapping."""

from __future__ import annotations

import logging
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest
from ptx.harness import Module

from pyshim.kernels.loader import (
    InvalidImage,
    InvalidPtx,
    NoKernelImage,
    UnsupportedTarget,
    load_module,
)

HERE = Path(__file__).parent / "ptx"
SAMPLE = (HERE / "sample.ptx").read_bytes()
needs_nvcc = pytest.mark.skipif(shutil.which("nvcc") is None, reason="needs nvcc")


@pytest.fixture(autouse=True)
def private_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("PYSHIM_CACHE", str(tmp_path / "cache"))


def _nvcc(tmp: Path, *args: str) -> bytes:
    out = tmp / "out.bin"
    subprocess.run(["nvcc", *args, str(HERE / "kernels.cu"), "-o", str(out)], check=True,
                   capture_output=True)
    return out.read_bytes()


def test_ptx_text_translates_then_hits_the_cache(caplog):
    caplog.set_level(logging.INFO, logger="pyshim")
    first = load_module(SAMPLE, "cpu-wave64")
    assert not first.cached and first.path.exists()
    assert "saxpy" in first.kernels and "block_sum" in first.kernels
    assert "c_scale" in first.globals
    second = load_module(SAMPLE, "cpu-wave64")
    assert second.cached and second.path == first.path and second.kernels == first.kernels
    assert second.seconds < 0.5
    assert any("loaded from cache" in r.message for r in caplog.records)
    assert any("translated" in r.message for r in caplog.records)
    # the other wave mode is another cache entry
    other = load_module(SAMPLE, "cpu-wave32")
    assert not other.cached and other.path != first.path
    # and the module runs
    m = Module(first.path)
    x = np.arange(8, dtype=np.float32)
    y = np.ones(8, np.float32)
    m.launch("saxpy", (1,), (8,), [8, 2.0, x, y])
    np.testing.assert_array_equal(y, 2 * x + 1)


@needs_nvcc
def test_fatbin_container(tmp_path):
    data = _nvcc(tmp_path, "-fatbin", "-gencode", "arch=compute_75,code=[compute_75,sm_75]")
    mod = load_module(data, "cpu-wave32")
    assert "matmul" in mod.kernels


@needs_nvcc
def test_every_ptx_isa_9_loads(tmp_path):
    """CuPy's CUB fat binary holds PTX ISA 9.2 only (CUDA 13.2's CCCL): a 9.x newer than the
    toolkit's translates like any other; only instructions the translator lacks refuse."""
    data = bytearray(_nvcc(tmp_path, "-fatbin", "-gencode", "arch=compute_75,code=compute_75"))
    from pyshim.binary import fatbin

    (entry,) = fatbin.entries(bytes(data))
    struct_at = entry.offset + 0x18  # the entry's ISA version: minor, major (u16 each)
    data[struct_at:struct_at + 4] = (2).to_bytes(2, "little") + (9).to_bytes(2, "little")
    assert fatbin.entries(bytes(data))[0].version == (9, 2)
    assert "matmul" in load_module(bytes(data), "cpu-wave64").kernels
    text = SAMPLE.replace(b".version ", b".version 9.2 //", 1)
    assert "saxpy" in load_module(text, "cpu-wave64").kernels


@needs_nvcc
def test_host_object_with_compressed_ptx(tmp_path):
    data = _nvcc(tmp_path, "-c")  # a host object: its .nv_fatbin holds zstd-compressed PTX
    mod = load_module(data, "cpu-wave64")
    assert "histogram" in mod.kernels


@needs_nvcc
def test_sass_only_fatbin_is_no_kernel_image(tmp_path):
    data = _nvcc(tmp_path, "-fatbin", "-gencode", "arch=compute_120,code=sm_120")
    with pytest.raises(NoKernelImage) as info:
        load_module(data, "cpu-wave64")
    assert info.value.cuda_error == "CUDA_ERROR_NO_BINARY_FOR_GPU"
    assert "sm_120" in str(info.value) and "saxpy" in str(info.value)


@needs_nvcc
def test_cubin_is_no_kernel_image(tmp_path):
    data = _nvcc(tmp_path, "-cubin", "-arch=sm_120")
    with pytest.raises(NoKernelImage, match="saxpy"):
        load_module(data, "cpu-wave64")


@pytest.mark.parametrize("data", [b"", b"\x00" * 64, b"garbage that is not ptx",
                                  b"\x50\xed\x55\xba" + b"\x01\x00\x10\x00" + b"\xff" * 8])
def test_invalid_images(data):
    with pytest.raises(InvalidImage) as info:
        load_module(data, "cpu-wave64")
    assert info.value.cuda_error == "CUDA_ERROR_INVALID_IMAGE"


def test_invalid_ptx_has_line_and_column():
    bad = SAMPLE.replace(b"ld.param.u64", b"ld.param.u64 ,", 1)
    with pytest.raises(InvalidPtx) as info:
        load_module(bad, "cpu-wave64")
    assert info.value.cuda_error == "CUDA_ERROR_INVALID_PTX"
    assert info.value.line > 0 and info.value.col > 0


def test_unknown_target():
    with pytest.raises(UnsupportedTarget):
        load_module(SAMPLE, "sparc-wave7")
    with pytest.raises(UnsupportedTarget, match="hip-wave64"):
        load_module(SAMPLE, "hip-wave64")  # an AMD target needs its gfx arch


def test_managed_variables_are_listed():
    ptx = (b".version 8.0\n.target sm_80\n.address_size 64\n"
           b".global .attribute(.managed) .align 4 .u32 counter;\n"
           b".global .align 4 .u32 plain;\n.visible .entry k() { ret; }\n")
    first = load_module(ptx, "cpu-wave64")
    again = load_module(ptx, "cpu-wave64")
    assert again.cached
    for m in (first, again):
        assert m.globals == ["counter", "plain"] and m.managed == ["counter"]


def test_cache_miss_parses_the_ptx_once(monkeypatch):
    """The facts kept beside the kernel object (kernel names, parameters, globals) come from
    the translation's own parse, not a second one (a 480-kernel module's parse is ~40% of
    its translation)."""
    import pyshim.ptx.frontend.parser as parser
    import pyshim.ptx.translate as translate

    calls = []
    real = parser.parse

    def counting(text, *args, **kwargs):
        calls.append(len(text))
        return real(text, *args, **kwargs)

    monkeypatch.setattr(parser, "parse", counting)
    monkeypatch.setattr(translate, "parse", counting)
    mod = load_module(SAMPLE, "cpu-wave64")
    assert not mod.cached and "saxpy" in mod.kernels and "c_scale" in mod.globals
    assert len(calls) == 1
    assert mod.stats["parse_seconds"] > 0 and mod.stats["seconds"] >= mod.stats["parse_seconds"]
