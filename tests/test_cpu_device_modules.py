"""The CPU device's modules and launches: loading, kernels, globals, dynamic shared memory,
printf, launch validation, function attributes, occupancy (module.c, launch.c, grid.c)."""

from __future__ import annotations

import re
import struct
from pathlib import Path

import pytest
from cpu_device.harness import lib_dir, module, program, run, values


@pytest.fixture(scope="module")
def kernels() -> str:
    return str(module("kernels"))


def test_load_launch_and_results(kernels: str) -> None:
    r = run("module", kernels, "run")
    assert r.returncode == 0, r.stderr
    v = values(r)
    assert v["functions"] == "8"
    assert v["get_unknown"] == "hipErrorNotFound"
    assert v["saxpy_params"] == v["saxpy_extra"] == v["saxpy_loaddata"] == "1"
    assert v["global_bytes"] == "4"
    assert v["global_unknown"] == "hipErrorNotFound"
    assert v["global_is_device"] == "1"
    # out[i] = g_scale * i + g_table[i % 4], g_scale set to 2.5 from the host
    assert v["global_kernel"] == "1,4.5,24.5"
    assert v["global_other_module"] == "11"      # 1.0 * 9 + 2: its own, untouched copy
    assert v["load_twice"] == "1,2.5,65"         # 7 * 9 + 2 in the second copy only
    assert v["dyn_shared"] == "63,0,127,128"
    assert v["ids"] == "1"
    assert v["info"] == "64,4,1"
    assert v["many_streams"] == "1"
    assert v["global_after_unload"] == "1"
    assert v["unload_twice"] == v["launch_unloaded"] == "hipErrorInvalidHandle"
    assert v["garbage_module"] == "hipErrorInvalidHandle"


@pytest.mark.parametrize("wave,workers", [("32", "2"), ("64", "1")])
def test_launch_reports_wave_and_workers(kernels: str, wave: str, workers: str) -> None:
    r = run("module", kernels, "run", env={"PYSHIM_CPU_WAVE": wave, "PYSHIM_CPU_WORKERS": workers})
    assert r.returncode == 0, r.stderr
    v = values(r)
    assert v["info"] == f"{wave},{workers},1"
    assert v["ids"] == v["saxpy_params"] == v["saxpy_extra"] == "1"
    assert v["dyn_shared"] == "63,0,127,128"


@pytest.mark.parametrize("workers", ["1", "3"])
def test_host_threads_launch_at_once(kernels: str, workers: str) -> None:
    r = run("module", kernels, "threads", env={"PYSHIM_CPU_WORKERS": workers})
    assert r.returncode == 0, r.stderr
    assert values(r)["threads"] == "1"


def test_device_printf(kernels: str) -> None:
    r = run("module", kernels, "run")
    lines = sorted(line for line in r.lines if line.startswith("block "))
    common = ("-5 4000000000 beef BEEF 10 Z str 0x1234|1.500000 1.234568e+04 0.0001 0x1p+0|"
              "-1234567890123 9000000000000000000 4464 44| 3.14|7   |%|    42|sha|(null)")
    assert lines == [f"block 0: {common}", f"block 1: {common}"]
    # a 300-wide field, %lc, and malformed conversions printed as written
    assert [line for line in r.lines if line.startswith("wide")] == [
        "wide " + " " * 298 + "42 A|%q|%"]


def test_launch_validation(kernels: str) -> None:
    r = run("module", kernels, "limits")
    assert r.returncode == 0, r.stderr
    v = values(r)
    for key in ("block_1025", "block_product", "block_zero", "grid_zero", "grid_y_too_big",
                "grid_overflow", "shared_too_big", "bounded_shared", "no_args",
                "both_arg_forms", "extra_too_small", "extra_bad_key", "extra_cuda_end",
                "null_param", "shared_over_set_limit"):
        assert v[key] == "hipErrorInvalidValue", key
    # ROCm reports a block above the kernel's launch bounds as a launch failure
    assert v["bounded_threads"] == v["launch_ex_too_many_threads"] == "hipErrorLaunchFailure"
    assert v["bounded_ok"] == v["launch_ex"] == "hipSuccess"
    # cooperative: every block resident at once, at most the occupancy limit
    assert v["launch_ex_cooperative"] == "hipSuccess"
    assert v["launch_ex_cooperative_too_large"] == "hipErrorCooperativeLaunchTooLarge"
    assert "cooperative launch of bounded with 5 blocks of 128 threads" in r.stderr
    assert v["launch_ex_unknown_attr"] == "hipErrorInvalidValue"
    assert v["null_function"] == "hipErrorInvalidHandle"
    assert "launch of bounded with grid (1,1,1) block (256,1,1) shared 0 refused" in r.stderr
    assert "launch of saxpy: 4 parameters expected, no arguments given" in r.stderr
    assert "a NULL key: CU_LAUNCH_PARAM_END, not HIP_LAUNCH_PARAM_END" in r.stderr
    assert "the 'extra' buffer has 8 bytes, the parameters need 24" in r.stderr
    assert "kernelParams[2] is NULL" in r.stderr


def test_function_attributes_and_occupancy(kernels: str) -> None:
    v = values(run("module", kernels, "limits"))
    assert (v["bounded.max_threads"], v["saxpy.max_threads"]) == ("128", "1024")
    assert (v["bounded.shared"], v["saxpy.shared"]) == ("60000", "0")
    assert (v["bounded.local"], v["bounded.regs"], v["saxpy.regs"]) == ("16", "32", "12")
    assert (v["bounded.max_dyn_shared"], v["saxpy.max_dyn_shared"]) == ("5536", "65536")
    assert v["funcattrs"] == "128,60000,16,32"
    assert v["attr_bad"] == v["set_dyn_too_big"] == "hipErrorInvalidValue"
    assert v["occ.saxpy256"] == "8"             # 2048 threads per CU / 256
    assert v["occ.saxpy100"] == "16"            # 100 rounds up to 2 wave64s
    assert v["occ.saxpy64_shared16k"] == "4"    # 64 KiB of LDS / 16 KiB
    assert v["occ.bounded"] == "1"
    assert v["potential.saxpy"] == "8,1024"     # 2 blocks x 4 workers
    assert v["potential.bounded"] == "4,128"
    assert v["potential.saxpy_limit200"] == "128"
    assert v["occ.runtime_api"] == "8"
    assert v["occ.avail_dyn_smem"] == "1024"    # capped by the attribute set to 1024 above
    assert v["occ.not_a_function"] == "hipErrorInvalidDeviceFunction"
    assert v["unload_twice_get"] == "hipErrorInvalidHandle"


def test_trap_fails_the_launch_sticky_until_reset(kernels: str) -> None:
    r = run("module", kernels, "trap")
    assert r.returncode == 0, r.stderr
    v = values(r)
    assert v["launch"] == "hipSuccess"           # asynchronous: reported at synchronisation
    assert v["sync"] == v["sync_again"] == "hipErrorLaunchFailure"
    assert v["after_reset"] == "hipSuccess"
    assert "kernel trap: block (1,0,0) trapped with code 7" in r.stderr


def test_failed_device_assert_is_hip_error_assert_sticky_until_reset(kernels: str) -> None:
    """A block returning the assert trap code (what the translator's __assertfail does after
    printing CUDA's message) fails the launch with hipErrorAssert, which cudart reports as
    cudaErrorAssert, not as a generic launch failure."""
    r = run("module", kernels, "assert")
    assert r.returncode == 0, r.stderr
    v = values(r)
    assert v["launch"] == "hipSuccess"
    assert v["sync"] == v["sync_again"] == "hipErrorAssert"
    assert v["after_reset"] == "hipSuccess"
    assert v["one_block_launch"] == "hipSuccess"
    assert v["one_block_sync"] == "hipErrorAssert"
    assert "block: [2,0,0], thread: [0,0,0] Assertion `ok` failed." in r.stderr
    assert "kernel assert_fail: block (2,0,0) trapped with code 710" in r.stderr


def _kabi_version() -> int:
    """The ABI this runtime checks for, read from the one header that defines it."""
    header = Path(__file__).resolve().parents[1] / "shim/include/pyshim_kernel_abi.h"
    m = re.search(r"#define PYSHIM_KABI_VERSION (\d+)u", header.read_text())
    assert m, header
    return int(m.group(1))


def _bad_images(tmp: Path) -> dict[str, Path]:
    tmp.mkdir(parents=True, exist_ok=True)
    text = tmp / "text.txt"
    text.write_text("this is not an ELF file at all, just some words\n" * 4)
    amdgpu = tmp / "amdgpu.co"
    ident = b"\x7fELF" + bytes([2, 1, 1]) + bytes(9)
    header = ident + struct.pack("<HHIQQQIHHHHHH", 3, 224, 1, 0, 0, 0, 0, 64, 56, 0, 64, 0, 0)
    amdgpu.write_bytes(header + bytes(256))
    fatbin = tmp / "kernels.fatbin"
    fatbin.write_bytes(struct.pack("<IHHQ", 0xBA55ED50, 1, 16, 0) + bytes(64))
    return {
        "fatbin": fatbin,
        "text": text,
        "amdgpu": amdgpu,
        "bad_abi": module("kernels", "_abi99", ("TEST_ABI_VERSION=99",)),
        "no_descriptor": lib_dir() / "libamdhip64.so.7",
        "executable": program("module"),
    }


@pytest.mark.parametrize("kind,reason", [
    ("text", "not an ELF file"),
    ("fatbin", "a CUDA fat binary: its PTX must be translated for the CPU device first"),
    ("amdgpu", "an AMD GPU code object, not a CPU device module"),
    ("bad_abi", f"module ABI version 99, this runtime needs {_kabi_version()}"),
    ("no_descriptor", "no 'pyshim_module' symbol"),
    ("executable", "cannot load"),
])
def test_bad_images_are_rejected(kernels: str, kind: str, reason: str, tmp_path: Path) -> None:
    path = _bad_images(tmp_path)[kind]   # private files: tests may run in parallel
    r = run("module", kernels, "image", str(path))
    assert r.returncode == 0, r.stderr
    v = values(r)
    assert v["load_data"] == "hipErrorInvalidImage"
    assert v["load_file"] == "hipErrorInvalidImage"
    assert r.stderr.count(reason) == 2, r.stderr


def test_missing_file(kernels: str, tmp_path: Path) -> None:
    r = run("module", kernels, "image", str(tmp_path / "does-not-exist.so"))
    v = values(r)
    assert v["load_file"] == "hipErrorFileNotFound"
    assert "does-not-exist.so" in r.stderr


@pytest.mark.parametrize("keep", [0.3, 0.6, 0.9])
def test_truncated_module_file_is_invalid_image_not_sigbus(kernels: str, keep: float,
                                                            tmp_path: Path) -> None:
    """A cache entry cut short (a full disk, a killed writer) handed straight to
    hipModuleLoad: dlopen mapped segments past the file's end and the process died of
    SIGBUS. The file is now checked against the size its ELF headers describe."""
    data = Path(kernels).read_bytes()
    cut = tmp_path / "cut.so"
    cut.write_bytes(data[:int(len(data) * keep)])
    r = run("module", kernels, "file", str(cut))
    assert r.returncode == 0, (r.returncode, r.stderr)
    assert values(r)["load_file"] == "hipErrorInvalidImage"
    assert "truncated" in r.stderr and "cut.so" in r.stderr, r.stderr
