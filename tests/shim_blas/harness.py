"""Calling pyshim's libcublas.so.13 / libcusolver.so.12 from Python (ctypes) on the CPU
device, where device memory is host memory: numpy arrays are the "device" buffers.

The cases run in a child process whose LD_LIBRARY_PATH is build/lib:build/cpu (as the
launcher sets it), so the libraries resolve their ROCm dependencies exactly as a CUDA
program's would, and no other test's copy of the CPU device can be bound instead.

`Lib.call(entry, *args)`: `entry` is the cuBLAS/cuSOLVER name in the tables (e.g.
"cublasSgemm_64"); it is resolved to its exported symbol ("cublasSgemm_v2_64") and the
ctypes argument types come from the table's signature. Arguments: int (sizes, enums),
float (by-value scalars), numpy arrays (their address), lists of arrays (an array of
their addresses, for batched calls), None (NULL).
"""

from __future__ import annotations

import ctypes
import json
import os
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[2]
TABLES = REPO / "tables"

# cuBLAS enum values (cublas_api.h)
OP = {"N": 0, "T": 1, "C": 2}
FILL = {"L": 0, "U": 1}
DIAG = {"N": 0, "U": 1}
SIDE = {"L": 0, "R": 1}
POINTER_HOST, POINTER_DEVICE = 0, 1
DTYPE = {"s": np.float32, "d": np.float64, "c": np.complex64, "z": np.complex128}
RTYPE = {"s": np.float32, "d": np.float64, "c": np.float32, "z": np.float64}
TOL = {"s": 1e-3, "d": 1e-10, "c": 1e-3, "z": 1e-10}

_SCALAR = {"int": ctypes.c_int, "int64_t": ctypes.c_int64, "long long": ctypes.c_longlong,
           "size_t": ctypes.c_size_t, "float": ctypes.c_float, "double": ctypes.c_double}


# typedefs of pointers to opaque structs: handles, params and info objects, streams
OPAQUE = ("Handle_t", "Params_t", "Info_t", "Infos_t", "cudaStream_t", "Callback", "Descr_t")


def _ctype(t: str):
    t = t.replace("const ", "").strip()
    if "*" in t or "[" in t or t.endswith(OPAQUE):
        return ctypes.c_void_p
    if t in _SCALAR:
        return _SCALAR[t]
    return ctypes.c_int  # enums


class Lib:
    def __init__(self, path: Path, table: str) -> None:
        self.lib = ctypes.CDLL(str(path))
        with open(TABLES / f"{table}.json") as f:
            self.entries = json.load(f)["entry_points"]
        self.exercised: set[str] = set()
        self._fns: dict[str, ctypes._CFuncPtr] = {}

    def fn(self, entry: str):
        if entry not in self._fns:
            e = self.entries[entry]
            sig = e["symbols"][e["primary"]]
            f = getattr(self.lib, e["primary"])
            f.argtypes = [_ctype(t) for t, _ in sig["params"]]
            f.restype = ctypes.c_int if sig["ret"].endswith("Status_t") else ctypes.c_void_p
            self._fns[entry] = f
        return self._fns[entry]

    def raw(self, entry: str, *args) -> int:
        keep = []
        conv = [_arg(a, keep) for a in args]
        return self.fn(entry)(*conv)

    def call(self, entry: str, *args) -> None:
        st = self.raw(entry, *args)
        assert st == 0, f"{entry} returned status {st}"
        sync()  # results (devInfo above all) are read by the host next

    def ok(self, *entries: str) -> None:
        """Record entries whose results were just checked against the reference."""
        self.exercised.update(entries)


def _arg(a, keep: list):
    if a is None:
        return None
    if isinstance(a, np.ndarray):
        return ctypes.c_void_p(a.ctypes.data)
    if isinstance(a, list):
        ptrs = (ctypes.c_void_p * len(a))(*[x.ctypes.data for x in a])
        keep.append(ptrs)
        return ctypes.cast(ptrs, ctypes.c_void_p)
    if isinstance(a, ctypes.c_void_p):
        return a
    return a


def load() -> tuple[Lib, Lib]:
    lib = Path(os.environ.get("PYSHIM_BLAS_LIB", REPO / "build" / "lib"))
    return Lib(lib / "libcublas.so.13", "cublas"), Lib(lib / "libcusolver.so.12", "cusolver")


def device_array(like: np.ndarray) -> np.ndarray:
    """A copy of `like` in device memory (hipMalloc: host memory on the CPU device, so numpy
    reads it). Where the libraries copy or memset (devInfo, info arrays, SetMatrix), the
    device side must be device memory, as on CUDA: a numpy array there is an error."""
    hip = ctypes.CDLL("libamdhip64.so.7")
    ptr = ctypes.c_void_p()
    assert hip.hipMalloc(ctypes.byref(ptr), ctypes.c_size_t(max(1, like.nbytes))) == 0
    buf = (ctypes.c_uint8 * max(1, like.nbytes)).from_address(ptr.value)
    arr = np.frombuffer(buf, dtype=like.dtype, count=like.size).reshape(like.shape)
    arr[...] = like
    return arr


def sync() -> None:
    """Wait for the device: devInfo is written in stream order, as cuSOLVER writes it, so a
    host read of device memory comes after a synchronisation as in a CUDA program."""
    assert ctypes.CDLL("libamdhip64.so.7").hipDeviceSynchronize() == 0


def write_coverage(name: str, entries: set[str]) -> None:
    out = os.environ.get("PYSHIM_BLAS_COVERAGE")
    if out:
        path = Path(out) / f"{name}.json"
        old = set(json.loads(path.read_text())) if path.exists() else set()
        path.write_text(json.dumps(sorted(old | entries)))


# ---- data ---------------------------------------------------------------------------

def rand(rng: np.random.Generator, pre: str, n: int) -> np.ndarray:
    a = rng.standard_normal(n)
    if pre in "cz":
        a = a + 1j * rng.standard_normal(n)
    return a.astype(DTYPE[pre])


def scalar(pre: str, v: complex) -> np.ndarray:
    return np.array([v if pre in "cz" else v.real], dtype=DTYPE[pre])


def real_scalar(pre: str, v: float) -> np.ndarray:
    return np.array([v], dtype=RTYPE[pre])


class Mat:
    """A column-major rows x cols matrix inside a flat buffer with leading dimension ld."""

    def __init__(self, buf: np.ndarray, rows: int, cols: int, ld: int) -> None:
        self.buf, self.rows, self.cols, self.ld = buf, rows, cols, ld

    @property
    def view(self) -> np.ndarray:
        return self.buf[: self.ld * self.cols].reshape(self.cols, self.ld).T[: self.rows]

    def copy(self) -> np.ndarray:
        return self.view.copy()


def mat(rng: np.random.Generator, pre: str, rows: int, cols: int, ld: int | None = None) -> Mat:
    ld = max(1, rows) if ld is None else ld
    return Mat(rand(rng, pre, max(1, ld * cols)), rows, cols, ld)


def vec(rng: np.random.Generator, pre: str, n: int, inc: int = 1) -> np.ndarray:
    return rand(rng, pre, max(1, 1 + (n - 1) * abs(inc)))


def strided(buf: np.ndarray, n: int, inc: int) -> np.ndarray:
    """The logical vector BLAS sees: a negative increment walks from the far end."""
    idx = np.arange(n) * abs(inc)
    return buf[idx] if inc > 0 else buf[idx[::-1]]


def op(a: np.ndarray, t: str) -> np.ndarray:
    return {"N": a, "T": a.T, "C": a.conj().T}[t]


def close(got, want, pre: str, scale: float = 1.0) -> None:
    got, want = np.asarray(got), np.asarray(want)
    tol = TOL[pre] * max(1.0, scale)
    err = np.max(np.abs(got - want)) if got.size else 0.0
    ref = max(1.0, float(np.max(np.abs(want))) if want.size else 1.0)
    assert err <= tol * ref, f"max error {err} > {tol * ref}"


def name(pre: str, base: str, w: str) -> str:
    """cuBLAS entry name: name('s', 'axpy', '_64') -> cublasSaxpy_64."""
    return f"cublas{pre.upper()}{base}{w}"


def tri(a: np.ndarray, uplo: str, diag: str = "N") -> np.ndarray:
    t = np.triu(a) if uplo == "U" else np.tril(a)
    if diag == "U":
        t = t - np.diag(np.diag(t)) + np.eye(a.shape[0], dtype=a.dtype)
    return t


def sym(a: np.ndarray, uplo: str, herm: bool = False) -> np.ndarray:
    """The symmetric/Hermitian matrix BLAS reads from one triangle of `a`."""
    t = np.triu(a) if uplo == "U" else np.tril(a)
    other = t.conj().T if herm else t.T
    full = t + other - np.diag(np.diag(t))
    if herm:
        full = full - np.diag(np.diag(full).imag * 1j)
    return full


def pack(a: np.ndarray, uplo: str) -> np.ndarray:
    """Packed column-major storage of one triangle."""
    n = a.shape[0]
    cols = [a[: j + 1, j] if uplo == "U" else a[j:, j] for j in range(n)]
    return np.concatenate(cols) if n else a.reshape(0)


def unpack(p: np.ndarray, n: int, uplo: str) -> np.ndarray:
    a = np.zeros((n, n), dtype=p.dtype)
    k = 0
    for j in range(n):
        if uplo == "U":
            a[: j + 1, j] = p[k:k + j + 1]
            k += j + 1
        else:
            a[j:, j] = p[k:k + n - j]
            k += n - j
    return a


def band_store(a: np.ndarray, kl: int, ku: int, ld: int) -> np.ndarray:
    """General band storage (column-major, ld >= kl+ku+1): a[i,j] at row ku+i-j of col j."""
    m, n = a.shape
    buf = np.zeros(ld * max(1, n), dtype=a.dtype)
    b = buf.reshape(max(1, n), ld).T
    for j in range(n):
        for i in range(max(0, j - ku), min(m, j + kl + 1)):
            b[ku + i - j, j] = a[i, j]
    return buf


def band_of(a: np.ndarray, kl: int, ku: int) -> np.ndarray:
    m, n = a.shape
    i, j = np.indices((m, n))
    return np.where((j - i <= ku) & (i - j <= kl), a, 0)


def sym_band_store(a: np.ndarray, k: int, uplo: str, ld: int) -> np.ndarray:
    """Symmetric/triangular band storage of one triangle with k off-diagonals."""
    n = a.shape[0]
    buf = np.zeros(ld * max(1, n), dtype=a.dtype)
    b = buf.reshape(max(1, n), ld).T
    for j in range(n):
        if uplo == "U":
            for i in range(max(0, j - k), j + 1):
                b[k + i - j, j] = a[i, j]
        else:
            for i in range(j, min(n, j + k + 1)):
                b[i - j, j] = a[i, j]
    return buf
