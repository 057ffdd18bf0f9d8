"""The SASS front end (pyshim.sass): cubin metadata, lifting, the loader's use of it, the
report of `pyshim check`, and the oracle (PTX-only vs SASS-only builds of one source)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from pyshim.paths import REPO_DIR
from pyshim.sass import cubin as cb
from pyshim.sass.decode import nvdisasm_path

pytestmark = [pytest.mark.skipif(shutil.which("nvcc") is None, reason="nvcc is not installed"),
              pytest.mark.skipif(nvdisasm_path() is None,
                                 reason="nvdisasm (nvidia-cuda-nvdisasm) is not installed")]

KERNELS = r"""
#include <cstdio>
struct Triple { int a, b, c; };
__constant__ float weights[4] = {1.0f, 2.0f, 3.0f, 4.0f};
__global__ void __launch_bounds__(128) mixed(const int *a, const int *b, int *o, Triple t,
                                             char flag, double scale, int n) {
    __shared__ int tile[64];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    tile[threadIdx.x % 64] = i;
    __syncthreads();
    if (i >= n) return;
    int x = a[i], y = b[i];
    int *r = o + i * 10;
    r[0] = x / y; r[1] = x % y; r[2] = (unsigned)x / (unsigned)y;
    r[3] = (unsigned)x % (unsigned)y; r[4] = (x * 7) >> 3; r[5] = __clz(x) + __popc(y);
    r[6] = min(x, y) * max(x, y) + t.a + t.c * flag;
    r[7] = (int)(scale * x + weights[i & 3] * y);
    r[8] = tile[(threadIdx.x + 1) % 64];
    r[9] = (int)((long long)x * y >> 7);
}
__global__ void warp_sum(int *o) {
    int v = o[threadIdx.x];
    for (int m = 16; m > 0; m >>= 1) v += __shfl_xor_sync(0xffffffffu, v, m);
    o[threadIdx.x] = v;
}
int main() {
    const int n = 512;
    static int a[n], b[n], o[n * 10];
    for (int i = 0; i < n; i++) {
        a[i] = (i * 7919) % 2001 - 1000;
        b[i] = (i * 31) % 97 - 48;
        if (!b[i]) b[i] = 3;
    }
    int *da, *db, *dout;
    cudaMalloc(&da, sizeof a); cudaMalloc(&db, sizeof b); cudaMalloc(&dout, sizeof o);
    cudaMemcpy(da, a, sizeof a, cudaMemcpyHostToDevice);
    cudaMemcpy(db, b, sizeof b, cudaMemcpyHostToDevice);
    mixed<<<4, 128>>>(da, db, dout, Triple{3, 4, 5}, 2, 0.5, n);
    if (cudaMemcpy(o, dout, sizeof o, cudaMemcpyDeviceToHost) != cudaSuccess) return 1;
    long long sum = 0;
    for (int i = 0; i < n * 10; i++) sum = sum * 31 + o[i];
    for (int i = 0; i < n; i += 61) {
        for (int j = 0; j < 10; j++) printf("%d ", o[i * 10 + j]);
        printf("\n");
    }
    printf("hash %lld\n", sum);
    return 0;
}
"""


@pytest.fixture(scope="module")
def work(tmp_path_factory: pytest.TempPathFactory) -> Path:
    d = tmp_path_factory.mktemp("sass")
    (d / "mixed.cu").write_text(KERNELS)
    return d


def nvcc(work: Path, code: str, out: str, *extra: str) -> Path:
    path = work / out
    if not path.exists():
        arch = code.split("_")[1]
        subprocess.run(["nvcc", "-O2", "-gencode", f"arch=compute_{arch},code={code}", *extra,
                        "-o", str(path), str(work / "mixed.cu")], check=True,
                       capture_output=True, timeout=600)
    return path


@pytest.mark.parametrize("arch,base", [(80, 0x160), (90, 0x210)])
def test_cubin_metadata(work: Path, arch: int, base: int) -> None:
    elf = nvcc(work, f"sm_{arch}", f"mixed{arch}.cubin", "-cubin").read_bytes()
    c = cb.read(elf)
    assert c.arch == arch
    k = c.kernels["_Z5mixedPKiS0_Pi6Triplecdi"]
    # CUDA's packed layout: three pointers, a 12-byte struct, a char, a double, an int
    assert [(p.offset, p.size) for p in k.params] == [
        (0, 8), (8, 8), (16, 8), (24, 12), (36, 1), (40, 8), (48, 4)]
    assert k.param_base == base
    assert k.param_bytes == 52
    # sm_90 sets the block's first KiB aside (cluster and barrier state): SASS addresses
    # the kernel's own shared memory after it, and the section's size includes it
    assert k.shared_bytes == (256 if arch == 80 else 1024 + 256)
    assert k.max_threads[:1] == (128,)
    assert [s.name for s in c.objects_in(".nv.constant3")] == ["weights"]


def shimmed(exe: Path, wave: int = 64) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, PYSHIM_CPU_WAVE=str(wave), PYTHONPATH=str(REPO_DIR))
    return subprocess.run([sys.executable, "-m", "pyshim", "run", str(exe)], env=env,
                          capture_output=True, text=True, timeout=600)


@pytest.mark.parametrize("arch", [80, 90])
def test_sass_only_build_prints_what_the_ptx_build_prints(work: Path, arch: int) -> None:
    ptx = shimmed(nvcc(work, f"compute_{arch}", f"mixed_ptx{arch}"))
    assert ptx.returncode == 0, ptx.stderr
    sass = shimmed(nvcc(work, f"sm_{arch}", f"mixed_sass{arch}"))
    assert sass.returncode == 0, sass.stderr
    assert "hash" in ptx.stdout
    assert sass.stdout == ptx.stdout


def test_loader_lifts_a_sass_only_cubin(work: Path) -> None:
    from pyshim.kernels.loader import load_module

    elf = nvcc(work, "sm_80", "mixed80.cubin", "-cubin").read_bytes()
    mod = load_module(elf, "cpu-wave64")
    assert sorted(mod.kernels) == ["_Z5mixedPKiS0_Pi6Triplecdi", "_Z8warp_sumPi"]
    assert mod.params["_Z5mixedPKiS0_Pi6Triplecdi"] == [
        (0, 8), (8, 8), (16, 8), (24, 12), (36, 1), (40, 8), (48, 4)]
    assert "weights" in mod.globals


def test_an_opcode_that_does_not_lift_is_named(work: Path, monkeypatch: pytest.MonkeyPatch
                                               ) -> None:
    from pyshim.sass import lift

    elf = nvcc(work, "sm_80", "mixed80.cubin", "-cubin").read_bytes()
    monkeypatch.delitem(lift.HANDLERS, "SHFL")
    report = lift.lift_report(elf)
    assert set(report["_Z8warp_sumPi"]) == {"SHFL.BFLY"}
    assert report["_Z5mixedPKiS0_Pi6Triplecdi"] == {}
    with pytest.raises(lift.LiftError) as info:
        lift.lift_cubin(elf)
    assert "_Z8warp_sumPi: SHFL.BFLY" in str(info.value)
    assert info.value.cuda_error == "CUDA_ERROR_NO_BINARY_FOR_GPU"


def test_a_module_loads_the_kernels_that_lift(work: Path, monkeypatch: pytest.MonkeyPatch,
                                              caplog: pytest.LogCaptureFixture) -> None:
    """Per kernel: the module loads without the kernel that does not lift, and a log
    line names it and its opcode (its launch fails as a kernel the module lacks)."""
    from pyshim.kernels.loader import load_module
    from pyshim.sass import lift

    elf = nvcc(work, "sm_80", "mixed80.cubin", "-cubin").read_bytes()
    monkeypatch.setenv("PYSHIM_CACHE", str(work / "cache"))  # lifts are cached
    monkeypatch.delitem(lift.HANDLERS, "SHFL")
    with caplog.at_level("WARNING", logger="pyshim"):
        mod = load_module(elf, "cpu-wave64")
    assert mod.kernels == ["_Z5mixedPKiS0_Pi6Triplecdi"]
    assert any("_Z8warp_sumPi" in r.message and "SHFL.BFLY" in r.message
               for r in caplog.records)
    monkeypatch.delitem(lift.HANDLERS, "FFMA")
    monkeypatch.delitem(lift.HANDLERS, "DFMA")
    monkeypatch.setenv("PYSHIM_CACHE", str(work / "cache2"))
    with pytest.raises(lift.LiftError):  # no kernel lifts: the module does not load
        load_module(elf, "cpu-wave64")


def test_check_reports_sass_only_kernels(work: Path) -> None:
    exe = nvcc(work, "sm_80", "mixed_sass80")
    env = dict(os.environ, PYTHONPATH=str(REPO_DIR))
    out = subprocess.run([sys.executable, "-m", "pyshim", "check", str(exe)], env=env,
                         capture_output=True, text=True, timeout=600)
    assert "2 of 2 kernels lift" in out.stdout, out.stdout
    assert "cannot run" in out.stdout and "0 cannot run" in out.stdout


@pytest.mark.slow
def test_oracle_examples_sm80() -> None:
    """The oracle in CI: every example built PTX-only and SASS-only for sm_80 gives the
    same output in both wave modes."""
    from pyshim.sass import oracle

    progs = sorted((REPO_DIR / "examples").glob("*.cu"))
    assert oracle.main(["--arch", "80", *map(str, progs)]) == 0


def test_sub_word_integer_conversions(tmp_path: Path) -> None:
    src = REPO_DIR / "tests" / "sass" / "conversions.cu"
    outs = []
    for code in ("compute_80", "sm_80"):
        exe = tmp_path / code
        subprocess.run(["nvcc", "-O2", "-gencode", f"arch=compute_80,code={code}", "-o",
                        str(exe), str(src)], check=True, capture_output=True, timeout=600)
        proc = shimmed(exe)
        assert proc.returncode == 0, proc.stderr
        assert "does not lift" not in proc.stderr
        outs.append(proc.stdout)
    assert outs[0].count("\n") == 8
    assert outs[1] == outs[0]


def same_output_both_builds(tmp_path: Path, name: str, arch: int) -> str:
    """tests/sass/<name>.cu built PTX-only and SASS-only for sm_<arch> prints the same."""
    src = REPO_DIR / "tests" / "sass" / f"{name}.cu"
    outs = []
    for code in (f"compute_{arch}", f"sm_{arch}"):
        exe = tmp_path / code
        subprocess.run(["nvcc", "-O2", "-gencode", f"arch=compute_{arch},code={code}", "-o",
                        str(exe), str(src)], check=True, capture_output=True, timeout=600)
        proc = shimmed(exe)
        assert proc.returncode == 0, proc.stderr
        assert "does not lift" not in proc.stderr
        outs.append(proc.stdout)
    assert "hash" in outs[0]
    assert outs[1] == outs[0]
    return outs[0]


@pytest.mark.parametrize("arch", [80, 90])
def test_min_max_forms(tmp_path: Path, arch: int) -> None:
    """Packed and three-way integer min/max, double fmin/fmax (NaN inputs), 16-bit atomics."""
    same_output_both_builds(tmp_path, "minmax", arch)


@pytest.mark.parametrize("arch", [80, 90])
def test_tensor_core_forms(tmp_path: Path, arch: int) -> None:
    """LDSM (ldmatrix, plain and transposed), HMMA.16816.F32 (f16, bf16), HMMA.1688.F32,
    IMMA.16832.S8.S8 and a wmma tile: SASS fragment registers are PTX's fragment words."""
    out = same_output_both_builds(tmp_path, "mma", arch)
    # the program's own host GEMM agrees (f16 m16n8k16 + m16n8k8, s8 m16n8k32)
    assert out.count(" mismatches 0\n") == 2, out


@pytest.mark.parametrize("arch", [80, 90])
def test_register_indexed_parameter_reads(tmp_path: Path, arch: int) -> None:
    """LDC / LDC.64 c[0x0][Rn+imm] with imm below the parameters (a biased loop index)."""
    out = same_output_both_builds(tmp_path, "param_index", arch)
    assert out.splitlines()[0] == "2 15 43 6000000042", out  # worked by hand from the inputs


@pytest.mark.parametrize("arch", [80, 90])
def test_half_atomics(tmp_path: Path, arch: int) -> None:
    """atomicAdd on __half2 / __nv_bfloat162 / __half / __nv_bfloat16 (sums exact in 16 bits)
    and on a __shared__ double."""
    out = same_output_both_builds(tmp_path, "half_atomics", arch)
    # bucket 1 of __half2: 64 threads add (1, i>>2&1): 64.0 (0x5400) and 32.0 (0x5000)
    assert out.splitlines()[2].split()[0] == "5400", out
    # a shared double per i&3 (a 64-bit CAS loop), 16 threads of a block adding each of
    # 0.5*j and 0.5*(j+4): 32 j + 64 over two blocks
    assert out.splitlines()[8] == "64 96 128 160", out


@pytest.mark.parametrize("arch", [80, 90])
def test_half_compare_to_register(tmp_path: Path, arch: int) -> None:
    """__hle2 (HSET2.BF) and __hle2_mask / __hgt2_mask (HSET2), a NaN among the inputs."""
    out = same_output_both_builds(tmp_path, "hset2", arch)
    # i = 0: a = (-3, -2), b = (-1, -2): both halves <= : 1.0 twice
    assert out.splitlines()[0].split()[0] == "3c003c00", out


def grid_sync_expected() -> list[str]:
    """tests/sass/grid_sync.cu's two lines, computed here from the kernels' definitions."""
    blocks, threads, n_rounds = 8, 64, 5
    n = blocks * threads
    a = [i * 37 % 11 + 1 for i in range(n)]
    for r in range(n_rounds):
        a = [(a[i] * 3 + a[(i + 97) % n] + r) & 0xFFFFFFFF for i in range(n)]
    chain, prev = [], 1
    for b in range(blocks):
        prev = (prev * 7 + b) & 0xFFFFFFFF
        chain.append(prev)
    return [f"rounds {sum(a)} {a[0]} {a[n // 2]} {a[n - 1]}",
            "chain " + " ".join(map(str, chain))]


# every arch in wave 64; sm_80 and sm_90 stand for the others in wave 32
@pytest.mark.parametrize("arch,wave", [(75, 64), (80, 64), (86, 64), (89, 64), (90, 64),
                                       (80, 32), (90, 32)])
def test_grid_sync_sass_only(tmp_path: Path, arch: int, wave: int) -> None:
    """cooperative_groups' grid.sync() and a chain of volatile flags between the blocks of a
    cooperative launch, SASS only: bank 0's environment registers (the grid workspace),
    LD/ST.STRONG, CGAERRBAR and WARPSYNC.COLLECTIVE.ALL (sm_90) lift."""
    exe = tmp_path / f"grid_sync_sm{arch}"
    subprocess.run(["nvcc", "-O2", "-gencode", f"arch=compute_{arch},code=sm_{arch}", "-o",
                    str(exe), str(REPO_DIR / "tests" / "sass" / "grid_sync.cu")],
                   check=True, capture_output=True, timeout=600)
    proc = shimmed(exe, wave)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "does not lift" not in proc.stderr
    assert proc.stdout.splitlines() == grid_sync_expected()


@pytest.mark.parametrize("arch", [80, 90])
def test_strong_accesses_lift_as_volatile(work: Path, arch: int) -> None:
    """A spin loop's LDG.E.STRONG.SYS must read memory each time round: the lifted access is
    PTX volatile (so no target keeps it in a register); the grid barrier's LD.STRONG.GPU too."""
    from pyshim.sass.lift import lift_cubin

    cub = work / f"grid_sync{arch}.cubin"
    subprocess.run(["nvcc", "-O2", "-cubin", f"-arch=sm_{arch}", "-o", str(cub),
                    str(REPO_DIR / "tests" / "sass" / "grid_sync.cu")],
                   check=True, capture_output=True, timeout=600)
    ptx = lift_cubin(cub.read_bytes())
    chain = ptx[ptx.index("_Z5chainPViPVj"):]
    chain = chain[:chain.index("\n}")]
    assert "ld.volatile.global.b32" in chain and "st.volatile.global.b32" in chain, chain
    assert "mov.u32" in ptx and "%envreg1" in ptx and "%envreg2" in ptx


ATTRS = r"""
#include <cstdio>
__global__ void __launch_bounds__(128) attrs(const float *a, float *o, int n) {
    __shared__ float tile[96];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    tile[threadIdx.x % 96] = i < n ? a[i] : 0.0f;
    __syncthreads();
    float x = tile[(threadIdx.x + 5) % 96], y = 1.0f;
    for (int k = 0; k < 8; k++) y = y * x + (float)k / (x + 2.0f);
    if (i < n) o[i] = y + sinf(x) * expf(-x);
}
int main() {
    cudaFuncAttributes f;
    if (cudaFuncGetAttributes(&f, (const void *)attrs) != cudaSuccess) return 1;
    printf("numRegs %d maxThreadsPerBlock %d shared %zu local %zu\n", f.numRegs,
           f.maxThreadsPerBlock, f.sharedSizeBytes, f.localSizeBytes);
    return 0;
}
"""


def cubin_regs(cubin: Path, kernel: str) -> int:
    """The register count the cubin records for a kernel, read with readelf independently of
    pyshim.sass.cubin: the EIATTR_REGCOUNT record (format 0x04, attribute 0x2f, 8 bytes:
    symbol index, count) in the module's .nv.info."""
    def readelf(*args: str) -> str:
        return subprocess.run(["readelf", *args, str(cubin)], capture_output=True, text=True,
                              check=True).stdout
    index = next(int(line.split(":")[0]) for line in readelf("-sW").splitlines()
                 if line.split()[-1:] == [kernel] and "FUNC" in line)
    # each row: two spaces, the address, then four groups of hex in 35 columns, then ASCII
    hexdump = "".join(line[13:48].replace(" ", "") for line in readelf("-x", ".nv.info")
                      .splitlines() if line.startswith("  0x"))
    info = bytes.fromhex(hexdump)
    pos = 0
    while pos + 4 <= len(info):
        fmt, attr = info[pos], info[pos + 1]
        # EIFMT_SVAL (0x04) carries a u16 size and that many bytes; the others are 4 bytes
        size = int.from_bytes(info[pos + 2:pos + 4], "little") if fmt == 0x04 else 0
        value = info[pos + 4:pos + 4 + size]
        if attr == 0x2F and len(value) == 8 and int.from_bytes(value[:4], "little") == index:
            return int.from_bytes(value[4:], "little")
        pos += 4 + size
    raise AssertionError(f"no register count for {kernel} in .nv.info")


@pytest.mark.skipif(shutil.which("readelf") is None, reason="readelf is not installed")
@pytest.mark.parametrize("arch", [80, 90])
def test_lifted_kernel_reports_the_cubins_attributes(tmp_path: Path, arch: int) -> None:
    """cudaFuncGetAttributes of a lifted kernel says what the cubin records, as the driver
    does: ptxas's register count, not the count of the lifted code's registers."""
    src = tmp_path / "attrs.cu"
    src.write_text(ATTRS)
    gencode = ["-gencode", f"arch=compute_{arch},code=sm_{arch}"]
    cubin, exe = tmp_path / "attrs.cubin", tmp_path / "attrs"
    for extra, out in ((["-cubin"], cubin), ([], exe)):
        subprocess.run(["nvcc", "-O2", *gencode, *extra, "-o", str(out), str(src)],
                       check=True, capture_output=True, timeout=600)
    regs = cubin_regs(cubin, "_Z5attrsPKfPfi")
    ptxas = subprocess.run(["nvcc", "-c", *gencode, "-Xptxas", "-v", "-o", os.devnull, str(src)],
                           check=True, capture_output=True, text=True, timeout=600).stderr
    assert f"Used {regs} registers" in ptxas
    r = shimmed(exe)
    assert r.returncode == 0, r.stderr
    frame = int(re.search(r"(\d+) bytes stack frame", ptxas).group(1))
    shared = 96 * 4 + (1024 if arch == 90 else 0)
    assert r.stdout == (f"numRegs {regs} maxThreadsPerBlock 128 shared {shared} "
                        f"local {frame}\n")
