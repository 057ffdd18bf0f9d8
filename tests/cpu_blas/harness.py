"""Test harness for the CPU device's librocblas.so.5 / librocsolver.so.0 (ctypes).

Builds the CPU device's HIP runtime (pyshim.builders.cpu) and the libraries once into
build/cpu_blas_test and calls them with numpy arrays as "device" memory (device memory is
host memory on the CPU device).

Calling convention of `Rb.call(name, *args)`: a plain Python int is a size argument
(rocblas_int, or int64_t for a `_64` entry point); `E(v)` is an enum (int), `S(v)` a
rocblas_stride (int64), a numpy float32/float64 scalar a by-value float/double, and a numpy
array passes its address.
"""

from __future__ import annotations

import ctypes
import fcntl
import warnings
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pytest

from pyshim.builders.common import BuildError
from pyshim.builders.cpu import build_cpu_device
from pyshim.builders.cpu_blas import build_cpu_blas, openblas_dirs
from pyshim.paths import build_dir

HERE = Path(__file__).resolve().parent

# enum values from rocblas-types.h
OP = {"N": 111, "T": 112, "C": 113}
FILL = {"U": 121, "L": 122}
DIAG = {"N": 131, "U": 132}
SIDE = {"L": 141, "R": 142}
ST_SUCCESS, ST_INVALID_HANDLE, ST_NOT_IMPLEMENTED, ST_INVALID_POINTER = 0, 1, 2, 3
ST_INVALID_SIZE, ST_SIZE_QUERY_MISMATCH, ST_SIZE_UNCHANGED, ST_INVALID_VALUE = 4, 8, 10, 11
DTYPE = {"s": np.float32, "d": np.float64, "c": np.complex64, "z": np.complex128}
RTYPE = {"s": np.float32, "d": np.float64, "c": np.float32, "z": np.float64}
TOL = {"s": 2e-4, "d": 1e-10, "c": 2e-4, "z": 1e-10}


@dataclass(frozen=True)
class E:
    v: int


@dataclass(frozen=True)
class S:
    v: int


def build_libs() -> Path:
    """Build the CPU device's HIP runtime and the BLAS libraries once into
    build/cpu_blas_test (a lock keeps parallel pytest workers from racing)."""
    try:
        openblas_dirs()
    except BuildError as exc:  # not yet a declared test dependency on every machine
        pytest.skip(str(exc))
    out = build_dir() / "cpu_blas_test"
    out.mkdir(parents=True, exist_ok=True)
    with open(out / ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            build_cpu_device(out)
        except BuildError as exc:
            # the HIP runtime's sources are someone else's work in progress in a shared
            # checkout: keep testing against the last runtime that built, if there is one
            if not (out / "libamdhip64.so.7").is_file():
                raise
            warnings.warn(f"CPU HIP runtime did not build, using the previous one: {exc}",
                          stacklevel=2)
        return build_cpu_blas(out, out)


class Rb:
    def __init__(self, out: Path) -> None:
        self.hip = ctypes.CDLL(str(out / "libamdhip64.so.7"), mode=ctypes.RTLD_GLOBAL)
        self.blas = ctypes.CDLL(str(out / "librocblas.so.5"))
        self.solver = ctypes.CDLL(str(out / "librocsolver.so.0"))
        self.handle = self.new_handle()

    def new_handle(self) -> ctypes.c_void_p:
        h = ctypes.c_void_p()
        assert self.blas.rocblas_create_handle(ctypes.byref(h)) == 0
        return h

    def _conv(self, a: object, wide: bool) -> object:
        if isinstance(a, bool):
            raise TypeError("pass enums as E(v)")
        if isinstance(a, int):
            return ctypes.c_int64(a) if wide else ctypes.c_int32(a)
        if isinstance(a, E):
            return ctypes.c_int(a.v)
        if isinstance(a, S):
            return ctypes.c_int64(a.v)
        if isinstance(a, np.float32):
            return ctypes.c_float(a)
        if isinstance(a, np.float64):
            return ctypes.c_double(a)
        if isinstance(a, np.ndarray):
            return ctypes.c_void_p(a.ctypes.data)
        if a is None:
            return ctypes.c_void_p(0)
        return a

    def call(self, name: str, *args: object, handle: object = "default") -> int:
        lib = self.solver if name.startswith("rocsolver_") else self.blas
        fn = getattr(lib, name)
        fn.restype = ctypes.c_int
        wide = name.endswith("_64")
        conv = [self._conv(a, wide) for a in args]
        h = self.handle if handle == "default" else handle
        return int(fn(h, *conv))


# ---- operands: BLAS-style strided vectors and column-major matrices in each batch form ----

def vec_index(n: int, inc: int) -> np.ndarray:
    """Buffer positions of logical elements 0..n-1 (BLAS: a negative increment starts at
    the far end)."""
    i = np.arange(n)
    return i * inc if inc > 0 else (n - 1 - i) * (-inc)


def vec_len(n: int, inc: int) -> int:
    return 1 + (n - 1) * abs(inc) if n > 0 else 1


@dataclass
class Operand:
    """One operand for `batch` instances in form P (plain), B (pointer array) or S (strided):
    `args()` gives the pointer argument(s) in ABI order (the caller adds inc/ld, which for the
    strided form goes between the pointer and the stride: use `args(ld)`)."""

    form: str
    bufs: list[np.ndarray]
    stride: int = 0
    _keep: list[object] = field(default_factory=list)

    @classmethod
    def make(cls, form: str, bufs: list[np.ndarray], pad: int = 3) -> Operand:
        if form == "S":
            size = bufs[0].size
            stride = size + pad
            big = np.zeros(stride * len(bufs), dtype=bufs[0].dtype)
            views = []
            for b, buf in enumerate(bufs):
                big[b * stride:b * stride + size] = buf
                views.append(big[b * stride:b * stride + size])
            op = cls(form, views, stride)
            op._keep.append(big)
            return op
        return cls(form, [b.copy() for b in bufs])

    def args(self, *inner: object) -> list[object]:
        if self.form == "P":
            return [self.bufs[0], *inner]
        if self.form == "S":
            return [self.bufs[0], *inner, S(self.stride)]
        ptrs = np.array([b.ctypes.data for b in self.bufs], dtype=np.uint64)
        self._keep.append(ptrs)
        return [ptrs, *inner]


def rand(rng: np.random.Generator, pre: str, shape: tuple[int, ...] | int) -> np.ndarray:
    dt = DTYPE[pre]
    x = rng.standard_normal(shape)
    if np.issubdtype(dt, np.complexfloating):
        x = x + 1j * rng.standard_normal(shape)
    return x.astype(dt)


def scalar(pre: str, v: complex) -> np.ndarray:
    return np.array([v], dtype=DTYPE[pre])


def real_scalar(pre: str, v: float) -> np.ndarray:
    return np.array([v], dtype=RTYPE[pre])


def mat_buf(a: np.ndarray, ld: int) -> np.ndarray:
    """Column-major storage of `a` with leading dimension ld (padding filled with a marker
    so reads of the padding would show)."""
    m, n = a.shape
    buf = np.full(ld * max(n, 1), 7.0, dtype=a.dtype)
    for j in range(n):
        buf[j * ld:j * ld + m] = a[:, j]
    return buf


def mat_from(buf: np.ndarray, m: int, n: int, ld: int) -> np.ndarray:
    return np.stack([buf[j * ld:j * ld + m] for j in range(n)], axis=1) if n else \
        np.zeros((m, 0), buf.dtype)


def op(a: np.ndarray, t: str) -> np.ndarray:
    return a if t == "N" else a.T if t == "T" else a.conj().T


def close(pre: str, got: np.ndarray, want: np.ndarray, scale: float = 1.0) -> bool:
    tol = TOL[pre] * max(1.0, scale)
    return bool(np.allclose(got, want, rtol=tol, atol=tol))
