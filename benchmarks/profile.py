"""Where the CPU device loses on one benchmark kernel:

    python3 -m benchmarks.profile KERNEL [--cflags="-O3 -mfma"] [--runs N] [--perf]

Prints how the translator runs the kernel on the CPU (loop / phase / fiber), the median
time of the CPU-device run beside the plain C loop, and the same translated module built
with extra compiler flags (a timing split: what the flags would buy). With --perf (Linux
perf installed and allowed), the CPU-device runs are recorded and the hottest symbols and
instructions printed. KERNEL is one of saxpy, reduce, sgemm, histogram, stencil, scan."""

from __future__ import annotations

import argparse
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np

from benchmarks import build, cases
from benchmarks.config import apply_threads, usable_cores
from benchmarks.items import BenchError, interleaved

NAMES = cases.NAMES
_SYMBOL = re.compile(r"\[\.\] (\S+)")


def _module(cflags: tuple[str, ...]) -> Path:
    """The kernels module as load_module builds it, or translated and compiled with extra
    flags into build/bench/ (not the kernel cache: these are experiments)."""
    from pyshim.kernels.compile import compile_cpu
    from pyshim.kernels.loader import load_module
    from pyshim.ptx.translate import translate

    ptx = build.kernels_ptx().read_text()
    if not cflags:
        return load_module(ptx.encode(), "cpu-wave64").path
    out = build.out_dir() / f"kernels-{'_'.join(f.strip('-') for f in cflags)}.so"
    out.write_bytes(compile_cpu(translate(ptx, "cpu-wave64"), extra_flags=cflags))
    return out


def measure(name: str, cflags: tuple[str, ...], runs: int, quick: bool,
            device_only: bool = False) -> dict[str, float]:
    from benchmarks.context import Context
    from benchmarks.kernels_suite import check
    from benchmarks.variants import DeviceVariant, LoopVariant

    ctx = Context(quick=quick, repeats=runs, threads=usable_cores())
    case = cases.one_case(name, quick)
    variants = {"CPU device": DeviceVariant(ctx.device, _module(()))}
    if cflags:
        variants[f"CPU device {' '.join(cflags)}"] = DeviceVariant(ctx.device, _module(cflags))
    if not device_only:
        variants["C loop"] = LoopVariant(build.loops_so(), ctx.threads)
    prepared = {}
    for label, v in variants.items():
        prepared[label] = p = v.prepare(case)
        p.run()
        check(case, label, p.results())
    t = interleaved({k: p.run for k, p in prepared.items()}, runs)
    for p in prepared.values():
        p.close()
    return {k: v * 1e3 for k, v in t.items()}


def perf_report(data: Path, top: int = 12) -> str:
    rep = subprocess.run(["perf", "report", "-i", str(data), "--no-children", "--stdio",
                          "--sort", "dso,symbol"], capture_output=True, text=True)
    rows = [re.sub(r"\s+-\s+-\s*$", "", ln) for ln in rep.stdout.splitlines()
            if "%" in ln and not ln.startswith("#")]
    out = ["hottest symbols (CPU-device runs only):", *rows[:top]]
    symbols = [m.group(1) for ln in rows if (m := _SYMBOL.search(ln))]
    hot = next((s for s in symbols if "run_block" in s or "_body" in s), None)
    if hot:
        ann = subprocess.run(["perf", "annotate", "-i", str(data), "--stdio", hot],
                             capture_output=True, text=True)
        lines = [ln for ln in ann.stdout.splitlines()
                 if ln.strip()[:1].isdigit() and float(ln.split()[0]) >= 2.0]
        out += [f"instructions of {hot} with >= 2% of its samples:", *lines[:20]]
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python3 -m benchmarks.profile", description=__doc__)
    p.add_argument("kernel", choices=NAMES)
    p.add_argument("--cflags", default="", help="extra flags for a second build of the module")
    p.add_argument("--runs", type=int, default=5)
    p.add_argument("--quick", action="store_true", help="the quick (tiny) size")
    p.add_argument("--perf", action="store_true", help="record the CPU-device runs with perf")
    p.add_argument("--device-only", action="store_true", help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    apply_threads(usable_cores())
    cflags = tuple(shlex.split(args.cflags))
    try:
        from benchmarks.kernels_suite import kernel_modes

        mode = kernel_modes(build.kernels_ptx().read_text()).get(args.kernel, "?")
        if args.perf and not args.device_only:
            if shutil.which("perf") is None:
                raise BenchError("perf is not installed (apt-get install linux-perf)")
            data = build.out_dir() / f"perf-{args.kernel}.data"
            cmd = ["perf", "record", "-q", "-o", str(data), "--", sys.executable, "-m",
                   "benchmarks.profile", args.kernel, "--device-only", "--runs", str(args.runs),
                   *(["--quick"] if args.quick else [])]
            res = subprocess.run(cmd, capture_output=True, text=True)
            if res.returncode != 0:
                raise BenchError(f"perf record failed: {res.stderr.strip()[-2000:]}")
            print(res.stdout, end="")
            print(perf_report(data))
            return 0
        times = measure(args.kernel, cflags, args.runs, args.quick, args.device_only)
    except BenchError as exc:
        print(f"benchmarks.profile: {exc}", file=sys.stderr)
        return 1
    case = cases.one_case(args.kernel, args.quick)
    from pyshim.kernels.compile import cpu_compiler

    print(f"{args.kernel}: {case.what}; runs as '{mode}' on the CPU device; "
          f"{usable_cores()} threads; median of {args.runs}; kernels compiled by "
          f"{' '.join(cpu_compiler())}, C loops by {' '.join(build.loops_compiler())}")
    for label, ms in times.items():
        print(f"  {label:40s} {ms:9.2f} ms")
    return 0


if __name__ == "__main__":
    np.seterr(all="ignore")
    sys.exit(main())
