"""The contract between the PTX translator's CPU target and the CPU device runtime: real nvcc
PTX, translated and compiled by pyshim.kernels, loaded and launched through libamdhip64."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
from cpu_device.harness import HERE, run, values

pytestmark = pytest.mark.skipif(shutil.which("nvcc") is None, reason="needs nvcc")


@pytest.fixture(scope="module")
def translated(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    from pyshim.kernels.loader import load_module

    tmp = tmp_path_factory.mktemp("ptx")
    ptx = tmp / "kernels.ptx"
    subprocess.run(["nvcc", "-ptx", "-o", str(ptx), str(HERE / "ptx_kernels.cu")], check=True)
    out = {}
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("PYSHIM_CACHE", str(tmp / "cache"))   # a private kernel cache
        for wave in ("64", "32"):
            mod = load_module(ptx.read_bytes(), f"cpu-wave{wave}")
            assert mod.kernels == ["vadd", "block_sum", "hello", "spin_clock"]
            out[wave] = mod.path
    return out


@pytest.mark.parametrize("wave", ["64", "32"])
def test_translated_kernels_run(translated: dict[str, Path], wave: str) -> None:
    r = run("ptx_module", str(translated[wave]), env={"PYSHIM_CPU_WAVE": wave})
    assert r.returncode == 0, r.stderr
    v = values(r)
    assert v["vadd"] == "1"
    assert v["vadd_extra"] == "2,1998"
    # block b sums 256b .. 256b+255
    assert v["block_sum"] == ",".join(str(sum(range(256 * b, 256 * b + 256))) for b in range(4))
    assert v["counter"] == "192,4"          # 3 blocks x 64 threads, atomicAdd on a global
    hello = sorted(line for line in r.lines if line.startswith("hello"))
    assert hello == [f"hello from block {b} tag 9 0.500000" for b in range(3)]
    # %clock64 counts at the advertised clock rate (within 2%, whatever the machine's counter
    # frequency), so a wait of 30 ms worth of cycles lasts at least about 30 ms
    assert 980 <= int(v["clock_rate_permille"]) <= 1020, v["clock_rate_permille"]
    assert float(v["clock_wait_ms"]) >= 29.0
