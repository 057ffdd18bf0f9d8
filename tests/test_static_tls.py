"""pyshim's libraries and the CPU device's kernel modules load by dlopen into a process
whose static TLS block is already full, in any order.

glibc puts a dlopened library's TLS in the static block when the library is marked
STATIC_TLS (one initial-exec variable is enough), and that block has little room left for
dlopened libraries (512 bytes): ggml's test-backend-ops, which loads many libraries, once
failed to dlopen libcuda.so.1 with `cannot allocate memory in static TLS block`."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from pyshim.builders.common import CC
from pyshim.builders.components import build_all
from pyshim.paths import build_dir

# a library that takes the static block's room for dlopened libraries, as an earlier
# dlopened library with initial-exec TLS (or many small ones) would
FILLER = """
__attribute__((tls_model("initial-exec"))) __thread char fill[512];
char *touch(void) { fill[0] = 1; return fill; }
"""

LOADER = r"""
#include <dlfcn.h>
#include <stdio.h>
int main(int argc, char **argv) {
    int bad = 0;
    for (int i = 1; i < argc; i++) {
        void *h = dlopen(argv[i], RTLD_NOW | RTLD_LOCAL);
        if (h == NULL) {
            printf("FAIL %s\n", dlerror());
            bad = 1;
            if (i == 1)
                return 2;
        } else {
            printf("PASS %s\n", argv[i]);
        }
    }
    return bad;
}
"""

LIBS = ["lib/libcuda.so.1", "lib/libcudart.so.13", "lib/libcudart.so.12",
        "lib/libcublas.so.13", "lib/libcusparse.so.12", "lib/libcufft.so.12",
        "lib/libcurand.so.10", "lib/libcusolver.so.12", "lib/libnccl.so.2",
        "cpu/libamdhip64.so.7", "cpu/librccl.so.1",
        "cpu/libhipfft.so.0", "cpu/librocblas.so.5", "cpu/librocsparse.so.1"]

PTX = """.version 8.0
.target sm_80
.address_size 64
.visible .entry k(.param .u64 out)
{
  .reg .b64 %rd<2>;
  .reg .b32 %r<2>;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  bar.sync 0;
  st.global.u32 [%rd1], %r1;
  ret;
}
"""


@pytest.fixture(scope="module")
def root() -> Path:
    build_all()
    return build_dir()


def _static_tls(path: Path) -> bool:
    out = subprocess.run(["readelf", "-d", str(path)], capture_output=True, text=True,
                         check=True).stdout
    return "STATIC_TLS" in out


def _present(root: Path) -> list[Path]:
    found = [root / name for name in LIBS if (root / name).exists()]
    assert root / "lib/libcuda.so.1" in found
    return found


def test_no_library_needs_static_tls(root: Path) -> None:
    marked = [str(p) for p in _present(root) if _static_tls(p)]
    assert not marked


def test_kernel_modules_need_no_static_tls(tmp_path: Path) -> None:
    from pyshim.kernels.compile import compile_cpu
    from pyshim.ptx.translate import translate

    so = tmp_path / "k.so"
    so.write_bytes(compile_cpu(translate(PTX, "cpu-wave64")))
    assert not _static_tls(so)


def test_dlopen_after_the_static_block_is_full(root: Path, tmp_path: Path) -> None:
    (tmp_path / "filler.c").write_text(FILLER)
    (tmp_path / "loader.c").write_text(LOADER)
    filler, loader = tmp_path / "libfiller.so", tmp_path / "loader"
    subprocess.run([CC, "-shared", "-fPIC", "-o", str(filler), str(tmp_path / "filler.c")],
                   check=True)
    subprocess.run([CC, "-o", str(loader), str(tmp_path / "loader.c"), "-ldl"], check=True)
    env = {"LD_LIBRARY_PATH": f"{root / 'lib'}:{root / 'cpu'}", "PYSHIM_BACKEND": "cpu",
           "PATH": "/usr/bin:/bin"}
    libs = _present(root)
    # the libraries in order, then libcuda.so.1 last (after the others took their room)
    for order in (libs, libs[1:] + libs[:1]):
        proc = subprocess.run([str(loader), str(filler), *map(str, order)],
                              capture_output=True, text=True, env=env, timeout=120)
        if proc.returncode == 2:
            pytest.skip(f"this glibc has no room for the filler itself: {proc.stdout}")
        assert proc.returncode == 0, proc.stdout + proc.stderr
        assert proc.stdout.count("PASS") == len(order) + 1, proc.stdout
