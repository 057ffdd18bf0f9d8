"""The cuda target's semantics without a GPU: a PTX module P (nvcc -ptx of tests/ptx/*.cu, of
the examples and of the benchmark kernels; and tests/ptx/ops.py's per-instruction module) is
translated by the cuda target and compiled back to PTX P' by NVRTC
(pyshim.differential.cuda_target_ptx); the same kernels from P and from P' then run on the
CPU device with the same inputs, and every output must be the same bytes. The CPU device
runs both, so a difference can only come from the cuda target (or from how we take
NVRTC's PTX)."""

from __future__ import annotations

import re
import shutil
import subprocess
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pytest
from ptx import ops
from ptx.harness import build

from pyshim.differential.checks import cuda_target_ptx, cuda_target_source
from pyshim.kernels import nvrtc
from pyshim.paths import REPO_DIR
from pyshim.ptx.targets.cuda import DOLLAR, nvrtc_source
from pyshim.ptx.translate import translate

HERE = Path(__file__).parent / "ptx"
EXAMPLES = REPO_DIR / "examples"
pytestmark = [
    pytest.mark.skipif(shutil.which("nvcc") is None, reason="needs nvcc for the PTX of P"),
    pytest.mark.skipif(not nvrtc.available(),
                       reason="NVRTC not found: pip install nvidia-cuda-nvrtc==13.0.88"),
]
# the module source -> (file, nvcc -arch)
SOURCES: dict[str, tuple[Path, str]] = {
    "kernels": (HERE / "kernels.cu", "compute_75"),
    "vectorize": (HERE / "vectorize.cu", "compute_75"),
    "warp80": (HERE / "warp80.cu", "sm_80"),
    "gaps": (HERE / "gaps.cu", "sm_80"),
    "k_half": (EXAMPLES / "k_half.cu", "compute_75"),
    "k_device_functions": (EXAMPLES / "k_device_functions.cu", "compute_75"),
    "k_constant": (EXAMPLES / "k_constant.cu", "compute_75"),
    "k_atomics": (EXAMPLES / "k_atomics.cu", "compute_75"),
    "k_warp_shuffle": (EXAMPLES / "k_warp_shuffle.cu", "compute_75"),
    "k_warp_vote": (EXAMPLES / "k_warp_vote.cu", "compute_75"),
    "k_dynamic_shared": (EXAMPLES / "k_dynamic_shared.cu", "compute_75"),
    "k_grid3d": (EXAMPLES / "k_grid3d.cu", "compute_75"),
    "k_matmul_tiled": (EXAMPLES / "k_matmul_tiled.cu", "compute_75"),
    "k_printf": (EXAMPLES / "k_printf.cu", "compute_75"),
    "bench": (REPO_DIR / "benchmarks" / "kernels" / "kernels.cu", "compute_75"),
}
# NVRTC spells warp80's match/redux as ~3700 lines of shuffles: as region loops (the default
# CPU mode) clang takes minutes over them, as fibers a second or two
FIBERS = {"warp80": "cpu-wave32+fibers"}


# ---- inputs ---------------------------------------------------------------------------------
def floats(rng: np.random.Generator, n: int) -> np.ndarray:
    """Ordinary values plus the ones where semantics differ: signed zeros, infinities, NaN,
    subnormals, halfway cases for rounding."""
    x = (rng.standard_normal(n) * 8).astype(np.float32)
    special = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1e-40, -1e-42, 2.5, -3.5, 0.5,
                        1.5, 3e38, -3e38, 1e-30], np.float32)
    x[rng.choice(n, min(n, len(special)), replace=False)] = special[:min(n, len(special))]
    return x


def scaled(x: np.ndarray, k: float) -> np.ndarray:
    with np.errstate(over="ignore"):  # overflow to infinity is one of the cases wanted
        return x * x.dtype.type(k)


def halves(rng: np.random.Generator, n: int) -> np.ndarray:
    """Every kind of binary16 bit pattern (NaNs, infinities, subnormals included)."""
    return rng.integers(0, 1 << 16, n).astype(np.uint16)


def ints(rng: np.random.Generator, n: int, lo: int = -1000, hi: int = 1000) -> np.ndarray:
    return rng.integers(lo, hi, n).astype(np.int32)


def z(n: int, dtype=np.int32) -> np.ndarray:
    return np.zeros(n, dtype)


@dataclass
class Case:
    module: str
    kernel: str  # the kernel's name, or a part of its mangled name
    grid: tuple
    block: tuple
    args: Callable[[np.random.Generator], list]
    dyn_shared: int = 0
    setup: Callable | None = field(default=None)  # (module, rng) -> None: globals
    writes: bool = True  # False: the kernel has no output (then only its launch is compared)
    # arguments whose element order depends on the order threads win atomics (tickets,
    # compaction slots): compared as sorted values; CUDA fixes no such order either
    unordered: tuple[int, ...] = ()

    @property
    def id(self) -> str:
        return f"{self.module}:{self.kernel}"


_ROWS: list[np.ndarray] = []


def _rows(rng: np.random.Generator) -> list:
    """vectorize.cu rows_reversed: a table of row pointers. The rows are read only, so both
    runs share them (and the table holds the same addresses)."""
    if not _ROWS:
        _ROWS.extend(floats(rng, 40) for _ in range(3))
    return [40, np.array([d.ctypes.data for d in _ROWS], np.uint64), z(120, np.float32)]


def _constants(m, rng: np.random.Generator) -> None:
    m.global_array("taps", np.float32)[:] = floats(rng, 9)
    m.global_array("bias", np.int32)[:] = 3
    m.global_array("nonzero_outputs", np.uint64)[:] = 0


def _stats(rng: np.random.Generator) -> list:
    s = np.zeros(5, np.int32)
    s.view(np.float32)[3] = -np.inf
    s[2] = 1 << 30
    return [ints(rng, 3000, 0, 1009), 3000, s, z(3000, np.uint32), z(4, np.float32)]


CASES = [
    Case("kernels", "saxpy", (4,), (256,),
         lambda r: [1000, 2.5, floats(r, 1000), floats(r, 1000)]),
    Case("kernels", "block_sum", (12,), (256,),
         lambda r: [floats(r, 3000), z(1, np.float32), 3000]),
    Case("kernels", "warp_ops", (2,), (64,),
         lambda r: [ints(r, 128), z(128), z(128, np.uint32), z(128), z(128)]),
    Case("kernels", "histogram", (40,), (128,),
         lambda r: [r.integers(0, 1 << 32, 5000, dtype=np.uint64).astype(np.uint32),
                    z(16, np.uint32), 5000, z(1)],
         setup=lambda m, r: m.global_array("d_counter", np.int32).fill(0)),
    Case("kernels", "fib_kernel", (1,), (20,), lambda r: [z(20, np.int64)]),
    Case("kernels", "cond_barrier", (4,), (128,),
         lambda r: [np.array([0, 1, 5, 9], np.int32), z(512)]),
    Case("kernels", "matmul", (4, 4), (8, 8),
         lambda r: [floats(r, 1024), floats(r, 1024), z(1024, np.float32), 32],
         dyn_shared=512),
    Case("kernels", "mathk", (2,), (256,),
         lambda r: [floats(r, 300), z(300, np.float32), z(300), z(300, np.float64), 300]),
    Case("kernels", "bar_red", (1,), (96,), lambda r: [ints(r, 96, -10, 10), z(96)]),
    Case("kernels", "local_across_barrier", (1,), (64,),
         lambda r: [ints(r, 64, 0, 1000), np.full(64, -7, np.int32), 50]),
    Case("kernels", "shfl_width", (1,), (64,), lambda r: [ints(r, 64), z(256)]),
    Case("kernels", "callee_barrier", (1,), (64,), lambda r: [z(64)]),
    Case("vectorize", "saxpy", (3,), (128,),
         lambda r: [300, -1.25, floats(r, 384), floats(r, 384), z(384, np.float32)]),
    Case("vectorize", "stencil", (3, 2), (8, 8),
         lambda r: [20, 13, floats(r, 260), z(260, np.float32)]),
    Case("vectorize", "rows_reversed", (3,), (64,), _rows),
    Case("vectorize", "scale_strided", (2,), (64,),
         lambda r: [1000, 0.3, floats(r, 1000), z(1000, np.float32)]),
    Case("vectorize", "pick_gather", (2,), (128,),
         lambda r: [250, ints(r, 256, 0, 256), floats(r, 256), floats(r, 256),
                    z(256, np.float32)]),
    Case("vectorize", "compact", (2,), (128,),
         lambda r: [250, ints(r, 256), np.full(256, -1, np.int32), z(1, np.uint32)],
         unordered=(2,)),
    Case("warp80", "collectives", (1,), (64,), lambda r: [ints(r, 64, -50, 50), z(384)]),
    Case("warp80", "divergent", (1,), (64,), lambda r: [ints(r, 64), z(64)]),
    Case("gaps", "managed_warp", (1,), (32,), lambda r: [z(32)],
         setup=lambda m, r: m.global_array("counter", np.int32).fill(5)),
    Case("gaps", "async_copy", (1,), (64,), lambda r: [floats(r, 64), z(64, np.float32), 40]),
    Case("gaps", "async_copy16", (1,), (32,), lambda r: [floats(r, 128), z(128, np.float32)]),
    Case("gaps", "half_compare", (1,), (64,), lambda r: [halves(r, 64), halves(r, 64), z(64)]),
    Case("gaps", "exp_pow", (1,), (64,), lambda r: [floats(r, 64), z(128, np.float32)]),
    Case("k_half", "half_ops", (4,), (256,),
         lambda r: [halves(r, 1024), halves(r, 1024), scaled(floats(r, 1024), 1000),
                    *[z(1024, np.uint16) for _ in range(4)], z(1024),
                    z(1024, np.uint16), z(1024, np.float32), 1000]),
    Case("k_half", "half2_ops", (2,), (128,),
         lambda r: [halves(r, 512), halves(r, 512), z(512, np.uint16), 250]),
    Case("k_device_functions", "recursive", (2,), (128,),
         lambda r: [ints(r, 256, -5000, 5000), ints(r, 256, 1, 300), z(256), z(256), z(256),
                    z(256, np.float32), 250]),
    Case("k_device_functions", "scale_addIiLi3", (2,), (128,),
         lambda r: [ints(r, 256, -1 << 20, 1 << 20), ints(r, 256), 256]),
    Case("k_device_functions", "scale_addIdLi2", (2,), (128,),
         lambda r: [floats(r, 256).astype(np.float64) / 3, floats(r, 256).astype(np.float64),
                    256]),
    Case("k_device_functions", "apply", (2,), (128,),
         lambda r: [(-17).to_bytes(4, "little", signed=True), ints(r, 256), 200]),
    Case("k_constant", "convolve", (3,), (128,),
         lambda r: [floats(r, 700), z(700, np.float32), 700], setup=_constants),
    Case("k_atomics", "histogram", (4,), (128,),
         lambda r: [ints(r, 3000, 0, 1 << 30), 3000, z(64, np.uint32)]),
    Case("k_atomics", "stats", (4,), (128,), _stats, unordered=(3,)),
    Case("k_warp_shuffle", "shuffles", (2,), (256,), lambda r: [ints(r, 512), z(512 * 6), 512]),
    Case("k_warp_vote", "block_sum", (3,), (256,), lambda r: [ints(r, 2000), 2000, z(1)]),
    Case("k_warp_vote", "votes", (2,), (256,),
         lambda r: [ints(r, 512, -3, 8), z(16, np.uint32), z(16), z(16), z(16)]),
    Case("k_dynamic_shared", "reverse_segments", (3,), (64,), lambda r: [ints(r, 192)],
         dyn_shared=256),
    Case("k_dynamic_shared", "block_sums", (3,), (64,),
         lambda r: [floats(r, 192), z(3, np.float32)], dyn_shared=256),
    Case("k_dynamic_shared", "staged_rotate", (3,), (64,), lambda r: [ints(r, 192)],
         dyn_shared=256),
    Case("k_dynamic_shared", "saxpy_grid_stride", (4,), (96,),
         lambda r: [0.25, floats(r, 1000), floats(r, 1000), 1000]),
    Case("k_grid3d", "paint", (2, 2, 2), (4, 4, 2),
         lambda r: [z(6 * 7 * 3, np.uint32), z(6 * 7 * 3), z(3), 6, 7, 3]),
    Case("k_matmul_tiled", "matmul_tiled", (2, 3), (16, 16),
         lambda r: [floats(r, 40 * 20), floats(r, 20 * 30), z(40 * 30, np.float32), 40, 30,
                    20]),
    Case("k_printf", "report", (2,), (64,), lambda r: [z(128), 100]),
    Case("bench", "empty_kernel", (2,), (32,), lambda r: [], writes=False),
    Case("bench", "saxpy", (3,), (256,),
         lambda r: [700, 1.75, floats(r, 768), floats(r, 768), z(768, np.float32)]),
    Case("bench", "reduce", (3,), (256,), lambda r: [700, floats(r, 768), z(3, np.float32)]),
    Case("bench", "sgemm", (2, 2), (16, 16),
         lambda r: [32, floats(r, 1024), floats(r, 1024), z(1024, np.float32)]),
    Case("bench", "histogram", (3,), (256,),
         lambda r: [2000, r.integers(0, 256, 2048).astype(np.uint8), z(256, np.uint32)]),
    Case("bench", "stencil", (2, 2), (16, 16),
         lambda r: [30, 20, floats(r, 600), z(600, np.float32)]),
    Case("bench", "scan", (3,), (256,), lambda r: [700, ints(r, 768), z(768)]),
]


# ---- P and P' ------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def ptx_pair(tmp_path_factory):
    """module name -> (P, P'), made on first use."""
    tmp = tmp_path_factory.mktemp("roundtrip")
    made: dict[str, tuple[str, str]] = {}

    def get(module: str) -> tuple[str, str]:
        if module not in made:
            src, arch = SOURCES[module]
            out = tmp / f"{module}.ptx"
            subprocess.run(["nvcc", "-ptx", "-O2", f"-arch={arch}", str(src), "-o", str(out)],
                           check=True, capture_output=True, timeout=300)
            p = out.read_text()
            made[module] = (p, cuda_target_ptx(p, arch.replace("sm_", "compute_"),
                                               name=f"{module}.cu"))
        return made[module]

    return get


@pytest.fixture(scope="module")
def modules(ptx_pair, tmp_path_factory):
    """module name -> (CPU-device module of P, of P'), built on first use (wave32: CUDA's own
    warp width; the round trip checks the translation, not the wave64 emulation)."""
    tmp = tmp_path_factory.mktemp("rtmods")
    built: dict[str, tuple] = {}

    def get(module: str):
        if module not in built:
            p, p2 = ptx_pair(module)
            target = FIBERS.get(module, "cpu-wave32")
            built[module] = (build(p, target, tmp), build(p2, target, tmp))
        return built[module]

    return get


def _matches(symbol: str, kernel: str) -> bool:
    """`kernel` is the symbol itself, or the start of its mangled name after the length
    (async_copy matches _Z10async_copyPKfPfi, not _Z12async_copy16...)."""
    if symbol == kernel:
        return True
    m = re.match(r"_Z(\d+)", symbol)
    return bool(m) and symbol[m.end():].startswith(kernel) and \
        len(kernel) >= int(m.group(1)) and kernel[:int(m.group(1))].isidentifier()


def _kernel(m, kernel: str) -> str:
    found = [k for k in m.kernels if _matches(k, kernel)]
    assert len(found) == 1, (kernel, sorted(m.kernels))
    return found[0]


def _run(m, case: Case) -> tuple[list[np.ndarray], list[bytes], list[str]]:
    rng = np.random.default_rng(7)
    args = case.args(rng)
    if case.setup:
        case.setup(m, np.random.default_rng(8))
    before = [a.copy() for a in args if isinstance(a, np.ndarray)]
    m.printed.clear()
    m.launch(_kernel(m, case.kernel), case.grid, case.block, args, warp_size=32,
             dyn_shared=case.dyn_shared)
    after = [a for a in args if isinstance(a, np.ndarray)]
    # every module global that keeps its PTX name in P' (nvcc's $-names are respelled)
    globs = [bytes(m.global_array(g, np.uint8)) for g in sorted(m.globals) if "$" not in g
             and DOLLAR not in g]
    changed = any(not np.array_equal(a.view(np.uint8), b.view(np.uint8))
                  for a, b in zip(before, after, strict=True))
    after = [np.sort(a) if i in case.unordered else a for i, a in enumerate(args)
             if isinstance(a, np.ndarray)]
    return after, globs, list(m.printed) + (["<changed>"] if changed else [])


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_kernel_outputs_are_the_same_bytes(modules, case):
    mp, mp2 = modules(case.module)
    out_p, glob_p, printed_p = _run(mp, case)
    out_p2, glob_p2, printed_p2 = _run(mp2, case)
    # a kernel that wrote nothing would make the comparison vacuous
    assert "<changed>" in printed_p or glob_p or not case.writes, \
        f"{case.id}: the kernel wrote nothing"
    for i, (a, b) in enumerate(zip(out_p, out_p2, strict=True)):
        if a.tobytes() != b.tobytes():
            bad = np.flatnonzero(a.view(np.uint8) != b.view(np.uint8))
            elem = int(bad[0]) // a.itemsize
            pytest.fail(f"{case.id}: argument {i} differs at element {elem}: "
                        f"P {a[elem]!r} vs P' {b[elem]!r} ({len(bad)} bytes differ)")
    assert glob_p == glob_p2, f"{case.id}: module globals differ"
    assert printed_p == printed_p2


# ---- every instruction spec of tests/ptx/ops.py, and more --------------------------------
# forms ops.py has no Python reference for, where the cuda target's spelling matters most:
# approximate and directed-rounding floating point, .ftz/.sat, f16/bf16, carries, bit fields
# (PTX ISA 9.0, chapter 9.7); the body uses %a %b %c and writes %d
EXTRA = [
    ("ex2.approx.f32 %d, %a;", ("f32",), "f32"),
    ("ex2.approx.ftz.f32 %d, %a;", ("f32",), "f32"),
    ("lg2.approx.f32 %d, %a;", ("f32",), "f32"),
    ("lg2.approx.ftz.f32 %d, %a;", ("f32",), "f32"),
    ("sin.approx.f32 %d, %a;", ("f32",), "f32"),
    ("cos.approx.ftz.f32 %d, %a;", ("f32",), "f32"),
    ("tanh.approx.f32 %d, %a;", ("f32",), "f32"),
    ("rcp.approx.f32 %d, %a;", ("f32",), "f32"),
    ("rcp.approx.ftz.f32 %d, %a;", ("f32",), "f32"),
    ("rcp.approx.ftz.f64 %d, %a;", ("f64",), "f64"),
    ("rcp.rn.f32 %d, %a;", ("f32",), "f32"),
    ("rcp.rz.f64 %d, %a;", ("f64",), "f64"),
    ("rsqrt.approx.f32 %d, %a;", ("f32",), "f32"),
    ("rsqrt.approx.f64 %d, %a;", ("f64",), "f64"),
    ("sqrt.approx.f32 %d, %a;", ("f32",), "f32"),
    ("sqrt.rz.f32 %d, %a;", ("f32",), "f32"),
    ("div.approx.f32 %d, %a, %b;", ("f32","f32"), "f32"),
    ("div.full.f32 %d, %a, %b;", ("f32","f32"), "f32"),
    ("div.rz.f32 %d, %a, %b;", ("f32","f32"), "f32"),
    ("div.rn.ftz.f32 %d, %a, %b;", ("f32","f32"), "f32"),
    ("add.rz.f32 %d, %a, %b;", ("f32","f32"), "f32"),
    ("mul.rm.f32 %d, %a, %b;", ("f32","f32"), "f32"),
    ("sub.rp.f64 %d, %a, %b;", ("f64","f64"), "f64"),
    ("fma.rp.f32 %d, %a, %b, %c;", ("f32","f32","f32"), "f32"),
    ("fma.rn.ftz.sat.f32 %d, %a, %b, %c;", ("f32","f32","f32"), "f32"),
    ("add.ftz.f32 %d, %a, %b;", ("f32","f32"), "f32"),
    ("mul.ftz.sat.f32 %d, %a, %b;", ("f32","f32"), "f32"),
    ("add.f32 %d, %a, %b;", ("f32","f32"), "f32"),
    ("mul.f32 %d, %a, %b;", ("f32","f32"), "f32"),
    ("mad.rn.f64 %d, %a, %b, %c;", ("f64","f64","f64"), "f64"),
    ("min.f32 %d, %a, %b;", ("f32","f32"), "f32"),
    ("max.ftz.f32 %d, %a, %b;", ("f32","f32"), "f32"),
    ("min.NaN.f32 %d, %a, %b;", ("f32","f32"), "f32"),
    ("min.f64 %d, %a, %b;", ("f64","f64"), "f64"),
    ("abs.ftz.f32 %d, %a;", ("f32",), "f32"),
    ("neg.f32 %d, %a;", ("f32",), "f32"),
    ("neg.ftz.f32 %d, %a;", ("f32",), "f32"),
    ("copysign.f32 %d, %a, %b;", ("f32","f32"), "f32"),
    ("testp.subnormal.f32 %d, %a;", ("f32",), "pred"),
    ("testp.notanumber.f64 %d, %a;", ("f64",), "pred"),
    ("cvt.rzi.s32.f32 %d, %a;", ("f32",), "s32"),
    ("cvt.rni.u64.f64 %d, %a;", ("f64",), "u64"),
    ("cvt.rmi.f32.f32 %d, %a;", ("f32",), "f32"),
    ("cvt.rni.ftz.f32.f32 %d, %a;", ("f32",), "f32"),
    ("cvt.rn.f32.f64 %d, %a;", ("f64",), "f32"),
    ("cvt.rz.f32.f64 %d, %a;", ("f64",), "f32"),
    ("cvt.ftz.f64.f32 %d, %a;", ("f32",), "f64"),
    ("cvt.sat.f32.f32 %d, %a;", ("f32",), "f32"),
    ("cvt.rn.f32.s64 %d, %a;", ("s64",), "f32"),
    ("cvt.sat.u8.s32 %d, %a;", ("s32",), "u8"),
    ("cvt.s16.s32 %d, %a;", ("s32",), "s16"),
    ("{ .reg .f16 %h; cvt.rn.f16.f32 %h, %a; mov.b16 %d, %h; }", ("f32",), "b16"),
    ("{ .reg .f16 %h; mov.b16 %h, %a; cvt.f32.f16 %d, %h; }", ("b16",), "f32"),
    ("{ .reg .bf16 %h; cvt.rn.bf16.f32 %h, %a; mov.b16 %d, %h; }", ("f32",), "b16"),
    ("{ .reg .f16 %x, %y, %z, %w; mov.b16 %x, %a; mov.b16 %y, %b; mov.b16 %z, %c; fma.rn.f16 %w, %x, %y, %z; mov.b16 %d, %w; }", ("b16","b16","b16"), "b16"),
    ("{ .reg .f16 %x, %y, %w; mov.b16 %x, %a; mov.b16 %y, %b; add.f16 %w, %x, %y; mov.b16 %d, %w; }", ("b16","b16"), "b16"),
    ("{ .reg .f16 %x, %y, %w; mov.b16 %x, %a; mov.b16 %y, %b; mul.ftz.f16 %w, %x, %y; mov.b16 %d, %w; }", ("b16","b16"), "b16"),
    ("{ .reg .f16 %x, %w; mov.b16 %x, %a; ex2.approx.f16 %w, %x; mov.b16 %d, %w; }", ("b16",), "b16"),
    ("{ .reg .f16 %x, %w; mov.b16 %x, %a; tanh.approx.f16 %w, %x; mov.b16 %d, %w; }", ("b16",), "b16"),
    ("{ .reg .f16x2 %x, %y, %w; mov.b32 %x, %a; mov.b32 %y, %b; mul.rn.f16x2 %w, %x, %y; mov.b32 %d, %w; }", ("b32","b32"), "b32"),
    ("{ .reg .b32 %x; min.NaN.f16x2 %x, %a, %b; mov.b32 %d, %x; }", ("b32","b32"), "b32"),
    ("{ .reg .bf16x2 %x; fma.rn.bf16x2 %x, %a, %b, %c; mov.b32 %d, %x; }", ("b32","b32","b32"), "b32"),
    ("{ .reg .pred %q; setp.ltu.f32 %q, %a, %b; selp.s32 %d, 1, 0, %q; }", ("f32","f32"), "s32"),
    ("{ .reg .pred %q; setp.num.f64 %q, %a, %b; selp.s32 %d, 1, 0, %q; }", ("f64","f64"), "s32"),
    ("slct.f32.f32 %d, %a, %b, %c;", ("f32","f32","f32"), "f32"),
    ("mul.hi.s64 %d, %a, %b;", ("s64","s64"), "s64"),
    ("mul.hi.u64 %d, %a, %b;", ("u64","u64"), "u64"),
    ("mad.wide.s32 %d, %a, %b, %c;", ("s32","s32","s64"), "s64"),
    ("mad.hi.sat.s32 %d, %a, %b, %c;", ("s32","s32","s32"), "s32"),
    ("mul24.hi.u32 %d, %a, %b;", ("u32","u32"), "u32"),
    ("sad.s32 %d, %a, %b, %c;", ("s32","s32","s32"), "s32"),
    ("add.sat.s32 %d, %a, %b;", ("s32","s32"), "s32"),
    ("sub.cc.u32 %d, %a, %b;", ("u32","u32"), "u32"),
    ("{ .reg .u32 %x; add.cc.u32 %x, %a, %b; addc.u32 %d, %a, %x; }", ("u32","u32"), "u32"),
    ("shf.l.wrap.b32 %d, %a, %b, %c;", ("b32","b32","u32"), "b32"),
    ("shf.r.clamp.b32 %d, %a, %b, %c;", ("b32","b32","u32"), "b32"),
    ("shr.s32 %d, %a, %b;", ("s32","u32"), "s32"),
    ("shl.b64 %d, %a, %b;", ("b64","u32"), "b64"),
    ("bfind.shiftamt.s32 %d, %a;", ("s32",), "u32"),
    ("brev.b64 %d, %a;", ("b64",), "b64"),
    ("clz.b64 %d, %a;", ("b64",), "u32"),
    ("popc.b64 %d, %a;", ("b64",), "u32"),
    ("bfe.s64 %d, %a, %b, %c;", ("s64","u32","u32"), "s64"),
    ("bfi.b64 %d, %a, %b, %c, 7;", ("b64","b64","u32"), "b64"),
    ("dp4a.s32.u32 %d, %a, %b, %c;", ("b32","b32","s32"), "s32"),
    ("dp2a.lo.u32.s32 %d, %a, %b, %c;", ("b32","b32","u32"), "u32"),
    ("rem.s64 %d, %a, %b;", ("s64","s64"), "s64"),
    ("abs.s32 %d, %a;", ("s32",), "s32"),
    ("neg.s64 %d, %a;", ("s64",), "s64"),
    ("min.u16 %d, %a, %b;", ("u16","u16"), "u16"),
    ("max.relu.s32 %d, %a, %b;", ("s32","s32"), "s32"),
    ("cnot.b32 %d, %a;", ("b32",), "b32"),
    ("fns.b32 %d, %a, %b, %c;", ("b32","u32","s32"), "b32"),
    ("bmsk.clamp.b32 %d, %a, %b;", ("u32","u32"), "b32"),
    ("szext.wrap.s32 %d, %a, %b;", ("b32","u32"), "b32"),
    # warp collectives and special registers (every lane of the block takes part)
    ("shfl.sync.bfly.b32 %d, %a, 5, 31, -1;", ("b32",), "b32"),
    ("shfl.sync.up.b32 %d, %a, 3, 0, -1;", ("b32",), "b32"),
    ("shfl.sync.idx.b32 %d, %a, %b, 31, -1;", ("b32", "u32"), "b32"),
    ("shfl.sync.idx.b32 %d, %a, %b, 0x1c07, -1;", ("b32", "u32"), "b32"),
    ("{ .reg .pred %q; shfl.sync.down.b32 %d|%q, %a, 7, 31, -1; @%q add.u32 %d, %d, 1; }",
     ("b32",), "b32"),
    ("vote.sync.ballot.b32 %d, %a, -1;", ("pred",), "b32"),
    ("{ .reg .pred %q; vote.sync.any.pred %q, %a, -1; selp.u32 %d, 1, 0, %q; }", ("pred",),
     "u32"),
    ("vote.sync.uni.pred %d, %a, -1;", ("pred",), "pred"),
    ("vote.sync.all.pred %d, %a, 0x0000ffff;", ("pred",), "pred"),
    ("match.any.sync.b32 %d, %a, -1;", ("u8",), "b32"),
    ("{ .reg .pred %q; match.all.sync.b32 %d|%q, %a, -1; @%q add.u32 %d, %d, 1; }", ("u8",),
     "b32"),
    ("match.any.sync.b64 %d, %a, -1;", ("b64",), "b32"),
    ("redux.sync.add.s32 %d, %a, -1;", ("s32",), "s32"),
    ("redux.sync.min.u32 %d, %a, -1;", ("u32",), "u32"),
    ("redux.sync.or.b32 %d, %a, -1;", ("b32",), "b32"),
    ("activemask.b32 %d;", (), "b32"),
    ("mov.u32 %d, %laneid;", (), "u32"),
    ("mov.u32 %d, %warpid;", (), "u32"),
    ("{ .reg .pred %q; setp.ne.u32 %q, %a, 0; bar.red.popc.u32 %d, 0, %q; }", ("u32",), "u32"),
    ("{ .reg .pred %q; bar.red.or.pred %q, 1, %a; selp.u32 %d, 7, 3, %q; }", ("pred",), "u32"),
    ("{ bar.warp.sync -1; mov.u32 %d, %lanemask_lt; }", (), "u32"),
    # atomics on one shared address (every lane contends) and on the lane's own element
    ("{ .reg .b64 %ad; mov.u64 %ad, %rd4; atom.global.add.f64 %d, [%ad], %b; }",
     ("f64", "f64"), "f64"),
    ("{ .reg .b64 %ad; mov.u64 %ad, %rd4; atom.global.or.b64 %d, [%ad], %b; }",
     ("b64", "b64"), "b64"),
    ("{ .reg .b64 %ad; mov.u64 %ad, %rd4; atom.global.cas.b64 %d, [%ad], %b, %c; }",
     ("b64", "b64", "b64"), "b64"),
    ("{ .reg .b64 %ad; mov.u64 %ad, %rd4; atom.global.min.s32 %d, [%ad], %b; }",
     ("s32", "s32"), "s32"),
    ("{ .reg .b64 %ad; mov.u64 %ad, %rd4; red.global.add.f32 [%ad], %b; ld.global.f32 %d, [%ad]; }",
     ("f32", "f32"), "f32"),
    ("{ .reg .b64 %ad; mov.u64 %ad, %rd0; atom.global.add.u32 %d, [%ad], %b; "
     "bar.sync 0; ld.global.u32 %d, [%ad]; }", ("u32", "u32"), "u32"),
    ("{ .reg .b64 %ad; mov.u64 %ad, %rd0; atom.global.exch.b32 %d, [%ad], 9; "
     "bar.sync 0; ld.global.u32 %d, [%ad]; }", ("u32",), "u32"),
    ("{ .shared .align 4 .u32 s; .reg .u32 %x; st.shared.u32 [s], 0; bar.sync 0; "
     "atom.shared.add.u32 %x, [s], %a; bar.sync 0; ld.shared.u32 %d, [s]; }", ("u32",), "u32"),
    ("{ .reg .b64 %ad; mov.u64 %ad, %rd4; atom.global.add.noftz.f16x2 %d, [%ad], %b; }",
     ("b32", "b32"), "b32"),
    # memory: vectors, generic addresses, state-space tests
    ("{ .reg .b64 %ad; .reg .u16 %x, %y; mov.u64 %ad, %rd4; and.b64 %ad, %ad, -4; "
     "ld.global.v2.u16 {%x, %y}, [%ad]; cvt.u32.u16 %d, %x; }", ("u32",), "u32"),
    ("{ .reg .b64 %ad; .reg .pred %q; cvta.global.u64 %ad, %rd4; isspacep.global %q, %ad; "
     "selp.u32 %d, 5, 6, %q; }", ("u32",), "u32"),
    ("{ .local .align 8 .b8 l[16]; .reg .b64 %ad; st.local.u32 [l+4], %a; "
     "mov.u64 %ad, l; cvta.local.u64 %ad, %ad; ld.u32 %d, [%ad+4]; }", ("u32",), "u32"),
]
OPS = ops.specs() + [ops.Spec(body, body, srcs, dst, lambda *a: None)
                     for body, srcs, dst in EXTRA]
N_OPS = 64


@pytest.fixture(scope="module")
def ops_pair(tmp_path_factory):
    """The per-instruction module of test_ptx_ops (one tiny kernel per opcode and type) as P,
    and its round trip P', both on the CPU device."""
    p = ops.module(OPS)
    tmp = tmp_path_factory.mktemp("rtops")
    # as fibers: NVRTC's collectives make P' ~3.9 MB of C as thread and region loops, which
    # clang takes several times longer over than the fiber form (benchmarks/README.md); the
    # kernels above cover the loop modes
    target = "cpu-wave64+fibers"
    return (build(p, target, tmp),
            build(cuda_target_ptx(p, "compute_80", name="ops.cu"), target, tmp))


def _operand(rng: np.random.Generator, ty: str, bounds) -> np.ndarray:
    if ty == "f32":
        return floats(rng, N_OPS)
    if ty == "f64":
        return np.concatenate([floats(rng, N_OPS // 2).astype(np.float64),
                               rng.standard_normal(N_OPS // 2) * 1e10])
    if ty == "pred":
        return rng.integers(0, 2, N_OPS).astype(np.uint32)
    dtype = np.dtype(ops.DTYPE[ty])
    if bounds == "nonzero" or bounds is None:
        raw = rng.integers(0, 256, N_OPS * dtype.itemsize, dtype=np.uint8).view(dtype)
        if bounds == "nonzero":
            raw[raw == 0] = 1
        return raw.copy()
    return rng.integers(bounds[0], bounds[1] + 1, N_OPS).astype(dtype)


@pytest.mark.parametrize("index", range(len(OPS)), ids=[s.id for s in OPS])
def test_instruction_round_trip(ops_pair, index):
    """Bit for bit, except that any NaN equals any NaN (a NaN's payload is the CPU device's
    business, not the translation's)."""
    spec = OPS[index]
    rng = np.random.default_rng(index)
    bounds = spec.ranges or (None,) * len(spec.srcs)
    inputs = [_operand(rng, t, b) for t, b in zip(spec.srcs, bounds, strict=True)]
    outs = []
    for m in ops_pair:
        args = [a.copy() for a in inputs]
        out = np.zeros(N_OPS, ops.DTYPE[spec.dst])
        m.launch(f"k{index}", (1,), (N_OPS,), [*args, out, N_OPS])
        outs.append((out, args))
    (d, a), (d2, a2) = outs
    for what, x, y in [("result", d, d2)] + [(f"operand {i}", u, v) for i, (u, v) in
                                            enumerate(zip(a, a2, strict=True))]:
        same = x.view(np.uint8).reshape(N_OPS, -1) == y.view(np.uint8).reshape(N_OPS, -1)
        same = same.all(axis=1)
        if x.dtype.kind == "f":
            same |= np.isnan(x) & np.isnan(y)
        if not same.all():
            i = int(np.flatnonzero(~same)[0])
            pytest.fail(f"{spec.id}: {what} of lane {i} differs, inputs "
                        f"{[v[i] for v in inputs]}: P {x[i]!r} vs P' {y[i]!r}")


def test_every_kernel_of_the_modules_is_covered(ptx_pair):
    """A kernel added to one of the sources gets a case here, or the round trip misses it."""
    from pyshim.binary.fatbin import ptx_kernels

    for module in SOURCES:
        names = ptx_kernels(ptx_pair(module)[0])
        cases = [c.kernel for c in CASES if c.module == module]
        missing = [k for k in names if not any(_matches(k, c) for c in cases)]
        assert not missing, (module, missing)


def test_nvrtc_source_needs_no_host_header_and_respells_dollars(ptx_pair):
    """(NVRTC has no include path: that P' exists at all shows the source includes nothing.)"""
    src = cuda_target_source(ptx_pair("kernels")[0])
    assert "$" not in src and DOLLAR in src  # nvcc's $L__BB labels and $str
    with pytest.raises(ValueError, match=DOLLAR):
        nvrtc_source(src)


def test_nvrtc_errors_carry_the_log():
    with pytest.raises(nvrtc.NvrtcError, match=r"(?s)NVRTC compile of bad\.cu.*undefined"):
        nvrtc.compile_to_ptx('extern "C" __global__ void k() { no_such_thing(); }',
                             name="bad.cu")


def test_nvrtc_compiles_exactly():
    """A separate multiply and add stay separate (no fma contraction): PTX mul.rn/add.rn."""
    ptx = nvrtc.compile_to_ptx('extern "C" __global__ void k(float *p) '
                               '{ p[0] = p[1] * p[2] + p[3]; }')
    assert "mul.rn.f32" in ptx and "add.rn.f32" in ptx and "fma" not in ptx
    assert nvrtc.version() >= (12, 0)


APPROX_PTX = """.version 8.0
.target sm_80
.address_size 64
.visible .entry k(.param .u64 out)
{
  .reg .f32 %f<8>; .reg .b64 %rd<3>;
  ld.param.u64 %rd1, [out];
  ld.global.f32 %f1, [%rd1];
  rcp.approx.f32 %f2, %f1;
  rsqrt.approx.ftz.f32 %f3, %f1;
  sqrt.approx.f32 %f4, %f1;
  div.approx.f32 %f5, %f2, %f1;
  div.full.f32 %f6, %f3, %f1;
  add.f32 %f7, %f5, %f6;
  add.f32 %f7, %f7, %f4;
  st.global.f32 [%rd1], %f7;
  ret;
}
"""


def test_approximate_forms_stay_approximate_through_nvrtc():
    """rcp/rsqrt/sqrt/div .approx and div.full come back from NVRTC as the same
    instructions (so a GPU runs P' as NVIDIA runs P), while the CPU device computes them
    exactly (common.h)."""
    ptx2 = nvrtc.compile_to_ptx(nvrtc_source(translate(APPROX_PTX, "cuda")), "compute_80")
    for form in ("rcp.approx.f32", "rsqrt.approx.f32", "sqrt.approx.f32", "div.approx.f32",
                 "div.full.f32"):
        assert form in ptx2, form
    assert "PS_RCP_APPROXF" in translate(APPROX_PTX, "cpu-wave64")
