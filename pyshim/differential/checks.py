"""Differential checks of the PTX translator against NVIDIA's own compilers
(`python3 -m pyshim.differential [--json] [examples...]`, `make differential`).

P is a program's PTX (nvcc -ptx, compute_75); P' is P translated by pyshim's `cuda` target
and compiled back to PTX by NVRTC (pyshim/kernels/nvrtc.py; NVIDIA's own front end and optimizer,
running on the CPU). For each kernel example it
  1. with an NVIDIA GPU: builds the program for that GPU and runs it natively (NVIDIA's
     driver): the reference output;
  2. runs the same binary under `pyshim run --backend cpu` (our fat-binary reader, PTX
     translator and CPU device) and compares its output line by line with the reference;
  3. compiles the cuda target's translation of P with NVRTC (nvcc -c when NVRTC is not
     installed), so the translator's CUDA output is judged by NVIDIA's compiler;
  4. the round trip, everywhere: rebuilds the program with P' in place of P in its fat
     binary, runs both under pyshim on the CPU device and compares outputs line by line
     (a difference is a bug in the cuda target: the CPU device runs both, so only the
     translation can differ); with a GPU, the P' program also runs natively against 1.
Then, once per run, the driver check: a few kernels with fixed inputs (DRIVER_KERNELS)
are loaded by cuModuleLoadData and launched by cuLaunchKernel through ctypes, from P and
from P', under pyshim's libcuda (CPU device) and, with a GPU, under NVIDIA's: every output
must be the same bytes.
"""

from __future__ import annotations

import argparse
import ctypes
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

from pyshim.kernels import nvrtc
from pyshim.paths import REPO_DIR

EXAMPLES = REPO_DIR / "examples"
PTX_ARCH = "compute_75"  # the PTX pyshim translates (what nvcc embeds for compute_75)
# lines that legitimately differ between a GPU and the CPU device
VOLATILE = ("device 0:", "pyshim:", "GPU", "clock", "ms", "time")


# ---- tools ---------------------------------------------------------------------------------
def gpu_arch() -> str | None:
    """sm_XY of the first NVIDIA GPU, or None when there is none."""
    if shutil.which("nvidia-smi") is None:
        return None
    out = subprocess.run(["nvidia-smi", "--query-gpu=compute_cap", "--format=csv,noheader"],
                         capture_output=True, text=True)
    cap = out.stdout.strip().splitlines()[0] if out.returncode == 0 and out.stdout else ""
    return "sm_" + cap.replace(".", "") if cap else None


def _run(cmd: list[str], timeout: int = 600, **kw) -> subprocess.CompletedProcess:
    return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, **kw)


def _stable(text: str) -> list[str]:
    return [line for line in text.splitlines() if not any(v in line for v in VOLATILE)]


def _differences(a: str, b: str) -> list[tuple[str, str]]:
    """Line pairs that differ (a missing line pairs with ''), at most 10."""
    la, lb = _stable(a), _stable(b)
    n = max(len(la), len(lb))
    la, lb = la + [""] * (n - len(la)), lb + [""] * (n - len(lb))
    return [(x, y) for x, y in zip(la, lb, strict=True) if x != y][:10]


def pyshim_run(argv: list[str], env: dict[str, str] | None = None
               ) -> subprocess.CompletedProcess:
    return _run([sys.executable, "-m", "pyshim", "run", "--backend", "cpu", *argv], env=env)


# ---- P -> P' -------------------------------------------------------------------------------
def cuda_target_source(ptx: str) -> str:
    """The cuda target's CUDA C++ for `ptx`, spelled for NVRTC."""
    from pyshim.ptx.targets.cuda import nvrtc_source
    from pyshim.ptx.translate import translate

    return nvrtc_source(translate(ptx, "cuda"))


def cuda_target_ptx(ptx: str, arch: str = PTX_ARCH, name: str = "translated.cu") -> str:
    """P': `ptx` translated by the cuda target and compiled to PTX by NVRTC."""
    return nvrtc.compile_to_ptx(cuda_target_source(ptx), arch, name=name)


def compile_cuda_target(ptx: str, work: Path, name: str, arch: str | None) -> str:
    """Step 3: 'compiles (NVRTC)' / 'compiles (nvcc)', or why not."""
    try:
        cu = cuda_target_source(ptx)
    except Exception as exc:  # noqa: BLE001 - reported per example
        return f"translation failed: {exc}"
    if nvrtc.available():
        try:
            nvrtc.compile_to_ptx(cu, "compute_" + (arch or "sm_75")[3:], name=f"{name}.cu")
        except nvrtc.NvrtcError as exc:
            return f"NVRTC rejected it: {str(exc)[-600:]}"
        return "compiles (NVRTC)"
    path = work / f"{name}.translated.cu"
    path.write_text(cu)
    cc = _run(["nvcc", "-c", f"-arch={arch or 'sm_75'}", "-o", str(path.with_suffix(".o")),
               str(path)])
    return "compiles (nvcc)" if cc.returncode == 0 else "nvcc rejected it: " + cc.stderr[-400:]


# ---- a program with P' in its fat binary ---------------------------------------------------
_ENV_LINE = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*)=")


def build_ptx_program(src: Path, keep: Path) -> tuple[Path, Path]:
    """Builds `src` with compute_75 PTX only, keeping nvcc's intermediate files in `keep`:
    (the program, its PTX file). The PTX file may then be rewritten and the program
    relinked around it with relink_program()."""
    keep.mkdir(parents=True, exist_ok=True)
    exe = keep / src.stem
    cmd = ["nvcc", "-O2", "-keep", "-keep-dir", str(keep),
           f"-gencode=arch={PTX_ARCH},code={PTX_ARCH}", "-o", str(exe), str(src)]
    proc = _run(cmd)
    if proc.returncode != 0:
        raise RuntimeError(f"nvcc build of {src.name} failed: {proc.stderr[-400:]}")
    ptx = keep / f"{src.stem}.ptx"
    if not ptx.is_file():
        raise RuntimeError(f"nvcc -keep left no {ptx.name} in {keep}")
    (keep / "nvcc.args").write_text(json.dumps(cmd))
    return exe, ptx


def relink_program(keep: Path) -> Path:
    """Re-runs the steps of build_ptx_program's nvcc after its PTX was written (fatbinary,
    host compile, device and host link), as `nvcc -dryrun` lists them, so the program's
    fat binary embeds whatever the kept PTX file now holds. The program is rebuilt in place."""
    cmd = json.loads((keep / "nvcc.args").read_text())
    dry = _run([cmd[0], "-dryrun", *cmd[1:]])
    lines = [ln[3:] for ln in dry.stderr.splitlines() if ln.startswith("#$ ")]
    first = next((i for i, ln in enumerate(lines) if ln.startswith("fatbinary")), None)
    if dry.returncode != 0 or first is None or ".ptx" not in lines[first]:
        raise RuntimeError(f"nvcc -dryrun shows no fatbinary step of a PTX file:\n{dry.stderr}")
    # the tools' search paths as nvcc sets them (its other variables feed only earlier steps)
    env = dict(os.environ)
    for ln in lines[:first]:
        m = _ENV_LINE.match(ln)
        if m and m.group(1) in ("PATH", "LD_LIBRARY_PATH"):
            env[m.group(1)] = ln[m.end():]
    script = keep / "relink.sh"
    script.write_text("set -e\n" + "\n".join(lines[first:]) + "\n")
    proc = _run(["bash", str(script)], env=env)
    if proc.returncode != 0:
        raise RuntimeError(f"relinking with the new PTX failed: {proc.stderr[-600:]}")
    return Path(cmd[cmd.index("-o") + 1])


def embedded_ptx(program: Path) -> list[str]:
    """Every PTX text in the fat binaries embedded in `program` (pyshim's own reader)."""
    from pyshim.binary import fatbin
    from pyshim.binary.elf import HostElf

    with HostElf(program) as elf:
        return [e.ptx() for c in elf.embedded_containers() for e in fatbin.entries(c.data)
                if e.is_ptx]


def _ptx_tokens(ptx: str) -> list[str]:
    """PTX without comments and layout (fatbinary blanks out comments as it embeds PTX)."""
    return re.sub(r"//[^\n]*", "", ptx).split()


def build_roundtrip(src: Path, work: Path) -> tuple[Path, Path]:
    """Step 4's programs: `src` built from P and rebuilt with P' in its fat binary."""
    keep = work / f"{src.stem}.keep"
    exe, ptx = build_ptx_program(src, keep)
    exe_p = work / f"{src.stem}.P"
    shutil.copy2(exe, exe_p)
    p2 = cuda_target_ptx(ptx.read_text(), name=f"{src.stem}.cu")
    ptx.write_text(p2)
    exe_p2 = relink_program(keep)
    if [_ptx_tokens(t) for t in embedded_ptx(exe_p2)] != [_ptx_tokens(p2)]:
        raise RuntimeError(f"{exe_p2.name}: the relinked program does not embed P' alone")
    return exe_p, exe_p2


def roundtrip_example(src: Path, work: Path) -> dict:
    """Step 4 for one example: its program from P and from P' under pyshim on the CPU
    device. Returns the two runs' outputs and the programs' paths."""
    return roundtrip_runs(*build_roundtrip(src, work))


def roundtrip_runs(exe_p: Path, exe_p2: Path) -> dict:
    """The programs from P and from P' under pyshim on the CPU device, and how they differ."""
    run_p, run_p2 = pyshim_run([str(exe_p)]), pyshim_run([str(exe_p2)])
    return {"exe_p": exe_p, "exe_p2": exe_p2, "rc_p": run_p.returncode,
            "rc_p2": run_p2.returncode, "out_p": run_p.stdout, "out_p2": run_p2.stdout,
            "err_p2": run_p2.stderr, "differences": _differences(run_p.stdout, run_p2.stdout)}


# ---- the driver check: cuModuleLoadData + cuLaunchKernel through ctypes --------------------
# kernels with fixed inputs whose results are exact on any IEEE device: no .approx math
DRIVER_KERNELS = r"""
extern "C" __global__ void dk_math(const float *x, float *y, int *iy, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float v = x[i];
    y[i] = fmaf(v, v, -1.0f) / (v + 3.5f) + sqrtf(fabsf(v)) - fminf(v, 0.25f);
    iy[i] = __float2int_rn(v * 7.5f) + (int)(v * 3.0f) + __popc(i) * 1000;
}
extern "C" __global__ void dk_warp(const int *in, int *out) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    int v = in[t];
    unsigned b = __ballot_sync(0xffffffffu, v & 1);
    int s = v;
    for (int o = 16; o; o >>= 1) s += __shfl_xor_sync(0xffffffffu, s, o);
    // lanes 2..7 read lanes 8..13, outside the shuffle: NVIDIA's GPUs give 0
    int part = -1;
    if ((threadIdx.x & 31) < 8) part = __shfl_down_sync(0xffu, v, 6);
    out[t] = s ^ (int)b ^ (__shfl_up_sync(0xffffffffu, v, 3) << 8) ^ (part << 3);
}
extern "C" __global__ void dk_hist(const unsigned *in, unsigned *hist, int n) {
    __shared__ unsigned h[16];
    if (threadIdx.x < 16) h[threadIdx.x] = 0;
    __syncthreads();
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        atomicAdd(&h[in[i] % 16], 1u);
    __syncthreads();
    if (threadIdx.x < 16) atomicAdd(&hist[threadIdx.x], h[threadIdx.x]);
}
"""


def _driver_launches() -> list[tuple[str, tuple, tuple, list]]:
    """(kernel, grid, block, arguments): arrays are copied in and read back, ints are int32."""
    rng = np.random.default_rng(2026)
    n = 1000
    x = (rng.standard_normal(n) * 4).astype(np.float32)
    return [
        ("dk_math", (4,), (256,), [x, np.zeros(n, np.float32), np.zeros(n, np.int32), n]),
        ("dk_warp", (2,), (128,), [rng.integers(-5000, 5000, 256).astype(np.int32),
                                   np.zeros(256, np.int32)]),
        ("dk_hist", (3,), (64,), [rng.integers(0, 1 << 30, 3000).astype(np.uint32),
                                  np.zeros(16, np.uint32), 3000]),
    ]


def driver_run(ptx: str) -> dict[str, list[str]]:
    """Loads `ptx` with whatever libcuda.so.1 this process finds (NVIDIA's, or pyshim's under
    `pyshim run`), runs _driver_launches() and returns every array afterwards, as hex."""
    cu = ctypes.CDLL("libcuda.so.1")
    ptr = ctypes.c_void_p

    def check(rc: int, what: str) -> None:
        if rc != 0:
            name = ctypes.c_char_p()
            cu.cuGetErrorName(rc, ctypes.byref(name))
            raise RuntimeError(f"{what} failed: {(name.value or b'?').decode()} ({rc})")

    check(cu.cuInit(0), "cuInit")
    dev, ctx, mod = ctypes.c_int(), ptr(), ptr()
    check(cu.cuDeviceGet(ctypes.byref(dev), 0), "cuDeviceGet")
    check(cu.cuDevicePrimaryCtxRetain(ctypes.byref(ctx), dev), "cuDevicePrimaryCtxRetain")
    check(cu.cuCtxSetCurrent(ctx), "cuCtxSetCurrent")
    check(cu.cuModuleLoadData(ctypes.byref(mod), ptx.encode() + b"\0"), "cuModuleLoadData")
    results: dict[str, list[str]] = {}
    for name, grid, block, args in _driver_launches():
        fn = ptr()
        check(cu.cuModuleGetFunction(ctypes.byref(fn), mod, name.encode()),
              f"cuModuleGetFunction({name})")
        values, dptrs = [], []
        for a in args:
            if isinstance(a, np.ndarray):
                d = ctypes.c_uint64()
                check(cu.cuMemAlloc_v2(ctypes.byref(d), ctypes.c_size_t(a.nbytes)), "cuMemAlloc")
                check(cu.cuMemcpyHtoD_v2(d, a.ctypes.data_as(ptr), ctypes.c_size_t(a.nbytes)),
                      "cuMemcpyHtoD")
                dptrs.append((d, a))
                values.append(d)
            else:
                values.append(ctypes.c_int32(a))
        params = (ptr * len(values))(*[ctypes.cast(ctypes.byref(v), ptr) for v in values])
        check(cu.cuLaunchKernel(fn, *map(ctypes.c_uint, grid + (1,) * (3 - len(grid))),
                                *map(ctypes.c_uint, block + (1,) * (3 - len(block))),
                                ctypes.c_uint(0), ptr(), params, ptr()), f"launch of {name}")
        check(cu.cuCtxSynchronize(), f"cuCtxSynchronize after {name}")
        out = []
        for d, a in dptrs:
            host = np.empty_like(a)
            check(cu.cuMemcpyDtoH_v2(host.ctypes.data_as(ptr), d, ctypes.c_size_t(a.nbytes)),
                  "cuMemcpyDtoH")
            check(cu.cuMemFree_v2(d), "cuMemFree")
            out.append(host.tobytes().hex())
        results[name] = out
    check(cu.cuModuleUnload(mod), "cuModuleUnload")
    return results


def prepare_driver(work: Path) -> dict:
    """The driver check's inputs: DRIVER_KERNELS as P (nvcc -ptx) and as P' (cuda target,
    NVRTC), written to `work`. Returns {label: PTX path} or {"why": ...}."""
    src = work / "driver_kernels.cu"
    src.write_text(DRIVER_KERNELS)
    ptx_p = work / "driver_kernels.ptx"
    proc = _run(["nvcc", "-ptx", f"-arch={PTX_ARCH}", "-o", str(ptx_p), str(src)])
    if proc.returncode != 0:
        return {"why": "nvcc -ptx failed: " + proc.stderr[-400:]}
    ptx_p2 = work / "driver_kernels.rt.ptx"
    ptx_p2.write_text(cuda_target_ptx(ptx_p.read_text(), name="driver_kernels.cu"))
    return {"P": ptx_p, "P'": ptx_p2}


def driver_child(ptx: Path, under_pyshim: bool) -> dict:
    """One driver run in a child process: {"rc", "stdout", "stderr"}."""
    cmd = [sys.executable, "-m", "pyshim.differential", "--driver-run", str(ptx)]
    proc = pyshim_run(cmd) if under_pyshim else _run(cmd)
    return {"rc": proc.returncode, "stdout": proc.stdout, "stderr": proc.stderr[-600:]}


def judge_driver(ptxs: dict, native: dict | None) -> dict:
    """P and P' under pyshim's libcuda, and NVIDIA's runs of both when `native` holds them
    ({"P": run, "P'": run} as driver_child returns): every array must be the same bytes."""
    if "why" in ptxs:
        return {"ok": False, "why": ptxs["why"]}
    runs = {f"cpu {k}": driver_child(v, True) for k, v in ptxs.items()}
    runs.update({f"gpu {k}": v for k, v in (native or {}).items()})
    outs: dict[str, dict] = {}
    for label, run in runs.items():
        if run["rc"] != 0:
            return {"ok": False, "why": f"{label}: {run['stderr']}"}
        outs[label] = json.loads(run["stdout"])
    ref = outs["cpu P"]
    diverging = [f"{label}: {k}" for label, r in outs.items() for k in ref if r.get(k) != ref[k]]
    return {"ok": not diverging, "runs": list(outs), "kernels": list(ref),
            "differences": diverging}


def driver_check(work: Path, gpu: bool) -> dict:
    """DRIVER_KERNELS from P and from P', on the CPU device (and natively with a GPU)."""
    ptxs = prepare_driver(work)
    native = {k: driver_child(v, False) for k, v in ptxs.items()} \
        if gpu and "why" not in ptxs else None
    return judge_driver(ptxs, native)


# ---- per example ---------------------------------------------------------------------------
def kernel_examples() -> list[str]:
    """The examples that define a kernel (the others have nothing to translate)."""
    return sorted(p.stem for p in EXAMPLES.glob("*.cu") if "__global__" in p.read_text())


def prepare_example(src: Path, work: Path, arch: str | None) -> dict:
    """Everything of one example that needs no GPU and no pyshim run: its program (with
    native code for `arch` when given, and compute_75 PTX), the cuda target's compile
    (step 3) and the round trip's two programs. Paths are relative to `work`'s parent, so
    a prepared folder can travel to a GPU machine and back."""
    name = src.stem
    base = work.parent
    entry: dict = {"example": name}
    exe = work / name
    build = ["nvcc", "-O2", "-o", str(exe), str(src)]
    if arch:
        # native code for this GPU plus compute_75 PTX for pyshim to translate
        build[1:1] = [f"-gencode=arch=compute_{arch[3:]},code={arch}",
                      f"-gencode=arch={PTX_ARCH},code={PTX_ARCH}"]
    proc = _run(build)
    if proc.returncode != 0:
        return {**entry, "why": "build failed: " + proc.stderr[-400:]}
    entry["exe"] = str(exe.relative_to(base))
    ptx = work / f"{name}.ptx"
    proc = _run(["nvcc", "-ptx", f"-arch={PTX_ARCH}", "-o", str(ptx), str(src)])
    entry["cuda_target"] = compile_cuda_target(ptx.read_text(), work, name, arch) \
        if proc.returncode == 0 else "nvcc -ptx failed: " + proc.stderr[-400:]
    if nvrtc.available():
        try:
            exe_p, exe_p2 = build_roundtrip(src, work)
        except Exception as exc:  # noqa: BLE001 - reported per example
            entry["roundtrip"] = f"failed: {str(exc)[-600:]}"
        else:
            # nvcc's intermediate files are large and no longer needed: the folder travels
            exe_p2 = exe_p2.replace(work / f"{name}.P2")
            shutil.rmtree(work / f"{name}.keep")
            entry["exe_p"], entry["exe_p2"] = (str(e.relative_to(base)) for e in (exe_p, exe_p2))
    else:
        entry["roundtrip"] = "skipped: NVRTC not found (pip install nvidia-cuda-nvrtc)"
    return entry


def native_runs(entry: dict, base: Path) -> dict:
    """NVIDIA's runs of a prepared example: the program, and the program around P' (the
    driver JIT-compiles P' from its fat binary). {"exe"/"exe_p2": {"rc", "stdout"}}."""
    runs = {}
    for key in ("exe", "exe_p2"):
        if key in entry:
            proc = _run([str(base / entry[key])])
            runs[key] = {"rc": proc.returncode, "stdout": proc.stdout}
    return runs


def judge_example(entry: dict, base: Path, native: dict | None) -> dict:
    """Runs a prepared example under pyshim and compares: with itself around P', and with
    NVIDIA's runs when `native` holds them (native_runs' result, here or from a GPU machine)."""
    name = entry["example"]
    result: dict = {"example": name}
    if "why" in entry:
        return {**result, "ok": False, "why": entry["why"]}
    shim = pyshim_run([str(base / entry["exe"])])
    result["pyshim_rc"] = shim.returncode
    result["pyshim_pass"] = f"PASS {name}" in shim.stdout
    gpu = native.get("exe") if native else None
    if gpu is not None:
        result["native_rc"] = gpu["rc"]
        diff = _differences(gpu["stdout"], shim.stdout)
        result["differences"] = diff
        result["same_output"] = not diff
    result["cuda_target"] = entry["cuda_target"]
    if "exe_p2" in entry:
        rt = roundtrip_runs(base / entry["exe_p"], base / entry["exe_p2"])
        same = rt["rc_p"] == rt["rc_p2"] and not rt["differences"] \
            and f"PASS {name}" in rt["out_p2"]
        result["roundtrip"] = "same" if same else \
            {"rc": [rt["rc_p"], rt["rc_p2"]], "differences": rt["differences"],
             "stderr": rt["err_p2"][-400:]}
        if gpu is not None and "exe_p2" in native:
            gpu_p2 = native["exe_p2"]
            gdiff = _differences(gpu["stdout"], gpu_p2["stdout"])
            result["native_roundtrip"] = "same" if gpu_p2["rc"] == gpu["rc"] and not gdiff \
                else {"rc": gpu_p2["rc"], "differences": gdiff}
    else:
        result["roundtrip"] = entry["roundtrip"]
    ok = result["pyshim_rc"] == 0 and result["pyshim_pass"] \
        and result["cuda_target"].startswith("compiles")
    rt = result["roundtrip"]
    ok = ok and isinstance(rt, str) and (rt == "same" or rt.startswith("skipped"))
    if gpu is not None:
        ok = ok and result["native_rc"] == 0 and result["same_output"] \
            and result.get("native_roundtrip", "same") == "same"
    result["ok"] = ok
    return result


def check_example(src: Path, work: Path, arch: str | None) -> dict:
    """All four steps for one example on this machine (natively only when `arch`)."""
    entry = prepare_example(src, work, arch)
    native = native_runs(entry, work.parent) if arch else None
    return judge_example(entry, work.parent, native)


# ---- a prepared folder, for a GPU machine without pyshim's toolchain ------------------------
MANIFEST = "manifest.json"


def prepare(folder: Path, names: list[str], arch: str) -> dict:
    """Builds every example and the driver check's PTX into `folder` (--prepare)."""
    folder.mkdir(parents=True, exist_ok=True)
    manifest: dict = {"arch": arch, "examples": []}
    for name in names:
        work = folder / name
        work.mkdir(exist_ok=True)
        print(f"differential: preparing {name}", file=sys.stderr)
        manifest["examples"].append(prepare_example(EXAMPLES / f"{name}.cu", work, arch))
    if nvrtc.available():
        (folder / "driver").mkdir(exist_ok=True)
        ptxs = prepare_driver(folder / "driver")
        manifest["driver"] = ptxs if "why" in ptxs else \
            {k: str(v.relative_to(folder)) for k, v in ptxs.items()}
    (folder / MANIFEST).write_text(json.dumps(manifest, indent=2))
    return manifest


def run_prepared_natively(folder: Path) -> dict:
    """On the GPU machine (--native): every prepared program and driver run, natively.
    Needs only Python, numpy and NVIDIA's driver."""
    manifest = json.loads((folder / MANIFEST).read_text())
    out: dict = {"gpu": gpu_arch(), "examples": {}}
    for entry in manifest["examples"]:
        out["examples"][entry["example"]] = native_runs(entry, folder)
    drv = manifest.get("driver")
    if drv and "why" not in drv:
        out["driver"] = {k: driver_child(folder / v, False) for k, v in drv.items()}
    return out


def judge_prepared(folder: Path, native: dict | None) -> tuple[list[dict], dict | None]:
    """Here again (--judge): the pyshim side of a prepared folder against NVIDIA's runs."""
    manifest = json.loads((folder / MANIFEST).read_text())
    results = [judge_example(e, folder, (native or {}).get("examples", {}).get(e["example"]))
               for e in manifest["examples"]]
    drv = manifest.get("driver")
    driver = None
    if drv is not None:
        ptxs = drv if "why" in drv else {k: folder / v for k, v in drv.items()}
        driver = judge_driver(ptxs, (native or {}).get("driver"))
    return results, driver


def report(results: list[dict], driver: dict | None, arch: str | None, as_json: bool) -> int:
    if as_json:
        print(json.dumps({"gpu": arch, "nvrtc": nvrtc.available(), "results": results,
                          "driver": driver}, indent=2, default=str))
    else:
        for r in results:
            mark = "ok  " if r["ok"] else "FAIL"
            extra = "" if r["ok"] else "  " + str(r.get("why") or r.get("differences")
                                                  or r.get("roundtrip") or r.get("cuda_target"))
            print(f"{mark} {r['example']}{extra}")
        if driver is not None:
            print(("ok   driver check: " + ", ".join(driver["runs"]) + " agree on "
                   + ", ".join(driver["kernels"])) if driver["ok"]
                  else f"FAIL driver check: {driver.get('why') or driver['differences']}")
        print(f"{sum(r['ok'] for r in results)} of {len(results)} agree"
              + (f" (natively on {arch} too)" if arch else
                 " (no GPU: pyshim side, cuda-target compile and round trip)"))
    ok = all(r["ok"] for r in results) and (driver is None or driver["ok"])
    return 0 if ok else 1


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python3 -m pyshim.differential", description=__doc__.split("\n\n")[0],
        epilog="On a GPU machine that lacks pyshim's toolchain, split the work: here "
        "--prepare DIR --arch sm_90; there --native DIR > native.json (Python, numpy and "
        "NVIDIA's driver only); here again --judge DIR native.json.")
    parser.add_argument("--json", action="store_true", help="print the results as JSON")
    parser.add_argument("--no-driver", action="store_true",
                        help="skip the driver check (cuModuleLoadData of P and P')")
    parser.add_argument("--prepare", metavar="DIR", type=Path,
                        help="only build the programs and PTX into DIR, for --native")
    parser.add_argument("--arch", help="with --prepare: the GPU to build native code for "
                        "(sm_90 for an H100/H200)")
    parser.add_argument("--native", metavar="DIR", type=Path,
                        help="run a prepared DIR natively and print NVIDIA's outputs as JSON")
    parser.add_argument("--judge", nargs=2, metavar=("DIR", "NATIVE_JSON"), type=Path,
                        help="run a prepared DIR under pyshim against --native's outputs")
    parser.add_argument("--driver-run", metavar="PTX", help=argparse.SUPPRESS)
    parser.add_argument("examples", nargs="*", help="example names (default: every "
                        "examples/*.cu with a kernel)")
    args = parser.parse_args(argv)
    if args.driver_run:  # the child of driver_check, under pyshim or NVIDIA's libcuda
        print(json.dumps(driver_run(Path(args.driver_run).read_text())))
        return 0
    folder = args.native or (args.judge[0] if args.judge else None)
    if folder is not None and not (folder / MANIFEST).is_file():
        print(f"differential: {folder} is not a prepared folder (no {MANIFEST}; "
              "make one with --prepare)", file=sys.stderr)
        return 2
    if args.native:
        print(json.dumps(run_prepared_natively(args.native), indent=1))
        return 0
    if args.judge:
        try:
            native = json.loads(args.judge[1].read_text())
        except (OSError, ValueError) as exc:
            print(f"differential: cannot read the native runs {args.judge[1]}: {exc}",
                  file=sys.stderr)
            return 2
        results, driver = judge_prepared(args.judge[0], native)
        return report(results, driver, native.get("gpu"), args.json)
    if shutil.which("nvcc") is None:
        print("differential: nvcc is not on PATH", file=sys.stderr)
        return 2
    names = args.examples or kernel_examples()
    if args.prepare:
        if not args.arch:
            parser.error("--prepare needs --arch (the GPU's sm_XY)")
        manifest = prepare(args.prepare, names, args.arch)
        failed = [e["example"] for e in manifest["examples"] if "why" in e]
        print(f"differential: prepared {len(names) - len(failed)} of {len(names)} examples "
              f"in {args.prepare}" + (f"; failed: {', '.join(failed)}" if failed else ""))
        return 1 if failed else 0
    arch = gpu_arch()
    if arch is None:
        print("differential: no NVIDIA GPU: checking the pyshim side, the cuda target's "
              "compile and the P -> P' round trip on the CPU device", file=sys.stderr)
    if not nvrtc.available():
        print("differential: NVRTC not found: the cuda target is compiled by nvcc and the "
              "round trip is skipped (pip install nvidia-cuda-nvrtc)", file=sys.stderr)
    results = []
    driver = None
    with tempfile.TemporaryDirectory(prefix="pyshim-diff-") as tmp:
        for name in names:
            work = Path(tmp) / name
            work.mkdir()
            results.append(check_example(EXAMPLES / f"{name}.cu", work, arch))
        if nvrtc.available() and not args.no_driver:
            work = Path(tmp) / "driver"
            work.mkdir()
            try:
                driver = driver_check(work, arch is not None)
            except Exception as exc:  # noqa: BLE001 - reported, not raised
                driver = {"ok": False, "why": str(exc)[-600:]}
    return report(results, driver, arch, args.json)

