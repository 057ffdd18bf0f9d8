"""pyshim.kernels.amd: HIP-dialect kernels compiled for CDNA (wave64) and RDNA (wave32)
with the real AMD toolchain, checked in the emitted ISA and the code object's metadata.

The kernels are written the way the translator's hip targets write them: no HIP headers,
clang's AMDGPU builtins only.
"""

from __future__ import annotations

import pytest

from pyshim.kernels import amd, cache

HAVE_CLANG = "clang" in amd.available_compilers()
needs_clang = pytest.mark.skipif(
    not HAVE_CLANG, reason="clang >= 19 with lld not installed (apt-get install -y "
    "--no-install-recommends clang-19 lld-19 llvm-19)")

PRELUDE = r"""
#define KERNEL extern "C" __attribute__((global)) __attribute__((visibility("default")))
#define SHARED __attribute__((shared))
#define TID_X __builtin_amdgcn_workitem_id_x()
#define GID_X __builtin_amdgcn_workgroup_id_x()
#define NTID_X __builtin_amdgcn_workgroup_size_x()
#define WAVE __AMDGCN_WAVEFRONT_SIZE
static __attribute__((device)) inline void sync_threads(void) {
    __builtin_amdgcn_fence(__ATOMIC_RELEASE, "workgroup");
    __builtin_amdgcn_s_barrier();
    __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "workgroup");
}
/* CUDA's 32-lane shfl.xor on top of the wave: lanes stay inside their 32-lane group */
static __attribute__((device)) inline int shfl_xor32(int v, int mask) {
    unsigned lane = __builtin_amdgcn_mbcnt_hi(~0u, __builtin_amdgcn_mbcnt_lo(~0u, 0u));
    unsigned src = (lane & ~31u) | ((lane & 31u) ^ (unsigned)mask);
    return __builtin_amdgcn_ds_bpermute((int)(src << 2), v);
}
"""

KERNELS = PRELUDE + r"""
KERNEL void saxpy(int n, float a, const float *x, float *y) {
    int i = (int)(GID_X * NTID_X + TID_X);
    if (i < n) y[i] = a * x[i] + y[i];
}
KERNEL void reduce_shared(const float *x, float *out) {
    SHARED float buf[256];
    unsigned t = TID_X;
    buf[t] = x[GID_X * 256 + t];
    sync_threads();
    for (unsigned s = 128; s > 0; s >>= 1) {
        if (t < s) buf[t] += buf[t + s];
        sync_threads();
    }
    if (t == 0) out[GID_X] = buf[0];
}
KERNEL void warp_sum(const int *x, int *y) {
    int v = x[GID_X * NTID_X + TID_X];
    for (int m = 16; m > 0; m >>= 1) v += shfl_xor32(v, m);
    y[GID_X * NTID_X + TID_X] = v;
}
KERNEL void dpp_shift(const int *x, int *y) {
    int v = x[TID_X];
    /* row_shr:1 (dpp_ctrl 0x111), all rows and banks, bound_ctrl */
    y[TID_X] = __builtin_amdgcn_update_dpp(0, v, 0x111, 0xf, 0xf, true);
}
KERNEL void private_array(const int *idx, int *y, int n) {
    int a[512];
    for (int i = 0; i < 512; i++) a[i] = y[i] * n;
    y[TID_X] = a[idx[TID_X] & 511];
}
"""

SIMPLE = ("saxpy", "reduce_shared", "warp_sum", "dpp_shift")
BARRIER_RE = {"gfx90a": ("s_barrier",), "gfx942": ("s_barrier",), "gfx1100": ("s_barrier",),
              "gfx1201": ("s_barrier_signal", "s_barrier_wait")}


@pytest.fixture(autouse=True)
def private_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("PYSHIM_CACHE", str(tmp_path / "cache"))


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """arch -> (code object, isa per kernel, resources), compiled once per test module."""
    if not HAVE_CLANG:
        pytest.skip("clang >= 19 with lld not installed")
    out = {}
    for arch in amd.ARCHS:
        co = amd.compile_hip(KERNELS, arch, use_cache=False)
        out[arch] = (co, amd.isa_by_kernel(co, arch), amd.kernel_resources(co))
    return out


def test_wave_size_by_arch():
    assert [amd.wave_size(a) for a in amd.ARCHS] == [64, 64, 32, 32]


@needs_clang
@pytest.mark.parametrize("arch", amd.ARCHS)
def test_code_object_is_for_the_arch(built, arch):
    co, isa, res = built[arch]
    assert co[:4] == b"\x7fELF" and int.from_bytes(co[18:20], "little") == amd.EM_AMDGPU
    assert amd.code_object_arch(co) == arch
    assert set(res) == {*SIMPLE, "private_array"}
    assert set(SIMPLE) <= set(isa)


@needs_clang
@pytest.mark.parametrize("arch", amd.ARCHS)
def test_wavefront_size_in_metadata(built, arch):
    _, _, res = built[arch]
    assert {r["wavefront_size"] for r in res.values()} == {amd.wave_size(arch)}


@needs_clang
@pytest.mark.parametrize("arch", amd.ARCHS)
def test_wave_size_macro_matches_the_arch(arch):
    # the prelude's warp emulation keys on __AMDGCN_WAVEFRONT_SIZE: it must agree with us
    src = PRELUDE + f"static_assert(WAVE == {amd.wave_size(arch)}, \"wave\");\n" \
        "KERNEL void k(int *p) { p[0] = WAVE; }\n"
    amd.compile_hip(src, arch)
    other = 96 - amd.wave_size(arch)
    bad = PRELUDE + f"static_assert(WAVE == {other}, \"wave\");\nKERNEL void k(int *p) {{}}\n"
    with pytest.raises(amd.AmdCompileError, match=f"{arch}: clang failed"):
        amd.compile_hip(bad, arch)


@needs_clang
@pytest.mark.parametrize("arch", amd.ARCHS)
def test_barrier_only_where_the_kernel_has_one(built, arch):
    _, isa, _ = built[arch]
    for mnemonic in BARRIER_RE[arch]:
        assert mnemonic in isa["reduce_shared"], f"{arch}: no {mnemonic} in reduce_shared"
    assert "s_barrier" not in isa["saxpy"]


@needs_clang
@pytest.mark.parametrize("arch", amd.ARCHS)
def test_shuffles_use_cross_lane_instructions(built, arch):
    _, isa, _ = built[arch]
    assert "ds_bpermute_b32" in isa["warp_sum"]
    assert "row_shr:1" in isa["dpp_shift"]  # DPP modifier on a VALU move
    assert "ds_bpermute" not in isa["saxpy"]


@needs_clang
@pytest.mark.parametrize("arch", amd.ARCHS)
def test_no_fma_contraction(built, arch):
    # PTX mul + add must stay two roundings: -ffp-contract=off is in force
    _, isa, _ = built[arch]
    assert "v_mul_f32" in isa["saxpy"] and "v_add_f32" in isa["saxpy"]
    assert "fma" not in isa["saxpy"] and "v_mac" not in isa["saxpy"]


@needs_clang
@pytest.mark.parametrize("arch", amd.ARCHS)
def test_resources_of_simple_kernels(built, arch):
    _, _, res = built[arch]
    for name in SIMPLE:
        r = res[name]
        assert r["scratch"] == 0, f"{arch} {name}: {r['scratch']} bytes of scratch"
        assert r["vgpr_spill"] == 0 and r["sgpr_spill"] == 0
        assert 0 < r["vgpr"] <= 32 and 0 < r["sgpr"] <= 32, f"{arch} {name}: {r}"
    assert res["reduce_shared"]["lds"] == 256 * 4
    assert res["saxpy"]["lds"] == 0


@needs_clang
@pytest.mark.parametrize("arch", amd.ARCHS)
def test_scratch_reported_when_used(built, arch):
    # a dynamically indexed 2 KiB private array cannot live in registers
    _, _, res = built[arch]
    assert res["private_array"]["scratch"] >= 512 * 4


@needs_clang
def test_compile_error_names_arch_compiler_and_line():
    src = PRELUDE + "KERNEL void broken(int *p) { p[0] = undefined_name; }\n"
    with pytest.raises(amd.AmdCompileError) as exc:
        amd.compile_hip(src, "gfx1100")
    msg = str(exc.value)
    assert msg.startswith("gfx1100: clang failed")
    assert "undefined_name" in msg and "module.hip:" in msg


@needs_clang
def test_unknown_arch_is_the_compilers_error():
    with pytest.raises(amd.AmdCompileError, match="(?s)gfx9999: clang failed.*gfx9999"):
        amd.compile_hip(KERNELS, "gfx9999")


@needs_clang
@pytest.mark.parametrize("target", ["gfx90a:xnack+", "gfx942:sramecc-:xnack-"])
def test_target_id_features(target):
    co = amd.compile_hip(PRELUDE + "KERNEL void k(int *p) { p[TID_X] = WAVE; }\n", target)
    assert amd.code_object_target(co) == target
    assert amd.code_object_arch(co) == target.split(":")[0]


@needs_clang
def test_plain_target_has_no_features(built):
    assert amd.code_object_target(built["gfx1100"][0]) == "gfx1100"


@pytest.mark.parametrize("arch", ["sm_80", "", "gfx", "gfx90a; rm -rf /", "GFX942",
                                  "gfx90a:xnack", "gfx90a:-mllvm"])
def test_malformed_arch_rejected_before_compiling(arch):
    with pytest.raises(amd.AmdCompileError, match="invalid AMD GPU arch"):
        amd.compile_hip(KERNELS, arch)


def test_unknown_compiler_name():
    with pytest.raises(amd.AmdCompileError, match="unknown AMD kernel compiler 'nvcc'"):
        amd.compile_hip(KERNELS, "gfx942", compiler="nvcc")


def test_no_compiler_error_gives_the_apt_line(monkeypatch):
    monkeypatch.setattr(amd, "available_compilers", lambda: {})
    with pytest.raises(amd.AmdCompileError, match="apt-get install .*clang-19 lld-19 llvm-19"):
        amd.compile_hip(KERNELS, "gfx942")


@needs_clang
def test_inspecting_garbage_is_an_error():
    with pytest.raises(amd.AmdCompileError, match="llvm-readelf failed"):
        amd.kernel_resources(b"not an elf file")
    with pytest.raises(amd.AmdCompileError, match="disassembling for gfx942"):
        amd.isa(b"\x7fELF garbage", "gfx942")


@needs_clang
def test_cache_keyed_by_source_arch_and_compiler():
    src = PRELUDE + "KERNEL void k(float *p) { p[TID_X] *= 2.0f; }\n"
    first = amd.compile_hip(src, "gfx942")
    assert len(cache.iter_entries()) == 1
    assert amd.compile_hip(src, "gfx942") == first
    assert len(cache.iter_entries()) == 1  # the second call was a cache hit
    entry = cache.iter_entries()[0]
    assert entry.suffix == ".co" and cache.read_entry(entry) == first
    assert entry.name[:64] == cache.cache_key("amd-code-object", src, "gfx942",
                                              amd.compiler_identity("clang"))
    amd.compile_hip(src, "gfx1100")
    amd.compile_hip(src + "\n", "gfx942")
    assert len(cache.iter_entries()) == 3


@needs_clang
def test_failed_compile_is_not_cached():
    with pytest.raises(amd.AmdCompileError):
        amd.compile_hip("KERNEL void x( {", "gfx90a")
    assert cache.iter_entries() == []


@needs_clang
def test_identity_names_compiler_version_and_flags():
    ident = amd.compiler_identity("clang")
    assert "clang version" in ident and "-ffp-contract=off" in ident


@pytest.mark.skipif("hiprtc" not in amd.available_compilers(),
                    reason="no hiprtc library (libhiprtc.so.7/.6, or Debian's libamdhip64-5)")
@pytest.mark.parametrize("arch", amd.ARCHS)
def test_hiprtc_in_a_subprocess(arch):
    # Debian's HIP 5.2 hiprtc compiles gfx90a and abort()s for gfx942/gfx1100/gfx1201
    # (notes/amd-toolchain.md): either way this process lives and the result names the arch
    try:
        co = amd.compile_hip(KERNELS, arch, compiler="hiprtc", use_cache=False)
    except amd.AmdCompileError as exc:
        assert str(exc).startswith(f"{arch}: hiprtc (")
        return
    assert amd.code_object_arch(co) == arch
    res = amd.kernel_resources(co)
    assert set(SIMPLE) <= set(res)
    assert {r["wavefront_size"] for r in res.values()} == {amd.wave_size(arch)}


@pytest.mark.skipif("hiprtc" not in amd.available_compilers(), reason="no hiprtc library")
def test_hiprtc_compile_error_is_reported():
    with pytest.raises(amd.AmdCompileError, match="(?s)gfx90a: hiprtc .*undefined_name"):
        amd.compile_hip(PRELUDE + "KERNEL void k(int *p) { p[0] = undefined_name; }\n",
                        "gfx90a", compiler="hiprtc", use_cache=False)


@needs_clang
def test_command_line(tmp_path):
    import subprocess
    import sys

    src = tmp_path / "k.hip"
    src.write_text(KERNELS)
    res = subprocess.run([sys.executable, "-m", "pyshim.kernels.amd", str(src), "--arch",
                          "gfx942", "--arch", "gfx1201"], capture_output=True, text=True,
                         timeout=300)
    assert res.returncode == 0, res.stderr
    lines = res.stdout.splitlines()
    assert len(lines) == 2 * 5
    (row,) = [ln.split() for ln in lines if ln.startswith("gfx1201") and "private_array" in ln]
    assert int(row[row.index("scratch") + 1]) >= 2048
    src.write_text("KERNEL void x( {")
    res = subprocess.run([sys.executable, "-m", "pyshim.kernels.amd", str(src), "--arch",
                          "gfx90a"], capture_output=True, text=True, timeout=300)
    assert res.returncode == 1 and res.stderr.startswith("gfx90a: clang failed")
