"""Real nvcc-built programs that #include <cublas_v2.h> / <cusolverDn.h> (the real
headers) and link -lcublas / -lcusolver against pyshim's libraries, run on the CPU device
with pyshim's libcuda; their printed results are checked against numpy/scipy."""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import scipy.linalg as sla
from elftools.elf.elffile import ELFFile

from pyshim.paths import build_dir
from pyshim.tables.fetch import include_dir

sys.path.insert(0, str(Path(__file__).parent / "shim_blas"))
import env  # noqa: E402

HERE = Path(__file__).parent / "shim_blas"
pytestmark = pytest.mark.skipif(shutil.which("nvcc") is None, reason="nvcc is not installed")


@pytest.fixture(scope="module")
def libs() -> tuple[Path, Path, Path]:
    from pyshim.builders.components import build_all

    lib, cpu = env.build()
    build_all(components=("cpu", "libcuda"))
    return lib, cpu, build_dir() / "lib"


def compile_prog(libs, name: str, soname: str) -> Path:
    """nvcc-built once per source (the program links our libraries by soname only)."""
    lib, cpu, _ = libs
    src = HERE / f"{name}.cu"
    key = hashlib.sha256(src.read_bytes() + soname.encode()).hexdigest()[:16]
    exe = lib.parent / "progs" / f"{name}-{soname}-{key}"
    if exe.is_file():
        return exe
    exe.parent.mkdir(parents=True, exist_ok=True)
    inc = [f"-I{include_dir(k)}" for k in ("cublas13", "cusolver12")]
    tmp = exe.with_suffix(f".{os.getpid()}.tmp")
    cmd = ["nvcc", "-O1", "-o", str(tmp), str(src), *inc, f"-L{lib}", f"-l:{soname}",
           "-Xlinker", f"-rpath-link={cpu}"]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    os.replace(tmp, exe)
    return exe


def run(libs, exe: Path) -> dict[str, list[str]]:
    lib, cpu, driver = libs
    e = dict(os.environ, LD_LIBRARY_PATH=f"{lib}:{driver}:{cpu}")
    proc = subprocess.run([str(exe)], capture_output=True, text=True, timeout=120, env=e)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert f"PASS {exe.name.split('-')[0]}" in proc.stdout, proc.stdout
    return {ln.split()[0]: ln.split()[1:] for ln in proc.stdout.splitlines() if ln.strip()}


def f64(out: dict[str, list[str]], key: str) -> np.ndarray:
    return np.array([float(v) for v in out[key]])


def versioned_imports(exe: Path, prefix: str) -> set[str]:
    """The version nodes the program's imports of `prefix`* symbols need."""
    with open(exe, "rb") as f:
        elf = ELFFile(f)
        vers = elf.get_section_by_name(".gnu.version_r")
        names = {aux.entry["vna_other"]: aux.name for _v, auxes in vers.iter_versions()
                 for aux in auxes}
        dynsym = elf.get_section_by_name(".dynsym")
        versym = elf.get_section_by_name(".gnu.version")
        out = set()
        for i, sym in enumerate(dynsym.iter_symbols()):
            if sym.name.startswith(prefix):
                out.add(names.get(versym.get_symbol(i).entry["ndx"], "?"))
        return out


@pytest.mark.parametrize("soname", ["libcublas.so.13", "libcublas.so.12"])
def test_cublas_program(libs, soname: str) -> None:
    exe = compile_prog(libs, "prog_cublas", soname)
    assert versioned_imports(exe, "cublas") == {soname}
    out = run(libs, exe)
    m, n, k, lda, ldb, ldc = 5, 4, 3, 7, 6, 5
    a = f64(out, "A").reshape(k, lda).T[:m]
    b = f64(out, "B").reshape(k, ldb).T[:n]
    c = f64(out, "C").reshape(n, ldc).T[:m]
    got = f64(out, "sgemm").reshape(n, ldc).T[:m]
    np.testing.assert_allclose(got, 1.5 * a @ b.T - 0.5 * c, atol=1e-5)
    x, y = f64(out, "x"), f64(out, "y")
    np.testing.assert_allclose(f64(out, "ddot")[0], x @ y, rtol=1e-12)
    assert int(out["idamax"][0]) == np.argmax(np.abs(x)) + 1
    np.testing.assert_allclose(f64(out, "daxpy"), 2 * x + y, rtol=1e-12)
    np.testing.assert_allclose(f64(out, "sgemv"), a @ f64(out, "xv"), atol=1e-5)
    assert out["stpttr"] == ["CUBLAS_STATUS_NOT_SUPPORTED"]
    assert out["major"] == ["13"]


@pytest.mark.parametrize("soname", ["libcusolver.so.12", "libcusolver.so.11"])
def test_cusolver_program(libs, soname: str) -> None:
    exe = compile_prog(libs, "prog_cusolver", soname)
    assert versioned_imports(exe, "cusolver") == {soname}
    out = run(libs, exe)
    n = 6
    spd = f64(out, "spd").reshape(n, n).T
    assert out["potrf_info"] == ["0"]
    low = np.tril(f64(out, "potrf").reshape(n, n).T)
    np.testing.assert_allclose(low, np.linalg.cholesky(spd), rtol=1e-10, atol=1e-12)
    gen = f64(out, "gen").reshape(n, n).T
    lu, piv = sla.lu_factor(gen)
    assert out["getrf_info"] == ["0"]
    assert [int(v) for v in out["ipiv"]] == list(piv + 1)
    np.testing.assert_allclose(f64(out, "getrf").reshape(n, n).T, lu, rtol=1e-10, atol=1e-12)
