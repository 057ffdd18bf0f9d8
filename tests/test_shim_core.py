"""The shim's libcuda.so.1 core: C test programs in tests/shim/ against the built library,
plus the Python pieces of the build (the proc table, generated C) and of the embedded side."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from pyshim.builders import libcuda
from pyshim.builders.common import BuildError, defined_symbols
from pyshim.builders.components import build_all
from pyshim.builders.libcuda import (
    CORE_DIR,
    HIP_MISSING,
    build_libcuda,
    core_cflags,
    generated_sources,
)
from pyshim.embed import translate
from pyshim.paths import REPO_DIR, build_dir

TESTS = REPO_DIR / "tests" / "shim"


@pytest.fixture(scope="session")
def built() -> Path:
    build_all()
    cpu = build_dir() / "cpu" / "libamdhip64.so.7"
    assert cpu.exists(), "the CPU device was not built"
    return build_dir()


def _compile(tmp: Path, name: str, sources: list[Path], libs: tuple[str, ...] = ()) -> Path:
    exe = tmp / name
    cmd = ["cc", *core_cflags(), *map(str, sources), "-o", str(exe), *libs]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    return exe


def test_integrity_test_vectors(tmp_path: Path) -> None:
    exe = _compile(tmp_path, "test_integrity",
                   [TESTS / "test_integrity.c", CORE_DIR / "integrity.c"])
    out = subprocess.run([str(exe)], capture_output=True, text=True, timeout=30)
    assert out.returncode == 0, out.stdout
    assert "ok hmac(test vector)" in out.stdout
    assert "ok md2(abc)" in out.stdout


def test_driver_core_as_cudart_uses_it(built: Path, tmp_path: Path) -> None:
    exe = _compile(tmp_path, "test_driver_core",
                   [TESTS / "test_driver_core.c", CORE_DIR / "integrity.c"],
                   ("-ldl", "-lpthread"))
    env = dict(os.environ, LD_LIBRARY_PATH=str(built / "cpu"))
    out = subprocess.run([str(exe), str(built / "lib" / "libcuda.so.1")], capture_output=True,
                         text=True, env=env, timeout=60)
    assert out.returncode == 0, out.stdout + out.stderr
    assert "PASS: 0 failure(s)" in out.stdout
    assert out.stdout.count("ok ") >= 50
    # an unknown export table and a function missing from the backend are logged, by name
    assert "unknown table 01020300" in out.stderr
    assert "has no hipGraphicsUnregisterResource" in out.stderr


def test_libcuda_exports_only_the_driver_api(built: Path) -> None:
    out = subprocess.run(["nm", "-D", "--defined-only", str(built / "lib" / "libcuda.so.1")],
                         capture_output=True, text=True, check=True).stdout
    names = [line.split()[-1] for line in out.splitlines()]
    assert "cuGetProcAddress_v2" in names and "cuGetExportTable" in names
    assert [n for n in names if not n.startswith("cu")] == []
    soname = subprocess.run(["readelf", "-d", str(built / "lib" / "libcuda.so.1")],
                            capture_output=True, text=True, check=True).stdout
    assert "[libcuda.so.1]" in soname
    # the backend first, the refusing fallbacks after it
    needed = [line.split("[")[1].rstrip("]") for line in soname.splitlines() if "NEEDED" in line]
    assert needed.index("libamdhip64.so.7") < needed.index(HIP_MISSING)


def test_rebuild_is_skipped_when_nothing_changed(built: Path) -> None:
    _, rebuilt = build_libcuda(built / "lib", built / "driver")
    assert rebuilt is False


def test_proc_table_follows_the_version_rules(tmp_path: Path) -> None:
    import re

    table, _ = generated_sources(tmp_path)
    rows = re.findall(r'^PYSHIM_PROC\("(\w+)", (\d+), (\w+), (\w+)\)$', table.read_text(), re.M)
    got = {(n, int(v), var): s for n, v, var, s in rows}
    assert got[("cuMemAlloc", 3020, "PYSHIM_PROC_DEFAULT")] == "cuMemAlloc_v2"
    assert got[("cuCtxSynchronize", 13000, "PYSHIM_PROC_DEFAULT")] == "cuCtxSynchronize_v2"
    assert got[("cuCtxSynchronize", 2000, "PYSHIM_PROC_DEFAULT")] == "cuCtxSynchronize"
    assert got[("cuLaunchKernel", 7000, "PYSHIM_PROC_PTSZ")] == "cuLaunchKernel_ptsz"
    assert got[("cuStreamGetCaptureInfo", 12030, "PYSHIM_PROC_DEFAULT")] == \
        "cuStreamGetCaptureInfo_v3"
    assert got[("cuStreamGetCaptureInfo", 11030, "PYSHIM_PROC_DEFAULT")] == \
        "cuStreamGetCaptureInfo_v2"


def test_translate_reports_a_missing_translator(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "pyshim.kernels.loader", None)  # import fails
    code, text = translate.translate(b"// PTX", "cpu-wave64")
    assert code == 1
    assert text.startswith("CUDA_ERROR_JIT_COMPILER_NOT_FOUND\t")


def test_translate_carries_the_loaders_cuda_error(monkeypatch: pytest.MonkeyPatch) -> None:
    class NoPtx(Exception):
        cuda_error = "CUDA_ERROR_NO_BINARY_FOR_GPU"

    class Loader:
        @staticmethod
        def load_module(data: bytes, target: str) -> None:
            raise NoPtx(f"kernel _Z3fooPf has only SASS ({len(data)} bytes, {target})")

    monkeypatch.setitem(sys.modules, "pyshim.kernels.loader", Loader)
    code, text = translate.translate(b"abc", "cpu-wave32")
    assert code == 1
    name, message = text.split("\t", 1)
    assert name == "CUDA_ERROR_NO_BINARY_FOR_GPU"
    assert "_Z3fooPf" in message and "cpu-wave32" in message


def test_write_c_string_truncates_and_terminates() -> None:
    import cffi

    ffi = cffi.FFI()
    buf = ffi.new("char[8]", b"\xff" * 8)
    translate.write_c_string(ffi, buf, 8, "/a/long/path")
    assert ffi.string(buf) == b"/a/long"


def test_no_generated_thunk_hands_our_handles_to_hip(built: Path) -> None:
    """CUcontext, CUfunction, CUkernel, CUmodule and CUlibrary are the core's own structs,
    not HIP handles: every generated thunk that forwards one to HIP must be overridden by
    a hand-written definition in shim/core."""
    import re

    stubs = built / "driver" / "gen" / "driver_stubs.c"
    if not stubs.exists():
        pytest.skip("the code generator (pyshim.codegen.driver) made no stubs")
    objs = sorted((built / "driver" / "obj").glob("*.o"))
    strong = defined_symbols(objs)
    offenders = []
    for chunk in stubs.read_text().split("\nPYSHIM_WEAK ")[1:]:
        m = re.match(r"CUresult (\w+)\(([^)]*)\)", chunk)
        if m is None or "pyshim_unsupported" in chunk or m[1] in strong:
            continue
        if re.search(r"\bCU(context|function|kernel|module|library)\b", m[2]):
            offenders.append(m[1])
    assert offenders == []


def test_generated_c_that_does_not_compile_fails_the_build(
        built: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """No fallback hides a broken generator: the build fails and says where (it once built
    libcuda from shim/core alone with a proc table derived from the headers)."""
    broken = tmp_path / "driver_stubs_broken.c"
    broken.write_text("int this_does_not_compile(void) { return }\n")
    real = generated_sources

    def generated(gen_dir: Path) -> tuple[Path, list[Path]]:
        table, _ = real(gen_dir)
        return table, [broken]

    monkeypatch.setattr(libcuda, "generated_sources", generated)
    with pytest.raises(BuildError, match="driver_stubs_broken.c"):
        build_libcuda(tmp_path / "lib", built / "driver")
    assert not (tmp_path / "lib" / "libcuda.so.1").exists()


def test_translate_answers_the_path_then_the_kernels(monkeypatch: pytest.MonkeyPatch) -> None:
    class Loaded:
        path = Path("/cache/ab/module.so")
        kernels = ["_Z3addPf", "_Z3subPf"]

    class Loader:
        @staticmethod
        def load_module(data: bytes, target: str) -> Loaded:
            return Loaded()

    monkeypatch.setitem(sys.modules, "pyshim.kernels.loader", Loader)
    assert translate.translate(b"ptx", "cpu-wave64") == (
        0, "/cache/ab/module.so\tptx=0\tconst=0\n_Z3addPf\n_Z3subPf")
    Loaded.ptx_target = 75  # type: ignore[attr-defined]
    assert translate.translate(b"ptx", "cpu-wave64")[1].startswith("/cache/ab/module.so\tptx=75\tconst=0\n")
