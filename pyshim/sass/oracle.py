"""The SASS front end's oracle: the same CUDA source built PTX-only and SASS-only must give
the same output under pyshim on the CPU device, in both wave modes.

    python3 -m pyshim.sass.oracle --arch 80 examples/*.cu tests/runtime/*.cu

For each program: nvcc -O2 -gencode arch=compute_XX,code=compute_XX (PTX only) and
code=sm_XX (SASS only); each runs under `pyshim run` with PYSHIM_CPU_WAVE=32 and 64. A
program whose PTX build fails to build or to run (exit status != 0) is not counted: the
oracle judges the lifter, not the rest of pyshim. Figures that differ by design between the
forms (DIFFERS: register counts) are masked in both. Prints one line per program and a summary;
--json writes the rows.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import json
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

from pyshim.paths import REPO_DIR

# what a test program needs to build (by file name), as its own test builds it; "-lcuda"
# links against pyshim's libcuda (NVIDIA's is not on this machine)
LIBS = {"prog_cublas.cu": ["-lcublas"], "prog_cusolver.cu": ["-lcusolver", "-lcublas"],
        "rt_library.cu": ["-lcuda"], "rt_with_driver.cu": ["-cudart", "shared", "-lcuda"],
        "drv_vmm.cu": ["-lcuda"], "drv_misuse.cu": ["-lcuda"], "rt_identity.cu": ["-lcuda"],
        "rt_kernel_attrs.cu": ["-lcuda"], "rt_api.cu": ["-cudart", "shared"],
        "rt_kernels.cu": ["-cudart", "shared"], "rt_sticky.cu": ["-cudart", "shared"]}
# command lines; {module}: a module file the program loads with cuModuleLoadData (PTX for
# the PTX form, a cubin for the SASS form: the loader lifts it)
ARGS = {"rt_with_driver.cu": ["{module}"], "drv_vmm.cu": ["{module}"],
        "drv_misuse.cu": ["{module}"], "sample_idioms.cu": ["clock"]}
MODULE_SOURCE = REPO_DIR / "tests" / "runtime" / "scale.cu"
# figures that legitimately differ between the two forms, by program: a kernel's register
# count (cudaFuncGetAttributes().numRegs) is ptxas's count from the cubin in the SASS form,
# as NVIDIA's driver reports it, but in the PTX form pyshim has no cubin and counts the
# registers of its own translation. Both outputs get the figure replaced by "<regs>";
# tests/test_sass_lift.py checks the SASS form's figure against the cubin.
DIFFERS = {"rt_kernels.cu": re.compile(r"(?<=numRegs )\d+")}


def _flags(src: Path) -> list[str]:
    from pyshim.paths import build_dir

    out = []
    for f in LIBS.get(src.name, []):
        if f == "-lcuda":
            out += [f"-L{build_dir() / 'lib'}", "-lcuda"]
        else:
            out.append(f)
    return out


def module_file(arch: int, form: str, work: Path) -> Path:
    out = work / (f"scale.{arch}.ptx" if form == "ptx" else f"scale.sm_{arch}.cubin")
    if not out.exists():
        kind = "-ptx" if form == "ptx" else "-cubin"
        subprocess.run(["nvcc", kind, f"-arch=sm_{arch}", "-o", str(out), str(MODULE_SOURCE)],
                       check=True, capture_output=True, timeout=600)
    return out


def build(src: Path, arch: int, form: str, out: Path) -> str | None:
    code = f"compute_{arch}" if form == "ptx" else f"sm_{arch}"
    cmd = ["nvcc", "-O2", "-gencode", f"arch=compute_{arch},code={code}", "-o", str(out),
           str(src), *_flags(src)]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    return None if proc.returncode == 0 else (proc.stderr.strip().splitlines() or ["?"])[-1]


_TIMES = re.compile(r"\d+(?:\.\d+)?\s*(?:ms|us|µs|ns|s)\b")


def _steady(out: str) -> str:
    """stdout without the figures that differ from run to run (elapsed times)."""
    return _TIMES.sub("<time>", out)


def _comparable(src: Path, out: str) -> str:
    """stdout with the figures DIFFERS names for this program masked."""
    pattern = DIFFERS.get(src.name)
    return pattern.sub("<regs>", out) if pattern else out


def run(exe: Path, wave: int, timeout: int, args: list[str] = ()) -> tuple[int, str, str]:
    env = dict(os.environ, PYSHIM_CPU_WAVE=str(wave))
    env.setdefault("PYTHONPATH", str(REPO_DIR))
    try:
        proc = subprocess.run([sys.executable, "-m", "pyshim", "run", str(exe), *args],
                              capture_output=True, text=True, timeout=timeout, env=env,
                              cwd=exe.parent)
    except subprocess.TimeoutExpired:
        return 124, "", "timeout"
    return proc.returncode, _steady(proc.stdout), proc.stderr


def judge(src: Path, arch: int, work: Path, timeout: int) -> dict:
    row: dict = {"program": str(src.relative_to(REPO_DIR) if src.is_relative_to(REPO_DIR)
                                else src), "arch": arch}
    exes = {}
    for form in ("ptx", "sass"):
        exe = work / f"{src.stem}.{form}{arch}"
        err = build(src, arch, form, exe)
        if err:
            row.update(result="skip" if form == "ptx" else "fail",
                       reason=f"{form} build: {err}")
            return row
        exes[form] = exe
    argv = {}
    for form in ("ptx", "sass"):
        argv[form] = [str(module_file(arch, form, work)) if a == "{module}" else a
                      for a in ARGS.get(src.name, [])]
    for wave in (32, 64):
        ptx = run(exes["ptx"], wave, timeout, argv["ptx"])
        ptx = (ptx[0], _comparable(src, ptx[1]), ptx[2])
        if ptx[0] != 0:
            row.update(result="skip", reason=f"PTX build fails under pyshim (wave {wave}, "
                                             f"exit {ptx[0]})")
            return row
        sass = run(exes["sass"], wave, timeout, argv["sass"])
        sass = (sass[0], _comparable(src, sass[1]), sass[2])
        if sass[0] == ptx[0] and sass[1] != ptx[1]:
            # lines that differ between two runs of the PTX build (clock readings) are
            # not the lifter's to match
            again = run(exes["ptx"], wave, timeout, argv["ptx"])
            a, b, c = (x.splitlines() for x in (ptx[1], again[1], sass[1]))
            if len(a) == len(b) == len(c) and all(x == z or x != y
                                                  for x, y, z in zip(a, b, c, strict=True)):
                continue
        if sass[:2] != ptx[:2]:
            tail = [ln for ln in sass[2].splitlines() if "pyshim" in ln or "FAIL" in ln]
            row.update(result="fail", reason=f"wave {wave}: exit {sass[0]} vs {ptx[0]}"
                       + (f"; {tail[-1][:300]}" if tail else "")
                       + ("" if sass[1] == ptx[1] else "; stdout differs"))
            return row
    row["result"] = "pass"
    return row


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("programs", nargs="+", type=Path)
    ap.add_argument("--arch", type=int, action="append", default=None)
    ap.add_argument("--timeout", type=int, default=180)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--json", type=Path)
    args = ap.parse_args(argv)
    archs = args.arch or [80]
    rows = []
    with tempfile.TemporaryDirectory(prefix="pyshim-oracle-") as tmp:
        work = Path(tmp)
        jobs = [(p.resolve(), a) for a in archs for p in args.programs]
        with concurrent.futures.ThreadPoolExecutor(args.jobs) as ex:
            futs = [ex.submit(judge, p, a, work, args.timeout) for p, a in jobs]
            for f in futs:
                row = f.result()
                rows.append(row)
                print(f"{row['result']:4}  sm_{row['arch']}  {row['program']}"
                      + (f"  ({row['reason']})" if row.get("reason") else ""), flush=True)
    for a in archs:
        mine = [r for r in rows if r["arch"] == a]
        counted = [r for r in mine if r["result"] != "skip"]
        passed = [r for r in counted if r["result"] == "pass"]
        share = 100.0 * len(passed) / len(counted) if counted else 0.0
        print(f"sm_{a}: {len(passed)} of {len(counted)} programs that pass through PTX also "
              f"pass SASS-only ({share:.1f}%); {len(mine) - len(counted)} not counted")
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1))
    return 0 if all(r["result"] != "fail" for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
