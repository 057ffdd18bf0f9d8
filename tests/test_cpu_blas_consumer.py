"""A C program compiled against the real ROCm headers and linked by SONAME to the CPU device's
HIP runtime, rocBLAS and rocSOLVER runs and checks its own results."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent / "cpu_blas"))
import harness as H  # noqa: E402

from pyshim.builders.cpu_blas import header_dirs  # noqa: E402


def test_consumer_program(tmp_path):
    out = H.build_libs()
    exe = tmp_path / "consumer"
    inc = [f"-I{d}" for d in header_dirs()]
    subprocess.run(["gcc", "-std=c11", "-Wall", "-Wextra", "-Werror", "-D__HIP_PLATFORM_AMD__",
                    *inc, str(H.HERE / "consumer.c"), "-o", str(exe), f"-L{out}",
                    "-l:librocsolver.so.0", "-l:librocblas.so.5", "-l:libamdhip64.so.7", "-lm",
                    f"-Wl,-rpath,{out}"], check=True)
    needed = subprocess.run(["readelf", "-d", str(exe)], capture_output=True, text=True).stdout
    for lib in ("librocblas.so.5", "librocsolver.so.0", "libamdhip64.so.7"):
        assert f"[{lib}]" in needed
    run = subprocess.run([str(exe)], capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip() == "consumer ok"
