"""pyshim's own declarations of the CUDA ABI it exports agree with NVIDIA's headers: the
same static asserts (enum values, struct sizes, field offsets) pass against both, and our
prototypes redeclare every exported symbol without conflict."""

import subprocess

import pytest

from pyshim.codegen import cuda_decls

REAL = {"driver": ("cuda.h",), "runtime": ("cuda_runtime_api.h",), "cublas": ("cublas_v2.h",),
        "cusolver": ("cusolverDn.h", "cusolverSp.h", "cusolverSp_LOWLEVEL_PREVIEW.h",
                     "cusolverRf.h")}


def _gcc(src, out, includes=()):
    cmd = ["gcc", "-std=c11", "-Wall", "-Wextra", "-Werror", *(f"-I{d}" for d in includes),
           "-c", str(src), "-o", str(out)]
    return subprocess.run(cmd, capture_output=True, text=True)


@pytest.fixture(scope="module")
def gen(tmp_path_factory):
    d = tmp_path_factory.mktemp("cuda-decls")
    cuda_decls.generate(d)
    return d


@pytest.mark.parametrize("api", cuda_decls.APIS)
def test_own_declarations_compile_alone(gen, tmp_path, api):
    src = tmp_path / f"own_{api}.c"
    src.write_text(f'#include "pyshim_cuda_{api}.h"\n#include "pyshim_cuda_{api}_checks.inc"\n')
    proc = _gcc(src, tmp_path / "own.o", [gen])
    assert proc.returncode == 0, proc.stderr[-3000:]


def _real_source(api: str) -> str:
    includes = "".join(f"#include <{h}>\n" for h in REAL[api])
    # cusparse.h (cusolverSp.h's types) warns on its own deprecated types unless told not to
    return (f"#define __CUDA_API_VERSION_INTERNAL 1\n#define DISABLE_CUSPARSE_DEPRECATED 1\n"
            f"{includes}"
            f'#include "pyshim_cuda_{api}_checks.inc"\n'
            f"#define PYSHIM_CUDA_{api.upper()}_PROTOTYPES_ONLY\n"
            f'#include "pyshim_cuda_{api}.h"\n')


@pytest.fixture(scope="module")
def cuda_includes():
    from pyshim.tables.fetch import include_dir

    return [include_dir(k) for k in ("cuda13-runtime", "cuda13-crt", "cuda13-profiler",
                                     "cublas13", "cusolver12", "cusparse12", "cuda13-cccl")]


@pytest.mark.network
@pytest.mark.parametrize("api", cuda_decls.APIS)
def test_agrees_with_nvidias_headers(gen, tmp_path, cuda_includes, api):
    src = tmp_path / f"real_{api}.c"
    src.write_text(_real_source(api))
    proc = _gcc(src, tmp_path / "real.o", [gen, *cuda_includes])
    assert proc.returncode == 0, proc.stderr[-3000:]
    checks = (gen / f"pyshim_cuda_{api}_checks.inc").read_text()
    assert checks.count("_Static_assert") > 100


@pytest.mark.network
def test_a_wrong_layout_is_a_compile_error(gen, tmp_path, cuda_includes):
    bad = tmp_path / "bad"
    bad.mkdir()
    checks = (gen / "pyshim_cuda_runtime_checks.inc").read_text()
    needle = "_Static_assert(sizeof(struct cudaDeviceProp) == 1008"
    assert needle in checks
    (bad / "pyshim_cuda_runtime_checks.inc").write_text(
        checks.replace(needle, "_Static_assert(sizeof(struct cudaDeviceProp) == 1032"))
    (bad / "pyshim_cuda_runtime.h").write_text((gen / "pyshim_cuda_runtime.h").read_text())
    src = tmp_path / "real.c"
    src.write_text(_real_source("runtime"))
    proc = _gcc(src, tmp_path / "real.o", [bad, *cuda_includes])
    assert proc.returncode != 0 and "cudaDeviceProp" in proc.stderr
