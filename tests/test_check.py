"""`pyshim check` on real nvcc builds: our examples (static and shared cudart), a SASS-only
build, programs calling entry points the tables mark unsupported, a driver-API program,
a kernel the translator refuses, and a library directory walk.

Programs are built once into build/test-bins/check-* (keyed by source and flags).
Expected statuses are read from the tables here, never written into the checker.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest

from pyshim import paths
from pyshim.binary.errors import ElfError
from pyshim.check import check_report
from pyshim.check.analyse import CANNOT, GAPS, RUNS
from pyshim.check.tables import load as load_tables
from pyshim.cli import main as cli_main

EXAMPLE = paths.REPO_DIR / "examples" / "k_matmul_tiled.cu"

# calls runtime functions with no obvious HIP counterpart; the test uses whichever of them
# the tables mark unsupported (the tables change; the checker must follow them)
GAPS_CANDIDATES = ["cudaCtxResetPersistingL2Cache", "cudaDeviceFlushGPUDirectRDMAWrites",
                   "cudaOccupancyMaxActiveClusters", "cudaChooseDevice"]
GAPS_SOURCE = r"""
#include <cstdio>
__global__ void scale(float *p, float a, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) p[i] *= a;
}
int main() {
    cudaDeviceProp prop = {};
    int dev = -1, clusters = 0;
    prop.major = 7;
    if (cudaChooseDevice(&dev, &prop) != cudaSuccess) { puts("no device"); return 1; }
    cudaCtxResetPersistingL2Cache();
    cudaDeviceFlushGPUDirectRDMAWrites(cudaFlushGPUDirectRDMAWritesTargetCurrentDevice,
                                       cudaFlushGPUDirectRDMAWritesToOwner);
    cudaLaunchConfig_t cfg = {};
    cfg.gridDim = dim3(1);
    cfg.blockDim = dim3(256);
    cudaOccupancyMaxActiveClusters(&clusters, (const void *)scale, &cfg);
    float *d = nullptr;
    cudaMalloc(&d, 256 * sizeof(float));
    scale<<<1, 256>>>(d, 2.0f, 256);
    cudaDeviceSynchronize();
    cudaFree(d);
    return 0;
}
"""


def gaps_functions() -> list[str]:
    tables = load_tables()
    found = [n for n in GAPS_CANDIDATES if tables.lookup(n).status == "unsupported"]
    if not found:
        pytest.skip(f"the tables support all of {GAPS_CANDIDATES}: add a candidate")
    return found


# brkpt: valid PTX (a debugger breakpoint) that the translator refuses by name
BRKPT_SOURCE = r"""
__global__ void marked(int *p) { asm volatile("brkpt;"); p[threadIdx.x] = 1; }
__global__ void plain(int *p) { p[threadIdx.x] = 2; }
int main() {
    int *d = nullptr;
    cudaMalloc(&d, 64);
    marked<<<1, 1>>>(d);
    plain<<<1, 1>>>(d);
    return cudaDeviceSynchronize();
}
"""

DRIVER_SOURCE = r"""
#include <cuda.h>
#include <cstdio>
int main() {
    CUdevice dev;
    CUcontext ctx;
    CUdeviceptr p;
    if (cuInit(0) != CUDA_SUCCESS) { puts("no driver"); return 1; }
    cuDeviceGet(&dev, 0);
    cuDevicePrimaryCtxRetain(&ctx, dev);
    cuCtxSetCurrent(ctx);
    cuMemAlloc(&p, 1024);
    cuMemFree(p);
    cuDevicePrimaryCtxRelease(dev);
    return 0;
}
"""

# a link-time stand-in for libcuda.so (the toolkit here has no driver stub); compiled
# against cuda.h so that its macro renames (cuMemAlloc -> cuMemAlloc_v2) apply as in the app
DRIVER_STUB = r"""
#include <cuda.h>
CUresult cuInit(unsigned int f) { (void)f; return CUDA_ERROR_NO_DEVICE; }
CUresult cuDeviceGet(CUdevice *d, int o) { (void)d; (void)o; return CUDA_ERROR_NO_DEVICE; }
CUresult cuDevicePrimaryCtxRetain(CUcontext *c, CUdevice d) { (void)c; (void)d; return 1; }
CUresult cuDevicePrimaryCtxRelease(CUdevice d) { (void)d; return CUDA_ERROR_NO_DEVICE; }
CUresult cuCtxSetCurrent(CUcontext c) { (void)c; return CUDA_ERROR_NO_DEVICE; }
CUresult cuMemAlloc(CUdeviceptr *p, size_t n) { (void)p; (void)n; return CUDA_ERROR_NO_DEVICE; }
CUresult cuMemFree(CUdeviceptr p) { (void)p; return CUDA_ERROR_NO_DEVICE; }
"""

LIB_SOURCE = r"""
__global__ void libkernel(float *p) { p[threadIdx.x] += 1.0f; }
extern "C" int lib_launch(float *p) {
    libkernel<<<1, 32>>>(p);
    return (int)cudaDeviceSynchronize();
}
"""
APP_SOURCE = r"""
extern "C" int lib_launch(float *p);
int main() {
    float *d = nullptr;
    cudaMalloc(&d, 32 * sizeof(float));
    return lib_launch(d);
}
"""


def _nvcc() -> str:
    found = shutil.which("nvcc")
    if found is None:
        pytest.skip("nvcc is not on PATH")
    return found


def _bins() -> Path:
    d = paths.build_dir() / "test-bins"
    d.mkdir(parents=True, exist_ok=True)
    return d


def build(name: str, source: str, flags: list[str]) -> Path:
    """nvcc `flags` over `source`, cached by both; written atomically (parallel workers)."""
    tool = _nvcc()
    digest = hashlib.sha256("\0".join([tool, source, *flags]).encode()).hexdigest()[:16]
    out = _bins() / f"check-{name}-{digest}"
    if out.exists():
        return out
    with tempfile.TemporaryDirectory(dir=_bins()) as tmp:
        src = Path(tmp) / "prog.cu"
        src.write_text(source)
        target = Path(tmp) / "out"
        res = subprocess.run([tool, "-O2", *flags, "-o", str(target), str(src)],
                             capture_output=True, text=True, timeout=300)
        assert res.returncode == 0, f"nvcc {flags} failed:\n{res.stderr}"
        os.replace(target, out)
    return out


def example(flags: list[str], name: str) -> Path:
    return build(name, EXAMPLE.read_text(), flags)


def library_dir() -> Path:
    """libkern.so (a kernel, static cudart) and app (links it, RUNPATH=$ORIGIN)."""
    tool = _nvcc()
    digest = hashlib.sha256("\0".join([tool, LIB_SOURCE, APP_SOURCE]).encode()).hexdigest()[:16]
    out = _bins() / f"check-libdir-{digest}"
    if out.exists():
        return out
    with tempfile.TemporaryDirectory(dir=_bins()) as tmp:
        t = Path(tmp)
        (t / "lib.cu").write_text(LIB_SOURCE)
        (t / "app.cu").write_text(APP_SOURCE)
        os.mkdir(t / "d")
        for cmd in ([tool, "-O2", "-shared", "-Xcompiler", "-fPIC", "-o", str(t / "d/libkern.so"),
                     str(t / "lib.cu")],
                    [tool, "-O2", "-o", str(t / "d/app"), str(t / "app.cu"), f"-L{t / 'd'}",
                     "-lkern", "-Xlinker", "-rpath=$ORIGIN"]):
            res = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
            assert res.returncode == 0, f"{cmd} failed:\n{res.stderr}"
        (t / "d/notes.txt").write_text("not an ELF file\n")
        try:
            os.replace(t / "d", out)
        except OSError:
            if not out.exists():  # another worker won the race otherwise
                raise
    return out


def one(path: Path, **kw) -> dict:
    report = check_report([path], deps=False, **kw)
    assert len(report["binaries"]) == 1
    return report["binaries"][0]


def kernel_names(b: dict) -> list[str]:
    return [k["name"] for k in b["kernels"]]


def used(b: dict) -> dict[str, dict]:
    return {e["name"]: e for e in b["entry_points"] if e["via"] != "cuGetProcAddress"}


# -- examples, static and shared cudart -------------------------------------------------

def test_example_static_cudart_runs_and_lists_its_kernels():
    b = one(example([], "matmul-static"))
    assert b["verdict"] == RUNS, b["reasons"]
    assert b["static_cudart"]["version"] == "13.0"  # nvcc 13.0's cudart asks for 13000 names
    assert "static cudart, CUDA >= 13.0 (dlopens libcuda.so.1)" in b["cuda_access"]
    assert "libcuda.so.1" in b["cuda_libraries"]
    assert kernel_names(b) and all(k["translates"] for k in b["kernels"])
    for k in b["kernels"]:
        assert k["ptx"] == ["9.0"] and k["ptx_archs"] == ["compute_75"] and k["sass"] == ["sm_75"]
    # what the program calls, found in its code, each with the tables' status
    tables = load_tables()
    calls = used(b)
    assert {"cudaMalloc", "cudaMemcpy", "__cudaRegisterFatBinary"} <= set(calls)
    assert calls["cudaMalloc"]["status"] == tables.lookup("cudaMalloc").status
    assert calls["cudaMalloc"]["via"] == "call"
    # and the driver entry points the static cudart can ask for, from its own strings
    asked = [e for e in b["entry_points"] if e["via"] == "cuGetProcAddress"]
    assert len(asked) >= 300
    assert {e["name"] for e in asked} >= {"cuInit", "cuLaunchKernel", "cuLibraryLoadData"}
    assert all(e["status"] == tables.driver_status(e["name"]).status for e in asked)


def test_stripped_static_executable_is_still_recognised(tmp_path):
    """No symbol table: cudart is found by its table of driver names; the calls the program
    makes cannot be seen, and the report says so instead of guessing."""
    exe = tmp_path / "stripped"
    shutil.copy(build("gaps", GAPS_SOURCE, []), exe)
    subprocess.run(["strip", str(exe)], check=True, timeout=60)
    b = one(exe)
    sc = b["static_cudart"]
    assert sc["version"] == "13.0" and not sc["calls_visible"]
    assert "driver entry point names" in sc["evidence"]
    assert not [e for e in b["entry_points"] if e["via"] == "call"]
    assert len([e for e in b["entry_points"] if e["via"] == "cuGetProcAddress"]) >= 300
    assert any("cannot be seen" in n for n in b["notes"])
    assert kernel_names(b) == ["_Z5scalePffi"]


def test_cupti_names_driver_functions_but_is_no_cudart():
    """CUPTI carries every driver entry point name (for tracing) but no cudart: it is a
    driver-by-name user, and no cudart version is made up for it."""
    lib = Path("/usr/local/cuda/lib64/libcupti.so")
    if not lib.exists():
        pytest.skip(f"{lib} absent")
    b = one(lib)
    assert b["static_cudart"] is None
    assert any(a.startswith("driver API by name") for a in b["cuda_access"])
    asked = [e for e in b["entry_points"] if e["via"] == "cuGetProcAddress"]
    assert len(asked) >= 300 and {e["library"] for e in asked} == {"libcuda.so.1"}


def test_cuda_12_9_runtime_is_told_apart_from_13():
    """NVIDIA's libcudart.so.12 (12.9) carries cudart's driver-name table too; it asks for
    12.8 ABIs at most (fetched by the runtime tests into build/runtime/cuda12)."""
    lib = paths.build_dir() / "runtime/cuda12/nvidia/cuda_runtime/lib/libcudart.so.12"
    if not lib.exists():
        pytest.skip(f"{lib} not fetched (tests/test_runtime_programs.py fetches it)")
    b = one(lib)
    assert any("pyshim's own libcudart.so.12 is loaded in its place" in n for n in b["notes"])
    assert b["static_cudart"]["version"] == "12.8"
    assert b["static_cudart"]["driver_abi"] == 12080
    assert not b["static_cudart"]["calls_visible"]
    assert any("symbol table" in n for n in b["notes"])


def test_example_shared_cudart_imports_versioned_symbols():
    b = one(example(["-cudart", "shared"], "matmul-shared"))
    assert b["verdict"] == RUNS, b["reasons"]
    assert b["static_cudart"] is None
    assert "libcudart.so.13" in b["cuda_libraries"]
    assert "shared cudart (libcudart.so.13)" in b["cuda_access"]
    imports = used(b)
    assert imports["cudaMalloc"]["library"] == "libcudart.so.13"
    assert imports["cudaMalloc"]["via"] == "import"
    assert imports["__cudaRegisterFatBinary"]["status"] == "shim"
    assert not [e for e in b["entry_points"] if e["via"] == "cuGetProcAddress"]


def test_sass_only_build_cannot_run_and_names_the_kernels():
    b = one(example(["-gencode", "arch=compute_120,code=sm_120"], "matmul-sass120"))
    assert b["verdict"] == CANNOT
    names = kernel_names(b)
    assert names
    for k in b["kernels"]:
        assert k["ptx"] == [] and k["sass"] == ["sm_120"] and k["translates"] is False
    assert any(n in r for r in b["reasons"] for n in names), b["reasons"]
    assert any("SASS only" in r for r in b["reasons"])


# -- gaps -------------------------------------------------------------------------------

def test_unsupported_runtime_call_gives_gaps_static_and_shared():
    unsupported = gaps_functions()
    tables = load_tables()
    for flags, via in (([], "call"), (["-cudart", "shared"], "import")):
        b = one(build("gaps" + "-".join(flags), GAPS_SOURCE, flags))
        assert b["verdict"] == GAPS, (flags, b["reasons"])
        calls = used(b)
        for name in GAPS_CANDIDATES:  # every call is seen, each with the tables' status
            st = tables.lookup(name)
            assert (calls[name]["status"], calls[name]["via"]) == (st.status, via)
            assert calls[name]["reason"] == st.reason
            named = any(name in r for r in b["reasons"])
            assert named == (name in unsupported), (name, b["reasons"])


def test_untranslatable_kernel_is_named_with_its_instruction_and_line():
    b = one(build("brkpt", BRKPT_SOURCE, []))
    marked = next(k for k in b["kernels"] if k["name"] == "_Z6markedPi")
    assert marked["translates"] is False
    (msg,) = marked["unsupported_instructions"]
    assert "brkpt" in msg and "line" in msg
    # only that kernel fails (issue 18 point 2): the module's other kernel runs
    plain = next(k for k in b["kernels"] if k["name"] == "_Z5plainPi")
    assert plain["translates"] is True and plain["unsupported_instructions"] == []
    assert b["verdict"] != CANNOT


MULTI_SOURCE = r"""
__global__ void twice(int *p) { asm volatile("brkpt;"); p[threadIdx.x] = 1; asm volatile("brkpt;"); }
__global__ void once(int *p) { p[threadIdx.x] = 2; asm volatile("brkpt;"); }
__global__ void clean(int *p) { p[threadIdx.x] = 3; }
int main() { return 0; }
"""


def test_every_unsupported_instruction_of_a_module_is_named():
    b = one(build("multi-brkpt", MULTI_SOURCE, []))
    k = {k["name"]: k for k in b["kernels"]}
    twice = k["_Z5twicePi"]["unsupported_instructions"]
    once = k["_Z4oncePi"]["unsupported_instructions"]
    assert len(twice) == 2 and len(once) == 1
    lines = [int(m.split("line ")[1].split(":")[0]) for m in twice + once]
    assert len(set(lines)) == 3  # three different lines of the one PTX module
    assert all("brkpt" in m for m in twice + once)
    assert k["_Z5cleanPi"]["unsupported_instructions"] == []
    assert k["_Z5cleanPi"]["translates"] is True  # its module loads; only the others fail


def test_no_translate_leaves_translation_unknown():
    b = one(build("brkpt", BRKPT_SOURCE, []), translate=False)
    assert {k["translates"] for k in b["kernels"]} == {None}
    assert b["verdict"] == RUNS


def test_ptx_budget_exhausted_is_said_not_guessed():
    b = one(example([], "matmul-static"), ptx_budget=0)
    assert {k["translates"] for k in b["kernels"]} == {None}
    assert any("budget" in n for n in b["notes"])


def driver_stub() -> Path:
    """A directory holding libcuda.so (soname libcuda.so.1) to link driver-API programs."""
    digest = hashlib.sha256(DRIVER_STUB.encode()).hexdigest()[:16]
    out = _bins() / f"check-cudastub-{digest}"
    if out.exists():
        return out
    with tempfile.TemporaryDirectory(dir=_bins()) as tmp:
        t = Path(tmp)
        (t / "stub.c").write_text(DRIVER_STUB)
        os.mkdir(t / "d")
        res = subprocess.run(["cc", "-shared", "-fPIC", "-I/usr/local/cuda/include",
                              "-Wl,-soname,libcuda.so.1", "-o", str(t / "d/libcuda.so"),
                              str(t / "stub.c")], capture_output=True, text=True, timeout=120)
        assert res.returncode == 0, res.stderr
        try:
            os.replace(t / "d", out)
        except OSError:
            if not out.exists():
                raise
    return out


def test_driver_api_program_imports_from_libcuda():
    flags = [f"-L{driver_stub()}", "-lcuda"]
    b = one(build("driver", DRIVER_SOURCE, flags))
    assert "libcuda.so.1" in b["cuda_libraries"]
    assert any(a.startswith("driver API (libcuda.so.1)") for a in b["cuda_access"])
    imports = used(b)
    tables = load_tables()
    # cuda.h renames cuMemAlloc to cuMemAlloc_v2: the import is the versioned symbol
    assert "cuMemAlloc_v2" in imports and "cuInit" in imports
    for name, e in imports.items():
        if name.startswith("cu"):
            assert e["library"] == "libcuda.so.1"
            assert e["status"] == tables.lookup(name).status


# -- directories and dependencies -------------------------------------------------------

def test_directory_walk_checks_every_elf_and_follows_dependencies():
    d = library_dir()
    report = check_report([d])
    by_name = {Path(b["path"]).name: b for b in report["binaries"]}
    assert set(by_name) == {"app", "libkern.so"}
    assert kernel_names(by_name["libkern.so"]) == ["_Z9libkernelPf"]
    assert by_name["libkern.so"]["verdict"] == RUNS
    assert report["summary"]["files"] == 2
    assert report["summary"]["verdicts"][RUNS] == 2
    # named alone, the app pulls its library in through RUNPATH=$ORIGIN
    alone = check_report([d / "app"])
    assert [Path(b["path"]).name for b in alone["binaries"]] == ["app", "libkern.so"]
    assert alone["binaries"][1]["needed_by"] == str(d / "app")


def test_dependency_that_cannot_run_is_a_gap_of_its_user(tmp_path):
    d = library_dir()
    # the same pair, but the library rebuilt SASS-only
    sass_lib = build("libkern-sass86", LIB_SOURCE, ["-shared", "-Xcompiler", "-fPIC", "-gencode",
                                                    "arch=compute_120,code=sm_120"])
    shutil.copy(d / "app", tmp_path / "app")
    shutil.copy(sass_lib, tmp_path / "libkern.so")
    report = check_report([tmp_path / "app"])
    app, lib = report["binaries"]
    assert lib["verdict"] == CANNOT
    assert app["verdict"] == GAPS
    assert any("libkern.so" in r and "cannot run" in r for r in app["reasons"])


# -- the command ------------------------------------------------------------------------

def test_cli_json_and_exit_codes(capsys):
    gaps_functions()
    gaps = build("gaps", GAPS_SOURCE, [])
    assert cli_main(["check", "--json", str(gaps)]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["binaries"][0]["verdict"] == GAPS
    assert cli_main(["check", "--fail-on", "unsupported", str(gaps)]) == 1
    assert cli_main(["check", "--fail-on", "cannot-run", str(gaps)]) == 0
    out = capsys.readouterr().out
    assert "RUNS-WITH-GAPS" in out and gaps_functions()[0] in out


def test_cli_bad_paths_are_named(tmp_path, capsys):
    assert cli_main(["check", str(tmp_path / "nope")]) == 2
    assert "nope" in capsys.readouterr().err
    junk = tmp_path / "junk.bin"
    junk.write_bytes(b"MZ not an elf at all")
    assert cli_main(["check", str(junk)]) == 2
    err = capsys.readouterr().err
    assert "junk.bin" in err and "not an ELF" in err
    with pytest.raises(ElfError, match="junk.bin"):
        check_report([junk])


def test_truncated_binary_in_a_directory_is_reported_not_raised(tmp_path):
    data = example([], "matmul-static").read_bytes()
    (tmp_path / "cut").write_bytes(data[: len(data) // 3])
    shutil.copy("/bin/true", tmp_path / "plain")  # an ELF with no CUDA: skipped, counted
    report = check_report([tmp_path])
    (b,) = report["binaries"]
    assert b["verdict"] == CANNOT and "cut" in b["path"]
    assert b["reasons"]
    assert report["summary"]["skipped_no_cuda"] == 1
    # named explicitly, a file without CUDA is reported (it runs: there is nothing to do)
    (plain,) = check_report([tmp_path / "plain"])["binaries"]
    assert plain["verdict"] == RUNS and plain["notes"] == ["no CUDA use found"]


# -- cuBLAS / cuSOLVER programs ---------------------------------------------------------

def _pick(api: str) -> tuple[list[str], list[str]]:
    """Two mapped and two unsupported exported symbols of `api`, from the tables."""
    from pyshim.tables.stats import is_mapped
    from pyshim.tables.stats import load as load_table

    eps = load_table(api)["entry_points"]
    mapped = [e["primary"] for _, e in sorted(eps.items()) if is_mapped(e, api)][:2]
    unsupported = [e["primary"] for _, e in sorted(eps.items())
                   if e["class"] == "unsupported"][:2]
    assert len(mapped) == 2 and len(unsupported) == 2, api
    return mapped, unsupported


def math_program() -> tuple[Path, dict[str, str]]:
    """An app importing cuBLAS and cuSOLVER symbols at their version nodes, linked against
    stand-in libraries with NVIDIA's sonames and version scripts (the toolkit here has no
    cuBLAS). Returns the app and {symbol: soname}."""
    wanted: dict[str, str] = {}
    for api, soname in (("cublas", "libcublas.so.13"), ("cusolver", "libcusolver.so.12")):
        mapped, unsupported = _pick(api)
        wanted.update({s: soname for s in mapped + unsupported})
    digest = hashlib.sha256(repr(sorted(wanted.items())).encode()).hexdigest()[:16]
    out = _bins() / f"check-math-{digest}"
    if out.exists():
        return out / "app", wanted
    _nvcc()
    with tempfile.TemporaryDirectory(dir=_bins()) as tmp:
        t = Path(tmp)
        os.mkdir(t / "d")
        for soname in sorted(set(wanted.values())):
            syms = [s for s, so in wanted.items() if so == soname]
            (t / f"{soname}.c").write_text("".join(f"int {s}(void) {{ return 0; }}\n"
                                                   for s in syms))
            (t / f"{soname}.map").write_text(f"{soname} {{ global: *; }};\n")
            link = soname.rsplit(".so", 1)[0] + ".so"
            res = subprocess.run(["cc", "-shared", "-fPIC", f"-Wl,-soname,{soname}",
                                  f"-Wl,--version-script={t / f'{soname}.map'}",
                                  "-o", str(t / "d" / link), str(t / f"{soname}.c")],
                                 capture_output=True, text=True, timeout=120)
            assert res.returncode == 0, res.stderr
        decls = "".join(f'extern "C" int {s}(void);\n' for s in wanted)
        calls = " + ".join(f"{s}()" for s in wanted)
        (t / "app.cu").write_text(f"{decls}int main() {{ return {calls}; }}\n")
        res = subprocess.run([_nvcc(), "-o", str(t / "d" / "app"), str(t / "app.cu"),
                              f"-L{t / 'd'}", "-lcublas", "-lcusolver"],
                             capture_output=True, text=True, timeout=300)
        assert res.returncode == 0, res.stderr
        try:
            os.replace(t / "d", out)
        except OSError:
            if not out.exists():
                raise
    return out / "app", wanted


def test_cublas_and_cusolver_imports_get_their_tables_status():
    app, wanted = math_program()
    b = one(app)
    assert "cuBLAS (libcublas.so.13)" in b["cuda_access"]
    assert "cuSOLVER (libcusolver.so.12)" in b["cuda_access"]
    assert {"libcublas.so.13", "libcusolver.so.12"} <= set(b["cuda_libraries"])
    tables = load_tables()
    imports = used(b)
    for sym, soname in wanted.items():
        e = imports[sym]
        assert (e["library"], e["via"]) == (soname, "import")
        assert e["status"] == tables.lookup(sym).status
    unsupported = sorted(s for s in wanted if tables.lookup(s).status == "unsupported")
    assert b["verdict"] == GAPS
    assert any(all(s in r for s in unsupported) for r in b["reasons"]), b["reasons"]


def test_corrupt_fat_binaries_are_reported_not_raised(tmp_path):
    """Damage inside .nv_fatbin (an entry header, then the container magic) gives a report
    naming the problem, never a traceback."""
    from pyshim.binary.elf import HostElf

    src = build("gaps", GAPS_SOURCE, [])
    with HostElf(src) as elf:
        sec = elf.section(".nv_fatbin")
        containers = elf.embedded_containers()
    data = bytearray(src.read_bytes())
    real = containers[-1]  # the per-unit container, with the kernel's entries
    entry = sec.offset + (real.address - sec.address) + 16
    data[entry + 8:entry + 12] = (0x7FFFFFF0).to_bytes(4, "little")  # payload runs past the end
    bad_entry = tmp_path / "bad-entry"
    bad_entry.write_bytes(bytes(data))
    b = one(bad_entry)
    assert b["verdict"] != RUNS
    assert any("unreadable fat binary" in r for r in b["reasons"]), b["reasons"]

    data = bytearray(src.read_bytes())
    data[sec.offset:sec.offset + 4] = b"\xde\xad\xbe\xef"  # first container's magic
    bad_magic = tmp_path / "bad-magic"
    bad_magic.write_bytes(bytes(data))
    b = one(bad_magic)
    assert b["verdict"] == CANNOT
    assert any("fat binaries unreadable" in r and "magic" in r for r in b["reasons"])
