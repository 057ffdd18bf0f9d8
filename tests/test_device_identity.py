"""The NVIDIA identity the C libraries present (shim/common/device_identity.c, through
libcuda's cuDeviceGetAttribute) and the one pyshim/device/identity.py reads from the same
table for the `pyshim run` notice must agree, for every spelling of PYSHIM_DEVICE_CC."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from pyshim.device.identity import default, identities, parse_cc, presented
from pyshim.paths import build_dir

# a ctypes driver client: prints "major minor warp threads/sm blocks/sm"
PROBE = r"""
import ctypes, sys
cu = ctypes.CDLL(sys.argv[1])
assert cu.cuInit(0) == 0
out = []
for attr in (75, 76, 10, 39, 106):
    v = ctypes.c_int(-1)
    assert cu.cuDeviceGetAttribute(ctypes.byref(v), attr, 0) == 0
    out.append(v.value)
print(*out)
"""

SPELLINGS = ["", "8.6", "86", "sm_90", "compute_75", "9.0", "12.0", "120", "10.0", "8.9",
             "9.4", "11.0", "banana", "8.65", "sm_", "7"]


@pytest.fixture(scope="module")
def libcuda() -> Path:
    from pyshim.builders.components import build_all

    build_all()
    lib = build_dir() / "lib" / "libcuda.so.1"
    assert lib.exists()
    return lib


def probe(lib: Path, value: str) -> tuple[list[int], str]:
    env = {k: v for k, v in os.environ.items() if k not in ("LD_PRELOAD", "PYSHIM_DEVICE_CC")}
    env["LD_LIBRARY_PATH"] = f"{build_dir() / 'lib'}:{build_dir() / 'cpu'}"
    env["PYSHIM_BACKEND"] = "cpu"
    if value:
        env["PYSHIM_DEVICE_CC"] = value
    proc = subprocess.run([sys.executable, "-c", PROBE, str(lib)], capture_output=True,
                          text=True, env=env, timeout=120)
    assert proc.returncode == 0, proc.stderr
    return [int(x) for x in proc.stdout.split()], proc.stderr


@pytest.mark.parametrize("value", SPELLINGS)
def test_c_and_python_present_the_same_identity(libcuda: Path, value: str) -> None:
    got, stderr = probe(libcuda, value)
    want, complaint = presented({"PYSHIM_DEVICE_CC": value} if value else {})
    assert got[:2] == [want.major, want.minor]
    assert got[2] == 32  # CUDA's warp, on the wave64 CPU device too
    assert got[3] == want.threads_per_sm and got[4] == want.blocks_per_sm
    # an unknown capability is refused by name, in both, and the default presented
    assert (complaint is None) == ("is not a compute capability" not in stderr)
    if complaint is not None:
        assert want == default() and f"PYSHIM_DEVICE_CC={value}" in stderr


def test_the_table_is_parsed() -> None:
    rows = identities()
    assert (8, 6) in rows and rows[(8, 6)].architecture.startswith("Ampere")
    assert default().cc == "8.6"
    assert parse_cc("sm_90") == (9, 0) and parse_cc("120") == (12, 0)
    assert parse_cc("banana") is None and parse_cc("8.65") is None
