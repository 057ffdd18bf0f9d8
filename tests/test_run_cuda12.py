"""A program linked against CUDA 12.9's static runtime (NVIDIA's libcudart_static.a from
PyPI) runs under the shim: CUDA 12's cudart keeps the driver contract our libcuda meets."""

import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from pyshim.paths import REPO_DIR, build_dir

pytestmark = [pytest.mark.network, pytest.mark.skipif(shutil.which("nvcc") is None,
                                                      reason="nvcc not on PATH")]
WHEEL = ("nvidia-cuda-runtime-cu12", "12.9.79")


@pytest.fixture(scope="module")
def cudart12(tmp_path_factory) -> Path:
    lib = build_dir() / "cuda12" / "lib"
    if not (lib / "libcudart_static.a").is_file():
        work = tmp_path_factory.mktemp("wheel")
        subprocess.run([sys.executable, "-m", "pip", "download", "-q", "--no-deps",
                        "--only-binary", ":all:", "-d", str(work), f"{WHEEL[0]}=={WHEEL[1]}"],
                       check=True)
        (wheel,) = work.glob("*.whl")
        lib.mkdir(parents=True, exist_ok=True)
        with zipfile.ZipFile(wheel) as zf:
            (lib / "libcudart_static.a").write_bytes(
                zf.read("nvidia/cuda_runtime/lib/libcudart_static.a"))
    return lib


@pytest.mark.parametrize("example", ["k_warp_vote", "k_atomics", "k_constant"])
def test_static_cuda12_runtime_program_runs(cudart12: Path, tmp_path: Path, example: str):
    exe = tmp_path / example
    subprocess.run(["nvcc", "-O2", "-cudart", "none", "-o", str(exe),
                    str(REPO_DIR / "examples" / f"{example}.cu"), f"-L{cudart12}",
                    "-l:libcudart_static.a", "-ldl", "-lrt", "-lpthread"], check=True)
    # NVIDIA's CUDA 12 runtime is inside: it asks for the CUDA 12 driver ABI, not 13's
    from pyshim.check import check_report

    static = check_report([str(exe)], translate=False)["binaries"][0]["static_cudart"]
    assert static is not None and static["driver_abi"] < 13000, static
    out = subprocess.run([sys.executable, "-m", "pyshim", "run", "--backend", "cpu", str(exe)],
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 0 and f"PASS {example}" in out.stdout, out.stdout + out.stderr
