"""Builds the CPU device and the C test programs of tests/test_cpu_device_*.py, runs them.

Programs are compiled against the real HIP headers and linked with the built
libamdhip64.so.7 (by SONAME, through an rpath), exactly as a HIP program is linked.
"""

from __future__ import annotations

import os
import subprocess
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from pyshim import paths
from pyshim.builders.cpu import build_cpu_device
from pyshim.tables.fetch import include_dir

HERE = Path(__file__).resolve().parent
OUT = paths.build_dir() / "tests" / "cpu_device"
# HIP marks the context API deprecated; the shim still calls it, and so do the tests.
CFLAGS = ["-std=c11", "-O1", "-g", "-Wall", "-Wextra", "-Werror", "-pthread",
          "-Wno-deprecated-declarations", "-D_GNU_SOURCE", "-D__HIP_PLATFORM_AMD__"]


@cache
def lib_dir() -> Path:
    return build_cpu_device()


def _includes() -> list[str]:
    dirs = [include_dir("hip"), include_dir("hsa"), paths.SHIM_DIR / "include", HERE]
    return [f"-I{d}" for d in dirs]


def _newer(out: Path, *inputs: Path) -> bool:
    return out.exists() and all(out.stat().st_mtime >= i.stat().st_mtime for i in inputs)


@cache
def program(name: str) -> Path:
    """Compiles tests/cpu_device/<name>.c into an executable linked with the CPU device."""
    src = HERE / f"{name}.c"
    lib = lib_dir() / "libamdhip64.so.7"
    out = OUT / name
    OUT.mkdir(parents=True, exist_ok=True)
    if not _newer(out, src, HERE / "check.h", lib):
        tmp = out.with_name(f".{name}.{os.getpid()}")
        cmd = ["cc", *CFLAGS, *_includes(), "-o", str(tmp), str(src),
               f"-L{lib_dir()}", "-lamdhip64", f"-Wl,-rpath,{lib_dir()}"]
        _compile(cmd)
        os.replace(tmp, out)
    return out


def _compile(cmd: list[str]) -> None:
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        raise RuntimeError(f"compile failed: {' '.join(cmd)}\n{proc.stderr}")


@cache
def module(name: str, variant: str = "", defines: tuple[str, ...] = ()) -> Path:
    """Compiles tests/cpu_device/<name>.c into a kernel module (a native shared object);
    `variant` names a build with extra -D `defines`."""
    src = HERE / f"{name}.c"
    out = OUT / f"{name}{variant}.so"
    OUT.mkdir(parents=True, exist_ok=True)
    hdr = paths.SHIM_DIR / "include" / "pyshim_kernel_abi.h"
    if not _newer(out, src, hdr):
        tmp = out.with_name(f".{name}{variant}.{os.getpid()}.so")
        cmd = ["cc", "-std=c11", "-O2", "-Wall", "-Wextra", "-Werror", "-fPIC", "-shared",
               *(f"-D{d}" for d in defines), f"-I{paths.SHIM_DIR / 'include'}",
               "-o", str(tmp), str(src)]
        _compile(cmd)
        os.replace(tmp, out)
    return out


@dataclass
class Result:
    returncode: int
    stdout: str
    stderr: str

    @property
    def lines(self) -> list[str]:
        return self.stdout.splitlines()


def run(name: str, *args: str, env: dict[str, str | None] | None = None, timeout: float = 60,
        cpus: set[int] | None = None) -> Result:
    """Runs program `name` with `args`; PYSHIM_CPU_* defaults to a fixed configuration
    (a None value in `env` unsets a variable); `cpus` pins the program to those cores."""
    full_env = {**os.environ, "PYSHIM_CPU_WORKERS": "4", "PYSHIM_CPU_WAVE": "64"}
    for key, value in (env or {}).items():
        if value is None:
            full_env.pop(key, None)
        else:
            full_env[key] = value

    def pin() -> None:
        if cpus is not None:
            os.sched_setaffinity(0, cpus)

    proc = subprocess.run([str(program(name)), *args], capture_output=True, text=True,
                          env=full_env, timeout=timeout, preexec_fn=pin)
    return Result(proc.returncode, proc.stdout, proc.stderr)


def values(result: Result) -> dict[str, str]:
    """`key=value` lines of a program's output."""
    out = {}
    for line in result.lines:
        key, sep, value = line.partition("=")
        if sep:
            out[key] = value
    return out
