"""mma.sync / ldmatrix on AMD matrix cores (preludes/mma_amd.h), checked without an AMD GPU.

1. Emulation: the prelude's lowering (fragment permutation + MFMA/WMMA calls) is compiled for
   the host with tests/amd_mma/emu.cpp, an emulation of exactly the primitives it is written
   on (lane id, ds_bpermute, the matrix instructions with AMD's documented per-lane layouts),
   one cooperative context per lane, for wave64 (MFMA), wave32 gfx11 and gfx12 (WMMA); its
   results on hypothesis-drawn matrices are compared with numpy, the fragments packed by
   tests/ptx/mma.py's tables of the PTX ISA figures (not by the prelude's formulas), with
   test_ptx_mma.py's operands and checks (tests/ptx/mma_check.py).
2. ISA: mma / ldmatrix PTX translated for hip-wave64:gfx90a/gfx942 and hip-wave32:gfx1100/
   gfx1201 and compiled with clang-19 contains v_mfma_* / v_wmma_* (or, for the shapes
   lowered to dot products, no matrix instruction and the shuffles).
"""

from __future__ import annotations

import ctypes
import re
import shutil
import subprocess

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from ptx import mma, mma_check

from pyshim.paths import REPO_DIR

CLANG = shutil.which("clang++-19") or shutil.which("clang++")
needs_clang = pytest.mark.skipif(CLANG is None, reason="clang++ (19) not installed")

# the prelude's type codes (PS_MX_*)
TY = {"f16": 0, "bf16": 1, "tf32": 2, "s8": 3, "u8": 3, "f64": 4, "e4m3": 5, "e5m2": 5}
FLAG = ("u8", "e5m2")  # the per-operand flag: unsigned, or e5m2
VARIANTS = {"wave64": (64, 0), "gfx11": (32, 0), "gfx12": (32, 1)}

# the forms lowered on the hip targets (tensor.py's AMD_FORMS)
FORMS = [
    mma.Form(16, 8, 16, "f32", "f16", "f16", "f32"), mma.Form(16, 8, 16, "f16", "f16", "f16", "f16"),
    mma.Form(16, 8, 16, "f32", "f16", "f16", "f16"), mma.Form(16, 8, 16, "f16", "f16", "f16", "f32"),
    mma.Form(16, 8, 8, "f32", "f16", "f16", "f32"), mma.Form(16, 8, 8, "f16", "f16", "f16", "f16"),
    mma.Form(16, 8, 16, "f32", "bf16", "bf16", "f32"), mma.Form(16, 8, 8, "f32", "bf16", "bf16", "f32"),
    mma.Form(16, 8, 8, "f32", "tf32", "tf32", "f32"), mma.Form(16, 8, 4, "f32", "tf32", "tf32", "f32"),
    mma.Form(8, 8, 4, "f64", "f64", "f64", "f64"),
    mma.Form(8, 8, 16, "s32", "s8", "s8", "s32"), mma.Form(8, 8, 16, "s32", "u8", "s8", "s32", True),
    mma.Form(16, 8, 16, "s32", "s8", "u8", "s32"), mma.Form(16, 8, 16, "s32", "s8", "s8", "s32", True),
    mma.Form(16, 8, 32, "s32", "s8", "s8", "s32", True), mma.Form(16, 8, 32, "s32", "u8", "u8", "s32"),
    mma.Form(16, 8, 32, "s32", "s8", "s8", "s32"),
    mma.Form(16, 8, 32, "f32", "e4m3", "e4m3", "f32"), mma.Form(16, 8, 32, "f32", "e5m2", "e4m3", "f32"),
    mma.Form(16, 8, 32, "f32", "e4m3", "e5m2", "f32"), mma.Form(16, 8, 32, "f32", "e5m2", "e5m2", "f32"),
]


@pytest.fixture(scope="module", params=list(VARIANTS))
def emu(request, tmp_path_factory):
    if CLANG is None:
        pytest.skip("clang++ not installed")
    wave, gfx12 = VARIANTS[request.param]
    so = tmp_path_factory.mktemp("emu") / f"emu_{request.param}.so"
    subprocess.run([CLANG, "-std=c++17", "-O1", "-Wall", "-Wextra", "-Werror", "-shared",
                    "-fPIC", f"-DPS_MX_WAVE={wave}", f"-DPS_MX_GFX12={gfx12}",
                    str(REPO_DIR / "tests/amd_mma/emu.cpp"), "-o", str(so)],
                   check=True, capture_output=True, timeout=300)
    lib = ctypes.CDLL(str(so))
    lib.emu_error.restype = ctypes.c_char_p
    assert lib.emu_wave() == wave
    return request.param, wave, lib


def _run(lib, wave: int, f: mma.Form, seed: int, kind: int):
    na, nb, nc, nd = (f.words(x) for x in "abcd")
    rng = np.random.default_rng(seed)
    warps = [mma_check.operands(f, rng, kind) for _ in range(wave // 32)]
    ins = mma_check.pack(f, warps)
    out = np.zeros((wave, nd), dtype=np.uint32)
    p = ctypes.POINTER(ctypes.c_uint32)
    rc = lib.emu_mma(TY[f.a], int(f.a in FLAG), int(f.b in FLAG), f.m, f.k, na, nb, nc, nd,
                     int(f.c == "f16"), int(f.d == "f16"), int(f.sat),
                     ins.ctypes.data_as(p), out.ctypes.data_as(p))
    assert rc == 0, lib.emu_error().decode()
    mma_check.check(f, out, warps)


@needs_clang
@pytest.mark.parametrize("form", FORMS, ids=[f.id for f in FORMS])
@settings(max_examples=5, deadline=None, suppress_health_check=list(HealthCheck))
@given(seed=st.integers(0, 2**63), kind=st.integers(0, 1))
def test_mma_lowering(emu, form, seed, kind):
    _, wave, lib = emu
    _run(lib, wave, form, seed, kind)


@needs_clang
def test_int_mma_wraps_and_saturates(emu):
    """the largest s8 / u8 products on top of a C near 2^31: wrapping, or clamping with
    .satfinite (the prelude adds C to the exact product sum)"""
    _, wave, lib = emu
    for f in (mma.Form(16, 8, 32, "s32", "s8", "s8", "s32", True),
              mma.Form(16, 8, 32, "s32", "u8", "u8", "s32")):
        na, nb, nc, nd = (f.words(x) for x in "abcd")
        A = np.full((f.m, f.k), 0x80 if f.a == "s8" else 0xFF, dtype=np.uint64)
        B = np.full((f.k, f.n), 0x80 if f.b == "s8" else 0xFF, dtype=np.uint64)
        C = np.full((f.m, f.n), 0x7FFFFFF0, dtype=np.uint64)
        ins = mma_check.pack(f, [(A, B, C)] * (wave // 32))
        out = np.zeros((wave, nd), dtype=np.uint32)
        p = ctypes.POINTER(ctypes.c_uint32)
        assert lib.emu_mma(TY[f.a], int(f.a == "u8"), int(f.b == "u8"), f.m, f.k, na, nb, nc,
                           nd, 0, 0, int(f.sat), ins.ctypes.data_as(p), out.ctypes.data_as(p)) == 0
        got = mma.unpack("s32", mma.c_layout(f), out[:32], f.m, f.n)
        want, _ = mma_check.reference(f, A, B, C)
        assert np.array_equal(got.astype(np.int64), want)
        assert (int(got[0, 0]) == 0x7FFFFFFF) == f.sat


@needs_clang
@pytest.mark.parametrize("count", (1, 2, 4))
@pytest.mark.parametrize("trans", (False, True), ids=("plain", "trans"))
@settings(max_examples=5, deadline=None, suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_ldmatrix_lowering(emu, count, trans, data):
    _, wave, lib = emu
    src = np.array(data.draw(st.lists(st.integers(0, 0xFFFF), min_size=1024, max_size=1024)),
                   dtype=np.uint16)
    rows = src.reshape(128, 8)  # 16-byte row pieces
    offs = np.array(data.draw(st.lists(st.integers(0, 127), min_size=wave, max_size=wave)))
    addrs = (ctypes.c_void_p * wave)(*[src.ctypes.data + 16 * int(o) for o in offs])
    out = np.zeros((wave, count), dtype=np.uint32)
    assert lib.emu_ldmatrix(count, int(trans), addrs,
                            out.ctypes.data_as(ctypes.POINTER(ctypes.c_uint32))) == 0
    for lane in range(wave):
        base = lane & 32
        for j in range(count):
            mat = rows[offs[base + 8 * j:base + 8 * j + 8]]
            if trans:
                mat = mat.T
            r, c = (lane & 31) >> 2, 2 * (lane & 3)
            assert int(out[lane, j]) == int(mat[r, c]) | (int(mat[r, c + 1]) << 16), (lane, j)


@needs_clang
@pytest.mark.parametrize("count", (1, 2, 4))
@pytest.mark.parametrize("trans", (False, True), ids=("plain", "trans"))
@settings(max_examples=5, deadline=None, suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_stmatrix_lowering(emu, count, trans, data):
    _, wave, lib = emu
    regs = np.array(data.draw(st.lists(st.integers(0, 2**32 - 1), min_size=wave * count,
                                       max_size=wave * count)), dtype=np.uint32).reshape(wave, count)
    # distinct rows for every lane of the wavefront: no two stores overlap
    offs = np.array(data.draw(st.permutations(range(128)))[:wave])
    dst = np.zeros(1024, dtype=np.uint16)
    addrs = (ctypes.c_void_p * wave)(*[dst.ctypes.data + 16 * int(o) for o in offs])
    assert lib.emu_stmatrix(count, int(trans), addrs,
                            regs.ctypes.data_as(ctypes.POINTER(ctypes.c_uint32))) == 0
    want = np.zeros((128, 8), dtype=np.uint16)
    for base in range(0, wave, 32):
        for j in range(count):
            mat = np.zeros((8, 8), dtype=np.uint16)
            for lane in range(32):
                r, c = lane >> 2, 2 * (lane & 3)
                mat[r, c], mat[r, c + 1] = regs[base + lane, j] & 0xFFFF, regs[base + lane, j] >> 16
            want[offs[base + 8 * j:base + 8 * j + 8]] = mat.T if trans else mat
    assert np.array_equal(dst.reshape(128, 8), want)


@needs_clang
@settings(max_examples=5, deadline=None, suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_movmatrix_lowering(emu, data):
    _, wave, lib = emu
    a = np.array(data.draw(st.lists(st.integers(0, 2**32 - 1), min_size=wave, max_size=wave)),
                 dtype=np.uint32)
    out = np.zeros(wave, dtype=np.uint32)
    p = ctypes.POINTER(ctypes.c_uint32)
    assert lib.emu_movmatrix(a.ctypes.data_as(p), out.ctypes.data_as(p)) == 0
    for base in range(0, wave, 32):
        mat = np.zeros((8, 8), dtype=np.uint32)
        for lane in range(32):
            mat[lane >> 2, 2 * (lane & 3)] = a[base + lane] & 0xFFFF
            mat[lane >> 2, 2 * (lane & 3) + 1] = a[base + lane] >> 16
        t = mat.T
        for lane in range(32):
            r, c = lane >> 2, 2 * (lane & 3)
            assert int(out[base + lane]) == int(t[r, c]) | (int(t[r, c + 1]) << 16)


# ---- ISA of translated kernels -------------------------------------------------------------
ISA_FORMS = [mma.Form(16, 8, 16, "f32", "f16", "f16", "f32"),
             mma.Form(16, 8, 8, "f16", "f16", "f16", "f16"),
             mma.Form(16, 8, 16, "f32", "bf16", "bf16", "f32"),
             mma.Form(16, 8, 32, "s32", "s8", "s8", "s32"),
             mma.Form(16, 8, 8, "f32", "tf32", "tf32", "f32"),
             mma.Form(16, 8, 32, "f32", "e4m3", "e5m2", "f32"),
             mma.Form(8, 8, 4, "f64", "f64", "f64", "f64")]
# instruction expected per (form, arch): None = the dot-product fallback
MATRIX = {
    ("f16", "gfx90a"): "v_mfma_f32_4x4x4f16", ("f16", "gfx942"): "v_mfma_f32_4x4x4_16b_f16",
    ("bf16", "gfx90a"): "v_mfma_f32_4x4x4bf16_1k", ("bf16", "gfx942"): "v_mfma_f32_4x4x4_16b_bf16",
    ("s8", "gfx90a"): "v_mfma_i32_4x4x4i8", ("s8", "gfx942"): "v_mfma_i32_4x4x4_16b_i8",
    ("tf32", "gfx90a"): "v_mfma_f32_4x4x1f32", ("tf32", "gfx942"): "v_mfma_f32_4x4x1_16b_f32",
    ("f16", "gfx1100"): "v_wmma_f32_16x16x16_f16", ("f16", "gfx1201"): "v_wmma_f32_16x16x16_f16",
    ("bf16", "gfx1100"): "v_wmma_f32_16x16x16_bf16", ("bf16", "gfx1201"): "v_wmma_f32_16x16x16_bf16",
    ("s8", "gfx1100"): "v_wmma_i32_16x16x16_iu8", ("s8", "gfx1201"): "v_wmma_i32_16x16x16_iu8",
}
for _arch in ("gfx90a", "gfx942", "gfx1100", "gfx1201"):  # FP8 on the f16 instructions
    MATRIX["e4m3", _arch] = MATRIX["f16", _arch]
ARCHS = ("gfx90a", "gfx942", "gfx1100", "gfx1201")


@pytest.fixture(scope="module")
def isa(tmp_path_factory):
    from pyshim.kernels import amd
    from pyshim.ptx.translate import translate

    if "clang" not in amd.available_compilers():
        pytest.skip("clang >= 19 with lld not installed")
    ptx = mma.HEAD + "\n".join(mma.kernel(f) for f in ISA_FORMS) + "\n" + \
        "".join(mma._ldm(c, t) + mma._stm(c, t) for c in (1, 4) for t in (False, True)) + \
        mma.MOVMATRIX
    out = {}
    for arch in ARCHS:
        target = f"hip-wave{amd.wave_size(arch)}:{arch}"
        co = amd.compile_hip(translate(ptx, target), arch, use_cache=False)
        out[arch] = amd.isa_by_kernel(co, arch)
    return out


@pytest.mark.slow
@pytest.mark.parametrize("arch", ARCHS)
def test_matrix_instructions_in_the_isa(isa, arch):
    for f in ISA_FORMS:
        text = isa[arch][f"k_{f.id}"]
        want = MATRIX.get((f.a, arch))
        found = sorted(set(re.findall(r"\bv_(?:mfma|wmma)\w*", text)))
        if want is None:
            assert not found, f"{f.id} on {arch}: expected the dot-product fallback, got {found}"
            assert "ds_bpermute_b32" in text
        else:
            assert found == [want], f"{f.id} on {arch}: {found}, expected {want}"
            assert "ds_bpermute_b32" in text
    for name, body in isa[arch].items():
        if name.startswith(("ldm_", "stm_", "movm")):
            assert "ds_bpermute_b32" in body and "v_mfma" not in body and "v_wmma" not in body


@pytest.fixture(scope="module")
def gemm_isa(tmp_path_factory):
    """tests/amd_mma/mma_gemm.cu (ggml / cuda-samples style ldmatrix + mma.sync GEMMs), nvcc
    -ptx for sm_80, translated for each arch: kernel -> (isa, resources)"""
    from pyshim.kernels import amd
    from pyshim.ptx.translate import translate

    if shutil.which("nvcc") is None or "clang" not in amd.available_compilers():
        pytest.skip("needs nvcc and clang >= 19 with lld")
    ptx = tmp_path_factory.mktemp("gemm") / "mma_gemm.ptx"
    subprocess.run(["nvcc", "-ptx", "-arch=sm_80", "-O2", str(REPO_DIR / "tests/amd_mma/mma_gemm.cu"),
                    "-o", str(ptx)], check=True, capture_output=True, timeout=300)
    out = {}
    for arch in ARCHS:
        co = amd.compile_hip(translate(ptx.read_text(), f"hip-wave{amd.wave_size(arch)}:{arch}"),
                             arch, use_cache=False)
        out[arch] = (amd.isa_by_kernel(co, arch), amd.kernel_resources(co))
    return out


@pytest.mark.slow
@pytest.mark.parametrize("arch", ARCHS)
def test_nvcc_tensor_gemms_use_matrix_cores(gemm_isa, arch):
    isa, res = gemm_isa[arch]
    kinds = {"gemm_16816I6__half": "f16", "gemm_16816I13__nv_bfloat16": "bf16",
             "gemm_s8_16832": "s8"}
    seen = set()
    for name, text in isa.items():
        kind = next((v for k, v in kinds.items() if k in name), None)
        if kind is None:
            continue
        seen.add(kind)
        found = sorted(set(re.findall(r"\bv_(?:mfma|wmma)\w*", text)))
        assert found == [MATRIX[kind, arch]], f"{name} on {arch}: {found}"
        assert res[name]["scratch"] == 0, f"{name} on {arch}: {res[name]['scratch']} B scratch"
    assert seen == {"f16", "bf16", "s8"}, sorted(isa)


@pytest.mark.parametrize("form", [mma.Form(16, 8, 256, "s32", "b1", "b1", "s32", bop="xor"),
                                  mma.Form(16, 8, 64, "s32", "s4", "u4", "s32", True)],
                         ids=lambda f: f.id)
@pytest.mark.parametrize("target", ["hip-wave64:gfx942", "hip-wave32:gfx1100"])
def test_forms_without_an_amd_lowering_are_refused_by_name(form, target):
    from pyshim.ptx.errors import UnsupportedInstruction
    from pyshim.ptx.translate import translate

    with pytest.raises(UnsupportedInstruction, match=f"m{form.m}n8k{form.k} .{form.a} on target "
                                                     f"{re.escape(target)}"):
        translate(mma.HEAD + mma.kernel(form), target)


# ---- wmma on the AMD layer (mma_amd.h: mma.sync's m16n8k16 fragments, one per block) ------
# (d, a, c) types and the fragment words the ISA gives each operand (a, b per shape)
WMMA_TYPES = [("f32", "f16", "f32"), ("f16", "f16", "f16"), ("f32", "f16", "f16"),
              ("f16", "f16", "f32"), ("f32", "bf16", "f32")]
WMMA_SHAPES = [(16, 16), (32, 8), (8, 32)]


def _wmma_words(a: str, m: int, n: int, c: str, d: str) -> list[int]:
    """words of the A, B, C and D fragments (PTX ISA 9.7.14.4.2: f16 A and B have 8 registers
    in every shape, bf16 ones only the words their elements need)"""
    ab = [8, 8] if a == "f16" else [m // 4, n // 4]
    return ab + [m * n // (64 if c == "f16" else 32), m * n // (64 if d == "f16" else 32)]


def _to_memory(mat: np.ndarray, col_major: bool, ld: int, dtype) -> np.ndarray:
    rows, cols = mat.shape
    buf = np.zeros((cols if col_major else rows, ld), dtype=dtype)
    if col_major:
        buf[:cols, :rows] = mat.T
    else:
        buf[:rows, :cols] = mat
    return buf


@needs_clang
@pytest.mark.parametrize("types", WMMA_TYPES, ids=lambda t: "_".join(t))
@pytest.mark.parametrize("shape", WMMA_SHAPES, ids=lambda s: f"m{s[0]}n{s[1]}k16")
@settings(max_examples=4, deadline=None, suppress_health_check=list(HealthCheck))
@given(seed=st.integers(0, 2**63), kind=st.integers(0, 1),
       col=st.tuples(*[st.booleans()] * 4), pad=st.tuples(*[st.integers(0, 5)] * 4))
def test_wmma_lowering(emu, types, shape, seed, kind, col, pad):
    """wmma.load (row- or column-major, leading dimensions past the matrix) of A, B and C,
    wmma.mma and wmma.store of D through the prelude, against numpy"""
    _, wave, lib = emu
    (d, a, c), (m, n) = types, shape
    f = mma.Form(m, n, 16, d, a, a, c)
    A, B, C = mma_check.operands(f, np.random.default_rng(seed), kind)
    dims = [(m, 16), (16, n), (m, n), (m, n)]
    ld = [(r if cm else cc) + p for (r, cc), cm, p in zip(dims, col, pad, strict=True)]
    dt = [np.uint16, np.uint16, np.uint16 if c == "f16" else np.uint32,
          np.uint16 if d == "f16" else np.uint32]
    bufs = [_to_memory(x, cm, w, t) for x, cm, w, t in zip((A, B, C), col[:3], ld[:3], dt[:3], strict=True)]
    outs = [np.zeros(((dims[3][1] if col[3] else m), ld[3]), dtype=dt[3]) for _ in range(2)]
    u8p = ctypes.POINTER(ctypes.c_uint8)
    words = _wmma_words(a, m, n, c, d)
    rc = lib.emu_wmma(TY[a], m, n, int(c == "f16"), int(d == "f16"),
                      (ctypes.c_int * 4)(*col), (ctypes.c_uint32 * 4)(*words),
                      (u8p * 3)(*[b.ctypes.data_as(u8p) for b in bufs]),
                      (u8p * 2)(*[o.ctypes.data_as(u8p) for o in outs]),
                      (ctypes.c_uint32 * 4)(*ld))
    assert rc == 0, lib.emu_error().decode()
    want, tol = mma_check.reference(f, A, B, C)
    for o in outs[:wave // 32]:
        got = o[:n, :m].T if col[3] else o[:m, :n]
        assert np.all(np.abs(mma.decode(d, got.astype(np.uint64)) - want) <= tol)


WMMA_PTX = """
.visible .entry w_{name}(.param .u64 pa, .param .u64 pb, .param .u64 pc, .param .u64 pd)
{{
  .reg .b32 %a<9>; .reg .b32 %b<9>; .reg .{ct} %c<9>; .reg .{dt} %d<9>; .reg .b64 %rd<5>;
  ld.param.u64 %rd1, [pa]; ld.param.u64 %rd2, [pb]; ld.param.u64 %rd3, [pc];
  ld.param.u64 %rd4, [pd];
  wmma.load.a.sync.aligned.row.{shape}.{at} {{{a}}}, [%rd1];
  wmma.load.b.sync.aligned.col.{shape}.{at} {{{b}}}, [%rd2];
  wmma.load.c.sync.aligned.row.{shape}.{c_ty} {{{c}}}, [%rd3];
  wmma.mma.sync.aligned.row.col.{shape}.{types} {{{d}}}, {{{a}}}, {{{b}}}, {{{c}}};
  wmma.store.d.sync.aligned.row.{shape}.{d_ty} [%rd4], {{{d}}};
  ret;
}}
"""


def _wmma_kernel(name: str, shape: str, at: str, ct: str, dt: str, words: list[int]) -> str:
    regs = [", ".join(f"%{x}{i}" for i in range(w)) for x, w in zip("abcd", words, strict=True)]
    types = f"{dt}.{ct}" if at == "f16" else f"{dt}.{at}.{at}.{ct}"
    return WMMA_PTX.format(name=name, shape=shape, at=at, c_ty=ct, d_ty=dt, types=types,
                           ct="b32" if ct == "f16" else "f32", dt="b32" if dt == "f16" else "f32",
                           a=regs[0], b=regs[1], c=regs[2], d=regs[3])


@pytest.mark.parametrize("target", ["hip-wave64:gfx942", "hip-wave32:gfx1100"])
def test_wmma_translates_for_amd_and_other_types_are_refused_by_name(target):
    from pyshim.ptx.errors import UnsupportedInstruction
    from pyshim.ptx.translate import translate

    for (d, a, c), (m, n) in [(t, s) for t in WMMA_TYPES for s in WMMA_SHAPES]:
        src = mma.HEAD + _wmma_kernel("k", f"m{m}n{n}k16", a, c, d, _wmma_words(a, m, n, c, d))
        code = translate(src, target)
        assert "ps_wmma_mma_amd(" in code and "ps_wmma_load_amd(" in code
    tf32 = _wmma_kernel("t", "m16n16k8", "tf32", "f32", "f32", [4, 4, 8, 8])
    with pytest.raises(UnsupportedInstruction,
                       match=f"wmma m16n16k8 .tf32 on target {re.escape(target)}"):
        translate(mma.HEAD + tf32, target)


@pytest.mark.slow
@pytest.mark.parametrize("arch", ARCHS)
def test_wmma_uses_matrix_cores(arch):
    """wmma kernels compiled for each arch: the f16 / bf16 matrix instruction of MATRIX, no
    scratch (the fragments stay in registers)"""
    from pyshim.kernels import amd
    from pyshim.ptx.translate import translate

    if "clang" not in amd.available_compilers():
        pytest.skip("clang >= 19 with lld not installed")
    kernels = {"f16": ("m16n16k16", "f16", "f32", "f32"), "bf16": ("m8n32k16", "bf16", "f32", "f32")}
    src = mma.HEAD + "".join(
        _wmma_kernel(kind, shape, a, c, d, _wmma_words(a, *map(int, re.findall(r"\d+", shape)[:2]), c, d))
        for kind, (shape, a, c, d) in kernels.items())
    co = amd.compile_hip(translate(src, f"hip-wave{amd.wave_size(arch)}:{arch}"), arch,
                         use_cache=False)
    isa, res = amd.isa_by_kernel(co, arch), amd.kernel_resources(co)
    for kind in kernels:
        found = sorted(set(re.findall(r"\bv_(?:mfma|wmma)\w*", isa[f"w_{kind}"])))
        assert found == [MATRIX[kind, arch]], f"{kind} on {arch}: {found}"
        assert res[f"w_{kind}"]["scratch"] == 0
