"""pyshim's libcudart.so.13 / .12 end to end: real `nvcc -cudart shared` programs (and one
linked against CUDA 12.9's runtime from PyPI) import versioned symbols, load our library
by soname, and self-check on the CPU device (LD_LIBRARY_PATH=build/lib:build/cpu)."""

from __future__ import annotations

import fcntl
import hashlib
import importlib.util
import os
import re
import shutil
import subprocess
import sys
import time
import warnings
import zipfile
from pathlib import Path

import pytest

from pyshim.paths import REPO_DIR, build_dir

RT_DIR = REPO_DIR / "tests" / "runtime"
EXAMPLES = REPO_DIR / "examples"
CUDA12_WHEEL = ("nvidia-cuda-runtime-cu12", "12.9.79")
# quick tier: error codes, streams, constant memory + symbols, warp votes
QUICK_EXAMPLES = ["error_paths", "streams_events", "k_constant", "k_warp_vote"]
# examples whose PTX the translator does not handle yet (owned by the PTX work): a clean
# module-load error is expected from them, and a pass is welcome
TRANSLATOR_GAPS = {"k_half"}

pytestmark = pytest.mark.skipif(shutil.which("nvcc") is None, reason="nvcc is not installed")


def translator_available() -> bool:
    try:
        return importlib.util.find_spec("pyshim.kernels.loader") is not None
    except ModuleNotFoundError:
        return False


needs_translator = pytest.mark.skipif(
    not translator_available(),
    reason="kernel assertions need the PTX translator (pyshim.kernels.loader is missing)")


@pytest.fixture(scope="session")
def libs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A root with lib/ (build/lib: libcudart.so.13/.12, libcuda.so.1) and cpu/ (a private
    copy of the CPU device: other components' builds replace build/cpu while tests run)."""
    from pyshim.builders.common import BuildError
    from pyshim.builders.cpu import build_cpu_device
    from pyshim.builders.runtime import build_runtime

    root = build_dir()
    try:
        build_cpu_device(root / "cpu")
    except BuildError as exc:
        # the CPU device is another component (its own tests report its build); a
        # half-edited checkout of it must not hide libcudart's results
        if not (root / "cpu" / "libamdhip64.so.7").exists():
            raise
        warnings.warn(f"using the last built CPU device: {str(exc)[:300]}", stacklevel=1)
    for path in build_runtime(root / "lib"):
        assert path.exists()
    snap = tmp_path_factory.mktemp("libs")
    (snap / "lib").symlink_to(root / "lib")
    (snap / "cpu").mkdir()
    hip = root / "cpu" / "libamdhip64.so.7"
    for _ in range(120):  # a concurrent rebuild may have it absent for a moment
        try:
            shutil.copy2(hip, snap / "cpu" / hip.name)
            break
        except FileNotFoundError:
            time.sleep(0.5)
    else:
        pytest.fail(f"{hip} did not appear")
    (snap / "cpu" / "libamdhip64.so").symlink_to(hip.name)
    return snap


def nvcc(src: Path, *flags: str, name: str | None = None) -> Path:
    """Build once per (source, flags) into build/runtime/bins/."""
    # the programs' shared headers (tests/include) are inputs too
    headers = b"".join(h.read_bytes() for h in sorted((REPO_DIR / "tests" / "include").glob("*.h")))
    key = hashlib.sha256(str(src).encode() + src.read_bytes() + headers + repr(flags).encode())
    out_dir = build_dir() / "runtime" / "bins"
    out_dir.mkdir(parents=True, exist_ok=True)
    exe = out_dir / f"{name or src.stem}-{key.hexdigest()[:16]}"
    if not exe.exists():
        tmp = exe.with_name(exe.name + f".{os.getpid()}.tmp")
        cmd = ["nvcc", "-O2", *flags, "-o", str(tmp), str(src)]
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
        assert proc.returncode == 0, proc.stderr[-3000:]
        os.replace(tmp, exe)
    return exe


def shim_env(root: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("LD_LIBRARY_PATH", "LD_PRELOAD")}
    env["LD_LIBRARY_PATH"] = f"{root / 'lib'}:{root / 'cpu'}"
    env["PYSHIM_BACKEND"] = "cpu"
    env.update(extra)
    return env


def run(exe: Path, root: Path, *args: str, **extra: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(exe), *args], capture_output=True, text=True, timeout=300,
                          env=shim_env(root, **extra))


def imports(exe: Path) -> dict[str, str]:
    """Undefined dynamic symbols of a program: name -> version ('' if unversioned)."""
    out = subprocess.run(["readelf", "--dyn-syms", "-W", str(exe)], capture_output=True,
                         text=True, check=True).stdout
    found = {}
    for line in out.splitlines():
        parts = line.split()
        if len(parts) >= 8 and parts[6] == "UND" and parts[7]:
            name, _, version = parts[7].partition("@")
            found[name] = re.sub(r"\s*\(\d+\)$", "", version)
    return found


def exports(lib: Path) -> dict[str, str]:
    out = subprocess.run(["readelf", "--dyn-syms", "-W", str(lib)], capture_output=True,
                         text=True, check=True).stdout
    found = {}
    for line in out.splitlines():
        parts = line.split()
        if len(parts) >= 8 and parts[6] != "UND" and "@@" in parts[7]:
            name, _, version = parts[7].partition("@@")
            found[name] = version
    return found


def assert_passed(proc: subprocess.CompletedProcess[str]) -> None:
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    assert "ALL PASSED" in proc.stdout or "PASS" in proc.stdout
    assert "FAIL" not in proc.stdout, proc.stdout


# ---------------------------------------------------------------- the libraries


@pytest.mark.parametrize("major", [13, 12])
def test_library_soname_and_version_node(libs: Path, major: int) -> None:
    lib = libs / "lib" / f"libcudart.so.{major}"
    dyn = subprocess.run(["readelf", "-d", str(lib)], capture_output=True, text=True).stdout
    assert f"Library soname: [libcudart.so.{major}]" in dyn
    syms = exports(lib)
    assert set(syms.values()) == {f"libcudart.so.{major}"}
    assert "cudaMalloc" in syms and "__cudaRegisterFatBinary" in syms
    # nothing of ours leaks: only CUDA's names are global
    assert all(s.startswith(("cuda", "__cuda")) for s in syms), sorted(
        s for s in syms if not s.startswith(("cuda", "__cuda")))


@pytest.mark.parametrize("major", [13, 12])
def test_library_needs_only_hip_python_and_libc(libs: Path, major: int) -> None:
    """An undefined cuda* symbol would be a call into ourselves that only fails when the
    program reaches it (lazy binding): e.g. a name that exists in one major only."""
    out = subprocess.run(["nm", "-D", "--undefined-only",
                          str(libs / "lib" / f"libcudart.so.{major}")],
                         capture_output=True, text=True, check=True).stdout
    names = [line.split()[-1] for line in out.splitlines() if line.strip()]
    odd = [n for n in names if not re.match(
        r"(hip\w+|_?Py\w+|\w+@GLIBC_[\d.]+|__gmon_start__|_ITM_\w+|__cxa_finalize.*)$", n)]
    assert odd == []
    assert "hipMalloc" in names
    # strong references (the hand-written core's) must exist in the CPU device: lazy
    # binding would kill the program at the first call of a missing one; the generated
    # thunks' weak references may be absent (they answer cudaErrorNotSupported)
    strong = {line.split()[-1] for line in out.splitlines() if line.split()[:1] == ["U"]
              and line.split()[-1].startswith("hip")}
    hip = subprocess.run(["nm", "-D", "--defined-only", str(libs / "cpu" / "libamdhip64.so.7")],
                         capture_output=True, text=True, check=True).stdout
    defined = {line.split()[-1] for line in hip.splitlines() if line.strip()}
    assert strong and strong <= defined, sorted(strong - defined)


def test_exports_cover_nvidias_libcudart_13(libs: Path) -> None:
    nvidia = Path("/usr/local/cuda/lib64/libcudart.so.13")
    if not nvidia.exists():
        pytest.skip("NVIDIA's libcudart.so.13 is not installed here")
    missing = set(exports(nvidia)) - set(exports(libs / "lib" / "libcudart.so.13"))
    # graphics interop (cuda_gl_interop.h, cuda_egl_interop.h, cuda_vdpau_interop.h) is not
    # in the tables, and two hooks no nvcc 13 output calls
    allowed = {s for s in missing if re.search(r"GL|EGL|Egl|VDPAU", s)}
    allowed |= {"__cudaRegisterUnifiedTable", "__cudaGetProcAddress"}
    assert missing - allowed == set()


# ---------------------------------------------------------------- CUDA 13 programs


def test_program_imports_versioned_symbols(libs: Path) -> None:
    exe = nvcc(RT_DIR / "rt_api.cu", "-cudart", "shared")
    imp = imports(exe)
    assert imp["cudaMalloc"] == "libcudart.so.13"
    assert imp["__cudaRegisterFatBinary"] == "libcudart.so.13"
    assert imp["__cudaPushCallConfiguration"] == "libcudart.so.13"
    ours = exports(libs / "lib" / "libcudart.so.13")
    wanted = {n for n, v in imp.items() if v == "libcudart.so.13"}
    assert wanted - set(ours) == set()


def test_runtime_api_program(libs: Path, tmp_path: Path) -> None:
    exe = nvcc(RT_DIR / "rt_api.cu", "-cudart", "shared")
    report = tmp_path / "report.txt"
    proc = run(exe, libs, PYSHIM_REPORT=str(report))
    assert_passed(proc)
    assert "ALL PASSED" in proc.stdout
    assert "driver 13000 runtime 13000 header 13000" in proc.stdout
    # cudaGetDriverEntryPointByVersion reached libcuda (not the no-driver path)
    assert "entry point cuDriverGetVersion -> 13000" in proc.stdout
    if (libs / "lib" / "libcuda.so.1").exists():  # cudaGetDriverEntryPoint resolves there
        assert "entry point cuDriverGetVersion -> 13000" in proc.stdout
    for line in ("impossible allocation -> cudaErrorMemoryAllocation",
                 "cudaFree(host pointer) -> cudaErrorInvalidValue",
                 "<<<1, 2048>>> -> cudaErrorInvalidConfiguration",
                 "cudaCtxResetPersistingL2Cache -> cudaErrorNotSupported"):
        assert line in proc.stdout
    # called twice, logged once, counted twice
    logged = [ln for ln in proc.stderr.splitlines() if "cudaCtxResetPersistingL2Cache" in ln]
    assert logged == ["pyshim: cudaCtxResetPersistingL2Cache is not supported "
                      "(returns cudaErrorNotSupported)"]
    assert "unsupported cudaCtxResetPersistingL2Cache 2" in report.read_text()
    # a mapped call whose HIP target the backend lacks: the weak import reads NULL
    hip = subprocess.run(["nm", "-D", "--defined-only", str(libs / "cpu" / "libamdhip64.so.7")],
                         capture_output=True, text=True, check=True).stdout
    if " hipGraphCreate" not in hip:
        assert "cudaGraphCreate -> cudaErrorNotSupported" in proc.stdout
        assert ("pyshim: cudaGraphCreate is not supported: the HIP backend has no "
                "hipGraphCreate (returns cudaErrorNotSupported)") in proc.stderr
    else:
        assert "cudaGraphCreate -> cudaSuccess" in proc.stdout


def _identity_lines(stdout: str) -> dict[str, list[int]]:
    """"identity threads/sm 1536 blocks/sm 16 ..." lines -> {"threads/sm": [1536], ...}"""
    found: dict[str, list[int]] = {}
    for line in stdout.splitlines():
        if line.startswith("identity "):
            words = line.split()[1:]
            key = None
            for w in words:
                if re.fullmatch(r"-?\d+(\.\d+)?", w) and key is not None:
                    found.setdefault(key, []).extend(int(x) for x in w.split("."))
                else:
                    key = w
    return found


@pytest.mark.parametrize("cudart", ["shared", "static"])
@pytest.mark.parametrize("cc,wave", [(None, "64"), (None, "32"), ("9.0", "64"), ("7.5", "32")])
def test_device_identity(libs: Path, cudart: str, cc: str | None, wave: str) -> None:
    """Every path a program reads the device from (our runtime's cudaGetDeviceProperties
    and cudaDeviceGetAttribute, NVIDIA's static runtime over our driver, the driver's own
    attributes) presents the same NVIDIA identity: a real compute capability, 32-lane warps
    on the wave64 device too, and that capability's limits; and the driver API works right
    after the runtime's first call."""
    from pyshim.device.identity import default, identities, parse_cc

    exe = nvcc(RT_DIR / "rt_identity.cu", "-cudart", cudart, f"-L{libs / 'lib'}", "-lcuda",
               name=f"rt_identity_{cudart}")
    extra = {"PYSHIM_CPU_WAVE": wave}
    if cc is not None:
        extra["PYSHIM_DEVICE_CC"] = cc
    proc = run(exe, libs, **extra)
    assert proc.returncode == 0 and "PASS identity agrees" in proc.stdout, (
        proc.stdout + proc.stderr)
    assert "cuDeviceGet after cudaGetDeviceCount -> CUDA_SUCCESS" in proc.stdout
    want = identities()[parse_cc(cc)] if cc is not None else default()
    got = _identity_lines(proc.stdout)
    assert got["cc"] == [want.major, want.minor]
    assert got["warp"] == [32]
    assert got["dims"] == [1024, 1024, 64] and got["grid"] == [2**31 - 1, 65535, 65535]
    assert got["threads/sm"] == [want.threads_per_sm]
    assert got["blocks/sm"] == [want.blocks_per_sm]
    assert got["regs/block"] == [65536] and got["regs/sm"] == [65536]
    assert got["shared/block"] == [48 * 1024] and got["const"] == [64 * 1024]
    # the identity's shared memory, capped by what the backend really has per block
    assert 48 * 1024 <= got["optin"][0] <= want.shared_optin_kib * 1024
    assert got["shared/sm"][0] <= want.shared_per_sm_kib * 1024
    if want.shared_optin_kib == 64:
        assert got["optin"] == [64 * 1024]
    # the CPU device runs a cluster's blocks together (shim/cpu/hip/grid.c run_clusters):
    # cluster launch is there where the presented capability has clusters (9.0 and later)
    assert got["clusters"] == [int(want.clusters)]


@needs_translator
@pytest.mark.parametrize("cudart", ["shared", "static"])
def test_kernel_attributes_and_launch_bounds(libs: Path, cudart: str) -> None:
    """A compute_75 kernel reports ptxVersion/binaryVersion 75 (not the backend's 94),
    every cudaLaunchKernelEx attribute runs the kernel with its meaning (events fire,
    partial clusters refused), a launch past __launch_bounds__ is an invalid value and
    leaves the device usable; through our runtime and through NVIDIA's over our driver."""
    exe = nvcc(RT_DIR / "rt_kernel_attrs.cu", "-arch=compute_75", "-cudart", cudart,
               f"-L{libs / 'lib'}", "-lcuda", name=f"rt_kernel_attrs_{cudart}")
    proc = run(exe, libs)
    assert_passed(proc)
    assert "ALL PASSED" in proc.stdout
    assert "attrs ptxVersion 75 binaryVersion 75" in proc.stdout
    assert "its launch bounds allow 64" in proc.stderr
    if cudart == "static":
        assert "PASS cuFuncGetAttribute(PTX_VERSION) (75)" in proc.stdout


@needs_translator
@pytest.mark.parametrize("cudart", ["shared", "static"])
def test_thread_block_clusters(libs: Path, cudart: str) -> None:
    """Clusters on the CPU device (presented as a 9.0 device): a reduction through
    distributed shared memory (map_shared_rank reads and atomics, cluster.sync()), the
    shared::cluster forms (mapa, st/ld/red.shared::cluster, getctarank), a __cluster_dims__
    kernel reading the cluster registers launched plainly, at grid and cluster shapes up to
    8 blocks and, with cudaFuncAttributeNonPortableClusterSizeAllowed, 16, checked against
    the host; cudaOccupancyMaxActiveClusters / MaxPotentialClusterSize; the required cluster
    shape in cudaFuncGetAttributes; a cluster of 16 without the attribute, of 32, a grid
    that is not whole clusters refused with cudaErrorInvalidClusterSize; through our runtime
    and through NVIDIA's over our driver."""
    exe = nvcc(RT_DIR / "rt_cluster.cu", "-cudart", cudart,
               "-gencode", "arch=compute_90,code=compute_90", f"-L{libs / 'lib'}", "-lcuda",
               name=f"rt_cluster_{cudart}")
    proc = run(exe, libs, PYSHIM_DEVICE_CC="9.0")
    assert_passed(proc)
    assert "ALL PASSED" in proc.stdout, proc.stdout + proc.stderr
    assert "clusterLaunch 1" in proc.stdout
    # each refusal says why on stderr
    assert "in clusters of (32,1,1)" in proc.stderr and "whole clusters" in proc.stderr
    assert "in clusters of (2,2,1) blocks refused" in proc.stderr
    # a block that traps, or leaves its cluster without the barrier the others wait at:
    # the launch fails (and names the block) instead of hanging
    for mode, why in (("trap", "trapped with code 1"), ("leave", "trapped with code 3 (waits at a barrier that can never complete)")):
        proc = run(exe, libs, mode, PYSHIM_DEVICE_CC="9.0")
        assert proc.returncode == 0, proc.stdout + proc.stderr
        assert f"{mode}: launch cudaSuccess, synchronize cudaErrorLaunchFailure" in proc.stdout
        assert why in proc.stderr, proc.stderr


@needs_translator
@pytest.mark.parametrize("cc,arch", [(None, 750), ("9.0", 900)])
def test_multi_arch_fatbin_runs_the_ptx_for_the_presented_arch(libs: Path, cc: str | None,
                                                               arch: int) -> None:
    """An 8.6 device runs compute_75's PTX, not compute_90's (which may hold Hopper-only
    instructions); a 9.0 one runs compute_90's."""
    exe = nvcc(RT_DIR / "rt_arch_choice.cu", "-cudart", "shared",
               "-gencode", "arch=compute_75,code=compute_75",
               "-gencode", "arch=compute_90,code=compute_90")
    proc = run(exe, libs, **({"PYSHIM_DEVICE_CC": cc} if cc else {}))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert f"arch {arch} (cudaSuccess)" in proc.stdout


@needs_translator
@pytest.mark.parametrize("cudart", ["shared", "static"])
def test_library_management(libs: Path, cudart: str) -> None:
    """cudaLibraryLoadData (four loads of one image at once, each its own global),
    cudaLibraryGetKernel/Global/KernelCount/EnumerateKernels, kernels launched by their
    cudaKernel_t, cudaGetKernel, cudaKernelSetAttributeForDevice, cudaStreamGetCaptureInfo
    during a capture, unloading; through our runtime and NVIDIA's over our driver."""
    exe = nvcc(RT_DIR / "rt_library.cu", "-cudart", cudart, name=f"rt_library_{cudart}")
    proc = run(exe, libs)
    assert_passed(proc)
    assert "ALL PASSED" in proc.stdout


def test_under_pyshim_run(libs: Path) -> None:
    """Through the launcher, which preloads libcuda.so.1 and both libcudart libraries."""
    exe = nvcc(RT_DIR / "rt_api.cu", "-cudart", "shared")
    env = {k: v for k, v in os.environ.items() if k not in ("LD_LIBRARY_PATH", "LD_PRELOAD")}
    proc = subprocess.run([sys.executable, "-m", "pyshim", "run", "--backend", "cpu", str(exe)],
                          capture_output=True, text=True, timeout=300, env=env)
    assert_passed(proc)
    assert "runtime 13000" in proc.stdout


@needs_translator
@pytest.mark.parametrize("flags", [(), ("--default-stream", "per-thread")],
                         ids=["legacy", "per-thread"])
def test_kernels_symbols_and_attributes(libs: Path, flags: tuple[str, ...]) -> None:
    exe = nvcc(RT_DIR / "rt_kernels.cu", "-cudart", "shared", *flags)
    if flags:
        assert imports(exe).get("__cudaLaunchKernel_ptsz") == "libcudart.so.13"
    proc = run(exe, libs)
    assert_passed(proc)
    assert "ALL PASSED" in proc.stdout


@needs_translator
def test_lazily_loaded_module_through_the_runtime(libs: Path, tmp_path: Path) -> None:
    """A module of many kernels loads lazily on the CPU device (its data object first): the
    runtime translates a kernel on its first launch or attribute query, as libcuda does
    (it once answered `not in its translated module` for every kernel of ggml's files)."""
    exe = nvcc(RT_DIR / "rt_lazy.cu", "-cudart", "shared")
    report = tmp_path / "report.raw"
    proc = run(exe, libs, PYSHIM_LAZY_MIN_KERNELS="4", PYSHIM_CACHE=str(tmp_path / "cache"),
               PYSHIM_REPORT=str(report))
    assert_passed(proc)
    assert "ALL PASSED" in proc.stdout
    rows = [x.split() for x in report.read_text().splitlines() if x.startswith("kernel ")]
    assert sum(r[2] == "indexed" for r in rows) == 16, rows
    translated = {r[1] for r in rows if r[2] == "translated"}
    assert translated == {"_Z5add_kILi2EEvPii", "_Z5add_kILi11EEvPii",
                          "_Z5add_kILi15EEvPii"}, rows


@needs_translator
def test_rdc_program(libs: Path) -> None:
    """-rdc=true registers the device-linked (v2) wrapper; its PTX is in the relocatable
    fat binaries of the aux list."""
    if not (EXAMPLES / "vector_add.cu").exists():
        pytest.skip("examples/vector_add.cu is not in this checkout")
    exe = nvcc(EXAMPLES / "vector_add.cu", "-cudart", "shared", "-rdc=true",
               name="vector_add_rdc")
    proc = run(exe, libs)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "PASS vector_add" in proc.stdout


@needs_translator
def test_sass_only_binary_is_refused_cleanly(libs: Path) -> None:
    exe = nvcc(RT_DIR / "rt_kernels.cu", "-cudart", "shared", "-gencode",
               "arch=compute_120,code=sm_120", name="rt_kernels_sass")
    proc = run(exe, libs)
    assert proc.returncode == 1, proc.stdout + proc.stderr  # a failed check, not a crash
    assert "launch (<<<>>>) -> cudaErrorNoKernelImageForDevice" in proc.stdout
    assert "cudaFuncGetAttributes(&a, (const void *)poly) -> cudaErrorNoKernelImageForDevice" \
        in proc.stdout
    logged = [ln for ln in proc.stderr.splitlines() if "no PTX" in ln]
    assert logged and "_Z4polyPKfPfi" in logged[0]


@needs_translator
def test_graph_from_stream_capture(libs: Path) -> None:
    hip = subprocess.run(["nm", "-D", "--defined-only", str(libs / "cpu" / "libamdhip64.so.7")],
                         capture_output=True, text=True, check=True).stdout
    if " hipStreamBeginCapture" not in hip:
        pytest.skip("this CPU device has no graphs (hipStreamBeginCapture)")
    proc = run(nvcc(RT_DIR / "rt_graph.cu", "-cudart", "shared"), libs)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "PASS graph" in proc.stdout


@needs_translator
def test_graph_on_nvidias_static_runtime(libs: Path) -> None:
    """The same program on NVIDIA's static runtime (nvcc's default, as cuda-samples build):
    the graph calls reach libcuda, cuGraphExecKernelNodeSetParams_v2 and
    cuGraphExecUpdate_v2 (CUDA 12's result struct) included."""
    proc = run(nvcc(RT_DIR / "rt_graph.cu"), libs)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "update from another shape: cudaErrorGraphExecUpdateFailure, result 2" in proc.stdout
    assert "PASS graph" in proc.stdout


@needs_translator
def test_sticky_error_until_device_reset(libs: Path) -> None:
    proc = run(nvcc(RT_DIR / "rt_sticky.cu", "-cudart", "shared"), libs)
    assert_passed(proc)
    assert "PASS later calls fail: cudaErrorLaunchFailure" in proc.stdout


@needs_translator
def test_managed_variables(libs: Path) -> None:
    exe = nvcc(RT_DIR / "rt_managed.cu", "-cudart", "shared")
    assert imports(exe)["__cudaRegisterManagedVar"] == "libcudart.so.13"
    proc = run(exe, libs)
    if proc.returncode != 0 and ".attribute(.managed)" in proc.stderr:
        # a failed load must still be a clean error (host code reads zeroed memory)
        assert proc.returncode == 1 and "FAIL managed" in proc.stdout, proc.stderr
        pytest.xfail("the PTX translator does not read .attribute(.managed) yet")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "PASS managed" in proc.stdout


@needs_translator
@pytest.mark.parametrize("order", ["runtime-first", "driver-first"])
def test_runtime_and_driver_share_one_interpreter(libs: Path, tmp_path: Path,
                                                   order: str) -> None:
    from pyshim.builders.components import build_all

    build_all()  # libcuda.so.1 (+ the CPU device)
    ptx = tmp_path / "scale.ptx"
    proc = subprocess.run(["nvcc", "-ptx", "-o", str(ptx), str(RT_DIR / "scale.cu")],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    exe = nvcc(RT_DIR / "rt_with_driver.cu", "-cudart", "shared", f"-L{libs / 'lib'}", "-lcuda")
    needed = subprocess.run(["readelf", "-d", str(exe)], capture_output=True, text=True).stdout
    assert "[libcuda.so.1]" in needed and "[libcudart.so.13]" in needed
    out = run(exe, libs, str(ptx), order)
    assert out.returncode == 0, out.stdout + out.stderr
    assert "PASS runtime and driver kernels in one process" in out.stdout


def _other_python() -> str | None:
    """A python3 on this machine that is not the one pyshim is built with (Debian's is
    statically linked: a second interpreter must not be embedded next to it)."""
    for cand in ("/usr/bin/python3", "/usr/local/bin/python3"):
        if os.path.exists(cand) and os.path.realpath(cand) != os.path.realpath(sys.executable):
            return cand
    return None


@needs_translator
@pytest.mark.parametrize("python", ["this", "other"])
def test_python_process_as_the_host(libs: Path, tmp_path: Path, python: str) -> None:
    """A Python host: the translator runs in its own interpreter when it is the Python
    pyshim was built with, else in a translator subprocess."""
    exe = sys.executable if python == "this" else _other_python()
    if exe is None:
        pytest.skip("no other python3 on this machine")
    fatbin = tmp_path / "scale.fatbin"
    proc = subprocess.run(["nvcc", "-fatbin", "-o", str(fatbin), str(RT_DIR / "scale.cu")],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    out = subprocess.run([exe, str(RT_DIR / "python_host.py"),
                          str(libs / "lib" / "libcudart.so.13"), str(fatbin)],
                         capture_output=True, text=True, timeout=300, env=shim_env(libs))
    assert out.returncode == 0, out.stdout + out.stderr
    assert "PASS python host" in out.stdout


@needs_translator
def test_translator_subprocess_on_request(libs: Path, tmp_path: Path) -> None:
    exe = nvcc(RT_DIR / "rt_kernels.cu", "-cudart", "shared")
    proc = run(exe, libs, PYSHIM_TRANSLATOR="subprocess", PYSHIM_CACHE=str(tmp_path / "cache"))
    assert_passed(proc)
    assert "ALL PASSED" in proc.stdout


def _example(name: str, libs: Path, *flags: str) -> None:
    exe = nvcc(EXAMPLES / f"{name}.cu", "-cudart", "shared", *flags, name=name)
    assert set(imports(exe).values()) & {"libcudart.so.13"}
    proc = run(exe, libs)
    if name in TRANSLATOR_GAPS and proc.returncode != 0:
        assert "pyshim: module load for cpu-wave" in proc.stderr, proc.stderr
        pytest.xfail(f"{name}: the PTX translator does not handle it yet")
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    assert f"PASS {name}" in proc.stdout


def _examples() -> list[str]:
    return sorted(p.stem for p in EXAMPLES.glob("*.cu"))


@needs_translator
@pytest.mark.parametrize("name", [n for n in QUICK_EXAMPLES if n in _examples()])
def test_example_with_shared_cudart(libs: Path, name: str) -> None:
    _example(name, libs)


@needs_translator
@pytest.mark.slow
@pytest.mark.parametrize("flags", [(), ("--default-stream", "per-thread")],
                         ids=["legacy", "per-thread"])
@pytest.mark.parametrize("name", [n for n in _examples() if n not in QUICK_EXAMPLES])
def test_every_example_with_shared_cudart(libs: Path, name: str,
                                          flags: tuple[str, ...]) -> None:
    _example(name, libs, *flags)


@pytest.mark.slow
def test_forwarded_call_overhead(libs: Path, tmp_path: Path) -> None:
    """A thunk is a couple of loads and a call (DESIGN.md budget: <= 5 ns over HIP). On a
    shared machine only a gross regression (a lock, Python, a syscall) is asserted."""
    exe = tmp_path / "bench_forward"
    proc = subprocess.run(
        ["gcc", "-O2", "-o", str(exe), str(RT_DIR / "bench_forward.c"),
         f"-L{libs / 'lib'}", "-l:libcudart.so.13", f"-L{libs / 'cpu'}",
         "-l:libamdhip64.so.7", "-Wl,--allow-shlib-undefined"],
        capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    out = subprocess.run([str(exe)], capture_output=True, text=True, env=shim_env(libs),
                         timeout=120)
    assert out.returncode == 0, out.stdout + out.stderr
    for line in out.stdout.splitlines():
        name, through, direct = line.split()
        print(f"{name}: {float(through) - float(direct):.1f} ns over HIP")
        assert float(through) - float(direct) < 50, line


# ---------------------------------------------------------------- CUDA 12.9


@pytest.fixture(scope="session")
def cuda12() -> tuple[Path, Path]:
    """(include dir, lib dir holding NVIDIA's libcudart.so.12) from the PyPI wheel,
    downloaded once into build/runtime/cuda12/ (like pyshim.tables.fetch)."""
    from pyshim.tables.fetch import FetchError, include_dir

    dest = build_dir() / "runtime" / "cuda12"
    lib = dest / "nvidia" / "cuda_runtime" / "lib"
    dest.mkdir(parents=True, exist_ok=True)
    with open(dest / ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # pytest -n: one download
        if not (lib / "libcudart.so.12").exists():
            work = dest / "download"
            shutil.rmtree(work, ignore_errors=True)
            work.mkdir(parents=True)
            pkg, ver = CUDA12_WHEEL
            proc = subprocess.run(
                [sys.executable, "-m", "pip", "download", "--no-deps", "--quiet",
                 "--disable-pip-version-check", "--only-binary", ":all:", "--dest", str(work),
                 f"{pkg}=={ver}"], capture_output=True, text=True, timeout=600)
            wheels = list(work.glob("*.whl"))
            if proc.returncode != 0 or not wheels:
                pytest.skip(f"cannot download {pkg}=={ver}: {proc.stderr[-500:]}")
            with zipfile.ZipFile(wheels[0]) as z:
                z.extract("nvidia/cuda_runtime/lib/libcudart.so.12", dest)
            shutil.rmtree(work)
    try:
        inc = Path(include_dir("cuda12-runtime"))
    except FetchError as exc:
        pytest.skip(f"CUDA 12.9 headers unavailable: {exc}")
    return inc, lib


@pytest.mark.network
def test_exports_cover_nvidias_libcudart_12(libs: Path, cuda12: tuple[Path, Path]) -> None:
    """Every symbol NVIDIA's libcudart.so.12 defines, at its version node: a program (or a
    dlvsym) never fails on pyshim's. Those no header gives us are NOT_SUPPORTED stubs."""
    _inc, lib = cuda12
    ours = exports(libs / "lib" / "libcudart.so.12")
    missing = set(exports(lib / "libcudart.so.12").items()) - set(ours.items())
    assert missing == set()


@pytest.mark.network
def test_program_linked_against_cuda_12_9(libs: Path, cuda12: tuple[Path, Path]) -> None:
    inc, lib = cuda12
    exe = nvcc(RT_DIR / "rt_api.cu", f"-I{inc}", "-cudart", "none", f"-L{lib}",
               "-l:libcudart.so.12", name="rt_api12")
    imp = imports(exe)
    assert imp["cudaMalloc"] == "libcudart.so.12"
    assert imp["cudaGetDeviceProperties_v2"] == "libcudart.so.12"
    proc = run(exe, libs)
    assert_passed(proc)
    assert "driver 12090 runtime 12090 header 12090" in proc.stdout
    # 12.9's cudaDeviceProp layout (multiProcessorCount moved, clockRate exists): the
    # program compares the struct with cudaDeviceGetAttribute
    assert "PASS SM count agrees" in proc.stdout and "PASS clock rate agrees" in proc.stdout


@pytest.mark.network
@pytest.mark.parametrize("cc", [None, "9.0"])
def test_device_identity_in_cuda_12_9_layout(libs: Path, cuda12: tuple[Path, Path],
                                             cc: str | None) -> None:
    """libcudart.so.12's cudaGetDeviceProperties (12.9's layout) presents the same identity
    as cudaDeviceGetAttribute and the driver."""
    from pyshim.device.identity import default, identities, parse_cc

    inc, lib = cuda12
    exe = nvcc(RT_DIR / "rt_identity.cu", f"-I{inc}", "-cudart", "none", f"-L{lib}",
               "-l:libcudart.so.12", f"-L{libs / 'lib'}", "-lcuda", name="rt_identity12")
    assert imports(exe)["cudaGetDeviceProperties_v2"] == "libcudart.so.12"
    proc = run(exe, libs, **({"PYSHIM_DEVICE_CC": cc} if cc else {}))
    assert proc.returncode == 0 and "PASS identity agrees" in proc.stdout, (
        proc.stdout + proc.stderr)
    want = identities()[parse_cc(cc)] if cc else default()
    got = _identity_lines(proc.stdout)
    assert got["cc"] == [want.major, want.minor] and got["warp"] == [32]
    assert got["threads/sm"] == [want.threads_per_sm]


@needs_translator
@pytest.mark.network
def test_kernel_program_linked_against_cuda_12_9(libs: Path, cuda12: tuple[Path, Path]) -> None:
    inc, lib = cuda12
    exe = nvcc(RT_DIR / "rt_kernels.cu", f"-I{inc}", "-cudart", "none", f"-L{lib}",
               "-l:libcudart.so.12", name="rt_kernels12")
    imp = imports(exe)
    assert imp["__cudaRegisterFunction"] == "libcudart.so.12"
    assert imp["cudaLaunchKernelExC"] == "libcudart.so.12"
    proc = run(exe, libs)
    assert_passed(proc)
    assert "ALL PASSED" in proc.stdout
