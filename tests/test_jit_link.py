"""The driver's cuLink* API with every CUjitInputType (issue 15 point 4): PTX, cubin
carrying PTX, fat binary, host object, host library and LTO-IR inputs linked with a PTX
kernel that calls a function and uses a variable defined in the other input; and the PTX
linker itself."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from pyshim.kernels.ptx_link import PtxLinkError, bound_registers, link_ptx
from pyshim.paths import build_dir

HERE = Path(__file__).parent / "jit"
EXPECTED = "result 1 3 5 7 counter 64"
CLIENT_PYTHON = Path(os.environ.get("PYSHIM_CLIENTS_PYTHON", "/work/venvs/clients/bin/python"))


@pytest.fixture(scope="module")
def inputs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    from pyshim.builders.components import build_all
    from pyshim.builders.jit import build_jit

    if shutil.which("nvcc") is None:
        pytest.skip("nvcc is not on PATH")
    build_all()
    build_jit()
    d = tmp_path_factory.mktemp("link")
    gen = "-gencode=arch=compute_75,code=compute_75"

    def nvcc(*args: str) -> None:
        subprocess.run(["nvcc", "-rdc=true", *args], check=True, cwd=d, capture_output=True)

    nvcc("-ptx", "-arch=compute_75", str(HERE / "link_kernel.cu"), "-o", "a.ptx")
    nvcc("-ptx", "-arch=compute_75", str(HERE / "link_helper.cu"), "-o", "b.ptx")
    nvcc("-c", gen, str(HERE / "link_helper.cu"), "-o", "b.o")
    nvcc("-fatbin", gen, str(HERE / "link_helper.cu"), "-o", "b.fatbin")
    subprocess.run(["ar", "rcs", "libb.a", "b.o"], check=True, cwd=d)
    subprocess.run([str(build_dir() / "bin" / "ptxas"), "-arch=sm_75", "b.ptx", "-o",
                    "b.cubin"], check=True, cwd=d)
    return {"a.ptx": d / "a.ptx", "ptx": d / "b.ptx", "object": d / "b.o",
            "fatbin": d / "b.fatbin", "library": d / "libb.a", "cubin": d / "b.cubin"}


def link_run(python: str, *args: str, env: dict[str, str] | None = None) -> str:
    proc = subprocess.run([sys.executable, "-m", "pyshim", "run", "--backend", "cpu", python,
                           str(HERE / "use_culink.py"), *args], capture_output=True, text=True,
                          timeout=300, env={**os.environ, **(env or {})})
    return proc.stdout + proc.stderr


@pytest.mark.parametrize("kind", ["ptx", "cubin", "fatbin", "object", "library"])
def test_culink_links_ptx_with(inputs: dict[str, Path], kind: str) -> None:
    out = link_run(sys.executable, f"ptx={inputs['a.ptx']}", f"{kind}={inputs[kind]}")
    assert EXPECTED in out, out


def test_culink_single_ptx_input_still_loads(inputs: dict[str, Path], tmp_path: Path) -> None:
    whole = tmp_path / "ab.ptx"
    whole.write_text(link_ptx([inputs["a.ptx"].read_text(), inputs["ptx"].read_text()]))
    assert EXPECTED in link_run(sys.executable, f"ptx={whole}")


def test_culink_unresolved_function_is_an_error_naming_it(inputs: dict[str, Path]) -> None:
    out = link_run(sys.executable, f"ptx={inputs['a.ptx']}")
    assert "FAIL cuModuleLoadData" in out and "_Z5twicef" in out


@pytest.mark.slow
@pytest.mark.skipif(not CLIENT_PYTHON.exists(), reason="no Python with cuda-bindings "
                    "($PYSHIM_CLIENTS_PYTHON) for NVRTC's LTO-IR and nvJitLink")
def test_culink_links_ltoir(inputs: dict[str, Path], tmp_path: Path) -> None:
    for src, name in (("link_kernel.cu", "a.ltoir"), ("link_helper.cu", "b.ltoir")):
        subprocess.run([str(CLIENT_PYTHON), str(HERE / "make_ltoir.py"), str(HERE / src),
                        str(tmp_path / name)], check=True, capture_output=True)
    # an sm_XX nvJitLink knows: the wave32 CPU device's; the translator in a subprocess, as
    # that Python has no cffi
    out = link_run(str(CLIENT_PYTHON), f"nvvm={tmp_path / 'a.ltoir'}",
                   f"nvvm={tmp_path / 'b.ltoir'}",
                   env={"PYSHIM_CPU_WAVE": "32", "PYSHIM_TRANSLATOR": "subprocess"})
    assert EXPECTED in out, out


MOD_A = """.version 8.0
.target sm_75
.address_size 64
.extern .func (.param .b32 r) f (.param .b32 x);
.extern .global .align 4 .u32 v;
.weak .func g() { ret; }
.visible .entry k() { call g; call f; ret; }
"""
MOD_B = """.version 9.0
.target sm_80
.address_size 64
.visible .global .align 4 .u32 v;
.weak .func g() { ret; }
.visible .func (.param .b32 r) f (.param .b32 x) { ret; }
.func unused() { call missing_driver_function; ret; }
.global .align 8 .u64 table[1] = {unused};
"""


def test_link_ptx_resolves_externs_and_keeps_one_weak_copy() -> None:
    out = link_ptx([MOD_A, MOD_B])
    assert out.startswith(".version 9.0\n.target sm_80\n.address_size 64\n")
    assert ".extern" not in out
    assert out.count(".weak .func g()") == 1
    assert out.index(".global .align 4 .u32 v") < out.index(".entry k")
    # the function's declaration stays as a prototype ahead of its use
    assert out.index(".func (.param .b32 r) f (.param .b32 x);") < out.index(".entry k")
    # what no kernel reaches and the host cannot name is left out, as nvlink leaves unused
    # library code (an -rdc=true program's device-runtime unit)
    assert "unused" not in out and "table" not in out


def test_link_ptx_keeps_one_copy_of_a_common_variable() -> None:
    # numba-cuda's debug builds define each function's environment in every module
    env = ".common .global .align 8 .u64 env;\n"
    out = link_ptx([MOD_A + env + ".visible .entry k2() { ld.global.u64 %rd1, [env]; }\n",
                    MOD_B + env])
    assert out.count(".common .global .align 8 .u64 env;") == 1


def test_link_ptx_refuses_two_strong_definitions() -> None:
    with pytest.raises(PtxLinkError, match="k is defined in more than one module"):
        link_ptx([MOD_A, MOD_B + ".visible .entry k() { exit; }\n"])


def test_link_ptx_keeps_each_modules_own_internal_definitions() -> None:
    # every -rdc unit with a printf has its own `$str` (libcudadevrt too): internal names
    # are the module's own; the later module's is renamed, its uses with it, no other word
    def unit(entry: str, text: str) -> str:
        return (".version 9.0\n.target sm_80\n.address_size 64\n"
                f".global .align 1 .b8 $str[3] = {{{text}}};\n"
                ".global .align 4 .u32 $str1;\n"
                f".visible .entry {entry}() {{ .reg .b64 %rd<3>; mov.u64 %rd1, $str; "
                f"mov.u64 %rd2, $str1; ret; }}\n")

    out = link_ptx([unit("a", "65, 66, 0"), unit("b", "67, 68, 0")])
    assert ".global .align 1 .b8 $str[3] = {65, 66, 0};" in out
    assert ".global .align 1 .b8 $str_ps1_1[3] = {67, 68, 0};" in out
    assert ".global .align 4 .u32 $str1_ps1_1;" in out
    b = out[out.index(".entry b"):]
    assert "mov.u64 %rd1, $str_ps1_1;" in b and "mov.u64 %rd2, $str1_ps1_1;" in b
    a = out[out.index(".entry a"):out.index(".entry b")]
    assert "mov.u64 %rd1, $str;" in a
    # an external name defined twice is still an error
    with pytest.raises(PtxLinkError, match="a is defined in more than one module"):
        link_ptx([unit("a", "1, 2, 0"), unit("a", "3, 4, 0")])


def test_rdc_program_with_two_translation_units(inputs: dict[str, Path],
                                                tmp_path: Path) -> None:
    # the kernel calls a function and uses a variable of the other unit; nvcc also embeds
    # the device runtime's unit
    exe = tmp_path / "rdc"
    subprocess.run(["nvcc", "-rdc=true", "-gencode=arch=compute_75,code=compute_75",
                    str(HERE / "rdc_main.cu"), str(HERE / "link_helper.cu"), "-o", str(exe)],
                   check=True, capture_output=True)
    proc = subprocess.run([sys.executable, "-m", "pyshim", "run", "--backend", "cpu", str(exe)],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "no error 1 3 5 counter 64" in proc.stdout


def test_link_ptx_of_one_module_is_that_module() -> None:
    assert link_ptx([MOD_A]) == MOD_A


def test_bound_registers_marks_every_kernel_without_a_bound_of_its_own() -> None:
    ptx = (".version 8.0\n.target sm_75\n.address_size 64\n"
           ".visible .entry a(.param .u64 p)\n{\n    ret;\n}\n"
           ".visible .entry b()\n.maxnreg 16\n{\n    ret;\n}\n"
           ".extern .func (.param .b32 r) f(.param .b32 x);\n"
           ".visible .entry c()\n.maxntid 64, 1, 1\n{\n    ret;\n}\n")
    out = bound_registers(ptx, 38)
    assert out.count(".maxnreg 38") == 2  # a and c; b keeps its own 16
    assert ".maxnreg 16" in out
    a, b, c = out.split(".visible .entry ")[1:]
    assert ".maxnreg 38" in a.split("{")[0] and ".maxnreg 38" in c.split("{")[0]
    assert ".maxnreg 38" not in b
    from pyshim.ptx.frontend.parser import parse

    kernels = {k.name: k for k in parse(out).kernels}
    assert kernels["a"].directives["maxnreg"] == [38]
    assert kernels["b"].directives["maxnreg"] == [16]
