"""Real nvcc-built programs that #include <curand.h>/<curand_kernel.h> and <cufft.h> (the
real headers) and link -lcurand / -lcufft against pyshim's libraries, run under `pyshim
run` on the CPU device; results are checked against numpy and against cuRAND's own device
functions (curand_init/curand translated from PTX) as the oracle for the host sequences."""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from pyshim.paths import REPO_DIR, build_dir
from pyshim.tables.fetch import include_dir

HERE = Path(__file__).parent / "randfft"
pytestmark = pytest.mark.skipif(shutil.which("nvcc") is None, reason="nvcc is not installed")


@pytest.fixture(scope="module")
def built() -> Path:
    from pyshim.builders.components import ALL, build_all

    build_all(components=ALL)
    return build_dir()


def compile_prog(root: Path, name: str, header_key: str, soname: str) -> Path:
    src = HERE / f"{name}.cu"
    key = hashlib.sha256(src.read_bytes()).hexdigest()[:16]
    exe = root / "progs" / f"{name}-{key}"
    if exe.is_file():
        return exe
    exe.parent.mkdir(parents=True, exist_ok=True)
    tmp = exe.with_suffix(f".{os.getpid()}.tmp")
    cmd = ["nvcc", "-O1", "-o", str(tmp), str(src), f"-I{include_dir(header_key)}",
           f"-L{root / 'lib'}", f"-l:{soname}", "-Xlinker", f"-rpath-link={root / 'cpu'}"]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr
    os.replace(tmp, exe)
    return exe


def run(exe: Path) -> tuple[dict[str, list[str]], str]:
    env = dict(os.environ, PYTHONPATH=str(REPO_DIR))
    proc = subprocess.run([sys.executable, "-m", "pyshim", "run", str(exe)], capture_output=True,
                          text=True, timeout=600, env=env)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    rows = {}
    for line in proc.stdout.splitlines():
        name, *vals = line.split()
        rows[name] = vals
    return rows, proc.stderr


def _input(n: int, start: int = 0) -> np.ndarray:
    i = np.arange(start, start + n)
    return np.sin(0.37 * i) + 0.25 * np.cos(1.3 * i)


def test_curand_host_sequences_are_curand_kernels(built):
    rows, err = run(compile_prog(built, "prog_curand", "curand10", "libcurand.so.10"))
    # 4096 states x 3 draws: the host generator equals curand_init/curand run in a kernel
    for gen in ("xorwow", "philox", "mrg32k3a"):
        assert rows[gen][-1] == "0", rows
    # MTGP32: the host generator's 64 x 256 x 3 results equal curand() of
    # curandMakeMTGP32KernelState's states run in a kernel, round by round; normal doubles
    # (inverse CDF) to double rounding, Poisson (inversion at 5.5, normal at 1500) exactly
    for what in range(4):
        row = rows[f"mtgp{what}"]
        assert row[4] == "0" and float(row[6]) < 1e-12, (what, row)
    assert rows["mtgp0"][1] != rows["mtgp0"][2]
    # Sobol32 normal doubles equal curand_normal_double on curand_init's Sobol states, and
    # the scrambled generator equals the scrambled device state built from the direction
    # vectors and scramble constants the library hands out (pyshim's own: not cuRAND's)
    # (and its Poisson values, 7.25, curand_poisson's on the same states)
    assert float(rows["sobol0"][6]) < 1e-12 and rows["sobol1"][4] == "0", rows
    assert rows["sobol0"][4] == "0", rows["sobol0"]
    # Poisson (lambda 5.5 and 1500) of XORWOW, Philox, MRG32k3a: the host values are
    # curand_poisson.h's _curand_poisson(curand(&state)) for each state, exactly
    for k in range(3):
        for lam in range(2):
            assert rows[f"poisson{k}{lam}"][4] == "0", rows[f"poisson{k}{lam}"]
    # the host distributions equal the device functions state by state: normals to float
    # rounding (the device's __sincosf), doubles to double rounding, uniform doubles exactly
    for k in range(3):
        ef, ed, eu = map(float, rows[f"dists{k}"])
        assert ef < 2e-6 and ed < 1e-13 and eu == 0.0, (k, rows[f"dists{k}"])
    # seed 1234, subsequence 0: curand_init's state and one XORWOW step, from the spec
    s = 1234
    t0 = (1099087573 * ((s & 0xFFFFFFFF) ^ 0xAAD26B49)) & 0xFFFFFFFF
    t1 = (2591861531 * ((s >> 32) ^ 0xF7DCEFDD)) & 0xFFFFFFFF
    v = [(123456789 + t0) & 0xFFFFFFFF, 362436069 ^ t0, (521288629 + t1) & 0xFFFFFFFF,
         88675123 ^ t1, (5783321 + t0) & 0xFFFFFFFF]
    d = (6615241 + t1 + t0) & 0xFFFFFFFF
    t = v[0] ^ (v[0] >> 2)
    v4 = (v[4] ^ (v[4] << 4) ^ t ^ (t << 1)) & 0xFFFFFFFF
    assert int(rows["xorwow"][1]) == (v4 + d + 362437) & 0xFFFFFFFF
    normal = dict(zip(rows["normal"][::2], map(float, rows["normal"][1::2]), strict=True))
    assert abs(normal["mean"] - 2.0) < 0.05 and abs(normal["std"] - 3.0) < 0.05
    uni = dict(zip(rows["uniform"][::2], map(float, rows["uniform"][1::2]), strict=True))
    assert abs(uni["mean"] - 0.5) < 0.01 and 0 < uni["min"] < 0.001 and 0.999 < uni["max"] < 1
    assert abs(float(rows["poisson"][1]) - 5.5) < 0.05
    # an entry point with no rocRAND mapping: cuRAND's "not supported" status, logged once
    assert rows["unmapped"] == ["204"] and "curandCreatePoissonDistribution" in err


def test_cufft_transforms_match_numpy(built):
    rows, err = run(compile_prog(built, "prog_cufft", "cufft12", "libcufft.so.12"))
    c2c = np.array(rows["c2c"], float).view(complex).reshape(2, 12)
    x = (_input(24) + 1j * _input(24, 100)).reshape(2, 12)
    np.testing.assert_allclose(c2c, np.fft.fft(x, axis=-1), rtol=1e-4, atol=1e-4)
    r = _input(60).reshape(6, 10)
    d2z = np.array(rows["d2z"], float).view(complex).reshape(6, 6)
    np.testing.assert_allclose(d2z, np.fft.rfft2(r), rtol=1e-5, atol=1e-5)  # printed %.6e
    # cuFFT's inverse is unnormalised
    np.testing.assert_allclose(np.array(rows["z2d"], float).reshape(6, 10), r * 60, rtol=1e-5, atol=1e-4)
    r3 = _input(72).reshape(4, 3, 6)
    r2c = np.array(rows["r2c3d"], float).view(complex).reshape(4, 3, 4)
    np.testing.assert_allclose(r2c, np.fft.rfftn(r3), rtol=1e-4, atol=1e-4)
    # the extended planner, advanced layout: element k of transform b at 17 b + 2 k
    x = _input(51) - 1j * _input(51, 7)
    got = np.array(rows["xtz2z"], float).view(complex)
    want = x.copy()
    for b in range(3):
        idx = 17 * b + 2 * np.arange(8)
        want[idx] = np.fft.ifft(x[idx]) * 8
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)
    assert rows["xthalf"] == ["16"]          # half precision: FFTW has none
    assert rows["badplan"] == ["1"]          # CUFFT_INVALID_PLAN
    assert rows["callback"] == ["16"]        # CUFFT_NOT_SUPPORTED, refused by name
    assert rows["unmapped"] == ["16"] and "cufftXtSetWorkAreaPolicy" in err
    assert rows["version"] == ["12500"]
