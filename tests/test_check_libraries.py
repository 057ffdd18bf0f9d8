"""Sonames -> CUDA library families, and where the loader would look for them."""

from __future__ import annotations

from pathlib import Path

import pytest

from pyshim.check.libraries import classify, find, search_dirs


@pytest.mark.parametrize("soname, family, replaced", [
    ("libcuda.so.1", "driver", True),
    ("libcudart.so.13", "runtime", True),
    ("libcudart.so.12", "runtime", True),
    ("libcublas.so.13", "cublas", True),
    ("libcusolver.so.11", "cusolver", True),
    ("libcublasLt.so.13", "cuBLASLt", True),
    ("libcufft.so.12", "cufft", True),
    ("libcurand.so.10", "curand", True),
    ("libcufftw.so.12", "cuFFTW", False),
    ("libcudnn_ops.so.9", "cuDNN", False),
    ("libnvrtc-builtins.so.13.0", "NVRTC builtins", False),
    ("libnccl.so.2", "nccl", True),
    ("/opt/x/libcusparse.so.12", "cusparse", True),
])
def test_cuda_libraries(soname, family, replaced):
    lib = classify(soname)
    assert lib is not None and (lib.family, lib.replaced) == (family, replaced)


@pytest.mark.parametrize("soname", ["libc.so.6", "libstdc++.so.6", "libcudaish.so.1",
                                    "libm.so.6", "ld-linux-x86-64.so.2", ""])
def test_other_libraries_are_not_cuda(soname):
    assert classify(soname) is None


def test_search_order_rpath_env_runpath_origin(tmp_path, monkeypatch):
    exe = tmp_path / "bin" / "app"
    exe.parent.mkdir()
    exe.write_bytes(b"")
    monkeypatch.setenv("LD_LIBRARY_PATH", "/env/a:/env/b")
    dirs = search_dirs(exe, ["$ORIGIN/../lib", "/r"], [])
    assert dirs == [tmp_path / "lib", Path("/r"), Path("/env/a"), Path("/env/b"),
                    tmp_path / "bin"]
    # RUNPATH set: RPATH is ignored, and RUNPATH comes after LD_LIBRARY_PATH (ld.so(8))
    dirs = search_dirs(exe, ["/r"], ["${ORIGIN}/rt"])
    assert dirs == [Path("/env/a"), Path("/env/b"), tmp_path / "bin" / "rt", tmp_path / "bin"]
    (tmp_path / "lib" / "libcufft.so.12").parent.mkdir()
    (tmp_path / "lib" / "libcufft.so.12").write_bytes(b"x")
    assert find("libcufft.so.12", search_dirs(exe, ["$ORIGIN/../lib"], [])) == \
        tmp_path / "lib" / "libcufft.so.12"
    assert find("libcufft.so.11", dirs) is None


def test_hooks_come_from_the_runtime_sources(tmp_path):
    from pyshim.check import hooks

    src = tmp_path / "register.c"
    src.write_text("EXPORT void **__cudaRegisterFatBinary(void *fatCubin)\n{\n}\n"
                   "EXPORT cudaError_t\n__cudaLaunchKernel(cudaKernel_t k)\n{\n}\n"
                   "void __cudaNotExported(void) {}\n"
                   "EXPORT void __cudaDeclaredOnly(void);\n")
    assert hooks.implemented(tmp_path) == {"__cudaRegisterFatBinary", "__cudaLaunchKernel"}
    # the real runtime: what nvcc's host stubs call is there
    real = hooks.implemented()
    if not real:
        pytest.skip("shim/runtime sources absent")
    assert {"__cudaRegisterFatBinary", "__cudaRegisterFunction", "__cudaLaunchKernel",
            "__cudaPushCallConfiguration", "__cudaPopCallConfiguration"} <= real
    assert hooks.status("__cudaRegisterFatBinary")[0] == "shim"
    assert hooks.status("__cudaNoSuchHook")[0] == "unknown"
