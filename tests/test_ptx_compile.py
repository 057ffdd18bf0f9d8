"""pyshim.kernels.compile: the CPU kernel compiler wrapper."""

from __future__ import annotations

import pytest

from pyshim.kernels.compile import CompileError, compile_cpu, compiler_identity
from pyshim.ptx.errors import UnsupportedInstruction
from pyshim.ptx.translate import translate


def test_identity_names_compiler_flags_and_abi():
    ident = compiler_identity()
    assert "-ffp-contract=off" in ident and "abi " in ident
    assert ident == compiler_identity()


def test_compile_error_carries_the_diagnostics():
    with pytest.raises(CompileError) as info:
        compile_cpu("int f(void) { return undeclared_thing; }\n")
    assert "undeclared_thing" in str(info.value)
    assert info.value.cuda_error == "CUDA_ERROR_INVALID_PTX"


def test_missing_compiler_is_a_clear_error(monkeypatch):
    monkeypatch.setenv("PYSHIM_CC", "/nonexistent/cc")
    with pytest.raises(CompileError, match="not found"):
        compile_cpu("int x;\n")


def test_shared_object_exports_the_module_descriptor():
    so = compile_cpu(translate(".version 8.0\n.target sm_80\n.address_size 64\n"
                               ".visible .entry k() { ret; }\n"))
    assert so[:4] == b"\x7fELF" and b"pyshim_module" in so


def test_32_bit_ptx_is_refused():
    with pytest.raises(UnsupportedInstruction, match="address_size 32"):
        translate(".version 8.0\n.target sm_80\n.address_size 32\n.entry k() { ret; }\n")
