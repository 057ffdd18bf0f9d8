"""The SASS front end's kernel-level oracle: every kernel case of the cuda-target round trip
(tests/ptx/*.cu, the examples' kernels, the benchmark kernels) runs from nvcc's PTX and from
the SASS nvcc made of the same source (-cubin -arch=sm_80 / sm_90, lifted by pyshim.sass),
on the CPU device in both wave modes, with the same inputs; outputs must be the same bytes.
"""

from __future__ import annotations

import shutil
import subprocess

import numpy as np
import pytest
from ptx.harness import build
from test_ptx_cuda_roundtrip import CASES, FIBERS, SOURCES, _run

from pyshim.sass.decode import nvdisasm_path
from pyshim.sass.lift import lift_cubin

pytestmark = [
    pytest.mark.skipif(shutil.which("nvcc") is None, reason="needs nvcc"),
    pytest.mark.skipif(nvdisasm_path() is None,
                       reason="nvdisasm (nvidia-cuda-nvdisasm) is not installed"),
]
# sm_90 doubles the suite's time (~12 min for both on a loaded 2-core machine): slow tier
ARCHS = (80, pytest.param(90, marks=pytest.mark.slow))
WAVES = ("cpu-wave32", "cpu-wave64")


@pytest.fixture(scope="module")
def pair(tmp_path_factory):
    """(module, arch, target) -> (CPU-device module from PTX, from lifted SASS)."""
    tmp = tmp_path_factory.mktemp("sassrt")
    texts: dict[tuple[str, int], tuple[str, str]] = {}
    built: dict[tuple[str, int, str], tuple] = {}

    def get(module: str, arch: int, target: str):
        if (module, arch) not in texts:
            src, _ = SOURCES[module]
            ptx, cub = tmp / f"{module}{arch}.ptx", tmp / f"{module}{arch}.cubin"
            for kind, out in (("-ptx", ptx), ("-cubin", cub)):
                subprocess.run(["nvcc", kind, "-O2", f"-arch=sm_{arch}", str(src), "-o",
                                str(out)], check=True, capture_output=True, timeout=600)
            texts[(module, arch)] = (ptx.read_text(), lift_cubin(cub.read_bytes(), partial=True))
        key = (module, arch, target)
        if key not in built:
            p, lifted = texts[(module, arch)]
            t = FIBERS.get(module, target) if target == "cpu-wave32" else target
            built[key] = (build(p, t, tmp), build(lifted, t, tmp))
        return built[key]

    return get


@pytest.mark.parametrize("target", WAVES)
@pytest.mark.parametrize("arch", ARCHS)
@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_lifted_kernel_gives_the_same_bytes(pair, case, arch, target):
    mp, ml = pair(case.module, arch, target)
    out_p, glob_p, printed_p = _run(mp, case)
    out_l, _glob_l, printed_l = _run(ml, case)
    assert "<changed>" in printed_p or glob_p or not case.writes, \
        f"{case.id}: the kernel wrote nothing"
    for i, (a, b) in enumerate(zip(out_p, out_l, strict=True)):
        assert np.array_equal(a.view(np.uint8), b.view(np.uint8)), \
            f"{case.id} sm_{arch} {target}: argument {i} differs"
    assert printed_l == printed_p
