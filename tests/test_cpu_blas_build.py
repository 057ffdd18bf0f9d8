"""The CPU device's librocblas.so.5 / librocsolver.so.0: ABI surface and the handle API."""

from __future__ import annotations

import ctypes
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).parent / "cpu_blas"))
import harness as H  # noqa: E402

from pyshim.builders.cpu_blas import NEWER_ROCSOLVER, declared_functions, header_dirs  # noqa: E402


@pytest.fixture(scope="module")
def out() -> Path:
    return H.build_libs()


@pytest.fixture(scope="module")
def rb(out) -> H.Rb:
    return H.Rb(out)


def _dynsyms(lib: Path) -> set[str]:
    text = subprocess.run(["nm", "-D", "--defined-only", str(lib)], capture_output=True,
                          text=True, check=True).stdout
    return {ln.split()[-1] for ln in text.splitlines() if ln.strip()}


def test_sonames_exports_and_full_surface(out):
    decls = declared_functions(header_dirs())
    for lib, prefix in (("librocblas.so.5", "rocblas_"), ("librocsolver.so.0", "rocsolver_")):
        path = out / lib
        dyn = subprocess.run(["readelf", "-d", str(path)], capture_output=True, text=True).stdout
        assert f"Library soname: [{lib}]" in dyn
        assert "libamdhip64.so.7" in dyn
        syms = _dynsyms(path)
        assert syms and all(s.startswith(prefix) for s in syms), sorted(syms)[:5]
        wanted = {n for n, ret in decls.items() if n.startswith(prefix) and
                  ret.endswith("_status")}
        assert wanted <= syms, sorted(wanted - syms)[:10]
        # and nothing the real library does not have (geev: a newer rocSOLVER's)
        assert syms <= set(decls) | set(NEWER_ROCSOLVER), sorted(syms - set(decls))[:10]
    # most of rocBLAS is implemented, not stubbed
    stubbed = (out / "librocblas.so.5.unimplemented").read_text().split()
    assert len(stubbed) < 100


def test_build_is_skipped_when_unchanged(out):
    lib = out / "librocblas.so.5"
    before = lib.stat().st_mtime_ns
    H.build_libs()
    assert lib.stat().st_mtime_ns == before


def test_handle_api(rb):
    b = rb.blas
    h = rb.new_handle()
    mode = ctypes.c_int(-1)
    assert b.rocblas_get_pointer_mode(h, ctypes.byref(mode)) == 0 and mode.value == 0
    assert b.rocblas_set_pointer_mode(h, 1) == 0
    assert b.rocblas_get_pointer_mode(h, ctypes.byref(mode)) == 0 and mode.value == 1
    assert b.rocblas_set_pointer_mode(h, 7) == H.ST_INVALID_VALUE
    assert b.rocblas_get_atomics_mode(h, ctypes.byref(mode)) == 0 and mode.value == 1
    assert b.rocblas_set_atomics_mode(h, 0) == 0
    assert b.rocblas_get_atomics_mode(h, ctypes.byref(mode)) == 0 and mode.value == 0
    assert b.rocblas_set_math_mode(h, 1) == 0
    assert b.rocblas_get_math_mode(h, ctypes.byref(mode)) == 0 and mode.value == 1
    stream = ctypes.c_void_p()
    assert b.rocblas_set_stream(h, ctypes.c_void_p(0xABC)) == 0
    assert b.rocblas_get_stream(h, ctypes.byref(stream)) == 0 and stream.value == 0xABC
    assert b.rocblas_get_stream(None, ctypes.byref(stream)) == H.ST_INVALID_HANDLE
    assert b.rocblas_get_stream(h, None) == H.ST_INVALID_POINTER
    # workspace: rocBLAS-managed until the user hands one in
    b.rocblas_is_managing_device_memory.restype = ctypes.c_bool
    b.rocblas_is_user_managing_device_memory.restype = ctypes.c_bool
    assert b.rocblas_is_managing_device_memory(h)
    ws = np.zeros(1024, np.uint8)
    assert b.rocblas_set_workspace(h, ctypes.c_void_p(ws.ctypes.data), ctypes.c_size_t(1024)) == 0
    assert b.rocblas_is_user_managing_device_memory(h)
    size = ctypes.c_size_t()
    assert b.rocblas_get_device_memory_size(h, ctypes.byref(size)) == 0 and size.value == 1024
    assert b.rocblas_set_workspace(h, None, ctypes.c_size_t(0)) == 0
    assert b.rocblas_is_managing_device_memory(h)
    # size query protocol
    assert b.rocblas_stop_device_memory_size_query(h, ctypes.byref(size)) == \
        H.ST_SIZE_QUERY_MISMATCH
    assert b.rocblas_start_device_memory_size_query(h) == 0
    assert b.rocblas_start_device_memory_size_query(h) == H.ST_SIZE_QUERY_MISMATCH
    x = np.ones(4, np.float32)
    # during a query routines only check arguments: nothing is computed
    assert rb.call("rocblas_sscal", 4, H.scalar("s", 3), x, 1, handle=h) == H.ST_SIZE_UNCHANGED
    assert np.all(x == 1)
    # rocBLAS answers a query right after the handle check, before validating the rest
    assert rb.call("rocblas_sgemm", H.E(111), H.E(111), 4, 4, 4, None, None, 1, None, 1, None,
                   None, 1, handle=h) == H.ST_SIZE_UNCHANGED
    assert b.rocblas_stop_device_memory_size_query(h, ctypes.byref(size)) == 0
    assert size.value == 0
    assert b.rocblas_destroy_handle(h) == 0
    assert b.rocblas_destroy_handle(None) == H.ST_INVALID_HANDLE


def test_version_status_strings_and_copies(rb):
    b = rb.blas
    n = ctypes.c_size_t()
    assert b.rocblas_get_version_string_size(ctypes.byref(n)) == 0
    buf = ctypes.create_string_buffer(n.value)
    assert b.rocblas_get_version_string(buf, ctypes.c_size_t(n.value)) == 0
    assert buf.value.decode().startswith("5.2.")
    assert b.rocblas_get_version_string(buf, ctypes.c_size_t(2)) == H.ST_INVALID_SIZE
    b.rocblas_status_to_string.restype = ctypes.c_char_p
    assert b.rocblas_status_to_string(3) == b"rocblas_status_invalid_pointer"
    # set/get_vector and set/get_matrix with increments and leading dimensions
    src = np.arange(10, dtype=np.float64)
    dst = np.zeros(10)
    assert b.rocblas_set_vector(5, 8, ctypes.c_void_p(src.ctypes.data), 2,
                                ctypes.c_void_p(dst.ctypes.data), 1) == 0
    assert np.array_equal(dst[:5], src[::2])
    a = np.arange(12, dtype=np.float32)
    c = np.zeros(12, np.float32)
    assert b.rocblas_get_matrix(2, 3, 4, ctypes.c_void_p(a.ctypes.data), 4,
                                ctypes.c_void_p(c.ctypes.data), 2) == 0
    assert np.array_equal(c[:6], a.reshape(3, 4)[:, :2].ravel())
    assert b.rocblas_set_matrix(3, 2, 4, ctypes.c_void_p(a.ctypes.data), 2,
                                ctypes.c_void_p(c.ctypes.data), 3) == H.ST_INVALID_SIZE
