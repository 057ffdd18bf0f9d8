"""pyshim's own declarations of the ROCm ABI agree with the real ROCm 7.2 headers:
the same static asserts (enum values, struct sizes, field offsets) pass against both, and
our prototypes redeclare the real functions without conflict."""

import subprocess

import pytest

from pyshim.codegen import rocm_decls


def _gcc(src, out, includes=(), defines=()):
    cmd = ["gcc", "-std=c11", "-Wall", "-Wextra", "-Werror", *(f"-D{d}" for d in defines),
           *(f"-I{d}" for d in includes), "-c", str(src), "-o", str(out)]
    return subprocess.run(cmd, capture_output=True, text=True)


@pytest.fixture(scope="module")
def gen(tmp_path_factory):
    d = tmp_path_factory.mktemp("gen")
    rocm_decls.generate(d)
    return d


def test_own_declarations_compile_alone(gen, tmp_path):
    src = tmp_path / "own.c"
    src.write_text('#include "pyshim_rocm.h"\n#include "pyshim_rocm_checks.inc"\n')
    proc = _gcc(src, tmp_path / "own.o", [gen])
    assert proc.returncode == 0, proc.stderr[-3000:]
    checks = (gen / "pyshim_rocm_checks.inc").read_text()
    assert "sizeof(struct hipDeviceProp_tR0600) == 1472" in checks
    assert "rocblas_operation_transpose == 112" in checks


@pytest.fixture(scope="module")
def rocm_includes():
    from pyshim.tables.fetch import include_dir

    return [include_dir(k) for k in ("hip", "hsa", "rocblas", "rocsolver")]


REAL = ("#include <hip/hip_runtime_api.h>\n#include <hip/hiprtc.h>\n"
        "#include <rocblas/rocblas.h>\n#include <rocsolver/rocsolver.h>\n"
        '#include "pyshim_rocm_checks.inc"\n#define PYSHIM_ROCM_PROTOTYPES_ONLY\n'
        '#include "pyshim_rocm.h"\n')


@pytest.mark.network
def test_agrees_with_the_real_headers(gen, tmp_path, rocm_includes):
    src = tmp_path / "real.c"
    src.write_text(REAL)
    proc = _gcc(src, tmp_path / "real.o", [gen, *rocm_includes], ["__HIP_PLATFORM_AMD__"])
    assert proc.returncode == 0, proc.stderr[-3000:]


@pytest.mark.network
def test_a_wrong_prototype_is_a_compile_error(gen, tmp_path, rocm_includes):
    bad = tmp_path / "bad"
    bad.mkdir()
    text = (gen / "pyshim_rocm.h").read_text()
    assert "hipError_t hipMalloc(void **ptr, size_t size);" in text
    (bad / "pyshim_rocm.h").write_text(
        text.replace("hipError_t hipMalloc(void **ptr, size_t size);",
                     "hipError_t hipMalloc(void **ptr, int size);"))
    (bad / "pyshim_rocm_checks.inc").write_text((gen / "pyshim_rocm_checks.inc").read_text())
    src = tmp_path / "real.c"
    src.write_text(REAL)
    proc = _gcc(src, tmp_path / "real.o", [bad, *rocm_includes], ["__HIP_PLATFORM_AMD__"])
    assert proc.returncode != 0 and "hipMalloc" in proc.stderr
