"""pyshim's libcublas/libcusolver/libcudart export every symbol NVIDIA's library of the same
soname exports, at NVIDIA's version node (tables/exports/<soname>.txt), and the ones no
header maps are NOT_SUPPORTED stubs logged once by name.

LD_AUDIT puts pyshim's libraries in place of NVIDIA's even when loaded by absolute path,
so a missing symbol is an application that cannot link (`undefined symbol:
cusolverSpDestroy, version libcusolver.so.12`) or a dlsym that fails.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from pyshim.codegen import export_stubs
from pyshim.codegen.common import load_table
from pyshim.paths import build_dir
from pyshim.tables import exports

sys.path.insert(0, str(Path(__file__).parent / "shim_blas"))
import env  # noqa: E402

CLIENT_PYTHON = Path(os.environ.get("PYSHIM_CLIENTS_PYTHON", "/work/venvs/clients/bin/python"))
# One NOT_SUPPORTED stub per library, with the status it must return (the library's own):
# from the export list only (no pinned header declares it), or, for libcusolver.so.11,
# a cusolverSp.h declaration the tables now hold.
STUBS = {
    "libcusolver.so.12": ("cusolverDnSpotrfHost", 9),    # CUSOLVER_STATUS_NOT_SUPPORTED
    "libcusolver.so.11": ("cusolverSpDestroy", 9),
    "libcusolverMg.so.12": ("cusolverMgCreate", 9),
    "libcublasLt.so.13": ("cublasLtLoggerSetLevel", 15),  # CUBLAS_STATUS_NOT_SUPPORTED
    "libcublas.so.13": ("cublasXtCreate", 15),           # CUBLAS_STATUS_NOT_SUPPORTED
    "libcudart.so.13": ("cudaGLSetGLDevice", 801),       # cudaErrorNotSupported
    "libcufft.so.12": ("cufftDebug", 16),                # CUFFT_NOT_SUPPORTED
    # cuRAND has no NOT_SUPPORTED status: CURAND_STATUS_ARCH_MISMATCH (a header-typed stub)
    "libcurand.so.10": ("curandGeneratePoissonMethod", 204),
    # NCCL's device API's host helpers (no nccl.h declaration): ncclInvalidUsage
    "libnccl.so.2": ("ncclTeamLsa", 5),
}
# the smallest list each library's real export list can be (an empty or truncated list
# would make the subset checks vacuous)
MIN_EXPORTS = {"libcurand.so.10": 25, "libcufft.so.12": 70, "libcusolverMg.so.12": 200,
               "libnccl.so.2": 150, "libcublasLt.so.13": 200}


def expected(soname: str) -> dict[str, str]:
    """symbol -> version node pyshim's library of `soname` must export it at."""
    for lib in exports.LIBRARIES:
        if soname == lib.soname:
            return exports.load(soname)
        if soname in lib.also:
            return {name: soname for name in exports.load(lib.soname)}
    raise KeyError(soname)


SONAMES = [s for lib in exports.LIBRARIES for s in (lib.soname, *lib.also)]


@pytest.fixture(scope="module")
def libdirs() -> tuple[Path, Path, Path]:
    """(cuBLAS/cuSOLVER dir, CPU device dir, libcudart dir), built as the other tests do."""
    from pyshim.builders.nccl import build_nccl
    from pyshim.builders.randfft import build_randfft
    from pyshim.builders.runtime import build_runtime
    from pyshim.builders.sparse import build_sparse

    blas_lib, cpu = env.build()
    build_randfft(blas_lib.parent)  # libcurand/libcufft beside libcublas, rocRAND/hipFFT in cpu
    build_sparse(blas_lib.parent)  # libcusparse.so.12 beside libcublas
    build_nccl(blas_lib.parent)  # libnccl.so.2 beside libcublas, the CPU RCCL in cpu
    rt = build_dir() / "lib"
    build_runtime(rt)
    return blas_lib, cpu, rt


def _lib_path(libdirs: tuple[Path, Path, Path], soname: str) -> Path:
    blas_lib, _cpu, rt = libdirs
    return (rt if soname.startswith("libcudart") else blas_lib) / soname


def test_lists_are_nvidias_facts() -> None:
    for lib in exports.LIBRARIES:
        path = exports.EXPORTS_DIR / f"{lib.soname}.txt"
        head = path.read_text().splitlines()[:3]
        assert any(line.startswith(f"# Source: {lib.wheel} ") for line in head), path
        syms = exports.load(lib.soname)
        assert len(syms) >= MIN_EXPORTS.get(lib.soname, 300), lib.soname
        assert set(syms.values()) == {lib.soname if lib.versioned else ""}


def test_generated_stubs_are_the_list_minus_the_tables(tmp_path: Path) -> None:
    from pyshim.codegen import blas

    blas.generate(tmp_path)
    for lib, soname in (("cusolver", "libcusolver.so.12"), ("cublas", "libcublas.so.13")):
        text = (tmp_path / f"{lib}_export_stubs.c").read_text()
        assert "#include <" not in text  # no CUDA prototype may clash with `int f(void)`
        defined = re.findall(r"^PYSHIM_EXPORT int (\w+)\(void\)$", text, re.M)
        table = blas.exported_symbols(lib, load_table(lib))
        assert sorted(set(defined)) == sorted(set(exports.load(soname)) - set(table))
        for name in defined:
            assert f'pyshim_blas_unsupported("{name}");' in text
        script = (tmp_path / f"{soname}.map").read_text()
        assert set(exports.load(soname)) <= set(re.findall(r"^    (\w+);", script, re.M))
    listed_only = (tmp_path / "cusolver_export_stubs.c").read_text()
    assert "cusolverDnSpotrfHost" in listed_only and "pegasusCcsr2dense" in listed_only
    # cusolverSp.h and cusolverRf.h are parsed: their entry points are typed stubs
    thunks = (tmp_path / "cusolver_thunks.c").read_text()
    assert re.search(r"cusolverStatus_t cusolverRfCreate\(cusolverRfHandle_t \*\w+\)", thunks)
    assert re.search(r"cusolverStatus_t cusolverSpDestroy\(cusolverSpHandle_t \w+\)", thunks)
    for name in ("cusolverRfCreate", "cusolverSpDestroy", "cusolverSpDcsrlsvqr"):
        assert f" {name}(void)" not in listed_only


@pytest.mark.parametrize("soname", SONAMES)
def test_built_library_exports_every_listed_symbol(libdirs, soname: str) -> None:
    ours = exports.nm_exports(_lib_path(libdirs, soname))
    want = expected(soname)
    wrong = {n: (v, ours.get(n)) for n, v in want.items() if ours.get(n) != v}
    assert not wrong, f"{len(wrong)} of {len(want)} wrong or missing: {sorted(wrong)[:10]}"


PROBE = r"""
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

/* argv: library, list file (name version lines), stub to call */
int main(int argc, char **argv)
{
    if (argc != 4) return 2;
    void *h = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
    if (!h) { fprintf(stderr, "dlopen: %s\n", dlerror()); return 3; }
    FILE *f = fopen(argv[2], "r");
    char line[512], name[256], ver[256];
    int n = 0, missing = 0;
    while (f && fgets(line, sizeof line, f)) {
        int k = line[0] == '#' ? 0 : sscanf(line, "%255s %255s", name, ver);
        if (k < 1) continue;
        n++;
        /* an unversioned library's (NCCL's) names: plain dlsym */
        if (!(k == 2 ? dlvsym(h, name, ver) : dlsym(h, name))) {
            printf("missing %s@%s\n", name, k == 2 ? ver : ""); missing++;
        }
    }
    printf("checked %d missing %d\n", n, missing);
    int (*stub)(void *, void *, void *) = (int (*)(void *, void *, void *))dlsym(h, argv[3]);
    if (!stub) return 4;
    /* called as a real caller would, with arguments the stub ignores */
    int a = stub(NULL, NULL, NULL), b = stub(NULL, NULL, NULL);
    printf("status %d %d\n", a, b);
    return 0;
}
"""


@pytest.fixture(scope="module")
def probe(tmp_path_factory) -> Path:
    d = tmp_path_factory.mktemp("probe")
    (d / "probe.c").write_text(PROBE)
    subprocess.run(["gcc", "-std=c11", "-Wall", "-Wextra", "-Werror", "-o", str(d / "probe"),
                    str(d / "probe.c"), "-ldl"], check=True)
    return d / "probe"


@pytest.mark.parametrize("soname", sorted(STUBS))
def test_dlvsym_finds_every_symbol_and_a_stub_is_not_supported(libdirs, probe: Path,
                                                               tmp_path: Path,
                                                               soname: str) -> None:
    blas_lib, cpu, rt = libdirs
    listing = tmp_path / "list.txt"
    listing.write_text("".join(f"{n} {v}\n" for n, v in sorted(expected(soname).items())))
    name, status = STUBS[soname]
    assert name in expected(soname)
    child = dict(os.environ, LD_LIBRARY_PATH=f"{rt}:{blas_lib}:{cpu}")
    proc = subprocess.run([str(probe), str(_lib_path(libdirs, soname)), str(listing), name],
                          capture_output=True, text=True, timeout=300, env=child)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert f"checked {len(expected(soname))} missing 0" in proc.stdout, proc.stdout[-3000:]
    assert f"status {status} {status}" in proc.stdout
    # logged once, by name, however often it is called
    assert len(re.findall(rf"\b{name} is not supported", proc.stderr)) == 1, proc.stderr


def _client_lib_dir() -> Path:
    if not CLIENT_PYTHON.exists():
        pytest.skip(f"no client venv ($PYSHIM_CLIENTS_PYTHON={CLIENT_PYTHON})")
    out = subprocess.run([str(CLIENT_PYTHON), "-c", "import sysconfig; "
                          "print(sysconfig.get_paths()['purelib'])"],
                         capture_output=True, text=True, check=True).stdout.strip()
    lib = Path(out) / "nvidia" / "cu13" / "lib"
    if not lib.is_dir():
        pytest.skip(f"no NVIDIA cu13 wheels in {out}")
    return lib


@pytest.mark.clients
@pytest.mark.parametrize("soname", [lib.soname for lib in exports.LIBRARIES])
def test_nvidias_wheel_exports_are_a_subset_of_ours(libdirs, soname: str) -> None:
    """Against the installed wheels, not the committed list: a newer wheel that exports
    more fails here until `pyshim tables exports --from` is rerun."""
    nvidia = _client_lib_dir() / soname
    if not nvidia.is_file():
        pytest.skip(f"{nvidia} not installed")
    ours = exports.nm_exports(_lib_path(libdirs, soname))
    theirs = exports.nm_exports(nvidia)
    missing = sorted(f"{n}@{v}" for n, v in theirs.items() if ours.get(n) != v)
    assert not missing, f"{len(missing)} of {len(theirs)}: {missing[:20]}"


def test_stub_status_values_come_from_the_headers() -> None:
    typedefs = load_table("typedefs")
    text = export_stubs.source("libcusolver.so.12", "blas",
                               ["cusolverSpCreate", "cublasSbatchGemm"], typedefs)
    cusolver = typedefs["cuda_enums"]["cusolverStatus_t"]["CUSOLVER_STATUS_NOT_SUPPORTED"]
    cublas = typedefs["cuda_enums"]["cublasStatus_t"]["CUBLAS_STATUS_NOT_SUPPORTED"]
    assert re.search(rf"cusolverSpCreate\(void\)\n{{\n.*\n    return {cusolver};", text)
    assert re.search(rf"cublasSbatchGemm\(void\)\n{{\n.*\n    return {cublas};", text)


def test_stats_rows_count_the_generated_stubs(tmp_path: Path) -> None:
    from pyshim.codegen import blas, nccl, randfft, runtime, sparse
    from pyshim.tables.stats import export_stats, format_exports

    nccl.generate(tmp_path)
    blas.generate(tmp_path)
    runtime.generate(tmp_path)
    randfft.generate(tmp_path)
    sparse.generate(tmp_path)
    files = {"libcublas.so.13": "cublas_export_stubs.c",
             "libcurand.so.10": "curand_export_stubs.c",
             "libcufft.so.12": "cufft_export_stubs.c",
             "libcusolver.so.12": "cusolver_export_stubs.c",
             "libcusolverMg.so.12": "cusolverMg_export_stubs.c",
             "libcublasLt.so.13": "cublasLt_export_stubs.c",
             "libcusparse.so.12": "cusparse_export_stubs.c",
             "libnccl.so.2": "nccl_export_stubs.c",
             "libcudart.so.13": "runtime_export_stubs_13.c",
             "libcudart.so.12": "runtime_export_stubs_12.c"}
    rows = export_stats()
    assert set(rows) == set(files)
    for soname, row in rows.items():
        text = (tmp_path / files[soname]).read_text()
        stubs = re.findall(r"^PYSHIM_EXPORT int (\w+)\(void\)$", text, re.M)
        assert row["export_list_stubs"] == len(stubs), soname
        assert row["nvidia"] == len(exports.load(soname))
        assert row["from_headers"] + row["export_list_stubs"] == row["nvidia"]
    assert "libcusolver.so.12" in format_exports(rows)


@pytest.mark.clients
def test_nvidias_other_libraries_resolve_against_ours(libdirs) -> None:
    """NVIDIA's libraries pyshim does not replace (libcusolverMg, libcurand, ...) import
    versioned symbols from the ones it does: under pyshim run they bind to pyshim's, so
    each import must be defined there at the same version."""
    wheel = _client_lib_dir()
    replaced = set(SONAMES)
    unresolved = []
    checked = 0
    ours = {so: exports.nm_exports(_lib_path(libdirs, so)) for so in replaced}
    for lib in sorted(wheel.glob("lib*.so*")):
        if lib.name in replaced or lib.is_symlink():
            continue
        out = subprocess.run(["nm", "-D", "--undefined-only", "--with-symbol-versions",
                              str(lib)], capture_output=True, text=True).stdout
        for line in out.split("\n"):
            ref = line.split()[-1] if line.split() else ""
            name, _, ver = ref.partition("@")
            if ver not in replaced:
                continue
            checked += 1
            if ours[ver].get(name) != ver:
                unresolved.append(f"{lib.name}: {ref}")
    assert checked, "no NVIDIA library imports from a replaced soname"
    assert not unresolved, unresolved[:20]


@pytest.mark.clients
@pytest.mark.slow
def test_cupy_cusolver_imports_with_pyshims_libcusolver(tmp_path: Path) -> None:
    """The reported failure: `undefined symbol: cusolverSpDestroy, version
    libcusolver.so.12` when CuPy's cuSOLVER module loaded pyshim's library."""
    from pyshim.builders.components import build_all

    if not CLIENT_PYTHON.exists():
        pytest.skip(f"no client venv ($PYSHIM_CLIENTS_PYTHON={CLIENT_PYTHON})")
    build_all()
    script = Path(__file__).parent / "jit" / "cupy_cusolver_client.py"
    proc = subprocess.run([sys.executable, "-m", "pyshim", "run", "--backend", "cpu",
                           str(CLIENT_PYTHON), str(script)], capture_output=True, text=True,
                          timeout=300, env={**os.environ, "CUPY_CACHE_DIR": str(tmp_path)})
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "spCreate refused: CUSOLVER_STATUS_NOT_SUPPORTED" in proc.stdout, proc.stdout
    assert "dense solve ok" in proc.stdout
    assert "cusolverSpCreate is not supported" in proc.stderr


@pytest.mark.clients
def test_cupys_imports_resolve_against_ours(libdirs) -> None:
    """Every versioned symbol CuPy's extension modules import from a replaced soname (its
    cuBLAS, cuSOLVER, cuSPARSE, cuRAND, cuFFT bindings) is defined by pyshim's library at
    that version: under pyshim run they bind to ours, never to NVIDIA's."""
    site = _client_lib_dir().parents[2]
    modules = sorted(p for pkg in ("cupy", "cupy_backends", "cupyx")
                     for p in (site / pkg).rglob("*.so"))
    if not modules:
        pytest.skip(f"CuPy is not installed in {site}")
    replaced = set(SONAMES)
    ours = {so: exports.nm_exports(_lib_path(libdirs, so)) for so in replaced}
    imported: dict[str, set[str]] = {}
    for mod in modules:
        out = subprocess.run(["nm", "-D", "--undefined-only", "--with-symbol-versions",
                              str(mod)], capture_output=True, text=True, check=True).stdout
        for line in out.splitlines():
            name, _, ver = (line.split() or [""])[-1].partition("@")
            if ver in replaced:
                imported.setdefault(ver, set()).add(name)
    # CuPy binds all five libraries: an empty set means the scan found nothing to check
    assert {"libcublas.so.13", "libcusolver.so.12", "libcusparse.so.12", "libcurand.so.10",
            "libcufft.so.12"} <= set(imported), sorted(imported)
    missing = sorted(f"{n}@{v}" for v, names in imported.items() for n in names
                     if ours[v].get(n) != v)
    assert not missing, f"{len(missing)}: {missing[:20]}"
