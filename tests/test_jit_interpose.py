"""JIT toolchain interposition (issue 15 point 4) and the LD_AUDIT module (issue 16 point 1):
pyshim's ptxas, the NVRTC wrapper in front of a stand-in NVRTC loaded by absolute path,
redirects reported by `pyshim run --report`, and the cubin arch label."""

from __future__ import annotations

import json
import os
import struct
import subprocess
import sys
from pathlib import Path

import pytest

from pyshim.kernels.loader import cubin_arch, extract_ptx
from pyshim.paths import build_dir

HERE = Path(__file__).parent / "jit"
PTX = ".version 9.0\n.target sm_86\n.address_size 64\n.visible .entry k() { ret; }\n"


@pytest.fixture(scope="module")
def shim() -> Path:
    from pyshim.builders.components import build_all
    from pyshim.builders.jit import build_jit

    build_all()
    build_jit()
    return build_dir()


def pyshim_run(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "pyshim", "run", "--backend", "cpu", *args],
                          capture_output=True, text=True, timeout=300,
                          env={**os.environ, **(env or {})})


def test_ptxas_writes_an_elf_carrying_the_ptx(shim: Path, tmp_path: Path) -> None:
    src = tmp_path / "k.ptx"
    src.write_text(PTX)
    out = tmp_path / "k.cubin"
    proc = subprocess.run([str(shim / "bin" / "ptxas"), "-arch=sm_86", "-O3", "-o", str(out),
                           str(src)], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    data = out.read_bytes()
    assert data[:4] == b"\x7fELF" and struct.unpack_from("<H", data, 18)[0] == 190
    assert cubin_arch(data) == 86
    assert extract_ptx(data) == PTX


def test_ptxas_refuses_what_is_not_ptx(shim: Path, tmp_path: Path) -> None:
    src = tmp_path / "x.ptx"
    src.write_text("int main() {}\n")
    proc = subprocess.run([str(shim / "bin" / "ptxas"), "-o", str(tmp_path / "o"), str(src)],
                          capture_output=True, text=True)
    assert proc.returncode != 0 and "not PTX" in proc.stderr


def test_pyshim_run_puts_its_ptxas_first(shim: Path) -> None:
    out = pyshim_run("sh", "-c", "command -v ptxas")
    assert out.stdout.strip() == str(shim / "bin" / "ptxas")


def test_cubin_arch_of_cuda13_cubins() -> None:
    # e_flags of ptxas 13.0 cubins (EI_OSABI 0x41): the SM in bits 8-15, a flag in the low
    # byte; the old reading of the low byte named sm_110a "sm_2"
    head = bytearray(0x40)
    head[:4] = b"\x7fELF"
    head[7], head[8] = 0x41, 8
    for flags, sm in ((0x6005604, 86), (0x6006E02, 110), (0x6007802, 120)):
        struct.pack_into("<I", head, 0x30, flags)
        assert cubin_arch(bytes(head)) == sm
    head[7], head[8] = 0x33, 7
    struct.pack_into("<I", head, 0x30, 0x500550)
    assert cubin_arch(bytes(head)) == 0x50


@pytest.fixture(scope="module")
def fake_nvrtc(tmp_path_factory: pytest.TempPathFactory) -> Path:
    d = tmp_path_factory.mktemp("wheel") / "nvidia" / "cu13" / "lib"
    d.mkdir(parents=True)
    lib = d / "libnvrtc.so.13"
    subprocess.run(["cc", "-shared", "-fPIC", "-O1", str(HERE / "fake_nvrtc.c"), "-o", str(lib),
                    "-Wl,-soname,libnvrtc.so.13"], check=True)
    return lib


def test_nvrtc_cubin_request_yields_the_ptx(shim: Path, fake_nvrtc: Path,
                                            tmp_path: Path) -> None:
    out = tmp_path / "prog.cubin"
    report = tmp_path / "report.json"
    proc = pyshim_run("--report", str(report), sys.executable, str(HERE / "use_nvrtc.py"),
                      str(fake_nvrtc), str(out))
    assert proc.returncode == 0, proc.stderr
    # the program's dlopen by path got the wrapper, which forwards to the file it chose
    assert "version 42 7" in proc.stdout
    maps = proc.stdout.split("maps", 1)[1].split()
    assert str(shim / "lib" / "jit" / "libnvrtc.so.13") in maps
    assert str(fake_nvrtc) in maps
    # sm_86 was asked; NVRTC compiled compute_86, and the "cubin" carries that PTX
    data = out.read_bytes()
    assert data[:4] == b"\x7fELF" and cubin_arch(data) == 86
    assert ".target compute_86" in extract_ptx(data)
    redirects = json.loads(report.read_text())["redirects"]
    assert {"requested": str(fake_nvrtc), "loaded": str(shim / "lib" / "jit" / "libnvrtc.so.13"),
            "count": 1} in redirects


def test_replaced_library_loaded_by_path_is_pyshims(shim: Path, tmp_path: Path) -> None:
    fake = tmp_path / "libcuda.so.1"
    fake.write_bytes(b"not a library: loading it would fail")
    code = ("import ctypes, sys; lib = ctypes.CDLL(sys.argv[1]); "
            "print(lib.cuInit(0)); "
            "print(sorted({l.split()[-1] for l in open('/proc/self/maps') if 'libcuda' in l}))")
    proc = pyshim_run(sys.executable, "-c", code, str(fake))
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines()[0] == "0"
    assert str(shim / "lib" / "libcuda.so.1") in proc.stdout


CLIENT_PYTHON = Path(os.environ.get("PYSHIM_CLIENTS_PYTHON", "/work/venvs/clients/bin/python"))


@pytest.mark.slow
@pytest.mark.skipif(not CLIENT_PYTHON.exists(), reason="no Python with cuda-bindings "
                    "($PYSHIM_CLIENTS_PYTHON)")
def test_cuda_bindings_runtime_works(shim: Path) -> None:
    # its static cudart asks for TOOLS_CONTEXT (21318c60-...); refused, every runtime call
    # failed with cudaErrorSymbolNotFound
    proc = pyshim_run(str(CLIENT_PYTHON), str(HERE / "cuda_runtime_client.py"))
    assert proc.returncode == 0, proc.stderr
    assert "SymbolNotFound" not in proc.stdout
    assert "count <cudaError_t.cudaSuccess: 0> 1" in proc.stdout
    assert ") 1 1" in proc.stdout  # the memset bytes came back


def client_run(script: str, *args: str, env: dict[str, str] | None = None) -> str:
    proc = pyshim_run(str(CLIENT_PYTHON), str(HERE / script), *args, env=env)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return proc.stdout


clients = pytest.mark.skipif(not CLIENT_PYTHON.exists(), reason="no Python with the real "
                             "clients ($PYSHIM_CLIENTS_PYTHON)")


@pytest.mark.slow
@clients
@pytest.mark.parametrize("target", ["cubin", "ptx"])
def test_cuda_core_program_memory_launch_events_graphs(shim: Path, target: str) -> None:
    assert f"OK {target}" in client_run("cuda_core_client.py", target)


@pytest.mark.slow
@clients
def test_numba_default_lto_kernel_and_linked_ptx(shim: Path) -> None:
    out = client_run("numba_lto_client.py", str(HERE / "triple.ptx"))
    assert "lto kernel ok" in out and "linked ptx ok" in out


@pytest.mark.slow
@clients
def test_numba_max_registers_reaches_num_regs(shim: Path) -> None:
    # nvJitLink's -maxrregcount travels in the link image; the loader writes .maxnreg
    # (NUM_REGS read 175 / 255 for max_registers=38)
    out = client_run("numba_regs_client.py")
    assert "max_registers=38:" in out and "max_registers=24:" in out, out


@pytest.mark.slow
@clients
def test_cupy_kernels_compiled_to_cubins(shim: Path, tmp_path: Path) -> None:
    # a cache of its own: CuPy's default one may hold SASS from runs without pyshim
    out = client_run("cupy_client.py", env={"CUPY_CACHE_DIR": str(tmp_path)})
    assert "cupy elementwise ok" in out


def test_nvrtc_needed_through_runpath_gets_the_wrapper(shim: Path, fake_nvrtc: Path,
                                                       tmp_path: Path) -> None:
    # DT_NEEDED libnvrtc.so.13 found through the program's RUNPATH: the audit module sees
    # the search's candidate file, remembers it and loads the wrapper, which forwards to it
    exe = tmp_path / "needs_nvrtc"
    subprocess.run(["cc", str(HERE / "needs_nvrtc.c"), "-o", str(exe), f"-L{fake_nvrtc.parent}",
                    "-l:libnvrtc.so.13", f"-Wl,-rpath,{fake_nvrtc.parent}",
                    "-Wl,--enable-new-dtags"], check=True)
    proc = pyshim_run(str(exe))
    assert proc.returncode == 0, proc.stderr
    assert "version 42 7" in proc.stdout
    maps = proc.stdout.split("maps", 1)[1].split()
    assert str(shim / "lib" / "jit" / "libnvrtc.so.13") in maps and str(fake_nvrtc) in maps
