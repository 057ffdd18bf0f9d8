"""Real nvcc-built programs for the binary tests, cached under build/test-bins/.

Other test_binary_* files import this module (`import test_binary_nvcc as nv`) and call
`nv.program(flavour)`: each flavour is built once per source/flag hash and reused by later
runs and by parallel workers (the output is written to a temp file and renamed).
"""

from __future__ import annotations

import functools
import hashlib
import os
import re
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest

from pyshim import paths

SOURCE = r"""
#include <cstdio>
__constant__ float coeffs[4];
__device__ __noinline__ float twice(float x) { return 2.0f * x; }
__global__ void axpy(float *y, const float *x, float a, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] += twice(a) * x[i] + coeffs[i & 3];
}
template <typename T> __global__ void fill(T *p, T v, int n) {
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        p[i] = v;
}
template __global__ void fill<int>(int *, int, int);
template __global__ void fill<double>(double *, double, int);
int main() {
    float *d = nullptr;
    if (cudaMalloc(&d, 64 * sizeof(float)) != cudaSuccess) { puts("no device"); return 1; }
    axpy<<<1, 64>>>(d, d, 1.0f, 64);
    fill<int><<<1, 64>>>((int *)d, 1, 64);
    fill<double><<<1, 32>>>((double *)d, 1.0, 32);
    return cudaDeviceSynchronize() == cudaSuccess ? 0 : 1;
}
"""

KERNELS = sorted(["_Z4axpyPfPKffi", "_Z4fillIiEvPT_S0_i", "_Z4fillIdEvPT_S0_i"])

# flavour -> nvcc flags (each builds SOURCE into one executable)
FLAVOURS: dict[str, list[str]] = {
    "default": [],
    "lz4": ["--compress-mode=speed"],
    "compress_all": ["-Xfatbin=-compress-all"],
    "size": ["--compress-mode=size"],
    "plain": ["-no-compress"],
    "sass_only": ["-gencode", "arch=compute_86,code=sm_86"],
    "rdc": ["-rdc=true"],
    "multi": ["-gencode", "arch=compute_75,code=sm_75",
              "-gencode", "arch=compute_80,code=compute_80",
              "-gencode", "arch=compute_90,code=[sm_90,compute_90]"],
    "shared": ["-cudart", "shared", "-Xlinker", "-rpath=/opt/pyshim-test/lib"],
}


def nvcc() -> str:
    found = shutil.which("nvcc")
    if found is None:
        pytest.skip("nvcc is not on PATH")
    return found


def _bins_dir() -> Path:
    d = paths.build_dir() / "test-bins"
    d.mkdir(parents=True, exist_ok=True)
    return d


def _cached_build(name: str, flags: list[str], source: str, suffix: str = "",
                  src_path: Path | None = None) -> Path:
    """nvcc `flags` over `source`, cached by a hash of both (and nvcc's identity).
    With src_path (whose text is `source`), nvcc compiles that file in place, so
    __FILE__ in messages names the real source."""
    tool = nvcc()
    digest = hashlib.sha256("\0".join([tool, source, str(src_path), *flags]).encode()) \
        .hexdigest()[:16]
    out = _bins_dir() / f"{name}-{digest}{suffix}"
    if out.exists():
        return out
    with tempfile.TemporaryDirectory(dir=_bins_dir()) as tmp:
        src = src_path if src_path is not None else Path(tmp) / "prog.cu"
        if src_path is None:
            src.write_text(source)
        target = Path(tmp) / ("out" + suffix)
        res = subprocess.run([tool, "-O2", *flags, "-o", str(target), str(src)],
                             capture_output=True, text=True, timeout=300)
        if res.returncode != 0:
            raise AssertionError(f"nvcc {' '.join(flags)} failed:\n{res.stderr}")
        os.replace(target, out)  # atomic: parallel workers may race to the same name
    return out


@functools.cache
def program(flavour: str) -> Path:
    return _cached_build(flavour, FLAVOURS[flavour], SOURCE)


@functools.cache
def ptx(arch: str = "compute_75") -> str:
    """What `nvcc -ptx` emits for SOURCE."""
    return _cached_build(f"ptx-{arch}", ["-ptx", f"-arch={arch}"], SOURCE, ".ptx").read_text()


def normalise_ptx(text: str) -> list[str]:
    """PTX with comments and blank lines removed and runs of blanks squeezed: the fatbin
    stores PTX stripped like this, so extracted PTX equals `nvcc -ptx` modulo these."""
    lines = []
    for line in text.replace("\0", "").splitlines():
        line = re.sub(r"\s+", " ", re.sub(r"//.*", "", line)).strip()
        if line:
            lines.append(line)
    return lines


def test_every_flavour_builds_and_is_reused():
    for flavour in FLAVOURS:
        path = program(flavour)
        assert path.stat().st_size > 10_000, flavour
        assert path.read_bytes()[:4] == b"\x7fELF"
    # a second build of the same inputs is the cached file, not a rebuild
    before = program("default").stat().st_mtime_ns
    assert _cached_build("default", FLAVOURS["default"], SOURCE).stat().st_mtime_ns == before


def test_normalise_ptx_drops_only_comments_and_layout():
    assert normalise_ptx("// c\n\t.version 9.0\n\n  add.s32\t%r1,  %r2, 1; // x\n\0\0") == \
        [".version 9.0", "add.s32 %r1, %r2, 1;"]
    assert normalise_ptx("mov.u32 %r1, 2;") != normalise_ptx("mov.u32 %r1, 3;")
