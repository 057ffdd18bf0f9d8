"""The GPU targets: the same PTX as HIP source compiled for real AMD archs (wave64 CDNA and
wave32 RDNA, with clang and no vendor headers) and as CUDA source compiled by nvcc; the
emitted ISA is inspected. Skipped where the compiler is absent."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from pyshim.kernels import amd
from pyshim.ptx.translate import translate

SAMPLE = (Path(__file__).parent / "ptx" / "sample.ptx").read_text()


def _without_printf(text: str) -> str:
    a = text.index(".visible .entry fib_kernel")
    b = text.index(".visible .entry", a + 10)
    return text[:a] + text[b:]


PTX = _without_printf(SAMPLE)
needs_clang = pytest.mark.skipif("clang" not in amd.available_compilers(),
                                 reason="needs clang-19 and lld-19")


def _objdump() -> str | None:
    for name in ("llvm-objdump-19", "llvm-objdump-20", "llvm-objdump-18", "llvm-objdump"):
        if shutil.which(name):
            return name
    return None


@needs_clang
@pytest.mark.parametrize("target, arch", [("hip-wave64", "gfx942"), ("hip-wave64", "gfx90a"),
                                          ("hip-wave32", "gfx1100")])
def test_hip_code_object_builds(tmp_path, target, arch):
    co = amd.compile_hip(translate(PTX, f"{target}:{arch}"), arch, use_cache=False)
    assert co[:4] == b"\x7fELF"
    dump = _objdump()
    if dump is None:
        return
    path = tmp_path / "m.co"
    path.write_bytes(co)
    asm = subprocess.run([dump, "-d", f"--mcpu={arch}", str(path)], capture_output=True,
                         text=True, check=True).stdout
    assert "ds_bpermute_b32" in asm      # shuffles are cross-lane permutes
    assert "s_barrier" in asm            # __syncthreads
    for name in ("saxpy", "block_sum", "warp_ops", "matmul"):  # simple kernels: no spills
        body = asm.split(f"<{name}>:")[1].split(">:\n")[0]
        assert "scratch_" not in body, name
    syms = subprocess.run([dump, "-t", str(path)], capture_output=True, text=True).stdout
    for name in ("saxpy", "block_sum", "warp_ops", "matmul", "c_scale", "d_counter"):
        assert name in syms


@needs_clang
def test_loader_builds_and_caches_hip_code_objects(tmp_path, monkeypatch):
    from pyshim.kernels.loader import load_module

    monkeypatch.setenv("PYSHIM_CACHE", str(tmp_path / "cache"))
    first = load_module(PTX.encode(), "hip-wave32:gfx1100")
    assert first.path.suffix == ".co" and not first.cached and "matmul" in first.kernels
    again = load_module(PTX.encode(), "hip-wave32:gfx1100")
    assert again.cached and again.path == first.path


def test_hip_printf_writes_the_printf_buffer():
    src = translate(SAMPLE, "hip-wave64:gfx942")
    assert "ps_printf_record(__pyshim_printf" in src
    assert 'uint8_t __pyshim_printf[PS_PRINTF_BYTES]' in src
    assert "__pyshim_printf[PS_PRINTF_BYTES]" not in translate(PTX, "hip-wave64:gfx942")


@pytest.mark.skipif(shutil.which("nvcc") is None, reason="needs nvcc")
def test_cuda_target_printf_calls_the_device_vprintf(tmp_path):
    """Device printf on the CUDA target: the call goes to CUDA's device vprintf through
    inline PTX (ps_vprintf), not through a C declaration that would clash with glibc's."""
    src = translate(SAMPLE, "cuda")
    assert "ps_vprintf(ctx" in src and "int vprintf" not in src
    (tmp_path / "m.cu").write_text(src)
    subprocess.run(["nvcc", "-ptx", "-arch=sm_75", "-w", str(tmp_path / "m.cu"), "-o",
                    str(tmp_path / "m.ptx")], check=True, capture_output=True)
    ptx = (tmp_path / "m.ptx").read_text()
    assert ".extern .func  (.param .b32 func_retval0) vprintf" in ptx
    assert "call.uni (ps_rv), vprintf, (ps_p0, ps_p1);" in ptx


@pytest.mark.skipif(shutil.which("nvcc") is None, reason="needs nvcc")
def test_cuda_target_compiles_with_nvcc(tmp_path):
    src = tmp_path / "m.cu"
    src.write_text(translate(PTX, "cuda"))
    subprocess.run(["nvcc", "-c", "-arch=sm_75", "-w", str(src), "-o", str(tmp_path / "m.o")],
                   check=True, capture_output=True)


def test_wave_width_is_the_only_difference_between_hip_targets():
    a = translate(PTX, "hip-wave64:gfx942").splitlines()
    b = translate(PTX, "hip-wave32:gfx1100").splitlines()
    diff = [(x, y) for x, y in zip(a, b, strict=True) if x != y]
    assert all("wave" in x or "WAVE" in x for x, _ in diff), diff[:3]
