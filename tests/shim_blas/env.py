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
