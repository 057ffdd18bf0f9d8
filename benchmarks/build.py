"""Everything the benchmarks compile, built into build/bench/ and rebuilt only when a
source is newer: PTX from the CUDA kernels (nvcc), the plain-C loops (the kernel compiler
with -fopenmp), the api_bench program (linked with the shim's libcuda and the CPU device's
libamdhip64)."""

from __future__ import annotations

import functools
import hashlib
import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

from benchmarks.items import BenchError
from pyshim import paths

HERE = Path(__file__).resolve().parent
KERNELS_DIR = HERE / "kernels"
C_DIR = HERE / "c"
# the plain C loops get the kernel compiler's own flags (pyshim.kernels.compile.CPU_FLAGS:
# same optimisation level, same -march, same floating-point rules, so results match bit for
# bit and neither side gets instructions the other lacks), plus OpenMP and our warnings. Never
# -Werror here: the loops are compiled for the host CPU at run time, and a compiler that only
# half knows a new CPU warns about -march=native itself (clang-19 on AVX10: "invalid feature
# combination"), which must not fail a benchmark run
_NOT_FOR_LOOPS = ("-fvisibility=hidden", "-w")


def loop_flags() -> tuple[str, ...]:
    from pyshim.kernels.compile import CPU_FLAGS

    return (*(f for f in CPU_FLAGS if f not in _NOT_FOR_LOOPS), "-fopenmp", "-Wall",
            "-Wextra")


def out_dir() -> Path:
    d = paths.build_dir() / "bench"
    d.mkdir(parents=True, exist_ok=True)
    return d


def _fresh(out: Path, *inputs: Path) -> bool:
    return out.exists() and all(out.stat().st_mtime >= i.stat().st_mtime for i in inputs)


def _run(cmd: list[str], what: str, timeout: float = 600) -> None:
    try:
        res = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    except FileNotFoundError:
        raise BenchError(f"{what}: {cmd[0]} not found") from None
    except subprocess.TimeoutExpired:
        raise BenchError(f"{what}: timed out after {timeout:.0f} s") from None
    if res.returncode != 0:
        raise BenchError(f"{what} failed (exit {res.returncode}): {' '.join(cmd)}\n"
                         f"{(res.stderr or res.stdout).strip()[-3000:]}")


def _build(out: Path, cmd_for: Callable[[Path], list[str]], what: str, *inputs: Path) -> Path:
    """Build `out` with the command cmd_for(tmp_path) unless it is newer than its inputs;
    through a temp name, so a concurrent reader never sees half a file."""
    if not _fresh(out, *inputs):
        tmp = out.with_name(f".{out.name}.{os.getpid()}")
        _run(cmd_for(tmp), what)
        os.replace(tmp, out)
    return out


def nvcc_ptx(src: Path, name: str | None = None) -> Path:
    """`nvcc -ptx` of a CUDA file (CUDA 13's default target, as an unmodified build has)."""
    if shutil.which("nvcc") is None:
        raise BenchError("nvcc not found: the CPU-device kernels come from nvcc -ptx")
    out = out_dir() / f"{name or src.stem}.ptx"
    return _build(out, lambda tmp: ["nvcc", "-ptx", "-o", str(tmp), str(src)],
                  f"nvcc -ptx {src.name}", src)


def kernels_ptx() -> Path:
    return nvcc_ptx(KERNELS_DIR / "kernels.cu")


def loops_compiler() -> list[str]:
    """The compiler of the plain C loops: the CPU device's kernel compiler
    (pyshim.kernels.compile.cpu_compiler: clang-19 when installed), so both sides of the
    comparison get the same vectorizer. clang needs its OpenMP runtime's headers
    (libomp-19-dev); without them the loops fall back to cc, with a warning."""
    from pyshim.kernels.compile import cpu_compiler

    cc = cpu_compiler()
    probe = subprocess.run([*cc, "-fopenmp", "-fsyntax-only", "-x", "c", "-"],
                           input="#include <omp.h>\n", capture_output=True, text=True)
    if probe.returncode == 0:
        return cc
    print(f"benchmarks: {' '.join(cc)} cannot compile OpenMP ({probe.stderr.strip()[:200]});"
          " the C loops are built with cc (for clang-19: apt-get install libomp-19-dev)",
          file=sys.stderr)
    return ["cc"]


def loops_so() -> Path:
    src = KERNELS_DIR / "loops.c"
    cc = _loops_cc()
    flags = loop_flags()
    tag = hashlib.sha256(" ".join([*cc, *flags]).encode()).hexdigest()[:12]
    out = out_dir() / f"loops-{tag}.so"   # a change of compiler or flags is a new file
    return _build(out, lambda tmp: [*cc, *flags, "-o", str(tmp), str(src)],
                  f"{cc[0]} loops.c", src)


@functools.cache
def _loops_cc() -> list[str]:
    return loops_compiler()


@functools.cache
def cpu_device_dir() -> Path:
    """build/cpu with the CPU device's libamdhip64.so.7 (built if needed)."""
    from pyshim.builders.cpu import build_cpu_device

    try:
        return build_cpu_device()
    except Exception as exc:  # whatever the builder raises: say which build failed
        raise BenchError(f"building the CPU device (python3 -m pyshim.builders.cpu) failed: "
                         f"{exc}") from exc


@functools.cache
def shim_lib_dir() -> Path:
    """build/lib with the shim's libcuda.so.1 (built if needed)."""
    from pyshim.builders.libcuda import build_libcuda

    root = paths.build_dir()
    try:
        lib, _ = build_libcuda(root / "lib", root / "driver")
    except Exception as exc:  # whatever the builder raises: say which build failed
        raise BenchError(f"building the shim's libcuda (python3 -m pyshim build) failed: "
                         f"{str(exc)[-2000:]}") from exc
    return lib.parent


def _bench_program(name: str) -> Path:
    """c/<name>.c (and the harness it includes), linked with the shim's libcuda and the CPU
    device's libamdhip64 as a CUDA program and a HIP program would link them."""
    from pyshim.builders.libcuda import cuda_include
    from pyshim.tables.fetch import include_dir

    src, harness = C_DIR / f"{name}.c", C_DIR / "bench_harness.h"
    cpu, lib = cpu_device_dir(), shim_lib_dir()
    out = out_dir() / name
    incs = [cuda_include(), include_dir("hip"), include_dir("hsa")]
    flags = ["-std=c11", "-O2", "-fopenmp", "-Wall", "-Wextra", "-Werror",
             "-Wno-deprecated-declarations", "-D__HIP_PLATFORM_AMD__", *(f"-I{d}" for d in incs)]
    libs = [f"-L{cpu}", "-lamdhip64", f"-L{lib}", "-lcuda", f"-Wl,-rpath,{cpu}:{lib}"]
    return _build(out, lambda tmp: ["cc", *flags, "-o", str(tmp), str(src), *libs],
                  f"cc {name}.c", src, harness, cpu / "libamdhip64.so.7", lib / "libcuda.so.1")


def api_bench() -> Path:
    return _bench_program("api_bench")


def launch_bench() -> Path:
    return _bench_program("launch_bench")
