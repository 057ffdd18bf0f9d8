"""The prepared NVIDIA differential script keeps working without a GPU: every example runs
under pyshim, and its PTX translated by the cuda target compiles with nvcc."""

import json
import shutil
import subprocess
import sys

import pytest

pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(shutil.which("nvcc") is None, reason="nvcc not on PATH")]


def test_differential_script_without_a_gpu():
    out = subprocess.run([sys.executable, "-m", "pyshim.differential", "--json",
                          "vector_add", "k_warp_vote", "k_printf"],
                         capture_output=True, text=True, timeout=600)
    doc = json.loads(out.stdout)
    assert [r["example"] for r in doc["results"]] == ["vector_add", "k_warp_vote", "k_printf"]
    for r in doc["results"]:
        assert r["pyshim_pass"] and r["cuda_target"] == "compiles", r
    assert out.returncode == 0, out.stderr
