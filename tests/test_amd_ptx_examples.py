"""Every example kernel, nvcc -> PTX -> hip-wave64/hip-wave32 -> code objects for gfx90a,
gfx942 (wave64) and gfx1100, gfx1201 (wave32), inspected in the ISA and the metadata.

Skipped, with the reason, until the translator's hip targets exist (pyshim.ptx.targets.hip)
or when nvcc / clang-19 are missing. Run with -s to see the resource table.
"""

from __future__ import annotations

import re
import shutil
import subprocess

import pytest

from pyshim.kernels import amd
from pyshim.paths import REPO_DIR

EXAMPLES = sorted(REPO_DIR.glob("examples/k_*.cu")) + [REPO_DIR / "examples/vector_add.cu"]
# kernels with no reason to touch private memory: a spill here is a code-generation defect
NO_SCRATCH = {"vector_add", "saxpy_grid_stride", "block_sums", "reverse_segments",
              "matmul_tiled", "convolve"}
BARRIER = {"gfx90a": "s_barrier", "gfx942": "s_barrier", "gfx1100": "s_barrier",
           "gfx1201": "s_barrier_signal"}
CROSS_LANE = ("ds_bpermute", "ds_swizzle", "row_", "quad_perm", "v_permlane", "v_readlane",
              "dpp")


def _hip_target_reason() -> str | None:
    if shutil.which("nvcc") is None:
        return "needs nvcc"
    if "clang" not in amd.available_compilers():
        return ("clang >= 19 with lld not installed (apt-get install -y "
                "--no-install-recommends clang-19 lld-19 llvm-19)")
    try:
        from pyshim.ptx.targets import get_target

        get_target("hip-wave64")
        get_target("hip-wave32")
    except (ImportError, ValueError, NotImplementedError) as exc:
        return f"the PTX translator has no hip-wave64/hip-wave32 target yet ({exc})"
    return None


SKIP = _hip_target_reason()
pytestmark = pytest.mark.skipif(SKIP is not None, reason=SKIP or "")


def _entries(ptx: str) -> dict[str, str]:
    """PTX kernel name -> its body text (up to the next .entry/.func)."""
    parts = re.split(r"^(?=(?:\.visible\s+|\.weak\s+)?\.(?:entry|func)\b)", ptx, flags=re.M)
    out = {}
    for part in parts:
        m = re.match(r"(?:\.visible\s+|\.weak\s+)?\.entry\s+([\w$]+)", part)
        if m:
            out[m.group(1)] = part
    return out


def _short(name: str) -> str:
    """The source name inside an Itanium-mangled one (_Z9scale_addIfLi2EEvPKT_PS0_i ->
    scale_add), for tables and for matching NO_SCRATCH."""
    m = re.match(r"_Z(\d+)", name)
    return name[len(m.group(0)):len(m.group(0)) + int(m.group(1))] if m else name


@pytest.fixture(scope="module")
def compiled(tmp_path_factory):
    """(example, arch) -> (ptx entries, isa per kernel, resources)."""
    from pyshim.ptx.translate import translate

    tmp = tmp_path_factory.mktemp("amd-ptx")
    out = {}
    for cu in EXAMPLES:
        ptx_path = tmp / f"{cu.stem}.ptx"
        subprocess.run(["nvcc", "-ptx", "-O2", str(cu), "-o", str(ptx_path)], check=True,
                       capture_output=True, timeout=300)
        ptx = ptx_path.read_text()
        for arch in amd.ARCHS:
            target = f"hip-wave{amd.wave_size(arch)}:{arch}"
            source = translate(ptx, target)
            co = amd.compile_hip(source, arch, use_cache=False)
            out[cu.stem, arch] = (_entries(ptx), amd.isa_by_kernel(co, arch),
                                  amd.kernel_resources(co))
    return out


CASES = [(cu.stem, arch) for cu in EXAMPLES for arch in amd.ARCHS]


@pytest.mark.parametrize("example,arch", CASES)
def test_every_ptx_kernel_is_in_the_code_object(compiled, example, arch):
    entries, _, res = compiled[example, arch]
    assert entries, f"{example}: nvcc produced no kernels"
    # the shim finds kernels by their PTX names (hipModuleGetFunction)
    missing = sorted(set(entries) - set(res))
    assert not missing, f"{example} on {arch}: kernels not in the code object: {missing}"
    for name in entries:
        assert res[name]["wavefront_size"] == amd.wave_size(arch)


@pytest.mark.parametrize("example,arch", CASES)
def test_barriers_and_shuffles_reach_the_isa(compiled, example, arch):
    entries, isa, _ = compiled[example, arch]
    for name, body in entries.items():
        if re.search(r"\b(bar|barrier)\.(sync|red|arrive)\b", body):
            assert BARRIER[arch] in isa[name], f"{example} {name} on {arch}: no barrier"
        if re.search(r"\bshfl\.sync\b", body):
            assert any(op in isa[name] for op in CROSS_LANE), \
                f"{example} {name} on {arch}: shfl.sync with no cross-lane instruction"


@pytest.mark.parametrize("example,arch", CASES)
def test_simple_kernels_use_no_scratch(compiled, example, arch):
    entries, _, res = compiled[example, arch]
    for name in entries:
        if _short(name) in NO_SCRATCH:
            r = res[name]
            assert r["scratch"] == 0, f"{example} {name} on {arch}: {r['scratch']} B scratch"


def test_resource_table(compiled, capsys):
    rows = []
    for (example, arch), (entries, _, res) in sorted(compiled.items()):
        for name in entries:
            r = res[name]
            rows.append(f"{example:<20} {_short(name):<20} {arch:<8} vgpr {r['vgpr']:>3} "
                        f"sgpr {r['sgpr']:>3} scratch {r['scratch']:>6} lds {r['lds']:>6}")
    with capsys.disabled():
        print("\n" + "\n".join(rows))
    assert len(rows) >= len(EXAMPLES) * len(amd.ARCHS)
