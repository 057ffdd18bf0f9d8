"""cuBLAS handles, streams, modes, workspace, host<->device copies, versions, status names,
bad arguments and NOT_SUPPORTED stubs, through pyshim's libcublas.so.13 (child process,
see harness.py)."""

from __future__ import annotations

import ctypes
import re
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

sys.path.insert(0, str(Path(__file__).parent))
import harness as H  # noqa: E402

from pyshim.codegen.common import load_table  # noqa: E402
from pyshim.tables.fetch import include_dir  # noqa: E402

FAST = settings(max_examples=8, deadline=None,
                suppress_health_check=[HealthCheck.function_scoped_fixture])
ST_SUCCESS, ST_NOT_INITIALIZED, ST_INVALID_VALUE, ST_NOT_SUPPORTED = 0, 1, 7, 15


@pytest.fixture(scope="module")
def cb() -> H.Lib:
    lib, _ = H.load()
    lib.lib.pyshim_cublas_unsupported_count.restype = ctypes.c_ulong
    lib.lib.pyshim_cublas_unsupported_count.argtypes = [ctypes.c_char_p]
    lib.lib.cublasGetStatusName.restype = ctypes.c_char_p
    lib.lib.cublasGetStatusString.restype = ctypes.c_char_p
    lib.lib.cublasGetCudartVersion.restype = ctypes.c_size_t
    yield lib
    H.write_coverage("cublas", lib.exercised)


@pytest.fixture(scope="module")
def hip() -> ctypes.CDLL:
    return ctypes.CDLL("libamdhip64.so.7")


@pytest.fixture
def h(cb: H.Lib):
    handle = ctypes.c_void_p()
    cb.call("cublasCreate", ctypes.byref(handle))
    yield handle
    cb.call("cublasDestroy", handle)


def _header_macro(path: Path, macro: str) -> int:
    m = re.search(rf"#define\s+{macro}\s+(\d+)", path.read_text())
    assert m, f"{macro} not in {path}"
    return int(m.group(1))


def test_create_destroy_and_null_handle(cb: H.Lib) -> None:
    handle = ctypes.c_void_p()
    cb.call("cublasCreate", ctypes.byref(handle))
    assert handle.value
    cb.call("cublasDestroy", handle)
    assert cb.raw("cublasDestroy", None) == ST_NOT_INITIALIZED
    x = np.ones(4, np.float32)
    assert cb.raw("cublasSscal", None, 4, np.ones(1, np.float32), x, 1) == ST_NOT_INITIALIZED
    cb.ok("cublasCreate", "cublasDestroy")


def test_forged_and_stale_handles_are_refused(cb: H.Lib) -> None:
    """A handle that is not a live one is never read through (issue 19): a forged number
    or a destroyed handle is CUBLAS_STATUS_NOT_INITIALIZED, as for NULL."""
    handle = ctypes.c_void_p()
    cb.call("cublasCreate", ctypes.byref(handle))
    cb.call("cublasDestroy", handle)
    x = np.ones(4, np.float32)
    for bad in (handle, ctypes.c_void_p(0x1234), ctypes.c_void_p(0x7F0000001000)):
        assert cb.raw("cublasSetStream", bad, None) == ST_NOT_INITIALIZED
        assert cb.raw("cublasSscal", bad, 4, np.ones(1, np.float32), x, 1) == ST_NOT_INITIALIZED
        assert cb.raw("cublasDestroy", bad) == ST_NOT_INITIALIZED
    cb.ok("cublasCreate", "cublasDestroy", "cublasSetStream", "cublasSscal")


def test_stream(cb: H.Lib, hip: ctypes.CDLL, h) -> None:
    stream = ctypes.c_void_p()
    assert hip.hipStreamCreate(ctypes.byref(stream)) == 0
    try:
        cb.call("cublasSetStream", h, stream)
        got = ctypes.c_void_p()
        cb.call("cublasGetStream", h, ctypes.byref(got))
        assert got.value == stream.value
        # work on the stream, then the result is there after a sync
        x = np.arange(8, dtype=np.float64)
        cb.call("cublasDscal", h, 8, np.array([2.0]), x, 1)
        assert hip.hipStreamSynchronize(stream) == 0
        assert np.array_equal(x, 2 * np.arange(8))
        cb.call("cublasSetStream", h, None)
        cb.call("cublasGetStream", h, ctypes.byref(got))
        assert not got.value
    finally:
        hip.hipStreamDestroy(stream)
    cb.ok("cublasSetStream", "cublasGetStream")


def test_modes(cb: H.Lib, h) -> None:
    v = ctypes.c_int(-1)
    cb.call("cublasGetPointerMode", h, ctypes.byref(v))
    assert v.value == H.POINTER_HOST
    cb.call("cublasSetPointerMode", h, H.POINTER_DEVICE)
    cb.call("cublasGetPointerMode", h, ctypes.byref(v))
    assert v.value == H.POINTER_DEVICE
    assert cb.raw("cublasSetPointerMode", h, 7) == ST_INVALID_VALUE
    for mode in (0, 1):  # CUBLAS_ATOMICS_NOT_ALLOWED, _ALLOWED
        cb.call("cublasSetAtomicsMode", h, mode)
        cb.call("cublasGetAtomicsMode", h, ctypes.byref(v))
        assert v.value == mode
    cb.call("cublasGetMathMode", h, ctypes.byref(v))
    assert v.value == 0  # CUBLAS_DEFAULT_MATH
    # TF32 tensor op, pedantic, and a flag combined with a mode: recorded as given
    for mode in (3, 2, 16 | 3, 0):
        cb.call("cublasSetMathMode", h, mode)
        cb.call("cublasGetMathMode", h, ctypes.byref(v))
        assert v.value == mode
    assert cb.raw("cublasSetMathMode", h, 9) == ST_INVALID_VALUE
    assert cb.raw("cublasSetMathMode", None, 0) == ST_NOT_INITIALIZED
    # the SM count target: 0 (the device's count) until set, recorded, 0 restores it
    cb.call("cublasGetSmCountTarget", h, ctypes.byref(v))
    assert v.value == 0
    cb.call("cublasSetSmCountTarget", h, 12)
    cb.call("cublasGetSmCountTarget", h, ctypes.byref(v))
    assert v.value == 12
    assert cb.raw("cublasSetSmCountTarget", h, -1) == ST_INVALID_VALUE
    assert cb.raw("cublasSetSmCountTarget", None, 4) == ST_NOT_INITIALIZED
    assert cb.raw("cublasGetSmCountTarget", h, None) == ST_INVALID_VALUE
    cb.call("cublasSetSmCountTarget", h, 0)
    cb.call("cublasGetSmCountTarget", h, ctypes.byref(v))
    assert v.value == 0
    cb.ok("cublasGetPointerMode", "cublasSetPointerMode", "cublasSetAtomicsMode",
          "cublasGetAtomicsMode", "cublasSetMathMode", "cublasGetMathMode",
          "cublasSetSmCountTarget", "cublasGetSmCountTarget")


def test_workspace(cb: H.Lib, h) -> None:
    ws = np.zeros(1 << 16, np.uint8)
    cb.call("cublasSetWorkspace", h, ws, ws.nbytes)
    a, b = np.ones(64, np.float32), np.ones(64, np.float32)
    c = np.zeros(64, np.float32)
    one, zero = np.ones(1, np.float32), np.zeros(1, np.float32)
    cb.call("cublasSgemm", h, 0, 0, 8, 8, 8, one, a, 8, b, 8, zero, c, 8)
    assert np.all(c == 8)
    assert cb.raw("cublasSetWorkspace", h, None, 1024) == ST_INVALID_VALUE
    cb.call("cublasSetWorkspace", h, None, 0)
    cb.ok("cublasSetWorkspace")


@pytest.mark.parametrize("asyn", [False, True])
@pytest.mark.parametrize("w", ["", "_64"])
@FAST
@given(rows=st.integers(0, 9), cols=st.integers(0, 9), pad_a=st.integers(0, 3),
       pad_b=st.integers(0, 3), elem=st.sampled_from([1, 4, 8, 16]))
def test_matrix_copies(cb: H.Lib, rows, cols, pad_a, pad_b, w, asyn, elem) -> None:
    lda, ldb = max(1, rows) + pad_a, max(1, rows) + pad_b
    rng = np.random.default_rng(rows * 10 + cols)
    a = rng.integers(0, 255, size=max(1, lda * cols * elem), dtype=np.uint8)
    b = H.device_array(np.zeros(max(1, ldb * cols * elem), np.uint8))
    back = np.zeros_like(a)
    sfx = ("Async" if asyn else "") + w
    extra = (None,) if asyn else ()
    cb.call(f"cublasSetMatrix{sfx}", rows, cols, elem, a, lda, b, ldb, *extra)
    cb.call(f"cublasGetMatrix{sfx}", rows, cols, elem, b, ldb, back, lda, *extra)
    for j in range(cols):
        col = slice(j * lda * elem, (j * lda + rows) * elem)
        assert np.array_equal(back[col], a[col])
        assert np.array_equal(b[j * ldb * elem:(j * ldb + rows) * elem], a[col])
    cb.ok(f"cublasSetMatrix{sfx}", f"cublasGetMatrix{sfx}")


@pytest.mark.parametrize("asyn", [False, True])
@pytest.mark.parametrize("w", ["", "_64"])
@FAST
@given(n=st.integers(0, 20), incx=st.integers(1, 3), incy=st.integers(1, 3))
def test_vector_copies(cb: H.Lib, n, incx, incy, w, asyn) -> None:
    x = np.arange(1, 2 + n * incx, dtype=np.float64)
    y = H.device_array(np.zeros(1 + n * incy))
    back = np.zeros_like(x)
    sfx = ("Async" if asyn else "") + w
    extra = (None,) if asyn else ()
    cb.call(f"cublasSetVector{sfx}", n, 8, x, incx, y, incy, *extra)
    cb.call(f"cublasGetVector{sfx}", n, 8, y, incy, back, incx, *extra)
    assert np.array_equal(y[: n * incy: incy], x[: n * incx: incx])
    assert np.array_equal(back[: n * incx: incx], x[: n * incx: incx])
    cb.ok(f"cublasSetVector{sfx}", f"cublasGetVector{sfx}")


def test_copy_bad_arguments(cb: H.Lib) -> None:
    a = np.zeros(64, np.float32)
    assert cb.raw("cublasSetMatrix", 4, 4, 4, a, 3, a, 4) == ST_INVALID_VALUE  # lda < rows
    assert cb.raw("cublasGetMatrix", 4, 4, 4, a, 4, a, 2) == ST_INVALID_VALUE  # ldb < rows
    assert cb.raw("cublasSetMatrix", -1, 4, 4, a, 4, a, 4) == ST_INVALID_VALUE
    assert cb.raw("cublasSetMatrix", 4, 4, 0, a, 4, a, 4) == ST_INVALID_VALUE
    assert cb.raw("cublasSetVector", 4, 4, a, 0, a, 1) == ST_INVALID_VALUE
    assert cb.raw("cublasGetVector", -2, 4, a, 1, a, 1) == ST_INVALID_VALUE
    assert cb.raw("cublasSetVectorAsync", 4, 4, a, 1, None, 1, None) == ST_INVALID_VALUE


def test_versions_and_status_names(cb: H.Lib) -> None:
    api = include_dir("cublas13") / "cublas_api.h"
    v = ctypes.c_int()
    for prop, macro in ((0, "CUBLAS_VER_MAJOR"), (1, "CUBLAS_VER_MINOR"), (2, "CUBLAS_VER_PATCH")):
        cb.call("cublasGetProperty", prop, ctypes.byref(v))
        assert v.value == _header_macro(api, macro)
    assert cb.raw("cublasGetProperty", 3, ctypes.byref(v)) == ST_INVALID_VALUE
    handle = ctypes.c_void_p()
    cb.call("cublasCreate", ctypes.byref(handle))
    cb.call("cublasGetVersion", handle, ctypes.byref(v))
    cb.call("cublasDestroy", handle)
    major, minor, patch = (_header_macro(api, f"CUBLAS_VER_{k}")
                           for k in ("MAJOR", "MINOR", "PATCH"))
    assert v.value == major * 10000 + minor * 100 + patch
    assert cb.raw("cublasGetVersion", None, ctypes.byref(v)) == ST_NOT_INITIALIZED
    runtime = include_dir("cuda13-runtime") / "cuda_runtime_api.h"
    assert cb.lib.cublasGetCudartVersion() == _header_macro(runtime, "CUDART_VERSION")
    pair = load_table("enums")["pairs"]["cublasStatus_t->rocblas_status"]
    for cname, value, _r, _rv in pair["values"]:
        assert cb.lib.cublasGetStatusName(value).decode() == cname
        text = cb.lib.cublasGetStatusString(value).decode()
        assert text and text != "unknown error"
    assert cb.lib.cublasGetStatusName(12345).decode() == "<unknown>"
    cb.ok("cublasGetProperty", "cublasGetVersion", "cublasGetCudartVersion", "cublasGetStatusName",
          "cublasGetStatusString")


def test_unsupported_stub_logs_once_and_counts(cb: H.Lib, h, capfd) -> None:
    name = "cublasStpttr"  # class "unsupported" in the tables
    assert cb.entries[name]["class"] == "unsupported"
    count = cb.lib.pyshim_cublas_unsupported_count
    before = count(name.encode())
    for _ in range(2):
        assert cb.raw(name, h, 0, 1, None, None, 1) == ST_NOT_SUPPORTED
    assert count(name.encode()) == before + 2
    err = capfd.readouterr().err
    assert err.count(f"{name} is not supported") == (1 if before == 0 else 0)


def test_every_exported_symbol_is_the_tables(cb: H.Lib) -> None:
    table = load_table("cublas")["entry_points"]
    for entry in table.values():
        for symbol in entry["symbols"]:
            assert hasattr(cb.lib, symbol), symbol


def test_negative_sizes_are_invalid_value(cb: H.Lib, h) -> None:
    a = np.zeros(16, np.float32)
    one = np.ones(1, np.float32)
    assert cb.raw("cublasSgemm", h, 0, 0, -1, 2, 2, one, a, 2, a, 2, one, a, 2) == ST_INVALID_VALUE
    assert cb.raw("cublasSgemm", h, 0, 0, 4, 2, 2, one, a, 2, a, 2, one, a, 4) == ST_INVALID_VALUE


def test_bad_enum_is_invalid_value(cb: H.Lib, h) -> None:
    a = np.zeros(16, np.float32)
    one = np.ones(1, np.float32)
    assert cb.raw("cublasSgemm", h, 7, 0, 2, 2, 2, one, a, 2, a, 2, one, a, 2) == ST_INVALID_VALUE
    assert cb.raw("cublasStrmv", h, 0, 0, 9, 2, a, 2, a, 1) == ST_INVALID_VALUE
