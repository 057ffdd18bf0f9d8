"""Every exported cuBLAS and cuSOLVER symbol, called with a live handle and degenerate
arguments (zero sizes and NULL pointers; negative sizes; out-of-range enums), must return
a status and never crash (child process, see harness.py)."""

from __future__ import annotations

import ctypes
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
import harness as H  # noqa: E402

from pyshim.codegen.common import load_table  # noqa: E402

HANDLES = ("cublasHandle_t", "cusolverDnHandle_t")
# would end the handle the other calls use, or have no handle to check
SKIP = {"cublasDestroy_v2", "cusolverDnDestroy", "cublasXerbla"}
STATUS_MAX = 64  # every cuBLAS/cuSOLVER status is a small non-negative number


def _symbols(table: str) -> list[tuple[str, dict]]:
    entries = load_table(table)["entry_points"].values()
    return sorted((s, sig) for e in entries for s, sig in e["symbols"].items()
                  if s not in SKIP and sig["ret"].endswith("Status_t"))


def _args(sig: dict, handle: int, fill: int) -> list:
    out: list = []
    for ctype, _name in sig["params"]:
        t = ctype.replace("const ", "").strip()
        if t in HANDLES:
            out.append(ctypes.c_void_p(handle))
        elif "*" in t or "[" in t or t.endswith(H.OPAQUE):
            out.append(ctypes.c_void_p(0))
        elif t in ("float", "double"):
            out.append(ctypes.c_double(0.0) if t == "double" else ctypes.c_float(0.0))
        elif t in ("int64_t", "long long", "size_t"):
            out.append(ctypes.c_int64(fill if t != "size_t" else 0))
        else:
            out.append(ctypes.c_int(fill))
    return out


@pytest.fixture(scope="module")
def libs():
    cb, cs = H.load()
    hb, hs = ctypes.c_void_p(), ctypes.c_void_p()
    cb.call("cublasCreate", ctypes.byref(hb))
    cs.call("cusolverDnCreate", ctypes.byref(hs))
    yield {"cublas": (cb, hb.value), "cusolver": (cs, hs.value)}
    cb.call("cublasDestroy", hb)
    cs.call("cusolverDnDestroy", hs)


@pytest.mark.parametrize("fill", [0, -1, 99])
@pytest.mark.parametrize("table", ["cublas", "cusolver"])
def test_degenerate_calls_return_a_status(libs, table: str, fill: int) -> None:
    lib, handle = libs[table]
    bad = []
    for symbol, sig in _symbols(table):
        fn = getattr(lib.lib, symbol)
        fn.restype = ctypes.c_int
        fn.argtypes = None
        st = fn(*_args(sig, handle, fill))
        if not 0 <= st < STATUS_MAX:
            bad.append((symbol, st))
    assert not bad, bad
