"""End to end: nvcc-built examples run on the CPU device with libpyshim_trace.so preloaded
the way `pyshim run --trace` does it (pyshim.runner.launcher.program_env, then
pyshim.runner.tracing.trace_environment). They still pass, and the trace shows what they did."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from pyshim.paths import REPO_DIR, build_dir
from pyshim.runner import launcher, tracing

EXAMPLES = REPO_DIR / "examples"
LINE = re.compile(r"^\[(\d+)\] (\S+?)\((.*)\)( = .*)? (\d+\.\d)us$")
NOTE = re.compile(r"^\[\d+\] # ")

pytestmark = pytest.mark.skipif(shutil.which("nvcc") is None, reason="nvcc is not installed")


@pytest.fixture(scope="session")
def shim() -> Path:
    launcher.ensure_built("cpu")  # the shim's libraries, if not built yet
    tracing.trace_library()
    return build_dir()


@pytest.fixture(scope="session")
def exe_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("trace_examples")


def nvcc(exe_dir: Path, name: str, *flags: str) -> Path:
    suffix = "_shared" if "shared" in flags else ""
    exe = exe_dir / f"{name}{suffix}"
    if not exe.exists():
        cmd = ["nvcc", "-O2", *flags, "-o", str(exe), str(EXAMPLES / f"{name}.cu")]
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
        assert proc.returncode == 0, proc.stderr
    return exe


def traced(exe: Path, trace_file: Path | None, extra_env: dict[str, str] | None = None
           ) -> subprocess.CompletedProcess[str]:
    env = launcher.program_env("cpu", None, dict(os.environ))
    env = tracing.trace_environment(str(trace_file) if trace_file else True, env)
    env.update(extra_env or {})
    return subprocess.run([str(exe)], capture_output=True, text=True, env=env, timeout=300)


def trace_lines(path: Path) -> list[str]:
    lines = path.read_text().splitlines()
    for line in lines:  # every line is whole: one per call, never interleaved
        assert LINE.match(line) or NOTE.match(line), line
    return lines


def calls(lines: list[str], name: str) -> list[str]:
    return [line for line in lines if (m := LINE.match(line)) and m.group(2) == name]


@pytest.fixture(scope="module")
def static_vector_add(shim: Path, exe_dir: Path, tmp_path_factory: pytest.TempPathFactory
                      ) -> tuple[subprocess.CompletedProcess[str], list[str]]:
    log = tmp_path_factory.mktemp("trace") / "vector_add.trace"
    out = traced(nvcc(exe_dir, "vector_add"), log)
    return out, trace_lines(log)


def test_static_cudart_program_still_passes(static_vector_add) -> None:
    out, lines = static_vector_add
    assert out.returncode == 0, out.stdout + out.stderr
    assert "PASS vector_add" in out.stdout
    assert len(lines) > 100


def test_driver_calls_reached_through_cuGetProcAddress_are_traced(static_vector_add) -> None:
    _out, lines = static_vector_add
    (init,) = calls(lines, "cuInit")
    assert "cuInit(Flags=0x0) = CUDA_SUCCESS (0)" in init
    procs = calls(lines, "cuGetProcAddress_v2")
    assert len(procs) > 300
    assert any('symbol="cuMemAlloc"' in p and "[cuMemAlloc_v2 traced]" in p for p in procs)
    # the wrappers cudart got were the ones that logged: every later call is there
    alloc = calls(lines, "cuMemAlloc_v2")
    assert len(alloc) == 3
    assert all(re.search(r"dptr=0x[0-9a-f]+->0x[0-9a-f]+, bytesize=4000012\) = CUDA_SUCCESS", a)
               for a in alloc)
    (load,) = calls(lines, "cuLibraryLoadData")
    assert load.endswith(tuple(f"{d}us" for d in "0123456789"))
    assert "CU_LIBRARY_BINARY_IS_PRESERVED (1)" in load and "= CUDA_SUCCESS (0)" in load
    (kernel,) = calls(lines, "cuLibraryGetKernel")
    assert 'name="_Z10vector_addPKfS0_Pfi"' in kernel
    (launch,) = calls(lines, "cuLaunchKernel")
    n, block = 1000003, 256
    assert (f"gridDimX={(n + block - 1) // block}, gridDimY=1, gridDimZ=1, "
            f"blockDimX={block}, blockDimY=1, blockDimZ=1, sharedMemBytes=0") in launch
    assert "= CUDA_SUCCESS (0)" in launch
    # the kernel handle launched is the one cuLibraryGetKernel returned
    handle = re.search(r"pKernel=0x[0-9a-f]+->(0x[0-9a-f]+)", kernel).group(1)
    assert f"cuLaunchKernel(f={handle}," in launch


def test_export_tables_are_traced(static_vector_add) -> None:
    _out, lines = static_vector_add
    tables = {re.search(r"pExportTableId=([\w-]+)", t).group(1): t
              for t in calls(lines, "cuGetExportTable")}
    assert "[traced copy at" in tables["CONTEXT_LOCAL_STORAGE"]
    assert "[traced copy at" in tables["CONTEXT_CHECKS"]
    assert "[traced copy at" in tables["TOOLS_RUNTIME_CALLBACK_HOOKS"]
    for name in ("INTEGRITY_CHECK", "CUDART_INTERFACE"):
        assert "[passed through unchanged" in tables[name]
    # the probe table cudart tries first is refused by the driver, and shown so
    assert "= CUDA_ERROR_NOT_FOUND (500)" in tables["PROBE"]  # f8cff951-..., named in tables/export_tables.toml
    slots = {LINE.match(line).group(2) for line in lines
             if LINE.match(line) and LINE.match(line).group(2).startswith("export:")}
    assert {"export:CONTEXT_LOCAL_STORAGE[0]", "export:CONTEXT_LOCAL_STORAGE[2]",
            "export:CONTEXT_CHECKS[2]", "export:TOOLS_RUNTIME_CALLBACK_HOOKS[2]"} <= slots
    (hooks2,) = calls(lines, "export:TOOLS_RUNTIME_CALLBACK_HOOKS[2]")
    assert len(re.findall(r"0x[0-9a-f]+", hooks2.split(" = ")[0])) == 6


def test_failing_driver_call_shows_its_error_name(shim: Path, exe_dir: Path,
                                                  tmp_path: Path) -> None:
    log = tmp_path / "error_paths.trace"
    out = traced(nvcc(exe_dir, "error_paths"), log)
    assert "PASS error_paths" in out.stdout, out.stdout + out.stderr
    lines = trace_lines(log)
    huge = [a for a in calls(lines, "cuMemAlloc_v2") if f"bytesize={1 << 60}" in a]
    assert huge and all(h.endswith(("us",)) and "= CUDA_ERROR_OUT_OF_MEMORY (2)" in h
                        for h in huge)
    # no value is shown for an out-parameter the failed call did not write
    assert all("->" not in h.split("bytesize")[0] for h in huge)


def test_shared_cudart_traces_runtime_calls(shim: Path, exe_dir: Path, tmp_path: Path) -> None:
    log = tmp_path / "vector_add_shared.trace"
    out = traced(nvcc(exe_dir, "vector_add", "-cudart", "shared"), log)
    assert "PASS vector_add" in out.stdout, out.stdout + out.stderr
    lines = trace_lines(log)
    mallocs = calls(lines, "cudaMalloc")
    assert len(mallocs) == 3
    assert all(re.search(r"devPtr=0x[0-9a-f]+->0x[0-9a-f]+, size=4000012\) = cudaSuccess \(0\)",
                         m) for m in mallocs)
    copies = calls(lines, "cudaMemcpy")
    assert sum("kind=cudaMemcpyHostToDevice (1)" in c for c in copies) == 2
    assert sum("kind=cudaMemcpyDeviceToHost (2)" in c for c in copies) == 1
    assert calls(lines, "cudaDeviceSynchronize")
    # nvcc's hidden hooks: registration at start-up, then the <<<>>> launch itself
    (reg,) = calls(lines, "__cudaRegisterFunction")
    assert 'deviceName="_Z10vector_addPKfS0_Pfi"' in reg
    (launch,) = calls(lines, "__cudaLaunchKernel")
    n, block = 1000003, 256
    assert (f"gridDim={{x={(n + block - 1) // block}, y=1, z=1}}, "
            f"blockDim={{x={block}, y=1, z=1}}") in launch
    assert "= cudaSuccess (0)" in launch
    (kernel,) = calls(lines, "__cudaGetKernel")
    handle = re.search(r"kernel=0x[0-9a-f]+->(0x[0-9a-f]+)", kernel).group(1)
    assert f"__cudaLaunchKernel(kernel={handle}," in launch


def test_shared_cudart_error_names(shim: Path, exe_dir: Path, tmp_path: Path) -> None:
    log = tmp_path / "error_paths_shared.trace"
    out = traced(nvcc(exe_dir, "error_paths", "-cudart", "shared"), log)
    assert "PASS error_paths" in out.stdout, out.stdout + out.stderr
    lines = trace_lines(log)
    assert any("= cudaErrorMemoryAllocation (2)" in m for m in calls(lines, "cudaMalloc"))
    assert any('= "cudaErrorInvalidConfiguration"' in m
               for m in calls(lines, "cudaGetErrorName"))


def test_three_dimensional_launches(shim: Path, exe_dir: Path, tmp_path: Path) -> None:
    log = tmp_path / "k_grid3d.trace"
    out = traced(nvcc(exe_dir, "k_grid3d"), log)
    assert out.returncode == 0, out.stdout + out.stderr
    launches = calls(trace_lines(log), "cuLaunchKernel")
    # the example's own grids: dim3(3, 2, 4) x dim3(4, 4, 2), then dim3(2, 3, 3) x dim3(8, 2, 4)
    assert "gridDimX=3, gridDimY=2, gridDimZ=4, blockDimX=4, blockDimY=4, blockDimZ=2" \
        in launches[0]
    assert any("gridDimX=2, gridDimY=3, gridDimZ=3, blockDimX=8, blockDimY=2, blockDimZ=4"
               in launch for launch in launches)


def test_threads_get_whole_lines_with_their_ids(shim: Path, exe_dir: Path,
                                                tmp_path: Path) -> None:
    log = tmp_path / "host_threads.trace"
    out = traced(nvcc(exe_dir, "host_threads"), log)
    assert "PASS host_threads" in out.stdout, out.stdout + out.stderr
    lines = trace_lines(log)  # asserts every line is whole
    tids = {LINE.match(line).group(1) for line in lines if LINE.match(line)}
    assert len(tids) >= 2


def test_trace_goes_to_stderr_without_a_file(shim: Path, exe_dir: Path) -> None:
    out = traced(nvcc(exe_dir, "vector_add"), None)
    assert "PASS vector_add" in out.stdout
    assert re.search(r"^\[\d+\] cuInit\(Flags=0x0\) = CUDA_SUCCESS \(0\) \d+\.\dus$",
                     out.stderr, re.M)
    assert "cuLaunchKernel(" not in out.stdout


def test_run_report_counts_traced_calls(shim: Path, exe_dir: Path, tmp_path: Path) -> None:
    env = tracing.report_environment(tmp_path / "report.json", {})
    raw = Path(env["PYSHIM_REPORT"])
    log = tmp_path / "t.trace"
    out = traced(nvcc(exe_dir, "error_paths"), log, env)
    assert "PASS error_paths" in out.stdout
    lines = trace_lines(log)
    text = raw.read_text()
    # one count per traced function, equal to its lines in the trace
    n_alloc = len(calls(lines, "cuMemAlloc_v2"))
    assert f"call cuMemAlloc_v2 {n_alloc}\n" in text
    assert "error cuMemAlloc_v2 CUDA_ERROR_OUT_OF_MEMORY\n" in text
    # routine refusals of cuGetProcAddress / cuGetExportTable are not errors
    assert "error cuGetExportTable" not in text and "error cuGetProcAddress" not in text
    report = tracing.finish_report(env, tmp_path / "report.json")
    assert not raw.exists()
    by_name = {c["name"]: c["count"] for c in report["calls"]}
    assert by_name["cuMemAlloc_v2"] == n_alloc
    assert by_name["cuGetProcAddress_v2"] == len(calls(lines, "cuGetProcAddress_v2"))
    assert {"name": "cuMemAlloc_v2", "code": "CUDA_ERROR_OUT_OF_MEMORY", "count": 1} \
        in report["errors"]
    assert (tmp_path / "report.json").exists()


def test_driver_api_program_is_traced(shim: Path, tmp_path: Path) -> None:
    """A program linked against libcuda calls the exported symbols: they bind to the
    wrappers, which find libcuda's through dlsym(RTLD_NEXT)."""
    from pyshim.tables.fetch import include_dir

    exe = tmp_path / "driver_ptx"
    cmd = ["cc", "-std=c11", "-O2", f"-I{include_dir('cuda13-runtime')}",
           str(EXAMPLES / "driver_ptx.c"), "-o", str(exe), f"-L{shim / 'lib'}",
           "-l:libcuda.so.1"]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    log = tmp_path / "driver_ptx.trace"
    out = traced(exe, log)
    assert "PASS driver_ptx" in out.stdout, out.stdout + out.stderr
    lines = trace_lines(log)
    assert not calls(lines, "cuGetProcAddress_v2")
    (load,) = calls(lines, "cuModuleLoadData")
    module = re.search(r"module=0x[0-9a-f]+->(0x[0-9a-f]+)", load).group(1)
    found = calls(lines, "cuModuleGetFunction")
    assert any(f'hmod={module}, name="saxpy") = CUDA_SUCCESS (0)' in f for f in found)
    # a lookup that fails names its error, and its out-parameter is left unread
    missing = [f for f in found if 'name="no_such_kernel"' in f]
    assert missing and "= CUDA_ERROR_NOT_FOUND (500)" in missing[0]
    assert "->" not in missing[0]
    assert len(calls(lines, "cuLaunchKernel")) == 2


def test_rtld_next_stays_relative_to_the_caller(shim: Path, tmp_path: Path) -> None:
    exe = tmp_path / "rtld_next"
    cmd = ["cc", "-std=c11", "-Wall", "-Wextra", "-Werror",
           str(REPO_DIR / "tests" / "trace" / "rtld_next.c"), "-o", str(exe), "-ldl"]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    out = traced(exe, tmp_path / "t.trace")
    assert "PASS rtld_next" in out.stdout, out.stdout + out.stderr
    assert "libpyshim_trace.so" in out.stdout


def test_pyshim_run_trace_option(shim: Path, exe_dir: Path, tmp_path: Path) -> None:
    """`pyshim run --trace[=FILE]` end to end through the command line."""
    import sys

    exe = nvcc(exe_dir, "vector_add")
    base = [sys.executable, "-m", "pyshim", "run", "--backend", "cpu"]

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([*base, *args], capture_output=True, text=True, timeout=300)

    log = tmp_path / "calls.log"
    out = run(f"--trace={log}", str(exe))
    assert "PASS vector_add" in out.stdout, out.stdout + out.stderr
    assert len(calls(trace_lines(log), "cuLaunchKernel")) == 1
    # bare --trace: stderr, and the program is not taken for FILE
    out = run("--trace", str(exe))
    assert "PASS vector_add" in out.stdout, out.stdout + out.stderr
    assert re.search(r"^\[\d+\] cuLaunchKernel\(", out.stderr, re.M)
    # after the program, --trace is the program's own argument
    out = run(str(exe), "--trace")
    assert "PASS vector_add" in out.stdout and "cuLaunchKernel(" not in out.stderr
    # no --trace, no tracer
    out = run(str(exe))
    assert "PASS vector_add" in out.stdout and "cuInit(" not in out.stderr
    # the program named as the trace file: refused, and the program left intact
    size = exe.stat().st_size
    out = run(f"--trace={exe}", str(exe))
    assert out.returncode == 127 and "is an executable" in out.stderr
    assert exe.stat().st_size == size


def test_forked_child_is_traced_under_its_own_id(shim: Path, tmp_path: Path) -> None:
    from pyshim.tables.fetch import include_dir

    exe = tmp_path / "fork"
    cmd = ["cc", "-std=c11", "-Wall", "-Wextra", "-Werror", f"-I{include_dir('cuda13-runtime')}",
           str(REPO_DIR / "tests" / "trace" / "fork.c"), "-o", str(exe), f"-L{shim / 'lib'}",
           "-l:libcuda.so.1", "-Wl,--allow-shlib-undefined"]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    log = tmp_path / "fork.trace"
    out = traced(exe, log)
    assert out.returncode == 0, out.stdout + out.stderr
    child = re.search(r"child (\d+)", out.stdout).group(1)
    ids = [LINE.match(line).group(1) for line in calls(trace_lines(log), "cuDriverGetVersion")]
    assert len(ids) == 2 and ids[1] == child and ids[0] != child
