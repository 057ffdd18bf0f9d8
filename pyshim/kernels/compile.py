"""Compiling translated kernels: C for the CPU device (a native shared object).

    so_bytes = compile_cpu(c_source)

The compiler is $PYSHIM_CC, else $CC, else clang-19 when installed, else `cc`: clang
vectorizes the thread loops of translated kernels (base pointer plus per-thread offset, see
pyshim/ptx/analysis/pointer_regs.py) where gcc 12 emits scalar code or gathers, which makes
bandwidth-bound kernels much faster (benchmarks/README.md, Figures behind the code). Flags
keep PTX semantics: no fused
multiply-add unless PTX says fma (-ffp-contract=off), wrapping signed arithmetic (-fwrapv),
no type-based alias analysis (PTX memory is untyped). `compiler_identity()` goes into the
kernel cache key.

Tiers ($PYSHIM_JIT, issue 23): `opt` (the default) compiles with CPU_FLAGS; `fast` adds
-O1 (large kernels compile markedly faster: benchmarks/README.md, Figures behind the code);
`tiered`
compiles a kernel's first build at the fast tier and the optimised one in the background
(`background`: one job per core, at nice 10, below the program's own threads), where the
next load finds it. A tier other than opt is part of the compiler identity, so the cache
never hands one tier's code out as the other's.
"""

from __future__ import annotations

import functools
import hashlib
import logging
import os
import queue
import shlex
import shutil
import subprocess
import tempfile
import threading
import time
from collections.abc import Callable
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


# extra flags per tier (after CPU_FLAGS: the last -O wins)
TIER_FLAGS: dict[str, tuple[str, ...]] = {"opt": (), "fast": ("-O1",)}
JIT_MODES = ("fast", "opt", "tiered")
BACKGROUND_NICE = 10


def jit_mode() -> str:
    """$PYSHIM_JIT: fast | opt | tiered (default opt; anything else is opt, said once)."""
    raw = os.environ.get("PYSHIM_JIT", "").strip().lower()
    if raw in JIT_MODES:
        return raw
    if raw and raw not in _warned:
        _warned.add(raw)
        logging.getLogger("pyshim").warning("pyshim: ignoring PYSHIM_JIT=%s (expected fast, "
                                            "opt or tiered)", raw)
    return "opt"


_warned: set[str] = set()


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
    """The identity, from the disk memo when the compiler binary, the ABI header and the
    CPU are the ones it was computed for (two compiler runs in every fresh process otherwise:
    most of a warm load there, benchmarks/README.md, Figures behind the code)."""
    memo_key = _memo_key(cc)
    if memo_key is not None:
        from pyshim.kernels import cache

        try:
            path = cache.lookup(memo_key, ".identity")
            if path is not None:
                return cache.read_entry(path).decode()
        except (cache.CacheError, UnicodeDecodeError):
            pass
    ident = _identity_now(cc)
    if memo_key is not None:
        from pyshim.kernels import cache

        try:
            cache.store(memo_key, ".identity", ident.encode())
        except (cache.CacheError, OSError):
            pass
    return ident


def _memo_key(cc: tuple[str, ...]) -> str | None:
    """What the identity depends on, cheaply: the compiler executable's path, size and
    mtime (the package that updates it changes them), our flags, the ABI header, and the
    CPU's model and feature flags (/proc/cpuinfo). None where one is unknown."""
    from pyshim.kernels import cache

    exes = [shutil.which(c) for c in cc if not c.startswith("-")]
    if not cc or exes[0] is None:
        return None
    try:
        bins = []
        for exe in exes:  # a wrapper (ccache clang) and the compiler it runs
            if exe is not None:
                st = os.stat(os.path.realpath(exe))
                bins.append(f"{os.path.realpath(exe)}:{st.st_size}:{st.st_mtime_ns}")
        abi = (abi_include_dir() / "pyshim_kernel_abi.h").read_bytes()
        with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as f:
            cpu = sorted({line for line in f if line.startswith(("flags", "model name",
                                                                 "vendor_id"))})
    except OSError:
        return None
    return cache.cache_key("compiler-identity-1", *cc, *bins, " ".join(CPU_FLAGS), abi,
                           "".join(cpu))


def _identity_now(cc: tuple[str, ...]) -> str:
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


def compiler_identity(tier: str = "opt") -> str:
    """A string naming the compiler, its version, our flags and the ABI header (and the
    tier's flags for a tier other than opt: opt's identity is the one before tiers)."""
    base = _identity(tuple(cpu_compiler()))
    return base if tier == "opt" else f"{base} | tier {tier} {' '.join(TIER_FLAGS[tier])}"


def compile_cpu(c_source: str, *, extra_flags: tuple[str, ...] = (),
                timeout: float = 600.0, tier: str = "opt", nice: int = 0) -> bytes:
    """Compile one translated module to a shared object; returns the .so bytes."""
    cc = cpu_compiler()
    extra_flags = (*TIER_FLAGS[tier], *extra_flags)
    if nice > 0 and shutil.which("nice"):
        cc = ["nice", "-n", str(nice), *cc]
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



_pool_lock = threading.Lock()
_queue: queue.Queue = queue.Queue()
_workers: list[threading.Thread] = []
_pending: set[str] = set()


def background(job_id: str, work: Callable[[], object]) -> bool:
    """Run `work()` on the background compile pool (one daemon thread per core; each runs
    its compiler at nice BACKGROUND_NICE) unless a job of that id is queued or running;
    False when it already is. Daemon threads: a process that exits first drops its jobs
    (a later tiered load queues them again) and never waits for them."""
    with _pool_lock:
        if job_id in _pending:
            return False
        _pending.add(job_id)
        if not _workers:
            for i in range(max(1, len(os.sched_getaffinity(0)))):
                t = threading.Thread(target=_worker, name=f"pyshim-jit-{i}", daemon=True)
                t.start()
                _workers.append(t)
    _queue.put((job_id, work))
    return True


def _worker() -> None:
    while True:
        job_id, work = _queue.get()
        try:
            work()
        except Exception as exc:  # noqa: BLE001 - a failed background build loses nothing
            logging.getLogger("pyshim").info("pyshim: background build %s failed: %s",
                                             job_id[:16], exc)
        finally:
            with _pool_lock:
                _pending.discard(job_id)


def wait_background(timeout: float | None = None) -> bool:
    """Wait until no background build is queued or running (tests, benchmarks); True when
    none is left."""
    end = None if timeout is None else time.monotonic() + timeout
    while True:
        with _pool_lock:
            if not _pending:
                return True
        if end is not None and time.monotonic() > end:
            return False
        time.sleep(0.05)
