"""Building pyshim's cuBLAS/cuSOLVER (and the CPU device under them) for the tests, and
running a case file in a child pytest with the launcher's library path."""

from __future__ import annotations

import fcntl
import functools
import os
import subprocess
import sys
from pathlib import Path

from pyshim.paths import REPO_DIR, build_dir

HERE = Path(__file__).resolve().parent


@functools.cache
def build() -> tuple[Path, Path]:
    """(lib, cpu) directories with libcublas/libcusolver and the CPU device under them,
    private to these tests (other engineers' builds of build/cpu cannot race them)."""
    from pyshim.builders.blas import build_shim_blas
    from pyshim.builders.cpu import build_cpu_device
    from pyshim.builders.cpu_blas import build_cpu_blas

    root = build_dir() / "shim_blas_test"
    root.mkdir(parents=True, exist_ok=True)
    with open(root / ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        cpu = build_cpu_device(root / "cpu")
        build_cpu_blas(cpu, cpu)
        lib = root / "lib"
        build_shim_blas(lib, cpu)
    return lib, cpu


def build_sparse() -> tuple[Path, Path]:
    """build() plus libcusparse beside libcublas and rocSPARSE beside rocBLAS."""
    from pyshim.builders.sparse import build_sparse as build_libs

    lib, cpu = build()
    build_libs(lib.parent)
    return lib, cpu


def run_program(built: tuple[Path, Path], name: str, headers: tuple[str, ...],
                sonames: tuple[str, ...], args: tuple[str, ...] = ()) -> dict[str, list[str]]:
    """nvcc-build tests/shim_blas/<name>.cu against pyshim's libraries (the pinned headers
    of `headers`), run it on the CPU device, and return its `key value ...` lines by key;
    fails unless it exits 0 and prints `PASS <name>`."""
    from pyshim.builders.components import build_all
    from pyshim.tables.fetch import include_dir

    lib, cpu = built
    build_all(components=("cpu", "libcuda"))
    exe = lib.parent / "progs" / name
    exe.parent.mkdir(parents=True, exist_ok=True)
    cmd = ["nvcc", "-O1", "-o", str(exe), str(HERE / f"{name}.cu"),
           *(f"-I{include_dir(k)}" for k in headers), f"-L{lib}",
           *(f"-l:{so}" for so in sonames), "-Xlinker", f"-rpath-link={cpu}"]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    env = dict(os.environ, LD_LIBRARY_PATH=f"{lib}:{build_dir() / 'lib'}:{cpu}")
    proc = subprocess.run([str(exe), *args], capture_output=True, text=True, timeout=120,
                          env=env)
    assert proc.returncode == 0 and f"PASS {name}" in proc.stdout, \
        proc.stdout[-3000:] + proc.stderr
    return {ln.split()[0]: ln.split()[1:] for ln in proc.stdout.splitlines() if ln.strip()}


def child_env(lib: Path, cpu: Path, **extra: str) -> dict[str, str]:
    env = dict(os.environ)
    env["LD_LIBRARY_PATH"] = f"{lib}:{cpu}"
    env["PYSHIM_BLAS_LIB"] = str(lib)
    env.update(extra)
    return env


def run_cases(built: tuple[Path, Path], case_file: str, cov: Path) -> None:
    """Run tests/shim_blas/<case_file> in a child pytest; fail with its report."""
    lib, cpu = built
    cmd = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:xdist",
           "-W", "ignore::DeprecationWarning", str(HERE / case_file)]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=900, cwd=REPO_DIR,
                          env=child_env(lib, cpu, PYSHIM_BLAS_COVERAGE=str(cov)))
    assert proc.returncode == 0, f"{case_file} failed:\n{proc.stdout[-20000:]}\n{proc.stderr}"
