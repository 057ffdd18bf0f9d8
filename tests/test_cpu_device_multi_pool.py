"""Memory pools of several CPU devices (issue #22, what cuda-samples'
streamOrderedAllocationP2P needs): tests/runtime/multi_pool.cu, with NVIDIA's static cudart
(pool calls reach libcuda.so.1 as on a GPU) and with pyshim's shared cudart, on 2 and 4
devices. Expected values are computed here."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from test_runtime_programs import RT_DIR, libs, nvcc, run  # noqa: F401 (libs: a fixture)

pytestmark = pytest.mark.skipif(shutil.which("nvcc") is None, reason="nvcc is not installed")

N = 1000
NONE, READ_WRITE = 0, 3   # cudaMemAccessFlagsProtNone / ProtReadWrite


def values(out: str) -> dict[str, str]:
    return dict(line.split("=", 1) for line in out.splitlines() if "=" in line)


@pytest.mark.parametrize("flavour", ["static", "shared"])
@pytest.mark.parametrize("count", [2, 4])
def test_each_device_has_its_pools(libs: Path, flavour: str, count: int) -> None:  # noqa: F811
    flags = ["-cudart", "shared"] if flavour == "shared" else []
    exe = nvcc(RT_DIR / "multi_pool.cu", *flags, name=f"multi_pool_{flavour}")
    r = run(exe, libs, PYSHIM_CPU_DEVICES=str(count))
    assert r.returncode == 0, r.stdout + r.stderr
    v = values(r.stdout)
    assert v["count"] == str(count)
    assert all(v[f"dev{d}.current_is_default"] == "1" for d in range(count))
    assert v["distinct"] == "1"
    # the owner reads and writes; a peer has no access until it is given some
    assert v["access.before"] == f"{READ_WRITE},{NONE}"
    assert v["access.after"] == str(READ_WRITE)
    own, beyond = v["access.refused"].split(",")
    assert own != "cudaSuccess" and beyond == "cudaErrorInvalidDevice"
    # device 0's stream allocates on 0, device 1's on 1, device 0's pool gives device 0's
    assert v["ptr.device"] == "0,1,0"
    assert v["used"] == f"{N * 4 + 64},{N * 4}"
    # device 1's kernel read device 0's pool memory
    want = sum(((7 * i - 300) * 3 + i) * (i % 5 + 1) for i in range(N))
    assert int(v["sum"]) == want
    # device 1 cannot take device 0's pool as its current one; its own created pool it can,
    # and cudaMallocAsync then allocates from it
    assert v["set_pool"] == f"cudaErrorInvalidDevice,1,1,128,{N * 4},1"
    # everything freed; destroying the current pool gives the device its default back
    assert v["after"] == "0,0,1"
    assert v["done"] == "1"
