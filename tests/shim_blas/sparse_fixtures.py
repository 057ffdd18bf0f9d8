"""The fixtures of the cuSPARSE case files (each runs in a child pytest, see env.py), bound
by name in each (`sp = sparse_fixtures.sp`: pytest finds fixtures in a module's namespace):
`sp`, pyshim's libcusparse.so.12 with its exercised entry points written for the coverage
check, and `h`, a cuSPARSE handle on it. Not a conftest.py: this directory's harness.py
would shadow the other test directories' modules of that name."""

from __future__ import annotations

import ctypes
import os
from pathlib import Path

import harness as H
import pytest


@pytest.fixture(scope="module")
def sp() -> H.Lib:
    lib = H.Lib(Path(os.environ["PYSHIM_BLAS_LIB"]) / "libcusparse.so.12", "cusparse")
    yield lib
    H.write_coverage("cusparse", lib.exercised)


@pytest.fixture(scope="module")
def h(sp: H.Lib):
    handle = ctypes.c_void_p()
    sp.call("cusparseCreate", ctypes.byref(handle))
    yield handle
    sp.call("cusparseDestroy", handle)
