"""All-reduce bus bandwidth across processes on the CPU device: NCCL (pyshim's libnccl.so.2
over the CPU device's RCCL, which runs gloo underneath) against gloo's own allreduce called
directly, the goal being >= 0.8x gloo's.

    python3 benchmarks/nccl_gloo.py [--quick] [--procs N]

One nvcc-built program, benchmarks/c/nccl_allreduce_bench.cu, started once per process
under `pyshim run` (one CPU device each), times both: blocks of NCCL calls alternating with
blocks of direct gloo calls in the same processes, so the shared machine's load falls on
both alike. Float sum, out of place, per size the median block; the median of `rounds` runs
is reported. Bus bandwidth is nccl-tests': bytes / time * 2 (n - 1) / n. Prints a JSON
list of items.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from pyshim.paths import build_dir  # noqa: E402

HERE = Path(__file__).resolve().parent / "c"
SIZES = (4 << 10, 64 << 10, 1 << 20, 16 << 20)
GOAL = 0.8


def build(tmp: Path) -> Path:
    from pyshim.builders.components import build_all
    from pyshim.tables.fetch import include_dir

    build_all(components=("cpu", "libcuda", "cudart", "jit", "nccl"))
    root = build_dir()
    exe = tmp / "nccl_bench"
    subprocess.run(["nvcc", "-O2", "-std=c++17", "-o", str(exe),
                    str(HERE / "nccl_allreduce_bench.cu"), f"-I{include_dir('nccl2')}",
                    f"-L{root / 'lib'}", "-l:libnccl.so.2", "-lgloo", "-Xlinker",
                    f"-rpath-link={root / 'cpu'}"], check=True, capture_output=True)
    return exe


def run(cmd_of: list[list[str]], env: dict[str, str]) -> dict[int, tuple[float, float]]:
    procs = [subprocess.Popen(c, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                              env=env) for c in cmd_of]
    outs = [p.communicate(timeout=600) for p in procs]
    for p, (out, err) in zip(procs, outs, strict=True):
        if p.returncode != 0:
            raise RuntimeError(f"{p.args[0]} failed ({p.returncode}): {out[-2000:]}{err[-2000:]}")
    rows = [dict(f.split("=") for f in ln.split()) for ln in outs[0][0].splitlines()
            if ln.startswith("bytes=")]
    return {int(r["bytes"]): (float(r["nccl_us"]), float(r["gloo_us"])) for r in rows}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--procs", type=int, default=2)
    args = ap.parse_args(argv)
    n = args.procs
    iters, blocks, rounds = (20, 3, 1) if args.quick else (50, 7, 3)
    sizes = [str(s) for s in SIZES]
    nccl_us: dict[int, list[float]] = {s: [] for s in SIZES}
    gloo_us: dict[int, list[float]] = {s: [] for s in SIZES}
    with tempfile.TemporaryDirectory(prefix="pyshim-nccl-gloo-", dir="/tmp") as tmp_s:
        tmp = Path(tmp_s)
        exe = build(tmp)
        env = dict(os.environ, PYTHONPATH=str(REPO), PYSHIM_CPU_DEVICES="1",
                   PYSHIM_NCCL_STORE_DIR=str(tmp))
        for r in range(rounds):
            store = tmp / f"store{r}"
            store.mkdir()
            got = run([[sys.executable, "-m", "pyshim", "run", str(exe), str(p), str(n),
                        str(tmp / f"id{r}"), str(store), str(iters), str(blocks), *sizes]
                       for p in range(n)], env)
            for s in SIZES:
                nccl_us[s].append(got[s][0])
                gloo_us[s].append(got[s][1])
    items = []
    factor = 2 * (n - 1) / n
    for s in SIZES:
        t_nccl, t_gloo = statistics.median(nccl_us[s]), statistics.median(gloo_us[s])
        bw_nccl, bw_gloo = s / t_nccl / 1e3 * factor, s / t_gloo / 1e3 * factor
        ratio = bw_nccl / bw_gloo
        items.append({"name": f"ncclAllReduce float sum, {n} processes, {s >> 10} KiB",
                      "value": bw_nccl, "unit": "GB/s busbw", "baseline": bw_gloo,
                      "ratio": ratio, "baseline_name": "gloo::allreduce direct",
                      "budget": f">= {GOAL:g}x gloo", "ok": ratio >= GOAL, "verified": False,
                      "repeats": rounds,
                      "note": f"{t_nccl:.1f} us vs {t_gloo:.1f} us per call; median of {rounds} "
                              f"rounds of {blocks} blocks of {iters} calls"})
    json.dump(items, sys.stdout, indent=1)
    print()
    return 0


if __name__ == "__main__":
    sys.exit(main())
