"""PTX is refused as ptxas refuses it: the mutants that ptxas rejected and pyshim used to
translate into crashing kernels (issue 19), and a differential test that runs mutants of
real nvcc-built kernels through both and asserts pyshim refuses at least what ptxas
refuses (and that validate() itself never refuses what ptxas accepts)."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pyshim.paths import REPO_DIR
from pyshim.ptx.errors import PtxError
from pyshim.ptx.frontend.parser import parse
from pyshim.ptx.frontend.validate import validate
from pyshim.ptx.translate import translate

PTXAS = shutil.which("ptxas") or "/usr/local/cuda/bin/ptxas"
needs_ptxas = pytest.mark.skipif(not Path(PTXAS).exists(), reason="ptxas is not installed")

KERNEL = """\
.version 8.0
.target sm_80
.address_size 64
.visible .entry k(.param .u64 p, .param .u64 q)
{{
  .reg .b32 %r<4>;
  .reg .b64 %rd<10>;
  .reg .f32 %f<4>;
  .reg .f64 %fd<3>;
  .reg .b16 %rs<3>;
  .reg .pred %p<2>;
  ld.param.u64 %rd1, [p];
  cvta.to.global.u64 %rd2, %rd1;
  ld.global.u32 %r1, [%rd2];
  {line}
  st.global.u32 [%rd2], %r1;
  ret;
}}
"""

REFUSED = [
    ("ld.param.u64 %rd9, %rd3;", "memory operand"),
    ("ld.global.f32 %fd1, [%rd2];", "floating-point register"),
    ("ld.global.f64 %f1, [%rd2];", "narrower"),
    ("ld.global.u64 %r2, [%rd2];", "narrower"),
    ("st.global.u32 [%rd2], %rs1;", "narrower"),
    ("ld.global.u32 %r2, [%r1];", "64-bit address"),
    ("st.global.u32 [%r1], %r2;", "64-bit address"),
    ("vote.sync.ballot.b32 %rd9, %p1, -1;", "32-bit register"),
    ("shfl.sync.bfly.b32 %rd1, %r1, 1, 31, -1;", "32-bit register"),
    ("add.u32 %r1, %r1, %rd3;", "32-bit register"),
    ("add.s64 %rd3, %rd3, %r1;", "64-bit register"),
    ("mov.u32 %r1, %rd3;", "32-bit register"),
    ("mul.wide.u32 %r3, %r1, %r1;", "64-bit register"),
    ("and.pred %p1, %p1, %r1;", ".pred register"),
    ("selp.b32 %r1, %r1, %rd1, %p1;", "32-bit register"),
    ("cvt.u64.u32 %r1, %r1;", "narrower"),
    ("cvt.rn.f32.f64 %fd1, %fd1;", "floating-point register"),
    ("ld.param.u32 %f1, [p];", "cannot hold an integer"),
    ("add.u32 %r1, %f1, %r1;", "cannot hold an integer"),
    ("mov.u64 %rd1, %fd1;", "cannot hold an integer"),
    ("st.global.b64 [%rd2], %f1;", "narrower"),
]
ACCEPTED = ["ld.global.f32 %rd3, [%rd2];", "ld.global.u16 %rd3, [%rd2];",
            "ld.shared.u32 %r2, [%r1];", "ld.local.u32 %r2, [%r1];",
            "add.f32 %f1, %f1, %r1;", "mov.u32 %r1, %tid.x;", "mov.b64 %rd1, {%r1,%r2};",
            "cvt.u32.u64 %rd1, %rd1;", "mul.wide.u32 %rd3, %r1, %r1;",
            "st.global.v2.f32 [%rd2], {%f1,%r1};", "ld.global.u8 %rs1, [%rd2];",
            "ld.global.b32 %fd1, [%rd2];", "st.global.b16 [%rd2], %fd1;",
            "and.b32 %r1, %f1, %r1;", "add.f64 %fd1, %fd1, %rd1;", "mov.f32 %f1, %r1;",
            "vote.sync.ballot.b32 %f1, %p1, -1;", "cvt.f64.f32 %rd1, %f1;"]


@pytest.mark.parametrize("line,why", REFUSED)
def test_what_ptxas_refuses_is_refused_with_line_and_reason(line: str, why: str) -> None:
    with pytest.raises(PtxError, match=re.escape(why)) as err:
        translate(KERNEL.format(line=line), "cpu-wave64")
    assert err.value.line == 15, str(err.value)


@pytest.mark.parametrize("line", ACCEPTED)
def test_what_ptxas_accepts_still_translates(line: str) -> None:
    translate(KERNEL.format(line=line), "cpu-wave64")


def test_duplicate_parameter_names_are_refused() -> None:
    ptx = KERNEL.format(line="").replace(".param .u64 q", ".param .u64 p")
    with pytest.raises(PtxError, match="duplicate parameter name 'p'") as err:
        translate(ptx, "cpu-wave64")
    assert err.value.line == 4


@needs_ptxas
@pytest.mark.parametrize("line,why", REFUSED)
def test_the_refused_lines_are_what_ptxas_refuses(tmp_path: Path, line: str, why: str) -> None:
    assert not ptxas_accepts(KERNEL.format(line=line), tmp_path)


# ---- differential: mutants of nvcc's PTX through ptxas and pyshim ---------------------------

SOURCES = [REPO_DIR / "examples" / f"{n}.cu" for n in ("vector_add", "k_atomics",
                                                        "k_warp_shuffle", "k_matmul_tiled")]
_CHECKED = re.compile(r"^\s*(?:@!?%\w+\s+)?(ld|st|ldu|cvt|add|sub|mul|mad|and|or|xor|min|max|"
                      r"neg|abs|not|mov|selp|vote|shfl)\.[^;]*;", re.M)
_REG = re.compile(r"%[a-z]+\d+\b")
_DECL = re.compile(r"^\s*\.reg\s+\.(\w+)\s+(%[a-z]+)<(\d+)>;", re.M)


def ptxas_accepts(ptx: str, tmp: Path) -> bool:
    src = tmp / "m.ptx"
    src.write_text(ptx)
    target = re.search(r"^\.target\s+(sm_\d+)", ptx, re.M)
    arch = target.group(1) if target else "sm_80"
    proc = subprocess.run([PTXAS, f"-arch={arch}", str(src), "-o", "/dev/null"],
                          capture_output=True, text=True, timeout=60)
    return proc.returncode == 0


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> list[str]:
    if shutil.which("nvcc") is None:
        pytest.skip("nvcc is not installed")
    out = tmp_path_factory.mktemp("ptx")
    texts = []
    for src in SOURCES:
        ptx = out / f"{src.stem}.ptx"
        subprocess.run(["nvcc", "-ptx", "-arch=sm_80", "-o", str(ptx), str(src)], check=True,
                       timeout=300)
        texts.append(ptx.read_text())
    return texts


@st.composite
def mutants(draw: st.DrawFn, texts: list[str]) -> str:
    ptx = draw(st.sampled_from(texts))
    regs = [f"{prefix}{min(1, int(n) - 1)}" for _t, prefix, n in _DECL.findall(ptx)]
    how = draw(st.sampled_from(["register", "register", "register", "unbracket",
                                "duplicate-param", "narrow-address"]))
    sites = list(_CHECKED.finditer(ptx))
    if how == "duplicate-param":
        names = re.findall(r"\.param\s+\.\w+\s+(?:\.ptr\s+\S+\s+)?(\w+)", ptx)
        if len(names) >= 2:
            i = draw(st.integers(1, len(names) - 1))
            return re.sub(rf"\b{names[i]}\b", names[0], ptx)
        how = "register"
    site = draw(st.sampled_from(sites))
    line = site.group(0)
    if how == "unbracket" and "[" in line:
        new = re.sub(r"\[([^\]]+)\]", r"\1", line, count=1)
    elif how == "narrow-address" and re.search(r"\[%rd\d+", line):
        narrow = next((r for r in regs if r.startswith("%r") and not r.startswith("%rd")), "%r1")
        new = re.sub(r"\[%rd\d+", "[" + narrow, line, count=1)
    else:
        used = _REG.findall(line)
        if not used or not regs:
            return ptx
        old = draw(st.sampled_from(used))
        new_reg = draw(st.sampled_from(regs))
        new = line.replace(old, new_reg, 1)
    return ptx[:site.start()] + new + ptx[site.end():]


def pyshim_refuses(ptx: str) -> tuple[bool, bool]:
    """(refused at all, refused by validate() itself)."""
    try:
        module = parse(ptx)
    except PtxError:
        return True, False
    try:
        validate(module)
    except PtxError:
        return True, True
    return False, False


@needs_ptxas
def test_pyshim_refuses_a_superset_of_what_ptxas_refuses(corpus: list[str],
                                                         tmp_path: Path) -> None:
    seen = {"refused": 0, "accepted": 0}

    @settings(max_examples=60, deadline=None, database=None,
              suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
    @given(mutants(corpus))
    def check(ptx: str) -> None:
        ok = ptxas_accepts(ptx, tmp_path)
        refused, by_validate = pyshim_refuses(ptx)
        if not ok:
            seen["refused"] += 1
            assert refused, "ptxas refused this mutant and pyshim accepted it:\n" + _diff(ptx)
        else:
            seen["accepted"] += 1
            assert not by_validate, "validate() refused what ptxas accepts:\n" + _diff(ptx)

    check()
    assert seen["refused"] >= 5 and seen["accepted"] >= 5, seen  # both sides were exercised


def _diff(ptx: str) -> str:
    import difflib

    for text in _CORPUS_CACHE:
        if len(text.splitlines()) == len(ptx.splitlines()):
            return "\n".join(d for d in difflib.unified_diff(
                text.splitlines(), ptx.splitlines(), lineterm="", n=0))
    return ptx[:3000]


_CORPUS_CACHE: list[str] = []


@pytest.fixture(autouse=True)
def _remember(request: pytest.FixtureRequest) -> None:
    if "corpus" in request.fixturenames:
        _CORPUS_CACHE[:] = request.getfixturevalue("corpus")
