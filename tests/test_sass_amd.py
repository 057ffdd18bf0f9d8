"""Lifted SASS on AMD targets: the kernel suite's kernels (benchmarks/kernels/kernels.cu) built
SASS-only for sm_80, lifted by pyshim.sass, translated for hip-wave64 / hip-wave32 and
compiled offline into gfx942 and gfx1100 code objects, as the PTX of the same source is.
Checked in the code object: every kernel, its wavefront size, no scratch where the PTX
form has none, and the barriers and cross-lane instructions the PTX form reaches."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from pyshim.kernels import amd
from pyshim.paths import REPO_DIR
from pyshim.sass.decode import nvdisasm_path

SOURCE = REPO_DIR / "benchmarks" / "kernels" / "kernels.cu"
ARCHS = ("gfx942", "gfx1100")
CROSS_LANE = ("ds_bpermute", "ds_swizzle", "row_", "quad_perm", "v_permlane", "v_readlane",
              "dpp")

pytestmark = [
    pytest.mark.skipif(shutil.which("nvcc") is None, reason="needs nvcc"),
    pytest.mark.skipif(nvdisasm_path() is None,
                       reason="nvdisasm (nvidia-cuda-nvdisasm) is not installed"),
    pytest.mark.skipif("clang" not in amd.available_compilers(),
                       reason="clang >= 19 with lld not installed (apt-get install -y "
                       "--no-install-recommends clang-19 lld-19 llvm-19)"),
]


@pytest.fixture(scope="module")
def forms(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """"ptx": nvcc's PTX of the kernel suite, "sass": its sm_80 cubin lifted."""
    from pyshim.sass.lift import lift_cubin

    tmp = tmp_path_factory.mktemp("sass-amd")
    out: dict[str, Path] = {"ptx": tmp / "k.ptx", "sass": tmp / "k.cubin"}
    for kind, arch, path in (("-ptx", "compute_80", out["ptx"]), ("-cubin", "sm_80", out["sass"])):
        subprocess.run(["nvcc", kind, "-O3", f"-arch={arch}", "-o", str(path), str(SOURCE)],
                       check=True, capture_output=True, timeout=600)
    return {"ptx": out["ptx"].read_text(), "sass": lift_cubin(out["sass"].read_bytes())}


@pytest.fixture(scope="module")
def built(forms: dict[str, str]):
    """(form, arch) -> (resources per kernel, ISA per kernel)."""
    from pyshim.ptx.translate import translate

    cache: dict[tuple[str, str], tuple[dict, dict]] = {}

    def get(form: str, arch: str):
        if (form, arch) not in cache:
            src = translate(forms[form], f"hip-wave{amd.wave_size(arch)}:{arch}")
            co = amd.compile_hip(src, arch, use_cache=False)
            assert amd.code_object_arch(co) == arch
            cache[form, arch] = (amd.kernel_resources(co), amd.isa_by_kernel(co, arch))
        return cache[form, arch]

    return get


@pytest.mark.parametrize("arch", ARCHS)
def test_lifted_kernels_compile_for_amd(built, arch: str) -> None:
    res_p, isa_p = built("ptx", arch)
    res_s, isa_s = built("sass", arch)
    assert set(res_s) == set(res_p), f"{arch}: kernels differ between the forms"
    for name, r in res_s.items():
        assert r["wavefront_size"] == amd.wave_size(arch), f"{name} on {arch}"
        if res_p[name]["scratch"] == 0:
            assert r["scratch"] == 0, f"{name} on {arch}: {r['scratch']} B scratch when lifted"
        if "s_barrier" in isa_p[name]:
            assert "s_barrier" in isa_s[name], f"{name} on {arch}: no barrier when lifted"
        if any(op in isa_p[name] for op in CROSS_LANE):
            assert any(op in isa_s[name] for op in CROSS_LANE), \
                f"{name} on {arch}: no cross-lane instruction when lifted"
    # the suite has barrier and shuffle kernels, so the checks above checked something
    assert "s_barrier" in isa_s["reduce"] and any(op in isa_s["scan"] for op in CROSS_LANE)
