"""A real nvcc-built program under `pyshim run` survives whatever its kernel cache holds:
truncated, emptied or altered modules are rebuilt (a truncated .so was a SIGBUS in dlopen
on every run), and a cache directory that is unsafe or unusable costs one line on stderr,
never a traceback or cudaErrorInvalidPtx."""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from pyshim.builders.components import build_all
from pyshim.paths import REPO_DIR, build_dir

SPIN = REPO_DIR / "tests" / "signals" / "spin.cu"


@pytest.fixture(scope="module")
def exe() -> Path:
    build_all()
    key = hashlib.sha256(SPIN.read_bytes()).hexdigest()[:16]
    out = build_dir() / "runtime" / "bins" / f"spin-cache-{key}"
    if not out.exists():
        out.parent.mkdir(parents=True, exist_ok=True)
        tmp = out.with_name(f"{out.name}.{os.getpid()}.tmp")
        proc = subprocess.run(["nvcc", "-O2", "-o", str(tmp), str(SPIN)], capture_output=True,
                              text=True, timeout=300)
        assert proc.returncode == 0, proc.stderr[-2000:]
        os.replace(tmp, out)
    return out


def run(exe: Path, cache: Path, tmp: Path) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, PYSHIM_CACHE=str(cache), TMPDIR=str(tmp))
    tmp.mkdir(exist_ok=True)
    return subprocess.run([sys.executable, "-m", "pyshim", "run", "--backend", "cpu", str(exe),
                           "1"], env=env, capture_output=True, text=True, timeout=300)


def module_file(cache: Path) -> Path:
    (so,) = (cache / "kernels").glob("*/*.so")
    return so


def truncate(cache: Path) -> None:
    os.truncate(module_file(cache), module_file(cache).stat().st_size // 3)


def empty(cache: Path) -> None:
    os.truncate(module_file(cache), 0)


def flip(cache: Path) -> None:
    so = module_file(cache)
    blob = bytearray(so.read_bytes())
    blob[len(blob) // 2] ^= 0xFF
    so.write_bytes(bytes(blob))


def symlinked_kernels(cache: Path) -> None:
    (cache / "elsewhere").mkdir()
    os.rename(cache / "kernels", cache / "old")
    (cache / "kernels").symlink_to(cache / "elsewhere")


def kernels_is_a_file(cache: Path) -> None:
    os.rename(cache / "kernels", cache / "old")
    (cache / "kernels").write_text("not a directory")


def foreign_owner(cache: Path) -> None:
    if os.getuid() != 0:
        pytest.skip("chown to another uid needs root")
    os.chown(cache / "kernels", 12345, -1)


def world_writable_root(cache: Path) -> None:
    os.chmod(cache, 0o777)


@pytest.mark.parametrize("attack", [truncate, empty, flip, symlinked_kernels,
                                    kernels_is_a_file, foreign_owner, world_writable_root])
def test_program_survives_its_cache(exe: Path, tmp_path: Path,
                                    attack: Callable[[Path], None]) -> None:
    cache = tmp_path / "cache"
    first = run(exe, cache, tmp_path / "tmp")
    assert first.returncode == 0 and "done no error" in first.stdout, first.stderr[-2000:]
    attack(cache)
    for attempt in range(2):  # and the run after the repair is clean too
        out = run(exe, cache, tmp_path / "tmp")
        assert out.returncode == 0, out.stderr[-2000:]
        assert "done no error" in out.stdout
        assert "Traceback" not in out.stderr and "InvalidPtx" not in out.stderr
        lines = [ln for ln in out.stderr.splitlines() if "kernel cache" in ln]
        if attempt == 0 or attack not in (truncate, empty, flip):
            assert len(lines) == 1, out.stderr  # refused or repaired, and said once
        else:
            assert lines == [], out.stderr  # repaired for good


def test_cache_naming_a_file(exe: Path, tmp_path: Path) -> None:
    (tmp_path / "file").write_text("x")
    out = run(exe, tmp_path / "file", tmp_path / "tmp")
    assert out.returncode == 0 and "done no error" in out.stdout, out.stderr[-2000:]
    assert "Traceback" not in out.stderr
    assert (tmp_path / "file").read_text() == "x"
