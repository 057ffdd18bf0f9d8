"""Run a real client's own tests under `pyshim run` and report pass counts and failure
categories (one pytest process per test module).

  python3 tests/real_clients/run.py numba [--subset ci] [--only cudapy/test_sync,...]
  python3 tests/real_clients/run.py cupy [--sample 10]    (10 fixed tests of each module)
  python3 tests/real_clients/run.py cuda-bindings --tests PATH/test_cuda.py
  python3 tests/real_clients/run.py cuda-usage            (our own cuda-python/CuPy usage)

Environment: PYSHIM_CLIENTS_VENV=an existing venv with the clients (else one is built and
cached under ~/.cache/pyshim/clients); anything else given with --env K=V goes to the client
(e.g. --env PYSHIM_CPU_WAVE=32). Reports go to build/real_clients/<suite>[-<tag>].json.
"""

from __future__ import annotations

import argparse
import re
import shutil
import subprocess
import sys
from collections import Counter
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))  # run as a script: `real_clients` is importable
sys.path.insert(0, str(HERE.parent.parent))  # and this checkout's pyshim

from real_clients import harness  # noqa: E402

from pyshim.paths import build_dir  # noqa: E402

SUITES = ("numba", "cupy", "cuda-bindings", "cuda-usage")


def modules_for(suite: str, python: Path, tests: list[Path]) -> tuple[list[harness.Module], Path]:
    """The suite's modules and the directory pytest runs in."""
    if suite == "numba":
        return harness.numba_modules(python), build_dir() / "real_clients" / "numba-cwd"
    if suite == "cupy":
        root = harness.cupy_tests()
        return harness.cupy_modules(root), root
    if suite == "cuda-bindings":
        if not tests:
            raise SystemExit("cuda-bindings: give its test_cuda.py with --tests (the "
                             "repository NVIDIA/cuda-python, cuda_bindings/tests/)")
        return harness.file_modules(suite, tests), tests[0].resolve().parent
    # not named test_*: this repository's own pytest must not collect them (no cuda-python)
    usage = sorted((HERE / "usage").glob("*_usage.py"))
    return harness.file_modules(suite, usage), HERE / "usage"


def category(message: str) -> str:
    """A failure's message with its particulars (numbers, addresses, quoted names) masked,
    so failures of one cause group together."""
    line = next((ln for ln in message.strip().splitlines() if ln.strip()), "(no message)")
    line = re.sub(r"0x[0-9a-fA-F]+", "0x?", line)
    line = re.sub(r"\d+", "N", line)
    line = re.sub(r"'[^']{20,}'", "'...'", line)
    return line[:160]


def run_suite(suite: str, *, subset: str = "all", only: list[str] | None = None,
              tests: list[Path] | None = None, env: dict[str, str] | None = None,
              tag: str = "", timeout: float = 900, per_test_timeout: int = 300,
              quiet: bool = False, sample: int = 0) -> dict:
    python = harness.ensure_venv()
    mods, cwd = modules_for(suite, python, tests or [])
    if subset == "ci":
        wanted = harness.thresholds()[suite]["modules"]
        mods = [m for m in mods if m.name in wanted]
        missing = set(wanted) - {m.name for m in mods}
        if missing:
            raise SystemExit(f"{suite}: CI modules not found: {sorted(missing)}")
    if only:
        mods = [m for m in mods if m.name in only]
    cwd.mkdir(parents=True, exist_ok=True)
    name = suite + (f"-{tag}" if tag else "")
    out_dir = build_dir() / "real_clients" / name
    shutil.rmtree(out_dir, ignore_errors=True)  # the clients' kernel caches in it too
    results = []
    for i, mod in enumerate(mods):
        r = harness.run_module(mod, python, cwd, out_dir, env or {}, timeout, per_test_timeout,
                               sample)
        results.append(r)
        if not quiet:
            c = Counter(r.outcomes.values())
            print(f"[{i + 1}/{len(mods)}] {mod.name}: {dict(c)} {r.seconds:.0f}s {r.status}",
                  flush=True)
    commit = subprocess.run(["git", "-C", str(HERE), "rev-parse", "--short", "HEAD"],
                            capture_output=True, text=True).stdout.strip()
    meta = {"suite": suite, "subset": subset, "env": env or {}, "commit": commit,
            "sample": sample}
    report = build_dir() / "real_clients" / f"{name}.json"
    summary = harness.write_report(results, report, meta)
    summary["report"] = str(report)
    summary["categories"] = categories(results)
    return summary


def categories(results: list[harness.Result]) -> list[tuple[int, str, str, str]]:
    groups: Counter[str] = Counter()
    example: dict[str, str] = {}
    raw: dict[str, str] = {}
    for r in results:
        for nodeid, outcome in r.outcomes.items():
            if outcome in ("passed", "skipped", "xfailed"):
                continue
            cat = f"[{outcome}] " + category(r.messages.get(nodeid, ""))
            groups[cat] += 1
            example.setdefault(cat, nodeid)
            raw.setdefault(cat, r.messages.get(nodeid, "").strip().split("\n")[0][:300])
    return [(n, cat, example[cat], raw[cat]) for cat, n in groups.most_common()]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("suite", choices=SUITES)
    ap.add_argument("--subset", choices=("all", "ci"), default="all")
    ap.add_argument("--only", default="", help="comma-separated module names")
    ap.add_argument("--tests", type=Path, nargs="*", default=[])
    ap.add_argument("--env", action="append", default=[], metavar="K=V")
    ap.add_argument("--tag", default="")
    ap.add_argument("--timeout", type=float, default=900, help="per module (s)")
    ap.add_argument("--per-test-timeout", type=int, default=300)
    ap.add_argument("--sample", type=int, default=0, metavar="N",
                    help="at most N tests of each module, the same ones every run (0: all)")
    args = ap.parse_args(argv)
    env = dict(kv.split("=", 1) for kv in args.env)
    s = run_suite(args.suite, subset=args.subset, only=[m for m in args.only.split(",") if m],
                  tests=args.tests, env=env, tag=args.tag, timeout=args.timeout,
                  per_test_timeout=args.per_test_timeout, sample=args.sample)
    print(f"\n{args.suite}: {s['passed']}/{s['total']} passed ({100 * s['pass_rate']:.1f}%) "
          f"{s['counts']} in {s['seconds']:.0f}s; report {s['report']}")
    for n, cat, ex, msg in s["categories"][:40]:
        print(f"{n:5d}  {cat}\n       e.g. {ex}\n       {msg}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
