"""NVRTC through ctypes: CUDA C++ to PTX on the CPU, no GPU needed.

    ptx = compile_to_ptx(cuda_source, "compute_75", name="module.cu")

NVIDIA's runtime compiler is found, in order, at $PYSHIM_NVRTC (a file), in the PyPI wheels
(`nvidia-cuda-nvrtc`: nvidia/cu13/lib, and the CUDA 12 wheels' nvidia/cuda_nvrtc/lib), in
$CUDA_HOME/lib64 and /usr/local/cuda/lib64, in each $LD_LIBRARY_PATH directory, and last
through the dynamic loader's own search. NVRTC has no system include path, so a source
compiled here may include nothing from the host's C library.
"""

from __future__ import annotations

import ctypes
import functools
import importlib.util
import os
from pathlib import Path

# sonames, newest first: CUDA 13's NVRTC, then CUDA 12's
SONAMES = ("libnvrtc.so.13", "libnvrtc.so.12", "libnvrtc.so")
# exact floating point, as PTX's .rn instructions demand: no contraction of a separate
# multiply and add into an fma (PTX allows it only without .rn; never doing it is exact),
# IEEE division and square root,
# denormals kept; --device-int128: the preludes' wide multiplies use __int128 as nvcc allows
EXACT_OPTIONS = ("--fmad=false", "--ftz=false", "--prec-div=true", "--prec-sqrt=true",
                 "--device-int128")


class NvrtcError(Exception):
    """NVRTC is missing, or it rejected a program; the message carries NVRTC's log."""

    def __init__(self, message: str, log: str = "") -> None:
        super().__init__(message + (f"\n{log.rstrip()}" if log.strip() else ""))
        self.log = log


def _wheel_dirs() -> list[Path]:
    """lib directories of the nvidia-* wheels (a namespace package; may be absent)."""
    try:
        spec = importlib.util.find_spec("nvidia")
    except (ImportError, ValueError):
        return []
    roots = list(spec.submodule_search_locations or []) if spec else []
    return [Path(r) / sub / "lib" for r in roots for sub in ("cu13", "cuda_nvrtc")]


def candidates() -> list[Path]:
    """Files that may be libnvrtc, in the order they are tried."""
    dirs = _wheel_dirs()
    for home in (os.environ.get("CUDA_HOME"), os.environ.get("CUDA_PATH"), "/usr/local/cuda"):
        if home:
            dirs.append(Path(home) / "lib64")
    dirs += [Path(d) for d in os.environ.get("LD_LIBRARY_PATH", "").split(":") if d]
    found = [Path(p) for p in [os.environ.get("PYSHIM_NVRTC")] if p]
    found += [d / s for d in dirs for s in SONAMES if (d / s).is_file()]
    return found


@functools.cache
def _library() -> ctypes.CDLL:
    tried = []
    for path in [*map(str, candidates()), *SONAMES]:
        try:
            _preload_builtins(Path(path))
            lib = ctypes.CDLL(path)
        except OSError as exc:
            tried.append(f"{path}: {exc}")
            continue
        _declare(lib)
        return lib
    raise NvrtcError("NVRTC not found (pip install nvidia-cuda-nvrtc, or set PYSHIM_NVRTC); "
                     "tried:\n  " + "\n  ".join(tried))


def _preload_builtins(lib: Path) -> None:
    """NVRTC dlopens libnvrtc-builtins.so.X.Y by bare name at compile time, which fails when
    its directory is not on the loader's path (the pip wheel's): loading it first from
    beside libnvrtc makes that dlopen find the copy already in the process."""
    if lib.parent == Path("."):
        return
    for builtins in sorted(lib.parent.glob("libnvrtc-builtins.so.*")):
        ctypes.CDLL(str(builtins))


def _declare(lib: ctypes.CDLL) -> None:
    P = ctypes.c_void_p
    PP = ctypes.POINTER(ctypes.c_char_p)
    sigs = {
        "nvrtcVersion": [ctypes.POINTER(ctypes.c_int), ctypes.POINTER(ctypes.c_int)],
        "nvrtcCreateProgram": [ctypes.POINTER(P), ctypes.c_char_p, ctypes.c_char_p,
                               ctypes.c_int, PP, PP],
        "nvrtcCompileProgram": [P, ctypes.c_int, PP],
        "nvrtcGetProgramLogSize": [P, ctypes.POINTER(ctypes.c_size_t)],
        "nvrtcGetProgramLog": [P, ctypes.c_char_p],
        "nvrtcGetPTXSize": [P, ctypes.POINTER(ctypes.c_size_t)],
        "nvrtcGetPTX": [P, ctypes.c_char_p],
        "nvrtcDestroyProgram": [ctypes.POINTER(P)],
    }
    for name, args in sigs.items():
        fn = getattr(lib, name)
        fn.argtypes = args
        fn.restype = ctypes.c_int
    lib.nvrtcGetErrorString.argtypes = [ctypes.c_int]
    lib.nvrtcGetErrorString.restype = ctypes.c_char_p


def available() -> bool:
    try:
        _library()
    except NvrtcError:
        return False
    return True


def library_path() -> str:
    """The file NVRTC was loaded from (for reports)."""
    lib = _library()
    return lib._name


def version() -> tuple[int, int]:
    lib = _library()
    major, minor = ctypes.c_int(), ctypes.c_int()
    _check(lib, lib.nvrtcVersion(ctypes.byref(major), ctypes.byref(minor)), "nvrtcVersion")
    return major.value, minor.value


def _check(lib: ctypes.CDLL, rc: int, what: str, log: str = "") -> None:
    if rc != 0:
        text = (lib.nvrtcGetErrorString(rc) or b"?").decode()
        raise NvrtcError(f"{what} failed: {text} ({rc})", log)


def _strings(items: list[str]) -> ctypes.Array:
    return (ctypes.c_char_p * max(1, len(items)))(*[s.encode() for s in items])


def compile_to_ptx(source: str, arch: str = "compute_75", name: str = "pyshim.cu",
                   options: tuple[str, ...] = EXACT_OPTIONS) -> str:
    """PTX text for `source`, compiled for the virtual architecture `arch`. Raises
    NvrtcError carrying NVRTC's log when the program does not compile."""
    lib = _library()
    prog = ctypes.c_void_p()
    _check(lib, lib.nvrtcCreateProgram(ctypes.byref(prog), source.encode(), name.encode(),
                                       0, None, None), f"nvrtcCreateProgram({name})")
    try:
        opts = [f"--gpu-architecture={arch}", *options]
        rc = lib.nvrtcCompileProgram(prog, len(opts), _strings(opts))
        size = ctypes.c_size_t()
        _check(lib, lib.nvrtcGetProgramLogSize(prog, ctypes.byref(size)), "nvrtcGetProgramLog")
        buf = ctypes.create_string_buffer(size.value + 1)
        _check(lib, lib.nvrtcGetProgramLog(prog, buf), "nvrtcGetProgramLog")
        log = buf.value.decode(errors="replace")
        _check(lib, rc, f"NVRTC compile of {name} for {arch}", log)
        _check(lib, lib.nvrtcGetPTXSize(prog, ctypes.byref(size)), "nvrtcGetPTXSize")
        out = ctypes.create_string_buffer(size.value + 1)
        _check(lib, lib.nvrtcGetPTX(prog, out), "nvrtcGetPTX")
        return out.value.decode()
    finally:
        lib.nvrtcDestroyProgram(ctypes.byref(prog))
