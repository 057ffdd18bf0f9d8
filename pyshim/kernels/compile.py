"""Compiling translated kernels: C for the CPU device (a native shared object).

    so_bytes = compile_cpu(c_source)

The compiler is $PYSHIM_CC, else $CC, else clang-19 when installed, else `cc`: clang
vectorizes the thread loops of translated kernels (base pointer plus per-thread offset, see
pyshim/ptx/analysis/pointer_regs.py) where gcc 12 emits scalar code or gathers, which makes
bandwidth-bound kernels up to 2x faster. Flags keep PTX semantics: no fused
multiply-add unless PTX says fma (-ffp-contract=off), wrapping signed arithmetic (-fwrapv),
no type-based alias analysis (PTX memory is untyped). `compiler_identity()` goes into the
kernel cache key.
"""

from __future__ import annotations

import functools
import hashlib
import os
import shlex
import shutil
import subprocess
import tempfile
from pathlib import Path

from pyshim.paths import SHIM_DIR

# -march=native: PTX's fma.rn becomes one instruction instead of libm's software fmaf; the
# identity below then includes this CPU's features. -fopenmp-simd: the `omp simd` marks on
# region loops whose threads may run in lockstep (targets/cpu/regions.py) take effect,
# without linking an OpenMP runtime (which regions are marked: passes/regions.py; what each
# flag measured: benchmarks/README.md, "Figures behind the code").
# Hand-built experiments on generated kernels need these flags too, or measure other code.
CPU_FLAGS = ("-std=gnu11", "-O2", "-march=native", "-shared", "-fPIC", "-fno-strict-aliasing",
             "-ffp-contract=off", "-fwrapv", "-fopenmp-simd", "-fvisibility=hidden",
             "-fno-math-errno", "-w")


class CompileError(Exception):
    """The kernel compiler failed; the message carries its diagnostics."""

    cuda_error = "CUDA_ERROR_INVALID_PTX"


def abi_include_dir() -> Path:
    return SHIM_DIR / "include"


# the preferred kernel compiler when neither variable names one (see the module docstring)
PREFERRED_CC = "clang-19"


def cpu_compiler() -> list[str]:
    cc = os.environ.get("PYSHIM_CC") or os.environ.get("CC") or _default_cc()
    return shlex.split(cc)


@functools.cache
def _default_cc() -> str:
    return PREFERRED_CC if shutil.which(PREFERRED_CC) else "cc"


@functools.cache
def _identity(cc: tuple[str, ...]) -> str:
    try:
        out = subprocess.run([*cc, "--version"], capture_output=True, text=True, timeout=60)
        version = out.stdout.strip().splitlines()[0] if out.stdout.strip() else out.stderr
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise CompileError(f"kernel compiler {' '.join(cc)!r} not usable: {exc}") from None
    abi = (abi_include_dir() / "pyshim_kernel_abi.h").read_bytes()
    h = hashlib.sha256(abi).hexdigest()[:16]
    return f"{' '.join(cc)} | {version} | {' '.join(CPU_FLAGS)} | abi {h} | cpu {_native(cc)}"


def _native(cc: tuple[str, ...]) -> str:
    """A hash of the target macros -march=native defines (the CPU's ISA extensions), so a
    kernel cache shared between different machines never hands out the wrong code."""
    try:
        out = subprocess.run([*cc, "-march=native", "-E", "-dM", "-x", "c", "-"], input="",
                             capture_output=True, text=True, timeout=60).stdout
    except (OSError, subprocess.TimeoutExpired):
        out = ""
    return hashlib.sha256(out.encode()).hexdigest()[:16]


def compiler_identity() -> str:
    """A string naming the compiler, its version, our flags and the ABI header."""
    return _identity(tuple(cpu_compiler()))


def compile_cpu(c_source: str, *, extra_flags: tuple[str, ...] = (),
                timeout: float = 600.0) -> bytes:
    """Compile one translated module to a shared object; returns the .so bytes."""
    cc = cpu_compiler()
    with tempfile.TemporaryDirectory(prefix="pyshim-cc-") as tmp:
        src = Path(tmp) / "module.c"
        out = Path(tmp) / "module.so"
        src.write_text(c_source)
        cmd = [*cc, *CPU_FLAGS, *extra_flags, f"-I{abi_include_dir()}", str(src), "-o",
               str(out), "-lm"]
        try:
            res = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
        except FileNotFoundError:
            raise CompileError(f"kernel compiler {cc[0]!r} not found (set PYSHIM_CC)") from None
        except subprocess.TimeoutExpired:
            raise CompileError(f"kernel compiler timed out after {timeout:.0f} s") from None
        if res.returncode != 0 or not out.exists():
            msg = (res.stderr or res.stdout).strip()
            lines = msg.splitlines()
            if len(lines) > 40:
                lines = lines[:40] + [f"... ({len(lines) - 40} more lines)"]
            raise CompileError(f"kernel compiler failed (exit {res.returncode}):\n"
                               + "\n".join(lines))
        return out.read_bytes()

